// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// CheckIntegrity: what PRAGMA integrity_check of the whole output checks, split so that every
// core shares it. One PRAGMA integrity_check of a file runs on one core, and on a merged shard
// it costs about what the merge's INSERTs do. SQLite restricts it to one table when given the
// table's name ("PRAGMA integrity_check(player)": the table's b-tree, its indexes' content and
// UNIQUE), and skips then only what needs every b-tree at once: the freelist and the check that
// each page is used once. PRAGMA quick_check of the whole file does exactly that part (and the
// b-trees' structure, NOT NULL and CHECK), in time linear in the file. So the work is: one
// quick_check, and integrity_check(T) for every table, the largest first, taken by `workers`
// connections of their own; the caller's thread runs `alongside` first, then takes its share.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_CHECK_OUTPUT_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_CHECK_OUTPUT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace steadyflake::mergecheck::merge {

// One table of the output and its weight (rows x (1 + indexes): what its check reads).
struct CheckedTable {
  std::string name;
  uint64_t weight = 0;
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
