// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// BtreeChecker: the checks of one page (Page), a depth-first walk of a b-tree doing them
// (Tree), and the freelist; CheckBtrees runs them on every b-tree of a file.

#include "sqlite/btree_check.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "sqlite/index_leaf_cells.h"
#include "sqlite/table_leaf_cells.h"

namespace steadyflake::mergecheck {

namespace {

using page_file_internal::Get16;
using page_file_internal::Get32;
using page_file_internal::GetVarint;

constexpr int kMaxDepth = 64;  // SQLite itself stops at 20 (BTCURSOR_MAX_DEPTH)

// Whether a leaf's cells are checked a block at a time here (AVX-512: table_leaf_cells.h,
// index_leaf_cells.h).
const bool kCellBlocks = table_leaf_cells::Here();

// The cells [0, cells) of a leaf whose pointer array is at `pointers`, on a page `base` of
// `usable` bytes, kBlock at a time while `take(i)` takes the block from cell i (true) where it is
// the common kind; a block it does not take goes to `one(j)` a cell at a time, and after two such
// blocks in a row (rows whose payload size takes two bytes, most likely) the rest of the page
// too. A block whose first cell's payload size takes two bytes is not tried: in a table or index
// of wide records every cell's does. Returns the first cell not yet checked.
template <uint32_t kBlock, typename Take, typename One>
[[gnu::always_inline]] inline uint32_t InBlocks(const unsigned char* base,
                                                const unsigned char* pointers, uint32_t cells,
                                                uint32_t usable, Take&& take, One&& one) {
  uint32_t i = 0;
  for (int missed = kCellBlocks ? 0 : 2; missed < 2 && i + kBlock <= cells; i += kBlock) {
    const uint32_t lead = Get16(pointers + 2 * i);
    if (lead < usable && base[lead] < 0x80 && take(i)) {
      missed = 0;
      continue;
    }
    ++missed;
    for (uint32_t j = i; j < i + kBlock; ++j) one(j);
  }
  return i;
}

// The varint at p, or DamagedPage naming `page` when it runs past `end`. Inline: it is read for
// every cell of every page. One to three bytes are joined directly (a payload size, the rowid
// of a table of up to two million rows: 35 instructions fewer a cell than GetVarint's nine-byte
// path), longer ones by GetVarint.
[[gnu::always_inline]] inline const unsigned char* Varint(uint32_t page, const unsigned char* p,
                                                          const unsigned char* end,
                                                          uint64_t& value) {
  if (end - p >= 3) {
    if (p[0] < 0x80) {  // one byte: a small payload size or rowid, the commonest
      value = p[0];
      return p + 1;
    }
    if (p[1] < 0x80) {
      value = uint64_t{p[0] & 0x7fu} << 7 | p[1];
      return p + 2;
    }
    if (p[2] < 0x80) {
      value = uint64_t{p[0] & 0x7fu} << 14 | uint64_t{p[1] & 0x7fu} << 7 | p[2];
      return p + 3;
    }
  }
  const int n = GetVarint(p, end, value);
  if (n == 0) throw DamagedPage(page, "a cell is cut off");
  return p + n;
}

// The heap of a walk in page order keeps its lowest page on top.
constexpr auto kHigherPage = [](const auto& a, const auto& b) { return a.page > b.page; };

}  // namespace

BtreeChecker::BtreeChecker(const PageFile& file, const std::atomic<bool>* stop, PageUse* use)
    : file_(file),
      usable_(file.usable()),
      max_local_index_(page_file_internal::MaxLocal(true, usable_)),
      max_local_table_(page_file_internal::MaxLocal(false, usable_)),
      tree_pages_(file),
      other_pages_(file),
      own_use_(use == nullptr ? std::optional<PageUse>(file.pages()) : std::optional<PageUse>()),
      use_(use != nullptr ? *use : *own_use_),
      // Each cell takes 2 bytes of the page's pointer array (Page checks that it fits; cells
      // themselves may overlap): no page holds more.
      rowid_store_(new int64_t[usable_ / 2 + 1]),
      stop_(stop) {}

void BtreeChecker::Tree(uint32_t root, bool index) {
  Start(root, index);
  Finish();
}

void BtreeChecker::Start(uint32_t root, bool index) {
  walk_.assign(1, Item{root, 0, 1});
  level_.clear();
  level_at_ = 0;
  walk_index_ = index;
  page_order_ = false;
  StartTree();
}

void BtreeChecker::StartInPageOrder(uint32_t root) {
  walk_.clear();
  level_.clear();
  level_at_ = 0;
  walk_index_ = true;
  page_order_ = true;
  StartTree();
  // Level by level from the root, each level's pages read alone, lowest first, until the first
  // page read of a level is a leaf: the rest of that level is left, sorted, for Follow and
  // Finish (level_), and what any of it points to goes on the heap.
  std::vector<Item> level{Item{root, 0, 1}};
  while (!level.empty()) {
    std::sort(level.begin(), level.end(),
              [](const Item& a, const Item& b) { return a.page < b.page; });
    std::vector<Item> below;
    for (std::size_t i = 0; i < level.size(); ++i) {
      if (Stopped()) return;
      const Item& item = level[i];
      InFile(item.page, item.from);  // before it is read: the pointer is the damage
      Visit(item, tree_pages_.Page(item.page));
      if (i == 0 && children_.empty()) {  // a leaf: the leaves' level
        level_ = std::move(level);
        level_at_ = 1;
        return;
      }
      for (const uint32_t child : children_)
        below.push_back(Item{child, item.page, item.depth + 1});
    }
    level = std::move(below);
  }
}

void BtreeChecker::Push(const Item& item) {
  walk_.push_back(item);
  std::push_heap(walk_.begin(), walk_.end(), kHigherPage);
}

void BtreeChecker::PushChildren(const Item& item) {
  for (const uint32_t child : children_) Push(Item{child, item.page, item.depth + 1});
}

bool BtreeChecker::LevelNext() const {
  return level_at_ < level_.size() &&
         (walk_.empty() || level_[level_at_].page < walk_.front().page);
}

uint32_t BtreeChecker::LowestPage() const {
  return LevelNext() ? level_[level_at_].page : walk_.front().page;
}

BtreeChecker::Item BtreeChecker::PopLowest() {
  if (LevelNext()) return level_[level_at_++];
  std::pop_heap(walk_.begin(), walk_.end(), kHigherPage);
  const Item item = walk_.back();
  walk_.pop_back();
  return item;
}

void BtreeChecker::Follow(const PageReader& pages) {
  if (page_order_) {
    while (WalkLeft()) {
      const uint32_t page = LowestPage();
      const unsigned char* base = pages.Held(page);
      if (base == nullptr && (page == 0 || page >= pages.run_first())) return;  // ahead: later
      const Item item = PopLowest();
      if (base == nullptr) {  // passed by: read it here
        InFile(item.page, item.from);
        base = tree_pages_.Page(item.page);
      }
      Visit(item, base);
      PushChildren(item);
    }
    return;
  }
  while (!walk_.empty()) {
    const Item& item = walk_.back();
    if (const unsigned char* const base = pages.Held(item.page)) {
      Step(base);
    } else if (item.page != 0 && item.page < pages.run_first()) {  // passed by: read it here
      Step(tree_pages_.Page(item.page));
    } else {
      return;  // ahead of the other walk, or beyond the file: later, or in Finish
    }
  }
}

void BtreeChecker::Finish() {
  while (WalkLeft()) {
    if (Stopped()) {
      walk_.clear();
      level_.clear();
      level_at_ = 0;
      return;
    }
    if (page_order_) {
      const Item item = PopLowest();
      InFile(item.page, item.from);
      Visit(item, tree_pages_.Page(item.page));
      PushChildren(item);
      continue;
    }
    const Item& item = walk_.back();
    if (item.depth > kMaxDepth) Fail(item.page, "the b-tree is too deep");
    InFile(item.page, item.from);  // before it is read: the pointer is the damage
    Step(tree_pages_.Page(item.page));
  }
}

void BtreeChecker::Step(const unsigned char* base) {
  const Item item = walk_.back();
  walk_.pop_back();
  Visit(item, base);
  for (auto it = children_.rbegin(); it != children_.rend(); ++it) {
    walk_.push_back(Item{*it, item.page, item.depth + 1});
  }
}

void BtreeChecker::Visit(const Item& item, const unsigned char* base) {
  children_.clear();
  if (item.depth > kMaxDepth) Fail(item.page, "the b-tree is too deep");
  InFile(item.page, item.from);
  Page(item.page, base, walk_index_, item.from, item.depth);
}

void BtreeChecker::Page(uint32_t page, const unsigned char* base, bool index, uint32_t from,
                        int depth) {
  CheckPage(page, base, index, from, depth, true);
}

void BtreeChecker::PageLeavingLeafCells(uint32_t page, const unsigned char* base, uint32_t from,
                                        int depth) {
  CheckPage(page, base, true, from, depth, false);
}

void BtreeChecker::CheckPage(uint32_t page, const unsigned char* base, bool index, uint32_t from,
                             int depth, bool leaf_cells) {
  if (depth > kMaxDepth) Fail(page, "the b-tree is too deep");
  Use(page, from);
  const uint32_t header_at = page == 1 ? 100 : 0;
  const unsigned char* const header = base + header_at;
  const bool interior = header[0] == (index ? 0x02 : 0x05);
  const bool leaf = header[0] == (index ? 0x0a : 0x0d);
  if (!interior && !leaf) {
    Fail(page, index ? "it is not an index b-tree page" : "it is not a table b-tree page");
  }
  const uint32_t cells = Get16(header + 3);
  const uint32_t first_cell = header_at + (interior ? 12 : 8) + 2 * cells;
  if (first_cell > usable_) Fail(page, "its cell count is too large");
  uint32_t content = Get16(header + 5);
  if (content == 0) content = 65536;
  if (content < first_cell || content + header[7] > usable_) {
    Fail(page, "its cell content area lies outside the page");
  }
  children_.clear();
  rowid_count_ = 0;
  const unsigned char* const pointers = header + (interior ? 12 : 8);
  if (index) {
    leaf_first_cell_ = first_cell;
    if (interior) {
      Cells<true, true>(page, base, pointers, cells, first_cell);
    } else if (leaf_cells) {
      Cells<true, false>(page, base, pointers, cells, first_cell);
    }
  } else {
    interior ? Cells<false, true>(page, base, pointers, cells, first_cell)
             : Cells<false, false>(page, base, pointers, cells, first_cell);
  }
  if (interior) children_.push_back(Get32(header + 8));  // the right-most child
}

// Cell `i` of a page of one kind, at `offset`.
template <bool kIndex, bool kInterior>
[[gnu::always_inline]] inline void BtreeChecker::Cell(uint32_t page, const unsigned char* base,
                                                      uint32_t offset, uint32_t first_cell,
                                                      [[maybe_unused]] uint32_t i) {
  constexpr bool kPayload = kIndex || !kInterior;  // every cell but an interior table cell's
  const unsigned char* const end = base + usable_;
  const uint64_t max_local = kIndex ? max_local_index_ : max_local_table_;
  if (offset < first_cell || offset >= usable_) Fail(page, "a cell lies outside the page");
  const unsigned char* p = base + offset;
  if constexpr (kInterior) {
    if (end - p < 4) Fail(page, "a cell is cut off");
    children_.push_back(Get32(p));
    p += 4;
  }
  uint64_t payload = 0;
  if constexpr (kPayload) p = Varint(page, p, end, payload);
  if constexpr (!kIndex) {
    uint64_t key = 0;
    p = Varint(page, p, end, key);
    if constexpr (!kInterior) {
      const auto rowid = static_cast<int64_t>(key);
      if (any_rowid_ && rowid <= last_rowid_) Fail(page, "its rowids are out of order");
      any_rowid_ = true;
      last_rowid_ = rowid;
      rowid_store_[i] = rowid;
    }
  }
  if constexpr (kPayload) {
    const uint64_t local =
        payload <= max_local ? payload : page_file_internal::LocalPayload(payload, kIndex, usable_);
    if (static_cast<uint64_t>(end - p) < local) Fail(page, "a cell is cut off");
    p += local;
    if (payload > local) {
      if (end - p < 4) Fail(page, "a cell is cut off");
      Overflow(page, Get32(p), payload - local);
    }
  }
}

// The cells of a page of one kind, each decoded only as far as its kind needs: a table leaf's
// payload size and rowid, an interior table cell's child and key, an index cell's child (on an
// interior page) and payload size. One loop a kind, with no test of the kind inside it: the loop
// over every kind at once took 86 instructions a cell of a rowid table, half of them the tests.
template <bool kIndex, bool kInterior>
void BtreeChecker::Cells(uint32_t page, const unsigned char* base, const unsigned char* pointers,
                         uint32_t cells, uint32_t first_cell) {
  const auto one = [&](uint32_t j) {
    Cell<kIndex, kInterior>(page, base, Get16(pointers + 2 * j), first_cell, j);
  };
  uint32_t i = 0;
  if constexpr (!kIndex && !kInterior) {  // eight at a time, their rowids kept
    i = InBlocks<8>(
        base, pointers, cells, usable_,
        [&](uint32_t at) {
          if (!table_leaf_cells::EightCells(base, pointers + 2 * at, first_cell, usable_,
                                            any_rowid_, last_rowid_, &rowid_store_[at])) {
            return false;
          }
          any_rowid_ = true;
          last_rowid_ = rowid_store_[at + 7];
          return true;
        },
        one);
  }
  if constexpr (kIndex && !kInterior) {  // sixteen at a time
    const auto max_local = static_cast<uint32_t>(max_local_index_);
    i = InBlocks<16>(
        base, pointers, cells, usable_,
        [&](uint32_t at) {
          return index_leaf_cells::SixteenCells(base, pointers + 2 * at, first_cell, usable_,
                                                max_local);
        },
        one);
  }
  for (; i < cells; ++i) one(i);
  if constexpr (!kIndex && !kInterior) rowid_count_ = cells;
}

void BtreeChecker::IndexLeafCell(uint32_t page, const unsigned char* base, uint32_t offset) {
  Cell<true, false>(page, base, offset, leaf_first_cell_, 0);
}

void BtreeChecker::Freelist() {
  const unsigned char* const header = other_pages_.Page(1);
  const uint32_t expected = Get32(header + 36);
  uint32_t trunk = Get32(header + 32);
  uint32_t from = 1;
  uint64_t seen = 0;
  while (trunk != 0) {
    if (Stopped()) return;
    Use(trunk, from);
    const unsigned char* const base = other_pages_.Page(trunk);
    const uint32_t next = Get32(base);
    const uint32_t leaves = Get32(base + 4);
    if (leaves > usable_ / 4 - 2) Fail(trunk, "the freelist trunk page lists too many pages");
    for (uint32_t i = 0; i < leaves; ++i) Use(Get32(base + 8 + 4 * i), trunk);
    seen += 1 + uint64_t{leaves};
    if (seen > expected) break;
    from = trunk;
    trunk = next;
  }
  if (seen != expected) {
    Fail(1, "the header says the freelist holds " + std::to_string(expected) +
                " pages but it holds " + (seen > expected ? "more" : std::to_string(seen)));
  }
}

void BtreeChecker::Fail(uint32_t page, const std::string& what) { throw DamagedPage(page, what); }

// `page`, which `from` points to, must lie in the file.
void BtreeChecker::InFile(uint32_t page, uint32_t from) const {
  if (page == 0 || page > file_.pages()) {
    const std::string where =
        ", beyond the end of the file (" + std::to_string(file_.pages()) + " pages)";
    if (from == 0) Fail(page, "the schema gives a root page" + where);
    Fail(from, "it points to page " + std::to_string(page) + where);
  }
}

// Marks `page` used; it must lie in the file and be used once. `from` points to it.
void BtreeChecker::Use(uint32_t page, uint32_t from) {
  InFile(page, from);
  if (!use_.Claim(page)) {
    Fail(page, "it is used twice (again by page " + std::to_string(from) + ")");
  }
}

// Follows the overflow chain starting at `first` for `bytes` more bytes of payload.
void BtreeChecker::Overflow(uint32_t page, uint32_t first, uint64_t bytes) {
  const uint64_t count = (bytes + usable_ - 5) / (usable_ - 4);
  if (count > file_.pages()) Fail(page, "a cell's payload is larger than the file");
  uint32_t from = page;
  uint32_t next = first;
  for (uint64_t i = 0; i < count; ++i) {
    Use(next, from);
    from = next;
    next = Get32(other_pages_.Page(next));
  }
}

BtreeCheckThread::BtreeCheckThread(const PageFile& file, PageUse& use)
    : file_(file), use_(use), thread_([this] { Run(); }) {}

BtreeCheckThread::~BtreeCheckThread() {
  stop_.store(true, std::memory_order_relaxed);  // the join below orders it
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  more_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void BtreeCheckThread::Hand(const Btree& tree) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(tree);
  }
  more_.notify_one();
}

std::optional<BtreeDamage> BtreeCheckThread::Finish() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  more_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (failure_) std::rethrow_exception(failure_);
  return damage_;
}

void BtreeCheckThread::Run() {
  try {
    BtreeChecker check(file_, &stop_, &use_);
    std::string owner = "the freelist";
    try {
      check.Freelist();
      for (;;) {
        Btree tree;
        {
          std::unique_lock lock(mu_);
          more_.wait(lock, [&] { return !queue_.empty() || closed_; });
          if (queue_.empty() || stop_.load(std::memory_order_relaxed)) return;
          tree = std::move(queue_.front());
          queue_.pop_front();
        }
        owner = tree.owner;
        check.Tree(tree.root, tree.index);
      }
    } catch (const DamagedPage& damage) {
      damage_ = BtreeDamage{damage.page(), damage.what(), owner};
    }
  } catch (...) {
    failure_ = std::current_exception();  // std::bad_alloc
  }
}

std::optional<BtreeDamage> CheckBtrees(const PageFile& file, const std::vector<Btree>& trees,
                                       const std::atomic<bool>& stop) {
  BtreeChecker checker(file, &stop);
  const std::string* owner = nullptr;
  try {
    for (const Btree& tree : trees) {
      owner = &tree.owner;
      checker.Tree(tree.root, tree.index);
    }
    static const std::string kFreelist = "the freelist";
    owner = &kFreelist;
    checker.Freelist();
  } catch (const DamagedPage& damage) {
    return BtreeDamage{damage.page(), damage.what(), owner != nullptr ? *owner : std::string()};
  }
  return std::nullopt;
}

}  // namespace steadyflake::mergecheck
