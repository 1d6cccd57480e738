// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The re-read of input A, the checker's second pass: a hashed key's set holds only 128-bit
// hashes, so the values behind the hashes found in both inputs are read again from input A for
// the report's list of conflicts.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_REREAD_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_REREAD_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "check/collect.h"
#include "check/key_set.h"
#include "source/source.h"

namespace steadyflake::mergecheck {

// One hashed key of an input whose values are wanted.
struct RereadTarget {
  const KeyState* key;          // in the Collector of the input read
  std::vector<Hash128> hashes;  // the hashes in both inputs, sorted
  uint64_t limit;               // values wanted; 0: all
  // Filled by Reread: the values of A's rows whose key hashes to one of `hashes`, in no
  // particular order, with duplicates. When `limit` is not 0 it is cut down along the way (to
  // the first `limit` distinct values) so it never holds many more than 2 * limit + 1024.
  std::vector<std::vector<OwnedValue>> found;
  // Values whose rows are the ones wanted (input A's, for input B's of a key under a
  // collation): when set, the rows are looked up by them (Source::LookUpValues) where the
  // source can, rather than scanned for.
  const std::vector<std::vector<OwnedValue>>* look_up = nullptr;
  // `found` holds every value already (the merge in index order gave them): not read again.
  bool done = false;
};

// The targets by table name.
using RereadTargets = std::map<std::string, std::vector<RereadTarget>>;

// Reads `a` once more, only the tables `targets` names (nothing when it is empty), filling each
// target's `found`: by lookup where every target of a table has `look_up` values and the source
// can look them up, else by a scan. `collected_a` is the Collector that read `a` (its tables' final
// columns). Throws what the source throws. (Input B is read this way too, for the values of B that
// collide with A's under a collation: 'alice' for A's 'Alice'.)
void Reread(Source& a, const Collector& collected_a, RereadTargets& targets);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_REREAD_H_
