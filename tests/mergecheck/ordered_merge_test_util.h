// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the tests of the merge in index order share (ordered_merge_test.cpp,
// ordered_merge_threads_test.cpp): two shards of t(id, name UNIQUE, note) built at random, a
// check of them through CountingSource, and its report held to SQLite's own join of the files.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_ORDERED_MERGE_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_ORDERED_MERGE_TEST_UTIL_H_

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "check/checker.h"
#include "check/ordered_merge.h"
#include "counting_source.h"
#include "mergecheck_test_util.h"
#include "test_util.h"

namespace steadyflake::mergecheck::ordered_merge_test {

using testing::CountingSource;

// A random name: mostly short, some longer than an index cell holds on a 512-byte page, from
// characters on both sides of ASCII's case and space edges and a two-byte UTF-8 letter.
inline std::string RandomName(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {
      "a", "Z", "z", "A", "@", "[", "`", "{", "_", "0", "9", " ", "\xc3\xa9", "\xc3\x89", "~"};
  const uint64_t length = rng() % 10 == 0 ? 150 + rng() % 600 : 1 + rng() % 12;
  std::string name;
  for (uint64_t i = 0; i < length; ++i) name += kPieces[rng() % kPieces.size()];
  return name;
}

// What B holds of A's name `name`: the same bytes, or another case or more trailing spaces
// (equal under NOCASE or RTRIM, a differing row whatever the collation).
inline std::string Variant(const std::string& name, std::mt19937_64& rng) {
  std::string out = name;
  switch (rng() % 3) {
    case 0:
      break;
    case 1:
      for (char& c : out) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
      break;
    default:
      out += std::string(1 + rng() % 2, ' ');
      break;
  }
  return out;
}

inline void Insert(sqlite3* db, int64_t id, const std::string& name, bool blob,
                   const std::string& note) {
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO t VALUES(?1, ?2, ?3)", -1, &stmt, nullptr),
      SQLITE_OK);
  sqlite3_bind_int64(stmt, 1, id);
  const auto size = static_cast<int>(name.size());
  if (blob) {
    sqlite3_bind_blob(stmt, 2, name.data(), size, SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_text(stmt, 2, name.data(), size, SQLITE_TRANSIENT);
  }
  sqlite3_bind_text(stmt, 3, note.data(), static_cast<int>(note.size()), SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
}

// Two files of `rows` rows each in t(id, name UNIQUE COLLATE x, note), x per file, or with
// `on_index` t(id, name, note) and a UNIQUE index on (name COLLATE x); every 20th row of A is in
// B too, its name as Variant says, every other one with another note. `extra_b`: more SQL for
// B's schema.
inline void MakeShards(const std::string& path_a, const std::string& path_b, int page_size,
                       const std::string& collation_a, const std::string& collation_b, int rows,
                       uint64_t seed, bool on_index = false, const std::string& extra_b = "") {
  std::mt19937_64 rng(seed);
  sqlite3* dbs[2] = {};
  const std::string* collations[2] = {&collation_a, &collation_b};
  const std::string* paths[2] = {&path_a, &path_b};
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(sqlite3_open(paths[i]->c_str(), &dbs[i]), SQLITE_OK);
    const std::string table =
        on_index ? "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT); CREATE UNIQUE "
                   "INDEX t_name ON t(name COLLATE " +
                       *collations[i] + ");"
                 : "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT COLLATE " + *collations[i] +
                       " UNIQUE, note TEXT);";
    const std::string sql = "PRAGMA page_size=" + std::to_string(page_size) + "; " + table +
                            (i == 1 ? extra_b : "") + " BEGIN;";
    ASSERT_EQ(sqlite3_exec(dbs[i], sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  }
  for (int r = 0; r < rows; ++r) {
    const std::string name = RandomName(rng);
    const bool blob = rng() % 50 == 0;
    Insert(dbs[0], r, name, blob, "a");
    if (r % 20 == 0) {
      Insert(dbs[1], r, blob ? name : Variant(name, rng), blob, r % 40 == 0 ? "a" : "b");
    } else {
      Insert(dbs[1], rows + r, RandomName(rng), rng() % 50 == 0, "b");
    }
  }
  for (sqlite3* db : dbs) {
    ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
}

// The rows of two text (or blob) columns a query gives, in order, from a connection to A with
// B attached as `b`.
inline std::vector<std::pair<std::string, std::string>> Pairs(const std::string& path_a,
                                                              const std::string& path_b,
                                                              const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path_a.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  const std::string attach = "ATTACH '" + path_b + "' AS b";
  EXPECT_EQ(sqlite3_exec(db, attach.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  std::vector<std::pair<std::string, std::string>> out;
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  const auto column = [&](int i) {
    const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, i));
    return std::string(bytes == nullptr ? "" : bytes,
                       static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
  };
  while (sqlite3_step(stmt) == SQLITE_ROW) out.emplace_back(column(0), column(1));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

struct CheckRun {
  Report report;
  bool merged = false;  // the name key was compared in index order
  int scans_a = 0;
  int scans_b = 0;
  int ordered_a = 0;  // ReadInIndexOrder calls on A
  int ordered_b = 0;
  std::size_t splits = 0;  // splits of the key range A gave
  int parts_a = 0;         // merges in parts given A's cursors
  int parts_b = 0;
};

// The two ways a one-column text key is merged in index order: in parts (merge_in_parts.h), and
// each index read whole (ordered_merge.cpp, Side), the way when a source gives no cursors.
inline constexpr bool kBothWays[] = {true, false};
inline std::string WayName(bool in_parts) { return in_parts ? "in parts" : "whole"; }

// `splits`, when set, gives the splits of the merge's key range in A's place. `in_parts`: the
// sources give cursors (a text key of one column is then merged in parts).
inline CheckRun Check(const std::string& path_a, const std::string& path_b,
                      std::function<std::size_t(const RecordsInOrder&)> splits = {},
                      bool in_parts = false) {
  CountingSource a(path_a);
  CountingSource b(path_b);
  a.splits = std::move(splits);
  a.in_parts = in_parts;
  b.in_parts = in_parts;
  Options options;
  options.limit = 0;  // every conflict
  CheckRun run;
  run.report = CheckSources(path_a, a, path_b, b, options, 0,
                            [&](const Collector& ca, const Collector&, Report&) {
                              for (const KeyState& k : ca.Find("t")->keys) {
                                if (k.lower[0] == "name") run.merged = k.merged.has_value();
                              }
                            });
  run.scans_a = a.scans;
  run.scans_b = b.scans;
  run.ordered_a = a.ordered;
  run.ordered_b = b.ordered;
  run.splits = a.splits_given;
  run.parts_a = a.parts_given;
  run.parts_b = b.parts_given;
  return run;
}

// While it lives, merges in index order hold at most one batch ahead (OrderedMergeLimits): every
// wait of theirs happens, as on large tables.
class SmallLimits {
 public:
  explicit SmallLimits(std::size_t kept = 1) : before_(SetOrderedMergeLimits({1, kept})) {}
  ~SmallLimits() { SetOrderedMergeLimits(before_); }
  SmallLimits(const SmallLimits&) = delete;
  SmallLimits& operator=(const SmallLimits&) = delete;

 private:
  OrderedMergeLimits before_;
};

// The checker's report of t(name) against SQLite's join of the two files: A's names that
// equal one of B's under A's collation (`collation_a`, the key's in A), each with its partners in B
// (several when B's own index is under another collation), and those whose one partner is the same
// row.
inline void ExpectSqlitesAnswer(const std::string& path_a, const std::string& path_b,
                                const std::string& collation_a, const CheckRun& run) {
  const KeyReport* name = nullptr;
  for (const KeyReport& k : run.report.keys) {
    if (k.columns[0] == "name") name = &k;
  }
  ASSERT_NE(name, nullptr);
  // Grouped by A's row, not by its bytes: A may hold a text and a blob of the same bytes, two
  // values (SQLite sorts the text first).
  const std::string join = " FROM main.t x JOIN b.t y ON x.name = y.name COLLATE " + collation_a +
                           " ORDER BY x.name COLLATE BINARY, x.id, y.name COLLATE BINARY, y.id";
  const auto pairs = Pairs(path_a, path_b, "SELECT x.name, y.name" + join);
  const auto ids = Pairs(path_a, path_b, "SELECT x.id, y.id" + join);
  ASSERT_EQ(ids.size(), pairs.size());
  std::vector<std::string> in_a;
  std::vector<std::vector<std::string>> partners;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (k == 0 || ids[k].first != ids[k - 1].first) {
      in_a.push_back(pairs[k].first);
      partners.emplace_back();
    }
    partners.back().push_back(pairs[k].second);
  }
  const auto same = Pairs(
      path_a, path_b,
      "SELECT x.name, count(*) FROM main.t x JOIN b.t y ON x.name = y.name COLLATE " + collation_a +
          " GROUP BY x.id HAVING count(*) = 1 AND max(x.id = y.id AND x.name = "
          "y.name COLLATE BINARY AND x.note IS y.note) = 1");
  ASSERT_GT(in_a.size(), 5u);  // the case has overlaps to get wrong
  EXPECT_EQ(name->overlap, in_a.size());
  EXPECT_EQ(name->rows_a,
            static_cast<uint64_t>(testing::QueryInt(path_a, "SELECT count(name) FROM t")));
  EXPECT_EQ(name->rows_b,
            static_cast<uint64_t>(testing::QueryInt(path_b, "SELECT count(name) FROM t")));
  EXPECT_EQ(name->identical, same.size());
  EXPECT_EQ(name->differing, in_a.size() - same.size());
  ASSERT_EQ(name->conflicts.size(), in_a.size());
  bool b_differs = false;
  for (std::size_t i = 0; i < in_a.size(); ++i) {
    EXPECT_EQ(name->conflicts[i][0].text, in_a[i]) << i;
    b_differs = b_differs || partners[i].size() > 1 || partners[i][0] != in_a[i];
  }
  if (!b_differs) {
    EXPECT_TRUE(name->conflicts_b.empty());
    return;
  }
  ASSERT_EQ(name->conflicts_b.size(), in_a.size());
  for (std::size_t i = 0; i < in_a.size(); ++i) {
    // B's value when it differs from A's: with several partners, any one of them.
    const std::vector<std::string>& p = partners[i];
    if (name->conflicts_b[i].empty()) {
      EXPECT_NE(std::find(p.begin(), p.end(), in_a[i]), p.end()) << i;
    } else {
      EXPECT_NE(std::find(p.begin(), p.end(), name->conflicts_b[i][0].text), p.end()) << i;
    }
  }
}

}  // namespace steadyflake::mergecheck::ordered_merge_test

#endif  // STEADYFLAKE_TESTS_MERGECHECK_ORDERED_MERGE_TEST_UTIL_H_
