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
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "page_order_test_util.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

using page_order_test::BreakContentArea;
using page_order_test::ErrorOf;
using page_order_test::IdKeyVisitor;
using page_order_test::IdVisitor;
using testing::ReadFile;
using testing::RecordingVisitor;
using testing::TempDir;
using testing::WriteFile;

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
// index, so the check's end (Source::FinishStructureCheck) checks it.
TEST(SqliteIndexWalkTest, AnIndexTheMergeNeverReadsIsCheckedAtTheEnd) {
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

// The players of kPlayers on pages of `page_size` bytes, text in `encoding`.
std::string Players(int page_size, const std::string& encoding = "UTF-8") {
  std::string sql = kPlayers;
  return "PRAGMA encoding='" + encoding + "';" +
         sql.replace(0, sql.find(';') + 1, "PRAGMA page_size=" + std::to_string(page_size) + ";");
}

// Players with a name column of no TEXT affinity (BLOB: the names are text all the same), whose
// key the merge reads with a walk of its whole index, as it reads any key but one of one TEXT
// column (sqlite/pass_plan.h, ReadInParts): the scan leaves that index's check to the walk.
std::string WalkedPlayers(int page_size) {
  std::string sql = Players(page_size);
  return sql.replace(sql.find("name TEXT"), 9, "name BLOB");
}

// Reads player's names in index order, calling `each` for every record; the records seen.
uint64_t ReadNames(
    Source& source, const std::function<void()>& each = [] {}) {
  uint64_t records = 0;
  EXPECT_TRUE(source.ReadInIndexOrder("player", {"name"}, {"BINARY"},
                                      [&](std::span<const Cell>) {
                                        ++records;
                                        each();
                                      },
                                      {}));
  return records;
}

// A table the first scan reads (its rowids) whose key the visitor reads in index order
// afterwards, with a walk of the whole index: the scan leaves the name index's check to that
// walk, which finds the damage. On pages of 512 bytes (a deep index) and of 65536 (one leaf,
// the root).
TEST(SqliteIndexWalkTest, AnIndexOfAReadTableIsCheckedOnTheWalkInIndexOrder) {
  for (const int page_size : {512, 65536}) {
    SCOPED_TRACE(page_size);
    TempDir dir;
    const std::string db = dir.File("a.db");
    testing::ExecSql(db, WalkedPlayers(page_size));
    const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").back();
    BreakContentArea(db, leaf);
    const std::unique_ptr<Source> source = OpenSource(db);
    IdKeyVisitor v;
    source->Scan(v, {});  // no error: the thread beside the scan was not handed the index
    EXPECT_EQ(v.rows_seen, 2000u);
    const std::string message = ErrorOf([&] { ReadNames(*source); });
    EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0),
              0u)
        << message;
  }
}

// A text key of one column, read in parts by cursors (Source::WithKeyCursors), not by a walk:
// the scan checks its index beside its walk of the rowids, and finds the damage itself; a sound
// file's index is then read by cursors with nothing left to check. On pages of 512 bytes and of
// 65536.
TEST(SqliteIndexWalkTest, AnIndexOfAReadTableReadInPartsIsCheckedBesideTheScan) {
  for (const int page_size : {512, 65536}) {
    SCOPED_TRACE(page_size);
    TempDir dir;
    const std::string db = dir.File("a.db");
    testing::ExecSql(db, Players(page_size));
    {
      const std::unique_ptr<Source> sound = OpenSource(db);
      IdKeyVisitor v;
      sound->Scan(v, {});
      uint64_t records = 0;
      EXPECT_TRUE(sound->WithKeyCursors("player", "name", "BINARY", [&](const KeyCursors& make) {
        const std::unique_ptr<KeyCursor> cursor = make();
        cursor->Seek({});
        for (auto run = cursor->Next(); !run.empty(); run = cursor->Next()) records += run.size();
      }));
      EXPECT_EQ(records, 2000u);
      EXPECT_EQ(ErrorOf([&] { sound->FinishStructureCheck(); }), "(no error)");
    }
    const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").back();
    BreakContentArea(db, leaf);
    const std::string message = ErrorOf([&] {
      IdKeyVisitor v;
      OpenSource(db)->Scan(v, {});
    });
    EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0),
              0u)
        << message;
  }
}

// An index whose check the scan left to a walk of it gives no cursors: cursors read parts of it,
// and could not check it; its walk (ReadInIndexOrder) then does.
TEST(SqliteIndexWalkTest, AnIndexLeftToAWalkGivesNoCursors) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, WalkedPlayers(512));
  const std::unique_ptr<Source> source = OpenSource(db);
  IdKeyVisitor v;
  source->Scan(v, {});
  EXPECT_FALSE(source->WithKeyCursors("player", "name", "BINARY",
                                      [](const KeyCursors&) { ADD_FAILURE() << "cursors given"; }));
  EXPECT_EQ(ReadNames(*source), 2000u);
  EXPECT_EQ(ErrorOf([&] { source->FinishStructureCheck(); }), "(no error)");
}

// No walk in index order reads that index (the merge found no partner key): the end of the check
// does, once. On a sound file, the walk and the end check each tree once: no page is claimed
// twice.
TEST(SqliteIndexWalkTest, AnIndexLeftToAWalkNoneMadeIsCheckedWhenTheCheckEnds) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, WalkedPlayers(512));
  {
    const std::unique_ptr<Source> sound = OpenSource(db);
    IdKeyVisitor v;
    sound->Scan(v, {});
    EXPECT_EQ(ReadNames(*sound), 2000u);
    EXPECT_EQ(ErrorOf([&] { sound->FinishStructureCheck(); }), "(no error)");
  }
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").front();
  BreakContentArea(db, leaf);
  const std::unique_ptr<Source> source = OpenSource(db);
  IdKeyVisitor v;
  source->Scan(v, {});
  const std::string message = ErrorOf([&] { source->FinishStructureCheck(); });
  EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0), 0u)
      << message;
}

// A UTF-16 database's indexes are never read in index order (their text is not UTF-8): nothing is
// left to such a walk, and the scan itself finds the damage, beside it.
TEST(SqliteIndexWalkTest, AUtf16IndexIsCheckedBesideTheScan) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Players(512, "UTF-16le"));
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").back();
  BreakContentArea(db, leaf);
  const std::string message = ErrorOf([&] {
    IdKeyVisitor v;
    OpenSource(db)->Scan(v, {});
  });
  EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0), 0u)
      << message;
}

// The walk's caller stops at the first record (the merge abandons a stream): the walk still reads
// the rest of the index for the check, finds the damage in its last leaf, and says so rather than
// what the caller threw; on a sound file it gives back what the caller threw, and the check has
// nothing left (every page of the index claimed once).
TEST(SqliteIndexWalkTest, AWalkItsCallerStopsStillChecksTheWholeIndex) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, WalkedPlayers(512));
  const auto stop = [] { throw std::runtime_error("enough"); };
  {
    const std::unique_ptr<Source> sound = OpenSource(db);
    IdKeyVisitor v;
    sound->Scan(v, {});
    EXPECT_THROW(ReadNames(*sound, stop), std::runtime_error);
    EXPECT_EQ(ErrorOf([&] { sound->FinishStructureCheck(); }), "(no error)");
  }
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").back();
  BreakContentArea(db, leaf);
  const std::unique_ptr<Source> source = OpenSource(db);
  IdKeyVisitor v;
  source->Scan(v, {});
  const std::string message = ErrorOf([&] { ReadNames(*source, stop); });
  EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0), 0u)
      << message;
}

// A first scan that its visitor stops midway (its walk of the rowids, which carries the check,
// ends early) leaves the check unfinished: it is begun again, in full, by the next Scan or by
// FinishStructureCheck, which find the damage the stopped scan never reached (an index no walk
// reads, checked beside the scan), and on a sound file claim no page twice.
TEST(SqliteIndexWalkTest, AScanStoppedMidwayHasTheCheckBegunAgain) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Players(512) +
                           "ALTER TABLE player ADD COLUMN level INTEGER;"
                           "UPDATE player SET level = id % 50;"
                           "CREATE INDEX player_level ON player(level);");
  const auto stopped_then = [&](const std::function<void(Source&)>& then) {
    const std::unique_ptr<Source> source = OpenSource(db);
    IdKeyVisitor stopping(10);
    EXPECT_THROW(source->Scan(stopping, {}), std::runtime_error);
    return ErrorOf([&] { then(*source); });
  };
  const std::function<void(Source&)> scan = [](Source& source) {
    IdKeyVisitor v;
    source.Scan(v, {});
    ReadNames(source);
    source.FinishStructureCheck();
  };
  const std::function<void(Source&)> finish = [](Source& source) { source.FinishStructureCheck(); };
  EXPECT_EQ(stopped_then(scan), "(no error)");
  EXPECT_EQ(stopped_then(finish), "(no error)");
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "player_level").back();
  BreakContentArea(db, leaf);
  for (const auto& then : {scan, finish}) {
    const std::string message = stopped_then(then);
    EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "player_level", "player"), 0), 0u)
        << message;
  }
}

// Reads player's name as a key (NameKeyVisitor) and throws std::runtime_error at row `at`.
class StoppingNameVisitor : public NameKeyVisitor {
 public:
  explicit StoppingNameVisitor(uint64_t at) : at_(at) {}
  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    if (++rows_ == at_) throw std::runtime_error("the visitor stops");
    NameKeyVisitor::OnRow(table, cells, position);
  }

 private:
  uint64_t at_;
  uint64_t rows_ = 0;
};

// A later scan whose pass reads the index the first scan left to a later walk carries its check
// (no second read); its visitor stops it at the first record, before the damaged last leaf. The
// check is begun again, and finds the damage, rather than counting that index as checked.
TEST(SqliteIndexWalkTest, ALaterScanStoppedOnAWalkCarryingTheCheckHasItBegunAgain) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, WalkedPlayers(512));
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1").back();
  BreakContentArea(db, leaf);
  const std::unique_ptr<Source> source = OpenSource(db);
  IdKeyVisitor first;
  source->Scan(first, {});
  StoppingNameVisitor stopping(1);
  EXPECT_THROW(source->Scan(stopping, {}), std::runtime_error);
  const std::string message = ErrorOf([&] { source->FinishStructureCheck(); });
  EXPECT_EQ(message.rfind(ContentAreaError(db, leaf, "sqlite_autoindex_player_1", "player"), 0), 0u)
      << message;
}

// The whole check, on the issue-30 player table in both files: damage in A's name index, which
// only the merge in index order reads, is found on that walk; where B has no UNIQUE on name
// (drift) no walk reads A's index, and the check's end finds it.
TEST(SqliteIndexWalkTest, DamageInATextKeyIndexIsFoundWithOrWithoutItsMerge) {
  for (const bool drift : {false, true}) {
    SCOPED_TRACE(drift ? "B has no UNIQUE name" : "both have it");
    TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    testing::ExecSql(a, Players(512));
    std::string sql_b = Players(512);
    if (drift) sql_b.replace(sql_b.find(" UNIQUE"), 7, "");
    testing::ExecSql(b, sql_b);
    const uint32_t leaf = testing::PagesOfType(a, "leaf", "sqlite_autoindex_player_1").back();
    BreakContentArea(a, leaf);
    const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
    EXPECT_EQ(error.rfind(ContentAreaError(a, leaf, "sqlite_autoindex_player_1", "player"), 0), 0u)
        << error;
  }
}

// --table: the tables it leaves out are not read, and their indexes are checked beside the scan;
// the one it selects has its text index checked on the merge's walk. Sound files pass (no tree
// checked twice); damage in either index is found.
TEST(SqliteIndexWalkTest, TheTableFilterLeavesNoIndexUncheckedAndNoneCheckedTwice) {
  const std::string sql =
      Players(512) +
      "CREATE TABLE guild(name TEXT PRIMARY KEY, note TEXT);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)"
      " INSERT INTO guild SELECT printf('guild %04d', i), 'x' FROM n;";
  Options only_player;
  only_player.tables = {"player"};
  for (const std::string index : {"", "sqlite_autoindex_guild_1", "sqlite_autoindex_player_1"}) {
    SCOPED_TRACE(index.empty() ? "sound" : index);
    TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    testing::ExecSql(a, sql);
    testing::ExecSql(b, sql);
    uint32_t leaf = 0;
    if (!index.empty()) {
      leaf = testing::PagesOfType(b, "leaf", index).back();
      BreakContentArea(b, leaf);
    }
    const std::string error = ErrorOf([&] { Check(a, b, only_player); });
    if (index.empty()) {
      EXPECT_EQ(error, "(no error)");
    } else {
      const std::string table = index == "sqlite_autoindex_guild_1" ? "guild" : "player";
      EXPECT_EQ(error.rfind(ContentAreaError(b, leaf, index, table), 0), 0u) << error;
    }
  }
}

// A crafted schema gives a table the root page of an index (SQLite refuses two indexes on one
// root, not this). Each tree is checked once, by its root, so nothing would see the pages the two
// share twice: the schema itself is the damage, as SQLite's quick_check says ("2nd reference to
// page"). The scans leave the table alone (--table).
TEST(SqliteIndexWalkTest, ATableOnTheRootPageOfAnIndexIsNamed) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Players(512) +
                           "CREATE TABLE junk(x);"
                           "PRAGMA writable_schema=ON;"
                           "UPDATE sqlite_schema SET rootpage = (SELECT rootpage FROM sqlite_schema"
                           " WHERE name = 'sqlite_autoindex_player_1') WHERE name = 'junk';");
  const auto root = static_cast<uint32_t>(testing::QueryInt(
      db, "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_player_1'"));
  for (const bool by_key : {false, true}) {
    SCOPED_TRACE(by_key ? "the rowids, names left to a walk in index order" : "every column");
    const std::string message = ErrorOf([&] {
      IdKeyVisitor keys;
      RecordingVisitor rows;
      OpenSource(db)->Scan(by_key ? static_cast<SourceVisitor&>(keys) : rows, {"player"});
    });
    EXPECT_EQ(message.rfind(db + ": page " + std::to_string(root) +
                                " is damaged (it is used twice (the root of index "
                                "sqlite_autoindex_player_1 of table player too)); it belongs to "
                                "table junk; ",
                            0),
              0u)
        << message;
  }
}

// The bytes this process has read so far (read(2), pread(2)), or nullopt.
std::optional<uint64_t> BytesReadSoFar() {
  std::ifstream io("/proc/self/io");
  std::string field;
  uint64_t value = 0;
  while (io >> field >> value) {
    if (field == "rchar:") return value;
  }
  return std::nullopt;
}

// A later scan its visitor stops midway (references.cpp stops a table's scan once it knows
// enough) carried no part of the structure check, which is done: the next scan must not begin it
// again, reading the whole file to check what was checked. Here the next scan reads only item.
TEST(SqliteIndexWalkTest, ALaterScanItsVisitorStopsLeavesTheFinishedCheckAlone) {
  if (!BytesReadSoFar().has_value()) GTEST_SKIP() << "no /proc/self/io";
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(
      db, Players(4096) +
              "CREATE TABLE item(id INTEGER PRIMARY KEY);"
              "INSERT INTO item SELECT id FROM player WHERE id <= 100;"
              "CREATE TABLE mail(id INTEGER PRIMARY KEY, body TEXT);"
              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
              " INSERT INTO mail SELECT i, printf('%.100c', 'm') FROM n;");
  const uint64_t size = ReadFile(db).size();
  const std::unique_ptr<Source> source = OpenSource(db);
  IdKeyVisitor first;
  source->Scan(first, {});
  ReadNames(*source);
  source->FinishStructureCheck();
  const uint64_t before = *BytesReadSoFar();
  IdKeyVisitor stopping(1);
  EXPECT_THROW(source->Scan(stopping, {"player"}), std::runtime_error);
  IdKeyVisitor items;
  source->Scan(items, {"item"});
  EXPECT_EQ(items.rows_seen, 100u);
  source->FinishStructureCheck();
  EXPECT_LT(*BytesReadSoFar() - before, size / 2);
}

}  // namespace
}  // namespace steadyflake::mergecheck
