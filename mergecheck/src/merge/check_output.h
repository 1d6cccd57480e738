// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// CheckIntegrity: what PRAGMA integrity_check of the whole output checks, split so that every
// core shares it. One PRAGMA integrity_check of a file runs on one core, and on a merged shard
// it costs about what the merge's INSERTs do. It is PRAGMA quick_check (every b-tree's
// structure, the freelist, each page used once, NOT NULL and CHECK: linear in the file) plus,
// per table, that its indexes hold exactly its rows and UNIQUE holds: one seek per row and
// index (n log n). So the work is one quick_check of the whole file and, per table, the linear
// index check (index_check.h: a pass over the table and one over each index, each a task of
// its own) or, for a table it cannot read, PRAGMA integrity_check(T) (which checks the table's
// b-tree, its indexes' content and UNIQUE); the tasks go heaviest first to `workers`
// connections of their own; the caller's thread runs `alongside` first, then takes its share.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_CHECK_OUTPUT_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_CHECK_OUTPUT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace steadyflake::mergecheck::merge {

// One table of the output, its rows and its weight (rows x (1 + indexes): what its check reads).
struct CheckedTable {
  std::string name;
  uint64_t weight = 0;
  uint64_t rows = 0;
};

// Runs the checks above on the SQLite file `path` (committed, not written meanwhile) with
// `workers` threads in all (the caller's counted; at least 1), `alongside` on the caller's
// thread first. Returns SQLite's lines that are not "ok", each prefixed with the PRAGMA that
// found it, at most `max_lines`. Throws (steadyflake::Error) when a check cannot run; an
// exception from `alongside` is rethrown after the other threads stopped.
std::vector<std::string> CheckIntegrity(const std::string& path, std::vector<CheckedTable> tables,
                                        unsigned workers, const std::function<void()>& alongside,
                                        std::size_t max_lines = 20);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_CHECK_OUTPUT_H_
