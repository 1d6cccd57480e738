// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Select tests each row's fingerprints against a bitmap of the wanted ones (about 32 bits per
// wanted value, so a row of another value passes it about once in 32) and then against the
// sorted list, so a table of millions of rows and a thousand wanted values costs one pass over
// the fingerprints.

#include "check/row_directory.h"

#include <algorithm>
#include <bit>

namespace steadyflake::mergecheck {

std::vector<uint64_t> RowDirectory::Select(std::span<const Wanted> wanted) const {
  struct Filter {
    std::size_t key;
    std::vector<uint32_t> sorted;
    std::vector<uint64_t> bits;
    uint32_t mask;
  };
  std::vector<Filter> filters;
  for (const Wanted& w : wanted) {
    if (w.fingerprints.empty() || w.key >= keys_) continue;
    Filter& f = filters.emplace_back();
    f.key = w.key;
    f.sorted = w.fingerprints;
    std::sort(f.sorted.begin(), f.sorted.end());
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(64, f.sorted.size() * 32));
    f.bits.assign(size / 64, 0);
    f.mask = static_cast<uint32_t>(size - 1);
    for (const uint32_t fp : f.sorted) f.bits[(fp & f.mask) >> 6] |= uint64_t{1} << (fp & 63);
  }
  std::vector<uint64_t> positions;
  for (std::size_t row = 0; row < positions_.size(); ++row) {
    const uint32_t* fps = fingerprints_.data() + row * keys_;
    for (const Filter& f : filters) {
      const uint32_t fp = fps[f.key];
      if ((f.bits[(fp & f.mask) >> 6] >> (fp & 63) & 1) == 0) continue;
      if (!std::binary_search(f.sorted.begin(), f.sorted.end(), fp)) continue;
      positions.push_back(positions_[row]);
      break;
    }
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

}  // namespace steadyflake::mergecheck
