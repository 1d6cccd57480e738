// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// MakePlan's last phase, rows aside: an unresolved value holds back its own rows, never its
// whole table. The rewrite moves the rows of B of each unresolved value, and every row of B that
// refers or may refer to a row so moved, into steadyflake_unmerged_<table> in B (Plan::unmerged),
// so the rest of each table merges and nothing of B is left on A's entity of the same value.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_ASIDE_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_ASIDE_H_

#include <string>
#include <vector>

#include "plan/plan_work.h"
#include "plan/sql_writer.h"
#include "source/source.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {

// Fills plan.unmerged from plan.unresolved: the rows of each unresolved value (B's bytes of it),
// then, round by round (one scan of B's tables concerned per round), the rows whose column
// refers or may refer to a single-column key value of a row already set aside: declared FOREIGN
// KEYs, --refs and profile lines (conditional ones only where their condition holds), references
// found by name or inferred, and keys inside keys; never through a global column. Each row is
// counted under the first entry of its table that selects it, as the rewrite moves it.
void SetRowsAside(Source& b, const Report& report, const PlanFacts& facts,
                  const PlanOptions& options, Plan& plan);

// rewrite-b.sql's part for Plan::unmerged: appends to `out` (before the guard) each entry's
// temporary table of keys and, in MySQL, each `steadyflake_unmerged_<table>` (CREATE TABLE ...
// LIKE: DDL commits in MySQL, so it cannot be inside the transaction); appends to `changes`
// (after the guard, first) the INSERT ... SELECT of each entry's rows into it, a check that each
// such table holds exactly the plan's rows (else the guard row is inserted again, which rolls
// the whole rewrite back: B changed since the plan, or a table of that name was there), then
// the DELETEs.
void WriteRowsAside(const Writer& w, const Plan& plan, std::string& out,
                    std::vector<std::string>& changes);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_ASIDE_H_
