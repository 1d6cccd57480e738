// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// VerifyRewrite: B' (B after rewrite-b.sql) checked against B and plan.json, before anything is
// merged (docs/merging.md "Merge and verify"):
//   1. table by table, the rows of B with the plan applied (TableTransform) are the rows of B',
//      as multisets of whole rows: a reference UPDATE left out, an offset off by one, a DELETE
//      too many or too few, a column changed that the plan does not change: each leaves a row of
//      B that B' lacks and a row of B' that no row of B becomes, and both are listed;
//   2. B' has no table B lacks but the plan's own (steadyflake_merge_plan, with this plan's row);
//   3. no new value is a value of A's (remapped keys: equal; renamed names: equal under the
//      collation they were renamed for);
//   4. no reference of a remapped key in B' holds a value B' lacks and A has: merged, the row
//      would belong to A's entity of that value.
// Findings go into the report: per table rows before and after, per key the entities and rows
// checked, and the mismatches.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_VERIFY_REWRITE_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_VERIFY_REWRITE_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "merge/database.h"
#include "merge/plan_file.h"
#include "merge/transform.h"
#include "steadyflake/mergecheck/merge.h"

namespace steadyflake::mergecheck::merge {

// Mismatch lines, at most `max` kept; the rest counted.
class Mismatches {
 public:
  explicit Mismatches(MergeReport& report, std::size_t max) : report_(report), max_(max) {}
  void Add(std::string line) {
    if (report_.mismatches.size() < max_) {
      report_.mismatches.push_back(std::move(line));
    } else {
      ++report_.more;
    }
  }
  void Count(uint64_t n) { report_.more += n; }
  bool any() const { return !report_.mismatches.empty() || report_.more != 0; }
  std::size_t max() const { return max_; }

 private:
  MergeReport& report_;
  std::size_t max_;
};

// What step 1 needs of B alone: per table of B, its rows with the plan applied, summed (no
// memory per row), the rows held back, and the counts; per remapped or renamed key, the rows
// it changes. It reads only B, so it runs while rewrite-b.sql is applied to B's copy.
struct RewriteExpectation {
  struct Table {
    std::string name;
    std::vector<std::string> columns;
    RowSum expected;
    RowSum held;
    MergeReport::Table counts;  // name, rows_b, dropped, held
  };
  std::vector<Table> tables;
  std::vector<uint64_t> changed;  // per remap, then per rename
};

// B's side of step 1, from `b` (B as it was; a connection of the caller's thread).
RewriteExpectation ExpectRewrite(Database& b, const PlanFile& plan);

// `b` is B as it was, `b2` B' (with A attached to it as schema "a", read-only in spirit: only
// queried), `expectation` ExpectRewrite's of the same B. Fills report.tables (rows_b,
// rows_b_after, dropped) and report.keys.
void VerifyRewrite(Database& b, Database& b2, const PlanFile& plan,
                   const RewriteExpectation& expectation, MergeReport& report,
                   Mismatches& mismatches,
                   const std::function<void(uint64_t done, uint64_t total)>& progress);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_VERIFY_REWRITE_H_
