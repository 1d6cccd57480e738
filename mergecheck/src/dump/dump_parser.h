// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The streaming SQL dump parser behind OpenDumpSource: reads a dump front to back in chunks,
// splits it into statements, reads the schema statements into Tables and streams every INSERT's
// rows to a SourceVisitor, decoding only the columns the visitor wants.
//
// What counts as a complete dump (anything else throws Error(kInvalidArgument) naming the
// file and line):
//   1. The input ends between statements: not inside a statement, string or comment.
//   2. A sqlite3 .dump that says BEGIN TRANSACTION also says COMMIT; one that says ROLLBACK or
//      carries sqlite3's "CORRUPTION ERROR" / "ERROR:" comments came from a database that could
//      not be read whole, and is refused rather than checked as a smaller database.
//   3. A mysqldump / mariadb-dump that starts with its "-- MySQL dump" / "-- MariaDB dump"
//      header comment ends with its "-- Dump completed" trailer. With --skip-comments there is
//      neither, and only rule 1 applies.
//   4. Every INSERT names a table created earlier in the dump (sqlite's own sqlite_* tables
//      excepted: their rows are skipped), and every row has one value per column.
//
// The Cells a row's values become are listed in literal_decoder.h.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_PARSER_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_PARSER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dump/rows_at.h"
#include "dump/sql_text.h"
#include "source/source.h"

namespace steadyflake::mergecheck::dump {

// What the first bytes of a file say about it (DetectDumpKind, dump_source.h).
struct DumpKind {
  Dialect dialect = Dialect::kSqlite;
  bool has_header_comment = false;  // "-- MySQL dump ..." / "-- MariaDB dump ...": rule 3
};

// Progress of a scan, readable from any thread. Relaxed atomics: the values are advisory and
// order nothing else.
struct ScanProgress {
  std::atomic<uint64_t> bytes{0};  // text read (inflated)
  std::atomic<uint64_t> rows{0};
  std::atomic<uint64_t> file_bytes{0};  // of the file (ByteStream::consumed)
};

// The rows of an INSERT given to the visitor at once (SourceVisitor::OnRows): a dump's INSERT
// holds thousands, and the Collector computes each key over a few hundred rows faster than over
// each row alone. A visitor that stops a scan (by throwing) stops it within one run of rows.
inline constexpr size_t kRowBatch = 256;

// Reads the whole dump at `path` once, as Source::Scan describes, reading `chunk_size` bytes
// at a time (tests use tiny sizes to put every token across a chunk boundary). Throws
// Error(kInvalidArgument) "<path>:<line>: <problem>; <fix>" for input that is not a complete,
// readable dump (see the rules above). A row's position (SourceVisitor::OnRows) is the offset of
// its '(' in the (uncompressed) input. When `index` is set, it is filled with where the INSERTs of
// each table whose rows the visitor got are (rows_at.h).
void ParseDump(const std::string& path, bool gzip, DumpKind kind, size_t chunk_size,
               SourceVisitor& visitor, const std::vector<std::string>& only, ScanProgress& progress,
               InsertIndex* index = nullptr);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_PARSER_H_
