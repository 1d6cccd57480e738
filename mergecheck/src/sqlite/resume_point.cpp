// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/mergecheck/resume_point.h"

#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "sqlite/sqlite_file.h"

namespace steadyflake::mergecheck {
namespace {

// SQLite's rule for a column's type affinity: INTEGER when the declared type contains "INT".
bool HasIntegerAffinity(std::string type) {
  for (char& c : type) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return type.find("INT") != std::string::npos;
}

std::string QuoteIdentifier(const std::string& name) {
  std::string quoted = "\"";
  for (const char c : name) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  return quoted + "\"";
}

}  // namespace

ResumePoint FindResumePoint(const std::string& path, const Layout& layout, uint64_t server_id) {
  layout.CheckServerId(server_id);
  SqliteFile file(path);
  // One read transaction: the tables are read as of one moment, even with a writer running.
  file.Exec("BEGIN");
  // Every table's single-column integer primary key.
  std::vector<std::pair<std::string, std::string>> columns;
  {
    Statement stmt;
    file.Prepare(
        "SELECT m.name, p.name, p.type FROM sqlite_schema AS m, pragma_table_info(m.name) AS p "
        "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND p.pk = 1 AND "
        "(SELECT count(*) FROM pragma_table_info(m.name) WHERE pk > 0) = 1 ORDER BY m.name",
        stmt);
    while (file.Step(stmt, "cannot read the schema")) {
      if (HasIntegerAffinity(std::string(ColumnText(stmt.get(), 2)))) {
        columns.emplace_back(ColumnText(stmt.get(), 0), ColumnText(stmt.get(), 1));
      }
    }
  }
  // The layout owns the bit arithmetic. Every ID of `server_id` lies in [first, last], its
  // smallest and largest possible; the range holds other server ids' IDs too (each tick in
  // between has them all), so a value counts only where its server-id field, the bits of
  // `field`, holds `server_id`: where `value & field` is `first`.
  const Id first = layout.Compose(0, server_id, 0);
  const Id last = layout.Compose(layout.max_tick(), server_id, layout.max_sequence());
  const Id field = layout.Compose(0, layout.max_server_id(), 0);
  ResumePoint point;
  for (const auto& [table, column] : columns) {
    const std::string c = QuoteIdentifier(column);
    // The key's b-tree is ordered by it: the range is a seek, ORDER BY … DESC walks it from its
    // end with no sort, and LIMIT 1 stops at the first value of this server id.
    Statement stmt;
    file.Prepare("SELECT " + c + " FROM " + QuoteIdentifier(table) + " WHERE " + c +
                     " BETWEEN ?1 AND ?2 AND (" + c + " & ?3) = ?1 ORDER BY " + c + " DESC LIMIT 1",
                 stmt);
    sqlite3_bind_int64(stmt.get(), 1, first);
    sqlite3_bind_int64(stmt.get(), 2, last);
    sqlite3_bind_int64(stmt.get(), 3, field);
    if (file.Step(stmt, "cannot read " + table + "." + column)) {
      const Id id = sqlite3_column_int64(stmt.get(), 0);
      if (id > point.id) {
        point.id = id;
        point.table = table;
        point.column = column;
      }
    }
    ++point.columns_read;
  }
  file.Exec("COMMIT");
  return point;
}

}  // namespace steadyflake::mergecheck
