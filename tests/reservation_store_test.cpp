// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The generator against the ReservationStore contract (steadyflake/reservation_store.h), with a
// store the test controls: what Open returns moves the start, every ID is covered by an Extend
// made before it, a failed Extend is retried, a lost server id is never extended again, and
// Close gets the last tick used.

#include "steadyflake/reservation_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using testing::kJune2026;
using testing::kMs;
using testing::kSecond;
using testing::TempDir;
using Code = Error::Code;

class FakeStore : public ReservationStore {
 public:
  std::optional<uint64_t> Open(const Layout& layout, uint64_t server_id) override {
    ++opens;
    opened_layout = layout.ToString();
    opened_server_id = server_id;
    return recorded;
  }
  void Extend(uint64_t tick) override {
    ++extend_calls;
    if (fail_with) throw Error(*fail_with, "store says no");
    if (recorded && tick < *recorded) shrank = true;
    recorded = tick;
    extends.push_back(tick);
  }
  void Close(std::optional<uint64_t> last_used) noexcept override {
    ++closes;
    closed_with = last_used;
  }
  std::string Describe() const override { return "fake store"; }
  bool ExcludesAcrossHosts() const override { return excludes_across_hosts; }

  std::optional<uint64_t> recorded;
  std::optional<Code> fail_with;
  bool excludes_across_hosts = false;
  int opens = 0;
  int extend_calls = 0;
  int closes = 0;
  bool shrank = false;
  std::string opened_layout;
  uint64_t opened_server_id = 0;
  std::vector<uint64_t> extends;
  std::optional<uint64_t> closed_with;
};

// Ticker::kManual, and by default each write done when refresh() returns; the background
// writer's tests (BackgroundWriter*) pass `in_background`.
Generator::Options WithStore(SimulatedClock* clock, std::shared_ptr<ReservationStore> store,
                             bool in_background = false) {
  Generator::Options options;
  options.server_id = 7;
  options.clock = clock;
  options.reservation_store = std::move(store);
  options.ticker = Generator::Ticker::kManual;
  options.write_in_background = in_background;
  return options;
}

uint64_t TickOf(Id id) { return Layout::Game().Decode(id).tick; }

TEST(ReservationStoreTest, OpensOnceAndReservesAheadBeforeTheFirstId) {
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(WithStore(&clock, store));
  EXPECT_EQ(store->opens, 1);
  EXPECT_EQ(store->opened_layout, "37/16/10@10ms");
  EXPECT_EQ(store->opened_server_id, 7u);
  ASSERT_EQ(store->extends.size(), 1u);
  const uint64_t now = Layout::Game().TickAt(kJune2026 / kMs);
  EXPECT_EQ(store->extends[0], now + 300);  // 3 s of 10 ms ticks
  EXPECT_EQ(TickOf(generator.next()), now);
}

TEST(ReservationStoreTest, StartsAfterWhatTheStoreRecorded) {
  auto store = std::make_shared<FakeStore>();
  const uint64_t now = Layout::Game().TickAt(kJune2026 / kMs);
  store->recorded = now + 500;  // another host, its clock 5 s ahead
  SimulatedClock clock(kJune2026);
  Generator generator(WithStore(&clock, store));
  EXPECT_EQ(TickOf(generator.next()), now + 501);
  EXPECT_FALSE(store->shrank);
}

TEST(ReservationStoreTest, NoIdIsIssuedPastTheReservation) {
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(WithStore(&clock, store));
  for (int step = 0; step < 2000; ++step) {
    clock.Advance(10 * kMs);
    generator.refresh();
    const Id id = generator.next();
    ASSERT_LE(TickOf(id), *store->recorded) << "step " << step;
  }
  EXPECT_GT(store->extends.size(), 5u);
  EXPECT_FALSE(store->shrank);
}

TEST(ReservationStoreTest, AFailedExtendIsRetriedAndReported) {
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(WithStore(&clock, store));
  const uint64_t reserved = *store->recorded;
  store->fail_with = Code::kState;
  clock.Advance(3 * kSecond);
  generator.refresh();
  EXPECT_EQ(generator.state_error(), "store says no");
  EXPECT_FALSE(generator.lost());
  // Past the reservation nothing is issued while the store fails.
  while (auto id = generator.try_next()) ASSERT_LE(TickOf(*id), reserved);
  const int calls = store->extend_calls;
  store->fail_with.reset();
  generator.refresh();
  EXPECT_GT(store->extend_calls, calls);
  EXPECT_EQ(generator.state_error(), "");
  EXPECT_TRUE(generator.try_next().has_value());
}

// reservation_headroom() is the end of the reserved tick minus the anchored now: it shrinks as
// the clock runs while the store fails, goes negative past the reservation, and is back once an
// extension lands.
TEST(ReservationStoreTest, HeadroomIsTheReservationLeft) {
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(WithStore(&clock, store));
  const int64_t epoch = Layout::Game().epoch_ms() * kMs;
  const auto expected = [&](int64_t now) {
    return std::chrono::nanoseconds(static_cast<int64_t>(*store->recorded + 1) * 10 * kMs -
                                    (now - epoch));
  };
  EXPECT_EQ(generator.reservation_headroom(), expected(kJune2026));
  EXPECT_GE(generator.reservation_headroom(), std::chrono::seconds(3));

  store->fail_with = Code::kState;
  clock.Advance(4 * kSecond);
  generator.refresh();
  EXPECT_EQ(generator.reservation_headroom(), expected(kJune2026 + 4 * kSecond));
  EXPECT_LT(generator.reservation_headroom().count(), 0);

  store->fail_with.reset();
  generator.refresh();
  EXPECT_GE(generator.reservation_headroom(), std::chrono::seconds(3));
}

TEST(ReservationStoreTest, ALostServerIdIsNeverExtendedAgain) {
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(WithStore(&clock, store));
  const uint64_t reserved = *store->recorded;
  store->fail_with = Code::kLost;
  clock.Advance(3 * kSecond);
  generator.refresh();
  EXPECT_TRUE(generator.lost());
  EXPECT_EQ(generator.state_error(), "store says no");
  const int calls = store->extend_calls;
  store->fail_with.reset();  // even a store that would answer again
  for (int i = 0; i < 10; ++i) {
    clock.Advance(kSecond);
    generator.refresh();
  }
  EXPECT_EQ(store->extend_calls, calls);
  EXPECT_FALSE(generator.try_next().has_value());
  EXPECT_EQ(*store->recorded, reserved);
}

TEST(ReservationStoreTest, CloseGetsTheLastTickUsed) {
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Id last = 0;
  {
    Generator generator(WithStore(&clock, store));
    last = generator.next();
  }
  EXPECT_EQ(store->closes, 1);
  ASSERT_TRUE(store->closed_with.has_value());
  EXPECT_EQ(*store->closed_with, TickOf(last));
}

TEST(ReservationStoreTest, CloseWithoutAnyIdSaysSo) {
  auto store = std::make_shared<FakeStore>();
  const uint64_t now = Layout::Game().TickAt(kJune2026 / kMs);
  store->recorded = now + 3 * 8'640'000;  // three days ahead: refused at start
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithStore(&clock, store)}, Code::kClock, "fake store");
  EXPECT_EQ(store->closes, 1);
  EXPECT_FALSE(store->closed_with.has_value());
}

TEST(ReservationStoreTest, AFirstExtendThatFailsRefusesToStartAndCloses) {
  auto store = std::make_shared<FakeStore>();
  store->fail_with = Code::kLocked;
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithStore(&clock, store)}, Code::kLocked, "store says no");
  EXPECT_EQ(store->closes, 1);
}

TEST(ReservationStoreTest, StateDirAndStoreTogetherAreRefused) {
  TempDir dir;
  auto store = std::make_shared<FakeStore>();
  SimulatedClock clock(kJune2026);
  Generator::Options options = WithStore(&clock, store);
  options.state_dir = dir.path();
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument, "reservation_store");
  EXPECT_EQ(store->opens, 0);
}

// A store that excludes other holders on every host (etcd) replaces the host guard: a successor
// on this host must start once the store lets it.
TEST(ReservationStoreTest, AStoreThatExcludesAcrossHostsReplacesTheHostGuard) {
  SimulatedClock clock(kJune2026);
  auto first_store = std::make_shared<FakeStore>();
  auto second_store = std::make_shared<FakeStore>();
  first_store->excludes_across_hosts = second_store->excludes_across_hosts = true;
  Generator first(WithStore(&clock, first_store));
  Generator second(WithStore(&clock, second_store));
  // A local store does not: the host guard refuses the second.
  auto local = std::make_shared<FakeStore>();
  Generator third_host_guarded(WithStore(&clock, local));
  EXPECT_STEADYFLAKE_ERROR(Generator{WithStore(&clock, std::make_shared<FakeStore>())},
                           Code::kLocked, "in use on this host");
}

// A store whose Extend, once the gate is closed, blocks (on a thread other than the test's)
// until the test opens it: a slow fsync or etcd round trip the test can hold and release.
class GatedStore : public ReservationStore {
 public:
  std::optional<uint64_t> Open(const Layout&, uint64_t) override { return std::nullopt; }
  void Extend(uint64_t tick) override {
    std::unique_lock<std::mutex> lock(mu);
    ++extend_calls;
    if (in_extend) overlapped = true;
    in_extend = true;
    if (std::this_thread::get_id() == test_thread) {
      on_test_thread = true;  // the caller's thread: never block it, only record
    } else {
      entered.notify_all();
      opened.wait(lock, [this] { return !gate_closed; });
    }
    in_extend = false;
    if (fail_with) throw Error(*fail_with, "store says no");
    recorded = tick;
  }
  void Close(std::optional<uint64_t>) noexcept override {
    std::lock_guard<std::mutex> lock(mu);
    if (in_extend) overlapped = true;
    closed = true;
  }
  std::string Describe() const override { return "gated store"; }

  void CloseGate() {
    std::lock_guard<std::mutex> lock(mu);
    gate_closed = true;
  }
  void OpenGate() {
    {
      std::lock_guard<std::mutex> lock(mu);
      gate_closed = false;
    }
    opened.notify_all();
  }
  // Waits until an Extend is blocked at the gate, or ran on the test's thread instead.
  void AwaitBlocked() {
    std::unique_lock<std::mutex> lock(mu);
    entered.wait(lock, [this] { return in_extend || on_test_thread; });
  }

  const std::thread::id test_thread = std::this_thread::get_id();
  std::mutex mu;
  std::condition_variable entered, opened;
  bool gate_closed = false;
  bool in_extend = false;
  bool on_test_thread = false;
  bool overlapped = false;  // two calls at once, or Close during Extend
  bool closed = false;
  int extend_calls = 0;
  std::optional<Code> fail_with;
  std::optional<uint64_t> recorded;
};

Generator::Options InBackground(SimulatedClock* clock, std::shared_ptr<GatedStore> store) {
  return WithStore(clock, std::move(store), /*in_background=*/true);
}

// Spins (no sleep) until `done` holds: the background writer publishes its result under the
// generator's lock right after Extend returns.
template <typename Predicate>
void AwaitState(Predicate done) {
  while (!done()) std::this_thread::yield();
}

// Ticker::kManual on a game loop: refresh() hands the write to the writer thread and returns at
// once, the limit stays where the last durable write put it until the new one lands, and then
// moves without another refresh().
TEST(ReservationStoreTest, BackgroundWriterKeepsTheStoreOffRefresh) {
  auto store = std::make_shared<GatedStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(InBackground(&clock, store));
  store->on_test_thread = false;  // the constructor's first reservation is the caller's
  const uint64_t reserved = *store->recorded;
  store->CloseGate();
  clock.Advance(3 * kSecond);
  generator.refresh();  // due: 3 s of the 3 s reserved have passed
  store->AwaitBlocked();
  ASSERT_FALSE(store->on_test_thread) << "refresh() wrote on the caller's thread";
  // More refreshes while the write is in flight neither block nor start a second write.
  for (int i = 0; i < 5; ++i) generator.refresh();
  // Nothing past the durable reservation meanwhile.
  while (auto id = generator.try_next()) ASSERT_LE(TickOf(*id), reserved);
  EXPECT_LE(generator.reservation_headroom(), std::chrono::milliseconds(10));  // its last tick
  store->OpenGate();
  AwaitState([&] { return generator.reservation_headroom() > std::chrono::seconds(2); });
  const auto id = generator.try_next();
  ASSERT_TRUE(id.has_value());
  EXPECT_GT(TickOf(*id), reserved);
  EXPECT_LE(TickOf(*id), *store->recorded);
  std::lock_guard<std::mutex> lock(store->mu);
  EXPECT_EQ(store->extend_calls, 2);
  EXPECT_FALSE(store->overlapped);
  EXPECT_FALSE(store->on_test_thread);
}

TEST(ReservationStoreTest, BackgroundWriterReportsFailuresAndALostId) {
  auto store = std::make_shared<GatedStore>();
  SimulatedClock clock(kJune2026);
  Generator generator(InBackground(&clock, store));
  store->fail_with = Code::kState;
  clock.Advance(3 * kSecond);
  generator.refresh();
  AwaitState([&] { return generator.stats().state_errors == 1; });
  EXPECT_EQ(generator.state_error(), "store says no");
  EXPECT_FALSE(generator.lost());
  // Tried again at the next refresh; a lost id is never tried again.
  store->fail_with = Code::kLost;
  generator.refresh();
  AwaitState([&] { return generator.lost(); });
  const Generator::Stats stats = generator.stats();
  EXPECT_EQ(stats.state_errors, 2u);
  EXPECT_TRUE(stats.lost);
  for (int i = 0; i < 3; ++i) {
    clock.Advance(kSecond);
    generator.refresh();
  }
  std::lock_guard<std::mutex> lock(store->mu);
  EXPECT_EQ(store->extend_calls, 3);  // the constructor's, and the two that failed
}

// The destructor lets a write in flight finish before it closes the store: a store is never
// called from two threads at once.
TEST(ReservationStoreTest, BackgroundWriterFinishesBeforeClose) {
  auto store = std::make_shared<GatedStore>();
  SimulatedClock clock(kJune2026);
  auto generator = std::make_unique<Generator>(InBackground(&clock, store));
  store->CloseGate();
  clock.Advance(3 * kSecond);
  generator->refresh();
  store->AwaitBlocked();
  std::thread destroyer([&] { generator.reset(); });
  store->OpenGate();
  destroyer.join();
  std::lock_guard<std::mutex> lock(store->mu);
  EXPECT_TRUE(store->closed);
  EXPECT_FALSE(store->overlapped);
}

}  // namespace
}  // namespace steadyflake
