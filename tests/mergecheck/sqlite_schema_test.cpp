// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SchemaReader keeps what it read for the schema version it read it at: a second transaction
// gives what a fresh reader gives, before and after the schema changes under it (a column
// added, an index and a table created, VACUUM moving the root pages), and a transaction whose
// schema was kept still holds SQLite's read lock from its ReadSchema on.

#include "sqlite/sqlite_schema.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "sqlite/sqlite_file.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::TempDir;

// What `reader` gives in one read transaction of `file`, as text: each table's root, columns,
// keys (column numbers, collations) and b-trees (root, record fields), and every b-tree of the
// file.
std::string ReadAll(SqliteFile& file, SchemaReader& reader) {
  std::ostringstream out;
  file.Exec("BEGIN");
  std::vector<Btree> trees;
  for (const TableRef& ref : reader.ReadSchema(trees)) {
    out << ref.name << " @" << ref.root << (ref.without_rowid ? " without rowid" : "") << ":";
    std::vector<Structure> structures;
    const Table table = reader.ReadTable(ref, structures);
    for (const Column& c : table.columns) out << ' ' << c.name << '/' << c.declared_type;
    for (const Key& k : table.keys) {
      out << " key(";
      for (std::size_t i = 0; i < k.columns.size(); ++i) {
        out << k.columns[i] << (i < k.collations.size() ? k.collations[i] : "") << ',';
      }
      out << ')';
    }
    for (const Structure& s : structures) {
      out << " tree @" << s.root << (s.rowids ? " rowids" : "") << " [";
      for (const int f : s.fields) out << f << ',';
      out << ']';
    }
    out << '\n';
  }
  for (const Btree& tree : trees) out << "b-tree @" << tree.root << ' ' << tree.owner << '\n';
  file.Exec("ROLLBACK");
  return out.str();
}

// The line of ReadAll's text that describes table `name`.
std::string LineOf(const std::string& all, const std::string& name) {
  const std::size_t at = all.find(name + " @");
  return at == std::string::npos ? "" : all.substr(at, all.find('\n', at) - at);
}

// ReadAll by a reader of a connection of its own, made now.
std::string ReadFresh(const std::string& path) {
  SqliteFile file(path);
  SchemaReader reader(file);
  return ReadAll(file, reader);
}

class SqliteSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/shard.db";
    ExecSql(path_,
            "CREATE TABLE gone(x INTEGER PRIMARY KEY, pad TEXT);"
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);"
            "CREATE TABLE bag(player_id INTEGER, slot INTEGER, item INTEGER,"
            " PRIMARY KEY(player_id, slot)) WITHOUT ROWID;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
            " INSERT INTO gone SELECT i, hex(randomblob(40)) FROM n;"
            "INSERT INTO player VALUES (1, 'ann'), (2, 'bob');"
            "INSERT INTO bag VALUES (1, 0, 7), (2, 0, 8);");
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(SqliteSchemaTest, ASecondTransactionGivesWhatAFreshReaderGives) {
  SqliteFile file(path_);
  SchemaReader reader(file);
  const std::string first = ReadAll(file, reader);
  EXPECT_NE(first.find("player @"), std::string::npos) << first;
  EXPECT_EQ(ReadAll(file, reader), first);
  EXPECT_EQ(ReadFresh(path_), first);
}

TEST_F(SqliteSchemaTest, AChangedSchemaIsReadAgain) {
  SqliteFile file(path_);
  SchemaReader reader(file);
  const std::string before = ReadAll(file, reader);
  ExecSql(path_,
          "ALTER TABLE player ADD COLUMN level INTEGER;"
          "CREATE UNIQUE INDEX player_name ON player(name COLLATE NOCASE);"
          "CREATE TABLE mail(id INTEGER PRIMARY KEY, owner INTEGER);");
  const std::string after = ReadAll(file, reader);
  EXPECT_NE(after, before);
  EXPECT_NE(after.find("level/INTEGER"), std::string::npos) << after;
  EXPECT_NE(after.find("key(1NOCASE,)"), std::string::npos) << after;
  EXPECT_NE(after.find("mail @"), std::string::npos) << after;
  EXPECT_EQ(after, ReadFresh(path_));
}

TEST_F(SqliteSchemaTest, RootPagesVacuumMovedAreReadAgain) {
  SqliteFile file(path_);
  SchemaReader reader(file);
  const std::string before = ReadAll(file, reader);
  ExecSql(path_, "DROP TABLE gone; VACUUM;");
  const std::string after = ReadAll(file, reader);
  EXPECT_EQ(after, ReadFresh(path_));
  // The tables after the dropped one moved down the file.
  EXPECT_NE(LineOf(before, "gone"), "");
  EXPECT_EQ(LineOf(after, "gone"), "");
  EXPECT_NE(LineOf(after, "player"), LineOf(before, "player"));
  EXPECT_NE(LineOf(after, "bag"), LineOf(before, "bag"));
}

// The direct readers rely on the lock ReadSchema takes: no writer changes the file under them.
TEST_F(SqliteSchemaTest, AKeptSchemasReadStillTakesTheReadLock) {
  SqliteFile file(path_);
  SchemaReader reader(file);
  ReadAll(file, reader);  // read and kept
  file.Exec("BEGIN");
  std::vector<Btree> trees;
  EXPECT_FALSE(reader.ReadSchema(trees).empty());
  EXPECT_THROW(ExecSql(path_, "INSERT INTO player VALUES (3, 'cy')"), std::runtime_error);
  file.Exec("ROLLBACK");
  EXPECT_NO_THROW(ExecSql(path_, "INSERT INTO player VALUES (3, 'cy')"));
}

}  // namespace
}  // namespace steadyflake::mergecheck
