// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal types and functions that may change between releases.
//
// What the phases of MakePlan (plan.cpp) hand each other: the facts the check's collections
// give beyond the report, each overlapping key's conflicts sorted by what the plan does with
// them, and the values each remapped key gives up.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_PLAN_WORK_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_PLAN_WORK_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/key_set.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {

// What the plan needs of one single-column key beyond its KeyReport.
struct KeyFacts {
  int64_t max_a = std::numeric_limits<int64_t>::min();  // largest integer value in A
  int64_t max_b = std::numeric_limits<int64_t>::min();
  std::string type_a;  // the column's declared type in A
  std::string type_b;
};

// A single-column FOREIGN KEY of B: the table and column as declared, the referenced ones
// lowercase; an empty ref_column is the referenced table's primary key.
struct ForeignKeyRef {
  std::string table;
  std::string column;
  std::string ref_table;
  std::string ref_column;
};

// What the check's collections say beyond the report (CollectPlanFacts, plan.cpp).
struct PlanFacts {
  std::map<std::size_t, KeyFacts> keys;    // by index into Report::keys
  std::map<uint64_t, uint64_t> b_servers;  // B's server ids by count of IDs
  std::vector<ForeignKeyRef> b_foreign_keys;
  // Per single-column integer key with values in both inputs: the other such keys ("table.
  // column") whose values in B hold all of its values in B, at least 100 of them, so it is no
  // chance: it may be a child keyed by that key's id, or a 1:1 extension of its table.
  std::map<std::size_t, std::vector<std::string>> inside;
  // The same, seen from the other key: per key, a proposal (found "values inside") for each
  // key inside it. While one is unconfirmed the key is held (KeyWork::proposals).
  std::map<std::size_t, std::vector<ReferenceReport>> children;
  // B's table names, lowercase and without underscores ("arenateam").
  std::vector<std::string> b_tables;
  // B's tables with a single-column PRIMARY KEY: lowercase table -> lowercase column (what a
  // FOREIGN KEY naming no column refers to).
  std::map<std::string, std::string> b_primary;
};

// The conflicts of one overlapping key, by what the plan does with them.
struct KeyWork {
  enum Kind { kRemap, kRename, kOther };
  Kind kind = kOther;  // a single-column integer key that refers to none, a text key, the rest
  std::vector<std::size_t> differing;  // indexes into KeyReport::conflicts
  std::vector<std::size_t> identical;  // rows identical in A and B: dropped from B
  // kRemap: the unconfirmed references onto the key (proposals, ambiguous columns). While
  // there is one, the key is held: not remapped, its differing values unresolved, so nothing
  // is left pointing at A's entity of the same value.
  std::vector<const ReferenceReport*> proposals = {};
  // kOther: the keys this one's values lie among (PlanFacts::inside), when no confirmed
  // reference says which it follows: a candidate reference, never remapped on its own.
  std::vector<std::string> inside = {};
  // kOther: a global key (PlanOptions::global), never remapped.
  bool global = false;
  // kRemap: the table the key's column is named for, which B does not have (`accountId` of
  // `account_data`, and no `account` table): it may hold ids of another database, such as a
  // login database every realm shares. Held until the profile says it is global or --refs
  // says what it refers to.
  std::string foreign_name = {};
  bool held() const { return !proposals.empty() || !foreign_name.empty(); }
};
using Work = std::map<std::size_t, KeyWork>;  // by index into Report::keys

// True for a reference the plan may rewrite: a declared FOREIGN KEY or an operator's --refs
// line. One found by name or inferred is a proposal until the operator confirms it.
bool Confirmed(const ReferenceReport& r);

// True for a global column of the profile (PlanOptions::global): never remapped, never a
// reference onto another key.
bool IsGlobal(const PlanOptions& options, const std::string& table, const std::string& column);

// The keys (indexes into Report::keys) a column (table, column) refers to.
using Refers = std::function<std::vector<std::size_t>(const std::string&, const std::string&)>;
// The old values of each remapped key, ascending.
using Remapped = std::map<std::size_t, std::vector<int64_t>>;

// `v` as an int64, or nullopt (not an integer, or above INT64_MAX).
std::optional<int64_t> Int64Of(const ReportValue& v);

// A value as text that tells values apart, for sets and maps of values: the type, the digits or
// bytes, then a NUL (so a row's values concatenate unambiguously).
std::string EncodeValue(const ReportValue& v);
// A value read from a source (after its column's affinity) as the report shows it.
ReportValue ReportValueOf(const Value& v);

// "table (column, ...)", for messages.
std::string KeyName(const KeyReport& k);

// The old values of each remapped key of `work`: integers a remap can give. With `held`, also
// those of the held keys (whose rows a drop must not take either).
Remapped RemappedValues(const Report& report, const Work& work, bool held = false);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_PLAN_WORK_H_
