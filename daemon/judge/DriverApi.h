// The CUDA driver's virtual memory management entry points (cuMemCreate,
// cuMemExportToShareableHandle, cuMemImportFromShareableHandle, ...) that
// the judge and its workers share buffers with, looked up through the CUDA
// runtime instead of linking libcuda: the binaries then start on machines
// without a driver (and answer there that no GPU is usable).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>
#include <type_traits>

namespace cudaperf {

// A GPU's identity as judge and worker both report it ("GPU-" and 32 hex digits).
inline std::string gpuUuidText(const cudaUUID_t &uuid) {
  static const char digits[] = "0123456789abcdef";
  std::string text = "GPU-";
  for (char c : uuid.bytes) {
    const auto byte = static_cast<unsigned char>(c);
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

struct DriverApi {
  decltype(&::cuMemCreate) memCreate = nullptr;
  decltype(&::cuMemRelease) memRelease = nullptr;
  decltype(&::cuMemAddressReserve) addressReserve = nullptr;
  decltype(&::cuMemAddressFree) addressFree = nullptr;
  decltype(&::cuMemMap) map = nullptr;
  decltype(&::cuMemUnmap) unmap = nullptr;
  decltype(&::cuMemSetAccess) setAccess = nullptr;
  decltype(&::cuMemExportToShareableHandle) exportHandle = nullptr;
  decltype(&::cuMemImportFromShareableHandle) importHandle = nullptr;
  decltype(&::cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&::cuGetErrorString) errorString = nullptr;
  // Optional (the worker's doorbell; without it the judge waits for the reply).
  decltype(&::cuStreamWriteValue32) writeValue32 = nullptr;

  // After the runtime made its context current. Returns "" or what is missing.
  std::string load() {
    std::string missing;
    auto find = [&](const char *name, auto &into) {
      void *function = nullptr;
      cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
      if (cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
          found != cudaDriverEntryPointSuccess || !function)
        missing += std::string(missing.empty() ? "" : ", ") + name;
      into = reinterpret_cast<std::remove_reference_t<decltype(into)>>(function);
    };
    find("cuMemCreate", memCreate);
    find("cuMemRelease", memRelease);
    find("cuMemAddressReserve", addressReserve);
    find("cuMemAddressFree", addressFree);
    find("cuMemMap", map);
    find("cuMemUnmap", unmap);
    find("cuMemSetAccess", setAccess);
    find("cuMemExportToShareableHandle", exportHandle);
    find("cuMemImportFromShareableHandle", importHandle);
    find("cuMemGetAllocationGranularity", granularity);
    find("cuGetErrorString", errorString);
    std::string optional;
    std::swap(missing, optional);
    find("cuStreamWriteValue32", writeValue32);
    std::swap(missing, optional);
    return missing.empty() ? "" : "the CUDA driver lacks " + missing;
  }

  std::string describe(CUresult status) const {
    const char *text = nullptr;
    if (errorString)
      errorString(status, &text);
    return text ? text : "CUDA driver error " + std::to_string(static_cast<int>(status));
  }

  // Read-write access for `device` to [pointer, pointer + bytes).
  CUresult grantAccess(CUdeviceptr pointer, std::size_t bytes, int device) const {
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return setAccess(pointer, bytes, &access, 1);
  }
};

} // namespace cudaperf
