// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// CheckBtrees: one depth-first walk per b-tree, then the freelist.

#include "sqlite/btree_check.h"

#include <utility>

namespace steadyflake::mergecheck {

namespace {

using page_file_internal::Get16;
using page_file_internal::Get32;
using page_file_internal::GetVarint;

constexpr int kMaxDepth = 64;  // SQLite itself stops at 20 (BTCURSOR_MAX_DEPTH)

class Walker {
 public:
  Walker(const PageFile& file, const std::atomic<bool>& stop)
      : file_(file),
        usable_(file.usable()),
        tree_pages_(file),
        other_pages_(file),
        used_(std::size_t{file.pages()} + 1, false),
        stop_(stop) {}

  // Walks the b-tree rooted at `root`. Throws DamagedPage.
  void Tree(uint32_t root, bool index) {
    struct Item {
      uint32_t page;
      uint32_t from;  // the page that points to it (0: the schema)
      int depth;
    };
    std::vector<Item> stack{{root, 0, 1}};
    std::vector<uint32_t> children;
    bool any = false;
    int64_t last = 0;
    while (!stack.empty()) {
      if (stop_.load(std::memory_order_relaxed)) return;
      const Item item = stack.back();
      stack.pop_back();
      const uint32_t page = item.page;
      if (item.depth > kMaxDepth) Fail(page, "the b-tree is too deep");
      Use(page, item.from);
      const unsigned char* const base = tree_pages_.Page(page);
      const unsigned char* const end = base + usable_;
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
      children.clear();
      for (uint32_t i = 0; i < cells; ++i) {
        const uint32_t offset = Get16(header + (interior ? 12 : 8) + 2 * i);
        if (offset < first_cell || offset >= usable_) Fail(page, "a cell lies outside the page");
        const unsigned char* p = base + offset;
        if (interior) {
          if (end - p < 4) Fail(page, "a cell is cut off");
          children.push_back(Get32(p));
          p += 4;
        }
        uint64_t payload = 0;
        if (leaf || index) p = Varint(page, p, end, payload);
        if (!index) {
          uint64_t key = 0;
          p = Varint(page, p, end, key);
          if (leaf) {
            const auto rowid = static_cast<int64_t>(key);
            if (any && rowid <= last) Fail(page, "its rowids are out of order");
            any = true;
            last = rowid;
          }
        }
        if (leaf || index) {
          const uint64_t local = page_file_internal::LocalPayload(payload, index, usable_);
          if (static_cast<uint64_t>(end - p) < local) Fail(page, "a cell is cut off");
          p += local;
          if (payload > local) {
            if (end - p < 4) Fail(page, "a cell is cut off");
            Overflow(page, Get32(p), payload - local);
          }
        }
      }
      if (interior) {
        children.push_back(Get32(header + 8));  // the right-most child
        for (auto it = children.rbegin(); it != children.rend(); ++it) {
          stack.push_back(Item{*it, page, item.depth + 1});
        }
      }
    }
  }

  // Walks the freelist's trunk pages. Throws DamagedPage.
  void Freelist() {
    const unsigned char* const header = other_pages_.Page(1);
    const uint32_t expected = Get32(header + 36);
    uint32_t trunk = Get32(header + 32);
    uint32_t from = 1;
    uint64_t seen = 0;
    while (trunk != 0) {
      if (stop_.load(std::memory_order_relaxed)) return;
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

 private:
  [[noreturn]] static void Fail(uint32_t page, const std::string& what) {
    throw DamagedPage(page, what);
  }

  // Marks `page` used; it must lie in the file and be used once. `from` points to it.
  void Use(uint32_t page, uint32_t from) {
    if (page == 0 || page > file_.pages()) {
      const std::string where =
          ", beyond the end of the file (" + std::to_string(file_.pages()) + " pages)";
      if (from == 0) Fail(page, "the schema gives a root page" + where);
      Fail(from, "it points to page " + std::to_string(page) + where);
    }
    if (used_[page]) {
      Fail(page, "it is used twice (again by page " + std::to_string(from) + ")");
    }
    used_[page] = true;
  }

  const unsigned char* Varint(uint32_t page, const unsigned char* p, const unsigned char* end,
                              uint64_t& value) {
    const int n = GetVarint(p, end, value);
    if (n == 0) Fail(page, "a cell is cut off");
    return p + n;
  }

  // Follows the overflow chain starting at `first` for `bytes` more bytes of payload.
  void Overflow(uint32_t page, uint32_t first, uint64_t bytes) {
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

  const PageFile& file_;
  const uint32_t usable_;
  PageReader tree_pages_;   // b-tree pages, read ahead when they come in order
  PageReader other_pages_;  // overflow and freelist pages, so they do not break the runs
  std::vector<bool> used_;  // by page number
  const std::atomic<bool>& stop_;
};

}  // namespace

std::optional<BtreeDamage> CheckBtrees(const PageFile& file, const std::vector<Btree>& trees,
                                       const std::atomic<bool>& stop) {
  Walker walker(file, stop);
  const std::string* owner = nullptr;
  try {
    for (const Btree& tree : trees) {
      owner = &tree.owner;
      walker.Tree(tree.root, tree.index);
    }
    static const std::string kFreelist = "the freelist";
    owner = &kFreelist;
    walker.Freelist();
  } catch (const DamagedPage& damage) {
    return BtreeDamage{damage.page(), damage.what(), owner != nullptr ? *owner : std::string()};
  }
  return std::nullopt;
}

}  // namespace steadyflake::mergecheck
