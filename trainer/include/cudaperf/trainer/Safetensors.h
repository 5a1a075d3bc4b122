// safetensors files: an 8-byte little-endian header length, a JSON header
// naming each tensor's dtype, shape and [begin, end) byte range in the data
// that follows. Our own reader (mmap, every field validated) and writer (used
// for checkpoints and by tests that make tiny models). No LibTorch here: the
// model loader turns the views into tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf::trainer {

enum class TensorDtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool, F8E4M3, F8E5M2 };

// "F32" -> F32; nullopt-like failure is reported by the reader with the file and tensor.
bool parseTensorDtype(const std::string &text, TensorDtype &out);
const char *tensorDtypeName(TensorDtype dtype);
std::size_t tensorDtypeBytes(TensorDtype dtype);

// Every failure names the file and, where it applies, the tensor.
struct SafetensorsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TensorView {
  std::string name;
  TensorDtype dtype = TensorDtype::F32;
  std::vector<std::int64_t> shape;
  const std::uint8_t *data = nullptr; // inside the mapping; not aligned in general
  std::size_t bytes = 0;
  std::int64_t elements() const;
};

// One mapped file. The views stay valid while the object lives.
class SafetensorsFile {
public:
  static std::unique_ptr<SafetensorsFile> open(const std::string &path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;

  const std::string &path() const { return path_; }
  const std::map<std::string, TensorView> &tensors() const { return tensors_; }
  const std::map<std::string, std::string> &metadata() const { return metadata_; }
  // Throws a SafetensorsError naming the file and the tensor when it is missing.
  const TensorView &at(const std::string &name) const;
  bool contains(const std::string &name) const { return tensors_.count(name) != 0; }

private:
  SafetensorsFile() = default;
  std::string path_;
  void *mapping_ = nullptr;
  std::size_t mappedBytes_ = 0;
  std::map<std::string, TensorView> tensors_;
  std::map<std::string, std::string> metadata_;
};

// A model's weights: one model.safetensors, or the shards that
// model.safetensors.index.json names (each tensor looked up in its shard).
class SafetensorsSet {
public:
  // folder: a Hugging Face model folder.
  static SafetensorsSet openFolder(const std::string &folder);
  const TensorView &at(const std::string &name) const;
  bool contains(const std::string &name) const;
  // The file that holds the tensor (for errors about it).
  const std::string &pathOf(const std::string &name) const;
  std::vector<std::string> names() const;
  std::size_t files() const { return files_.size(); }

private:
  std::vector<std::shared_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile *> where_;
  std::string describe_; // for errors: the folder's weights file(s)
};

struct TensorToWrite {
  std::string name;
  TensorDtype dtype = TensorDtype::F32;
  std::vector<std::int64_t> shape;
  const void *data = nullptr;
  std::size_t bytes = 0;
};

// Writes atomically (a temporary beside the target, then rename); the data
// contiguous, widest dtypes first so each tensor is aligned to its element;
// readable by the reference safetensors library. Throws SafetensorsError.
void writeSafetensors(const std::string &path, const std::vector<TensorToWrite> &tensors,
                      const std::map<std::string, std::string> &metadata = {});

} // namespace cudaperf::trainer
