// The sampler's step bookkeeping (StepRecordKernel.h says what it computes):
// one block whose threads take rows in turn; the counters advance after the
// block's barrier, once every row has read this step's column.
#include "cudaperf/trainer/StepRecordKernel.h"

#include "DependentLaunch.cuh"

#include <stdexcept>

namespace cudaperf::trainer::decode {

namespace {

constexpr int kRecordThreads = 256;

struct StopIds {
  std::int64_t ids[kMaxRecordStopIds];
  int count;
};

__global__ void __launch_bounds__(kRecordThreads)
    recordKernel(const std::int64_t *drawn, const float *drawnLogProbs, std::int64_t *tokens, float *logProbs,
                 bool *finished, std::int64_t *lastToken, std::int64_t *slot, std::int64_t *column, StopIds stops,
                 std::int64_t padId, int rows, std::int64_t columns) {
  waitForPrevious(); // everything read here is the draw's result or the previous step's
  const std::int64_t c = *column;
  for (int b = threadIdx.x; b < rows; b += kRecordThreads) {
    const bool done = finished[b];
    const std::int64_t token = done ? padId : drawn[b];
    const float logp = done || !drawnLogProbs ? 0.0f : drawnLogProbs[b];
    if (c >= 0 && c < columns) {
      tokens[static_cast<long long>(b) * columns + c] = token;
      logProbs[static_cast<long long>(b) * columns + c] = logp;
    }
    bool stopped = done;
    for (int i = 0; i < stops.count; ++i)
      stopped = stopped || token == stops.ids[i];
    finished[b] = stopped;
    lastToken[b] = token;
  }
  // No early launch of the next kernel: the next step's attention reads the
  // slot before it waits (DecodeKernels.cu), which holds only because the
  // kernel after this one waits for it to complete (the embedding lookup).
  __syncthreads();
  if (threadIdx.x == 0) {
    *slot += 1;
    *column = c + 1;
  }
}

} // namespace

bool recordFits(const RecordArgs &a) {
  return a.drawn && a.tokens && a.logProbs && a.finished && a.lastToken && a.slot && a.column && a.rows > 0 &&
         a.columns > 0 && a.stops >= 0 && a.stops <= kMaxRecordStopIds;
}

void recordStep(const RecordArgs &a, void *stream) {
  if (!recordFits(a))
    throw std::invalid_argument("recordStep: a buffer is missing, or more stop ids than the kernel takes");
  StopIds stops{};
  for (int i = 0; i < a.stops; ++i)
    stops.ids[i] = a.stopIds[i];
  stops.count = a.stops;
  launchKernel("recordStep", recordKernel, dim3(1), kRecordThreads, a.overlapPrevious,
               static_cast<cudaStream_t>(stream), a.drawn, a.drawnLogProbs, a.tokens, a.logProbs, a.finished,
               a.lastToken, a.slot, a.column, stops, a.padId, a.rows, a.columns);
}

} // namespace cudaperf::trainer::decode
