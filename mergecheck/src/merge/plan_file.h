// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// PlanFile: what `steadyflake merge` reads of a plan folder. plan.json says what the rewrite
// must do (the verification's reference); rewrite-b.sql is what the operator reviewed and runs.
// The merge never trusts one for the other: it runs the SQL and checks its effect against the
// JSON.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_PLAN_FILE_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_PLAN_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/fingerprint.h"

namespace steadyflake::mergecheck::merge {

struct PlanFile {
  std::string dir{};
  std::string id{};
  std::string dialect{};  // "sqlite" or "mysql"
  std::string paths[2];   // as merge-plan was given them
  std::string formats[2];
  std::optional<InputFingerprint> fingerprints[2];  // absent in plans older than `merge`
  std::string rewrite_sql{};                        // rewrite-b.sql as written

  struct Column {
    std::string table{};
    std::string column{};
    // A conditional reference (the profile's `where = "type = 0"`): only rows whose integer
    // column `where_column` holds `where_value`.
    std::string where_column{};
    int64_t where_value = 0;
  };
  struct Remap {
    Column key{};
    std::unordered_map<int64_t, int64_t> values{};  // old -> new
    std::vector<Column> references{};
  };
  struct Rename {
    Column key{};
    std::string collation{};
    std::unordered_map<std::string, std::string> values{};   // old bytes -> new
    std::vector<std::pair<std::string, std::string>> set{};  // column, expression
  };
  // Rows by key (drops; rows held back): each key is the plan form of its values (PlanForm).
  struct Rows {
    std::string table{};
    std::vector<std::string> columns{};
    std::unordered_set<std::string> keys{};  // the values joined by '\x1f'
    std::string reason{};
    // Rows held back by a conditional reference: only rows whose integer column holds the value.
    std::string where_column{};
    int64_t where_value = 0;
    uint64_t rows = 0;  // as plan.json counts them
  };
  std::vector<Remap> remaps{};
  std::vector<Rename> renames{};
  std::vector<Rows> drops{};
  // Rows of B the rewrite moves into steadyflake_unmerged_<table> (before any other change), and
  // rows of A the merge deletes before it inserts B''s (on_conflict keep_b, newest).
  std::vector<Rows> unmerged{};
  std::vector<Rows> replaces{};
  uint64_t unresolved = 0;
};

// Reads DIR/plan.json and DIR/rewrite-b.sql. Throws Error(kInvalidArgument) naming the file and
// what is wrong with it (missing, not a plan, a field of the wrong type).
PlanFile ReadPlanFile(const std::string& dir);

// The key `values` as PlanFile::Rows::keys holds them.
std::string RowKey(const std::vector<std::string>& values);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_PLAN_FILE_H_
