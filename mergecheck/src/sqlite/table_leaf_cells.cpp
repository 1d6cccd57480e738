// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// EightCells (table_leaf_cells.h). Each lane is one cell: its offset widened from the pointer
// array, its first ten bytes gathered as two overlapping words (bytes 0-7 and 2-9: the payload
// size and up to nine bytes of rowid), the rowid's length found by counting leading zeros
// (AVX-512 CD) and its 7-bit groups joined by the masks and shifts of
// page_file_internal::GetVarintOfEight, lane by lane.

#include "sqlite/table_leaf_cells.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define STEADYFLAKE_TABLE_LEAF_CELLS_AVX512 1
#endif

namespace steadyflake::mergecheck::table_leaf_cells {

#ifdef STEADYFLAKE_TABLE_LEAF_CELLS_AVX512

bool Here() {
  // libgcc's answer also asks the kernel whether it saves the registers. btree_check.cpp asks
  // in a static initializer, which may run before libgcc's own detection: GCC's manual has
  // __builtin_cpu_init called first there.
  static const bool here = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd");
  }();
  return here;
}

namespace {

// Every lane: the intrinsics are called in their masked forms with all lanes kept, as
// intersect_blocks.cpp does (GCC 12 warns that the plain forms' undefined source may be used
// uninitialised).
constexpr __mmask8 kAll = 0xff;

// One step of joining 7-bit groups in each lane: the groups under kUpper moved down kShift bits
// onto those under kLower.
template <int64_t kUpper, int64_t kLower, int kShift>
__attribute__((target("avx512f"))) inline __m512i Join(__m512i x) {
  return _mm512_or_si512(
      _mm512_maskz_srli_epi64(kAll, _mm512_and_si512(x, _mm512_set1_epi64(kUpper)), kShift),
      _mm512_and_si512(x, _mm512_set1_epi64(kLower)));
}

}  // namespace

__attribute__((target("avx512f,avx512bw,avx512cd"))) bool EightCells(
    const unsigned char* base, const unsigned char* pointers, uint32_t first_cell, uint32_t usable,
    bool any, int64_t last, int64_t* rowids) {
  // The offsets: eight big-endian 16-bit values, their bytes swapped, widened to 64 bits.
  const __m128i swap16 = _mm_set_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
  const __m128i pointer_bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pointers));
  const __m512i offset = _mm512_maskz_cvtepu16_epi64(kAll, _mm_shuffle_epi8(pointer_bytes, swap16));
  // At or after the cell content area, ten bytes of the page from it: the gathers below read
  // only those (bytes 0-7 and 2-9), the payload size and the rowid.
  __mmask8 ok = _mm512_cmpge_epu64_mask(offset, _mm512_set1_epi64(first_cell));
  ok &= _mm512_cmple_epu64_mask(offset, _mm512_set1_epi64(static_cast<int64_t>(usable) - 10));
  if (ok != 0xff) return false;
  const __m512i head =
      _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), kAll, offset, base, 1);  // bytes 0-7
  const __m512i tail =
      _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), kAll, offset, base + 2, 1);  // bytes 2-9
  // Byte 0, the payload size, is one byte: under 128.
  const __m512i payload = _mm512_and_si512(head, _mm512_set1_epi64(0xff));
  ok = _mm512_cmplt_epu64_mask(payload, _mm512_set1_epi64(0x80));
  // The rowid's bytes 1-8 (bytes 1-7 are head's, byte 8 tail's seventh), in order of
  // significance (byte 1 highest); its length is one more than the bytes before the first
  // whose high bit is clear, nine when bytes 1-8 all have it.
  const __m512i swap64 = _mm512_set_epi8(
      56, 57, 58, 59, 60, 61, 62, 63, 48, 49, 50, 51, 52, 53, 54, 55, 40, 41, 42, 43, 44, 45, 46,
      47, 32, 33, 34, 35, 36, 37, 38, 39, 24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19, 20, 21,
      22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  const __m512i bytes = _mm512_shuffle_epi8(
      _mm512_or_si512(
          _mm512_maskz_srli_epi64(kAll, head, 8),
          _mm512_and_si512(_mm512_maskz_slli_epi64(kAll, tail, 8),
                           _mm512_set1_epi64(static_cast<int64_t>(0xff00000000000000u)))),
      swap64);
  const __m512i high = _mm512_set1_epi64(static_cast<int64_t>(0x8080808080808080u));
  const __m512i ends = _mm512_maskz_andnot_epi64(kAll, bytes, high);
  const __m512i length = _mm512_add_epi64(
      _mm512_maskz_srli_epi64(kAll, _mm512_maskz_lzcnt_epi64(kAll, ends), 3), _mm512_set1_epi64(1));
  // The payload ends on the page: 1 + length + payload bytes from the cell's start (it is
  // under 128, so all of it is on the page: SQLite's smallest usable page keeps 222 bytes
  // whole).
  const __m512i payload_end = _mm512_add_epi64(_mm512_add_epi64(offset, payload),
                                               _mm512_add_epi64(length, _mm512_set1_epi64(1)));
  ok &= _mm512_cmple_epu64_mask(payload_end, _mm512_set1_epi64(usable));
  if (ok != 0xff) return false;
  // The rowid: the 7-bit groups of bytes 1-8 joined pairwise (56 bits); of a rowid of n <= 8
  // bytes, the top 7n of them (the rest are the payload's); of nine, all, then byte 9 whole.
  __m512i v = _mm512_and_si512(bytes, _mm512_set1_epi64(0x7f7f7f7f7f7f7f7f));
  v = Join<0x7f007f007f007f00, 0x007f007f007f007f, 1>(v);
  v = Join<0x3fff00003fff0000, 0x00003fff00003fff, 2>(v);
  v = Join<0x0fffffff00000000, 0x000000000fffffff, 4>(v);
  const __mmask8 nine = _mm512_cmpeq_epi64_mask(length, _mm512_set1_epi64(9));
  const __m512i unused_bits =  // 7 * (8 - n): 56 - 8n + n
      _mm512_add_epi64(
          _mm512_sub_epi64(_mm512_set1_epi64(56), _mm512_maskz_slli_epi64(kAll, length, 3)),
          length);
  const __m512i shorter = _mm512_maskz_srlv_epi64(kAll, v, unused_bits);
  const __m512i ninth = _mm512_maskz_srli_epi64(kAll, tail, 56);  // byte 9: tail's last
  const __m512i rowid =
      _mm512_mask_or_epi64(shorter, nine, _mm512_maskz_slli_epi64(kAll, v, 8), ninth);
  // Ascending: each above the one before it, the first above `last` when there is one.
  const __m512i before = _mm512_maskz_alignr_epi64(kAll, rowid, _mm512_set1_epi64(last), 7);
  const __mmask8 above = _mm512_cmpgt_epi64_mask(rowid, before);
  if ((above | (any ? 0 : 1)) != 0xff) return false;
  _mm512_storeu_si512(rowids, rowid);
  return true;
}

#else

bool Here() { return false; }

bool EightCells(const unsigned char*, const unsigned char*, uint32_t, uint32_t, bool, int64_t,
                int64_t*) {
  return false;
}

#endif

}  // namespace steadyflake::mergecheck::table_leaf_cells
