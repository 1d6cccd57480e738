// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge in index order of composite keys (check/ordered_merge.h, issue 30): integer pairs,
// an integer and a NOCASE text, three columns with an RTRIM text, in rowid and WITHOUT ROWID
// tables, on pages of 512 bytes (deep trees, keys spilling onto overflow pages) and 64 KiB.
// Each check is held to SQLite's own join of the two files, and its JSON report to the one the
// hashed path gives on the same files (the same checker with no key read in index order), byte
// for byte. Keys whose values the merge cannot order (a text or a real in an INTEGER column, an
// index out of order), a DESC column or indexes under other collations must go the hashed way
// and give its report.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ordered_composite_test_util.h"

namespace steadyflake::mergecheck::ordered_composite_test {
namespace {

TEST(OrderedCompositeTest, CompositeKeysMergeAsSqliteJoinsThem) {
  for (const bool without_rowid : {false, true}) {
    for (const int page_size : {512, 65536}) {
      SCOPED_TRACE(std::string(without_rowid ? "WITHOUT ROWID" : "rowid") + " on pages of " +
                   std::to_string(page_size));
      testing::TempDir dir;
      const std::string a = dir.File("a.db");
      const std::string b = dir.File("b.db");
      MakeComposites(a, b, page_size, without_rowid,
                     steadyflake::testing::TestSeed() + page_size + without_rowid);
      const CheckRun run = ExpectSameReport(a, b, {"badge", "guild_member", "inventory"});
      ExpectSqlitesAnswer(a, b, run, "inventory", "player_id, slot",
                          "x.player_id = y.player_id AND x.slot = y.slot",
                          "x.item_id IS y.item_id AND x.label IS y.label");
      ExpectSqlitesAnswer(a, b, run, "guild_member", "guild_id, name",
                          "x.guild_id = y.guild_id AND x.name = y.name COLLATE NOCASE",
                          "x.name = y.name COLLATE BINARY AND x.note IS y.note");
      ExpectSqlitesAnswer(a, b, run, "badge", "realm, code, level",
                          "x.realm = y.realm AND x.code = y.code COLLATE RTRIM AND "
                          "x.level = y.level",
                          "x.code = y.code COLLATE BINARY AND x.owner IS y.owner");
      // Each table read once, by its indexes: the first scan skipped all three, and holds no
      // key of them.
      EXPECT_EQ(run.scans_a, 1);
      EXPECT_EQ(run.ordered_a, 3);
      EXPECT_EQ(run.report.inputs[0].key_bytes, 0u);
      if (page_size == 512) {  // some names spill onto overflow pages
        EXPECT_FALSE(
            testing::PagesOfType(a, "overflow",
                                 without_rowid ? "guild_member" : "sqlite_autoindex_guild_member_1")
                .empty());
      }
      EXPECT_EQ(run.report.inputs[0].rows,
                static_cast<uint64_t>(testing::QueryInt(
                    a,
                    "SELECT (SELECT count(*) FROM inventory) + (SELECT count(*) FROM "
                    "guild_member) + (SELECT count(*) FROM badge)")));
    }
  }
}

// A key of six 8-byte integers in a WITHOUT ROWID table on pages of 512 bytes, its records
// of 100 to 127 bytes: the one-byte payload size of a record that spills (a page keeps 99 bytes
// of such a record whole, 38 of one of these), whose last key values lie on the overflow page.
// The walk decodes small integer records without Cells only when the page holds them whole.
TEST(OrderedCompositeTest, IntegerKeysOfRecordsThatSpillMergeAsSqliteJoinsThem) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  {
    std::mt19937_64 rng(steadyflake::testing::TestSeed() + 17);
    const std::string schema =
        "CREATE TABLE w(a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER, f INTEGER, "
        "label TEXT, PRIMARY KEY(a, b, c, d, e, f)) WITHOUT ROWID;";
    Db da(a, 512, schema);
    Db db(b, 512, schema);
    const auto big = [&] { return Int(static_cast<int64_t>(rng() | (uint64_t{1} << 62))); };
    for (int r = 0; r < 600; ++r) {
      std::vector<V> row = {Int(r % 7), big(), big(), big(), big(), big()};
      row.push_back(Text(std::string(45 + rng() % 25, 'x')));  // records of 100 to 127 bytes
      da.Insert("w", row);
      if (r % 4 != 0) row[5] = big();
      db.Insert("w", row);
    }
  }
  EXPECT_FALSE(testing::PagesOfType(a, "overflow", "w").empty());
  const CheckRun run = ExpectSameReport(a, b, {"w"});
  ExpectSqlitesAnswer(a, b, run, "w", "a, b, c, d, e, f",
                      "x.a = y.a AND x.b = y.b AND x.c = y.c AND x.d = y.d AND x.e = y.e AND "
                      "x.f = y.f",
                      "x.label IS y.label");
}

// More tuples than one batch holds (ordered_merge.cpp's kBatch, 4,096): each batch's first tuple
// is checked against the one before it, kept from the batch handed over before.
TEST(OrderedCompositeTest, StreamsLongerThanABatch) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  {
    std::mt19937_64 rng(steadyflake::testing::TestSeed() + 11);
    const std::string schema =
        "CREATE TABLE t(k INTEGER, name TEXT COLLATE NOCASE, v, UNIQUE(k, name));";
    Db da(a, 4096, schema);
    Db db(b, 4096, schema);
    for (int r = 0; r < 10000; ++r) {
      const V k = Int(static_cast<int64_t>(rng() % 1000));
      const std::string name = RandomName(rng).substr(0, 1 + rng() % 6);
      da.Insert("t", {k, Text(name), Int(r)});
      db.Insert("t", r % 3 == 0 ? std::vector<V>{k, Text(OtherCase(name, rng)), Int(r)}
                                : std::vector<V>{k, Text(RandomName(rng)), Int(r)});
    }
  }
  const CheckRun run = ExpectSameReport(a, b, {"t"});
  ExpectSqlitesAnswer(a, b, run, "t", "k, name", "x.k = y.k AND x.name = y.name COLLATE NOCASE",
                      "x.name = y.name COLLATE BINARY AND x.v IS y.v");
  EXPECT_GT(testing::QueryInt(a, "SELECT count(*) FROM t"), 8192);
}

// A composite key whose values in one input the merge cannot order goes the hashed way.
TEST(OrderedCompositeTest, ValuesTheMergeCannotOrderGoTheHashedWay) {
  // B's stray beside A's 1,000,000 (no other row near it): read as a number cut down to an
  // integer, it would collide.
  const std::vector<std::pair<std::string, V>> strays = {
      {"a text in an INTEGER column", Text("1000000x")},
      {"a real in an INTEGER column", Real(1000000.5)},
  };
  for (const auto& [what, stray] : strays) {
    SCOPED_TRACE(what);
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      MakeComposites(a, b, 1024, false, steadyflake::testing::TestSeed() + 3);
      Db more_a(a, 1024, "");
      more_a.Insert("inventory", {Int(1000000), Int(1), Int(0), Null()});
      more_a.Insert("guild_member", {Int(1000000), Text("stray"), Text("b")});
      Db more_b(b, 1024, "");
      more_b.Insert("inventory", {stray, Int(1), Int(0), Null()});
      more_b.Insert("guild_member", {stray, Text("stray"), Text("b")});
    }
    const CheckRun run = ExpectSameReport(a, b, {"badge"}, true);
    ExpectSqlitesAnswer(a, b, run, "inventory", "player_id, slot",
                        "x.player_id = y.player_id AND x.slot = y.slot",
                        "x.item_id IS y.item_id AND x.label IS y.label");
    ExpectSqlitesAnswer(a, b, run, "guild_member", "guild_id, name",
                        "x.guild_id = y.guild_id AND x.name = y.name COLLATE NOCASE",
                        "x.name = y.name COLLATE BINARY AND x.note IS y.note");
  }
}

// Indexes the merge cannot use are never read in index order: a DESC column, a key whose
// indexes sort it under different collations in A and B.
TEST(OrderedCompositeTest, IndexesInAnotherOrderAreNotMerged) {
  struct Case {
    std::string what;
    std::string schema_a;
    std::string schema_b;
  };
  const std::vector<Case> cases = {
      {"a DESC column", "CREATE TABLE t(k INTEGER, name TEXT, v, PRIMARY KEY(k, name DESC));",
       "CREATE TABLE t(k INTEGER, name TEXT, v, PRIMARY KEY(k, name DESC));"},
      {"NOCASE in A, BINARY in B",
       "CREATE TABLE t(k INTEGER, name TEXT COLLATE NOCASE, v, UNIQUE(k, name));",
       "CREATE TABLE t(k INTEGER, name TEXT, v, UNIQUE(k, name));"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      std::mt19937_64 rng(steadyflake::testing::TestSeed() + 5);
      Db da(a, 512, c.schema_a);
      Db db(b, 512, c.schema_b + " CREATE INDEX t_nocase ON t(k, name COLLATE NOCASE);");
      for (int r = 0; r < 600; ++r) {
        const V k = Int(static_cast<int64_t>(rng() % 20));
        const std::string name = RandomName(rng);
        da.Insert("t", {k, Text(name), Int(r)});
        db.Insert("t", r % 4 == 0 ? std::vector<V>{k, Text(OtherCase(name, rng)), Int(r)}
                                  : std::vector<V>{k, Text(RandomName(rng)), Int(r)});
      }
    }
    const CheckRun run = ExpectSameReport(a, b, {}, true);
    EXPECT_EQ(run.ordered_a, 0);
    ExpectSqlitesAnswer(a, b, run, "t", "k, name",
                        "x.k = y.k AND x.name = y.name COLLATE " +
                            std::string(c.what == "a DESC column" ? "BINARY" : "NOCASE"),
                        "x.name = y.name COLLATE BINARY AND x.v IS y.v");
  }
}

// A table whose one key is read in index order is not scanned; when B lacks the key (drift) or
// the table, there is nothing to merge, and its rows are counted by reading it.
TEST(OrderedCompositeTest, RowsOfTablesWithoutAPartnerAreCounted) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  {
    Db da(a, 4096,
          "CREATE TABLE t(k INTEGER, s TEXT, v, PRIMARY KEY(k, s)); CREATE TABLE only_a(k "
          "INTEGER, s TEXT, v, PRIMARY KEY(k, s)) WITHOUT ROWID;");
    Db db(b, 4096, "CREATE TABLE t(k INTEGER, s TEXT, v);");
    for (int r = 0; r < 300; ++r) {
      const std::vector<V> row = {Int(r % 17), Text(std::to_string(r)), Int(r)};
      da.Insert("t", row);
      da.Insert("only_a", row);
      db.Insert("t", row);
    }
    da.Insert("t", {Null(), Text("no key"), Int(0)});
  }
  const CheckRun run = ExpectSameReport(a, b, {}, true);
  EXPECT_EQ(run.report.inputs[0].rows, 601u);
  EXPECT_EQ(run.report.inputs[1].rows, 300u);
  EXPECT_EQ(run.report.drift.size(), 2u);  // t's key, only in A; only_a
}

}  // namespace
}  // namespace steadyflake::mergecheck::ordered_composite_test
