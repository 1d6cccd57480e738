// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// EightCells (sqlite/table_leaf_cells.h) against a cell-by-cell reading of the same bytes with
// the scalar varint reader: on random table leaf pages whose cells are mostly the kind it takes
// (a payload size under 128, a rowid of one to nine bytes, ascending) and now and then not (a
// rowid out of order, a payload size of two or more bytes, a payload running off the page by
// one byte or more, a cell before the content area or in the page's last 10 bytes), it must take
// exactly the blocks whose eight cells are all of that kind and give each rowid as GetVarint
// reads it. SixteenCells (sqlite/index_leaf_cells.h) likewise on index leaf pages: it must take
// exactly the blocks whose sixteen cells a cell-by-cell reading takes as that kind.

#include "sqlite/index_leaf_cells.h"
#include "sqlite/table_leaf_cells.h"

#include <sys/mman.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

#include "mergecheck_test_util.h"
#include "sqlite/page_file.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

constexpr uint32_t kUsable = 4096;
// Where the cell content area may begin: after the pointers of 196 cells, of which the block's
// eight (sixteen, an index leaf's) are the first; a cell placed before it is sound but for where
// it lies.
constexpr uint32_t kFirstCell = 8 + 2 * 196;

// A block's page: the header's cell pointers for eight or sixteen cells, and the cells. The page
// ends where a page the process may not read begins, so that a read past its end is a crash rather
// than a wrong answer nobody sees.
class GuardedPage {
 public:
  GuardedPage() {
    void* mapped =
        ::mmap(nullptr, 2 * kUsable, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::runtime_error("cannot map a page");
    bytes_ = static_cast<unsigned char*>(mapped);
    if (::mprotect(bytes_ + kUsable, kUsable, PROT_NONE) != 0) {
      throw std::runtime_error("cannot protect a page");
    }
  }
  ~GuardedPage() { ::munmap(bytes_, 2 * kUsable); }
  GuardedPage(const GuardedPage&) = delete;
  GuardedPage& operator=(const GuardedPage&) = delete;
  unsigned char* data() const { return bytes_; }

 private:
  unsigned char* bytes_ = nullptr;
};

struct Block {
  unsigned char* page = nullptr;  // kUsable bytes
  bool any = false;
  int64_t last = 0;
};

// A random block: mostly the kind EightCells takes, each cell now and then another kind.
Block RandomBlock(std::mt19937_64& random, const GuardedPage& page) {
  Block block;
  block.page = page.data();
  std::memset(block.page, 0, kUsable);
  std::uniform_int_distribution<int> percent(0, 99);
  block.any = percent(random) < 80;
  // The block's rowids from any magnitude on (one to nine bytes; negative now and then), each
  // a step above the one before, the steps about a thousandth of the first.
  uint64_t rowid = random() >> (random() % 64);
  const uint64_t step = 1 + (rowid >> 10);
  block.last = static_cast<int64_t>(rowid - 1 - random() % step);
  if (percent(random) < 3) block.last = static_cast<int64_t>(rowid + 5);  // not below the first
  uint32_t at = kUsable;
  for (int i = 0; i < 8; ++i) {
    rowid += 1 + random() % step;
    uint64_t value = rowid;
    const int kind = percent(random);
    if (kind < 3) value = rowid - 2 * step - 1;  // below the one before
    uint32_t payload = static_cast<uint32_t>(random() % 100);
    if (kind == 4) payload = 128 + static_cast<uint32_t>(random() % 300);  // two bytes of size
    unsigned char cell[16 + 2 + 9 + 430] = {};
    int n = testing::PutVarint(payload, cell);
    n += testing::PutVarint(value, cell + n);
    if (kind == 8) {  // a size whose first byte has its high bit: the rowid continues it
      cell[0] = static_cast<unsigned char>(0x80 | (random() & 0x7f));
      n = 1 + testing::PutVarint(value, cell + 1);
      payload = 0;
    }
    for (uint32_t b = 0; b < payload; ++b) cell[n + b] = static_cast<unsigned char>(random());
    const uint32_t size = static_cast<uint32_t>(n) + payload;
    if (size + 16 > at || at - size < 1000) break;  // room left for the rest: stop (all zeros)
    at -= size;
    uint32_t offset = at;
    if (kind == 5) {  // before the content area
      at += size;
      offset = 24 + static_cast<uint32_t>(random() % 100);
    }
    if (kind == 6) offset = kUsable - 1 - static_cast<uint32_t>(random() % 10);  // last 10 bytes
    if (kind == 9) {  // its payload's last byte one past the page's
      at += size;
      offset = kUsable + 1 - size;
    }
    if (kind == 7) {  // its payload runs off the page
      at += size;
      offset = kUsable - static_cast<uint32_t>(n) - 8;
    }
    std::memcpy(block.page + offset, cell, std::min<std::size_t>(size, kUsable - offset));
    block.page[8 + 2 * i] = static_cast<unsigned char>(offset >> 8);
    block.page[9 + 2 * i] = static_cast<unsigned char>(offset);
  }
  return block;
}

// What EightCells must answer for `block`, read cell by cell with GetVarint.
bool Expected(const Block& block, int64_t* rowids) {
  const unsigned char* const base = block.page;
  bool any = block.any;
  int64_t last = block.last;
  for (int i = 0; i < 8; ++i) {
    const uint32_t offset = page_file_internal::Get16(base + 8 + 2 * i);
    if (offset < kFirstCell || offset + 10 > kUsable) return false;
    uint64_t payload = 0;
    const int n = page_file_internal::GetVarint(base + offset, base + kUsable, payload);
    if (n != 1 || payload >= 0x80) return false;
    uint64_t rowid = 0;
    const int length = page_file_internal::GetVarint(base + offset + 1, base + kUsable, rowid);
    if (length == 0 || offset + 1 + length + payload > kUsable) return false;
    if (any && static_cast<int64_t>(rowid) <= last) return false;
    any = true;
    last = static_cast<int64_t>(rowid);
    rowids[i] = last;
  }
  return true;
}

// Runs 20,000 rounds of `round(random, page, number, take)` on one page, seeded: each makes a
// block, asserts on it and sets `take` to whether the block was to be taken. Stops at the first
// failed assertion. Both answers must have been asked for often enough to mean something: at
// least `least_taken` blocks taken and 2,000 left.
template <typename Round>
void RunRounds(int least_taken, Round&& round) {
  std::mt19937_64 random = ::steadyflake::testing::SeededRandom();
  const GuardedPage page;
  int taken = 0;
  int left = 0;
  for (int number = 0; number < 20000; ++number) {
    bool take = false;
    round(random, page, number, take);
    if (::testing::Test::HasFatalFailure()) return;
    (take ? taken : left) += 1;
  }
  EXPECT_GT(taken, least_taken);
  EXPECT_GT(left, 2000);
  std::cout << "[ blocks   ] " << taken << " taken, " << left << " left\n";
}

TEST(TableLeafCellsTest, TakesTheBlocksACellByCellReadingTakesWithTheSameRowids) {
  if (!table_leaf_cells::Here()) GTEST_SKIP() << "this processor has no AVX-512 (F, BW and CD)";
  RunRounds(2000, [](std::mt19937_64& random, const GuardedPage& page, int round, bool& take) {
    const Block block = RandomBlock(random, page);
    int64_t expected[8] = {};
    int64_t given[8] = {};
    take = Expected(block, expected);
    ASSERT_EQ(table_leaf_cells::EightCells(block.page, block.page + 8, kFirstCell, kUsable,
                                           block.any, block.last, given),
              take)
        << "round " << round;
    if (take) {
      for (int i = 0; i < 8; ++i) ASSERT_EQ(given[i], expected[i]) << "round " << round;
    }
  });
}

// A random block of sixteen index leaf cells: mostly the kind SixteenCells takes (a record of
// under 128 bytes on the page), each cell now and then another kind.
void RandomIndexBlock(std::mt19937_64& random, const GuardedPage& page, uint32_t max_local) {
  unsigned char* const base = page.data();
  std::memset(base, 0, kUsable);
  std::uniform_int_distribution<int> percent(0, 99);
  uint32_t at = kUsable;
  for (int i = 0; i < 16; ++i) {
    const int kind = percent(random);
    // Now and then above max_local where that is under 128.
    uint32_t payload = static_cast<uint32_t>(random() % std::min(128u, max_local + 4));
    if (kind < 3) payload = 128 + static_cast<uint32_t>(random() % 300);  // two bytes of size
    unsigned char cell[2 + 430] = {};
    const int n = testing::PutVarint(payload, cell);
    for (uint32_t b = 0; b < payload; ++b) cell[n + b] = static_cast<unsigned char>(random());
    const uint32_t size = static_cast<uint32_t>(n) + payload;
    if (size > at || at - size < 1000) break;  // room left for the rest: stop (all zeros)
    at -= size;
    uint32_t offset = at;
    if (kind == 5) {  // before the content area
      at += size;
      offset = 40 + static_cast<uint32_t>(random() % 100);
    }
    if (kind == 6) {  // in the page's last 4 bytes
      at += size;
      offset = kUsable - 1 - static_cast<uint32_t>(random() % 4);
    }
    if (kind == 9) {  // at the content area's first byte, or the one before it
      at += size;
      offset = kFirstCell - static_cast<uint32_t>(random() % 2);
    }
    if (kind == 7 || kind == 8) {  // its payload's end one past the page's, or further
      at += size;
      offset = kUsable - size + 1 + static_cast<uint32_t>(kind == 8 ? random() % 20 : 0);
      offset = std::min(offset, kUsable - 1);
    }
    std::memcpy(base + offset, cell, std::min<std::size_t>(size, kUsable - offset));
    base[8 + 2 * i] = static_cast<unsigned char>(offset >> 8);
    base[9 + 2 * i] = static_cast<unsigned char>(offset);
  }
}

// What SixteenCells must answer for the block on `base`, read cell by cell with GetVarint.
bool ExpectedIndexCells(const unsigned char* base, uint32_t max_local) {
  for (int i = 0; i < 16; ++i) {
    const uint32_t offset = page_file_internal::Get16(base + 8 + 2 * i);
    if (offset < kFirstCell || offset + 4 > kUsable) return false;
    uint64_t payload = 0;
    const int n = page_file_internal::GetVarint(base + offset, base + kUsable, payload);
    if (n != 1 || payload >= 0x80 || payload > max_local) return false;
    if (offset + 1 + payload > kUsable) return false;
  }
  return true;
}

TEST(IndexLeafCellsTest, TakesTheBlocksACellByCellReadingTakes) {
  if (!table_leaf_cells::Here()) GTEST_SKIP() << "this processor has no AVX-512 (F, BW and CD)";
  RunRounds(1000, [](std::mt19937_64& random, const GuardedPage& page, int round, bool& take) {
    // The most an index cell keeps on a page of 4 KiB (1,002 bytes: every size here) or 512
    // bytes (102: some records here are larger, and go to the overflow pages).
    const uint32_t max_local = round % 2 == 0 ? 1002 : 102;
    RandomIndexBlock(random, page, max_local);
    take = ExpectedIndexCells(page.data(), max_local);
    ASSERT_EQ(index_leaf_cells::SixteenCells(page.data(), page.data() + 8, kFirstCell, kUsable,
                                             max_local),
              take)
        << "round " << round;
  });
}

}  // namespace
}  // namespace steadyflake::mergecheck
