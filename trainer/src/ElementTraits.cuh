// bf16/f16 arithmetic as the decode kernels do it (f32 in registers, one
// rounding where ATen rounds), tensor-core mma on 16-bit pairs, and the
// loads they use. Shared by the decode step's kernels.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace cudaperf::trainer::decode {

template <class T> struct Traits;

template <> struct Traits<__nv_bfloat16> {
  static __device__ __forceinline__ float low(std::uint32_t u) { return __uint_as_float(u << 16); }
  static __device__ __forceinline__ float high(std::uint32_t u) { return __uint_as_float(u & 0xffff0000u); }
  static __device__ __forceinline__ std::uint32_t pack(float a, float b) {
    __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<std::uint32_t *>(&v);
  }
  static __device__ __forceinline__ float round(float a) { return __bfloat162float(__float2bfloat16_rn(a)); }
  static __device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 fromFloat(float a) { return __float2bfloat16_rn(a); }
  static __device__ __forceinline__ void mma(float (&c)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                             std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
};

template <> struct Traits<__half> {
  static __device__ __forceinline__ float low(std::uint32_t u) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(u & 0xffffu)));
  }
  static __device__ __forceinline__ float high(std::uint32_t u) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(u >> 16)));
  }
  static __device__ __forceinline__ std::uint32_t pack(float a, float b) {
    __half2 v = __floats2half2_rn(a, b);
    return *reinterpret_cast<std::uint32_t *>(&v);
  }
  static __device__ __forceinline__ float round(float a) { return __half2float(__float2half_rn(a)); }
  static __device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half fromFloat(float a) { return __float2half_rn(a); }
  static __device__ __forceinline__ void mma(float (&c)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                             std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
};

// Weights are read once per step: past L1.
__device__ __forceinline__ uint4 loadStreaming(const void *p) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}

__device__ __forceinline__ uint4 loadShared(const void *p) { return __ldg(reinterpret_cast<const uint4 *>(p)); }

// x * rinv * w for 8 elements, rounded once.
template <class T> __device__ __forceinline__ uint4 normalize(uint4 x, float rinv, uint4 w) {
  using E = Traits<T>;
  auto one = [&](std::uint32_t xv, std::uint32_t wv) {
    return E::pack(E::low(xv) * rinv * E::low(wv), E::high(xv) * rinv * E::high(wv));
  };
  return make_uint4(one(x.x, w.x), one(x.y, w.y), one(x.z, w.z), one(x.w, w.w));
}

} // namespace cudaperf::trainer::decode
