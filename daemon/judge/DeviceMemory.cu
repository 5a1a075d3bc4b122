// Device-memory backend of the judge: every shared buffer is a VMM
// allocation of its own (never a sub-allocation that could expose a
// neighbour), exported as a POSIX file descriptor for the worker; inputs are
// drawn, outputs compared and canaries checked by the judge's own kernels on
// the legacy default stream (the GPU baseline's launches serialise with them).
#include "DriverApi.h"
#include "JudgeMemory.h"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <unistd.h>

namespace cudaperf::judge {

namespace {

constexpr std::uint64_t kFlushBytes = 256ull << 20; // larger than any L2 (H200: 60 MB)
constexpr int kThreads = 256;

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw JudgeFailure(std::string(what) + ": " + cudaGetErrorString(status));
}

unsigned blocksFor(std::uint64_t items) {
  const std::uint64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 8192 ? 8192 : blocks);
}

__device__ void storeTyped(unsigned char *at, std::uint64_t i, draw::StoredType type, double value) {
  switch (type) {
  case draw::StoredType::Float32:
    reinterpret_cast<float *>(at)[i] = static_cast<float>(value);
    break;
  case draw::StoredType::Float64:
    reinterpret_cast<double *>(at)[i] = value;
    break;
  case draw::StoredType::Float16:
    reinterpret_cast<std::uint16_t *>(at)[i] = draw::floatToHalfBits(static_cast<float>(value));
    break;
  case draw::StoredType::BFloat16:
    reinterpret_cast<std::uint16_t *>(at)[i] = draw::floatToBf16Bits(static_cast<float>(value));
    break;
  case draw::StoredType::Int32:
  case draw::StoredType::UInt32:
    reinterpret_cast<std::uint32_t *>(at)[i] = static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
    break;
  case draw::StoredType::Int64:
    reinterpret_cast<std::int64_t *>(at)[i] = static_cast<std::int64_t>(value);
    break;
  case draw::StoredType::UInt8:
    at[i] = static_cast<unsigned char>(static_cast<std::int64_t>(value));
    break;
  }
}

__global__ void generateKernel(unsigned char *at, std::uint64_t count, draw::DrawSpec spec, std::uint64_t key) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
    storeTyped(at, i, spec.type, draw::drawValue(spec, key, i));
}

__global__ void incrementsKernel(std::int64_t *into, std::uint64_t count, draw::DrawSpec spec, std::uint64_t key) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
    into[i] = draw::randomInteger(spec, key, i, 0);
}

__global__ void storeSumsKernel(unsigned char *at, const std::int64_t *sums, std::uint64_t count,
                                draw::StoredType type) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
    storeTyped(at, i, type, static_cast<double>(sums[i]));
}

__device__ unsigned differingBytes(unsigned a, unsigned b) {
  const unsigned x = a ^ b;
  return ((x & 0xffu) != 0) + ((x & 0xff00u) != 0) + ((x & 0xff0000u) != 0) + ((x & 0xff000000u) != 0);
}

// Bytes unlike `other` (or `value`): 16-byte words where the alignment allows.
__global__ void countUnlikeKernel(const unsigned char *at, std::uint64_t bytes, const unsigned char *other,
                                  unsigned char value, unsigned long long *out) {
  const std::uint64_t tid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  const bool words = !other || ((address ^ reinterpret_cast<std::uintptr_t>(other)) & 15) == 0;
  std::uint64_t head = words ? (16 - (address & 15)) & 15 : bytes;
  if (head > bytes)
    head = bytes;
  unsigned long long local = 0;
  for (std::uint64_t i = tid; i < head; i += stride)
    local += at[i] != (other ? other[i] : value);
  if (words) {
    const std::uint64_t count = (bytes - head) / 16;
    const uint4 *a4 = reinterpret_cast<const uint4 *>(at + head);
    const uint4 *o4 = other ? reinterpret_cast<const uint4 *>(other + head) : nullptr;
    const unsigned v = value * 0x01010101u;
    for (std::uint64_t w = tid; w < count; w += stride) {
      const uint4 x = a4[w];
      const uint4 y = o4 ? o4[w] : make_uint4(v, v, v, v);
      local +=
          differingBytes(x.x, y.x) + differingBytes(x.y, y.y) + differingBytes(x.z, y.z) + differingBytes(x.w, y.w);
    }
    for (std::uint64_t i = head + count * 16 + tid; i < bytes; i += stride)
      local += at[i] != (other ? other[i] : value);
  }
  if (local)
    atomicAdd(out, local);
}

struct DeviceSummary {
  double squares;
  unsigned long long mismatches;
  unsigned long long maxAbsBits; // non-negative doubles order as their bits
  unsigned long long maxRatioBits;
};

__global__ void squaresKernel(const unsigned char *expected, std::uint64_t count, draw::StoredType type,
                              DeviceSummary *out) {
  __shared__ double partial[kThreads];
  const unsigned width = draw::storedBytes(type);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  double local = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    const double e = draw::loadElement(expected + i * width, type);
    if (e - e == 0)
      local += e * e;
  }
  partial[threadIdx.x] = local;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(&out->squares, partial[0]);
}

__global__ void compareKernel(const unsigned char *expected, const unsigned char *actual, std::uint64_t count,
                              draw::StoredType type, double atol, double rtol, bool absoluteAtol, DeviceSummary *out) {
  const double rms = count ? sqrt(out->squares / static_cast<double>(count)) : 0;
  const double scale = rms > 0 && !absoluteAtol ? rms : 1.0;
  const bool floating = draw::isFloatingType(type);
  const unsigned width = draw::storedBytes(type);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long mismatches = 0;
  double maxAbs = 0, maxRatio = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    double absError = 0, ratio = 0;
    if (!draw::elementMatches(draw::loadElement(expected + i * width, type),
                              draw::loadElement(actual + i * width, type), floating, atol, rtol, scale, absError,
                              ratio))
      ++mismatches;
    maxAbs = absError > maxAbs ? absError : maxAbs;
    maxRatio = ratio > maxRatio ? ratio : maxRatio;
  }
  if (mismatches)
    atomicAdd(&out->mismatches, mismatches);
  if (maxAbs > 0)
    atomicMax(&out->maxAbsBits, static_cast<unsigned long long>(__double_as_longlong(maxAbs)));
  if (maxRatio > 0)
    atomicMax(&out->maxRatioBits, static_cast<unsigned long long>(__double_as_longlong(maxRatio)));
}

__global__ void probeKernel() {}

class DeviceMemory final : public Memory {
public:
  std::string start() {
    if (cudaError_t status = cudaFree(nullptr); status != cudaSuccess)
      return std::string("no usable GPU: ") + cudaGetErrorString(status);
    cudaGetDevice(&device_);
    if (std::string missing = driver_.load(); !missing.empty())
      return missing;
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = device_;
    prop_.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t granularity = 0;
    if (CUresult status = driver_.granularity(&granularity, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        status != CUDA_SUCCESS)
      return "cuMemGetAllocationGranularity: " + driver_.describe(status);
    granularity_ = granularity;
    if (kCanaryBandBytes % granularity_ != 0)
      return "the VMM granularity (" + std::to_string(granularity_) + " bytes) does not divide the canary band";
    if (cudaMalloc(&summary_, sizeof(DeviceSummary)) != cudaSuccess ||
        cudaMalloc(&counter_, sizeof(unsigned long long)) != cudaSuccess)
      return "cannot allocate the judge's result buffers";
    return "";
  }

  bool device() const override { return true; }

  SharedBuffer share(std::uint64_t capacity) override {
    SharedBuffer buffer;
    buffer.capacity = capacity;
    buffer.totalBytes = kCanaryBandBytes + roundUp(capacity + kCanaryBandBytes);
    CUmemGenericAllocationHandle handle;
    CUresult status = driver_.memCreate(&handle, buffer.totalBytes, &prop_, 0);
    if (status != CUDA_SUCCESS)
      throw JudgeFailure("cuMemCreate: " + driver_.describe(status));
    CUdeviceptr at = 0;
    if ((status = driver_.addressReserve(&at, buffer.totalBytes, 0, 0, 0)) != CUDA_SUCCESS ||
        (status = driver_.map(at, buffer.totalBytes, 0, handle, 0)) != CUDA_SUCCESS ||
        (status = driver_.grantAccess(at, buffer.totalBytes, device_)) != CUDA_SUCCESS)
      throw JudgeFailure("mapping a shared buffer: " + driver_.describe(status));
    int fd = -1;
    if ((status = driver_.exportHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)) != CUDA_SUCCESS)
      throw JudgeFailure("cuMemExportToShareableHandle: " + driver_.describe(status));
    buffer.base = reinterpret_cast<unsigned char *>(at);
    buffer.fd = fd;
    buffer.handle = handle;
    return buffer;
  }

  void release(SharedBuffer &buffer) override {
    if (buffer.base) {
      cudaDeviceSynchronize();
      const auto at = reinterpret_cast<CUdeviceptr>(buffer.base);
      driver_.unmap(at, buffer.totalBytes);
      driver_.addressFree(at, buffer.totalBytes);
      driver_.memRelease(static_cast<CUmemGenericAllocationHandle>(buffer.handle));
    }
    if (buffer.fd >= 0)
      close(buffer.fd);
    buffer = {};
  }

  unsigned char *allocate(std::uint64_t bytes) override {
    void *at = nullptr;
    check(cudaMalloc(&at, std::max<std::uint64_t>(bytes, 16)), "cudaMalloc");
    return static_cast<unsigned char *>(at);
  }
  void free(unsigned char *pointer) override { cudaFree(pointer); }
  void fill(unsigned char *at, unsigned char value, std::uint64_t bytes) override {
    check(cudaMemsetAsync(at, value, bytes, 0), "cudaMemsetAsync");
  }
  void copy(unsigned char *to, const unsigned char *from, std::uint64_t bytes) override {
    check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, 0), "cudaMemcpyAsync");
  }
  void upload(unsigned char *to, const void *host, std::uint64_t bytes) override {
    check(cudaMemcpy(to, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  }
  void download(void *host, const unsigned char *from, std::uint64_t bytes) override {
    check(cudaMemcpy(host, from, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
  }

  void generate(unsigned char *at, std::uint64_t count, const draw::DrawSpec &spec, std::uint64_t key) override {
    if (spec.kind != draw::Kind::Offsets) {
      generateKernel<<<blocksFor(count), kThreads>>>(at, count, spec, key);
      check(cudaGetLastError(), "generating inputs");
      return;
    }
    // 0, then running sums of the increments: an exclusive scan, in scratch
    // kept across calls (every timed call draws its inputs afresh).
    std::size_t scanBytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, static_cast<std::int64_t *>(nullptr),
                                  static_cast<std::int64_t *>(nullptr), static_cast<int>(count));
    std::int64_t *increments = scanScratch(0, count * sizeof(std::int64_t));
    std::int64_t *sums = scanScratch(1, count * sizeof(std::int64_t));
    void *scratch = scanScratch(2, scanBytes);
    incrementsKernel<<<blocksFor(count), kThreads>>>(increments, count, spec, key);
    cub::DeviceScan::ExclusiveSum(scratch, scanBytes, increments, sums, static_cast<int>(count));
    storeSumsKernel<<<blocksFor(count), kThreads>>>(at, sums, count, spec.type);
    check(cudaGetLastError(), "generating offsets");
  }

  std::uint64_t countUnlike(const unsigned char *at, std::uint64_t bytes, const unsigned char *other,
                            unsigned char value) override {
    if (bytes == 0)
      return 0;
    check(cudaMemsetAsync(counter_, 0, sizeof(unsigned long long), 0), "cudaMemsetAsync");
    countUnlikeKernel<<<blocksFor(bytes / 16 + 1), kThreads>>>(at, bytes, other, value, counter_);
    check(cudaGetLastError(), "counting bytes");
    unsigned long long count = 0;
    check(cudaMemcpy(&count, counter_, sizeof count, cudaMemcpyDeviceToHost), "reading a count");
    return count;
  }

  CompareSummary compare(const unsigned char *expected, const unsigned char *actual, std::uint64_t count,
                         draw::StoredType type, double atol, double rtol, bool absoluteAtol) override {
    check(cudaMemsetAsync(summary_, 0, sizeof(DeviceSummary), 0), "cudaMemsetAsync");
    squaresKernel<<<blocksFor(count), kThreads>>>(expected, count, type, summary_);
    compareKernel<<<blocksFor(count), kThreads>>>(expected, actual, count, type, atol, rtol, absoluteAtol, summary_);
    check(cudaGetLastError(), "comparing outputs");
    DeviceSummary result{};
    check(cudaMemcpy(&result, summary_, sizeof result, cudaMemcpyDeviceToHost), "reading a comparison");
    CompareSummary summary;
    summary.mismatches = result.mismatches;
    std::memcpy(&summary.maxAbsError, &result.maxAbsBits, sizeof(double));
    std::memcpy(&summary.maxRatio, &result.maxRatioBits, sizeof(double));
    const double rms = count ? std::sqrt(result.squares / static_cast<double>(count)) : 0;
    summary.scale = rms > 0 && !absoluteAtol ? rms : 1.0;
    return summary;
  }

  // Also reports a failed launch of the judge's or the GPU baseline's kernels.
  void synchronize() override {
    check(cudaGetLastError(), "a launch on the judge's side");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

private:
  std::uint64_t roundUp(std::uint64_t bytes) const { return (bytes + granularity_ - 1) / granularity_ * granularity_; }
  struct Scratch {
    void *pointer = nullptr;
    std::size_t bytes = 0;
  };
  // Scratch buffer `slot` of the offsets scan, grown to at least `bytes`.
  std::int64_t *scanScratch(int slot, std::size_t bytes) {
    Scratch &scratch = scan_[slot];
    if (scratch.bytes < bytes) {
      check(cudaDeviceSynchronize(), "generating offsets"); // the old one may still be read
      cudaFree(scratch.pointer);
      scratch.pointer = nullptr;
      scratch.bytes = 0;
      check(cudaMalloc(&scratch.pointer, std::max<std::size_t>(bytes, 16)), "cudaMalloc");
      scratch.bytes = std::max<std::size_t>(bytes, 16);
    }
    return static_cast<std::int64_t *>(scratch.pointer);
  }
  Scratch scan_[3];
  int device_ = 0;
  DriverApi driver_;
  CUmemAllocationProp prop_{};
  std::uint64_t granularity_ = 2ull << 20;
  DeviceSummary *summary_ = nullptr;
  unsigned long long *counter_ = nullptr;
};

class DeviceControl final : public GpuControl {
public:
  std::string start() {
    if (cudaMalloc(&flush_, kFlushBytes) != cudaSuccess)
      return "cannot allocate the L2 flush buffer";
    cudaDeviceProp properties{};
    cudaGetDeviceProperties(&properties, 0);
    name_ = properties.name;
    uuid_ = gpuUuidText(properties.uuid);
    return "";
  }
  void flushCaches() override {
    check(cudaMemsetAsync(flush_, ++round_ & 0xff, kFlushBytes, 0), "L2 flush");
    check(cudaDeviceSynchronize(), "L2 flush");
  }
  double probeMs() override {
    const auto start = std::chrono::steady_clock::now();
    probeKernel<<<1, 1>>>();
    check(cudaGetLastError(), "probe kernel");
    // Spun on, whatever the context's scheduling: the latency is the point.
    cudaError_t status;
    while ((status = cudaStreamQuery(0)) == cudaErrorNotReady) {
    }
    check(status, "probe kernel");
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::uint64_t freeBytes() override {
    std::size_t available = 0, total = 0;
    check(cudaMemGetInfo(&available, &total), "free memory");
    return available;
  }
  std::string deviceName() const override { return name_; }
  std::string deviceUuid() const override { return uuid_; }

private:
  void *flush_ = nullptr;
  unsigned round_ = 0;
  std::string name_, uuid_;
};

} // namespace

std::unique_ptr<Memory> makeDeviceMemory(std::string &error) {
  auto memory = std::make_unique<DeviceMemory>();
  error = memory->start();
  return error.empty() ? std::move(memory) : nullptr;
}

std::unique_ptr<GpuControl> makeGpuControl(std::string &error) {
  auto control = std::make_unique<DeviceControl>();
  error = control->start();
  return error.empty() ? std::move(control) : nullptr;
}

} // namespace cudaperf::judge
