// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// WriteMysqlMerge: the merge of a MySQL/MariaDB plan, as SQL for the server that holds A and B'
// (B after rewrite-b.sql) as two databases: OUT/merge.sql (the inserts in dependency order in
// one transaction, then checks that abort it on any mismatch) and OUT/verify.sql (the same
// checks as queries, run again afterwards: no rows when the merge is right).

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_MERGE_SQL_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_MERGE_SQL_H_

#include <string>

#include "merge/plan_file.h"
#include "steadyflake/mergecheck/merge.h"

namespace steadyflake::mergecheck::merge {

void WriteMysqlMerge(const std::string& path_a, const std::string& path_b, const PlanFile& plan,
                     const MergeOptions& options, MergeReport& report);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_MERGE_SQL_H_
