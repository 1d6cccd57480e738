// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// RowDirectory (check/row_directory.h): Select gives a superset of the rows with the wanted
// values, and Prepare, a cache, changes none of its answers: a Select whose values Prepare was
// given scans the rows it kept, any other (a value it was not given, rows added since) every row.

#include "check/row_directory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <unordered_map>
#include <vector>

#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

// A directory of two keys: key 0 an integer shared by a few rows, key 1 a hash of its own; one
// row in 50 has no key 0 (NULL).
void AddRows(RowDirectory& directory, std::mt19937_64& rng, uint64_t from, uint64_t count) {
  for (uint64_t row = from; row < from + count; ++row) {
    directory.Row(row * 7 + 3);
    if (rng() % 50 == 0) {
      directory.Key(0);  // NULL
    } else {
      directory.Key(Fingerprint(Hash128{0, row % 4000}));
    }
    directory.Key(HashFingerprint(Hash128{rng(), rng()}));
  }
}

// The wanted fingerprints of `count` values of key 0 (0 to 3,999) and of as many of key 1 (its
// values taken from rows of `directory` at random are not known here: fingerprints at random,
// each one a row's by chance about never).
std::vector<RowDirectory::Wanted> Want(std::mt19937_64& rng, std::size_t count) {
  std::vector<RowDirectory::Wanted> wanted(2);
  wanted[0].key = 0;
  wanted[1].key = 1;
  for (std::size_t i = 0; i < count; ++i) {
    wanted[0].fingerprints.push_back(Fingerprint(Hash128{0, rng() % 4000}));
    wanted[1].fingerprints.push_back(static_cast<uint32_t>(rng()));
  }
  return wanted;
}

// The part of `wanted` that keeps one value in `keep`.
std::vector<RowDirectory::Wanted> Part(std::vector<RowDirectory::Wanted> wanted, std::size_t keep) {
  for (RowDirectory::Wanted& w : wanted) {
    std::vector<uint32_t> part;
    for (std::size_t i = 0; i < w.fingerprints.size(); i += keep) part.push_back(w.fingerprints[i]);
    w.fingerprints = part;
  }
  return wanted;
}

// The directory of AddRows' first `rows` rows, drawn from `seed`.
void Fill(RowDirectory& directory, uint64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  directory.Reset(2, true);
  AddRows(directory, rng, 0, rows);
}

TEST(RowDirectoryTest, PreparedSelectionsGiveWhatTheWholeScanGives) {
  const uint64_t seed = ::steadyflake::testing::TestSeed();
  RowDirectory whole;  // never prepared: the answers
  Fill(whole, 30000, seed);
  RowDirectory directory;
  Fill(directory, 30000, seed);
  std::mt19937_64 rng(seed + 1);
  const std::vector<RowDirectory::Wanted> all = Want(rng, 300);
  const std::vector<RowDirectory::Wanted> half = Part(all, 2);
  const std::vector<RowDirectory::Wanted> key0 = {all[0]};
  // A value of key 0 Prepare is not given: 7, or the first such after it.
  uint64_t other = 7;
  const std::vector<uint32_t>& given = all[0].fingerprints;
  while (std::find(given.begin(), given.end(), Fingerprint(Hash128{0, other})) != given.end()) {
    ++other;
  }
  std::vector<RowDirectory::Wanted> beyond = half;
  beyond[0].fingerprints.push_back(Fingerprint(Hash128{0, other}));

  EXPECT_GT(whole.Select(all).size(), 1000u);  // something to lose
  directory.Prepare(all);
  using Wants = const std::vector<RowDirectory::Wanted>*;
  for (const Wants wanted : {Wants{&all}, Wants{&half}, Wants{&key0}, Wants{&beyond}}) {
    EXPECT_EQ(directory.Select(*wanted), whole.Select(*wanted));
  }
  // A Prepare of values among those of the one before scans the rows that one kept; its
  // Selects, and one of values beyond it, still give what the whole scan gives.
  directory.Prepare(half);
  EXPECT_EQ(directory.Select(half), whole.Select(half));
  EXPECT_EQ(directory.Select(all), whole.Select(all));
  directory.Prepare(all);
  // Rows other + 4000k hold it (but one in 50 has no key 0): the value's rows were found.
  const std::vector<uint64_t> found = directory.Select(beyond);
  const auto holds = [&](uint64_t row) {
    return std::binary_search(found.begin(), found.end(), row * 7 + 3);
  };
  EXPECT_TRUE(holds(other) || holds(other + 4000) || holds(other + 8000));

  // Rows added after Prepare are found too.
  std::mt19937_64 more(seed + 2);
  AddRows(directory, more, 30000, 5000);
  more.seed(seed + 2);
  AddRows(whole, more, 30000, 5000);
  EXPECT_EQ(directory.Select(half), whole.Select(half));
  EXPECT_GT(directory.Select(half).back(), uint64_t{30000 * 7});
}

// Positions past 4 GiB (kept as 32 bits and the rows where the high bits change), in any order:
// each row selected gives its own position back, before and after Prepare.
TEST(RowDirectoryTest, GivesBackPositionsPastFourGibibytes) {
  const uint64_t seed = ::steadyflake::testing::TestSeed();
  std::mt19937_64 rng(seed);
  RowDirectory directory;
  directory.Reset(1, true);
  std::vector<uint64_t> positions;
  for (uint64_t row = 0; row < 20000; ++row) {
    // Runs of rows under one high part, as a dump gives them, and jumps up and down between.
    const uint64_t position =
        row % 100 == 0 ? rng() % (uint64_t{1} << 40) : positions.back() + 1 + rng() % 4096;
    positions.push_back(position);
    directory.Row(position);
    directory.Key(Fingerprint(Hash128{0, row}));
  }
  std::vector<RowDirectory::Wanted> wanted(1);
  wanted[0].key = 0;
  std::vector<uint64_t> expected;
  for (uint64_t row = 0; row < positions.size(); row += 1 + rng() % 40) {
    wanted[0].fingerprints.push_back(Fingerprint(Hash128{0, row}));
    expected.push_back(positions[row]);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_GT(expected.back(), uint64_t{1} << 36);  // past 4 GiB, far
  const auto found = [&] {
    std::vector<uint64_t> all = directory.Select(wanted);
    // Rows of other values whose fingerprint matches by chance (about never): left out.
    std::vector<uint64_t> kept;
    std::set_intersection(all.begin(), all.end(), expected.begin(), expected.end(),
                          std::back_inserter(kept));
    return kept;
  };
  EXPECT_EQ(found(), expected);
  directory.Prepare(wanted);
  EXPECT_EQ(found(), expected);
}

// ForEachFingerprint gives each row's fingerprint of one key in the rows' order, NULLs left
// out; no value's fingerprint is a NULL's 0.
TEST(RowDirectoryTest, ForEachFingerprintGivesOneKeysFingerprintsInRowOrder) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  RowDirectory directory;
  directory.Reset(2, true);
  std::vector<uint32_t> expected[2];
  for (uint64_t row = 0; row < 5000; ++row) {
    directory.Row(row * 5);
    for (std::vector<uint32_t>& keys : expected) {
      if (rng() % 10 == 0) {
        directory.Key(0);  // NULL
        continue;
      }
      const Hash128 value{rng() % 3, rng()};
      directory.Key(Fingerprint(value));
      keys.push_back(Fingerprint(value));
      EXPECT_NE(keys.back(), 0u);
    }
  }
  for (std::size_t key = 0; key < 2; ++key) {
    std::vector<uint32_t> given;
    directory.ForEachFingerprint(key, [&](uint32_t fp) { given.push_back(fp); });
    EXPECT_EQ(given, expected[key]) << "key " << key;
  }
}

// A FingerprintFilter holds every fingerprint added, and passes few others: far fewer than one
// bit a value would, far more than none.
TEST(RowDirectoryTest, AFingerprintFilterPassesWhatItHoldsAndFewOthers) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  constexpr std::size_t kValues = 20000;
  FingerprintFilter filter(kValues, 8);
  std::vector<uint32_t> held;
  for (std::size_t i = 0; i < kValues; ++i) {
    held.push_back(Fingerprint(Hash128{rng(), rng()}));
    filter.Add(held.back());
  }
  for (const uint32_t fp : held) ASSERT_TRUE(filter.MayHold(fp));
  std::sort(held.begin(), held.end());
  std::size_t passed = 0, others = 0;
  while (others < 100000) {
    const uint32_t fp = Fingerprint(Hash128{rng(), rng()});
    if (std::binary_search(held.begin(), held.end(), fp)) continue;
    ++others;
    passed += filter.MayHold(fp) ? 1 : 0;
  }
  // 2^18 bits for 20,000 values, two bits of a 64-bit word a value: about 4.9 values a word,
  // and a fingerprint of none of them passes about one time in 40 (one bit a value: one in 13).
  EXPECT_GT(passed, others / 60);
  EXPECT_LT(passed, others / 28);
}

// A key kept in row order and Attached ascending (a dump's clustered primary key): Select finds
// the rows of the integers it is given by binary search, those and no other (not the row of
// another value with one of their fingerprints), and a Prepare of them keeps no rows for that
// key's fingerprints, which that other value's row may be wanted by.
TEST(RowDirectoryTest, AscendingIntegersSelectTheirOwnRows) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  // Two values of one fingerprint, found by drawing values until two share one (some 80,000
  // draws: the birthday bound of 32 bits).
  std::unordered_map<uint32_t, int64_t> seen;
  int64_t first = 0;
  int64_t second = 0;
  while (second == 0) {
    const auto v = static_cast<int64_t>(rng() >> 2);
    const auto [it, added] = seen.emplace(Fingerprint(Hash128{0, static_cast<uint64_t>(v)}), v);
    if (!added && it->second != v) {
      first = std::min(it->second, v);
      second = std::max(it->second, v);
    }
  }
  std::vector<int64_t> values = {first, second};
  for (int i = 0; i < 3000; ++i) values.push_back(static_cast<int64_t>(rng() >> 2));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  int64_t absent = first + 1;
  while (std::binary_search(values.begin(), values.end(), absent)) ++absent;

  RowDirectory directory;
  directory.Reset(1, true, {true});
  for (std::size_t row = 0; row < values.size(); ++row) directory.Row(row * 5 + 2);
  directory.Attach(0, values, true);
  const auto position = [&](int64_t value) {
    const auto it = std::lower_bound(values.begin(), values.end(), value);
    return static_cast<uint64_t>(it - values.begin()) * 5 + 2;
  };
  const auto want = [](std::vector<int64_t> integers, bool as_integers) {
    RowDirectory::Wanted w{0, {}, {}};
    for (const int64_t v : integers) {
      w.fingerprints.push_back(Fingerprint(Hash128{0, static_cast<uint64_t>(v)}));
    }
    if (as_integers) w.integers = integers;
    return std::vector<RowDirectory::Wanted>{w};
  };
  EXPECT_EQ(directory.Select(want({first}, false)),
            (std::vector<uint64_t>{position(first), position(second)}));
  EXPECT_EQ(directory.Select(want({first, absent}, true)), std::vector<uint64_t>{position(first)});
  directory.Prepare(want({first}, true));
  EXPECT_EQ(directory.Select(want({second}, false)),
            (std::vector<uint64_t>{position(first), position(second)}));
  EXPECT_EQ(directory.Select(want({second}, true)), std::vector<uint64_t>{position(second)});
}

// A key kept in row order (an INTEGER column's values, RowDirectory::Implicit) gives the same
// fingerprints and selections as one kept in the directory: attached at the end, or kept in the
// directory from a row that gives it none (Materialize within the row, after the keys before
// it) or before its values are sorted (after the last row).
TEST(RowDirectoryTest, KeysInRowOrderSelectAsKeptOnes) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  constexpr uint64_t kRows = 3000;
  for (int shape = 0; shape < 3; ++shape) {
    RowDirectory directory;
    directory.Reset(3, true, {false, true, true});
    std::vector<int64_t> integers[3];           // keys 1 and 2, in row order while implicit
    std::vector<uint32_t> expected(kRows * 3);  // every key's fingerprint, by row
    const uint64_t null_at = shape == 0 ? kRows : 1 + rng() % (kRows - 2);
    for (uint64_t row = 0; row < kRows; ++row) {
      directory.Row(row * 11 + 1);
      const Hash128 text{rng(), rng()};
      directory.Key(Fingerprint(text));
      expected[row * 3] = Fingerprint(text);
      for (std::size_t key = 1; key < 3; ++key) {
        const auto value = static_cast<int64_t>(rng() % 500);
        const bool null = key == 1 && row == null_at;
        expected[row * 3 + key] = null ? 0 : Fingerprint(Hash128{0, static_cast<uint64_t>(value)});
        if (directory.Implicit(key) && !null) {
          integers[key].push_back(value);
          continue;
        }
        directory.Materialize(key, integers[key]);
        directory.Key(null ? 0 : Fingerprint(Hash128{0, static_cast<uint64_t>(value)}));
      }
    }
    EXPECT_EQ(directory.Implicit(1), shape == 0);
    if (shape == 2) directory.Materialize(2, integers[2]);  // about to be sorted
    for (std::size_t key = 1; key < 3; ++key) directory.Attach(key, integers[key], false);
    for (uint64_t row = 0; row < kRows; ++row) {
      for (std::size_t key = 0; key < 3; ++key) {
        ASSERT_EQ(directory.FingerprintAt(row, key), expected[row * 3 + key])
            << "shape " << shape << " row " << row << " key " << key;
      }
    }
    std::vector<RowDirectory::Wanted> wanted(3);
    std::vector<uint64_t> rows;
    for (std::size_t key = 0; key < 3; ++key) {
      wanted[key].key = key;
      for (int i = 0; i < 20; ++i) {
        const uint64_t row = rng() % kRows;
        if (expected[row * 3 + key] == 0) continue;
        wanted[key].fingerprints.push_back(expected[row * 3 + key]);
      }
    }
    for (uint64_t row = 0; row < kRows; ++row) {
      for (std::size_t key = 0; key < 3; ++key) {
        const std::vector<uint32_t>& w = wanted[key].fingerprints;
        if (std::find(w.begin(), w.end(), expected[row * 3 + key]) != w.end()) {
          rows.push_back(row * 11 + 1);
          break;
        }
      }
    }
    EXPECT_EQ(directory.Select(wanted), rows) << "shape " << shape;
    directory.Prepare(wanted);
    EXPECT_EQ(directory.Select(wanted), rows) << "shape " << shape << ", prepared";
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
