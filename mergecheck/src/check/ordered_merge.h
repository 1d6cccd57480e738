// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The merge in index order, the checker's stage between collection and comparison (issue 30):
// a UNIQUE or PRIMARY key whose index sorts it as the checker compares it needs neither hashes
// nor a sort. That is a text key under SQLite's BINARY, NOCASE or RTRIM, and a key of several
// columns each an integer (numeric order) or such a text, in the index's column order,
// ascending: (player_id, slot), (guild_id, name COLLATE NOCASE). Each input's index gives its
// tuples in that order (Source::ReadInIndexOrder), and one walk along both sorted streams finds
// the tuples in both, as the merge step of a merge sort does: memory is the tuples in both,
// nothing per key. A table whose every key is read so is not scanned at all: the merge counts
// its rows.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_ORDERED_MERGE_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_ORDERED_MERGE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "check/collect.h"
#include "source/source.h"
#include "steadyflake/layout.h"

namespace steadyflake::mergecheck {

// Tuples a reader hands the merge at once (a batch). Tests place damage at a batch's edge.
inline constexpr std::size_t kOrderedMergeBatch = 4096;

// What one thread of the merge may hold ahead of the other, in bytes of tuples (fields and
// text): `handed` over to the other and not yet taken (at least one batch), and `kept`, its own
// tuples kept to merge once the other's are there. Enough for one thread to read on while the
// other merges (ordered_merge.cpp, Side), and a bound on the memory that costs.
struct OrderedMergeLimits {
  std::size_t handed = std::size_t{16} << 20;
  std::size_t kept = std::size_t{16} << 20;
};
// Sets the limits of the merges that start from now on (tests make them small, to exercise the
// waits); returns those before.
OrderedMergeLimits SetOrderedMergeLimits(const OrderedMergeLimits& limits);

// The order SQLite's index of collation `name` (BINARY, NOCASE, RTRIM) keeps text in: <0, 0, >0.
// Two texts compare 0 exactly when the checker's Collation of that name calls them equal.
// REQUIRES: name is one of the three (case-insensitive).
int CompareInIndexOrder(std::string_view name, std::string_view a, std::string_view b);

// For every key both inputs deferred (KeyState::deferred) with the same column types and
// collations: reads both indexes in order, at once (on two threads), and fills each side's
// KeyState::merged, and the rows of a table no scan read (Collector::CountRows). A key deferred
// on one side only, under different collations, or whose stream is not what the merge needs (a
// NULL-free tuple holding a value its column does not order: a real or text in an integer
// column, a number in a text column; values out of order; an input that cannot give the order
// now) goes back to the key sets (Collector::Undefer), as if never deferred; so does a deferred
// key with no partner whose table no scan read, to count its rows. Throws what the sources throw
// (A's error first).
void MergeInIndexOrder(Source& a, Collector& ca, Source& b, Collector& cb, const Layout& layout,
                       int64_t cutoff_ms);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_ORDERED_MERGE_H_
