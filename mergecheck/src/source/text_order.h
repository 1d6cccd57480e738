// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The order SQLite's indexes keep text in under its built-in collations (BINARY, NOCASE,
// RTRIM): the merge in index order compares two files' keys by it (check/ordered_merge.h), and
// a lookup seeks an index by it (sqlite/index_seek.h).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_TEXT_ORDER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_TEXT_ORDER_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::text_order {

// How the values of one key column sort in its index: an integer column, or text under a
// collation.
enum class Order : uint8_t { kInteger, kBinary, kNocase, kRtrim };

inline int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// memcmp's order, then the shorter first. Eight bytes at a time: loaded big-endian, two words
// compare as unsigned integers in the order their bytes do. Keys sorted next to each other
// share long prefixes (`hero_3fa0c1…` after `hero_3fa0bd…`), and a byte loop over them was the
// largest cost of both the readers' order check and the merge (perf, issue 30).
inline int CompareBytes(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= n; i += 8) {
      uint64_t x = 0;
      uint64_t y = 0;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
    }
  }
  for (; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

inline unsigned char Lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

inline int CompareText(Order order, std::string_view a, std::string_view b) {
  if (order == Order::kNocase) {
    // SQLite's nocaseCollatingFunc: ASCII letters folded, then the shorter first. Eight bytes
    // the same are the same folded: those are stepped over a word at a time.
    const std::size_t n = std::min(a.size(), b.size());
    std::size_t i = 0;
    for (; i + 8 <= n && std::memcmp(a.data() + i, b.data() + i, 8) == 0; i += 8) {
    }
    for (; i < n; ++i) {
      const int c =
          Lower(static_cast<unsigned char>(a[i])) - Lower(static_cast<unsigned char>(b[i]));
      if (c != 0) return Sign(c);
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  if (order == Order::kRtrim) {
    while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
    while (!b.empty() && b.back() == ' ') b.remove_suffix(1);
  }
  return CompareBytes(a, b);
}

inline Order TextOrder(std::string_view collation) {
  if (EqualsIgnoreCase(collation, "NOCASE")) return Order::kNocase;
  if (EqualsIgnoreCase(collation, "RTRIM")) return Order::kRtrim;
  return Order::kBinary;
}

}  // namespace steadyflake::mergecheck::text_order

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_TEXT_ORDER_H_
