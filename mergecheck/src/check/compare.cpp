// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Comparison. Tables are matched by name (as the database spells it) and keys by their columns'
// names, lowercase; anything matched on one side only is drift, reported and otherwise ignored.
// For a matched key the two sorted, deduplicated key sets are intersected by one linear merge
// per kind (integers, pairs, hashes), so the cost is that of reading the sets once and the
// memory is that of the overlap. Integers and pairs in both are kept as they are;
// hashes in both become targets of the re-read of input A (reread.cpp), the only way to name
// the values behind them, and ListConflicts then merges both kinds into the report's sorted
// list. The report is built in a fixed order (tables by name, primary keys first, drift sorted)
// so the same two inputs give the same report whatever order they define their tables in.

#include "check/compare.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "check/key_set.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// `value` as the report shows it.
ReportValue ToReportValue(const OwnedValue& value) {
  ReportValue r;
  switch (value.tag) {
    case Value::Tag::kNull:
      r.type = ReportValue::Type::kNull;
      break;
    case Value::Tag::kInteger:
      r.type = ReportValue::Type::kInteger;
      r.text = std::to_string(value.integer);
      break;
    case Value::Tag::kBigInteger:
      r.type = ReportValue::Type::kInteger;
      r.text = value.bytes;
      break;
    case Value::Tag::kReal: {
      char buffer[40];
      const auto res = std::to_chars(buffer, buffer + sizeof buffer, value.real);
      r.type = ReportValue::Type::kReal;
      r.text.assign(buffer, res.ptr);
      break;
    }
    case Value::Tag::kText:
      r.type = ReportValue::Type::kText;
      r.text = value.bytes;
      break;
    case Value::Tag::kBlob:
      r.type = ReportValue::Type::kBlob;
      r.text = value.bytes;
      break;
  }
  return r;
}

void Union(std::vector<uint64_t>& into, const std::vector<uint64_t>& more) {
  std::vector<uint64_t> merged;
  std::set_union(into.begin(), into.end(), more.begin(), more.end(), std::back_inserter(merged));
  into = std::move(merged);
}

// Throws unless `a` or `b` has the table `name` that `option` (--table, --key) names.
void RequireTable(const Collector& a, const Collector& b, const std::string& option,
                  const std::string& name) {
  if (a.Find(name) != nullptr || b.Find(name) != nullptr) return;
  throw Error(Error::Code::kInvalidArgument, option + " " + name + ": neither input has a table " +
                                                 name + "; check the name (it is case-sensitive)");
}

// True when `columns` names column `lower` (lowercase) of `table`.
bool Names(const std::vector<Options::Column>& columns, const std::string& table,
           const std::string& lower) {
  return std::any_of(columns.begin(), columns.end(), [&](const Options::Column& c) {
    return c.table == table && AsciiLower(c.column) == lower;
  });
}

// Throws unless each --id-column / --not-id-column names an integer single-column key of a
// table in `a` or `b`, and none names a column the other names too.
void RequireIdColumns(const Collector& a, const Collector& b, const Options& options) {
  const auto check = [&](const char* option, const std::vector<Options::Column>& list) {
    for (const Options::Column& c : list) {
      const std::string what = std::string(option) + " " + c.table + ":" + c.column;
      RequireTable(a, b, option, c.table);
      bool found = false;
      for (const Collector* input : {&a, &b}) {
        const TableState* t = input->Find(c.table);
        if (t == nullptr) continue;
        for (const KeyState& k : t->keys) {
          found = found || (k.decoded && k.lower[0] == AsciiLower(c.column));
        }
      }
      if (!found) {
        throw Error(Error::Code::kInvalidArgument,
                    what + ": " + c.table + " has no integer key of that one column; name a " +
                        "column that holds IDs (add --key " + c.table + ":" + c.column +
                        " if it has no key of its own)");
      }
    }
  };
  check("--id-column", options.id_columns);
  check("--not-id-column", options.not_id_columns);
  for (const Options::Column& c : options.id_columns) {
    if (Names(options.not_id_columns, c.table, AsciiLower(c.column))) {
      throw Error(Error::Code::kInvalidArgument, "--id-column and --not-id-column both name " +
                                                     c.table + ":" + c.column +
                                                     "; name it in one of them");
    }
  }
}

// Decides whether the decoded key of `kr` gives server ids (KeyReport::id_use) and, when it
// does, adds them to the report's.
void UseIds(const KeyState& ka, const KeyState& kb, const Options& options, KeyReport& kr,
            Report& report) {
  const std::string& lower = ka.lower[0];
  const uint64_t legacy = kr.legacy_a + kr.legacy_b;
  const uint64_t values = legacy + kr.ids_a + kr.ids_b;
  if (Names(options.not_id_columns, kr.table, lower)) {
    kr.id_use = KeyReport::IdUse::kSkipped;
    kr.id_reason = "--not-id-column";
  } else if (Names(options.id_columns, kr.table, lower)) {
    kr.id_use = KeyReport::IdUse::kAnalysed;
    kr.id_reason = "--id-column";
  } else if (kr.kind != KeyReport::Kind::kPrimary) {
    kr.id_use = KeyReport::IdUse::kSkipped;
    kr.id_reason = "not a primary key";
  } else if (legacy > values - legacy) {
    // Mostly not IDs: auto-increment guids, which decode to the first ticks of server 0-4.
    kr.id_use = KeyReport::IdUse::kLegacy;
    kr.id_reason = GroupThousands(legacy) + " of " + GroupThousands(values) +
                   " values are not IDs of layout " + options.layout.ToString();
  } else {
    kr.id_use = KeyReport::IdUse::kAnalysed;
    kr.id_reason = "primary key";
  }
  if (kr.id_use == KeyReport::IdUse::kAnalysed) {
    Union(report.servers_a, ka.servers);
    Union(report.servers_b, kb.servers);
  }
}

// The names of the tables in `a` or `b`, sorted.
std::vector<std::string> TableNames(const Collector& a, const Collector& b) {
  std::vector<std::string> names;
  for (const TableState& t : a.tables()) names.push_back(t.table.name);
  for (const TableState& t : b.tables()) {
    if (a.Find(t.table.name) == nullptr) names.push_back(t.table.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The keys of `t`, primary first, then by columns.
std::vector<const KeyState*> SortedKeys(const TableState& t) {
  std::vector<const KeyState*> keys;
  for (const KeyState& k : t.keys) keys.push_back(&k);
  std::sort(keys.begin(), keys.end(), [](const KeyState* x, const KeyState* y) {
    const bool px = x->key.kind == Key::Kind::kPrimary;
    const bool py = y->key.kind == Key::Kind::kPrimary;
    if (px != py) return px;
    return x->lower < y->lower;
  });
  return keys;
}

// Adds the KeyReport of key `ka` of input A against the same key `kb` of input B.
void CompareKey(const std::string& table, const KeyState& ka, const KeyState& kb,
                const Options& options, Comparison& comparison, Report& report) {
  const uint64_t limit = options.limit;
  KeyReport kr;
  kr.table = table;
  kr.columns = ka.names;
  // A primary key in either input is reported as one.
  kr.kind = ka.key.kind == Key::Kind::kPrimary || kb.key.kind == Key::Kind::kPrimary
                ? KeyReport::Kind::kPrimary
                : KeyReport::Kind::kUnique;
  const bool merged = ka.merged.has_value() && kb.merged.has_value();  // ordered_merge.h
  kr.rows_a = merged ? ka.merged->rows : ka.set.rows();
  kr.rows_b = merged ? kb.merged->rows : kb.set.rows();
  Comparison::Pending p;
  p.report_index = report.keys.size();
  p.table = table;
  p.key_b = &kb;
  // Every value in both (memory: that of the overlap); ListConflicts lists the first `limit`.
  std::vector<Hash128> common;
  kr.overlap = Intersect(ka.set.integers(), kb.set.integers(), 0, p.integers);
  kr.overlap += Intersect(ka.set.pairs(), kb.set.pairs(), 0, p.pairs);
  kr.overlap += Intersect(ka.set.hashes(), kb.set.hashes(), 0, common);
  std::vector<std::vector<OwnedValue>> hashed;  // merged: A's tuples of `common`
  if (merged) {
    // Each tuple in both as KeyOf keys it: integers and integer pairs as they are, the rest
    // (text, longer tuples) by hash, with A's values known.
    kr.overlap += ka.merged->common.size();
    for (const auto& tuple : ka.merged->common) {
      const KeyId id = IdOfValues(ka, tuple);
      if (id.kind == KeyId::Kind::kInteger) {
        p.integers.push_back(tuple[0].integer);
      } else if (id.kind == KeyId::Kind::kPair) {
        p.pairs.push_back(IntegerPair{tuple[0].integer, tuple[1].integer});
      } else {
        common.push_back(id.bits);
        hashed.push_back(tuple);
      }
    }
    std::sort(p.integers.begin(), p.integers.end());
    std::sort(p.pairs.begin(), p.pairs.end());
    std::sort(common.begin(), common.end());
  }
  if (kr.overlap > 0) {
    RowTarget rows;
    rows.key[0] = &ka;
    rows.key[1] = &kb;
    for (const int64_t v : p.integers) rows.common.push_back(IdOfInteger(v));
    for (const IntegerPair& v : p.pairs) rows.common.push_back(IdOfPair(v));
    for (const Hash128& v : common) rows.common.push_back(IdOfHash(v));
    std::sort(rows.common.begin(), rows.common.end());
    std::vector<RowTarget>& list = comparison.rows[table];
    p.rows = list.size();
    list.push_back(std::move(rows));
  }
  if (!common.empty()) {
    // Few enough to look up: keep every value A gives again, for CompareRows (LendValues).
    const bool all = LookUpPays(common.size(), std::min(kr.rows_a, kr.rows_b));
    std::vector<RereadTarget>& list = comparison.targets[table];
    p.target = list.size();
    list.push_back(RereadTarget{&ka, std::move(common), all || merged ? 0 : limit, {}});
    if (merged) {
      list.back().found = std::move(hashed);  // A's values are known: no reread
      list.back().done = true;
    }
  }
  kr.collations = ka.collations;
  if (kb.collations != ka.collations) kr.collations_b = kb.collations;
  kr.unknown_collations = ka.unknown;  // B's text was compared under A's (Recollations)
  for (const Collation* c : ka.collation)
    kr.approximate = kr.approximate || (c != nullptr && c->approximate());
  kr.decoded = ka.decoded && kb.decoded;
  if (kr.decoded) {
    kr.ids_a = ka.ids;
    kr.ids_b = kb.ids;
    kr.legacy_a = ka.legacy;
    kr.legacy_b = kb.legacy;
    UseIds(ka, kb, options, kr, report);
  }
  comparison.pending.push_back(std::move(p));
  report.keys.push_back(std::move(kr));
}

// Matches the keys of table `name` in both inputs: a KeyReport for each key in both, drift for
// each key in one only.
void CompareTable(const std::string& name, const TableState& ta, const TableState& tb,
                  const Options& options, Comparison& comparison, Report& report) {
  std::vector<bool> matched_b(tb.keys.size(), false);
  for (const KeyState* ka : SortedKeys(ta)) {
    const KeyState* kb = nullptr;
    for (std::size_t j = 0; j < tb.keys.size() && kb == nullptr; ++j) {
      if (!matched_b[j] && tb.keys[j].lower == ka->lower) {
        kb = &tb.keys[j];
        matched_b[j] = true;
      }
    }
    if (kb == nullptr) {
      report.drift.push_back(Drift{name, ka->names, "a"});
      continue;
    }
    CompareKey(name, *ka, *kb, options, comparison, report);
  }
  for (std::size_t j = 0; j < tb.keys.size(); ++j) {
    if (!matched_b[j]) report.drift.push_back(Drift{name, tb.keys[j].names, "b"});
  }
}

// The key of `tb` that CompareTable pairs with `ka`, or nullptr.
const KeyState* Partner(const KeyState& ka, const TableState& tb) {
  for (const KeyState& kb : tb.keys) {
    if (kb.lower == ka.lower) return &kb;
  }
  return nullptr;
}

}  // namespace

std::vector<Collector::Recollation> Recollations(const Collector& a, const Collector& b,
                                                 const Options& options) {
  std::vector<Collector::Recollation> changes;
  for (const TableState& ta : a.tables()) {
    const TableState* tb = b.Find(ta.table.name);
    if (tb == nullptr || !Selected(options, ta.table.name)) continue;
    for (const KeyState& ka : ta.keys) {
      const KeyState* kb = Partner(ka, *tb);
      if (kb != nullptr && kb->collation_names != ka.collation_names) {
        changes.push_back(Collector::Recollation{ta.table.name, ka.lower, ka.collation_names});
      }
    }
  }
  return changes;
}

Comparison Compare(const Collector& a, const Collector& b, const Options& options, Report& report) {
  for (const std::string& name : options.tables) RequireTable(a, b, "--table", name);
  for (const Options::ExtraKey& extra : options.extra_keys) {
    RequireTable(a, b, "--key", extra.table);
  }
  RequireIdColumns(a, b, options);
  Comparison comparison;
  for (const std::string& name : TableNames(a, b)) {
    if (!Selected(options, name)) continue;
    const TableState* ta = a.Find(name);
    const TableState* tb = b.Find(name);
    if (ta == nullptr || tb == nullptr) {
      report.drift.push_back(Drift{name, {}, ta != nullptr ? "a" : "b"});
      continue;
    }
    CompareTable(name, *ta, *tb, options, comparison, report);
    if (ta->keyless && tb->keyless) {
      std::vector<int64_t> none;
      report.keyless.push_back(
          KeylessTable{name, ta->rows, tb->rows,
                       Intersect(ta->whole_rows.integers(), tb->whole_rows.integers(), 1, none)});
    }
  }
  std::sort(report.drift.begin(), report.drift.end(), [](const Drift& x, const Drift& y) {
    return std::tie(x.table, x.columns, x.only_in) < std::tie(y.table, y.columns, y.only_in);
  });
  return comparison;
}

void LendValues(Comparison& comparison) {
  for (const Comparison::Pending& p : comparison.pending) {
    if (!p.target || !p.rows) continue;
    RereadTarget& target = comparison.targets.at(p.table)[*p.target];
    if (target.limit != 0) continue;  // only some of the values
    SortDistinct(target.found, 0);
    comparison.rows.at(p.table)[*p.rows].values = &target.found;
  }
}

void TargetsOfB(Comparison& comparison, uint64_t limit) {
  for (Comparison::Pending& p : comparison.pending) {
    if (!p.target) continue;
    RereadTarget& target = comparison.targets.at(p.table)[*p.target];
    if (!Collated(*target.key)) continue;
    // Only the values the report will list (ListConflicts keeps the first `limit` too).
    SortDistinct(target.found, limit);
    std::vector<Hash128> hashes;
    for (const auto& tuple : target.found) hashes.push_back(HashOfValues(*target.key, tuple));
    std::sort(hashes.begin(), hashes.end());
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    std::vector<RereadTarget>& b_list = comparison.targets_b[p.table];
    p.target_b = b_list.size();
    b_list.push_back(RereadTarget{p.key_b, std::move(hashes), 0, {}, &target.found});
    if (p.key_b->merged.has_value() && target.done) {
      b_list.back().found = p.key_b->merged->common;  // B's partners of A's values
      b_list.back().done = true;
    }
  }
}

void ListConflicts(Comparison& comparison, uint64_t limit, Report& report) {
  for (Comparison::Pending& p : comparison.pending) {
    KeyReport& kr = report.keys[p.report_index];
    std::vector<std::vector<OwnedValue>> values;
    // Each kind ascending: the first `limit` of all are among the first `limit` of each.
    const auto shown = [limit](const auto& all) {
      return std::span(all).first(limit == 0 ? all.size()
                                             : std::min<std::size_t>(limit, all.size()));
    };
    for (const int64_t v : shown(p.integers)) {
      OwnedValue o;
      o.tag = Value::Tag::kInteger;
      o.integer = v;
      values.push_back({std::move(o)});
    }
    for (const IntegerPair& pair : shown(p.pairs)) {
      OwnedValue first;
      first.tag = Value::Tag::kInteger;
      first.integer = pair.first;
      OwnedValue second = first;
      second.integer = pair.second;
      values.push_back({std::move(first), std::move(second)});
    }
    if (p.target) {
      for (auto& tuple : comparison.targets.at(kr.table)[*p.target].found) {
        values.push_back(std::move(tuple));
      }
    }
    SortDistinct(values, limit);
    if (p.rows) {
      const RowTarget& rows = comparison.rows.at(kr.table)[*p.rows];
      kr.identical = rows.identical.size();
      kr.differing = kr.overlap - kr.identical;
      for (const auto& tuple : values) {
        kr.conflicts_identical.push_back(std::binary_search(
            rows.identical.begin(), rows.identical.end(), IdOfValues(*rows.key[0], tuple)));
      }
    }
    // Under a collation, B's value of each conflict (by hash: the first B row found).
    std::map<Hash128, std::vector<OwnedValue>> in_b;
    const RereadTarget* a_target = p.target ? &comparison.targets.at(kr.table)[*p.target] : nullptr;
    if (p.target_b) {
      for (auto& tuple : comparison.targets_b.at(kr.table)[*p.target_b].found) {
        in_b.emplace(HashOfValues(*a_target->key, tuple), std::move(tuple));
      }
    }
    bool differs = false;
    std::vector<std::vector<ReportValue>> rows_b;
    for (const auto& tuple : values) {
      std::vector<ReportValue> row;
      for (const OwnedValue& v : tuple) row.push_back(ToReportValue(v));
      kr.conflicts.push_back(std::move(row));
      std::vector<ReportValue> row_b;
      if (!in_b.empty()) {
        const auto it = in_b.find(HashOfValues(*a_target->key, tuple));
        if (it != in_b.end() && !TupleEqual(it->second, tuple)) {
          for (const OwnedValue& v : it->second) row_b.push_back(ToReportValue(v));
          differs = true;
        }
      }
      rows_b.push_back(std::move(row_b));
    }
    if (differs) kr.conflicts_b = std::move(rows_b);
  }
}

}  // namespace steadyflake::mergecheck
