// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Index b-trees no walk reads, checked beside another walk of their table in the order of their
// pages in the file (BtreeChecker::StartInPageOrder, StructureCheck::AccompanyIndexes): beside
// a pass of the first scan, and beside the merge's later walk of a key's index. Each case
// damages a page where only the structure check looks, so that the damage is found only if the
// tree is checked somewhere, and named as its own wherever that is.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "page_order_test_util.h"
#include "source/source.h"
#include "sqlite/page_file.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck::page_order_test {
namespace {

using testing::TempDir;

// An index b-tree no walk reads, of a table a pass walks, is checked beside that walk in the
// order of its pages, from the walk's runs, and after the walk where they did not hold it
// (StructureCheck::AccompanyIndexes): a rowid table's index beside the walk of its rowids, and a
// WITHOUT ROWID table's own b-tree beside the pass over its index (the smaller b-tree that holds
// the key). Damage in the tree's root, its first, middle and last leaf (in key order; and the
// second and second last in the file) is named as the tree's,
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
      // And the second lowest and second highest leaf in the file, which the check takes from
      // the leaves' level as StartInPageOrder sorted it, not as the first of it.
      std::vector<uint32_t> by_page = leaves;
      std::sort(by_page.begin(), by_page.end());
      for (const uint32_t page : {interior.front(), leaves.front(), leaves[leaves.size() / 2],
                                  leaves.back(), by_page[1], by_page[by_page.size() - 2]}) {
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

// The cells of an index's leaves, checked in page order beside its table's walk, sixteen at a
// time where the processor can (index_leaf_cells.h): a cell that lies before the cell content
// area, or whose payload runs past the page by one byte or more, within the first block of
// sixteen, at the first block's end or the second's start and end, or among the page's last few
// cells (left cell by cell), is named as its leaf's damage; the same leaves sound give no error.
// Records of about 30 bytes: 130 a leaf of 4 KiB.
TEST(SqlitePageOrderTest, DamageInAnIndexLeafsCellIsNamed) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db,
                   "PRAGMA page_size=4096; CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT,"
                   " level INTEGER); CREATE INDEX player_level ON player(level, name);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                   "30000) INSERT INTO player SELECT i, printf('player number %d', i), "
                   "i * 7919 % 1000 FROM n;");
  const std::string sound = ReadFile(db);
  const std::vector<uint32_t> leaves = testing::PagesOfType(db, "leaf", "player_level");
  ASSERT_GE(leaves.size(), 8u);
  const auto scan = [&] {
    return ErrorOf([&] {
      IdVisitor v;
      OpenSource(db)->Scan(v, {});
    });
  };
  ASSERT_EQ(scan(), "(no error)");
  const uint32_t leaf = leaves[leaves.size() / 2];
  const std::size_t at = (leaf - 1) * std::size_t{4096};
  ASSERT_EQ(sound[at], '\x0a') << "not an index leaf";
  const uint32_t cells =
      page_file_internal::Get16(reinterpret_cast<const unsigned char*>(sound.data()) + at + 3);
  ASSERT_GE(cells, 40u);
  ASSERT_GE(cells % 16, 2u) << "the last cells are not left cell by cell";
  const uint32_t first_cell = 8 + 2 * cells;
  std::vector<uint32_t> starts;  // where the leaf's cells begin
  for (uint32_t i = 0; i < cells; ++i) {
    starts.push_back(page_file_internal::Get16(
        reinterpret_cast<const unsigned char*>(sound.data()) + at + 8 + 2 * i));
  }
  // Cell `cell`'s pointer set to `offset`, and the byte there to `size` (unless negative).
  const auto damage = [&](uint32_t cell, uint32_t offset, int size) {
    std::string bytes = sound;
    bytes[at + 8 + 2 * cell] = static_cast<char>(offset >> 8);
    bytes[at + 9 + 2 * cell] = static_cast<char>(offset);
    if (size >= 0) bytes[at + offset] = static_cast<char>(size);
    WriteFile(db, bytes);
    return scan();
  };
  const std::string prefix = db + ": page " + std::to_string(leaf) + " is damaged (";
  const std::string owner = "); it belongs to index player_level of table player; ";
  for (const uint32_t cell : {5u, 15u, 16u, 31u, cells - 2}) {
    SCOPED_TRACE("cell " + std::to_string(cell) + " of " + std::to_string(cells));
    std::string message = damage(cell, first_cell - 2, -1);
    EXPECT_EQ(message.rfind(prefix + "a cell lies outside the page" + owner, 0), 0u) << message;
    for (const uint32_t past : {1u, 30u}) {  // 127 bytes of payload, ending `past` beyond
      message = damage(cell, 4096 - 128 + past, 127);
      EXPECT_EQ(message.rfind(prefix + "a cell is cut off" + owner, 0), 0u) << message;
    }
    // A payload ending on the page's last byte is sound, where no other cell begins (that one
    // would run past the page then).
    uint32_t end_at = 4096 - 100;
    while (std::find(starts.begin(), starts.end(), end_at) != starts.end()) --end_at;
    message = damage(cell, end_at, static_cast<int>(4096 - end_at - 1));
    EXPECT_EQ(message, "(no error)");
  }
}

// An interior page among the leaves of an index checked in page order: the root's pointer to one
// child (an interior page) replaced by a pointer to the lowest leaf below that child, lower than
// every other child, so that the check's leaves' level (StartInPageOrder: its first page read is
// a leaf) holds the other children, interior pages, whose own children go on the heap beside
// that level. The file is sound to the structure check (it checks neither the balance of a tree
// nor pages no tree uses), and damage in the highest leaf the other children hold is named.
TEST(SqlitePageOrderTest, AnInteriorPageAmongTheLeavesHasItsChildrenChecked) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db,
                   "PRAGMA page_size=512; CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT,"
                   " level INTEGER); CREATE INDEX player_level ON player(level, name);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                   "30000) INSERT INTO player SELECT i, printf('player number %d', i), "
                   "i * 7919 % 1000 FROM n;");
  const std::vector<testing::DbstatPage> pages = testing::DbstatPages(db, "player_level");
  const auto leaves_below = [&](const std::string& prefix) {
    std::vector<uint32_t> found;
    for (const testing::DbstatPage& p : pages) {
      if (p.type == "leaf" && p.path.size() > prefix.size() &&
          p.path.compare(0, prefix.size(), prefix) == 0) {
        found.push_back(p.page);
      }
    }
    return found;
  };
  // The root's children, interior pages all, and one whose lowest leaf lies below every other.
  ASSERT_EQ(pages.front().path, "/");
  std::vector<testing::DbstatPage> children;
  for (const testing::DbstatPage& p : pages) {
    if (p.path.size() == 5) children.push_back(p);  // "/000/"
  }
  ASSERT_GE(children.size(), 3u);
  for (const auto& child : children) ASSERT_EQ(child.type, "internal") << "two levels only";
  uint32_t replaced = 0;
  uint32_t moved = 0;  // the leaf the root points to instead
  for (const testing::DbstatPage& child : children) {
    const std::vector<uint32_t> leaves = leaves_below(child.path);
    const uint32_t lowest = *std::min_element(leaves.begin(), leaves.end());
    bool lowest_of_all = true;
    for (const auto& other : children) {
      lowest_of_all &= other.page == child.page || lowest < other.page;
    }
    if (lowest_of_all) {
      replaced = child.page;
      moved = lowest;
      break;
    }
  }
  ASSERT_NE(replaced, 0u) << "no child's lowest leaf lies below the other children";
  std::string bytes = ReadFile(db);
  const uint32_t root = pages.front().page;
  const std::size_t header = (root - 1) * std::size_t{512} + (root == 1 ? 100 : 0);
  ASSERT_EQ(bytes[header], '\x02');
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  bool pointed = false;
  const uint32_t cells = page_file_internal::Get16(raw + header + 3);
  for (uint32_t i = 0; i <= cells; ++i) {
    const std::size_t at = i == cells ? header + 8
                                      : (root - 1) * std::size_t{512} +
                                            page_file_internal::Get16(raw + header + 12 + 2 * i);
    if (page_file_internal::Get32(raw + at) == replaced) {
      testing::Put32(bytes, at, moved);
      pointed = true;
    }
  }
  ASSERT_TRUE(pointed);
  WriteFile(db, bytes);
  const auto scan = [&] {
    return ErrorOf([&] {
      IdVisitor v;
      OpenSource(db)->Scan(v, {});
    });
  };
  ASSERT_EQ(scan(), "(no error)");
  // The highest leaf below the other children: reached only through the heap.
  uint32_t damaged = 0;
  for (const testing::DbstatPage& child : children) {
    if (child.page == replaced) continue;
    for (const uint32_t page : leaves_below(child.path)) damaged = std::max(damaged, page);
  }
  BreakContentArea(db, damaged);
  const std::string message = scan();
  EXPECT_EQ(message.rfind(db + ": page " + std::to_string(damaged) +
                              " is damaged (its cell content area lies outside the page); it "
                              "belongs to index player_level of table player; ",
                          0),
            0u)
      << message;
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
