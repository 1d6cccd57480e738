// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// MergeTables: A ∪ B' in one transaction of the output's connection (main: the copy of A, b:
// B'), in dependency order (a table after the tables it refers to, by declared FOREIGN KEYs and
// the plan's references), then verified before it commits (docs/merging.md "Merge and verify"):
//   - rows per table: the output holds A's rows and B''s, no more, no fewer;
//   - every reference the plan rewrote resolves as it did in A and in B' (no new dangling row);
//   - PRAGMA foreign_key_check finds no violation that A or B' did not have;
//   - what PRAGMA integrity_check checks says ok (CheckIntegrity, check_output.h: quick_check
//     and integrity_check of each table, on every core).
// The inserts are one transaction; the checks read what it committed to the working file.
// A's triggers are not fired by the merge (the rows are not new to the game): they are dropped
// for its inserts and made again in the same transaction. On any mismatch it rolls back.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_MERGE_TABLES_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_MERGE_TABLES_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "merge/database.h"
#include "merge/plan_file.h"
#include "merge/verify_rewrite.h"

namespace steadyflake::mergecheck::merge {

// `parents` (table -> the tables it refers to) in an order where each table comes after its
// parents; the tables of a cycle in name order.
std::vector<std::string> Ordered(const std::map<std::string, std::set<std::string>>& parents);

// The tables of B' in the order they are merged.
std::vector<std::string> DependencyOrder(Database& out, const PlanFile& plan);

// Merges and verifies as above; fills report.tables' rows_a and merged (adding tables of A that
// B' lacks). `a` is A as it was (read only when a count must be compared with A's). The
// transaction commits into the working file before the checks that read it (the integrity
// checks run beside the others); the caller renames it into place only when `mismatches` stays
// empty.
void MergeTables(Database& out, Database& a, const PlanFile& plan, MergeReport& report,
                 Mismatches& mismatches,
                 const std::function<void(uint64_t done, uint64_t total)>& progress);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_MERGE_TABLES_H_
