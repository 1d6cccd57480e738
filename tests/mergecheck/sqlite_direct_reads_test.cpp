// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The SQLite reader's direct passes against SQLite itself: rowids (RowidReader) and the records
// of indexes and WITHOUT ROWID tables (IndexReader), read straight from the b-tree pages, must
// give exactly what SQLite gives, on deep trees of small pages and payloads that spill.

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "sqlite_source_test_util.h"

namespace steadyflake::mergecheck::sqlite_source_test {
namespace {

using testing::TempDir;

// Tables keyed by their rowid alias alone are read straight from the b-tree pages
// (RowidReader): it must give exactly what SQLite gives, on deep trees of small pages.
TEST(SqliteSourceTest, DirectRowidReadsMatchSqlite) {
  for (const int page_size : {512, 4096, 65536}) {
    TempDir dir;
    const std::string db = dir.File("deep.db");
    testing::ExecSql(db, "PRAGMA page_size=" + std::to_string(page_size) +
                             ";"
                             "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);"
                             "BEGIN;"
                             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                             "WHERE i < 20000) INSERT INTO item SELECT (i * 7919 % 20011) * "
                             "461168601842738 - 4611686018427387904, zeroblob(i % 300) FROM n;"
                             "DELETE FROM item WHERE id % 3 = 0;"
                             "COMMIT;");
    IdOnlyVisitor direct;
    OpenSource(db)->Scan(direct, {});
    std::vector<std::string> want;
    {
      sqlite3* handle = nullptr;
      ASSERT_EQ(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
      sqlite3_stmt* stmt = nullptr;
      sqlite3_prepare_v2(handle, "SELECT id FROM item ORDER BY id", -1, &stmt, nullptr);
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        want.push_back(std::to_string(sqlite3_column_int64(stmt, 0)));
      }
      sqlite3_finalize(stmt);
      sqlite3_close(handle);
    }
    ASSERT_GT(want.size(), 10000u);
    std::vector<std::string> got;
    for (const auto& row : direct.rows.at("item")) {
      ASSERT_EQ(row.values.size(), 1u);
      EXPECT_EQ(std::to_string(static_cast<int64_t>(row.position)), row.values[0]);
      got.push_back(row.values[0]);
    }
    EXPECT_EQ(got, want) << "page size " << page_size;
  }
}

// What SQLite gives for the same key tuples, in the KeyRecordingVisitor's form.
std::vector<std::string> SqliteKeyTuples(const std::string& db, const Table& table,
                                         const Key& key) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < key.columns.size(); ++i) {
    sql += (i > 0 ? ", " : "") + table.columns[static_cast<std::size_t>(key.columns[i])].name;
  }
  sql += " FROM " + table.name;
  std::vector<std::string> tuples;
  sqlite3* handle = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(handle, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::string tuple;
    for (int i = 0; i < static_cast<int>(key.columns.size()); ++i) {
      switch (sqlite3_column_type(stmt, i)) {
        case SQLITE_INTEGER:
          tuple += "|" + std::to_string(static_cast<int>(Cell::Type::kInteger)) + ":" +
                   std::to_string(sqlite3_column_int64(stmt, i));
          break;
        case SQLITE_FLOAT:
          tuple += "|" + std::to_string(static_cast<int>(Cell::Type::kReal)) + ":" +
                   std::to_string(sqlite3_column_double(stmt, i));
          break;
        case SQLITE_NULL:
          tuple += "|" + std::to_string(static_cast<int>(Cell::Type::kNull)) + ":";
          break;
        default: {
          const bool text = sqlite3_column_type(stmt, i) == SQLITE_TEXT;
          const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, i));
          tuple += "|" +
                   std::to_string(static_cast<int>(text ? Cell::Type::kText : Cell::Type::kBlob)) +
                   ":" +
                   std::string(bytes != nullptr ? bytes : "",
                               static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
          break;
        }
      }
    }
    tuples.push_back(tuple);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(handle);
  std::sort(tuples.begin(), tuples.end());
  return tuples;
}

// Wants column b of `t` alone, a group of its own: the smallest b-tree that holds it is the
// index t_ab(a, b), read for its second field.
class SecondFieldVisitor : public SourceVisitor {
 public:
  std::vector<int> OnTable(const Table& table) override {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (table.columns[c].name == "b") b_ = static_cast<int>(c);
    }
    return {b_};
  }
  std::vector<std::vector<int>> Groups(const Table&) override { return {{b_}}; }
  void OnRow(const Table&, std::span<const Cell> cells, uint64_t) override {
    const Cell& cell = cells[0];
    values.push_back(cell.type == Cell::Type::kInteger ? std::to_string(cell.integer) : "-");
  }
  std::vector<std::string> values;

 private:
  int b_ = -1;
};

// A pass of one integer field that is not the index's first: its values, not the first field's
// (the walk decodes only a record's first fields straight into integers).
TEST(SqliteSourceTest, APassOfAnIndexsSecondFieldGivesThatField) {
  TempDir dir;
  const std::string db = dir.File("ab.db");
  testing::ExecSql(db,
                   "CREATE TABLE t(a INTEGER, b INTEGER, c TEXT, d TEXT, e TEXT);"
                   "CREATE INDEX t_ab ON t(a, b);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
                   " INSERT INTO t SELECT i % 50, CASE WHEN i % 97 = 0 THEN 'x' ELSE i * 3 END,"
                   " 'c', 'd', 'e' FROM n;");
  const auto source = OpenSource(db);
  SecondFieldVisitor v;
  source->Scan(v, {});
  EXPECT_EQ(source->reader(), "b-tree pages");
  std::vector<std::string> want;
  for (int i = 1; i <= 5000; ++i) want.push_back(i % 97 == 0 ? "-" : std::to_string(i * 3));
  std::sort(want.begin(), want.end());
  std::sort(v.values.begin(), v.values.end());
  EXPECT_EQ(v.values, want);
}

// Keys held by an index (a UNIQUE text column, a composite primary key, a non-rowid primary key,
// a WITHOUT ROWID table's own b-tree, an index on a column after a generated one) are read
// straight from the index b-tree pages (IndexReader): each key must get exactly the tuples SQLite
// gives, on deep trees of small pages, with payloads spilling into overflow pages (also those
// whose every field the one-pass decoder could read), NULLs, reals, blobs and mixed types.
TEST(SqliteSourceTest, DirectIndexReadsMatchSqlite) {
  for (const int page_size : {512, 4096, 65536}) {
    TempDir dir;
    const std::string db = dir.File("index.db");
    testing::ExecSql(
        db,
        "PRAGMA page_size=" + std::to_string(page_size) +
            ";"
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT UNIQUE, level INTEGER);"
            "CREATE TABLE inventory(owner INTEGER, slot INTEGER, item, PRIMARY KEY(owner, slot));"
            "CREATE TABLE bag(owner INTEGER, slot INTEGER, note TEXT,"
            " PRIMARY KEY(owner, slot)) WITHOUT ROWID;"
            "CREATE TABLE account(id BIGINT PRIMARY KEY, login TEXT, g INT GENERATED ALWAYS AS"
            " (id % 1000) VIRTUAL, token BLOB, score REAL);"
            "CREATE UNIQUE INDEX account_token ON account(token);"
            "CREATE UNIQUE INDEX account_score ON account(score);"
            // Two texts of under 58 bytes each: one-byte serial types, and payloads on both
            // sides of the most a 512-byte page keeps (102 bytes), the rest overflowing.
            "CREATE TABLE pair(a TEXT, b TEXT, UNIQUE(a, b));"
            // An INTEGER column's index, its integers (read in runs) between texts, reals and
            // NULLs in index order.
            "CREATE TABLE mixed(k INTEGER UNIQUE, n);"
            "BEGIN;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
            " INSERT INTO mixed SELECT CASE WHEN i % 53 = 0 THEN 'w' || i WHEN i % 59 = 0"
            " THEN i * 7 + 0.5 WHEN i % 61 = 0 THEN NULL ELSE i * 7 END, i FROM n;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
            " INSERT INTO pair SELECT substr(printf('%05d', i) || hex(zeroblob(30)), 1, 20 + i % "
            "38),"
            " substr(hex(zeroblob(30)), 1, 20 + i / 38 % 38) FROM n;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
            " INSERT INTO player SELECT i * 7919 % 60013 - 30000,"
            " CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN printf('%d', i)"
            " ELSE printf('player %d %s', i, substr(hex(zeroblob(i % 700)), 1, i % 1400)) END,"
            " i % 50 FROM n;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
            " INSERT INTO inventory SELECT CASE WHEN i % 101 = 0 THEN 'x' || i ELSE i / 40 END,"
            " CASE WHEN i % 103 = 0 THEN 1.5 + i ELSE i % 40 END, i FROM n;"
            "INSERT INTO bag SELECT owner, slot, item FROM inventory;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
            " INSERT INTO account(id, login, token, score) SELECT"
            " (i * 104729 % 6007) * 1537228672809129 - 4611686018427387904, 'login' || i,"
            " CASE WHEN i % 7 = 0 THEN NULL ELSE randomblob(8 + i % 900) END,"
            " CASE WHEN i % 5 = 0 THEN i ELSE i + 0.25 END FROM n;"
            "DELETE FROM player WHERE level = 7; DELETE FROM account WHERE id % 9 = 0;"
            "COMMIT;");
    const auto source = OpenSource(db);
    KeyRecordingVisitor v;
    source->Scan(v, {});
    EXPECT_EQ(source->reader(), "b-tree pages") << "page size " << page_size;
    for (const auto& [name, table] : v.tables) {
      ASSERT_FALSE(table.keys.empty()) << name;
      EXPECT_EQ(v.rows[name], SqliteKeyTuples(db, table, table.keys[0]).size()) << name;
      for (std::size_t k = 0; k < table.keys.size(); ++k) {
        std::vector<std::string> got = v.keys[name + "/" + std::to_string(k)];
        std::sort(got.begin(), got.end());
        const std::vector<std::string> want = SqliteKeyTuples(db, table, table.keys[k]);
        ASSERT_GT(want.size(), 1000u) << name;
        EXPECT_EQ(got, want) << name << " key " << k << ", page size " << page_size;
      }
    }
    // One pass per index: player's rowids and its name index, account's three indexes.
    EXPECT_EQ(v.passes["player"], 2);
    EXPECT_EQ(v.passes["account"], 3);
    // A pass over an index gives its rows in the index's order, numbered from 0, whether they
    // come one by one or in runs of integers (mixed's index, account's first).
    for (const std::string pass : {"mixed#1", "account#1", "account#2", "account#3", "player#2"}) {
      const std::vector<uint64_t>& got = v.positions[pass];
      ASSERT_GT(got.size(), 1000u) << pass;
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], i) << pass << ", page size " << page_size;
      }
    }
    EXPECT_EQ(KeyColumns(v.tables.at("account")), (Names{{"id"}, {"token"}, {"score"}}));
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::sqlite_source_test
