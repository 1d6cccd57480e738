// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// IndexCursor: a KeyCursor (source/key_cursor.h) over an index b-tree read straight from its
// pages (https://www.sqlite.org/fileformat.html 1.6 and 2.1), for the merge of a one-column text
// key split among threads. Each cursor reads with a PageReader of its own (page_file.h: leaves
// that lie in order in the file, as an index made after its rows has them, are read in runs),
// and keeps a copy of each interior page on its path from the root; the keys a Next gives point
// into the leaf the reader holds (or an interior page's copy), valid until the cursor reads
// another page.
//
// It reads what the structure check (btree_check.h) checked before, and is safe on any bytes all
// the same: a page number beyond the file, a page of another kind, a cell or record outside its
// page, a tree deeper than kMaxDepth or visiting more pages than the file holds is DamagedPage,
// given to `damaged` (which throws).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_CURSOR_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_CURSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "source/key_cursor.h"
#include "sqlite/page_file.h"
#include "sqlite/record_decoder.h"

namespace steadyflake::mergecheck {

class IndexCursor final : public KeyCursor {
 public:
  static constexpr int kMaxDepth = 64;

  // A cursor over the index b-tree rooted at `root` of `file`, at its first record. `damaged`
  // is called with the damage found, and must throw. Each page whose first record Next gives
  // (an empty root when Seek reads it), but in the run a search landed in, is counted in
  // `*given` (may be null): the cursors of a merge in parts, one part's beginning where the
  // part before stopped, count the tree's pages so once, as one walk of it would.
  IndexCursor(const PageFile& file, uint32_t root, std::function<void(const DamagedPage&)> damaged,
              std::atomic<uint64_t>* given = nullptr);

  void Seek(const std::function<bool(const KeyRef&)>& below) override;
  std::span<const KeyRef> Next() override;
  uint64_t Position(std::size_t i) const override {
    return uint64_t{run_page_} << 16 | (run_first_ + i);
  }

 private:
  struct Frame {
    uint32_t page = 0;
    uint32_t cells = 0;
    uint32_t at = 0;  // the cell next (a leaf), the child being visited (an interior page)
    bool leaf = false;
    const unsigned char* base = nullptr;  // the page: in pages_ (a leaf), else in `bytes`
    std::vector<unsigned char> bytes;
  };

  [[noreturn]] static void Fail(uint32_t page, const char* what) { throw DamagedPage{page, what}; }

  void SeekInside(const std::function<bool(const KeyRef&)>* below);
  void NextInside();
  // Reads `page` into frame `depth` (made when new), checking its kind and cell pointers: a
  // leaf where pages_ holds it, an interior page copied.
  Frame& Load(int depth, uint32_t page);
  // From frame `depth` (loaded), the leftmost path down to a leaf, each frame at its first cell.
  void DescendLeftmost(int depth);
  uint32_t ChildOf(const Frame& frame, uint32_t i) const;
  // Tells the reader the children of interior `frame` from its current one on, as far as its
  // cell pointers are sound (the walk reports the damage when it comes to it): the leaves the
  // cursor reads next, which PageReader then reads in batches.
  void ExpectChildren(const Frame& frame);
  // The key of cell `i` of `frame`: its first field.
  KeyRef KeyAt(const Frame& frame, uint32_t i);
  // KeyAt for a record its fast path cannot read (a large payload, one in overflow pages, a
  // header of varints of more than one byte): by the RecordDecoder, its bytes kept in arena_.
  KeyRef DecodeSlowly(uint32_t page, const unsigned char* cell, const unsigned char* end);

  const PageFile& file_;
  const uint32_t root_;
  const std::function<void(const DamagedPage&)> damaged_;
  const uint32_t usable_;
  const uint64_t max_local_;
  std::atomic<uint64_t>* const given_;
  RecordDecoder decoder_;
  PageReader pages_;
  std::vector<Frame> frames_;  // the path from the root; depth_ of them in use
  int depth_ = 0;
  int leaf_depth_ = -1;             // the depth the first leaf was found at (-1: none yet)
  std::vector<uint32_t> children_;  // ExpectChildren's list
  bool uncounted_ = false;          // the next run's page is not counted in given_
  uint64_t pages_read_ = 0;
  std::vector<KeyRef> run_;
  uint32_t run_page_ = 0;
  uint32_t run_first_ = 0;
  // The bytes of the run's keys DecodeSlowly read (KeyRef::data then an offset into it until
  // the run is complete), and which keys those are.
  std::string arena_;
  std::vector<std::size_t> in_arena_;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_CURSOR_H_
