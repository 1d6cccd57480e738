// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Issue 17: the checker on databases shaped like a real MMO server's `characters` database
// (data/mmo/: 42 tables, auto-increment guids whose counters overlap, seeded reference tables,
// keyless tables, text keys under utf8mb4_bin and utf8mb4_unicode_ci), exported by a real
// mariadb-dump. The truth is MariaDB's own (data/mmo/regenerate.sh): every per-key overlap, its
// identical/differing split and every keyless table's rows must be what the server said. The
// same realms as SQLite files (BINARY and NOCASE for the two collations) are held to what
// SQLite itself answers, asked here.

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

std::string MmoFile(const std::string& name) {
  return std::string(STEADYFLAKE_SHARDS_DIR) + "/../mmo/" + name;
}

Options Opts() {
  Options options;
  options.now_ms = 1767225600000;  // 2026-01-01
  return options;
}

// truth_*.tsv: "key TABLE COL[,COL] OVERLAP IDENTICAL" and "keyless TABLE ROWS_A ROWS_B BOTH".
struct Truth {
  std::map<std::string, std::pair<uint64_t, uint64_t>> keys;  // "table:col,col"
  std::map<std::string, std::vector<uint64_t>> keyless;
};

void AddTruth(const std::string& line, Truth& truth) {
  std::istringstream fields(line);
  std::string kind, table;
  fields >> kind >> table;
  if (kind == "key") {
    std::string columns;
    uint64_t overlap = 0, identical = 0;
    fields >> columns >> overlap >> identical;
    truth.keys[table + ":" + columns] = {overlap, identical};
  } else {
    uint64_t a = 0, b = 0, both = 0;
    fields >> a >> b >> both;
    truth.keyless[table] = {a, b, both};
  }
}

Truth ReadTruth(const std::string& path) {
  Truth truth;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::string line;
  while (std::getline(in, line)) AddTruth(line, truth);
  return truth;
}

// SQLite's answers for `a` with `b` attached: data/mmo/truth.sqlite.sql, one query a line.
Truth AskSqlite(const std::string& a, const std::string& b) {
  Truth truth;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(a.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, ("ATTACH '" + b + "' AS b").c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::istringstream queries(testing::ReadFile(MmoFile("truth.sqlite.sql")));
  std::string query;
  while (std::getline(queries, query)) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr), SQLITE_OK) << query;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
      AddTruth(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), truth);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return truth;
}

// Realm `realm` as a SQLite file in `dir`.
std::string SqliteRealm(const testing::TempDir& dir, char realm) {
  const std::string path = dir.File(std::string(1, realm) + ".db");
  testing::ExecSql(path,
                   "BEGIN;\n" + testing::ReadFile(MmoFile("schema.sqlite.sql")) +
                       testing::ReadFile(MmoFile(std::string("realm_") + realm + ".sqlite.sql")) +
                       "COMMIT;\n");
  return path;
}

std::string Name(const KeyReport& k) {
  std::string name = k.table + ":";
  for (std::size_t i = 0; i < k.columns.size(); ++i) name += (i > 0 ? "," : "") + k.columns[i];
  return name;
}

// The checker's report against `truth`, key by key and keyless table by table.
void ExpectTruth(const Report& r, const Truth& truth) {
  ASSERT_GE(truth.keys.size() + truth.keyless.size(), 40u);
  std::map<std::string, std::pair<uint64_t, uint64_t>> got;
  for (const KeyReport& k : r.keys) {
    EXPECT_EQ(k.identical + k.differing, k.overlap) << Name(k);
    got[Name(k)] = {k.overlap, k.identical};
  }
  EXPECT_EQ(got, truth.keys);
  std::map<std::string, std::vector<uint64_t>> keyless;
  for (const KeylessTable& k : r.keyless) keyless[k.table] = {k.rows_a, k.rows_b, k.in_both};
  EXPECT_EQ(keyless, truth.keyless);
}

TEST(MmoTest, EveryKeyAndKeylessTableIsWhatMariaDbSaid) {
  const Report r = Check(MmoFile("a.mariadb.sql.gz"), MmoFile("b.mariadb.sql.gz"), Opts());
  ExpectTruth(r, ReadTruth(MmoFile("truth_ab.tsv")));
  // Counters that overlap: a conflict, with both kinds of rows among the values in both.
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
  uint64_t identical = 0, differing = 0;
  for (const KeyReport& k : r.keys) {
    identical += k.identical;
    differing += k.differing;
  }
  EXPECT_GT(identical, 0u);
  EXPECT_GT(differing, 0u);
  // Auto-increment guids give no server ids, so none is shared.
  EXPECT_TRUE(r.servers_shared.empty());
}

// The negative control: a realm whose counters never met A's and that seeds its reference
// tables under other keys shares no key with A, and its legacy guids give no RISK: exit 0.
TEST(MmoTest, RealmsThatShareNoKeyAreSafe) {
  const Truth truth = ReadTruth(MmoFile("truth_ac.tsv"));
  for (const auto& [key, counts] : truth.keys) EXPECT_EQ(counts.first, 0u) << key;
  const Report r = Check(MmoFile("a.mariadb.sql.gz"), MmoFile("c.mariadb.sql.gz"), Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe) << FormatText(r, Layout::Game());
  for (const KeyReport& k : r.keys) {
    if (k.decoded && k.kind == KeyReport::Kind::kPrimary) {
      EXPECT_EQ(k.id_use, KeyReport::IdUse::kLegacy) << Name(k);
    }
  }
  EXPECT_TRUE(r.servers_a.empty());
  std::map<std::string, std::vector<uint64_t>> keyless;
  for (const KeylessTable& k : r.keyless) keyless[k.table] = {k.rows_a, k.rows_b, k.in_both};
  EXPECT_EQ(keyless, truth.keyless);
}

TEST(MmoTest, SqliteRealmsAreWhatSqliteSays) {
  testing::TempDir dir;
  const std::string a = SqliteRealm(dir, 'a');
  const std::string b = SqliteRealm(dir, 'b');
  const std::string c = SqliteRealm(dir, 'c');
  const Truth ab = AskSqlite(a, b);
  ExpectTruth(Check(a, b, Opts()), ab);
  // NOCASE folds ASCII only: the accented name that MariaDB's utf8mb4_unicode_ci equates with
  // A's is its own here, so one name fewer collides than in MariaDB.
  EXPECT_EQ(ab.keys.at("characters:name").first,
            ReadTruth(MmoFile("truth_ab.tsv")).keys.at("characters:name").first - 1);
  const Truth ac = AskSqlite(a, c);
  const Report safe = Check(a, c, Opts());
  ExpectTruth(safe, ac);
  EXPECT_EQ(safe.verdict, Report::Verdict::kSafe);
}

}  // namespace
}  // namespace steadyflake::mergecheck
