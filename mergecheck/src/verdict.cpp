// Copyright 2026 The steadyflake Authors.
//
// The verdict. A key value in both inputs is a collision the merge would hit now: CONFLICT. A
// server id with IDs in both inputs, with no value in common yet, is a collision to come: two
// generators have issued IDs under that server id, and nothing keeps them from issuing the same
// ID (the same tick and sequence) later: RISK. Only when neither holds is the merge safe. Drift
// (a table or key in one input only) never changes the verdict: nothing in it can collide, and
// the report lists it.

#include "verdict.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace steadyflake::mergecheck {

void Decide(Report& report) {
  report.servers_shared.clear();
  std::set_intersection(report.servers_a.begin(), report.servers_a.end(), report.servers_b.begin(),
                        report.servers_b.end(), std::back_inserter(report.servers_shared));
  uint64_t overlap = 0;
  for (const KeyReport& k : report.keys) overlap += k.overlap;
  report.verdict = overlap > 0                      ? Report::Verdict::kConflict
                   : !report.servers_shared.empty() ? Report::Verdict::kRisk
                                                    : Report::Verdict::kSafe;
}

}  // namespace steadyflake::mergecheck
