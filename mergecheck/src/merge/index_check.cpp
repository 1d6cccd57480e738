// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/index_check.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "check/collation.h"
#include "check/ordered_merge.h"

namespace steadyflake::mergecheck::merge {

namespace {

// A REAL that is a whole number within int64 range, as that integer: SQLite may store it either
// way in a record, and compares 1 and 1.0 as equal.
bool IntegralReal(double r, int64_t& out) {
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0) || r != std::floor(r)) {
    return false;
  }
  out = static_cast<int64_t>(r);
  return true;
}

void AppendInteger(std::string& buffer, int64_t value) {
  char bytes[9] = {'i'};
  std::memcpy(bytes + 1, &value, sizeof value);
  buffer.append(bytes, sizeof bytes);
}

// Column `col` of the row `stmt` stands on, typed, to `buffer`.
void AppendValue(sqlite3_stmt* stmt, int col, std::string& buffer) {
  switch (sqlite3_column_type(stmt, col)) {
    case SQLITE_INTEGER:
      AppendInteger(buffer, sqlite3_column_int64(stmt, col));
      return;
    case SQLITE_FLOAT: {
      const double real = sqlite3_column_double(stmt, col);
      int64_t integer = 0;
      if (IntegralReal(real, integer)) {
        AppendInteger(buffer, integer);
        return;
      }
      char bytes[9] = {'r'};
      std::memcpy(bytes + 1, &real, sizeof real);
      buffer.append(bytes, sizeof bytes);
      return;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      const bool text = sqlite3_column_type(stmt, col) == SQLITE_TEXT;
      const void* data = text ? static_cast<const void*>(sqlite3_column_text(stmt, col))
                              : sqlite3_column_blob(stmt, col);
      const auto size = static_cast<uint32_t>(sqlite3_column_bytes(stmt, col));
      char head[5] = {text ? 't' : 'b'};
      std::memcpy(head + 1, &size, sizeof size);
      buffer.append(head, sizeof head);
      if (size > 0) buffer.append(static_cast<const char*>(data), size);
      return;
    }
    default:
      buffer += 'n';
  }
}

void Add(EntrySum& sum, const std::string& entry) {
  const XXH128_hash_t h = XXH3_128bits(entry.data(), entry.size());
  ++sum.entries;
  sum.low += h.low64;
  sum.high += h.high64;
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
    spec.columns.push_back(static_cast<int>(at - table.columns.begin()));
    if (at == table.columns.end()) table.columns.push_back(column);
    spec.collations.push_back(collation);
    select += QuoteName(column) + ", ";
    order += std::string(order.empty() ? "" : ", ") + QuoteName(column) + " COLLATE " + collation +
             (info.Column(3).integer != 0 ? " DESC" : "");
  }
  if (spec.columns.empty()) return false;
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

std::vector<EntrySum> SumTable(Database& db, const LinearTable& table) {
  std::vector<EntrySum> sums(table.indexes.size());
  if (table.indexes.empty()) return sums;
  Statement rows = db.Prepare(table.table_sql);
  std::string entry;
  const std::string what = "read table " + table.name + " for its index check";
  while (db.Step(rows, what)) {
    for (std::size_t i = 0; i < table.indexes.size(); ++i) {
      entry.clear();
      for (const int c : table.indexes[i].columns) AppendValue(rows.get(), c + 1, entry);
      AppendValue(rows.get(), 0, entry);
      Add(sums[i], entry);
    }
  }
  return sums;
}

EntrySum SumIndex(Database& db, const LinearTable& table, std::size_t i,
                  std::vector<std::string>& lines, std::size_t max_lines) {
  const IndexSpec& spec = table.indexes[i];
  const int keys = static_cast<int>(spec.columns.size());
  Statement scan = db.Prepare(spec.scan_sql);
  EntrySum sum;
  std::string entry;
  Row previous(spec.columns.size());
  Row current(spec.columns.size());
  bool any = false;
  const std::string what = "read index " + spec.name + " for its check";
  while (db.Step(scan, what)) {
    entry.clear();
    for (int c = 0; c <= keys; ++c) AppendValue(scan.get(), c, entry);
    Add(sum, entry);
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
                                     const EntrySum& from_table, const EntrySum& from_index) {
  if (from_table == from_index) return {};
  const std::string head =
      "index check of table '" + table.name + "': index " + table.indexes[i].name;
  if (from_table.entries != from_index.entries) {
    return {head + " holds " + std::to_string(from_index.entries) + " entries for " +
            std::to_string(from_table.entries) + " rows"};
  }
  return {head +
          " holds as many entries as the table has rows, but not the rows' own: an "
          "entry missing, changed or extra"};
}

}  // namespace steadyflake::mergecheck::merge
