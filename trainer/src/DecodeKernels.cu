// The decode step's kernels (DecodeKernels.h says what each computes).
//
// projectRows: y = x W^T for at most 64 rows of x, on tensor cores. A block
// owns 8 (or, for SiluGate, 2 x 16) rows of W; its 8 warps split the input
// features in chunks of 32 and each warp keeps a 16 x 8 accumulator per
// 16 rows of x. W is read once, 16 bytes per lane per load; the dot product
// does not care about the order of k, so each lane's 8 contiguous weights
// become the B fragments of two m16n8k16 steps and the same 8 columns of x
// their A fragments (the PTX fragment layout renumbered, identically for A
// and B). Warps' partial sums meet in shared memory in a fixed order: the
// result does not depend on timing.
//
// attendOneToken: one block per (row, kv head, block of 32 keys), one warp
// per query head of the kv head's group. Its reads are issued at once
// (cp.async); it prepares q (and, in the block that holds this token, k and
// v: RMSNorm, rotary, written to the cache), scores its keys (a lane per
// key), and writes its softmax partials;
// the last block of a (row, kv head) to finish combines them in split order.
// Only the row's real keys [first, slot] are read.
#include "cudaperf/trainer/DecodeKernels.h"

#include "DependentLaunch.cuh"
#include "ElementTraits.cuh"
#include "WarpReduce.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>

namespace cudaperf::trainer::decode {

namespace {

// A projection block's shape, per epilogue and m-tiles of x (tuned on the
// H200 with cudaperf-decode-bench at Qwen2-0.5B's shape):
// - warps: the norm kernels keep 8; o and down, whose 8-row tiles number
//   fewer than the SMs at small models (896 / 8 = 112), take 16, so that one
//   block per SM keeps twice the loads of W in flight;
// - blocks per SM (__launch_bounds__, hence the registers a thread may use):
//   gate/up's 4864 / 16 = 304 blocks fit one wave at three a SM (at two, a
//   second partial wave: 14.8 us against 9.0 us);
// - the load budget: 16-byte loads a lane issues before it uses any (W, x
//   and the norm's weight), what those registers allow.
template <Epilogue EP> __host__ __device__ constexpr int projectionWarps() {
  return EP == Epilogue::AddInPlace ? 16 : 8;
}
template <Epilogue EP, int MT> __host__ __device__ constexpr int projectionBlocksPerSm() {
  if (projectionWarps<EP>() != 8 || MT > 2)
    return 1;
  return EP == Epilogue::SiluGate ? 3 : 2;
}
template <Epilogue EP, int MT> __host__ __device__ constexpr int projectionLoadBudget() {
  return projectionBlocksPerSm<EP, MT>() >= 3 ? 12 : 24;
}
// Keys per attention block. 64 (fewer blocks, each twice the serial work)
// measured slower on the H200: 11.1 us against 9.4 us at 16 rows, 320 keys.
// A cluster of 8 blocks per (row, kv head) combining through distributed
// shared memory made the decode step slower (0.932 ms against 0.821 ms,
// docs/training.md).
constexpr int kKeysPerBlock = 32;

// Prefetch ranges as the kernels take them.
struct PrefetchRanges {
  const char *data[kMaxPrefetches];
  unsigned long long bytes[kMaxPrefetches];
};

PrefetchRanges prefetchRanges(const Prefetch (&prefetch)[kMaxPrefetches]) {
  PrefetchRanges ranges{};
  for (int i = 0; i < kMaxPrefetches; ++i) {
    ranges.data[i] = static_cast<const char *>(prefetch[i].data);
    ranges.bytes[i] = prefetch[i].data ? prefetch[i].bytes : 0;
  }
  return ranges;
}

// This block's contiguous share of each range into L2, a 128-byte line per
// thread at a time: requests that need no register and no wait, issued after
// the block's own loads so that those go first.
__device__ __forceinline__ void prefetchShare(const PrefetchRanges &ranges) {
  const unsigned long long blocks = gridDim.x * gridDim.y, block = blockIdx.y * gridDim.x + blockIdx.x;
#pragma unroll
  for (int i = 0; i < kMaxPrefetches; ++i) {
    const unsigned long long lines = (ranges.bytes[i] + 127) / 128;
    const unsigned long long share = (lines + blocks - 1) / blocks;
    const unsigned long long begin = block * share, end = min(lines, begin + share);
    for (unsigned long long line = begin + threadIdx.x; line < end; line += blockDim.x)
      asm volatile("prefetch.global.L2 [%0];\n" ::"l"(ranges.data[i] + line * 128));
  }
}

struct ProjectParams {
  const void *x, *weight, *bias, *normWeight;
  void *out;
  float eps;
  int rows, in, outFeatures;
  PrefetchRanges prefetch;
};

// First row of W that tile `tile` of this block covers, this lane's row in it.
template <int NT, Epilogue EP> __device__ __forceinline__ int weightRow(int tile, int outFeatures, int group) {
  if constexpr (EP == Epilogue::SiluGate)
    return ((tile & 1) ? outFeatures : 0) + (blockIdx.x * (NT / 2) + tile / 2) * 8 + group;
  else
    return (blockIdx.x * NT + tile) * 8 + group;
}

template <class T, int MT, int NT, Prologue PR, Epilogue EP>
__global__ void __launch_bounds__(projectionWarps<EP>() * 32, projectionBlocksPerSm<EP, MT>())
    projectKernel(ProjectParams p) {
  constexpr int kWarps = projectionWarps<EP>(), kThreads = kWarps * 32;
  using E = Traits<T>;
  __shared__ float rinv[kMaxRows];
  __shared__ float partial[kWarps][NT][128];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane >> 2, quad = lane & 3;
  const int chunks = p.in / 32;
  const T *x = static_cast<const T *>(p.x);
  const T *weight = static_cast<const T *>(p.weight);
  const T *normWeight = static_cast<const T *>(p.normWeight);

  const T *rowOf[NT];
#pragma unroll
  for (int t = 0; t < NT; ++t)
    rowOf[t] = weight + static_cast<long>(weightRow<NT, EP>(t, p.outFeatures, group)) * p.in + quad * 8;

  // Every load of kUnroll chunks (W from DRAM, x and the norm's weight from
  // L2) is issued before any is used: one round trip per kUnroll chunks, and
  // the first one's overlaps the norm's prologue.
  constexpr bool kNorm = PR == Prologue::RmsNorm;
  constexpr int kLoadsPerChunk = NT + 2 * MT + (kNorm ? 1 : 0);
  constexpr int kBudget = projectionLoadBudget<EP, MT>();
  constexpr int kUnroll = kBudget / kLoadsPerChunk > 8   ? 8
                          : kBudget / kLoadsPerChunk < 1 ? 1
                                                         : kBudget / kLoadsPerChunk;
  constexpr int kStep = kWarps * kUnroll;
  uint4 w[kUnroll][NT], xa[kUnroll][MT], xb[kUnroll][MT], nw[kUnroll];
  auto loadWeights = [&](int c0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int c = c0 + u * kWarps;
      if (c >= chunks)
        break;
#pragma unroll
      for (int t = 0; t < NT; ++t)
        w[u][t] = loadStreaming(rowOf[t] + c * 32);
    }
  };
  auto loadInputs = [&](int c0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int c = c0 + u * kWarps;
      if (c >= chunks)
        break;
      const int k = c * 32 + quad * 8;
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const int rowA = m * 16 + group, rowB = rowA + 8;
        xa[u][m] = rowA < p.rows ? loadShared(x + static_cast<long>(rowA) * p.in + k) : make_uint4(0, 0, 0, 0);
        xb[u][m] = rowB < p.rows ? loadShared(x + static_cast<long>(rowB) * p.in + k) : make_uint4(0, 0, 0, 0);
      }
      if constexpr (kNorm)
        nw[u] = loadShared(normWeight + k);
    }
  };
  // W's first loads and the prefetch overlap the previous kernel; x is its result.
  loadWeights(warp);
  prefetchShare(p.prefetch);
  letNextLaunch();
  waitForPrevious();
  loadInputs(warp);

  if constexpr (kNorm) {
    // A warp's rows two at a time, each lane's loads of both (up to 4 x 16
    // bytes a row per round) issued before any is summed: a round trip to L2
    // per round, not per load.
    constexpr int kPerRound = 4, kRowsAtOnce = 2;
    const int vectors = p.in / 8;
    for (int r0 = warp; r0 < p.rows; r0 += kRowsAtOnce * kWarps) {
      float squares[kRowsAtOnce] = {};
      for (int c0 = 0; c0 < vectors; c0 += 32 * kPerRound) {
        uint4 v[kRowsAtOnce][kPerRound];
#pragma unroll
        for (int j = 0; j < kRowsAtOnce; ++j)
#pragma unroll
          for (int i = 0; i < kPerRound; ++i) {
            const int r = r0 + j * kWarps, c = c0 + lane + 32 * i;
            v[j][i] = r < p.rows && c < vectors ? loadShared(x + static_cast<long>(r) * p.in + c * 8)
                                                : make_uint4(0, 0, 0, 0);
          }
#pragma unroll
        for (int j = 0; j < kRowsAtOnce; ++j)
#pragma unroll
          for (int i = 0; i < kPerRound; ++i) {
            const std::uint32_t words[4] = {v[j][i].x, v[j][i].y, v[j][i].z, v[j][i].w};
#pragma unroll
            for (std::uint32_t u : words)
              squares[j] += E::low(u) * E::low(u) + E::high(u) * E::high(u);
          }
      }
#pragma unroll
      for (int j = 0; j < kRowsAtOnce; ++j) {
        const float total = warpSum(squares[j]);
        const int r = r0 + j * kWarps;
        if (lane == 0 && r < p.rows)
          rinv[r] = rsqrtf(total / static_cast<float>(p.in) + p.eps);
      }
    }
    __syncthreads();
  }

  float acc[MT][NT][4];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        acc[m][t][r] = 0;

  for (int c0 = warp; c0 < chunks; c0 += kStep) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (c0 + u * kWarps >= chunks)
        break;
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        uint4 a = xa[u][m], b = xb[u][m];
        if constexpr (kNorm) {
          const int rowA = m * 16 + group, rowB = rowA + 8;
          if (rowA < p.rows)
            a = normalize<T>(a, rinv[rowA], nw[u]);
          if (rowB < p.rows)
            b = normalize<T>(b, rinv[rowB], nw[u]);
        }
#pragma unroll
        for (int t = 0; t < NT; ++t) {
          E::mma(acc[m][t], a.x, b.x, a.y, b.y, w[u][t].x, w[u][t].y);
          E::mma(acc[m][t], a.z, b.z, a.w, b.w, w[u][t].z, w[u][t].w);
        }
      }
    }
    if (c0 + kStep < chunks) {
      loadWeights(c0 + kStep);
      loadInputs(c0 + kStep);
    }
  }

  // Per 16 rows of x: the warps' fragments summed in warp order, then the epilogue
  // on pairs of adjacent outputs (fragment registers 0-1 and 2-3).
  T *out = static_cast<T *>(p.out);
  const T *bias = static_cast<const T *>(p.bias);
  constexpr int kPairsPerTile = 64;
  constexpr int kOutputTiles = EP == Epilogue::SiluGate ? NT / 2 : NT;
#pragma unroll
  for (int m = 0; m < MT; ++m) {
#pragma unroll
    for (int t = 0; t < NT; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        partial[warp][t][lane * 4 + r] = acc[m][t][r];
    __syncthreads();
    for (int e = threadIdx.x; e < kPairsPerTile * kOutputTiles; e += kThreads) {
      const int tile = e / kPairsPerTile, pair = e % kPairsPerTile;
      const int fragLane = pair / 2, upper = pair % 2; // registers 2 * upper, 2 * upper + 1
      const int row = m * 16 + (fragLane >> 2) + 8 * upper;
      if (row >= p.rows)
        continue;
      auto sum = [&](int t, int r) {
        float s = 0;
        for (int w = 0; w < kWarps; ++w)
          s += partial[w][t][fragLane * 4 + r];
        return s;
      };
      const int r0 = 2 * upper;
      if constexpr (EP == Epilogue::SiluGate) {
        const int column = (blockIdx.x * (NT / 2) + tile) * 8 + (fragLane & 3) * 2;
        auto act = [&](float gate, float up) {
          const float g = E::round(gate);
          return E::round(g / (1.0f + expf(-g))) * E::round(up);
        };
        const float a0 = act(sum(2 * tile, r0), sum(2 * tile + 1, r0));
        const float a1 = act(sum(2 * tile, r0 + 1), sum(2 * tile + 1, r0 + 1));
        *reinterpret_cast<std::uint32_t *>(out + static_cast<long>(row) * p.outFeatures + column) = E::pack(a0, a1);
      } else {
        const int column = (blockIdx.x * NT + tile) * 8 + (fragLane & 3) * 2;
        float v0 = sum(tile, r0), v1 = sum(tile, r0 + 1);
        std::uint32_t *target =
            reinterpret_cast<std::uint32_t *>(out + static_cast<long>(row) * p.outFeatures + column);
        if constexpr (EP == Epilogue::AddInPlace) {
          const std::uint32_t old = *target;
          v0 += E::low(old);
          v1 += E::high(old);
        } else if (bias) {
          v0 += E::toFloat(bias[column]);
          v1 += E::toFloat(bias[column + 1]);
        }
        *target = E::pack(v0, v1);
      }
    }
    __syncthreads();
  }
}

template <class T, int MT, Prologue PR, Epilogue EP> void launchProject(const ProjectArgs &a, cudaStream_t stream) {
  constexpr int NT = EP == Epilogue::SiluGate ? 4 : 1;
  const int rowsPerBlock = EP == Epilogue::SiluGate ? 16 : 8;
  const ProjectParams params{a.x,   a.weight, a.bias,       a.normWeight,  a.out,
                             a.eps, a.rows,   a.inFeatures, a.outFeatures, prefetchRanges(a.prefetch)};
  launchKernel("projectRows", projectKernel<T, MT, NT, PR, EP>, dim3(a.outFeatures / rowsPerBlock),
               projectionWarps<EP>() * 32, a.overlapPrevious, stream, params);
}

template <class T, Prologue PR, Epilogue EP> void dispatchRows(const ProjectArgs &a, cudaStream_t stream) {
  switch ((a.rows + 15) / 16) {
  case 1:
    return launchProject<T, 1, PR, EP>(a, stream);
  case 2:
    return launchProject<T, 2, PR, EP>(a, stream);
  case 3:
    return launchProject<T, 3, PR, EP>(a, stream);
  default:
    return launchProject<T, 4, PR, EP>(a, stream);
  }
}

template <class T> void dispatchProject(const ProjectArgs &a, cudaStream_t stream) {
  if (a.prologue == Prologue::RmsNorm && a.epilogue == Epilogue::Store)
    return dispatchRows<T, Prologue::RmsNorm, Epilogue::Store>(a, stream);
  if (a.prologue == Prologue::RmsNorm && a.epilogue == Epilogue::SiluGate)
    return dispatchRows<T, Prologue::RmsNorm, Epilogue::SiluGate>(a, stream);
  if (a.prologue == Prologue::Plain && a.epilogue == Epilogue::AddInPlace)
    return dispatchRows<T, Prologue::Plain, Epilogue::AddInPlace>(a, stream);
  throw std::invalid_argument("projectRows: this prologue and epilogue are not built together (DecodeKernels.h)");
}

// x is read through the read-only path while out is written: they must not share bytes.
bool overlaps(const ProjectArgs &a) {
  const std::size_t element = 2;
  auto begin = [](const void *p) { return reinterpret_cast<std::uintptr_t>(p); };
  const std::uintptr_t x0 = begin(a.x), x1 = x0 + element * a.rows * a.inFeatures;
  const std::uintptr_t o0 = begin(a.out), o1 = o0 + element * a.rows * a.outFeatures;
  return x0 < o1 && o0 < x1;
}

bool aligned16(const void *p) { return p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// ---- attention ----

struct AttendParams {
  const void *qkv, *rotary, *qNorm, *kNorm;
  void *cache, *out;
  const std::int64_t *slot, *first;
  float *partials;
  int *counters;
  float eps;
  int heads, kvHeads, capacity, splits;
  PrefetchRanges prefetch;
};

// This lane's PER elements (d = lane + 32 i) of a head, RMS-normalised when
// normWeight is set and rotated when rotary is, each rounded as ATen rounds
// (the norm's result, then the rotation's). Rotate-half pairs d with
// d + D/2: element i with element (i + PER/2) % PER of the same lane.
template <class T, int D>
__device__ __forceinline__ void prepareHead(const T *head, const T *normWeight, float eps, const float *cosRow,
                                            const float *sinRow, bool rotate, float (&v)[D / 32]) {
  using E = Traits<T>;
  constexpr int PER = D / 32;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < PER; ++i)
    v[i] = E::toFloat(head[lane + 32 * i]);
  if (normWeight) {
    float squares = 0;
#pragma unroll
    for (int i = 0; i < PER; ++i)
      squares += v[i] * v[i];
    const float scale = rsqrtf(warpSum(squares) / static_cast<float>(D) + eps);
#pragma unroll
    for (int i = 0; i < PER; ++i)
      v[i] = E::round(v[i] * scale * E::toFloat(normWeight[lane + 32 * i]));
  }
  if (rotate) {
    float r[PER];
#pragma unroll
    for (int i = 0; i < PER; ++i) {
      const int d = lane + 32 * i;
      r[i] = E::round(v[i] * cosRow[d] + v[(i + PER / 2) % PER] * sinRow[d]);
    }
#pragma unroll
    for (int i = 0; i < PER; ++i)
      v[i] = r[i];
  }
}

__device__ __forceinline__ void copyAsync16(void *shared, const void *global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}

__device__ __forceinline__ void waitAsyncCopies() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// One block per (block of kKeysPerBlock keys, row, kv head); warp g of the block is
// query head g of the kv head's group (a warp's serial work is one head's).
template <class T, int D> __global__ void __launch_bounds__(32 * kMaxGroupSize) attendKernel(AttendParams p) {
  using E = Traits<T>;
  constexpr int PER = D / 32, KPB = kKeysPerBlock, KPL = KPB / 32; // keys per lane
  constexpr int kRow = D + 8; // padded: lane j reading key row j hits distinct banks
  constexpr int kChunks = D / 8;
  __shared__ __align__(16) T keyTile[KPB][kRow];
  __shared__ __align__(16) T valueTile[KPB][kRow];
  __shared__ __align__(16) T heads[(kMaxGroupSize + 2) * D]; // this kv head's G query heads, then k, then v
  __shared__ __align__(16) T rotaryRow[2 * D];
  __shared__ float q[kMaxGroupSize][D];
  __shared__ float newKey[D], newValue[D], cosRow[D], sinRow[D];
  __shared__ float weight[kMaxGroupSize][KPB];
  __shared__ int arrivedBefore;
  const int lane = threadIdx.x % 32, g = threadIdx.x / 32, split = blockIdx.x, rowHead = blockIdx.y;
  const int K = p.kvHeads, G = p.heads / p.kvHeads;
  const int b = rowHead / K, kvHead = rowHead % K;
  // A row whose first real slot is past this one sees only itself (as the ATen
  // mask lets it). Read before the wait: the slot changes only between steps
  // (the sampler's record kernel, followed by a kernel launched without the
  // dependent-launch attribute, the embedding lookup, which waits for it).
  const long slot = *p.slot, first = min(p.first[b], slot);
  const int length = static_cast<int>(slot - first) + 1; // keys [first, slot]
  if (split * KPB >= length) {
    prefetchShare(p.prefetch); // the blocks past the row's keys only prefetch
    return;
  }
  const int activeSplits = (length + KPB - 1) / KPB;
  const bool holdsThisToken = split == activeSplits - 1;
  const long base = first + static_cast<long>(split) * KPB;
  const int inBlock = min(KPB, length - split * KPB);

  // Every global read of the block in flight at once (cp.async): the cached
  // keys and values of this block (not this token's slot: it is written now)
  // and the rotary row while the previous kernel still runs, then the q
  // heads and this token's k and v, its results.
  T *keys = static_cast<T *>(p.cache) + (static_cast<long>(b) * K + kvHead) * p.capacity * D;
  T *values = keys + static_cast<long>(gridDim.y) * p.capacity * D; // the cache's second half
  for (int i = threadIdx.x; i < inBlock * kChunks; i += blockDim.x) {
    const int j = i / kChunks, c = i % kChunks;
    if (base + j != slot) {
      copyAsync16(&keyTile[j][c * 8], keys + (base + j) * D + c * 8);
      copyAsync16(&valueTile[j][c * 8], values + (base + j) * D + c * 8);
    }
  }
  const T *rotary = static_cast<const T *>(p.rotary) + static_cast<long>(length - 1) * 2 * D;
  for (int i = threadIdx.x; i < 2 * kChunks; i += blockDim.x)
    copyAsync16(rotaryRow + i * 8, rotary + i * 8);
  prefetchShare(p.prefetch);
  letNextLaunch();
  waitForPrevious();
  const T *row = static_cast<const T *>(p.qkv) + static_cast<long>(b) * (p.heads + 2 * K) * D;
  for (int i = threadIdx.x; i < G * kChunks; i += blockDim.x)
    copyAsync16(heads + i * 8, row + kvHead * G * D + i * 8);
  if (holdsThisToken)
    for (int i = threadIdx.x; i < 2 * kChunks; i += blockDim.x) {
      const int which = i / kChunks, c = i % kChunks; // 0: k, 1: v
      copyAsync16(heads + (G + which) * D + c * 8, row + (p.heads + which * K + kvHead) * D + c * 8);
    }
  waitAsyncCopies();
  __syncthreads();
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    cosRow[d] = E::toFloat(rotaryRow[d]);
    sinRow[d] = E::toFloat(rotaryRow[D + d]);
  }
  __syncthreads();

  const T *qNorm = static_cast<const T *>(p.qNorm), *kNorm = static_cast<const T *>(p.kNorm);
  {
    float v[PER];
    prepareHead<T, D>(heads + g * D, qNorm, p.eps, cosRow, sinRow, true, v);
#pragma unroll
    for (int i = 0; i < PER; ++i)
      q[g][lane + 32 * i] = v[i];
  }
  if (holdsThisToken && g == 0) {
    float k[PER], v[PER];
    prepareHead<T, D>(heads + G * D, kNorm, p.eps, cosRow, sinRow, true, k);
    prepareHead<T, D>(heads + (G + 1) * D, nullptr, p.eps, cosRow, sinRow, false, v);
#pragma unroll
    for (int i = 0; i < PER; ++i) {
      const int d = lane + 32 * i;
      newKey[d] = k[i];
      newValue[d] = v[i];
      keys[slot * D + d] = E::fromFloat(k[i]);
      values[slot * D + d] = E::fromFloat(v[i]);
    }
  }
  __syncthreads();

  // Scores of head g: lane j takes keys base + j + 32 k.
  float scaled[KPL];
  float best = -INFINITY;
#pragma unroll
  for (int k = 0; k < KPL; ++k) {
    const int j = lane + 32 * k;
    const long position = base + j;
    float score = 0;
    if (j < inBlock) {
      if (position == slot) {
#pragma unroll 8
        for (int d = 0; d < D; ++d)
          score += newKey[d] * q[g][d];
      } else {
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const uint4 packed = *reinterpret_cast<const uint4 *>(&keyTile[j][c * 8]);
          const float *qc = &q[g][c * 8];
          score += E::low(packed.x) * qc[0] + E::high(packed.x) * qc[1] + E::low(packed.y) * qc[2] +
                   E::high(packed.y) * qc[3] + E::low(packed.z) * qc[4] + E::high(packed.z) * qc[5] +
                   E::low(packed.w) * qc[6] + E::high(packed.w) * qc[7];
        }
      }
    }
    scaled[k] = j < inBlock ? score * (1.0f / sqrtf(static_cast<float>(D))) : -INFINITY;
    best = fmaxf(best, scaled[k]);
  }
  best = warpMax(best); // lane 0's first key is real: finite
  float laneMass = 0;
#pragma unroll
  for (int k = 0; k < KPL; ++k) {
    const float e = lane + 32 * k < inBlock ? expf(scaled[k] - best) : 0.0f;
    weight[g][lane + 32 * k] = e;
    laneMass += e;
  }
  const float total = warpSum(laneMass);
  __syncwarp();

  float acc[PER];
#pragma unroll
  for (int i = 0; i < PER; ++i)
    acc[i] = 0;
  for (int j = 0; j < inBlock; ++j) {
    const bool mine = base + j == slot;
    const float w = weight[g][j];
#pragma unroll
    for (int i = 0; i < PER; ++i)
      acc[i] += w * (mine ? newValue[lane + 32 * i] : E::toFloat(valueTile[j][lane + 32 * i]));
  }

  T *out = static_cast<T *>(p.out) + static_cast<long>(b) * p.heads * D + (kvHead * G + g) * D;
  if (activeSplits == 1) {
#pragma unroll
    for (int i = 0; i < PER; ++i)
      out[lane + 32 * i] = E::fromFloat(acc[i] / total);
    return;
  }
  // Partials [rowHead][split][g][D + 2]: the unnormalised sum, the max, the mass.
  const int stride = D + 2;
  float *mine = p.partials + ((static_cast<long>(rowHead) * p.splits + split) * G + g) * stride;
#pragma unroll
  for (int i = 0; i < PER; ++i)
    mine[lane + 32 * i] = acc[i];
  if (lane == 0) {
    mine[D] = best;
    mine[D + 1] = total;
  }
  // One thread's fence after the barrier publishes the whole block's
  // partials (the barrier orders them before it), as a grid barrier does; the
  // last block's fence after the atomic, before its barrier, orders its reads.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    arrivedBefore = atomicAdd(p.counters + rowHead, 1);
    __threadfence();
  }
  __syncthreads();
  if (arrivedBefore != activeSplits - 1)
    return;
  // The last block: warp g combines head g, the splits' maxima and masses
  // read by the lanes in parallel, each lane's dimensions summed in split order.
  const float *all = p.partials + static_cast<long>(rowHead) * p.splits * G * stride;
  float *factor = weight[g]; // reused: one per split of this head
  float top = -INFINITY;
  for (int s = lane; s < activeSplits; s += 32)
    top = fmaxf(top, __ldcg(all + (s * G + g) * stride + D));
  top = warpMax(top);
  float mass = 0;
  float sum[PER];
#pragma unroll
  for (int i = 0; i < PER; ++i)
    sum[i] = 0;
  for (int s0 = 0; s0 < activeSplits; s0 += 32) {
    const int s = s0 + lane;
    float f = 0;
    if (s < activeSplits) {
      f = expf(__ldcg(all + (s * G + g) * stride + D) - top);
      mass += __ldcg(all + (s * G + g) * stride + D + 1) * f;
    }
    __syncwarp();
    factor[lane] = f;
    __syncwarp();
    const int n = min(32, activeSplits - s0);
#pragma unroll 4
    for (int j = 0; j < n; ++j) {
      const float *part = all + ((s0 + j) * G + g) * stride;
#pragma unroll
      for (int i = 0; i < PER; ++i)
        sum[i] += __ldcg(part + lane + 32 * i) * factor[j];
    }
  }
  mass = warpSum(mass);
#pragma unroll
  for (int i = 0; i < PER; ++i)
    out[lane + 32 * i] = E::fromFloat(sum[i] / mass);
  if (threadIdx.x == 0)
    p.counters[rowHead] = 0; // ready for the next layer and step
}

template <class T, int D> void launchAttend(const AttendArgs &a, cudaStream_t stream) {
  AttendParams params{
      a.qkv,      a.rotary,   a.qNorm, a.kNorm, a.cache,   a.out,      a.slot, a.first,
      a.partials, a.counters, a.eps,   a.heads, a.kvHeads, a.capacity, 0,      prefetchRanges(a.prefetch)};
  params.splits = (a.capacity + kKeysPerBlock - 1) / kKeysPerBlock;
  launchKernel("attendOneToken", attendKernel<T, D>, dim3(params.splits, a.batch * a.kvHeads),
               32 * (a.heads / a.kvHeads), a.overlapPrevious, stream, params);
}

template <class T> void dispatchAttend(const AttendArgs &a, cudaStream_t stream) {
  if (a.headDim == 64)
    launchAttend<T, 64>(a, stream);
  else
    launchAttend<T, 128>(a, stream);
}

} // namespace

bool kernelsRunHere() {
  cudaFuncAttributes attributes{};
  const bool runs =
      cudaFuncGetAttributes(&attributes, projectKernel<__nv_bfloat16, 1, 1, Prologue::RmsNorm, Epilogue::Store>) ==
      cudaSuccess;
  if (!runs)
    cudaGetLastError(); // no image for this device: not an error of a later launch
  return runs;
}

bool projectionFits(const ProjectArgs &a) {
  const int rowsPerBlock = a.epilogue == Epilogue::SiluGate ? 16 : 8;
  return a.rows > 0 && a.rows <= kMaxRows && a.inFeatures > 0 && a.inFeatures % 32 == 0 && a.outFeatures > 0 &&
         a.outFeatures % rowsPerBlock == 0 && aligned16(a.x) && aligned16(a.weight) && aligned16(a.normWeight) &&
         reinterpret_cast<std::uintptr_t>(a.out) % 4 == 0 &&
         (a.prologue == Prologue::Plain || a.normWeight != nullptr) &&
         (a.bias == nullptr || a.epilogue == Epilogue::Store) && !overlaps(a);
}

void projectRows(const ProjectArgs &args, void *stream) {
  if (!projectionFits(args))
    throw std::invalid_argument("projectRows: a shape or alignment these kernels do not take");
  auto s = static_cast<cudaStream_t>(stream);
  if (args.element == Element::BF16)
    dispatchProject<__nv_bfloat16>(args, s);
  else
    dispatchProject<__half>(args, s);
}

bool attentionFits(const AttendArgs &a) {
  return (a.headDim == 64 || a.headDim == 128) && a.kvHeads > 0 && a.heads % a.kvHeads == 0 &&
         a.heads / a.kvHeads <= kMaxGroupSize && a.batch > 0 && a.capacity > 0 && aligned16(a.cache) &&
         aligned16(a.qkv) && aligned16(a.rotary) && aligned16(a.out);
}

std::size_t attentionPartialFloats(int batch, int heads, int kvHeads, int headDim, int capacity) {
  const std::size_t splits = (capacity + kKeysPerBlock - 1) / kKeysPerBlock;
  return static_cast<std::size_t>(batch) * kvHeads * splits * (heads / kvHeads) * (headDim + 2);
}

void attendOneToken(const AttendArgs &args, void *stream) {
  if (!attentionFits(args))
    throw std::invalid_argument("attendOneToken: a head size or grouping these kernels do not take");
  auto s = static_cast<cudaStream_t>(stream);
  if (args.element == Element::BF16)
    dispatchAttend<__nv_bfloat16>(args, s);
  else
    dispatchAttend<__half>(args, s);
}

} // namespace cudaperf::trainer::decode
