// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The registry's two guards, each with the other switched off (issue 31, docs/testing.md
// "Seams"), on a real etcd (with_etcd.sh) and a simulated clock:
//   - the owner compare alone: the owner key is replaced while the holder's lease lives; the
//     next extension fails, and the holder, lost, names the new owner and issues nothing past
//     the reservation it had;
//   - the lease deadline alone: keep-alives go unanswered; the holder extends nothing past its
//     deadline on the boot clock, whether the wall clock stays, goes back or jumps forward.

#include <gtest/gtest.h>
#include <time.h>

#include <memory>
#include <optional>
#include <string>

#include "fence_test_util.h"
#include "steadyflake/error.h"

namespace steadyflake::registry::testing {
namespace {

class FenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = EtcdUrl();
    if (url_.empty()) GTEST_SKIP() << "no etcd: run through tests/registry/with_etcd.sh";
  }
  std::string url_;
};

constexpr int64_t kStep = 100 * kMs;

TEST_F(FenceTest, OwnerCompareAloneStopsAHolderWhoseKeyWasReplaced) {
  SimulatedClock clock(kJune2026);
  auto hooks = std::make_shared<TestHooks>();
  hooks->lease_deadline = false;  // the compare alone
  const Options options = TestOptions(url_, "owner-compare");
  Holder holder(options, hooks, &clock, 7);
  EtcdApi api(url_);
  const std::string owner_key = options.prefix + "/owner/7";
  const std::string reserved_key = options.prefix + "/reserved/7";

  // The holder runs and extends: the guard lets its own extensions through.
  ASSERT_TRUE(holder.Drain());
  const int64_t first_mod = api.Get(reserved_key).value()["mod_revision"];
  for (int i = 0; i < 10; ++i) {
    clock.Advance(kStep);
    holder.Drain();
  }
  ASSERT_EQ(holder.ids->state_error(), "");
  ASSERT_GT(api.Get(reserved_key).value()["mod_revision"].get<int64_t>(), first_mod);

  // An operator deletes the owner key and another process claims the id, while the holder's
  // lease lives on (its keep-alives are answered).
  const int64_t lease = api.Get(owner_key).value()["lease"];
  api.Delete(owner_key);
  const int64_t other_lease = api.Grant(60);
  api.Put(owner_key, {{"host", "other-host"}, {"pid", 4242}, {"since_ms", 0}}, other_lease);
  ASSERT_GT(api.TimeToLive(lease), 0) << "the holder's lease must still live";
  const nlohmann::json reserved = api.Get(reserved_key).value();
  const uint64_t reserved_tick = reserved["json"]["tick"];
  const int64_t reserved_end_ns = reserved["json"]["end_ms"].get<int64_t>() * kMs;

  // The next extension fails on the compare: lost, before its reserved time ends.
  while (!holder.ids->lost() && clock.WallNanos() < reserved_end_ns) {
    clock.Advance(kStep);
    holder.Drain();
  }
  EXPECT_TRUE(holder.ids->lost()) << "the holder extended past a replaced owner key: "
                                  << api.Get(reserved_key).value().dump();
  EXPECT_LT(clock.WallNanos(), reserved_end_ns);
  EXPECT_NE(holder.ids->state_error().find("is now held by host other-host pid 4242"),
            std::string::npos)
      << holder.ids->state_error();

  // It issues what is left of its reservation, then nothing: the new owner starts past it.
  for (int i = 0; i < 60; ++i) {
    clock.Advance(kStep);
    holder.Drain();
  }
  ASSERT_TRUE(holder.last);
  EXPECT_EQ(TickOf(*holder.last), reserved_tick) << "the rest of the reservation is issued";
  EXPECT_FALSE(holder.ids->try_next());
  EXPECT_EQ(api.Get(reserved_key).value()["mod_revision"], reserved["mod_revision"]);
  api.Revoke(other_lease);
}

enum class WallJump { kNone, kBack, kForward };

class DeadlineAloneTest : public FenceTest, public ::testing::WithParamInterface<WallJump> {};

TEST_P(DeadlineAloneTest, StopsExtendingAtTheDeadlineOnTheBootClock) {
  SimulatedClock clock(kJune2026);
  const int64_t wall0 = clock.WallNanos();
  const int64_t steady0 = clock.SteadyNanos();
  auto hooks = std::make_shared<TestHooks>();
  hooks->owner_compare = false;  // the deadline alone
  // Keep-alives go unanswered; extensions would go through.
  hooks->answer = [](const std::string& path) { return path != "/v3/lease/keepalive"; };
  const Options options = TestOptions(url_, "deadline-" + std::to_string(int(GetParam())));
  Holder holder(options, hooks, &clock, 9);
  EtcdApi api(url_);
  const std::string reserved_key = options.prefix + "/reserved/9";
  // The claim's lease counts from before its grant: the deadline is 2 s of boot time on.
  const int64_t deadline_ms = WallMsAt(wall0, steady0, steady0 + 2 * kSecond);
  const int64_t reserve_ahead_ms = 3000;  // the engine's default for max_lead 2 s

  ASSERT_TRUE(holder.Drain());
  for (int i = 0; i < 100; ++i) {  // 10 s of boot time, far past the deadline
    clock.Advance(kStep);
    if (i == 0 && GetParam() == WallJump::kBack) clock.SetWall(clock.WallNanos() - 3600 * kSecond);
    if (i == 0 && GetParam() == WallJump::kForward) {
      clock.SetWall(clock.WallNanos() + 3600 * kSecond);
    }
    holder.Drain();
  }
  EXPECT_NE(holder.ids->state_error().find("did not answer a keep-alive past the lease's deadline"),
            std::string::npos)
      << holder.ids->state_error();

  // Extended until the deadline (every ~0.6 s, each reserve_ahead on), not one step after it.
  const nlohmann::json reserved = api.Get(reserved_key).value()["json"];
  const int64_t end_ms = reserved["end_ms"];
  EXPECT_LE(end_ms, deadline_ms + reserve_ahead_ms) << "extended past the lease's deadline";
  EXPECT_GT(end_ms, deadline_ms + reserve_ahead_ms - 700) << "stopped before the deadline";
  // And issues nothing past it.
  ASSERT_TRUE(holder.last);
  EXPECT_LE(TickOf(*holder.last), reserved["tick"].get<uint64_t>());
  clock.Advance(60 * kSecond);
  EXPECT_FALSE(holder.Drain());
}

std::string WallJumpName(const ::testing::TestParamInfo<WallJump>& jump) {
  switch (jump.param) {
    case WallJump::kBack:
      return "SetBackAnHour";
    case WallJump::kForward:
      return "SetForwardAnHour";
    case WallJump::kNone:
      break;
  }
  return "Unchanged";
}

INSTANTIATE_TEST_SUITE_P(WallClock, DeadlineAloneTest,
                         ::testing::Values(WallJump::kNone, WallJump::kBack, WallJump::kForward),
                         WallJumpName);

// The real clock under the deadline is CLOCK_BOOTTIME (it counts a suspend, as etcd's clock
// does), not the wall clock: the two are decades apart.
TEST(BootClockTest, IsTheBootTimeClock) {
  timespec boot{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  const int64_t expected = static_cast<int64_t>(boot.tv_sec) * kSecond + boot.tv_nsec;
  const int64_t read = internal::BootClock()->SteadyNanos();
  EXPECT_GE(read, expected);
  EXPECT_LT(read - expected, kSecond);
}

}  // namespace
}  // namespace steadyflake::registry::testing
