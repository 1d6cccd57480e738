// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Index b-trees no walk reads, checked beside another walk of their table in the order of their
// pages in the file (BtreeChecker::StartInPageOrder, StructureCheck::AccompanyIndexes): beside
// a pass of the first scan, and beside the merge's later walk of a key's index. Each case
// damages a page where only the structure check looks, so that the damage is found only if the
// tree is checked somewhere, and named as its own wherever that is.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "page_order_test_util.h"
#include "source/source.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck::page_order_test {
namespace {

using testing::TempDir;

// An index b-tree no walk reads, of a table a pass walks, is checked beside that walk in the
// order of its pages, from the walk's runs, and after the walk where they did not hold it
// (StructureCheck::AccompanyIndexes): a rowid table's index beside the walk of its rowids, and a
// WITHOUT ROWID table's own b-tree beside the pass over its index (the smaller b-tree that holds
// the key). Damage in the tree's root, its first, middle and last leaf is named as the tree's,
// and a child pointer past the end of the file as its root's. Pages of 512 bytes interleave the
// two trees through the file; with 64 KiB pages a run is four pages, so the later leaves lie
// beyond the walk's runs.
TEST(SqlitePageOrderTest, DamageInAnIndexCheckedBesideItsTablesWalkIsNamed) {
  struct Case {
    const char* tail;     // after CREATE TABLE
    const char* checked;  // the b-tree checked beside the walk, as dbstat names it
    const char* owner;    // as the message names it
  };
  for (const Case c : {Case{"", "player_level", "index player_level of table player"},
                       Case{" WITHOUT ROWID", "player", "table player"}}) {
    for (const int page_size : {512, 65536}) {
      SCOPED_TRACE(std::string(c.checked) + ", page size " + std::to_string(page_size));
      TempDir dir;
      const std::string db = dir.File("a.db");
      testing::ExecSql(db, "PRAGMA page_size=" + std::to_string(page_size) +
                               "; CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, level "
                               "INTEGER)" +
                               c.tail +
                               "; CREATE INDEX player_level ON player(level, name);"
                               "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                               "WHERE i < 30000) INSERT INTO player SELECT i, printf('player "
                               "number %d', i), i * 7919 % 1000 FROM n;");
      const std::string sound = ReadFile(db);
      const std::vector<uint32_t> interior = testing::PagesOfType(db, "internal", c.checked);
      const std::vector<uint32_t> leaves = testing::PagesOfType(db, "leaf", c.checked);
      ASSERT_FALSE(interior.empty());
      ASSERT_GE(leaves.size(), 8u);
      const auto scan = [&] {
        return ErrorOf([&] {
          IdVisitor v;
          OpenSource(db)->Scan(v, {});
        });
      };
      const auto named = [&](uint32_t page, const std::string& problem) {
        return db + ": page " + std::to_string(page) + " is damaged (" + problem +
               "); it belongs to " + c.owner + "; ";
      };
      for (const uint32_t page :
           {interior.front(), leaves.front(), leaves[leaves.size() / 2], leaves.back()}) {
        WriteFile(db, sound);
        BreakContentArea(db, page);
        const std::string message = scan();
        EXPECT_EQ(message.rfind(named(page, "its cell content area lies outside the page"), 0), 0u)
            << message;
      }
      // The root's right-most child (bytes 8-11 of its header) past the file's last page.
      std::string bytes = sound;
      const uint32_t root = interior.front();
      const std::size_t header = (root - 1) * static_cast<std::size_t>(page_size);
      ASSERT_EQ(bytes[header], '\x02') << "the first interior page is no index b-tree root";
      testing::Put32(bytes, header + 8, 0x7fffffff);
      WriteFile(db, bytes);
      const std::string message = scan();
      EXPECT_EQ(message.rfind(named(root,
                                    "it points to page 2147483647, beyond the end of the "
                                    "file (" +
                                        std::to_string(sound.size() / page_size) + " pages)"),
                              0),
                0u)
          << message;
    }
  }
}

// An index no walk reads, of a table the first scan skips (its only key merged in index order),
// is checked beside the merge's walk of the key's index in a later transaction, in page order,
// from that walk's runs (StructureCheck::LeaveIndexes, AccompanyIndexes), and when the other
// input lacks the table, so that no walk comes, once the merge is done (CheckLeft): damage in
// its first, middle and last leaf is named as the index's, in a rowid table (beside the table's
// own check) and in a WITHOUT ROWID one.
TEST(SqlitePageOrderTest, DamageInAnIndexOfASkippedTableIsNamed) {
  for (const char* const tail : {"", " WITHOUT ROWID"}) {
    for (const bool drift : {false, true}) {
      SCOPED_TRACE(std::string(drift ? "B without the table" : "both") + tail);
      TempDir dir;
      const std::string damaged = dir.File("damaged.db");
      const std::string other = dir.File("other.db");
      const auto sql = [&](int first) {
        return "PRAGMA page_size=512; CREATE TABLE inventory(owner INTEGER, slot INTEGER, item "
               "INTEGER, PRIMARY KEY(owner, slot))" +
               std::string(tail) +
               "; CREATE INDEX inventory_item ON inventory(item);"
               "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
               " INSERT INTO inventory SELECT " +
               std::to_string(first) + " + i / 8, i % 8, i * 7919 % 100003 FROM n;";
      };
      testing::ExecSql(damaged, sql(0));
      testing::ExecSql(other, drift ? "CREATE TABLE elsewhere(id INTEGER PRIMARY KEY);"
                                    : sql(1000000));  // no key in both: no lookup reads it
      const std::string sound = ReadFile(damaged);
      EXPECT_EQ(ErrorOf([&] { Check(other, damaged, Options{}); }), "(no error)");
      const std::vector<uint32_t> leaves = testing::PagesOfType(damaged, "leaf", "inventory_item");
      ASSERT_GE(leaves.size(), 8u);
      for (const uint32_t leaf : {leaves.front(), leaves[leaves.size() / 2], leaves.back()}) {
        WriteFile(damaged, sound);
        BreakContentArea(damaged, leaf);
        const std::string message = ErrorOf([&] { Check(other, damaged, Options{}); });
        EXPECT_EQ(message.rfind(damaged + ": page " + std::to_string(leaf) +
                                    " is damaged (its cell content area lies outside the page); "
                                    "it belongs to index inventory_item of table inventory; ",
                                0),
                  0u)
            << message;
      }
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::page_order_test
