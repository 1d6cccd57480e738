// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the tests of the merge in index order of composite keys share
// (ordered_composite_test.cpp, ordered_composite_damage_test.cpp): a checker that hides the
// index order (the hashed path's answer), shards built row by row at random, SQLite's own join
// of two files, and the comparison of the two paths' JSON reports.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_ORDERED_COMPOSITE_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_ORDERED_COMPOSITE_TEST_UTIL_H_

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "check/checker.h"
#include "check/ordered_merge.h"
#include "counting_source.h"
#include "mergecheck_test_util.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "test_util.h"

namespace steadyflake::mergecheck::ordered_composite_test {

using testing::CountingSource;

// Hides from the visitor that any key can be read in index order: the hashed path, the answer
// the merge must give.
class HashedVisitor : public SourceVisitor {
 public:
  explicit HashedVisitor(SourceVisitor& inner) : inner_(inner) {}
  std::vector<int> OnTable(const Table& table) override {
    Table plain = table;
    for (Key& key : plain.keys) key.in_index_order = false;
    return inner_.OnTable(plain);
  }
  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    inner_.OnRow(table, cells, position);
  }
  std::vector<std::vector<int>> Groups(const Table& table) override { return inner_.Groups(table); }
  void OnPass(const Table& table, std::span<const int> present, bool first) override {
    inner_.OnPass(table, present, first);
  }
  bool NeedsNoRows(const Table& table) override { return inner_.NeedsNoRows(table); }

 private:
  SourceVisitor& inner_;
};

class HashedSource : public CountingSource {
 public:
  using CountingSource::CountingSource;
  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    HashedVisitor hashed(visitor);
    CountingSource::Scan(hashed, only);
  }
};

struct CheckRun {
  Report report;
  std::string json;
  std::vector<std::string> merged;  // tables of A with a key merged in index order
  int scans_a = 0;
  int ordered_a = 0;
};

template <typename SourceType>
inline CheckRun Run(const std::string& path_a, const std::string& path_b) {
  SourceType a(path_a);
  SourceType b(path_b);
  Options options;
  options.limit = 0;  // every conflict
  CheckRun run;
  run.report = CheckSources(
      path_a, a, path_b, b, options, 0, [&](const Collector& ca, const Collector&, Report&) {
        for (const TableState& t : ca.tables()) {
          if (std::any_of(t.keys.begin(), t.keys.end(),
                          [](const KeyState& k) { return k.merged.has_value(); })) {
            run.merged.push_back(t.table.name);
          }
        }
      });
  std::sort(run.merged.begin(), run.merged.end());
  run.json = FormatJson(run.report);
  run.scans_a = a.scans;
  run.ordered_a = a.ordered;
  return run;
}

// A value to insert.
struct V {
  enum class Kind { kInt, kText, kReal, kNull, kBlob } kind = Kind::kNull;
  int64_t i = 0;
  double r = 0;
  std::string s;
};
inline V Int(int64_t i) { return V{V::Kind::kInt, i, 0, {}}; }
inline V Text(std::string s) { return V{V::Kind::kText, 0, 0, std::move(s)}; }
inline V Real(double r) { return V{V::Kind::kReal, 0, r, {}}; }
inline V Null() { return V{}; }

class Db {
 public:
  Db(const std::string& path, int page_size, const std::string& schema) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    const std::string sql =
        "PRAGMA page_size=" + std::to_string(page_size) + "; " + schema + " BEGIN;";
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
  }
  ~Db() {
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  // INSERT OR IGNORE INTO `table` VALUES(values...).
  void Insert(const std::string& table, const std::vector<V>& values) {
    std::string sql = "INSERT OR IGNORE INTO " + table + " VALUES(";
    for (std::size_t i = 0; i < values.size(); ++i) sql += i == 0 ? "?" : ", ?";
    sql += ")";
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const V& v = values[i];
      const int at = static_cast<int>(i) + 1;
      const auto size = static_cast<int>(v.s.size());
      switch (v.kind) {
        case V::Kind::kInt:
          sqlite3_bind_int64(stmt, at, v.i);
          break;
        case V::Kind::kText:
          sqlite3_bind_text(stmt, at, v.s.data(), size, SQLITE_TRANSIENT);
          break;
        case V::Kind::kReal:
          sqlite3_bind_double(stmt, at, v.r);
          break;
        case V::Kind::kBlob:
          sqlite3_bind_blob(stmt, at, v.s.data(), size, SQLITE_TRANSIENT);
          break;
        case V::Kind::kNull:
          break;
      }
    }
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
  }

 private:
  sqlite3* db_ = nullptr;
};

// A name: mostly short, one in 12 long enough to spill off a 512-byte page, of letters on both
// sides of ASCII's case edges, digits, spaces and a two-byte UTF-8 letter.
inline std::string RandomName(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {"a", "Z", "z", "A", "@", "[",        "`",
                                                   "{", "_", "0", "9", " ", "\xc3\xa9", "~"};
  const uint64_t length = rng() % 12 == 0 ? 200 + rng() % 500 : 1 + rng() % 8;
  std::string name;
  for (uint64_t i = 0; i < length; ++i) name += kPieces[rng() % kPieces.size()];
  return name;
}

// A badge code: 1-3 characters, spaces among them (equal under RTRIM with spaces after).
inline std::string RandomCode(std::mt19937_64& rng) {
  static constexpr char kChars[] = "aAbZz_ ";
  std::string code;
  for (uint64_t i = 0, n = 1 + rng() % 3; i < n; ++i) code += kChars[rng() % (sizeof kChars - 1)];
  return code;
}

// `name` in another ASCII case (equal under NOCASE), or unchanged.
inline std::string OtherCase(std::string name, std::mt19937_64& rng) {
  if (rng() % 2 == 0) return name;
  for (char& c : name) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    } else if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return name;
}

// An integer from all over int64's range, or a small one (many rows share a player).
inline int64_t RandomInteger(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return static_cast<int64_t>(rng());  // negative half the time
    case 1:
      return rng() % 2 == 0 ? INT64_MIN + static_cast<int64_t>(rng() % 4)
                            : INT64_MAX - static_cast<int64_t>(rng() % 4);
    default:
      return static_cast<int64_t>(rng() % 200) - 100;
  }
}

// The integer the query gives on A with B attached as `b`.
inline int64_t Joined(const std::string& path_a, const std::string& path_b,
                      const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path_a.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  const std::string attach = "ATTACH '" + path_b + "' AS b";
  EXPECT_EQ(sqlite3_exec(db, attach.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  int64_t value = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) value = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

inline const KeyReport* FindKey(const Report& report, const std::string& table) {
  for (const KeyReport& k : report.keys) {
    if (k.table == table) return &k;
  }
  return nullptr;
}

// The names in `list` ("a, b, c").
inline std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> names;
  for (std::size_t at = 0, end = 0; end != std::string::npos; at = end + 2) {
    end = list.find(", ", at);
    names.push_back(list.substr(at, end == std::string::npos ? end : end - at));
  }
  return names;
}

// The key of `table` over `columns` as SQLite's join counts it: `on` joins x (A) and y (B) under
// the key's collations (a value of A may have several partners in B when B's key is under
// another collation); `all` compares every column of the row (identical rows).
inline void ExpectSqlitesAnswer(const std::string& a, const std::string& b, const CheckRun& run,
                                const std::string& table, const std::string& columns,
                                const std::string& on, const std::string& all) {
  SCOPED_TRACE(table);
  const KeyReport* key = FindKey(run.report, table);
  ASSERT_NE(key, nullptr);
  std::string by_a;
  std::string not_null;
  for (const std::string& column : Split(columns)) {
    by_a += (by_a.empty() ? "x." : ", x.") + column;
    not_null += (not_null.empty() ? " WHERE " : " AND ") + column + " IS NOT NULL";
  }
  const std::string join =
      " FROM main." + table + " x JOIN b." + table + " y ON " + on + " GROUP BY " + by_a;
  const auto overlap =
      static_cast<uint64_t>(Joined(a, b, "SELECT count(*) FROM (SELECT 1" + join + ")"));
  EXPECT_GT(overlap, 5u);  // something to get wrong
  EXPECT_EQ(key->overlap, overlap);
  EXPECT_EQ(key->identical,
            static_cast<uint64_t>(Joined(a, b,
                                         "SELECT count(*) FROM (SELECT 1" + join +
                                             " HAVING count(*) = 1 AND max(" + all + ") = 1)")));
  EXPECT_EQ(key->rows_a,
            static_cast<uint64_t>(Joined(a, b, "SELECT count(*) FROM main." + table + not_null)));
  EXPECT_EQ(key->rows_b,
            static_cast<uint64_t>(Joined(a, b, "SELECT count(*) FROM b." + table + not_null)));
  EXPECT_EQ(key->conflicts.size(), overlap);
}

// Both paths on the same files: the same JSON, and the merge taken where `merged` says. With
// `reread`, the merge gave up on some key and its tables were read again: then the inputs'
// bytes are those of the last scan (Source::bytes_read), and may differ.
inline CheckRun ExpectSameReport(const std::string& a, const std::string& b,
                                 const std::vector<std::string>& merged, bool reread = false) {
  const CheckRun hashed = Run<HashedSource>(a, b);
  EXPECT_TRUE(hashed.merged.empty());
  EXPECT_EQ(hashed.ordered_a, 0);
  CheckRun run = Run<CountingSource>(a, b);
  EXPECT_EQ(run.merged, merged);
  // Where they differ (a JSON patch from the hashed path's report to the merge's), not both.
  nlohmann::json diff =
      nlohmann::json::diff(nlohmann::json::parse(hashed.json), nlohmann::json::parse(run.json));
  if (reread) {
    diff.erase(std::remove_if(diff.begin(), diff.end(),
                              [](const nlohmann::json& op) {
                                const std::string path = op["path"];
                                return path == "/inputs/0/bytes" || path == "/inputs/1/bytes";
                              }),
               diff.end());
  }
  EXPECT_TRUE(diff.empty()) << diff.dump().substr(0, 2000);
  return run;
}

// inventory(player_id, slot, item_id, label): 1,500 rows a side, every 5th of A's in B (every other
// one with another item), NULL keys in rowid tables; guild_member(guild_id, name NOCASE, note):
// B's copies of A's names in another case; badge(realm, code RTRIM, level): three columns.
inline void MakeComposites(const std::string& path_a, const std::string& path_b, int page_size,
                           bool without_rowid, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string tail = without_rowid ? " WITHOUT ROWID;" : ";";
  const std::string schema =
      "CREATE TABLE inventory(player_id INTEGER NOT NULL, slot BIGINT NOT NULL, item_id INTEGER,"
      " label TEXT, PRIMARY KEY(player_id, slot))" +
      tail +
      " CREATE TABLE guild_member(guild_id INTEGER NOT NULL, name TEXT COLLATE NOCASE NOT NULL,"
      " note TEXT, PRIMARY KEY(guild_id, name))" +
      tail +
      " CREATE TABLE badge(realm INTEGER, code TEXT COLLATE RTRIM, level INTEGER, owner INTEGER,"
      " UNIQUE(realm, code, level));";
  const std::string nullable = without_rowid ? schema : [&] {
    std::string s = schema;  // a rowid table's primary key may hold NULLs
    for (const char* column : {"player_id INTEGER NOT NULL", "slot BIGINT NOT NULL"}) {
      const std::string from(column);
      s.replace(s.find(from), from.size(), from.substr(0, from.size() - 9));
    }
    return s;
  }();
  Db a(path_a, page_size, nullable);
  Db b(path_b, page_size, nullable);
  for (int r = 0; r < 1500; ++r) {
    const bool shared = r % 5 == 0;
    const V player = !without_rowid && rng() % 40 == 0 ? Null() : Int(RandomInteger(rng));
    const V slot = Int(RandomInteger(rng));
    // A WITHOUT ROWID table's record holds the label: one in 8 of 100 to 300 bytes, past the
    // one-byte payload size and, on pages of 512 bytes, past what a page keeps whole.
    const V label = Text(std::string(rng() % 8 == 0 ? 100 + rng() % 200 : rng() % 4, 'x'));
    a.Insert("inventory", {player, slot, Int(r), label});
    b.Insert("inventory", shared ? std::vector<V>{player, slot, Int(r % 10 == 0 ? r : -r), label}
                                 : std::vector<V>{Int(RandomInteger(rng)), slot, Int(r), label});
    const V guild = Int(RandomInteger(rng));
    const std::string name = RandomName(rng);
    a.Insert("guild_member", {guild, Text(name), Text("a")});
    b.Insert("guild_member", shared ? std::vector<V>{guild, Text(OtherCase(name, rng)), Text("a")}
                                    : std::vector<V>{guild, Text(RandomName(rng)), Text("b")});
    const V realm = Int(static_cast<int64_t>(rng() % 3));
    const std::string code = RandomCode(rng);
    const V level = rng() % 30 == 0 ? Null() : Int(static_cast<int64_t>(rng() % 5));
    a.Insert("badge", {realm, Text(code), level, Int(r)});
    b.Insert("badge",
             shared ? std::vector<V>{realm, Text(code + (r % 10 == 0 ? "" : "  ")), level, Int(r)}
                    : std::vector<V>{realm, Text(RandomCode(rng)), level, Int(r)});
  }
}

}  // namespace steadyflake::mergecheck::ordered_composite_test

#endif  // STEADYFLAKE_TESTS_MERGECHECK_ORDERED_COMPOSITE_TEST_UTIL_H_
