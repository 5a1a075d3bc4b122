// The judge's view of a process tree's threads, on this test's own process.
#include "ProcessTree.h"

#include <gtest/gtest.h>

#include <chrono>
#include <pthread.h>
#include <thread>
#include <unistd.h>

TEST(ProcessTree, EachThreadsCpuTimeIsReadWithItsName) {
  std::thread burner([] {
    pthread_setname_np(pthread_self(), "cpu-burner");
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(40);
    volatile unsigned long sink = 0;
    while (std::chrono::steady_clock::now() < until)
      for (int i = 0; i < 10000; ++i)
        sink += i;
    // Stay alive until read: an ended thread is not in the account.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  double burned = -1, self = -1;
  for (const auto &thread : cudaperf::judge::threadCpuTimes(getpid())) {
    if (thread.name == "cpu-burner")
      burned = thread.ms;
    if (thread.tid == getpid())
      self = thread.ms;
  }
  burner.join();
  // 40 ms of wall time spinning; on a loaded 2-core machine at least a quarter of it on a core.
  EXPECT_GT(burned, 10.0);
  EXPECT_LT(burned, 1000.0);
  EXPECT_GE(self, 0.0); // the main thread is listed too
}
