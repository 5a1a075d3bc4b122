#include "cudaperf/trainer/RankLauncher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

extern char **environ;

namespace cudaperf::trainer {

namespace {

// A port nobody listens on now: the kernel's pick for port 0 on loopback.
int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    throw std::runtime_error(std::string("--nproc: socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0;
  ::close(fd);
  if (!ok)
    throw std::runtime_error(std::string("--nproc: no free port on loopback: ") + std::strerror(errno));
  return ntohs(address.sin_port);
}

bool isRankVariable(const char *entry) {
  for (const char *name : {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT="})
    if (std::strncmp(entry, name, std::strlen(name)) == 0)
      return true;
  return false;
}

} // namespace

std::vector<std::string> withoutFlag(const std::vector<std::string> &arguments, const std::string &flag) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == flag) {
      ++i; // and its value
      continue;
    }
    if (arguments[i].rfind(flag + "=", 0) == 0)
      continue;
    out.push_back(arguments[i]);
  }
  return out;
}

int launchRanks(int processes, const std::string &program, const std::vector<std::string> &arguments) {
  if (processes < 1)
    throw std::invalid_argument("--nproc: expected 1 or more processes");
  const int port = freeLoopbackPort();
  std::vector<pid_t> ranks;
  for (int rank = 0; rank < processes; ++rank) {
    std::vector<std::string> environment;
    for (char **entry = environ; *entry; ++entry)
      if (!isRankVariable(*entry))
        environment.emplace_back(*entry);
    for (const auto &[name, value] : {std::pair<std::string, std::string>{"RANK", std::to_string(rank)},
                                      {"LOCAL_RANK", std::to_string(rank)},
                                      {"WORLD_SIZE", std::to_string(processes)},
                                      {"MASTER_ADDR", "127.0.0.1"},
                                      {"MASTER_PORT", std::to_string(port)}})
      environment.push_back(name + "=" + value);
    std::vector<char *> envp, argv{const_cast<char *>(program.c_str())};
    for (auto &entry : environment)
      envp.push_back(entry.data());
    envp.push_back(nullptr);
    for (const auto &argument : arguments)
      argv.push_back(const_cast<char *>(argument.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    // A rank can be stopped whatever the launcher's own signal state (a
    // parent that ignores SIGTERM would otherwise pass that on through exec).
    posix_spawnattr_t attributes;
    ::posix_spawnattr_init(&attributes);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    sigemptyset(&none);
    ::posix_spawnattr_setsigdefault(&attributes, &defaults);
    ::posix_spawnattr_setsigmask(&attributes, &none);
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    const int error = ::posix_spawn(&pid, program.c_str(), nullptr, &attributes, argv.data(), envp.data());
    ::posix_spawnattr_destroy(&attributes);
    if (error) {
      for (const pid_t started : ranks)
        ::kill(started, SIGTERM);
      for (const pid_t started : ranks)
        ::waitpid(started, nullptr, 0);
      throw std::runtime_error("--nproc: cannot start " + program + ": " + std::strerror(error));
    }
    ranks.push_back(pid);
  }
  int result = 0;
  for (std::size_t left = ranks.size(); left > 0; --left) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, 0);
    if (done < 0)
      break;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0 && result == 0) {
      result = code; // the first failure stops the run: the others would wait for it in their collectives
      for (const pid_t pid : ranks)
        if (pid != done)
          ::kill(pid, SIGTERM);
    }
  }
  return result;
}

} // namespace cudaperf::trainer
