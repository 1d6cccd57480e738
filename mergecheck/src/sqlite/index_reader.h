// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The records of an index b-tree (an index, or a WITHOUT ROWID table) read straight from its
// pages (https://www.sqlite.org/fileformat.html 1.6 and 2.1): the key columns of a table come
// from its smallest index holding them, without stepping SQLite's virtual machine through every
// row. SqliteSource uses it under the same conditions as RowidReader (rowid_reader.h), and only
// for UTF-8 databases.
//
// Records come out in the index's order (a sorted index gives sorted keys, which the key sets
// then need not sort), each field decoded as the Cell SQLite would return for it. Invariants it
// checks, throwing DamagedPage naming the page: 1. every page number is within the file; 2. a
// page is an interior (0x02) or leaf (0x0a) index b-tree page; 3. cell pointers, cells and
// records lie within their page and payload; 4. an overflow chain is as long as its payload
// says; 5. the tree is at most kMaxDepth deep and visits no more pages than the file holds.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_READER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_READER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "source/source.h"
#include "sqlite/btree_check.h"
#include "sqlite/page_file.h"
#include "sqlite/record_decoder.h"

namespace steadyflake::mergecheck {

class IndexReader {
 public:
  static constexpr int kMaxDepth = 64;

  explicit IndexReader(const PageFile& file) : pages_(file), decoder_(file) {}

  // Calls on_record(std::span<const Cell> cells) for every record of the index b-tree rooted at
  // `root`: cells[i] is field fields[i] of the record (kNull when the record has fewer fields).
  // Text and blobs point into the page or the reader's buffers, valid during the call. When
  // on_record has `int64_t* IntegerTuple()` and `void TakeIntegerTuple()` and `fields` are
  // 0, 1, ...: a leaf record whose fields are all small integers may be written to
  // IntegerTuple() (fields.size() values) and TakeIntegerTuple() called instead, in order
  // among the other records; never while IntegerTuple() gives nullptr. Returns
  // the number of pages visited. With `check`, also shows it every page of the tree as it reads
  // it (BtreeChecker::PageLeavingLeafCells, then each leaf cell before its record is given), so
  // the structure check costs no second read, and a leaf's cells are read once: the records come in
  // order (an interior cell's after its left child's subtree), but each page is read once, on
  // the way down, so the check sees an interior page before its children and the leaves in key
  // order, as it asks. Throws DamagedPage.
  template <typename OnRecord>
  uint64_t Walk(uint32_t root, std::span<const int> fields, OnRecord&& on_record,
                BtreeChecker* check = nullptr);

  // Calls on_record(cells) with the records of up to about `most` interior cells of the b-tree
  // rooted at `root`, spread evenly, in key order (fields `fields`, as Walk gives them); returns
  // how many. Each interior cell's record sorts after its left child's subtree: places to split
  // the key range of a walk into parts of about equal records. They are the root page's cells,
  // and when it has fewer than `most`, its children's too, each child's between the root cells
  // around it. None when the root is a leaf (a tree of one page). Throws DamagedPage (the root
  // and its children are read, and checked only as far as these records need).
  template <typename OnRecord>
  uint32_t Splits(uint32_t root, std::span<const int> fields, uint32_t most, OnRecord&& on_record) {
    decoder_.Want(fields);
    const unsigned char* const base = pages_.Page(root);
    const uint32_t cells = InteriorCells(root, base);
    if (cells == 0) return 0;
    // A copy: the children's reads replace the reader's page.
    const std::vector<unsigned char> page(base, base + pages_.file().page_size());
    const uint32_t per_child = cells < most ? most / (cells + 1) : 0;
    uint32_t given = 0;
    for (uint32_t i = 0; i <= cells; ++i) {
      if (per_child > 0) given += SpreadCells(ChildOf(root, page.data(), i), per_child, on_record);
      if (i == cells || (per_child == 0 && !Spread(i, cells, most))) continue;
      on_record(Record(root, CellAt(root, page.data(), i), page.data() + pages_.file().usable()));
      ++given;
    }
    return given;
  }

  // Called with the walk's page reader before each page a Walk reads, and at its end: another
  // tree's check takes its pages from the walk's runs (StructureCheck::Follow). Empty: none.
  void FollowedBy(std::function<void(const PageReader&)> follow) { follow_ = std::move(follow); }

  uint32_t page_size() const { return pages_.file().page_size(); }
  // Bytes read from the file so far by this reader (all its walks), for progress.
  uint64_t bytes_read() const { return pages_.bytes_read() + decoder_.bytes_read(); }

 private:
  [[noreturn]] static void Fail(uint32_t page, const char* what) { throw DamagedPage{page, what}; }

  // The record whose cell starts at `cell` (its payload-size varint) on page `page`, which ends
  // at `end`.
  std::span<const Cell> Record(uint32_t page, const unsigned char* cell, const unsigned char* end) {
    if (cell < end && *cell < 0x80) {  // a payload under 128 bytes: an index key, commonly
      return decoder_.Decode(page, *cell, cell + 1, end, true);
    }
    uint64_t size = 0;
    const int n = page_file_internal::GetVarint(cell, end, size);
    if (n == 0) Fail(page, "a cell is cut off");
    return decoder_.Decode(page, size, cell + n, end, true);
  }

  // The cell count of interior index page `page` at `base`; 0 for a leaf (or not an index page:
  // the walk says which). Throws DamagedPage when the cell pointers do not fit the page.
  uint32_t InteriorCells(uint32_t page, const unsigned char* base) const {
    const unsigned char* const header = base + (page == 1 ? 100 : 0);
    if (header[0] != 0x02) return 0;
    const uint32_t cells = page_file_internal::Get16(header + 3);
    if (header + 12 + 2 * cells > base + pages_.file().usable()) {
      Fail(page, "its cell count is too large");
    }
    return cells;
  }
  // The payload of interior cell `i` of page `page` at `base` (after its child pointer).
  const unsigned char* CellAt(uint32_t page, const unsigned char* base, uint32_t i) const {
    const unsigned char* const header = base + (page == 1 ? 100 : 0);
    const uint32_t offset = page_file_internal::Get16(header + 12 + 2 * i);
    if (offset < 12 || offset + 4 >= pages_.file().usable()) {
      Fail(page, "a cell lies outside the page");
    }
    return base + offset + 4;
  }
  // Child `i` of interior page `page` at `base` (its right-most child when i is its cell count).
  uint32_t ChildOf(uint32_t page, const unsigned char* base, uint32_t i) const {
    const unsigned char* const header = base + (page == 1 ? 100 : 0);
    if (i == page_file_internal::Get16(header + 3)) return page_file_internal::Get32(header + 8);
    return page_file_internal::Get32(CellAt(page, base, i) - 4);
  }
  // Whether cell `i` of `cells` is one of `most` spread evenly among them.
  static bool Spread(uint32_t i, uint32_t cells, uint32_t most) {
    if (cells <= most) return true;
    // Cell i is taken when it is the first at or past a multiple of cells / most.
    return (uint64_t{i} * most) / cells != (uint64_t{i + 1} * most) / cells;
  }
  // Calls on_record with up to `most` cells of page `page` spread evenly, if it is an interior
  // index page and lies within the file; returns how many.
  template <typename OnRecord>
  uint32_t SpreadCells(uint32_t page, uint32_t most, OnRecord& on_record) {
    if (page == 0 || page > pages_.file().pages()) Fail(page, "a child lies beyond the file");
    const unsigned char* const base = pages_.Page(page);
    const uint32_t cells = InteriorCells(page, base);
    uint32_t given = 0;
    for (uint32_t i = 0; i < cells; ++i) {
      if (!Spread(i, cells, most)) continue;
      on_record(Record(page, CellAt(page, base, i), base + pages_.file().usable()));
      ++given;
    }
    return given;
  }

  PageReader pages_;
  std::function<void(const PageReader&)> follow_;
  RecordDecoder decoder_;
  std::vector<std::vector<unsigned char>> interior_;  // a copy of each interior page on the path
  std::vector<uint32_t> children_;                    // the pages expected next
};

template <typename OnRecord>
uint64_t IndexReader::Walk(uint32_t root, std::span<const int> fields, OnRecord&& on_record,
                           BtreeChecker* check) {
  using page_file_internal::Get16;
  using page_file_internal::Get32;
  struct Frame {
    uint32_t page;
    uint32_t child;  // the child being visited: cell index, or ncells for the right-most one
  };
  Frame stack[kMaxDepth];
  int depth = 0;
  uint64_t pages = 0;
  uint32_t page = root;
  const uint32_t usable = pages_.file().usable();
  const uint32_t page_size = pages_.file().page_size();
  const uint64_t max_local = page_file_internal::MaxLocal(true, usable);
  decoder_.Want(fields);
  if (check != nullptr) check->StartTree();
  // The page of frame `d` (a copy) and its header, cell count and cell `i`'s offset.
  const auto base_of = [&](int d) { return interior_[static_cast<std::size_t>(d)].data(); };
  const auto header_of = [&](int d) { return base_of(d) + (stack[d].page == 1 ? 100 : 0); };
  const auto child_of = [&](int d, uint32_t i) {
    const unsigned char* h = header_of(d);
    return i < Get16(h + 3) ? Get32(base_of(d) + Get16(h + 12 + 2 * i)) : Get32(h + 8);
  };
  for (;;) {
    // Descend into `page`.
    if (follow_) follow_(pages_);
    const unsigned char* base = pages_.Page(page);
    // The check leaves a leaf's cells to the loop below, which reads each once for both.
    if (check != nullptr) {
      check->PageLeavingLeafCells(page, base, depth > 0 ? stack[depth - 1].page : 0, depth + 1);
    }
    const unsigned char* header = base + (page == 1 ? 100 : 0);
    const unsigned char* const end = base + usable;
    if (++pages > pages_.file().pages()) Fail(page, "the b-tree visits a page twice (a loop?)");
    const bool leaf = header[0] == 0x0a;
    if (!leaf && header[0] != 0x02) Fail(page, "it is not an index b-tree page");
    const uint32_t cells = Get16(header + 3);
    const unsigned char* pointers = header + (leaf ? 8 : 12);
    if (pointers + 2 * cells > end) Fail(page, "its cell count is too large");
    // Where the check wants a cell to lie at the least (0: no check).
    [[maybe_unused]] const uint32_t first_cell =
        check != nullptr && leaf ? check->leaf_first_cell() : 0;
    for (uint32_t i = 0; i < cells; ++i) {
      const uint32_t offset = Get16(pointers + 2 * i);
      // An interior cell is a 4-byte left child, then a payload like a leaf cell's.
      if (offset < (leaf ? 8u : 12u) || offset + (leaf ? 0u : 4u) >= usable) {
        Fail(page, "a cell lies outside the page");
      }
      if (leaf) {
        const unsigned char* const cell = base + offset;
        if constexpr (requires { on_record.IntegerTuple(); }) {
          // A record of small integers (an integer key's), all on the page: decoded straight
          // into the caller's tuple, with no Cells (DecodeIntegerPrefix; else as any other).
          // Its size in one byte, all of it on the page, at or after first_cell: all the
          // check's IndexLeafCell would ask of it.
          int64_t* const tuple = on_record.IntegerTuple();
          if (tuple != nullptr && *cell < 0x80 && *cell <= max_local && *cell < end - cell &&
              offset >= first_cell && DecodeIntegerPrefix(cell + 1, *cell, fields.size(), tuple)) {
            on_record.TakeIntegerTuple();
            continue;
          }
        }
        if (check != nullptr) check->IndexLeafCell(page, base, offset);
        on_record(Record(page, cell, end));
      }
    }
    if (!leaf) {
      // In order: each child's subtree, then the record of the cell that points to it.
      if (depth == kMaxDepth) Fail(page, "the b-tree is too deep (a loop?)");
      if (interior_.size() <= static_cast<std::size_t>(depth)) interior_.emplace_back(page_size);
      std::memcpy(interior_[static_cast<std::size_t>(depth)].data(), base, page_size);
      // Its children are the pages read next: where they lie scattered (an index written in
      // random order), PageReader reads them in batches.
      page_file_internal::InteriorChildren(base_of(depth), page, 0, usable, children_);
      pages_.Expect(children_);
      stack[depth] = Frame{page, 0};
      page = child_of(depth++, 0);
      continue;
    }
    // Climb: after child i of an interior page comes its cell i's record, then child i + 1.
    for (;;) {
      if (depth == 0) {
        if (follow_) follow_(pages_);
        return pages;
      }
      Frame& top = stack[depth - 1];
      const uint32_t count = Get16(header_of(depth - 1) + 3);
      if (top.child < count) {
        const unsigned char* pbase = base_of(depth - 1);
        on_record(Record(top.page, pbase + Get16(header_of(depth - 1) + 12 + 2 * top.child) + 4,
                         pbase + usable));
        page = child_of(depth - 1, ++top.child);
        break;
      }
      --depth;
    }
  }
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_READER_H_
