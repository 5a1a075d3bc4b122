#include "CacheHintIntrinsics.h"

#include <array>

namespace cudaperf {

namespace {

std::string buildHeader() {
  // The types sm_32_intrinsics.h (CUDA 13) declares them for.
  static constexpr std::array kTypes = {
      "long",       "unsigned long", "char",          "signed char",    "short",        "int",
      "long long",  "char2",         "char4",         "short2",         "short4",       "int2",
      "int4",       "longlong2",     "unsigned char", "unsigned short", "unsigned int", "unsigned long long",
      "uchar2",     "uchar4",        "ushort2",       "ushort4",        "uint2",        "uint4",
      "ulonglong2", "float",         "float2",        "float4",         "double",       "double2"};
  static constexpr std::array kLoads = {"__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"};
  static constexpr std::array kStores = {"__stwb", "__stcg", "__stcs", "__stwt"};
  // Only where Clang's CUDA runtime wrapper came first (it declares the
  // vector types): a -nocudainc analysis brings its own headers.
  std::string text = "#pragma once\n"
                     "// cudaperf: nvcc's cache-hint loads and stores, which Clang 19 does not declare.\n"
                     "#ifdef __CLANG_CUDA_RUNTIME_WRAPPER_H__\n";
  for (const char *type : kTypes) {
    for (const char *load : kLoads)
      text += std::string("__attribute__((device)) ") + type + " " + load + "(const " + type + " *);\n";
    for (const char *store : kStores)
      text += std::string("__attribute__((device)) void ") + store + "(" + type + " *, " + type + ");\n";
  }
  return text + "#endif\n";
}

} // namespace

const std::string &cacheHintIntrinsicsHeader() {
  static const std::string header = buildHeader(); // every analysis maps it: built once
  return header;
}

} // namespace cudaperf
