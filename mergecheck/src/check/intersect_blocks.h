// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The intersection of two sorted arrays of 64-bit integers a block at a time, with the vector
// instructions of x86-64 (AVX2: blocks of 4, AVX-512: blocks of 8): each step compares a block
// of `a` with a block of `b`, every value with every value, and moves on past the block whose
// last value is lower (both when equal), with no branch on the values. A merge a value at a time
// branches on each comparison, which goes either way at random for random ids; on 2M random ids
// a side the blocks of 8 took a fifth of the time of key_set.h's merge in lanes, the blocks of 4
// half. Where neither instruction set is there (another processor, another architecture),
// IntersectRange merges as before.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_INTERSECT_BLOCKS_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_INTERSECT_BLOCKS_H_

#include <cstdint>
#include <span>
#include <vector>

namespace steadyflake::mergecheck::key_set_internal {

// The values a block holds: 0 where this processor has neither AVX2 nor AVX-512.
int BlockWidthHere();

// Counts the values in both of `a` and `b` (each ascending, no value twice) and appends the
// first `limit` of them (all when 0) to `common`, ascending, comparing blocks of `width` (4 or
// 8) values. REQUIRES: width is BlockWidthHere() or, when that is 8, 4.
uint64_t IntersectBlocks(int width, std::span<const int64_t> a, std::span<const int64_t> b,
                         uint64_t limit, std::vector<int64_t>& common);

}  // namespace steadyflake::mergecheck::key_set_internal

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_INTERSECT_BLOCKS_H_
