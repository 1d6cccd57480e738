// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SetRowsAside (aside.h). The seeds are the unresolved values, as B holds them (B's bytes of a
// value that collides under a collation). A row set aside takes with it the rows that refer, or
// may refer, to it: for each single-column key of its table that some column of B refers to,
// the rows of that column holding the set-aside row's value. The closure is found round by
// round: each round scans the tables with new entries, reading only the entries' columns and
// the key columns others refer to; a row already taken by an earlier entry is skipped, so each
// row is counted once, under the entry that moves it in the rewrite. Only the values of rows
// set aside are kept, so memory grows with what is held back, not with B.

#include "plan/aside.h"

#include <charconv>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "check/key_set.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

std::string EncodeValue(const ReportValue& v) {
  static constexpr char kTag[] = {'n', 'i', 'r', 't', 'b'};
  return kTag[static_cast<int>(v.type)] + v.text + '\0';
}

ReportValue ReportValueOf(const Value& v) {
  ReportValue r;
  switch (v.tag) {
    case Value::Tag::kNull:
      break;
    case Value::Tag::kInteger:
      r.type = ReportValue::Type::kInteger;
      r.text = std::to_string(v.integer);
      break;
    case Value::Tag::kBigInteger:
      r.type = ReportValue::Type::kInteger;
      r.text = std::string(v.bytes);
      break;
    case Value::Tag::kReal: {
      char buffer[40];
      const auto end = std::to_chars(buffer, buffer + sizeof buffer, v.real);
      r.type = ReportValue::Type::kReal;
      r.text.assign(buffer, end.ptr);
      break;
    }
    case Value::Tag::kText:
      r.type = ReportValue::Type::kText;
      r.text = std::string(v.bytes);
      break;
    case Value::Tag::kBlob:
      r.type = ReportValue::Type::kBlob;
      r.text = std::string(v.bytes);
      break;
  }
  return r;
}

namespace {

// Enough for any game schema's chain of references (character -> item -> mail item -> ...); a
// longer chain (a table referring to itself, row after row) is listed as unresolved.
constexpr int kMaxRounds = 64;

using ColumnId = std::pair<std::string, std::string>;  // lowercase table and column

// A column that refers or may refer to a key.
struct Edge {
  std::string table;  // as B names it
  std::string column;
  std::string where_column;
  int64_t where_value = 0;
  std::string how;  // ReferenceReport::found, "values inside" for a key inside the key
};

struct Edges {
  std::map<ColumnId, std::vector<Edge>> by_key;
  std::map<ColumnId, std::string> key_names;  // "player.id"

  void Add(const std::string& table, const std::string& column, Edge e,
           const PlanOptions& options) {
    const ColumnId key{AsciiLower(table), AsciiLower(column)};
    // A global column is never a reference onto another key; and a global key's value is the
    // same entity in every shard, so what refers to it stays right whichever row of it merges.
    if (IsGlobal(options, e.table, e.column) || IsGlobal(options, table, column)) return;
    if (key == ColumnId{AsciiLower(e.table), AsciiLower(e.column)}) return;
    std::vector<Edge>& list = by_key[key];
    for (const Edge& x : list) {
      if (x.table == e.table && EqualsIgnoreCase(x.column, e.column) &&
          x.where_column == e.where_column && x.where_value == e.where_value) {
        return;
      }
    }
    key_names.emplace(key, table + "." + column);
    list.push_back(std::move(e));
  }
};

// Every column of B known to refer, or suspected of referring, to a single-column key.
Edges FindEdges(const Report& report, const PlanFacts& facts, const PlanOptions& options) {
  Edges edges;
  for (std::size_t i = 0; i < report.keys.size(); ++i) {
    const KeyReport& k = report.keys[i];
    if (k.columns.size() != 1) continue;
    for (const ReferenceReport& r : k.references) {
      edges.Add(k.table, k.columns[0], {r.table, r.column, r.where_column, r.where_value, r.found},
                options);
    }
    if (const auto c = facts.children.find(i); c != facts.children.end()) {
      for (const ReferenceReport& r : c->second) {
        edges.Add(k.table, k.columns[0], {r.table, r.column, "", 0, r.found}, options);
      }
    }
  }
  for (const ForeignKeyRef& fk : facts.b_foreign_keys) {
    std::string column = fk.ref_column;
    if (column.empty()) {
      const auto pk = facts.b_primary.find(fk.ref_table);
      if (pk == facts.b_primary.end()) continue;
      column = pk->second;
    }
    edges.Add(fk.ref_table, column, {fk.table, fk.column, "", 0, "foreign key"}, options);
  }
  for (const Options::Reference& r : options.check.references) {
    edges.Add(r.ref_table, r.ref_column,
              {r.table, r.column, r.where_column, r.where_value, r.source}, options);
  }
  return edges;
}

// The entries of Plan::unmerged as they are found, with each one's keys encoded.
struct Entries {
  std::vector<Plan::Unmerged> list;
  std::vector<std::set<std::string>> keys;  // per entry: Encode of each key's values, joined

  std::size_t Add(Plan::Unmerged u) {
    list.push_back(std::move(u));
    keys.emplace_back();
    return list.size() - 1;
  }
  void AddKey(std::size_t entry, std::vector<ReportValue> key) {
    std::string encoded;
    for (const ReportValue& v : key) encoded += EncodeValue(v);
    if (keys[entry].insert(std::move(encoded)).second) list[entry].keys.push_back(std::move(key));
  }
};

// Reads the rows of the tables of new entries: counts each under the first entry that selects
// it (none if an earlier round's entry did), and keeps the values of the key columns others
// refer to, of each row newly set aside.
class AsideScan : public SourceVisitor {
 public:
  struct Selector {
    std::size_t entry = 0;
    bool old = false;  // scanned in an earlier round: its rows are counted already
    std::vector<int> cells = {};
    std::vector<Affinity> affinity = {};
    int where_cell = -1;
  };
  struct KeyColumn {
    ColumnId id;
    int cell = -1;
    Affinity affinity = Affinity::kInteger;
  };
  struct TablePlan {
    std::vector<Selector> selectors;
    std::vector<KeyColumn> keys;
  };

  AsideScan(Entries& entries, std::map<std::string, TablePlan>& tables,
            std::map<ColumnId, std::set<std::string>>& seen,
            std::map<ColumnId, std::vector<ReportValue>>& fresh)
      : entries_(entries), tables_(tables), seen_(seen), fresh_(fresh) {}

  std::vector<int> OnTable(const Table& table) override {
    const auto it = tables_.find(table.name);
    if (it == tables_.end()) return {};
    current_ = &it->second;
    std::vector<int> wanted;
    auto cell_of = [&](const std::string& name, Affinity* affinity) {
      const int c = FindColumn(table, AsciiLower(name));
      if (c < 0) return -1;
      if (affinity != nullptr) *affinity = table.columns[static_cast<std::size_t>(c)].affinity;
      wanted.push_back(c);
      return static_cast<int>(wanted.size() - 1);
    };
    for (Selector& s : current_->selectors) {
      const Plan::Unmerged& u = entries_.list[s.entry];
      s.cells.clear();
      s.affinity.assign(u.columns.size(), Affinity::kBlob);
      for (std::size_t j = 0; j < u.columns.size(); ++j) {
        s.cells.push_back(cell_of(u.columns[j], &s.affinity[j]));
      }
      s.where_cell = u.where_column.empty() ? -1 : cell_of(u.where_column, nullptr);
    }
    for (KeyColumn& k : current_->keys) k.cell = cell_of(k.id.second, &k.affinity);
    return wanted;
  }

  // A dump may create every table before its rows: the table is the row's, not the last one
  // OnTable was given.
  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    const auto it = tables_.find(table.name);
    if (it == tables_.end()) return;
    current_ = &it->second;
    const Selector* taken = nullptr;
    for (const Selector& s : current_->selectors) {
      if (Selects(s, cells)) {
        taken = &s;
        break;
      }
    }
    if (taken == nullptr || taken->old) return;
    ++entries_.list[taken->entry].rows;
    for (const KeyColumn& k : current_->keys) {
      if (k.cell < 0) continue;
      const Value v = ApplyAffinity(cells[static_cast<std::size_t>(k.cell)], k.affinity, buffer_);
      if (v.tag == Value::Tag::kNull) continue;
      ReportValue r = ReportValueOf(v);
      if (seen_[k.id].insert(EncodeValue(r)).second) fresh_[k.id].push_back(std::move(r));
    }
  }

 private:
  bool Selects(const Selector& s, std::span<const Cell> cells) {
    const Plan::Unmerged& u = entries_.list[s.entry];
    if (!u.where_column.empty()) {
      if (s.where_cell < 0) return false;
      const Value w =
          ApplyAffinity(cells[static_cast<std::size_t>(s.where_cell)], Affinity::kInteger, buffer_);
      if (w.tag != Value::Tag::kInteger || w.integer != u.where_value) return false;
    }
    std::string key;
    for (std::size_t j = 0; j < s.cells.size(); ++j) {
      if (s.cells[j] < 0) return false;
      key += EncodeValue(ReportValueOf(
          ApplyAffinity(cells[static_cast<std::size_t>(s.cells[j])], s.affinity[j], buffer_)));
    }
    return entries_.keys[s.entry].count(key) != 0;
  }

  Entries& entries_;
  std::map<std::string, TablePlan>& tables_;
  std::map<ColumnId, std::set<std::string>>& seen_;
  std::map<ColumnId, std::vector<ReportValue>>& fresh_;
  TablePlan* current_ = nullptr;
  ValueBuffer buffer_;
};

// B's value of an unresolved value `u`: where a key compares under a collation, B's bytes may
// differ from A's, which the report lists (KeyReport::conflicts_b).
std::vector<ReportValue> BValue(const Report& report, const Plan::Unresolved& u) {
  for (const KeyReport& k : report.keys) {
    if (k.table != u.table || k.columns != u.columns || k.conflicts_b.empty()) continue;
    for (std::size_t c = 0; c < k.conflicts.size() && c < k.conflicts_b.size(); ++c) {
      if (k.conflicts_b[c].empty() || k.conflicts[c].size() != u.value.size()) continue;
      bool same = true;
      for (std::size_t j = 0; j < u.value.size() && same; ++j) {
        same =
            k.conflicts[c][j].type == u.value[j].type && k.conflicts[c][j].text == u.value[j].text;
      }
      if (same) return k.conflicts_b[c];
    }
  }
  return u.value;
}

// The first entries: the rows of each unresolved value, one entry per key.
void Seed(const Report& report, const Plan& plan, Entries& entries) {
  std::map<std::pair<std::string, std::vector<std::string>>, std::size_t> by_key;
  for (const Plan::Unresolved& u : plan.unresolved) {
    if (u.value.empty()) continue;
    const auto [it, added] = by_key.try_emplace({u.table, u.columns}, entries.list.size());
    if (added) {
      entries.Add({u.table,
                   u.columns,
                   {},
                   "",
                   0,
                   0,
                   "the key's value is unresolved (plan.json's unresolved says why)"});
    }
    entries.AddKey(it->second, BValue(report, u));
  }
}

// The entries a round's set-aside key values give: per column referring to such a key, its rows
// holding one of those values.
void Follow(const Edges& edges, std::map<ColumnId, std::vector<ReportValue>>& fresh,
            Entries& entries) {
  std::map<std::tuple<std::string, std::string, std::string, int64_t, ColumnId>, std::size_t> made;
  for (auto& [key, values] : fresh) {
    const auto e = edges.by_key.find(key);
    if (e == edges.by_key.end()) continue;
    const std::string& name = edges.key_names.at(key);
    for (const Edge& edge : e->second) {
      const auto [it, added] = made.try_emplace(
          {edge.table, AsciiLower(edge.column), edge.where_column, edge.where_value, key},
          entries.list.size());
      if (added) {
        std::string reason = edge.table + "." + edge.column;
        if (!edge.where_column.empty()) {
          reason += " (where " + edge.where_column + " = " + std::to_string(edge.where_value) + ")";
        }
        reason += " refers or may refer to " + name + " (" + edge.how +
                  "), whose rows of these values are held back";
        entries.Add({edge.table,
                     {edge.column},
                     {},
                     edge.where_column,
                     edge.where_value,
                     0,
                     std::move(reason)});
      }
      for (const ReportValue& v : values) entries.AddKey(it->second, {v});
    }
  }
  fresh.clear();
}

}  // namespace

void SetRowsAside(Source& b, const Report& report, const PlanFacts& facts,
                  const PlanOptions& options, Plan& plan) {
  Entries entries;
  Seed(report, plan, entries);
  if (entries.list.empty()) return;
  const Edges edges = FindEdges(report, facts, options);
  std::map<std::string, std::vector<ColumnId>> referred;  // lowercase table -> its keys
  for (const auto& [key, list] : edges.by_key) referred[key.first].push_back(key);

  std::map<ColumnId, std::set<std::string>> seen;
  std::map<ColumnId, std::vector<ReportValue>> fresh;
  std::size_t scanned = 0;
  for (int round = 0; round < kMaxRounds && scanned < entries.list.size(); ++round) {
    // The tables of the new entries, each with all its entries (earlier ones first).
    std::map<std::string, AsideScan::TablePlan> tables;
    for (std::size_t e = scanned; e < entries.list.size(); ++e) {
      tables.try_emplace(entries.list[e].table);
    }
    for (std::size_t e = 0; e < entries.list.size(); ++e) {
      const auto t = tables.find(entries.list[e].table);
      if (t != tables.end()) t->second.selectors.push_back({e, e < scanned});
    }
    std::vector<std::string> only;
    for (auto& [table, plan_of] : tables) {
      only.push_back(table);
      const auto keys = referred.find(AsciiLower(table));
      if (keys == referred.end()) continue;
      for (const ColumnId& id : keys->second) plan_of.keys.push_back({id});
    }
    AsideScan scan(entries, tables, seen, fresh);
    b.Scan(scan, only);
    scanned = entries.list.size();
    Follow(edges, fresh, entries);
  }
  if (scanned < entries.list.size()) {
    plan.unresolved.push_back(
        {entries.list[scanned].table,
         entries.list[scanned].columns,
         {},
         "rows held back are referred to through a chain of more than " +
             std::to_string(kMaxRounds) +
             " references (a table referring to itself, row after row): the rows further down "
             "it are not held back; resolve the values above first"});
    entries.list.resize(scanned);
  }
  for (Plan::Unmerged& u : entries.list) {
    if (u.rows != 0) plan.unmerged.push_back(std::move(u));
  }
}

}  // namespace steadyflake::mergecheck
