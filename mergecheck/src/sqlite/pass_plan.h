// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Pass planning for the SQLite reader (source.h, OnPass): which b-trees to walk so that every
// group of columns the visitor needs within one row (a key) comes from one b-tree, the smallest
// that holds it.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_PASS_PLAN_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_PASS_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sqlite/sqlite_schema.h"

namespace steadyflake::mergecheck {

// A pass over one Structure: the wanted columns it gives (positions in OnRow's cells) and the
// record field each comes from.
struct Pass {
  const Structure* structure = nullptr;
  std::vector<int> present;
  std::vector<int> fields;
};

// The passes that give every group of `groups` (every wanted column at once when it is empty)
// from `structures`: for each group the structure with the fewest fields that holds all of it.
// Empty when some group has none: the table is read by SELECT. The passes point into
// `structures`.
std::vector<Pass> PlanPasses(const std::vector<int>& wanted, std::vector<std::vector<int>> groups,
                             const std::vector<Structure>& structures);

// The indexes into table.columns of `columns` (matched without regard to ASCII case), when a
// b-tree is keyed by them, each under its collation of `collations` ("" or none: any): a
// lookup elsewhere is a whole scan per value. Else empty.
std::vector<int> KeyedColumns(const Table& table, const std::vector<Structure>& structures,
                              const std::vector<std::string>& columns,
                              const std::vector<std::string>& collations);

// The index b-tree of `structures` whose leading fields are `columns`, in that order, each
// sorted ascending under its collation of `collations`, or nullptr.
const Structure* OrderingIndex(const std::vector<Structure>& structures,
                               const std::vector<int>& columns,
                               const std::vector<std::string>& collations);

// The roots of the index b-trees of a table that a walk other than the current pass reads: the
// index passes of `passes`, and, when the visitor gave `groups`, the walks in index order of
// the keys none of them holds (SqliteSource's LeaveToIndexOrder) but those read in parts.
std::vector<uint32_t> WalkedIndexes(const Table& table, const std::vector<Structure>& structures,
                                    const std::vector<Pass>& passes,
                                    const std::vector<std::vector<int>>& groups);

// Whether `key`, when the merge reads it in index order, is read in parts, each by cursors on
// any thread (Source::WithKeyCursors): a key of one TEXT column. Where the scan walks its table,
// its index is then checked beside that walk, not left to a walk of its own; where the scan
// skips the table, it is left (and the source gives no cursors for it).
bool ReadInParts(const Table& table, const Key& key);

// Whether a group of `groups` holds every column of `key`.
bool Grouped(const Key& key, const std::vector<std::vector<int>>& groups);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_PASS_PLAN_H_
