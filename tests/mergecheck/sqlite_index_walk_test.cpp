// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The structure check of an index b-tree rides along the walk that reads its records
// (IndexReader::Walk with a BtreeChecker): a pass of the first scan, or the merge in index order
// (Source::ReadInIndexOrder) in a later transaction. Each case damages an index where only the
// structure check looks (a page header's cell content area, which the record reader never
// reads, or a page two trees claim), so that the damage is found only if the walk that reads
// the index checks it, or the check is left to another walk that does.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ReadFile;
using testing::RecordingVisitor;
using testing::TempDir;
using testing::WriteFile;

std::string ErrorOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

// Sets the cell content area of page `page` of the file at `path` to start at byte 1, inside
// its header: the structure check refuses it ("its cell content area lies outside the page");
// the record reader reads cells through their pointers and never looks.
void BreakContentArea(const std::string& path, uint32_t page) {
  std::string bytes = ReadFile(path);
  const std::size_t at = (page - 1) * testing::PageSize(bytes) + 5;
  bytes[at] = 0;
  bytes[at + 1] = 1;
  WriteFile(path, bytes);
}

// The message Check() gives for that damage on `page` of index `index` of table `table`.
std::string ContentAreaError(const std::string& path, uint32_t page, const std::string& index,
                             const std::string& table) {
  return path + ": page " + std::to_string(page) +
         " is damaged (its cell content area lies outside the page); it belongs to index " + index +
         " of table " + table + "; ";
}

// Reads the name column of `table` alone, as a key (Groups): from its UNIQUE index, in a pass
// of the first scan.
class NameKeyVisitor : public RecordingVisitor {
 public:
  std::vector<int> OnTable(const Table& table) override {
    RecordingVisitor::OnTable(table);
    return {1};
  }
  std::vector<std::vector<int>> Groups(const Table&) override { return {{1}}; }
};

constexpr char kPlayers[] =
    "PRAGMA page_size=512;"
    "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
    " INSERT INTO player SELECT i, printf('player number %d', i) FROM n;";

// A pass of the first scan reads the index: its walk checks its pages, and the check thread
// leaves it alone. The damage is in the last leaf, the walk's last page.
TEST(SqliteIndexWalkTest, DamageFoundOnTheFirstScansWalkOfAnIndex) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, kPlayers);
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").back();
  BreakContentArea(db, leaf);
  const std::string message = ErrorOf([&] {
    NameKeyVisitor v;
    OpenSource(db)->Scan(v, {});
  });
  EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0), 0u)
      << message;
}

// Reads the id column alone: the rowids, from the table's b-tree.
class IdVisitor : public RecordingVisitor {
 public:
  std::vector<int> OnTable(const Table& table) override {
    RecordingVisitor::OnTable(table);
    return {0};
  }
};

// No walk reads the index on level (no key): the thread beside the scan checks it, handed it
// once the scan is past its table.
TEST(SqliteIndexWalkTest, DamageInAnIndexNoWalkReadsIsFoundBesideTheScan) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, std::string(kPlayers) +
                           "ALTER TABLE player ADD COLUMN level INTEGER;"
                           "UPDATE player SET level = id % 50;"
                           "CREATE INDEX player_level ON player(level);");
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "player_level").back();
  BreakContentArea(db, leaf);
  const std::string message = ErrorOf([&] {
    IdVisitor v;
    OpenSource(db)->Scan(v, {});
  });
  EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "player_level", "player"), 0), 0u) << message;
}

// Two tables the first scan skips (their only keys are text, merged in index order): each
// index is checked on the merge's walk of it, in a later transaction, sharing one record of the
// pages seen with the first scan. Here tag's right-most child is the last leaf of label's
// index: whichever walk comes second finds the page used twice.
TEST(SqliteIndexWalkTest, APageOfAnIndexReadInIndexOrderAndAnotherTreeIsNamed) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const char* const sql =
      "PRAGMA page_size=512;"
      "CREATE TABLE tag(name TEXT PRIMARY KEY, note TEXT);"
      "CREATE TABLE label(name TEXT PRIMARY KEY, note TEXT);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
      " INSERT INTO tag SELECT printf('a tag %04d', i), 'x' FROM n;"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
      " INSERT INTO label SELECT printf('z label %04d', i), 'x' FROM n;";
  testing::ExecSql(a, sql);
  testing::ExecSql(b, sql);
  std::string bytes = ReadFile(b);
  const std::size_t page = testing::PageSize(bytes);
  const uint32_t root = testing::PagesOfType(b, "internal", "sqlite_autoindex_tag_1").front();
  ASSERT_EQ(bytes[(root - 1) * page], '\x02') << "tag's index root is no interior page";
  // label's names sort after tag's: the walk of tag's index reads them in order.
  const uint32_t leaf = testing::PagesOfType(b, "leaf", "sqlite_autoindex_label_1").back();
  testing::Put32(bytes, (root - 1) * page + 8, leaf);
  WriteFile(b, bytes);
  const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
  EXPECT_NE(error.find(b + ": page " + std::to_string(leaf) + " is damaged (it is used twice"),
            std::string::npos)
      << error;
}

// The first scan skips tag (every key merged in index order) and leaves both its indexes'
// checks to the merge's walks. B has no UNIQUE on code (drift): the merge never reads A's code
// index, so the first later read of tag (the merge of its primary key) checks it.
TEST(SqliteIndexWalkTest, AnIndexTheMergeNeverReadsIsCheckedByTheNextReadOfItsTable) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const char* const rows =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)"
      " INSERT INTO tag SELECT printf('tag %04d', i), printf('code %04d', i) FROM n;";
  testing::ExecSql(a, std::string("PRAGMA page_size=512;"
                                  "CREATE TABLE tag(name TEXT PRIMARY KEY, code TEXT UNIQUE);") +
                          rows);
  testing::ExecSql(b, std::string("PRAGMA page_size=512;"
                                  "CREATE TABLE tag(name TEXT PRIMARY KEY, code TEXT);") +
                          rows);
  const uint32_t leaf = testing::PagesOfType(a, "leaf", "sqlite_autoindex_tag_2").back();
  BreakContentArea(a, leaf);
  const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
  EXPECT_EQ(error.rfind(ContentAreaError(a, leaf, "sqlite_autoindex_tag_2", "tag"), 0), 0u)
      << error;
}

// The merge abandons A's stream at a value it does not order (a REAL in an INTEGER column,
// early in the index) and sends the key back to the hashed path: the walk still checks the
// rest of the index, where the damage is (its last leaf).
TEST(SqliteIndexWalkTest, AnAbandonedWalkStillChecksTheRestOfItsIndex) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const char* const sql =
      "PRAGMA page_size=512;"
      "CREATE TABLE inventory(player_id INTEGER, slot INTEGER, item INTEGER,"
      " PRIMARY KEY(player_id, slot));"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
      " INSERT INTO inventory SELECT i, i % 7, i FROM n;";
  testing::ExecSql(a, std::string(sql) + "INSERT INTO inventory VALUES (1.5, 1, 0);");
  testing::ExecSql(b, sql);
  const uint32_t leaf = testing::PagesOfType(a, "leaf", "sqlite_autoindex_inventory_1").back();
  BreakContentArea(a, leaf);
  const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
  EXPECT_EQ(error.rfind(ContentAreaError(a, leaf, "sqlite_autoindex_inventory_1", "inventory"), 0),
            0u)
      << error;
}

}  // namespace
}  // namespace steadyflake::mergecheck
