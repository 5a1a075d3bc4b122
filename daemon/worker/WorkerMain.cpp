// cudaperf-worker: the untrusted, single-use half of an evaluation. Started
// by the judge in the sandbox (nobody, own PID, network and mount
// namespaces), it makes its CUDA context in blocking-sync mode (so waiting
// for the GPU costs no CPU time the judge would count), proves the GPU and
// the shared buffers work before any candidate code exists in the process,
// then maps the judge's buffers, installs its system-call filter, loads the
// candidate and calls it when told. See judge/WorkerProtocol.h.
//
//   cudaperf-worker [--device cuda|none]     (descriptor 3: the judge's socket)
//
// It holds no secret: no expected output, no seed, no verdict. What it
// reports after the candidate is loaded is advisory at most.
#include "../judge/DriverApi.h"
#include "../judge/WorkerProtocol.h"
#include "KernelTrace.h"
#include "Seccomp.h"
#include "cudaperf/daemon/EntryCall.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace cudaperf;
using worker::Message;
using worker::Op;

namespace {

constexpr int kChannel = 3;

struct Mapping {
  void *pointer = nullptr;
  std::uint64_t bytes = 0;
};

class Worker {
public:
  explicit Worker(bool cuda) : cuda_(cuda) {}

  // The trusted start: context, driver entry points, CUPTI.
  std::string start() {
    if (!cuda_)
      return "";
    if (cudaError_t status = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync); status != cudaSuccess)
      return std::string("cudaSetDeviceFlags: ") + cudaGetErrorString(status);
    if (cudaError_t status = cudaFree(nullptr); status != cudaSuccess)
      return std::string("no usable GPU: ") + cudaGetErrorString(status);
    cudaGetDevice(&device_);
    cudaDeviceProp properties{};
    cudaGetDeviceProperties(&properties, device_);
    gpu_ = gpuUuidText(properties.uuid);
    if (std::string missing = driver_.load(); !missing.empty())
      return missing;
    if (cudaEventCreate(&start_) != cudaSuccess || cudaEventCreate(&stop_) != cudaSuccess)
      return "cudaEventCreate failed";
    if (cudaMalloc(&scratch_, 256) != cudaSuccess)
      return "cudaMalloc failed";
    trace_.emplace();
    trace_->start(); // CUPTI's own start-up cost, before any candidate
    trace_->stop();
    return "";
  }

  // Maps a buffer the judge shares, with unmapped address space around it.
  std::string map(int fd, std::uint64_t bytes, bool device, Mapping &into) {
    into.bytes = bytes;
    const std::uint64_t gap = worker::kGuardGapBytes;
    if (!device) {
      void *reserved = mmap(nullptr, bytes + 2 * gap, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (reserved == MAP_FAILED)
        return std::string("mmap: ") + std::strerror(errno);
      void *at = static_cast<char *>(reserved) + gap;
      if (mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
        return std::string("mmap of a shared buffer: ") + std::strerror(errno);
      into.pointer = at;
      close(fd);
      return "";
    }
    if (!cuda_)
      return "device memory without CUDA";
    CUmemGenericAllocationHandle handle;
    CUresult status = driver_.importHandle(&handle, reinterpret_cast<void *>(static_cast<std::intptr_t>(fd)),
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    if (status != CUDA_SUCCESS)
      return "cuMemImportFromShareableHandle: " + driver_.describe(status);
    CUdeviceptr reserved = 0;
    if ((status = driver_.addressReserve(&reserved, bytes + 2 * gap, 0, 0, 0)) != CUDA_SUCCESS)
      return "cuMemAddressReserve: " + driver_.describe(status);
    const CUdeviceptr at = reserved + gap;
    if ((status = driver_.map(at, bytes, 0, handle, 0)) != CUDA_SUCCESS)
      return "cuMemMap: " + driver_.describe(status);
    if ((status = driver_.grantAccess(at, bytes, device_)) != CUDA_SUCCESS)
      return "cuMemSetAccess: " + driver_.describe(status);
    driver_.memRelease(handle); // the mapping keeps the memory alive
    into.pointer = reinterpret_cast<void *>(at);
    return "";
  }

  Message preflight(const Message &request, std::vector<int> &fds) {
    Message reply;
    reply.op = Op::PreflightDone;
    reply.sequence = request.sequence;
    Mapping probe;
    std::string problem = fds.size() == 1 || fds.size() == 2
                              ? map(fds[0], request.bytes[0], request.flags == worker::kDeviceMemory, probe)
                              : "expected the probe buffer and the doorbell";
    if (problem.empty()) {
      if (request.flags == worker::kDeviceMemory) {
        cudaError_t status = cudaMemset(probe.pointer, worker::kPreflightPattern, probe.bytes);
        if (status == cudaSuccess)
          status = cudaDeviceSynchronize();
        if (status != cudaSuccess)
          problem = std::string("writing the probe buffer: ") + cudaGetErrorString(status);
      } else {
        std::memset(probe.pointer, worker::kPreflightPattern, probe.bytes);
      }
    }
    // Host memory with a GPU: no doorbell. The judge probes the GPU only for
    // device-memory tasks, so a ring behind the legacy stream would let work
    // on a non-blocking stream finish the outputs off the clock; the reply,
    // after the device-wide wait, is the end there (the review's finding).
    const bool ringHere = request.flags == worker::kDeviceMemory || !cuda_;
    if (problem.empty() && fds.size() == 2 && ringHere && ringable(fds[1]))
      reply.flags |= worker::kDoorbellRings;
    else if (fds.size() == 2 && !ringHere)
      close(fds[1]);
    reply.status = problem.empty() ? 0 : 1;
    worker::setText(reply, problem.c_str());
    return reply;
  }

  // The judge's doorbell page: with CUDA, pinned and written by the GPU
  // behind each call's work; without, written by this process after the
  // call. False (the judge then waits for the reply) where it cannot be.
  bool ringable(int fd) {
    void *page = mmap(nullptr, worker::kDoorbellBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (page == MAP_FAILED)
      return false;
    doorbell_ = static_cast<std::uint32_t *>(page);
    if (!cuda_)
      return true;
    void *onDevice = nullptr;
    if (!driver_.writeValue32 ||
        cudaHostRegister(page, worker::kDoorbellBytes, cudaHostRegisterMapped) != cudaSuccess ||
        cudaHostGetDevicePointer(&onDevice, page, 0) != cudaSuccess) {
      cudaGetLastError();
      doorbell_ = nullptr;
      return false;
    }
    // One ring now, to know the GPU can: stream memory operations may be off.
    doorbellOnDevice_ = reinterpret_cast<CUdeviceptr>(onDevice);
    const bool rang =
        driver_.writeValue32(CU_STREAM_LEGACY, doorbellOnDevice_, 0, CU_STREAM_WRITE_VALUE_DEFAULT) == CUDA_SUCCESS &&
        cudaDeviceSynchronize() == cudaSuccess;
    if (!rang) {
      cudaGetLastError();
      doorbell_ = nullptr;
    }
    return rang;
  }

  Message mapAll(const Message &request, std::vector<int> &fds) {
    Message reply;
    reply.op = Op::Mapped;
    reply.sequence = request.sequence;
    std::string problem;
    if (request.count > worker::kMaxBuffers || fds.size() != request.count)
      problem = "expected " + std::to_string(request.count) + " descriptors, got " + std::to_string(fds.size());
    buffers_.assign(request.count, {});
    for (std::size_t i = 0; problem.empty() && i < fds.size(); ++i)
      problem = map(fds[i], request.bytes[i], request.flags == worker::kDeviceMemory, buffers_[i]);
    reply.status = problem.empty() ? 0 : 1;
    worker::setText(reply, problem.c_str());
    return reply;
  }

  // The library comes as a descriptor (the judge opened it): no candidate's
  // folder is ever in a worker's view, so a worker started before its
  // candidate was known can load it.
  Message load(const Message &request, std::vector<int> &fds) {
    Message reply;
    reply.op = Op::Loaded;
    reply.sequence = request.sequence;
    const std::string name = request.text;
    const std::string symbol = request.text + name.size() + 1;
    if (!filtered_) {
      reply.status = 2;
      worker::setText(reply, "no system-call filter: the judge must ask for it first");
      return reply;
    }
    if (fds.size() != 1) {
      reply.status = 3;
      worker::setText(reply, "Load: expected the library as one descriptor");
      return reply;
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    close(fds[0]); // mapped now (or refused)
    if (!handle) {
      reply.status = 3;
      worker::setText(reply, ("cannot load " + name + ": " + dlerror()).c_str());
      return reply;
    }
    entry_ = reinterpret_cast<EntryFunction>(dlsym(handle, symbol.c_str()));
    if (!entry_) {
      reply.status = 4;
      worker::setText(reply, ("'" + symbol + "' is not exported by the candidate (declare it extern \"C\")").c_str());
    }
    return reply;
  }

  Message filter(const Message &request) {
    Message reply;
    reply.op = Op::Filtered;
    reply.sequence = request.sequence;
    const std::string problem = installCandidateFilter();
    filtered_ = problem.empty();
    reply.status = filtered_ ? 0 : 1;
    worker::setText(reply, problem.c_str());
    return reply;
  }

  // One call of the entry (or of nothing, for Empty), synchronised, with
  // the worker's own event time beside it.
  Message call(const Message &request) {
    Message reply;
    reply.op = Op::Returned;
    reply.sequence = request.sequence;
    std::vector<std::intptr_t> registers;
    const bool empty = request.op == Op::Empty;
    if (!empty) {
      if (!entry_ || request.count > kMaxEntryArguments) {
        reply.status = 1;
        worker::setText(reply, "no candidate loaded, or too many arguments");
        return reply;
      }
      for (std::uint32_t a = 0; a < request.count; ++a) {
        const int buffer = request.argBuffer[a];
        if (buffer < 0) {
          registers.push_back(static_cast<std::intptr_t>(request.argValue[a]));
        } else if (static_cast<std::size_t>(buffer) < buffers_.size()) {
          registers.push_back(
              reinterpret_cast<std::intptr_t>(static_cast<char *>(buffers_[buffer].pointer) + request.argValue[a]));
        } else {
          reply.status = 1;
          worker::setText(reply, "argument names an unmapped buffer");
          return reply;
        }
      }
    }
    const bool traced = cuda_ && (request.flags & worker::kTraceKernels) && trace_;
    if (traced)
      trace_->start();
    const auto wallStart = std::chrono::steady_clock::now();
    if (cuda_)
      cudaEventRecord(start_);
    if (!empty)
      callEntry(entry_, registers);
    else if (cuda_)
      cudaMemsetAsync(scratch_, 0, 4); // GPU work to wait for, as a real call's: the same wake-ups
    const std::uint32_t ring = request.ring;
    double eventMs = 0;
    if (cuda_) {
      // The end event right behind the call's work on the legacy stream (which
      // waits for the blocking streams too), before the device-wide wait: the
      // GPU's timestamps without the host's wake-up; then the doorbell, which
      // the GPU writes once that work is done. Work left on other streams is
      // the judge's to see (its probe at the doorbell).
      cudaError_t status = cudaEventRecord(stop_);
      if (status == cudaSuccess && doorbell_ && ring)
        driver_.writeValue32(CU_STREAM_LEGACY, doorbellOnDevice_, ring, CU_STREAM_WRITE_VALUE_DEFAULT);
      if (status == cudaSuccess)
        status = cudaDeviceSynchronize();
      if (status == cudaSuccess)
        status = cudaGetLastError();
      if (status == cudaSuccess)
        status = cudaEventSynchronize(stop_);
      float elapsed = 0;
      if (status == cudaSuccess)
        status = cudaEventElapsedTime(&elapsed, start_, stop_);
      if (status != cudaSuccess) {
        reply.status = static_cast<std::int32_t>(status);
        worker::setText(reply, (std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status)).c_str());
      }
      eventMs = elapsed;
    } else {
      eventMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wallStart).count();
      if (doorbell_ && ring)
        __atomic_store_n(doorbell_, ring, __ATOMIC_RELEASE);
    }
    reply.eventMs = eventMs;
    if (traced) {
      const KernelActivity activity = trace_->stop();
      reply.traceAvailable = trace_->available();
      reply.kernels = activity.kernels;
      reply.kernelMs = activity.kernelMs;
      reply.busyMs = activity.busyMs;
      if (!trace_->available())
        worker::setText(reply, trace_->error().c_str());
    }
    return reply;
  }

private:
  bool cuda_;
  int device_ = 0;
  DriverApi driver_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void *scratch_ = nullptr;
  std::uint32_t *doorbell_ = nullptr;
  CUdeviceptr doorbellOnDevice_ = 0;
  std::optional<KernelTrace> trace_;
  std::vector<Mapping> buffers_;
  EntryFunction entry_ = nullptr;
  bool filtered_ = false;

public:
  std::string gpu_; // this worker's GPU, for the judge to compare with its own
};

} // namespace

int main(int argc, char **argv) {
  bool cuda = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--device" && i + 1 < argc)
      cuda = std::string(argv[++i]) != "none";
    else {
      std::fprintf(stderr, "usage: cudaperf-worker [--device cuda|none] (descriptor 3: the judge's socket)\n");
      return 2;
    }
  }
  // What the candidate prints goes to stderr; stdout stays free for nothing.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  Worker worker(cuda);
  Message ready;
  ready.op = Op::Ready;
  const std::string problem = worker.start();
  ready.status = problem.empty() ? 0 : 1;
  worker::setText(ready, problem.empty() ? worker.gpu_.c_str() : problem.c_str());
  if (!worker::sendMessage(kChannel, ready))
    return 3;
  for (;;) {
    Message request;
    std::vector<int> fds;
    if (!worker::receiveMessage(kChannel, request, &fds))
      return 0; // the judge is gone
    Message reply;
    switch (request.op) {
    case Op::Preflight:
      reply = worker.preflight(request, fds);
      break;
    case Op::Map:
      reply = worker.mapAll(request, fds);
      break;
    case Op::Filter:
      reply = worker.filter(request);
      break;
    case Op::Load:
      reply = worker.load(request, fds);
      break;
    case Op::Empty:
    case Op::Call:
      reply = worker.call(request);
      break;
    case Op::Exit:
      _exit(0); // no stdio flush: a candidate may hold its locks
    default:
      for (int fd : fds)
        close(fd);
      return 2;
    }
    if (!worker::sendMessage(kChannel, reply))
      return 3;
  }
}
