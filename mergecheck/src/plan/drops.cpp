// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SettleDrops (drops.h): B's tables that hold identical rows and a column referring to a
// remapped key are read once per round; a row whose key is a drop candidate and whose
// referring column holds a remapped value is no drop.

#include "plan/drops.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check/key_set.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// A value as text that tells values apart, the same for a ReportValue and for the cell it came
// from: the type, then the digits or bytes.
std::string Encode(const ReportValue& v) {
  static constexpr char kTag[] = {'n', 'i', 'r', 't', 'b'};
  return kTag[static_cast<int>(v.type)] + v.text;
}
// `tag` then `rest`. (Appended, not `"t" + std::string(rest)`: GCC 12 at -O3 warns of
// overlapping copies in that operator+, a false -Wrestrict.)
std::string Tagged(char tag, std::string_view rest) {
  std::string out(1, tag);
  out.append(rest);
  return out;
}
std::string Encode(const Value& v) {
  switch (v.tag) {
    case Value::Tag::kNull:
      return "n";
    case Value::Tag::kInteger:
      return Tagged('i', std::to_string(v.integer));
    case Value::Tag::kBigInteger:
      return Tagged('i', v.bytes);
    case Value::Tag::kReal: {
      std::array<char, 32> text;
      return Tagged('r', RealLiteral(v.real, text));
    }
    case Value::Tag::kText:
      return Tagged('t', v.bytes);
    case Value::Tag::kBlob:
      return Tagged('b', v.bytes);
  }
  return "n";
}

struct UnsafeDrop {
  std::size_t key = 0;       // index into Report::keys
  std::size_t conflict = 0;  // index into its conflicts
};

// Reads the tables of B that have identical rows to drop and columns that refer to remapped
// keys, and returns the drops whose row holds a remapped value in such a column.
class DropCheck : public SourceVisitor {
 public:
  struct Probe {
    std::size_t key = 0;
    std::vector<std::string> lower_columns;
    std::vector<Affinity> affinity = {};
    std::vector<int> cells = {};
    std::map<std::string, std::size_t> identical = {};  // encoded key -> conflict
  };
  struct Ref {
    std::string lower_column;
    const std::vector<int64_t>* values = nullptr;  // remapped, ascending
    int cell = -1;
  };
  struct TablePlan {
    std::vector<Probe> probes;
    std::vector<Ref> refs;
  };
  explicit DropCheck(std::map<std::string, TablePlan>& tables) : tables_(tables) {}

  std::vector<int> OnTable(const Table& table) override {
    current_ = nullptr;
    row_table_ = &table;
    const auto it = tables_.find(table.name);
    if (it == tables_.end()) return {};
    current_ = &it->second;
    std::vector<int> wanted;
    auto cell_of = [&](const std::string& lower, Affinity* affinity) {
      const int c = FindColumn(table, lower);
      if (c < 0) return -1;
      if (affinity != nullptr) *affinity = table.columns[static_cast<std::size_t>(c)].affinity;
      wanted.push_back(c);
      return static_cast<int>(wanted.size() - 1);
    };
    for (Probe& p : current_->probes) {
      p.cells.clear();
      p.affinity.assign(p.lower_columns.size(), Affinity::kBlob);
      for (std::size_t j = 0; j < p.lower_columns.size(); ++j) {
        p.cells.push_back(cell_of(p.lower_columns[j], &p.affinity[j]));
      }
    }
    for (Ref& r : current_->refs) r.cell = cell_of(r.lower_column, nullptr);
    return wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (&table != row_table_) {  // a dump may create every table before the rows of any
      row_table_ = &table;
      const auto it = tables_.find(table.name);
      current_ = it == tables_.end() ? nullptr : &it->second;
    }
    if (current_ == nullptr) return;
    bool refers = false;
    for (const Ref& r : current_->refs) {
      if (r.cell < 0) continue;
      const Value v =
          ApplyAffinity(cells[static_cast<std::size_t>(r.cell)], Affinity::kInteger, buffer_);
      refers = refers || (v.tag == Value::Tag::kInteger &&
                          std::binary_search(r.values->begin(), r.values->end(), v.integer));
    }
    if (!refers) return;
    for (const Probe& p : current_->probes) {
      std::string key;
      bool complete = true;
      for (std::size_t j = 0; j < p.cells.size() && complete; ++j) {
        complete = p.cells[j] >= 0;
        if (!complete) break;
        const Value v =
            ApplyAffinity(cells[static_cast<std::size_t>(p.cells[j])], p.affinity[j], buffer_);
        key += Encode(v);
        key += '\0';
      }
      if (!complete) continue;
      const auto it = p.identical.find(key);
      if (it != p.identical.end()) unsafe.push_back({p.key, it->second});
    }
  }

  std::vector<UnsafeDrop> unsafe;

 private:
  std::map<std::string, TablePlan>& tables_;
  TablePlan* current_ = nullptr;
  const Table* row_table_ = nullptr;  // the table of the last row, whose plan is current_
  ValueBuffer buffer_;
};

std::vector<UnsafeDrop> FindUnsafeDrops(Source& b, const Report& report, const PlanFacts& facts,
                                        const Work& work, const Remapped& remapped) {
  std::map<std::string, DropCheck::TablePlan> tables;
  for (const auto& [i, w] : work) {
    if (w.identical.empty()) continue;
    const KeyReport& k = report.keys[i];
    DropCheck::Probe probe;
    probe.key = i;
    for (const std::string& c : k.columns) probe.lower_columns.push_back(AsciiLower(c));
    for (const std::size_t c : w.identical) {
      std::string key;
      for (const ReportValue& v : k.conflicts[c]) key += Encode(v) + '\0';
      probe.identical.emplace(std::move(key), c);
    }
    tables[k.table].probes.push_back(std::move(probe));
  }
  // The columns of those tables that refer, or may refer, to a remapped or held key:
  // confirmed references, proposals and ambiguous columns alike.
  for (const auto& [i, values] : remapped) {
    const auto guard = [&, &values = values](const std::vector<ReferenceReport>& refs) {
      for (const ReferenceReport& r : refs) {
        const auto t = tables.find(r.table);
        if (t != tables.end()) t->second.refs.push_back({AsciiLower(r.column), &values});
      }
    };
    guard(report.keys[i].references);
    if (const auto c = facts.children.find(i); c != facts.children.end()) guard(c->second);
  }
  std::vector<std::string> only;
  for (auto it = tables.begin(); it != tables.end();) {
    if (it->second.refs.empty()) {
      it = tables.erase(it);
    } else {
      only.push_back(it->first);
      ++it;
    }
  }
  if (tables.empty()) return {};
  DropCheck check(tables);
  b.Scan(check, only);
  return std::move(check.unsafe);
}

}  // namespace

void SettleDrops(Source& b, const Report& report, const PlanFacts& facts, Work& work, Plan& plan) {
  for (int round = 0; round < 8; ++round) {
    const std::vector<UnsafeDrop> unsafe =
        FindUnsafeDrops(b, report, facts, work, RemappedValues(report, work, /*held=*/true));
    if (unsafe.empty()) break;
    for (const UnsafeDrop& u : unsafe) {
      KeyWork& w = work[u.key];
      w.identical.erase(std::remove(w.identical.begin(), w.identical.end(), u.conflict),
                        w.identical.end());
      w.differing.push_back(u.conflict);
      std::sort(w.differing.begin(), w.differing.end());
    }
  }
  for (const auto& [i, w] : work) {
    if (w.identical.empty()) continue;
    const KeyReport& k = report.keys[i];
    Plan::Drop drop{k.table, k.columns, {}};
    for (const std::size_t c : w.identical) drop.keys.push_back(k.conflicts[c]);
    plan.drops.push_back(std::move(drop));
  }
}

}  // namespace steadyflake::mergecheck
