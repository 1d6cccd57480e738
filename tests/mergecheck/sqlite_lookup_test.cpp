// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Source::LookUpValues of a SQLite file, which reads the rows' paths straight from the pages
// where they alone say what SQLite reads (sqlite/direct_lookup.h): by the INTEGER PRIMARY KEY
// down the table b-tree (RowidReader::Seek), by another UNIQUE key down its index to the rowid
// (IndexSeeker). Each case holds the rows it gives to the rows SQLite itself gives (a whole
// scan, a SELECT), on small and large pages, with REAL columns holding integral values, NULLs,
// blobs and records and keys that spill into overflow pages, text under BINARY, NOCASE and
// RTRIM, integers beside reals, and rows written before ALTER TABLE ADD COLUMN (whose DEFAULT
// only SQLite knows).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "sqlite/page_file.h"
#include "sqlite/rowid_reader.h"
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

// The rows of `table` SQLite gives (a whole-row scan is one SELECT, its positions the rowids,
// when no index holds every column) whose rowid is one of `ids`, once for each time it is
// named.
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

// A tuple of text and integer values; texts point into `texts`, which must outlive it.
struct Tuples {
  std::vector<std::vector<Cell>> cells;
  std::vector<std::unique_ptr<std::string>> texts;
  void Add(const std::vector<std::variant<int64_t, std::string>>& values) {
    std::vector<Cell>& tuple = cells.emplace_back();
    for (const auto& v : values) {
      Cell& cell = tuple.emplace_back();
      if (const auto* i = std::get_if<int64_t>(&v)) {
        cell.type = Cell::Type::kInteger;
        cell.integer = *i;
      } else {
        texts.push_back(std::make_unique<std::string>(std::get<std::string>(v)));
        cell.type = Cell::Type::kText;
        cell.bytes = *texts.back();
      }
    }
  }
};

// The rows of `table` LookUpValues gives for `tuples` of `columns` under `collations`.
std::vector<std::string> LookedUpBy(const std::string& db, const std::string& table,
                                    const std::vector<std::string>& columns,
                                    const std::vector<std::string>& collations,
                                    const Tuples& tuples) {
  RecordingVisitor visitor;
  EXPECT_TRUE(OpenSource(db)->LookUpValues(visitor, table, columns, collations, tuples.cells));
  return Flat(visitor.rows[table]);
}

// The rows of `table` SQLite gives for `SELECT rowid FROM table WHERE <where>` with each of
// `tuples` bound (?1, ?2, ...), once for each time a tuple finds them.
std::vector<std::string> SqlitesRowsWhere(const std::string& db, const std::string& table,
                                          const std::string& where, const Tuples& tuples) {
  sqlite3* handle = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "SELECT rowid FROM " + table + " WHERE " + where;
  EXPECT_EQ(sqlite3_prepare_v2(handle, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  std::vector<int64_t> rowids;
  for (const std::vector<Cell>& tuple : tuples.cells) {
    sqlite3_reset(stmt);
    for (std::size_t i = 0; i < tuple.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      if (tuple[i].type == Cell::Type::kInteger) {
        sqlite3_bind_int64(stmt, at, tuple[i].integer);
      } else {
        sqlite3_bind_text(stmt, at, tuple[i].bytes.data(), static_cast<int>(tuple[i].bytes.size()),
                          SQLITE_STATIC);
      }
    }
    while (sqlite3_step(stmt) == SQLITE_ROW) rowids.push_back(sqlite3_column_int64(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(handle);
  return SqlitesRows(db, table, rowids);
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

// The ids of Items(page_size, rows), ascending.
std::vector<int64_t> ItemIds(int rows) {
  std::vector<int64_t> ids;
  for (int i = 1; i <= rows; ++i) ids.push_back(int64_t{i} * 7919 - 5000000);
  return ids;
}

// The error a lookup of every id of Items(page_size, 2000) in `db` gives, "(no error)" if none.
std::string LookupError(const std::string& db) {
  try {
    LookedUp(db, "item", ItemIds(2000));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
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
  const std::string message = LookupError(db);
  EXPECT_NE(message.find(": page " + std::to_string(leaf) +
                         " is damaged (it is not a table b-tree page); it belongs to table item"),
            std::string::npos)
      << message;
}

// The page number of table `name`'s root.
uint32_t RootPage(const std::string& db, const std::string& name) {
  return static_cast<uint32_t>(
      testing::QueryInt(db, "SELECT rootpage FROM sqlite_schema WHERE name = '" + name + "'"));
}

// A lookup's descent reads a level of the tree at a time, its pages in batches: for every row
// of a table of small pages, each page of the tree once, in far fewer reads than pages.
TEST(SqliteLookupTest, ALookupReadsEachLevelsPagesInBatches) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Items(512, 2000));
  const std::size_t leaves = testing::PagesOfType(db, "leaf", "item").size();
  const std::size_t interior = testing::PagesOfType(db, "internal", "item").size();
  ASSERT_GT(interior, 1u);  // three levels at least
  const std::vector<int64_t> ids = ItemIds(2000);
  const int fd = ::open(db.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  PageFile file(fd);
  RowidReader reader(file, /*read_ahead=*/false);
  std::vector<int64_t> given;
  const uint64_t pages = reader.Seek(RootPage(db, "item"), ids,
                                     [&](uint32_t, int64_t rowid, uint64_t, const unsigned char*,
                                         const unsigned char*) { given.push_back(rowid); });
  ::close(fd);
  EXPECT_EQ(given, ids);
  EXPECT_EQ(pages, leaves + interior);
  EXPECT_LE(reader.reads(), (leaves + interior) / 8);
}

// SQLite's leaves all lie at one depth: a root whose child is a leaf where its other children
// are interior pages is damage, named, not a lookup that finds nothing under that child.
TEST(SqliteLookupTest, LeavesAtDifferentDepthsAreDamage) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Items(512, 2000));
  ASSERT_GT(testing::PagesOfType(db, "internal", "item").size(), 1u);
  const uint32_t root = RootPage(db, "item");
  const uint32_t leaf = testing::PagesOfType(db, "leaf", "item").at(0);
  std::string bytes = ReadFile(db);
  const std::size_t base = static_cast<std::size_t>(root - 1) * 512;
  const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(bytes[base + at]); };
  const std::size_t cell = std::size_t{byte(14)} << 8 | byte(15);  // the root's second cell
  for (int i = 0; i < 4; ++i) bytes[base + cell + i] = static_cast<char>(leaf >> (24 - 8 * i));
  WriteFile(db, bytes);
  const std::string message = LookupError(db);
  EXPECT_NE(message.find(" is damaged (its leaves lie at different depths); it belongs to table "
                         "item"),
            std::string::npos)
      << message;
}

// Names of players, long ones (past what an index page of 512 bytes keeps of a key) among
// short ones, some with trailing spaces; under the collation the UNIQUE index is declared with.
std::string Players(int page_size, const std::string& collation) {
  return "PRAGMA page_size=" + std::to_string(page_size) +
         ";"
         "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, level REAL,"
         " UNIQUE(name COLLATE " +
         collation +
         "));"
         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
         " INSERT INTO player SELECT i * 31 - 40000,"
         " CASE WHEN i % 5 = 0 THEN printf('Hero %d %.*c', i, 200 + i % 300, 'x')"
         " WHEN i % 5 = 1 THEN printf('hero %d  ', i) ELSE printf('Hero %d', i) END,"
         " i % 60 FROM n;";
}

// Names as written, in another case, with trailing spaces and without; present and absent.
Tuples SomeNames(std::mt19937_64& random) {
  Tuples names;
  std::uniform_int_distribution<int> row(0, 3100);
  for (int k = 0; k < 200; ++k) {
    const int i = row(random);
    std::string name = "Hero " + std::to_string(i);
    if (i % 5 == 0) name += " " + std::string(static_cast<std::size_t>(200 + i % 300), 'x');
    if (i % 5 == 1) name = "hero " + std::to_string(i) + "  ";
    switch (k % 4) {
      case 1:  // another case
        std::transform(name.begin(), name.end(), name.begin(),
                       [](char c) { return c == 'H' ? 'h' : (c == 'h' ? 'H' : c); });
        break;
      case 2:  // spaces added, or taken off
        name = name.ends_with(' ') ? name.substr(0, name.find_last_not_of(' ') + 1) : name + "   ";
        break;
      case 3:
        name += "!";  // absent
        break;
    }
    names.Add({name});
  }
  names.Add({std::string("Hero 7")});  // twice
  names.Add({std::string("Hero 7")});
  return names;
}

// By a UNIQUE text key under each of SQLite's collations, from its index: the rows SQLite's
// `name = ? COLLATE X` finds, on small and large pages, with keys spilling off index pages.
TEST(SqliteLookupTest, RowsLookedUpByAUniqueTextKeyAreSqlitesRows) {
  const uint64_t seed = steadyflake::testing::TestSeed();
  std::mt19937_64 random(seed);
  for (const std::string collation : {"BINARY", "NOCASE", "RTRIM"}) {
    for (const int page_size : {512, 4096, 65536}) {
      SCOPED_TRACE(collation + ", page size " + std::to_string(page_size));
      TempDir dir;
      const std::string db = dir.File("a.db");
      testing::ExecSql(db, Players(page_size, collation));
      const Tuples names = SomeNames(random);
      const std::vector<std::string> expected =
          SqlitesRowsWhere(db, "player", "name = ?1 COLLATE " + collation, names);
      EXPECT_GE(expected.size(), 25u);
      EXPECT_EQ(LookedUpBy(db, "player", {"name"}, {collation}, names), expected);
    }
  }
}

// By a UNIQUE integer key that is not the rowid (an index), and by a two-column key given in
// another order than its index's: numbers by value (integers beside reals, beyond 2^53, at the
// ends of int64), a text in an INTEGER column, as SQLite finds them.
TEST(SqliteLookupTest, RowsLookedUpByOtherUniqueKeysAreSqlitesRows) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(
      db,
      "PRAGMA page_size=512;"
      "CREATE TABLE account(id BIGINT PRIMARY KEY, note TEXT);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
      " INSERT INTO account SELECT i * 1000003, printf('a%d', i) FROM n;"
      "INSERT INTO account VALUES (2.5, 'real'), (9007199254740993, 'past 2^53'),"
      " (9007199254740992.0, 'real 2^53'), (-9223372036854775808, 'min'),"
      " (9223372036854775807, 'max'), ('abc', 'text');"
      "CREATE TABLE slot(player INTEGER, name TEXT, item INTEGER,"
      " UNIQUE(player, name COLLATE NOCASE));"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
      " INSERT INTO slot SELECT i % 100, printf('Slot %d', i / 100), i FROM n;"
      "CREATE TABLE pair(x TEXT, y TEXT, v INTEGER, UNIQUE(x, y));"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)"
      " INSERT INTO pair SELECT printf('x%d', i % 40), printf('y%d', i / 40), i FROM n;");
  Tuples ids;
  for (const int64_t id : {int64_t{1000003}, int64_t{2}, int64_t{3}, int64_t{9007199254740993},
                           int64_t{9007199254740992}, int64_t{9007199254740994}, INT64_MIN,
                           INT64_MAX, int64_t{0}, int64_t{1999 * 1000003}}) {
    ids.Add({id});
  }
  ids.Add({std::string("abc")});
  EXPECT_EQ(LookedUpBy(db, "account", {"id"}, {""}, ids),
            SqlitesRowsWhere(db, "account", "id = ?1", ids));
  Tuples slots;
  for (int i = 0; i < 150; ++i) {
    std::string name = (i % 2 ? "slot " : "SLOT ") + std::to_string(i % 23);
    slots.Add({name, int64_t{i % 120}});
  }
  const std::vector<std::string> expected =
      SqlitesRowsWhere(db, "slot", "name = ?1 COLLATE NOCASE AND player = ?2", slots);
  EXPECT_GE(expected.size(), 50u);
  EXPECT_EQ(LookedUpBy(db, "slot", {"name", "player"}, {"NOCASE", ""}, slots), expected);
  Tuples pairs;  // (y, x): the index's columns the other way round
  for (int i = 0; i < 80; ++i) {
    pairs.Add({"y" + std::to_string(i % 17), "x" + std::to_string(i % 45)});
  }
  const std::vector<std::string> in_pairs =
      SqlitesRowsWhere(db, "pair", "y = ?1 AND x = ?2", pairs);
  EXPECT_GE(in_pairs.size(), 30u);
  EXPECT_EQ(LookedUpBy(db, "pair", {"y", "x"}, {"", ""}, pairs), in_pairs);
}

// Through an index that is not UNIQUE a value may have several rows: SQLite looks them up, each
// of them found.
TEST(SqliteLookupTest, ByAnIndexThatIsNotUniqueEveryRowIsFound) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db,
                   "CREATE TABLE mail(id INTEGER PRIMARY KEY, owner INTEGER, body TEXT);"
                   "CREATE INDEX mail_owner ON mail(owner);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 900)"
                   " INSERT INTO mail SELECT i, i % 30, printf('m%d', i) FROM n;");
  Tuples owners;
  for (const int64_t owner : {3, 17, 29, 31}) owners.Add({owner});
  const std::vector<std::string> expected = SqlitesRowsWhere(db, "mail", "owner = ?1", owners);
  ASSERT_EQ(expected.size(), 90u);
  EXPECT_EQ(LookedUpBy(db, "mail", {"owner"}, {""}, owners), expected);
}

// A damaged leaf of the index a lookup descends is named, page and index.
TEST(SqliteLookupTest, ADamagedLeafOfTheIndexIsNamed) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, Players(512, "NOCASE"));
  const std::vector<uint32_t> leaves =
      testing::PagesOfType(db, "leaf", "sqlite_autoindex_player_1");
  ASSERT_GT(leaves.size(), 10u);
  std::string bytes = ReadFile(db);
  for (const uint32_t leaf : leaves) bytes[static_cast<std::size_t>(leaf - 1) * 512] = 0x0d;
  WriteFile(db, bytes);
  Tuples names;
  names.Add({std::string("Hero 2")});
  std::string message = "(no error)";
  try {
    LookedUpBy(db, "player", {"name"}, {"NOCASE"}, names);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(" is damaged (it is not an index b-tree page); it belongs to index "
                         "sqlite_autoindex_player_1 of table player"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace steadyflake::mergecheck
