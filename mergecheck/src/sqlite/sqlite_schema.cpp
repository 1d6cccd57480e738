// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SchemaReader (sqlite_schema.h): what SQLite says of the file's tables, read through its
// pragmas in the caller's transaction.

#include "sqlite/sqlite_schema.h"

#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

bool AllBinary(const std::vector<std::string>& collations) {
  for (const std::string& c : collations) {
    if (!EqualsIgnoreCase(c, "BINARY")) return false;
  }
  return true;
}

// Adds the UNIQUE keys `unique` (newest first, as pragma_index_list lists them) to `table` in
// creation order, once per column set.
void AddUniqueKeys(Table& table, std::vector<Key>& unique) {
  for (auto it = unique.rbegin(); it != unique.rend(); ++it) {
    bool duplicate = false;
    for (Key& other : table.keys) {
      if (other.columns != it->columns) continue;
      duplicate = true;
      // Two constraints over the same columns: the one under a collation that equates more
      // (NOCASE rather than BINARY) is the one a merge trips over.
      if (other.collations != it->collations && AllBinary(other.collations)) {
        other.collations = it->collations;
      }
    }
    if (!duplicate) table.keys.push_back(std::move(*it));
  }
}

}  // namespace

std::vector<TableRef> SchemaReader::ReadSchema(std::vector<Btree>& trees) {
  Statement cookie;
  file_.Prepare("PRAGMA schema_version", cookie);
  const int64_t version = file_.Step(cookie, "cannot read the schema")
                              ? sqlite3_column_int64(cookie.get(), 0)
                              : -1;  // no row (never seen): read the schema
  if (!read_ || version != version_ || version < 0) {
    tables_.clear();
    read_ = false;
    refs_ = ReadSchemaNow(trees_);
    version_ = version;
    read_ = true;
  }
  trees = trees_;
  return refs_;
}

Table SchemaReader::ReadTable(const TableRef& ref, std::vector<Structure>& structures) {
  auto it = tables_.find(ref.name);
  if (it == tables_.end()) {
    TableRead read;
    read.table = ReadTableNow(ref, read.structures);
    it = tables_.emplace(ref.name, std::move(read)).first;
  }
  structures = it->second.structures;
  return it->second.table;
}

std::vector<TableRef> SchemaReader::ReadSchemaNow(std::vector<Btree>& trees) {
  Statement stmt;
  file_.Prepare(
      "SELECT m.type, m.name, m.tbl_name, m.rootpage, coalesce(t.wr, 0), "
      "m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND coalesce(m.sql, '') NOT LIKE "
      "'CREATE VIRTUAL%' FROM sqlite_master AS m LEFT JOIN pragma_table_list AS t "
      "ON t.schema = 'main' AND t.name = m.name AND m.type = 'table' "
      "WHERE m.type IN ('table', 'index') ORDER BY m.rowid",
      stmt);
  std::vector<TableRef> refs;
  trees.clear();
  index_roots_.clear();
  trees.push_back(Btree{1, false, "the schema table sqlite_master"});
  while (file_.Step(stmt, "cannot read the schema")) {
    const std::string_view type = ColumnText(stmt.get(), 0);
    const std::string name(ColumnText(stmt.get(), 1));
    const int64_t root = sqlite3_column_int64(stmt.get(), 3);
    const uint32_t page = root > 0 && root <= UINT32_MAX ? static_cast<uint32_t>(root) : 0;
    if (type == "table") {
      const bool without_rowid = sqlite3_column_int(stmt.get(), 4) != 0;
      if (sqlite3_column_int(stmt.get(), 5) != 0) {
        refs.push_back(TableRef{name, page, without_rowid});
      }
      if (page != 0) {
        trees.push_back(Btree{page, without_rowid, "table " + name, name});
      }
    } else if (page != 0) {
      index_roots_[name] = page;
      std::string table(ColumnText(stmt.get(), 2));
      trees.push_back(Btree{page, true, "index " + name + " of table " + table, table});
    }
  }
  return refs;
}

Table SchemaReader::ReadTableNow(const TableRef& ref, std::vector<Structure>& structures) {
  Table table;
  table.name = ref.name;
  std::vector<std::pair<int, int>> pk;  // (position in the primary key, column)
  ReadColumns(table, pk);
  ReadForeignKeys(table);
  if (!pk.empty()) {
    std::sort(pk.begin(), pk.end());
    Key key;
    key.kind = Key::Kind::kPrimary;
    for (const auto& [position, column] : pk) key.columns.push_back(column);
    table.keys.push_back(std::move(key));
  }
  // Unique indexes are keys: UNIQUE constraints (origin 'u') and CREATE UNIQUE INDEX (origin
  // 'c'); the primary key's own index (origin 'pk') is the key above.
  const std::vector<IndexRow> indexes = ReadIndexList(ref.name);
  // The primary key is the rowid when it is one INTEGER column and has no index of its own.
  int alias = -1;
  const bool pk_indexed =
      std::any_of(indexes.begin(), indexes.end(), [](const IndexRow& i) { return i.primary; });
  if (pk.size() == 1 && !pk_indexed && !ref.without_rowid &&
      EqualsIgnoreCase(table.columns[static_cast<std::size_t>(pk[0].second)].declared_type,
                       "INTEGER")) {
    alias = pk[0].second;
  }
  structures.clear();
  if (alias >= 0 && ref.root > 0) {
    structures.push_back(Structure{ref.root, true, {alias}, "table " + ref.name});
  }
  std::vector<Key> unique;
  for (const IndexRow& index : indexes) {
    Key key;
    const bool usable = ReadIndex(ref, table, index, alias, key, structures);
    if (index.primary) {
      if (usable && !table.keys.empty() && key.columns == table.keys.front().columns) {
        table.keys.front().collations = std::move(key.collations);
      }
    } else if (index.unique && usable && !key.columns.empty()) {
      key.kind = Key::Kind::kUnique;
      key.name = index.name;
      unique.push_back(std::move(key));
    }
  }
  AddUniqueKeys(table, unique);
  return table;
}

void SchemaReader::ReadColumns(Table& table, std::vector<std::pair<int, int>>& pk) {
  // table_xinfo, not table_info: its column numbers are the ones index_xinfo gives, also when
  // generated columns come before others.
  Statement stmt;
  file_.Prepare(
      "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1) WHERE hidden != 1 ORDER BY cid",
      stmt);
  SqliteFile::Bind(stmt, table.name);
  while (file_.Step(stmt, "cannot read the schema of table " + table.name)) {
    Column column;
    column.name = ColumnText(stmt.get(), 0);
    column.declared_type = ColumnText(stmt.get(), 1);
    column.affinity = AffinityOf(column.declared_type);
    column.collation = "BINARY";  // a key's own index says otherwise (ReadIndex)
    column.generated = sqlite3_column_int(stmt.get(), 3) >= 2;  // 2 virtual, 3 stored
    const int position = sqlite3_column_int(stmt.get(), 2);
    if (position > 0) pk.emplace_back(position, static_cast<int>(table.columns.size()));
    table.columns.push_back(std::move(column));
  }
}

// Foreign keys: one row per column (seq) of each (id), `to` NULL when the REFERENCES names no
// columns (the referenced table's PRIMARY KEY). The ids count from the last declared (0) to the
// first, as SQLite keeps them newest first.
void SchemaReader::ReadForeignKeys(Table& table) {
  Statement stmt;
  file_.Prepare(
      "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY "
      "id, seq",
      stmt);
  SqliteFile::Bind(stmt, table.name);
  int id = -1;
  while (file_.Step(stmt, "cannot read the schema of table " + table.name)) {
    const int row_id = sqlite3_column_int(stmt.get(), 0);
    if (table.foreign_keys.empty() || row_id != id) {
      id = row_id;
      table.foreign_keys.emplace_back().ref_table = ColumnText(stmt.get(), 2);
    }
    ForeignKey& fk = table.foreign_keys.back();
    const std::string_view from = ColumnText(stmt.get(), 3);
    const auto column =
        std::find_if(table.columns.begin(), table.columns.end(),
                     [&](const Column& c) { return EqualsIgnoreCase(c.name, from); });
    fk.columns.push_back(
        column == table.columns.end() ? -1 : static_cast<int>(column - table.columns.begin()));
    if (sqlite3_column_type(stmt.get(), 4) != SQLITE_NULL) {
      fk.ref_columns.emplace_back(ColumnText(stmt.get(), 4));
    }
  }
  // SQLite resolves a foreign key's columns when it creates it, so each names a column of the
  // table; a key over any other (a hidden column) is left out.
  std::erase_if(table.foreign_keys, [](const ForeignKey& fk) {
    return std::find(fk.columns.begin(), fk.columns.end(), -1) != fk.columns.end();
  });
  std::reverse(table.foreign_keys.begin(), table.foreign_keys.end());  // declaration order
}

std::vector<SchemaReader::IndexRow> SchemaReader::ReadIndexList(const std::string& table) {
  std::vector<IndexRow> indexes;
  Statement stmt;
  file_.Prepare("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", stmt);
  SqliteFile::Bind(stmt, table);
  while (file_.Step(stmt, "cannot read the schema of table " + table)) {
    if (sqlite3_column_int(stmt.get(), 3) != 0) continue;
    indexes.push_back({std::string(ColumnText(stmt.get(), 0)),
                       sqlite3_column_int(stmt.get(), 1) != 0, ColumnText(stmt.get(), 2) == "pk"});
  }
  return indexes;
}

// An index's record: one field per index_xinfo row, in order: the key columns (key = 1, each
// with the collation it compares under), then the rowid (cid -1) or, in a WITHOUT ROWID table,
// the primary key columns it lacks; an expression is cid -2.
bool SchemaReader::ReadIndex(const TableRef& ref, const Table& table, const IndexRow& index,
                             int alias, Key& key, std::vector<Structure>& structures) {
  Statement stmt;
  file_.Prepare("SELECT cid, coll, key, desc FROM pragma_index_xinfo(?1) ORDER BY seqno", stmt);
  SqliteFile::Bind(stmt, index.name);
  Structure structure;
  structure.owner = "index " + index.name + " of table " + table.name;
  bool usable = true;
  while (file_.Step(stmt, "cannot read the schema of table " + table.name)) {
    const int cid = sqlite3_column_int(stmt.get(), 0);
    const bool in_key = sqlite3_column_int(stmt.get(), 2) != 0;
    const bool column = cid >= 0 && cid < static_cast<int>(table.columns.size());
    // A WITHOUT ROWID table's own record holds its other columns too, but a record written
    // before an ALTER TABLE ADD COLUMN lacks the new one (SQLite gives its DEFAULT): only the
    // primary key is read from it.
    const bool table_tail = index.primary && ref.without_rowid && !in_key;
    structure.fields.push_back(table_tail ? -1 : column ? cid : cid == -1 ? alias : -1);
    structure.collations.emplace_back(in_key && column ? ColumnText(stmt.get(), 1) : "");
    structure.descending.push_back(in_key && sqlite3_column_int(stmt.get(), 3) != 0);
    if (!in_key) continue;
    if (!column) {
      usable = false;  // an expression (-2) or the rowid (-1): not a key of columns
    } else {
      key.columns.push_back(cid);
      key.collations.emplace_back(ColumnText(stmt.get(), 1));
    }
  }
  // A WITHOUT ROWID table's primary key index is the table's own b-tree.
  const auto root = index_roots_.find(index.name);
  if (index.primary && ref.without_rowid) {
    structure.root = ref.root;
    structure.owner = "table " + table.name;
  } else if (root != index_roots_.end()) {
    structure.root = root->second;
  }
  if (structure.root > 0) structures.push_back(std::move(structure));
  return usable;
}

}  // namespace steadyflake::mergecheck
