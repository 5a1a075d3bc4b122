// The judge's memory: buffers it shares with a worker and buffers it keeps to
// itself, and the operations it runs on them between calls (draw inputs,
// compare outputs, check canaries). Two backends: device memory (CUDA VMM
// allocations exported as file descriptors, operations as the judge's own
// kernels) and host memory (memfds, operations as loops). A task's memory
// mode picks the backend; the worker maps whatever it is sent.
#pragma once

#include "cudaperf/daemon/InputDraw.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace cudaperf::judge {

// A canary band on each side of every shared buffer: 2 MiB, the VMM
// granularity, so an overrun of a whole block or tile row (a 1024-thread
// block of float4 is 16 KiB; a 32-row tile past the last row of a 4096-wide
// float matrix is 512 KiB) lands in canary bytes; beyond it the worker's
// mapping ends and the write faults.
constexpr std::uint64_t kCanaryBandBytes = 2ull << 20;
constexpr unsigned char kCanary = 0xA5;
constexpr unsigned char kUnwritten = 0xFF; // outputs before the call: NaN in every float type

// A CUDA error or a refused allocation on the judge's side.
struct JudgeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CompareSummary {
  std::uint64_t mismatches = 0;
  double maxAbsError = 0;
  double maxRatio = 0; // largest error over its allowance
  double scale = 1;    // RMS of the expected output
};

// One allocation the worker maps too: [front band | data | back band], the
// data region as large as the argument's largest size; a call's data starts
// at dataOffset whatever its size, and everything after it is canary.
struct SharedBuffer {
  unsigned char *base = nullptr; // the judge's mapping
  std::uint64_t totalBytes = 0;
  std::uint64_t dataOffset = kCanaryBandBytes;
  std::uint64_t capacity = 0;
  int fd = -1;              // exported: what the worker maps
  std::uint64_t handle = 0; // the backend's own
  unsigned char *data() const { return base + dataOffset; }
};

class Memory {
public:
  virtual ~Memory() = default;
  virtual bool device() const = 0;
  virtual SharedBuffer share(std::uint64_t capacity) = 0;
  virtual void release(SharedBuffer &buffer) = 0;
  virtual unsigned char *allocate(std::uint64_t bytes) = 0; // the judge's alone
  virtual void free(unsigned char *pointer) = 0;
  virtual void fill(unsigned char *at, unsigned char value, std::uint64_t bytes) = 0;
  virtual void copy(unsigned char *to, const unsigned char *from, std::uint64_t bytes) = 0;
  virtual void upload(unsigned char *to, const void *host, std::uint64_t bytes) = 0;
  virtual void download(void *host, const unsigned char *from, std::uint64_t bytes) = 0;
  // Element i of `count` := InputDraw's value for (spec, key, i), as the host side draws it.
  virtual void generate(unsigned char *at, std::uint64_t count, const draw::DrawSpec &spec, std::uint64_t key) = 0;
  // Bytes of [at, at + bytes) that differ from `other` (or, without it, from `value`).
  virtual std::uint64_t countUnlike(const unsigned char *at, std::uint64_t bytes, const unsigned char *other,
                                    unsigned char value) = 0;
  // draw::elementMatches over every element, with the RMS scale of `expected`.
  // absoluteAtol: the scale is 1 instead of the RMS.
  virtual CompareSummary compare(const unsigned char *expected, const unsigned char *actual, std::uint64_t count,
                                 draw::StoredType type, double atol, double rtol, bool absoluteAtol) = 0;
  virtual void synchronize() = 0;
};

std::unique_ptr<Memory> makeHostMemory();

// The judge's own use of the GPU around a call.
class GpuControl {
public:
  virtual ~GpuControl() = default;
  // Evicts the L2 cache (a 256 MiB write: larger than any L2).
  virtual void flushCaches() = 0;
  // Launches a trivial kernel and waits for it: milliseconds until the GPU
  // got to the judge (longer when another context's work was running).
  virtual double probeMs() = 0;
  // The device's free memory now (cudaMemGetInfo): what a new worker's context can have.
  virtual std::uint64_t freeBytes() = 0;
  virtual std::string deviceName() const = 0;
  virtual std::string deviceUuid() const = 0; // as the worker reports it in Ready
};

// Null with `error` set when no GPU is usable (DeviceMemory.cu).
std::unique_ptr<Memory> makeDeviceMemory(std::string &error);
std::unique_ptr<GpuControl> makeGpuControl(std::string &error);

} // namespace cudaperf::judge
