// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The resume rule, in one place (docs/merging.md section 5, README "Resuming after a restore or
// a merge"): a server that starts without its state folder resumes after the largest ID that
// carries its own server id, never after plain max(id). After a merge the same tables hold
// other servers' IDs, and one of those from a clock that ran ahead would push every new ID into
// the future (past max_startup_lead, the generator refuses to start).
//
// `steadyflake resume-point DB --server-id N` prints it; a game server passes it as
// Generator::Options::resume_after.

#ifndef STEADYFLAKE_MERGECHECK_RESUME_POINT_H_
#define STEADYFLAKE_MERGECHECK_RESUME_POINT_H_

#include <cstdint>
#include <string>

#include "steadyflake/layout.h"

namespace steadyflake::mergecheck {

struct ResumePoint {
  Id id = 0;            // the largest ID of the server id; 0: the database holds none
  std::string table{};  // where it is (empty when id is 0)
  std::string column{};
  uint64_t columns_read = 0;  // the integer primary-key columns looked at
};

// Reads the SQLite database at `path` read-only (as merge-check does: never written, a WAL
// database through its log) and returns the largest value carrying `server_id` in `layout`'s
// server-id field, over the single-column integer PRIMARY KEY of every table (a rowid table's
// INTEGER PRIMARY KEY, or a BIGINT/INT one with its index): each column is one index seek, not
// a scan. Throws Error naming the file and the fix when it cannot be read, and
// Error(kInvalidArgument) when `server_id` is above the layout's largest.
ResumePoint FindResumePoint(const std::string& path, const Layout& layout, uint64_t server_id);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_RESUME_POINT_H_
