// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// TableTransform: what plan.json says the rewrite does to one table of B, applied to B's rows in
// memory, so that each row of B can be compared with the row of B' it must have become:
//   - held back: the row's key (B's values, before any change) is one of the plan's rows set
//     aside for the table (plan.json's unmerged, a conditional one where its condition holds):
//     it is in steadyflake_unmerged_<table>, as it was;
//   - dropped: the row's key is one of the plan's drops of the table (B's values, before any
//     change), and the row is gone;
//   - remapped: a column that is a remapped key, or a reference rewritten with one (a
//     conditional one only where its condition holds), holding an old value, holds the new one;
//   - renamed: a renamed text key holding an old value holds the new one, and the name rule's
//     assignments are made on the row, in order.
// RowHash: a row's identity for the comparison, XXH3-128 over its typed values.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_TRANSFORM_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_TRANSFORM_H_

#include <xxhash.h>

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "merge/database.h"
#include "merge/expression.h"
#include "merge/plan_file.h"
#include "source/source.h"

namespace steadyflake::mergecheck::merge {

struct RowHash {
  uint64_t high = 0;
  uint64_t low = 0;
  bool operator==(const RowHash&) const = default;
  bool operator<(const RowHash& o) const { return high != o.high ? high < o.high : low < o.low; }
};
// The hash of `row`; `scratch` is reused between calls.
RowHash HashRow(const Row& row, std::string& scratch);
// The hash of the row `stmt` stands on, the same as HashRow of that row, without copying it.
RowHash HashCurrentRow(sqlite3_stmt* stmt, std::string& scratch);
// The same of `columns` of that row alone, in that order.
RowHash HashColumns(sqlite3_stmt* stmt, std::span<const int> columns, std::string& scratch);
// The same of values read straight from the file's pages (sqlite/record_decoder.h): equal to
// HashColumns of the same values read through SQLite.
RowHash HashCells(std::span<const Cell> cells, std::string& scratch);

// The hash of a multiset of rows: the sum of their RowHashes (mod 2^128) and their count, the
// same whatever the order the rows come in. Two tables with equal sums hold the same rows but
// for a collision of 128-bit hashes; unequal, they differ, and a sorted comparison says where.
struct RowSum {
  uint64_t high = 0;
  uint64_t low = 0;
  uint64_t rows = 0;
  void Add(const RowHash& h) {
    const uint64_t before = low;
    low += h.low;
    high += h.high + (low < before ? 1 : 0);
    ++rows;
  }
  bool operator==(const RowSum&) const = default;
};

class TableTransform {
 public:
  // The plan's rules for `table` of `columns` (B's, in order). Throws Error when the plan names
  // a column the table lacks (the plan does not fit B). Each remap and rename is counted in
  // `counts` by its index: remaps first, then renames (rows changed).
  TableTransform(const PlanFile& plan, const std::string& table,
                 const std::vector<std::string>& columns);

  // Whether the plan changes anything in the table.
  bool empty() const {
    return held_.empty() && drops_.empty() && maps_.empty() && renames_.empty();
  }

  // Whether a rule may apply to the row `stmt` stands on (a drop's key, a mapped value, a
  // renamed name): if not, the row stays as it is and needs no copy.
  bool Touches(sqlite3_stmt* stmt) const;

  // Applies the rules to `row` in place. Adds to `rows_changed` (one per remap then rename of the
  // plan) the rows whose column it changed.
  enum class Fate { kKept, kDropped, kHeld };
  Fate Apply(Row& row, std::vector<uint64_t>& rows_changed) const;

  // Which columns the plan may change, for messages: the original value is shown beside the new.
  const std::vector<bool>& changed_columns() const { return changed_; }

 private:
  struct Map {
    int column = 0;
    int where_column = -1;
    int64_t where_value = 0;
    const std::unordered_map<int64_t, int64_t>* values = nullptr;
    std::size_t counter = 0;
  };
  struct Rename {
    int column = 0;
    const std::unordered_map<std::string, std::string>* values = nullptr;
    std::vector<std::pair<int, Expression>> set{};
    std::size_t counter = 0;
  };
  struct Drop {
    std::vector<int> columns{};
    const std::unordered_set<std::string>* keys = nullptr;
    int where_column = -1;
    int64_t where_value = 0;
  };
  bool Matches(const Drop& d, const Row& row) const;
  std::vector<Drop> held_;
  std::vector<Drop> drops_;
  std::vector<Map> maps_;
  std::vector<Rename> renames_;
  std::vector<bool> changed_;
};

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_TRANSFORM_H_
