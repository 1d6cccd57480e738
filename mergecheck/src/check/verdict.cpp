// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The verdict. A key value in both inputs is a collision the merge would hit now: CONFLICT. A
// server id with IDs in both inputs, with no value in common yet, is a collision to come: two
// generators have issued IDs under that server id, and nothing keeps them from issuing the same
// ID (the same tick and sequence) later: RISK. Only when neither holds is the merge safe. Drift
// (a table or key in one input only) never changes the verdict: nothing in it can collide, and
// the report lists it. A key compared under a collation this checker does not know (as bytes)
// has an overlap count that may not be the merge's: no CONFLICT there does not make the merge
// safe, so the verdict is RISK. (A key whose collation differs between A and B is compared
// under A's, the merge target's, and only reported.)

#include "check/verdict.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {
namespace {

// Ranges of server ids shown per list.
constexpr std::size_t kShownRanges = 20;

}  // namespace

std::string JoinComma(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

std::string IdRanges(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return "none";
  std::string out;
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (ranges == kShownRanges) {
      // Appended piece by piece: GCC 12 at -O3 flags "literal" + std::string as -Wrestrict, a
      // known false positive (GCC bug 105329).
      out.append(", ... (").append(GroupThousands(ids.size())).append(" in all)");
      break;
    }
    if (ranges > 0) out += ", ";
    out += std::to_string(ids[i]);
    if (j > i) out.append("-").append(std::to_string(ids[j]));
    ++ranges;
    i = j + 1;
  }
  return out;
}

void Decide(Report& report) {
  report.servers_shared.clear();
  std::set_intersection(report.servers_a.begin(), report.servers_a.end(), report.servers_b.begin(),
                        report.servers_b.end(), std::back_inserter(report.servers_shared));
  uint64_t overlap = 0;
  report.risks.clear();
  for (const KeyReport& k : report.keys) {
    overlap += k.overlap;
    const std::string key = k.table + " (" + JoinComma(k.columns) + ")";
    if (!k.unknown_collations.empty()) {
      report.risks.push_back(key + " was compared as bytes: collation" +
                             (k.unknown_collations.size() == 1 ? " " : "s ") +
                             JoinComma(k.unknown_collations) + " unknown");
    }
  }
  if (!report.servers_shared.empty()) {
    const auto& shared = report.servers_shared;
    report.risks.insert(report.risks.begin(),
                        "server id" + std::string(shared.size() == 1 ? " " : "s ") +
                            IdRanges(shared) + (shared.size() == 1 ? " issues" : " issue") +
                            " IDs in both shards");
  }
  report.verdict = overlap > 0             ? Report::Verdict::kConflict
                   : !report.risks.empty() ? Report::Verdict::kRisk
                                           : Report::Verdict::kSafe;
  if (report.verdict != Report::Verdict::kRisk) report.risks.clear();
}

}  // namespace steadyflake::mergecheck
