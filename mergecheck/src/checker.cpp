// Copyright 2026 The steadyflake Authors.
//
// Check(): reads both inputs in parallel into key sets (collect.cpp), intersects them, decodes
// integer IDs into server ids, and rereads input A for the values of conflicting hashed keys.

#include "checker.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <memory>

#include "collect.h"
#include "compare.h"
#include "reread.h"

namespace steadyflake::mergecheck {

Report CheckSources(const std::string& path_a, Source& a, const std::string& path_b, Source& b,
                    const Options& options, int64_t cutoff_ms) {
  Collector ca(options, 0, a);
  Collector cb(options, 1, b);
  CollectBoth(ca, cb, options.layout, cutoff_ms);

  Report report;
  report.inputs[0] = DescribeInput(path_a, a, ca);
  report.inputs[1] = DescribeInput(path_b, b, cb);
  Comparison comparison = Compare(ca, cb, options, report);
  Reread(a, ca, comparison.targets);
  ListConflicts(comparison, options.limit, report);

  std::set_intersection(report.servers_a.begin(), report.servers_a.end(), report.servers_b.begin(),
                        report.servers_b.end(), std::back_inserter(report.servers_shared));
  uint64_t overlap = 0;
  for (const KeyReport& k : report.keys) overlap += k.overlap;
  report.verdict = overlap > 0                      ? Report::Verdict::kConflict
                   : !report.servers_shared.empty() ? Report::Verdict::kRisk
                                                    : Report::Verdict::kSafe;
  return report;
}

Report Check(const std::string& path_a, const std::string& path_b, const Options& options) {
  const std::unique_ptr<Source> a = OpenSource(path_a);
  const std::unique_ptr<Source> b = OpenSource(path_b);
  constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;
  const int64_t now_ms =
      options.now_ms.value_or(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  const int64_t cutoff_ms = now_ms + kDayMs;
  return CheckSources(path_a, *a, path_b, *b, options, cutoff_ms);
}

}  // namespace steadyflake::mergecheck
