// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/layout.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "steadyflake/error.h"
#include "steadyflake/time_format.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using Code = Error::Code;

TEST(LayoutTest, GameHasTheDocumentedFigures) {
  const Layout game = Layout::Game();
  EXPECT_EQ(game.time_bits(), 37);
  EXPECT_EQ(game.server_bits(), 16);
  EXPECT_EQ(game.sequence_bits(), 10);
  EXPECT_EQ(game.tick_ms(), 10);
  EXPECT_EQ(FormatIso8601(game.epoch_ms(), false), "2024-01-01T00:00:00Z");
  EXPECT_EQ(game.end_ms(), game.epoch_ms() + (int64_t{1} << 37) * 10);
  EXPECT_EQ(FormatIso8601(game.end_ms()).substr(0, 4), "2067");
  EXPECT_EQ(game.max_server_id(), 65535u);
  EXPECT_EQ(game.max_sequence(), 1023u);
  EXPECT_EQ(game.ids_per_second(), 102400u);
  EXPECT_EQ(game.ToString(), "37/16/10@10ms");
}

TEST(LayoutTest, SnowflakeHasTwittersFigures) {
  const Layout snowflake = Layout::Snowflake();
  EXPECT_EQ(snowflake.ToString(), "41/10/12@1ms");
  EXPECT_EQ(snowflake.epoch_ms(), 1288834974657);
  EXPECT_EQ(snowflake.max_server_id(), 1023u);
  EXPECT_EQ(snowflake.ids_per_second(), 4096000u);
  EXPECT_EQ(FormatIso8601(snowflake.end_ms()).substr(0, 4), "2080");
}

TEST(LayoutTest, ParsesNamesAndCustomLayouts) {
  EXPECT_EQ(Layout::Parse("game"), Layout::Game());
  EXPECT_EQ(Layout::Parse("snowflake"), Layout::Snowflake());
  const Layout custom = Layout::Parse("39/12/12@5ms");
  EXPECT_EQ(custom.time_bits(), 39);
  EXPECT_EQ(custom.server_bits(), 12);
  EXPECT_EQ(custom.sequence_bits(), 12);
  EXPECT_EQ(custom.tick_ms(), 5);
  EXPECT_EQ(custom.epoch_ms(), Layout::Game().epoch_ms());
  EXPECT_EQ(custom.ids_per_second(), 4096u * 200);
}

TEST(LayoutTest, RejectsTooWideLayoutWithTheArithmetic) {
  EXPECT_STEADYFLAKE_ERROR(Layout::Parse("37/20/16@1ms"), Code::kInvalidArgument,
                           "needs 73 bits (37 + 20 + 16); an ID has 63");
  EXPECT_STEADYFLAKE_ERROR(Layout::Parse("100/1/1@1ms"), Code::kInvalidArgument, "63");
}

TEST(LayoutTest, RejectsMalformedSpecs) {
  for (const char* spec : {"", "gam", "37/16/10", "37/16/10@10", "37/16@10ms", "37/16/10@ms",
                           "37/16/x@10ms", "-1/16/10@10ms", "37/16/10@10s", "37//10@10ms"}) {
    SCOPED_TRACE(spec);
    EXPECT_STEADYFLAKE_ERROR(Layout::Parse(spec), Code::kInvalidArgument, "cannot read layout");
  }
}

TEST(LayoutTest, RejectsEmptyFieldsBadTicksAndEndlessLifetimes) {
  EXPECT_STEADYFLAKE_ERROR(Layout::Parse("0/16/10@10ms"), Code::kInvalidArgument, "at least 1 bit");
  EXPECT_STEADYFLAKE_ERROR(Layout::Parse("37/16/0@10ms"), Code::kInvalidArgument, "at least 1 bit");
  EXPECT_STEADYFLAKE_ERROR(Layout::Parse("37/16/10@0ms"), Code::kInvalidArgument, "tick 0 ms");
  EXPECT_STEADYFLAKE_ERROR(Layout::Parse("50/3/10@10ms"), Code::kInvalidArgument, "year 9999");
  EXPECT_STEADYFLAKE_ERROR(Layout::Game().WithEpoch(-1), Code::kInvalidArgument, "epoch -1");
}

TEST(LayoutTest, TicksMapToTimes) {
  const Layout game = Layout::Game();
  EXPECT_EQ(game.TickAt(game.epoch_ms()), 0u);
  EXPECT_EQ(game.TickAt(game.epoch_ms() + 9), 0u);
  EXPECT_EQ(game.TickAt(game.epoch_ms() + 10), 1u);
  EXPECT_EQ(game.TickStartMs(12345), game.epoch_ms() + 123450);
}

TEST(LayoutTest, ComposeRejectsEachFieldOutOfRange) {
  const Layout game = Layout::Game();
  EXPECT_STEADYFLAKE_ERROR(game.Compose(1, 65536, 0), Code::kInvalidArgument,
                           "server id 65536 is out of range [0, 65535]");
  EXPECT_STEADYFLAKE_ERROR(game.Compose(1, 0, 1024), Code::kInvalidArgument,
                           "sequence 1024 is out of range [0, 1023]");
  EXPECT_STEADYFLAKE_ERROR(game.Compose(game.max_tick() + 1, 0, 0), Code::kInvalidArgument, "tick");
}

TEST(LayoutTest, LargestIdKeepsTheSignBitClear) {
  for (const char* spec : {"game", "snowflake", "45/1/17@1ms", "1/61/1@1ms", "1/1/61@1ms"}) {
    const Layout layout = Layout::Parse(spec);
    const Id id = layout.Compose(layout.max_tick(), layout.max_server_id(), layout.max_sequence());
    EXPECT_GT(id, 0) << spec;
  }
}

TEST(LayoutTest, ComposeAndDecodeRoundTripOnRandomFields) {
  auto random = testing::SeededRandom();
  for (const char* spec : {"game", "snowflake", "30/3/30@7ms", "40/20/3@1ms"}) {
    const Layout layout = Layout::Parse(spec);
    for (int i = 0; i < 10000; ++i) {
      const uint64_t tick = random() & layout.max_tick();
      const uint64_t server = random() & layout.max_server_id();
      const uint64_t sequence = random() & layout.max_sequence();
      const Id id = layout.Compose(tick, server, sequence);
      ASSERT_GE(id, 0);
      const DecodedId decoded = layout.Decode(id);
      ASSERT_EQ(decoded.tick, tick) << spec << " id " << id;
      ASSERT_EQ(decoded.server_id, server) << spec << " id " << id;
      ASSERT_EQ(decoded.sequence, sequence) << spec << " id " << id;
      ASSERT_EQ(decoded.unix_ms, layout.TickStartMs(tick));
    }
  }
}

TEST(LayoutTest, IdsOrderByTimeThenServerThenSequence) {
  const Layout game = Layout::Game();
  EXPECT_LT(game.Compose(5, 65535, 1023), game.Compose(6, 0, 0));
  EXPECT_LT(game.Compose(5, 3, 1023), game.Compose(5, 4, 0));
  EXPECT_LT(game.Compose(5, 3, 7), game.Compose(5, 3, 8));
}

}  // namespace
}  // namespace steadyflake
