// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Sixteen cells of an index b-tree leaf checked at once (AVX-512), for BtreeChecker
// (btree_check.h), wherever it checks an index's leaves itself (an index in page order beside its
// table's walk: a UNIQUE name's, or one no key reads, `CREATE INDEX item_owner ON item(owner)`;
// an index BtreeChecker::Tree walks on the check's own thread), not where a walk that decodes the
// cells checks them (PageLeavingLeafCells): the common cell of an index whose records are under
// 128 bytes, a payload size of one byte and the payload on the page, checked as
// BtreeChecker::Cell checks it. A block holding any other cell, or one Cell would refuse, is left
// to Cell, which decides it alone.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_LEAF_CELLS_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_LEAF_CELLS_H_

#include <cstdint>

namespace steadyflake::mergecheck::index_leaf_cells {

// The sixteen cells whose big-endian offsets are at `pointers` (32 bytes) on the index leaf page
// `base` of `usable` bytes whose cell content may begin at `first_cell`: true when each lies at
// or after first_cell with 4 bytes of the page from its start, has a one-byte payload size (under
// 128) of at most `max_local` (the most an index cell keeps on its page) and its payload ends on
// the page (those are the cells Cell accepts with such a size). False otherwise.
// REQUIRES: table_leaf_cells::Here() (AVX-512 F, BW and CD).
bool SixteenCells(const unsigned char* base, const unsigned char* pointers, uint32_t first_cell,
                  uint32_t usable, uint32_t max_local);

}  // namespace steadyflake::mergecheck::index_leaf_cells

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_INDEX_LEAF_CELLS_H_
