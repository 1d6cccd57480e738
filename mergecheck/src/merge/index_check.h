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

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_INDEX_CHECK_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_INDEX_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merge/database.h"
#include "merge/transform.h"

namespace steadyflake::mergecheck::merge {

struct IndexSpec {
  std::string name;
  bool unique = false;
  std::vector<std::string> collations;  // per key column: "BINARY", "NOCASE" or "RTRIM"
  // Its entry in a row of LinearTable::table_sql: the key columns' positions, then the rowid's.
  std::vector<int> entry;
  std::string scan_sql;  // its entries in index order: key columns, then rowid
};

struct LinearTable {
  std::string name;
  std::vector<std::string> columns;  // every column an index holds, once
  std::string table_sql;             // the rowid, then `columns`, of every row of the table
  std::vector<IndexSpec> indexes;
};

// How `table` of `db` can be checked linearly, or nullopt when integrity_check(T) must do it.
std::optional<LinearTable> PlanLinearCheck(Database& db, const std::string& table);

// One pass over the table's rows: the sum per index (in LinearTable::indexes' order).
std::vector<RowSum> SumTable(Database& db, const LinearTable& table);

// One pass over index `i` in its order: its sum; a line for each pair of equal keys of a
// UNIQUE index, at most `max_lines`.
RowSum SumIndex(Database& db, const LinearTable& table, std::size_t i,
                std::vector<std::string>& lines, std::size_t max_lines);

// The lines that say how index `i`'s sum differs from its table's (none when equal).
std::vector<std::string> CompareSums(const LinearTable& table, std::size_t i,
                                     const RowSum& from_table, const RowSum& from_index);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_INDEX_CHECK_H_
