// Which GPU's queue an evaluation joins under --gpus 0,1: the least loaded,
// ties in turn (idle GPUs share the work, a busy one is passed by).
#include "cudaperf/daemon/GpuQueue.h"

#include <gtest/gtest.h>

using cudaperf::leastLoadedQueue;

TEST(GpuQueue, AnEvaluationJoinsTheLeastLoadedQueue) {
  EXPECT_EQ(leastLoadedQueue({3, 1, 2}, 0), 1u);
  EXPECT_EQ(leastLoadedQueue({3, 1, 2}, 7), 1u);
  EXPECT_EQ(leastLoadedQueue({5, 0}, 0), 1u); // a busy GPU is passed by whatever the turn
  EXPECT_EQ(leastLoadedQueue({5, 0}, 1), 1u);
  EXPECT_EQ(leastLoadedQueue({4}, 9), 0u);
  EXPECT_THROW(leastLoadedQueue({}, 0), std::invalid_argument);
}

TEST(GpuQueue, IdleQueuesTakeTurns) {
  std::vector<std::size_t> picks;
  for (std::size_t turn = 0; turn < 4; ++turn)
    picks.push_back(leastLoadedQueue({0, 0}, turn));
  EXPECT_EQ(picks, (std::vector<std::size_t>{0, 1, 0, 1}));
  // Among equals, the turn decides; a less loaded queue wins over the turn.
  EXPECT_EQ(leastLoadedQueue({1, 2, 1}, 1), 2u);
  EXPECT_EQ(leastLoadedQueue({1, 2, 1}, 0), 0u);
}
