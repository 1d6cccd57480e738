// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The merge in index order of a key of one text column (a UNIQUE name), in parts: the key range
// is split at keys of A's index (Source::SplitsInIndexOrder), and each of two threads takes the
// next part not taken, reads both inputs' records of it with cursors of its own
// (Source::WithKeyCursors) and merges them where they lie on the pages it read. Nothing is copied
// but the keys in both, and nothing passes between the threads but each part's result: the
// merge of ordered_merge.cpp, where each thread reads one input whole and hands the other the
// tuples of the parts it merges, copied each tuple once into a batch and read it on the other
// core (two thirds of that merge's time on random names).
//
// Trust, as in ordered_merge.cpp: every key of a part is checked against the one before it
// (strictly greater, or equal: a repeat), the first against the part's lower bound, and the
// NULLs must come first; a number in the column gives up. Every text key of a part must begin
// with the prefix its two bounds share, as each key of a sorted index between them does: the
// keys are then compared by their next eight bytes as one word (their head), and wholly only
// where two heads are the same. And every record is read exactly once:
// each part's walk on an input must begin at the very record where the walk of the part before
// stopped (KeyCursor::Position), the last must end at the index's end. So the parts together
// are one walk of each index, in order, as a single cursor's would be: a damaged or unsorted
// index, or one whose collation is not the one assumed, cannot make a part skip records or read
// them twice unseen. The indexes' structure is checked before, beside the scan of their tables
// (SqliteSource); a source that has not checked it gives no cursors.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_MERGE_IN_PARTS_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_MERGE_IN_PARTS_H_

#include <cstdint>
#include <span>
#include <string>

#include "check/collect.h"
#include "source/key_cursor.h"
#include "source/source.h"
#include "source/text_order.h"

namespace steadyflake::mergecheck {

enum class InParts {
  kMerged,     // ka.merged, kb.merged and `records` filled
  kUntrusted,  // the indexes are not what the merge needs: the key goes back to the key sets
  kCannot,     // a source gives no cursors: the merge of ordered_merge.cpp reads the key
};

// Merges key `ka` / `kb` of `table`, one text column sorted under `order` in both inputs, in
// parts split at `splits` (A's, Source::SplitsInIndexOrder; any keys, in any order: none when
// one is not a text or a blob); on kMerged, records[i] is input i's index records (NULLs too).
// Throws what the sources throw (A's error first).
InParts MergeInParts(Source& a, Source& b, const std::string& table, text_order::Order order,
                     std::span<const KeyRef> splits, KeyState& ka, KeyState& kb,
                     uint64_t (&records)[2]);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_MERGE_IN_PARTS_H_
