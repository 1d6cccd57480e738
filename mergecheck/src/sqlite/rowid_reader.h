// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The rowids of a SQLite rowid table read straight from its b-tree pages
// (https://www.sqlite.org/fileformat.html 1.6): about ten times faster than stepping
// `SELECT rowid` through SQLite, which is what lets the checker beat SQLite's own join.
// SqliteSource uses it only while it holds SQLite's read lock on a file that alone holds the
// database (a rollback-journal database, or a WAL database whose log is empty), and only for
// tables whose wanted columns are at most the INTEGER PRIMARY KEY (the rowid).
//
// Invariants it checks on every page, throwing DamagedPage naming the page:
// 1. every page number is within the file; 2. a page is an interior (0x05) or leaf (0x0d)
// table b-tree page; 3. its cell pointers and cells lie within its usable bytes; 4. the tree is
// at most kMaxDepth deep and visits no more pages than the file holds (a loop); 5. rowids come
// out strictly ascending.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_ROWID_READER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_ROWID_READER_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "sqlite/btree_check.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

class RowidReader {
 public:
  static constexpr int kMaxDepth = 64;

  // `read_ahead`: PageReader's; false for a reader made for Seek.
  explicit RowidReader(const PageFile& file, bool read_ahead = true) : reader_(file, read_ahead) {}

  // Calls on_rowids(rowids) with the rowids of each leaf of the table b-tree rooted at `root`
  // (a std::span<const int64_t>, valid for the call), ascending across the calls, and returns
  // the number of pages visited. With `check`, also shows it every page of the tree as it reads
  // it (BtreeChecker::Page), so the structure check costs no second read, and the rowids are the
  // ones it decoded. Throws DamagedPage.
  template <typename OnRowids>
  uint64_t Walk(uint32_t root, OnRowids&& on_rowids, BtreeChecker* check = nullptr) {
    return WalkLeaves(
        root,
        [&](uint32_t page, const unsigned char* base, Order& order) {
          if (check != nullptr) return on_rowids(check->rowids());
          leaf_rowids_.clear();
          LeafCells(page, base, order,
                    [&](int64_t rowid, uint64_t, const unsigned char*, const unsigned char*) {
                      leaf_rowids_.push_back(rowid);
                    });
          on_rowids(std::span<const int64_t>(leaf_rowids_));
        },
        check);
  }

  // The same walk, calling on_cell(page, rowid, payload_size, payload, page_end) for every row:
  // its payload starts at `payload`, on page `page`, whose usable bytes end at `page_end`
  // (TableReader decodes it). With `check`, the rowids come from the check, which decoded them
  // already, and the payload arguments are null.
  template <typename OnCell>
  uint64_t WalkCells(uint32_t root, OnCell&& on_cell, BtreeChecker* check = nullptr) {
    return WalkLeaves(
        root,
        [&](uint32_t page, const unsigned char* base, Order& order) {
          if (check == nullptr) {
            return LeafCells(
                page, base, order,
                [&](int64_t rowid, uint64_t payload, const unsigned char* start,
                    const unsigned char* end) { on_cell(page, rowid, payload, start, end); });
          }
          for (const int64_t rowid : check->rowids()) on_cell(page, rowid, 0, nullptr, nullptr);
        },
        check);
  }

  // Calls on_cell(page, rowid, payload_size, payload, page_end), as WalkCells does, for each of
  // `rowids` (ascending, repeats allowed) that the table b-tree rooted at `root` holds, in their
  // order: all of them descend from the root together, a level at a time, so that a page is read
  // once for the rowids under it and a level's pages are read in batches. A lookup of a few rows
  // of a large table: it reads their paths, not the tree. Returns the pages read. Throws
  // DamagedPage, also for leaves at different depths.
  template <typename OnCell>
  uint64_t Seek(uint32_t root, std::span<const int64_t> rowids, OnCell&& on_cell);

  // `follow(pages)` is called before each page a walk reads and at its end, with the reader
  // whose runs hold the pages read so far (StructureCheck::Follow); empty: none.
  void FollowedBy(std::function<void(const PageReader&)> follow) { follow_ = std::move(follow); }

  uint32_t page_size() const { return reader_.file().page_size(); }
  // Bytes read from the file so far by this reader (all its walks), for progress.
  uint64_t bytes_read() const { return reader_.bytes_read(); }
  // Reads from the file so far (PageReader::reads).
  uint64_t reads() const { return reader_.reads(); }

 private:
  [[noreturn]] static void Fail(uint32_t page, const char* what) { throw DamagedPage{page, what}; }

  // Cell `i` of page `page` at `base`, whose usable bytes end at `end` (Seek's): its key and, on
  // a leaf, its payload's size and start; on an interior page, its left child.
  struct TableCell {
    int64_t key = 0;
    uint64_t payload = 0;
    const unsigned char* start = nullptr;
    uint32_t child = 0;
  };
  static TableCell CellAt(uint32_t page, const unsigned char* base, const unsigned char* end,
                          bool leaf, uint32_t i) {
    using page_file_internal::Get16;
    using page_file_internal::Get32;
    using page_file_internal::GetVarint;
    const unsigned char* const header = base + (page == 1 ? 100 : 0);
    const uint32_t offset = Get16(header + (leaf ? 8 : 12) + 2 * i);
    const unsigned char* p = base + offset;
    if (offset < 8 || p + (leaf ? 2 : 5) > end) Fail(page, "a cell lies outside the page");
    TableCell cell;
    if (!leaf) {
      cell.child = Get32(p);
      p += 4;
    } else {
      const int n = GetVarint(p, end, cell.payload);
      if (n == 0) Fail(page, "a cell is cut off");
      p += n;
    }
    uint64_t key = 0;
    const int m = GetVarint(p, end, key);
    if (m == 0) Fail(page, "a cell is cut off");
    cell.key = static_cast<int64_t>(key);
    cell.start = p + m;
    return cell;
  }

  // The last rowid a walk gave, to check that the next is larger.
  struct Order {
    bool any = false;
    int64_t last = 0;
  };

  // Calls on_leaf(page, base, order) for each leaf of the tree rooted at `root`, in key order,
  // and returns the pages visited; shows `check` every page first.
  template <typename OnLeaf>
  uint64_t WalkLeaves(uint32_t root, OnLeaf&& on_leaf, BtreeChecker* check);

  // Calls on_cell(rowid, payload_size, payload, page_end) for each cell of leaf `page` at
  // `base`, checking each rowid above the one before.
  template <typename OnCell>
  void LeafCells(uint32_t page, const unsigned char* base, Order& order, OnCell&& on_cell) {
    using page_file_internal::Get16;
    using page_file_internal::GetVarint;
    const unsigned char* const header = base + (page == 1 ? 100 : 0);
    const unsigned char* const end = base + reader_.file().usable();
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
      const int m = n == 0 ? 0 : GetVarint(cell + n, end, rowid);
      if (m == 0) Fail(page, "a cell is cut off");
      const auto value = static_cast<int64_t>(rowid);
      if (order.any && value <= order.last) Fail(page, "its rowids are out of order");
      order.any = true;
      order.last = value;
      on_cell(value, payload, cell + n + m, end);
    }
  }

  PageReader reader_;
  std::function<void(const PageReader&)> follow_;
  std::vector<std::vector<unsigned char>> interior_;  // a copy of each interior page on the path
  std::vector<int64_t> leaf_rowids_;                  // Walk's, of one leaf
  // Seek's: a page of one level of the tree and the rowids [first, end) sought under it; the
  // level's pages, then the next level's.
  struct Visit {
    uint32_t page;
    std::size_t first;
    std::size_t end;
  };
  std::vector<Visit> level_;
  std::vector<Visit> next_;
  std::vector<uint32_t> expected_;
};

template <typename OnLeaf>
uint64_t RowidReader::WalkLeaves(uint32_t root, OnLeaf&& on_leaf, BtreeChecker* check) {
  using page_file_internal::Get16;
  using page_file_internal::Get32;
  struct Frame {
    uint32_t page;
    uint32_t next;  // the next child to visit: cell index, or ncells for the right-most pointer
  };
  Frame stack[kMaxDepth];
  int depth = 0;
  uint64_t pages = 0;
  Order order;
  uint32_t page = root;
  const uint32_t usable = reader_.file().usable();
  const uint32_t page_size = reader_.file().page_size();
  if (check != nullptr) check->StartTree();
  for (;;) {
    // Descend into `page`.
    if (follow_) follow_(reader_);
    const unsigned char* base = reader_.Page(page);
    if (check != nullptr)
      check->Page(page, base, false, depth > 0 ? stack[depth - 1].page : 0, depth + 1);
    const unsigned char* header = base + (page == 1 ? 100 : 0);
    const unsigned char* const end = base + usable;
    // A sound tree visits each page once: more visits than pages is a loop.
    if (++pages > reader_.file().pages()) Fail(page, "the b-tree visits a page twice (a loop?)");
    if (header[0] == 0x0d) {
      on_leaf(page, base, order);
    } else if (header[0] == 0x05) {
      if (depth == kMaxDepth) Fail(page, "the b-tree is too deep (a loop?)");
      const uint32_t cells = Get16(header + 3);
      if (header + 12 + 2 * cells > end) Fail(page, "its cell count is too large");
      if (interior_.size() <= static_cast<std::size_t>(depth)) interior_.emplace_back(page_size);
      std::memcpy(interior_[static_cast<std::size_t>(depth)].data(), base, page_size);
      stack[depth++] = Frame{page, 0};
    } else {
      Fail(page, "it is not a table b-tree page");
    }
    // Find the next child to descend into, climbing up as interior pages run out.
    for (;;) {
      if (depth == 0) {
        if (follow_) follow_(reader_);
        return pages;
      }
      Frame& top = stack[depth - 1];
      const unsigned char* pbase = interior_[static_cast<std::size_t>(depth - 1)].data();
      const unsigned char* pheader = pbase + (top.page == 1 ? 100 : 0);
      const uint32_t cells = Get16(pheader + 3);
      if (top.next < cells) {
        const uint32_t offset = Get16(pheader + 12 + 2 * top.next);
        if (offset < 12 || offset + 4 > usable) Fail(top.page, "a cell lies outside the page");
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

template <typename OnCell>
uint64_t RowidReader::Seek(uint32_t root, std::span<const int64_t> rowids, OnCell&& on_cell) {
  using page_file_internal::Get16;
  using page_file_internal::Get32;
  const uint32_t usable = reader_.file().usable();
  const auto cell_at = [&](uint32_t page, const unsigned char* base, bool leaf, uint32_t i) {
    return CellAt(page, base, base + usable, leaf, i);
  };
  // One level of the tree at a time: its pages are known before any is read, so the reader
  // takes them in batches (PageReader::Expect), a system call for up to 64 of the scattered
  // leaves instead of one each. A level's pages come in rowid order, so the leaves do too.
  level_.clear();
  if (!rowids.empty()) level_.push_back(Visit{root, 0, rowids.size()});
  uint64_t pages = 0;
  for (int depth = 0; !level_.empty(); ++depth) {
    if (depth == kMaxDepth) Fail(level_[0].page, "the b-tree is too deep (a loop?)");
    expected_.clear();
    for (const Visit& visit : level_) expected_.push_back(visit.page);
    reader_.Expect(expected_);
    next_.clear();
    bool leaves = false;
    for (const Visit& visit : level_) {
      const uint32_t page = visit.page;
      const unsigned char* const base = reader_.Page(page);
      ++pages;
      const unsigned char* const header = base + (page == 1 ? 100 : 0);
      const bool leaf = header[0] == 0x0d;
      if (!leaf && header[0] != 0x05) Fail(page, "it is not a table b-tree page");
      // SQLite's leaves all lie at one depth; a level of leaves and interior pages is damage.
      if (leaf ? !next_.empty() : leaves) Fail(page, "its leaves lie at different depths");
      leaves = leaf;
      const uint32_t cells = Get16(header + 3);
      if (header + (leaf ? 8 : 12) + 2 * cells > base + usable) {
        Fail(page, "its cell count is too large");
      }
      const std::size_t siblings = next_.size();  // children of the pages before this one
      uint32_t low = 0;                           // rowids ascend: each search starts here
      for (std::size_t i = visit.first; i < visit.end; ++i) {
        // The first cell whose key is not below the rowid: on a leaf, the row if it is there;
        // on an interior page, the child that holds keys up to that key, else the right-most.
        uint32_t high = cells;
        while (low < high) {
          const uint32_t mid = low + (high - low) / 2;
          if (cell_at(page, base, leaf, mid).key < rowids[i]) {
            low = mid + 1;
          } else {
            high = mid;
          }
        }
        if (leaf) {
          if (low == cells) break;
          const TableCell cell = cell_at(page, base, true, low);
          if (cell.key == rowids[i])
            on_cell(page, rowids[i], cell.payload, cell.start, base + usable);
          continue;
        }
        const uint32_t child =
            low < cells ? cell_at(page, base, false, low).child : Get32(header + 8);
        if (next_.size() > siblings && next_.back().page == child) {
          next_.back().end = i + 1;
        } else {
          next_.push_back(Visit{child, i, i + 1});
        }
      }
    }
    level_.swap(next_);
  }
  return pages;
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_ROWID_READER_H_
