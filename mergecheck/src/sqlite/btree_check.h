// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// CheckBtrees: the structure of every b-tree of a SQLite file and of its freelist, read
// straight from the pages (https://www.sqlite.org/fileformat.html 1.5-1.6), so that damage in a
// page the key scan never reads (an index, a row's overflow pages) is found too. SqliteSource
// runs it under its read transactions' SQLite read lock: on the pages of the trees the scan (or a
// later walk in index order) reads with RowidReader or IndexReader as it reads them
// (BtreeChecker::Page, one read of each page for both), on the pages another walk's runs hold
// for a tree that lies interleaved with it (BtreeChecker::Follow: a table beside its index's
// walk, an index in page order beside its table's), then on every other b-tree
// (BtreeChecker::Tree, on BtreeCheckThread beside the scan for the indexes) and the freelist.
//
// What it checks, much as SQLite's `PRAGMA quick_check` does, page by page:
// - every page number (child, overflow, freelist) lies within the file, and no page is used
//   twice (which also ends any loop);
// - a table b-tree holds only table pages (0x05, 0x0d) and an index b-tree only index pages
//   (0x02, 0x0a); a tree is at most kMaxDepth deep;
// - the cell pointer array, the cell content area and every cell lie within the page's
//   usable bytes; a cell's overflow chain has exactly the pages its payload needs;
// - a table's rowids ascend; the freelist holds as many pages as the header says.
// Not checked (SQLite's full `integrity_check` does): that an index holds exactly its table's
// rows, record formats, and pages used by nothing.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_BTREE_CHECK_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_BTREE_CHECK_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

struct Btree {
  uint32_t root = 0;
  bool index = false;      // an index b-tree, else a table b-tree
  std::string owner;       // what it is, for messages: "table item", "index i of table item"
  std::string table = {};  // the table whose rows it holds ("" for the schema's own)
};

struct BtreeDamage {
  uint32_t page = 0;
  std::string problem;  // "it is not an index b-tree page"
  std::string owner;    // Btree::owner, "the freelist", or "" when it belongs to nothing known
};

// The pages of one file some checker has seen, shared by the checkers of one scan (one per
// thread): a page is claimed once, by whichever checker shows it first, and the second claim is
// the damage "used twice". Claims are one relaxed fetch_or each: the bit is all the threads
// share, and joining the threads orders everything else.
class PageUse {
 public:
  explicit PageUse(uint32_t pages) : words_(std::size_t{pages} / 64 + 1) {}
  // True when `page` was not claimed before. REQUIRES: page <= the `pages` constructed with.
  bool Claim(uint32_t page) {
    const uint64_t bit = uint64_t{1} << (page % 64);
    return (words_[page / 64].fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }

 private:
  std::vector<std::atomic<uint64_t>> words_;
};

// The checks above, page by page, for one file: either walking a b-tree itself (Tree), or on
// the pages another walk reads anyway (Page: the key scan's RowidReader or IndexReader, so that
// a tree the scan walks is read once, not twice). Every page it is shown is marked used, whichever
// way, so a page used twice is found across both. One thread uses it; it throws DamagedPage.
class BtreeChecker {
 public:
  // `stop` (optional) ends Tree and Freelist early once set: the caller no longer needs them.
  // `use` (optional; else its own) records the pages seen, and must outlive the checker.
  explicit BtreeChecker(const PageFile& file, const std::atomic<bool>* stop = nullptr,
                        PageUse* use = nullptr);

  // Walks the b-tree rooted at `root` (an index b-tree when `index`), checking every page.
  void Tree(uint32_t root, bool index);

  // The same walk in steps, for a tree checked beside a walk of another whose runs hold its
  // pages too (a table and its index written together lie interleaved in the file): Start
  // begins it, Follow checks the pages it needs next for as long as `pages` holds them
  // (PageReader::Held) or has passed them by (those it reads itself: a root before the other
  // tree's first page), and Finish reads and checks the rest. Tree is Start then Finish.
  void Start(uint32_t root, bool index);
  void Follow(const PageReader& pages);
  void Finish();
  // Start for an index b-tree checked in the order of its pages in the file rather than its
  // keys (an index's key order is no part of this check): its interior pages now, each read
  // alone (a few hundred in a tree of millions of entries), then its leaves as Follow finds them
  // in the other walk's runs, lowest page first, or Finish reads them, in file order. A page is
  // still checked only after the page that points to it, at its depth.
  void StartInPageOrder(uint32_t root);

  // Another walk of a b-tree begins at its root: the next Page is its root page.
  void StartTree() { any_rowid_ = false; }
  // Checks page `page` of the b-tree being walked, whose bytes are `base` (the whole page),
  // pointed to by page `from` (0: the root) at depth `depth` (1: the root). Interior pages
  // must come before their children, leaves in key order (depth first): the rowid order is
  // checked across the tree's leaves as they come. Marks its overflow pages used too.
  void Page(uint32_t page, const unsigned char* base, bool index, uint32_t from, int depth);
  // Page, except that the cells of an index leaf are left to the walk, which decodes them
  // anyway: it checks each by IndexLeafCell, or itself as IndexLeafCell would (a payload whose
  // one-byte size fits on the page, at or after leaf_first_cell()), so each cell is read once.
  void PageLeavingLeafCells(uint32_t page, const unsigned char* base, uint32_t from, int depth);
  // After PageLeavingLeafCells on an index leaf: the lowest offset a cell may lie at.
  uint32_t leaf_first_cell() const { return leaf_first_cell_; }
  // Checks the cell at `offset` of that leaf, whose bytes are `base`, as Page does each.
  void IndexLeafCell(uint32_t page, const unsigned char* base, uint32_t offset);
  // After Page on a table leaf: its rowids, in cell order (checked ascending), until the next
  // Page; a walk that shows it its pages need not decode them again.
  std::span<const int64_t> rowids() const { return {rowid_store_.get(), rowid_count_}; }

  // Walks the freelist's trunk pages and checks its count against the header.
  void Freelist();

 private:
  [[noreturn]] static void Fail(uint32_t page, const std::string& what);
  void InFile(uint32_t page, uint32_t from) const;
  void Use(uint32_t page, uint32_t from);
  void Overflow(uint32_t page, uint32_t first, uint64_t bytes);
  // Checks the next page of the walk Start began, whose bytes are `base`.
  void Step(const unsigned char* base);
  // The walk's item `item`, whose bytes are `base`, checked: its children in children_.
  struct Item;
  void Visit(const Item& item, const unsigned char* base);
  // StartInPageOrder's walk: `item`, or its children, go on the heap; the lowest page comes
  // off it.
  void Push(const Item& item);
  void PushChildren(const Item& item);
  Item PopLowest();
  // In page order: whether the next item comes from level_ (else from the heap), and its page;
  // PopLowest takes that item. REQUIRES: WalkLeft().
  bool LevelNext() const;
  uint32_t LowestPage() const;
  // Pages left to check in the walk Start or StartInPageOrder began.
  bool WalkLeft() const { return !walk_.empty() || level_at_ < level_.size(); }
  void CheckPage(uint32_t page, const unsigned char* base, bool index, uint32_t from, int depth,
                 bool leaf_cells);
  template <bool kIndex, bool kInterior>
  void Cells(uint32_t page, const unsigned char* base, const unsigned char* pointers,
             uint32_t cells, uint32_t first_cell);
  template <bool kIndex, bool kInterior>
  void Cell(uint32_t page, const unsigned char* base, uint32_t offset, uint32_t first_cell,
            uint32_t i);
  bool Stopped() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

  const PageFile& file_;
  const uint32_t usable_;
  const uint64_t max_local_index_;  // page_file_internal::MaxLocal
  const uint64_t max_local_table_;
  PageReader tree_pages_;           // b-tree pages (Tree), read ahead when they come in order
  PageReader other_pages_;          // overflow and freelist pages, so they do not break the runs
  std::optional<PageUse> own_use_;  // when no PageUse was given
  PageUse& use_;
  // The walk Start began: the pages still to check, the next last, each with the page that
  // points to it (0: the schema) and its depth.
  struct Item {
    uint32_t page;
    uint32_t from;
    int depth;
  };
  std::vector<Item> walk_;  // a stack; in page order a heap, the lowest page on top
  // In page order, the leaves' level as StartInPageOrder found it, sorted by page: taken from
  // level_at_ on beside the heap (which then holds only what an interior page among them points
  // to), so that the leaves of a tree of millions of entries need no heap's work each.
  std::vector<Item> level_;
  std::size_t level_at_ = 0;
  bool walk_index_ = false;
  bool page_order_ = false;                 // StartInPageOrder's walk
  std::vector<uint32_t> children_;          // of the last interior page Page checked, in order
  std::unique_ptr<int64_t[]> rowid_store_;  // of the last table leaf Page checked, in order,
  std::size_t rowid_count_ = 0;             // this many
  uint32_t leaf_first_cell_ = 0;            // of the index leaf PageLeavingLeafCells checked
  bool any_rowid_ = false;                  // of the tree being walked: a leaf rowid seen, the last
  int64_t last_rowid_ = 0;
  const std::atomic<bool>* stop_;
};

// The structure check of the freelist and of the b-trees handed to it (Hand), on a thread of its
// own beside the key scan. The scan walks some b-trees with a BtreeChecker of its own, sharing
// `use`, and hands this thread the others once it has decided which it walks: so no tree is
// checked twice, and every page of both is claimed in one PageUse. Stopped and joined however
// the scan ends. Hand and Finish are the scan's thread's.
class BtreeCheckThread {
 public:
  // Starts the thread, which checks the freelist first. `file` and `use` must outlive it.
  BtreeCheckThread(const PageFile& file, PageUse& use);
  BtreeCheckThread(const BtreeCheckThread&) = delete;
  BtreeCheckThread& operator=(const BtreeCheckThread&) = delete;
  ~BtreeCheckThread();

  // Queues `tree` for the check.
  void Hand(const Btree& tree);
  // No more trees: waits for the check; the first damage it found, if any. Rethrows what else
  // the thread threw (std::bad_alloc).
  std::optional<BtreeDamage> Finish();

 private:
  void Run();

  const PageFile& file_;
  PageUse& use_;
  std::atomic<bool> stop_{false};  // the scan ended without Finish: check nothing more
  std::mutex mu_;
  std::condition_variable more_;  // a tree was queued, or the queue closed
  std::deque<Btree> queue_;       // guarded by mu_
  bool closed_ = false;           // guarded by mu_: no more trees will come
  // Written by the thread, read after join() (which orders them).
  std::optional<BtreeDamage> damage_;
  std::exception_ptr failure_;
  std::thread thread_;  // last: it starts once the members above exist
};

// Checks `trees` and the freelist of `file`. Returns the first damage found, or nullopt.
// Returns nullopt early once `stop` is set (the caller no longer needs the answer).
std::optional<BtreeDamage> CheckBtrees(const PageFile& file, const std::vector<Btree>& trees,
                                       const std::atomic<bool>& stop);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_BTREE_CHECK_H_
