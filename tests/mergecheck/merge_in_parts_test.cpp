// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge of a one-column text key in parts (check/merge_in_parts.h) and the cursors it reads
// with (sqlite/index_cursor.h): a cursor gives an index in SQLite's own order from any key on,
// and the same position for a record however it came to it; damage on its path is named; and
// an index whose order is not the one assumed cannot make a part skip records unseen. The
// answers of whole checks in parts are held to SQLite's in ordered_merge_test.cpp and
// ordered_merge_threads_test.cpp (kBothWays).

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mergecheck_test_util.h"
#include "ordered_merge_test_util.h"
#include "page_order_test_util.h"
#include "source/source.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using ordered_merge_test::Check;
using ordered_merge_test::CheckRun;
using ordered_merge_test::Insert;
using ordered_merge_test::RandomName;
using page_order_test::ErrorOf;
using page_order_test::IdKeyVisitor;
using testing::TempDir;

// A key as the test compares it: SQLite's type order (NULL, numbers, text, blobs), then bytes.
struct Key {
  int rank = 0;
  std::string bytes;
  bool operator<(const Key& other) const {
    return rank != other.rank ? rank < other.rank : bytes < other.bytes;
  }
  bool operator==(const Key& other) const = default;
};
Key KeyOf(const KeyRef& key) {
  return Key{static_cast<int>(key.type),
             key.type == KeyRef::Type::kText || key.type == KeyRef::Type::kBlob
                 ? std::string(key.bytes())
                 : std::string()};
}

// t(id, name UNIQUE) of `rows` rows: random names (some longer than a cell of a 512-byte page
// holds), every 50th a blob, every 97th NULL. `late`: t(id, name) and an index on name made
// after the rows, not UNIQUE (a name may repeat): its leaves then lie in order in the file, and
// a cursor reads them in runs.
void MakeNames(const std::string& path, int page_size, int rows, uint64_t seed, bool late = false) {
  std::mt19937_64 rng(seed);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql = "PRAGMA page_size=" + std::to_string(page_size) +
                          "; CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT" +
                          (late ? "" : " UNIQUE") + ", note TEXT); BEGIN;";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  for (int r = 0; r < rows; ++r) Insert(db, r, RandomName(rng), r % 50 == 0, "x");
  ASSERT_EQ(sqlite3_exec(db, "UPDATE t SET name = NULL WHERE id % 97 = 0; COMMIT;", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  if (late) {
    ASSERT_EQ(sqlite3_exec(db, "CREATE INDEX t_name ON t(name)", nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  sqlite3_close(db);
}

// SQLite's own order of t's names.
std::vector<Key> SqliteOrder(const std::string& path) {
  std::vector<Key> keys;
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM t ORDER BY name", -1, &stmt, nullptr);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const int type = sqlite3_column_type(stmt, 0);
    const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt, 0));
    const std::string value(bytes == nullptr ? "" : bytes,
                            static_cast<std::size_t>(sqlite3_column_bytes(stmt, 0)));
    keys.push_back(type == SQLITE_NULL   ? Key{0, ""}
                   : type == SQLITE_TEXT ? Key{2, value}
                                         : Key{3, value});
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return keys;
}

// A whole walk from the start gives SQLite's order; a search for any key (each of SQLite's, and
// one after each) lands on the first not below it, at the position the whole walk gave that
// record (or at the end). Pages of 512 bytes (a deep index, names in overflow pages) and of
// 65536 (the root a leaf); the index made with its rows (leaves all over the file, each read
// alone) and after them (leaves in order, read in runs, an interior page's keys given between
// two of them).
TEST(IndexCursorTest, GivesTheIndexInOrderFromAnyKey) {
  const uint64_t seed = steadyflake::testing::TestSeed();
  for (const auto& [page_size, late] :
       std::vector<std::pair<int, bool>>{{512, false}, {65536, false}, {512, true}}) {
    SCOPED_TRACE(std::to_string(page_size) + (late ? ", the index made after the rows" : ""));
    TempDir dir;
    const std::string db = dir.File("a.db");
    MakeNames(db, page_size, 3000, seed + page_size, late);
    const std::vector<Key> expected = SqliteOrder(db);
    const std::unique_ptr<Source> source = OpenSource(db);
    IdKeyVisitor v;
    source->Scan(v, {});
    ASSERT_TRUE(source->WithKeyCursors("t", "name", "BINARY", [&](const KeyCursors& make) {
      const std::unique_ptr<KeyCursor> cursor = make();
      std::vector<Key> walked;
      std::vector<uint64_t> positions;
      cursor->Seek({});
      for (auto run = cursor->Next(); !run.empty(); run = cursor->Next()) {
        for (std::size_t i = 0; i < run.size(); ++i) {
          walked.push_back(KeyOf(run[i]));
          positions.push_back(cursor->Position(i));
        }
      }
      ASSERT_EQ(walked, expected);
      std::vector<Key> bounds;
      for (const Key& key : expected) {
        if (key.rank < 2) continue;
        bounds.push_back(key);
        bounds.push_back(Key{key.rank, key.bytes + '\0'});  // just after it
      }
      for (const Key& bound : bounds) {
        const auto at =
            std::lower_bound(expected.begin(), expected.end(), bound) - expected.begin();
        cursor->Seek([&](const KeyRef& key) { return KeyOf(key) < bound; });
        const std::span<const KeyRef> run = cursor->Next();
        if (static_cast<std::size_t>(at) == expected.size()) {
          EXPECT_TRUE(run.empty());
          continue;
        }
        ASSERT_FALSE(run.empty()) << bound.bytes;
        EXPECT_EQ(KeyOf(run[0]), expected[at]) << bound.bytes;
        EXPECT_EQ(cursor->Position(0), positions[at]) << bound.bytes;
      }
    }));
  }
}

// Damage on a cursor's path (no scan checked the index first): a leaf's cell pointer past its
// page, an interior page's right-most child past the end of the file. Each is an Error naming
// the file, the page and the index, never a read out of bounds.
TEST(IndexCursorTest, DamageOnItsPathIsNamed) {
  for (const bool leaf : {true, false}) {
    SCOPED_TRACE(leaf ? "a leaf's cell pointer" : "an interior page's child");
    TempDir dir;
    const std::string db = dir.File("a.db");
    MakeNames(db, 512, 3000, steadyflake::testing::TestSeed());
    const uint32_t page =
        testing::PagesOfType(db, leaf ? "leaf" : "internal", "sqlite_autoindex_t_1").back();
    std::string bytes = testing::ReadFile(db);
    const std::size_t at = std::size_t{page - 1} * 512;
    if (leaf) {
      bytes[at + 8] = '\xff';  // the first cell pointer: 0xff??, past a 512-byte page
    } else {
      testing::Put32(bytes, at + 8, 1u << 30);  // the right-most child
    }
    testing::WriteFile(db, bytes);
    const std::unique_ptr<Source> source = OpenSource(db);
    const std::string message = ErrorOf([&] {
      source->WithKeyCursors("t", "name", "BINARY", [&](const KeyCursors& make) {
        const std::unique_ptr<KeyCursor> cursor = make();
        cursor->Seek({});
        while (!cursor->Next().empty()) {
        }
      });
    });
    EXPECT_EQ(message.rfind(db + ": page ", 0), 0u) << message;
    EXPECT_NE(message.find(leaf ? "a cell lies outside the page" : "beyond the end of the file"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("index sqlite_autoindex_t_1 of table t"), std::string::npos) << message;
  }
}

// A: t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, note) holding `rows_a`. B: t with a UNIQUE
// index on name made under NOCASE, then labelled BINARY in its schema (its order left as it
// is), holding `rows_b`. The rows are VALUES lists.
void MakeRelabelled(const std::string& a, const std::string& b, const std::string& rows_a,
                    const std::string& rows_b) {
  testing::ExecSql(a,
                   "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, note TEXT);"
                   "INSERT INTO t VALUES " +
                       rows_a + ";");
  testing::ExecSql(b,
                   "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT);"
                   "CREATE UNIQUE INDEX t_name ON t(name COLLATE NOCASE);"
                   "INSERT INTO t VALUES " +
                       rows_b +
                       ";"
                       "PRAGMA writable_schema = ON;"
                       "UPDATE sqlite_schema SET sql = 'CREATE UNIQUE INDEX t_name ON t(name)'"
                       " WHERE name = 't_name';");
}

// The check of A against B with t's name merged in parts, its range split at `splits`.
CheckRun CheckSplitAt(const std::string& a, const std::string& b, std::span<const Cell> splits) {
  return Check(
      a, b,
      [&](const RecordsInOrder& on_record) {
        for (const Cell& split : splits) on_record(std::span<const Cell>(&split, 1));
        return splits.size();
      },
      /*in_parts=*/true);
}

// The report of the key on t's name in `run`'s report; null if none.
const KeyReport* NameKey(const CheckRun& run) {
  for (const KeyReport& key : run.report.keys) {
    if (key.columns[0] == "name") return &key;
  }
  return nullptr;
}

// B's index sorts under NOCASE though its schema says BINARY: a, B, c, d. Split at "C", the
// part below it stops at once on B's side ("a" is not below "C" in BINARY), and the part from
// it searches to "c": B's "a" and "B" lie in no part's walk, and each part's walk is in order.
// That the second part does not begin where the first stopped gives the merge up, and the key
// is compared as hashes: A's "B" is found in B.
TEST(MergeInPartsTest, ARecordNoPartReadsGivesUpTheMerge) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  MakeRelabelled(a, b, "(1, 'B', 'x'), (2, 'x', 'x')",
                 "(11, 'a', 'x'), (12, 'B', 'x'), (13, 'c', 'x'), (14, 'd', 'x')");
  const Cell split{Cell::Type::kText, 0, 0, "C"};
  const CheckRun run = CheckSplitAt(a, b, std::span<const Cell>(&split, 1));
  EXPECT_EQ(run.parts_a, 1);
  EXPECT_EQ(run.parts_b, 1);
  EXPECT_FALSE(run.merged);
  const KeyReport* key = NameKey(run);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->overlap, 1u);
  EXPECT_EQ(key->rows_b, 4u);
}

// A part's keys are compared by their bytes after the prefix its two bounds share, which every
// key of a sorted index between them has. B's index sorts under NOCASE though its schema says
// BINARY: hero_b1, hero_b3, hero_b5, HERO_c5, hero_d9. Split at "hero_a" and "hero_z", the middle
// part holds all five, each part begins where the one before stopped, and after "hero_" the
// keys are in order; but HERO_c5 lacks the prefix, so it is out of order there and the merge
// gives up. Read as in order, it would be compared with A's keys of the middle part only, and
// A's HERO_c5 (below "hero_a" in BINARY, in the first part) would not be found in B.
TEST(MergeInPartsTest, AKeyWithoutItsPartsPrefixGivesUpTheMerge) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  MakeRelabelled(a, b,
                 "(1, 'hero_a', 'x'), (2, 'hero_m', 'x'), (3, 'hero_z', 'x'), (4, 'HERO_c5', 'x')",
                 "(11, 'hero_b1', 'x'), (12, 'hero_b3', 'x'), (13, 'hero_b5', 'x'),"
                 " (14, 'HERO_c5', 'x'), (15, 'hero_d9', 'x')");
  const Cell splits[] = {{Cell::Type::kText, 0, 0, "hero_a"}, {Cell::Type::kText, 0, 0, "hero_z"}};
  const CheckRun run = CheckSplitAt(a, b, splits);
  EXPECT_EQ(run.parts_a, 1);
  EXPECT_FALSE(run.merged);
  const KeyReport* key = NameKey(run);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->overlap, 1u);
  EXPECT_EQ(key->rows_b, 5u);
}

}  // namespace
}  // namespace steadyflake::mergecheck
