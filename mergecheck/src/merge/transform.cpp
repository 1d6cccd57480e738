// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/transform.h"

#include <cctype>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "steadyflake/error.h"

namespace steadyflake::mergecheck::merge {

namespace {

int ColumnIndex(const std::vector<std::string>& columns, const std::string& table,
                const std::string& name) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (SameName(columns[i], name)) return static_cast<int>(i);
  }
  throw Error(Error::Code::kInvalidArgument,
              "plan.json names column " + table + "." + name +
                  ", which B does not have; the plan was made for another B: plan again");
}

void Append(std::string& out, const void* data, std::size_t n) {
  out.append(static_cast<const char*>(data), n);
}

// Column `i` of the row `stmt` stands on, typed, as HashRow appends a Value.
void AppendColumn(sqlite3_stmt* stmt, int i, std::string& scratch) {
  const int type = sqlite3_column_type(stmt, i);
  scratch += static_cast<char>(type);
  switch (type) {
    case SQLITE_INTEGER: {
      const int64_t v = sqlite3_column_int64(stmt, i);
      Append(scratch, &v, sizeof v);
      break;
    }
    case SQLITE_FLOAT: {
      const double v = sqlite3_column_double(stmt, i);
      Append(scratch, &v, sizeof v);
      break;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      const void* data = type == SQLITE_TEXT
                             ? static_cast<const void*>(sqlite3_column_text(stmt, i))
                             : sqlite3_column_blob(stmt, i);
      const uint64_t size = static_cast<uint64_t>(sqlite3_column_bytes(stmt, i));
      Append(scratch, &size, sizeof size);
      if (data != nullptr) Append(scratch, data, size);
      break;
    }
    default:
      break;
  }
}

// A value read from the file's pages, as AppendColumn appends the same value read by SQLite.
void AppendCell(const Cell& cell, std::string& scratch) {
  switch (cell.type) {
    case Cell::Type::kInteger:
      scratch += static_cast<char>(SQLITE_INTEGER);
      Append(scratch, &cell.integer, sizeof cell.integer);
      break;
    case Cell::Type::kReal:
      scratch += static_cast<char>(SQLITE_FLOAT);
      Append(scratch, &cell.real, sizeof cell.real);
      break;
    case Cell::Type::kNull:
      scratch += static_cast<char>(SQLITE_NULL);
      break;
    default: {  // text, blob (a page holds no kBigInteger)
      scratch += static_cast<char>(cell.type == Cell::Type::kBlob ? SQLITE_BLOB : SQLITE_TEXT);
      const uint64_t size = cell.bytes.size();
      Append(scratch, &size, sizeof size);
      scratch += cell.bytes;
      break;
    }
  }
}

RowHash Finish(const std::string& scratch) {
  const XXH128_hash_t h = XXH3_128bits(scratch.data(), scratch.size());
  return RowHash{h.high64, h.low64};
}

}  // namespace

RowHash HashRow(const Row& row, std::string& scratch) {
  scratch.clear();
  for (const Value& v : row) {
    const char type = static_cast<char>(v.type);
    scratch += type;
    switch (v.type) {
      case SQLITE_INTEGER:
        Append(scratch, &v.integer, sizeof v.integer);
        break;
      case SQLITE_FLOAT:
        Append(scratch, &v.real, sizeof v.real);
        break;
      case SQLITE_TEXT:
      case SQLITE_BLOB: {
        const uint64_t n = v.bytes.size();
        Append(scratch, &n, sizeof n);
        scratch += v.bytes;
        break;
      }
      default:
        break;
    }
  }
  return Finish(scratch);
}

RowHash HashColumns(sqlite3_stmt* stmt, std::span<const int> columns, std::string& scratch) {
  scratch.clear();
  for (const int i : columns) AppendColumn(stmt, i, scratch);
  return Finish(scratch);
}

RowHash HashCells(std::span<const Cell> cells, std::string& scratch) {
  scratch.clear();
  for (const Cell& cell : cells) AppendCell(cell, scratch);
  return Finish(scratch);
}

RowHash HashCurrentRow(sqlite3_stmt* stmt, std::string& scratch) {
  scratch.clear();
  const int n = sqlite3_column_count(stmt);
  for (int i = 0; i < n; ++i) AppendColumn(stmt, i, scratch);
  return Finish(scratch);
}

TableTransform::TableTransform(const PlanFile& plan, const std::string& table,
                               const std::vector<std::string>& columns)
    : changed_(columns.size(), false) {
  const auto matches = [&](const PlanFile::Column& c) { return SameName(c.table, table); };
  const auto rows = [&](const std::vector<PlanFile::Rows>& from, std::vector<Drop>& to) {
    for (const PlanFile::Rows& d : from) {
      if (!SameName(d.table, table)) continue;
      Drop drop;
      for (const std::string& c : d.columns) {
        drop.columns.push_back(ColumnIndex(columns, table, c));
      }
      drop.keys = &d.keys;
      if (!d.where_column.empty()) {
        drop.where_column = ColumnIndex(columns, table, d.where_column);
        drop.where_value = d.where_value;
      }
      to.push_back(std::move(drop));
    }
  };
  rows(plan.unmerged, held_);
  rows(plan.drops, drops_);
  std::size_t counter = 0;
  for (const PlanFile::Remap& r : plan.remaps) {
    std::vector<const PlanFile::Column*> here;
    if (matches(r.key)) here.push_back(&r.key);
    for (const PlanFile::Column& ref : r.references) {
      if (matches(ref)) here.push_back(&ref);
    }
    for (const PlanFile::Column* c : here) {
      Map map;
      map.column = ColumnIndex(columns, table, c->column);
      if (!c->where_column.empty()) {
        map.where_column = ColumnIndex(columns, table, c->where_column);
        map.where_value = c->where_value;
      }
      map.values = &r.values;
      map.counter = counter;
      changed_[static_cast<std::size_t>(map.column)] = true;
      maps_.push_back(map);
    }
    ++counter;
  }
  for (const PlanFile::Rename& r : plan.renames) {
    if (matches(r.key)) {
      Rename rename;
      rename.column = ColumnIndex(columns, table, r.key.column);
      rename.values = &r.values;
      rename.counter = counter;
      changed_[static_cast<std::size_t>(rename.column)] = true;
      for (const auto& [column, expression] : r.set) {
        const int target = ColumnIndex(columns, table, column);
        changed_[static_cast<std::size_t>(target)] = true;
        rename.set.emplace_back(target, Expression(expression, columns));
      }
      renames_.push_back(std::move(rename));
    }
    ++counter;
  }
}

bool TableTransform::Touches(sqlite3_stmt* stmt) const {
  if (!held_.empty()) return true;  // few tables: their rows are looked at whole
  for (const Drop& d : drops_) {
    std::vector<std::string> key;
    for (const int c : d.columns) key.push_back(PlanForm(ColumnValue(stmt, c)));
    if (d.keys->count(RowKey(key)) != 0) return true;
  }
  for (const Map& m : maps_) {
    if (sqlite3_column_type(stmt, m.column) == SQLITE_INTEGER &&
        m.values->count(sqlite3_column_int64(stmt, m.column)) != 0) {
      return true;
    }
  }
  for (const Rename& r : renames_) {
    if (sqlite3_column_type(stmt, r.column) != SQLITE_TEXT) continue;
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, r.column));
    const std::string name(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, r.column)));
    if (r.values->count(name) != 0) return true;
  }
  return false;
}

bool TableTransform::Matches(const Drop& d, const Row& row) const {
  if (d.where_column >= 0) {
    const Value& w = row[static_cast<std::size_t>(d.where_column)];
    if (w.type != SQLITE_INTEGER || w.integer != d.where_value) return false;
  }
  std::vector<std::string> key;
  key.reserve(d.columns.size());
  for (const int c : d.columns) key.push_back(PlanForm(row[static_cast<std::size_t>(c)]));
  return d.keys->count(RowKey(key)) != 0;
}

TableTransform::Fate TableTransform::Apply(Row& row, std::vector<uint64_t>& rows_changed) const {
  for (const Drop& d : held_) {
    if (Matches(d, row)) return Fate::kHeld;
  }
  for (const Drop& d : drops_) {
    if (Matches(d, row)) return Fate::kDropped;
  }
  for (const Map& m : maps_) {
    Value& v = row[static_cast<std::size_t>(m.column)];
    if (v.type != SQLITE_INTEGER) continue;
    if (m.where_column >= 0) {
      const Value& w = row[static_cast<std::size_t>(m.where_column)];
      if (w.type != SQLITE_INTEGER || w.integer != m.where_value) continue;
    }
    const auto it = m.values->find(v.integer);
    if (it == m.values->end()) continue;
    v.integer = it->second;
    ++rows_changed[m.counter];
  }
  for (const Rename& r : renames_) {
    Value& v = row[static_cast<std::size_t>(r.column)];
    if (v.type != SQLITE_TEXT) continue;
    const auto it = r.values->find(v.bytes);
    if (it == r.values->end()) continue;
    v.bytes = it->second;
    ++rows_changed[r.counter];
    for (const auto& [target, expression] : r.set) {
      row[static_cast<std::size_t>(target)] = expression.Evaluate(row);
    }
  }
  return Fate::kKept;
}

}  // namespace steadyflake::mergecheck::merge
