// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The two threads of the merge in index order (check/ordered_merge.cpp, Side; issue 30): the
// key range split into parts at any tuples, each thread merging its parts and keeping its own
// tuples until the other's are there, many batches a side under small limits (every wait
// happens), one index far longer than the other, and either stream given up while the other
// thread waits. Each against SQLite's own join of the files.

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "check/ordered_merge.h"
#include "mergecheck_test_util.h"
#include "ordered_merge_test_util.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using ordered_merge_test::Check;
using ordered_merge_test::CheckRun;
using ordered_merge_test::ExpectSqlitesAnswer;
using ordered_merge_test::Insert;
using ordered_merge_test::kBothWays;
using ordered_merge_test::MakeShards;
using ordered_merge_test::Pairs;
using ordered_merge_test::SmallLimits;
using ordered_merge_test::WayName;

// Many batches a side (kOrderedMergeBatch tuples each), more than the readers may queue ahead
// under small limits: the merge hands the batches it is done with back to the readers, which
// fill them again; each thread merges its part of the key range, at once or kept for later.
TEST(OrderedMergeTest, MergedTextKeysOfManyBatchesGiveSqlitesAnswer) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const int rows = static_cast<int>(12 * kOrderedMergeBatch);
  MakeShards(a, b, 4096, "NOCASE", "NOCASE", rows, steadyflake::testing::TestSeed());
  for (const std::size_t kept : {std::size_t{0}, std::size_t{1}, std::size_t{1} << 18}) {
    SCOPED_TRACE(kept == 0 ? "the default limits" : "kept " + std::to_string(kept));
    std::optional<SmallLimits> small;
    if (kept != 0) small.emplace(kept);
    for (const bool in_parts : kBothWays) {
      SCOPED_TRACE(WayName(in_parts));
      const CheckRun run = Check(a, b, {}, in_parts);
      EXPECT_GT(run.splits, 1u);
      EXPECT_TRUE(run.merged);
      ExpectSqlitesAnswer(a, b, "NOCASE", run);
    }
  }
}

// The key range split anywhere (ordered_merge.cpp, Side: A's thread merges the even parts, B's
// the odd ones): before every name, after every name (a blob: SQLite sorts blobs after text), at
// a name in both, at one in B only, at several in order and out of order, twice at one name, and
// not at all; splits among which one is of a type the key does not order are none. The answer
// is SQLite's whichever they are, with several batches in most parts.
TEST(OrderedMergeTest, TheKeyRangeSplitAnywhereGivesSqlitesAnswer) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const int rows = static_cast<int>(6 * kOrderedMergeBatch);
  MakeShards(a, b, 1024, "NOCASE", "NOCASE", rows, steadyflake::testing::TestSeed() + 11);
  const auto name_at = [&](const std::string& sql) {
    return Pairs(a, b, "SELECT name, '' FROM (" + sql + ")").at(0).first;
  };
  const std::string in_both = name_at(
      "SELECT x.name FROM main.t x JOIN b.t y ON x.name = y.name COLLATE NOCASE ORDER BY x.name "
      "COLLATE NOCASE LIMIT 1 OFFSET " +
      std::to_string(rows / 40));
  const std::string in_b_only = name_at(
      "SELECT name FROM b.t WHERE name COLLATE NOCASE NOT IN (SELECT name FROM main.t) ORDER BY "
      "name COLLATE NOCASE LIMIT 1 OFFSET " +
      std::to_string(rows / 3));
  const Cell before{Cell::Type::kText, 0, 0, ""};
  const Cell after{Cell::Type::kBlob, 0, 0, "\x01"};
  const Cell both{Cell::Type::kText, 0, 0, in_both};
  const Cell b_only{Cell::Type::kText, 0, 0, in_b_only};
  const Cell integer{Cell::Type::kInteger, 7, 0, {}};
  const struct {
    const char* what;
    std::vector<Cell> splits;
    bool used;  // the merge splits its range at them
  } cases[] = {
      {"before every name", {before}, true},
      {"after every name", {after}, true},
      {"at a name in both", {both}, true},
      {"at a name in B only", {b_only}, true},
      {"at several", {before, both, b_only, after}, true},
      {"at several out of order", {b_only, after, both, before}, true},
      {"twice at one name", {both, both}, true},
      {"an integer among them: none", {both, integer}, false},
      {"none", {}, false},
  };
  for (const bool in_parts : kBothWays) {
    SCOPED_TRACE(WayName(in_parts));
    for (const auto& c : cases) {
      SCOPED_TRACE(c.what);
      const SmallLimits small(std::size_t{1} << 16);
      const CheckRun run = Check(
          a, b,
          [&](const RecordsInOrder& on_record) {
            for (const Cell& split : c.splits) on_record(std::span<const Cell>(&split, 1));
            return c.splits.size();
          },
          in_parts);
      EXPECT_EQ(run.splits, c.splits.size());
      EXPECT_TRUE(run.merged);
      EXPECT_EQ(run.parts_a, in_parts ? 1 : 0);
      ExpectSqlitesAnswer(a, b, "NOCASE", run);
    }
    // Unforced: cells of A's root page.
    const CheckRun run = Check(a, b, {}, in_parts);
    EXPECT_GT(run.splits, 1u);
    EXPECT_TRUE(run.merged);
    ExpectSqlitesAnswer(a, b, "NOCASE", run);
  }
}

// One input's index ends long before the other's: the merge stops comparing at its last name,
// and the other's stream is still read to its end (its rows counted, its order checked) although
// more batches of it remain than the merge may hold ahead: B's past A's last (A's thread, below
// the split, is done), A's past B's last (B's thread, which merges from the split on, takes A's
// rest). A shorter input of no rows at all too.
TEST(OrderedMergeTest, TheLongerIndexIsReadToItsEnd) {
  for (const bool b_longer : {true, false}) {
    for (const int shared : {10, 0}) {
      const SmallLimits small;  // more batches than the merge may hold ahead
      SCOPED_TRACE(std::string(b_longer ? "B" : "A") + " longer, " + std::to_string(shared) +
                   " rows in both");
      testing::TempDir dir;
      const std::string a = dir.File("a.db");
      const std::string b = dir.File("b.db");
      const std::string& longer = b_longer ? b : a;
      const int after = static_cast<int>(8 * kOrderedMergeBatch);  // names after the other's
      for (const std::string* path : {&a, &b}) {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path->c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db,
                               "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, note "
                               "TEXT); BEGIN;",
                               nullptr, nullptr, nullptr),
                  SQLITE_OK);
        for (int r = 0; r < shared; ++r) Insert(db, r, "a" + std::to_string(r), false, "x");
        for (int r = 0; path == &longer && r < after; ++r) {
          Insert(db, shared + r, "b" + std::to_string(1000000 + r), false, "y");
        }
        ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
      }
      for (const bool in_parts : kBothWays) {
        SCOPED_TRACE(WayName(in_parts));
        const CheckRun run = Check(a, b, {}, in_parts);
        EXPECT_TRUE(run.merged);
        if (shared > 0) {
          ExpectSqlitesAnswer(a, b, "BINARY", run);
          continue;
        }
        ASSERT_EQ(run.report.keys.size(), 2u);
        for (const KeyReport& key : run.report.keys) {
          EXPECT_EQ(key.overlap, 0u);
          EXPECT_EQ(b_longer ? key.rows_b : key.rows_a, static_cast<uint64_t>(after));
        }
      }
    }
  }
}

// A's stream given up within its first batch (its index sorts under NOCASE though its schema
// says BINARY: Z0000 comes after a0099) while B's reader has far more batches ahead than it may
// queue: B's reader is stopped, not left waiting for room, and the key is compared as hashes.
TEST(OrderedMergeTest, AStreamGivenUpEarlyStopsBsReader) {
  const SmallLimits small;  // more batches than the merge may hold ahead
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const std::string table = "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT);";
  const int after = static_cast<int>(8 * kOrderedMergeBatch);  // B's names after A's
  for (const std::string* path : {&a, &b}) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path->c_str(), &db), SQLITE_OK);
    const std::string index = path == &a ? "CREATE UNIQUE INDEX t_name ON t(name COLLATE NOCASE);"
                                         : "CREATE UNIQUE INDEX t_name ON t(name);";
    ASSERT_EQ(sqlite3_exec(db, (table + index + " BEGIN;").c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
    char name[16];
    for (int r = 0; r < 100; ++r) {
      std::snprintf(name, sizeof name, "a%04d", r);
      if (path == &a || r % 2 == 0) Insert(db, r, name, false, "x");
      std::snprintf(name, sizeof name, "Z%04d", r);
      if (path == &a) Insert(db, 100 + r, name, false, "x");
    }
    for (int r = 0; path == &b && r < after; ++r) {
      Insert(db, 1000 + r, "b" + std::to_string(1000000 + r), false, "y");
    }
    ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  testing::ExecSql(a,
                   "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE UNIQUE "
                   "INDEX t_name ON t(name)' WHERE name = 't_name';");
  for (const bool in_parts : kBothWays) {
    SCOPED_TRACE(WayName(in_parts));
    const CheckRun run = Check(a, b, {}, in_parts);
    // The merge was tried, on both sides: in parts, or each index whole.
    EXPECT_EQ(run.parts_a, in_parts ? 1 : 0);
    EXPECT_EQ(run.parts_b, in_parts ? 1 : 0);
    EXPECT_EQ(run.ordered_a, in_parts ? 0 : 1);
    EXPECT_EQ(run.ordered_b, in_parts ? 0 : 1);
    EXPECT_FALSE(run.merged);
    const KeyReport* key = nullptr;
    for (const KeyReport& k : run.report.keys) {
      if (k.columns[0] == "name") key = &k;
    }
    ASSERT_NE(key, nullptr);
    EXPECT_EQ(key->overlap, 50u);  // a0000, a0002, ..., a0098
    EXPECT_EQ(key->rows_a, 200u);
    EXPECT_EQ(key->rows_b, static_cast<uint64_t>(50 + after));
  }
}

// B's stream given up (its index sorts under NOCASE though its schema says BINARY: A0001 comes
// after a0000, z0000 before Z0001) at its start, below the key range's split, and at its end,
// above it, while A's thread has far more batches to merge or hand over than a channel holds:
// A's reader is stopped, not left waiting, and the key is compared as hashes.
TEST(OrderedMergeTest, BsStreamGivenUpStopsAsReader) {
  for (const bool at_start : {true, false}) {
    const SmallLimits small;  // more batches than the merge may hold ahead
    SCOPED_TRACE(at_start ? "at B's start" : "at B's end");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    const int rows = static_cast<int>(8 * kOrderedMergeBatch);
    for (const std::string* path : {&a, &b}) {
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open(path->c_str(), &db), SQLITE_OK);
      const std::string sql =
          std::string("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT);") +
          (path == &a ? "CREATE UNIQUE INDEX t_name ON t(name);"
                      : "CREATE UNIQUE INDEX t_name ON t(name COLLATE NOCASE);") +
          " BEGIN;";
      ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
      char name[16];
      for (int r = 0; r < rows; ++r) {
        std::snprintf(name, sizeof name, "m%06d", r);
        if (path == &a || r % 4 == 0) Insert(db, r, name, false, "x");
      }
      if (path == &b) {
        Insert(db, rows, at_start ? "a0000" : "z0000", false, "y");
        Insert(db, rows + 1, at_start ? "A0001" : "Z0001", false, "y");
      }
      ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
      sqlite3_close(db);
    }
    testing::ExecSql(b,
                     "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE UNIQUE "
                     "INDEX t_name ON t(name)' WHERE name = 't_name';");
    for (const bool in_parts : kBothWays) {
      SCOPED_TRACE(WayName(in_parts));
      const CheckRun run = Check(a, b, {}, in_parts);
      EXPECT_GT(run.splits, 1u);
      EXPECT_FALSE(run.merged);
      const KeyReport* key = nullptr;
      for (const KeyReport& k : run.report.keys) {
        if (k.columns[0] == "name") key = &k;
      }
      ASSERT_NE(key, nullptr);
      EXPECT_EQ(key->overlap, static_cast<uint64_t>(rows / 4));
      EXPECT_EQ(key->rows_a, static_cast<uint64_t>(rows));
      EXPECT_EQ(key->rows_b, static_cast<uint64_t>(rows / 4 + 2));
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
