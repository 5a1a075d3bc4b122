// Minimal stand-in for the CUDA headers, so most lit tests need no SDK
// (compile with -nocudainc -nocudalib). Declares only what the tests use.
#pragma once

#include "__clang_cuda_builtin_vars.h"

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))

typedef __SIZE_TYPE__ size_t;

struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};

typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };

// The device pass of Clang 19 looks for the pre-CUDA-9 launch API.
extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0, cudaStream_t stream = 0);
extern "C" int __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0,
                                           cudaStream_t stream = 0);

cudaError_t cudaMalloc(void **ptr, size_t size);
template <class T> cudaError_t cudaMalloc(T **ptr, size_t size) { return cudaMalloc((void **)ptr, size); }
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned flags = 1);
template <class T> cudaError_t cudaMallocManaged(T **ptr, size_t size, unsigned flags = 1) {
  return cudaMallocManaged((void **)ptr, size, flags);
}
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemset(void *dst, int value, size_t count);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

struct __align__(8) float2 { float x, y; };
struct __align__(16) float4 { float x, y, z, w; };
struct __align__(16) int4 { int x, y, z, w; };
struct __align__(16) double2 { double x, y; };
__host__ __device__ float4 make_float4(float x, float y, float z, float w);
__host__ __device__ float2 make_float2(float x, float y);

struct __half { unsigned short bits; };
__device__ __half __hadd(__half a, __half b);
__device__ __half __hmul(__half a, __half b);
__device__ __half __hfma(__half a, __half b, __half c);
__device__ __half __float2half(float f);
__device__ float __half2float(__half h);
struct __nv_bfloat16 { unsigned short bits; };
__device__ __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b);

__device__ void __syncthreads();
__device__ int __syncthreads_count(int predicate);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ float __shfl_down_sync(unsigned mask, float value, unsigned delta, int width = 32);
__device__ float __shfl_xor_sync(unsigned mask, float value, int laneMask, int width = 32);
__device__ float __shfl_sync(unsigned mask, float value, int srcLane, int width = 32);
__device__ unsigned __ballot_sync(unsigned mask, int predicate);

__device__ float atomicAdd(float *address, float value);
__device__ int atomicAdd(int *address, int value);
__device__ unsigned atomicAdd(unsigned *address, unsigned value);
__device__ int atomicMax(int *address, int value);
__device__ int atomicCAS(int *address, int compare, int value);

__device__ float __ldg(const float *address);
__device__ float4 __ldg(const float4 *address);

__device__ float sqrtf(float x);
__device__ float expf(float x);
__device__ float __expf(float x);
__device__ float fmaxf(float a, float b);
__device__ float fminf(float a, float b);
__device__ float fabsf(float x);
__device__ float fmaf(float a, float b, float c);
__device__ float rsqrtf(float x);
__device__ float tanhf(float x);
__device__ float logf(float x);

namespace nvcuda {
namespace wmma {
struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment { T x[8]; };
template <class Use, int M, int N, int K, class T, class Layout>
__device__ void load_matrix_sync(fragment<Use, M, N, K, T, Layout> &a, const T *p, unsigned ldm);
template <class Use, int M, int N, int K, class T, class Layout>
__device__ void fill_fragment(fragment<Use, M, N, K, T, Layout> &a, T v);
template <class A, class B, class C, class D> __device__ void mma_sync(D &d, const A &a, const B &b, const C &c);
template <class Use, int M, int N, int K, class T, class Layout>
__device__ void store_matrix_sync(T *p, const fragment<Use, M, N, K, T, Layout> &a, unsigned ldm, layout_t layout);
} // namespace wmma
} // namespace nvcuda
