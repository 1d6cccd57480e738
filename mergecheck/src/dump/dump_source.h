// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Test hooks of the dump reader (OpenDumpSource itself is declared in source.h), and how it
// tells a dump's kind from its first bytes.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_SOURCE_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_SOURCE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "dump/dump_parser.h"
#include "source/source.h"

namespace steadyflake::mergecheck {

// How many bytes OpenDumpSource reads (or inflates) at a time. 1 MiB: the parser's buffer of
// twice that is one huge page, where 4 MiB made it 8 MB of fresh memory an input, which this
// VM charges 0.1 to 2 ms a MiB to touch first; checking the 2M player dumps, 1 MiB was no
// slower (median of 21 alternated runs 155.2 ms at 4 MiB, 154.5 ms at 1 MiB, processor time
// 287 -> 279 ms).
inline constexpr size_t kDumpChunkSize = 1 << 20;

// OpenDumpSource reading `chunk_size` (>= 1) bytes at a time, so tests can put every token of
// a dump across a chunk boundary.
std::unique_ptr<Source> OpenDumpSourceForTest(const std::string& path, bool gzip,
                                              size_t chunk_size);

namespace dump {

// How many leading bytes DetectDumpKind wants to see (fewer only when the file is shorter).
inline constexpr size_t kDetectBytes = 64 * 1024;

// Decides from the first bytes of a file (`head`) whether it is an SQL dump and which program
// wrote it: sqlite3 .dump (PRAGMA foreign_keys / BEGIN TRANSACTION, double-quoted identifiers)
// or mysqldump / mariadb-dump (their header comment, /*!40101 or /*M!999999 conditional
// comments, backticks, ENGINE=, LOCK TABLES). Throws Error(kInvalidArgument) naming `path` and
// the line when the file is empty or does not start with an SQL statement.
DumpKind DetectDumpKind(std::string_view head, const std::string& path);

}  // namespace dump

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_SOURCE_H_
