// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Brute force as the oracle: on random inputs, the checker's overlap for every key equals the
// size of a plain std::set intersection, and its conflicts are that intersection. The seed is
// printed ("[ seed     ] STEADYFLAKE_TEST_SEED=N"); setting it reruns one.

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "check/checker.h"
#include "mergecheck_test_util.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using testing::TempDir;

// A value as SQLite compares it: integral reals are integers.
std::string OracleValue(sqlite3_stmt* s, int i) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER:
      return "i" + std::to_string(sqlite3_column_int64(s, i));
    case SQLITE_FLOAT: {
      const double d = sqlite3_column_double(s, i);
      if (std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
        return "i" + std::to_string(static_cast<int64_t>(d));
      }
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "r%.17g", d);
      return buffer;
    }
    case SQLITE_TEXT:
      return "t" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, i)),
                               static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
    case SQLITE_BLOB:
      return "b" + std::string(static_cast<const char*>(sqlite3_column_blob(s, i)),
                               static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
    default:
      return "";
  }
}

// The distinct non-NULL tuples of `columns` in `table` of the database at `path`.
std::set<std::vector<std::string>> OracleSet(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
  std::set<std::vector<std::string>> set;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::vector<std::string> tuple;
    bool null = false;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      tuple.push_back(OracleValue(s, i));
      null = null || tuple.back().empty();
    }
    if (!null) set.insert(tuple);
  }
  sqlite3_finalize(s);
  return set;
}

std::set<std::vector<std::string>> OracleSet(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  auto set = OracleSet(db, sql);
  sqlite3_close(db);
  return set;
}

std::size_t IntersectionSize(const std::set<std::vector<std::string>>& a,
                             const std::set<std::vector<std::string>>& b) {
  std::size_t n = 0;
  for (const auto& t : a) n += b.count(t);
  return n;
}

std::string SqlText(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// Random shard: keys from small domains so the two inputs overlap now and then.
std::string RandomShardSql(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  static const char* kWords[] = {"a", "b", "ab", "B", "a b", "", "é", "5", "05", "x'y"};
  std::string sql =
      "CREATE TABLE t_int(id INTEGER PRIMARY KEY, v);"
      "CREATE TABLE t_comp(a INTEGER NOT NULL, b TEXT NOT NULL, c BLOB, PRIMARY KEY(a, b));"
      "CREATE TABLE t_text(name TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;"
      "CREATE TABLE t_uniq(x INTEGER, y TEXT, z BLOB, UNIQUE(x, y));"
      "CREATE UNIQUE INDEX t_uniq_z ON t_uniq(z);"
      "CREATE TABLE t_num(k NUMERIC UNIQUE, r REAL UNIQUE);"
      // An INTEGER column's own index: integers, read in runs, between a text, a real, NULL.
      "CREATE TABLE t_big(k BIGINT UNIQUE, n);";
  // Past a run's 4,096 values now and then.
  sql += "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
         std::to_string(pick(2) * (4000 + pick(500))) +
         ") INSERT INTO t_big SELECT 100000 + i * 3 + " + std::to_string(pick(3)) + ", 0 FROM n;";
  const int rows = 50 + pick(400);
  for (int i = 0; i < rows; ++i) {
    const int64_t big = static_cast<int64_t>(rng() >> 1);
    sql += "INSERT OR IGNORE INTO t_int VALUES(" +
           std::to_string(pick(3) == 0 ? big % 100000 : pick(2000) - 100) + ", 1);";
    sql += "INSERT OR IGNORE INTO t_comp VALUES(" + std::to_string(pick(30)) + ", " +
           SqlText(kWords[pick(10)]) + ", NULL);";
    sql += "INSERT OR IGNORE INTO t_text VALUES(" +
           SqlText(kWords[pick(10)] + std::to_string(pick(40))) + ", 0);";
    const std::string x = pick(5) == 0 ? "NULL" : std::to_string(pick(20));
    const std::string y = pick(5) == 0 ? "NULL" : SqlText(kWords[pick(10)]);
    const std::string z = pick(4) == 0 ? "NULL"
                                       : "X'" + std::string(pick(2) ? "00" : "ff") +
                                             std::to_string(10 + pick(50)) + "'";
    sql += "INSERT OR IGNORE INTO t_uniq VALUES(" + x + ", " + y + ", " + z + ");";
    static const char* kNumeric[] = {"5",      "'5'",  "5.0", "'5.0'", "5.5",   "'abc'",
                                     "'0x10'", "-0.0", "1e3", "'1e3'", "' 7 '", "7"};
    sql += "INSERT OR IGNORE INTO t_num VALUES(" + std::string(kNumeric[pick(12)]) + ", " +
           std::to_string(pick(60)) + (pick(2) ? ".5" : "") + ");";
    static const char* kBig[] = {"NULL", "'w'", "2.5", "'7'", "-3"};
    sql += "INSERT OR IGNORE INTO t_big VALUES(" +
           (pick(4) == 0 ? std::string(kBig[pick(5)]) + (pick(2) ? "" : " || 1")
                         : std::to_string(pick(3000) - 100)) +
           ", 1);";
  }
  return sql;
}

TEST(OracleTest, SqliteFilesAgreeWithStdSetIntersection) {
  std::mt19937_64 rng(steadyflake::testing::TestSeed());
  for (int round = 0; round < 8; ++round) {
    TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    testing::ExecSql(a, "BEGIN;" + RandomShardSql(rng) + "COMMIT;");
    testing::ExecSql(b, "BEGIN;" + RandomShardSql(rng) + "COMMIT;");
    Options options;
    options.now_ms = 1767225600000;
    options.limit = 0;
    const Report r = Check(a, b, options);
    ASSERT_EQ(r.keys.size(), 8u);
    uint64_t total = 0;
    for (const KeyReport& k : r.keys) {
      std::string cols;
      for (const auto& c : k.columns) cols += (cols.empty() ? "" : ", ") + c;
      const std::string sql = "SELECT " + cols + " FROM " + k.table;
      const auto sa = OracleSet(a, sql);
      const auto sb = OracleSet(b, sql);
      const std::size_t want = IntersectionSize(sa, sb);
      EXPECT_EQ(k.overlap, want) << k.table << "(" << cols << ") round " << round;
      EXPECT_EQ(k.conflicts.size(), want) << k.table << "(" << cols << ")";
      EXPECT_EQ(k.rows_a, sa.size()) << k.table << "(" << cols << ")";  // keys are unique
      total += k.overlap;
      // Every listed conflict is in the intersection, in ascending order of its first column
      // when that column holds integers.
      for (std::size_t i = 1; i < k.conflicts.size(); ++i) {
        if (k.conflicts[i][0].type == ReportValue::Type::kInteger &&
            k.conflicts[i - 1][0].type == ReportValue::Type::kInteger) {
          EXPECT_LE(std::stoll(k.conflicts[i - 1][0].text), std::stoll(k.conflicts[i][0].text));
        }
      }
    }
    EXPECT_EQ(r.verdict == Report::Verdict::kConflict, total > 0);
  }
}

// Cells as a dump would give them (before any affinity), fed straight to the checker.
class CellSource : public Source {
 public:
  CellSource(std::string type, std::vector<Cell> cells)
      : type_(std::move(type)), cells_(std::move(cells)) {}
  std::string format() const override { return "cells"; }
  std::string reader() const override { return "cells"; }
  uint64_t bytes_read() const override { return 0; }
  uint64_t rows_read() const override { return 0; }
  void Scan(SourceVisitor& visitor, const std::vector<std::string>&) override {
    Table t;
    t.name = "t";
    t.columns = {Column{"k", type_, AffinityOf(type_)}};
    t.keys = {Key{Key::Kind::kUnique, "", {0}}};
    visitor.OnTable(t);
    for (const Cell& c : cells_) visitor.OnRow(t, std::span<const Cell>(&c, 1), 0);
  }

 private:
  std::string type_;
  std::vector<Cell> cells_;
};

// The same cells stored by SQLite into a column of `type`, read back as SQLite holds them.
std::set<std::vector<std::string>> StoredBySqlite(const std::string& type,
                                                  const std::vector<Cell>& cells) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, ("CREATE TABLE t(k " + type + ")").c_str(), nullptr, nullptr, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1)", -1, &s, nullptr);
  for (const Cell& c : cells) {
    switch (c.type) {
      case Cell::Type::kInteger:
        sqlite3_bind_int64(s, 1, c.integer);
        break;
      case Cell::Type::kReal:
        sqlite3_bind_double(s, 1, c.real);
        break;
      case Cell::Type::kText:
        sqlite3_bind_text(s, 1, c.bytes.data(), static_cast<int>(c.bytes.size()), SQLITE_STATIC);
        break;
      case Cell::Type::kBlob:
        sqlite3_bind_blob(s, 1, c.bytes.data(), static_cast<int>(c.bytes.size()), SQLITE_STATIC);
        break;
      default:
        sqlite3_bind_null(s, 1);
        break;
    }
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  auto set = OracleSet(db, "SELECT k FROM t");
  sqlite3_close(db);
  return set;
}

TEST(OracleTest, AffinityConversionsAgreeWithSqlite) {
  std::mt19937_64 rng(steadyflake::testing::TestSeed());
  static const std::vector<std::string> kTexts = {"5",
                                                  " 5",
                                                  "5 ",
                                                  "+5",
                                                  "-0",
                                                  "5.0",
                                                  "5.5",
                                                  "1e3",
                                                  "1E3",
                                                  "0x10",
                                                  "abc",
                                                  "",
                                                  "007",
                                                  "1.",
                                                  ".5",
                                                  "5e",
                                                  "-",
                                                  "\t7\n",
                                                  "1e-2",
                                                  "12345678901234567890",
                                                  "9223372036854775807",
                                                  "9223372036854775808",
                                                  "-9223372036854775808",
                                                  "0.1",
                                                  "1000.0"};
  static const std::vector<double> kReals = {
      5.0, 5.5, -0.0, 0.1, 1e20, 1000.0, -2.5, 9223372036854775808.0, 1e-7};
  static const std::vector<std::string> kBlobs = {"", std::string("\0", 1), "5", "ab"};
  for (const std::string type : {"INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB"}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<Cell> sides[2];
      for (auto& cells : sides) {
        const int n = 1 + static_cast<int>(rng() % 12);
        for (int i = 0; i < n; ++i) {
          Cell c;
          switch (rng() % 4) {
            case 0:
              c.type = Cell::Type::kInteger;
              c.integer = static_cast<int64_t>(rng() % 11) - 2 + (rng() % 3 == 0 ? 1000 : 0);
              break;
            case 1:
              c.type = Cell::Type::kReal;
              c.real = kReals[rng() % kReals.size()];
              break;
            case 2:
              c.type = Cell::Type::kText;
              c.bytes = kTexts[rng() % kTexts.size()];
              break;
            default:
              // In a BLOB column the checker treats text and blob bytes alike (a dump gives
              // binary columns as text) where SQLite would not; keep blobs out of that case.
              if (type == "BLOB") {
                c.type = Cell::Type::kInteger;
                c.integer = 5;
              } else {
                c.type = Cell::Type::kBlob;
                c.bytes = kBlobs[rng() % kBlobs.size()];
              }
              break;
          }
          cells.push_back(c);
        }
      }
      CellSource a(type, sides[0]);
      CellSource b(type, sides[1]);
      Options options;
      options.limit = 0;
      const Report r = CheckSources("a", a, "b", b, options, 0);
      ASSERT_EQ(r.keys.size(), 1u);
      const auto sa = StoredBySqlite(type, sides[0]);
      const auto sb = StoredBySqlite(type, sides[1]);
      std::string shown;
      for (const auto& t : sa) shown += "[" + t[0] + "]";
      shown += " vs ";
      for (const auto& t : sb) shown += "[" + t[0] + "]";
      EXPECT_EQ(r.keys[0].overlap, IntersectionSize(sa, sb)) << type << ": " << shown;
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
