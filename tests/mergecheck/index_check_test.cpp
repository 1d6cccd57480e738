// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The linear index check (merge/index_check.h), the part of CheckIntegrity that stands in for
// PRAGMA integrity_check(T): on sound files it finds nothing, and on every defect made here
// (an index holding other entries, one entry more or less, one entry changed, a UNIQUE index
// holding two equal keys under BINARY, NOCASE, RTRIM or across INTEGER and REAL) it finds
// something exactly when SQLite's own integrity_check(T) does. Tables it cannot read as SQLite
// indexes them keep SQLite's check.

#include "merge/index_check.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "merge/check_output.h"
#include "merge/database.h"
#include "mergecheck_test_util.h"

namespace steadyflake::mergecheck::merge {
namespace {

using testing::ExecSql;
using testing::QueryInt;
using testing::TempDir;

// SQLite's verdict on table `t`: the lines of PRAGMA integrity_check(t) that are not "ok".
int64_t SqliteFindings(const std::string& path, const std::string& t) {
  return QueryInt(path, "SELECT count(*) FROM pragma_integrity_check('" + t +
                            "') WHERE integrity_check <> 'ok'");
}

// CheckIntegrity's lines about table `t` from the linear index check; any other line (the
// whole file's quick_check, or integrity_check(t)) fails the test.
std::vector<std::string> Check(const std::string& path, const std::string& t) {
  std::vector<std::string> linear;
  for (std::string& line : CheckIntegrity(path, {{t, 10, 10}}, 2, nullptr)) {
    EXPECT_EQ(line.rfind("index check of table '" + t + "': ", 0), 0u) << line;
    linear.push_back(std::move(line));
  }
  return linear;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const std::string& line : lines) all += line + "\n";
  return all.empty() ? "(nothing)" : all;
}

bool Planned(const std::string& path, const std::string& t) {
  Database db(path, Database::Mode::kReadOnly, "test");
  return PlanLinearCheck(db, t).has_value();
}

TEST(IndexCheck, PlansOnlyWhatItReadsAsSqliteIndexesIt) {
  TempDir dir;
  const std::string path = dir.File("plans.db");
  ExecSql(path,
          "CREATE TABLE plain(a INTEGER, b TEXT COLLATE NOCASE, c);"
          "CREATE INDEX plain_ab ON plain(a DESC, b); CREATE UNIQUE INDEX plain_c ON "
          "plain(c COLLATE rtrim);"
          "CREATE TABLE bare(x);"
          "CREATE TABLE expr(a TEXT); CREATE INDEX expr_lower ON expr(lower(a));"
          "CREATE TABLE part(a INTEGER); CREATE INDEX part_a ON part(a) WHERE a > 0;"
          "CREATE TABLE norowid(a INTEGER PRIMARY KEY, b) WITHOUT ROWID;"
          "CREATE TABLE shadow(rowid, _rowid_, oid); CREATE INDEX shadow_oid ON shadow(oid);");
  EXPECT_TRUE(Planned(path, "plain"));
  EXPECT_TRUE(Planned(path, "bare"));
  EXPECT_FALSE(Planned(path, "expr"));
  EXPECT_FALSE(Planned(path, "part"));
  EXPECT_FALSE(Planned(path, "norowid"));
  EXPECT_FALSE(Planned(path, "shadow"));
  Database db(path, Database::Mode::kReadOnly, "test");
  const auto plain = PlanLinearCheck(db, "plain");
  ASSERT_TRUE(plain.has_value());
  ASSERT_EQ(plain->indexes.size(), 2u);
  for (const IndexSpec& spec : plain->indexes) {
    if (spec.name == "plain_ab") {
      EXPECT_FALSE(spec.unique);
      EXPECT_EQ(spec.collations, (std::vector<std::string>{"BINARY", "NOCASE"}));
    } else {
      EXPECT_TRUE(spec.unique);
      EXPECT_EQ(spec.collations, (std::vector<std::string>{"RTRIM"}));
    }
  }
}

// Rows of every storage class, repeated keys, case and trailing-space variants, integral REALs
// (in a column of no affinity, and in a REAL column, which stores them as integers); a row a
// UNIQUE index refuses is left out.
void FillRandom(const std::string& path, const std::string& t, std::mt19937_64& rng, int rows) {
  std::string sql = "BEGIN;";
  const char* texts[] = {"'ab'", "'AB'", "'ab '", "'b'", "'\xc3\xa9'", "''"};
  for (int i = 0; i < rows; ++i) {
    std::string a;
    switch (rng() % 5) {
      case 0:
        a = std::to_string(static_cast<int64_t>(rng() % 50) - 25);
        break;
      case 1:
        a = std::to_string(static_cast<int64_t>(rng() % 50)) + ".0";
        break;
      case 2:
        a = texts[rng() % 6];
        break;
      case 3:
        a = "x'0" + std::to_string(rng() % 10) + "'";
        break;
      default:
        a = "NULL";
    }
    sql += "INSERT OR IGNORE INTO " + t + " VALUES (" + a + ", " + texts[rng() % 6] + ", " +
           std::to_string(rng() % 1000) + (rng() % 2 == 0 ? ".5);" : ".0);");
  }
  ExecSql(path, sql + "COMMIT;");
}

const char* kSchema =
    "CREATE TABLE %s(a, b TEXT, r REAL);"
    "CREATE INDEX %s_a ON %s(a); CREATE INDEX %s_b ON %s(b COLLATE NOCASE, a DESC);"
    "CREATE INDEX %s_r ON %s(r COLLATE RTRIM, b COLLATE RTRIM);";

std::string Schema(const std::string& t) {
  char sql[512];
  std::snprintf(sql, sizeof sql, kSchema, t.c_str(), t.c_str(), t.c_str(), t.c_str(), t.c_str(),
                t.c_str(), t.c_str());
  return sql;
}

// Two tables alike but for one row (changed, missing or extra in `u`), then their indexes on
// `a` swapped: one entry of t's is not t's.
TEST(IndexCheck, FindsAnEntryChangedMissingOrExtraAsSqliteDoes) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (const char* defect : {"none", "changed", "missing", "extra"}) {
    TempDir dir;
    const std::string path = dir.File("entry.db");
    ExecSql(path, Schema("t") + Schema("u"));
    FillRandom(path, "t", rng, 300);
    ExecSql(path, "INSERT INTO u SELECT * FROM t ORDER BY rowid");
    const int64_t row = 1 + static_cast<int64_t>(rng() % 300);
    const std::string r = std::to_string(row);
    if (std::string(defect) == "changed") ExecSql(path, "UPDATE u SET a = 777 WHERE rowid = " + r);
    if (std::string(defect) == "missing") ExecSql(path, "DELETE FROM u WHERE rowid = " + r);
    if (std::string(defect) == "extra") ExecSql(path, "INSERT INTO u VALUES (5, 'x', 1.5)");
    // Swapped, so that every page still belongs to one b-tree (quick_check stays clean).
    const std::string root_t =
        std::to_string(QueryInt(path, "SELECT rootpage FROM sqlite_schema WHERE name = 't_a'"));
    const std::string root_u =
        std::to_string(QueryInt(path, "SELECT rootpage FROM sqlite_schema WHERE name = 'u_a'"));
    ExecSql(path,
            "PRAGMA writable_schema = ON;"
            "UPDATE sqlite_schema SET rootpage = " +
                root_u +
                " WHERE name = 't_a';"
                "UPDATE sqlite_schema SET rootpage = " +
                root_t + " WHERE name = 'u_a';");
    ASSERT_TRUE(Planned(path, "t"));
    const std::vector<std::string> lines = Check(path, "t");
    const bool sound = std::string(defect) == "none";
    EXPECT_EQ(SqliteFindings(path, "t") == 0, sound) << defect << " row " << row;
    EXPECT_EQ(lines.empty(), sound) << defect << " row " << row << ": " << Joined(lines);
    if (!sound && !lines.empty()) {
      EXPECT_NE(lines[0].find("index t_a"), std::string::npos) << lines[0];
    }
  }
}

// A UNIQUE index made of a plain one over values that are equal under its collation.
std::string MadeUnique(const TempDir& dir, const std::string& column, const std::string& values) {
  const std::string path = dir.File("unique.db");
  ExecSql(path, "CREATE TABLE u(a); CREATE INDEX u_a ON u(a" + column + ");" +
                    "INSERT INTO u VALUES " + values + ";" +
                    "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE "
                    "UNIQUE INDEX u_a ON u(a" +
                    column + ")' WHERE name = 'u_a';");
  return path;
}

TEST(IndexCheck, FindsEqualKeysInAUniqueIndexUnderItsCollationAsSqliteDoes) {
  struct Case {
    const char* collation;
    const char* values;
    int equal_pairs;
  };
  const Case cases[] = {
      {"", "('ab'), ('AB'), ('ab ')", 0},
      {"", "('ab'), ('ab'), (NULL), (NULL)", 1},
      {" COLLATE NOCASE", "('Ab'), ('aB'), ('\xc3\xa9'), ('\xc3\x89')", 1},
      {" COLLATE RTRIM", "('x'), ('x  '), (' x')", 1},
      {"", "(1), (1.0), (2), (2.5), ('1'), (x'31')", 1},
      {"", "(9007199254740993), (9007199254740992.0)", 0},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const std::string path = MadeUnique(dir, c.collation, c.values);
    ASSERT_TRUE(Planned(path, "u"));
    const std::vector<std::string> lines = Check(path, "u");
    EXPECT_EQ(SqliteFindings(path, "u"), c.equal_pairs) << c.values;
    EXPECT_EQ(static_cast<int>(lines.size()), c.equal_pairs) << c.values << ": " << Joined(lines);
    for (const std::string& line : lines) {
      EXPECT_NE(line.find("non-unique entry in UNIQUE index u_a"), std::string::npos) << line;
    }
  }
}

TEST(IndexCheck, SaysNothingOfSoundRandomTables) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::string path = dir.File("sound.db");
  ExecSql(path, Schema("t") + "CREATE UNIQUE INDEX t_unique ON t(r, a);");
  FillRandom(path, "t", rng, 2000);
  ExecSql(path, "DELETE FROM t WHERE rowid % 7 = 3");
  ASSERT_TRUE(Planned(path, "t"));
  EXPECT_EQ(SqliteFindings(path, "t"), 0);
  EXPECT_EQ(Joined(Check(path, "t")), "(nothing)");
}

// Rows written before ALTER TABLE ADD COLUMN hold fewer fields than the table has: the new
// column reads as NULL (it has no DEFAULT), as SQLite indexed it, and a sound file stays sound.
TEST(IndexCheck, SaysNothingOfRowsWrittenBeforeAColumnWasAdded) {
  TempDir dir;
  const std::string path = dir.File("added.db");
  ExecSql(path,
          "CREATE TABLE t(a INTEGER, b TEXT);"
          "INSERT INTO t VALUES (1, 'x'), (2, 'yy'), (3, NULL), (8, NULL), (9, NULL);"
          "ALTER TABLE t ADD COLUMN c TEXT;"
          "ALTER TABLE t ADD COLUMN d INTEGER;"
          "CREATE INDEX t_c ON t(c, d);"
          "CREATE UNIQUE INDEX t_ad ON t(a, d);"
          "INSERT INTO t VALUES (4, 'z', 'cc', 40), (5, NULL, NULL, 50), (6, 'w', 'c', NULL);");
  ASSERT_TRUE(Planned(path, "t"));
  EXPECT_EQ(SqliteFindings(path, "t"), 0);
  EXPECT_EQ(Joined(Check(path, "t")), "(nothing)");
}

// An expression index is left to SQLite: made to disagree, its PRAGMA line says so.
TEST(IndexCheck, LeavesWhatItCannotReadToIntegrityCheck) {
  TempDir dir;
  const std::string path = dir.File("expr.db");
  ExecSql(path,
          "CREATE TABLE e(a TEXT); CREATE INDEX e_x ON e(lower(a));"
          "INSERT INTO e VALUES ('One'), ('Two');"
          "PRAGMA writable_schema = ON;"
          "UPDATE sqlite_schema SET sql = 'CREATE INDEX e_x ON e(upper(a))' WHERE name = 'e_x';");
  const std::vector<std::string> lines = CheckIntegrity(path, {{"e", 10, 10}}, 2, nullptr);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("PRAGMA integrity_check('e'): ", 0), 0u) << lines[0];
}

}  // namespace
}  // namespace steadyflake::mergecheck::merge
