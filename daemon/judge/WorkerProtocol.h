// The protocol between the judge (trusted: owns the task, the seeds, every
// buffer and every verdict) and a worker (sandboxed, single-use: loads one
// candidate and calls it). It is the only thing the two share.
//
// One SOCK_SEQPACKET socket pair, the worker's end as its descriptor 3;
// every message is one fixed-size Message, and buffers travel as descriptors
// (SCM_RIGHTS): VMM allocations exported as POSIX file descriptors in
// device memory mode, memfds in host memory mode. A worker's life:
//
//   worker: Ready (its CUDA context is up, or why not)
//   judge:  Preflight(probe buffer, doorbell page)
//                                   -> worker writes kPreflightPattern, PreflightDone (kDoorbellRings
//                                      in flags when its GPU can ring the doorbell)
//   judge:  Empty x N               -> Returned each (calibration of the round trip)
//   judge:  Map(buffers)            -> Mapped
//   judge:  Filter                  -> Filtered (the system-call filter installed)
//   judge:  Load(library fd, entry) -> Loaded (library loaded: from here on, nothing is believed)
//   judge:  Call x M                -> Returned each
//   judge:  Exit
//
// The doorbell: a page of the judge's that the worker's GPU writes the call's
// ring token into (random per call, sent with the request: a candidate cannot
// arm the page for a call before that call's request has reached it) (a stream write behind the call's work and its end
// event), so that the judge, spinning on the page, sees the end of the work
// without the worker's wake-up in between. A candidate can ring it early;
// then the judge stops the worker at once, and its probe kernel and output
// check find what was not done (judge/LibraryRun.cpp).
//
// After Load nothing the worker says is believed: the judge times each call
// from its own side, reads every buffer through its own mapping and accepts
// only the messages it asked for, in order (anything else is a violation).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace cudaperf::worker {

constexpr std::uint32_t kMagic = 0xC0DA7E57u;
constexpr unsigned kMaxBuffers = 12; // one per entry argument at most
constexpr unsigned char kPreflightPattern = 0x5A;
// Unmapped address space the worker leaves around every mapped buffer: a
// write far past a buffer's canary band faults instead of landing elsewhere.
constexpr std::uint64_t kGuardGapBytes = 256ull << 20;

enum class Op : std::uint32_t {
  Ready = 1,
  Preflight,
  PreflightDone,
  Empty,
  Map,
  Mapped,
  Load,
  Loaded,
  Call,
  Returned,
  Exit,
  Filter, // install the system-call filter (before Load)
  Filtered,
};

enum MapFlags : std::uint32_t { kDeviceMemory = 1, kHostMemory = 2 };
enum PreflightFlags : std::uint32_t { kDoorbellRings = 1 };
constexpr std::uint64_t kDoorbellBytes = 4096;
enum CallFlags : std::uint32_t { kTraceKernels = 1 };

struct Message {
  std::uint32_t magic = kMagic;
  Op op = Op::Ready;
  std::uint64_t sequence = 0;               // the judge numbers its requests; replies echo it
  std::int32_t status = 0;                  // 0: ok; otherwise an error (text says which)
  std::uint32_t count = 0;                  // Map: buffers; Call: arguments
  std::uint32_t flags = 0;                  // Map: MapFlags; Call: CallFlags
  std::uint64_t bytes[kMaxBuffers] = {};    // Map, Preflight: size of each mapping
  std::int32_t argBuffer[kMaxBuffers] = {}; // Call: the buffer an argument points into, -1 for a scalar
  std::int64_t argValue[kMaxBuffers] = {};  // Call: byte offset into that buffer, or the scalar
  std::uint32_t ring = 0;                   // Empty, Call: what to ring the doorbell with (0: do not ring)
  double eventMs = 0;                       // Returned: the worker's CUDA event time (advisory)
  std::uint64_t kernels = 0;                // Returned with kTraceKernels: kernels CUPTI recorded
  double kernelMs = 0, busyMs = 0;          // their summed and overlapped durations
  std::int32_t traceAvailable = 0;
  char text[1024] = {}; // Load: library name and entry symbol (NUL-separated); errors
};

inline void setText(Message &message, const char *text) {
  std::strncpy(message.text, text, sizeof message.text - 1);
  message.text[sizeof message.text - 1] = '\0';
}

// Sends one message with up to kMaxBuffers descriptors.
inline bool sendMessage(int socket, const Message &message, const std::vector<int> &descriptors = {}) {
  iovec data{const_cast<Message *>(&message), sizeof message};
  msghdr header{};
  header.msg_iov = &data;
  header.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxBuffers)] = {};
  if (!descriptors.empty()) {
    if (descriptors.size() > kMaxBuffers)
      return false;
    header.msg_control = control;
    header.msg_controllen = CMSG_SPACE(sizeof(int) * descriptors.size());
    cmsghdr *rights = CMSG_FIRSTHDR(&header);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int) * descriptors.size());
    std::memcpy(CMSG_DATA(rights), descriptors.data(), sizeof(int) * descriptors.size());
  }
  return sendmsg(socket, &header, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof message);
}

// Receives one message. Descriptors that came with it go to `descriptors`
// when given, else they are closed (the judge never keeps what a worker
// sends). False on end of stream, an error, or a message that is not one
// whole Message with the magic number.
inline bool receiveMessage(int socket, Message &message, std::vector<int> *descriptors = nullptr, int flags = 0) {
  iovec data{&message, sizeof message};
  msghdr header{};
  header.msg_iov = &data;
  header.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxBuffers)] = {};
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  const ssize_t got = recvmsg(socket, &header, MSG_CMSG_CLOEXEC | flags);
  std::vector<int> received;
  for (cmsghdr *c = CMSG_FIRSTHDR(&header); c; c = CMSG_NXTHDR(&header, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < n; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        received.push_back(fd);
      }
    }
  if (descriptors)
    *descriptors = received;
  else
    for (int fd : received)
      close(fd);
  if (got != static_cast<ssize_t>(sizeof message) || (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
      message.magic != kMagic)
    return false;
  message.text[sizeof message.text - 1] = '\0';
  // A hostile worker's text goes into JSON answers: printable ASCII only.
  for (char &c : message.text)
    if (c != '\0' && c != '\n' && (c < 0x20 || c > 0x7e))
      c = '?';
  return true;
}

} // namespace cudaperf::worker
