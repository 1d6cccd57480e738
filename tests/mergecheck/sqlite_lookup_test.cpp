// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Source::LookUpValues of a SQLite file by its INTEGER PRIMARY KEY, which reads the rows' paths
// straight from the table b-tree (RowidReader::Seek, LookUpRowids) where the pages alone say
// what SQLite reads: each case holds the rows it gives to the rows SQLite itself gives (a whole
// scan, a SELECT), on small and large pages, with REAL columns holding integral values, NULLs,
// blobs and records that spill into overflow pages, and rows written before ALTER TABLE ADD
// COLUMN (whose DEFAULT only SQLite knows).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ReadFile;
using testing::RecordingVisitor;
using testing::TempDir;
using testing::WriteFile;

using Row = RecordingVisitor::Row;

// The rows as comparable text: position, then each cell's type and value.
std::vector<std::string> Flat(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& row : rows) {
    std::string text = std::to_string(row.position);
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      text += "|" + std::to_string(static_cast<int>(row.types[i])) + ":" + row.values[i];
    }
    out.push_back(std::move(text));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Records the rows of the columns `wanted` (all when empty).
class WantingVisitor : public RecordingVisitor {
 public:
  explicit WantingVisitor(std::vector<int> wanted) : wanted_(std::move(wanted)) {}
  std::vector<int> OnTable(const Table& table) override {
    std::vector<int> all = RecordingVisitor::OnTable(table);
    return wanted_.empty() ? all : wanted_;
  }

 private:
  std::vector<int> wanted_;
};

// The rows of `table` LookUpValues gives for the ids `ids`, by its column `id`: its columns
// `wanted` (all when empty).
std::vector<std::string> LookedUp(const std::string& db, const std::string& table,
                                  const std::vector<int64_t>& ids,
                                  const std::vector<int>& wanted = {}) {
  std::vector<std::vector<Cell>> tuples;
  for (const int64_t id : ids) {
    Cell cell;
    cell.type = Cell::Type::kInteger;
    cell.integer = id;
    tuples.push_back({cell});
  }
  WantingVisitor visitor(wanted);
  EXPECT_TRUE(OpenSource(db)->LookUpValues(visitor, table, {"id"}, {""}, tuples));
  return Flat(visitor.rows[table]);
}

// The rows of `table` SQLite gives (a whole-row scan is one SELECT) whose rowid is one of `ids`,
// once for each time it is named.
std::vector<std::string> SqlitesRows(const std::string& db, const std::string& table,
                                     const std::vector<int64_t>& ids,
                                     const std::vector<int>& wanted = {}) {
  WantingVisitor visitor(wanted);
  OpenSource(db)->Scan(visitor, {table});
  std::vector<Row> found;
  for (const Row& row : visitor.rows[table]) {
    const auto id = static_cast<int64_t>(row.position);
    for (const int64_t named : ids) {
      if (named == id) found.push_back(row);
    }
  }
  return Flat(found);
}

// A table of `rows` rows with ids spread over negative and positive values; REAL values
// integral (stored as integers) and not; text, blobs, NULLs, and every seventh row a text long
// enough to spill into overflow pages on any page size.
std::string Items(int page_size, int rows) {
  return "PRAGMA page_size=" + std::to_string(page_size) +
         ";"
         "CREATE TABLE item(id INTEGER PRIMARY KEY, price REAL, name TEXT, data BLOB, extra,"
         " note TEXT);"
         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
         std::to_string(rows) +
         ")"
         " INSERT INTO item SELECT i * 7919 - 5000000, CASE WHEN i % 2 THEN i ELSE i + 0.25 END,"
         " printf('item %d', i), CASE WHEN i % 3 THEN x'00ff10' END,"
         " CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN i WHEN 2 THEN 'text' ELSE 2.5 END,"
         " CASE WHEN i % 7 = 0 THEN printf('%.*c', 70000 + i, 'n') END FROM n;";
}

// Present and absent ids of Items(…, rows), some twice, in no order.
std::vector<int64_t> SomeIds(std::mt19937_64& random, int rows) {
  std::vector<int64_t> ids;
  std::uniform_int_distribution<int> row(1, rows);
  for (int k = 0; k < 300; ++k) ids.push_back(int64_t{row(random)} * 7919 - 5000000);
  ids.push_back(ids.front());                         // twice
  ids.push_back(-5000000);                            // i = 0: absent
  ids.push_back(int64_t{rows + 1} * 7919 - 5000000);  // past the last
  ids.push_back(1);                                   // between two rows
  ids.push_back(INT64_MIN);
  ids.push_back(INT64_MAX);
  std::shuffle(ids.begin(), ids.end(), random);
  return ids;
}

TEST(SqliteLookupTest, RowsLookedUpByRowidAreSqlitesRowsOnEveryPageSize) {
  const uint64_t seed = steadyflake::testing::TestSeed();
  std::mt19937_64 random(seed);
  for (const int page_size : {512, 4096, 65536}) {
    SCOPED_TRACE("page size " + std::to_string(page_size));
    TempDir dir;
    const std::string db = dir.File("a.db");
    testing::ExecSql(db, Items(page_size, 3000));
    const std::vector<int64_t> ids = SomeIds(random, 3000);
    const std::vector<std::string> expected = SqlitesRows(db, "item", ids);
    EXPECT_GE(expected.size(), 250u);
    EXPECT_EQ(LookedUp(db, "item", ids), expected);
  }
}

// A row written before ALTER TABLE ADD COLUMN holds no field for the new column, and SQLite
// reads the column's DEFAULT; the pages do not say it, so that row is looked up through SQLite.
TEST(SqliteLookupTest, ARowWrittenBeforeAnAddedColumnGetsItsDefault) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Items(1024, 500) +
                           "ALTER TABLE item ADD COLUMN level INTEGER DEFAULT 7;"
                           "ALTER TABLE item ADD COLUMN title TEXT DEFAULT 'none';"
                           "ALTER TABLE item ADD COLUMN rate REAL DEFAULT 3;"
                           "INSERT INTO item(id, price, level, title, rate)"
                           " VALUES (4000000, 1, 9, 'set', 4), (4000001, 2.5, NULL, NULL, NULL);");
  std::vector<int64_t> ids;
  for (int i = 1; i <= 500; i += 3) ids.push_back(int64_t{i} * 7919 - 5000000);
  ids.push_back(4000000);
  ids.push_back(4000001);
  const std::vector<std::string> expected = SqlitesRows(db, "item", ids);
  ASSERT_EQ(expected.size(), ids.size());
  EXPECT_NE(expected.front().find("|1:7|4:none|"), std::string::npos) << expected.front();
  EXPECT_EQ(LookedUp(db, "item", ids), expected);
}

// A table with a generated column is looked up through SQLite: its record holds no field for
// a VIRTUAL column, so record fields are not the table's columns (here field 2 is `name`,
// column 2 `price`), and with some columns wanted no field is missing to say so.
TEST(SqliteLookupTest, ATableWithAGeneratedColumnIsLookedUpThroughSqlite) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(
      db,
      "CREATE TABLE item(id INTEGER PRIMARY KEY, twice AS (price * 2), price REAL,"
      " name TEXT);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)"
      " INSERT INTO item(id, price, name) SELECT i, i + 0.5, printf('n%d', i) FROM n;");
  const std::vector<int64_t> ids = {3, 99, 400, 401, 17};
  for (const std::vector<int>& wanted : {std::vector<int>{}, std::vector<int>{0, 2}}) {
    const std::vector<std::string> expected = SqlitesRows(db, "item", ids, wanted);
    ASSERT_EQ(expected.size(), 4u);
    EXPECT_EQ(LookedUp(db, "item", ids, wanted), expected);
  }
}

// The lookup reads the pages itself: a leaf on a looked-up row's path that is not a table
// b-tree page is named, page and table, as the scan names damage.
TEST(SqliteLookupTest, ADamagedLeafOnALookedUpPathIsNamed) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Items(512, 2000));
  const std::vector<uint32_t> leaves = testing::PagesOfType(db, "leaf", "item");
  ASSERT_GT(leaves.size(), 10u);
  std::string bytes = ReadFile(db);
  const uint32_t leaf = leaves[leaves.size() / 2];
  bytes[static_cast<std::size_t>(leaf - 1) * 512] = 0x0a;  // an index leaf's type
  WriteFile(db, bytes);
  std::vector<int64_t> ids;
  for (int i = 1; i <= 2000; ++i) ids.push_back(int64_t{i} * 7919 - 5000000);
  std::string message = "(no error)";
  try {
    LookedUp(db, "item", ids);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(": page " + std::to_string(leaf) +
                         " is damaged (it is not a table b-tree page); it belongs to table item"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace steadyflake::mergecheck
