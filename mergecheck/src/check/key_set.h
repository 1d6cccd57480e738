// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Key values as the database compares them, and the compact sets the checker intersects.
//
// 1. A Cell from a source becomes a Value by ApplyAffinity: the conversions SQLite applies when
//    a value is stored in a column of that affinity (text '5' in an INTEGER column is 5, 5 in a
//    TEXT column is '5'), so two values collide here exactly when the database would call them
//    equal. Text and blobs compare by bytes; in a BLOB column text and blob bytes are the same
//    value (a dump without --hex-blob gives binary columns as strings).
// 2. A single-column key keeps its integer values as themselves (8 bytes each), and a
//    two-column key whose values are both integers keeps the pair (16 bytes: (player_id, slot),
//    the commonest composite key of a game); every other value, and every other composite key,
//    is kept as a 128-bit hash of its canonical encoding (16 bytes). Memory is therefore
//    independent of row width, and the values of integers and pairs in both inputs are known
//    without reading an input again. An input that can read rows again by position (a plain
//    dump) keeps no hash at first, only a 4-byte fingerprint per row (CountHash, resolve.h).
// 3. KeySet arrays grow by 1.25x, so a set holds at most 10 bytes per integer key and 20 bytes
//    per pair or hashed key (the target is 24).

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_KEY_SET_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_KEY_SET_H_

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "check/intersect_blocks.h"
#include "source/huge_pages.h"
#include "source/schema.h"
#include "source/source.h"

namespace steadyflake::mergecheck {

// A value after its column's affinity. `bytes` points into the Cell or a ValueBuffer.
struct Value {
  // In the order SQLite sorts them: NULL, numbers, text, blobs.
  enum class Tag : uint8_t { kNull, kInteger, kReal, kBigInteger, kText, kBlob };
  Tag tag = Tag::kNull;
  int64_t integer = 0;     // kInteger
  double real = 0;         // kReal: never integral within int64 (that is a kInteger), never NaN
  std::string_view bytes;  // kBigInteger (decimal digits), kText, kBlob
};

// Room for a number converted to text (an integer or real stored in a TEXT column).
struct ValueBuffer {
  char text[40];
};

namespace key_set_internal {
Value ApplyAffinity(const Cell& cell, Affinity affinity, ValueBuffer& buffer);
}  // namespace key_set_internal

// `cell` as the database holds it in a column of `affinity` (see 1. above). A REAL that is an
// integer within int64 becomes that kInteger (SQLite compares 5 and 5.0 as equal); NaN is NULL.
// `buffer` must outlive the result. Inline for the commonest key: an integer in a column that
// keeps integers as they are.
inline Value ApplyAffinity(const Cell& cell, Affinity affinity, ValueBuffer& buffer) {
  if (cell.type == Cell::Type::kInteger && affinity != Affinity::kText &&
      affinity != Affinity::kReal) {
    Value v;
    v.tag = Value::Tag::kInteger;
    v.integer = cell.integer;
    return v;
  }
  return key_set_internal::ApplyAffinity(cell, affinity, buffer);
}

// Appends the canonical encoding of `value` to `out`: a tag byte, then 8 bytes for a number or a
// 4-byte length and the bytes. Values that compare equal encode equally; a sequence of
// encodings is unambiguous, so composite keys concatenate them.
void AppendEncoding(const Value& value, std::string& out);

// AppendEncoding of a value of `tag` (text, a blob or a big integer) whose bytes
// `append_bytes(out)` appends to `out`: written once, where they belong (a collation's key
// straight from the text), their length filled in after them.
template <typename AppendBytes>
void AppendBytesEncoding(Value::Tag tag, AppendBytes&& append_bytes, std::string& out) {
  out.push_back(static_cast<char>(tag));
  const std::size_t at = out.size();
  out.append(4, '\0');
  append_bytes(out);
  const auto n = static_cast<uint32_t>(out.size() - at - 4);
  for (std::size_t i = 0; i < 4; ++i) out[at + i] = static_cast<char>(n >> (8 * i));
}

// Two integers of a two-column key, in SQLite's order.
struct IntegerPair {
  int64_t first = 0;
  int64_t second = 0;
  friend auto operator<=>(const IntegerPair&, const IntegerPair&) = default;
};

struct Hash128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend auto operator<=>(const Hash128&, const Hash128&) = default;
};

// XXH3 128-bit hash of `bytes` (libxxhash). A collision between two different keys, which
// would show as a false overlap, has probability about n^2 / 2^129 for n keys.
Hash128 HashBytes(std::string_view bytes);

// The 128-bit product of `a` and `b`, its two halves xored (wyhash's and rapidhash's mixing
// step), from 32-bit halves: for targets without 128-bit integers.
inline uint64_t FoldedMultiplyByHalves(uint64_t a, uint64_t b) {
  const uint64_t a_hi = a >> 32, a_lo = a & 0xFFFFFFFFu, b_hi = b >> 32, b_lo = b & 0xFFFFFFFFu;
  // The middle terms and the low product's carry, which cannot overflow 64 bits together.
  const uint64_t cross = (a_lo * b_lo >> 32) + (a_hi * b_lo & 0xFFFFFFFFu) + a_lo * b_hi;
  const uint64_t high = a_hi * b_hi + (a_hi * b_lo >> 32) + (cross >> 32);
  return (a * b) ^ high;
}

// FoldedMultiplyByHalves, with one multiply where the compiler has 128-bit integers.
inline uint64_t FoldedMultiply(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
  __extension__ using Wide = unsigned __int128;
  const Wide product = static_cast<Wide>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
#else
  return FoldedMultiplyByHalves(a, b);
#endif
}

// 32 bits of a key value's encoding (AppendKeyValue's) that stand for its hash until the hash
// is needed: a dump's first pass keeps only these of a text key (row_directory.h, resolve.h).
// XXH3's 128-bit hash of a 20-character name took 14 ns a row there, its 64-bit one 9 (2M rows a
// side: 28 and 18 ms); these take about 2 (a folded multiply per 16 bytes, as wyhash and
// rapidhash mix). They choose which rows a later pass reads again and never decide that two values
// are one key (KeyHash's other 96 bits do), so a weak spread would cost time, not answers;
// KeyFingerprintTest measures the spread on names that differ in a few characters.
inline uint32_t KeyFingerprintBits(std::string_view encoding) {
  const auto word = [](const char* at) {
    uint64_t w = 0;
    std::memcpy(&w, at, 8);
    return w;
  };
  constexpr uint64_t kOdd0 = 0x9E3779B97F4A7C15u;
  constexpr uint64_t kOdd1 = 0xD6E8FEB86659FD93u;
  // Sixteen bytes a multiply; the last sixteen (or the eight and the first) overlapping those
  // before. The encoding holds its own length, so the length needs no step of its own.
  const char* p = encoding.data();
  const char* end = p + encoding.size();
  uint64_t h = kOdd0;
  uint64_t a = 0;
  uint64_t b = 0;
  if (encoding.size() >= 16) {
    for (; end - p > 16; p += 16) h = FoldedMultiply(word(p) ^ kOdd1, word(p + 8) ^ h);
    a = word(end - 16);
    b = word(end - 8);
  } else if (encoding.size() >= 8) {
    a = word(p);
    b = word(end - 8);
  } else {
    std::memcpy(&a, p, encoding.size());
  }
  h = FoldedMultiply(a ^ kOdd1, b ^ h);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The hash of a key value's encoding: XXH3's 128-bit hash (HashBytes) with its low 32 bits
// KeyFingerprintBits', which a key's fingerprint is (HashFingerprint in row_directory.h). 96 of
// XXH3's bits stay: a false overlap of n keys has probability about n^2 / 2^97.
Hash128 KeyHash(std::string_view encoding);

// An owned copy of a Value, for reports (the comparison turns it into a ReportValue).
struct OwnedValue {
  Value::Tag tag = Value::Tag::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string bytes;
};
OwnedValue Own(const Value& value);
// `value` as a Cell pointing into it (a value to look up, Source::LookUpValues).
Cell CellOf(const OwnedValue& value);
// <0, 0, >0 in SQLite's order: NULL < numbers (by value) < text (bytes) < blobs (bytes).
int Compare(const OwnedValue& a, const OwnedValue& b);
bool TupleLess(const std::vector<OwnedValue>& a, const std::vector<OwnedValue>& b);
bool TupleEqual(const std::vector<OwnedValue>& a, const std::vector<OwnedValue>& b);
// Sorts `tuples` by TupleLess, drops duplicates (TupleEqual) and keeps the first `limit` (all
// when 0).
void SortDistinct(std::vector<std::vector<OwnedValue>>& tuples, uint64_t limit);

// A growable array of trivially copyable values. It starts in memory from malloc and grows
// with realloc; from kPopulatedFrom bytes it moves once into a range of address space reserved
// for it, whose pages each growth makes present by one system call rather than a fault each;
// from kHugeRegionFrom bytes it moves once into a region reserved for it (huge_pages.h), where
// it grows in place in huge pages: growing to millions of keys then costs neither copies nor a
// page fault per 4 KiB. Move-only.
template <typename T>
class ValueArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ValueArray() = default;
  ValueArray(const ValueArray&) = delete;
  ValueArray& operator=(const ValueArray&) = delete;
  ValueArray(ValueArray&& other) noexcept { Swap(other); }
  ValueArray& operator=(ValueArray&& other) noexcept {
    ValueArray gone(std::move(other));
    Swap(gone);
    return *this;
  }
  ~ValueArray() { Free(); }

  void push_back(const T& value) {
    if (size_ == capacity_) Grow();
    data_[size_++] = value;
  }
  // push_back of each of `values`, growing as push_back grows.
  void append(std::span<const T> values) {
    while (capacity_ - size_ < values.size()) Grow();
    if (!values.empty()) std::memcpy(data_ + size_, values.data(), values.size() * sizeof(T));
    size_ += values.size();
  }
  // Adds `n` values for the caller to write, growing as push_back grows; returns the first.
  T* Extend(std::size_t n) {
    while (capacity_ - size_ < n) Grow();
    T* first = data_ + size_;
    size_ += n;
    return first;
  }
  // Keeps the first `size` values. REQUIRES: size <= size().
  void Truncate(std::size_t size) { size_ = size; }

  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  // A region this many times the array's size when it moves into one: 64 MB of address space
  // for an array of 1 MB, a copy only if it outgrows that too.
  static constexpr std::size_t kRegionGrowth = 64;

  // Out of line, so that push_back, called per row, is inlined.
  [[gnu::noinline]] void Grow() { Reserve(capacity_ < 4096 ? 4096 : capacity_ + capacity_ / 4); }
  void Reserve(std::size_t capacity) {
    const std::size_t bytes = capacity * sizeof(T);
    if (region_ >= bytes) {  // room in the region: its pages are memory once written
      if (populated_) Populate(data_, capacity_ * sizeof(T), bytes);
      capacity_ = capacity;
      return;
    }
    if (bytes >= kHugeRegionFrom) {
      std::size_t region = bytes * kRegionGrowth;
      void* moved = ReserveHugeRegion(region);
      if (moved == nullptr) {  // a limit on address space: no more than it needs
        region = bytes;
        moved = ReserveHugeRegion(region);
      }
      if (moved != nullptr) return MoveTo(moved, region, false, capacity);
    } else if (bytes >= kPopulatedFrom && region_ == 0) {
      if (void* range = ReservePopulated()) {
        Populate(range, 0, bytes);
        return MoveTo(range, kHugeRegionFrom, true, capacity);
      }
    }
    if (region_ != 0) {  // no larger region to be had: malloc's memory, as before any
      void* copy = std::malloc(bytes);
      if (copy == nullptr) throw std::bad_alloc();
      return MoveTo(copy, 0, false, capacity);
    }
    void* grown = std::realloc(data_, bytes);
    if (grown == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(grown);
    capacity_ = capacity;
  }
  // Copies the values to `at` (a region of `region` bytes, 0: malloc's memory; `populated`: a
  // range of ReservePopulated, present up to the capacity) and frees where they were.
  void MoveTo(void* at, std::size_t region, bool populated, std::size_t capacity) {
    if (size_ != 0) std::memcpy(at, data_, size_ * sizeof(T));
    Free();
    data_ = static_cast<T*>(at);
    region_ = region;
    populated_ = populated;
    capacity_ = capacity;
  }
  void Free() noexcept {
    if (populated_) {
      ReleasePopulated(data_);
    } else if (region_ != 0) {
      ReleaseHugeRegion(data_, region_);
    } else {
      std::free(data_);
    }
  }
  void Swap(ValueArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    std::swap(region_, other.region_);
    std::swap(populated_, other.populated_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t region_ = 0;  // bytes of the region data_ lies in; 0: data_ is malloc's
  bool populated_ = false;  // data_ is a range of ReservePopulated, present up to capacity_
};

// The values of one key in one input. Not thread-safe; each reading thread owns its sets.
class KeySet {
 public:
  // Adds one row's key: an integer value of a single-column key, two integers of a two-column
  // key, or the hash of anything else.
  void AddInteger(int64_t value) {
    ascending_ = ascending_ && (integers_.size() == 0 || *(integers_.end() - 1) < value);
    Push(integers_, value);
  }
  // AddInteger of each of `values`.
  void AddIntegers(std::span<const int64_t> values) {
    if (ascending_ && !values.empty()) {  // checked while the run is in the cache
      ascending_ = integers_.size() == 0 || *(integers_.end() - 1) < values.front();
      for (std::size_t i = 1; ascending_ && i < values.size(); ++i) {
        ascending_ = values[i - 1] < values[i];
      }
    }
    integers_.append(values);
    rows_ += values.size();
  }
  void AddPair(const IntegerPair& pair) { Push(pairs_, pair); }
  void AddHash(const Hash128& hash) { Push(hashes_, hash); }
  // Counts a row whose key is hashed without keeping the hash: the input keeps the row's
  // fingerprint in its row directory instead (row_directory.h), and only the hashes of the rows
  // whose fingerprints the other input has too are added later (AddFoundHash; resolve.h).
  void CountHash() {
    ++rows_;
    ++elided_;
  }
  // Adds the hash of a row counted by CountHash (rows() is unchanged). Then FinishFound.
  void AddFoundHash(const Hash128& hash) { hashes_.push_back(hash); }
  // Sorts and dedupes the hashes AddFoundHash added; the set then holds every hash that can be
  // in the other input's set too, and elided() is 0.
  void FinishFound();

  // Sorts the arrays, keeping duplicates (rows() counts them).
  void Sort();
  // REQUIRES: Sort() was called. Removes duplicate values; rows() is unchanged.
  void Dedupe();
  // Drops everything (a table that must be read again).
  void Clear();

  // Rows added (NULL keys are never added).
  uint64_t rows() const { return rows_; }
  // Rows counted by CountHash since the set was cleared or last finished (FinishFound).
  uint64_t elided() const { return elided_; }
  std::span<const int64_t> integers() const { return integers_.span(); }
  // Whether integers() ascends strictly: added so (a rowid scan, an index read in its order, a
  // dump of a clustered table), or sorted and deduped since. Sort and Dedupe then pass it by.
  bool integers_ascending() const { return ascending_; }
  std::span<const IntegerPair> pairs() const { return pairs_.span(); }
  std::span<const Hash128> hashes() const { return hashes_.span(); }
  // Bytes the arrays hold, including spare capacity.
  std::size_t bytes_held() const {
    return integers_.capacity() * sizeof(int64_t) + pairs_.capacity() * sizeof(IntegerPair) +
           hashes_.capacity() * sizeof(Hash128);
  }

 private:
  template <typename T>
  void Push(ValueArray<T>& values, const T& value) {
    values.push_back(value);
    ++rows_;
  }

  ValueArray<int64_t> integers_;
  ValueArray<IntegerPair> pairs_;
  ValueArray<Hash128> hashes_;
  uint64_t rows_ = 0;
  uint64_t elided_ = 0;
  bool ascending_ = true;  // integers_ ascends strictly (integers_ascending)
};

// Sorts `n` values at `first` spread evenly over their range (hashes, fingerprints of hashes)
// by distributing them by their top bits, in place; 2-3x std::sort's speed on millions. Any
// values sort correctly; bunched ones only at std::sort's speed.
void SortUniform(Hash128* first, std::size_t n);
void SortUniform(uint32_t* first, std::size_t n);

namespace key_set_internal {

// -1, 0 or 1 as a sorts before, with or after b, without a branch (the compilers' setcc and
// cmov): the merge below must not hinge on a comparison of random ids.
inline int Order3(int64_t a, int64_t b) { return (a > b) - (a < b); }
inline int Order3(uint64_t a, uint64_t b) { return (a > b) - (a < b); }
inline int Order3(uint32_t a, uint32_t b) { return (a > b) - (a < b); }
inline int Order3(const IntegerPair& a, const IntegerPair& b) {
  const int first = Order3(a.first, b.first);
  return first != 0 ? first : Order3(a.second, b.second);
}
inline int Order3(const Hash128& a, const Hash128& b) {
  const int hi = Order3(a.hi, b.hi);
  return hi != 0 ? hi : Order3(a.lo, b.lo);
}

// Lanes IntersectRange merges at once, and the fewest values of `a` a lane is worth.
inline constexpr std::size_t kLanes = 8;
inline constexpr std::size_t kLaneMin = 4096;

// A merge for IntersectRange. The merge of two arrays of random ids goes one way or the
// other at random: a branch on it mispredicts every other value, and a merge without that
// branch waits on each step's loads and comparison before the next. So `a` is cut into up to
// kLanes parts, each merged with the part of `b` that can meet it (from the first value not
// below the part's first), and one loop steps every lane once a round: their steps do not wait
// on each other, and the core runs them side by side (2.2x the one-lane merge on two arrays of
// 2M random ids). Each lane keeps its values in both in a list of its own; the lists are joined
// in lane order, which is ascending, at the end.
template <typename T>
uint64_t IntersectInLanes(std::span<const T> a, std::span<const T> b, uint64_t limit,
                          std::vector<T>& common) {
  const std::size_t lanes = std::clamp<std::size_t>(a.size() / kLaneMin, 1, kLanes);
  std::size_t i[kLanes];
  std::size_t i_end[kLanes];
  std::size_t j[kLanes];
  std::size_t j_end[kLanes];
  for (std::size_t k = 0; k < lanes; ++k) {
    i[k] = a.size() * k / lanes;
    i_end[k] = a.size() * (k + 1) / lanes;
    j[k] =
        k == 0
            ? 0
            : static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), a[i[k]]) - b.begin());
  }
  for (std::size_t k = 0; k < lanes; ++k) j_end[k] = k + 1 < lanes ? j[k + 1] : b.size();
  uint64_t count = 0;
  std::vector<T> found[kLanes];  // each lane's values in both, up to `limit`
  const auto step = [&](std::size_t k) {
    const int c = Order3(a[i[k]], b[j[k]]);
    if (c == 0) [[unlikely]] {
      if (limit == 0 || found[k].size() < limit) found[k].push_back(a[i[k]]);
      ++count;
    }
    i[k] += static_cast<std::size_t>(c <= 0);
    j[k] += static_cast<std::size_t>(c >= 0);
  };
  const auto open = [&](std::size_t k) { return i[k] < i_end[k] && j[k] < j_end[k]; };
  for (;;) {
    bool all_open = true;
    for (std::size_t k = 0; k < lanes; ++k) all_open = all_open && open(k);
    if (!all_open) break;
    for (std::size_t k = 0; k < lanes; ++k) step(k);
  }
  for (std::size_t k = 0; k < lanes; ++k) {
    while (open(k)) step(k);  // the lanes still open, one at a time
  }
  uint64_t kept = 0;
  for (std::size_t k = 0; k < lanes; ++k) {
    const uint64_t room = limit == 0 ? found[k].size() : limit - kept;
    const auto n = static_cast<std::size_t>(std::min<uint64_t>(room, found[k].size()));
    common.insert(common.end(), found[k].begin(),
                  found[k].begin() + static_cast<std::ptrdiff_t>(n));
    kept += n;
  }
  return count;
}

// Intersect's merge, on one thread: 64-bit integers a block at a time where the processor has
// the instructions (intersect_blocks.h: 2-4x faster again), anything else in lanes.
template <typename T>
uint64_t IntersectRange(std::span<const T> a, std::span<const T> b, uint64_t limit,
                        std::vector<T>& common) {
  if constexpr (std::is_same_v<T, int64_t>) {
    if (const int width = BlockWidthHere(); width != 0) {
      return IntersectBlocks(width, a, b, limit, common);
    }
  }
  return IntersectInLanes(a, b, limit, common);
}

}  // namespace key_set_internal

// Counts the values in both of `a` and `b` (each sorted, without duplicates) and appends the
// first `limit` of them (all when 0) to `common`, ascending. From a million values on, the two
// halves of `a` (and the part of `b` each can meet) are merged on two threads at once: the merge
// of two arrays of random ids mispredicts a branch every other value, and it was most of the
// comparison step of two 2M-row shards.
template <typename T>
uint64_t Intersect(std::span<const T> a, std::span<const T> b, uint64_t limit,
                   std::vector<T>& common) {
  using key_set_internal::IntersectRange;
  constexpr std::size_t kParallel = std::size_t{1} << 20;
  if (a.size() + b.size() < kParallel || a.empty() || b.empty()) {
    return IntersectRange(a, b, limit, common);
  }
  const std::size_t half = a.size() / 2;
  const auto split =
      static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), a[half]) - b.begin());
  std::vector<T> upper;
  uint64_t upper_count = 0;
  std::exception_ptr upper_error;  // out of memory, say: rethrown here, not std::terminate
  std::thread thread([&] {
    try {
      upper_count = IntersectRange(a.subspan(half), b.subspan(split), limit, upper);
    } catch (...) {
      upper_error = std::current_exception();
    }
  });
  uint64_t count = 0;
  try {
    count = IntersectRange(a.first(half), b.first(split), limit, common);
  } catch (...) {
    thread.join();
    throw;
  }
  thread.join();
  if (upper_error) std::rethrow_exception(upper_error);
  // The upper half's values follow the lower half's: keep the first `limit` of both.
  const std::size_t room = limit == 0 ? upper.size() : (count >= limit ? 0 : limit - count);
  common.insert(common.end(), upper.begin(), upper.begin() + std::min(room, upper.size()));
  return count + upper_count;
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_KEY_SET_H_
