// libcudaperf-eager: PyTorch eager as a task's trusted GPU baseline.
//
// An imported KernelBench task carries its module traced by the importer
// (TorchScript: the module's ATen calls, in order, with the inputs, the
// parameters and the buffers as arguments) inside a small C shim
// (baseline_eager.c, written by import_kernelbench.py). The shim's
// constructor opens the graph here and its entry function calls it over the
// judge's buffers, wrapped in place (no copy of any input), then copies each
// result into its output buffer. The judge loads the shim as the oracle of
// the timed calls and times it in a worker like any candidate: eager's time
// is the speedup's denominator.
//
// The graph runs as recorded: the graph executor's optimisations (fusion,
// specialisation) are off, so what runs are the kernels PyTorch eager
// launches for the module, without Python's per-operator overhead. A result
// whose last operator has an out= overload is written straight into its
// output buffer (WriteIntoOutputs.h); the others are copied.
#include "WriteIntoOutputs.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#ifdef CUDAPERF_EAGER_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif
#include <torch/script.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Argument {
  bool output = false;
  at::ScalarType type = at::kFloat;
  std::vector<int64_t> shape;
};

struct Graph {
  std::string bytes; // the saved graph, kept to open again after a failed open
  torch::jit::Module module;
  std::vector<Argument> arguments;
  at::Device device = at::kCPU;
  std::vector<bool> writtenInPlace; // per output: its last operator writes the buffer (no copy)
  std::string openError;            // set: not open; a call tries once more, else poisons its outputs and says this
};

std::mutex graphsLock;
std::vector<std::unique_ptr<Graph>> graphs;

void say(char *error, unsigned long bytes, const std::string &text) {
  if (error && bytes)
    std::snprintf(error, bytes, "%s", text.c_str());
}

at::ScalarType scalarType(const std::string &name) {
  if (name == "float32")
    return at::kFloat;
  if (name == "float16")
    return at::kHalf;
  if (name == "bfloat16")
    return at::kBFloat16;
  if (name == "int64")
    return at::kLong;
  if (name == "int32")
    return at::kInt;
  if (name == "bool")
    return at::kBool;
  throw std::runtime_error("unknown element type '" + name + "'");
}

// One line per argument of the entry, in its order: "in|out TYPE d0,d1,..." (no extents: a 0-d tensor).
std::vector<Argument> parseArguments(const char *text) {
  std::vector<Argument> arguments;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string role, type, extents;
    fields >> role >> type >> extents;
    if (role != "in" && role != "out")
      throw std::runtime_error("argument line '" + line + "': the role is in or out");
    Argument argument;
    argument.output = role == "out";
    argument.type = scalarType(type);
    std::istringstream dims(extents);
    std::string dim;
    while (std::getline(dims, dim, ','))
      if (!dim.empty())
        argument.shape.push_back(std::stoll(dim));
    arguments.push_back(std::move(argument));
  }
  return arguments;
}

// LibTorch's errors carry a C++ backtrace after their message: the message
// alone, so that the reason (out of memory, a corrupt graph) is what a
// worker's stderr tail and the judge's verdict show.
std::string reasonOf(const std::exception &failure) {
  if (const auto *error = dynamic_cast<const c10::Error *>(&failure))
    return error->what_without_backtrace();
  return failure.what();
}

at::Tensor wrap(const Graph &graph, const Argument &argument, void *pointer) {
  return at::from_blob(pointer, argument.shape, at::TensorOptions().dtype(argument.type).device(graph.device));
}

std::vector<at::Tensor> results(const c10::IValue &value) {
  std::vector<at::Tensor> tensors;
  if (value.isTensor()) {
    tensors.push_back(value.toTensor());
  } else if (value.isTuple()) {
    for (const auto &element : value.toTupleRef().elements())
      tensors.push_back(element.toTensor());
  } else if (value.isTensorList()) {
    for (const at::Tensor &element : value.toTensorVector())
      tensors.push_back(element);
  } else {
    throw std::runtime_error("the traced module returned " + value.tagKind() + ", not tensors");
  }
  return tensors;
}

void call(Graph &graph, void *const *pointers) {
  torch::NoGradGuard noGrad;
  std::vector<c10::IValue> inputs;
  std::vector<at::Tensor> outputs;
  std::vector<const Argument *> declared; // the outputs' shapes as the task has them
  for (std::size_t i = 0; i < graph.arguments.size(); ++i) {
    at::Tensor tensor = wrap(graph, graph.arguments[i], pointers[i]);
    if (graph.arguments[i].output) {
      outputs.push_back(tensor);
      declared.push_back(&graph.arguments[i]);
    } else {
      inputs.emplace_back(tensor);
    }
  }
  for (std::size_t i = 0; i < graph.writtenInPlace.size() && i < outputs.size(); ++i)
    if (graph.writtenInPlace[i])
      graph.module.setattr(cudaperf::eager::outputAttribute(i), outputs[i]);
  const std::vector<at::Tensor> produced = results(graph.module.forward(inputs));
  if (produced.size() != outputs.size())
    throw std::runtime_error("the module returned " + std::to_string(produced.size()) + " tensors, the task has " +
                             std::to_string(outputs.size()) + " outputs");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    // Against the declared shape: an out= overload that resized its buffer
    // resized the tensor the result is, too.
    if (produced[i].sizes() != at::IntArrayRef(declared[i]->shape) || outputs[i].sizes() != produced[i].sizes())
      throw std::runtime_error("output " + std::to_string(i) + " has another shape than the task's");
    // Written in place: the result is the buffer itself (an out= that had to
    // reallocate would not be, and is copied like any other).
    if (produced[i].data_ptr() != outputs[i].data_ptr())
      outputs[i].copy_(produced[i]);
  }
}

std::vector<at::Tensor> fresh(const Graph &graph, bool outputs, bool random) {
  std::vector<at::Tensor> tensors;
  for (const Argument &argument : graph.arguments) {
    if (argument.output != outputs)
      continue;
    const auto options = at::TensorOptions().dtype(argument.type).device(graph.device);
    // Floats uniform in [0, 1); integers 0, a valid index anywhere.
    tensors.push_back(random && at::isFloatingType(argument.type) ? at::rand(argument.shape, options)
                                                                  : at::zeros(argument.shape, options));
  }
  return tensors;
}

// The graph's results written into the outputs where an out= overload
// allows, kept only if the rewritten graph gives the recorded one's results
// on random inputs (bit for bit: the same kernels run).
void writeIntoOutputsIfSame(Graph &graph) {
  const auto outputCount = static_cast<std::size_t>(
      std::count_if(graph.arguments.begin(), graph.arguments.end(), [](const Argument &a) { return a.output; }));
  graph.writtenInPlace.assign(outputCount, false);
  // The copy kept, for scripts/kernelbench/bench-eager-outputs (what the copy cost).
  if (std::getenv("CUDAPERF_EAGER_COPY_OUTPUTS"))
    return;
  bool same = false;
  try {
    graph.writtenInPlace = cudaperf::eager::writeIntoOutputs(graph.module, fresh(graph, true, false));
    if (std::none_of(graph.writtenInPlace.begin(), graph.writtenInPlace.end(), [](bool b) { return b; }))
      return;
    std::istringstream stream(graph.bytes);
    torch::jit::Module recorded = torch::jit::load(stream, graph.device);
    recorded.eval();
    torch::NoGradGuard noGrad;
    std::vector<at::Tensor> inputs = fresh(graph, false, true);
    std::vector<c10::IValue> values(inputs.begin(), inputs.end());
    const std::vector<at::Tensor> expected = results(recorded.forward(values));
    // Twice, over outputs that start as every byte 0xFF: an overload that
    // read or accumulated into its buffer would not give the same bits.
    same = expected.size() == outputCount;
    for (int round = 0; round < 2 && same; ++round) {
      std::vector<at::Tensor> outputs = fresh(graph, true, false);
      for (at::Tensor &output : outputs)
        at::from_blob(output.data_ptr(), {static_cast<int64_t>(output.nbytes())},
                      at::TensorOptions().dtype(at::kByte).device(graph.device))
            .fill_(0xFF);
      std::vector<void *> pointers;
      std::size_t in = 0, out = 0;
      for (const Argument &argument : graph.arguments)
        pointers.push_back(argument.output ? outputs[out++].data_ptr() : inputs[in++].data_ptr());
      call(graph, pointers.data());
      for (std::size_t i = 0; i < outputs.size() && same; ++i)
        same = expected[i].sizes() == outputs[i].sizes() && at::equal(expected[i].to(outputs[i].dtype()), outputs[i]);
    }
  } catch (const std::exception &) {
    same = false;
  }
  if (!same) { // the graph as recorded, its results copied
    std::istringstream stream(graph.bytes);
    graph.module = torch::jit::load(stream, graph.device);
    graph.module.eval();
    graph.writtenInPlace.assign(outputCount, false);
  }
}

// Zeroed buffers of every argument for the warm-up calls: on the GPU from
// cudaMalloc, not PyTorch's caching allocator (freed, its blocks would stay
// reserved in it); on the host (or a LibTorch without CUDA) as tensors.
class WarmUpArguments {
public:
  std::vector<at::Tensor> tensors;
  std::vector<void *> pointers;
  std::vector<void *> device;
  explicit WarmUpArguments(const Graph &graph) {
    try {
      for (const Argument &argument : graph.arguments)
        add(graph, argument);
    } catch (...) { // no destructor runs for a constructor that throws: what was allocated goes here
      release();
      throw;
    }
  }
  WarmUpArguments(const WarmUpArguments &) = delete;
  ~WarmUpArguments() { release(); }

private:
  void add(const Graph &graph, const Argument &argument) {
#ifdef CUDAPERF_EAGER_CUDA
    if (graph.device.is_cuda()) {
      std::size_t bytes = c10::elementSize(argument.type);
      for (const int64_t extent : argument.shape)
        bytes *= static_cast<std::size_t>(extent);
      device.reserve(device.size() + 1); // the push below cannot throw after the allocation
      void *pointer = nullptr;
      cudaError_t status = cudaMalloc(&pointer, std::max<std::size_t>(bytes, 1));
      if (status == cudaSuccess)
        status = cudaMemset(pointer, 0, bytes);
      if (status != cudaSuccess) {
        if (pointer)
          cudaFree(pointer);
        cudaGetLastError(); // not left for the next CUDA call to report
        throw std::runtime_error("the warm-up's arguments (" + std::to_string(bytes) +
                                 " bytes): " + cudaGetErrorString(status));
      }
      device.push_back(pointer);
      pointers.push_back(pointer);
      return;
    }
#endif
    tensors.push_back(at::zeros(argument.shape, at::TensorOptions().dtype(argument.type).device(graph.device)));
    pointers.push_back(tensors.back().data_ptr());
  }
  void release() {
#ifdef CUDAPERF_EAGER_CUDA
    for (void *pointer : device)
      cudaFree(pointer);
#endif
    device.clear();
  }
};

// Loads the graph and warms it up; false with openError set when it cannot
// (a transient failure, out of memory while a killed worker's memory comes
// back, is retried at the next call rather than kept for the process's life).
bool openGraph(Graph &graph) {
  try {
    // As recorded: no fusion, no specialisation on the first calls' shapes.
    torch::jit::setGraphExecutorOptimize(false);
    // Host tasks' candidates are one thread; so is their eager baseline.
    at::set_num_threads(1);
    std::istringstream stream(graph.bytes);
    graph.module = torch::jit::load(stream, graph.device);
    graph.module.eval();
    writeIntoOutputsIfSame(graph);
    // The check's last outputs are still the in-place attributes: let them go
    // too (each call sets its own before the forward), for empty tensors of
    // their type (an undefined one would break the graph executor).
    for (std::size_t i = 0; i < graph.writtenInPlace.size(); ++i)
      if (graph.writtenInPlace[i]) {
        const std::string name = cudaperf::eager::outputAttribute(i);
        graph.module.setattr(name, graph.module.attr(name).toTensor().new_empty({0}));
      }
#ifdef CUDAPERF_EAGER_CUDA
    // That check held several copies of every argument (6.4 GB a tensor at
    // KernelBench's largest sizes); the caching allocator would keep them
    // reserved for the worker's life, beside the judge's buffers on the
    // same GPU. Given back before the warm-up.
    if (graph.device.is_cuda()) {
      torch::cuda::synchronize();
      c10::cuda::CUDACachingAllocator::emptyCache();
    }
#endif
    // Two calls on zeros (a valid index, a finite value everywhere): the
    // libraries' handles, workspaces and lazily loaded kernels are made
    // now, in the load, not in the first timed call, and what a call
    // allocates (its intermediates, an output that is copied) stays in the
    // caching allocator for the calls to come: a candidate that fills the
    // GPU's memory cannot starve them. The arguments themselves are
    // allocated outside that cache on the GPU (the calls get the judge's
    // buffers), so that it keeps what a call needs and not them.
    WarmUpArguments warm(graph);
    for (int i = 0; i < 2; ++i)
      call(graph, warm.pointers.data());
    if (graph.device.is_cuda())
      torch::cuda::synchronize();
    graph.openError.clear();
    return true;
  } catch (const std::exception &failure) {
    graph.openError = std::string("the eager baseline cannot open its graph: ") + reasonOf(failure);
    return false;
  }
}

// What an oracle that cannot compute leaves in its outputs (the judge calls
// such a reference's task bad).
void poison(Graph &graph, void *const *pointers) {
  try {
    for (std::size_t i = 0; i < graph.arguments.size(); ++i) {
      if (!graph.arguments[i].output)
        continue;
      // Every byte 0xFF, whatever the type (NaN in float32, half and
      // bfloat16, -1 in integers): the pattern the judge reads as a failed
      // oracle, on the host and on the device alike (TaskBuffers).
      const Argument &argument = graph.arguments[i];
      const at::Tensor tensor = wrap(graph, argument, pointers[i]);
      at::from_blob(pointers[i], {static_cast<int64_t>(tensor.nbytes())},
                    at::TensorOptions().dtype(at::kByte).device(graph.device))
          .fill_(0xFF);
    }
  } catch (const std::exception &) {
  }
}

} // namespace

#define CUDAPERF_EAGER_EXPORT __attribute__((visibility("default")))

extern "C" {

// Opens a traced graph; `device` 1 for CUDA buffers, 0 for host ones.
// Returns a handle for cudaperf_eager_call (also when the graph failed to
// open: each call then tries again, else poisons its outputs), or -1 when `arguments` is
// malformed; `error` says what failed.
CUDAPERF_EAGER_EXPORT int cudaperf_eager_open(const unsigned char *bytes, unsigned long size, const char *arguments,
                                              int device, char *error, unsigned long errorBytes) {
  auto graph = std::make_unique<Graph>();
  try {
    graph->arguments = parseArguments(arguments);
  } catch (const std::exception &failure) {
    say(error, errorBytes, std::string("the eager baseline's arguments: ") + failure.what());
    return -1;
  }
  graph->bytes.assign(reinterpret_cast<const char *>(bytes), size);
  graph->device = device ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (!openGraph(*graph))
    say(error, errorBytes, graph->openError);
  std::lock_guard lock(graphsLock);
  graphs.push_back(std::move(graph));
  return static_cast<int>(graphs.size() - 1);
}

// One forward over the entry's arguments (pointers in the entry's order).
// Returns 0, or -1 with `error` set and the outputs poisoned.
CUDAPERF_EAGER_EXPORT int cudaperf_eager_call(int handle, void *const *pointers, char *error,
                                              unsigned long errorBytes) {
  Graph *graph = nullptr;
  {
    std::lock_guard lock(graphsLock);
    if (handle < 0 || static_cast<std::size_t>(handle) >= graphs.size()) {
      say(error, errorBytes, "the eager baseline's graph did not open");
      return -1;
    }
    graph = graphs[handle].get();
  }
  if (!graph->openError.empty() && !openGraph(*graph)) {
    say(error, errorBytes, graph->openError);
    poison(*graph, pointers);
    return -1;
  }
  try {
    call(*graph, pointers);
    return 0;
  } catch (const std::exception &failure) {
    say(error, errorBytes, std::string("the eager baseline failed: ") + reasonOf(failure));
    poison(*graph, pointers);
    return -1;
  }
}

// Which outputs the graph writes in place (bit i: output i, in the order of
// the output arguments; the others are copied), or -1 for a graph that is
// not open. For tests and diagnostics.
CUDAPERF_EAGER_EXPORT long cudaperf_eager_outputs_written_in_place(int handle) {
  std::lock_guard lock(graphsLock);
  if (handle < 0 || static_cast<std::size_t>(handle) >= graphs.size() || !graphs[handle]->openError.empty())
    return -1;
  long mask = 0;
  const std::vector<bool> &written = graphs[handle]->writtenInPlace;
  for (std::size_t i = 0; i < written.size() && i < 8 * sizeof(long) - 1; ++i)
    mask |= written[i] ? 1L << i : 0;
  return mask;
}

} // extern "C"
