// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Select tests each row's fingerprints against a bitmap of the wanted ones (about 32 bits per
// wanted value, so a row of another value passes it about once in 32) and then against the
// sorted list, so a table of millions of rows and a thousand wanted values costs one pass over
// the fingerprints of each wanted key.

#include "check/row_directory.h"

#include <algorithm>
#include <bit>

namespace steadyflake::mergecheck {

std::vector<uint64_t> RowDirectory::Select(std::span<const Wanted> wanted) const {
  std::vector<uint64_t> positions;
  std::vector<uint32_t> sorted;
  std::vector<uint64_t> bits;
  const std::size_t rows = positions_.size();
  // One key at a time, each a loop of a few instructions a row over its fingerprints; a row
  // found by two keys is listed twice, then once.
  for (const Wanted& w : wanted) {
    if (w.fingerprints.empty() || w.key >= keys_) continue;
    sorted = w.fingerprints;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(64, sorted.size() * 32));
    bits.assign(size / 64, 0);
    const auto mask = static_cast<uint32_t>(size - 1);
    for (const uint32_t fp : sorted) bits[(fp & mask) >> 6] |= uint64_t{1} << (fp & 63);
    const uint32_t* fps = fingerprints_.begin();
    const uint64_t* filter = bits.data();
    for (std::size_t row = 0, at = w.key; row < rows; ++row, at += keys_) {
      const uint32_t fp = fps[at];
      if ((filter[(fp & mask) >> 6] >> (fp & 63) & 1) == 0) continue;
      if (std::binary_search(sorted.begin(), sorted.end(), fp)) {
        positions.push_back(positions_.begin()[row]);
      }
    }
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

}  // namespace steadyflake::mergecheck
