#include "cudaperf/daemon/Sandbox.h"
#include "cudaperf/daemon/CpuPlacement.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <grp.h>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cudaperf::sandbox {

namespace {

constexpr uid_t kNobody = 65534;
// Inside a root view the working directory is here.
constexpr const char *kInnerWorkDir = "/sandbox";
using Clock = std::chrono::steady_clock;

// What the supervisor (the forked child that sets up isolation) tells the
// parent through the status pipe. Fixed size, written whole (< PIPE_BUF).
struct StatusRecord {
  char tag;          // 'N' network, 'P' pid namespace, 'M' mounts, 'U' user switch, 'I' isolation refused,
                     // 'G' init pid, 'E' exec failed, 'X' program ended
  int value;         // 1/0 for N/P/M/U; bit mask of what was missing for I; pid for G; errno for E;
                     // wait status for X
  long userMicros;   // for X
  long systemMicros; // for X
};

void sendStatus(int fd, char tag, int value, long user = 0, long system = 0) {
  StatusRecord record{tag, value, user, system};
  [[maybe_unused]] ssize_t written = write(fd, &record, sizeof record);
}

void setLimit(int resource, rlim_t soft, rlim_t hard) {
  rlimit limit{soft, hard};
  setrlimit(resource, &limit);
}

struct Pipe {
  int read = -1, write = -1;
};

Pipe makePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return {};
  return {fds[0], fds[1]};
}

void closeFd(int &fd) {
  if (fd >= 0)
    close(fd);
  fd = -1;
}

void closeAllBut(std::vector<int> keep) {
  keep.push_back(STDIN_FILENO);
  keep.push_back(STDOUT_FILENO);
  keep.push_back(STDERR_FILENO);
  std::sort(keep.begin(), keep.end());
  unsigned from = 0;
  for (int fd : keep) {
    if (fd < 0)
      continue;
    if (static_cast<unsigned>(fd) > from)
      close_range(from, static_cast<unsigned>(fd) - 1, 0);
    from = std::max(from, static_cast<unsigned>(fd) + 1);
  }
  close_range(from, ~0u, 0);
}

bool wantsMountNamespace(const Limits &limits) {
  return !limits.hiddenPaths.empty() || limits.privateTmpBytes > 0 || !limits.rootView.empty();
}

// The pipes and descriptors of one start, seen from the supervisor's side.
struct Wiring {
  Pipe in, out, err, status;
  std::vector<int> pass;
};

// Runs in the program's process, right before exec.
[[noreturn]] void execProgram(const Request &request, const Limits &limits, const std::string &workDir,
                              const Wiring &wiring) {
  const int statusFd = wiring.status.write;
  if (chdir(workDir.c_str()) != 0) {
    sendStatus(statusFd, 'E', errno);
    _exit(127);
  }
  if (limits.dropPrivileges && geteuid() == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) {
      sendStatus(statusFd, 'E', errno);
      _exit(127);
    }
  }
  // Passed descriptors become 3, 4, ...: first out of the way of the targets.
  std::vector<int> parked;
  for (int fd : wiring.pass)
    parked.push_back(fcntl(fd, F_DUPFD_CLOEXEC, 64));
  dup2(wiring.in.read, STDIN_FILENO);
  dup2(wiring.out.write, STDOUT_FILENO);
  dup2(wiring.err.write, STDERR_FILENO);
  for (std::size_t i = 0; i < parked.size(); ++i)
    dup2(parked[i], 3 + static_cast<int>(i));
  signal(SIGPIPE, SIG_DFL);

  std::vector<std::string> environment = {"PATH=/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin", "HOME=" + workDir,
                                          "TMPDIR=" + workDir, "LANG=C.UTF-8"};
  for (const auto &[name, value] : request.environment)
    environment.push_back(name + "=" + value);
  std::vector<char *> envp, argv;
  for (auto &entry : environment)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = request.argv;
  for (auto &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  execve(argv[0], argv.data(), envp.data());
  sendStatus(statusFd, 'E', errno);
  _exit(127);
}

// Starts the program, waits for it and reports how it ended.
[[noreturn]] void runInit(const Request &request, const Limits &limits, const std::string &workDir,
                          const Wiring &wiring, bool mountProc) {
  prctl(PR_SET_PDEATHSIG, SIGKILL); // the supervisor gone: the namespace goes too
  // PID 1 of a new PID namespace: /proc must show this namespace's processes.
  if (mountProc)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  const pid_t program = fork();
  if (program < 0) {
    sendStatus(wiring.status.write, 'E', errno);
    _exit(127);
  }
  if (program == 0)
    execProgram(request, limits, workDir, wiring);
  close(wiring.in.read);
  close(wiring.out.write);
  close(wiring.err.write);
  for (int fd : wiring.pass)
    close(fd);
  int status = 0;
  rusage usage{};
  while (wait4(program, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  sendStatus(wiring.status.write, 'X', status, usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
             usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec);
  _exit(0);
}

bool bindReadOnly(const std::string &source, const std::string &target) {
  return mount(source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) == 0 &&
         mount(nullptr, target.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) == 0;
}

// A mount point for `source` at `target`: a folder, or an empty file.
void makeMountPoint(const std::string &source, const std::string &target) {
  std::error_code error;
  struct stat info {};
  if (stat(source.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::filesystem::create_directories(target, error);
  } else {
    std::filesystem::create_directories(std::filesystem::path(target).parent_path(), error);
    close(open(target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
  }
}

std::string tmpfsOptions(std::uint64_t bytes, const char *mode, bool ownedByNobody) {
  std::string options = "size=" + std::to_string(bytes) + ",mode=" + mode;
  if (ownedByNobody)
    options += ",uid=" + std::to_string(kNobody) + ",gid=" + std::to_string(kNobody);
  return options;
}

// A fresh root holding only `limits.rootView` (read-only), /proc, a few
// device nodes and private tmpfs; entered with chroot. The program then
// works in kInnerWorkDir.
bool enterRootView(const Limits &limits, const std::string &workDir) {
  const std::uint64_t bytes = limits.privateTmpBytes ? limits.privateTmpBytes : 512ull << 20;
  const std::string root = workDir;
  if (mount("tmpfs", root.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0)
    return false;
  bool ok = true;
  std::error_code error;
  // The private /tmp first: view paths under /tmp (a build, a cache) are bound into it.
  for (const char *folder : {"/proc", "/tmp", "/dev/shm", kInnerWorkDir})
    std::filesystem::create_directories(root + folder, error);
  ok &= mount("tmpfs", (root + "/tmp").c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
              tmpfsOptions(bytes, "1777", false).c_str()) == 0;
  for (const auto &path : limits.rootView) {
    if (path.empty() || path.front() != '/')
      continue;
    struct stat info {};
    if (lstat(path.c_str(), &info) != 0)
      continue; // not on this host
    const std::string target = root + path;
    if (S_ISLNK(info.st_mode)) {
      std::error_code ignored;
      const auto pointee = std::filesystem::read_symlink(path, ignored);
      std::filesystem::create_directories(std::filesystem::path(target).parent_path(), ignored);
      ok &= !ignored && symlink(pointee.c_str(), target.c_str()) == 0;
      continue;
    }
    makeMountPoint(path, target);
    ok &= bindReadOnly(path, target);
  }
  for (const char *node : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}) {
    makeMountPoint(node, root + node);
    ok &= mount(node, (root + node).c_str(), nullptr, MS_BIND, nullptr) == 0;
  }
  ok &= mount("tmpfs", (root + "/dev/shm").c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
              tmpfsOptions(bytes, "1777", false).c_str()) == 0;
  ok &= mount("tmpfs", (root + kInnerWorkDir).c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
              tmpfsOptions(bytes, "0700", limits.dropPrivileges).c_str()) == 0;
  for (const auto &path : limits.hiddenPaths)
    if (access((root + path).c_str(), F_OK) == 0)
      ok &= mount("tmpfs", (root + path).c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=4k,mode=000") == 0;
  // The root itself read-only: the program writes only to its tmpfs.
  ok &= mount(nullptr, root.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=1m,mode=0755") == 0;
  ok &= chdir(root.c_str()) == 0 && chroot(".") == 0 && chdir("/") == 0;
  return ok;
}

// In a new mount namespace: hides `limits.hiddenPaths` under empty read-only
// tmpfs and gives the program tmpfs for its directory, /tmp and /dev/shm, or
// a root view. Returns whether everything asked for is in place. A mount
// namespace of its own also lets the init process mount a /proc that
// matches its PID namespace (the CUDA driver refuses to start without one).
bool isolateFilesystem(const Limits &limits, const std::string &workDir, bool &mountNamespace) {
  mountNamespace = false;
  const bool wanted = wantsMountNamespace(limits);
  if (!wanted && !limits.isolateProcesses)
    return true;
  if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return !wanted;
  mountNamespace = true;
  if (!limits.rootView.empty())
    return enterRootView(limits, workDir);
  bool ok = true;
  for (const auto &path : limits.hiddenPaths)
    if (access(path.c_str(), F_OK) == 0)
      ok &=
          mount("tmpfs", path.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000") == 0;
  if (limits.privateTmpBytes > 0) {
    const std::string shared = tmpfsOptions(limits.privateTmpBytes, "1777", false);
    // Every place a program may write that outlives it: private and capped.
    for (const std::string place : {"/tmp", "/dev/shm", "/var/tmp", "/run/lock"}) {
      const int old = open(place.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (old < 0)
        continue;
      ok &= mount("tmpfs", place.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, shared.c_str()) == 0;
      // What the program needs from the old place, bound back read-only.
      for (const auto &path : limits.visiblePaths) {
        if (path.rfind(place + "/", 0) != 0)
          continue;
        const std::string source = "/proc/self/fd/" + std::to_string(old) + "/" + path.substr(place.size() + 1);
        struct stat info {};
        if (stat(source.c_str(), &info) != 0)
          continue;
        makeMountPoint(source, path);
        ok &= bindReadOnly(source, path);
      }
      close(old);
    }
    // The working directory was under the old /tmp (or elsewhere): a tmpfs of its own.
    std::error_code error;
    std::filesystem::create_directories(workDir, error);
    ok &= mount("tmpfs", workDir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                tmpfsOptions(limits.privateTmpBytes, "0700", limits.dropPrivileges).c_str()) == 0;
  }
  return ok;
}

// Bits of the 'I' record: what a fail-closed start found missing.
enum Missing : int { kNoNetwork = 1, kNoPidNamespace = 2, kNoMounts = 4, kNoUserSwitch = 8 };

std::string describeMissing(int mask) {
  std::string text;
  if (mask & kNoNetwork)
    text += "network namespace, ";
  if (mask & kNoPidNamespace)
    text += "PID namespace, ";
  if (mask & kNoMounts)
    text += "mount namespace (hidden paths, private tmpfs, root view), ";
  if (mask & kNoUserSwitch)
    text += "switch to the unprivileged user (needs root), ";
  if (!text.empty())
    text.resize(text.size() - 2);
  return text;
}

// The supervisor: the forked child that isolates, limits, starts the program
// and reports how it ended. With a PID namespace the program is its PID 1:
// when the program ends, the kernel kills everything it left behind.
[[noreturn]] void supervise(const Request &request, const Limits &limits, const std::string &workDir,
                            const Wiring &wiring, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL); // the caller gone (a judge that crashed): so is everything here
  if (getppid() != parent)
    _exit(0);
  // In a threaded caller (the daemon), other runs' pipes were open when we
  // forked: keeping them would hold their stdin open (a program waiting for
  // EOF never gets it) and their stdout readers waiting. Keep only ours.
  std::vector<int> keep = {wiring.in.read, wiring.out.write, wiring.err.write, wiring.status.write};
  keep.insert(keep.end(), wiring.pass.begin(), wiring.pass.end());
  closeAllBut(keep);
  const int statusFd = wiring.status.write;
  setpgid(0, 0);
  const bool root = geteuid() == 0;
  int flags = 0;
  if (limits.isolateNetwork && root)
    flags |= CLONE_NEWNET;
  if (limits.isolateProcesses && root)
    flags |= CLONE_NEWPID | CLONE_NEWIPC; // System V shared memory would outlive the run
  int networkOk = 0, pidOk = 0;
  if (flags && unshare(flags) == 0) {
    networkOk = (flags & CLONE_NEWNET) != 0;
    pidOk = (flags & CLONE_NEWPID) != 0;
  } else if (flags) {
    // Some containers refuse one of the two: try them apart.
    if ((flags & CLONE_NEWNET) && unshare(CLONE_NEWNET) == 0)
      networkOk = 1;
    if ((flags & CLONE_NEWPID) && unshare(CLONE_NEWPID) == 0)
      pidOk = 1;
    if (flags & CLONE_NEWIPC)
      unshare(CLONE_NEWIPC);
  }
  sendStatus(statusFd, 'N', networkOk);
  sendStatus(statusFd, 'P', pidOk);
  bool mountNamespace = false;
  const bool mountsOk = isolateFilesystem(limits, workDir, mountNamespace);
  sendStatus(statusFd, 'M', mountsOk ? 1 : 0);
  const bool userSwitched = limits.dropPrivileges && root;
  sendStatus(statusFd, 'U', userSwitched ? 1 : 0);
  if (limits.requireIsolation) {
    int missing = 0;
    if (limits.isolateNetwork && !networkOk)
      missing |= kNoNetwork;
    if (limits.isolateProcesses && !pidOk)
      missing |= kNoPidNamespace;
    if (wantsMountNamespace(limits) && !mountsOk)
      missing |= kNoMounts;
    if (limits.dropPrivileges && !userSwitched)
      missing |= kNoUserSwitch;
    if (missing) {
      sendStatus(statusFd, 'I', missing);
      _exit(0);
    }
  }

  const auto cpu = static_cast<rlim_t>(limits.cpuSeconds < 1 ? 1 : limits.cpuSeconds);
  setLimit(RLIMIT_CPU, cpu, cpu + 1);
  if (limits.niceness > 0)
    setpriority(PRIO_PROCESS, 0, limits.niceness); // inherited by all it starts
  // Inherited too; a CPU outside the cgroup's set fails the call, which
  // leaves the caller's CPUs: a slower clock, not a broken run (the judge's
  // answers say which CPUs it had, machine.cpus).
  if (std::string ignored; !limits.cpus.empty())
    pinThisThread(limits.cpus, ignored);
  setLimit(RLIMIT_FSIZE, limits.fileSizeBytes, limits.fileSizeBytes);
  setLimit(RLIMIT_NOFILE, limits.openFiles, limits.openFiles);
  setLimit(RLIMIT_NPROC, limits.processes, limits.processes);
  setLimit(RLIMIT_CORE, 0, 0);
  if (limits.addressSpaceBytes > 0)
    setLimit(RLIMIT_AS, limits.addressSpaceBytes, limits.addressSpaceBytes);

  // A small init process: with a PID namespace it is PID 1, and when it
  // exits the kernel kills everything the program left behind. The program
  // itself stays an ordinary process (PID 1 ignores many signals).
  const std::string programDir = limits.rootView.empty() ? workDir : kInnerWorkDir;
  const pid_t init = fork();
  if (init < 0) {
    sendStatus(statusFd, 'E', errno);
    _exit(127);
  }
  if (init == 0)
    runInit(request, limits, programDir, wiring, pidOk && mountNamespace);
  sendStatus(statusFd, 'G', init);
  close(wiring.in.read);
  close(wiring.out.write);
  close(wiring.err.write);
  close(statusFd);
  for (int fd : wiring.pass)
    close(fd);
  int status = 0;
  while (waitpid(init, &status, 0) < 0 && errno == EINTR) {
  }
  _exit(0);
}

void appendCapped(std::string &into, const char *data, std::size_t size, std::size_t cap, bool &truncated) {
  const std::size_t room = into.size() < cap ? cap - into.size() : 0;
  into.append(data, std::min(room, size));
  if (size > room)
    truncated = true;
}

double now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// The parent's half of a start: a private directory, the pipes, the
// supervisor. On failure returns -1 with `note` set.
struct Started {
  pid_t supervisor = -1;
  int stdinWrite = -1, stdoutRead = -1, stderrRead = -1, statusRead = -1;
  std::string workDir;
  bool privateDir = false;
};

Started start(const Request &request, const Limits &limits, std::string &note) {
  // Feeding stdin to a program that closed it must give EPIPE, not kill us.
  static std::once_flag ignoreSigpipe;
  std::call_once(ignoreSigpipe, [] { signal(SIGPIPE, SIG_IGN); });
  Started started;
  if (request.argv.empty() || request.argv.front().empty() || request.argv.front()[0] != '/') {
    note = "argv[0] must be an absolute path";
    return started;
  }
  started.workDir = request.workDir;
  started.privateDir = started.workDir.empty();
  if (started.privateDir) {
    std::string pattern = (std::filesystem::temp_directory_path() / "cudaperf-sandbox-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      note = std::string("cannot create a private directory: ") + std::strerror(errno);
      return started;
    }
    started.workDir = pattern;
    chmod(started.workDir.c_str(), 0700);
    if (limits.dropPrivileges && geteuid() == 0) [[maybe_unused]]
      int ignored = chown(started.workDir.c_str(), kNobody, kNobody);
  }
  Wiring wiring;
  wiring.in = makePipe();
  wiring.out = makePipe();
  wiring.err = makePipe();
  wiring.status = makePipe();
  wiring.pass = request.passDescriptors;
  const pid_t parent = getpid();
  const bool piped = wiring.in.read >= 0 && wiring.out.read >= 0 && wiring.err.read >= 0 && wiring.status.read >= 0;
  const pid_t supervisor = piped ? fork() : -1;
  if (supervisor == 0) {
    closeFd(wiring.in.write);
    closeFd(wiring.out.read);
    closeFd(wiring.err.read);
    closeFd(wiring.status.read);
    supervise(request, limits, started.workDir, wiring, parent);
  }
  closeFd(wiring.in.read);
  closeFd(wiring.out.write);
  closeFd(wiring.err.write);
  closeFd(wiring.status.write);
  if (supervisor < 0) {
    note = std::string("cannot start: ") + std::strerror(errno);
    for (int *fd : {&wiring.in.write, &wiring.out.read, &wiring.err.read, &wiring.status.read})
      closeFd(*fd);
    if (started.privateDir)
      std::filesystem::remove_all(started.workDir);
    started.privateDir = false;
    return started;
  }
  started.supervisor = supervisor;
  started.stdinWrite = wiring.in.write;
  started.stdoutRead = wiring.out.read;
  started.stderrRead = wiring.err.read;
  started.statusRead = wiring.status.read;
  return started;
}

// Applies one status record: isolation flags to `result`, the rest to the
// out-parameters.
void applyRecord(const StatusRecord &record, Result &result, pid_t &init, bool &ended, int &waitStatus,
                 bool &startFailed, int &startErrno, int &refused) {
  switch (record.tag) {
  case 'N':
    result.networkIsolated = record.value == 1;
    break;
  case 'P':
    result.processesIsolated = record.value == 1;
    break;
  case 'M':
    result.filesystemIsolated = record.value == 1;
    break;
  case 'U':
    result.privilegesDropped = record.value == 1;
    break;
  case 'I':
    refused = record.value;
    break;
  case 'G':
    init = record.value;
    break;
  case 'E':
    startFailed = true;
    startErrno = record.value;
    break;
  case 'X':
    ended = true;
    waitStatus = record.value;
    result.cpuSeconds = (record.userMicros + record.systemMicros) / 1e6;
    break;
  default:
    break;
  }
}

void noteMissingIsolation(const Limits &limits, Result &result) {
  if (!result.networkIsolated && limits.isolateNetwork)
    result.note += "network not isolated (needs root or a permitted network namespace); ";
  if (!result.processesIsolated && limits.isolateProcesses)
    result.note += "no PID namespace: leftover processes are killed by process group only; ";
  if (!result.filesystemIsolated && wantsMountNamespace(limits))
    result.note +=
        "no mount namespace (needs root): hidden paths stay readable and the temporary directory is on disk; ";
  if (!result.privilegesDropped && limits.dropPrivileges)
    result.note += "not switched to the unprivileged user (needs root); ";
}

// How the program ended, from its wait status and why it was killed.
void classify(Result &result, const Limits &limits, bool ended, int waitStatus, bool killedForTime,
              bool killedForOutput, std::optional<Outcome> killedFor) {
  if (killedForOutput) {
    result.outcome = Outcome::OutputLimit;
    return;
  }
  if (killedFor) {
    result.outcome = *killedFor;
    return;
  }
  if (killedForTime) {
    result.outcome = Outcome::WallTimeout;
    return;
  }
  if (!ended) {
    result.outcome = Outcome::StartFailed;
    result.note += "the supervisor ended without a status";
    return;
  }
  if (WIFEXITED(waitStatus)) {
    result.outcome = Outcome::Exited;
    result.exitCode = WEXITSTATUS(waitStatus);
  } else if (WIFSIGNALED(waitStatus)) {
    result.signal = WTERMSIG(waitStatus);
    if (result.signal == SIGXCPU || (result.signal == SIGKILL && result.cpuSeconds >= limits.cpuSeconds))
      result.outcome = Outcome::CpuLimit;
    else if (result.signal == SIGXFSZ)
      result.outcome = Outcome::FileSizeLimit;
    else
      result.outcome = Outcome::Signaled;
  }
}

} // namespace

const char *toString(Outcome outcome) {
  switch (outcome) {
  case Outcome::Exited:
    return "exited";
  case Outcome::Signaled:
    return "signaled";
  case Outcome::WallTimeout:
    return "wall_timeout";
  case Outcome::CpuLimit:
    return "cpu_limit";
  case Outcome::OutputLimit:
    return "output_limit";
  case Outcome::FileSizeLimit:
    return "file_size_limit";
  case Outcome::StartFailed:
    return "start_failed";
  case Outcome::Retired:
    return "retired";
  }
  return "start_failed";
}

std::string printableTail(const std::string &text, std::size_t bytes) {
  std::string tail = text.substr(text.size() > bytes ? text.size() - bytes : 0);
  for (char &c : tail)
    if (c != '\n' && (c < 0x20 || c > 0x7e))
      c = '?';
  return tail;
}

std::vector<std::string> systemRootView() {
  return {"/usr",
          "/bin",
          "/sbin",
          "/lib",
          "/lib32",
          "/lib64",
          "/libx32",
          "/etc/alternatives",
          "/etc/ld.so.cache",
          "/etc/ld.so.conf",
          "/etc/ld.so.conf.d"};
}

Result run(const Request &request, const Limits &limits) {
  Result result;
  Started started = start(request, limits, result.note);
  if (started.supervisor < 0)
    return result;
  const pid_t supervisor = started.supervisor;
  int inWrite = started.stdinWrite, outRead = started.stdoutRead, errRead = started.stderrRead,
      statusRead = started.statusRead;
  const auto startTime = Clock::now();

  // stdin is fed from the poll loop, so a program that never reads cannot block us.
  std::size_t stdinWritten = 0;
  if (request.stdinData.empty())
    closeFd(inWrite);
  else
    fcntl(inWrite, F_SETFL, O_NONBLOCK);

  pid_t program = -1; // the init process: killing it ends a PID namespace
  int waitStatus = 0, startErrno = 0, refused = 0;
  bool ended = false, killedForTime = false, killedForOutput = false, startFailed = false;
  const auto deadline = startTime + std::chrono::duration<double>(limits.wallSeconds);
  auto lastStdout = startTime;
  auto silenceDeadline = [&] {
    if (limits.stdoutSilenceSeconds <= 0)
      return deadline;
    const auto silence = lastStdout + std::chrono::duration<double>(limits.stdoutSilenceSeconds);
    return silence < deadline ? silence : deadline;
  };
  auto killAll = [&] {
    if (program > 0)
      ::kill(program, SIGKILL); // init: with a PID namespace, the whole namespace goes
    killpg(supervisor, SIGKILL);
  };

  std::optional<Clock::time_point> drainUntil;
  char buffer[65536];
  while (outRead >= 0 || errRead >= 0 || statusRead >= 0) {
    const auto current = Clock::now();
    if (!killedForTime && !ended && current >= silenceDeadline()) {
      killedForTime = true;
      killAll();
      drainUntil = current + std::chrono::seconds(2);
    }
    if (drainUntil && current >= *drainUntil)
      break;
    const auto until = drainUntil ? *drainUntil : silenceDeadline();
    const int timeout = static_cast<int>(
        std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(until - current).count(), 1, 100));
    pollfd fds[4] = {{outRead, POLLIN, 0}, {errRead, POLLIN, 0}, {statusRead, POLLIN, 0}, {inWrite, POLLOUT, 0}};
    if (::poll(fds, 4, timeout) < 0 && errno != EINTR)
      break;
    if (inWrite >= 0 && (fds[3].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t put = (fds[3].revents & POLLOUT) ? write(inWrite, request.stdinData.data() + stdinWritten,
                                                             request.stdinData.size() - stdinWritten)
                                                     : -1;
      if (put > 0)
        stdinWritten += static_cast<std::size_t>(put);
      if (put < 0 && errno != EAGAIN)
        closeFd(inWrite); // the program closed its stdin
      else if (stdinWritten == request.stdinData.size())
        closeFd(inWrite);
    }
    for (int i = 0; i < 2; ++i) {
      int &fd = i == 0 ? outRead : errRead;
      if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      const ssize_t got = read(fd, buffer, sizeof buffer);
      if (got <= 0) {
        closeFd(fd);
        continue;
      }
      if (i == 0)
        lastStdout = Clock::now();
      bool &truncated = i == 0 ? result.stdoutTruncated : result.stderrTruncated;
      appendCapped(i == 0 ? result.stdoutText : result.stderrText, buffer, static_cast<std::size_t>(got),
                   limits.outputBytes, truncated);
      if (truncated && !killedForOutput && !ended) {
        killedForOutput = true;
        killAll();
        drainUntil = Clock::now() + std::chrono::seconds(2);
      }
    }
    if (statusRead >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      StatusRecord record{};
      const ssize_t got = read(statusRead, &record, sizeof record);
      if (got != static_cast<ssize_t>(sizeof record)) {
        closeFd(statusRead);
        continue;
      }
      const bool wasEnded = ended;
      applyRecord(record, result, program, ended, waitStatus, startFailed, startErrno, refused);
      if (ended && !wasEnded) {
        // Whatever it left behind goes too; then read what is still buffered.
        killpg(supervisor, SIGKILL);
        if (!drainUntil)
          drainUntil = Clock::now() + std::chrono::seconds(1);
      }
    }
  }
  killAll();
  for (int *fd : {&outRead, &errRead, &statusRead, &inWrite})
    closeFd(*fd);
  int supervisorStatus = 0;
  while (waitpid(supervisor, &supervisorStatus, 0) < 0 && errno == EINTR) {
  }
  result.wallSeconds = std::chrono::duration<double>(Clock::now() - startTime).count();
  if (started.privateDir) {
    std::error_code ignored;
    std::filesystem::remove_all(started.workDir, ignored);
  }
  noteMissingIsolation(limits, result);
  if (refused) {
    result.outcome = Outcome::StartFailed;
    result.note = "refused to start without its isolation: missing " + describeMissing(refused);
    return result;
  }
  if (startFailed) {
    result.outcome = Outcome::StartFailed;
    result.note += std::string("cannot start ") + request.argv.front() + ": " + std::strerror(startErrno);
    return result;
  }
  classify(result, limits, ended, waitStatus, killedForTime, killedForOutput, std::nullopt);
  return result;
}

// ------------------------------------------------------------------ Process

std::unique_ptr<Process> spawn(const Request &request, const Limits &limits, std::string &error) {
  std::unique_ptr<Process> process(new Process());
  process->limits_ = limits;
  Started started = start(request, limits, error);
  if (started.supervisor < 0)
    return nullptr;
  process->startedAt_ = now();
  process->supervisor_ = started.supervisor;
  process->workDir_ = started.workDir;
  process->privateDir_ = started.privateDir;
  process->stdout_ = started.stdoutRead;
  process->stderr_ = started.stderrRead;
  process->status_ = started.statusRead;
  closeFd(started.stdinWrite); // a spawned program reads nothing on stdin
  // Until the init process runs (or the start fails), the isolation is unknown.
  const double deadline = now() + 30;
  while (process->init_ < 0 && process->status_ >= 0 && now() < deadline) {
    pollfd fd{process->status_, POLLIN, 0};
    if (::poll(&fd, 1, 100) <= 0)
      continue;
    StatusRecord record{};
    if (read(process->status_, &record, sizeof record) != static_cast<ssize_t>(sizeof record)) {
      closeFd(process->status_);
      break;
    }
    bool startFailed = false;
    int startErrno = 0, refused = 0;
    applyRecord(record, process->result_, process->init_, process->ended_, process->waitStatus_, startFailed,
                startErrno, refused);
    if (refused) {
      error = "refused to start without its isolation: missing " + describeMissing(refused);
      return nullptr;
    }
    if (startFailed) {
      error = std::string("cannot start ") + request.argv.front() + ": " + std::strerror(startErrno);
      return nullptr;
    }
  }
  if (process->init_ < 0) {
    error = "the supervisor did not start the program";
    return nullptr;
  }
  noteMissingIsolation(limits, process->result_);
  return process;
}

void Process::readStatus() {
  while (status_ >= 0) {
    pollfd fd{status_, POLLIN, 0};
    if (::poll(&fd, 1, 0) <= 0)
      return;
    StatusRecord record{};
    if (read(status_, &record, sizeof record) != static_cast<ssize_t>(sizeof record)) {
      closeFd(status_);
      return;
    }
    bool startFailed = false;
    int startErrno = 0, refused = 0;
    const bool wasEnded = ended_;
    applyRecord(record, result_, init_, ended_, waitStatus_, startFailed, startErrno, refused);
    if (startFailed) { // exec failed after the init started
      result_.note += std::string("cannot start the program: ") + std::strerror(startErrno);
      ended_ = true;
    }
    if (ended_ && !wasEnded)
      killpg(supervisor_, SIGKILL); // what it left behind goes too
  }
}

void Process::drain(int &fd, bool isStdout) {
  char buffer[65536];
  const ssize_t got = read(fd, buffer, sizeof buffer);
  if (got <= 0) {
    closeFd(fd);
    return;
  }
  bool &truncated = isStdout ? result_.stdoutTruncated : result_.stderrTruncated;
  appendCapped(isStdout ? result_.stdoutText : result_.stderrText, buffer, static_cast<std::size_t>(got),
               limits_.outputBytes, truncated);
  if (truncated && !killed_ && !ended_)
    kill(Outcome::OutputLimit);
}

std::vector<int> Process::poll(const std::vector<int> &watch, int timeoutMs) {
  std::vector<pollfd> fds = {{stdout_, POLLIN, 0}, {stderr_, POLLIN, 0}, {status_, POLLIN, 0}};
  for (int fd : watch)
    fds.push_back({fd, POLLIN, 0});
  std::vector<int> ready;
  if (::poll(fds.data(), fds.size(), std::max(0, timeoutMs)) <= 0)
    return ready;
  if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
    drain(stdout_, true);
  if (fds[1].revents & (POLLIN | POLLHUP | POLLERR))
    drain(stderr_, false);
  if (fds[2].revents & (POLLIN | POLLHUP | POLLERR))
    readStatus();
  for (std::size_t i = 3; i < fds.size(); ++i)
    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
      ready.push_back(fds[i].fd);
  return ready;
}

bool Process::awaitEnd(double seconds) {
  const double until = now() + seconds;
  while (!ended_ && status_ >= 0 && now() < until)
    poll({}, 20);
  return ended_;
}

void Process::kill(Outcome why) {
  if (!killed_) {
    killed_ = true;
    killedFor_ = why;
  }
  if (init_ > 0)
    ::kill(init_, SIGKILL);
  if (supervisor_ > 0)
    killpg(supervisor_, SIGKILL);
}

const Result &Process::finish() {
  if (finished_)
    return result_;
  finished_ = true;
  readStatus();
  const bool endedByItself = ended_ && !killed_;
  kill(killed_ ? killedFor_ : Outcome::WallTimeout);
  // Read what is still buffered and the final status, briefly.
  const double until = now() + 1;
  while ((stdout_ >= 0 || stderr_ >= 0 || status_ >= 0) && now() < until)
    poll({}, 50);
  for (int *fd : {&stdout_, &stderr_, &status_})
    closeFd(*fd);
  int supervisorStatus = 0;
  while (supervisor_ > 0 && waitpid(supervisor_, &supervisorStatus, 0) < 0 && errno == EINTR) {
  }
  supervisor_ = -1;
  result_.wallSeconds = now() - startedAt_;
  if (privateDir_) {
    std::error_code ignored;
    std::filesystem::remove_all(workDir_, ignored);
  }
  std::optional<Outcome> why;
  if (!endedByItself)
    why = killedFor_;
  classify(result_, limits_, ended_, waitStatus_, false, false, why);
  return result_;
}

Process::~Process() { finish(); }

} // namespace cudaperf::sandbox
