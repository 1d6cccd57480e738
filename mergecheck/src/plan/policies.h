// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The profile's policies for rows whose key overlaps and that differ (PlanOptions::on_conflict):
// keep_a, keep_b, newest = COLUMN, and for keyless tables dedupe. Applied after the drops of
// identical rows and before remaps and renames: a value a policy decides is not remapped.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_POLICIES_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_POLICIES_H_

#include "check/collect.h"
#include "plan/plan_work.h"
#include "source/source.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {

// Throws Error unless every entry of PlanOptions::on_conflict names a table of B and a policy
// this version applies to it (plan.h), with newest's column a column of B's table.
void CheckOnConflict(const Collector& cb, const PlanOptions& options);

// Decides each differing conflict of a table with a policy: keep_a drops B's row; keep_b lists
// A's in Plan::replaces; newest reads the column's values of the conflicting rows in A and B
// (one scan of the table in each) and does one or the other per row. Each decided conflict
// leaves `work`'s differing ones. dedupe reads the keyless table in A (a 128-bit hash per row)
// and in B, and drops B's rows identical to one of A's.
void ApplyPolicies(Source& a, Source& b, const Report& report, const PlanOptions& options,
                   Work& work, Plan& plan);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_POLICIES_H_
