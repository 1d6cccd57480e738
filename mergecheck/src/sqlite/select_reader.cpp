// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/select_reader.h"

#include <sqlite3.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// Column `i` of the current row as a Cell. A REAL's literal (Cell::bytes) is written into
// `real_text`; text and blobs point into SQLite's buffers, valid until the statement steps
// again.
void ReadCell(sqlite3_stmt* stmt, int i, std::array<char, 32>& real_text, Cell& cell) {
  const int type = sqlite3_column_type(stmt, i);
  switch (type) {
    case SQLITE_INTEGER:
      cell.type = Cell::Type::kInteger;
      cell.integer = sqlite3_column_int64(stmt, i);
      break;
    case SQLITE_FLOAT: {
      cell.type = Cell::Type::kReal;
      cell.real = sqlite3_column_double(stmt, i);
      cell.bytes = RealLiteral(cell.real, real_text);
      break;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      cell.type = type == SQLITE_TEXT ? Cell::Type::kText : Cell::Type::kBlob;
      cell.bytes = ColumnBytes(stmt, i, type == SQLITE_TEXT);
      break;
    default:
      cell.type = Cell::Type::kNull;
      cell.bytes = {};
      break;
  }
}

// Binds `cell` to parameter `i`, as the value it is (SQLITE_STATIC: the caller's tuples outlive
// the statement's steps). A big integer, which SQLite cannot hold, binds as its digits.
void Bind(sqlite3_stmt* stmt, int i, const Cell& cell) {
  const auto size = static_cast<int>(cell.bytes.size());
  switch (cell.type) {
    case Cell::Type::kNull:
      sqlite3_bind_null(stmt, i);
      break;
    case Cell::Type::kInteger:
      sqlite3_bind_int64(stmt, i, cell.integer);
      break;
    case Cell::Type::kReal:
      sqlite3_bind_double(stmt, i, cell.real);
      break;
    case Cell::Type::kBigInteger:
    case Cell::Type::kText:
      sqlite3_bind_text(stmt, i, cell.bytes.data(), size, SQLITE_STATIC);
      break;
    case Cell::Type::kBlob:
      sqlite3_bind_blob(stmt, i, cell.bytes.data(), size, SQLITE_STATIC);
      break;
  }
}

// The name that selects the rowid of `table`, or "" when it has none (WITHOUT ROWID) or columns
// shadow all three names.
std::string RowidName(SqliteFile& file, const Table& table) {
  for (const char* candidate : {"rowid", "_rowid_", "oid"}) {
    bool shadowed = false;
    for (const Column& c : table.columns)
      shadowed = shadowed || EqualsIgnoreCase(c.name, candidate);
    if (shadowed) continue;
    Statement stmt;
    const std::string sql =
        std::string("SELECT ") + candidate + " FROM " + QuoteIdentifier(table.name) + " LIMIT 0";
    if (sqlite3_prepare_v2(file.db(), sql.c_str(), -1, stmt.out(), nullptr) == SQLITE_OK) {
      return candidate;
    }
    return "";
  }
  return "";
}

// SELECT <rowid or 0>, <wanted columns> FROM <table> [WHERE <lookup columns> = ?1 AND ...].
std::string SelectSql(const Table& table, const std::string& rowid, const std::vector<int>& wanted,
                      const Lookup* lookup) {
  std::string sql = "SELECT ";
  sql += rowid.empty() ? "0" : rowid;
  // A column named in a rowid alias (INTEGER PRIMARY KEY) is read straight from the rowid.
  for (const int column : wanted) {
    sql += ", ";
    sql += QuoteIdentifier(table.columns.at(static_cast<std::size_t>(column)).name);
  }
  sql += " FROM " + QuoteIdentifier(table.name);
  if (lookup != nullptr) {
    for (std::size_t i = 0; i < lookup->columns.size(); ++i) {
      sql += i == 0 ? " WHERE " : " AND ";
      sql += QuoteIdentifier(table.columns.at(static_cast<std::size_t>(lookup->columns[i])).name);
      if (i < lookup->collations.size() && !lookup->collations[i].empty()) {
        sql += " COLLATE " + lookup->collations[i];  // one SQLite knows (LookUpValues)
      }
      sql += " = ?" + std::to_string(i + 1);
    }
  }
  return sql;
}

}  // namespace

void SelectRows(SqliteFile& file, ScanProgress& progress, const Table& table,
                const std::vector<int>& wanted, SourceVisitor& visitor, const Lookup* lookup) {
  const std::string rowid = RowidName(file, table);
  const std::string sql = SelectSql(table, rowid, wanted, lookup);
  const std::string what = "cannot read table " + table.name;
  Statement stmt;
  {
    const int rc = sqlite3_prepare_v2(file.db(), sql.c_str(), static_cast<int>(sql.size()),
                                      stmt.out(), nullptr);
    if (rc != SQLITE_OK) file.Fail(what, rc);
  }
  sqlite3_stmt* const s = stmt.get();
  std::vector<Cell> cells(wanted.size());
  // Text of REAL values (Cell::bytes "the literal as written"), one buffer per column.
  std::vector<std::array<char, 32>> reals(wanted.size());
  uint64_t ordinal = 0;
  uint64_t unpublished = 0;
  const auto step_all = [&] {
    for (;;) {
      const int rc = sqlite3_step(s);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) file.Fail(what, rc);
      for (std::size_t i = 0; i < cells.size(); ++i) {
        ReadCell(s, static_cast<int>(i) + 1, reals[i], cells[i]);
      }
      const uint64_t position =
          rowid.empty() ? ordinal : static_cast<uint64_t>(sqlite3_column_int64(s, 0));
      ++ordinal;
      visitor.OnRow(table, cells, position);
      if (++unpublished == ScanProgress::kBatch) {
        progress.Publish(unpublished);
        unpublished = 0;
      }
    }
  };
  if (lookup == nullptr) {
    step_all();
  } else {
    for (const std::vector<Cell>& tuple : *lookup->tuples) {
      sqlite3_reset(s);
      for (std::size_t i = 0; i < tuple.size(); ++i) Bind(s, static_cast<int>(i) + 1, tuple[i]);
      step_all();
    }
  }
  progress.Publish(unpublished);
}

}  // namespace steadyflake::mergecheck
