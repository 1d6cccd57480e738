// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the plan's tests do after MakePlan, as an operator does it on merge day: apply
// rewrite-b.sql to a copy of B, merge every table of it into a copy of A with INSERT ... SELECT
// through SQLite, and read rows back to compare who owns what by the rows' uid columns.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_PLAN_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_PLAN_TEST_UTIL_H_

#include <sqlite3.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck::testing {

// Every row `sql` gives on the database at `path`, its columns joined by '|' (NULL as "NULL").
inline std::multiset<std::string> Rows(const std::string& path, const std::string& sql) {
  std::multiset<std::string> out;
  sqlite3* db = nullptr;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("query failed on " + path + ": " + message);
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
      row += (c ? "|" : "") + std::string(text != nullptr ? text : "NULL");
    }
    out.insert(row);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

// B rewritten by `plan` (a copy of `b` at `b2`), then merged into a copy of `a` at `merged`:
// each of `tables`, in that order, by INSERT INTO main.t SELECT * FROM b.t in one transaction.
// Throws when the rewrite or a table's merge fails (a key of B' still collides).
inline void RewriteAndMerge(const std::string& a, const std::string& b, const Plan& plan,
                            const std::vector<std::string>& tables, const std::string& b2,
                            const std::string& merged) {
  std::filesystem::copy_file(b, b2, std::filesystem::copy_options::overwrite_existing);
  ExecSql(b2, FormatPlanSql(plan));
  std::filesystem::copy_file(a, merged, std::filesystem::copy_options::overwrite_existing);
  std::string sql = "ATTACH '" + b2 + "' AS b; BEGIN;";
  for (const std::string& t : tables)
    sql += "INSERT INTO main." + t + " SELECT * FROM b." + t + ";";
  ExecSql(merged, sql + "COMMIT;");
}

}  // namespace steadyflake::mergecheck::testing

#endif  // STEADYFLAKE_TESTS_MERGECHECK_PLAN_TEST_UTIL_H_
