// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The test helpers other tests rely on: a seed given in STEADYFLAKE_TEST_SEED replays a run
// (docs/testing.md). If it did not, a failure found by a randomised test could not be rerun.

#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace steadyflake {
namespace {

TEST(TestUtilTest, TheSeedInTheEnvironmentIsTheSeedUsed) {
  const char* saved = std::getenv("STEADYFLAKE_TEST_SEED");
  const std::string restore = saved != nullptr ? saved : "";
  for (const char* seed : {"1", "18446744073709551615", "4242"}) {
    ASSERT_EQ(::setenv("STEADYFLAKE_TEST_SEED", seed, 1), 0);
    EXPECT_EQ(testing::TestSeed(), std::stoull(seed));
    EXPECT_EQ(testing::SeededRandom()(), std::mt19937_64(std::stoull(seed))());
  }
  if (saved != nullptr) {
    ::setenv("STEADYFLAKE_TEST_SEED", restore.c_str(), 1);
  } else {
    ::unsetenv("STEADYFLAKE_TEST_SEED");
  }
}

}  // namespace
}  // namespace steadyflake
