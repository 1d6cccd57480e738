// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The SQLite reader's fallback and its look-ups: rows by one SELECT of the wanted columns, for
// a table no b-tree pass can give (a --key on columns no index covers, a whole-row read, a
// UTF-16 database's indexes, a WAL snapshot the file alone does not hold), or by one indexed
// query per looked-up tuple (Source::LookUp).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_SELECT_READER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_SELECT_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "source/source.h"
#include "sqlite/scan_progress.h"
#include "sqlite/sqlite_file.h"

namespace steadyflake::mergecheck {

// The rows to read: those whose `columns` (indexes into the table's columns) hold one of
// `tuples` (one value per column, never NULL), compared under `collations` (one per column:
// "" for the column's own, else a collation SQLite knows).
struct Lookup {
  std::vector<int> columns;
  std::vector<std::string> collations;
  const std::vector<std::vector<Cell>>* tuples = nullptr;
};

// Reads the rows of `table`, all of them, or with a `lookup` those it names, giving the `wanted`
// columns to `visitor` and counting them in `progress`. A row's position is its rowid, or its
// ordinal when the table has none (WITHOUT ROWID, or columns shadow every rowid name). Throws
// Error (SqliteFile::Fail) when SQLite cannot read it. REQUIRES: a read transaction.
void SelectRows(SqliteFile& file, ScanProgress& progress, const Table& table,
                const std::vector<int>& wanted, SourceVisitor& visitor,
                const Lookup* lookup = nullptr);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_SELECT_READER_H_
