// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// Database: a SQLite connection the merge writes through (its working copies: B', the output),
// or reads an input through (read-only). Errors throw steadyflake::Error naming the file and what
// SQLite said. Row: one row's values as SQLite typed them, the unit the verification compares.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_DATABASE_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_DATABASE_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace steadyflake::mergecheck::merge {

// A value of a row: SQLite's storage class and its content.
struct Value {
  int type = SQLITE_NULL;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  int64_t integer = 0;
  double real = 0;
  std::string bytes{};  // text or blob
  bool operator==(const Value&) const = default;
};
using Row = std::vector<Value>;

// `v` as plan.json writes a key value: integers in decimal, reals as the shortest text that
// reads back as the same double (0.1, not 0.10000000000000001), text as its bytes, blobs as x'..'.
std::string PlanForm(const Value& v);
// `v` for a message: 17, 'alice', x'00ff', NULL.
std::string Shown(const Value& v);
// "name" with double quotes doubled: an SQLite identifier.
std::string QuoteName(std::string_view name);
// `text` as an SQLite string literal, quotes doubled: 'it''s'. A name a PRAGMA takes, whatever
// it holds.
std::string QuoteText(std::string_view text);
// Whether two names are the same to SQLite (ASCII case aside).
bool SameName(std::string_view a, std::string_view b);
// Column `i` of the row `stmt` stands on, copied.
Value ColumnValue(sqlite3_stmt* stmt, int i);
// The same into `v`, reusing its storage (a loop over many rows).
void ReadColumn(sqlite3_stmt* stmt, int i, Value& v);

class Statement {
 public:
  Statement() = default;
  Statement(Statement&& other) noexcept : stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }
  sqlite3_stmt* get() const { return stmt_; }
  sqlite3_stmt** out() { return &stmt_; }
  int columns() const { return sqlite3_column_count(stmt_); }
  // The current row's column `i`, copied.
  Value Column(int i) const { return ColumnValue(stmt_, i); }
  void ReadRow(Row& row) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  enum class Mode { kReadOnly, kCreate };
  // Opens `path` (kCreate: read-write, a new file or a working copy just made). `name` says which
  // file it is in messages ("A", "B'", "the output").
  Database(const std::string& path, Mode mode, std::string name);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  void Exec(const std::string& sql);
  // Exec, but returns SQLite's message instead of throwing (empty: it ran).
  std::string TryExec(const std::string& sql);
  Statement Prepare(const std::string& sql);
  // Steps; false when done. Throws naming `what` on an error.
  bool Step(Statement& stmt, const std::string& what);
  // The one integer the query returns.
  int64_t Integer(const std::string& sql);
  // The tables of schema `schema` ("main", or an attached name): name -> column names, in
  // order; without sqlite_ internal tables and virtual tables.
  std::vector<std::pair<std::string, std::vector<std::string>>> Tables(
      const std::string& schema = "main");

  // Copies the whole database `from` into this one (SQLite's backup API: one consistent
  // snapshot of `from`, its WAL included).
  void CopyFrom(Database& from);
  // Copies this database's file to the new file `to` as the kernel copies files, under a read
  // transaction (one committed state), and returns true; false, copying nothing, when the file
  // alone does not hold the database (WAL mode). Many times faster than CopyFrom.
  bool CopyFileTo(const std::string& to);
  // Whether the database is in WAL mode (its -wal file may hold committed pages).
  bool IsWal();

  // Closes the connection (every statement must be finalized). Throws when SQLite cannot.
  void Close();

  [[noreturn]] void Fail(const std::string& what) const;

 private:
  std::string path_;
  std::string name_;
  sqlite3* db_ = nullptr;
};

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_DATABASE_H_
