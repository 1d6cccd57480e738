// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// CheckBtrees and the page reader under it: no damage reported in any sound file SQLite writes
// (page sizes, overflow chains, WITHOUT ROWID tables, a freelist, auto-vacuum), and each kind
// of damage named with its page; a file truncated under the reader is an error, not a signal.

#include "sqlite/btree_check.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mergecheck_test_util.h"
#include "sqlite/index_reader.h"
#include "sqlite/page_file.h"
#include "sqlite/rowid_reader.h"

namespace steadyflake::mergecheck {
namespace {

using testing::Get32;
using testing::PageSize;
using testing::Put32;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

// Every b-tree of the database at `path`, as SqliteSource lists them.
std::vector<Btree> TreesOf(const std::string& path) {
  std::vector<Btree> trees{{1, false, "the schema table sqlite_master"}};
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT m.type, m.name, m.rootpage, coalesce(t.wr, 0) FROM sqlite_master AS "
                     "m LEFT JOIN pragma_table_list AS t ON t.name = m.name AND t.schema = "
                     "'main' WHERE m.rootpage > 0 ORDER BY m.rowid",
                     -1, &stmt, nullptr);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    trees.push_back(
        Btree{static_cast<uint32_t>(sqlite3_column_int64(stmt, 2)),
              type == "index" || sqlite3_column_int(stmt, 3) != 0,
              type + " " + reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1))});
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return trees;
}

// CheckBtrees on the file at `path`.
std::optional<BtreeDamage> Check(const std::string& path, const std::vector<Btree>& trees) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  std::atomic<bool> stop{false};
  std::optional<BtreeDamage> damage;
  try {
    const PageFile file(fd);
    damage = CheckBtrees(file, trees, stop);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return damage;
}

std::string QuickCheck(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &stmt, nullptr);
  std::string result;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    result += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

// A database with every structure CheckBtrees walks: rows on overflow pages (text and blobs
// far larger than a page), composite and unique indexes whose keys overflow too, a WITHOUT
// ROWID table, and a freelist from deleted rows.
std::string MakeSoundDb(const TempDir& dir, int page_size, bool auto_vacuum) {
  const std::string path =
      dir.File("sound-" + std::to_string(page_size) + (auto_vacuum ? "-av" : "") + ".db");
  testing::ExecSql(
      path, "PRAGMA page_size=" + std::to_string(page_size) + ";" +
                (auto_vacuum ? "PRAGMA auto_vacuum=FULL;" : "") +
                "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT UNIQUE, bio TEXT);"
                "CREATE TABLE bag(owner INTEGER, slot INTEGER, blob BLOB, PRIMARY KEY(owner, "
                "slot)) WITHOUT ROWID;"
                "CREATE INDEX player_bio ON player(bio);"
                "BEGIN;"
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
                " INSERT INTO player SELECT i * 7919 - 1000000, printf('player %d', i),"
                " substr(printf('%.*c', i % 5000, 'x'), 1) FROM n;"
                "INSERT INTO bag SELECT id % 97, id, randomblob(abs(id) % 3000) FROM player;"
                "DELETE FROM player WHERE id % 5 = 0;"
                "COMMIT;");
  return path;
}

TEST(BtreeCheckTest, FindsNoDamageInSoundFiles) {
  for (const int page_size : {512, 1024, 4096, 65536}) {
    for (const bool auto_vacuum : {false, true}) {
      TempDir dir;
      const std::string path = MakeSoundDb(dir, page_size, auto_vacuum);
      ASSERT_EQ(QuickCheck(path), "ok");
      const auto damage = Check(path, TreesOf(path));
      EXPECT_FALSE(damage.has_value())
          << "page size " << page_size << (auto_vacuum ? ", auto-vacuum" : "") << ": page "
          << damage->page << " of " << damage->owner << ": " << damage->problem;
    }
  }
}

// Writes `bytes` over the file at `path`; CheckBtrees must then name `page`, `owner` and
// `problem`.
void ExpectDamage(const std::string& path, const std::string& bytes,
                  const std::vector<Btree>& trees, uint32_t page, const std::string& owner,
                  const std::string& problem) {
  WriteFile(path, bytes);
  const auto damage = Check(path, trees);
  ASSERT_TRUE(damage.has_value());
  EXPECT_EQ(damage->page, page);
  EXPECT_EQ(damage->owner, owner);
  EXPECT_EQ(damage->problem, problem);
}

TEST(BtreeCheckTest, NamesAFreelistWhoseCountIsWrong) {
  TempDir dir;
  const std::string path = MakeSoundDb(dir, 1024, false);
  std::string bytes = ReadFile(path);
  const uint32_t count = Get32(bytes, 36);
  ASSERT_GT(count, 0u);
  Put32(bytes, 36, count + 1);
  ExpectDamage(path, bytes, TreesOf(path), 1, "the freelist",
               "the header says the freelist holds " + std::to_string(count + 1) +
                   " pages but it holds " + std::to_string(count));
}

// A sound file whose table player has an interior root page, for damage to its right-most
// child pointer (bytes 8-11 of the root's header).
struct PlayerRoot {
  TempDir dir;
  std::string path = MakeSoundDb(dir, 1024, false);
  std::string bytes = ReadFile(path);
  std::size_t page = PageSize(bytes);
  std::vector<Btree> trees = TreesOf(path);
  uint32_t root = trees.at(1).root;

  void PointRightMostChildTo(uint32_t child) {
    ASSERT_EQ(trees.at(1).owner, "table player");
    ASSERT_EQ(bytes[(root - 1) * page], '\x05');
    Put32(bytes, (root - 1) * page + 8, child);
  }
};

TEST(BtreeCheckTest, NamesATreeThatPointsBeyondTheFile) {
  PlayerRoot db;
  db.PointRightMostChildTo(999999);
  ExpectDamage(db.path, db.bytes, db.trees, db.root, "table player",
               "it points to page 999999, beyond the end of the file (" +
                   std::to_string(db.bytes.size() / db.page) + " pages)");
}

TEST(BtreeCheckTest, NamesAPageUsedTwice) {
  PlayerRoot db;
  db.PointRightMostChildTo(db.root);  // a loop
  ExpectDamage(db.path, db.bytes, db.trees, db.root, "table player",
               "it is used twice (again by page " + std::to_string(db.root) + ")");
}

TEST(BtreeCheckTest, NamesAnOverflowChainCutShort) {
  TempDir dir;
  const std::string path = dir.File("long.db");
  testing::ExecSql(path,
                   "PRAGMA page_size=512; CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);"
                   "INSERT INTO note VALUES(1, printf('%.*c', 5000, 'y'));");
  const auto trees = TreesOf(path);
  // Cut the chain after one of its overflow pages (dbstat lists them): its next-page number,
  // its first 4 bytes, becomes 0.
  const std::vector<uint32_t> overflow = testing::PagesOfType(path, "overflow");
  ASSERT_GT(overflow.size(), 2u);
  std::string bytes = ReadFile(path);
  const std::size_t page = PageSize(bytes);
  uint32_t first = 0;
  for (const uint32_t p : overflow) {
    if (first == 0 && Get32(bytes, (p - 1) * page) != 0) first = p;
  }
  ASSERT_NE(first, 0u);
  Put32(bytes, (first - 1) * page, 0);
  ExpectDamage(path, bytes, trees, first, "table note",
               "it points to page 0, beyond the end of the file (" +
                   std::to_string(bytes.size() / page) + " pages)");
}

// The key scan's RowidReader shows the check every page it reads (BtreeChecker::Page), so a
// tree is read once for both. Such a walk must give the rowids a walk alone gives, and find
// what CheckBtrees finds on the pages the reader alone does not look into (an overflow chain).
std::vector<int64_t> RowidsOf(const PageFile& file, uint32_t root, BtreeChecker* check) {
  RowidReader reader(file);
  std::vector<int64_t> rowids;
  reader.Walk(
      root,
      [&](std::span<const int64_t> run) { rowids.insert(rowids.end(), run.begin(), run.end()); },
      check);
  return rowids;
}

// The rowids of tree `t` (a table) of the file at `path` as a walk alone reads them, having
// expected a walk shown the check to get the same; then every other tree and the freelist
// checked with that check, none of the walk's pages counted twice.
std::vector<int64_t> RowidsShownAndAlone(const std::string& path, std::size_t t) {
  const auto trees = TreesOf(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  const PageFile file(fd);
  BtreeChecker check(file);
  const std::vector<int64_t> alone = RowidsOf(file, trees.at(t).root, nullptr);
  EXPECT_EQ(RowidsOf(file, trees.at(t).root, &check), alone);
  for (std::size_t other = 0; other < trees.size(); ++other) {
    if (other != t) {
      EXPECT_NO_THROW(check.Tree(trees[other].root, trees[other].index)) << trees[other].owner;
    }
  }
  EXPECT_NO_THROW(check.Freelist());
  ::close(fd);
  return alone;
}

TEST(BtreeCheckTest, AWalkShowingItsPagesGivesTheSameRowids) {
  for (const int page_size : {512, 4096}) {
    TempDir dir;
    const std::string path = MakeSoundDb(dir, page_size, false);
    ASSERT_EQ(TreesOf(path).at(1).owner, "table player");
    EXPECT_EQ(RowidsShownAndAlone(path, 1).size(), 2400u);  // 3,000 players, every fifth deleted
  }
}

TEST(BtreeCheckTest, AWalkShowingItsPagesFindsAnOverflowChainCutShort) {
  TempDir dir;
  const std::string path = dir.File("long.db");
  testing::ExecSql(path,
                   "PRAGMA page_size=512; CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);"
                   "INSERT INTO note VALUES(1, printf('%.*c', 5000, 'y'));");
  const auto trees = TreesOf(path);
  std::string bytes = ReadFile(path);
  const std::size_t page = PageSize(bytes);
  uint32_t cut = 0;
  for (const uint32_t p : testing::PagesOfType(path, "overflow")) {
    if (cut == 0 && Get32(bytes, (p - 1) * page) != 0) cut = p;
  }
  ASSERT_NE(cut, 0u);
  Put32(bytes, (cut - 1) * page, 0);
  WriteFile(path, bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const PageFile file(fd);
  EXPECT_EQ(RowidsOf(file, trees.at(1).root, nullptr), std::vector<int64_t>{1});  // not its job
  BtreeChecker check(file);
  try {
    RowidsOf(file, trees.at(1).root, &check);
    ADD_FAILURE() << "no damage found";
  } catch (const DamagedPage& damage) {
    EXPECT_EQ(damage.page(), cut);
    EXPECT_EQ(std::string(damage.what()), "it points to page 0, beyond the end of the file (" +
                                              std::to_string(bytes.size() / page) + " pages)");
  }
  ::close(fd);
}

// Where cell `i` of the leaf page `leaf` lies in the file `bytes` of pages of `page` bytes.
std::size_t CellAt(const std::string& bytes, std::size_t page, uint32_t leaf, int i) {
  const std::size_t at = (leaf - 1) * page;
  return at + (static_cast<unsigned char>(bytes[at + 8 + 2 * i]) << 8 |
               static_cast<unsigned char>(bytes[at + 9 + 2 * i]));
}

// A table's rowids must ascend within a leaf and from one leaf to the next: the check finds
// either break, alone (CheckBtrees) and on a walk's pages, and a walk with no check too.
TEST(BtreeCheckTest, FindsRowidsOutOfOrder) {
  for (const bool across_leaves : {false, true}) {
    SCOPED_TRACE(across_leaves ? "a leaf's first rowid below the leaf before's" : "two swapped");
    TempDir dir;
    const std::string path = dir.File("order.db");
    testing::ExecSql(path,
                     "PRAGMA page_size=512; CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);"
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)"
                     " INSERT INTO note SELECT i, printf('%.*c', 80, 'z') FROM n;");
    const auto trees = TreesOf(path);
    ASSERT_EQ(trees.at(1).owner, "table note");
    std::string bytes = ReadFile(path);
    const std::size_t page = PageSize(bytes);
    // Each leaf by its first rowid (ids under 128: a rowid is the cell's second byte).
    const auto cell = [&](uint32_t leaf, int i) { return CellAt(bytes, page, leaf, i); };
    std::vector<std::pair<int, uint32_t>> leaves;
    for (const uint32_t p : testing::PagesOfType(path, "leaf", "note")) {
      leaves.emplace_back(static_cast<unsigned char>(bytes[cell(p, 0) + 1]), p);
    }
    std::sort(leaves.begin(), leaves.end());
    ASSERT_GE(leaves.size(), 3u);
    const uint32_t damaged = leaves[1].second;
    ASSERT_GE(static_cast<unsigned char>(bytes[(damaged - 1) * page + 4]), 2);  // 2+ cells
    if (across_leaves) {
      bytes[cell(damaged, 0) + 1] = 1;  // below every rowid of the first leaf but its first
    } else {
      std::swap(bytes[(damaged - 1) * page + 8], bytes[(damaged - 1) * page + 10]);
      std::swap(bytes[(damaged - 1) * page + 9], bytes[(damaged - 1) * page + 11]);
    }
    ExpectDamage(path, bytes, trees, damaged, "table note", "its rowids are out of order");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const PageFile file(fd);
    BtreeChecker check(file);
    for (BtreeChecker* const shown : {static_cast<BtreeChecker*>(nullptr), &check}) {
      try {
        RowidsOf(file, trees.at(1).root, shown);
        ADD_FAILURE() << "no damage found" << (shown != nullptr ? " by the check" : "");
      } catch (const DamagedPage& damage) {
        EXPECT_EQ(damage.page(), damaged);
        EXPECT_EQ(std::string(damage.what()), "its rowids are out of order");
      }
    }
    ::close(fd);
  }
}

// A table keyed by 64-bit IDs (nine bytes a rowid, as the engine's IDs are) has its leaves'
// cells checked eight at a time where the processor can (table_leaf_cells.h), any block of
// other cells one by one: a walk shown the check must get the rowids a walk alone reads, for
// rowids all of nine bytes, for nine-byte rowids after eight-byte ones, and for negative ones
// (nine bytes) before small positive ones; in rows of under 128 bytes (a payload size of one
// byte, the kind taken eight at a time), of 200 bytes (two: left to the cells one by one) and
// of 600 (two, or on 512-byte pages spilling to overflow pages). `filler`: the bytes of text in
// each row's `note`.
std::string MakeIdTable(const TempDir& dir, int page_size, const std::string& first, int rows,
                        int filler = 0) {
  const std::string path =
      dir.File("ids" + std::to_string(page_size) + first + "-" + std::to_string(filler) + ".db");
  testing::ExecSql(path, "PRAGMA page_size=" + std::to_string(page_size) +
                             "; CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER, note);"
                             "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
                             " WHERE i < " +
                             std::to_string(rows - 1) + ") INSERT INTO item SELECT " + first +
                             " + i * 1000003, i, printf('%.*c', " + std::to_string(filler) +
                             ", 'n') FROM n;");
  return path;
}

TEST(BtreeCheckTest, AWalkShowingItsPagesGivesTheSameNineByteRowids) {
  // The first id: all nine bytes; 2^56 - 2,500 steps (half eight, half nine); -2,500 steps.
  for (const std::string first : {"4611686018427387904", "72057591537570954", "-2500007500"}) {
    for (const int page_size : {512, 4096, 65536}) {
      for (const int filler : {0, 200, 600}) {
        SCOPED_TRACE(first + ", pages of " + std::to_string(page_size) + ", " +
                     std::to_string(filler) + " bytes of text a row");
        TempDir dir;
        const std::string path = MakeIdTable(dir, page_size, first, 3000, filler);
        ASSERT_EQ(TreesOf(path).at(1).owner, "table item");
        const std::vector<int64_t> alone = RowidsShownAndAlone(path, 1);
        ASSERT_EQ(alone.size(), 3000u);
        EXPECT_EQ(alone.front(), std::stoll(first));
      }
    }
  }
}

// Nine-byte rowids out of order: within a block of eight cells, across two blocks (the
// second's first below the first's last), and across two leaves (the second's first below the
// first's last, checked eight at a time). The check names the leaf.
TEST(BtreeCheckTest, FindsNineByteRowidsOutOfOrder) {
  for (const int where : {0, 1, 2}) {
    SCOPED_TRACE(where == 0   ? "cells 2 and 3 swapped"
                 : where == 1 ? "cells 7 and 8 swapped"
                              : "a leaf's first rowid below the leaf before's");
    TempDir dir;
    const std::string path = MakeIdTable(dir, 4096, "4611686018427387904", 2000);
    const auto trees = TreesOf(path);
    std::string bytes = ReadFile(path);
    const std::size_t page = PageSize(bytes);
    // Cell i of a leaf: a payload size, then the rowid.
    const auto cell = [&](uint32_t leaf, int i) { return CellAt(bytes, page, leaf, i); };
    std::vector<std::pair<std::string, uint32_t>> leaves;  // by the first rowid's bytes
    for (const uint32_t p : testing::PagesOfType(path, "leaf", "item")) {
      leaves.emplace_back(bytes.substr(cell(p, 0) + 1, 9), p);
    }
    std::sort(leaves.begin(), leaves.end());
    ASSERT_GE(leaves.size(), 3u);
    const uint32_t damaged = leaves[1].second;
    ASSERT_GE(static_cast<unsigned char>(bytes[(damaged - 1) * page + 4]), 16);  // 16+ cells
    if (where == 2) {
      bytes.replace(cell(damaged, 0) + 1, 9, leaves[0].first);  // the first leaf's first
    } else {
      const std::size_t pointer = (damaged - 1) * page + 8 + 2 * (where == 1 ? 7 : 2);
      std::swap(bytes[pointer], bytes[pointer + 2]);
      std::swap(bytes[pointer + 1], bytes[pointer + 3]);
    }
    ExpectDamage(path, bytes, trees, damaged, "table item", "its rowids are out of order");
  }
}

// The readers never map the file: a file truncated under them gives an error, where a map
// gave SIGBUS.
TEST(BtreeCheckTest, AFileTruncatedUnderTheReadersIsAnError) {
  TempDir dir;
  const std::string path = MakeSoundDb(dir, 4096, false);
  const auto trees = TreesOf(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const PageFile file(fd);  // measured before the cut
  ASSERT_EQ(::truncate(path.c_str(), 8192), 0);
  std::atomic<bool> stop{false};
  const auto damage = CheckBtrees(file, trees, stop);
  ASSERT_TRUE(damage.has_value());
  EXPECT_NE(damage->problem.find("truncated while it was read"), std::string::npos)
      << damage->problem;
  RowidReader rowids(file);
  EXPECT_THROW(rowids.Walk(trees.at(1).root, [](std::span<const int64_t>) {}), DamagedPage);
  ::close(fd);
}

// An index walk shown the check (IndexReader::Walk) decodes each leaf cell once for both: its
// records of small integers itself, folding in the check's bounds, the others after the
// check's IndexLeafCell. A cell pointer into the page's own cell pointers, whose bytes there
// read as a sound record ((0, 1), or 'A'), must be refused before its record is given.
struct GivenRecords {
  bool integers = true;
  std::vector<std::string> given;
  int64_t tuple[2] = {0, 0};
  int64_t* IntegerTuple() { return integers ? tuple : nullptr; }
  void TakeIntegerTuple() {
    given.push_back(std::to_string(tuple[0]) + "," + std::to_string(tuple[1]));
  }
  void operator()(std::span<const Cell> cells) {
    std::string text;
    for (const Cell& c : cells) {
      text += c.type == Cell::Type::kInteger ? std::to_string(c.integer) : std::string(c.bytes);
      text += ",";
    }
    given.push_back(text);
  }
};

TEST(BtreeCheckTest, AnIndexWalkShownTheCheckRefusesACellBeforeGivingIt) {
  struct Case {
    const char* name;
    const char* sql;
    const char* tree;
    bool integers;
    std::string record;  // its payload size first
    std::string bogus;   // as GivenRecords writes it
  };
  const Case cases[] = {
      {"integers",
       "CREATE TABLE inv(pid INTEGER, slot INTEGER, PRIMARY KEY(pid, slot)) WITHOUT "
       "ROWID; WITH RECURSIVE n(i) AS (SELECT 80 UNION ALL SELECT i + 1 FROM n WHERE i < 400) "
       "INSERT INTO inv SELECT i / 8, i % 8 FROM n;",
       "inv", true, std::string("\x03\x03\x08\x09", 4), "0,1"},
      {"text",
       "CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX p_name ON "
       "p(name); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
       "INSERT INTO p SELECT i, printf('name%04d', i) FROM n;",
       "p_name", false,
       std::string("\x03\x02\x0f"
                   "A",
                   4),
       "A,"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string path = dir.File("cells.db");
    testing::ExecSql(path, std::string("PRAGMA page_size=512;") + c.sql);
    std::string bytes = ReadFile(path);
    const std::size_t page = PageSize(bytes);
    const std::vector<uint32_t> leaves = testing::PagesOfType(path, "leaf", c.tree);
    ASSERT_FALSE(leaves.empty());
    const uint32_t leaf = leaves.front();
    const std::size_t at = (leaf - 1) * page;
    ASSERT_EQ(bytes[at], '\x0a');
    ASSERT_GE(static_cast<unsigned char>(bytes[at + 4]), 4);  // 4+ cells
    // Cell 0 at offset 12, where cells 2 and 3's pointers were: the record's four bytes, which
    // as those pointers lie past the page's 512 bytes.
    bytes[at + 8] = 0;
    bytes[at + 9] = 12;
    bytes.replace(at + 12, 4, c.record);
    WriteFile(path, bytes);
    uint32_t root = 0;
    for (const Btree& tree : TreesOf(path)) {
      if (tree.owner.ends_with(" " + std::string(c.tree))) root = tree.root;
    }
    ASSERT_NE(root, 0u);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const PageFile file(fd);
    BtreeChecker check(file);
    IndexReader reader(file);
    GivenRecords records;
    records.integers = c.integers;
    const int fields[] = {0, 1};
    try {
      reader.Walk(root, std::span(fields, c.integers ? 2 : 1), records, &check);
      ADD_FAILURE() << "no damage found";
    } catch (const DamagedPage& damage) {
      EXPECT_EQ(damage.page(), leaf);
      EXPECT_EQ(std::string(damage.what()), "a cell lies outside the page");
    }
    EXPECT_EQ(std::count(records.given.begin(), records.given.end(), c.bogus), 0)
        << "the cell was given before it was checked";
    ::close(fd);
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
