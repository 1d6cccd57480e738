// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Affinity conversions, canonical encodings, hashing and ordering of key values.

#include "check/key_set.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace steadyflake::mergecheck {

namespace {

using Tag = Value::Tag;

// 2^63 as a double: the first double above every int64.
constexpr double kTwoTo63 = 9223372036854775808.0;

Value Number(double real) {
  Value v;
  if (std::isnan(real)) return v;  // SQLite stores NaN as NULL
  if (real >= -kTwoTo63 && real < kTwoTo63 && std::trunc(real) == real) {
    v.tag = Tag::kInteger;
    v.integer = static_cast<int64_t>(real);  // -0.0 becomes 0
  } else {
    v.tag = Tag::kReal;
    v.real = real;
  }
  return v;
}

Value Text(std::string_view bytes) {
  Value v;
  v.tag = Tag::kText;
  v.bytes = bytes;
  return v;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Text stored in an INTEGER, REAL or NUMERIC column: a well-formed integer or real literal
// (surrounding whitespace allowed, no hex) becomes a number, as in SQLite; anything else stays
// text. Returns false when the text is not a number.
bool ParseNumber(std::string_view text, Value& out) {
  std::size_t b = 0;
  std::size_t e = text.size();
  while (b < e && IsSpace(text[b])) ++b;
  while (e > b && IsSpace(text[e - 1])) --e;
  std::string_view s = text.substr(b, e - b);
  if (s.empty()) return false;
  std::size_t i = 0;
  const bool negative = s[0] == '-';
  if (s[0] == '+' || s[0] == '-') ++i;
  const std::size_t digits_start = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  const std::size_t int_digits = i - digits_start;
  if (i == s.size()) {
    if (int_digits == 0) return false;
    // An integer literal: exact when it fits in int64, else a real.
    std::string_view unsigned_part = s.substr(digits_start);
    uint64_t magnitude = 0;
    const auto [p, ec] = std::from_chars(unsigned_part.data(),
                                         unsigned_part.data() + unsigned_part.size(), magnitude);
    if (ec == std::errc() && p == unsigned_part.data() + unsigned_part.size()) {
      if (!negative && magnitude <= static_cast<uint64_t>(INT64_MAX)) {
        out.tag = Tag::kInteger;
        out.integer = static_cast<int64_t>(magnitude);
        return true;
      }
      if (negative && magnitude <= static_cast<uint64_t>(INT64_MAX) + 1) {
        out.tag = Tag::kInteger;
        out.integer = static_cast<int64_t>(0 - magnitude);
        return true;
      }
    }
  } else {
    // A real literal: digits [. digits] or . digits, then an optional exponent.
    std::size_t frac_digits = 0;
    if (s[i] == '.') {
      ++i;
      const std::size_t frac_start = i;
      while (i < s.size() && IsDigit(s[i])) ++i;
      frac_digits = i - frac_start;
    }
    if (int_digits + frac_digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      const std::size_t exp_start = i;
      while (i < s.size() && IsDigit(s[i])) ++i;
      if (i == exp_start) return false;
    }
    if (i != s.size()) return false;
  }
  // from_chars takes no '+'.
  std::string_view body = s[0] == '+' ? s.substr(1) : s;
  double real = 0;
  const auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), real);
  if (ec != std::errc() || p != body.data() + body.size()) return false;
  out = Number(real);
  return out.tag != Tag::kNull;
}

// SQLite's text for a REAL ("%!.15g"): 15 significant digits and at least one digit after
// the decimal point ("5.0", "1.0e+20").
std::string_view RealText(double real, ValueBuffer& buffer) {
  char digits[32];
  int n = std::snprintf(digits, sizeof digits, "%.15g", real);
  if (n < 0) n = 0;
  const std::string_view text(digits, static_cast<std::size_t>(n));
  std::size_t mantissa = text.find_first_of("eE");
  if (mantissa == std::string_view::npos) mantissa = text.size();
  std::size_t length = text.size();
  if (text.substr(0, mantissa).find_first_of(".na") == std::string_view::npos) {
    // Insert ".0" before any exponent.
    std::memcpy(buffer.text, digits, mantissa);
    buffer.text[mantissa] = '.';
    buffer.text[mantissa + 1] = '0';
    std::memcpy(buffer.text + mantissa + 2, digits + mantissa, text.size() - mantissa);
    length = text.size() + 2;
  } else {
    std::memcpy(buffer.text, digits, text.size());
  }
  return std::string_view(buffer.text, length);
}

void AppendU64(uint64_t value, std::string& out) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out.append(bytes, 8);
}

int CompareBytes(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// The class SQLite sorts by: 0 NULL, 1 number, 2 text, 3 blob.
int ClassOf(Tag tag) {
  switch (tag) {
    case Tag::kNull:
      return 0;
    case Tag::kInteger:
    case Tag::kReal:
    case Tag::kBigInteger:
      return 1;
    case Tag::kText:
      return 2;
    case Tag::kBlob:
      return 3;
  }
  return 0;
}

long double AsLongDouble(const OwnedValue& v) {
  switch (v.tag) {
    case Tag::kInteger:
      return static_cast<long double>(v.integer);
    case Tag::kReal:
      return static_cast<long double>(v.real);
    default:
      return std::strtold(v.bytes.c_str(), nullptr);
  }
}

}  // namespace

Value key_set_internal::ApplyAffinity(const Cell& cell, Affinity affinity, ValueBuffer& buffer) {
  Value v;
  switch (cell.type) {
    case Cell::Type::kNull:
      return v;
    case Cell::Type::kInteger:
      if (affinity == Affinity::kText) {
        const auto r = std::to_chars(buffer.text, buffer.text + sizeof buffer.text, cell.integer);
        return Text(std::string_view(buffer.text, static_cast<std::size_t>(r.ptr - buffer.text)));
      }
      if (affinity == Affinity::kReal) return Number(static_cast<double>(cell.integer));
      v.tag = Tag::kInteger;
      v.integer = cell.integer;
      return v;
    case Cell::Type::kBigInteger:
      // Kept exact in every column type but TEXT: it is no ID, and no int64 equals it.
      if (affinity == Affinity::kText) return Text(cell.bytes);
      v.tag = Tag::kBigInteger;
      v.bytes = cell.bytes;
      return v;
    case Cell::Type::kReal:
      if (affinity == Affinity::kText) {
        if (std::isnan(cell.real)) return v;
        return Text(RealText(cell.real, buffer));
      }
      return Number(cell.real);
    case Cell::Type::kText:
      if (affinity == Affinity::kBlob) {
        v.tag = Tag::kBlob;
        v.bytes = cell.bytes;
        return v;
      }
      if (affinity != Affinity::kText && ParseNumber(cell.bytes, v)) {
        // A REAL column stores every number as a double.
        if (affinity == Affinity::kReal && v.tag == Tag::kInteger) {
          return Number(static_cast<double>(v.integer));
        }
        return v;
      }
      return Text(cell.bytes);
    case Cell::Type::kBlob:
      v.tag = Tag::kBlob;
      v.bytes = cell.bytes;
      return v;
  }
  return v;
}

void AppendEncoding(const Value& value, std::string& out) {
  if (value.tag == Tag::kBigInteger || value.tag == Tag::kText || value.tag == Tag::kBlob) {
    AppendBytesEncoding(
        value.tag, [&](std::string& bytes) { bytes.append(value.bytes); }, out);
    return;
  }
  out.push_back(static_cast<char>(value.tag));
  if (value.tag == Tag::kInteger) {
    AppendU64(static_cast<uint64_t>(value.integer), out);
  } else if (value.tag == Tag::kReal) {
    uint64_t bits;
    std::memcpy(&bits, &value.real, sizeof bits);
    AppendU64(bits, out);
  }
}

Hash128 HashBytes(std::string_view bytes) {
  const XXH128_hash_t hash = XXH3_128bits(bytes.data(), bytes.size());
  return Hash128{hash.high64, hash.low64};
}

Hash128 KeyHash(std::string_view encoding) {
  Hash128 hash = HashBytes(encoding);
  hash.lo = (hash.lo & ~uint64_t{0xFFFFFFFF}) | KeyFingerprintBits(encoding);
  return hash;
}

OwnedValue Own(const Value& value) {
  OwnedValue o;
  o.tag = value.tag;
  o.integer = value.integer;
  o.real = value.real;
  o.bytes.assign(value.bytes);
  return o;
}

Cell CellOf(const OwnedValue& value) {
  Cell cell;
  cell.integer = value.integer;
  cell.real = value.real;
  cell.bytes = value.bytes;
  switch (value.tag) {
    case Tag::kNull:
      cell.type = Cell::Type::kNull;
      break;
    case Tag::kInteger:
      cell.type = Cell::Type::kInteger;
      break;
    case Tag::kReal:
      cell.type = Cell::Type::kReal;
      break;
    case Tag::kBigInteger:
      cell.type = Cell::Type::kBigInteger;
      break;
    case Tag::kText:
      cell.type = Cell::Type::kText;
      break;
    case Tag::kBlob:
      cell.type = Cell::Type::kBlob;
      break;
  }
  return cell;
}

int Compare(const OwnedValue& a, const OwnedValue& b) {
  const int ca = ClassOf(a.tag);
  const int cb = ClassOf(b.tag);
  if (ca != cb) return ca < cb ? -1 : 1;
  switch (ca) {
    case 0:
      return 0;
    case 1: {
      if (a.tag == Tag::kInteger && b.tag == Tag::kInteger) {
        return a.integer < b.integer ? -1 : (a.integer > b.integer ? 1 : 0);
      }
      if (a.tag == Tag::kBigInteger && b.tag == Tag::kBigInteger) {
        if (a.bytes.size() != b.bytes.size()) return a.bytes.size() < b.bytes.size() ? -1 : 1;
        return CompareBytes(a.bytes, b.bytes);
      }
      // A big integer is above every int64.
      if (a.tag == Tag::kBigInteger && b.tag == Tag::kInteger) return 1;
      if (a.tag == Tag::kInteger && b.tag == Tag::kBigInteger) return -1;
      const long double x = AsLongDouble(a);
      const long double y = AsLongDouble(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    default:
      return CompareBytes(a.bytes, b.bytes);
  }
}

bool TupleLess(const std::vector<OwnedValue>& a, const std::vector<OwnedValue>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int c = Compare(a[i], b[i]);
    if (c != 0) return c < 0;
  }
  return a.size() < b.size();
}

bool TupleEqual(const std::vector<OwnedValue>& a, const std::vector<OwnedValue>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].tag != b[i].tag || Compare(a[i], b[i]) != 0) return false;
  }
  return true;
}

void SortDistinct(std::vector<std::vector<OwnedValue>>& tuples, uint64_t limit) {
  std::sort(tuples.begin(), tuples.end(), TupleLess);
  tuples.erase(std::unique(tuples.begin(), tuples.end(), TupleEqual), tuples.end());
  if (limit != 0 && tuples.size() > limit) tuples.resize(limit);
}

namespace {

template <typename T>
void SortUnlessSorted(ValueArray<T>& values) {
  if (!std::is_sorted(values.begin(), values.end())) std::sort(values.begin(), values.end());
}

// The top 64 bits of a value SortUniform sorts, by which it distributes them.
uint64_t High(const Hash128& v) { return v.hi; }
uint64_t High(uint32_t v) { return uint64_t{v} << 32; }

// Sorts the `n` values at `first`, which share their top `used` bits: each goes to a slot by
// its next bits, about one slot per value (the values are uniform: XXH3's hashes or their
// fingerprints), through `spare`; then an insertion sort of what is then nearly sorted
// finishes, in the cache for the few thousand values a bucket of SortUniform holds. Values
// bunched in a slot (repeated ones, or any not uniform) go to std::sort instead.
template <typename T>
void SortBucket(T* first, std::size_t n, int used, std::vector<T>& spare,
                std::vector<uint32_t>& ends) {
  constexpr std::size_t kSmall = 64;  // std::sort is as fast below
  constexpr uint32_t kBunched = 16;   // more in one slot: not uniform
  if (n < kSmall) {
    std::sort(first, first + n);
    return;
  }
  const int bits = static_cast<int>(std::bit_width(n));  // 2^bits slots: n to 2n
  const auto slot = [used, bits](const T& v) { return (High(v) << used) >> (64 - bits); };
  ends.assign((std::size_t{1} << bits) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++ends[slot(first[i]) + 1];
  uint32_t most = 0;
  for (std::size_t s = 1; s < ends.size(); ++s) {
    most = std::max(most, ends[s]);
    ends[s] += ends[s - 1];
  }
  if (most > kBunched) {
    std::sort(first, first + n);
    return;
  }
  spare.resize(n);
  T* to = spare.data();
  for (std::size_t i = 0; i < n; ++i) to[ends[slot(first[i])]++] = first[i];
  for (std::size_t i = 1; i < n; ++i) {
    const T v = to[i];
    std::size_t j = i;
    for (; j > 0 && v < to[j - 1]; --j) to[j] = to[j - 1];
    to[j] = v;
  }
  std::copy(to, to + n, first);
}

// An in-place distribution by the values' top byte (an American flag sort: each value swapped
// straight into its bucket), then each bucket by SortBucket, in the cache. At 1M to 5M hashes
// that is about 2-3x as fast as std::sort of the whole, which misses the cache, and twice as
// fast as distributing by a second byte and std::sort of the buckets of a few dozen values
// that leaves.
template <typename T>
void SortUniformValues(T* first, std::size_t n) {
  constexpr std::size_t kDistributed = 4096;  // below, one bucket of all
  std::vector<T> spare;
  std::vector<uint32_t> ends;
  if (n < kDistributed) {
    SortBucket(first, n, 0, spare, ends);
    return;
  }
  const auto bucket = [](const T& v) { return High(v) >> 56; };
  std::array<std::size_t, 257> start{};
  for (std::size_t i = 0; i < n; ++i) ++start[bucket(first[i]) + 1];
  for (std::size_t b = 0; b < 256; ++b) start[b + 1] += start[b];
  std::array<std::size_t, 256> next{};
  std::copy(start.begin(), start.end() - 1, next.begin());
  for (std::size_t b = 0; b < 256; ++b) {
    while (next[b] < start[b + 1]) {
      T v = first[next[b]];
      std::size_t to = bucket(v);
      while (to != b) {  // carry v to its bucket, taking up what was there
        // The next value of bucket `to`, the next this chain may load, lies a cache line on:
        // fetched now, the chain's loads (each waiting on the one before) hit the cache.
        __builtin_prefetch(first + next[to] + 4, 1);
        std::swap(v, first[next[to]++]);
        to = bucket(v);
      }
      first[next[b]++] = v;
    }
  }
  for (std::size_t b = 0; b < 256; ++b) {
    SortBucket(first + start[b], start[b + 1] - start[b], 8, spare, ends);
  }
}

template <typename T>
void Unique(ValueArray<T>& values) {
  values.Truncate(
      static_cast<std::size_t>(std::unique(values.begin(), values.end()) - values.begin()));
}

}  // namespace

void KeySet::Sort() {
  // Integer keys usually arrive in order (a rowid scan, an index read in its order, a dump of
  // a clustered table), and those added in order were seen so as they came; hashes never do.
  if (!ascending_) SortUnlessSorted(integers_);
  SortUnlessSorted(pairs_);
  SortUniform(hashes_.begin(), hashes_.size());
}

void KeySet::Dedupe() {
  if (!ascending_) Unique(integers_);
  ascending_ = true;
  Unique(pairs_);
  Unique(hashes_);
}

void KeySet::FinishFound() {
  SortUniform(hashes_.begin(), hashes_.size());
  Unique(hashes_);
  elided_ = 0;
}

void KeySet::Clear() {
  integers_ = {};
  pairs_ = {};
  hashes_ = {};
  rows_ = 0;
  elided_ = 0;
  ascending_ = true;
}

void SortUniform(Hash128* first, std::size_t n) { SortUniformValues(first, n); }
void SortUniform(uint32_t* first, std::size_t n) { SortUniformValues(first, n); }

}  // namespace steadyflake::mergecheck
