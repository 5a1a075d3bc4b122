#include "cudaperf/daemon/Sandbox.h"

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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cudaperf::sandbox {

namespace {

constexpr uid_t kNobody = 65534;
using Clock = std::chrono::steady_clock;

// What the supervisor (the forked child that sets up isolation) tells the
// parent through the status pipe. Fixed size, written whole (< PIPE_BUF).
struct StatusRecord {
  char tag;          // 'N' network, 'P' pid namespace, 'M' mounts, 'G' program pid, 'E' exec failed, 'X' program ended
  int value;         // 1/0 (or errno) for N/P; pid for G; errno for E; wait status for X
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

// Runs in the program's process, right before exec.
[[noreturn]] void execProgram(const Request &request, const Limits &limits, const std::string &workDir, const Pipe &in,
                              const Pipe &out, const Pipe &err, int statusFd) {
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
  dup2(in.read, STDIN_FILENO);
  dup2(out.write, STDOUT_FILENO);
  dup2(err.write, STDERR_FILENO);
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
[[noreturn]] void runInit(const Request &request, const Limits &limits, const std::string &workDir, const Pipe &in,
                          const Pipe &out, const Pipe &err, int statusFd, bool mountProc) {
  // PID 1 of a new PID namespace: /proc must show this namespace's processes.
  if (mountProc)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  const pid_t program = fork();
  if (program < 0) {
    sendStatus(statusFd, 'E', errno);
    _exit(127);
  }
  if (program == 0)
    execProgram(request, limits, workDir, in, out, err, statusFd);
  close(in.read);
  close(out.write);
  close(err.write);
  int status = 0;
  rusage usage{};
  while (wait4(program, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  sendStatus(statusFd, 'X', status, usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
             usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec);
  _exit(0);
}

// In a new mount namespace: hides `limits.hiddenPaths` under empty read-only
// tmpfs and gives the program tmpfs for its directory, /tmp and /dev/shm.
// Returns whether everything asked for is in place.
// A mount namespace of its own also lets the init process mount a /proc that
// matches its PID namespace (the CUDA driver refuses to start without one).
bool isolateFilesystem(const Limits &limits, const std::string &workDir, bool &mountNamespace) {
  mountNamespace = false;
  const bool wanted = !limits.hiddenPaths.empty() || limits.privateTmpBytes > 0;
  if (!wanted && !limits.isolateProcesses)
    return true;
  if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return !wanted;
  mountNamespace = true;
  bool ok = true;
  for (const auto &path : limits.hiddenPaths)
    if (access(path.c_str(), F_OK) == 0)
      ok &=
          mount("tmpfs", path.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000") == 0;
  if (limits.privateTmpBytes > 0) {
    const std::string size = "size=" + std::to_string(limits.privateTmpBytes);
    const std::string shared = size + ",mode=1777";
    for (const std::string place : {"/tmp", "/dev/shm"}) {
      const int old = open(place.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (old < 0)
        continue;
      ok &= mount("tmpfs", place.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, shared.c_str()) == 0;
      // What the program needs from the old place, bound back read-only.
      for (const auto &path : limits.visiblePaths) {
        if (path.rfind(place + "/", 0) != 0)
          continue;
        const std::string relative = path.substr(place.size() + 1);
        const std::string source = "/proc/self/fd/" + std::to_string(old) + "/" + relative;
        struct stat info {};
        if (stat(source.c_str(), &info) != 0)
          continue;
        std::error_code error;
        if (S_ISDIR(info.st_mode)) {
          std::filesystem::create_directories(path, error);
        } else {
          std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
          close(open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        }
        ok &= mount(source.c_str(), path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) == 0 &&
              mount(nullptr, path.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) ==
                  0;
      }
      close(old);
    }
    // The working directory was under the old /tmp (or elsewhere): a tmpfs of its own.
    std::error_code error;
    std::filesystem::create_directories(workDir, error);
    const std::string owned =
        size + ",mode=0700" +
        (limits.dropPrivileges ? ",uid=" + std::to_string(kNobody) + ",gid=" + std::to_string(kNobody) : std::string());
    ok &= mount("tmpfs", workDir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, owned.c_str()) == 0;
  }
  return ok;
}

// The supervisor: the forked child that isolates, limits, starts the program
// and reports how it ended. With a PID namespace the program is its PID 1:
// when the program ends, the kernel kills everything it left behind.
[[noreturn]] void supervise(const Request &request, const Limits &limits, const std::string &workDir, const Pipe &in,
                            const Pipe &out, const Pipe &err, int statusFd) {
  // In a threaded caller (the daemon), other runs' pipes were open when we
  // forked: keeping them would hold their stdin open (a program waiting for
  // EOF never gets it) and their stdout readers waiting. Keep only ours.
  closeAllBut({in.read, out.write, err.write, statusFd});
  setpgid(0, 0);
  const bool root = geteuid() == 0;
  int flags = 0;
  if (limits.isolateNetwork && root)
    flags |= CLONE_NEWNET;
  if (limits.isolateProcesses && root)
    flags |= CLONE_NEWPID;
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
  }
  sendStatus(statusFd, 'N', networkOk);
  sendStatus(statusFd, 'P', pidOk);
  bool mountNamespace = false;
  sendStatus(statusFd, 'M', isolateFilesystem(limits, workDir, mountNamespace) ? 1 : 0);

  const auto cpu = static_cast<rlim_t>(limits.cpuSeconds < 1 ? 1 : limits.cpuSeconds);
  setLimit(RLIMIT_CPU, cpu, cpu + 1);
  setLimit(RLIMIT_FSIZE, limits.fileSizeBytes, limits.fileSizeBytes);
  setLimit(RLIMIT_NOFILE, limits.openFiles, limits.openFiles);
  setLimit(RLIMIT_NPROC, limits.processes, limits.processes);
  setLimit(RLIMIT_CORE, 0, 0);

  // A small init process: with a PID namespace it is PID 1, and when it
  // exits the kernel kills everything the program left behind. The program
  // itself stays an ordinary process (PID 1 ignores many signals).
  const pid_t init = fork();
  if (init < 0) {
    sendStatus(statusFd, 'E', errno);
    _exit(127);
  }
  if (init == 0)
    runInit(request, limits, workDir, in, out, err, statusFd, pidOk && mountNamespace);
  sendStatus(statusFd, 'G', init);
  close(in.read);
  close(out.write);
  close(err.write);
  close(statusFd);
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
  }
  return "start_failed";
}

Result run(const Request &request, const Limits &limits) {
  // Feeding stdin to a program that closed it must give EPIPE, not kill us.
  static std::once_flag ignoreSigpipe;
  std::call_once(ignoreSigpipe, [] { signal(SIGPIPE, SIG_IGN); });
  Result result;
  if (request.argv.empty() || request.argv.front().empty() || request.argv.front()[0] != '/') {
    result.note = "argv[0] must be an absolute path";
    return result;
  }

  std::string workDir = request.workDir;
  const bool privateDir = workDir.empty();
  if (privateDir) {
    std::string pattern = (std::filesystem::temp_directory_path() / "cudaperf-sandbox-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      result.note = std::string("cannot create a private directory: ") + std::strerror(errno);
      return result;
    }
    workDir = pattern;
    chmod(workDir.c_str(), 0700);
    if (limits.dropPrivileges && geteuid() == 0) [[maybe_unused]]
      int ignored = chown(workDir.c_str(), kNobody, kNobody);
  }

  Pipe in = makePipe(), out = makePipe(), err = makePipe(), status = makePipe();
  const auto start = Clock::now();
  const pid_t supervisor = (in.read >= 0 && out.read >= 0 && err.read >= 0 && status.read >= 0) ? fork() : -1;
  if (supervisor == 0) {
    closeFd(in.write);
    closeFd(out.read);
    closeFd(err.read);
    closeFd(status.read);
    supervise(request, limits, workDir, in, out, err, status.write);
  }
  closeFd(in.read);
  closeFd(out.write);
  closeFd(err.write);
  closeFd(status.write);
  if (supervisor < 0) {
    result.note = std::string("cannot start: ") + std::strerror(errno);
    for (int *fd : {&in.write, &out.read, &err.read, &status.read})
      closeFd(*fd);
    if (privateDir)
      std::filesystem::remove_all(workDir);
    return result;
  }

  // stdin is fed from the poll loop, so a program that never reads cannot block us.
  std::size_t stdinWritten = 0;
  if (request.stdinData.empty())
    closeFd(in.write);
  else
    fcntl(in.write, F_SETFL, O_NONBLOCK);

  pid_t program = -1; // the init process: killing it ends a PID namespace
  int waitStatus = 0;
  bool ended = false, killedForTime = false, killedForOutput = false, startFailed = false;
  int startErrno = 0;
  const auto deadline = start + std::chrono::duration<double>(limits.wallSeconds);
  auto lastStdout = start;
  auto silenceDeadline = [&] {
    if (limits.stdoutSilenceSeconds <= 0)
      return deadline;
    const auto silence = lastStdout + std::chrono::duration<double>(limits.stdoutSilenceSeconds);
    return silence < deadline ? silence : deadline;
  };
  auto killAll = [&] {
    if (program > 0)
      kill(program, SIGKILL); // init: with a PID namespace, the whole namespace goes
    killpg(supervisor, SIGKILL);
  };

  std::optional<Clock::time_point> drainUntil;
  char buffer[65536];
  while (out.read >= 0 || err.read >= 0 || status.read >= 0) {
    const auto now = Clock::now();
    if (!killedForTime && !ended && now >= silenceDeadline()) {
      killedForTime = true;
      killAll();
      drainUntil = now + std::chrono::seconds(2);
    }
    if (drainUntil && now >= *drainUntil)
      break;
    const auto until = drainUntil ? *drainUntil : silenceDeadline();
    const int timeout = static_cast<int>(
        std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count(), 1, 100));
    pollfd fds[4] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}, {status.read, POLLIN, 0}, {in.write, POLLOUT, 0}};
    if (poll(fds, 4, timeout) < 0 && errno != EINTR)
      break;
    if (in.write >= 0 && (fds[3].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t put = (fds[3].revents & POLLOUT) ? write(in.write, request.stdinData.data() + stdinWritten,
                                                             request.stdinData.size() - stdinWritten)
                                                     : -1;
      if (put > 0)
        stdinWritten += static_cast<std::size_t>(put);
      if (put < 0 && errno != EAGAIN)
        closeFd(in.write); // the program closed its stdin
      else if (stdinWritten == request.stdinData.size())
        closeFd(in.write);
    }
    for (int i = 0; i < 2; ++i) {
      int &fd = i == 0 ? out.read : err.read;
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
    if (status.read >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      StatusRecord record{};
      const ssize_t got = read(status.read, &record, sizeof record);
      if (got != static_cast<ssize_t>(sizeof record)) {
        closeFd(status.read);
        continue;
      }
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
      case 'G':
        program = record.value;
        break; // init
      case 'E':
        startFailed = true;
        startErrno = record.value;
        break;
      case 'X':
        ended = true;
        waitStatus = record.value;
        result.cpuSeconds = (record.userMicros + record.systemMicros) / 1e6;
        // Whatever it left behind goes too; then read what is still buffered.
        killpg(supervisor, SIGKILL);
        if (!drainUntil)
          drainUntil = Clock::now() + std::chrono::seconds(1);
        break;
      default:
        break;
      }
    }
  }
  killAll();
  for (int *fd : {&out.read, &err.read, &status.read, &in.write})
    closeFd(*fd);
  int supervisorStatus = 0;
  while (waitpid(supervisor, &supervisorStatus, 0) < 0 && errno == EINTR) {
  }
  result.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (privateDir) {
    std::error_code ignored;
    std::filesystem::remove_all(workDir, ignored);
  }

  if (!result.networkIsolated && limits.isolateNetwork)
    result.note += "network not isolated (needs root or a permitted network namespace); ";
  if (!result.processesIsolated && limits.isolateProcesses)
    result.note += "no PID namespace: leftover processes are killed by process group only; ";
  if (!result.filesystemIsolated && (!limits.hiddenPaths.empty() || limits.privateTmpBytes > 0))
    result.note +=
        "no mount namespace (needs root): hidden paths stay readable and the temporary directory is on disk; ";

  if (startFailed) {
    result.outcome = Outcome::StartFailed;
    result.note += std::string("cannot start ") + request.argv.front() + ": " + std::strerror(startErrno);
    return result;
  }
  if (killedForOutput) {
    result.outcome = Outcome::OutputLimit;
    return result;
  }
  if (killedForTime) {
    result.outcome = Outcome::WallTimeout;
    return result;
  }
  if (!ended) {
    result.outcome = Outcome::StartFailed;
    result.note += "the supervisor ended without a status";
    return result;
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
  return result;
}

} // namespace cudaperf::sandbox
