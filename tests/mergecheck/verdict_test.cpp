// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Decide() on reports built by hand: which of overlap, shared server ids and drift decide.

#include "check/verdict.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

Report WithServers(std::vector<uint64_t> a, std::vector<uint64_t> b) {
  Report r;
  r.servers_a = std::move(a);
  r.servers_b = std::move(b);
  KeyReport key;
  key.table = "item";
  key.columns = {"id"};
  r.keys.push_back(key);
  return r;
}

TEST(VerdictTest, SafeWhenNoKeyOverlapsAndNoServerIdIsShared) {
  Report r = WithServers({1, 5, 9}, {2, 6});
  r.drift.push_back(Drift{"mail", {}, "b"});  // drift never changes the verdict
  Decide(r);
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe);
  EXPECT_TRUE(r.servers_shared.empty());
}

TEST(VerdictTest, RiskWhenAServerIdIsInBothWithoutOverlap) {
  Report r = WithServers({1, 5, 9}, {5, 9, 12});
  Decide(r);
  EXPECT_EQ(r.verdict, Report::Verdict::kRisk);
  EXPECT_EQ(r.servers_shared, (std::vector<uint64_t>{5, 9}));
}

TEST(VerdictTest, ConflictWhenAnyKeyOverlapsEvenWithSharedServerIds) {
  Report r = WithServers({5}, {5});
  KeyReport name;
  name.table = "player";
  name.columns = {"name"};
  name.overlap = 1;
  r.keys.push_back(name);
  Decide(r);
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
  EXPECT_EQ(r.servers_shared, (std::vector<uint64_t>{5}));
}

}  // namespace
}  // namespace steadyflake::mergecheck
