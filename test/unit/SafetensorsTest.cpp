// The safetensors reader against files built byte by byte here (not by our
// writer): each kind of corruption gets an error naming the file and the
// tensor; and the writer's files read back, contiguous and aligned.
#include "cudaperf/trainer/Safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace cudaperf::trainer;
namespace fs = std::filesystem;

namespace {

class SafetensorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudaperf-st-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // header JSON as given, then `data` bytes; headerLength overrides the real length.
  std::string writeRaw(const std::string &name, const std::string &header, const std::string &data,
                       long long headerLength = -1) {
    const std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    unsigned long long n = headerLength < 0 ? header.size() : static_cast<unsigned long long>(headerLength);
    for (int i = 0; i < 8; ++i)
      out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
    out << header << data;
    return path;
  }

  std::string errorOf(const std::string &path) {
    try {
      SafetensorsFile::open(path);
    } catch (const SafetensorsError &error) {
      return error.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(SafetensorsTest, ReadsAHandWrittenFile) {
  float values[3] = {1.5f, -2.0f, 3.25f};
  std::string data(reinterpret_cast<const char *>(values), sizeof values);
  data += std::string("\x01\x02", 2);
  const auto path = writeRaw("ok.safetensors",
                             R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
                             R"("b":{"dtype":"U8","shape":[1,2],"data_offsets":[12,14]}})",
                             data);
  auto file = SafetensorsFile::open(path);
  ASSERT_EQ(file->tensors().size(), 2u);
  const TensorView &w = file->at("w");
  EXPECT_EQ(w.dtype, TensorDtype::F32);
  EXPECT_EQ(w.shape, (std::vector<std::int64_t>{3}));
  float back[3];
  std::memcpy(back, w.data, 12);
  EXPECT_EQ(back[2], 3.25f);
  EXPECT_EQ(file->at("b").data[1], 2);
  EXPECT_EQ(file->metadata().at("format"), "pt");
}

struct Corruption {
  const char *label, *header;
  std::size_t dataBytes;
  long long headerLength;
  const char *mustMention;
};

TEST_F(SafetensorsTest, EveryCorruptionNamesTheFileAndTheTensor) {
  const Corruption cases[] = {
      {"unknown dtype", R"({"w":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}})", 8, -1, "unknown dtype 'F12'"},
      {"shape vs size", R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8, -1, "need 12 bytes"},
      {"out of range", R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8, -1, "out of range"},
      {"overlap",
       R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
       12, -1, "overlap"},
      {"end before begin", R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[8,4]}})", 8, -1, "end before begin"},
      {"negative dim", R"({"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}})", 0, -1, "non-negative"},
      {"no offsets", R"({"w":{"dtype":"U8","shape":[1]}})", 1, -1, "data_offsets"},
  };
  for (const auto &c : cases) {
    const auto path =
        writeRaw(std::string(c.label) + ".safetensors", c.header, std::string(c.dataBytes, '\0'), c.headerLength);
    const std::string error = errorOf(path);
    EXPECT_NE(error.find(path), std::string::npos) << c.label << ": " << error;
    EXPECT_NE(error.find(c.mustMention), std::string::npos) << c.label << ": " << error;
    if (std::string(c.label) != "overlap") // the overlap names both tensors
      EXPECT_NE(error.find("tensor 'w'"), std::string::npos) << c.label << ": " << error;
    else
      EXPECT_TRUE(error.find("'a'") != std::string::npos && error.find("'b'") != std::string::npos) << error;
  }
}

TEST_F(SafetensorsTest, TruncatedFilesAndBrokenHeaders) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  // The header length promises more than the file holds.
  EXPECT_NE(errorOf(writeRaw("short-header.safetensors", header, "", header.size() + 50)).find("truncated"),
            std::string::npos);
  // Data cut short: the tensor's range runs past the end.
  EXPECT_NE(errorOf(writeRaw("short-data.safetensors", header, std::string(5, '\0'))).find("out of range"),
            std::string::npos);
  // Fewer than eight bytes.
  const std::string tiny = (dir_ / "tiny.safetensors").string();
  std::ofstream(tiny) << "abc";
  EXPECT_NE(errorOf(tiny).find("truncated"), std::string::npos);
  EXPECT_NE(errorOf(writeRaw("not-json.safetensors", "{nope", "")).find("not JSON"), std::string::npos);
  EXPECT_NE(errorOf(writeRaw("huge.safetensors", header, "", 1ll << 40)).find("implausible"), std::string::npos);
  EXPECT_NE(errorOf((dir_ / "absent.safetensors").string()).find("cannot open"), std::string::npos);
}

TEST_F(SafetensorsTest, WriterRoundTripIsContiguousAndAligned) {
  std::vector<std::uint16_t> half(5, 0x3c00);
  std::vector<double> wide{1.0, 2.0};
  std::vector<std::int32_t> ints{7, 8, 9};
  const std::string path = (dir_ / "written.safetensors").string();
  writeSafetensors(path,
                   {{"z.half", TensorDtype::BF16, {5}, half.data(), 10},
                    {"a.wide", TensorDtype::F64, {2, 1}, wide.data(), 16},
                    {"m.ints", TensorDtype::I32, {3}, ints.data(), 12}},
                   {{"step", "3"}});
  auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file->metadata().at("step"), "3");
  std::size_t total = 0;
  for (const auto &[name, view] : file->tensors()) {
    total += view.bytes;
    // Each tensor starts at a multiple of its element size within the data section.
    EXPECT_EQ(static_cast<std::size_t>(view.data - file->at("a.wide").data) % tensorDtypeBytes(view.dtype), 0u) << name;
  }
  std::int32_t back[3];
  std::memcpy(back, file->at("m.ints").data, 12);
  EXPECT_EQ(back[2], 9);
  EXPECT_EQ(file->at("a.wide").shape, (std::vector<std::int64_t>{2, 1}));
  // The data section is exactly the tensors: no gap, nothing after them.
  std::ifstream in(path, std::ios::binary);
  unsigned long long headerLength = 0;
  for (int i = 0; i < 8; ++i)
    headerLength |= static_cast<unsigned long long>(static_cast<unsigned char>(in.get())) << (8 * i);
  EXPECT_EQ(headerLength % 8, 0u);
  EXPECT_EQ(fs::file_size(path), 8 + headerLength + total);
  EXPECT_FALSE(fs::exists(path + ".partial"));
}

TEST_F(SafetensorsTest, WriterRefusesInconsistentTensors) {
  float x[2] = {};
  EXPECT_THROW(writeSafetensors((dir_ / "bad.safetensors").string(), {{"x", TensorDtype::F32, {3}, x, 8}}),
               SafetensorsError);
  EXPECT_THROW(writeSafetensors((dir_ / "twice.safetensors").string(),
                                {{"x", TensorDtype::F32, {2}, x, 8}, {"x", TensorDtype::F32, {2}, x, 8}}),
               SafetensorsError);
}

TEST_F(SafetensorsTest, ShardedFolderLooksEachTensorUpInItsShard) {
  float a[2] = {1, 2}, b[1] = {3};
  writeSafetensors((dir_ / "part-1.safetensors").string(), {{"a", TensorDtype::F32, {2}, a, 8}});
  writeSafetensors((dir_ / "part-2.safetensors").string(), {{"b", TensorDtype::F32, {1}, b, 4}});
  std::ofstream(dir_ / "model.safetensors.index.json")
      << R"({"metadata":{},"weight_map":{"a":"part-1.safetensors","b":"part-2.safetensors"}})";
  auto set = SafetensorsSet::openFolder(dir_.string());
  EXPECT_EQ(set.files(), 2u);
  float back;
  std::memcpy(&back, set.at("b").data, 4);
  EXPECT_EQ(back, 3.0f);
  EXPECT_NE(set.pathOf("b").find("part-2"), std::string::npos);
  try {
    set.at("c");
    FAIL() << "a missing tensor must throw";
  } catch (const SafetensorsError &error) {
    EXPECT_NE(std::string(error.what()).find("missing tensor 'c'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("index.json"), std::string::npos);
  }
  // An index that names a tensor its shard lacks.
  std::ofstream(dir_ / "model.safetensors.index.json", std::ios::trunc)
      << R"({"weight_map":{"a":"part-1.safetensors","ghost":"part-1.safetensors"}})";
  try {
    SafetensorsSet::openFolder(dir_.string());
    FAIL() << "a tensor missing from its shard must throw";
  } catch (const SafetensorsError &error) {
    EXPECT_NE(std::string(error.what()).find("part-1.safetensors: missing tensor 'ghost'"), std::string::npos)
        << error.what();
  }
  // A shard name that climbs out of the folder.
  std::ofstream(dir_ / "model.safetensors.index.json", std::ios::trunc)
      << R"({"weight_map":{"a":"../elsewhere.safetensors"}})";
  EXPECT_THROW(SafetensorsSet::openFolder(dir_.string()), SafetensorsError);
}

} // namespace
