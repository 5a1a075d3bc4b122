// Element types of task arguments: names, sizes and default tolerances.
#include "cudaperf/contracts/TaskSpec.h"

namespace cudaperf {

const char *toString(ElementType type) {
  switch (type) {
  case ElementType::Float32:
    return "float32";
  case ElementType::Float64:
    return "float64";
  case ElementType::Float16:
    return "float16";
  case ElementType::BFloat16:
    return "bfloat16";
  case ElementType::Int32:
    return "int32";
  case ElementType::Int64:
    return "int64";
  case ElementType::UInt8:
    return "uint8";
  case ElementType::UInt32:
    return "uint32";
  }
  return "float32";
}

std::size_t elementBytes(ElementType type) {
  switch (type) {
  case ElementType::Float64:
  case ElementType::Int64:
    return 8;
  case ElementType::Float16:
  case ElementType::BFloat16:
    return 2;
  case ElementType::UInt8:
    return 1;
  default:
    return 4;
  }
}

bool isFloating(ElementType type) {
  return type == ElementType::Float32 || type == ElementType::Float64 || type == ElementType::Float16 ||
         type == ElementType::BFloat16;
}

Tolerance defaultTolerance(ElementType type) {
  switch (type) {
  case ElementType::Float32:
    return {1e-5, 1e-5};
  case ElementType::Float64:
    return {1e-10, 1e-10};
  case ElementType::Float16:
    return {1e-2, 1e-3};
  case ElementType::BFloat16:
    return {2e-2, 1e-2};
  default:
    return {0, 0};
  }
}

} // namespace cudaperf
