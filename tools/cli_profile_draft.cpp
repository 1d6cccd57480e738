// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// DraftProfile (cli_profile.h): the profile a plan would need, from what it found. What is
// confirmed (the options, --refs and profile lines) is written as it is; what only the operator
// can confirm is a commented-out line with its evidence, so nothing is applied on a guess
// until someone who knows the game uncomments it.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "cli_profile.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::cli {

namespace {

std::string Toml(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Column(const std::string& table, const std::string& column) {
  return Toml(table + "." + column);
}

void Options(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options,
             std::string& out) {
  out += "server_id = " + std::to_string(plan.server_id) + "\n";
  out += "rename = " + Toml(options.rename) + "\n";
  const auto list = [&](const char* name, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += std::string(name) + " = [";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + Toml(items[i]);
    out += "]\n";
  };
  std::vector<std::string> ids, not_ids;
  for (const auto& c : options.check.id_columns) ids.push_back(c.table + ":" + c.column);
  for (const auto& c : options.check.not_id_columns) not_ids.push_back(c.table + ":" + c.column);
  list("id_columns", ids);
  list("not_id_columns", not_ids);
  list("tables", options.check.tables);
}

// global = [...]: the profile's own, then each key the plan takes for global, commented out.
void Global(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options,
            std::string& out) {
  out +=
      "\n# Columns whose values mean the same thing in every shard (account ids of a login\n"
      "# database all realms share): never remapped, never a reference onto another key.\n"
      "global = [\n";
  for (const auto& g : options.global) out += "  " + Column(g.table, g.column) + ",\n";
  for (const mergecheck::Plan::Proposal& p : plan.proposals) {
    if (p.found != "global") continue;
    out += "  # " + Column(p.table, p.column) + ",  # " + p.evidence + "\n";
  }
  out += "]\n";
  // own_keys = [...]: the profile's own, then each key the plan took for one inside another.
  out +=
      "\n# Keys of their own whose values happen to lie among another key's (small legacy\n"
      "# guids): uncomment each that is not keyed by the other key's id (a 1:1 extension).\n"
      "own_keys = [\n";
  for (const auto& k : options.own_keys) out += "  " + Column(k.table, k.column) + ",\n";
  std::set<std::string> written;
  for (const mergecheck::Plan::Proposal& p : plan.proposals) {
    if (p.found != "values inside" || !written.insert(p.table + "." + p.column).second) continue;
    out += "  # " + Column(p.table, p.column) + ",  # its values lie among " + p.to + "'s\n";
  }
  out += "]\n";
}

void References(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options,
                std::string& out) {
  out +=
      "\n# Columns that refer to a key, confirmed (a declared FOREIGN KEY needs no line). A "
      "column\n"
      "# that refers to the key only in some rows (a sender that is a character or not, by a\n"
      "# type column): \"mail.sender\" = { to = \"characters.guid\", where = \"messageType = 0\" "
      "}.\n"
      "[references]\n";
  std::set<std::string> written;
  for (const auto& r : options.check.references) {
    if (!written.insert(r.table + "." + r.column).second) continue;
    out += Column(r.table, r.column) + " = ";
    if (r.where_column.empty()) {
      out += Column(r.ref_table, r.ref_column) + "\n";
    } else {
      out += "{ to = " + Column(r.ref_table, r.ref_column) +
             ", where = " + Toml(r.where_column + " = " + std::to_string(r.where_value)) + " }\n";
    }
  }
  for (const mergecheck::Plan::Proposal& p : plan.proposals) {
    if (p.found == "global") continue;
    if (!p.to.empty()) {
      out += "# " + Column(p.table, p.column) + " = " + Toml(p.to) + "  # " + p.found + ": " +
             p.evidence + "\n";
      continue;
    }
    out += "# " + Column(p.table, p.column) + " = \"?\"  # inferred onto several keys (" +
           p.evidence + "); name the one it refers to:";
    for (const std::string& key : p.also) out += " " + key;
    out += "\n";
  }
}

// [on_conflict]: the profile's own, and each table with unresolved values commented out.
void OnConflict(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options,
                std::string& out) {
  out +=
      "\n# What to do with B's rows whose key overlaps A's and that differ: \"keep_a\" drops\n"
      "# B's row (A's stays), \"keep_b\" replaces A's row by B's, { newest = \"COLUMN\" } keeps\n"
      "# the row with the larger COLUMN (A's on a tie), \"unresolved\" (the default) lists them.\n"
      "# A table without a key: \"dedupe\" drops B's rows identical to one of A's.\n"
      "[on_conflict]\n";
  for (const auto& [table, policy] : options.on_conflict) {
    out += Toml(table) + " = " +
           (policy.starts_with("newest:") ? "{ newest = " + Toml(policy.substr(7)) + " }"
                                          : Toml(policy)) +
           "\n";
  }
  for (const mergecheck::KeylessTable& k : plan.check.keyless) {
    if (k.in_both == 0 || options.on_conflict.count(k.table) != 0) continue;
    out += "# " + Toml(k.table) +
           " = \"dedupe\"  # a table without a key: " + GroupThousands(k.in_both) +
           " rows in both shards, appended twice by a merge\n";
  }
  // Only rows that differ and that nothing else resolves: a value held for a proposal waits for
  // the references, and dropping it would lose an entity of B.
  std::map<std::string, std::size_t> differing;
  for (const mergecheck::Plan::Unresolved& u : plan.unresolved) {
    const bool own = u.reason.starts_with("a global key") || u.reason.starts_with("differs from");
    if (!u.value.empty() && own && options.on_conflict.count(u.table) == 0) ++differing[u.table];
  }
  for (const auto& [table, values] : differing) {
    out += "# " + Toml(table) + " = \"keep_a\"  # " + GroupThousands(values) +
           " differing rows no remap resolves\n";
  }
}

// [names."table.column"]: the profile's own, and each other single-column text key commented
// out: the game may compare it by another rule than its column (a case-insensitive game over a
// BINARY column), and a renamed row may need a flag the game reads.
void Names(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options, std::string& out) {
  std::set<std::string> written;
  for (const auto& n : options.names) {
    written.insert(n.table + "." + mergecheck::AsciiLower(n.column));
    out += "\n[names." + Column(n.table, n.column) + "]\n";
    for (const auto& k : options.check.extra_keys) {
      if (k.table == n.table && k.columns.size() == 1 &&
          mergecheck::EqualsIgnoreCase(k.columns[0], n.column) && !k.collations.empty()) {
        out += "compare_as = " + Toml(k.collations[0]) + "\n";
      }
    }
    if (!n.rename.empty()) out += "rename = " + Toml(n.rename) + "\n";
    if (n.set.empty()) continue;
    out += "set = {";
    for (std::size_t i = 0; i < n.set.size(); ++i) {
      out += (i ? ", " : " ") + n.set[i].first + " = " + Toml(n.set[i].second);
    }
    out += " }\n";
  }
  for (const mergecheck::KeyReport& k : plan.check.keys) {
    if (k.columns.size() != 1 || k.collations.empty() ||
        !written.insert(k.table + "." + mergecheck::AsciiLower(k.columns[0])).second) {
      continue;
    }
    out += "\n# A text key, compared under " + k.collations[0] +
           ". If the game compares it by another rule, or flags a renamed row:\n"
           "# [names." +
           Column(k.table, k.columns[0]) +
           "]\n"
           "# compare_as = \"NOCASE\"\n"
           "# rename = \"{name}.b\"\n"
           "# set = { at_login = \"at_login | 1\" }\n";
  }
}

// What the plan judged without asking: for the record, nothing to edit.
void Notes(const mergecheck::Plan& plan, std::string& out) {
  out += "\n# What the plan decided on its own (for review; nothing to edit here):\n";
  for (const mergecheck::Plan::Remap& r : plan.remaps) {
    out += "#   remap " + r.table + "." + r.column + ": " + r.method + " (" + r.reason + ")\n";
  }
  for (const mergecheck::Plan::Rename& r : plan.renames) {
    out += "#   rename " + r.table + "." + r.column + " under " + r.collation + "\n";
  }
  for (const mergecheck::KeylessTable& k : plan.check.keyless) {
    if (k.in_both == 0) continue;
    out += "#   keyless table " + k.table + ": " + GroupThousands(k.in_both) +
           " rows in both shards, appended twice by a merge\n";
  }
}

}  // namespace

std::string DraftProfile(const mergecheck::Plan& plan, const mergecheck::PlanOptions& options) {
  std::string out =
      "# steadyflake merge profile, drafted by merge-plan (plan " + plan.id + ", " + plan.made_at +
      ").\n"
      "# Uncomment each line that is right for this game (check it against the game's code),\n"
      "# name the key of each \"?\", then plan again with --profile (docs/merging.md,\n"
      "# \"The merge profile\"). Lines left commented out stay unresolved: nothing is applied\n"
      "# on a guess.\n";
  Options(plan, options, out);
  Global(plan, options, out);
  References(plan, options, out);
  OnConflict(plan, options, out);
  Names(plan, options, out);
  Notes(plan, out);
  return out;
}

}  // namespace steadyflake::cli
