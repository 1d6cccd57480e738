// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// How the dump reader reports input it cannot read: Error(kInvalidArgument)
// "<path>:<line>: <problem>; <fix>", the line counted in the uncompressed input.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_ERROR_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_ERROR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace steadyflake::mergecheck::dump {

// The fix an error suggests for input that is no complete dump.
inline constexpr std::string_view kFixUnreadable =
    "pass a complete dump written by sqlite3 .dump, mysqldump or mariadb-dump";

// The fix an error suggests for a dump that changed while it was read (rows read again by
// position, rows_at.h).
inline constexpr std::string_view kFixChanged =
    "run merge-check again on files nothing writes to while it reads them";

// Throws Error(kInvalidArgument) "<path>:<line>: <problem>; <fix>", with the control and
// non-ASCII bytes of `problem` (which may quote the dump) written as \xNN, so the message is one
// line of printable text whatever the dump holds.
[[noreturn]] void FailAt(const std::string& path, uint64_t line, std::string_view problem,
                         std::string_view fix);

// The number of line ends ('\n') in `text`.
size_t CountLines(std::string_view text);

// The line (from 1) of byte `offset` of the uncompressed input at `path`, counted by reading
// the input again from its start: for errors only.
uint64_t LineOfOffset(const std::string& path, bool gzip, uint64_t offset);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_ERROR_H_
