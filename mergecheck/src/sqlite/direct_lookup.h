// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Source::LookUpValues of a SQLite rowid table straight from its pages: the few rows of the
// values the two inputs share, found without SQLite's statement, cursor and page cache (6-9 us
// a row through SQLite on the 2-core CI machine, against ~3 us here). By the INTEGER PRIMARY
// KEY, a descent of the table b-tree for all the values at once, a level at a time, its pages
// read in batches (RowidReader::Seek); by a UNIQUE key of other columns, a descent of an index
// over exactly those columns to the rowid for each value, each page read alone (IndexSeeker),
// then of the table b-tree. Only where the pages alone say what SQLite reads:
// the file holds the snapshot, UTF-8 (the caller's conditions), no generated column (record
// fields are then the table's columns), and the rowid is a row's position (SelectRows' rule).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_LOOKUP_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_LOOKUP_H_

#include <vector>

#include "source/source.h"
#include "sqlite/direct_reads.h"
#include "sqlite/page_file.h"
#include "sqlite/select_reader.h"
#include "sqlite/sqlite_schema.h"

namespace steadyflake::mergecheck {

// Looks up `lookup` (its columns, collations and tuples) in table `table` (`ref`, its b-trees
// `structures`) from `pages`, giving each row found to `to.visitor` as SelectRows gives the
// columns `wanted`. False, having read nothing, where the pages cannot serve the lookup; else
// true, with in `rest` the tuples left to SelectRows: a value the column's affinity would
// convert (a text sought in an INTEGER column), and a row whose record lacks a field (written
// before ALTER TABLE ADD COLUMN: SQLite gives the column's DEFAULT). Throws Error naming the
// page and its b-tree when a page is damaged.
bool LookUpFromPages(const PageFile& pages, const TableRef& ref, const Table& table,
                     const std::vector<Structure>& structures, const Lookup& lookup,
                     const std::vector<int>& wanted, const DirectPassTarget& to,
                     std::vector<std::vector<Cell>>& rest);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_DIRECT_LOOKUP_H_
