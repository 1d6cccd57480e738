// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The one text form of a decoded ID (id_format.h), which decode, the merge report and the
// sample server all print.

#include "steadyflake/id_format.h"

#include <gtest/gtest.h>

#include <string>

namespace steadyflake {
namespace {

TEST(IdFormatTest, EachFormatShowsTheFields) {
  const Layout game = Layout::Game();
  const Id id = game.Compose(100, 7, 3);  // tick 100 = 1 s after the epoch
  const DecodedId d = game.Decode(id);
  const std::string digits = std::to_string(id);
  EXPECT_EQ(FormatDecoded(id, d, DecodedFormat::kFields),
            "2024-01-01T00:00:01.000Z server=7 seq=3");
  EXPECT_EQ(FormatDecoded(id, d, DecodedFormat::kLine),
            digits + " 2024-01-01T00:00:01.000Z server=7 seq=3");
  EXPECT_EQ(FormatDecoded(id, d, DecodedFormat::kJson),
            "{\"id\":\"" + digits +
                "\",\"time\":\"2024-01-01T00:00:01.000Z\",\"server_id\":7,\"sequence\":3}");
}

TEST(IdFormatTest, TheLargestValuesFitTheBuffer) {
  // A layout with every field wide and the latest time steadyflake allows.
  const Layout wide(41, 11, 11, 1, Layout::Snowflake().epoch_ms());
  const Id id = wide.max_id();
  const DecodedId d = wide.Decode(id);
  const std::string json = FormatDecoded(id, d, DecodedFormat::kJson);
  EXPECT_LE(json.size(), kDecodedMaxLength);
  EXPECT_NE(json.find("\"server_id\":2047,\"sequence\":2047}"), std::string::npos) << json;
}

}  // namespace
}  // namespace steadyflake
