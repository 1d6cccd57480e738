// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/index_check.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "check/collation.h"
#include "check/ordered_merge.h"
#include "merge/transform.h"
#include "source/schema.h"
#include "sqlite/index_reader.h"
#include "sqlite/table_reader.h"

namespace steadyflake::mergecheck::merge {

namespace {

// A REAL that is a whole number within int64 range, as that integer: SQLite compares 1 and 1.0
// as equal.
bool IntegralReal(double r, int64_t& out) {
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0) || r != std::floor(r)) {
    return false;
  }
  out = static_cast<int64_t>(r);
  return true;
}

// Whether two non-NULL values compare equal in an index under `collation`.
bool SameKey(const std::string& collation, const Cell& a, const Cell& b) {
  using T = Cell::Type;
  const auto number = [](const Cell& v) { return v.type == T::kInteger || v.type == T::kReal; };
  if (number(a) && number(b)) {
    if (a.type == T::kReal && b.type == T::kReal) return a.real == b.real;
    const Cell& i = a.type == T::kInteger ? a : b;
    const Cell& o = a.type == T::kInteger ? b : a;
    if (o.type == T::kInteger) return i.integer == o.integer;
    int64_t whole = 0;
    return IntegralReal(o.real, whole) && whole == i.integer;
  }
  if (a.type != b.type) return false;
  if (a.type == T::kText) return CompareInIndexOrder(collation, a.bytes, b.bytes) == 0;
  return a.bytes == b.bytes;  // blobs
}

// `v` as a Cell, pointing into it.
Cell AsCell(const Value& v) {
  Cell c;
  c.type = v.type == SQLITE_INTEGER ? Cell::Type::kInteger
           : v.type == SQLITE_FLOAT ? Cell::Type::kReal
           : v.type == SQLITE_TEXT  ? Cell::Type::kText
           : v.type == SQLITE_BLOB  ? Cell::Type::kBlob
                                    : Cell::Type::kNull;
  c.integer = v.integer;
  c.real = v.real;
  c.bytes = v.bytes;
  return c;
}

// `c` for a message.
std::string Shown(const Cell& c) {
  Value v;
  v.type = c.type == Cell::Type::kInteger ? SQLITE_INTEGER
           : c.type == Cell::Type::kReal  ? SQLITE_FLOAT
           : c.type == Cell::Type::kText  ? SQLITE_TEXT
           : c.type == Cell::Type::kBlob  ? SQLITE_BLOB
                                          : SQLITE_NULL;
  v.integer = c.integer;
  v.real = c.real;
  v.bytes = std::string(c.bytes);
  return merge::Shown(v);
}

// A UNIQUE index's check: each entry's key against the one before it (a duplicate is adjacent
// in a sorted index). Keeps a copy of the last key.
class UniqueCheck {
 public:
  UniqueCheck(const LinearTable& table, const IndexSpec& spec, std::vector<std::string>& lines,
              std::size_t max_lines)
      : table_(table), spec_(spec), lines_(lines), max_lines_(max_lines) {}

  // `keys`: the entry's key columns.
  void Next(std::span<const Cell> keys) {
    bool equal = any_;
    for (std::size_t c = 0; c < keys.size() && equal; ++c) {
      equal = keys[c].type != Cell::Type::kNull && previous_[c].type != Cell::Type::kNull &&
              SameKey(spec_.collations[c], previous_[c], keys[c]);
    }
    if (equal && lines_.size() < max_lines_) {
      std::string key;
      for (const Cell& v : keys) key += (key.empty() ? "" : ", ") + Shown(v);
      lines_.push_back("index check of table '" + table_.name +
                       "': non-unique entry in UNIQUE index " + spec_.name + ": (" + key + ")");
    }
    previous_.assign(keys.begin(), keys.end());
    bytes_.resize(keys.size());
    for (std::size_t c = 0; c < keys.size(); ++c) {
      bytes_[c].assign(keys[c].bytes);
      previous_[c].bytes = bytes_[c];
    }
    any_ = true;
  }

 private:
  const LinearTable& table_;
  const IndexSpec& spec_;
  std::vector<std::string>& lines_;
  std::size_t max_lines_;
  bool any_ = false;
  std::vector<Cell> previous_;
  std::vector<std::string> bytes_;  // what previous_'s text and blobs point into
};

// Whether SQLite runs `sql` as one scan of `index` that covers it, in its order (no sort).
bool ScansCoveringIndex(Database& db, const std::string& sql, const std::string& index) {
  Statement plan = db.Prepare("EXPLAIN QUERY PLAN " + sql);
  int steps = 0;
  bool covering = false;
  while (db.Step(plan, "plan the index check")) {
    const std::string detail = plan.Column(3).bytes;
    ++steps;
    const std::string tail = "USING COVERING INDEX " + index;
    covering = detail.rfind("SCAN ", 0) == 0 && detail.size() >= tail.size() &&
               detail.compare(detail.size() - tail.size(), tail.size(), tail) == 0;
    if (detail.find("TEMP B-TREE") != std::string::npos) return false;
  }
  return steps == 1 && covering;
}

// The name the rowid of a table with `columns` answers to, or "" when its columns shadow all.
std::string RowidName(const std::vector<std::string>& columns) {
  for (const char* name : {"rowid", "_rowid_", "oid"}) {
    bool shadowed = false;
    for (const std::string& c : columns) shadowed = shadowed || SameName(c, name);
    if (!shadowed) return name;
  }
  return "";
}

// Index `name` of `table` read into `spec`; false when the linear check cannot read it.
bool PlanIndex(Database& db, LinearTable& table, const std::vector<std::string>& all_columns,
               const std::string& rowid, IndexSpec& spec) {
  Statement info = db.Prepare("PRAGMA main.index_xinfo(" + QuoteText(spec.name) + ")");
  std::string select;
  std::string order;
  while (db.Step(info, "read index " + spec.name)) {
    if (info.Column(5).integer == 0) continue;  // the rowid, after the key columns
    const int64_t cid = info.Column(1).integer;
    const Collation* found = Collation::Find(info.Column(4).bytes);
    const std::string collation = found != nullptr ? found->name() : "";
    if (cid < 0 || cid >= static_cast<int64_t>(all_columns.size()) ||
        (collation != "BINARY" && collation != "NOCASE" && collation != "RTRIM")) {
      return false;
    }
    const std::string& column = all_columns[static_cast<std::size_t>(cid)];
    const auto at = std::find(table.columns.begin(), table.columns.end(), column);
    spec.entry.push_back(1 + static_cast<int>(at - table.columns.begin()));
    if (at == table.columns.end()) table.columns.push_back(column);
    spec.collations.push_back(collation);
    select += QuoteName(column) + ", ";
    order += std::string(order.empty() ? "" : ", ") + QuoteName(column) + " COLLATE " + collation +
             (info.Column(3).integer != 0 ? " DESC" : "");
  }
  if (spec.entry.empty()) return false;
  spec.entry.push_back(0);  // the rowid
  spec.scan_sql = "SELECT " + select + rowid + " FROM main." + QuoteName(table.name) +
                  " INDEXED BY " + QuoteName(spec.name) + " ORDER BY " + order;
  return ScansCoveringIndex(db, spec.scan_sql, spec.name);
}

// A column of a table as PRAGMA table_xinfo gives it.
struct ColumnInfo {
  std::string name;
  std::string type;
  bool has_default = false;
  int64_t pk = 0;
  int64_t hidden = 0;  // 2, 3: generated
};

// The DirectPlan of `table`, or nullopt when the pages alone do not say what SQLite reads.
std::optional<DirectPlan> PlanDirect(Database& db, const LinearTable& table,
                                     const std::vector<ColumnInfo>& all, bool pk_indexed) {
  Statement encoding = db.Prepare("PRAGMA main.encoding");
  if (!db.Step(encoding, "read the output's encoding") || encoding.Column(0).bytes != "UTF-8") {
    return std::nullopt;
  }
  int pk_columns = 0;
  for (const ColumnInfo& c : all) {
    if (c.hidden != 0) return std::nullopt;
    pk_columns += c.pk > 0 ? 1 : 0;
  }
  DirectPlan plan;
  for (const std::string& name : table.columns) {
    const auto c =
        std::find_if(all.begin(), all.end(), [&](const ColumnInfo& x) { return x.name == name; });
    if (c == all.end()) return std::nullopt;
    // SQLite's rule for the rowid's alias (sqlite_schema.cpp applies it too).
    const bool rowid = pk_columns == 1 && c->pk == 1 && !pk_indexed && SameName(c->type, "INTEGER");
    if (rowid) {
      plan.rowid_column = static_cast<int>(plan.fields.size());
    } else if (c->has_default) {
      return std::nullopt;
    }
    plan.fields.push_back(static_cast<int>(c - all.begin()));
    plan.real.push_back(AffinityOf(c->type) == Affinity::kReal);
  }
  const auto root = [&](const char* type, const std::string& name) {
    Statement r =
        db.Prepare("SELECT rootpage FROM main.sqlite_schema WHERE type = ?1 AND name = ?2");
    sqlite3_bind_text(r.get(), 1, type, -1, SQLITE_STATIC);
    sqlite3_bind_text(r.get(), 2, name.c_str(), -1, SQLITE_TRANSIENT);
    return db.Step(r, "read the output's schema") ? r.Column(0).integer : 0;
  };
  const int64_t table_root = root("table", table.name);
  if (table_root <= 0 || table_root > UINT32_MAX) return std::nullopt;
  plan.table_root = static_cast<uint32_t>(table_root);
  for (const IndexSpec& spec : table.indexes) {
    const int64_t r = root("index", spec.name);
    if (r <= 0 || r > UINT32_MAX) return std::nullopt;
    plan.index_roots.push_back(static_cast<uint32_t>(r));
  }
  return plan;
}

// The values SQLite reads for the fields a page holds: an integer in a REAL column is a REAL.
void AsRead(Cell& cell, bool real) {
  if (real && cell.type == Cell::Type::kInteger) {
    cell.type = Cell::Type::kReal;
    cell.real = static_cast<double>(cell.integer);
  }
}

// "index check of table 'T': page 7: it is not an index b-tree page".
std::string DamageLine(const LinearTable& table, const DamagedPage& damage) {
  return "index check of table '" + table.name + "': page " + std::to_string(damage.page()) + ": " +
         damage.what();
}

std::vector<RowSum> SumTableDirect(const PageFile& pages, const LinearTable& table) {
  const DirectPlan& plan = *table.direct;
  std::vector<RowSum> sums(table.indexes.size());
  std::vector<Cell> row(1 + table.columns.size());  // as LinearTable::table_sql reads it
  std::vector<Cell> entry;
  std::string scratch;
  TableReader reader(pages);
  reader.Walk(plan.table_root, plan.fields, [&](int64_t rowid, std::span<const Cell> cells) {
    row[0].type = Cell::Type::kInteger;
    row[0].integer = rowid;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      row[c + 1] = static_cast<int>(c) == plan.rowid_column ? row[0] : cells[c];
      AsRead(row[c + 1], plan.real[c]);
    }
    for (std::size_t i = 0; i < table.indexes.size(); ++i) {
      entry.clear();
      for (const int at : table.indexes[i].entry)
        entry.push_back(row[static_cast<std::size_t>(at)]);
      sums[i].Add(HashCells(entry, scratch));
    }
  });
  return sums;
}

RowSum SumIndexDirect(const PageFile& pages, const LinearTable& table, std::size_t i,
                      UniqueCheck* unique) {
  const IndexSpec& spec = table.indexes[i];
  const DirectPlan& plan = *table.direct;
  const std::size_t keys = spec.collations.size();
  std::vector<int> fields;
  std::vector<bool> real;
  for (std::size_t c = 0; c <= keys; ++c) {
    fields.push_back(static_cast<int>(c));
    const int at = spec.entry[c];  // 0: the rowid, an integer
    real.push_back(at > 0 && plan.real[static_cast<std::size_t>(at - 1)]);
  }
  RowSum sum;
  std::vector<Cell> entry(keys + 1);
  std::string scratch;
  IndexReader reader(pages);
  reader.Walk(plan.index_roots[i], fields, [&](std::span<const Cell> cells) {
    for (std::size_t c = 0; c <= keys; ++c) {
      entry[c] = cells[c];
      AsRead(entry[c], real[c]);
    }
    sum.Add(HashCells(entry, scratch));
    if (unique != nullptr) unique->Next(std::span<const Cell>(entry).first(keys));
  });
  return sum;
}

}  // namespace

std::optional<LinearTable> PlanLinearCheck(Database& db, const std::string& table) {
  Statement list = db.Prepare("PRAGMA main.table_list(" + QuoteText(table) + ")");
  bool plain = false;
  while (db.Step(list, "read table " + table)) {
    plain = list.Column(2).bytes == "table" && list.Column(4).integer == 0;  // no WITHOUT ROWID
  }
  if (!plain) return std::nullopt;
  std::vector<ColumnInfo> all;
  std::vector<std::string> all_columns;
  Statement columns = db.Prepare("PRAGMA main.table_xinfo(" + QuoteText(table) + ")");
  while (db.Step(columns, "read table " + table)) {
    all.push_back({columns.Column(1).bytes, columns.Column(2).bytes,
                   columns.Column(4).type != SQLITE_NULL, columns.Column(5).integer,
                   columns.Column(6).integer});
    all_columns.push_back(all.back().name);
  }
  const std::string rowid = RowidName(all_columns);
  if (rowid.empty()) return std::nullopt;
  LinearTable out;
  out.name = table;
  bool pk_indexed = false;
  Statement indexes = db.Prepare("PRAGMA main.index_list(" + QuoteText(table) + ")");
  while (db.Step(indexes, "read the indexes of " + table)) {
    if (indexes.Column(4).integer != 0) return std::nullopt;  // a partial index
    IndexSpec spec;
    spec.name = indexes.Column(1).bytes;
    spec.unique = indexes.Column(2).integer != 0;
    pk_indexed = pk_indexed || indexes.Column(3).bytes == "pk";
    out.indexes.push_back(std::move(spec));
  }
  for (IndexSpec& spec : out.indexes) {
    if (!PlanIndex(db, out, all_columns, rowid, spec)) return std::nullopt;
  }
  out.table_sql = "SELECT " + rowid;
  for (const std::string& c : out.columns) out.table_sql += ", " + QuoteName(c);
  out.table_sql += " FROM main." + QuoteName(table) + " NOT INDEXED";
  out.direct = PlanDirect(db, out, all, pk_indexed);
  return out;
}

std::vector<RowSum> SumTable(Database& db, const PageFile* pages, const LinearTable& table,
                             std::vector<std::string>& lines, std::size_t max_lines) {
  std::vector<RowSum> sums(table.indexes.size());
  if (table.indexes.empty()) return sums;
  if (pages != nullptr && table.direct) {
    try {
      return SumTableDirect(*pages, table);
    } catch (const DamagedPage& damage) {
      if (lines.size() < max_lines) lines.push_back(DamageLine(table, damage));
      return sums;
    }
  }
  Statement rows = db.Prepare(table.table_sql);
  std::string scratch;
  const std::string what = "read table " + table.name + " for its index check";
  while (db.Step(rows, what)) {
    for (std::size_t i = 0; i < table.indexes.size(); ++i) {
      sums[i].Add(HashColumns(rows.get(), table.indexes[i].entry, scratch));
    }
  }
  return sums;
}

RowSum SumIndex(Database& db, const PageFile* pages, const LinearTable& table, std::size_t i,
                std::vector<std::string>& lines, std::size_t max_lines) {
  const IndexSpec& spec = table.indexes[i];
  UniqueCheck check(table, spec, lines, max_lines);
  UniqueCheck* unique = spec.unique ? &check : nullptr;
  if (pages != nullptr && table.direct) {
    try {
      return SumIndexDirect(*pages, table, i, unique);
    } catch (const DamagedPage& damage) {
      if (lines.size() < max_lines) lines.push_back(DamageLine(table, damage));
      return RowSum{};
    }
  }
  const int keys = static_cast<int>(spec.collations.size());
  Statement scan = db.Prepare(spec.scan_sql);
  RowSum sum;
  std::string scratch;
  Row current(spec.collations.size());
  std::vector<Cell> cells(spec.collations.size());
  const std::string what = "read index " + spec.name + " for its check";
  while (db.Step(scan, what)) {
    sum.Add(HashCurrentRow(scan.get(), scratch));
    if (unique == nullptr) continue;
    for (int c = 0; c < keys; ++c) {
      ReadColumn(scan.get(), c, current[static_cast<std::size_t>(c)]);
      cells[static_cast<std::size_t>(c)] = AsCell(current[static_cast<std::size_t>(c)]);
    }
    unique->Next(cells);
  }
  return sum;
}

std::vector<std::string> CompareSums(const LinearTable& table, std::size_t i,
                                     const RowSum& from_table, const RowSum& from_index) {
  if (from_table == from_index) return {};
  const std::string head =
      "index check of table '" + table.name + "': index " + table.indexes[i].name;
  if (from_table.rows != from_index.rows) {
    return {head + " holds " + std::to_string(from_index.rows) + " entries for " +
            std::to_string(from_table.rows) + " rows"};
  }
  return {head +
          " holds as many entries as the table has rows, but not the rows' own: an "
          "entry missing, changed or extra"};
}

}  // namespace steadyflake::mergecheck::merge
