// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/index_check.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "check/collation.h"
#include "check/ordered_merge.h"
#include "merge/transform.h"

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
bool SameKey(const std::string& collation, const Value& a, const Value& b) {
  const auto number = [](const Value& v) {
    return v.type == SQLITE_INTEGER || v.type == SQLITE_FLOAT;
  };
  if (number(a) && number(b)) {
    if (a.type == SQLITE_FLOAT && b.type == SQLITE_FLOAT) return a.real == b.real;
    const Value& i = a.type == SQLITE_INTEGER ? a : b;
    const Value& o = a.type == SQLITE_INTEGER ? b : a;
    if (o.type == SQLITE_INTEGER) return i.integer == o.integer;
    int64_t whole = 0;
    return IntegralReal(o.real, whole) && whole == i.integer;
  }
  if (a.type != b.type) return false;
  if (a.type == SQLITE_TEXT) return CompareInIndexOrder(collation, a.bytes, b.bytes) == 0;
  return a.bytes == b.bytes;  // blobs
}

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

}  // namespace

std::optional<LinearTable> PlanLinearCheck(Database& db, const std::string& table) {
  Statement list = db.Prepare("PRAGMA main.table_list(" + QuoteText(table) + ")");
  bool plain = false;
  while (db.Step(list, "read table " + table)) {
    plain = list.Column(2).bytes == "table" && list.Column(4).integer == 0;  // no WITHOUT ROWID
  }
  if (!plain) return std::nullopt;
  std::vector<std::string> all_columns;
  Statement columns = db.Prepare("PRAGMA main.table_xinfo(" + QuoteText(table) + ")");
  while (db.Step(columns, "read table " + table)) all_columns.push_back(columns.Column(1).bytes);
  const std::string rowid = RowidName(all_columns);
  if (rowid.empty()) return std::nullopt;
  LinearTable out;
  out.name = table;
  Statement indexes = db.Prepare("PRAGMA main.index_list(" + QuoteText(table) + ")");
  while (db.Step(indexes, "read the indexes of " + table)) {
    if (indexes.Column(4).integer != 0) return std::nullopt;  // a partial index
    IndexSpec spec;
    spec.name = indexes.Column(1).bytes;
    spec.unique = indexes.Column(2).integer != 0;
    out.indexes.push_back(std::move(spec));
  }
  for (IndexSpec& spec : out.indexes) {
    if (!PlanIndex(db, out, all_columns, rowid, spec)) return std::nullopt;
  }
  out.table_sql = "SELECT " + rowid;
  for (const std::string& c : out.columns) out.table_sql += ", " + QuoteName(c);
  out.table_sql += " FROM main." + QuoteName(table) + " NOT INDEXED";
  return out;
}

std::vector<RowSum> SumTable(Database& db, const LinearTable& table) {
  std::vector<RowSum> sums(table.indexes.size());
  if (table.indexes.empty()) return sums;
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

RowSum SumIndex(Database& db, const LinearTable& table, std::size_t i,
                std::vector<std::string>& lines, std::size_t max_lines) {
  const IndexSpec& spec = table.indexes[i];
  const int keys = static_cast<int>(spec.collations.size());
  Statement scan = db.Prepare(spec.scan_sql);
  RowSum sum;
  std::string scratch;
  Row previous(spec.collations.size());
  Row current(spec.collations.size());
  bool any = false;
  const std::string what = "read index " + spec.name + " for its check";
  while (db.Step(scan, what)) {
    sum.Add(HashCurrentRow(scan.get(), scratch));
    if (!spec.unique) continue;
    bool equal = any;
    for (int c = 0; c < keys; ++c) {
      Value& v = current[static_cast<std::size_t>(c)];
      ReadColumn(scan.get(), c, v);
      equal = equal && v.type != SQLITE_NULL &&
              previous[static_cast<std::size_t>(c)].type != SQLITE_NULL &&
              SameKey(spec.collations[static_cast<std::size_t>(c)],
                      previous[static_cast<std::size_t>(c)], v);
    }
    if (equal && lines.size() < max_lines) {
      std::string key;
      for (const Value& v : current) key += (key.empty() ? "" : ", ") + Shown(v);
      lines.push_back("index check of table '" + table.name +
                      "': non-unique entry in UNIQUE index " + spec.name + ": (" + key + ")");
    }
    std::swap(previous, current);
    any = true;
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
