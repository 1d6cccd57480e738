// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge plan: what to rewrite in shard B so that it merges into shard A without a
// collision (docs/merging.md "Merge day"). MakePlan checks the two inputs as Check() does,
// with every conflict listed, and decides per overlapping key:
//   - a single-column integer key: B's differing values get new ones. Keys of steadyflake IDs in
//     64-bit columns get fresh IDs (PlanOptions::next_id, a generator under the merged server's
//     id); legacy keys and keys in narrower columns (INT, INT UNSIGNED) get an offset that puts
//     them above the largest value of A and B. Every column of B that refers to the key
//     (KeyReport::references: declared FOREIGN KEYs, --refs, names, inference) is rewritten too;
//   - a single-column text key: B's differing values are renamed by a template, unique against
//     every value of A and B under A's collation and within the column's declared length;
//   - any key whose conflicting value holds a remapped value in a referring column (the
//     composite `player_slot(player_id, slot)`) follows the remap: nothing more to do;
//   - a value whose rows are identical in A and B (a seeded reference row) is dropped from B;
//   - anything else is unresolved, with the reason.
// FormatPlanSql writes the rewrite as one transaction in B's dialect, FormatPlanJson the plan
// for review, FormatPlanText the summary.

#ifndef STEADYFLAKE_MERGECHECK_PLAN_H_
#define STEADYFLAKE_MERGECHECK_PLAN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/fingerprint.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

struct PlanOptions {
  // The check's options (layout, --key, --id-column, --refs as Options::references, --table).
  // Its `limit` is ignored: a plan needs every conflict.
  Options check = {};
  // The merged server's id: fresh IDs are issued under it. It must be held by neither input
  // (MakePlan refuses it otherwise): a live server of A or B would issue the same IDs.
  uint64_t server_id = 0;
  // The template of a rename: `{name}` is B's value (shortened to fit the column, never the
  // rest), `{server}` B's dominant server id. Must contain `{name}`.
  std::string rename = "{name}.s{server}";
  // Issues one fresh ID of `check.layout` under `server_id`, each larger than the last. Called
  // only for keys of steadyflake IDs; may be empty when there are none (MakePlan throws then).
  std::function<int64_t()> next_id = {};
  // The time of the plan, for plan.json and the guard of rewrite-b.sql ("2026-11-23T20:05:00Z");
  // default: now.
  std::string made_at = {};
  // Global columns (the merge profile's `global`): values that mean the same thing in every
  // shard, such as the account ids of a login database all realms share. A global key is never
  // remapped (its differing values are unresolved), and a global column is never a reference
  // onto another key. Each must name a column of B (MakePlan throws otherwise).
  std::vector<Options::Column> global = {};
  // Keys of their own (the merge profile's `own_keys`): single-column keys whose values happen
  // to lie among another key's (small legacy guids: characters 1-300 among items 1-5000), which
  // the plan would otherwise take for a candidate reference (a child keyed by that key's id) and
  // never remap. Each must name a column of B (MakePlan throws otherwise).
  std::vector<Options::Column> own_keys = {};
  // Per table (the merge profile's `on_conflict`): what to do with B's rows whose key overlaps
  // A's and that differ. "keep_a": B's row is dropped, A's stays (what refers to the key then
  // refers to A's row); "keep_b": A's row is replaced by B's (Plan::replaces: the merge deletes
  // A's row before it inserts B's); "newest:COLUMN": the row with the larger value of the
  // integer COLUMN wins, A's on a tie (NULL is older than any value), B's losing rows dropped
  // and A's replaced; "unresolved" (the default, also for a table not listed): listed, exit 4.
  // For a table without a key, "dedupe": B's rows identical (every column) to one of A's are
  // dropped (a merge appends them otherwise). A table B does not have, a policy of another name,
  // a COLUMN B's table lacks, dedupe for a table with a key or the others for one without, are
  // refused (MakePlan throws Error).
  std::map<std::string, std::string> on_conflict = {};
  // Game-level names (the merge profile's `[names]`): for a renamed text key, its own rename
  // template instead of `rename`, and assignments made on each renamed row (`at_login =
  // "at_login | 1"`: the game's "rename at next login" bit). An expression is the row's own
  // integer columns and integer literals joined by `|`, `&`, `+` and `-`, nothing else (MakePlan
  // throws Error otherwise). (Its `compare_as` is a check.extra_keys entry with collations.)
  struct NameRule {
    std::string table{};
    std::string column{};
    std::string rename{};                                    // empty: PlanOptions::rename
    std::vector<std::pair<std::string, std::string>> set{};  // column, expression
  };
  std::vector<NameRule> names = {};
};

struct Plan {
  Report check{};                      // the check the plan was made from (every conflict listed)
  std::string dialect{};               // of rewrite-b.sql: "sqlite" or "mysql" (B's format)
  std::string id{};                    // names this plan in rewrite-b.sql's guard table
  std::string made_at{};               // ISO-8601
  uint64_t server_id = 0;              // PlanOptions::server_id, retired once the plan is applied
  std::optional<uint64_t> b_server{};  // B's dominant server id (the rename's {server})
  // A's and B's as the plan read them, taken before the check: `steadyflake merge` refuses a
  // plan whose inputs changed since.
  InputFingerprint fingerprints[2] = {};

  // New values for B's values of one single-column integer key.
  struct Remap {
    std::string table{};
    std::string column{};
    std::string method{};  // "fresh IDs" or "offset"
    int64_t offset = 0;    // method "offset": new = old + offset
    std::string reason{};  // why this method ("legacy values in INT: above A's and B's largest")
    std::vector<std::pair<int64_t, int64_t>> values{};  // old -> new, ascending by old
    std::vector<ReferenceReport> references{};          // rewritten with the key (not ambiguous)
  };
  // New values for B's values of one single-column text key.
  struct Rename {
    std::string table{};
    std::string column{};
    std::string collation{};  // A's, under which each new value is unique
    int max_length = 0;       // characters; 0: no declared length
    std::vector<std::pair<std::string, std::string>> values{};  // old (B's bytes) -> new
    // Set on each renamed row (PlanOptions::NameRule::set): column, expression.
    std::vector<std::pair<std::string, std::string>> set{};
  };
  // Rows of B dropped: the same row (every column) is in A, or the profile keeps A's row of the
  // table (`reason` says which).
  struct Drop {
    std::string table{};
    std::vector<std::string> columns{};            // the key they were found by
    std::vector<std::vector<ReportValue>> keys{};  // B's key values of the dropped rows
    std::string reason = "the same row (every column) is in A";
    // A keyless table's dedupe: `columns` are all of them and each key a whole row, compared
    // NULL-safe (a NULL column matches NULL).
    bool whole_row = false;
  };
  // Rows of A the merge deletes before it inserts B's (on_conflict keep_b, or newest where B's
  // row is newer): B's row of the same key replaces A's. The plan only lists them; rewrite-b.sql
  // changes nothing of A.
  struct Replace {
    std::string table{};
    std::vector<std::string> columns{};            // the key
    std::vector<std::vector<ReportValue>> keys{};  // A's key values of the replaced rows
    std::string reason{};
  };
  // Conflicts of a key that the remap of another key resolves (a referring column of the key
  // holds a remapped value).
  struct Follow {
    std::string table{};
    std::vector<std::string> columns{};
    uint64_t values = 0;
    std::string via{};  // "player.id"
  };
  struct Unresolved {
    std::string table{};
    std::vector<std::string> columns{};
    std::vector<ReportValue> value{};  // empty: the whole key or column
    std::string reason{};
  };
  // Rows of B the rewrite moves into `steadyflake_unmerged_<table>` (a table of B with the same
  // columns) instead of leaving them to the merge: the rows of each unresolved value and,
  // transitively, the rows that refer or may refer to a row moved aside (confirmed references,
  // proposals, keys inside keys). An unresolved value holds back its own rows, never its whole
  // table: the rest of every table merges, and no row of B is left pointing at A's entity of
  // the same value. One entry: the rows of `table` whose `columns` hold one of `keys` (B's
  // values), and, with a `where_column`, whose where_column = where_value, that no earlier entry
  // of the table moved; `rows` of them.
  struct Unmerged {
    std::string table{};
    std::vector<std::string> columns{};
    std::vector<std::vector<ReportValue>> keys{};
    std::string where_column{};
    int64_t where_value = 0;
    uint64_t rows = 0;
    std::string reason{};
  };
  std::vector<Remap> remaps{};
  std::vector<Rename> renames{};
  std::vector<Drop> drops{};
  std::vector<Replace> replaces{};
  std::vector<Follow> follows{};
  std::vector<Unresolved> unresolved{};
  std::vector<Unmerged> unmerged{};
  // What only the operator can confirm, for a draft profile: a reference the plan would
  // rewrite once confirmed (`found` "name", "inferred" or "values inside"; `to` the key, or
  // empty with the candidates in `also` for a column inferred onto several keys), or a key it
  // takes for a global one (`found` "global"). Each column once per key.
  struct Proposal {
    std::string table{};
    std::string column{};
    std::string found{};
    std::string to{};  // "player.id"
    std::vector<std::string> also{};
    std::string evidence{};  // "214 of 260 values, 420 rows"
  };
  std::vector<Proposal> proposals{};
};

// Plans the rewrite of `path_b` (merged into `path_a`); both are only read. Throws
// steadyflake::Error (kInvalidArgument) when the inputs cannot be checked (as Check), when
// `server_id` issues IDs in A or B, when the template has no `{name}` or needs a `{server}` B
// has none of, or when fresh IDs are needed and `next_id` is empty; and what next_id throws.
Plan MakePlan(const std::string& path_a, const std::string& path_b, const PlanOptions& options);

// The rewrite of B, one transaction in Plan::dialect, refusing to run twice: SQL text.
std::string FormatPlanSql(const Plan& plan);
// The plan for review: every remap, rename, drop and follow with its reason and references
// (table, column, how found, rows), and the unresolved items (docs/merging.md).
std::string FormatPlanJson(const Plan& plan);
// The summary for people: counts per key, the references, the unresolved items.
std::string FormatPlanText(const Plan& plan);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_PLAN_H_
