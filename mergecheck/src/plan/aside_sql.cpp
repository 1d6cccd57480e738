// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// WriteRowsAside (aside.h): the rows held back, in rewrite-b.sql. Each Plan::Unmerged entry is a
// temporary table of keys; its rows are those of its table whose columns are among them (and
// whose condition holds) and that no earlier entry of the table selects, which is how
// SetRowsAside counted them. All rows are copied before any is deleted, so a declared ON DELETE
// CASCADE cannot take a row before it is copied; then every steadyflake_unmerged_<table> must
// hold exactly the plan's rows, or the rewrite rolls back.

#include <map>
#include <string>
#include <vector>

#include "plan/aside.h"

namespace steadyflake::mergecheck {

namespace {

// The condition that selects entry `u`'s rows, its keys in the temporary table `keys`.
std::string Selects(const Writer& w, const Plan::Unmerged& u, const std::string& keys) {
  std::string columns;
  std::string names;
  for (std::size_t c = 0; c < u.columns.size(); ++c) {
    columns += (c ? ", " : "") + w.Name(u.columns[c]);
    names += (c ? ", k" : "k") + std::to_string(c + 1);
  }
  std::string out = "(" + columns + ") IN (SELECT " + names + " FROM " + w.temp() + keys + ")";
  if (!u.where_column.empty()) {
    out += " AND " + w.Name(u.where_column) + " = " + std::to_string(u.where_value);
  }
  return out;
}

std::string Unmerged(const Writer& w, const std::string& table) {
  return w.Name("steadyflake_unmerged_" + table);
}

}  // namespace

void WriteRowsAside(const Writer& w, const Plan& plan, std::string& out,
                    std::vector<std::string>& changes) {
  if (plan.unmerged.empty()) return;
  std::vector<std::string> selects;
  std::vector<std::string> tables;  // in order of their first entry
  std::map<std::string, uint64_t> rows;
  for (std::size_t i = 0; i < plan.unmerged.size(); ++i) {
    const Plan::Unmerged& u = plan.unmerged[i];
    const std::string keys = "steadyflake_aside_" + std::to_string(i + 1);
    w.TempKeys(out, keys, u.columns.size(), u.keys);
    selects.push_back(Selects(w, u, keys));
    if (rows.count(u.table) == 0) tables.push_back(u.table);
    rows[u.table] += u.rows;
  }
  changes.push_back(
      "-- Rows held back (plan.json's unmerged): moved into steadyflake_unmerged_"
      "<table>, beside B's own tables; the rest of each table merges.");
  for (const std::string& t : tables) {
    const std::string create = "CREATE TABLE IF NOT EXISTS " + Unmerged(w, t);
    if (w.mysql()) {
      out += create + " LIKE " + w.Name(t) + ";\n";  // DDL commits: before the transaction
    } else {
      changes.push_back(create + " AS SELECT * FROM " + w.Name(t) + " WHERE 0;");
    }
  }
  for (std::size_t i = 0; i < plan.unmerged.size(); ++i) {
    const Plan::Unmerged& u = plan.unmerged[i];
    std::string statement = std::string(w.mysql() ? "INSERT INTO " : "INSERT OR ROLLBACK INTO ") +
                            Unmerged(w, u.table) + " SELECT * FROM " + w.Name(u.table) + " WHERE " +
                            selects[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (plan.unmerged[j].table == u.table) {
        statement += " AND NOT COALESCE(" + selects[j] + ", 0)";
      }
    }
    changes.push_back(statement + ";");
  }
  changes.push_back(
      "-- Each steadyflake_unmerged_<table> holds exactly the plan's rows, or the guard row goes "
      "in again,\n-- which fails and rolls the rewrite back (B changed since the plan, or such a "
      "table was there).");
  for (const std::string& t : tables) {
    changes.push_back(std::string(w.mysql() ? "INSERT INTO " : "INSERT OR ROLLBACK INTO ") +
                      "steadyflake_merge_plan SELECT plan, applied_at FROM steadyflake_merge_plan "
                      "WHERE plan = '" +
                      plan.id + "' AND (SELECT count(*) FROM " + Unmerged(w, t) + ") <> " +
                      std::to_string(rows[t]) + ";");
  }
  for (std::size_t i = 0; i < plan.unmerged.size(); ++i) {
    changes.push_back("DELETE FROM " + w.Name(plan.unmerged[i].table) + " WHERE " + selects[i] +
                      ";");
  }
}

}  // namespace steadyflake::mergecheck
