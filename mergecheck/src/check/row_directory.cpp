// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Select tests each row's fingerprints against a bitmap of the wanted ones (about 128 bits per
// wanted value, 16 KB for a thousand, in the first-level cache; a row of another value passes
// it about once in 128) and then against the sorted list, whose binary search costs as much as
// dozens of bitmap tests (at 32 bits a value, the scan of 2M rows and two keys took 10.5 ms; at
// 128, 5 ms). So a table of millions of rows and a thousand wanted values costs one pass over
// the fingerprints of each wanted key. Prepare does that once for all the passes' values, and
// their Selects then scan only the rows it kept; a Prepare whose values of a key are among the
// last one's scans that one's rows (resolve.cpp prepares the rows of the fingerprints in both
// inputs, rows.cpp then those of the values in both: 5 ms a side at 2M rows, now 0.3). A key
// kept in row order ascending is not scanned at all: its rows are found by binary search.

#include "check/row_directory.h"

#include <algorithm>
#include <bit>

namespace steadyflake::mergecheck {

std::vector<std::size_t> RowDirectory::Scan(std::span<const Wanted> wanted) const {
  const Prepared* prepared =
      prepared_.has_value() && prepared_->rows == rows() ? &*prepared_ : nullptr;
  std::vector<uint32_t> sorted;
  // One key at a time, each a loop of a few instructions a row over its fingerprints; a row
  // found by two keys is listed twice, then once.
  std::vector<std::size_t> hits;  // row indexes
  for (const Wanted& w : wanted) {
    if (w.fingerprints.empty() || w.key >= keys_) continue;
    if (ByIntegers(w)) {
      FindIntegers(w, hits);
      continue;
    }
    sorted = w.fingerprints;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    FingerprintFilter filter(sorted.size(), 128);
    for (const uint32_t fp : sorted) filter.Add(fp);
    const auto test = [&](std::size_t row, uint32_t fp) {
      if (filter.MayHold(fp) && std::binary_search(sorted.begin(), sorted.end(), fp)) {
        hits.push_back(row);
      }
    };
    if (prepared != nullptr &&
        std::includes(prepared->wanted[w.key].begin(), prepared->wanted[w.key].end(),
                      sorted.begin(), sorted.end())) {
      for (const std::size_t row : prepared->selected) test(row, FingerprintAt(row, w.key));
      continue;
    }
    const Column c = ColumnOf(w.key);
    if (c.integers != nullptr) {
      for (std::size_t row = 0; row < rows(); ++row) {
        test(row, Fingerprint(Hash128{0, static_cast<uint64_t>(c.integers[row])}));
      }
    } else {
      for (std::size_t row = 0; row < rows(); ++row) test(row, c.fingerprints[row * c.stride]);
    }
  }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  return hits;
}

void RowDirectory::FindIntegers(const Wanted& w, std::vector<std::size_t>& hits) const {
  const std::span<const int64_t> values = attached_[w.key];
  for (const int64_t value : w.integers) {
    const auto it = std::lower_bound(values.begin(), values.end(), value);
    if (it != values.end() && *it == value) {
      hits.push_back(static_cast<std::size_t>(it - values.begin()));
    }
  }
}

RowDirectory::Column RowDirectory::ColumnOf(std::size_t key) const {
  if (implicit_[key]) return Column{nullptr, 0, attached_[key].data()};
  return Column{fingerprints_.begin() + slot_[key], stored_, nullptr};
}

void RowDirectory::Slots() {
  slot_.assign(keys_, 0);
  stored_ = 0;
  for (std::size_t key = 0; key < keys_; ++key) {
    slot_[key] = stored_;
    stored_ += implicit_[key] ? 0 : 1;
  }
}

void RowDirectory::Materialize(std::size_t key, std::span<const int64_t> values) {
  if (!Implicit(key)) return;
  // The rows with a value: every row before, and the current one's fingerprints so far (those
  // of the keys before `key`, as the caller gives them in order), if it began.
  const std::size_t complete = values.size();
  const std::size_t begun = fingerprints_.size() - complete * stored_;
  ValueArray<uint32_t> grown;
  const uint32_t* from = fingerprints_.begin();
  const std::size_t slot = slot_[key];
  for (std::size_t row = 0; row < complete; ++row, from += stored_) {
    grown.append(std::span(from, slot));
    grown.push_back(Fingerprint(Hash128{0, static_cast<uint64_t>(values[row])}));
    grown.append(std::span(from + slot, stored_ - slot));
  }
  grown.append(std::span(from, begun));
  fingerprints_ = std::move(grown);
  implicit_[key] = false;
  attached_[key] = {};
  Slots();
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
  std::vector<uint64_t> positions = PositionsOf(Scan(wanted));
  std::sort(positions.begin(), positions.end());  // a dump's rows ascend; others need not
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

void RowDirectory::Prepare(std::span<const Wanted> wanted) const {
  Prepared p;
  p.rows = rows();
  p.wanted.resize(keys_);
  for (const Wanted& w : wanted) {
    // A key found by its integers: its rows are those of its values, not of their fingerprints
    // (of which another value may have some), so none of its Selects are from the rows kept.
    if (w.key >= keys_ || ByIntegers(w)) continue;
    std::vector<uint32_t>& given = p.wanted[w.key];
    given.insert(given.end(), w.fingerprints.begin(), w.fingerprints.end());
  }
  for (std::vector<uint32_t>& given : p.wanted) {
    std::sort(given.begin(), given.end());
    given.erase(std::unique(given.begin(), given.end()), given.end());
  }
  p.selected = Scan(wanted);  // from the rows Prepare kept before, where they serve
  prepared_ = std::move(p);
}

}  // namespace steadyflake::mergecheck
