// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// FormatText and FormatJson on a report built by hand.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "check/verdict.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

ReportValue V(ReportValue::Type type, std::string text) {
  return ReportValue{type, std::move(text)};
}

Report Sample() {
  Report r;
  r.verdict = Report::Verdict::kConflict;
  r.inputs[0] = InputReport{"a.db", "sqlite", 2, 10, 4096};
  r.inputs[1] = InputReport{"b.sql.gz", "mysql-dump+gzip", 3, 12, 999};
  r.inputs[0].reader = "b-tree pages";
  r.inputs[1].reader = "SQL text";
  KeyReport item;
  item.table = "item";
  item.columns = {"id"};
  item.rows_a = 10;
  item.rows_b = 12;
  item.overlap = 12;
  item.decoded = true;
  item.ids_a = 10;
  item.ids_b = 10;
  item.legacy_b = 2;
  item.id_use = KeyReport::IdUse::kAnalysed;
  item.id_reason = "primary key";
  item.identical = 3;
  item.differing = 9;
  item.conflicts_identical = {true, false};
  // Layout game: tick 100 (2024-01-01T00:00:01Z), server 7, sequence 3.
  item.conflicts = {{V(ReportValue::Type::kInteger, "6710893571")},
                    {V(ReportValue::Type::kInteger, "18446744073709551615")}};
  KeyReport slot;
  slot.table = "bag";
  slot.columns = {"owner", "tag", "raw"};
  slot.kind = KeyReport::Kind::kUnique;
  slot.overlap = 1;
  slot.differing = 1;
  slot.conflicts = {{V(ReportValue::Type::kInteger, "-1"), V(ReportValue::Type::kText, "O'Brien"),
                     V(ReportValue::Type::kBlob, std::string("\x00\xff", 2))}};
  KeyReport guild;  // auto-increment guids: no server ids
  guild.table = "guild";
  guild.columns = {"id"};
  guild.rows_a = 3;
  guild.rows_b = 2;
  guild.decoded = true;
  guild.legacy_a = 3;
  guild.legacy_b = 2;
  guild.id_use = KeyReport::IdUse::kLegacy;
  guild.id_reason = "5 of 5 values are not IDs of layout game";
  KeyReport steam;
  steam.table = "account";
  steam.columns = {"steam_id"};
  steam.kind = KeyReport::Kind::kUnique;
  steam.decoded = true;
  steam.id_use = KeyReport::IdUse::kSkipped;
  steam.id_reason = "not a primary key";
  r.keys = {item, slot, guild, steam};
  r.servers_a = {7, 8, 9, 11};
  r.servers_b = {7};
  r.servers_shared = {7};
  r.drift = {Drift{"guild", {}, "b"}, Drift{"item", {"name"}, "a"}};
  r.keyless = {KeylessTable{"chat_log", 2, 3, 1}};
  return r;
}

TEST(FormatTextTest, SaysEverythingAndEndsWithTheVerdict) {
  const std::string text = FormatText(Sample(), Layout::Game());
  for (const char* part :
       {"A: a.db (sqlite, 2 tables, 10 rows; reader: b-tree pages)",
        "B: b.sql.gz (mysql-dump+gzip, 3 tables, 12 rows; reader: SQL text)",
        "item (id) primary key: A 10, B 12, overlap 12 (9 differ, 3 identical)\n",
        "    6710893571  2024-01-01T00:00:01.000Z server=7 seq=3  (identical rows)\n",
        "    18446744073709551615\n", "... 10 more", "(legacy/foreign): A 0, B 2",
        "bag (owner, tag, raw) unique: A 0, B 0, overlap 1", "(-1, 'O''Brien', x'00ff')",
        "server ids in A: 7-9, 11", "server ids in both: 7", "server ids from: item (id)\n",
        "legacy integers, no server ids (most values are not IDs of layout 37/16/10@10ms): guild "
        "(id) 5 of 5\n",
        "not analysed for server ids: account (steam_id): not a primary key (--id-column "
        "account:steam_id analyses it)\n",
        "drift: table guild only in B", "drift: key item (name) only in A",
        "\nkeyless table chat_log (a merge appends its rows): A 2 rows, B 3 rows; 1 row is in "
        "both and would be twice in the merge\n"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  EXPECT_TRUE(text.ends_with(
      "\nverdict: CONFLICT \xe2\x80\x94 13 values in 2 keys (from 2 tables) overlap: 10 rows "
      "differ, 3 identical\n"))
      << text;
  // A legacy column's values are not decoded as IDs.
  EXPECT_EQ(text.find("legacy/foreign): A 3"), std::string::npos) << text;
}

TEST(FormatTextTest, RiskNamesTheServerIds) {
  Report r;
  r.servers_a = {7, 101, 102};
  r.servers_b = {101, 102, 300};
  Decide(r);
  ASSERT_EQ(r.verdict, Report::Verdict::kRisk);
  EXPECT_TRUE(FormatText(r, Layout::Game())
                  .ends_with("verdict: RISK \xe2\x80\x94 server ids 101-102 issue IDs in both "
                             "shards\n"));
}

TEST(FormatJsonTest, DocumentedFields) {
  const auto doc = nlohmann::json::parse(FormatJson(Sample()));
  EXPECT_EQ(doc["verdict"], "conflict");
  EXPECT_EQ(doc["inputs"][1]["format"], "mysql-dump+gzip");
  EXPECT_EQ(doc["inputs"][0]["reader"], "b-tree pages");
  EXPECT_EQ(doc["inputs"][0]["rows"], 10);
  EXPECT_EQ(doc["inputs"][0]["tables"], 2);
  EXPECT_EQ(doc["inputs"][0]["path"], "a.db");
  const auto& item = doc["keys"][0];
  EXPECT_EQ(item["table"], "item");
  EXPECT_EQ(item["columns"], nlohmann::json::array({"id"}));
  EXPECT_EQ(item["kind"], "primary");
  EXPECT_EQ(item["rows_a"], 10);
  EXPECT_EQ(item["rows_b"], 12);
  EXPECT_EQ(item["overlap"], 12);
  EXPECT_EQ(item["conflicts"][1][0], "18446744073709551615");  // integers as strings
  EXPECT_EQ(item["legacy_b"], 2);
  EXPECT_EQ(item["identical"], 3);
  EXPECT_EQ(item["differing"], 9);
  EXPECT_EQ(item["conflicts_identical"], nlohmann::json::parse("[true, false]"));
  EXPECT_EQ(doc["keys"][1]["kind"], "unique");
  EXPECT_EQ(doc["keys"][1]["conflicts"][0], nlohmann::json::array({"-1", "O'Brien", "x'00ff'"}));
  EXPECT_FALSE(doc["keys"][1].contains("legacy_a"));
  EXPECT_EQ(doc["servers"]["a"], nlohmann::json::array({7, 8, 9, 11}));
  EXPECT_EQ(doc["servers"]["shared"], nlohmann::json::array({7}));
  EXPECT_EQ(doc["legacy"]["b"], 4);
  EXPECT_EQ(item["ids_a"], 10);
  EXPECT_EQ(item["id_use"], "analysed");
  EXPECT_EQ(item["id_reason"], "primary key");
  EXPECT_EQ(doc["keys"][1]["id_use"], nullptr);
  EXPECT_EQ(doc["id_columns"]["analysed"],
            nlohmann::json::parse(R"([{"table": "item", "column": "id"}])"));
  EXPECT_EQ(doc["id_columns"]["legacy"],
            nlohmann::json::parse(R"([{"table": "guild", "column": "id",
                                       "reason": "5 of 5 values are not IDs of layout game"}])"));
  EXPECT_EQ(doc["id_columns"]["skipped"][0]["reason"], "not a primary key");
  EXPECT_EQ(
      doc["keyless"],
      nlohmann::json::parse(R"([{"table": "chat_log", "rows_a": 2, "rows_b": 3, "in_both": 1}])"));
  EXPECT_EQ(doc["drift"][0]["table"], "guild");
  EXPECT_EQ(doc["drift"][0]["only_in"], "b");
  EXPECT_EQ(doc["drift"][1]["columns"], nlohmann::json::array({"name"}));
}

TEST(FormatJsonTest, TextThatIsNotUtf8StillParses) {
  Report r = Sample();
  r.keys[1].conflicts[0][1].text = "bad \xff\xfe bytes";
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(FormatJson(r)));
  EXPECT_TRUE(doc.is_object());
}

Options::Progress At(int input, uint64_t file_read, uint64_t file_size, uint64_t rows,
                     uint64_t bytes = 0) {
  Options::Progress p;
  p.input = input;
  p.file_read = file_read;
  p.file_size = file_size;
  p.rows = rows;
  p.bytes = bytes;
  return p;
}

TEST(FormatProgressTest, SharesRowsAndTimeLeft) {
  // A: 450 of 1,000 bytes; B: 350 of 1,000. 800 of 2,000 read in 8 s: 12 s left.
  const Options::Progress inputs[2] = {At(0, 450, 1000, 1234567), At(1, 350, 1000, 1100000)};
  EXPECT_EQ(FormatProgress(inputs, 8.0), "A 45% 1,234,567 rows | B 35% 1,100,000 rows | 12 s left");
  // Minutes and hours.
  const Options::Progress slow[2] = {At(0, 10, 1000, 1), At(1, 10, 1000, 1)};
  EXPECT_EQ(FormatProgress(slow, 2.0), "A 1% 1 rows | B 1% 1 rows | 3 min 18 s left");
  EXPECT_EQ(FormatProgress(slow, 100.0), "A 1% 1 rows | B 1% 1 rows | 2 h 45 min left");
}

TEST(FormatProgressTest, NeverClaimsDoneAndWaitsBeforeGuessing) {
  // A second pass reads past the file's size: still 99%, and no time left to claim.
  const Options::Progress past[2] = {At(0, 1500, 1000, 5), At(1, 1000, 1000, 6)};
  EXPECT_EQ(FormatProgress(past, 3.0), "A 99% 5 rows | B 99% 6 rows | <1 s left");
  // Under a second of reading, or under 1% of the bytes: no estimate yet.
  const Options::Progress early[2] = {At(0, 500, 1000, 1), At(1, 0, 1000, 0)};
  EXPECT_EQ(FormatProgress(early, 0.5), "A 50% 1 rows | B 0% 0 rows");
  const Options::Progress little[2] = {At(0, 5, 1000, 1), At(1, 0, 1000, 0)};
  EXPECT_EQ(FormatProgress(little, 10.0), "A 0% 1 rows | B 0% 0 rows");
  // A size the source does not know: the megabytes read instead, and no estimate from it.
  const Options::Progress unknown[2] = {At(0, 0, 0, 7, uint64_t{3} << 20), At(1, 0, 0, 8)};
  EXPECT_EQ(FormatProgress(unknown, 5.0), "A 3 MB 7 rows | B 0 MB 8 rows");
}

}  // namespace
}  // namespace steadyflake::mergecheck
