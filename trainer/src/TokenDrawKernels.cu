// The sampler's draw (TokenDrawKernels.h says what it computes).
//
// chunkStatsKernel: one block per (chunk of kChunk ids, row). Each thread
// holds 16 scaled logits; the block takes the chunk's max, then each warp the
// sums of exp(x - max) of the inverse-CDF blocks its lanes hold (a warp's
// 32 x 4 contiguous ids are one block of 128).
//
// drawKernel: one block per row. The masses of the row's blocks relative to
// the row's max (each block's sum rescaled by its chunk's max), their
// prefix sums (CUB's block scan), the first block whose cumulative mass
// reaches u * total, then warp 0 scans that block's 128 ids the same way.
// The log-prob is x / T - (max + log(total)), as log_softmax computes it.
#include "cudaperf/trainer/TokenDrawKernels.h"

#include "DependentLaunch.cuh"
#include "WarpReduce.cuh"

#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace cudaperf::trainer::decode {

namespace {

constexpr int kStatsThreads = 256, kVectorsPerThread = 4;
constexpr int kChunk = kStatsThreads * kVectorsPerThread * 4; // ids per stats block: 4096
static_assert(kChunk % kInverseCdfBlock == 0 && kInverseCdfBlock == 128,
              "a warp's 32 float4 loads are one inverse-CDF block");
constexpr int kDrawThreads = 1024, kBlocksPerThread = 4;
static_assert(kMaxDrawVocab / kInverseCdfBlock <= kDrawThreads * kBlocksPerThread, "the draw's scan covers a row");

struct Layout {
  int blocksPerRow, chunksPerRow;
};

Layout layoutOf(int vocab) {
  return {(vocab + kInverseCdfBlock - 1) / kInverseCdfBlock, (vocab + kChunk - 1) / kChunk};
}

// exp(x - max) that is 0, not NaN, where the max itself is -inf (a row or chunk of no mass).
__device__ __forceinline__ float relativeMass(float x, float max) { return max == -INFINITY ? 0.0f : expf(x - max); }

__global__ void __launch_bounds__(kStatsThreads)
    chunkStatsKernel(const float *logits, float inverseTemperature, int vocab, Layout layout, float *blockSums,
                     float *chunkMax) {
  __shared__ float warpMaxima[kStatsThreads / 32];
  const int row = blockIdx.y, chunk = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float *x = logits + static_cast<long>(row) * vocab + static_cast<long>(chunk) * kChunk;
  letNextLaunch();
  waitForPrevious(); // the logits are the previous kernel's result
  float v[kVectorsPerThread][4];
  float best = -INFINITY;
  bool nanSeen = false;
#pragma unroll
  for (int j = 0; j < kVectorsPerThread; ++j) {
    const int first = (threadIdx.x + kStatsThreads * j) * 4; // vocab % 4 == 0: a vector is all in or all out
    if (chunk * kChunk + first < vocab) {
      const float4 f = __ldg(reinterpret_cast<const float4 *>(x + first));
      v[j][0] = f.x * inverseTemperature, v[j][1] = f.y * inverseTemperature, v[j][2] = f.z * inverseTemperature,
      v[j][3] = f.w * inverseTemperature;
    } else {
      v[j][0] = v[j][1] = v[j][2] = v[j][3] = -INFINITY;
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      best = fmaxf(best, v[j][e]);
      nanSeen = nanSeen || isnan(v[j][e]);
    }
  }
  best = warpMax(best);
  if (lane == 0)
    warpMaxima[warp] = best;
  const bool chunkNaN = __syncthreads_or(nanSeen);
  float top = -INFINITY;
#pragma unroll
  for (int w = 0; w < kStatsThreads / 32; ++w)
    top = fmaxf(top, warpMaxima[w]);
#pragma unroll
  for (int j = 0; j < kVectorsPerThread; ++j) {
    float mass = 0;
#pragma unroll
    for (int e = 0; e < 4; ++e)
      mass += relativeMass(v[j][e], top);
    mass = warpSum(mass);
    // Warp w's vectors j are ids [4 (32 w + 256 j), + 128): block 8 j + w of the chunk.
    const int block = chunk * (kChunk / kInverseCdfBlock) + (kStatsThreads / 32) * j + warp;
    if (lane == 0 && block < layout.blocksPerRow)
      blockSums[static_cast<long>(row) * layout.blocksPerRow + block] = mass;
  }
  if (threadIdx.x == 0) // a NaN logit marks its chunk (fmaxf would drop it)
    chunkMax[static_cast<long>(row) * layout.chunksPerRow + chunk] = chunkNaN ? NAN : top;
}

__global__ void __launch_bounds__(kDrawThreads)
    drawKernel(const float *logits, const float *uniforms, const std::int64_t *uniformRow, float inverseTemperature,
               int vocab, Layout layout, const float *blockSums, const float *chunkMax, std::int64_t *tokens,
               float *logProbs) {
  using Scan = cub::BlockScan<float, kDrawThreads>;
  __shared__ typename Scan::TempStorage scanStorage;
  __shared__ float maxima[kDrawThreads / 32], ends[kDrawThreads / 32];
  __shared__ int chosenBlock;
  __shared__ float massBefore;
  const int row = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float *rowChunkMax = chunkMax + static_cast<long>(row) * layout.chunksPerRow;
  const float *rowSums = blockSums + static_cast<long>(row) * layout.blocksPerRow;
  waitForPrevious(); // the block sums are chunkStatsKernel's result
  const float u = uniformRow ? uniforms[*uniformRow * gridDim.x + row] : uniforms[row];

  float best = -INFINITY;
  bool nanSeen = false;
  for (int c = threadIdx.x; c < layout.chunksPerRow; c += kDrawThreads) {
    best = fmaxf(best, rowChunkMax[c]);
    nanSeen = nanSeen || isnan(rowChunkMax[c]);
  }
  best = warpMax(best);
  if (lane == 0)
    maxima[warp] = best;
  if (threadIdx.x == 0)
    chosenBlock = INT_MAX;
  // A NaN logit: no distribution (ATen's log-softmax is NaN as well).
  const bool rowNaN = __syncthreads_or(nanSeen);
  float top = -INFINITY;
  for (int w = 0; w < kDrawThreads / 32; ++w)
    top = fmaxf(top, maxima[w]);

  // Masses of blocks [4 t, 4 t + 4) relative to the row's max, and their prefix sums.
  float mass[kBlocksPerThread], running = 0;
#pragma unroll
  for (int i = 0; i < kBlocksPerThread; ++i) {
    const int b = threadIdx.x * kBlocksPerThread + i;
    mass[i] =
        b < layout.blocksPerRow ? rowSums[b] * relativeMass(rowChunkMax[b / (kChunk / kInverseCdfBlock)], top) : 0.0f;
    running += mass[i];
  }
  float start, total;
  Scan(scanStorage).ExclusiveSum(running, start, total);
  // Each block's cumulative mass, and the row's largest over blocks of mass:
  // the threads' sums associate differently from the scan's total and may
  // end a few ulps below it, so the target is kept at or below that end (u
  // near 1 draws where the cumulative mass stops growing, never past it).
  float before[kBlocksPerThread], after[kBlocksPerThread], end = -INFINITY;
  {
    float c = start;
#pragma unroll
    for (int i = 0; i < kBlocksPerThread; ++i) {
      before[i] = c;
      c += mass[i];
      after[i] = c;
      if (mass[i] > 0)
        end = c;
    }
  }
  end = warpMax(end);
  if (lane == 0)
    ends[warp] = end;
  __syncthreads();
  float rowEnd = -INFINITY;
  for (int w = 0; w < kDrawThreads / 32; ++w)
    rowEnd = fmaxf(rowEnd, ends[w]);
  const float target = fminf(u * total, rowEnd);
  // The first block of mass whose cumulative mass reaches the target.
#pragma unroll
  for (int i = 0; i < kBlocksPerThread; ++i)
    if (mass[i] > 0 && after[i] >= target)
      atomicMin(&chosenBlock, static_cast<int>(threadIdx.x) * kBlocksPerThread + i);
  __syncthreads();
  const int block = chosenBlock;
  if (block != INT_MAX && block / kBlocksPerThread == static_cast<int>(threadIdx.x))
    massBefore = before[block % kBlocksPerThread];
  __syncthreads();
  if (warp != 0)
    return;
  if (block == INT_MAX || rowNaN) { // a row of no mass (all -inf) or with a NaN
    if (lane == 0)
      tokens[row] = 0, logProbs[row] = NAN;
    return;
  }
  // The block's ids with masses as its sum was taken (relative to its
  // chunk's max: a block of mass has an id of mass), the target in those units.
  const float chunkTop = rowChunkMax[block / (kChunk / kInverseCdfBlock)];
  const float inBlockTarget = (target - massBefore) / relativeMass(chunkTop, top);
  const long base = static_cast<long>(block) * kInverseCdfBlock;
  const float *x = logits + static_cast<long>(row) * vocab + base;
  float q[4], scaled[4];
  const bool inRange = base + 4 * lane < vocab;
  const float4 f = inRange ? __ldg(reinterpret_cast<const float4 *>(x + 4 * lane)) : make_float4(0, 0, 0, 0);
  scaled[0] = f.x * inverseTemperature, scaled[1] = f.y * inverseTemperature, scaled[2] = f.z * inverseTemperature,
  scaled[3] = f.w * inverseTemperature;
  float laneMass = 0;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    q[e] = inRange ? relativeMass(scaled[e], chunkTop) : 0.0f;
    laneMass += q[e];
  }
  float inclusive = laneMass; // warp inclusive scan of the lanes' masses
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const float other = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset)
      inclusive += other;
  }
  float cumulative[4];
  {
    float c = inclusive - laneMass;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      c += q[e];
      cumulative[e] = c;
    }
  }
  // The first id of mass to reach the target. Where this scan ends a few
  // ulps short of the block's sum, none does: the block's last id of mass,
  // as inverseCdfDraw takes the block's last id (rescaled masses keep one).
  int mine = -1, lastMine = -1;
#pragma unroll
  for (int e = 3; e >= 0; --e)
    if (q[e] > 0) {
      if (lastMine < 0)
        lastMine = e;
      if (cumulative[e] >= inBlockTarget)
        mine = e;
    }
  const unsigned reached = __ballot_sync(0xffffffffu, mine >= 0);
  const unsigned withMass = __ballot_sync(0xffffffffu, lastMine >= 0); // not empty: the block has mass
  const int owner = reached ? __ffs(reached) - 1 : 31 - __clz(withMass);
  const int pick = max(__shfl_sync(0xffffffffu, reached ? mine : lastMine, owner), 0);
  float mineScaled = scaled[0];
#pragma unroll
  for (int e = 1; e < 4; ++e)
    if (e == pick)
      mineScaled = scaled[e];
  const float pickScaled = __shfl_sync(0xffffffffu, mineScaled, owner);
  if (lane == 0) {
    tokens[row] = base + 4 * owner + pick;
    logProbs[row] = (pickScaled - top) - logf(total); // as log_softmax: (x - max) - log(sum)
  }
}

} // namespace

bool drawFits(const DrawArgs &a) {
  return a.rows > 0 && a.rows <= 65535 && a.vocab > 0 && a.vocab % 4 == 0 && a.vocab <= kMaxDrawVocab &&
         a.temperature > 0 && reinterpret_cast<std::uintptr_t>(a.logits) % 16 == 0 && a.uniforms && a.tokens &&
         a.logProbs && a.workspace;
}

std::size_t drawWorkspaceFloats(int rows, int vocab) {
  const Layout layout = layoutOf(vocab);
  return static_cast<std::size_t>(rows) * (layout.blocksPerRow + layout.chunksPerRow);
}

void drawTokens(const DrawArgs &a, void *stream) {
  if (!drawFits(a))
    throw std::invalid_argument("drawTokens: a vocabulary, temperature or buffer these kernels do not take");
  const Layout layout = layoutOf(a.vocab);
  float *blockSums = a.workspace, *chunkMax = a.workspace + static_cast<std::size_t>(a.rows) * layout.blocksPerRow;
  auto s = static_cast<cudaStream_t>(stream);
  // x * (1 / T) in f32, as ATen divides a tensor by a scalar.
  const float inverseTemperature = 1.0f / a.temperature;
  launchKernel("drawTokens", chunkStatsKernel, dim3(layout.chunksPerRow, a.rows), kStatsThreads, a.overlapPrevious, s,
               a.logits, inverseTemperature, a.vocab, layout, blockSums, chunkMax);
  launchKernel("drawTokens", drawKernel, dim3(a.rows), kDrawThreads, a.overlapPrevious, s, a.logits, a.uniforms,
               a.uniformRow, inverseTemperature, a.vocab, layout, blockSums, chunkMax, a.tokens, a.logProbs);
}

} // namespace cudaperf::trainer::decode
