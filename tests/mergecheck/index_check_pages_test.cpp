// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The linear index check's passes read straight from the file's pages (index_check.h,
// DirectPlan): they must sum exactly what the same passes read through SQLite sum, on pages of
// 512 bytes and of 64 KiB, with keys on overflow pages, an INTEGER PRIMARY KEY in an index, and
// integral REALs that a REAL column stores as integers; they must leave to SQLite what the
// pages alone do not say (a DEFAULT that rows older than ALTER TABLE ADD COLUMN lack, generated
// columns, UTF-16); and a damaged page they read is a finding.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "merge/check_output.h"
#include "merge/database.h"
#include "merge/index_check.h"
#include "mergecheck_test_util.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck::merge {
namespace {

using testing::ExecSql;
using testing::QueryInt;
using testing::TempDir;

// Rows of every storage class in `a`; texts long enough for overflow pages in `b` now and then;
// integral and fractional REALs in `r`.
void Fill(const std::string& path, std::mt19937_64& rng, int rows) {
  std::string sql = "BEGIN;";
  for (int i = 0; i < rows; ++i) {
    std::string a;
    switch (rng() % 5) {
      case 0:
        a = std::to_string(static_cast<int64_t>(rng()));
        break;
      case 1:
        a = std::to_string(rng() % 100) + ".25";
        break;
      case 2:
        a = "'t" + std::to_string(rng() % 100) + "'";
        break;
      case 3:
        a = "randomblob(" + std::to_string(rng() % 20) + ")";
        break;
      default:
        a = "NULL";
    }
    const std::string b = "printf('%.*c', " + std::to_string(rng() % 8 == 0 ? 3000 : 5) +
                          ", 'x') || '" + std::to_string(rng()) + "'";
    const std::string r = std::to_string(rng() % 1000) + (rng() % 2 == 0 ? ".5" : ".0");
    sql += "INSERT INTO t(a, b, r) VALUES (" + a + ", " + b + ", " + r + ");";
  }
  ExecSql(path, sql + "COMMIT;");
}

struct Sums {
  std::vector<RowSum> table;
  std::vector<RowSum> indexes;
  std::vector<std::string> lines;
};

// Both passes of table `t`, from `pages` (null: through SQLite).
Sums Passes(const std::string& path, const PageFile* pages, const std::string& t) {
  Database db(path, Database::Mode::kReadOnly, "test");
  const std::optional<LinearTable> plan = PlanLinearCheck(db, t);
  EXPECT_TRUE(plan.has_value());
  Sums out;
  if (!plan) return out;
  out.table = SumTable(db, pages, *plan, out.lines, 20);
  for (std::size_t i = 0; i < plan->indexes.size(); ++i) {
    out.indexes.push_back(SumIndex(db, pages, *plan, i, out.lines, 20));
  }
  return out;
}

bool Direct(const std::string& path, const std::string& t) {
  Database db(path, Database::Mode::kReadOnly, "test");
  const std::optional<LinearTable> plan = PlanLinearCheck(db, t);
  return plan.has_value() && plan->direct.has_value();
}

class File {
 public:
  explicit File(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY)), pages_(fd_) {}
  ~File() { ::close(fd_); }
  const PageFile* pages() const { return &pages_; }

 private:
  int fd_;
  PageFile pages_;
};

TEST(IndexCheckPages, SumsWhatSqliteReads) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (const int page_size : {512, 65536}) {
    TempDir dir;
    const std::string path = dir.File("pages.db");
    ExecSql(path, "PRAGMA page_size = " + std::to_string(page_size) +
                      "; CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT, r REAL);"
                      "CREATE INDEX t_a ON t(a); CREATE INDEX t_b ON t(b COLLATE NOCASE, id);"
                      "CREATE INDEX t_r ON t(r DESC, a); CREATE UNIQUE INDEX t_id ON t(id, r);");
    Fill(path, rng, 1500);
    ExecSql(path, "DELETE FROM t WHERE id % 5 = 2");
    ASSERT_TRUE(Direct(path, "t")) << page_size;
    const File file(path);
    const Sums direct = Passes(path, file.pages(), "t");
    const Sums sql = Passes(path, nullptr, "t");
    EXPECT_TRUE(direct.lines.empty()) << direct.lines[0];
    ASSERT_EQ(direct.table.size(), 4u);
    EXPECT_EQ(direct.table, sql.table) << page_size;
    EXPECT_EQ(direct.indexes, sql.indexes) << page_size;
    EXPECT_EQ(direct.table, direct.indexes) << page_size;
    EXPECT_EQ(direct.table[0].rows,
              static_cast<uint64_t>(QueryInt(path, "SELECT count(*) FROM t")));
  }
}

// Each of these tables is read through SQLite, and checked clean where it is sound.
TEST(IndexCheckPages, LeavesToSqliteWhatThePagesDoNotSay) {
  TempDir dir;
  const std::string path = dir.File("sql.db");
  ExecSql(path,
          "CREATE TABLE later(a INTEGER); INSERT INTO later VALUES (1), (2);"
          "ALTER TABLE later ADD COLUMN c INTEGER DEFAULT 7; CREATE INDEX later_c ON later(c);"
          "INSERT INTO later(a) VALUES (3);"
          "CREATE TABLE gen(a INTEGER, g INTEGER AS (a * 2)); CREATE INDEX gen_a ON gen(a);"
          "INSERT INTO gen(a) VALUES (1), (2);"
          "CREATE TABLE plain(a INTEGER); CREATE INDEX plain_a ON plain(a);");
  EXPECT_FALSE(Direct(path, "later"));
  EXPECT_FALSE(Direct(path, "gen"));
  EXPECT_TRUE(Direct(path, "plain"));
  EXPECT_TRUE(
      CheckIntegrity(path, {{"later", 4, 3}, {"gen", 4, 2}, {"plain", 1, 0}}, 2, nullptr).empty());
  const std::string utf16 = dir.File("utf16.db");
  ExecSql(utf16,
          "PRAGMA encoding = 'UTF-16le'; CREATE TABLE w(a TEXT); CREATE INDEX w_a ON w(a);"
          "INSERT INTO w VALUES ('x'), ('y');");
  EXPECT_FALSE(Direct(utf16, "w"));
  EXPECT_TRUE(CheckIntegrity(utf16, {{"w", 4, 2}}, 2, nullptr).empty());
}

// A leaf page of the table made to claim it is an index page: the table's pass names it.
TEST(IndexCheckPages, NamesADamagedPage) {
  TempDir dir;
  const std::string path = dir.File("damaged.db");
  ExecSql(path,
          "PRAGMA page_size = 1024; CREATE TABLE t(a INTEGER, b TEXT); CREATE INDEX t_a ON t(a);"
          "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000)"
          " INSERT INTO t SELECT i, 'row ' || i FROM c;");
  ASSERT_TRUE(Direct(path, "t"));
  // The last page of the table's b-tree is a leaf (rowids ascend as the rows were inserted).
  const int64_t leaf = QueryInt(path, "SELECT max(pageno) FROM dbstat WHERE name = 't'");
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, static_cast<long>((leaf - 1) * 1024), SEEK_SET);
    std::fputc(0x0a, f);
    std::fclose(f);
  }
  const File file(path);
  const Sums direct = Passes(path, file.pages(), "t");
  ASSERT_FALSE(direct.lines.empty());
  EXPECT_EQ(direct.lines[0], "index check of table 't': page " + std::to_string(leaf) +
                                 ": it is not a table b-tree page");
}

}  // namespace
}  // namespace steadyflake::mergecheck::merge
