// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// References, the checker's stage after the comparison: for every single-column integer key
// with values in both inputs, the columns of input B that refer to it, and how many of B's
// rows hold one of the overlapping values (KeyReport::references). A remap of those values in
// B (merge-plan) must rewrite every such column in the same transaction; merge-check shows them
// as the blast radius. A column refers to a key when
//   1. a FOREIGN KEY declares it (a single-column one, naming the key's column or, with no
//      column, a table whose PRIMARY KEY it is);
//   2. Options::references (--refs FILE, or the merge profile) names it;
//   3. its name is `<table>_id`, `<table>id`, `<table>_guid` or `<table>guid` of a table whose
//      single-column PRIMARY KEY is the key, case and underscores aside (`arenaTeamId` for
//      `arena_team`);
//   4. inferred: it has INTEGER affinity, is not itself a single-column key (two keys of one
//      relationship would infer each other), and all its non-NULL values lie among the key's
//      values in B, with at least 100 distinct values or 90% of the key's.
// The first that applies says how it was found; a column found by 1-3 for one key is never
// inferred for another. One scan of B reads only the candidate columns; the key's values in B
// are the sorted set the collection already holds, so nothing else is kept in memory but one
// bit per key value per inference candidate.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_REFERENCES_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_REFERENCES_H_

#include "check/collect.h"
#include "check/compare.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

// Fills KeyReport::references of every key of `comparison` that is a single-column integer key
// with overlapping values, from B (`b`, whose collection is `cb`). Throws Error
// (kInvalidArgument) for a --refs entry naming a table or column B lacks or a key that is not
// a single-column key; and what the source throws.
void FindReferences(Source& b, const Collector& cb, const Comparison& comparison,
                    const Options& options, Report& report);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_REFERENCES_H_
