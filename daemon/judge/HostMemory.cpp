// Host-memory backend of the judge: memfds the worker maps, loops for the rest.
#include "JudgeMemory.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace cudaperf::judge {

namespace {

constexpr std::uint64_t kPage = 4096;

std::uint64_t roundUp(std::uint64_t value, std::uint64_t to) { return (value + to - 1) / to * to; }

class HostMemory final : public Memory {
public:
  bool device() const override { return false; }

  SharedBuffer share(std::uint64_t capacity) override {
    SharedBuffer buffer;
    buffer.capacity = capacity;
    buffer.totalBytes = kCanaryBandBytes + roundUp(capacity, kPage) + kCanaryBandBytes;
    buffer.fd = memfd_create("cudaperf-shared", MFD_CLOEXEC);
    if (buffer.fd < 0 || ftruncate(buffer.fd, static_cast<off_t>(buffer.totalBytes)) != 0)
      throw JudgeFailure(std::string("memfd: ") + std::strerror(errno));
    void *at = mmap(nullptr, buffer.totalBytes, PROT_READ | PROT_WRITE, MAP_SHARED, buffer.fd, 0);
    if (at == MAP_FAILED)
      throw JudgeFailure(std::string("mmap: ") + std::strerror(errno));
    buffer.base = static_cast<unsigned char *>(at);
    return buffer;
  }

  void release(SharedBuffer &buffer) override {
    if (buffer.base)
      munmap(buffer.base, buffer.totalBytes);
    if (buffer.fd >= 0)
      close(buffer.fd);
    buffer = {};
  }

  unsigned char *allocate(std::uint64_t bytes) override {
    void *at = std::aligned_alloc(kPage, roundUp(std::max<std::uint64_t>(bytes, 1), kPage));
    if (!at)
      throw JudgeFailure("out of host memory");
    return static_cast<unsigned char *>(at);
  }
  void free(unsigned char *pointer) override { std::free(pointer); }
  void fill(unsigned char *at, unsigned char value, std::uint64_t bytes) override { std::memset(at, value, bytes); }
  void copy(unsigned char *to, const unsigned char *from, std::uint64_t bytes) override {
    std::memmove(to, from, bytes);
  }
  void upload(unsigned char *to, const void *host, std::uint64_t bytes) override { std::memcpy(to, host, bytes); }
  void download(void *host, const unsigned char *from, std::uint64_t bytes) override { std::memcpy(host, from, bytes); }

  void generate(unsigned char *at, std::uint64_t count, const draw::DrawSpec &spec, std::uint64_t key) override {
    draw::drawIntoHost(at, count, spec, key);
  }

  std::uint64_t countUnlike(const unsigned char *at, std::uint64_t bytes, const unsigned char *other,
                            unsigned char value) override {
    std::uint64_t differing = 0;
    for (std::uint64_t i = 0; i < bytes; ++i)
      differing += at[i] != (other ? other[i] : value);
    return differing;
  }

  CompareSummary compare(const unsigned char *expected, const unsigned char *actual, std::uint64_t count,
                         draw::StoredType type, double atol, double rtol, bool absoluteAtol) override {
    CompareSummary summary;
    const unsigned width = draw::storedBytes(type);
    double squares = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      const double e = draw::loadElement(expected + i * width, type);
      if (e - e == 0)
        squares += e * e;
    }
    const double rms = count ? std::sqrt(squares / static_cast<double>(count)) : 0;
    summary.scale = rms > 0 && !absoluteAtol ? rms : 1.0;
    const bool floating = draw::isFloatingType(type);
    for (std::uint64_t i = 0; i < count; ++i) {
      double absError = 0, ratio = 0;
      if (!draw::elementMatches(draw::loadElement(expected + i * width, type),
                                draw::loadElement(actual + i * width, type), floating, atol, rtol, summary.scale,
                                absError, ratio))
        ++summary.mismatches;
      summary.maxAbsError = std::max(summary.maxAbsError, absError);
      summary.maxRatio = std::max(summary.maxRatio, ratio);
    }
    return summary;
  }

  void synchronize() override {}
};

} // namespace

std::unique_ptr<Memory> makeHostMemory() { return std::make_unique<HostMemory>(); }

} // namespace cudaperf::judge
