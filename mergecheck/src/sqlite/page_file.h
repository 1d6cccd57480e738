// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// A SQLite database file read page by page with pread(2) (scattered pages in batches through an
// io_uring, scattered_reads.h), for the readers that bypass SQLite (RowidReader, CheckBtrees).
// It is never memory-mapped: a file truncated under a map turns the next read into SIGBUS, while
// a short read is an error the caller can report (https://www.sqlite.org/fileformat.html 1.3 for
// the header fields used).
//
// The file descriptor is borrowed, not owned: closing any descriptor of a file releases every
// POSIX lock this process holds on it, SQLite's shared lock included, so the owner (the SQLite
// reader) keeps one descriptor open until its SQLite connection is closed.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_PAGE_FILE_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_PAGE_FILE_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "source/read_buffer.h"
#include "sqlite/scattered_reads.h"

namespace steadyflake::mergecheck {

// A damaged page: what() says how, page() which page (0: the file as a whole).
class DamagedPage : public std::runtime_error {
 public:
  DamagedPage(uint32_t page, const std::string& what) : std::runtime_error(what), page_(page) {}
  uint32_t page() const noexcept { return page_; }

 private:
  uint32_t page_;
};

class PageFile {
 public:
  // Reads the header of the database open as `fd` and its size now. Throws DamagedPage{0, why}
  // if it is shorter than a header or the header gives no valid page size.
  explicit PageFile(int fd);

  // Copies pages [first, first + count) into `out` (count * page_size() bytes). Throws
  // DamagedPage naming `first` if any of them lies beyond the end of the file as it was
  // measured, or the file is shorter now (truncated since).
  void Read(uint32_t first, uint32_t count, unsigned char* out) const;
  // Copies each page of `pages` (at most ScatteredReads::kMaxBatch) into out + i * page_size(),
  // in one batch through `via` where it can, else one pread each. Throws as Read does, naming
  // the first page of `pages` that is beyond the end or cut off.
  void ReadPages(std::span<const uint32_t> pages, unsigned char* out, ScatteredReads& via) const;

  uint32_t page_size() const { return page_size_; }
  uint32_t usable() const { return usable_; }  // page size minus each page's reserved bytes
  uint32_t pages() const { return pages_; }
  // The header's text encoding: 1 UTF-8, 2 UTF-16le, 3 UTF-16be (0 in a database still empty).
  uint32_t text_encoding() const { return text_encoding_; }

 private:
  int fd_;
  uint32_t page_size_ = 0;
  uint32_t usable_ = 0;
  uint32_t pages_ = 0;
  uint32_t text_encoding_ = 0;
};

// Pages of a PageFile one at a time, read ahead in runs when they are asked for in order: each
// a little after the one before (kNearPages at most). The leaves of a table written in key
// order, or VACUUMed, lie in order in the file; those of a table and its index written at once
// lie in order too, each tree's every other page or so, and were then a read of 4 KiB each.
// Pages out of order that the caller said it expects (Expect: an interior page's children) are
// read in batches (ScatteredReads): the leaves of an index written in random order.
class PageReader {
 public:
  // With `read_ahead` false every page is read alone: for lookups, whose pages may lie near one
  // another in the file but are a few among many.
  explicit PageReader(const PageFile& file, bool read_ahead = true);

  // Page `number`'s bytes, valid until the next call. Throws DamagedPage.
  const unsigned char* Page(uint32_t number);
  // Page `number`'s bytes if the last run, the last batch or the last page read alone holds them
  // (valid until the next Page), else null: reads nothing.
  const unsigned char* Held(uint32_t number) const;
  // The first page of the last run read (0: none yet).
  uint32_t run_first() const { return first_; }

  // The pages the caller expects to ask for next, in that order (a copy is kept until the next
  // Expect). A page of them asked for out of order is read with those after it in the list, up
  // to a batch (kRunBytes of pages, ScatteredReads::kMaxBatch at most) or to the first that
  // lies a little after the one before it (which starts a run), in one system call.
  void Expect(std::span<const uint32_t> pages);

  const PageFile& file() const { return file_; }
  // Bytes read from the file so far (whole runs, read-ahead included), for progress.
  uint64_t bytes_read() const { return bytes_read_; }
  // Reads from the file so far (each one pread(2), or a few for a short one; a batch one).
  uint64_t reads() const { return reads_; }

  // Bytes read ahead in one run: large enough that a run costs one system call per 256 KiB,
  // small enough to stay in the CPU's L2 cache until it is read (1 MiB measured slower, 128 KiB
  // too).
  static constexpr std::size_t kRunBytes = std::size_t{1} << 18;
  // A page at most this far after the one asked for last starts a run.
  static constexpr uint32_t kNearPages = 16;

 private:
  const PageFile& file_;
  uint64_t bytes_read_ = 0;
  uint64_t reads_ = 0;
  uint32_t window_pages_;  // pages read at once in a run
  uint32_t first_ = 0;     // the first page in buffer_ (0: none)
  uint32_t count_ = 0;     // pages in buffer_
  uint32_t last_ = 0;      // the page asked for last
  // Gives a run buffer back to the process's pool (page_file.cpp) for the next reader.
  struct GiveBack {
    void operator()(unsigned char* buffer) const noexcept;
  };
  // kRunBytes, at least window_pages_ pages, taken from the pool at the first run and never
  // zeroed: a reader of overflow pages a table may not have costs nothing.
  std::unique_ptr<unsigned char[], GiveBack> buffer_;
  // A page read alone (out of order, or with no read-ahead), and its number (0: none), beside
  // the run: an index's leaves come in order but for a step back now and then, and a step back
  // read into the run's buffer made the pages after it, which the run held, be read again
  // (1,059 MB read for two 153 MB files of `player`, 614 MB since).
  // On a page, as the run's (read_buffer.h).
  ReadBuffer single_;
  uint32_t single_page_ = 0;
  // Expect's pages, the next one looked for first; the pages of the last batch, in a buffer
  // from the pool as the run's.
  std::vector<uint32_t> expected_;
  std::size_t expected_at_ = 0;
  std::vector<uint32_t> batch_pages_;
  std::unique_ptr<unsigned char[], GiveBack> batch_;
  uint32_t batch_max_;
  ScatteredReads scattered_;  // after batch_: destroyed first, ending any read into it

  // Page `number` from a batch: held, or read with the expected pages after it. Null when it is
  // not expected.
  const unsigned char* FromBatch(uint32_t number);
};

namespace page_file_internal {

// SQLite's varint at p (at most 9 bytes, all before end), a byte at a time; returns its length,
// 0 if cut off. GetVarint's path within 9 bytes of `end`.
inline int GetVarintBytewise(const unsigned char* p, const unsigned char* end, uint64_t& value) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    if (p + i >= end) return 0;
    v = (v << 7) | (p[i] & 0x7f);
    if ((p[i] & 0x80) == 0) {
      value = v;
      return i + 1;
    }
  }
  if (p + 8 >= end) return 0;
  value = (v << 8) | p[8];
  return 9;
}

// Whether this processor gathers bits under a mask in one fast instruction (BMI2's PEXT):
// Intel's since Haswell, AMD's since Zen 3 (family 19h; Zen 1 and 2, and Hygon's, run it in
// microcode, many times slower than the masks and shifts it replaces). Read once, at start.
bool DetectFastBitGather();
inline const bool kFastBitGather = DetectFastBitGather();

// The 7-bit groups of the eight bytes of `x` (byte 0 the highest), joined: 56 bits. By masks
// and shifts, three steps of pairs; or, with kPext (only where kFastBitGather), by PEXT.
template <bool kPext>
inline uint64_t SevenBitGroups(uint64_t x) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (kPext) {
    uint64_t v = 0;
    // As an instruction, not the intrinsic: the intrinsic would need the whole file built for
    // BMI2, which not every x86-64 the package runs on has.
    asm("pextq %2, %1, %0" : "=r"(v) : "r"(x), "r"(uint64_t{0x7f7f7f7f7f7f7f7fu}));
    return v;
  }
#endif
  uint64_t v = x & 0x7f7f7f7f7f7f7f7fu;  // the 7-bit groups, then joined pairwise
  v = ((v & 0x7f007f007f007f00u) >> 1) | (v & 0x007f007f007f007fu);
  v = ((v & 0x3fff00003fff0000u) >> 2) | (v & 0x00003fff00003fffu);
  return ((v & 0x0fffffff00000000u) >> 4) | (v & 0x000000000fffffffu);
}

// GetVarint's path with 9 bytes or more before the end: the first 8 are loaded at once and
// their 7-bit groups joined (SevenBitGroups<kPext>), with no branch per byte.
template <bool kPext>
inline int GetVarintOfEight(const unsigned char* p, uint64_t& value) {
  uint64_t x = 0;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::little) x = __builtin_bswap64(x);
  // Byte i of the varint is bits 63-8i..56-8i of x; its high bit clear ends the varint.
  const uint64_t ends = ~x & 0x8080808080808080u;
  const uint64_t v = SevenBitGroups<kPext>(x);  // bytes 0-7: 56 bits
  if (ends == 0) {
    value = (v << 8) | p[8];
    return 9;
  }
  const int n = __builtin_clzll(ends) / 8 + 1;
  value = v >> (7 * (8 - n));
  return n;
}

// SQLite's varint at p (at most 9 bytes, all before end); returns its length, 0 if cut off.
// A table of random 64-bit ids, and of the engine's IDs once their time (in the top bits)
// passes 2^30 ticks, has a 9-byte varint for every rowid: a byte at a time, the loop was 18% of a
// rowid check built -O2 (the default build); eight bytes at once by masks, the masks were still 45%
// of the check's time on a table leaf's cells, and PEXT took 4-7% of the processor off the whole
// rowid check (2026-11-30, 2M rows a file).
inline int GetVarint(const unsigned char* p, const unsigned char* end, uint64_t& value) {
  if (end - p < 9) return GetVarintBytewise(p, end, value);
  return kFastBitGather ? GetVarintOfEight<true>(p, value) : GetVarintOfEight<false>(p, value);
}

inline uint32_t Get16(const unsigned char* p) { return uint32_t{p[0]} << 8 | p[1]; }
inline uint32_t Get32(const unsigned char* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

// The largest payload a cell keeps whole on its page: X in file format 1.6.
inline uint64_t MaxLocal(bool index, uint64_t usable) {
  return index ? (usable - 12) * 64 / 255 - 23 : usable - 35;
}

// The bytes of a cell's payload of `payload` bytes that are stored on its b-tree page itself,
// for pages of `usable` bytes (file format 1.6); the rest is in overflow pages.
inline uint64_t LocalPayload(uint64_t payload, bool index, uint64_t usable) {
  const uint64_t max_local = MaxLocal(index, usable);
  if (payload <= max_local) return payload;
  const uint64_t min_local = (usable - 12) * 32 / 255 - 23;
  const uint64_t k = min_local + (payload - min_local) % (usable - 4);
  return k <= max_local ? k : min_local;
}

// The children of the interior b-tree page at `base` (page number `page`) from cell `from` on,
// its right-most child last, into `out`, as far as their cell pointers lie on the page: the
// pages a walk in order reads next (PageReader::Expect). Never throws: the walk reports the
// damage when it comes to it.
inline void InteriorChildren(const unsigned char* base, uint32_t page, uint32_t from,
                             uint32_t usable, std::vector<uint32_t>& out) {
  const unsigned char* const header = base + (page == 1 ? 100 : 0);
  const std::size_t pointers = (page == 1 ? 100 : 0) + 12;
  const uint32_t cells = Get16(header + 3);
  out.clear();
  for (uint32_t i = from; i < cells; ++i) {
    if (pointers + 2 * std::size_t{i} + 2 > usable) return;
    const uint32_t offset = Get16(header + 12 + 2 * i);
    if (offset < 12 || offset + 4 >= usable) return;
    out.push_back(Get32(base + offset));
  }
  out.push_back(Get32(header + 8));
}

}  // namespace page_file_internal

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_PAGE_FILE_H_
