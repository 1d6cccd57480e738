// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// PageReader: which pages come from one read and which alone, and that each is the right one;
// the buffers the reads fill (source/read_buffer.h).

#include "sqlite/page_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "source/read_buffer.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

constexpr uint32_t kPageSize = 4096;
constexpr uint32_t kPages = 400;

// A file of kPages pages with a SQLite header's page size, each page's bytes 4..7 its number.
class PageFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string bytes(std::size_t{kPages} * kPageSize, '\0');
    bytes.replace(0, 16, "SQLite format 3", 16);
    bytes[16] = static_cast<char>(kPageSize >> 8);
    bytes[17] = static_cast<char>(kPageSize & 0xff);
    for (uint32_t page = 1; page <= kPages; ++page) {
      for (int i = 0; i < 4; ++i) {
        bytes[std::size_t{page - 1} * kPageSize + 200 + i] = static_cast<char>(page >> (8 * i));
      }
    }
    path_ = dir_.path() + "/pages.db";
    ::steadyflake::testing::WriteFile(path_, bytes);
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // Reads `pages` in that order; fails on any page that is not the one asked for.
  static void ReadAll(PageReader& reader, const std::vector<uint32_t>& pages) {
    for (const uint32_t page : pages) {
      const unsigned char* bytes = reader.Page(page);
      uint32_t number = 0;
      for (int i = 0; i < 4; ++i) number |= uint32_t{bytes[200 + i]} << (8 * i);
      ASSERT_EQ(number, page);
    }
  }

  ::steadyflake::testing::TempDir dir_;
  std::string path_;
  int fd_ = -1;
};

TEST_F(PageFileTest, PagesInOrderWithSmallGapsComeFromOneRead) {
  PageFile file(fd_);
  PageReader reader(file);
  std::vector<uint32_t> pages;
  for (uint32_t page = 100; page < 160; page += 2) pages.push_back(page);  // every other page
  ReadAll(reader, pages);
  EXPECT_EQ(reader.reads(), 2u);  // 100 alone (the first), then 102 to 165 in one run
  pages.clear();
  for (uint32_t page = 200; page < 400; page += PageReader::kNearPages) pages.push_back(page);
  PageReader gapped(file);
  ReadAll(gapped, pages);
  EXPECT_EQ(gapped.reads(), 4u);  // 200 alone, then 216, 280 and 344 each start a run of 64
}

TEST_F(PageFileTest, PagesOutOfOrderOrFarApartAreReadAlone) {
  PageFile file(fd_);
  PageReader reader(file);
  const std::vector<uint32_t> scattered = {300, 120, 250, 40, 41 + PageReader::kNearPages + 1,
                                           390, 2};
  ReadAll(reader, scattered);
  EXPECT_EQ(reader.reads(), scattered.size());
  EXPECT_EQ(reader.bytes_read(), scattered.size() * kPageSize);
}

// A page out of order is read alone beside the run, which keeps its pages: an index walk's step
// back to a page before the run, then on through the run, reads nothing more, and the page read
// alone, asked for again, is not read again either.
TEST_F(PageFileTest, APageReadAloneLeavesTheRunItsPages) {
  PageFile file(fd_);
  PageReader reader(file);
  ReadAll(reader, {100, 102, 110, 101, 112, 120, 101, 130});
  EXPECT_EQ(reader.reads(), 3u);  // 100 alone, 102 to 165 in one run, 101 alone
  EXPECT_EQ(reader.bytes_read(), (1u + PageReader::kRunBytes / kPageSize + 1u) * kPageSize);
}

// Pages out of order that the reader was told to expect come in one batch from the first asked
// for on (an interior page's children: an index written in random order); a page not expected
// is read alone, and expected pages asked for again are not read again.
TEST_F(PageFileTest, ExpectedPagesOutOfOrderComeInOneBatch) {
  PageFile file(fd_);
  PageReader reader(file);
  const std::vector<uint32_t> children = {300, 120, 250, 40, 390, 2, 77, 360};
  reader.Expect(children);
  ReadAll(reader, {children.begin() + 1, children.end()});  // 120 on: one batch
  EXPECT_EQ(reader.reads(), 1u);
  EXPECT_EQ(reader.bytes_read(), (children.size() - 1) * kPageSize);
  ReadAll(reader, {250, 2, 360});  // held
  EXPECT_EQ(reader.reads(), 1u);
  ReadAll(reader, {300});  // expected, before the batch: a batch of its own on
  EXPECT_EQ(reader.reads(), 2u);
  ReadAll(reader, {200});  // not expected: alone
  EXPECT_EQ(reader.reads(), 3u);
  EXPECT_EQ(reader.bytes_read(), (2 * children.size() - 1 + 1) * kPageSize);
}

// Expected pages that lie in order (an index written in order) are left to runs: a batch ends
// before the first page a little after the one before it in the list.
TEST_F(PageFileTest, ExpectedPagesInOrderComeInRunsNotBatches) {
  PageFile file(fd_);
  PageReader reader(file);
  reader.Expect(std::vector<uint32_t>{300, 120, 125, 130, 250});
  ReadAll(reader, {300, 120});  // one batch of the two
  EXPECT_EQ(reader.reads(), 1u);
  EXPECT_EQ(reader.bytes_read(), 2u * kPageSize);
  ReadAll(reader, {125, 130});  // a run from 125
  EXPECT_EQ(reader.reads(), 2u);
  ReadAll(reader, {250});  // out of order: a batch of its own
  EXPECT_EQ(reader.reads(), 3u);
  EXPECT_EQ(reader.bytes_read(), (2u + PageReader::kRunBytes / kPageSize + 1u) * kPageSize);
}

// A reader without read-ahead (a lookup's) reads no runs: expected pages that lie in order
// come in the batch with the others.
TEST_F(PageFileTest, WithoutReadAheadExpectedPagesInOrderComeInTheBatch) {
  PageFile file(fd_);
  PageReader reader(file, /*read_ahead=*/false);
  const std::vector<uint32_t> pages = {300, 120, 125, 130, 131, 250};
  reader.Expect(pages);
  ReadAll(reader, pages);
  EXPECT_EQ(reader.reads(), 1u);
  EXPECT_EQ(reader.bytes_read(), pages.size() * kPageSize);
}

// A batch holds at most a run's bytes of pages; the pages after come in the next.
TEST_F(PageFileTest, ABatchHoldsARunsWorthOfPages) {
  PageFile file(fd_);
  PageReader reader(file);
  std::vector<uint32_t> children;
  for (uint32_t page = kPages; page > kPages - 100; --page) children.push_back(page);  // down
  reader.Expect(children);
  ReadAll(reader, children);
  const std::size_t batch = PageReader::kRunBytes / kPageSize;
  EXPECT_EQ(reader.reads(), (children.size() + batch - 1) / batch);
}

// An expected page beyond the end of the file is not read with the batch: asked for, it is the
// damage a page read alone is.
TEST_F(PageFileTest, AnExpectedPageBeyondTheEndIsDamage) {
  PageFile file(fd_);
  PageReader reader(file);
  reader.Expect(std::vector<uint32_t>{50, 10, kPages + 5, 30});
  ReadAll(reader, {10, 30});
  EXPECT_EQ(reader.reads(), 1u);
  EXPECT_THROW(reader.Page(kPages + 5), DamagedPage);
}

// A file cut short after it was measured: the batch that reaches past its end is damage naming
// the page, not a page of zeros.
TEST_F(PageFileTest, ABatchPastATruncatedEndIsDamage) {
  PageFile file(fd_);
  PageReader reader(file);
  ASSERT_EQ(::truncate(path_.c_str(), off_t{kPageSize} * 200), 0);
  reader.Expect(std::vector<uint32_t>{150, 20, 350, 60});
  try {
    reader.Page(20);
    FAIL() << "a page past the end was read";
  } catch (const DamagedPage& damage) {
    EXPECT_EQ(damage.page(), 350u);
  }
}

// The batch itself: each offset's bytes in its own slot, in the order asked, and what each read
// got (nothing past the end of the file). Where the kernel gives no io_uring, Read says so and
// the reader reads alone (the tests above hold either way).
TEST_F(PageFileTest, ScatteredReadsPutEachOffsetInItsSlot) {
  ScatteredReads reads;
  const std::vector<uint32_t> pages = {300, 5, 120, kPages + 3};
  std::vector<uint64_t> offsets;
  for (const uint32_t page : pages) offsets.push_back(uint64_t{page - 1} * kPageSize);
  alignas(4096) static unsigned char out[4 * kPageSize];
  std::size_t got[4] = {9, 9, 9, 9};
  if (!reads.Read(fd_, offsets, kPageSize, out, got)) {
    GTEST_SKIP() << "this kernel gives no io_uring (kernel.io_uring_disabled or a seccomp "
                    "filter): pages are read alone";
  }
  for (std::size_t i = 0; i + 1 < pages.size(); ++i) {
    uint32_t number = 0;
    for (int b = 0; b < 4; ++b) number |= uint32_t{out[i * kPageSize + 200 + b]} << (8 * b);
    EXPECT_EQ(number, pages[i]);
    EXPECT_EQ(got[i], kPageSize);
  }
  EXPECT_EQ(got[3], 0u);  // past the end
}

TEST_F(PageFileTest, APageBeyondTheEndIsDamage) {
  PageFile file(fd_);
  PageReader reader(file);
  ReadAll(reader, {kPages - 1, kPages});  // a run cut at the end of the file
  EXPECT_THROW(reader.Page(kPages + 1), DamagedPage);
}

// Page 0 does not exist (a child pointer of 0 in a damaged page): damage, never a page, whether
// it is the reader's first page (nothing read alone yet: page 0 is no page held) or not.
TEST_F(PageFileTest, PageZeroIsDamage) {
  PageFile file(fd_);
  PageReader fresh(file);
  EXPECT_THROW(fresh.Page(0), DamagedPage);
  PageReader used(file);
  ReadAll(used, {5, 300});
  EXPECT_THROW(used.Page(0), DamagedPage);
}

// A reader's run buffer goes back to the process's pool when the reader is done and serves the
// next one, whose reads then fault in no fresh pages; the pool's buffers lie on kRunBytes
// boundaries of regions of huge pages. Readers alive at once hold buffers of their own.
TEST_F(PageFileTest, AReaderTakesTheBufferOfOneDoneBeforeIt) {
  PageFile file(fd_);
  const unsigned char* first = nullptr;
  {
    PageReader reader(file);
    first = reader.Page(10);  // a run from page 10: the page is at the buffer's start
  }
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % PageReader::kRunBytes, 0u);
  PageReader next(file);
  EXPECT_EQ(next.Page(12), first);  // a run from page 12, at the start of the same buffer
  PageReader beside(file);
  EXPECT_NE(beside.Page(14), next.Page(12));
}

// A page read alone lies on a page of memory, as a run's pages do: the kernel's copy into a
// destination a few bytes past a 64-byte line is 2.5 to 6 times slower on AMD Zen
// (source/read_buffer.h), and malloc puts a 4 KiB block 16 bytes past one.
TEST_F(PageFileTest, APageReadAloneLiesOnAPageOfMemory) {
  PageFile file(fd_);
  PageReader reader(file);
  for (const uint32_t page : {300u, 120u, 250u}) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(reader.Page(page)) % kReadBufferAlignment, 0u)
        << "page " << page;
  }
  EXPECT_EQ(reader.reads(), 3u);  // each read alone
}

// The bytes a reader keeps ahead of its next read are placed so that the read lands on a line of
// the cache, whatever their count.
TEST(ReadBufferTest, KeptBytesShiftedBySoManyEndOnALine) {
  for (std::size_t kept = 0; kept < 3 * kReadDestinationAlignment; ++kept) {
    const std::size_t shift = AlignedReadShift(kept);
    EXPECT_LT(shift, kReadDestinationAlignment) << kept;
    EXPECT_EQ((shift + kept) % kReadDestinationAlignment, 0u) << kept;
  }
  const ReadBuffer buffer = NewReadBuffer(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.get()) % kReadBufferAlignment, 0u);
}

}  // namespace
}  // namespace steadyflake::mergecheck
