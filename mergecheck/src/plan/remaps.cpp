// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// PlanRemaps (remaps.h): per integer key, fresh IDs when B's values are steadyflake IDs in a
// 64-bit column, else an offset that moves B's values above the largest of A and B, if the
// column's type holds the result; then the key's references follow it, but an ambiguous one
// (its values lie among several remapped keys') is unresolved, once per column.

#include "plan/remaps.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// The largest value a MySQL integer column of `declared` type holds (SQLite's hold int64).
int64_t IntegerTypeMax(const std::string& declared, bool mysql) {
  if (!mysql) return std::numeric_limits<int64_t>::max();
  const std::string t = AsciiLower(declared);
  const bool is_unsigned = t.find("unsigned") != std::string::npos;
  int bits = 32;
  if (t.find("bigint") != std::string::npos) return std::numeric_limits<int64_t>::max();
  if (t.find("mediumint") != std::string::npos) {
    bits = 24;
  } else if (t.find("smallint") != std::string::npos) {
    bits = 16;
  } else if (t.find("tinyint") != std::string::npos) {
    bits = 8;
  }
  return is_unsigned ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
}

void FreshIds(const KeyReport& k, const std::vector<int64_t>& olds, const PlanOptions& options,
              Plan::Remap& remap) {
  if (!options.next_id) {
    throw Error(Error::Code::kInvalidArgument,
                KeyName(k) + " needs fresh IDs, and no generator was given");
  }
  remap.method = "fresh IDs";
  remap.reason = "steadyflake IDs (" + GroupThousands(k.ids_b) + " of " +
                 GroupThousands(k.ids_b + k.legacy_b) + " values of B): fresh IDs of server " +
                 std::to_string(options.server_id);
  for (const int64_t old : olds) remap.values.emplace_back(old, options.next_id());
}

// False, with an Unresolved in `plan`, when the offset would take a value past `type_max`.
bool Offset(const KeyReport& k, const std::vector<int64_t>& olds, const KeyFacts& f,
            int64_t type_max, bool ids, Plan::Remap& remap, Plan& plan) {
  const int64_t top = std::max(f.max_a, f.max_b);
  int64_t offset = 0;
  int64_t last = 0;
  const bool overflow = __builtin_sub_overflow(top, olds.front(), &offset) ||
                        __builtin_add_overflow(offset, 1, &offset) ||
                        __builtin_add_overflow(olds.back(), offset, &last);
  const std::string type = f.type_b.empty() ? std::string("its type") : f.type_b;
  remap.method = "offset";
  remap.reason =
      std::string(ids ? "IDs in a narrow column (" + type + ")" : "legacy values in " + type) +
      ": moved above the largest value of A and B, " + std::to_string(top);
  if (overflow || last > type_max) {
    plan.unresolved.push_back({k.table,
                               k.columns,
                               {},
                               "an offset above the largest value (" + std::to_string(top) +
                                   ") takes " + std::to_string(olds.size()) + " values past " +
                                   type + "'s largest, " + std::to_string(type_max) +
                                   "; widen the column in both shards first"});
    return false;
  }
  remap.offset = offset;
  for (const int64_t old : olds) remap.values.emplace_back(old, old + remap.offset);
  return true;
}

// What a proposal was found by: "its name", "inference (214 of 260 values)", ...
std::string Evidence(const ReferenceReport& r) {
  if (r.found == "name") return GroupThousands(r.rows) + " rows hold a conflicting value";
  return GroupThousands(r.distinct) + " of " + GroupThousands(r.key_values) + " values, " +
         GroupThousands(r.rows) + " rows";
}

// Lists the proposal `r` onto `key` in Plan::proposals, once: a column inferred onto several
// keys with all of them as candidates and no `to`.
void AddProposal(const ReferenceReport& r, const std::string& key, Plan& plan) {
  Plan::Proposal proposal{r.table, r.column, r.found, key, {}, Evidence(r)};
  if (!r.also.empty()) {
    proposal.to.clear();
    proposal.also.push_back(key);
    proposal.also.insert(proposal.also.end(), r.also.begin(), r.also.end());
    std::sort(proposal.also.begin(), proposal.also.end());
  }
  for (const Plan::Proposal& p : plan.proposals) {
    if (p.table == proposal.table && p.column == proposal.column && p.to == proposal.to) return;
  }
  plan.proposals.push_back(std::move(proposal));
}

// A key with unconfirmed references onto it is not remapped: each proposal is unresolved,
// naming how it was found and the --refs line that confirms it, and so is each of the key's
// differing values, which stay where they are with the rows that may refer to them.
void HoldKey(const KeyReport& k, const KeyWork& w, Plan& plan) {
  const std::string key = k.table + "." + k.columns[0];
  if (!w.foreign_name.empty()) {
    plan.proposals.push_back(
        {k.table,
         k.columns[0],
         "global",
         "",
         {},
         "named for a table this shard does not have (" + w.foreign_name + ")"});
    plan.unresolved.push_back(
        {k.table,
         k.columns,
         {},
         "named for a table this shard does not have (" + w.foreign_name +
             "): it may hold ids of another database, such as a login database every realm "
             "shares, which a remap would point at accounts that exist nowhere; if so, mark it "
             "global in the profile (global = [\"" +
             key +
             "\"]); if it refers to a key of this "
             "shard, say which with a --refs line"});
  }
  for (const ReferenceReport* r : w.proposals) {
    AddProposal(*r, key, plan);
    std::string how = r->found == "name" ? std::string("its name")
                      : r->found == "values inside"
                          ? "its values: a key of its own, all " + GroupThousands(r->distinct) +
                                " of its values in B among the key's " +
                                GroupThousands(r->key_values)
                          : "inference (" + GroupThousands(r->distinct) + " of " +
                                GroupThousands(r->key_values) + " values)";
    std::string fix = "if it refers to " + key + ", confirm it with a --refs line '" + r->table +
                      "." + r->column + " -> " + key + "'";
    if (!r->also.empty()) {
      how += ", and it fits ";
      for (std::size_t i = 0; i < r->also.size(); ++i) how += (i ? ", " : "") + r->also[i];
      how += " as well";
      fix = "name the key it refers to with a --refs line '" + r->table + "." + r->column +
            " -> TABLE.COLUMN'";
    }
    plan.unresolved.push_back(
        {r->table,
         {r->column},
         {},
         "may refer to " + key + " (found by " + how + "; " + GroupThousands(r->rows) +
             " rows hold a conflicting value): " + "a proposal, never rewritten unconfirmed; " +
             fix + " and plan again"});
  }
  const std::string reason =
      !w.foreign_name.empty() && w.proposals.empty()
          ? "not remapped: its column may hold ids of another database (listed above)"
          : "not remapped while " + GroupThousands(w.proposals.size()) +
                (w.proposals.size() == 1 ? " unconfirmed reference" : " unconfirmed references") +
                " may point at it (listed above): a new value would leave those rows on A's "
                "entity of this value";
  for (const std::size_t c : w.differing) {
    plan.unresolved.push_back({k.table, k.columns, k.conflicts[c], reason});
  }
}

}  // namespace

void PlanRemaps(const Report& report, const Work& work, const PlanFacts& facts, bool mysql,
                const PlanOptions& options, Remapped& remapped, Plan& plan) {
  for (const auto& [i, w] : work) {
    if (w.kind != KeyWork::kRemap || w.differing.empty()) continue;
    const KeyReport& k = report.keys[i];
    if (w.held()) {
      HoldKey(k, w, plan);
      continue;
    }
    Plan::Remap remap;
    remap.table = k.table;
    remap.column = k.columns[0];
    for (const std::size_t c : w.differing) {
      if (!Int64Of(k.conflicts[c][0])) {
        plan.unresolved.push_back(
            {k.table, k.columns, k.conflicts[c], "not an integer a remap can give"});
      }
    }
    const std::vector<int64_t>& olds = remapped[i];
    if (olds.empty()) continue;
    const KeyFacts& f = facts.keys.at(i);
    const int64_t type_max =
        std::min(IntegerTypeMax(f.type_a, mysql), IntegerTypeMax(f.type_b, mysql));
    const bool ids = k.ids_b > 0 && k.ids_b >= k.legacy_b;
    if (type_max == std::numeric_limits<int64_t>::max() && ids) {
      FreshIds(k, olds, options, remap);
    } else if (!Offset(k, olds, f, type_max, ids, remap, plan)) {
      remapped.erase(i);
      continue;
    }
    // Every reference is confirmed here: an unconfirmed one holds the key (HoldKey).
    for (const ReferenceReport& r : k.references) remap.references.push_back(r);
    plan.remaps.push_back(std::move(remap));
  }
}

}  // namespace steadyflake::mergecheck
