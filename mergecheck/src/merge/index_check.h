// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The linear index check: what PRAGMA integrity_check(T) adds to PRAGMA quick_check for a table
// T, in time linear in T and split into passes that run on different cores.
//
// integrity_check(T) adds two things to the b-tree checks quick_check makes (SQLite's
// documentation of quick_check: it "does not verify UNIQUE constraints and does not verify that
// index content matches table content"): every row of T has its entry in every index of T and
// no index holds more, found by one seek into each index per row (n log n, on one core: the
// longest step of a merge's checks), and no two entries of a UNIQUE index are equal. Here:
// - one pass over T's rows (SumTable) sums, per index, a 128-bit hash of each row's index
//   entry (the indexed columns' values and the rowid; transform.h's row hash and RowSum);
// - one pass over each index in its own order (SumIndex) sums the same hash of each entry it
//   holds and, for a UNIQUE index, compares each entry's key with the one before it under the
//   index's collations (a duplicate is adjacent in a sorted index, as SQLite's check assumes);
// - equal sums and counts are the same set of entries (the rowids make the entries unique, so
//   a set, not a multiset; a wrong entry passes only if two 128-bit sums collide).
// Only for what the passes read exactly as SQLite indexes it (PlanLinearCheck): a rowid table
// whose indexes are on plain columns (no expression), not partial, under BINARY, NOCASE or
// RTRIM, each read as a covering index scan in index order (SQLite's plan says so). Any other
// table keeps PRAGMA integrity_check(T).
// The passes read the pages themselves (sqlite/table_reader.h, sqlite/index_reader.h), several
// times faster than through SQLite's virtual machine, where the pages alone say what SQLite
// would read (DirectPlan); else through SQL. Both give the same sums.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_INDEX_CHECK_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_INDEX_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merge/database.h"
#include "merge/transform.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck::merge {

struct IndexSpec {
  std::string name;
  bool unique = false;
  std::vector<std::string> collations;  // per key column: "BINARY", "NOCASE" or "RTRIM"
  // Its entry in a row of LinearTable::table_sql: the key columns' positions, then the rowid's.
  std::vector<int> entry;
  std::string scan_sql;  // its entries in index order: key columns, then rowid
};

// How the passes read the table and its indexes straight from the file's pages: only in a
// UTF-8 database, in a table with no generated column (its fields are then its columns), and
// with no DEFAULT on an indexed column (a row written before ALTER TABLE ADD COLUMN holds no
// field for it; SQLite reads the DEFAULT).
struct DirectPlan {
  uint32_t table_root = 0;
  std::vector<int> fields;  // per LinearTable::columns: its field in the table's records
  int rowid_column = -1;    // the one of LinearTable::columns that is the INTEGER PRIMARY KEY
  std::vector<bool> real;   // per LinearTable::columns: of REAL affinity
  std::vector<uint32_t> index_roots;
};

struct LinearTable {
  std::string name;
  std::vector<std::string> columns;  // every column an index holds, once
  std::string table_sql;             // the rowid, then `columns`, of every row of the table
  std::vector<IndexSpec> indexes;
  std::optional<DirectPlan> direct;
};

// How `table` of `db` can be checked linearly, or nullopt when integrity_check(T) must do it.
std::optional<LinearTable> PlanLinearCheck(Database& db, const std::string& table);

// One pass over the table's rows: the sum per index (in LinearTable::indexes' order). Reads
// `pages` (the file `db` has open) when the table has a DirectPlan and `pages` is not null.
// A damaged page found there is a line.
std::vector<RowSum> SumTable(Database& db, const PageFile* pages, const LinearTable& table,
                             std::vector<std::string>& lines, std::size_t max_lines);

// One pass over index `i` in its order: its sum; a line for each pair of equal keys of a
// UNIQUE index, at most `max_lines`. Reads `pages` as SumTable does.
RowSum SumIndex(Database& db, const PageFile* pages, const LinearTable& table, std::size_t i,
                std::vector<std::string>& lines, std::size_t max_lines);

// The lines that say how index `i`'s sum differs from its table's (none when equal).
std::vector<std::string> CompareSums(const LinearTable& table, std::size_t i,
                                     const RowSum& from_table, const RowSum& from_index);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_INDEX_CHECK_H_
