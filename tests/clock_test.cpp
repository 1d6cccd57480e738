// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/clock.h"

#include <gtest/gtest.h>

namespace steadyflake {
namespace {

TEST(SimulatedClockTest, AdvanceMovesBothClocks) {
  SimulatedClock clock(5000, 100);
  clock.Advance(25);
  EXPECT_EQ(clock.WallNanos(), 5025);
  EXPECT_EQ(clock.SteadyNanos(), 125);
}

TEST(SimulatedClockTest, SetWallMovesOnlyTheWallClock) {
  SimulatedClock clock(5000, 100);
  clock.SetWall(10);
  EXPECT_EQ(clock.WallNanos(), 10);
  EXPECT_EQ(clock.SteadyNanos(), 100);
}

TEST(SimulatedClockTest, SleepAdvancesTimeAndCountsIt) {
  SimulatedClock clock(0, 0);
  clock.SleepFor(40);
  clock.SleepFor(-3);  // returns at once
  EXPECT_EQ(clock.SteadyNanos(), 40);
  EXPECT_EQ(clock.slept_nanos(), 40);
  EXPECT_FALSE(clock.IsReal());
}

TEST(SimulatedClockTest, CountsReadsOfEachClock) {
  SimulatedClock clock(0, 0);
  clock.WallNanos();
  clock.SteadyNanos();
  clock.SteadyNanos();
  EXPECT_EQ(clock.wall_reads(), 1);
  EXPECT_EQ(clock.steady_reads(), 2);
}

TEST(RealClockTest, SteadyTimeNeverGoesBack) {
  Clock* clock = Clock::Real();
  EXPECT_TRUE(clock->IsReal());
  int64_t previous = clock->SteadyNanos();
  for (int i = 0; i < 100000; ++i) {
    const int64_t now = clock->SteadyNanos();
    ASSERT_GE(now, previous);
    previous = now;
  }
}

TEST(RealClockTest, WallTimeIsAfter2024) {
  EXPECT_GT(Clock::Real()->WallNanos(), int64_t{1704067200000} * 1'000'000);
}

}  // namespace
}  // namespace steadyflake
