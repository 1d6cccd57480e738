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

#include "source/source.h"
#include "sqlite/index_reader.h"
#include "sqlite/pass_plan.h"
#include "sqlite/rowid_reader.h"
#include "sqlite/scan_progress.h"
#include "sqlite/sqlite_file.h"

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

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_READS_H_
