// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The generator's invariants (generator.h) under a simulated clock, plus the concurrency test
// on the real one.

#include "steadyflake/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "steadyflake/error.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using testing::kJune2026;
using testing::kMs;
using testing::kSecond;
using Code = Error::Code;

Generator::Options Manual(SimulatedClock* clock, uint64_t server_id = 7) {
  Generator::Options options;
  options.server_id = server_id;
  options.clock = clock;
  options.ticker = Generator::Ticker::kManual;
  return options;
}

// The tick the simulated steady clock says it is, as the generator counts it, given that the
// generator was anchored at `anchor_wall` when the steady clock read `anchor_steady`.
uint64_t TickNow(const Layout& layout, SimulatedClock& clock, int64_t anchor_wall,
                 int64_t anchor_steady) {
  const int64_t unix_ns = anchor_wall + (clock.SteadyNanos() - anchor_steady);
  return layout.TickAt(unix_ns / kMs);
}

TEST(GeneratorOptionsTest, ServerIdHasNoDefault) {
  SimulatedClock clock(kJune2026);
  Generator::Options options = Manual(&clock);
  options.server_id.reset();
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument,
                           "server_id is not set; give every server");
}

TEST(GeneratorOptionsTest, ServerIdOutOfRangeNamesTheRange) {
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{Manual(&clock, 65536)}, Code::kInvalidArgument,
                           "server_id 65536 is out of range [0, 65535]");
  Generator::Options options = Manual(&clock, 1024);
  options.layout = Layout::Snowflake();
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument, "[0, 1023]");
}

TEST(GeneratorOptionsTest, RejectsBadLeadAndReserve) {
  SimulatedClock clock(kJune2026);
  Generator::Options options = Manual(&clock);
  options.max_lead = std::chrono::milliseconds(-1);
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument, "max_lead -1 ms");
  // The engine owns the ceiling (the CLI and the server pass values through).
  options.max_lead = Generator::kMaxLeadLimit + std::chrono::milliseconds(1);
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument,
                           "max_lead 86400001 ms is out of range [0, 86400000] ms");
  options.max_lead = Generator::kMaxLeadLimit;
  EXPECT_NO_THROW(Generator{options});
  options = Manual(&clock);
  options.reserve_ahead = std::chrono::milliseconds(2005);  // the same 200 ticks as max_lead
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument,
                           "reserve_ahead 2005 ms must exceed max_lead");
  options = Manual(&clock);
  options.resume_after = -5;
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument, "resume_after -5");
}

// The default reservation holds for any layout: with day-long ticks, max(3 s, max_lead + 1 s)
// is not one tick past max_lead, so the default is a tick longer (the server and gen, which
// leave it to the engine, once refused to start with 20/10/10@86400000ms).
TEST(GeneratorOptionsTest, DefaultReserveAheadFitsLongTicks) {
  SimulatedClock clock(kJune2026);
  for (const char* layout : {"20/10/10@86400000ms", "30/5/4@1000ms", "37/16/10@10ms"}) {
    Generator::Options options = Manual(&clock);
    options.layout = Layout::Parse(layout);
    options.server_id = 3;
    EXPECT_NO_THROW(Generator{options}) << layout;
  }
}

// Issue 9.10: an ID above the layout's largest was decoded for its tick, and with day-long ticks
// the tick's start overflowed int64 (UBSan) before the start was checked.
TEST(GeneratorOptionsTest, RefusesAResumeAfterAboveTheLayoutsLargestId) {
  SimulatedClock clock(kJune2026);
  Generator::Options options = Manual(&clock);
  options.layout = Layout::Parse("20/10/10@86400000ms");
  options.resume_after = Id{1} << 62;
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kInvalidArgument,
                           "resume_after 4611686018427387904 is larger than layout "
                           "20/10/10@86400000ms holds (its largest ID is 1099511627775)");
}

TEST(GeneratorOptionsTest, RefusesAWallClockOutsideTheLayout) {
  SimulatedClock before_epoch(int64_t{1600000000000} * kMs);  // 2020
  EXPECT_STEADYFLAKE_ERROR(Generator{Manual(&before_epoch)}, Code::kClock,
                           "is outside layout 37/16/10@10ms's lifetime 2024-01-01T00:00:00Z");
  // Issue 9.8: a layout that ends exactly at year 10000 (the latest allowed) once reached
  // FormatIso8601's upper bound in this very message.
  Generator::Options options = Manual(&before_epoch);
  options.layout = Layout(20, 10, 10, 1000, Layout::kMaxUnixMs - (int64_t{1} << 20) * 1000);
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kClock, ".. 10000-01-01T00:00:00Z");
}

TEST(GeneratorTest, IdsCarryServerIdAndTheAnchoredTime) {
  SimulatedClock clock(kJune2026 + 123 * kMs);
  Generator generator(Manual(&clock, 4242));
  const DecodedId decoded = Layout::Game().Decode(generator.next());
  EXPECT_EQ(decoded.server_id, 4242u);
  EXPECT_EQ(decoded.unix_ms, kJune2026 / kMs + 120);
  EXPECT_EQ(decoded.sequence, 0u);
  EXPECT_EQ(Layout::Game().Decode(generator.next()).sequence, 1u);
}

// Invariant 3.
TEST(GeneratorTest, ReadsTheWallClockOnlyAtConstruction) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  const int64_t wall_reads = clock.wall_reads();
  EXPECT_EQ(wall_reads, 1);
  for (int i = 0; i < 5000; ++i) {
    generator.next();
    generator.try_next();
    if (i % 100 == 0) {
      clock.Advance(3 * kMs);
      generator.refresh();
    }
  }
  generator.next_batch(1000);
  generator.lead();
  EXPECT_EQ(clock.wall_reads(), wall_reads);
  EXPECT_GT(clock.steady_reads(), 1);
}

// Invariants 1 and 3: the wall clock set back (or forward) while running changes nothing.
TEST(GeneratorTest, WallClockRollbackAndJumpChangeNothing) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  const Layout& layout = generator.layout();
  Id previous = generator.next();
  const int64_t start_ms = layout.Decode(previous).unix_ms;

  clock.SetWall(kJune2026 - 3600 * kSecond);  // an hour back
  clock.Advance(50 * kMs);
  generator.refresh();
  Id id = generator.next();
  EXPECT_GT(id, previous);
  EXPECT_EQ(layout.Decode(id).unix_ms, start_ms + 50);
  EXPECT_EQ(generator.skew(), std::chrono::hours(1));
  previous = id;

  clock.SetWall(kJune2026 + 86400 * kSecond);  // a day forward
  clock.Advance(50 * kMs);
  generator.refresh();
  id = generator.next();
  EXPECT_GT(id, previous);
  EXPECT_EQ(layout.Decode(id).unix_ms, start_ms + 100);
}

TEST(GeneratorTest, SequenceCarriesIntoTheNextTick) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  const Layout& layout = generator.layout();
  const DecodedId first = layout.Decode(generator.next());
  for (int i = 1; i < 1024; ++i) generator.next();
  const DecodedId carried = layout.Decode(generator.next());
  EXPECT_EQ(carried.tick, first.tick + 1);
  EXPECT_EQ(carried.sequence, 0u);
  EXPECT_EQ(clock.slept_nanos(), 0);
  EXPECT_EQ(generator.lead(), std::chrono::milliseconds(10));
}

// Invariant 4: borrowing stops at max_lead; next() waits there and never returns an ID more
// than max_lead ahead of the anchored clock.
TEST(GeneratorTest, NextWaitsAtMaxLead) {
  SimulatedClock clock(kJune2026);
  const int64_t steady0 = clock.SteadyNanos();
  Generator::Options options = Manual(&clock);
  options.max_lead = std::chrono::milliseconds(50);  // 5 ticks
  Generator generator(options);
  const Layout& layout = generator.layout();
  const uint64_t window = 6 * 1024;  // the current tick and 5 borrowed
  EXPECT_EQ(generator.max_batch(), window);
  Id previous = 0;
  for (uint64_t i = 0; i < 3 * window; ++i) {
    const Id id = generator.next();
    ASSERT_GT(id, previous);
    previous = id;
    const uint64_t now = TickNow(layout, clock, kJune2026, steady0);
    ASSERT_LE(layout.Decode(id).tick, now + 5) << "ID " << i << " is past max_lead";
    if (i < window) {
      ASSERT_EQ(clock.slept_nanos(), 0) << "waited inside the window, ID " << i;
    }
  }
  // 3 windows at 1024 IDs a tick: the last 2 windows took 12 ticks of waiting.
  EXPECT_EQ(clock.slept_nanos(), 12 * 10 * kMs);
}

TEST(GeneratorTest, TryNextReportsWouldWaitWithoutConsumingIds) {
  SimulatedClock clock(kJune2026);
  Generator::Options options = Manual(&clock);
  options.max_lead = std::chrono::milliseconds(0);
  Generator generator(options);
  const Layout& layout = generator.layout();
  Id last = 0;
  for (int i = 0; i < 1024; ++i) {
    const auto id = generator.try_next();
    ASSERT_TRUE(id.has_value()) << i;
    last = *id;
  }
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(generator.try_next().has_value());
  EXPECT_EQ(clock.slept_nanos(), 0);
  clock.Advance(10 * kMs);
  const auto next = generator.try_next();
  ASSERT_TRUE(next.has_value());
  EXPECT_GT(*next, last);
  // The refused calls consumed nothing: the next ID is the first of the following tick.
  EXPECT_EQ(layout.Decode(*next).tick, layout.Decode(last).tick + 1);
  EXPECT_EQ(layout.Decode(*next).sequence, 0u);
}

TEST(GeneratorTest, RefreshRaisesAnIdleCounterToNow) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  const Layout& layout = generator.layout();
  const uint64_t tick = layout.Decode(generator.next()).tick;
  clock.Advance(1000 * kMs);
  generator.refresh();
  EXPECT_EQ(layout.Decode(generator.next()).tick, tick + 100);
}

TEST(GeneratorTest, NextBatchReservesIncreasingIds) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  const Id before = generator.next();
  const IdRange batch = generator.next_batch(5000);
  ASSERT_EQ(batch.size(), 5000u);
  Id previous = before;
  std::size_t count = 0;
  for (const Id id : batch) {
    ASSERT_GT(id, previous);
    EXPECT_EQ(generator.layout().Decode(id).server_id, 7u);
    previous = id;
    ++count;
  }
  EXPECT_EQ(count, 5000u);
  EXPECT_EQ(batch.front(), batch[0]);
  EXPECT_EQ(batch.back(), previous);
  EXPECT_GT(generator.next(), batch.back());
}

TEST(GeneratorTest, NextBatchIsOneReservationOfAtMostTheWindow) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  EXPECT_EQ(generator.max_batch(), 201u * 1024);
  // An empty guild: no IDs, no error, nothing taken.
  const Id before = generator.next();
  const IdRange none = generator.next_batch(0);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(none.begin() == none.end());
  EXPECT_EQ(generator.next(), before + 1);
  EXPECT_STEADYFLAKE_ERROR(generator.next_batch(205825), Code::kInvalidArgument,
                           "next_batch count 205825 is above max_batch() 205824");
  generator.next_batch(205824 - 2);  // what is left of the window after the two next()
  EXPECT_EQ(clock.slept_nanos(), 0);
  // The window is used up; the next full batch waits for it to pass.
  EXPECT_EQ(generator.next_batch(205824).size(), 205824u);
  EXPECT_EQ(clock.slept_nanos(), 201 * 10 * kMs);
}

TEST(GeneratorTest, NextBatchIntoTakesAnyCountInReservationsOfTheWindow) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  std::vector<std::size_t> sizes;
  Id previous = 0;
  uint64_t count = 0;
  generator.next_batch_into(2 * 205824 + 5, [&](const IdRange& range) {
    sizes.push_back(range.size());
    for (const Id id : range) {
      ASSERT_GT(id, previous);
      previous = id;
      ++count;
    }
  });
  EXPECT_EQ(sizes, (std::vector<std::size_t>{205824, 205824, 5}));
  EXPECT_EQ(count, 2u * 205824 + 5);
  // Each reservation waited for its window, never more than max_lead ahead of the clock: the
  // second for the first's 201 ticks to pass, the third for one tick more.
  EXPECT_LE(generator.lead(), std::chrono::milliseconds(2000));
  EXPECT_EQ(clock.slept_nanos(), (201 + 1) * 10 * kMs);
  int calls = 0;
  generator.next_batch_into(0, [&](const IdRange&) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_GT(generator.next(), previous);
}

TEST(GeneratorTest, StatsCountWhatWasIssuedAndWhatWaited) {
  SimulatedClock clock(kJune2026);
  Generator generator(Manual(&clock));
  Generator::Stats stats = generator.stats();
  EXPECT_EQ(stats.issued, 0u);
  EXPECT_EQ(stats.waits, 0u);
  EXPECT_EQ(stats.would_wait, 0u);
  EXPECT_EQ(stats.state_errors, 0u);
  EXPECT_FALSE(stats.lost);

  generator.next();
  ASSERT_TRUE(generator.try_next().has_value());
  generator.next_batch(10);
  EXPECT_EQ(generator.stats().issued, 12u);
  // An idle second: refresh() raises the counter to now; those positions were never issued.
  clock.Advance(kSecond);
  generator.refresh();
  EXPECT_EQ(generator.stats().issued, 12u);
  EXPECT_EQ(generator.stats().lead, std::chrono::nanoseconds(0));

  // A spike: the whole window, then try_next reports "would wait" and next() waits.
  generator.next_batch(generator.max_batch() - 1);
  generator.refresh();
  stats = generator.stats();
  EXPECT_EQ(stats.issued, 12u + generator.max_batch() - 1);
  EXPECT_GT(stats.max_lead_seen, std::chrono::milliseconds(1990));
  EXPECT_LE(stats.max_lead_seen, std::chrono::milliseconds(2010));
  EXPECT_EQ(stats.waits, 0u);
  generator.next();  // the window's last ID
  EXPECT_FALSE(generator.try_next().has_value());
  EXPECT_EQ(generator.stats().would_wait, 1u);
  generator.next();            // waits a tick
  generator.next_batch(1024);  // reaches a tick further: waits again
  stats = generator.stats();
  EXPECT_EQ(stats.waits, 2u);
  EXPECT_EQ(stats.issued, 12u + generator.max_batch() + 1 + 1024);
  EXPECT_EQ(stats.lead, generator.lead());
  EXPECT_EQ(stats.skew, generator.skew());
}

TEST(GeneratorTest, StopsAtTheEndOfTheLayoutWithoutWrapping) {
  // 8 time bits of 1 s: the layout lasts 256 s from its epoch. Start 1 s before its end.
  const Layout tiny = Layout(8, 4, 2, 1000, kJune2026 / kMs);
  SimulatedClock clock(kJune2026 + 255 * kSecond);
  Generator::Options options = Manual(&clock);
  options.layout = tiny;
  options.server_id = 3;
  Generator generator(options);
  Id previous = 0;
  for (int i = 0; i < 4; ++i) {
    const auto id = generator.try_next();
    ASSERT_TRUE(id.has_value());
    ASSERT_GT(*id, previous);
    EXPECT_EQ(tiny.Decode(*id).tick, 255u);
    previous = *id;
  }
  clock.Advance(10 * kSecond);
  EXPECT_FALSE(generator.try_next().has_value());
}

TEST(GeneratorTest, RefusesToStartAfterTheLayoutEnds) {
  const Layout tiny = Layout(8, 4, 2, 1000, kJune2026 / kMs);
  SimulatedClock clock(kJune2026 + 300 * kSecond);
  Generator::Options options = Manual(&clock);
  options.layout = tiny;
  options.server_id = 3;
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kClock, "lifetime");
}

TEST(GeneratorTest, ResumeAfterStartsPastThatId) {
  SimulatedClock clock(kJune2026);
  const Layout game = Layout::Game();
  const Id resume = game.Compose(game.TickAt(kJune2026 / kMs) + 500, 7, 12);  // 5 s ahead
  Generator::Options options = Manual(&clock);
  options.resume_after = resume;
  Generator generator(options);
  const Id id = generator.next();
  EXPECT_GT(id, resume);
  EXPECT_EQ(game.Decode(id).tick, game.Decode(resume).tick + 1);
  EXPECT_EQ(clock.slept_nanos(), 0) << "the anchor moves; the generator does not wait";
  EXPECT_EQ(generator.skew(), std::chrono::milliseconds(5010));
}

TEST(GeneratorTest, ResumeAfterTooFarAheadIsRefused) {
  SimulatedClock clock(kJune2026);
  const Layout game = Layout::Game();
  Generator::Options options = Manual(&clock);
  options.resume_after = game.Compose(game.TickAt(kJune2026 / kMs) + 2 * 8'640'000, 7, 0);
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kClock, "ahead of the wall clock");
  options.max_startup_lead = std::chrono::hours(72);
  Generator generator(options);
  EXPECT_GT(generator.next(), options.resume_after);
}

// Invariant 1 across threads on the real clock with the ticker thread: every ID unique, each
// thread's IDs increasing in the order it received them. A layout with room for 2^21 IDs a
// millisecond keeps capacity from binding, so the fast path runs throughout.
TEST(GeneratorConcurrencyTest, TwoThreadsMillionIdsEachUniqueAndIncreasing) {
  Generator::Options options;
  options.layout = Layout::Parse("38/4/21@1ms");
  options.server_id = 5;
  Generator generator(options);
  constexpr int kPerThread = 1'000'000;
  std::vector<std::vector<Id>> ids(2, std::vector<Id>(kPerThread));
  std::vector<std::thread> threads;
  // With 2^21 IDs a millisecond try_next() never has to wait here: an empty one is a failure
  // (dereferencing it would be undefined behaviour, not a failure).
  std::atomic<int> empty{0};
  for (auto& out : ids) {
    threads.emplace_back([&generator, &out, &empty] {
      for (int i = 0; i < kPerThread; ++i) {
        if (i % 3 != 2) {
          out[i] = generator.next();
        } else if (const std::optional<Id> id = generator.try_next()) {
          out[i] = *id;
        } else {
          empty.fetch_add(1, std::memory_order_relaxed);
          out[i] = generator.next();
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(empty.load(), 0) << "try_next() came back empty with capacity to spare";
  std::vector<Id> all;
  for (const auto& out : ids) {
    ASSERT_TRUE(std::is_sorted(out.begin(), out.end(), std::less_equal<Id>()) &&
                std::adjacent_find(out.begin(), out.end()) == out.end())
        << "a thread's IDs do not increase";
    all.insert(all.end(), out.begin(), out.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
  EXPECT_GT(all.front(), 0);
}

// The same with capacity binding hard (game layout, 200 ms lead, simulated time that only
// moves when a caller waits), so both threads race through the slow path.
TEST(GeneratorConcurrencyTest, TwoThreadsThroughTheSlowPathStayUnique) {
  SimulatedClock clock(kJune2026);
  Generator::Options options = Manual(&clock);
  options.max_lead = std::chrono::milliseconds(200);
  Generator generator(options);
  constexpr int kPerThread = 200'000;
  std::vector<std::vector<Id>> ids(2);
  std::vector<std::thread> threads;
  for (auto& out : ids) {
    threads.emplace_back([&generator, &out] {
      out.reserve(kPerThread);
      while (out.size() < kPerThread) {
        if (out.size() % 1000 == 0) {
          for (const Id id : generator.next_batch(500)) out.push_back(id);
        } else {
          out.push_back(generator.next());
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<Id> all;
  for (const auto& out : ids) {
    ASSERT_EQ(std::adjacent_find(out.begin(), out.end(), std::greater_equal<Id>()), out.end());
    all.insert(all.end(), out.begin(), out.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
  EXPECT_GT(clock.slept_nanos(), 0);
}

TEST(GeneratorTickerTest, BackgroundTickerKeepsIdsCurrent) {
  // Real clock, ticker thread: an ID taken after a wait carries a time no older than one tick
  // (plus the ticker's wake-up) before the wait ended. Waits on the clock, not on a sleep: it
  // polls until the ticker has moved the floor, bounded by a deadline.
  Generator::Options options;
  options.server_id = 1;
  Generator generator(options);
  const Layout& layout = generator.layout();
  const uint64_t first = layout.Decode(generator.next()).tick;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto last_poll = std::chrono::steady_clock::now();
  uint64_t tick = first;
  // One ID per 10 ms of real time: far below capacity, so only the ticker can move the time on.
  while (tick < first + 3 && std::chrono::steady_clock::now() < deadline) {
    if (std::chrono::steady_clock::now() - last_poll >= std::chrono::milliseconds(10)) {
      tick = layout.Decode(generator.next()).tick;
      last_poll = std::chrono::steady_clock::now();
    }
    std::this_thread::yield();
  }
  EXPECT_GE(tick, first + 3) << "the ticker did not advance the time in 10 s";
}

}  // namespace
}  // namespace steadyflake
