// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The fingerprint of a merge input: what merge-plan saw of A and B, kept in plan.json, so that
// `steadyflake merge` can tell whether the plan still fits the files it is given
// (docs/merging.md "Does the plan still fit?").
//
// Size and modification time are what a file system says cheaply; the content hash is the
// judge: XXH3-128 over the file's bytes (and, for a SQLite file in WAL mode, its -wal log), so a
// copy made with `cp` still fits its plan and any change of a row does not. For SQLite files
// also the schema (a hash of sqlite_schema's text) and each table's row count, so the message
// can name what changed.

#ifndef STEADYFLAKE_MERGECHECK_FINGERPRINT_H_
#define STEADYFLAKE_MERGECHECK_FINGERPRINT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace steadyflake::mergecheck {

struct InputFingerprint {
  uint64_t size = 0;         // bytes of the file (a gzip dump: compressed)
  std::string mtime = {};    // ISO-8601 UTC with nanoseconds, "2026-11-25T23:06:31.123456789Z"
  std::string content = {};  // XXH3-128 of the bytes (and the -wal log's), 32 hex digits
  std::string schema = {};   // SQLite files: XXH3-128 of the schema's SQL, else empty
  std::map<std::string, uint64_t> rows = {};  // SQLite files: rows per table, else empty
};

// The fingerprint of the input at `path`, read-only. Throws Error(kInvalidArgument) naming the
// path when it cannot be read.
InputFingerprint FingerprintInput(const std::string& path);

// Empty when `now` is the input `planned` describes; else what changed, one phrase naming it
// ("its content (size 4,096 -> 8,192 bytes)", "table player: 300 rows at the plan, 301 now").
// A different mtime alone is no change (a copy): the content decides.
std::string FingerprintChange(const InputFingerprint& planned, const InputFingerprint& now);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_FINGERPRINT_H_
