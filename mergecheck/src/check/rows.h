// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The whole-row comparison, the checker's pass after the key comparison (design section 10):
// for every key value in both inputs, whether the two rows are identical (a seeded reference
// row, which a merge may skip) or differ (a real conflict). Only the tables with overlapping
// keys are read again, both inputs at once: from a SQLite file, where the common values are
// known (integers, integer pairs, and text or other values that input A gave again, reread.h),
// by one indexed lookup per value (the cost is that of the overlap); else by a scan of those
// tables. Only the rows whose key is one of the common values are hashed, so the memory is that
// of the overlap.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_ROWS_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_ROWS_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "check/collect.h"
#include "check/key_set.h"
#include "source/source.h"

namespace steadyflake::mergecheck {

// One key value of any of the three kinds a key set holds (key_set.h 2.), comparable.
struct KeyId {
  enum class Kind : uint8_t { kInteger, kPair, kHash };
  Kind kind = Kind::kInteger;
  Hash128 bits;
  friend auto operator<=>(const KeyId&, const KeyId&) = default;
};

KeyId IdOfInteger(int64_t value);
KeyId IdOfPair(const IntegerPair& pair);
KeyId IdOfHash(const Hash128& hash);
// The KeyId of the values `tuple` (after affinity, none NULL) of `key`: what KeyOf gives a row
// with those values.
KeyId IdOfValues(const KeyState& key, const std::vector<OwnedValue>& tuple);

// One key with values in both inputs.
struct RowTarget {
  const KeyState* key[2] = {};   // the key in A's and in B's Collector
  std::vector<KeyId> common;     // the values in both, sorted
  std::vector<KeyId> identical;  // filled by CompareRows: those whose rows are equal, sorted
  // Input A's values (after affinity) of every hashed value of `common`, when they are all
  // known (RereadTarget::found with no limit): then each is looked up rather than scanned for.
  const std::vector<std::vector<OwnedValue>>* values = nullptr;
};

// Whether looking up `values` values of a table of `rows` rows (fewer than either input holds)
// costs less than scanning it: a lookup reads a root-to-leaf path, a scan every page.
inline bool LookUpPays(uint64_t values, uint64_t rows) { return values <= rows / 16; }

// The targets by table name.
using RowTargets = std::map<std::string, std::vector<RowTarget>>;

// Prepares the row directories of `ca` and `cb` (RowDirectory::Prepare) for every value in
// both of every target's key, A's on the calling thread and B's on another: the passes after
// the comparison (Reread, CompareRows) read rows of some of those values by position, and one
// scan of each directory then serves them all.
void PrepareDirectories(const Collector& ca, const Collector& cb, const RowTargets& targets);

// Reads the tables `targets` names again from both inputs, whole rows, on two threads, and
// fills each target's `identical`: the common values whose row in A equals their row in B in
// every column (matched by name, values after affinity, text compared as bytes). `ca` and `cb`
// are the Collectors that read `a` and `b` (where their rows are). Throws what the sources throw
// (A's error first).
void CompareRows(Source& a, const Collector& ca, Source& b, const Collector& cb,
                 RowTargets& targets);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_ROWS_H_
