// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/time_format.h"

#include <gtest/gtest.h>

#include "steadyflake/error.h"
#include "steadyflake/layout.h"
#include "test_util.h"

namespace steadyflake {
namespace {

TEST(TimeFormatTest, FormatsKnownInstants) {
  EXPECT_EQ(FormatIso8601(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIso8601(1704067200000, false), "2024-01-01T00:00:00Z");
  EXPECT_EQ(FormatIso8601(951827696789), "2000-02-29T12:34:56.789Z");
  EXPECT_EQ(FormatIso8601(253402300799999), "9999-12-31T23:59:59.999Z");
}

// Issue 9.8: generator error paths format Layout::end_ms(), which may be exactly year 10000, and
// a wall clock that may be anything; every int64 has a text, and none overflows the buffer.
TEST(TimeFormatTest, FormatsTheEndOfTheLastLayoutAndAnyOtherValue) {
  EXPECT_EQ(FormatIso8601(Layout::kMaxUnixMs), "10000-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIso8601(Layout::kMaxUnixMs, false), "10000-01-01T00:00:00Z");
  EXPECT_EQ(FormatIso8601(Layout::kMaxUnixMs).size(), kIso8601MaxLength);
  EXPECT_EQ(FormatIso8601(Layout::kMaxUnixMs + 1), "253402300800001");
  EXPECT_EQ(FormatIso8601(-1), "-1");
  EXPECT_EQ(FormatIso8601(INT64_MIN), "-9223372036854775808");
  EXPECT_EQ(FormatIso8601(INT64_MAX), "9223372036854775807");
}

TEST(TimeFormatTest, ParsesEveryAcceptedForm) {
  EXPECT_EQ(ParseTime("2024-01-01"), 1704067200000);
  EXPECT_EQ(ParseTime("2024-01-01T00:00:00Z"), 1704067200000);
  EXPECT_EQ(ParseTime("2024-01-01 00:00:00+00:00"), 1704067200000);
  EXPECT_EQ(ParseTime("2000-02-29T12:34:56.789Z"), 951827696789);
  EXPECT_EQ(ParseTime("2000-02-29T12:34:56.7891234Z"), 951827696789);
  EXPECT_EQ(ParseTime("2000-02-29T12:34:56.7Z"), 951827696700);
  EXPECT_EQ(ParseTime("1288834974657"), 1288834974657);
}

TEST(TimeFormatTest, RejectsMalformedAndNonUtcTimes) {
  for (const char* text :
       {"", "yesterday", "2024-13-01", "2024-02-30", "2023-02-29", "2024-01-01T25:00:00Z",
        "2024-01-01T00:00:00", "2024-01-01T00:00:00+01:00", "2024-01-01T00:00Z",
        "2024-01-01T00:00:00.Z", "1969-12-31", "-5", "12ab"}) {
    SCOPED_TRACE(text);
    EXPECT_STEADYFLAKE_ERROR(ParseTime(text), Error::Code::kInvalidArgument, "ISO-8601");
  }
}

TEST(TimeFormatTest, FormatAndParseRoundTrip) {
  auto random = testing::SeededRandom();
  std::uniform_int_distribution<int64_t> times(0, 253402300799999);
  for (int i = 0; i < 100000; ++i) {
    const int64_t ms = times(random);
    ASSERT_EQ(ParseTime(FormatIso8601(ms)), ms) << FormatIso8601(ms);
    ASSERT_EQ(ParseTime(FormatIso8601(ms, false)), ms / 1000 * 1000);
  }
}

}  // namespace
}  // namespace steadyflake
