// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// SqliteFile: a SQLite database file opened for the merge checker as its trust rules require
// (docs/merging.md "What a SQLite input is"), and what the SQLite reader (sqlite_source.cpp)
// asks of it besides rows:
// - the real path is opened (a symlink is resolved first), so SQLite finds the -wal and
//   -journal files beside the database itself, and read-only (SQLITE_OPEN_READONLY, mode=ro):
//   the database file is never written. A WAL database is read through its log, as SQLite
//   reads it; SQLite may create or touch the -wal and -shm files beside it, as any reader does.
//   It is never opened immutable=1, which would make SQLite ignore a log or a writer;
// - a descriptor of the file stays open as long as the connection, for the readers that bypass
//   SQLite (closing any descriptor of the file would release SQLite's locks on it);
// - Observe() tells one content of the file from another, so that a check spanning several read
//   transactions sees one content or fails ("changed during the check");
// - errors name the file, what happened and what to do (a hot journal, a damaged page).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_SQLITE_FILE_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_SQLITE_FILE_H_

#include <sqlite3.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sqlite/btree_check.h"

namespace steadyflake::mergecheck {

// What a damaged or unreadable file's message ends with.
extern const char kCorruptFix[];

// A prepared statement, finalized on destruction.
class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }
  sqlite3_stmt** out() { return &stmt_; }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// The bytes of column `i` of the current row: as UTF-8 text when `as_text` (SQLite converts a
// number; NULL is empty), else as a blob. Valid until the statement steps again.
inline std::string_view ColumnBytes(sqlite3_stmt* stmt, int i, bool as_text) {
  const void* data = as_text ? static_cast<const void*>(sqlite3_column_text(stmt, i))
                             : sqlite3_column_blob(stmt, i);
  if (data == nullptr) return {};
  return std::string_view(static_cast<const char*>(data),
                          static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
}

inline std::string_view ColumnText(sqlite3_stmt* stmt, int i) { return ColumnBytes(stmt, i, true); }

// What tells one content of the file from another between two looks: SQLite's data_version
// (it changes when another connection commits) and the file's identity, size and modification
// time (a writer that is not SQLite, a checkpoint, a file replaced by rename).
struct FileState {
  int64_t data_version = 0;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = -1;
  int64_t mtime_ns = 0;
  bool operator==(const FileState&) const = default;
};

class SqliteFile {
 public:
  // Opens `path` (as given, for messages) and reads its schema once. Throws Error.
  explicit SqliteFile(const std::string& path);
  SqliteFile(const SqliteFile&) = delete;
  SqliteFile& operator=(const SqliteFile&) = delete;
  ~SqliteFile();

  sqlite3* db() const { return db_; }
  int fd() const { return fd_; }

  // Throws Error: "<path>: <what>: <SQLite's words or what they mean>; <what to do>".
  [[noreturn]] void Fail(const std::string& what, int rc) const;
  void Exec(const char* sql);
  void Prepare(const std::string& sql, Statement& stmt);
  static void Bind(Statement& stmt, const std::string& text);
  // Steps `stmt`; false when done. Throws with `what` on an error.
  bool Step(Statement& stmt, const std::string& what);

  // The content's identity now; never throws (a file that fails even this has changed).
  FileState Observe();

  // True if the database file alone holds this connection's snapshot, so it may be read
  // directly: a rollback-journal database (this connection's shared lock keeps writers out of
  // the file), or a WAL database whose log is empty now that the read lock is held (the reader
  // then holds read mark 0, and no checkpoint writes to the file until it lets go). Call it
  // inside a read transaction, after its first read.
  bool FileHoldsSnapshot() const;

  [[noreturn]] void ThrowChanged() const;
  [[noreturn]] void ThrowDamaged(const BtreeDamage& damage) const;

  // Damage in the 100-byte database header that SQLite reports only as "malformed": a page
  // count it trusts that is larger than the file. nullopt if the header is not so damaged.
  std::optional<BtreeDamage> HeaderDamage() const;

  // The structure check through SQLite, for a snapshot that is not the file alone (a WAL
  // database with frames in its log): `PRAGMA quick_check`, in the caller's transaction.
  // Throws Error naming the page and, when SQLite names the tree, its owner in `trees`.
  void QuickCheck(const std::vector<Btree>& trees);

 private:
  const std::string path_;  // as given, for messages
  const std::string real_;  // every symlink resolved, for SQLite and the direct readers
  int fd_ = -1;             // the database file, open as long as db_
  sqlite3* db_ = nullptr;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_SQLITE_FILE_H_
