// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// MakePlan's third phase: integer keys. B's differing values get new ones: fresh IDs under
// --server-id for BIGINT steadyflake-ID keys, an offset above max(A, B) for legacy and narrow
// ones; every referring column follows.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_REMAPS_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_REMAPS_H_

#include "plan/plan_work.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {

// Adds a Remap for each integer key of `work` with differing values to `plan`, or an Unresolved
// where no remap fits (then drops the key from `remapped`). `mysql`: the column types are
// MySQL's (their widths bound an offset).
void PlanRemaps(const Report& report, const Work& work, const PlanFacts& facts, bool mysql,
                const PlanOptions& options, Remapped& remapped, Plan& plan);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_REMAPS_H_
