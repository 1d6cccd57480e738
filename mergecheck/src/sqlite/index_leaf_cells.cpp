// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SixteenCells (index_leaf_cells.h). Each 32-bit lane is one cell: its offset widened from the
// pointer array, its first four bytes gathered (the payload size is the first), and the bounds
// Cell tests tested lane by lane.

#include "sqlite/index_leaf_cells.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STEADYFLAKE_INDEX_LEAF_CELLS_AVX512 1
#endif

namespace steadyflake::mergecheck::index_leaf_cells {

#ifdef STEADYFLAKE_INDEX_LEAF_CELLS_AVX512

namespace {

// Every lane: the intrinsics are called in their masked forms with all lanes kept, as
// table_leaf_cells.cpp does (GCC 12 warns that the plain forms' undefined source may be used
// uninitialised).
constexpr __mmask16 kAll = 0xffff;

}  // namespace

__attribute__((target("avx512f,avx512bw,avx512cd"))) bool SixteenCells(
    const unsigned char* base, const unsigned char* pointers, uint32_t first_cell, uint32_t usable,
    uint32_t max_local) {
  // The offsets: sixteen big-endian 16-bit values, their bytes swapped, widened to 32 bits.
  const __m256i swap16 = _mm256_set_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14,
                                         15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
  const __m256i pointer_bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pointers));
  const __m512i offset =
      _mm512_maskz_cvtepu16_epi32(kAll, _mm256_shuffle_epi8(pointer_bytes, swap16));
  // At or after the cell content area, four bytes of the page from it: the gather reads only
  // those.
  __mmask16 ok = _mm512_cmpge_epu32_mask(offset, _mm512_set1_epi32(static_cast<int>(first_cell)));
  ok &= _mm512_cmple_epu32_mask(offset, _mm512_set1_epi32(static_cast<int>(usable) - 4));
  if (ok != kAll) return false;
  const __m512i head = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), kAll, offset, base, 1);
  // Byte 0, the payload size, is one byte (under 128) the page keeps whole, and the payload
  // (after it) ends on the page.
  const __m512i payload = _mm512_and_si512(head, _mm512_set1_epi32(0xff));
  ok = _mm512_cmplt_epu32_mask(payload, _mm512_set1_epi32(0x80));
  ok &= _mm512_cmple_epu32_mask(payload, _mm512_set1_epi32(static_cast<int>(max_local)));
  const __m512i payload_end =
      _mm512_add_epi32(_mm512_add_epi32(offset, payload), _mm512_set1_epi32(1));
  ok &= _mm512_cmple_epu32_mask(payload_end, _mm512_set1_epi32(static_cast<int>(usable)));
  return ok == kAll;
}

#else

bool SixteenCells(const unsigned char*, const unsigned char*, uint32_t, uint32_t, uint32_t) {
  return false;
}

#endif

}  // namespace steadyflake::mergecheck::index_leaf_cells
