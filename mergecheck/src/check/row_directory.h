// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// Where each row of a table is, for an input that can read rows again by position
// (Source::ReadsRowsAt: a plain dump), with a 32-bit fingerprint of each of the row's key
// values. The passes after the comparison want the rows of a few key values (the overlap): with
// a directory they read the rows whose fingerprints match, by position, instead of parsing the
// whole input again (design section 10: one scan of a dump serves every pass). A fingerprint
// may match a row of another value; the pass computes each row's key and skips it. 4 bytes a
// row for the position (its low 32 bits, with the rows where its high bits change noted aside:
// a dump of under 4 GiB has none), and 4 per key but for a key of one INTEGER column whose
// values the key set holds in row order (a clustered table's primary key, dumped ascending):
// its fingerprints are computed from them. Each byte a row is 2 MB of fresh memory a side at 2M
// rows, which a VM may make costly to touch: so a hashed key's fingerprints here are all the
// first pass keeps of it (resolve.h).

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_ROW_DIRECTORY_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_ROW_DIRECTORY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "check/key_set.h"
#include "source/huge_pages.h"

namespace steadyflake::mergecheck {

// The fingerprint of an integer or pair key value given as its 128 bits (KeyId::bits in rows.h:
// an integer as {0, value}, a pair as {first, second}); a hash's is HashFingerprint. Never 0, a
// NULL's (Key).
inline uint32_t Fingerprint(const Hash128& bits) {
  const uint64_t x = (bits.lo ^ ((bits.hi << 32) | (bits.hi >> 32))) * 0x9E3779B97F4A7C15ULL;
  const auto fingerprint = static_cast<uint32_t>(x >> 32);
  return fingerprint | static_cast<uint32_t>(fingerprint == 0);
}

// The fingerprint of a hashed key value (KeyId::Kind::kHash): its hash's low 32 bits, which
// KeyHash makes KeyFingerprintBits' (key_set.h), so that a pass that keeps only fingerprints
// computes them alone. Never 0.
inline uint32_t HashFingerprint(const Hash128& hash) {
  const auto fingerprint = static_cast<uint32_t>(hash.lo);
  return fingerprint | static_cast<uint32_t>(fingerprint == 0);
}

// A set of fingerprints as a bitmap of `bits_per_value` bits (rounded up to a power of two) a
// value, two bits a fingerprint in one 64-bit word (a blocked Bloom filter): a fingerprint of
// the set always passes; one of another value about one time in (bits_per_value / 2)^2 at
// large sizes (one in 20 at 8 bits a value, where one bit passed one in 8.5), more often when
// more values were added than it was made for. The second bit costs no second access to memory.
class FingerprintFilter {
 public:
  FingerprintFilter(std::size_t values, std::size_t bits_per_value) {
    std::size_t size = 64;
    while (size < values * bits_per_value) size *= 2;
    bits_ = ZeroedArray<uint64_t>(size / 64);
    mask_ = static_cast<uint32_t>(size - 1);
  }
  void Add(uint32_t fingerprint) { bits_[(fingerprint & mask_) >> 6] |= BitsOf(fingerprint); }
  bool MayHold(uint32_t fingerprint) const {
    const uint64_t bits = BitsOf(fingerprint);
    return (bits_[(fingerprint & mask_) >> 6] & bits) == bits;
  }

 private:
  // The word is chosen by the low bits; its two bits by the lowest six and the highest six,
  // which choose no word below 2^26 bits.
  static uint64_t BitsOf(uint32_t fingerprint) {
    return (uint64_t{1} << (fingerprint & 63)) | (uint64_t{1} << (fingerprint >> 26));
  }

  ZeroedArray<uint64_t> bits_;
  uint32_t mask_ = 0;
};

class RowDirectory {
 public:
  // Starts again, empty, for rows of `keys` keys; `on` false keeps nothing (the input cannot
  // read rows by position, or the table needs no later pass). `in_row_order[i]` true: key i is
  // one INTEGER column whose values the caller keeps in row order (its KeySet's integers), so
  // its fingerprints are not kept while every row gives it an integer (the caller then calls
  // no Key for it); a row that gives it none (NULL, text) calls Materialize
  // first, and once the values are final the caller calls Attach or Materialize.
  void Reset(std::size_t keys, bool on, const std::vector<bool>& in_row_order = {}) {
    prepared_.reset();
    on_ = on;
    keys_ = keys;
    low_.Truncate(0);
    highs_.clear();
    high_ = 0;
    fingerprints_.Truncate(0);
    implicit_.assign(keys, false);
    for (std::size_t i = 0; on && i < keys && i < in_row_order.size(); ++i) {
      implicit_[i] = in_row_order[i];
    }
    attached_.assign(keys, {});
    ascending_.assign(keys, false);
    Slots();
  }
  bool on() const { return on_; }
  // Stops keeping rows and drops those kept: the table was read in a way that gives no
  // position (passes over an index).
  void Drop() { Reset(0, false); }

  // A row at `position`, then one Key() per key, in the keys' order, but for the keys kept in
  // row order (Implicit).
  void Row(uint64_t position) {
    const auto high = static_cast<uint32_t>(position >> 32);
    if (high != high_) [[unlikely]] {
      highs_.push_back(High{low_.size(), high});
      high_ = high;
    }
    low_.push_back(static_cast<uint32_t>(position));
  }
  // The row's value of a key by its fingerprint (Fingerprint, or HashFingerprint of a hash); 0
  // for NULL, which any fingerprint will do for.
  void Key(uint32_t fingerprint) { fingerprints_.push_back(fingerprint); }

  // Rows at `positions` at once, as Row gives each; then, instead of Key, KeyAt for each of them
  // and each key not Implicit. Returns the index of the first.
  std::size_t Rows(std::span<const uint64_t> positions) {
    const std::size_t first = low_.size();
    for (const uint64_t position : positions) Row(position);
    fingerprints_.Extend(positions.size() * stored_);
    return first;
  }
  void KeyAt(std::size_t row, std::size_t key, uint32_t fingerprint) {  // 0: NULL, as Key
    fingerprints_.begin()[row * stored_ + slot_[key]] = fingerprint;
  }

  // Whether key `key`'s fingerprints are its integers' in row order, not kept here.
  bool Implicit(std::size_t key) const { return key < keys_ && implicit_[key]; }
  // Keeps key `key`'s fingerprints from now on, those of the rows before from `values` (the
  // key's integers in row order, one a row): called between a row's Row() and its Key() for
  // `key` when that row gives the key no integer, or after the last row when the values are
  // to be sorted. A no-op for a key not Implicit.
  void Materialize(std::size_t key, std::span<const int64_t> values);
  // Names the integers of key `key` (one a row, in row order, and they must outlive every
  // query), once they are final; `ascending`: they ascend strictly (a key set's sorted values,
  // as the Collector attaches), so that Select finds a value's row by binary search. A no-op
  // for a key not Implicit.
  void Attach(std::size_t key, std::span<const int64_t> values, bool ascending) {
    if (!Implicit(key)) return;
    attached_[key] = values;
    ascending_[key] = ascending;
  }

  // Rows kept.
  uint64_t rows() const { return low_.size(); }
  // The fingerprint of key `key` of row `row` (0: NULL). REQUIRES: an Implicit key Attached.
  uint32_t FingerprintAt(std::size_t row, std::size_t key) const {
    if (implicit_[key]) return Fingerprint(Hash128{0, static_cast<uint64_t>(attached_[key][row])});
    return fingerprints_.begin()[row * stored_ + slot_[key]];
  }
  // Calls `f` with the fingerprint of key `key` (an index into the table's keys) of each row
  // kept, in the rows' order, a NULL's 0 left out.
  template <typename F>
  void ForEachFingerprint(std::size_t key, F&& f) const {
    if (key >= keys_) return;
    const Column c = ColumnOf(key);
    if (c.integers != nullptr) {
      for (std::size_t row = 0; row < low_.size(); ++row) {
        f(Fingerprint(Hash128{0, static_cast<uint64_t>(c.integers[row])}));
      }
      return;
    }
    for (std::size_t row = 0; row < low_.size(); ++row) {
      const uint32_t fingerprint = c.fingerprints[row * c.stride];
      if (fingerprint != 0) f(fingerprint);
    }
  }

  // One key's wanted values: the key's index (in the table's keys) and the values' fingerprints;
  // for a key of one INTEGER column, the values themselves too (`integers`, as many as
  // `fingerprints`, else empty).
  struct Wanted {
    std::size_t key;
    std::vector<uint32_t> fingerprints;
    std::vector<int64_t> integers;
  };
  // The positions, ascending, of every row whose fingerprint of some key of `wanted` is one of
  // that key's: a superset of the rows with those values. Key by key: the rows of the values
  // given as integers of a key Attached ascending, by binary search; from the rows Prepare kept
  // when every wanted fingerprint of the key was one Prepare was given for it; else from every
  // row.
  std::vector<uint64_t> Select(std::span<const Wanted> wanted) const;

  // Keeps aside the rows Select(`wanted`) would give, for the Selects that follow whose wanted
  // fingerprints of a key are among these: the passes after the comparison each want some of
  // the values in both inputs, and one scan for all of them costs what one of theirs did. A
  // cache: it changes no answer, only the rows Select scans (and the rows this Prepare scans,
  // as it does). Not thread-safe against a concurrent Select of the same directory.
  void Prepare(std::span<const Wanted> wanted) const;

 private:
  bool on_ = false;
  std::size_t keys_ = 0;
  // A key's fingerprints: `stride` apart from `fingerprints` on, or of `integers` (in row order).
  struct Column {
    const uint32_t* fingerprints = nullptr;
    std::size_t stride = 0;
    const int64_t* integers = nullptr;
  };
  // The indexes, ascending, of the rows whose fingerprint of some key of `wanted` is one of
  // that key's (Select).
  std::vector<std::size_t> Scan(std::span<const Wanted> wanted) const;
  // Whether Select finds the rows of `w` by its integers: its key was Attached ascending.
  bool ByIntegers(const Wanted& w) const {
    return implicit_[w.key] && ascending_[w.key] && w.integers.size() == w.fingerprints.size();
  }
  // Appends to `hits` the rows of the values of `w` (ByIntegers) found by binary search.
  void FindIntegers(const Wanted& w, std::vector<std::size_t>& hits) const;
  // Key `key`'s Column of the rows kept.
  Column ColumnOf(std::size_t key) const;
  // Each key's place among a row's kept fingerprints (slot_), and how many a row keeps.
  void Slots();
  // The positions of `rows` (indexes, ascending) of this directory.
  std::vector<uint64_t> PositionsOf(std::span<const std::size_t> rows) const;

  // Where the high 32 bits of the rows' positions become `high`: from row `first` on.
  struct High {
    std::size_t first;
    uint32_t high;
  };
  // ValueArray, not std::vector: a push per row and per key, and std::vector's was a call.
  ValueArray<uint32_t> low_;           // per row: its position's low 32 bits
  std::vector<High> highs_;            // ascending by row; the rows before the first: 0
  uint32_t high_ = 0;                  // the high bits of the last row's position
  ValueArray<uint32_t> fingerprints_;  // stored_ per row: those of the keys not implicit
  std::vector<bool> implicit_;         // by key: Implicit
  std::vector<std::span<const int64_t>> attached_;  // by key: Attach's
  std::vector<bool> ascending_;                     // by key: Attach's
  std::vector<std::size_t> slot_;                   // by key: its place in a row's fingerprints
  std::size_t stored_ = 0;                          // fingerprints a row keeps
  // Prepare's: each key's fingerprints given (sorted, distinct), and the rows they selected.
  struct Prepared {
    uint64_t rows = 0;                          // the directory's rows then (more: stale)
    std::vector<std::vector<uint32_t>> wanted;  // by key index
    std::vector<std::size_t> selected;          // row indexes, ascending
  };
  mutable std::optional<Prepared> prepared_;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_ROW_DIRECTORY_H_
