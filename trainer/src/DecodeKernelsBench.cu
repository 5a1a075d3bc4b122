// cudaperf-decode-bench: the fused decode step's kernels alone (no LibTorch),
// on random weights of a model's shape (Qwen2-0.5B's by default): each kernel
// kind timed over every layer's own weights (so that L2 holds none of them),
// then the head (final norm + logits over --vocab ids, f32), then the whole
// stack of layers as one CUDA graph, with and without the L2
// prefetch of the next kernel's weights and with and without programmatic
// dependent launch (each kernel starting while the previous one runs),
// against the stack's bandwidth bound (weights + keys and values in use,
// once, at --bandwidth). Every variant must give the same bits.
//
//   cudaperf-decode-bench [--rows 16] [--context 320] [--layers 24] [--hidden 896]
//       [--intermediate 4864] [--heads 14] [--kv-heads 2] [--head-dim 64]
//       [--capacity 1024] [--vocab 151936] [--repeat 50] [--bandwidth 4.3e12]
#include "cudaperf/trainer/DecodeKernels.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace decode = cudaperf::trainer::decode;

namespace {

void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
}

// Deterministic values in [-scale, scale] (+ offset): a hash of the index.
__global__ void fillRandom(__nv_bfloat16 *data, std::size_t count, std::uint32_t seed, float scale, float offset) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed * 0x9e3779b9u;
    h ^= h >> 15;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    const float unit = static_cast<float>(h & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
    data[i] = __float2bfloat16_rn(offset + scale * unit);
  }
}

struct Shape {
  int rows = 16, context = 320, layers = 24, hidden = 896, intermediate = 4864, heads = 14, kvHeads = 2, headDim = 64,
      capacity = 1024, vocab = 151936, repeat = 50;
  double bandwidth = 4.3e12;
};

struct Buffer {
  void *data = nullptr;
  std::size_t bytes = 0;
};

class Model {
public:
  explicit Model(const Shape &s) : s_(s) {
    const std::size_t E = s.hidden, I = s.intermediate, D = s.headDim, H = s.heads, K = s.kvHeads;
    const std::size_t qkvRows = (H + 2 * K) * D;
    std::uint32_t seed = 1;
    auto make = [&](std::size_t count, float scale, float offset) {
      Buffer b{nullptr, count * 2};
      check(cudaMalloc(&b.data, b.bytes), "cudaMalloc");
      fillRandom<<<1024, 256>>>(static_cast<__nv_bfloat16 *>(b.data), count, seed++, scale, offset);
      owned_.push_back(b.data);
      return b;
    };
    for (int l = 0; l < s.layers; ++l) {
      Layer layer;
      layer.inputNorm = make(E, 0.1f, 1.0f);
      layer.qkv = make(qkvRows * E, 0.03f, 0);
      layer.qkvBias = make(qkvRows, 0.1f, 0);
      layer.output = make(E * H * D, 0.03f, 0);
      layer.postNorm = make(E, 0.1f, 1.0f);
      layer.gateUp = make(2 * I * E, 0.03f, 0);
      layer.down = make(E * I, 0.03f, 0);
      layer.cache = make(2 * s.rows * K * s.capacity * D, 1.0f, 0);
      layers_.push_back(layer);
    }
    rotary_ = make(static_cast<std::size_t>(s.capacity) * 2 * D, 1.0f, 0);
    finalNorm_ = make(E, 0.1f, 1.0f);
    head_ = make(static_cast<std::size_t>(s.vocab) * E, 0.03f, 0);
    check(cudaMalloc(&logits_, static_cast<std::size_t>(s.rows) * s.vocab * sizeof(float)), "cudaMalloc");
    hidden_ = make(s.rows * E, 1.0f, 0);
    qkvOut_ = make(s.rows * qkvRows, 1.0f, 0);
    attended_ = make(s.rows * H * D, 1.0f, 0);
    activated_ = make(s.rows * I, 1.0f, 0);
    check(cudaMalloc(&slot_, sizeof(std::int64_t)), "cudaMalloc");
    check(cudaMalloc(&first_, s.rows * sizeof(std::int64_t)), "cudaMalloc");
    const std::int64_t slot = s.context - 1;
    check(cudaMemcpy(slot_, &slot, sizeof slot, cudaMemcpyHostToDevice), "cudaMemcpy");
    // Rows start at different slots, as left-padded prompts of different lengths do.
    std::vector<std::int64_t> first(s.rows);
    for (int b = 0; b < s.rows; ++b)
      first[b] = (b * 7) % std::max(1, s.context / 8);
    check(cudaMemcpy(first_, first.data(), first.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice), "cudaMemcpy");
    const std::size_t floats = decode::attentionPartialFloats(s.rows, s.heads, s.kvHeads, s.headDim, s.capacity);
    check(cudaMalloc(&partials_, floats * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&counters_, s.rows * K * sizeof(int)), "cudaMalloc");
    check(cudaMemset(counters_, 0, s.rows * K * sizeof(int)), "cudaMemset");
    check(cudaDeviceSynchronize(), "fill");
  }
  ~Model() {
    for (void *p : owned_)
      cudaFree(p);
    cudaFree(slot_), cudaFree(first_), cudaFree(partials_), cudaFree(counters_), cudaFree(logits_);
  }

  enum Kind { Qkv, Attention, Output, GateUp, Down, Kinds };
  static const char *name(int kind) {
    static const char *names[] = {"norm+qkv", "attention", "o+residual", "norm+gate/up", "down+residual"};
    return names[kind];
  }

  // Bytes one call of this kind must read at least.
  double bytes(int kind) const {
    const Layer &l = layers_[0];
    const double kv = 2.0 * s_.rows * s_.kvHeads * s_.context * s_.headDim * 2;
    switch (kind) {
    case Qkv:
      return l.qkv.bytes;
    case Attention:
      return kv;
    case Output:
      return l.output.bytes;
    case GateUp:
      return l.gateUp.bytes;
    default:
      return l.down.bytes;
    }
  }

  // One kernel of layer l; with prefetch, the weights of a later kernel of the
  // step are pulled into L2 as PolicyModel's decode step does; with overlap,
  // it is a programmatic dependent launch.
  void launch(int kind, int l, bool prefetch, bool overlap, cudaStream_t stream) const {
    const Layer &layer = layers_[l];
    const Layer *next = l + 1 < s_.layers ? &layers_[l + 1] : nullptr;
    auto fetch = [&](const Buffer &b) { return decode::Prefetch{b.data, b.bytes}; };
    decode::ProjectArgs p;
    p.eps = 1e-6f;
    p.rows = s_.rows;
    p.overlapPrevious = overlap;
    if (kind == Attention) {
      decode::AttendArgs a;
      a.qkv = qkvOut_.data;
      a.cache = layer.cache.data;
      a.slot = static_cast<const std::int64_t *>(slot_);
      a.first = static_cast<const std::int64_t *>(first_);
      a.rotary = rotary_.data;
      a.eps = 1e-6f;
      a.partials = static_cast<float *>(partials_);
      a.counters = static_cast<int *>(counters_);
      a.out = attended_.data;
      a.batch = s_.rows, a.heads = s_.heads, a.kvHeads = s_.kvHeads, a.headDim = s_.headDim;
      a.capacity = s_.capacity;
      a.overlapPrevious = overlap;
      if (prefetch)
        a.prefetch[0] = fetch(layer.gateUp);
      decode::attendOneToken(a, stream);
      return;
    }
    if (kind == Qkv) {
      p.prologue = decode::Prologue::RmsNorm, p.epilogue = decode::Epilogue::Store;
      p.x = hidden_.data, p.weight = layer.qkv.data, p.bias = layer.qkvBias.data, p.normWeight = layer.inputNorm.data;
      p.out = qkvOut_.data, p.inFeatures = s_.hidden, p.outFeatures = (s_.heads + 2 * s_.kvHeads) * s_.headDim;
      if (prefetch)
        p.prefetch[0] = fetch(layer.output);
    } else if (kind == Output) {
      p.prologue = decode::Prologue::Plain, p.epilogue = decode::Epilogue::AddInPlace;
      p.x = attended_.data, p.weight = layer.output.data, p.out = hidden_.data;
      p.inFeatures = s_.heads * s_.headDim, p.outFeatures = s_.hidden;
      if (prefetch)
        p.prefetch[0] = fetch(layer.down);
    } else if (kind == GateUp) {
      p.prologue = decode::Prologue::RmsNorm, p.epilogue = decode::Epilogue::SiluGate;
      p.x = hidden_.data, p.weight = layer.gateUp.data, p.normWeight = layer.postNorm.data;
      p.out = activated_.data, p.inFeatures = s_.hidden, p.outFeatures = s_.intermediate;
      if (prefetch && next)
        p.prefetch[0] = fetch(next->qkv);
    } else {
      p.prologue = decode::Prologue::Plain, p.epilogue = decode::Epilogue::AddInPlace;
      p.x = activated_.data, p.weight = layer.down.data, p.out = hidden_.data;
      p.inFeatures = s_.intermediate, p.outFeatures = s_.hidden;
    }
    decode::projectRows(p, stream);
  }

  // The head after the last layer: final norm + logits in f32.
  void launchHead(bool overlap, cudaStream_t stream) const {
    decode::LogitsArgs a;
    a.x = hidden_.data, a.normWeight = finalNorm_.data, a.eps = 1e-6f, a.weight = head_.data;
    a.out = static_cast<float *>(logits_);
    a.rows = s_.rows, a.inFeatures = s_.hidden, a.vocab = s_.vocab;
    a.overlapPrevious = overlap;
    decode::projectLogits(a, stream);
  }
  double headBytes() const { return static_cast<double>(head_.bytes); }

  std::vector<Buffer> state() const { // what a step writes
    std::vector<Buffer> out{hidden_};
    for (const Layer &l : layers_)
      out.push_back(l.cache);
    return out;
  }
  double weightBytes() const {
    const Layer &l = layers_[0];
    return static_cast<double>(s_.layers) *
           (l.qkv.bytes + l.qkvBias.bytes + l.output.bytes + l.gateUp.bytes + l.down.bytes + 2 * l.inputNorm.bytes);
  }

private:
  struct Layer {
    Buffer inputNorm, qkv, qkvBias, output, postNorm, gateUp, down, cache;
  };
  Shape s_;
  std::vector<Layer> layers_;
  std::vector<void *> owned_;
  Buffer rotary_, hidden_, qkvOut_, attended_, activated_, finalNorm_, head_;
  void *logits_ = nullptr;
  void *slot_ = nullptr, *first_ = nullptr, *partials_ = nullptr, *counters_ = nullptr;
};

// Median microseconds of one replay of a graph of `body`.
double timeGraph(const std::function<void(cudaStream_t)> &body, int repeat, cudaStream_t stream) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
  body(stream);
  check(cudaStreamEndCapture(stream, &graph), "capture");
  check(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  for (int i = 0; i < 3; ++i)
    check(cudaGraphLaunch(exec, stream), "replay");
  cudaEvent_t start, stop;
  cudaEventCreate(&start), cudaEventCreate(&stop);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    cudaEventRecord(start, stream);
    check(cudaGraphLaunch(exec, stream), "replay");
    cudaEventRecord(stop, stream);
    check(cudaEventSynchronize(stop), "replay");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(1000.0 * ms);
  }
  cudaEventDestroy(start), cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec), cudaGraphDestroy(graph);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<std::vector<char>> snapshot(const std::vector<Buffer> &buffers) {
  std::vector<std::vector<char>> out;
  for (const Buffer &b : buffers) {
    out.emplace_back(b.bytes);
    check(cudaMemcpy(out.back().data(), b.data, b.bytes, cudaMemcpyDeviceToHost), "snapshot");
  }
  return out;
}

void restore(const std::vector<Buffer> &buffers, const std::vector<std::vector<char>> &saved) {
  for (std::size_t i = 0; i < buffers.size(); ++i)
    check(cudaMemcpy(buffers[i].data, saved[i].data(), buffers[i].bytes, cudaMemcpyHostToDevice), "restore");
}

Shape parse(int argc, char **argv) {
  Shape s;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
      throw std::invalid_argument(flag + " needs a value");
    const char *value = argv[++i];
    int *target = flag == "--rows"           ? &s.rows
                  : flag == "--context"      ? &s.context
                  : flag == "--layers"       ? &s.layers
                  : flag == "--hidden"       ? &s.hidden
                  : flag == "--intermediate" ? &s.intermediate
                  : flag == "--heads"        ? &s.heads
                  : flag == "--kv-heads"     ? &s.kvHeads
                  : flag == "--head-dim"     ? &s.headDim
                  : flag == "--capacity"     ? &s.capacity
                  : flag == "--repeat"       ? &s.repeat
                  : flag == "--vocab"        ? &s.vocab
                                             : nullptr;
    if (flag == "--bandwidth")
      s.bandwidth = std::atof(value);
    else if (target)
      *target = std::atoi(value);
    else
      throw std::invalid_argument("unknown flag " + flag);
  }
  if (s.context < 1 || s.context > s.capacity || s.rows < 1 || s.layers < 1 || s.repeat < 1)
    throw std::invalid_argument("need 1 <= context <= capacity, rows, layers and repeat >= 1");
  return s;
}

} // namespace

int main(int argc, char **argv) try {
  const Shape s = parse(argc, argv);
  Model model(s);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  std::printf("decode kernels: %d rows, %d keys in use, %d layers, hidden %d, intermediate %d, %d/%d heads of %d\n",
              s.rows, s.context, s.layers, s.hidden, s.intermediate, s.heads, s.kvHeads, s.headDim);
  std::printf("  %-14s %9s %9s %8s\n", "kernel", "us/call", "GB/s", "bound_us");
  double kindSum = 0, kvBytes = 0;
  std::string json = "{";
  for (int kind = 0; kind < Model::Kinds; ++kind) {
    const double us = timeGraph(
                          [&](cudaStream_t st) {
                            for (int l = 0; l < s.layers; ++l)
                              model.launch(kind, l, false, false, st);
                          },
                          s.repeat, stream) /
                      s.layers;
    const double bytes = model.bytes(kind);
    if (kind == Model::Attention)
      kvBytes = bytes * s.layers;
    kindSum += us * s.layers;
    std::printf("  %-14s %9.2f %9.0f %8.2f\n", Model::name(kind), us, bytes / us / 1e3, 1e6 * bytes / s.bandwidth);
    json += std::string(kind ? ", " : "") + "\"" + Model::name(kind) + "_us\": " + std::to_string(us);
  }

  {
    const double us = timeGraph([&](cudaStream_t st) { model.launchHead(false, st); }, s.repeat, stream);
    const double bytes = model.headBytes();
    std::printf("  %-14s %9.2f %9.0f %8.2f\n", "norm+head", us, bytes / us / 1e3, 1e6 * bytes / s.bandwidth);
    json += ", \"norm+head_us\": " + std::to_string(us);
  }

  // The stack of layers, as the decode step runs it, in each variant.
  struct Variant {
    const char *name;
    bool prefetch, overlap;
  };
  const Variant variants[] = {{"stack", false, false},
                              {"stack_prefetch", true, false},
                              {"stack_overlap", false, true},
                              {"stack_overlap_prefetch", true, true}};
  const auto state = model.state();
  const auto initial = snapshot(state);
  auto stack = [&](const Variant &v) {
    return [&model, &s, v](cudaStream_t st) {
      for (int l = 0; l < s.layers; ++l)
        for (int kind = 0; kind < Model::Kinds; ++kind)
          model.launch(kind, l, v.prefetch, v.overlap, st);
    };
  };
  std::vector<std::vector<std::vector<char>>> results;
  for (const Variant &v : variants) {
    restore(state, initial);
    stack(v)(stream);
    check(cudaStreamSynchronize(stream), "stack");
    results.push_back(snapshot(state));
  }
  bool same = true;
  for (std::size_t r = 1; r < results.size(); ++r)
    for (std::size_t i = 0; i < state.size(); ++i)
      same = same && std::memcmp(results[0][i].data(), results[r][i].data(), state[i].bytes) == 0;
  const double bound = 1e6 * (model.weightBytes() + kvBytes) / s.bandwidth;
  std::printf("  kernels one kind at a time: %.1f us for the stack; bound %.1f us\n", kindSum, bound);
  json += ", \"kinds_sum_us\": " + std::to_string(kindSum) + ", \"bound_us\": " + std::to_string(bound);
  double plain = 0;
  for (const Variant &v : variants) {
    const double us = timeGraph(stack(v), s.repeat, stream);
    if (!plain)
      plain = us;
    std::printf("  %-24s %8.1f us (%.2fx of the plain stack), %.0f%% of the bound\n", v.name, us, plain / us,
                100 * bound / us);
    json += std::string(", \"") + v.name + "_us\": " + std::to_string(us);
  }
  std::printf("  every variant leaves the results bit for bit equal: %s\n", same ? "yes" : "NO");
  json += std::string(", \"variants_same_bits\": ") + (same ? "true" : "false") + "}";
  std::printf("%s\n", json.c_str());
  return same ? 0 : 1;
} catch (const std::exception &e) {
  std::fprintf(stderr, "cudaperf-decode-bench: %s\n", e.what());
  return 2;
}
