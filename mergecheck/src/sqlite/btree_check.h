// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// CheckBtrees: the structure of every b-tree of a SQLite file and of its freelist, read
// straight from the pages (https://www.sqlite.org/fileformat.html 1.5-1.6), so that damage in a
// page the key scan never reads (an index, a row's overflow pages) is found too. SqliteSource
// runs it on a thread of its own beside the key scan, under the same SQLite read lock.
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
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

struct Btree {
  uint32_t root = 0;
  bool index = false;  // an index b-tree, else a table b-tree
  std::string owner;   // what it is, for messages: "table item", "index i of table item"
};

struct BtreeDamage {
  uint32_t page = 0;
  std::string problem;  // "it is not an index b-tree page"
  std::string owner;    // Btree::owner, "the freelist", or "" when it belongs to nothing known
};

// Checks `trees` and the freelist of `file`. Returns the first damage found, or nullopt.
// Returns nullopt early once `stop` is set (the caller no longer needs the answer).
std::optional<BtreeDamage> CheckBtrees(const PageFile& file, const std::vector<Btree>& trees,
                                       const std::atomic<bool>& stop);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_BTREE_CHECK_H_
