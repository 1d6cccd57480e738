// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// One contract, every configuration: a typed suite (as crc32c's extend tests) holds each
// layout, ticker mode and state setting to the generator's invariants while a random mix of
// next(), try_next() and next_batch() runs against a simulated clock that advances, stalls
// and has its wall clock thrown around.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "steadyflake/generator.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using testing::kJune2026;
using testing::kMs;

struct GameManual {
  static Layout MakeLayout() { return Layout::Game(); }
  static constexpr auto kTicker = Generator::Ticker::kManual;
  static constexpr bool kState = false;
};
struct GameWithState {
  static Layout MakeLayout() { return Layout::Game(); }
  static constexpr auto kTicker = Generator::Ticker::kManual;
  static constexpr bool kState = true;
};
struct GameThreadTicker {
  static Layout MakeLayout() { return Layout::Game(); }
  static constexpr auto kTicker = Generator::Ticker::kThread;
  static constexpr bool kState = true;
};
struct SnowflakeManual {
  static Layout MakeLayout() { return Layout::Snowflake(); }
  static constexpr auto kTicker = Generator::Ticker::kManual;
  static constexpr bool kState = false;
};
struct NarrowSequence {  // 2 IDs a tick: nearly every call borrows or waits
  static Layout MakeLayout() { return Layout(40, 22, 1, 3, Layout::Game().epoch_ms()); }
  static constexpr auto kTicker = Generator::Ticker::kManual;
  static constexpr bool kState = true;
};

template <typename Config>
class GeneratorConformanceTest : public ::testing::Test {};
TYPED_TEST_SUITE_P(GeneratorConformanceTest);

TYPED_TEST_P(GeneratorConformanceTest, HoldsEveryInvariantUnderRandomUse) {
  auto random = testing::SeededRandom();
  const Layout layout = TypeParam::MakeLayout();
  SimulatedClock clock(kJune2026);
  // The model of the generator's anchored clock: re-anchored at each restart to the wall clock
  // of that moment, or to the first ID's tick when the state file put the start ahead of it.
  int64_t anchor_ns = kJune2026;
  int64_t steady0 = clock.SteadyNanos();
  testing::TempDir dir;
  Generator::Options options;
  options.layout = layout;
  options.server_id = layout.max_server_id() / 3;
  options.clock = &clock;
  options.ticker = TypeParam::kTicker;
  options.max_lead = std::chrono::milliseconds(layout.tick_ms() * 20);
  options.reserve_ahead = std::chrono::milliseconds(layout.tick_ms() * 30);
  if (TypeParam::kState) options.state_dir = dir.path();
  auto generator = std::make_unique<Generator>(options);

  const uint64_t lead_ticks = 20;
  Id previous = 0;
  const auto check = [&](Id id) {
    ASSERT_GT(id, previous) << "not increasing";  // invariants 1 and 5 (previous >= 0)
    previous = id;
    const DecodedId decoded = layout.Decode(id);
    ASSERT_EQ(decoded.server_id, *options.server_id);
    const uint64_t now = layout.TickAt((anchor_ns + clock.SteadyNanos() - steady0) / kMs);
    ASSERT_LE(decoded.tick, now + lead_ticks) << "past max_lead";  // invariant 4
  };
  for (int step = 0; step < 20000; ++step) {
    switch (random() % 8) {
      case 0:
        clock.Advance(static_cast<int64_t>(random() % (3 * layout.tick_ms() * kMs)));
        if (TypeParam::kTicker == Generator::Ticker::kManual) generator->refresh();
        break;
      case 1:  // the wall clock thrown around: must change nothing
        clock.SetWall(kJune2026 + static_cast<int64_t>(random() % 7200 - 3600) * 1'000'000'000);
        break;
      case 2: {
        const uint64_t n = 1 + random() % std::min<uint64_t>(generator->max_batch(), 3000);
        for (const Id id : generator->next_batch(n)) check(id);
        break;
      }
      case 3:
        if (const std::optional<Id> id = generator->try_next()) check(*id);
        break;
      case 4:
        if (TypeParam::kState && random() % 50 == 0) {  // a clean restart
          generator.reset();
          options.resume_after = previous;
          const int64_t wall = clock.WallNanos();
          steady0 = clock.SteadyNanos();
          generator = std::make_unique<Generator>(options);
          const Id first = generator->next();
          anchor_ns = std::max(wall, layout.Decode(first).unix_ms * kMs);
          check(first);
        }
        break;
      default:
        check(generator->next());
    }
    if (this->HasFatalFailure()) return;
  }
}

REGISTER_TYPED_TEST_SUITE_P(GeneratorConformanceTest, HoldsEveryInvariantUnderRandomUse);
using Configurations =
    ::testing::Types<GameManual, GameWithState, GameThreadTicker, SnowflakeManual, NarrowSequence>;
INSTANTIATE_TYPED_TEST_SUITE_P(All, GeneratorConformanceTest, Configurations);

}  // namespace
}  // namespace steadyflake
