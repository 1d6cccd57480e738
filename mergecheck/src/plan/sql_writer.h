// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The pieces of rewrite-b.sql's SQL both of its writers use (plan_output.cpp, aside_sql.cpp):
// names, values and INSERTs in B's dialect, SQLite or MySQL.

#ifndef STEADYFLAKE_MERGECHECK_SRC_PLAN_SQL_WRITER_H_
#define STEADYFLAKE_MERGECHECK_SRC_PLAN_SQL_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

class Writer {
 public:
  explicit Writer(bool mysql) : mysql_(mysql) {}

  // `name` quoted as an identifier: "name" (SQLite) or `name` (MySQL).
  std::string Name(std::string_view name) const;
  // A text value: MySQL compares the temporary tables' VARBINARY columns as bytes, so text goes
  // as hex; SQLite takes it as written when it is UTF-8, else cast from its bytes.
  std::string Text(std::string_view bytes) const;
  // A value as a literal of the dialect.
  std::string Value(const ReportValue& v) const;
  // INSERTs of `rows` (each already a parenthesised list) into `table`, 500 rows a statement.
  void Insert(std::string& out, const std::string& table,
              const std::vector<std::string>& rows) const;
  // CREATE TEMPORARY TABLE `table` (k1, k2, ...) and the INSERTs of `keys` into it: the keys of
  // the rows one statement of the rewrite deletes or moves. MySQL's columns are DECIMAL(20, 0)
  // for integers, else VARBINARY (compared as bytes).
  void TempKeys(std::string& out, const std::string& table, std::size_t width,
                const std::vector<std::vector<ReportValue>>& keys) const;
  // "temp." in SQLite, where a temporary table is named with its schema; "" in MySQL.
  std::string temp() const { return mysql_ ? "" : "temp."; }

  bool mysql() const { return mysql_; }

 private:
  bool mysql_;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_PLAN_SQL_WRITER_H_
