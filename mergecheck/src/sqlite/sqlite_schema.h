// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The SQLite reader's schema (sqlite_source.cpp): tables, columns, keys and foreign keys from
// the database itself (sqlite_master and the table_xinfo, index_list, index_xinfo and
// foreign_key_list pragmas), and for each table the b-trees that hold some of its columns,
// which the direct readers can walk without SQLite.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_SQLITE_SCHEMA_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_SQLITE_SCHEMA_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "source/schema.h"
#include "sqlite/btree_check.h"
#include "sqlite/sqlite_file.h"

namespace steadyflake::mergecheck {

// An ordinary table of the file, as sqlite_master lists it.
struct TableRef {
  std::string name;
  uint32_t root = 0;           // the table b-tree's root page
  bool without_rowid = false;  // the table b-tree is an index b-tree keyed by the primary key
};

// A b-tree holding some columns of every row of a table, which the pages can give without
// SQLite: the rowid table b-tree (its rowids: the INTEGER PRIMARY KEY), an index, or a
// WITHOUT ROWID table's own b-tree.
struct Structure {
  uint32_t root = 0;
  bool rowids = false;      // a table b-tree, read for its rowids only
  std::vector<int> fields;  // per record field, the table column it holds (-1: none usable)
  std::string owner;        // for messages: "index i of table t"
  // Per record field of an index's key, the collation it is sorted under as SQLite names it
  // ("BINARY", "NOCASE", "RTRIM", or another); "" for the rowid and fields past the key.
  std::vector<std::string> collations = {};
  // Per record field of an index's key: sorted descending (`name DESC`).
  std::vector<bool> descending = {};
};

// Reads the schema through `file`'s connection, inside the caller's read transaction. Throws
// Error (SqliteFile::Fail) when SQLite cannot read it.
class SchemaReader {
 public:
  explicit SchemaReader(SqliteFile& file) : file_(file) {}

  // Ordinary tables in creation order (not sqlite_% internals, not virtual tables); and in
  // `trees` every b-tree of the file, for CheckBtrees: the schema's own (page 1), each table's
  // (a WITHOUT ROWID table is an index b-tree) and each index's. Read once for each schema
  // version (SQLite's schema cookie, which every change of the schema, VACUUM included, moves
  // on): a check reads a file in a dozen transactions, and reading the schema and each table's
  // pragmas again cost 0.2-0.4 ms each (2026-12-01). The cookie is read in every call, which
  // also takes SQLite's read lock at the start of a deferred transaction.
  std::vector<TableRef> ReadSchema(std::vector<Btree>& trees);

  // The table's columns and keys, and in `structures` the b-trees that hold its columns: the
  // rowid table's own (when it has an INTEGER PRIMARY KEY), its indexes but partial ones, and a
  // WITHOUT ROWID table's own; kept for the schema version as ReadSchema's. REQUIRES:
  // ReadSchema was called in this transaction.
  Table ReadTable(const TableRef& ref, std::vector<Structure>& structures);

 private:
  struct IndexRow {
    std::string name;
    bool unique;
    bool primary;
  };

  // The columns, and in `pk` the primary key's (position in the key, column) pairs.
  void ReadColumns(Table& table, std::vector<std::pair<int, int>>& pk);
  void ReadForeignKeys(Table& table);
  // Every index of the table but partial ones (WHERE), which hold only some rows.
  std::vector<IndexRow> ReadIndexList(const std::string& table);
  // The index's key columns into `key`, and its record's fields as a Structure into
  // `structures` when its b-tree is known. False when the key holds an expression or the rowid.
  bool ReadIndex(const TableRef& ref, const Table& table, const IndexRow& index, int alias,
                 Key& key, std::vector<Structure>& structures);

  struct TableRead {
    Table table;
    std::vector<Structure> structures;
  };

  // The schema as ReadSchema and ReadTable read it, for schema version `version_`.
  std::vector<TableRef> ReadSchemaNow(std::vector<Btree>& trees);
  Table ReadTableNow(const TableRef& ref, std::vector<Structure>& structures);

  SqliteFile& file_;
  std::unordered_map<std::string, uint32_t> index_roots_;  // by index name, from ReadSchema
  bool read_ = false;    // refs_ and trees_ hold the schema of version_
  int64_t version_ = 0;  // SQLite's schema cookie
  std::vector<TableRef> refs_;
  std::vector<Btree> trees_;
  std::unordered_map<std::string, TableRead> tables_;  // by name, as ReadTable read them
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_SQLITE_SCHEMA_H_
