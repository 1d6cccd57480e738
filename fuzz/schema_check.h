// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What every Table a dump reader hands on must hold, whatever the input (schema.h): each key
// names at least one column, only columns the table has, none twice; at most one primary key,
// and it comes first; no two keys over the same set of columns. Shared by the fuzz targets of
// the dump parser and the DDL parser.

#ifndef STEADYFLAKE_FUZZ_SCHEMA_CHECK_H_
#define STEADYFLAKE_FUZZ_SCHEMA_CHECK_H_

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "source/schema.h"

namespace steadyflake::fuzz {

// Aborts (a finding for the fuzzer) unless `ok`.
inline void Check(bool ok) {
  if (!ok) std::abort();
}

inline void CheckTable(const mergecheck::Table& table) {
  std::vector<std::vector<int>> column_sets;
  for (size_t k = 0; k < table.keys.size(); ++k) {
    const mergecheck::Key& key = table.keys[k];
    Check(!key.columns.empty());
    Check(key.kind == mergecheck::Key::Kind::kUnique || k == 0);
    std::vector<int> sorted = key.columns;
    std::sort(sorted.begin(), sorted.end());
    Check(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    Check(sorted.front() >= 0 && static_cast<size_t>(sorted.back()) < table.columns.size());
    Check(std::find(column_sets.begin(), column_sets.end(), sorted) == column_sets.end());
    column_sets.push_back(std::move(sorted));
  }
}

}  // namespace steadyflake::fuzz

#endif  // STEADYFLAKE_FUZZ_SCHEMA_CHECK_H_
