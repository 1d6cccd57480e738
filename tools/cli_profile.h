// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge profile (`merge-plan --profile FILE`, docs/merging.md "The merge profile"): one TOML
// file per game schema, kept in the game's repository, saying what the schema does not:
// confirmed references, global columns, and the options the command line takes, so one file
// replaces a long command line. `--draft-profile FILE` writes one from what a plan found.

#ifndef STEADYFLAKE_TOOLS_CLI_PROFILE_H_
#define STEADYFLAKE_TOOLS_CLI_PROFILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::cli {

struct Profile {
  std::string path;
  std::optional<int64_t> server_id;
  std::optional<std::string> rename;
  std::vector<std::string> keys;                           // TABLE:COL[,COL], as --key
  std::vector<std::string> id_columns;                     // TABLE:COL, as --id-column
  std::vector<std::string> not_id_columns;                 // TABLE:COL, as --not-id-column
  std::vector<std::string> tables;                         // as --table
  std::vector<mergecheck::Options::Reference> references;  // [references]: confirmed
  std::vector<mergecheck::Options::Column> global;         // global = ["table.column"]
  std::vector<mergecheck::Options::Column> own_keys;       // own_keys = ["table.column"]
  // [on_conflict] table = "keep_a", "keep_b", "unresolved", "dedupe", or { newest = "col" }
  // (as PlanOptions::on_conflict's "newest:col").
  std::map<std::string, std::string> on_conflict;
  // [names."table.column"]: compare_as (a collation), rename (a template), set (assignments).
  struct Name {
    mergecheck::PlanOptions::NameRule rule;
    std::string compare_as;
  };
  std::vector<Name> names;
};

// Reads and validates the profile at `path`. Throws CliError naming the file, the line and the
// fix for a file that cannot be read, is not TOML, has a key the profile does not take, or a
// value of the wrong form. (Whether its tables and columns exist is checked against B by the
// plan, which fails the same way for a --refs line.)
Profile ReadProfile(const std::string& path);

// A draft profile (TOML) for `plan`: its confirmed references as lines (a conditional one as
// { to = ..., where = ... }), every proposal and ambiguous column as a commented-out line with
// its evidence, the held keys and keys named for a table elsewhere as commented-out global
// lines, the keys taken for one inside another as commented-out own_keys, the policies (and a
// commented-out keep_a or dedupe where one may fit), the names rules (and a commented-out block
// per text key), and the options the plan ran with. The operator uncomments what is right and
// plans again (docs/merging.md).
std::string DraftProfile(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options);

}  // namespace steadyflake::cli

#endif  // STEADYFLAKE_TOOLS_CLI_PROFILE_H_
