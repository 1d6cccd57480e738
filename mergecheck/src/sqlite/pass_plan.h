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

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_PASS_PLAN_H_
