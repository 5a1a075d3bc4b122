// Runs one untrusted program (the nvcc compile of a candidate, the GPU
// harness with a candidate loaded) so that whatever it does costs its own
// run and nothing else: own process group (and, as root, own PID and network
// namespaces), resource limits, a wall-clock deadline that kills every
// process it started, a private temporary directory, a scrubbed environment
// and capped output.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf::sandbox {

struct Limits {
  double wallSeconds = 30; // deadline; then every process of the run is killed
  double cpuSeconds = 20;  // RLIMIT_CPU
  // Killed (as a wall timeout) after this long without a byte on stdout: a
  // per-answer deadline for programs that answer requests one by one (0: off).
  double stdoutSilenceSeconds = 0;
  std::uint64_t fileSizeBytes = 256ull << 20; // RLIMIT_FSIZE: the largest file it may write
  std::uint64_t openFiles = 256;              // RLIMIT_NOFILE
  std::uint64_t processes = 64;               // RLIMIT_NPROC (of the unprivileged user it runs as)
  std::size_t outputBytes = 1 << 20;          // cap per stream (stdout, stderr); past it the run is killed
  bool isolateNetwork = true;                 // a new network namespace: no interface but a down loopback
  bool isolateProcesses = true;               // a new PID namespace: its processes die with it
  bool dropPrivileges = true;                 // started as root: run as nobody (uid/gid 65534)
  // As root, in a new mount namespace: an empty read-only tmpfs over each of
  // these (the task folders, the reference cache: files the program must not read).
  std::vector<std::string> hiddenPaths;
  // As root: the working directory, /tmp and /dev/shm become tmpfs of this
  // size each, so filling them costs the run's memory cap and never the disk (0: off).
  std::uint64_t privateTmpBytes = 0;
  // Files or folders under /tmp or /dev/shm the program needs (its binary, the
  // libraries it loads): bound read-only into the private tmpfs.
  std::vector<std::string> visiblePaths;
};

struct Request {
  std::vector<std::string> argv;                                // argv[0]: absolute path of the program
  std::string workDir;                                          // empty: a private temporary directory
  std::vector<std::pair<std::string, std::string>> environment; // added to the scrubbed base environment
  std::string stdinData;
};

enum class Outcome {
  Exited,        // exited by itself (see exitCode)
  Signaled,      // killed by a signal of its own (segfault, abort)
  WallTimeout,   // past the deadline
  CpuLimit,      // past RLIMIT_CPU
  OutputLimit,   // wrote more than outputBytes to stdout or stderr
  FileSizeLimit, // tried to write a file past RLIMIT_FSIZE
  StartFailed,   // could not be started (see note)
};

const char *toString(Outcome outcome);

struct Result {
  Outcome outcome = Outcome::StartFailed;
  int exitCode = -1;
  int signal = 0;
  double wallSeconds = 0;
  double cpuSeconds = 0; // user + system of the program and its children
  std::string stdoutText, stderrText;
  bool stdoutTruncated = false, stderrTruncated = false;
  bool networkIsolated = false;
  bool processesIsolated = false;
  bool filesystemIsolated = false; // hiddenPaths hidden and private tmpfs mounted, as asked
  std::string note;                // isolation fallbacks, start errors
  bool succeeded() const { return outcome == Outcome::Exited && exitCode == 0; }
};

// Blocks until the program and everything it started are gone.
Result run(const Request &request, const Limits &limits);

} // namespace cudaperf::sandbox
