// Copyright 2026 The steadyflake Authors.
//
// Internal functions that may change between releases.
//
// The verdict, the checker's last stage: what a report's keys and server ids mean for the merge.

#ifndef STEADYFLAKE_MERGECHECK_SRC_VERDICT_H_
#define STEADYFLAKE_MERGECHECK_SRC_VERDICT_H_

#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

// Sets report.servers_shared (the server ids in both servers_a and servers_b, which must be
// ascending) and report.verdict: kConflict when any key overlaps, else kRisk when a server id
// issued IDs in both inputs, else kSafe.
void Decide(Report& report);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_VERDICT_H_
