// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/dump_tables.h"

#include <cassert>
#include <optional>

#include "dump/ddl.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::dump {

std::string DumpTables::TableKey(std::string_view name) const {
  std::string key(name);
  if (!mysql_) {  // SQLite's names are case-insensitive; MySQL's (on Linux) are not
    for (char& ch : key) {
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    }
  }
  return key;
}

DumpTable* DumpTables::Find(std::string_view name) {
  auto it = tables_.find(TableKey(name));
  return it == tables_.end() ? nullptr : it->second.get();
}

bool DumpTables::RowsWanted(const std::string& name) const {
  if (only_.empty()) return true;
  for (const std::string& n : only_) {
    if (mysql_ ? n == name : EqualsIgnoreCase(n, name)) return true;
  }
  return false;
}

void DumpTables::Announce(DumpTable& state) {
  const std::vector<int> wanted = visitor_.OnTable(state.table);
  state.slots = wanted.size();
  state.slot_of_column.assign(state.table.columns.size(), -1);
  state.extra_slots.clear();
  for (size_t slot = 0; slot < wanted.size(); ++slot) {
    const int column = wanted[slot];
    assert(column >= 0 && static_cast<size_t>(column) < state.table.columns.size() &&
           "OnTable returned a column index outside the table");
    if (column < 0 || static_cast<size_t>(column) >= state.table.columns.size()) continue;
    int& first = state.slot_of_column[static_cast<size_t>(column)];
    if (first < 0) {
      first = static_cast<int>(slot);
    } else {
      state.extra_slots.emplace_back(first, static_cast<int>(slot));
    }
  }
}

bool DumpTables::OnCreateTable(std::string_view text) {
  std::optional<CreateTable> created = ParseCreateTable(text, dialect_);
  if (!created) return false;
  if (!mysql_ && IsSqliteInternalTable(created->table.name)) return false;
  auto state = std::make_unique<DumpTable>();
  state->table = std::move(created->table);
  state->rowid_alias = created->rowid_alias;
  state->rows = RowsWanted(state->table.name);
  state->serial = ++created_;
  DumpTable& ref = *state;
  tables_[TableKey(ref.table.name)] = std::move(state);
  Announce(ref);
  return true;
}

void DumpTables::Adopt(const Table& table, int rowid_alias) {
  auto state = std::make_unique<DumpTable>();
  state->table = table;
  state->rowid_alias = rowid_alias;
  state->rows = true;
  state->serial = ++created_;
  DumpTable& ref = *state;
  tables_[TableKey(ref.table.name)] = std::move(state);
  Announce(ref);
}

bool DumpTables::OnCreateIndex(std::string_view text) {
  std::optional<IndexKey> index = ParseCreateIndex(text, dialect_);
  if (!index) return false;
  DumpTable* state = Find(index->table);
  if (state == nullptr) return false;  // sqlite_* or a table this dump does not create
  if (!AddKey(state->table, index->key)) return false;
  Announce(*state);
  return true;
}

bool DumpTables::OnAlterTable(std::string_view text) {
  AlterKeys alter = ParseAlterTable(text, dialect_);
  DumpTable* state = Find(alter.table);
  if (state == nullptr) return false;
  bool changed = false;
  for (const KeySpec& key : alter.keys) changed = AddKey(state->table, key) || changed;
  // Foreign keys are kept as declared, each one a change: the visitor sees them on the
  // table it is told about again.
  for (const ForeignKeySpec& fk : alter.foreign_keys) {
    AddForeignKey(state->table, fk);
    changed = true;
  }
  if (changed) Announce(*state);
  return changed;
}

}  // namespace steadyflake::mergecheck::dump
