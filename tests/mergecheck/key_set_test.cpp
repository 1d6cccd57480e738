// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "check/key_set.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "source/huge_pages.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

Cell Int(int64_t v) {
  Cell c;
  c.type = Cell::Type::kInteger;
  c.integer = v;
  return c;
}
Cell Real(double v) {
  Cell c;
  c.type = Cell::Type::kReal;
  c.real = v;
  return c;
}
Cell Bytes(Cell::Type type, std::string_view bytes) {
  Cell c;
  c.type = type;
  c.bytes = bytes;
  return c;
}
Cell Text(std::string_view bytes) { return Bytes(Cell::Type::kText, bytes); }
Cell Blob(std::string_view bytes) { return Bytes(Cell::Type::kBlob, bytes); }

// The canonical encoding of `cell` in a column of `affinity`.
std::string Enc(const Cell& cell, Affinity affinity) {
  ValueBuffer buffer;
  std::string out;
  AppendEncoding(ApplyAffinity(cell, affinity, buffer), out);
  return out;
}

TEST(ApplyAffinityTest, IntegersAndNumericText) {
  ValueBuffer b;
  Value v = ApplyAffinity(Text("5"), Affinity::kInteger, b);
  EXPECT_EQ(v.tag, Value::Tag::kInteger);
  EXPECT_EQ(v.integer, 5);
  EXPECT_EQ(Enc(Text(" 5 "), Affinity::kInteger), Enc(Int(5), Affinity::kInteger));
  EXPECT_EQ(Enc(Text("+5"), Affinity::kNumeric), Enc(Int(5), Affinity::kNumeric));
  EXPECT_EQ(Enc(Text("5.0"), Affinity::kInteger), Enc(Int(5), Affinity::kInteger));
  EXPECT_EQ(Enc(Text("5e0"), Affinity::kNumeric), Enc(Int(5), Affinity::kNumeric));
  EXPECT_EQ(Enc(Real(5.0), Affinity::kBlob), Enc(Int(5), Affinity::kBlob));  // 5.0 = 5
  EXPECT_EQ(Enc(Int(5), Affinity::kReal), Enc(Int(5), Affinity::kInteger));
  EXPECT_EQ(Enc(Text("-9223372036854775808"), Affinity::kInteger),
            Enc(Int(INT64_MIN), Affinity::kInteger));
  // Not numbers: stay text.
  for (const char* text : {"0x10", "5a", "", " ", "1e", ".", "--1", "abc"}) {
    v = ApplyAffinity(Text(text), Affinity::kInteger, b);
    EXPECT_EQ(v.tag, Value::Tag::kText) << text;
  }
  // Too large for int64: a real.
  v = ApplyAffinity(Text("9223372036854775808"), Affinity::kInteger, b);
  EXPECT_EQ(v.tag, Value::Tag::kReal);
  v = ApplyAffinity(Text("5.5"), Affinity::kInteger, b);
  EXPECT_EQ(v.tag, Value::Tag::kReal);
  EXPECT_EQ(v.real, 5.5);
  // TEXT columns keep text as it is.
  EXPECT_NE(Enc(Text("5"), Affinity::kText), Enc(Int(5), Affinity::kInteger));
  EXPECT_NE(Enc(Text("5"), Affinity::kBlob), Enc(Int(5), Affinity::kBlob));
}

TEST(ApplyAffinityTest, NumbersIntoTextColumns) {
  EXPECT_EQ(Enc(Int(5), Affinity::kText), Enc(Text("5"), Affinity::kText));
  EXPECT_EQ(Enc(Int(-12), Affinity::kText), Enc(Text("-12"), Affinity::kText));
  EXPECT_EQ(Enc(Real(1.5), Affinity::kText), Enc(Text("1.5"), Affinity::kText));
  EXPECT_EQ(Enc(Real(5.0), Affinity::kText), Enc(Text("5.0"), Affinity::kText));
}

TEST(ApplyAffinityTest, TextComparesByBytes) {
  EXPECT_NE(Enc(Text("Alice"), Affinity::kText), Enc(Text("alice"), Affinity::kText));
  EXPECT_NE(Enc(Text("a"), Affinity::kText), Enc(Text("a "), Affinity::kText));
  EXPECT_EQ(Enc(Text(std::string_view("a\0b", 3)), Affinity::kText),
            Enc(Text(std::string_view("a\0b", 3)), Affinity::kText));
  EXPECT_NE(Enc(Text(std::string_view("a\0b", 3)), Affinity::kText),
            Enc(Text("a"), Affinity::kText));
}

TEST(ApplyAffinityTest, BlobColumnsCompareBytesHoweverTheyCame) {
  // A dump gives a binary column as raw text bytes, as hex (a blob), or X''.
  EXPECT_EQ(Enc(Text(std::string_view("\x00\xff", 2)), Affinity::kBlob),
            Enc(Blob(std::string_view("\x00\xff", 2)), Affinity::kBlob));
  EXPECT_NE(Enc(Blob(std::string_view("\x00\xff", 2)), Affinity::kBlob),
            Enc(Blob(std::string_view("\x00\xfe", 2)), Affinity::kBlob));
  EXPECT_EQ(Enc(Text(""), Affinity::kBlob), Enc(Blob(""), Affinity::kBlob));
  // In a TEXT column a blob stays a blob, as in SQLite.
  EXPECT_NE(Enc(Text("ab"), Affinity::kText), Enc(Blob("ab"), Affinity::kText));
}

TEST(ApplyAffinityTest, NullsAndBigIntegers) {
  ValueBuffer b;
  EXPECT_EQ(ApplyAffinity(Cell{}, Affinity::kInteger, b).tag, Value::Tag::kNull);
  EXPECT_EQ(ApplyAffinity(Real(std::nan("")), Affinity::kReal, b).tag, Value::Tag::kNull);
  const Cell big = Bytes(Cell::Type::kBigInteger, "18446744073709551615");
  const Value v = ApplyAffinity(big, Affinity::kInteger, b);
  EXPECT_EQ(v.tag, Value::Tag::kBigInteger);
  EXPECT_EQ(v.bytes, "18446744073709551615");
  EXPECT_EQ(Enc(big, Affinity::kInteger), Enc(big, Affinity::kNumeric));
  EXPECT_NE(Enc(big, Affinity::kInteger), Enc(Int(INT64_MAX), Affinity::kInteger));
}

TEST(OrderTest, SqliteOrder) {
  ValueBuffer b;
  auto own = [&](const Cell& c) { return Own(ApplyAffinity(c, Affinity::kNumeric, b)); };
  const std::vector<OwnedValue> ascending = {
      own(Int(INT64_MIN)),
      own(Real(-0.5)),
      own(Int(0)),
      own(Real(0.5)),
      own(Int(INT64_MAX)),
      own(Bytes(Cell::Type::kBigInteger, "9223372036854775808")),
      own(Bytes(Cell::Type::kBigInteger, "18446744073709551615")),
      own(Text("")),
      own(Text("A")),
      own(Text("a")),
      own(Blob("")),
      own(Blob("\x01"))};
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    for (std::size_t j = 0; j < ascending.size(); ++j) {
      const int want = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(Compare(ascending[i], ascending[j]), want) << i << " vs " << j;
    }
  }
}

TEST(HashTest, DistinctInputsDistinctHashes) {
  std::vector<Hash128> hashes;
  for (uint64_t i = 0; i < 100000; ++i) {
    // Distinct inputs of every length from 8 to 47 bytes.
    std::string bytes(8 + i % 40, '\0');
    for (int b = 0; b < 8; ++b)
      bytes[static_cast<std::size_t>(b)] = static_cast<char>(i >> (8 * b));
    hashes.push_back(HashBytes(bytes));
  }
  hashes.push_back(HashBytes("a"));
  hashes.push_back(HashBytes("b"));
  std::sort(hashes.begin(), hashes.end());
  EXPECT_EQ(std::adjacent_find(hashes.begin(), hashes.end()), hashes.end());
  EXPECT_EQ(HashBytes("abc"), HashBytes("abc"));
}

TEST(KeySetTest, SortDedupeIntersect) {
  KeySet a;
  KeySet b;
  for (int64_t v : {5, 3, 9, 3, 1}) a.AddInteger(v);
  for (int64_t v : {9, 2, 3, 7}) b.AddInteger(v);
  a.AddHash(HashBytes("x"));
  b.AddHash(HashBytes("x"));
  b.AddHash(HashBytes("y"));
  EXPECT_EQ(a.rows(), 6u);
  a.Sort();
  b.Sort();
  a.Dedupe();
  b.Dedupe();
  EXPECT_EQ(a.rows(), 6u);
  EXPECT_EQ(std::vector<int64_t>(a.integers().begin(), a.integers().end()),
            (std::vector<int64_t>{1, 3, 5, 9}));
  std::vector<int64_t> common;
  EXPECT_EQ(Intersect(a.integers(), b.integers(), 1, common), 2u);
  EXPECT_EQ(common, (std::vector<int64_t>{3}));
  common.clear();
  EXPECT_EQ(Intersect(a.integers(), b.integers(), 0, common), 2u);
  EXPECT_EQ(common, (std::vector<int64_t>{3, 9}));
  std::vector<Hash128> hashes;
  EXPECT_EQ(Intersect(a.hashes(), b.hashes(), 0, hashes), 1u);
}

// Integers added in ascending order are not sorted or deduped again (a rowid scan gives 2M of
// them a side): a set knows it only if every value, in AddInteger or within and across runs of
// AddIntegers, is above the one before. One equal to the one before, or below it, anywhere,
// leaves the set to sort and dedupe as before; Dedupe and Clear leave it ascending again.
TEST(KeySetTest, SortsAndDedupesIntegersUnlessEveryOneCameAboveTheOneBefore) {
  const auto values = [](const KeySet& set) {
    return std::vector<int64_t>(set.integers().begin(), set.integers().end());
  };
  const auto finished = [&](const std::vector<std::vector<int64_t>>& runs) {
    KeySet set;
    for (const std::vector<int64_t>& run : runs) {
      if (run.size() == 1) {
        set.AddInteger(run[0]);
      } else {
        set.AddIntegers(run);
      }
    }
    const bool ascending = set.integers_ascending();
    set.Sort();
    set.Dedupe();
    EXPECT_TRUE(set.integers_ascending());
    std::vector<int64_t> all;
    for (const std::vector<int64_t>& run : runs) all.insert(all.end(), run.begin(), run.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    EXPECT_EQ(values(set), all);
    return ascending;
  };
  EXPECT_TRUE(finished({{1, 2, 5}, {7}, {8, 9}, {}, {10}}));
  EXPECT_FALSE(finished({{1, 2, 5}, {5, 6}}));  // across runs, equal
  EXPECT_FALSE(finished({{1, 2, 5}, {4, 6}}));  // across runs, below
  EXPECT_FALSE(finished({{1, 2, 2, 3}}));       // within a run
  EXPECT_FALSE(finished({{1, 3, 2}}));
  EXPECT_FALSE(finished({{4}, {4}}));  // AddInteger
  EXPECT_FALSE(finished({{4}, {3}}));
  EXPECT_FALSE(finished({{1, 2}, {3}, {3, 4}}));
  EXPECT_FALSE(finished({{1, 3, 2}, {4, 5}}));  // stays so after an ascending run

  KeySet set;
  set.AddIntegers(std::vector<int64_t>{3, 1});
  set.Clear();
  EXPECT_TRUE(set.integers_ascending());
  set.AddIntegers(std::vector<int64_t>{1, 2});
  set.Sort();
  set.Dedupe();
  set.AddInteger(2);  // after a Dedupe: the last value kept is the one before
  EXPECT_FALSE(set.integers_ascending());
}

// Hashes sort as std::sort sorts them, whatever their spread: uniform ones (XXH3's), all in one
// bucket of the distribution by top byte, or by top two bytes, few distinct ones (every level,
// then the low 64 bits), descending, bunched in the slots a bucket is sorted through (their
// bits after the top byte equal), or a few to a value of the top 64 bits (told apart by the low
// 64 in the insertion sort); sizes around the points where the distribution and the slots
// start, and large enough for buckets of thousands.
TEST(KeySetTest, HashesSortAsStdSortSortsThem) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{255},
        std::size_t{256}, std::size_t{4095}, std::size_t{4097}, std::size_t{200000}}) {
    for (int spread = 0; spread < 7; ++spread) {
      std::vector<Hash128> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        Hash128& h = values[i];
        h = Hash128{rng(), rng()};
        if (spread == 1) h.hi = (uint64_t{0x5a} << 56) | (h.hi >> 8);     // one top byte
        if (spread == 2) h = Hash128{rng() % 3 << 60, rng() % 5};         // few values, repeated
        if (spread == 3) h = Hash128{~uint64_t{i}, ~uint64_t{i} * 7};     // descending
        if (spread == 4) h.hi = (uint64_t{0xa55a} << 48) | (h.hi >> 16);  // two top bytes
        if (spread == 5) h.hi = (h.hi & ~(uint64_t{0xffffff} << 32));     // bunched in slots
        if (spread == 6) h.hi = rng() % (n / 3 + 1) * (UINT64_MAX / (n / 3 + 1));  // a few each
      }
      KeySet set;
      for (const Hash128& h : values) set.AddHash(h);
      set.Sort();
      std::sort(values.begin(), values.end());
      ASSERT_TRUE(
          std::equal(set.hashes().begin(), set.hashes().end(), values.begin(), values.end()))
          << n << " values, spread " << spread;
    }
  }
}

// The fingerprints resolve.h sorts (32 bits each) sort as std::sort sorts them, through the
// same distribution as hashes: uniform, one top byte, repeated, descending, bunched.
TEST(KeySetTest, FingerprintsSortAsStdSortSortsThem) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{64}, std::size_t{4095},
                              std::size_t{4097}, std::size_t{300000}}) {
    for (int spread = 0; spread < 5; ++spread) {
      std::vector<uint32_t> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        auto v = static_cast<uint32_t>(rng());
        if (spread == 1) v = (uint32_t{0x5a} << 24) | (v >> 8);       // one top byte
        if (spread == 2) v = static_cast<uint32_t>(rng() % 7) << 28;  // few values, repeated
        if (spread == 3) v = ~static_cast<uint32_t>(i);               // descending
        if (spread == 4) v &= 0xff0000ffu;                            // bunched in slots
        values[i] = v;
      }
      std::vector<uint32_t> sorted = values;
      SortUniform(sorted.data(), sorted.size());
      std::sort(values.begin(), values.end());
      ASSERT_EQ(sorted, values) << n << " values, spread " << spread;
    }
  }
}

// From a million values on, the intersection is split in two halves merged on two threads: the
// same count and the same first `limit` values as a merge on one thread, wherever the limit
// falls (in the lower half, at the split, in the upper half), whatever the overlap's spread
// (none, all, ids of one side bunched below the other's).
TEST(KeySetTest, IntersectionInTwoHalvesIsTheMergesOnOneThread) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  constexpr std::size_t kSide = 800000;  // both sides: past the split's million
  for (int shape = 0; shape < 4; ++shape) {
    std::vector<int64_t> a(kSide);
    std::vector<int64_t> b(kSide);
    for (std::size_t i = 0; i < kSide; ++i) {
      a[i] = static_cast<int64_t>(rng() % (4 * kSide));
      b[i] = static_cast<int64_t>(rng() % (4 * kSide));
      if (shape == 1) b[i] = a[i];                                 // all shared
      if (shape == 2) b[i] += static_cast<int64_t>(8 * kSide);     // none shared
      if (shape == 3) a[i] = static_cast<int64_t>(rng() % kSide);  // A below most of B
    }
    for (std::vector<int64_t>* side : {&a, &b}) {
      std::sort(side->begin(), side->end());
      side->erase(std::unique(side->begin(), side->end()), side->end());
    }
    std::vector<int64_t> all;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all));
    for (const uint64_t limit :
         {uint64_t{0}, uint64_t{1}, uint64_t{all.size() / 2}, uint64_t{all.size() / 2 + 1},
          uint64_t{all.size() - all.size() / 8}, uint64_t{all.size() + 5}}) {
      std::vector<int64_t> common{-1};  // appended to, not replaced
      EXPECT_EQ(Intersect(std::span<const int64_t>(a), std::span<const int64_t>(b), limit, common),
                all.size())
          << "shape " << shape << ", limit " << limit;
      const std::size_t kept = limit == 0 ? all.size() : std::min<std::size_t>(limit, all.size());
      std::vector<int64_t> expected{-1};
      expected.insert(expected.end(), all.begin(), all.begin() + static_cast<std::ptrdiff_t>(kept));
      EXPECT_EQ(common, expected) << "shape " << shape << ", limit " << limit;
    }
  }
}

// The merge steps up to eight lanes at once, each a part of A and the part of B that can meet
// it; 64-bit integers go a block of 4 or 8 at a time where the processor can: for each kind of
// key (integers, pairs, hashes), each way of merging, and sizes below, at and past a block's
// values and a lane's 4096, the count and the values are std::set_intersection's, with shared
// values placed on the lanes' first values, on the last, and at random, and with any limit.
template <typename T, typename Make, typename Merge>
void ExpectIntersectAsStd(std::mt19937_64& rng, Make make, Merge merge) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{9},
                              std::size_t{17}, std::size_t{4095}, std::size_t{4096},
                              std::size_t{8192}, std::size_t{3 * 4096 + 7}, std::size_t{70001}}) {
    std::vector<T> a(n);
    std::vector<T> b(n + n / 3);
    for (T& v : a) v = make(rng);
    for (T& v : b) v = make(rng);
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    // Share A's first value of every lane (whatever the lane count), its last, and 1 in 5.
    for (std::size_t lanes = 1; lanes <= 8; ++lanes) {
      for (std::size_t k = 0; k < lanes; ++k) b.push_back(a[a.size() * k / lanes]);
    }
    b.push_back(a.back());
    for (std::size_t i = 0; i < a.size(); i += 5) b.push_back(a[i]);
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    std::vector<T> all;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all));
    for (const uint64_t limit : {uint64_t{0}, uint64_t{1}, uint64_t{all.size() / 3}}) {
      std::vector<T> common;
      EXPECT_EQ(merge(std::span<const T>(a), std::span<const T>(b), limit, common), all.size())
          << "n " << n << ", limit " << limit;
      const std::size_t kept = limit == 0 ? all.size() : std::min<std::size_t>(limit, all.size());
      EXPECT_TRUE(std::equal(common.begin(), common.end(), all.begin(),
                             all.begin() + static_cast<std::ptrdiff_t>(kept)) &&
                  common.size() == kept)
          << "n " << n << ", limit " << limit;
    }
  }
}

TEST(KeySetTest, IntersectionInLanesAndBlocksIsStdSetIntersection) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  using key_set_internal::IntersectInLanes;
  using key_set_internal::IntersectRange;
  // Values from a narrow range too, so that pairs tie on their first and hashes on their hi.
  const auto integer = [](std::mt19937_64& r) {
    return static_cast<int64_t>(r()) >> (r() % 2 == 0 ? 0 : 40);
  };
  ExpectIntersectAsStd<int64_t>(rng, integer, IntersectInLanes<int64_t>);
  ExpectIntersectAsStd<int64_t>(rng, integer, IntersectRange<int64_t>);
  // Every block width this processor has (blocks of 8 have those of 4 too).
  const int here = key_set_internal::BlockWidthHere();
  std::cout << "block widths here: " << (here == 8 ? "8, 4" : here == 4 ? "4" : "none") << "\n";
  for (const int width : {4, 8}) {
    if (here < width) continue;
    const auto blocks = [width](std::span<const int64_t> a, std::span<const int64_t> b,
                                uint64_t limit, std::vector<int64_t>& common) {
      return key_set_internal::IntersectBlocks(width, a, b, limit, common);
    };
    ExpectIntersectAsStd<int64_t>(rng, integer, blocks);
    std::vector<int64_t> none;
    const std::vector<int64_t> some = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    EXPECT_EQ(blocks({}, some, 0, none), 0u);
    EXPECT_EQ(blocks(some, {}, 0, none), 0u);
    EXPECT_EQ(blocks(some, some, 0, none), some.size());
    EXPECT_EQ(none, some);
  }
  ExpectIntersectAsStd<IntegerPair>(
      rng,
      [](std::mt19937_64& r) {
        return IntegerPair{static_cast<int64_t>(r() % 64) - 32, static_cast<int64_t>(r())};
      },
      IntersectRange<IntegerPair>);
  ExpectIntersectAsStd<Hash128>(
      rng,
      [](std::mt19937_64& r) {
        return Hash128{r() % 64 + (uint64_t{1} << 63) * (r() % 2), r()};
      },
      IntersectRange<Hash128>);
}

// The memory target: at most 24 bytes per key held, whatever the count.
TEST(KeySetTest, AtMost24BytesPerKey) {
  for (const std::size_t n :
       {std::size_t{1000}, std::size_t{5000}, std::size_t{100001}, std::size_t{1234567}}) {
    KeySet ints;
    KeySet hashes;
    for (std::size_t i = 0; i < n; ++i) {
      ints.AddInteger(static_cast<int64_t>(i));
      hashes.AddHash(Hash128{i, i});
    }
    const double per_int = static_cast<double>(ints.bytes_held()) / static_cast<double>(n);
    const double per_hash = static_cast<double>(hashes.bytes_held()) / static_cast<double>(n);
    // Below 4096 keys the first block dominates; past it growth is 1.25x.
    if (n >= 4096) {
      EXPECT_LE(per_int, 10.0 + 1e-9) << n;
      EXPECT_LE(per_hash, 20.0 + 1e-9) << n;
    }
    std::cout << "[ memory ] " << n << " keys: " << per_int << " B/integer key, " << per_hash
              << " B/hashed key\n";
  }
}

// A large array moves into a region of its own (huge_pages.h), 2 MiB aligned, then into a
// larger one when it outgrows that: every move keeps every value, and moving the array hands
// the region over (a region freed twice, or as malloc's, crashes here or under ASan).
TEST(ValueArrayTest, KeepsItsValuesThroughEveryMove) {
  // 128 bytes: from the first 4,096 (512 KiB) a range made present as it grows, up to 8,000,
  // then a region of 64x the 1.28 MB of 10,000, then, from 640,000, a second region.
  using Block = std::array<int64_t, 16>;
  constexpr std::size_t kCount = 700'000;
  ValueArray<Block> array;
  Block block{};
  for (std::size_t i = 0; i < kCount; ++i) {
    block[0] = static_cast<int64_t>(i);
    block[15] = -static_cast<int64_t>(i);
    array.push_back(block);
    if (i == 20'000) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(array.begin()) % (std::size_t{2} << 20), 0u)
          << "an array of 2.5 MB is not in a region of its own";
    }
  }
  ValueArray<Block> moved(std::move(array));
  ValueArray<Block> assigned;
  assigned = std::move(moved);
  ASSERT_EQ(assigned.size(), kCount);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    const Block& b = assigned.begin()[i];
    wrong += b[0] != static_cast<int64_t>(i) || b[15] != -static_cast<int64_t>(i);
  }
  EXPECT_EQ(wrong, 0u);
}

// The field `field` (like "THPeligible" or "AnonHugePages") of /proc/self/smaps for the mapping
// that holds `at`; -1 where there is none.
long SmapsField(const void* at, const std::string& field) {
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t low = 0;
    std::uintptr_t high = 0;
    const std::string first = line.substr(0, line.find(' '));
    if (first.find(':') == std::string::npos &&
        std::sscanf(first.c_str(), "%lx-%lx", &low, &high) == 2) {
      inside = low <= address && address < high;
    } else if (inside && line.starts_with(field + ":")) {
      return std::atol(line.c_str() + field.size() + 1);
    }
  }
  return -1;
}

// The pages of [begin, end) not in memory (mincore(2)).
std::size_t AbsentPages(const void* begin, const void* end) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t low = reinterpret_cast<std::uintptr_t>(begin) & ~(page - 1);
  const std::uintptr_t high = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  std::vector<unsigned char> present((high - low) / page);
  if (present.empty()) return 0;
  EXPECT_EQ(::mincore(reinterpret_cast<void*>(low), high - low, present.data()), 0);
  return static_cast<std::size_t>(std::count(present.begin(), present.end(), 0));
}

// An array under kHugeRegionFrom takes no huge page: a region's first write takes a whole 2 MiB
// page, which many tables of a few tens of thousands of rows would each hold.
TEST(ValueArrayTest, AnArrayUnderAMebibyteTakesNoHugePage) {
  ValueArray<int64_t> array;
  constexpr int64_t count = (int64_t{768} << 10) / 8;  // 768 KiB
  for (int64_t i = 0; i < count; ++i) array.push_back(i);
  ASSERT_EQ(array.size(), static_cast<std::size_t>(count));
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(array.begin()) % (std::size_t{2} << 20), 0u)
      << "an array of " << count * 8 << " bytes moved into a region";
  const long huge = SmapsField(array.begin(), "AnonHugePages");
  if (huge < 0) GTEST_SKIP() << "this kernel's smaps has no AnonHugePages";
  EXPECT_EQ(huge, 0) << "an array of " << count * 8 << " bytes lies in huge pages";
  // From malloc's memory into a range of its own, grown there: every value kept.
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i) wrong += array.begin()[i] != i;
  EXPECT_EQ(wrong, 0);
}

// From kPopulatedFrom bytes each growth makes the array's new room present at once, before a
// value is written there: the pages past its last value are in memory, at every growth up to
// kHugeRegionFrom.
TEST(ValueArrayTest, AMidSizeArraysRoomIsPresentBeforeItIsWritten) {
#ifndef MADV_POPULATE_WRITE
  GTEST_SKIP() << "this system's headers have no MADV_POPULATE_WRITE (Linux 5.14)";
#endif
  ValueArray<int64_t> array;
  int growths = 0;
  std::size_t capacity = 0;
  for (int64_t i = 0; array.size() * 8 < kHugeRegionFrom - 4096; ++i) {
    array.push_back(i);
    if (array.capacity() == capacity) continue;
    capacity = array.capacity();
    if (capacity * 8 < kPopulatedFrom || capacity * 8 >= kHugeRegionFrom) continue;
    ++growths;
    EXPECT_EQ(AbsentPages(array.end(), array.begin() + capacity), 0u)
        << "pages absent past value " << i << " of room for " << capacity;
  }
  EXPECT_GE(growths, 4);
}

// The region is advised to huge pages: the kernel marks its mapping THP-eligible wherever
// transparent huge pages are not switched off altogether.
TEST(ValueArrayTest, ALargeArrayIsEligibleForHugePages) {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(mode, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos) {
    GTEST_SKIP() << "transparent huge pages are off on this kernel (" << modes << ")";
  }
  ValueArray<int64_t> array;
  for (int64_t i = 0; i < (int64_t{1} << 20); ++i) array.push_back(i);  // 8 MiB
  const long eligible = SmapsField(array.begin(), "THPeligible");
  if (eligible < 0) GTEST_SKIP() << "this kernel's smaps has no THPeligible";
  EXPECT_EQ(eligible, 1) << "the array's mapping is not advised to huge pages";
}

// A ZeroedArray starts all zero, small (calloc's) or large (a region of huge pages, 2 MiB
// aligned), also where the memory held values before (malloc's reuse of a freed block); moving it
// hands its memory over.
TEST(ZeroedArrayTest, StartsZeroAtEverySizeAndMovesItsMemory) {
  for (const std::size_t size : {std::size_t{1}, std::size_t{1000}, kHugeRegionFrom}) {
    for (int round = 0; round < 2; ++round) {  // the second round gets memory the first dirtied
      ZeroedArray<uint64_t> array(size);
      ASSERT_EQ(array.size(), size);
      std::size_t nonzero = 0;
      for (std::size_t i = 0; i < size; ++i) nonzero += array[i] != 0;
      EXPECT_EQ(nonzero, 0u) << size << " values, round " << round;
      if (size * sizeof(uint64_t) >= kHugeRegionFrom) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&array[0]) % (std::size_t{2} << 20), 0u)
            << "an array of " << size * sizeof(uint64_t) << " bytes is not in a region";
      }
      for (std::size_t i = 0; i < size; ++i) array[i] = ~uint64_t{0} - i;
      ZeroedArray<uint64_t> moved(std::move(array));
      ZeroedArray<uint64_t> assigned(3);
      assigned = std::move(moved);
      EXPECT_EQ(moved.size(), 0u);
      ASSERT_EQ(assigned.size(), size);
      EXPECT_EQ(assigned[size - 1], ~uint64_t{0} - (size - 1));
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
