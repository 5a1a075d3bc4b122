// The decode step's own CUDA kernels (built where LibTorch has CUDA and nvcc
// is found): a decode step of a small model at batch <= 64 is bound by
// kernel count and by GEMMs too short for cuBLAS's tiles, so a layer is five
// launches here, each a full pass over its weights:
//
//   1. RMSNorm + q/k/v projection (+ bias)        projectRows(RmsNorm, Store)
//   2. q/k RMSNorm + rotary + cache write + attention over the row's
//      real keys, split over key blocks            attendOneToken
//   3. o projection + residual, in place           projectRows(Plain, AddInPlace)
//   4. RMSNorm + gate/up projection + silu(g) * u  projectRows(RmsNorm, SiluGate)
//   5. down projection + residual, in place        projectRows(Plain, AddInPlace)
//
// and after the last layer the head, final RMSNorm + x W^T into f32 logits
// (projectLogits), where ATen takes a norm, cuBLAS's GEMM and a cast.
//
// Rounding follows the ATen path (PolicyModel's other decode): f32
// accumulation, bf16/f16 results rounded where ATen rounds them; the two
// paths differ by summation order and by the attention weights, which stay
// f32 here (SDPA's kernels may round them to bf16 before the product with v). Plain C++ here: no CUDA or LibTorch
// header, the caller passes its stream as a void *.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudaperf::trainer::decode {

enum class Element { BF16, F16 };

// Whether the current device can run this build's kernels (the library holds
// an image for its architecture: sm_80 and later as built). The callers'
// ATen paths run where it cannot.
bool kernelsRunHere();

// Bytes a later kernel of the step reads (its weights): the launch pulls them
// into L2 while it runs, so that their DRAM time overlaps this kernel and the
// next one finds them in L2. A hint: it changes no result.
struct Prefetch {
  const void *data = nullptr;
  std::size_t bytes = 0;
};
constexpr int kMaxPrefetches = 2;

// overlapPrevious: launched as a programmatic dependent launch (sm_90 and
// later; ignored before): the kernel starts while the previous kernel of the
// stream still runs and reads its weights (attention: the cached keys and
// values of earlier steps) meanwhile, its inputs only once that kernel has
// completed. It changes no result; a decode step of many short kernels loses
// less to each kernel's launch and ramp.

enum class Prologue {
  Plain,  // x as it is
  RmsNorm // x * rsqrt(mean(x^2) + eps) * normWeight, rounded once (at::rms_norm)
};

enum class Epilogue {
  Store,      // out = x W^T (+ bias)
  AddInPlace, // out += x W^T: the residual, read and written
  SiluGate    // W is [gate; up] (2 * outFeatures rows): out = silu(x Wg^T) * (x Wu^T)
};

struct ProjectArgs {
  Element element = Element::BF16;
  Prologue prologue = Prologue::Plain;
  Epilogue epilogue = Epilogue::Store;
  const void *x = nullptr;      // [rows, inFeatures]
  const void *weight = nullptr; // [outFeatures (x2 for SiluGate), inFeatures], row-major
  const void *bias = nullptr;   // [outFeatures] or null (Store only)
  const void *normWeight = nullptr;
  float eps = 0;
  void *out = nullptr; // [rows, outFeatures]
  int rows = 0, inFeatures = 0, outFeatures = 0;
  Prefetch prefetch[kMaxPrefetches];
  bool overlapPrevious = true;
};

// Built together (what a layer uses): RmsNorm + Store, RmsNorm + SiluGate,
// Plain + AddInPlace; projectRows refuses the other pairs.
// Whether projectRows takes this shape: rows <= kMaxRows, inFeatures a
// multiple of 32, outFeatures of 8 (16 for SiluGate), 16-byte aligned pointers,
// x and out not overlapping.
constexpr int kMaxRows = 64;
bool projectionFits(const ProjectArgs &args);
void projectRows(const ProjectArgs &args, void *stream);

struct AttendArgs {
  Element element = Element::BF16;
  const void *qkv = nullptr;                     // [batch, (heads + 2 kvHeads) * headDim]: this token's q, k, v
  void *cache = nullptr;                         // [2, batch, kvHeads, capacity, headDim]: keys, values
  const std::int64_t *slot = nullptr;            // device, one value: this token's slot
  const std::int64_t *first = nullptr;           // device [batch]: each row's first real slot
  const void *rotary = nullptr;                  // [positions, 2, headDim]: cos, sin with its first half negated
  const void *qNorm = nullptr, *kNorm = nullptr; // [headDim] each (Qwen3) or null
  float eps = 0;
  float *partials = nullptr; // attentionPartialFloats() floats
  int *counters = nullptr;   // batch * kvHeads ints, zero before the first call (each call leaves them zero)
  void *out = nullptr;       // [batch, heads * headDim]
  int batch = 0, heads = 0, kvHeads = 0, headDim = 0, capacity = 0;
  Prefetch prefetch[kMaxPrefetches];
  bool overlapPrevious = true;
};

// headDim 64 or 128, at most kMaxGroupSize query heads per kv head.
constexpr int kMaxGroupSize = 16;
bool attentionFits(const AttendArgs &args);
std::size_t attentionPartialFloats(int batch, int heads, int kvHeads, int headDim, int capacity);
void attendOneToken(const AttendArgs &args, void *stream);

struct LogitsArgs {
  Element element = Element::BF16;
  const void *x = nullptr;          // [rows, inFeatures]: the residual stream after the last layer
  const void *normWeight = nullptr; // [inFeatures]: the final norm's
  float eps = 0;
  const void *weight = nullptr; // [vocab, inFeatures], row-major: lm_head (or the tied embedding)
  float *out = nullptr;         // [rows, vocab]: each logit rounded to the element, then f32 (ATen's linear, .to(f32))
  int rows = 0, inFeatures = 0, vocab = 0;
  bool overlapPrevious = true;
};

// Rows the head kernel takes: past three m-tiles its multiplies (x read from
// shared memory per 8 rows of W) outlast cuBLAS's GEMM. H200, Qwen2-0.5B's
// head, us, this kernel against ATen's norm + GEMM + cast: 16 rows 73.8 / 91.0,
// 32: 91.9 / 100.2, 48: 106.9 / 110.1, 64: 128.6 / 116.5.
constexpr int kMaxLogitsRows = 48;

// Whether projectLogits takes this shape: rows <= kMaxLogitsRows, inFeatures a
// multiple of 32, vocab of 8, x (16 rows a tile, normalized) fitting one
// block's shared memory on the current device, 16-byte aligned x, W and norm
// weight, 8-byte aligned out.
bool logitsFit(const LogitsArgs &args);
void projectLogits(const LogitsArgs &args, void *stream);

} // namespace cudaperf::trainer::decode
