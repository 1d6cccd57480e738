// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Check() and CheckSources(): the checker's stages in order, each in its own file.
//   1. collect.cpp: reads both inputs into key sets, one thread per input, and decodes integer
//      IDs into server ids; ordered_merge.cpp: compares the text keys both inputs' indexes sort
//      as the keys compare by walking the two indexes in order, one thread per input;
//      resolve.cpp: the hashes a dump's first pass kept as fingerprints, of the rows whose
//      fingerprints are in both inputs, read again by position (one thread per input);
//   2. compare.cpp: matches tables and keys (drift) and intersects the key sets;
//   3. reread.cpp: reads input A again for the values behind hashed keys in both inputs;
//      rows.cpp: reads both inputs again, the tables with keys in both, for whether the rows
//      of those keys are identical (by lookup of the values in both where the input can);
//      reread.cpp again: B's values of keys under a collation; compare.cpp lists the conflicts;
//   4. verdict.cpp: the shared server ids and the verdict.
// Stage 1 and the row comparison run on two threads; the rest on the caller's thread.

#include "check/checker.h"

#include <sys/stat.h>

#include <chrono>
#include <memory>

#include "check/collect.h"
#include "check/compare.h"
#include "check/ordered_merge.h"
#include "check/references.h"
#include "check/reread.h"
#include "check/resolve.h"
#include "check/verdict.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck {

// A and B must be two files: the same file twice (by another name, a link or a hard link)
// overlaps itself entirely, which says nothing about a merge.
void RefuseSameFile(const std::string& path_a, const std::string& path_b) {
  struct stat a {};
  struct stat b {};
  if (::stat(path_a.c_str(), &a) != 0 || ::stat(path_b.c_str(), &b) != 0)
    return;  // OpenSource says why
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
    throw Error(Error::Code::kInvalidArgument,
                path_a + " and " + path_b +
                    " are the same file; pass the two shards to merge (A the target, B the one "
                    "merged into it)");
  }
}

Report CheckSources(
    const std::string& path_a, Source& a, const std::string& path_b, Source& b,
    const Options& options, int64_t cutoff_ms,
    const std::function<void(const Collector& a, const Collector& b, Report& report)>& inspect) {
  Collector ca(options, 0, a);
  Collector cb(options, 1, b);
  CollectBoth(ca, cb, options.layout, cutoff_ms);
  MergeInIndexOrder(a, ca, b, cb, options.layout, cutoff_ms);
  // The indexes the merge's walks checked are done; what no walk read is checked now.
  a.FinishStructureCheck();
  b.FinishStructureCheck();
  // B's text compares under A's collations where the schemas differ: B is merged into A.
  const std::vector<Collector::Recollation> recollations = Recollations(ca, cb, options);
  if (!recollations.empty()) cb.Recollate(recollations, options.layout, cutoff_ms);
  // The hashes a dump's first pass kept only as fingerprints, where both inputs have them.
  ResolveFingerprints(a, ca, b, cb);

  Report report;
  report.inputs[0] = DescribeInput(path_a, a, ca);
  report.inputs[1] = DescribeInput(path_b, b, cb);
  Comparison comparison = Compare(ca, cb, options, report);
  PrepareDirectories(ca, cb, comparison.rows);
  Reread(a, ca, comparison.targets);
  LendValues(comparison);
  CompareRows(a, ca, b, cb, comparison.rows);
  TargetsOfB(comparison, options.limit);
  Reread(b, cb, comparison.targets_b);
  ListConflicts(comparison, options.limit, report);
  FindReferences(b, cb, comparison, options, report);

  Decide(report);
  if (inspect) inspect(ca, cb, report);
  return report;
}

int64_t CutoffOf(const Options& options) {
  constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;
  const int64_t now_ms =
      options.now_ms.value_or(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  return now_ms + kDayMs;
}

Report Check(const std::string& path_a, const std::string& path_b, const Options& options) {
  RefuseSameFile(path_a, path_b);
  const std::unique_ptr<Source> a = OpenSource(path_a);
  const std::unique_ptr<Source> b = OpenSource(path_b);
  return CheckSources(path_a, *a, path_b, *b, options, CutoffOf(options));
}

}  // namespace steadyflake::mergecheck
