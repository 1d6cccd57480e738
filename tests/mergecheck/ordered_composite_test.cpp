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

namespace steadyflake::mergecheck {
namespace {

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
CheckRun Run(const std::string& path_a, const std::string& path_b) {
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
V Int(int64_t i) { return V{V::Kind::kInt, i, 0, {}}; }
V Text(std::string s) { return V{V::Kind::kText, 0, 0, std::move(s)}; }
V Real(double r) { return V{V::Kind::kReal, 0, r, {}}; }
V Null() { return V{}; }

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
std::string RandomName(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {"a", "Z", "z", "A", "@", "[",        "`",
                                                   "{", "_", "0", "9", " ", "\xc3\xa9", "~"};
  const uint64_t length = rng() % 12 == 0 ? 200 + rng() % 500 : 1 + rng() % 8;
  std::string name;
  for (uint64_t i = 0; i < length; ++i) name += kPieces[rng() % kPieces.size()];
  return name;
}

// A badge code: 1-3 characters, spaces among them (equal under RTRIM with spaces after).
std::string RandomCode(std::mt19937_64& rng) {
  static constexpr char kChars[] = "aAbZz_ ";
  std::string code;
  for (uint64_t i = 0, n = 1 + rng() % 3; i < n; ++i) code += kChars[rng() % (sizeof kChars - 1)];
  return code;
}

// `name` in another ASCII case (equal under NOCASE), or unchanged.
std::string OtherCase(std::string name, std::mt19937_64& rng) {
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
int64_t RandomInteger(std::mt19937_64& rng) {
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
int64_t Joined(const std::string& path_a, const std::string& path_b, const std::string& sql) {
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

const KeyReport* FindKey(const Report& report, const std::string& table) {
  for (const KeyReport& k : report.keys) {
    if (k.table == table) return &k;
  }
  return nullptr;
}

// The names in `list` ("a, b, c").
std::vector<std::string> Split(const std::string& list) {
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
void ExpectSqlitesAnswer(const std::string& a, const std::string& b, const CheckRun& run,
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
CheckRun ExpectSameReport(const std::string& a, const std::string& b,
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
void MakeComposites(const std::string& path_a, const std::string& path_b, int page_size,
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

// The offset in `bytes` (the file at `path`) of the record (its header size) of cell `cell` of
// the first leaf of t's autoindex.
void FirstLeafRecord(const std::string& path, const std::string& bytes, int cell,
                     std::size_t& record) {
  const std::size_t page_size = testing::PageSize(bytes);
  const std::vector<uint32_t> leaves = testing::PagesOfType(path, "leaf", "sqlite_autoindex_t_1");
  ASSERT_FALSE(leaves.empty());
  const std::size_t page = (leaves[0] - 1) * page_size;
  const std::size_t pointer = page + 8 + 2 * static_cast<std::size_t>(cell);
  record = page +
           (static_cast<std::size_t>(static_cast<unsigned char>(bytes[pointer])) << 8 |
            static_cast<unsigned char>(bytes[pointer + 1])) +
           1;  // after the payload's size
}

// Sets byte `field` (0: k, 1: s, each a one-byte integer, serial type 1) of record `cell` of
// the first leaf of t's primary key index in the file at `path` from `was` to `value`.
void SetKeyByte(const std::string& path, int cell, int field, int was, int value) {
  std::string bytes = testing::ReadFile(path);
  std::size_t record = 0;
  ASSERT_NO_FATAL_FAILURE(FirstLeafRecord(path, bytes, cell, record));
  ASSERT_EQ(bytes[record + 1], 1);  // k's serial type
  ASSERT_EQ(bytes[record + 2], 1);  // s's
  const std::size_t at =
      record + static_cast<std::size_t>(bytes[record]) + static_cast<std::size_t>(field);
  ASSERT_EQ(bytes[at], was);
  bytes[at] = static_cast<char>(value);
  testing::WriteFile(path, bytes);
}

// What the damage of the two tests below gives: the merge tried, and given up when a record is
// out of order, and the report of the hashed path either way.
void ExpectDamagedIndexesReport(const std::string& a, const std::string& b, bool out_of_order) {
  const std::vector<std::string> merged =
      out_of_order ? std::vector<std::string>{} : std::vector<std::string>{"t"};
  const CheckRun run = ExpectSameReport(a, b, merged, out_of_order);
  EXPECT_EQ(run.ordered_a, 1);  // the merge was tried
  ASSERT_EQ(run.report.keys.size(), 1u);
  EXPECT_GT(run.report.keys[0].overlap, 100u);
}

// Damage no page check sees (the records are not decoded): an index whose records are out of
// order (in its first column or only in its last) cannot be merged, the stream is checked as it
// goes and the key goes the hashed way; an index holding a key twice is merged, counting the
// key's rows as the hashed path does and its value once.
TEST(OrderedCompositeTest, DamagedIndexesGiveTheHashedPathsReport) {
  enum class Damage { kFirstColumnOutOfOrder, kLastColumnOutOfOrder, kKeyTwice };
  for (const Damage damage :
       {Damage::kFirstColumnOutOfOrder, Damage::kLastColumnOutOfOrder, Damage::kKeyTwice}) {
    const bool out_of_order = damage != Damage::kKeyTwice;
    SCOPED_TRACE(damage == Damage::kFirstColumnOutOfOrder  ? "a record out of order"
                 : damage == Damage::kLastColumnOutOfOrder ? "a record out of order in s"
                                                           : "a key twice");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema =
          "CREATE TABLE t(k INTEGER, s INTEGER, v INTEGER, PRIMARY KEY(k, s));";
      Db da(a, 1024, schema);
      Db db(b, 1024, schema);
      for (int k = 2; k < 100; ++k) {
        for (int s = 2; s < 12; ++s) {
          da.Insert("t", {Int(k), Int(s), Int(k * s)});
          db.Insert("t", (k + s) % 3 == 0
                             ? std::vector<V>{Int(k), Int(s), Int(k % 2 == 0 ? k * s : 0)}
                             : std::vector<V>{Int(k + 200), Int(s), Int(0)});
        }
      }
    }
    // Out of order: the fourth record of A's first leaf of the key's index, (2, 5), gets a k
    // above every other; or its third, (2, 4), becomes (2, 1), below the (2, 3) before it. A
    // key twice: A's fourth becomes its third, (2, 4), and B's second, (2, 7), its first,
    // (2, 4) too (so a merge that kept both would count it twice).
    if (damage == Damage::kFirstColumnOutOfOrder) {
      SetKeyByte(a, 3, 0, 2, 120);
    } else if (damage == Damage::kLastColumnOutOfOrder) {
      SetKeyByte(a, 2, 1, 4, 1);
    } else {
      SetKeyByte(a, 3, 1, 5, 4);
      SetKeyByte(b, 1, 1, 7, 4);
    }
    ExpectDamagedIndexesReport(a, b, out_of_order);
  }
}

// Sets byte `at` of the text of record `cell` (k, a text of five bytes, serial type 23) of the
// first leaf of t's UNIQUE index in the file at `path` from `was` to `value`.
void SetTextByte(const std::string& path, int cell, int at, char was, char value) {
  std::string bytes = testing::ReadFile(path);
  std::size_t record = 0;
  ASSERT_NO_FATAL_FAILURE(FirstLeafRecord(path, bytes, cell, record));
  ASSERT_EQ(bytes[record + 1], 23);  // k's serial type: a text of five bytes
  const std::size_t text = record + static_cast<std::size_t>(bytes[record]);
  ASSERT_EQ(bytes[text + static_cast<std::size_t>(at)], was);
  bytes[text + static_cast<std::size_t>(at)] = value;
  testing::WriteFile(path, bytes);
}

// The same damage to the index of a key of one text column, which the merge appends by a path
// of its own (AppendText).
TEST(OrderedCompositeTest, DamagedTextIndexesGiveTheHashedPathsReport) {
  for (const bool out_of_order : {true, false}) {
    SCOPED_TRACE(out_of_order ? "a record out of order" : "a key twice");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema = "CREATE TABLE t(k TEXT UNIQUE, v INTEGER);";
      Db da(a, 1024, schema);
      Db db(b, 1024, schema);
      const auto name = [](int i) {
        char text[8];
        std::snprintf(text, sizeof text, "n%04d", i);
        return std::string(text);
      };
      for (int i = 2; i < 1000; ++i) {
        da.Insert("t", {Text(name(i)), Int(i)});
        db.Insert("t", {Text(name(i % 3 == 0 ? i : i + 2000)), Int(i % 2 == 0 ? i : 0)});
      }
    }
    // A's first records are n0002, n0003, n0004, n0005; B's n0003, n0006. Out of order: A's
    // fourth becomes z0005, above every other. A key twice, in both: A's third becomes n0003,
    // its second, and B's second n0003, its first (so a merge that kept both would count it
    // twice).
    if (out_of_order) {
      SetTextByte(a, 3, 0, 'n', 'z');
    } else {
      SetTextByte(a, 2, 4, '4', '3');
      SetTextByte(b, 1, 4, '6', '3');
    }
    ExpectDamagedIndexesReport(a, b, out_of_order);
  }
}

// A value out of order just where one batch of a stream ends and the next begins is checked
// against the last of the batch held back: A's index sorts under NOCASE but its schema says
// BINARY, and the one upper-case value, N04096, is the first of the second batch (below the
// n04095 before it as bytes). The merge is given up, as anywhere else in the stream.
TEST(OrderedCompositeTest, AValueOutOfOrderAtABatchsEdgeGivesTheHashedPathsReport) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const auto name = [](std::size_t i) {
    char text[16];
    std::snprintf(text, sizeof text, "%c%05zu", i == kOrderedMergeBatch ? 'N' : 'n', i);
    return std::string(text);
  };
  {
    Db da(a, 4096,
          "CREATE TABLE t(k TEXT, v INTEGER); CREATE UNIQUE INDEX t_k ON t(k COLLATE NOCASE);");
    Db db(b, 4096, "CREATE TABLE t(k TEXT, v INTEGER); CREATE UNIQUE INDEX t_k ON t(k);");
    for (std::size_t i = 0; i < 2 * kOrderedMergeBatch; ++i) {
      da.Insert("t", {Text(name(i)), Int(static_cast<int64_t>(i))});
      if (i % 7 == 0 || i == kOrderedMergeBatch) db.Insert("t", {Text(name(i)), Int(0)});
    }
  }
  testing::ExecSql(a,
                   "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE UNIQUE "
                   "INDEX t_k ON t(k)' WHERE name = 't_k';");
  const CheckRun run = ExpectSameReport(a, b, {}, true);
  EXPECT_EQ(run.ordered_a, 1);  // the merge was tried
  ASSERT_EQ(run.report.keys.size(), 1u);
  EXPECT_GT(run.report.keys[0].overlap, 1000u);
}

// Keys of integer columns longer than a batch, which AppendIntegers hands over as it fills them:
// three columns (its general width), then two with damage at the first tuple of the second
// batch, compared with the copy of the tuple before: that tuple's key (k, s) = (104096, 7),
// record (k, s, rowid 4097) found by its bytes in A's index, becomes (104094, 7), out of order,
// or (104095, 7), the tuple before, which B holds too (a merge that kept both would count it
// twice).
TEST(OrderedCompositeTest, IntegerKeysLongerThanABatchGiveTheHashedPathsReport) {
  const int64_t rows = 2 * static_cast<int64_t>(kOrderedMergeBatch) + 100;
  {
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema =
          "CREATE TABLE t(k INTEGER, s INTEGER, u INTEGER, v INTEGER, PRIMARY KEY(k, s, u));";
      Db da(a, 4096, schema);
      Db db(b, 4096, schema);
      for (int64_t i = 0; i < rows; ++i) {
        da.Insert("t", {Int(i / 100), Int(i % 100 / 10), Int(i % 10), Int(i)});
        db.Insert("t",
                  {Int(i / 100 + (i % 5 == 0 ? 0 : 1000)), Int(i % 100 / 10), Int(i % 10), Int(i)});
      }
    }
    const CheckRun run = ExpectSameReport(a, b, {"t"});
    ASSERT_EQ(run.report.keys.size(), 1u);
    EXPECT_GT(run.report.keys[0].overlap, 1000u);
  }
  for (const bool out_of_order : {true, false}) {
    SCOPED_TRACE(out_of_order ? "a record out of order" : "a key twice");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema = "CREATE TABLE t(k INTEGER, s INTEGER, v, PRIMARY KEY(k, s));";
      Db da(a, 4096, schema);
      Db db(b, 4096, schema);
      for (int64_t i = 0; i < rows; ++i) {
        da.Insert("t", {Int(100000 + i), Int(7), Int(0)});
        db.Insert("t", {Int(100000 + i + (i % 3 == 0 ? 0 : 500000)), Int(7), Int(0)});
      }
    }
    ASSERT_EQ(100000 + static_cast<int64_t>(kOrderedMergeBatch), 104096);  // the bytes below
    std::string bytes = testing::ReadFile(a);
    const std::string record("\x04\x03\x01\x02\x01\x96\xa0\x07\x10\x01", 10);
    const std::size_t at = bytes.find(record);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(bytes.find(record, at + 1), std::string::npos);
    bytes[at + 6] = out_of_order ? '\x9e' : '\x9f';
    testing::WriteFile(a, bytes);
    ExpectDamagedIndexesReport(a, b, out_of_order);
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
}  // namespace steadyflake::mergecheck
