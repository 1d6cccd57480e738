// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// IDs as text (id_format.h): the one form of a decoded ID, which decode, the merge report and
// the sample server all print, and ToString / ParseId for an ID alone.

#include "steadyflake/id_format.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "steadyflake/error.h"
#include "test_util.h"

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

// ToString and ParseId: the decimal text of any ID, both ways, and one message per bad text.
TEST(IdTextTest, RoundTripsEveryMagnitude) {
  for (const Id id :
       {Id{0}, Id{7}, Id{6710893571}, Layout::Game().max_id(), Id{9223372036854775807}}) {
    const std::string text = ToString(id);
    EXPECT_EQ(text, std::to_string(id));
    EXPECT_EQ(ParseId(text), id);
    EXPECT_EQ(TryParseId(text), id);
  }
  EXPECT_EQ(ParseId("007"), 7);  // leading zeros are still decimal
}

TEST(IdTextTest, RejectsWhatIsNoIdSayingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "'': empty"},
      {"-1", "'-1': negative"},
      {"+1", "'+1': not a decimal integer"},
      {" 1", "' 1': not a decimal integer"},
      {"12a", "'12a': not a decimal integer"},
      {"0x10", "'0x10': not a decimal integer"},
      {"9223372036854775808", "'9223372036854775808': larger than the largest ID"},
  };
  for (const auto& [text, why] : cases) {
    EXPECT_STEADYFLAKE_ERROR(ParseId(text), Error::Code::kInvalidArgument,
                             std::string("cannot read ID ") + why);
    EXPECT_EQ(TryParseId(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace steadyflake
