// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// A holder cut off from etcd by a network partition (HoldingProxy: its bytes are kept, and
// delivered when the partition heals), on a real etcd (with_etcd.sh):
//   - a late extension, sent during the partition and delivered after a successor claimed the
//     id, changes nothing in etcd: the owner compare alone (the deadline switched off) refuses
//     it;
//   - the partition itself, every guard on and real clocks for the holder: a successor whose
//     wall clock is 30 s behind claims the id once the holder's lease ran out and issues; the
//     partition heals; no ID twice, and the holder issued nothing past its reservation.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "fence_test_util.h"
#include "holding_proxy.h"

namespace steadyflake::registry::testing {
namespace {

using std::chrono::milliseconds;
constexpr int64_t kStep = 100 * kMs;

class PartitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = EtcdUrl();
    if (url_.empty()) GTEST_SKIP() << "no etcd: run through tests/registry/with_etcd.sh";
    proxy_ = std::make_unique<HoldingProxy>("127.0.0.1", PortOf(url_));
  }
  // A successor of server id `id` on `clock`, reaching etcd directly.
  std::unique_ptr<Holder> Successor(const Options& options, SimulatedClock* clock, uint64_t id) {
    Options direct = options;
    direct.endpoints = {url_};
    return std::make_unique<Holder>(direct, std::make_shared<TestHooks>(), clock, id);
  }
  std::string url_;
  std::unique_ptr<HoldingProxy> proxy_;
};

TEST_F(PartitionTest, LateExtendChangesNothingInEtcd) {
  SimulatedClock clock(kJune2026);
  auto hooks = std::make_shared<TestHooks>();
  hooks->lease_deadline = false;  // the owner compare alone
  Options options = TestOptions(proxy_->url(), "late-extend");
  Holder holder(options, hooks, &clock, 11);
  EtcdApi api(url_);
  const std::string owner_key = options.prefix + "/owner/11";
  const std::string reserved_key = options.prefix + "/reserved/11";
  ASSERT_TRUE(holder.Drain());

  // Partition: the next extension is sent, held, and times out.
  proxy_->Hold();
  for (int i = 0; i < 10 && holder.ids->state_error().empty(); ++i) {
    clock.Advance(kStep);
    holder.Drain();
  }
  ASSERT_NE(holder.ids->state_error().find("cannot extend the reservation"), std::string::npos)
      << holder.ids->state_error();
  ASSERT_GT(proxy_->bytes_held(), 0u);

  // The holder's lease runs out (revoked here rather than waited for) and a successor, its
  // wall clock 30 s behind, claims the id and issues.
  api.Revoke(api.Get(owner_key).value()["lease"]);
  SimulatedClock behind(kJune2026 - 30 * kSecond);
  auto successor = Successor(options, &behind, 11);
  ASSERT_TRUE(successor->Drain());
  const nlohmann::json owner = api.Get(owner_key).value();
  const nlohmann::json reserved = api.Get(reserved_key).value();

  // The partition heals: the held extension reaches etcd and is refused.
  proxy_->Release();
  ASSERT_GE(proxy_->WaitLateAnswers("/v3/kv/txn", 1, milliseconds(10000)), 1)
      << "the held extension was never delivered";
  EXPECT_EQ(api.Get(reserved_key).value(), reserved) << "a late extension changed the reservation";
  EXPECT_EQ(api.Get(owner_key).value(), owner);

  // The holder, reconnected, is lost and issued only below the successor.
  for (int i = 0; i < 100 && !holder.ids->lost(); ++i) {
    clock.Advance(kStep);
    holder.Drain();
  }
  EXPECT_TRUE(holder.ids->lost());
  ASSERT_TRUE(holder.last && successor->first);
  EXPECT_LT(*holder.last, *successor->first);
}

// The holder runs on real clocks with every guard on, issuing from a thread of its own.
TEST_F(PartitionTest, PartitionedHolderStopsAndItsSuccessorIssuesAbove) {
  Options options = TestOptions(proxy_->url(), "partition");
  auto store = EtcdStore::Claim(options, Layout::Game(), 13);
  Generator::Options g;
  g.server_id = store->server_id();
  g.reservation_store = store;
  g.max_lead = milliseconds(0);
  g.reserve_ahead = milliseconds(1000);
  Generator holder(g);
  EtcdApi api(url_);
  const std::string owner_key = options.prefix + "/owner/13";
  const std::string reserved_key = options.prefix + "/reserved/13";

  std::atomic<bool> stop{false};
  std::atomic<Id> holder_last{0};
  std::atomic<uint64_t> holder_count{0};
  std::thread issuer([&] {
    while (!stop.load()) {
      if (auto id = holder.try_next()) {
        holder_last.store(*id);
        holder_count.fetch_add(1);
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // pacing, not waiting
      }
    }
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (holder_count.load() == 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  ASSERT_GT(holder_count.load(), 0u);

  // Cut off. The lease runs out in etcd after the TTL: watch for the owner key to go.
  proxy_->Hold();
  while (api.Get(owner_key) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(50));  // polling etcd, bounded
  }
  ASSERT_FALSE(api.Get(owner_key)) << "the holder's lease did not expire";
  const uint64_t reserved_tick = api.Get(reserved_key).value()["json"]["tick"];

  // A successor whose wall clock is 30 s behind claims the id and issues.
  SimulatedClock behind(Clock::Real()->WallNanos() - 30 * kSecond);
  auto successor = Successor(options, &behind, 13);
  ASSERT_TRUE(successor->Drain());
  const Id successor_first = *successor->first;
  EXPECT_GT(TickOf(successor_first), reserved_tick);

  // The partition heals: the holder learns it is lost and stays stopped.
  proxy_->Release();
  while (!holder.lost() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(20));  // polling the holder, bounded
  }
  EXPECT_TRUE(holder.lost()) << holder.state_error();
  stop.store(true);
  issuer.join();
  EXPECT_FALSE(holder.try_next());
  EXPECT_LE(TickOf(holder_last.load()), reserved_tick) << "issued past its reservation";
  EXPECT_LT(holder_last.load(), successor_first) << "an ID issued twice is possible";
  EXPECT_GT(proxy_->bytes_held(), 0u);
  EXPECT_EQ(api.Get(reserved_key).value()["json"]["token"],
            api.Get(owner_key).value()["create_revision"]);
}

}  // namespace
}  // namespace steadyflake::registry::testing
