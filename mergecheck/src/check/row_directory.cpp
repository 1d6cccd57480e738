// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Select tests each row's fingerprints against a bitmap of the wanted ones (about 32 bits per
// wanted value, so a row of another value passes it about once in 32) and then against the
// sorted list, so a table of millions of rows and a thousand wanted values costs one pass over
// the fingerprints of each wanted key. Prepare does that once for all the passes' values, and
// their Selects then scan only the rows it kept.

#include "check/row_directory.h"

#include <algorithm>
#include <bit>

namespace steadyflake::mergecheck {

std::vector<uint64_t> RowDirectory::Scan(std::span<const Wanted> wanted,
                                         std::span<const uint64_t> positions,
                                         const uint32_t* fingerprints,
                                         std::vector<uint32_t>* kept) const {
  std::vector<uint64_t> found;
  std::vector<uint32_t> sorted;
  std::vector<uint64_t> bits;
  const std::size_t rows = positions.size();
  // One key at a time, each a loop of a few instructions a row over its fingerprints; a row
  // found by two keys is listed twice, then once.
  std::vector<std::size_t> hits;  // row indexes
  for (const Wanted& w : wanted) {
    if (w.fingerprints.empty() || w.key >= keys_) continue;
    sorted = w.fingerprints;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(64, sorted.size() * 32));
    bits.assign(size / 64, 0);
    const auto mask = static_cast<uint32_t>(size - 1);
    for (const uint32_t fp : sorted) bits[(fp & mask) >> 6] |= uint64_t{1} << (fp & 63);
    const uint64_t* filter = bits.data();
    for (std::size_t row = 0, at = w.key; row < rows; ++row, at += keys_) {
      const uint32_t fp = fingerprints[at];
      if ((filter[(fp & mask) >> 6] >> (fp & 63) & 1) == 0) continue;
      if (std::binary_search(sorted.begin(), sorted.end(), fp)) hits.push_back(row);
    }
  }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  for (const std::size_t row : hits) {
    found.push_back(positions[row]);
    if (kept != nullptr)
      kept->insert(kept->end(), fingerprints + row * keys_, fingerprints + (row + 1) * keys_);
  }
  return found;
}

std::vector<uint64_t> RowDirectory::Select(std::span<const Wanted> wanted) const {
  const auto covered = [&] {
    if (!prepared_.has_value() || prepared_->rows != rows()) return false;
    for (const Wanted& w : wanted) {
      if (w.fingerprints.empty() || w.key >= keys_) continue;
      const std::vector<uint32_t>& given = prepared_->wanted[w.key];
      for (const uint32_t fp : w.fingerprints) {
        if (!std::binary_search(given.begin(), given.end(), fp)) return false;
      }
    }
    return true;
  };
  std::vector<uint64_t> positions;
  if (covered()) {
    positions = Scan(wanted, prepared_->positions, prepared_->fingerprints.data(), nullptr);
  } else {
    positions = Scan(wanted, positions_.span(), fingerprints_.begin(), nullptr);
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

void RowDirectory::Prepare(std::span<const Wanted> wanted) const {
  Prepared p;
  p.rows = rows();
  p.wanted.resize(keys_);
  for (const Wanted& w : wanted) {
    if (w.key >= keys_) continue;
    std::vector<uint32_t>& given = p.wanted[w.key];
    given.insert(given.end(), w.fingerprints.begin(), w.fingerprints.end());
  }
  for (std::vector<uint32_t>& given : p.wanted) {
    std::sort(given.begin(), given.end());
    given.erase(std::unique(given.begin(), given.end()), given.end());
  }
  p.positions = Scan(wanted, positions_.span(), fingerprints_.begin(), &p.fingerprints);
  prepared_ = std::move(p);
}

}  // namespace steadyflake::mergecheck
