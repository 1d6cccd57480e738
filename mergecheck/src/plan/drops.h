// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// MakePlan's second phase: which of B's rows identical to A's may be dropped. An identical row
// that refers to a remapped value is not the same row as A's: its reference points at another
// row of B than A's does at A's. It differs after all; then the rows that refer to it may too.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_DROPS_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_DROPS_H_

#include "plan/plan_work.h"
#include "source/source.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {

// Moves every identical row of `work` that refers, or may refer (a proposal, an ambiguous
// column), to a remapped or held value to the differing ones, until nothing changes (one scan of
// B's tables concerned per round, at most 8); then lists the drops that remain in `plan`. A key's
// candidate children (PlanFacts::children) count as columns that may refer to it.
void SettleDrops(Source& b, const Report& report, const PlanFacts& facts, Work& work, Plan& plan);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_DROPS_H_
