// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/database.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "source/read_buffer.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::merge {

std::string PlanForm(const Value& v) {
  switch (v.type) {
    case SQLITE_INTEGER:
      return std::to_string(v.integer);
    case SQLITE_FLOAT: {
      // As the plan writes a REAL (RealLiteral: the shortest text that reads back as the same
      // double), so that a key of plan.json and one read from B are the same text.
      std::array<char, 32> text;
      return std::string(RealLiteral(v.real, text));
    }
    case SQLITE_BLOB:
      return BlobLiteral(v.bytes);
    case SQLITE_TEXT:
      return v.bytes;
    default:
      return "NULL";
  }
}

std::string Shown(const Value& v) {
  switch (v.type) {
    case SQLITE_TEXT: {
      std::string out = "'";
      AppendEscaped(out, v.bytes.size() > 40 ? v.bytes.substr(0, 40) : v.bytes, Escape::kNonAscii);
      return out + (v.bytes.size() > 40 ? "...'" : "'");
    }
    case SQLITE_NULL:
      return "NULL";
    default:
      return PlanForm(v);
  }
}

namespace {

// `text` between two `quote`s, each `quote` in it doubled: SQLite's quoting of literals and names.
std::string Quote(std::string_view text, char quote) {
  std::string out(1, quote);
  for (const char c : text) {
    out += c;
    if (c == quote) out += quote;
  }
  return out + quote;
}

}  // namespace

std::string QuoteText(std::string_view text) { return Quote(text, '\''); }

std::string QuoteName(std::string_view name) { return Quote(name, '"'); }

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

void ReadColumn(sqlite3_stmt* stmt, int i, Value& v) {
  v.type = sqlite3_column_type(stmt, i);
  v.integer = v.type == SQLITE_INTEGER ? sqlite3_column_int64(stmt, i) : 0;
  v.real = v.type == SQLITE_FLOAT ? sqlite3_column_double(stmt, i) : 0;
  v.bytes.clear();
  if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
    const void* data = v.type == SQLITE_TEXT
                           ? static_cast<const void*>(sqlite3_column_text(stmt, i))
                           : sqlite3_column_blob(stmt, i);
    if (data != nullptr) {
      v.bytes.assign(static_cast<const char*>(data),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
    }
  }
}

Value ColumnValue(sqlite3_stmt* stmt, int i) {
  Value v;
  ReadColumn(stmt, i, v);
  return v;
}

void Statement::ReadRow(Row& row) const {
  const int n = columns();
  row.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ReadColumn(stmt_, i, row[static_cast<std::size_t>(i)]);
}

Database::Database(const std::string& path, Mode mode, std::string name)
    : path_(path), name_(std::move(name)) {
  // NOMUTEX: a Database is used by one thread at a time, so SQLite's lock around every call
  // (taken by default in Debian's serialized build) only costs: a quarter of the verification's
  // time went to it.
  const int flags = (mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY
                                             : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    Fail("cannot open it");
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::Close() {
  if (sqlite3_close(db_) != SQLITE_OK) Fail("cannot close it");
  db_ = nullptr;
}

void Database::Fail(const std::string& what) const {
  throw Error(Error::Code::kInvalidArgument, name_ + " (" + path_ + "): " + what + ": " +
                                                 (db_ ? sqlite3_errmsg(db_) : "out of memory"));
}

std::string Database::TryExec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return "";
  std::string out = message != nullptr ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return out.empty() ? std::string("failed") : out;
}

void Database::Exec(const std::string& sql) {
  const std::string error = TryExec(sql);
  if (!error.empty()) {
    throw Error(Error::Code::kInvalidArgument,
                name_ + " (" + path_ + "): " + error + " in: " + sql.substr(0, 120));
  }
}

Statement Database::Prepare(const std::string& sql) {
  Statement stmt;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), stmt.out(), nullptr) !=
      SQLITE_OK) {
    Fail("cannot prepare " + sql.substr(0, 120));
  }
  return stmt;
}

bool Database::Step(Statement& stmt, const std::string& what) {
  const int rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Fail(what);
}

int64_t Database::Integer(const std::string& sql) {
  Statement stmt = Prepare(sql);
  if (!Step(stmt, sql)) Fail("no result from " + sql);
  return sqlite3_column_int64(stmt.get(), 0);
}

std::vector<std::pair<std::string, std::vector<std::string>>> Database::Tables(
    const std::string& schema) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  Statement list = Prepare("SELECT name FROM " + QuoteName(schema) +
                           ".sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
                           "ESCAPE '\\' AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%' "
                           "ORDER BY name");
  while (Step(list, "read the schema")) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(list.get(), 0)),
                     std::vector<std::string>{});
  }
  for (auto& [table, columns] : out) {
    Statement info = Prepare("SELECT name FROM pragma_table_info(?1, ?2) ORDER BY cid");
    sqlite3_bind_text(info.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(info.get(), 2, schema.c_str(), -1, SQLITE_TRANSIENT);
    while (Step(info, "read the columns of " + table)) {
      columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(info.get(), 0)));
    }
  }
  return out;
}

void Database::CopyFrom(Database& from) {
  sqlite3_backup* backup = sqlite3_backup_init(db_, "main", from.get(), "main");
  if (backup == nullptr) Fail("cannot copy " + from.name_ + " into it");
  const int rc = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    throw Error(Error::Code::kInvalidArgument, "cannot copy " + from.name_ + " (" + from.path_ +
                                                   ") into " + path_ + ": " + sqlite3_errstr(rc));
  }
}

namespace {

// Copies the file `from` to the new file `to` in the kernel (copy_file_range; read and write
// where the file systems do not allow it). Throws naming the file and the system's reason.
void CopyBytes(const std::string& from, const std::string& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  const int out = in < 0 ? -1 : ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  // A working copy that cannot be written is the output folder's problem (full, read-only).
  const std::string no_room = "; make room in that folder, or name another for --out";
  const auto fail = [&](const std::string& what, const std::string& fix) {
    const std::string reason = std::strerror(errno);
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    throw Error(Error::Code::kInvalidArgument, "cannot " + what + ": " + reason + fix);
  };
  if (in < 0) fail("read " + from, "; check that it can be read");
  if (out < 0) fail("write " + to, no_room);
  bool kernel = true;
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  ReadBuffer buffer;  // on a page: read_buffer.h
  for (;;) {
    ssize_t n = kernel ? ::copy_file_range(in, nullptr, out, nullptr, std::size_t{1} << 30, 0) : 0;
    if (kernel && n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS)) kernel = false;
    if (!kernel) {
      if (buffer == nullptr) buffer = NewReadBuffer(kBytes);
      n = ::read(in, buffer.get(), kBytes);
      // A short write (the disk filling up) is followed by one that fails with the reason.
      for (ssize_t done = 0; n > 0 && done < n;) {
        const ssize_t w = ::write(out, buffer.get() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno != EINTR) fail("write " + to, no_room);
        done += w > 0 ? w : 0;
      }
    }
    if (n == 0) break;
    if (n < 0) fail("copy " + from + " to " + to, no_room);
  }
  ::close(in);
  if (::close(out) != 0) fail("write " + to, no_room);
}

}  // namespace

bool Database::IsWal() {
  return Integer("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'") != 0;
}

bool Database::CopyFileTo(const std::string& to) {
  if (IsWal()) return false;  // committed pages may be in the -wal file, not in the file alone
  // A read transaction: SQLite's shared lock on the file, so no writer commits while it is
  // copied (a writer needs the exclusive lock), and the copy is one committed state.
  Exec("BEGIN");
  try {
    Integer("SELECT count(*) FROM sqlite_schema");
    CopyBytes(path_, to);
  } catch (...) {
    TryExec("ROLLBACK");
    throw;
  }
  Exec("COMMIT");
  return true;
}

}  // namespace steadyflake::mergecheck::merge
