// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The verdict, the checker's last stage: what a report's keys and server ids mean for the merge.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_VERDICT_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_VERDICT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

// Sets report.servers_shared (the server ids in both servers_a and servers_b, which must be
// ascending), report.verdict and report.risks: kConflict when any key overlaps, else kRisk when
// a server id issued IDs in both inputs or a key's overlap is not the merge's (compared under
// an unknown collation, or under different ones in A and B), else kSafe.
void Decide(Report& report);

// "a, b, c".
std::string JoinComma(const std::vector<std::string>& names);

// "101-103, 205": ascending ids as ranges, at most 20 ranges; "none" when empty.
std::string IdRanges(const std::vector<uint64_t>& ids);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_VERDICT_H_
