// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Eight cells of a table b-tree leaf checked at once (AVX-512), for BtreeChecker (btree_check.h):
// the common cell of a table whose rows are under 128 bytes, a payload size of one byte and a
// rowid of any length (one to three bytes for counted rows, nine for 64-bit IDs), on the page,
// checked as BtreeChecker::Cell checks it and its rowid decoded. A block holding any other cell,
// or one Cell would refuse, is left to Cell, which decides it alone.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_TABLE_LEAF_CELLS_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_TABLE_LEAF_CELLS_H_

#include <cstdint>

namespace steadyflake::mergecheck::table_leaf_cells {

// Whether EightCells runs here: the processor has AVX-512 (F, BW and CD) and the kernel saves
// its registers. Asked once.
bool Here();

// The eight cells whose big-endian offsets are at `pointers` (16 bytes) on the table leaf page
// `base` of `usable` bytes whose cell content may begin at `first_cell`: true, their rowids in
// `rowids[0..7]`, when each lies at or after first_cell with 10 bytes of the page from its start,
// has a one-byte payload size (under 128) and its payload ends on the page, and the rowids
// ascend strictly, the first above `last` when `any` (those are the cells Cell accepts with such
// a size). False otherwise, `rowids` unspecified. REQUIRES: Here().
bool EightCells(const unsigned char* base, const unsigned char* pointers, uint32_t first_cell,
                uint32_t usable, bool any, int64_t last, int64_t* rowids);

}  // namespace steadyflake::mergecheck::table_leaf_cells

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_TABLE_LEAF_CELLS_H_
