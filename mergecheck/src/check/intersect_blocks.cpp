// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Why the blocks find every value in both once: a block is passed by only when its last value
// is not above the other block's last, so a value of it that the other array holds lies in the
// other's current block or in one already compared with it (had it lain in an earlier block of
// the other, that one would have been passed by while this block was current). When either
// array has less than a block left, the rest is merged a value at a time from where the blocks
// stopped, and what that merge finds lies past both positions: nothing is found twice.

#include "check/intersect_blocks.h"

#include <bit>
#include <cstddef>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace steadyflake::mergecheck::key_set_internal {

namespace {

// The values in both: counted, and the first `limit` (all when 0) kept.
struct Found {
  uint64_t limit;
  std::vector<int64_t>& common;
  uint64_t count = 0;

  void Add(int64_t value) {
    if (limit == 0 || count < limit) common.push_back(value);
    ++count;
  }
  // The values of `block` whose bits are set in `mask` (bit k: block[k]), in order.
  void AddBits(const int64_t* block, unsigned mask) {
    for (; mask != 0; mask &= mask - 1) Add(block[std::countr_zero(mask)]);
  }
};

// A value at a time, from a[i] and b[j] to the end of either.
void MergeRest(std::span<const int64_t> a, std::size_t i, std::span<const int64_t> b, std::size_t j,
               Found& found) {
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      found.Add(a[i]);
      ++i;
      ++j;
    }
  }
}

// The block loop's steps, shared by the widths (no vector instructions: inlined into each).
// Whether both arrays have a block of kWidth left at i and j.
template <std::size_t kWidth>
inline bool BothHaveABlock(std::span<const int64_t> a, std::size_t i, std::span<const int64_t> b,
                           std::size_t j) {
  return i + kWidth <= a.size() && j + kWidth <= b.size();
}
// Keeps the values of a's block found in b's (`mask`), then passes by the block whose last value
// is lower, both when they are equal.
template <std::size_t kWidth>
inline void NextBlocks(std::span<const int64_t> a, std::size_t& i, std::span<const int64_t> b,
                       std::size_t& j, unsigned mask, Found& found) {
  if (mask != 0) [[unlikely]] {
    found.AddBits(a.data() + i, mask);
  }
  const int64_t last_a = a[i + kWidth - 1];
  const int64_t last_b = b[j + kWidth - 1];
  i += kWidth * static_cast<std::size_t>(last_a <= last_b);
  j += kWidth * static_cast<std::size_t>(last_b <= last_a);
}

#if defined(__x86_64__)

// Blocks of 4 with AVX2: the block of b compared as it is and rotated by one, two and three
// values, so that each value of a's block meets each of b's.
__attribute__((target("avx2"))) void Blocks4(std::span<const int64_t> a, std::span<const int64_t> b,
                                             Found& found) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (BothHaveABlock<4>(a, i, b, j)) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.data() + i));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.data() + j));
    const __m256i equal =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi64(x, y),
                                        _mm256_cmpeq_epi64(x, _mm256_permute4x64_epi64(y, 0x39))),
                        _mm256_or_si256(_mm256_cmpeq_epi64(x, _mm256_permute4x64_epi64(y, 0x4e)),
                                        _mm256_cmpeq_epi64(x, _mm256_permute4x64_epi64(y, 0x93))));
    const auto mask = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(equal)));
    NextBlocks<4>(a, i, b, j, mask, found);
  }
  MergeRest(a, i, b, j, found);
}

// `y` rotated by kBy values. (The masked form, all lanes kept: GCC 12 warns that the plain
// one's undefined source may be used uninitialised.)
template <int kBy>
__attribute__((target("avx512f"))) inline __m512i Rotate(__m512i y) {
  return _mm512_maskz_alignr_epi64(0xff, y, y, kBy);
}

// Blocks of 8 with AVX-512, as Blocks4: b's block rotated by one to seven values.
__attribute__((target("avx512f"))) void Blocks8(std::span<const int64_t> a,
                                                std::span<const int64_t> b, Found& found) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (BothHaveABlock<8>(a, i, b, j)) {
    const __m512i x = _mm512_loadu_si512(a.data() + i);
    const __m512i y = _mm512_loadu_si512(b.data() + j);
    __mmask8 equal = _mm512_cmpeq_epi64_mask(x, y);
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<1>(y));
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<2>(y));
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<3>(y));
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<4>(y));
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<5>(y));
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<6>(y));
    equal |= _mm512_cmpeq_epi64_mask(x, Rotate<7>(y));
    NextBlocks<8>(a, i, b, j, equal, found);
  }
  MergeRest(a, i, b, j, found);
}

#endif  // defined(__x86_64__)

}  // namespace

int BlockWidthHere() {
#if defined(__x86_64__)
  // libgcc's (and compiler-rt's) answer also asks the kernel whether it saves the registers.
  static const int width = __builtin_cpu_supports("avx512f") ? 8
                           : __builtin_cpu_supports("avx2")  ? 4
                                                             : 0;
  return width;
#else
  return 0;
#endif
}

uint64_t IntersectBlocks(int width, std::span<const int64_t> a, std::span<const int64_t> b,
                         uint64_t limit, std::vector<int64_t>& common) {
  Found found{limit, common};
#if defined(__x86_64__)
  if (width == 8) {
    Blocks8(a, b, found);
    return found.count;
  }
  if (width == 4) {
    Blocks4(a, b, found);
    return found.count;
  }
#endif
  MergeRest(a, 0, b, 0, found);
  return found.count;
}

}  // namespace steadyflake::mergecheck::key_set_internal
