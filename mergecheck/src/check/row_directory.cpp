// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Select tests each row's fingerprints against a bitmap of the wanted ones (about 128 bits per
// wanted value, 16 KB for a thousand, in the first-level cache; a row of another value passes
// it about once in 128) and then against the sorted list, whose binary search costs as much as
// dozens of bitmap tests (at 32 bits a value, the scan of 2M rows and two keys took 10.5 ms; at
// 128, 5 ms). So a table of millions of rows and a thousand wanted values costs one pass over
// the fingerprints of each wanted key. Prepare does that once for all the passes' values, and
// their Selects then scan only the rows it kept.

#include "check/row_directory.h"

#include <algorithm>
#include <bit>

namespace steadyflake::mergecheck {

std::vector<std::size_t> RowDirectory::Scan(std::span<const Wanted> wanted, std::size_t rows,
                                            const uint32_t* fingerprints) const {
  std::vector<uint32_t> sorted;
  // One key at a time, each a loop of a few instructions a row over its fingerprints; a row
  // found by two keys is listed twice, then once.
  std::vector<std::size_t> hits;  // row indexes
  for (const Wanted& w : wanted) {
    if (w.fingerprints.empty() || w.key >= keys_) continue;
    sorted = w.fingerprints;
    std::sort(sorted.begin(), sorted.end());
    FingerprintFilter filter(sorted.size(), 128);
    for (const uint32_t fp : sorted) filter.Add(fp);
    for (std::size_t row = 0, at = w.key; row < rows; ++row, at += keys_) {
      const uint32_t fp = fingerprints[at];
      if (!filter.MayHold(fp)) continue;
      if (std::binary_search(sorted.begin(), sorted.end(), fp)) hits.push_back(row);
    }
  }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  return hits;
}

std::vector<uint64_t> RowDirectory::PositionsOf(std::span<const std::size_t> rows) const {
  std::vector<uint64_t> positions;
  positions.reserve(rows.size());
  auto high = highs_.begin();  // the rows ascend: so do the High entries that apply
  uint64_t bits = 0;
  for (const std::size_t row : rows) {
    for (; high != highs_.end() && high->first <= row; ++high) bits = uint64_t{high->high} << 32;
    positions.push_back(bits | low_.begin()[row]);
  }
  return positions;
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
    const Prepared& p = *prepared_;
    for (const std::size_t row : Scan(wanted, p.positions.size(), p.fingerprints.data())) {
      positions.push_back(p.positions[row]);
    }
  } else {
    positions = PositionsOf(Scan(wanted, rows(), fingerprints_.begin()));
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
  const std::vector<std::size_t> hits = Scan(wanted, rows(), fingerprints_.begin());
  p.positions = PositionsOf(hits);
  for (const std::size_t row : hits) {
    const uint32_t* at = fingerprints_.begin() + row * keys_;
    p.fingerprints.insert(p.fingerprints.end(), at, at + keys_);
  }
  prepared_ = std::move(p);
}

}  // namespace steadyflake::mergecheck
