// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge in index order (check/ordered_merge.h, issue 30) against SQLite's own answers: two
// files whose UNIQUE text key is indexed under BINARY, NOCASE or RTRIM, on small pages (deep
// trees) and large ones, with names long enough to overflow their index pages, some blobs, and
// B's copies of A's names changed in case or trailing spaces. The overlap, the rows, the
// identical/differing split, the conflicts and B's values must be what `ATTACH … JOIN` says,
// whether the merge ran or the key went back to the hashed path (indexes under different
// collations). And the second passes over such files are lookups: each input is scanned once.

#include "check/ordered_merge.h"

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "check/checker.h"
#include "mergecheck_test_util.h"
#include "ordered_merge_test_util.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using ordered_merge_test::Check;
using ordered_merge_test::CheckRun;
using ordered_merge_test::CountingSource;
using ordered_merge_test::ExpectSqlitesAnswer;
using ordered_merge_test::kBothWays;
using ordered_merge_test::MakeShards;
using ordered_merge_test::RandomName;
using ordered_merge_test::Variant;
using ordered_merge_test::WayName;

std::string HexOf(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const char c : bytes) {
    hex += kDigits[static_cast<unsigned char>(c) >> 4];
    hex += kDigits[static_cast<unsigned char>(c) & 15];
  }
  return hex;
}

// Checks CompareInIndexOrder against SQLite's own comparison under BINARY, NOCASE and RTRIM,
// on 20,000 pairs of texts from `pairs` each (randomised: the seed is printed).
void ExpectSqlitesOrder(
    const std::function<std::pair<std::string, std::string>(std::mt19937_64&)>& pairs) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  std::mt19937_64 rng = steadyflake::testing::SeededRandom();
  for (const std::string name : {"BINARY", "NOCASE", "RTRIM"}) {
    const std::string sql = "SELECT CASE WHEN ?1 = ?2 COLLATE " + name +
                            " THEN 0 WHEN ?1 < ?2 COLLATE " + name + " THEN -1 ELSE 1 END";
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
    for (int i = 0; i < 20000; ++i) {
      const auto [x, y] = pairs(rng);
      sqlite3_reset(stmt);
      sqlite3_bind_text(stmt, 1, x.data(), static_cast<int>(x.size()), SQLITE_STATIC);
      sqlite3_bind_text(stmt, 2, y.data(), static_cast<int>(y.size()), SQLITE_STATIC);
      ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
      ASSERT_EQ(CompareInIndexOrder(name, x, y), sqlite3_column_int(stmt, 0))
          << name << " '" << x << "' '" << y << "' (" << HexOf(x) << ", " << HexOf(y) << ")";
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
}

TEST(OrderedMergeTest, IndexOrderAgreesWithSqliteOnRandomPairs) {
  ExpectSqlitesOrder([](std::mt19937_64& rng) {
    std::string x = RandomName(rng).substr(0, 1 + rng() % 4);
    std::string y = rng() % 4 == 0 ? Variant(x, rng) : RandomName(rng).substr(0, 1 + rng() % 4);
    return std::make_pair(x, y);
  });
}

// Keys sorted next to each other share long prefixes, which BINARY compares eight bytes at a
// time: pairs that agree up to a random length (across and within 8-byte words) and then
// differ in one byte, or where one is a prefix of the other.
TEST(OrderedMergeTest, IndexOrderAgreesWithSqliteBeyondLongSharedPrefixes) {
  ExpectSqlitesOrder([](std::mt19937_64& rng) {
    std::string x(rng() % 40, 'a');
    for (char& c : x) {  // letters half the time, for NOCASE; no NUL here (bound as text)
      c = static_cast<char>(rng() % 2 == 0 ? 'A' + rng() % 58 : 1 + rng() % 255);
    }
    std::string y = x.substr(0, rng() % (x.size() + 1));
    if (y.size() < x.size() && rng() % 2 == 0) {
      // One byte differs, by its high bit, its low one or the bit of a letter's case (which may
      // make it a NUL, in one text of the pair only: it still orders below the other's byte).
      static constexpr char kFlips[] = {'\x80', '\x01', '\x20'};
      y += static_cast<char>(x[y.size()] ^ kFlips[rng() % 3]);
      while (y.size() < 40 && rng() % 4 != 0) y += static_cast<char>(1 + rng() % 255);
    }
    if (rng() % 2 == 0) std::swap(x, y);
    return std::make_pair(x, y);
  });
}

TEST(OrderedMergeTest, MergedTextKeysGiveSqlitesAnswer) {
  for (const std::string collation : {"BINARY", "NOCASE", "RTRIM"}) {
    for (const int page_size : {512, 4096, 65536}) {
      // 4096: the collation on the index (`name COLLATE x` of a BINARY column), not the column.
      SCOPED_TRACE(collation + " on pages of " + std::to_string(page_size));
      testing::TempDir dir;
      const std::string a = dir.File("a.db");
      const std::string b = dir.File("b.db");
      MakeShards(a, b, page_size, collation, collation, 600,
                 steadyflake::testing::TestSeed() + page_size, page_size == 4096);
      uint64_t bytes[2][2] = {};  // each way's bytes read of each input
      for (const bool in_parts : kBothWays) {
        SCOPED_TRACE(WayName(in_parts));
        const CheckRun run = Check(a, b, {}, in_parts);
        EXPECT_TRUE(run.merged);
        EXPECT_EQ(run.parts_a, in_parts ? 1 : 0);
        EXPECT_EQ(run.parts_b, in_parts ? 1 : 0);
        ExpectSqlitesAnswer(a, b, collation, run);
        // Collection only: the rows, A's values and B's are found by lookup or by the merge.
        EXPECT_EQ(run.scans_a, 1);
        EXPECT_EQ(run.scans_b, 1);
        for (int i = 0; i < 2; ++i) bytes[in_parts ? 1 : 0][i] = run.report.inputs[i].bytes;
      }
      // The parts' cursors count each page of an index once, as its walk does.
      EXPECT_EQ(bytes[1][0], bytes[0][0]);
      EXPECT_EQ(bytes[1][1], bytes[0][1]);
    }
  }
}

// The whole-row comparison looks up each input's rows under the values in both, key by key; a
// row the lookup by one key found (id 1000 by its id) gives its values of the table's other keys
// too (its name, owner and tag), which are then not sought again: unless another row of that
// input has the value (owner 7000 and tag 'T' in B, keys given by --key whose indexes are not
// UNIQUE, kept as integers and as hashes), whose rows are then all sought, so that B's second
// row under them makes those differ while id and name (merged in index order) are identical.
TEST(OrderedMergeTest, ARowFoundByOneKeyIsNotSoughtAgainByAnotherUnlessItsValueRepeats) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const std::string rows =
      "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, owner INTEGER, tag TEXT);"
      "CREATE INDEX t_owner ON t(owner);"
      "CREATE INDEX t_tag ON t(tag);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64)"
      " INSERT INTO t SELECT i + %d, '%s' || i, i + %d, '%s' || i FROM n;"
      "INSERT INTO t VALUES(1000, 'shared', 7000, 'T');";
  const auto fill = [&](int offset, const char* prefix) {
    char sql[512];
    std::snprintf(sql, sizeof sql, rows.c_str(), offset, prefix, offset, prefix);
    return std::string(sql);
  };
  testing::ExecSql(a, fill(0, "a"));
  testing::ExecSql(b, fill(100, "b") + "INSERT INTO t VALUES(2000, 'other', 7000, 'T');");
  for (const bool in_parts : kBothWays) {  // name is one TEXT column: merged in parts
    SCOPED_TRACE(WayName(in_parts));
    CountingSource in_a(a);
    CountingSource in_b(b);
    in_a.in_parts = in_parts;
    in_b.in_parts = in_parts;
    Options options;
    options.extra_keys.push_back({"t", {"owner"}});
    options.extra_keys.push_back({"t", {"tag"}});
    const Report report = CheckSources(a, in_a, b, in_b, options, 0, {});
    for (const auto& [name, identical] : std::vector<std::pair<std::string, uint64_t>>{
             {"id", 1}, {"name", 1}, {"owner", 0}, {"tag", 0}}) {
      const std::string& column = name;  // a lambda may not capture a structured binding (C++17)
      const auto key = std::find_if(report.keys.begin(), report.keys.end(),
                                    [&](const KeyReport& k) { return k.columns[0] == column; });
      ASSERT_NE(key, report.keys.end()) << column;
      EXPECT_EQ(key->overlap, 1u) << column;
      EXPECT_EQ(key->identical, identical) << column;
    }
    EXPECT_EQ(in_a.sought, 1);                      // id 1000
    EXPECT_EQ(in_b.sought, 3);                      // id 1000, owner 7000, tag 'T'
    EXPECT_EQ(in_a.parts_given, in_parts ? 1 : 0);  // name (tag is hashed)
  }
}

TEST(OrderedMergeTest, IndexesUnderOtherCollationsGoBackToTheHashedPath) {
  for (const auto& [in_a, in_b] : std::vector<std::pair<std::string, std::string>>{
           {"NOCASE", "BINARY"}, {"BINARY", "RTRIM"}, {"RTRIM", "NOCASE"}}) {
    SCOPED_TRACE(in_a + " in A, " + in_b + " in B");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    // B's rows are looked up under A's collation where B has an index under it, beside its
    // UNIQUE one: 'abc' and 'ABC' are then both B's rows of A's 'abc'.
    MakeShards(a, b, 1024, in_a, in_b, 600, steadyflake::testing::TestSeed() + 7, false,
               " CREATE INDEX t_folded ON t(name COLLATE " + in_a + ");");
    for (const bool in_parts : kBothWays) {
      SCOPED_TRACE(WayName(in_parts));
      const CheckRun run = Check(a, b, {}, in_parts);
      EXPECT_FALSE(run.merged);
      ExpectSqlitesAnswer(a, b, in_a, run);
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
