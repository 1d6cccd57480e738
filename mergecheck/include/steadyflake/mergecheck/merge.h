// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge (docs/merging.md "Merge and verify", design §6c): the last step of merge day, done
// and verified. Given A, B and the folder merge-plan wrote (plan.json, rewrite-b.sql, perhaps
// edited by the operator), Merge:
//   1. checks that the plan still fits A and B (the fingerprints in plan.json);
//   2. applies rewrite-b.sql as written to a copy of B (B'), and verifies B' against B and
//      plan.json table by table: every row of B, with the plan's new values put in (remapped keys
//      and every reference rewritten with them, renamed names and what is set on their rows),
//      is a row of B' and B' has no other row, but for the plan's drops; no new value is one of
//      A's; no row of B' refers to a value B lacks and A has (it would join A's entity);
//   3. merges A and B' into a temporary copy of A in dependency order, in one transaction, and
//      verifies it: rows per table, references that resolve, foreign_key_check, integrity_check;
//      only then renames it to `out`.
// A and B are only read; nothing is written at `out` unless every check passes. For a
// MySQL/MariaDB plan (dialect "mysql"), Merge writes merge.sql and verify.sql into the folder
// `out` instead, for a server that holds A and B' as two databases.

#ifndef STEADYFLAKE_MERGECHECK_MERGE_H_
#define STEADYFLAKE_MERGECHECK_MERGE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace steadyflake::mergecheck {

struct MergeOptions {
  std::string plan_dir{};  // holds plan.json and rewrite-b.sql
  std::string out{};       // SQLite: the merged database (must not exist); MySQL: a folder
  // "sqlite" or "mysql"; empty: the plan's. A different one than the plan's is refused.
  std::string dialect{};
  // MySQL: the databases that hold A and B' on the server (default "a" and "b").
  std::string a_db = "a";
  std::string b_db = "b";
  // Mismatches listed when verification fails (MergeReport::mismatches); more are counted.
  std::size_t max_mismatches = 20;
  // What Merge is doing, for progress on a terminal: a stage ("copy", "rewrite", "verify the
  // rewrite", "merge", "verify the merge") and how far it is (units of `total`; 0: unknown).
  struct Progress {
    std::string stage{};
    uint64_t done = 0;
    uint64_t total = 0;
  };
  std::function<void(const Progress&)> progress{};
};

struct MergeReport {
  std::string plan{};     // plan.json's id
  std::string dialect{};  // "sqlite" or "mysql"
  std::string out{};      // what was written (the database, or the folder of merge.sql)
  struct Table {
    std::string name{};
    uint64_t rows_a = 0;
    uint64_t rows_b = 0;        // rows of B before the rewrite
    uint64_t rows_b_after = 0;  // rows of B' (the rewrite dropped or held back the rest)
    uint64_t dropped = 0;       // the plan's drops of this table
    uint64_t held = 0;          // rows of B held back (steadyflake_unmerged_<table>)
    uint64_t replaced = 0;      // rows of A the merge deleted first (on_conflict keep_b, newest)
    uint64_t merged = 0;        // rows in the output: rows_a - replaced + rows_b_after
  };
  std::vector<Table> tables{};
  // Per remapped or renamed key: its values (entities) checked, and the rows of its references
  // (and of the key itself) that carried one of them, checked to carry the new value.
  struct Key {
    std::string change{};  // "remapped" or "renamed"
    std::string table{};
    std::string column{};
    uint64_t entities = 0;
    uint64_t references = 0;  // referring columns
    uint64_t rows = 0;        // rows checked
  };
  std::vector<Key> keys{};
  bool verified = false;
  // Why verification failed, one line each ("item: B's row (id=5, owner_id=17 -> 317) is not
  // in B'"), the first MergeOptions::max_mismatches; `more` counts the rest.
  std::vector<std::string> mismatches{};
  uint64_t more = 0;
  std::vector<std::string> notes{};  // what the operator should know (an mtime changed, ...)
};

// Merges as above. Returns the report (verified, or not with the mismatches: nothing written).
// Throws steadyflake::Error(kInvalidArgument) when it cannot run: a missing or unreadable plan,
// inputs that no longer fit it (naming what changed), `out` existing, a rewrite that SQLite
// refuses to run (with its words).
MergeReport Merge(const std::string& path_a, const std::string& path_b,
                  const MergeOptions& options);

std::string FormatMergeText(const MergeReport& report);
std::string FormatMergeJson(const MergeReport& report);

// Removes the files a killed run left beside `path`: "<path>.tmp-PID" and "<path>.tmp-PID-*"
// whose process PID no longer exists (Merge's working files, merge-plan's plan files). Returns
// a note for each ("removed F, left by a run that died").
std::vector<std::string> RemoveFilesOfDeadRuns(const std::string& path);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_MERGE_H_
