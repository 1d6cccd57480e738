// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/mysql_facts.h"

#include <zlib.h>

#include <cctype>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "source/source.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::merge {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string FormOf(const Cell& c) {
  switch (c.type) {
    case Cell::Type::kInteger:
      return std::to_string(c.integer);
    case Cell::Type::kBlob:
      return BlobLiteral(c.bytes);
    case Cell::Type::kNull:
      return "NULL";
    default:
      return std::string(c.bytes);
  }
}

// Key values and reference values of one remapped key, across both inputs.
struct Values {
  std::unordered_set<int64_t> keys;  // A's and B''s key values
  std::vector<int64_t> refs;         // every non-NULL reference value, A's and B''s
  std::vector<std::size_t> column;   // per refs entry: its column (1.. in plan order)
};

class Visitor : public SourceVisitor {
 public:
  Visitor(const PlanFile& plan, MysqlFacts& facts, std::vector<Values>& values, bool b)
      : plan_(plan), facts_(facts), values_(values), b_(b) {}

  std::vector<int> OnTable(const Table& table) override {
    MysqlFacts::Table& t = facts_.tables[table.name];
    (b_ ? t.in_b : t.in_a) = true;
    if (b_ || t.columns.empty()) {
      t.columns.clear();
      for (const Column& c : table.columns) {
        if (!c.generated) t.columns.push_back(c.name);
      }
    }
    for (const ForeignKey& fk : table.foreign_keys) {
      if (fk.ref_table != table.name) t.parents.insert(fk.ref_table);
    }
    std::vector<int> all(table.columns.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    return all;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    MysqlFacts::Table& t = facts_.tables[table.name];
    if (!b_) {
      ++t.rows_a;
      if (Matches(plan_.replaces, table, cells)) {
        ++t.replaced;
        return;
      }
    } else {
      ++t.rows_b;
      if (Matches(plan_.unmerged, table, cells)) {  // moved aside first, as the rewrite does
        ++t.held;
        return;
      }
      if (Matches(plan_.drops, table, cells)) {
        ++t.dropped;
        return;
      }
    }
    for (std::size_t r = 0; r < plan_.remaps.size(); ++r) Remap(table, cells, r);
    if (!b_) return;
    for (std::size_t r = 0; r < plan_.renames.size(); ++r) {
      const PlanFile::Rename& rename = plan_.renames[r];
      if (rename.key.table != table.name) continue;
      const int c = FindColumn(table, Lower(rename.key.column));
      if (c >= 0 && cells[c].type == Cell::Type::kText &&
          rename.values.count(std::string(cells[c].bytes)) != 0) {
        ++facts_.renamed[r];
      }
    }
  }

 private:
  // Whether the row's key (its values as they are) is one of `list`'s for its table.
  static bool Matches(const std::vector<PlanFile::Rows>& list, const Table& table,
                      std::span<const Cell> cells) {
    for (const PlanFile::Rows& d : list) {
      if (d.table != table.name) continue;
      if (!d.where_column.empty()) {
        const int w = FindColumn(table, Lower(d.where_column));
        if (w < 0 || cells[w].type != Cell::Type::kInteger || cells[w].integer != d.where_value) {
          continue;
        }
      }
      std::vector<std::string> key;
      for (const std::string& column : d.columns) {
        const int c = FindColumn(table, Lower(column));
        key.push_back(c < 0 ? std::string() : FormOf(cells[c]));
      }
      if (d.keys.count(RowKey(key)) != 0) return true;
    }
    return false;
  }

  // The integer cells of the row with every remap of the plan applied (B) or as they are (A).
  std::vector<std::optional<int64_t>> Mapped(const Table& table, std::span<const Cell> cells) {
    std::vector<std::optional<int64_t>> ints(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].type == Cell::Type::kInteger) ints[i] = cells[i].integer;
    }
    if (!b_) return ints;
    std::vector<std::optional<int64_t>> out = ints;
    for (const PlanFile::Remap& remap : plan_.remaps) {
      for (std::size_t j = 0; j <= remap.references.size(); ++j) {
        const PlanFile::Column& col = j == 0 ? remap.key : remap.references[j - 1];
        const int c = col.table == table.name ? FindColumn(table, Lower(col.column)) : -1;
        if (c < 0 || !ints[c] || !Holds(table, ints, col)) continue;
        const auto it = remap.values.find(*ints[c]);
        if (it != remap.values.end()) out[c] = it->second;
      }
    }
    return out;
  }

  static bool Holds(const Table& table, const std::vector<std::optional<int64_t>>& ints,
                    const PlanFile::Column& col) {
    if (col.where_column.empty()) return true;
    const int w = FindColumn(table, Lower(col.where_column));
    return w >= 0 && ints[w] && *ints[w] == col.where_value;
  }

  void Remap(const Table& table, std::span<const Cell> cells, std::size_t r) {
    const PlanFile::Remap& remap = plan_.remaps[r];
    std::vector<std::optional<int64_t>> ints;
    for (std::size_t j = 0; j <= remap.references.size(); ++j) {
      const PlanFile::Column& col = j == 0 ? remap.key : remap.references[j - 1];
      if (col.table != table.name) continue;
      const int c = FindColumn(table, Lower(col.column));
      if (c < 0 || cells[c].type != Cell::Type::kInteger) continue;
      if (ints.empty()) ints = Mapped(table, cells);
      if (!Holds(table, ints, col)) continue;
      const int64_t v = *ints[c];
      MysqlFacts::Column& facts = facts_.remaps[r][j];
      if (b_ && v != cells[c].integer) {
        ++facts.b_new[v];
      } else if (!b_ && news_[r].count(v) != 0) {
        ++facts.a_new[v];
      }
      Sum(table, ints, v, facts);
      if (j == 0) {
        values_[r].keys.insert(v);
      } else {
        values_[r].refs.push_back(v);
        values_[r].column.push_back(j);
      }
    }
  }

  static void Sum(const Table& table, const std::vector<std::optional<int64_t>>& ints, int64_t v,
                  MysqlFacts::Column& facts) {
    int pk = -1;
    for (const Key& key : table.keys) {
      if (key.kind == Key::Kind::kPrimary && key.columns.size() == 1 &&
          table.columns[key.columns[0]].affinity == Affinity::kInteger) {
        pk = key.columns[0];
      }
    }
    if (pk < 0 || !ints[pk]) {
      ++facts.histogram[v];
      return;
    }
    facts.pk = table.columns[pk].name;
    const std::string pair = std::to_string(*ints[pk]) + ":" + std::to_string(v);
    facts.checksum +=
        crc32(0, reinterpret_cast<const Bytef*>(pair.data()), static_cast<uInt>(pair.size()));
  }

 public:
  std::vector<std::unordered_set<int64_t>> news_;

 private:
  const PlanFile& plan_;
  MysqlFacts& facts_;
  std::vector<Values>& values_;
  bool b_;
};

}  // namespace

MysqlFacts GatherMysqlFacts(const std::string& path_a, const std::string& path_b,
                            const PlanFile& plan) {
  MysqlFacts facts;
  facts.remaps.resize(plan.remaps.size());
  for (std::size_t r = 0; r < plan.remaps.size(); ++r) {
    facts.remaps[r].resize(plan.remaps[r].references.size() + 1);
  }
  facts.renamed.assign(plan.renames.size(), 0);
  std::vector<Values> values(plan.remaps.size());
  std::vector<std::unordered_set<int64_t>> news(plan.remaps.size());
  for (std::size_t r = 0; r < plan.remaps.size(); ++r) {
    for (const auto& [from, to] : plan.remaps[r].values) news[r].insert(to);
  }
  for (const bool b : {false, true}) {
    Visitor visitor(plan, facts, values, b);
    visitor.news_ = news;
    OpenSource(b ? path_b : path_a)->Scan(visitor, {});
  }
  for (auto& columns : facts.remaps) {
    for (MysqlFacts::Column& c : columns) {
      for (const auto& [v, n] : c.histogram) {
        const std::string pair = std::to_string(v) + ":" + std::to_string(n);
        c.checksum +=
            crc32(0, reinterpret_cast<const Bytef*>(pair.data()), static_cast<uInt>(pair.size()));
      }
    }
  }
  for (std::size_t r = 0; r < values.size(); ++r) {
    for (std::size_t i = 0; i < values[r].refs.size(); ++i) {
      if (values[r].keys.count(values[r].refs[i]) == 0) {
        ++facts.remaps[r][values[r].column[i]].dangling;
      }
    }
  }
  return facts;
}

}  // namespace steadyflake::mergecheck::merge
