#include "cudaperf/trainer/Safetensors.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaperf::trainer {
namespace json = boost::json;

namespace {

struct DtypeInfo {
  TensorDtype dtype;
  const char *name;
  std::size_t bytes;
};
constexpr DtypeInfo kDtypes[] = {
    {TensorDtype::F64, "F64", 8},   {TensorDtype::F32, "F32", 4},        {TensorDtype::F16, "F16", 2},
    {TensorDtype::BF16, "BF16", 2}, {TensorDtype::I64, "I64", 8},        {TensorDtype::I32, "I32", 4},
    {TensorDtype::I16, "I16", 2},   {TensorDtype::I8, "I8", 1},          {TensorDtype::U8, "U8", 1},
    {TensorDtype::Bool, "BOOL", 1}, {TensorDtype::F8E4M3, "F8_E4M3", 1}, {TensorDtype::F8E5M2, "F8_E5M2", 1},
};

// A header larger than this is not a model's: refuse it before reading it.
constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;

[[noreturn]] void fail(const std::string &path, const std::string &what) { throw SafetensorsError(path + ": " + what); }

std::uint64_t nonNegativeInteger(const json::value &value, const std::string &path, const std::string &what) {
  if (value.is_uint64())
    return value.as_uint64();
  if (value.is_int64() && value.as_int64() >= 0)
    return static_cast<std::uint64_t>(value.as_int64());
  fail(path, what + " is not a non-negative integer");
}

} // namespace

bool parseTensorDtype(const std::string &text, TensorDtype &out) {
  for (const auto &info : kDtypes)
    if (text == info.name) {
      out = info.dtype;
      return true;
    }
  return false;
}

const char *tensorDtypeName(TensorDtype dtype) {
  for (const auto &info : kDtypes)
    if (info.dtype == dtype)
      return info.name;
  return "?";
}

std::size_t tensorDtypeBytes(TensorDtype dtype) {
  for (const auto &info : kDtypes)
    if (info.dtype == dtype)
      return info.bytes;
  return 0;
}

std::int64_t TensorView::elements() const {
  std::int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

// ------------------------------------------------------------------ reader

std::unique_ptr<SafetensorsFile> SafetensorsFile::open(const std::string &path) {
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile);
  file->path_ = path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    fail(path, "not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size < 8) {
    ::close(fd);
    fail(path, "truncated: " + std::to_string(size) + " bytes, fewer than the 8-byte header length");
  }
  void *mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED)
    fail(path, std::string("cannot map: ") + std::strerror(errno));
  file->mapping_ = mapping;
  file->mappedBytes_ = size;
  const auto *bytes = static_cast<const std::uint8_t *>(mapping);

  std::uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i)
    headerBytes = (headerBytes << 8) | bytes[i];
  if (headerBytes > kMaxHeaderBytes)
    fail(path,
         "header length " + std::to_string(headerBytes) + " is implausible (over 100 MiB): not a safetensors file");
  if (8 + headerBytes > size)
    fail(path, "truncated: the header needs " + std::to_string(headerBytes) + " bytes, the file has " +
                   std::to_string(size - 8) + " after the length");
  const std::uint8_t *data = bytes + 8 + headerBytes;
  const std::uint64_t dataBytes = size - 8 - headerBytes;

  json::value header;
  try {
    header = json::parse(json::string_view(reinterpret_cast<const char *>(bytes + 8), headerBytes));
  } catch (const std::exception &error) {
    fail(path, std::string("header is not JSON: ") + error.what());
  }
  if (!header.is_object())
    fail(path, "header is not a JSON object");

  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges; // (begin, end) to find overlaps
  std::vector<std::string> rangeNames;
  for (const auto &[key, entry] : header.as_object()) {
    const std::string name(key);
    if (name == "__metadata__") {
      if (!entry.is_object())
        fail(path, "__metadata__ is not an object");
      for (const auto &[metaKey, metaValue] : entry.as_object())
        if (metaValue.is_string())
          file->metadata_[std::string(metaKey)] = std::string(metaValue.as_string());
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!entry.is_object())
      fail(path, where + ": entry is not an object");
    const auto &object = entry.as_object();
    const auto *dtype = object.if_contains("dtype");
    const auto *shape = object.if_contains("shape");
    const auto *offsets = object.if_contains("data_offsets");
    if (!dtype || !dtype->is_string())
      fail(path, where + ": no dtype");
    TensorView view;
    view.name = name;
    if (!parseTensorDtype(std::string(dtype->as_string()), view.dtype))
      fail(path, where + ": unknown dtype '" + std::string(dtype->as_string()) + "'");
    if (!shape || !shape->is_array())
      fail(path, where + ": no shape");
    std::uint64_t elements = 1;
    for (const auto &d : shape->as_array()) {
      const std::uint64_t dim = nonNegativeInteger(d, path, where + ": a shape entry");
      if (dim != 0 && elements > (std::uint64_t(1) << 62) / dim)
        fail(path, where + ": shape overflows");
      elements *= dim;
      view.shape.push_back(static_cast<std::int64_t>(dim));
    }
    if (!offsets || !offsets->is_array() || offsets->as_array().size() != 2)
      fail(path, where + ": data_offsets is not [begin, end]");
    const std::uint64_t begin = nonNegativeInteger(offsets->as_array()[0], path, where + ": data_offsets' begin");
    const std::uint64_t end = nonNegativeInteger(offsets->as_array()[1], path, where + ": data_offsets' end");
    if (end < begin)
      fail(path, where + ": data_offsets end before begin");
    if (end > dataBytes)
      fail(path, where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") out of range: the data section has " + std::to_string(dataBytes) + " bytes (truncated file?)");
    const std::uint64_t expected = elements * tensorDtypeBytes(view.dtype);
    if (end - begin != expected)
      fail(path, where + ": shape and dtype need " + std::to_string(expected) + " bytes, data_offsets give " +
                     std::to_string(end - begin));
    view.data = data + begin;
    view.bytes = end - begin;
    ranges.emplace_back(begin, end);
    rangeNames.push_back(name);
    file->tensors_.emplace(name, std::move(view));
  }
  std::vector<std::size_t> order(ranges.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return ranges[a] < ranges[b]; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto &previous = ranges[order[i - 1]], &current = ranges[order[i]];
    // Empty tensors take no bytes and overlap nothing.
    if (current.first < previous.second && current.second > current.first && previous.second > previous.first)
      fail(path,
           "tensor '" + rangeNames[order[i]] + "': data_offsets overlap tensor '" + rangeNames[order[i - 1]] + "'");
  }
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  if (mapping_)
    ::munmap(mapping_, mappedBytes_);
}

const TensorView &SafetensorsFile::at(const std::string &name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    fail(path_, "missing tensor '" + name + "'");
  return it->second;
}

// -------------------------------------------------------------- folder set

SafetensorsSet SafetensorsSet::openFolder(const std::string &folder) {
  namespace fs = std::filesystem;
  SafetensorsSet set;
  const fs::path single = fs::path(folder) / "model.safetensors";
  const fs::path index = fs::path(folder) / "model.safetensors.index.json";
  if (fs::exists(index)) {
    set.describe_ = index.string();
    std::ifstream in(index);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json::value parsed;
    try {
      parsed = json::parse(text);
    } catch (const std::exception &error) {
      fail(index.string(), std::string("not JSON: ") + error.what());
    }
    const auto *map = parsed.is_object() ? parsed.as_object().if_contains("weight_map") : nullptr;
    if (!map || !map->is_object())
      fail(index.string(), "no weight_map object");
    std::map<std::string, std::shared_ptr<SafetensorsFile>> shards;
    for (const auto &[tensor, shard] : map->as_object()) {
      if (!shard.is_string())
        fail(index.string(), "tensor '" + std::string(tensor) + "': shard name is not a string");
      const std::string shardName(shard.as_string());
      if (shardName.find('/') != std::string::npos || shardName == "..")
        fail(index.string(), "tensor '" + std::string(tensor) + "': shard '" + shardName + "' is not a file name");
      auto &file = shards[shardName];
      if (!file) {
        file = SafetensorsFile::open((fs::path(folder) / shardName).string());
        set.files_.push_back(file);
      }
      if (!file->contains(std::string(tensor)))
        fail(file->path(), "missing tensor '" + std::string(tensor) + "' (the index puts it in this shard)");
      set.where_[std::string(tensor)] = file.get();
    }
  } else if (fs::exists(single)) {
    set.describe_ = single.string();
    auto file = std::shared_ptr<SafetensorsFile>(SafetensorsFile::open(single.string()));
    for (const auto &[name, view] : file->tensors())
      set.where_[name] = file.get();
    set.files_.push_back(std::move(file));
  } else {
    fail(folder, "no model.safetensors or model.safetensors.index.json");
  }
  return set;
}

const TensorView &SafetensorsSet::at(const std::string &name) const {
  auto it = where_.find(name);
  if (it == where_.end())
    fail(describe_, "missing tensor '" + name + "'");
  return it->second->at(name);
}

const std::string &SafetensorsSet::pathOf(const std::string &name) const {
  auto it = where_.find(name);
  return it == where_.end() ? describe_ : it->second->path();
}

bool SafetensorsSet::contains(const std::string &name) const { return where_.count(name) != 0; }

std::vector<std::string> SafetensorsSet::names() const {
  std::vector<std::string> out;
  for (const auto &[name, file] : where_)
    out.push_back(name);
  return out;
}

// ------------------------------------------------------------------ writer

void writeSafetensors(const std::string &path, const std::vector<TensorToWrite> &tensors,
                      const std::map<std::string, std::string> &metadata) {
  std::vector<const TensorToWrite *> sorted;
  std::set<std::string> seen;
  for (const auto &tensor : tensors) {
    if (!seen.insert(tensor.name).second)
      fail(path, "tensor '" + tensor.name + "' written twice");
    std::uint64_t elements = 1;
    for (auto d : tensor.shape) {
      if (d < 0)
        fail(path, "tensor '" + tensor.name + "': negative dimension");
      elements *= static_cast<std::uint64_t>(d);
    }
    if (elements * tensorDtypeBytes(tensor.dtype) != tensor.bytes)
      fail(path, "tensor '" + tensor.name + "': " + std::to_string(tensor.bytes) + " bytes for a shape of " +
                     std::to_string(elements) + " " + tensorDtypeName(tensor.dtype) + " elements");
    sorted.push_back(&tensor);
  }
  // Contiguous, as the reference reader insists (no gaps, no trailing bytes);
  // wider dtypes first, so that every tensor starts aligned to its element.
  std::sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) {
    const auto wa = tensorDtypeBytes(a->dtype), wb = tensorDtypeBytes(b->dtype);
    return wa != wb ? wa > wb : a->name < b->name;
  });

  json::object header;
  if (!metadata.empty()) {
    json::object meta;
    for (const auto &[key, value] : metadata)
      meta[key] = value;
    header["__metadata__"] = std::move(meta);
  }
  std::uint64_t offset = 0;
  for (const auto *tensor : sorted) {
    json::array shape;
    for (auto d : tensor->shape)
      shape.push_back(d);
    header[tensor->name] = json::object{{"dtype", tensorDtypeName(tensor->dtype)},
                                        {"shape", std::move(shape)},
                                        {"data_offsets", json::array{offset, offset + tensor->bytes}}};
    offset += tensor->bytes;
  }
  std::string text = json::serialize(header);
  // The data section starts 8-byte aligned too (spaces are valid JSON padding).
  text.append((8 - text.size() % 8) % 8, ' ');

  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      fail(temporary, std::string("cannot write: ") + std::strerror(errno));
    std::uint8_t length[8];
    for (int i = 0; i < 8; ++i)
      length[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
    out.write(reinterpret_cast<const char *>(length), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto *tensor : sorted)
      out.write(static_cast<const char *>(tensor->data), static_cast<std::streamsize>(tensor->bytes));
    out.flush();
    if (!out)
      fail(temporary, "write failed (disk full?)");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error)
    fail(path, "cannot rename the written file into place: " + error.message());
}

} // namespace cudaperf::trainer
