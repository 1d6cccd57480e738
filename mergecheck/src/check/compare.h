// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Comparison, the checker's stage between collection and the re-read: matches the two inputs'
// tables and keys, reports what one input has and the other lacks (drift), intersects the key
// sets of every matched key, and lists the conflicting values in the report.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_COMPARE_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "check/collect.h"
#include "check/reread.h"
#include "check/rows.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

// What Compare leaves for the re-read of input A and for ListConflicts.
struct Comparison {
  // The hashed keys whose values input A must give again.
  RereadTargets targets;
  // Of those, the keys under a collation (two different values may be one key): input B gives
  // its values of the hashes A's listed values have, so a conflict shows both ('Alice' =
  // 'alice'). Filled by TargetsOfB once A was read again.
  RereadTargets targets_b;
  // Every key with values in both inputs, for CompareRows (identical or differing rows).
  RowTargets rows;
  // One per KeyReport Compare added.
  struct Pending {
    std::size_t report_index;  // into Report::keys
    std::string table;
    std::vector<int64_t> integers;        // the integers in both inputs, ascending
    std::vector<IntegerPair> pairs;       // the same of integer pairs
    std::optional<std::size_t> target;    // its RereadTarget in targets[table], if any
    const KeyState* key_b = nullptr;      // the key in B
    std::optional<std::size_t> target_b;  // its RereadTarget in targets_b[table], if any
    std::optional<std::size_t> rows;      // its RowTarget in rows[table], if any
  };
  std::vector<Pending> pending;
};

// Once Reread has filled `comparison.targets` from A: gives each RowTarget whose hashed values
// A gave again in full (RereadTarget::limit 0) those values, so CompareRows looks them up.
void LendValues(Comparison& comparison);

// Once Reread has filled `comparison.targets` from A (and CompareRows is done with them): for
// each key under a collation, cuts its
// values down to the first `limit` and sets its comparison.targets_b entry to their hashes
// and values, for Reread of B.
void TargetsOfB(Comparison& comparison, uint64_t limit);

// Compares the key sets `a` and `b` collected (each sorted and deduplicated) for the tables
// Options::tables selects. Appends to report.keys one KeyReport per key found in both inputs
// (tables by name; keys primary first, then by columns; conflicts still empty), to report.drift
// what only one input has (sorted), and to report.servers_a and servers_b the server ids of
// keys decoded in both. Throws Error(kInvalidArgument) when Options::tables or extra_keys name a
// table neither input has.
Comparison Compare(const Collector& a, const Collector& b, const Options& options, Report& report);

// The keys of B whose columns A's schema gives other collations (design section 10: the
// target's collation decides): what Collector::Recollate must do to B before Compare.
std::vector<Collector::Recollation> Recollations(const Collector& a, const Collector& b,
                                                 const Options& options);

// Fills each KeyReport's conflicts from `comparison` once Reread and CompareRows have filled its
// targets: the first `limit` (all when 0) distinct values in both inputs, ascending in SQLite's
// order, whether each one's rows are identical, and the counts of identical and differing.
void ListConflicts(Comparison& comparison, uint64_t limit, Report& report);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_COMPARE_H_
