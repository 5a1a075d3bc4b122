// The sandbox against hostile programs that need no GPU: each must cost its
// own run and nothing else, and get the right outcome.
#include "cudaperf/daemon/Sandbox.h"
#include "cudaperf/daemon/CpuPlacement.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <arpa/inet.h>
#include <cstdlib>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace cudaperf::sandbox;

namespace {

Result shell(const std::string &script, Limits limits = {}) {
  Request request;
  request.argv = {"/bin/sh", "-c", script};
  return run(request, limits);
}

bool root() { return geteuid() == 0; }

// As root every isolation is required (a missing one fails the test, it is
// never skipped); as another user the limits are still tested, unisolated.
Limits quick() {
  Limits limits;
  limits.wallSeconds = 3;
  limits.cpuSeconds = 10;
  limits.requireIsolation = root();
  return limits;
}

// Processes still running whose command line contains `marker` (tests run
// in parallel, so "any process of nobody" would see other tests' programs).
int processesWith(const std::string &marker) {
  int count = 0;
  DIR *proc = opendir("/proc");
  while (dirent *entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || std::to_string(::getpid()) == entry->d_name)
      continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (cmdline.find(marker) != std::string::npos)
      ++count;
  }
  closedir(proc);
  return count;
}

} // namespace

TEST(Sandbox, ExitCodeAndOutput) {
  auto result = shell("echo out; echo err >&2; exit 3", quick());
  EXPECT_EQ(result.outcome, Outcome::Exited);
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.stdoutText, "out\n");
  EXPECT_EQ(result.stderrText, "err\n");
  EXPECT_FALSE(result.succeeded());
  EXPECT_TRUE(shell("true", quick()).succeeded());
}

TEST(Sandbox, ANicenessIsTheProgramsAndItsChildrens) {
  Limits limits = quick();
  limits.niceness = 10;
  // The nice(1) of coreutils prints the niceness it runs at; the shell's child inherits it.
  const auto result = shell("nice; sh -c nice", limits);
  EXPECT_EQ(result.stdoutText, "10\n10\n") << result.stderrText;
  errno = 0;
  const int own = getpriority(PRIO_PROCESS, 0);
  EXPECT_EQ(shell("nice", quick()).stdoutText, std::to_string(own) + "\n"); // unchanged by default
}

TEST(Sandbox, ItsCpusAreTheProgramsAndItsChildrens) {
  const std::vector<int> allowed = cudaperf::currentThreadCpus();
  ASSERT_FALSE(allowed.empty());
  Limits limits = quick();
  limits.cpus = {allowed.back()};
  // The kernel's own account of each process's CPU list, the shell's and its child's.
  const auto result =
      shell("grep Cpus_allowed_list /proc/self/status; sh -c 'grep Cpus_allowed_list /proc/self/status'", limits);
  const std::string line = "Cpus_allowed_list:\t" + std::to_string(allowed.back()) + "\n";
  EXPECT_EQ(result.stdoutText, line + line) << result.stderrText;
  const auto inherited = shell("grep Cpus_allowed_list /proc/self/status", quick());
  EXPECT_EQ(inherited.stdoutText, "Cpus_allowed_list:\t" + cudaperf::formatCpuList(allowed) + "\n");
}

TEST(Sandbox, StdinIsPassed) {
  Request request;
  request.argv = {"/bin/cat"};
  request.stdinData = "hello sandbox";
  auto result = run(request, quick());
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.stdoutText, "hello sandbox");
}

TEST(Sandbox, InfiniteLoopHitsTheWallClock) {
  Limits limits = quick();
  limits.wallSeconds = 1;
  auto result = shell("while :; do :; done", limits);
  EXPECT_EQ(result.outcome, Outcome::WallTimeout);
  EXPECT_LT(result.wallSeconds, 4.0);
}

TEST(Sandbox, InfiniteLoopHitsTheCpuLimit) {
  Limits limits;
  limits.wallSeconds = 20;
  limits.cpuSeconds = 1;
  auto result = shell("while :; do :; done", limits);
  EXPECT_EQ(result.outcome, Outcome::CpuLimit) << toString(result.outcome);
  EXPECT_GE(result.cpuSeconds, 0.9);
}

TEST(Sandbox, SleepForeverIsKilled) {
  Limits limits = quick();
  limits.wallSeconds = 1;
  auto result = shell("sleep 1000", limits);
  EXPECT_EQ(result.outcome, Outcome::WallTimeout);
  EXPECT_LT(result.wallSeconds, 4.0);
}

TEST(Sandbox, SegfaultAndAbortAreSignals) {
  auto segv = shell("kill -SEGV $$", quick());
  EXPECT_EQ(segv.outcome, Outcome::Signaled);
  EXPECT_EQ(segv.signal, SIGSEGV);
  auto abrt = shell("kill -ABRT $$", quick());
  EXPECT_EQ(abrt.outcome, Outcome::Signaled);
  EXPECT_EQ(abrt.signal, SIGABRT);
}

TEST(Sandbox, FloodingStdoutIsCutShort) {
  Limits limits = quick();
  limits.outputBytes = 64 * 1024;
  // 10 GB of output: the run is killed at the cap, long before.
  auto result = shell("head -c 10000000000 /dev/zero", limits);
  EXPECT_EQ(result.outcome, Outcome::OutputLimit);
  EXPECT_TRUE(result.stdoutTruncated);
  EXPECT_EQ(result.stdoutText.size(), 64u * 1024);
  EXPECT_LT(result.wallSeconds, 3.0);
  auto yes = shell("yes", limits);
  EXPECT_EQ(yes.outcome, Outcome::OutputLimit);
}

TEST(Sandbox, FillingTheDiskHitsTheFileSizeLimit) {
  Limits limits = quick();
  limits.fileSizeBytes = 1 << 20;
  auto result = shell("head -c 1000000000 /dev/zero > big", limits);
  EXPECT_EQ(result.outcome, Outcome::Exited) << toString(result.outcome); // sh reports head's SIGXFSZ
  EXPECT_NE(result.exitCode, 0);
  // With exec, head itself is the writer and dies of SIGXFSZ.
  auto direct = shell("exec head -c 1000000000 /dev/zero > big", limits);
  EXPECT_EQ(direct.outcome, Outcome::FileSizeLimit) << toString(direct.outcome);
}

TEST(Sandbox, PrivateDirectoryIsRemovedAndEnvironmentScrubbed) {
  setenv("CUDAPERF_SECRET_TOKEN", "hunter2", 1);
  auto result = shell("pwd; echo ${CUDAPERF_SECRET_TOKEN:-scrubbed}; echo $HOME; touch made-here", quick());
  ASSERT_TRUE(result.succeeded()) << result.stderrText;
  const auto lines = result.stdoutText;
  const std::string dir = lines.substr(0, lines.find('\n'));
  EXPECT_NE(dir.find("cudaperf-sandbox-"), std::string::npos);
  EXPECT_NE(lines.find("scrubbed"), std::string::npos);
  EXPECT_EQ(lines.find("hunter2"), std::string::npos);
  EXPECT_NE(lines.find(dir + "\n" + "scrubbed\n" + dir), std::string::npos);
  struct stat info {};
  EXPECT_NE(stat(dir.c_str(), &info), 0) << "private directory left behind";
}

TEST(Sandbox, MissingProgramIsAStartFailure) {
  Request request;
  request.argv = {"/no/such/program"};
  auto result = run(request, quick());
  EXPECT_EQ(result.outcome, Outcome::StartFailed);
  EXPECT_NE(result.note.find("No such file"), std::string::npos) << result.note;
  request.argv = {"relative/path"};
  EXPECT_EQ(run(request, quick()).outcome, Outcome::StartFailed);
}

TEST(Sandbox, BackgroundProcessesDoNotOutliveTheRun) {
  if (!root())
    GTEST_SKIP() << "runs as nobody only when started as root";
  auto result = shell("sleep 3171 & sleep 3171 & echo started", quick());
  EXPECT_TRUE(result.succeeded());
  EXPECT_LT(result.wallSeconds, 2.5) << "waited for the background sleeps";
  usleep(200 * 1000);
  EXPECT_EQ(processesWith("3171"), 0);
}

TEST(Sandbox, ForkBombIsContained) {
  if (!root())
    GTEST_SKIP() << "the process limit applies to the unprivileged user the sandbox switches to as root";
  Limits limits = quick();
  limits.wallSeconds = 2;
  limits.processes = 32;
  auto result =
      shell("bomb_marker_9127() { bomb_marker_9127 | bomb_marker_9127 & }; bomb_marker_9127; sleep 5", limits);
  EXPECT_NE(result.outcome, Outcome::StartFailed);
  usleep(300 * 1000);
  EXPECT_EQ(processesWith("bomb_marker_9127"), 0) << "fork bomb survived its run";
  // The machine still works afterwards.
  EXPECT_TRUE(shell("true", quick()).succeeded());
}

TEST(Sandbox, NoNetwork) {
  if (!root())
    GTEST_SKIP() << "network namespaces need root here";
  // A listener on this machine's loopback the sandboxed program tries to reach.
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t length = sizeof address;
  getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
  const std::string port = std::to_string(ntohs(address.sin_port));

  Request request;
  request.argv = {"/bin/bash", "-c", "echo hi > /dev/tcp/127.0.0.1/" + port + " && echo connected"};
  auto result = run(request, quick());
  close(listener);
  ASSERT_TRUE(result.networkIsolated) << "as root the network must be isolated: " << result.note;
  EXPECT_EQ(result.stdoutText.find("connected"), std::string::npos);
  EXPECT_NE(result.exitCode, 0);
}

TEST(Sandbox, CannotReadPrivateFiles) {
  if (!root())
    GTEST_SKIP() << "needs the switch to nobody";
  const std::string secret = "/tmp/cudaperf-sandbox-test-reference.txt";
  {
    std::ofstream file(secret);
    file << "expected outputs";
  }
  chmod(secret.c_str(), 0600);
  auto result = shell("cat " + secret, quick());
  std::remove(secret.c_str());
  EXPECT_EQ(result.outcome, Outcome::Exited);
  EXPECT_NE(result.exitCode, 0);
  EXPECT_EQ(result.stdoutText.find("expected outputs"), std::string::npos);
}

TEST(Sandbox, HiddenPathsAreEmpty) {
  if (!root())
    GTEST_SKIP() << "a mount namespace needs root";
  char pattern[] = "/tmp/cudaperf-hidden-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string folder = pattern;
  {
    std::ofstream file(folder + "/reference.c");
    file << "world readable reference";
  }
  chmod(folder.c_str(), 0755);
  chmod((folder + "/reference.c").c_str(), 0644);
  Limits limits = quick();
  limits.hiddenPaths = {folder};
  auto hidden = shell("ls -A " + folder + "; cat " + folder + "/reference.c", limits);
  auto visible = shell("cat " + folder + "/reference.c", quick());
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(hidden.filesystemIsolated) << "as root the mounts must be private: " << hidden.note;
  EXPECT_EQ(hidden.stdoutText.find("world readable reference"), std::string::npos) << hidden.stdoutText;
  EXPECT_NE(visible.stdoutText.find("world readable reference"), std::string::npos); // the control
}

TEST(Sandbox, FillingTheTemporaryDirectoryCostsNoDisk) {
  if (!root())
    GTEST_SKIP() << "a mount namespace needs root";
  Limits limits = quick();
  limits.privateTmpBytes = 4 << 20;
  // Many files, each under the file-size limit, in every writable place.
  auto result = shell("for i in 1 2 3 4 5 6 7 8; do head -c 1000000 /dev/zero > f$i || echo full-here; "
                      "head -c 1000000 /dev/zero > /tmp/f$i || echo full-tmp; done; df -k . | tail -1",
                      limits);
  ASSERT_TRUE(result.filesystemIsolated) << "as root the mounts must be private: " << result.note;
  EXPECT_NE(result.stdoutText.find("full-here"), std::string::npos) << result.stdoutText;
  EXPECT_NE(result.stdoutText.find("full-tmp"), std::string::npos) << result.stdoutText;
  EXPECT_NE(result.stdoutText.find("tmpfs"), std::string::npos) << result.stdoutText;
}

TEST(Sandbox, SilenceOnStdoutIsAPerAnswerDeadline) {
  Limits limits = quick();
  limits.wallSeconds = 30;
  limits.stdoutSilenceSeconds = 1;
  // Answers every 0.3 s for a while, then hangs: killed about 1 s after the last answer.
  auto result = shell("for i in 1 2 3 4 5; do echo answer $i; sleep 0.3; done; sleep 100", limits);
  EXPECT_EQ(result.outcome, Outcome::WallTimeout) << toString(result.outcome);
  EXPECT_NE(result.stdoutText.find("answer 5"), std::string::npos);
  EXPECT_LT(result.wallSeconds, 5.0);
}

TEST(Sandbox, ConcurrentRunsDoNotHoldEachOthersPipes) {
  // Each run reads its stdin to EOF: a pipe end inherited by another run's
  // supervisor would keep it waiting until the wall clock.
  Limits limits = quick();
  limits.wallSeconds = 20;
  std::vector<std::thread> threads;
  std::vector<Result> results(32);
  for (int i = 0; i < 32; ++i)
    threads.emplace_back([&, i] {
      Request request;
      request.argv = {"/bin/sh", "-c", "cat > /dev/null; sleep 1; echo done"};
      request.stdinData = std::string(1 << 20, 'x'); // more than a pipe holds: written while others fork
      results[i] = run(request, limits);
    });
  for (auto &thread : threads)
    thread.join();
  for (const auto &result : results) {
    EXPECT_EQ(result.outcome, Outcome::Exited) << toString(result.outcome);
    EXPECT_LT(result.wallSeconds, 10.0);
  }
}

TEST(Sandbox, RefusesToStartWithoutItsIsolation) {
  Limits limits = quick();
  limits.requireIsolation = true;
  if (root()) {
    // A hidden path that cannot be hidden (tmpfs does not mount over a file).
    char pattern[] = "/tmp/cudaperf-unhideable-XXXXXX";
    const int fd = mkstemp(pattern);
    ASSERT_GE(fd, 0);
    close(fd);
    limits.hiddenPaths = {pattern};
    auto result = shell("echo started", limits);
    std::remove(pattern);
    EXPECT_EQ(result.outcome, Outcome::StartFailed);
    EXPECT_EQ(result.stdoutText.find("started"), std::string::npos) << "ran without its isolation";
    EXPECT_NE(result.note.find("refused to start without its isolation"), std::string::npos) << result.note;
    EXPECT_NE(result.note.find("mount namespace"), std::string::npos) << result.note;
  } else {
    auto result = shell("echo started", limits);
    EXPECT_EQ(result.outcome, Outcome::StartFailed);
    EXPECT_NE(result.note.find("refused to start without its isolation"), std::string::npos) << result.note;
  }
  // Asked for explicitly (development), the program runs and the note says what was missing.
  Limits lax = quick();
  lax.requireIsolation = false;
  EXPECT_TRUE(shell("true", lax).succeeded());
}

TEST(Sandbox, ARootViewShowsTheSystemAndNothingElseOfTheHost) {
  if (!root())
    GTEST_SKIP() << "a root view needs root";
  const std::string folder = "/var/tmp/cudaperf-root-view-probe";
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/secret.h") << "world readable marker 4471";
  std::filesystem::permissions(folder, std::filesystem::perms(0755));
  std::filesystem::permissions(folder + "/secret.h", std::filesystem::perms(0644));
  Limits limits = quick();
  limits.rootView = systemRootView();
  const std::string script = "cat " + folder + "/secret.h; ls " + std::string(CUDAPERF_TASKS_DIR) +
                             " && echo tasks-visible; ls /usr/bin/env > /dev/null && echo usr-visible; "
                             "echo x > /sandbox/scratch && echo writable; touch /usr/x 2>/dev/null || echo ro; pwd";
  auto viewed = shell(script, limits);
  auto control = shell("cat " + folder + "/secret.h", quick());
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(viewed.filesystemIsolated) << viewed.note;
  EXPECT_EQ(viewed.stdoutText.find("marker 4471"), std::string::npos) << viewed.stdoutText;
  EXPECT_EQ(viewed.stdoutText.find("tasks-visible"), std::string::npos) << "the repository is visible";
  EXPECT_NE(viewed.stdoutText.find("usr-visible"), std::string::npos) << viewed.stdoutText << viewed.stderrText;
  EXPECT_NE(viewed.stdoutText.find("writable"), std::string::npos) << viewed.stderrText;
  EXPECT_NE(viewed.stdoutText.find("ro"), std::string::npos);
  EXPECT_NE(viewed.stdoutText.find("/sandbox"), std::string::npos);
  EXPECT_NE(control.stdoutText.find("marker 4471"), std::string::npos); // the control
}

TEST(Sandbox, ASpawnedProgramTalksOverItsPassedSocketAndDiesWithItsHandle) {
  int ends[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  Request request;
  request.argv = {"/bin/sh", "-c", "read line <&3; echo \"got $line\" >&3; sleep 3172"};
  request.passDescriptors = {ends[1]};
  std::string error;
  auto process = spawn(request, quick(), error);
  close(ends[1]);
  ASSERT_TRUE(process) << error;
  EXPECT_GT(process->treeRoot(), 0);
  ASSERT_EQ(write(ends[0], "hello\n", 6), 6);
  std::string answer;
  char buffer[64];
  for (int i = 0; i < 50 && answer.find('\n') == std::string::npos; ++i)
    for (int fd : process->poll({ends[0]}, 100))
      if (const ssize_t got = read(fd, buffer, sizeof buffer); got > 0)
        answer.append(buffer, static_cast<std::size_t>(got));
  EXPECT_EQ(answer, "got hello\n");
  EXPECT_FALSE(process->ended());
  process->kill();
  const Result &result = process->finish();
  EXPECT_EQ(result.outcome, Outcome::WallTimeout);
  close(ends[0]);
  usleep(200 * 1000);
  EXPECT_EQ(processesWith("3172"), 0);
}
