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
#include "counting_source.h"
#include "mergecheck_test_util.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using testing::CountingSource;

// A random name: mostly short, some longer than an index cell holds on a 512-byte page, from
// characters on both sides of ASCII's case and space edges and a two-byte UTF-8 letter.
std::string RandomName(std::mt19937_64& rng) {
  static const std::vector<std::string> kPieces = {
      "a", "Z", "z", "A", "@", "[", "`", "{", "_", "0", "9", " ", "\xc3\xa9", "\xc3\x89", "~"};
  const uint64_t length = rng() % 10 == 0 ? 150 + rng() % 600 : 1 + rng() % 12;
  std::string name;
  for (uint64_t i = 0; i < length; ++i) name += kPieces[rng() % kPieces.size()];
  return name;
}

// What B holds of A's name `name`: the same bytes, or another case or more trailing spaces
// (equal under NOCASE or RTRIM, a differing row whatever the collation).
std::string Variant(const std::string& name, std::mt19937_64& rng) {
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

void Insert(sqlite3* db, int64_t id, const std::string& name, bool blob, const std::string& note) {
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
void MakeShards(const std::string& path_a, const std::string& path_b, int page_size,
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
std::vector<std::pair<std::string, std::string>> Pairs(const std::string& path_a,
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
  int splits = 0;  // splits of the key range A gave
};

// `split`, when set, gives the split of the merge's key range in A's place.
CheckRun Check(const std::string& path_a, const std::string& path_b,
               std::function<bool(const RecordsInOrder&)> split = {}) {
  CountingSource a(path_a);
  CountingSource b(path_b);
  a.middle = std::move(split);
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
  run.splits = a.middles;
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
void ExpectSqlitesAnswer(const std::string& path_a, const std::string& path_b,
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
    const CheckRun run = Check(a, b);
    EXPECT_EQ(run.splits, 1);
    EXPECT_TRUE(run.merged);
    ExpectSqlitesAnswer(a, b, "NOCASE", run);
  }
}

// The key range split anywhere (ordered_merge.cpp, Side: A's thread merges below the split,
// B's from it on): before every name, after every name (a blob: SQLite sorts blobs after text),
// at a name in both, at one in B only, and not at all; a split of a type the key does not order
// is none. The answer is SQLite's whichever it is, with several batches on each side of it.
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
  const struct {
    const char* what;
    Cell split;
    int splits;
  } cases[] = {
      {"before every name", Cell{Cell::Type::kText, 0, 0, ""}, 1},
      {"after every name", Cell{Cell::Type::kBlob, 0, 0, "\x01"}, 1},
      {"at a name in both", Cell{Cell::Type::kText, 0, 0, in_both}, 1},
      {"at a name in B only", Cell{Cell::Type::kText, 0, 0, in_b_only}, 1},
      {"an integer: none", Cell{Cell::Type::kInteger, 7, 0, {}}, 1},
      {"none", Cell{}, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const SmallLimits small(std::size_t{1} << 16);
    const CheckRun run = Check(a, b, [&](const RecordsInOrder& on_record) {
      if (c.splits == 0) return false;
      on_record(std::span<const Cell>(&c.split, 1));
      return true;
    });
    EXPECT_EQ(run.splits, c.splits);
    EXPECT_TRUE(run.merged);
    ExpectSqlitesAnswer(a, b, "NOCASE", run);
  }
  // Unforced: the middle of A's root page.
  const CheckRun run = Check(a, b);
  EXPECT_EQ(run.splits, 1);
  EXPECT_TRUE(run.merged);
  ExpectSqlitesAnswer(a, b, "NOCASE", run);
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
      const CheckRun run = Check(a, b);
      EXPECT_TRUE(run.merged);
      ExpectSqlitesAnswer(a, b, collation, run);
      // Collection only: the rows, A's values and B's are found by lookup or by the merge.
      EXPECT_EQ(run.scans_a, 1);
      EXPECT_EQ(run.scans_b, 1);
    }
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
      const CheckRun run = Check(a, b);
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
  CountingSource in_a(a);
  CountingSource in_b(b);
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
  EXPECT_EQ(in_a.sought, 1);  // id 1000
  EXPECT_EQ(in_b.sought, 3);  // id 1000, owner 7000, tag 'T'
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
  const CheckRun run = Check(a, b);
  EXPECT_EQ(run.ordered_a, 1);  // the merge was tried, on both sides
  EXPECT_EQ(run.ordered_b, 1);
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
    const CheckRun run = Check(a, b);
    EXPECT_EQ(run.splits, 1);
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
    const CheckRun run = Check(a, b);
    EXPECT_FALSE(run.merged);
    ExpectSqlitesAnswer(a, b, in_a, run);
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
