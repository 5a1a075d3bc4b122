// Programmatic dependent launch (sm_90 and later), shared by the decode step's
// kernels: a kernel launched with the attribute starts while the one before
// it in the stream still runs. It issues only the reads of what no kernel of
// the step writes (weights, the rotary table, keys and values of earlier
// steps) before waitForPrevious(), which returns once that kernel has
// completed and its writes are visible. Every kernel that is launched so
// waits in at least one block before it exits, so the previous kernel's
// completion implies that of all before it. letNextLaunch() lets the next
// kernel's blocks be scheduled as soon as this grid's have all started.
// Without the launch attribute (or before sm_90) both are no-ops.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace cudaperf::trainer::decode {

__device__ __forceinline__ void waitForPrevious() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void letNextLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Whether this kernel's image on the current device has the griddepcontrol
// instructions: one built from PTX of sm_90 or later (an sm_80 build
// JIT-compiled for an H100 would start early without waiting).
template <class... Params> bool waitsForPrevious(void (*kernel)(Params...)) {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess && attributes.ptxVersion >= 90;
}

// kernel<<<grid, threads, sharedBytes, stream>>>(args...), as a dependent
// launch where overlapPrevious and the kernel's image waits. Throws on a
// launch error.
template <class... Params, class... Args>
void launchKernelShared(const char *what, void (*kernel)(Params...), dim3 grid, int threads, std::size_t sharedBytes,
                        bool overlapPrevious, cudaStream_t stream, Args &&...args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = overlapPrevious && waitsForPrevious(kernel) ? 1 : 0;
  const cudaError_t error = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
}

template <class... Params, class... Args>
void launchKernel(const char *what, void (*kernel)(Params...), dim3 grid, int threads, bool overlapPrevious,
                  cudaStream_t stream, Args &&...args) {
  launchKernelShared(what, kernel, grid, threads, 0, overlapPrevious, stream, std::forward<Args>(args)...);
}

} // namespace cudaperf::trainer::decode
