// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Reading a few rows of a plain (uncompressed) dump again by their position, the byte offset
// of each row's '(' that the scan gave the visitor (SourceVisitor::OnRow). The scan records
// where each INSERT statement starts and its header (InsertIndex); a row is then read by
// reading its statement's header from memory and the row itself from the file, so a later pass
// that wants a thousand rows of a 100 MB dump reads a thousand rows, not the dump.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_ROWS_AT_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_ROWS_AT_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dump/sql_text.h"
#include "source/source.h"

namespace steadyflake::mergecheck::dump {

// Where a scan found the INSERT statements of each table whose rows it gave.
struct InsertIndex {
  struct Statement {
    uint64_t offset = 0;  // of its INSERT (or REPLACE) keyword in the input
    uint32_t header = 0;  // its header, an index into `headers`
  };
  struct TableRows {
    Table table;  // its definition at the end of the scan
    int rowid_alias = -1;
    std::vector<Statement> statements;  // ascending by offset
    // False when the rows cannot be read again this way: the dump created the table again after
    // rows of it (they may have other columns than `table`).
    bool usable = true;
    uint64_t created = 0;  // during the scan: the CREATE TABLE (DumpTable::serial) of the rows
  };
  std::vector<std::string> headers;         // from INSERT or REPLACE through VALUES
  std::map<std::string, TableRows> tables;  // by name, as the dump spells it
};

// The bytes of rows read by position, kept for the passes that want them again: the passes
// after the comparison read the rows of the same few values, each row one pread(2) (~0.8 us on
// the 2-core CI machine) where a lookup here costs a hash. Up to kMaxBytes of rows; the rest are
// read again. Positions name the file's bytes, so the cache serves every table and header, and
// is good while the file is the one the scan read (DumpSource checks that on each read).
class RowCache {
 public:
  static constexpr size_t kMaxBytes = size_t{16} << 20;

  // The row at `position` as Add kept it, or empty.
  std::string_view Find(uint64_t position) const {
    const auto it = rows_.find(position);
    if (it == rows_.end()) return {};
    return std::string_view(bytes_.data() + it->second.first, it->second.second);
  }
  // Keeps `row`, the bytes of the row at `position` (from its '(' to just past its ')'), unless
  // the cache is full.
  void Add(uint64_t position, std::string_view row) {
    if (row.empty() || bytes_.size() + row.size() > kMaxBytes) return;
    if (rows_.emplace(position, std::make_pair(bytes_.size(), row.size())).second) {
      bytes_.append(row);
    }
  }

 private:
  std::string bytes_;
  std::unordered_map<uint64_t, std::pair<size_t, size_t>> rows_;  // offset and length in bytes_
};

// Reads the rows of `table` that start at `positions` (ascending, distinct, each a position the
// scan that built `index` gave a row of `table` at) from the open file `fd` of `size` bytes, the
// plain dump at `path`: OnTable(the table), then OnRow for each row. Throws
// Error(kInvalidArgument) "<path>:<line>: <problem>; <fix>" when a row is not where the scan
// found it (the file changed) or cannot be read. The rows `cache` holds are read from it, the
// others from the file and added to it.
void ReadDumpRowsAt(const std::string& path, int fd, uint64_t size, Dialect dialect,
                    const InsertIndex& index, const std::string& table,
                    std::span<const uint64_t> positions, SourceVisitor& visitor, RowCache& cache);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_ROWS_AT_H_
