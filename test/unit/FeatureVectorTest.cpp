#include "cudaperf/contracts/FeatureVector.h"

#include <gtest/gtest.h>

using namespace cudaperf;

TEST(FeatureVector, OrderIsThePapers) {
  const char *expected[] = {"coal", "ai", "occ", "div", "xfer", "atomics", "sync", "kernels", "tpb", "gmem", "ops"};
  ASSERT_EQ(kFeatureCount, 11u);
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    EXPECT_EQ(kFeatureNames[i], expected[i]);
}

TEST(FeatureVector, ArrayRoundTripFollowsNames) {
  FeatureVector features;
  features.coal = 1;
  features.ai = 2;
  features.ops = 11;
  auto values = features.toArray();
  EXPECT_EQ(values[0], 1);
  EXPECT_EQ(values[1], 2);
  EXPECT_EQ(values[10], 11);
  EXPECT_EQ(FeatureVector::fromArray(values).ops, 11);
  EXPECT_EQ(features[*featureIndex("ai")], 2);
  EXPECT_FALSE(featureIndex("speed"));
  EXPECT_THROW(features[11], std::out_of_range);
}
