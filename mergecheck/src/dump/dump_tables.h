// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The dump parser's tables (dump_parser.cpp): the schema each CREATE TABLE, CREATE INDEX and
// ALTER TABLE of the dump builds, told to the visitor as it changes, with where the columns
// the visitor wants go in a row's cells.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_TABLES_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dump/sql_text.h"
#include "source/source.h"

namespace steadyflake::mergecheck::dump {

// Per-table state: the schema, what the visitor wants of it, and where those columns go.
struct DumpTable {
  Table table;
  int rowid_alias = -1;             // SQLite's INTEGER PRIMARY KEY column, or -1
  bool rows = false;                // rows go to the visitor (named in `only`, or `only` is empty)
  size_t slots = 0;                 // cells per row (what OnTable returned)
  std::vector<int> slot_of_column;  // -1: not wanted
  std::vector<std::pair<int, int>> extra_slots;  // (from, to): a column wanted twice
  uint64_t serial = 0;  // which CREATE TABLE made it: 1 for the first of the scan, then 2, ...
};

class DumpTables {
 public:
  // `only`: the tables whose rows the visitor wants (all when empty); kept by reference.
  DumpTables(Dialect dialect, SourceVisitor& visitor, const std::vector<std::string>& only)
      : mysql_(dialect == Dialect::kMysql), dialect_(dialect), visitor_(visitor), only_(only) {}

  // The table named `name` (SQLite: in any ASCII case), or nullptr.
  DumpTable* Find(std::string_view name);

  // A CREATE TABLE, CREATE INDEX or ALTER TABLE statement. Each returns true when it told the
  // visitor about a table again (OnTable), so the column mapping of its rows may have changed.
  // Throws SyntaxError (ddl.h).
  bool OnCreateTable(std::string_view text);
  bool OnCreateIndex(std::string_view text);
  bool OnAlterTable(std::string_view text);

  // A table whose definition is already known (a scan read it): kept, its rows wanted, and told
  // to the visitor (OnTable).
  void Adopt(const Table& table, int rowid_alias);

 private:
  std::string TableKey(std::string_view name) const;
  bool RowsWanted(const std::string& name) const;
  // Tells the visitor about `state.table` and records which columns it wants.
  void Announce(DumpTable& state);

  const bool mysql_;
  const Dialect dialect_;
  SourceVisitor& visitor_;
  const std::vector<std::string>& only_;
  std::unordered_map<std::string, std::unique_ptr<DumpTable>> tables_;
  uint64_t created_ = 0;  // tables made so far (DumpTable::serial)
};

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_TABLES_H_
