// The head of the decode step (DecodeKernels.h, projectLogits): final RMSNorm
// and logits = x W^T for at most kMaxLogitsRows (48) rows of x, W the
// [vocab, E] embedding or lm_head, into f32.
//
// W (272 MB for Qwen2-0.5B) dwarfs x (16 x 896 values): every block keeps
// all rows of x, normalized, in shared memory, and each warp streams its own
// tiles of 8 rows of W over the whole E (no reduction between warps), a
// group of kGroup 16-byte loads a lane in flight while it multiplies the
// previous group (two register buffers). The fragments are those of
// projectRows (DecodeKernels.cu): a lane's 8 contiguous weights are the B
// fragments of two m16n8k16 steps, the same 8 columns of x their A fragments.
// A persistent grid (one block a SM) walks the tiles; W's first group is
// loaded before the dependent launch waits for x.
#include "cudaperf/trainer/DecodeKernels.h"

#include "DependentLaunch.cuh"
#include "ElementTraits.cuh"
#include "WarpReduce.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

namespace cudaperf::trainer::decode {

namespace {

// The shape (swept on the H200 with cudaperf-decode-bench; the macros exist
// for that sweep): warps a block, blocks a SM, chunks a buffer, and the L2
// fetch size a load asks for (0: none; 128 or 256 bytes pull the rest of W's
// row segment into L2 with the first load that touches it). At 16 rows, us:
// 12 warps, 14 chunks, no hint 77.1; L2::128B 73.3; L2::256B 74.8;
// 16 warps, 10 chunks, 256B 73.5; 16 warps, 8 chunks, 128B 73.4; 8 warps
// x 2 a SM, 10 chunks, 256B 75.0; 24 warps, 6 chunks, 256B 75.5.
#ifndef CUDAPERF_LOGITS_WARPS
#define CUDAPERF_LOGITS_WARPS 16
#endif
#ifndef CUDAPERF_LOGITS_BLOCKS_PER_SM
#define CUDAPERF_LOGITS_BLOCKS_PER_SM 1
#endif
#ifndef CUDAPERF_LOGITS_GROUP
#define CUDAPERF_LOGITS_GROUP 8
#endif
#ifndef CUDAPERF_LOGITS_L2_FETCH
#define CUDAPERF_LOGITS_L2_FETCH 128
#endif
constexpr int kLogitsWarps = CUDAPERF_LOGITS_WARPS, kLogitsThreads = kLogitsWarps * 32;
constexpr int kLogitsBlocksPerSm = CUDAPERF_LOGITS_BLOCKS_PER_SM;
// Chunks of 32 features a lane has in flight per buffer; more m-tiles of x
// need the registers for their sums.
template <int MT> __host__ __device__ constexpr int loadGroup() {
  return MT == 1 ? CUDAPERF_LOGITS_GROUP : (CUDAPERF_LOGITS_GROUP + 1) / 2;
}

// W's rows, read once: past L1, with the L2 fetch size above.
__device__ __forceinline__ uint4 loadWeights(const void *p) {
  uint4 v;
#if CUDAPERF_LOGITS_L2_FETCH == 256
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
#elif CUDAPERF_LOGITS_L2_FETCH == 128
  asm("ld.global.nc.L1::no_allocate.L2::128B.v4.u32 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
#else
  v = loadStreaming(p);
#endif
  return v;
}
// Rows of x in shared memory are padded so that a row starts 64 bytes off the
// previous one modulo 128: the 8 lanes of a shared-memory phase (two rows,
// four quads of 16 bytes) hit distinct banks.
__host__ __device__ constexpr int sharedRowElements(int in) { return in % 64 == 0 ? in + 32 : in; }

struct LogitsParams {
  const void *x, *normWeight, *weight;
  float *out;
  float eps;
  int rows, in, vocab;
};

template <class T, int MT>
__global__ void __launch_bounds__(kLogitsThreads, kLogitsBlocksPerSm) logitsKernel(LogitsParams p) {
  using E = Traits<T>;
  constexpr int kGroup = loadGroup<MT>();
  extern __shared__ uint4 sharedWords[];
  T *xs = reinterpret_cast<T *>(sharedWords);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane >> 2, quad = lane & 3;
  const int chunks = p.in / 32, groupsPerTile = (chunks + kGroup - 1) / kGroup, tiles = p.vocab / 8;
  const int stride = sharedRowElements(p.in);
  const int warps = gridDim.x * kLogitsWarps, firstTile = blockIdx.x * kLogitsWarps + warp;
  const int myTiles = firstTile < tiles ? (tiles - firstTile + warps - 1) / warps : 0;
  const int steps = myTiles * groupsPerTile; // (tile, group) pairs this warp streams, in order
  const T *weight = static_cast<const T *>(p.weight);

  uint4 bufferA[kGroup], bufferB[kGroup];
  auto issue = [&](uint4(&buffer)[kGroup], int s) {
    if (s >= steps)
      return;
    const int tile = firstTile + (s / groupsPerTile) * warps, g0 = (s % groupsPerTile) * kGroup;
    const T *row = weight + static_cast<long>(tile * 8 + group) * p.in + quad * 8;
#pragma unroll
    for (int i = 0; i < kGroup; ++i)
      if (g0 + i < chunks)
        buffer[i] = loadWeights(row + (g0 + i) * 32);
  };
  float acc[MT][4];
#pragma unroll
  for (int m = 0; m < MT; ++m)
    acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0;
  auto consume = [&](const uint4(&buffer)[kGroup], int s) {
    if (s >= steps)
      return;
    const int g = s % groupsPerTile, g0 = g * kGroup;
#pragma unroll
    for (int i = 0; i < kGroup; ++i) {
      if (g0 + i >= chunks)
        break;
      const int k = (g0 + i) * 32 + quad * 8;
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const uint4 a = *reinterpret_cast<const uint4 *>(xs + (m * 16 + group) * stride + k);
        const uint4 b = *reinterpret_cast<const uint4 *>(xs + (m * 16 + group + 8) * stride + k);
        E::mma(acc[m], a.x, b.x, a.y, b.y, buffer[i].x, buffer[i].y);
        E::mma(acc[m], a.z, b.z, a.w, b.w, buffer[i].z, buffer[i].w);
      }
    }
    if (g != groupsPerTile - 1)
      return;
    // Registers 0-1: row `group`, outputs 2 quad and 2 quad + 1 of the tile; 2-3: row group + 8.
    const int tile = firstTile + (s / groupsPerTile) * warps, column = tile * 8 + quad * 2;
#pragma unroll
    for (int m = 0; m < MT; ++m) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = m * 16 + group + 8 * half;
        if (r < p.rows) // each logit rounded to the model's element, as ATen's linear, then f32
          *reinterpret_cast<float2 *>(p.out + static_cast<long>(r) * p.vocab + column) =
              make_float2(E::round(acc[m][2 * half]), E::round(acc[m][2 * half + 1]));
        acc[m][2 * half] = acc[m][2 * half + 1] = 0;
      }
    }
  };

  issue(bufferA, 0); // W needs nothing of the step: in flight while the previous kernel finishes
  letNextLaunch();
  waitForPrevious();

  // x into shared memory, normalized and rounded once (the projection's
  // prologue): a warp per row, rows past the batch zero.
  const T *x = static_cast<const T *>(p.x);
  const T *normWeight = static_cast<const T *>(p.normWeight);
  const int vectors = p.in / 8;
  for (int r = warp; r < MT * 16; r += kLogitsWarps) {
    T *target = xs + r * stride;
    if (r >= p.rows) {
      for (int v = lane; v < vectors; v += 32)
        reinterpret_cast<uint4 *>(target)[v] = make_uint4(0, 0, 0, 0);
      continue;
    }
    const T *source = x + static_cast<long>(r) * p.in;
    float squares = 0;
    for (int v = lane; v < vectors; v += 32) {
      const uint4 u = loadShared(source + v * 8);
      const std::uint32_t words[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
      for (std::uint32_t w : words)
        squares += E::low(w) * E::low(w) + E::high(w) * E::high(w);
    }
    const float rinv = rsqrtf(warpSum(squares) / static_cast<float>(p.in) + p.eps);
    for (int v = lane; v < vectors; v += 32)
      reinterpret_cast<uint4 *>(target)[v] =
          normalize<T>(loadShared(source + v * 8), rinv, loadShared(normWeight + v * 8));
  }
  __syncthreads();

  for (int s = 0; s < steps; s += 2) {
    issue(bufferB, s + 1);
    consume(bufferA, s);
    issue(bufferA, s + 2);
    consume(bufferB, s + 1);
  }
}

std::size_t sharedBytes(int mTiles, int in) {
  return static_cast<std::size_t>(mTiles) * 16 * sharedRowElements(in) * 2;
}

int mTilesOf(int rows) { return (rows + 15) / 16; }

template <class T, int MT> void launchLogits(const LogitsArgs &a, cudaStream_t stream) {
  auto kernel = logitsKernel<T, MT>;
  const std::size_t bytes = sharedBytes(MT, a.inFeatures);
  int device = 0, sms = 0, optIn = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  // The device's whole opt-in, the same value at every launch: threads launching
  // for models of other widths never lower it under each other.
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optIn) != cudaSuccess)
    throw std::runtime_error("projectLogits: shared memory for x refused");
  const LogitsParams params{a.x, a.normWeight, a.weight, a.out, a.eps, a.rows, a.inFeatures, a.vocab};
  const int blocks = std::min(sms * kLogitsBlocksPerSm, (a.vocab / 8 + kLogitsWarps - 1) / kLogitsWarps);
  launchKernelShared("projectLogits", kernel, dim3(blocks), kLogitsThreads, bytes, a.overlapPrevious, stream, params);
}

template <class T> void dispatchLogits(const LogitsArgs &a, cudaStream_t stream) {
  switch (mTilesOf(a.rows)) {
  case 1:
    return launchLogits<T, 1>(a, stream);
  case 2:
    return launchLogits<T, 2>(a, stream);
  default: // logitsFit: at most three m-tiles
    return launchLogits<T, 3>(a, stream);
  }
}

bool aligned(const void *p, std::uintptr_t bytes) { return p && reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

} // namespace

bool logitsFit(const LogitsArgs &a) {
  if (a.rows <= 0 || a.rows > kMaxLogitsRows || a.inFeatures <= 0 || a.inFeatures % 32 != 0 || a.vocab <= 0 ||
      a.vocab % 8 != 0 || !aligned(a.x, 16) || !aligned(a.normWeight, 16) || !aligned(a.weight, 16) ||
      !aligned(a.out, 8))
    return false;
  int device = 0, limit = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return false;
  return sharedBytes(mTilesOf(a.rows), a.inFeatures) <= static_cast<std::size_t>(limit);
}

void projectLogits(const LogitsArgs &args, void *stream) {
  if (!logitsFit(args))
    throw std::invalid_argument("projectLogits: a shape or alignment this kernel does not take");
  auto s = static_cast<cudaStream_t>(stream);
  if (args.element == Element::BF16)
    dispatchLogits<__nv_bfloat16>(args, s);
  else
    dispatchLogits<__half>(args, s);
}

} // namespace cudaperf::trainer::decode
