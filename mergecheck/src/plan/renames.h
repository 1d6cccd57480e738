// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// MakePlan's fourth phase: text keys. B's differing values get new names by the --rename
// template, unique under the key's collation among every value of the column in both inputs
// (read by one more scan of each) and within the column's declared length.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_RENAMES_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_RENAMES_H_

#include "check/collect.h"
#include "plan/plan_work.h"
#include "source/source.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {

// Adds a Rename for each text key of `work` with differing values to `plan`, and an Unresolved
// for a value no rename fits and for each FOREIGN KEY of B onto a renamed column. Throws
// Error(kInvalidArgument) when the template names {server} and B has no server id.
void PlanRenames(Source& a, Source& b, const Report& report, const Work& work,
                 const PlanFacts& facts, const PlanOptions& options, Plan& plan);

// Throws Error(kInvalidArgument) unless every rule of PlanOptions::names names a column of B
// (`cb`) and each of its assignments an integer column with a valid expression.
void CheckNameRules(const Collector& cb, const PlanOptions& options);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_RENAMES_H_
