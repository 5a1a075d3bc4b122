// The sampler's draw in two kernels (built where the decode kernels are):
// for temperature > 0 without top-k or top-p, one token per row of f32
// logits [rows, vocab] and its log-prob, by the same inverse CDF as
// inverseCdfDraw (Sampler.h): ids in id order, in blocks of kInverseCdfBlock,
// the first block whose cumulative mass reaches u * total, then the first id
// in it. The ATen path takes some fifteen kernels over the [rows, vocab]
// logits per step; this one reads them once, then one block of each row.
// Plain C++ here: no CUDA or LibTorch header, the caller passes its stream.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudaperf::trainer::decode {

// The inverse CDF's first level: ids summed in blocks of this many (shared with Sampler.cpp's ATen draw).
constexpr int kInverseCdfBlock = 128;

struct DrawArgs {
  const float *logits = nullptr;            // [rows, vocab], contiguous, 16-byte aligned
  const float *uniforms = nullptr;          // [rows], in (0, 1); [steps, rows] where uniformRow is set
  const std::int64_t *uniformRow = nullptr; // device, one value, or null: the row of uniforms this draw takes
  float temperature = 1;                    // > 0: logits / temperature
  std::int64_t *tokens = nullptr;           // [rows]
  float *logProbs = nullptr;                // [rows]: log-softmax(logits / temperature) at the token
  float *workspace = nullptr;               // drawWorkspaceFloats(rows, vocab)
  int rows = 0, vocab = 0;
  bool overlapPrevious = true; // dependent launches (DecodeKernels.h): change no result
};

// Whether drawTokens takes this shape: vocab a multiple of 4, at most kMaxDrawVocab.
constexpr int kMaxDrawVocab = 1 << 19;
bool drawFits(const DrawArgs &args);
std::size_t drawWorkspaceFloats(int rows, int vocab);
void drawTokens(const DrawArgs &args, void *stream);

} // namespace cudaperf::trainer::decode
