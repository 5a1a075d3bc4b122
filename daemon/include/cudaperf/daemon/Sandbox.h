// Runs one untrusted program (the nvcc compile of a candidate, the analysis
// of its source, the GPU worker with a candidate loaded) so that whatever it
// does costs its own run and nothing else: own process group and, as root,
// own PID, network and mount namespaces and the unprivileged user nobody;
// resource limits, a wall-clock deadline that kills every process it started,
// a private temporary directory, a scrubbed environment and capped output.
//
// It fails closed: when an isolation it was asked for cannot be set up (not
// root, a container that refuses a namespace), the program is not started
// (Outcome::StartFailed, `note` says what was missing), unless the caller
// turns `requireIsolation` off, which development setups do explicitly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>
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
  std::uint64_t addressSpaceBytes = 0;        // RLIMIT_AS (0: unlimited): bounds a runaway's memory
  // Scheduling niceness (0: the caller's). Compiles and analyses run at 10 so
  // that they yield the cores to the judge and its worker, whose wake-ups
  // are part of every timed call.
  int niceness = 0;
  // The CPUs it and everything it starts may run on (empty: the caller's).
  // The daemon gives each GPU's judge cores of its own (CpuPlacement.h).
  std::vector<int> cpus;
  std::size_t outputBytes = 1 << 20; // cap per stream (stdout, stderr); past it the run is killed
  bool isolateNetwork = true;        // a new network namespace: no interface but a down loopback
  bool isolateProcesses = true;      // a new PID namespace: its processes die with it
  bool dropPrivileges = true;        // started as root: run as nobody (uid/gid 65534)
  // Refuse to start the program when any isolation asked for here cannot be
  // set up. Off only for development (the daemon's --insecure-no-isolation).
  bool requireIsolation = true;
  // As root, in a new mount namespace: an empty read-only tmpfs over each of
  // these (the task folders, the reference cache: files the program must not read).
  std::vector<std::string> hiddenPaths;
  // As root: the working directory, /tmp and /dev/shm become tmpfs of this
  // size each, so filling them costs the run's memory cap and never the disk (0: off).
  std::uint64_t privateTmpBytes = 0;
  // Files or folders under /tmp or /dev/shm the program needs (its binary, the
  // libraries it loads): bound read-only into the private tmpfs.
  std::vector<std::string> visiblePaths;
  // As root: a new root file system that holds only these host paths, read-only
  // (symbolic links such as /bin -> usr/bin are recreated as links), plus
  // /proc, the harmless /dev nodes and private tmpfs for /tmp, /dev/shm and
  // the working directory (/sandbox). Everything else on the host (the
  // repository, home folders, other users' files) does not exist for the
  // program. Empty: the host's root, with hiddenPaths hidden.
  std::vector<std::string> rootView;
};

// The usual view for a compiler or an analyser: /usr (toolchains, headers),
// the merged-/usr links and the dynamic linker's configuration.
std::vector<std::string> systemRootView();

struct Request {
  std::vector<std::string> argv;                                // argv[0]: absolute path of the program
  std::string workDir;                                          // empty: a private temporary directory
  std::vector<std::pair<std::string, std::string>> environment; // added to the scrubbed base environment
  std::string stdinData;
  // Descriptors the program inherits as 3, 4, ... (a socket to a judge).
  std::vector<int> passDescriptors;
};

enum class Outcome {
  Exited,        // exited by itself (see exitCode)
  Signaled,      // killed by a signal of its own (segfault, abort)
  WallTimeout,   // past the deadline
  CpuLimit,      // past RLIMIT_CPU
  OutputLimit,   // wrote more than outputBytes to stdout or stderr
  FileSizeLimit, // tried to write a file past RLIMIT_FSIZE
  StartFailed,   // could not be started (see note), or refused without its isolation
  Retired,       // killed by its caller once done with it (a judge's worker after its evaluation)
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
  bool filesystemIsolated = false; // hiddenPaths hidden, private tmpfs and root view mounted, as asked
  bool privilegesDropped = false;  // runs as nobody
  std::string note;                // isolation fallbacks, start errors
  bool succeeded() const { return outcome == Outcome::Exited && exitCode == 0; }
};

// The last `bytes` of what a sandboxed program printed, printable ASCII and
// newlines only: it goes into JSON answers, and a hostile program chose it.
std::string printableTail(const std::string &text, std::size_t bytes);

// Blocks until the program and everything it started are gone.
Result run(const Request &request, const Limits &limits);

// A program that keeps running while the caller talks to it (the judge's
// workers). Its stdout and stderr are drained into capped buffers by poll();
// the wall-clock deadline is the caller's to enforce (kill()). Destroying it
// kills the program and everything it started.
class Process {
public:
  ~Process();
  Process(const Process &) = delete;
  Process &operator=(const Process &) = delete;

  // The init process of the program's PID namespace (or the program itself
  // without one), as this process sees it: the root of its process tree.
  pid_t treeRoot() const { return init_; }
  const Result &account() const { return result_; } // isolation flags; outcome once ended
  bool ended() const { return ended_; }
  bool killed() const { return killed_; } // by kill(): the deadline, the output cap

  // Waits up to timeoutMs for output, for the program's end or for one of
  // `watch` to become readable; returns the descriptors of `watch` that are.
  // Output past the cap kills the program (Outcome::OutputLimit).
  std::vector<int> poll(const std::vector<int> &watch, int timeoutMs);
  // Waits up to `seconds` for the program's end to be reported (after its
  // socket closed, say); true when it ended.
  bool awaitEnd(double seconds);
  // Kills the whole tree; `why` is the outcome recorded (WallTimeout by default).
  void kill(Outcome why = Outcome::WallTimeout);
  // Kills if still running, waits for the tree to be gone and returns the account.
  const Result &finish();

private:
  friend std::unique_ptr<Process> spawn(const Request &, const Limits &, std::string &);
  Process() = default;
  void readStatus();
  void drain(int &fd, bool isStdout);
  Limits limits_;
  pid_t supervisor_ = -1, init_ = -1;
  int stdout_ = -1, stderr_ = -1, status_ = -1;
  std::string workDir_;
  bool privateDir_ = false, ended_ = false, finished_ = false, killed_ = false;
  Outcome killedFor_ = Outcome::WallTimeout;
  int waitStatus_ = 0;
  double startedAt_ = 0;
  Result result_;
};

// Starts the program and returns once it runs (its isolation is then known),
// or null with `error` set (start failure, isolation refused).
std::unique_ptr<Process> spawn(const Request &request, const Limits &limits, std::string &error);

} // namespace cudaperf::sandbox
