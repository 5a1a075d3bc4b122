// The sampler's bookkeeping after a decode step's draw, in one kernel (built
// where the decode kernels are): the ATen step takes a dozen kernels of a few
// elements each for it (finished rows to padding, two index copies, a compare
// and an or per stop id, the next input, two counters), and in a CUDA graph
// each costs its launch. Per row b, with c = *column:
//
//   token = finished[b] ? padId : drawn[b]     logp = finished[b] ? 0 : drawnLogProbs[b]
//   tokens[b, c] = token    logProbs[b, c] = logp    lastToken[b] = token
//   finished[b] |= token is a stop id
//
// then *slot += 1 and *column += 1 (once all rows have read c). The same
// values as Sampler.cpp's ATen bookkeeping, bit for bit.
// Plain C++ here: no CUDA or LibTorch header, the caller passes its stream.
#pragma once

#include <cstdint>

namespace cudaperf::trainer::decode {

constexpr int kMaxRecordStopIds = 16;

struct RecordArgs {
  const std::int64_t *drawn = nullptr;  // [rows]: this step's tokens
  const float *drawnLogProbs = nullptr; // [rows], or null: log-prob 0 (greedy)
  std::int64_t *tokens = nullptr;       // [rows, columns]: the generation so far
  float *logProbs = nullptr;            // [rows, columns]
  bool *finished = nullptr;             // [rows]
  std::int64_t *lastToken = nullptr;    // [rows]: the next step's input
  std::int64_t *slot = nullptr;         // one value, advanced by one
  std::int64_t *column = nullptr;       // one value: this step's column, advanced by one
  std::int64_t stopIds[kMaxRecordStopIds] = {};
  int stops = 0;
  std::int64_t padId = 0;
  int rows = 0;
  std::int64_t columns = 0;
  bool overlapPrevious = true; // a dependent launch (DecodeKernels.h): changes no result
};

// Whether recordStep takes these: every pointer but drawnLogProbs set, rows
// > 0, columns > 0, at most kMaxRecordStopIds stop ids. A column at or past
// `columns` writes no token (as the graph's step never reaches one).
bool recordFits(const RecordArgs &args);
void recordStep(const RecordArgs &args, void *stream);

} // namespace cudaperf::trainer::decode
