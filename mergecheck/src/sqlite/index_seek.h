// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// One entry of a UNIQUE index b-tree of a rowid table found by its key, straight from the
// pages (https://www.sqlite.org/fileformat.html 1.6 and 2.1): a descent from the root, each
// page's cells searched by halves in the index's order (SQLite's: NULL, then numbers by value,
// then text under the column's collation, then blobs by bytes). An index b-tree keeps entries
// in its interior cells too, so a descent may end on an interior page. For the row comparison's
// lookups of a few values of a large table (sqlite/direct_lookup.h): their paths, not the tree.
//
// Invariants it checks, throwing DamagedPage naming the page: a page is an index b-tree page
// (0x02 interior, 0x0a leaf); its cell pointers, cells and records lie within the page and the
// payload; the tree is at most kMaxDepth deep.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_SEEK_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_SEEK_H_

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "source/source.h"
#include "source/text_order.h"
#include "sqlite/page_file.h"
#include "sqlite/record_decoder.h"

namespace steadyflake::mergecheck {

// <0, 0, >0: `a` against `b` in SQLite's order of values, text under `order` (not kInteger).
int CompareInIndex(const Cell& a, const Cell& b, text_order::Order order);

class IndexSeeker {
 public:
  static constexpr int kMaxDepth = 64;

  // Pages are read alone (no read-ahead), interior ones kept for the next Find.
  explicit IndexSeeker(const PageFile& file) : pages_(file, /*read_ahead=*/false), decoder_(file) {}

  // The rowid in the entry of the index b-tree rooted at `root` whose first key.size() fields
  // equal `key`, field i compared under orders[i]; nullopt when there is none. The rowid is
  // field `rowid_field` of the entry, the last of a rowid table's index. For a UNIQUE index
  // (one entry a key; the first found is given). Throws DamagedPage.
  std::optional<int64_t> Find(uint32_t root, std::span<const Cell> key,
                              std::span<const text_order::Order> orders, int rowid_field);

 private:
  [[noreturn]] static void Fail(uint32_t page, const char* what) { throw DamagedPage{page, what}; }

  // Page `page`: a copy when it is an interior page (kept), else the reader's, valid until the
  // next call.
  const unsigned char* Page(uint32_t page);
  // The fields Want()ed of the entry in cell `i` of `page` at `base`; on an interior page its
  // left child in `child`.
  std::span<const Cell> Entry(uint32_t page, const unsigned char* base, bool leaf, uint32_t i,
                              uint32_t& child);

  PageReader pages_;
  RecordDecoder decoder_;
  std::vector<int> fields_;  // 0, 1, ..., key size - 1, then the rowid's
  std::unordered_map<uint32_t, std::vector<unsigned char>> interior_;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_SEEK_H_
