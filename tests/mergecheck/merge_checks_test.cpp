// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge's checks of its own output, each on a defect only it can see: CheckIntegrity's parts
// (an index that disagrees with its table: the linear index check, index_check_test.cpp has the
// rest; a freelist that lies about its size, a page nothing holds, a NULL where NOT NULL
// forbids it: quick_check of the whole file), and VerifyMerged's
// references (a row of A that dangles because the merge deleted what it referred to, with and
// without a FOREIGN KEY).

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "merge/check_output.h"
#include "merge/database.h"
#include "merge/merge_tables.h"
#include "mergecheck_test_util.h"

namespace steadyflake::mergecheck::merge {
namespace {

using testing::ExecSql;
using testing::QueryInt;
using testing::QueryText;
using testing::TempDir;

// `small` (an index on a) and `big` (an index on b), 5,000 rows, and 13 pages on the freelist.
std::string MakeFile(const TempDir& dir, const std::string& name) {
  const std::string path = dir.File(name);
  ExecSql(path,
          "CREATE TABLE big(a INTEGER, b BLOB); CREATE INDEX big_b ON big(b);"
          "CREATE TABLE small(a INTEGER, b TEXT); CREATE INDEX small_a ON small(a);"
          "CREATE TABLE gone(x);"
          "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000)"
          " INSERT INTO big SELECT i, randomblob(60) FROM c;"
          "INSERT INTO small VALUES (1, 'one'), (2, 'two'), (3, 'three');"
          "INSERT INTO gone SELECT randomblob(500) FROM big LIMIT 100; DELETE FROM gone;");
  return path;
}

const std::vector<CheckedTable> kTables = {{"big", 10000, 5000}, {"small", 6, 3}, {"gone", 1, 0}};

bool AnyStartsWith(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const std::string& line : lines) {
    if (line.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(CheckIntegrity, SaysNothingOfASoundFileAndRunsAlongsideOnce) {
  TempDir dir;
  const std::string path = MakeFile(dir, "ok.db");
  for (const unsigned workers : {1u, 2u, 4u}) {
    int alongside = 0;
    EXPECT_TRUE(CheckIntegrity(path, kTables, workers, [&] { ++alongside; }).empty());
    EXPECT_EQ(alongside, 1);
  }
}

// The index small_a made to claim column b: its entries no longer match its rows. The table is
// the lightest, checked last, by whichever worker is free.
TEST(CheckIntegrity, FindsAnIndexThatDisagreesWithItsTable) {
  TempDir dir;
  const std::string path = MakeFile(dir, "index.db");
  ExecSql(
      path,
      "PRAGMA writable_schema = ON;"
      "UPDATE sqlite_schema SET sql = 'CREATE INDEX small_a ON small(b)' WHERE name = 'small_a'");
  for (const unsigned workers : {1u, 2u}) {
    const std::vector<std::string> lines = CheckIntegrity(path, kTables, workers, nullptr);
    EXPECT_TRUE(AnyStartsWith(lines,
                              "index check of table 'small': index small_a holds as many "
                              "entries as the table has rows, but not the rows' own"))
        << workers << " worker(s): " << (lines.empty() ? "nothing found" : lines[0]);
  }
}

// The header's freelist count (bytes 36-39) one more than the freelist holds: no table's check
// sees it, only the whole file's.
TEST(CheckIntegrity, FindsAFreelistThatLiesAboutItsSize) {
  TempDir dir;
  const std::string path = MakeFile(dir, "freelist.db");
  const int64_t free_pages = QueryInt(path, "PRAGMA freelist_count");
  ASSERT_GT(free_pages, 0);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t lie = static_cast<uint32_t>(free_pages) + 1;
    const char bytes[4] = {static_cast<char>(lie >> 24), static_cast<char>(lie >> 16),
                           static_cast<char>(lie >> 8), static_cast<char>(lie)};
    file.seekp(36);
    file.write(bytes, 4);
  }
  EXPECT_NE(QueryText(path, "PRAGMA quick_check"), "ok");  // SQLite's verdict
  const std::vector<std::string> lines = CheckIntegrity(path, kTables, 2, nullptr);
  EXPECT_TRUE(AnyStartsWith(lines, "PRAGMA quick_check: Main freelist: size is"))
      << (lines.empty() ? "nothing found" : lines[0]);
}

// One page more at the end of the file, and in the header's page count: no b-tree holds it and
// the freelist does not either. Only the whole file's check sees it.
TEST(CheckIntegrity, FindsAPageNothingHolds) {
  TempDir dir;
  const std::string path = MakeFile(dir, "unused.db");
  const int64_t page_size = QueryInt(path, "PRAGMA page_size");
  const int64_t pages = QueryInt(path, "PRAGMA page_count");
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(pages * page_size);
    file << std::string(static_cast<std::size_t>(page_size), '\0');
    const auto count = static_cast<uint32_t>(pages + 1);
    const char bytes[4] = {static_cast<char>(count >> 24), static_cast<char>(count >> 16),
                           static_cast<char>(count >> 8), static_cast<char>(count)};
    file.seekp(28);
    file.write(bytes, 4);
  }
  EXPECT_EQ(QueryText(path, "PRAGMA quick_check"),
            "*** in database main ***\nPage " + std::to_string(pages + 1) + " is never used");
  const std::vector<std::string> lines = CheckIntegrity(path, kTables, 2, nullptr);
  EXPECT_TRUE(AnyStartsWith(
      lines, "PRAGMA quick_check: Page " + std::to_string(pages + 1) + " is never used"))
      << (lines.empty() ? "nothing found" : lines[0]);
}

// A NULL in a column declared NOT NULL after the row was written.
TEST(CheckIntegrity, FindsANullWhereTheSchemaForbidsOne) {
  TempDir dir;
  const std::string path = MakeFile(dir, "null.db");
  ExecSql(path,
          "INSERT INTO small VALUES (4, NULL); PRAGMA writable_schema = ON;"
          "UPDATE sqlite_schema SET sql = 'CREATE TABLE small(a INTEGER, b TEXT NOT NULL)'"
          " WHERE name = 'small'");
  const std::vector<std::string> lines = CheckIntegrity(path, kTables, 2, nullptr);
  EXPECT_TRUE(AnyStartsWith(lines, "PRAGMA quick_check: NULL value in small.b"))
      << (lines.empty() ? "nothing found" : lines[0]);
}

TEST(CheckIntegrity, RethrowsWhatAlongsideThrew) {
  TempDir dir;
  const std::string path = MakeFile(dir, "throw.db");
  EXPECT_THROW(CheckIntegrity(path, kTables, 2, [] { throw std::runtime_error("boom"); }),
               std::runtime_error);
}

// A holds player 1 and 2 and an item of each; B' one player (3) and its item. The plan makes
// the merge delete A's player 1 (B's row replaces it, as on_conflict keep_b would) although B'
// has no player 1: A's item 1 then refers to nothing. The merge must say so, whether or not
// item.owner is a declared FOREIGN KEY.
MergeReport MergeWithADanglingRow(const TempDir& dir, bool declared) {
  const std::string schema =
      std::string("CREATE TABLE player(id INTEGER PRIMARY KEY, uid TEXT NOT NULL);") +
      "CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER NOT NULL" +
      (declared ? " REFERENCES player(id)" : "") + ", uid TEXT NOT NULL);";
  const std::string a = dir.File("a.db");
  const std::string b2 = dir.File("b2.db");
  ExecSql(a, schema +
                 "INSERT INTO player VALUES (1, 'a1'), (2, 'a2');"
                 "INSERT INTO item VALUES (1, 1, 'ai1'), (2, 2, 'ai2');");
  ExecSql(b2,
          schema + "INSERT INTO player VALUES (3, 'b3'); INSERT INTO item VALUES (13, 3, 'bi3');");
  PlanFile plan;
  PlanFile::Remap remap;
  remap.key = {"player", "id"};
  remap.values = {{1, 3}};
  remap.references = {{"item", "owner"}};
  plan.remaps.push_back(remap);
  PlanFile::Rows replaced;
  replaced.table = "player";
  replaced.columns = {"id"};
  replaced.keys = {"1"};
  plan.replaces.push_back(replaced);
  Database input(a, Database::Mode::kReadOnly, "A");
  Database out(dir.File("out.db"), Database::Mode::kCreate, "the output");
  out.CopyFrom(input);
  Statement attach = out.Prepare("ATTACH ?1 AS b");
  sqlite3_bind_text(attach.get(), 1, b2.c_str(), -1, SQLITE_TRANSIENT);
  out.Step(attach, "attach B'");
  MergeReport report;
  Mismatches mismatches(report, 10);
  MergeTables(out, input, plan, report, mismatches, nullptr);
  return report;
}

TEST(VerifyMerged, FindsARowTheMergeLeftDanglingUnderAForeignKey) {
  TempDir dir;
  const MergeReport report = MergeWithADanglingRow(dir, true);
  EXPECT_TRUE(AnyStartsWith(report.mismatches, "item.owner: 1 row(s) refer to no player.id"));
  EXPECT_TRUE(AnyStartsWith(report.mismatches, "PRAGMA foreign_key_check: 1 violation(s)"));
}

TEST(VerifyMerged, FindsARowTheMergeLeftDanglingWithoutAForeignKey) {
  TempDir dir;
  const MergeReport report = MergeWithADanglingRow(dir, false);
  ASSERT_FALSE(report.mismatches.empty());
  EXPECT_EQ(report.mismatches[0],
            "item.owner: 1 row(s) refer to no player.id after the merge "
            "that did before");
}

}  // namespace
}  // namespace steadyflake::mergecheck::merge
