// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The SQLite reader's direct passes: one Pass (pass_plan.h) walked straight from the file's
// b-tree pages, without SQLite, its rows given to the visitor as SQLite would give them. Only
// while the file alone holds the read transaction's snapshot (SqliteFile::FileHoldsSnapshot).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_READS_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_READS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "source/source.h"
#include "sqlite/index_reader.h"
#include "sqlite/pass_plan.h"
#include "sqlite/rowid_reader.h"
#include "sqlite/scan_progress.h"
#include "sqlite/sqlite_file.h"
#include "sqlite/table_reader.h"

namespace steadyflake::mergecheck {

// Where a direct pass reports: the visitor, the table, the width of OnRow's cells (the wanted
// columns), the progress counters, and the file whose damage a pass names (ThrowDamaged).
struct DirectPassTarget {
  SourceVisitor& visitor;
  const Table& table;
  std::size_t width;
  ScanProgress& progress;
  const SqliteFile& file;
};

// A pass over the rowids of a rowid table (its INTEGER PRIMARY KEY), from RowidReader; with
// `check`, the structure check of the tree's pages too (RowidReader::Walk). Throws Error naming
// the page and the b-tree's owner when a page is damaged.
void ReadRowids(RowidReader& direct, const Pass& pass, const DirectPassTarget& to,
                BtreeChecker* check = nullptr);

// A pass over the records of an index b-tree (an index, or a WITHOUT ROWID table's own), from
// IndexReader. A REAL column's integral value, stored as an integer, is given as a REAL. With
// `check`, the structure check of the tree's pages too (IndexReader::Walk).
void ReadRecords(IndexReader& direct, const Pass& pass, const DirectPassTarget& to,
                 BtreeChecker* check = nullptr);

// Looks up `rowids` (ascending; one given twice gives its row twice) in the rowid table of
// `to.table`, whose b-tree is rooted at `root` (TableReader::Seek: the rows' paths, not the tree),
// and gives each row found to the visitor as SelectRows would: its columns `wanted` (ascending;
// record field i is column i, so only for a table with no generated column), the INTEGER PRIMARY
// KEY `alias` as the rowid, a REAL column's integral value as a REAL, the rowid as the row's
// position. Returns the rowids whose records lack a wanted field (written before ALTER TABLE ADD
// COLUMN: SQLite gives the column's DEFAULT, which the pages do not hold), not given: the caller
// looks those up through SQLite. Throws Error naming the page when a page is damaged.
std::vector<int64_t> LookUpRowids(TableReader& direct, uint32_t root, int alias,
                                  std::span<const int64_t> rowids, const std::vector<int>& wanted,
                                  const DirectPassTarget& to);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_READS_H_
