// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The rows of a rowid table read straight from its b-tree pages
// (https://www.sqlite.org/fileformat.html 1.6 and 2.1): RowidReader's walk of the table b-tree,
// each leaf cell's record decoded by RecordDecoder. Only while the file alone holds the
// database (RowidReader's conditions), and only for UTF-8 databases.
//
// A field is the record's as stored: the caller supplies what SQLite adds when it reads a row
// (the rowid for an INTEGER PRIMARY KEY column, whose field holds NULL; a column's DEFAULT for a
// record written before ALTER TABLE ADD COLUMN, which has fewer fields; a REAL column's integral
// value, stored as an integer). Throws DamagedPage on RowidReader's and RecordDecoder's
// invariants.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_TABLE_READER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_TABLE_READER_H_

#include <cstdint>
#include <span>

#include "source/source.h"
#include "sqlite/page_file.h"
#include "sqlite/record_decoder.h"
#include "sqlite/rowid_reader.h"

namespace steadyflake::mergecheck {

class TableReader {
 public:
  // `read_ahead`: PageReader's, for the b-tree's pages; false for a reader made for Seek.
  explicit TableReader(const PageFile& file, bool read_ahead = true)
      : rowids_(file, read_ahead), decoder_(file) {}

  // Calls on_row(int64_t rowid, std::span<const Cell> cells) for every row of the table b-tree
  // rooted at `root`, in rowid order: cells[i] is field fields[i] of its record (kNull when the
  // record has fewer fields), valid during the call. Returns the number of pages visited.
  template <typename OnRow>
  uint64_t Walk(uint32_t root, std::span<const int> fields, OnRow&& on_row) {
    decoder_.Want(fields);
    return rowids_.WalkCells(root, [&](uint32_t page, int64_t rowid, uint64_t size,
                                       const unsigned char* payload, const unsigned char* end) {
      on_row(rowid, decoder_.Decode(page, size, payload, end, false));
    });
  }

  // Calls on_row(int64_t rowid, std::span<const Cell> cells, bool lacked) for each of `rowids`
  // (ascending) the table b-tree rooted at `root` holds (RowidReader::Seek), its cells as Walk
  // gives them; `lacked`: its record has fewer fields than `fields` name
  // (RecordDecoder::lacked_fields). Returns the number of pages read.
  template <typename OnRow>
  uint64_t Seek(uint32_t root, std::span<const int64_t> rowids, std::span<const int> fields,
                OnRow&& on_row) {
    decoder_.Want(fields);
    return rowids_.Seek(root, rowids,
                        [&](uint32_t page, int64_t rowid, uint64_t size,
                            const unsigned char* payload, const unsigned char* end) {
                          const std::span<const Cell> cells =
                              decoder_.Decode(page, size, payload, end, false);
                          on_row(rowid, cells, decoder_.lacked_fields());
                        });
  }

  // Bytes read from the file so far, for progress.
  uint64_t bytes_read() const { return rowids_.bytes_read() + decoder_.bytes_read(); }

 private:
  RowidReader rowids_;
  RecordDecoder decoder_;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_TABLE_READER_H_
