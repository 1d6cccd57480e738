// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ApplyPolicies and CheckOnConflict (policies.h). keep_a and keep_b need nothing beyond the
// report. newest needs one integer column of the rows behind each conflicting value, read by a
// scan of the table in A and in B that keeps only those values. dedupe needs the rows of a
// keyless table: A's are kept as 128-bit hashes (of every column, by name), B's rows whose hash
// is among them are dropped, so memory grows with A's rows of that table, 16 bytes each.

#include "plan/policies.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check/key_set.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

struct Policy {
  std::string name;    // keep_a, keep_b, newest, unresolved, dedupe
  std::string column;  // newest's
};

Policy PolicyOf(const std::string& text) {
  if (text.starts_with("newest:")) return {"newest", text.substr(7)};
  return {text, ""};
}

bool Keyless(const TableState& t, const PlanOptions& options) {
  return t.table.keys.empty() &&
         std::none_of(options.check.extra_keys.begin(), options.check.extra_keys.end(),
                      [&](const Options::ExtraKey& k) { return k.table == t.table.name; });
}

[[noreturn]] void Refuse(const std::string& table, const std::string& text,
                         const std::string& why) {
  const std::string shown =
      text.starts_with("newest:") ? "{ newest = \"" + text.substr(7) + "\" }" : "'" + text + "'";
  throw Error(Error::Code::kInvalidArgument, "on_conflict " + table + " = " + shown + ": " + why);
}

// B's value of conflict `c` of `k` (under a collation, B's bytes may differ from A's).
const std::vector<ReportValue>& BKey(const KeyReport& k, std::size_t c) {
  return c < k.conflicts_b.size() && !k.conflicts_b[c].empty() ? k.conflicts_b[c] : k.conflicts[c];
}

std::string Encoded(const std::vector<ReportValue>& row) {
  std::string out;
  for (const ReportValue& v : row) out += EncodeValue(v);
  return out;
}

// Reads one table of one input: per probe (a key with conflicts), the newest column's value of
// the row behind each conflicting value.
class NewestScan : public SourceVisitor {
 public:
  struct Probe {
    std::vector<std::string> lower_columns;
    std::map<std::string, std::size_t> conflicts;  // encoded value -> conflict
    std::map<std::size_t, int64_t> newest = {};    // conflict -> value (absent: NULL)
    std::vector<int> cells = {};
    std::vector<Affinity> affinity = {};
  };
  NewestScan(std::string table, std::string column, std::vector<Probe>& probes)
      : table_(std::move(table)), column_(AsciiLower(column)), probes_(probes) {}

  std::vector<int> OnTable(const Table& table) override {
    if (table.name != table_) return {};
    std::vector<int> wanted;
    const auto want = [&](const std::string& lower, Affinity* affinity) {
      const int c = FindColumn(table, lower);
      if (c < 0) return -1;
      if (affinity != nullptr) *affinity = table.columns[static_cast<std::size_t>(c)].affinity;
      wanted.push_back(c);
      return static_cast<int>(wanted.size() - 1);
    };
    newest_cell_ = want(column_, nullptr);
    for (Probe& p : probes_) {
      p.cells.clear();
      p.affinity.assign(p.lower_columns.size(), Affinity::kBlob);
      for (std::size_t j = 0; j < p.lower_columns.size(); ++j) {
        p.cells.push_back(want(p.lower_columns[j], &p.affinity[j]));
      }
    }
    return wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (table.name != table_ || newest_cell_ < 0) return;
    const Value v =
        ApplyAffinity(cells[static_cast<std::size_t>(newest_cell_)], Affinity::kInteger, buffer_);
    if (v.tag != Value::Tag::kInteger) return;  // NULL: older than any value, as if absent
    for (Probe& p : probes_) {
      std::string key;
      for (std::size_t j = 0; j < p.cells.size(); ++j) {
        if (p.cells[j] < 0) return;
        key += EncodeValue(ReportValueOf(
            ApplyAffinity(cells[static_cast<std::size_t>(p.cells[j])], p.affinity[j], buffer_)));
      }
      const auto it = p.conflicts.find(key);
      if (it != p.conflicts.end()) p.newest[it->second] = v.integer;
    }
  }

 private:
  std::string table_;
  std::string column_;
  std::vector<Probe>& probes_;
  int newest_cell_ = -1;
  ValueBuffer buffer_;
};

// newest = column for the keys `keys` of `table`: per differing conflict, B's row wins when its
// column's value is larger than A's (a NULL is older than any value), else A's.
void Newest(Source& a, Source& b, const Report& report, const std::string& table,
            const std::string& column, const std::vector<std::size_t>& keys, Work& work,
            Plan& plan) {
  std::vector<NewestScan::Probe> in_a;
  std::vector<NewestScan::Probe> in_b;
  for (const std::size_t i : keys) {
    const KeyReport& k = report.keys[i];
    NewestScan::Probe pa;
    for (const std::string& c : k.columns) pa.lower_columns.push_back(AsciiLower(c));
    NewestScan::Probe pb = pa;
    for (const std::size_t c : work[i].differing) {
      pa.conflicts.emplace(Encoded(k.conflicts[c]), c);
      pb.conflicts.emplace(Encoded(BKey(k, c)), c);
    }
    in_a.push_back(std::move(pa));
    in_b.push_back(std::move(pb));
  }
  NewestScan scan_a(table, column, in_a);
  a.Scan(scan_a, {table});
  NewestScan scan_b(table, column, in_b);
  b.Scan(scan_b, {table});
  for (std::size_t p = 0; p < keys.size(); ++p) {
    const KeyReport& k = report.keys[keys[p]];
    Plan::Drop drop{
        k.table, k.columns, {}, "A's row is as new or newer by " + column + " (newest)"};
    Plan::Replace replace{k.table, k.columns, {}, "B's row is newer by " + column + " (newest)"};
    for (const std::size_t c : work[keys[p]].differing) {
      const auto va = in_a[p].newest.find(c);
      const auto vb = in_b[p].newest.find(c);
      const bool b_wins =
          vb != in_b[p].newest.end() && (va == in_a[p].newest.end() || vb->second > va->second);
      if (b_wins) {
        replace.keys.push_back(k.conflicts[c]);
      } else {
        drop.keys.push_back(BKey(k, c));
      }
    }
    if (!drop.keys.empty()) plan.drops.push_back(std::move(drop));
    if (!replace.keys.empty()) plan.replaces.push_back(std::move(replace));
    work[keys[p]].differing.clear();
  }
}

// Reads one keyless table of one input, hashing each row (every column, by name). With
// `matches`, keeps the rows whose hash is in it instead (B's rows identical to one of A's).
class RowHashScan : public SourceVisitor {
 public:
  RowHashScan(std::string table, const std::set<Hash128>* matches)
      : table_(std::move(table)), matches_(matches) {}

  std::vector<int> OnTable(const Table& table) override {
    if (table.name != table_) return {};
    order_.clear();
    columns.clear();
    affinity_.clear();
    std::vector<std::pair<std::string, int>> by_name;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (table.columns[c].generated) continue;
      by_name.emplace_back(AsciiLower(table.columns[c].name), static_cast<int>(c));
    }
    std::sort(by_name.begin(), by_name.end());
    std::vector<int> wanted;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (table.columns[c].generated) continue;
      wanted.push_back(static_cast<int>(c));
      columns.push_back(table.columns[c].name);
      affinity_.push_back(table.columns[c].affinity);
    }
    for (const auto& [name, c] : by_name) {
      order_.push_back(
          static_cast<int>(std::find(wanted.begin(), wanted.end(), c) - wanted.begin()));
    }
    names_.clear();
    for (const auto& [name, c] : by_name) names_ += name + '\0';
    return wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (table.name != table_) return;  // a dump may create every table before its rows
    std::vector<ReportValue> row;
    for (std::size_t j = 0; j < cells.size(); ++j) {
      row.push_back(ReportValueOf(ApplyAffinity(cells[j], affinity_[j], buffer_)));
    }
    std::string encoded = names_;
    for (const int j : order_) encoded += EncodeValue(row[static_cast<std::size_t>(j)]);
    const Hash128 h = HashBytes(encoded);
    if (matches_ == nullptr) {
      hashes.insert(h);
    } else if (matches_->count(h) != 0 && hashes.insert(h).second) {
      rows.push_back(std::move(row));
    }
  }

  std::set<Hash128> hashes;                    // every row's (A), or the matched rows' (B)
  std::vector<std::string> columns;            // as the table declares them
  std::vector<std::vector<ReportValue>> rows;  // B's matched rows, each once

 private:
  std::string table_;
  const std::set<Hash128>* matches_;
  std::vector<int> order_;  // positions in a row, by column name
  std::vector<Affinity> affinity_;
  std::string names_;
  ValueBuffer buffer_;
};

void Dedupe(Source& a, Source& b, const std::string& table, Plan& plan) {
  RowHashScan in_a(table, nullptr);
  a.Scan(in_a, {table});
  RowHashScan in_b(table, &in_a.hashes);
  b.Scan(in_b, {table});
  if (in_b.rows.empty()) return;
  Plan::Drop drop{table, in_b.columns, std::move(in_b.rows),
                  "the same row (every column) is in A (dedupe)"};
  drop.whole_row = true;
  plan.drops.push_back(std::move(drop));
}

}  // namespace

void CheckOnConflict(const Collector& cb, const PlanOptions& options) {
  for (const auto& [table, text] : options.on_conflict) {
    const TableState* t = cb.Find(table);
    if (t == nullptr) {
      throw Error(Error::Code::kInvalidArgument,
                  "on_conflict " + table + ": input B has no table " + table +
                      "; check the name (table names are case-sensitive)");
    }
    const Policy p = PolicyOf(text);
    if (p.name != "keep_a" && p.name != "keep_b" && p.name != "newest" && p.name != "unresolved" &&
        p.name != "dedupe") {
      Refuse(table, text,
             "not a policy; use keep_a, keep_b, newest = \"COLUMN\" or unresolved, or dedupe for "
             "a table without a key");
    }
    if (p.name == "newest" && FindColumn(t->table, AsciiLower(p.column)) < 0) {
      Refuse(table, text,
             "input B has no column " + table + "." + p.column +
                 "; name the integer column whose larger value marks the newer row");
    }
    const bool keyless = Keyless(*t, options);
    if (p.name == "dedupe" && !keyless) {
      Refuse(table, text,
             "the table has a key, so its rows never repeat; dedupe is for a table without a "
             "key (use keep_a, keep_b or newest)");
    }
    if (p.name != "dedupe" && p.name != "unresolved" && keyless) {
      Refuse(table, text,
             "the table has no key, so no row of it overlaps: a merge appends them; use dedupe "
             "to drop B's rows identical to one of A's");
    }
  }
}

void ApplyPolicies(Source& a, Source& b, const Report& report, const PlanOptions& options,
                   Work& work, Plan& plan) {
  std::map<std::string, std::vector<std::size_t>> newest;  // table -> its keys
  for (auto& [i, w] : work) {
    const KeyReport& k = report.keys[i];
    const auto policy = options.on_conflict.find(k.table);
    if (policy == options.on_conflict.end() || w.differing.empty()) continue;
    const Policy p = PolicyOf(policy->second);
    if (p.name == "keep_a") {
      Plan::Drop drop{k.table, k.columns, {}, "B's row differs; the profile keeps A's (keep_a)"};
      for (const std::size_t c : w.differing) drop.keys.push_back(BKey(k, c));
      plan.drops.push_back(std::move(drop));
      w.differing.clear();
    } else if (p.name == "keep_b") {
      Plan::Replace replace{
          k.table, k.columns, {}, "A's row differs; the profile keeps B's (keep_b)"};
      for (const std::size_t c : w.differing) replace.keys.push_back(k.conflicts[c]);
      plan.replaces.push_back(std::move(replace));
      w.differing.clear();
    } else if (p.name == "newest") {
      newest[k.table].push_back(i);
    }
  }
  for (const auto& [table, keys] : newest) {
    Newest(a, b, report, table, PolicyOf(options.on_conflict.at(table)).column, keys, work, plan);
  }
  for (const KeylessTable& k : report.keyless) {
    const auto policy = options.on_conflict.find(k.table);
    if (k.in_both > 0 && policy != options.on_conflict.end() && policy->second == "dedupe") {
      Dedupe(a, b, k.table, plan);
    }
  }
}

}  // namespace steadyflake::mergecheck
