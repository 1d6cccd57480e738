// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Reads the schema statements of a dump: CREATE TABLE, CREATE UNIQUE INDEX and ALTER TABLE ...
// ADD PRIMARY KEY / ADD UNIQUE / ADD FOREIGN KEY, into the checker's Table (schema.h); and the
// header of each INSERT, which names the table and (--complete-insert) the columns its rows
// fill. Every parse function takes one whole statement without its terminator (an INSERT: up to
// its VALUES) and throws SyntaxError (sql_text.h) when it cannot be read.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DDL_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DDL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dump/sql_text.h"
#include "source/schema.h"

namespace steadyflake::mergecheck::dump {

// A key named by its columns, before they are resolved against a table.
struct KeySpec {
  Key::Kind kind = Key::Kind::kUnique;
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::string> collations;  // per column: its COLLATE in the key, or empty
  std::vector<int> prefixes;            // per column: MySQL's prefix length, or 0
  size_t offset = 0;                    // in the statement, for errors
};

// A FOREIGN KEY named by its columns, before they are resolved against a table.
struct ForeignKeySpec {
  std::vector<std::string> columns;      // of the table that declares it
  std::string ref_table;                 // the last part of a schema-qualified name
  std::vector<std::string> ref_columns;  // empty: the referenced table's PRIMARY KEY
  size_t offset = 0;                     // in the statement, for errors
};

struct CreateTable {
  Table table;
  // SQLite: the INTEGER PRIMARY KEY column that aliases the rowid, or -1. Always -1 for MySQL.
  int rowid_alias = -1;
};

// `CREATE [TEMP] TABLE [IF NOT EXISTS] [schema.]name (...) [options]`. The PRIMARY KEY (column
// or table constraint), UNIQUE (column or table constraint, MySQL `UNIQUE KEY name (...)`),
// and MySQL's bare column `KEY` become Table::keys, primary first, duplicates dropped. A key
// over an expression (not plain columns) is left out: its values are not in the rows.
// Each column's collation (Column::collation): SQLite, its COLLATE or BINARY; MySQL, its
// COLLATE, else its CHARACTER SET's default, else the table's COLLATE, else the table's
// CHARACTER SET's default; empty when none is declared (the server's default).
// FOREIGN KEYs become Table::foreign_keys, in declaration order: the table constraint
// `[CONSTRAINT n] FOREIGN KEY [n] (cols) REFERENCES [schema.]t [(cols)] [ON ...] [MATCH ...]
// [DEFERRABLE ...]` in both dialects, and SQLite's column constraint `REFERENCES t [(col)]`
// (MySQL parses and ignores that one: InnoDB creates no foreign key for it). The referenced
// table and columns stay names; a FOREIGN KEY whose REFERENCES names another number of columns
// than it has is a SyntaxError, as both databases refuse it.
// Returns nullopt for `CREATE TABLE ... AS SELECT`, which has no column list.
std::optional<CreateTable> ParseCreateTable(std::string_view statement, Dialect dialect);

// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (columns) [WHERE ...]`. Returns the
// table's name and the key for a UNIQUE index over plain columns; nullopt for any other index
// (not unique, partial with WHERE, or over expressions).
struct IndexKey {
  std::string table;
  KeySpec key;
};
std::optional<IndexKey> ParseCreateIndex(std::string_view statement, Dialect dialect);

// `ALTER TABLE name ADD [CONSTRAINT [n]] PRIMARY KEY (...), ADD UNIQUE [KEY|INDEX] [n] (...),
// ADD [CONSTRAINT [n]] FOREIGN KEY (...) REFERENCES ..., ...`: the table's name and the keys
// and foreign keys it adds, each in the order written (other alterations are ignored).
struct AlterKeys {
  std::string table;
  std::vector<KeySpec> keys;
  std::vector<ForeignKeySpec> foreign_keys = {};
};
AlterKeys ParseAlterTable(std::string_view statement, Dialect dialect);

// Adds `spec` to `table` keeping Table's rules: the primary key first, no two keys over the
// same set of columns (a primary key replaces a unique key over the same columns). Returns
// false, changing nothing, when the key adds nothing new. Throws SyntaxError when a column is
// not in the table.
bool AddKey(Table& table, const KeySpec& spec);

// Appends `spec` to table.foreign_keys, its columns resolved to indexes into table.columns
// (case-insensitively, in the order written) and its referenced table and columns kept as
// names. Throws SyntaxError, changing nothing, when a column is not in the table.
void AddForeignKey(Table& table, const ForeignKeySpec& spec);

// The header of an INSERT, through its VALUES keyword:
// `INSERT|REPLACE [OR x] [IGNORE|LOW_PRIORITY|DELAYED|HIGH_PRIORITY] [INTO] [schema.]name
// [(columns)] VALUES`.
struct InsertHeader {
  std::string table;
  size_t table_offset = 0;   // of the table's name in the header, for errors
  bool has_columns = false;  // a column list follows the name (--complete-insert)
  std::vector<std::string> columns;
};
InsertHeader ParseInsertHeader(std::string_view header, Dialect dialect);

// For an INSERT with a column list: the column of `table` each value of a row goes to (its
// index in table.columns), or -1 for SQLite's hidden rowid (`rowid`, `_rowid_` or `oid` when no
// column aliases it; `rowid_alias` as CreateTable has it). Names match case-insensitively.
// Throws SyntaxError (offset 0) naming a column the table does not have.
std::vector<int> ResolveInsertColumns(const std::vector<std::string>& columns, const Table& table,
                                      int rowid_alias, Dialect dialect);

// True for "sqlite_..." names (sqlite_sequence, sqlite_stat1, sqlite_schema...): SQLite's own
// tables, never user data.
bool IsSqliteInternalTable(std::string_view name);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DDL_H_
