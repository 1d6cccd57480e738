// Copyright 2026 The steadyflake Authors.
//
// Internal functions that may change between releases.
//
// The rowids of a SQLite rowid table read straight from its b-tree pages in a read-only memory
// map of the file (https://www.sqlite.org/fileformat.html 1.6): about ten times faster than
// stepping `SELECT rowid` through SQLite, which is what lets the checker beat SQLite's own
// join. SqliteSource uses it only when the file alone holds the database (no -wal or -journal
// file beside it) while it holds SQLite's shared lock, and only for tables whose wanted columns
// are at most the INTEGER PRIMARY KEY (the rowid).
//
// Invariants it checks on every page, throwing RowidReader::Corrupt naming the page:
// 1. every page number is within the file; 2. a page is an interior (0x05) or leaf (0x0d)
// table b-tree page; 3. its cell pointers and cells lie within its usable bytes; 4. the tree is
// at most kMaxDepth deep; 5. rowids come out strictly ascending.

#ifndef STEADYFLAKE_MERGECHECK_SRC_ROWID_READER_H_
#define STEADYFLAKE_MERGECHECK_SRC_ROWID_READER_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace steadyflake::mergecheck {

class RowidReader {
 public:
  // A damaged page: what() says how, page() which page (0: the file as a whole).
  class Corrupt : public std::runtime_error {
   public:
    Corrupt(uint32_t page, const std::string& what) : std::runtime_error(what), page_(page) {}
    uint32_t page() const noexcept { return page_; }

   private:
    uint32_t page_;
  };

  static constexpr int kMaxDepth = 64;

  // A read-only map of the database file at `path`. Throws Corrupt{0, why} if it cannot be
  // mapped or its header is not a SQLite header.
  explicit RowidReader(const std::string& path);
  RowidReader(const RowidReader&) = delete;
  RowidReader& operator=(const RowidReader&) = delete;
  ~RowidReader();

  // Calls on_rowid(rowid) for every row of the table b-tree rooted at `root`, ascending, and
  // returns the number of pages visited. Throws Corrupt.
  template <typename OnRowid>
  uint64_t Walk(uint32_t root, OnRowid&& on_rowid) const;

  uint32_t page_size() const { return page_size_; }

 private:
  // Page `number`'s bytes; throws Corrupt if it is outside the file.
  const unsigned char* Page(uint32_t number) const;
  [[noreturn]] static void Fail(uint32_t page, const std::string& what) {
    throw Corrupt{page, what};
  }

  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  uint32_t page_size_ = 0;
  uint32_t usable_ = 0;  // page size minus the reserved bytes at the end of each page
  uint32_t pages_ = 0;
};

namespace rowid_reader_internal {

// SQLite's varint at p (at most 9 bytes, all before end); returns its length, 0 if cut off.
inline int GetVarint(const unsigned char* p, const unsigned char* end, uint64_t& value) {
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

inline uint32_t Get16(const unsigned char* p) { return uint32_t{p[0]} << 8 | p[1]; }
inline uint32_t Get32(const unsigned char* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

}  // namespace rowid_reader_internal

template <typename OnRowid>
uint64_t RowidReader::Walk(uint32_t root, OnRowid&& on_rowid) const {
  using rowid_reader_internal::Get16;
  using rowid_reader_internal::Get32;
  using rowid_reader_internal::GetVarint;
  struct Frame {
    uint32_t page;
    uint32_t next;  // the next child to visit: cell index, or ncells for the right-most pointer
  };
  Frame stack[kMaxDepth];
  int depth = 0;
  uint64_t pages = 0;
  bool any = false;
  int64_t last = 0;
  uint32_t page = root;
  for (;;) {
    // Descend into `page`.
    const unsigned char* base = Page(page);
    const unsigned char* header = base + (page == 1 ? 100 : 0);
    const unsigned char* const end = base + usable_;
    ++pages;
    if (header[0] == 0x0d) {
      const uint32_t cells = Get16(header + 3);
      const unsigned char* pointers = header + 8;
      if (pointers + 2 * cells > end) Fail(page, "its cell count is too large");
      for (uint32_t i = 0; i < cells; ++i) {
        const uint32_t offset = Get16(pointers + 2 * i);
        const unsigned char* cell = base + offset;
        if (offset < 8 || cell >= end) Fail(page, "a cell lies outside the page");
        uint64_t payload = 0;
        uint64_t rowid = 0;
        const int n = GetVarint(cell, end, payload);
        if (n == 0 || GetVarint(cell + n, end, rowid) == 0) Fail(page, "a cell is cut off");
        const auto value = static_cast<int64_t>(rowid);
        if (any && value <= last) Fail(page, "its rowids are out of order");
        any = true;
        last = value;
        on_rowid(value);
      }
    } else if (header[0] == 0x05) {
      if (depth == kMaxDepth) Fail(page, "the b-tree is too deep (a loop?)");
      const uint32_t cells = Get16(header + 3);
      if (header + 12 + 2 * cells > end) Fail(page, "its cell count is too large");
      stack[depth++] = Frame{page, 0};
    } else {
      Fail(page, "it is not a table b-tree page");
    }
    // Find the next child to descend into, climbing up as interior pages run out.
    for (;;) {
      if (depth == 0) return pages;
      Frame& top = stack[depth - 1];
      const unsigned char* pbase = Page(top.page);
      const unsigned char* pheader = pbase + (top.page == 1 ? 100 : 0);
      const uint32_t cells = Get16(pheader + 3);
      if (top.next < cells) {
        const uint32_t offset = Get16(pheader + 12 + 2 * top.next);
        if (offset < 12 || offset + 4 > usable_) Fail(top.page, "a cell lies outside the page");
        page = Get32(pbase + offset);
        ++top.next;
        break;
      }
      if (top.next == cells) {
        page = Get32(pheader + 8);
        ++top.next;
        break;
      }
      --depth;
    }
  }
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_ROWID_READER_H_
