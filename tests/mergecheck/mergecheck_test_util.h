// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the merge checker's tests share: temporary folders, SQLite databases built from the SQL
// fixtures in data/shards/, and a visitor that records what a Source gives it.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_MERGECHECK_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_MERGECHECK_TEST_UTIL_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "source/source.h"

namespace steadyflake::mergecheck::testing {

// The SQL fixtures (data/shards/), set by tests/mergecheck/CMakeLists.txt.
inline std::string ShardFile(const std::string& name) {
  return std::string(STEADYFLAKE_SHARDS_DIR) + "/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Bytes of a SQLite file, for tests that craft damage into one.
// The page size its header gives.
inline std::size_t PageSize(const std::string& bytes) {
  const std::size_t size =
      static_cast<unsigned char>(bytes[16]) << 8 | static_cast<unsigned char>(bytes[17]);
  return size == 1 ? 65536 : size;
}

// The big-endian 32-bit number at `at`.
inline uint32_t Get32(const std::string& bytes, std::size_t at) {
  return uint32_t{static_cast<unsigned char>(bytes[at])} << 24 |
         uint32_t{static_cast<unsigned char>(bytes[at + 1])} << 16 |
         uint32_t{static_cast<unsigned char>(bytes[at + 2])} << 8 |
         static_cast<unsigned char>(bytes[at + 3]);
}

inline void Put32(std::string& bytes, std::size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(value >> (24 - 8 * i));
}

// A page as SQLite's dbstat describes it: its number, its type ('internal', 'leaf', 'overflow')
// and its path in its b-tree ("/" the root, "/000/" its first child, and so on).
struct DbstatPage {
  uint32_t page = 0;
  std::string type;
  std::string path;
};

// The pages of the database at `path`, of the table or index `name` if given, in dbstat's order.
inline std::vector<DbstatPage> DbstatPages(const std::string& path, const std::string& name = "") {
  std::vector<DbstatPage> pages;
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT pageno, pagetype, path FROM dbstat WHERE ?1 = '' OR name = ?1", -1,
                     &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    pages.push_back(DbstatPage{static_cast<uint32_t>(sqlite3_column_int64(stmt, 0)),
                               reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)),
                               reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2))});
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return pages;
}

// The numbers of the pages of the database at `path` that dbstat gives `type`, of the table or
// index `name` if given, in dbstat's order.
inline std::vector<uint32_t> PagesOfType(const std::string& path, const std::string& type,
                                         const std::string& name = "") {
  std::vector<uint32_t> pages;
  for (const DbstatPage& p : DbstatPages(path, name)) {
    if (p.type == type) pages.push_back(p.page);
  }
  return pages;
}

// A fresh folder under $TMPDIR, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") +
                          "/steadyflake-mergecheck.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs `sql` on the SQLite database at `path` (created if missing). Throws with SQLite's
// message on failure.
inline void ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path + ": " + message);
  }
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "?";
    sqlite3_free(error);
    sqlite3_close(db);
    throw std::runtime_error("SQL failed on " + path + ": " + message);
  }
  sqlite3_close(db);
}

// Calls read(stmt) on the first row the query `sql` gives on the database at `path` (opened
// read-only). Throws on failure.
template <typename Read>
void QueryFirst(const std::string& path, const std::string& sql, Read&& read) {
  sqlite3* db = nullptr;
  sqlite3_stmt* stmt = nullptr;
  const bool ok = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
                  sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
                  sqlite3_step(stmt) == SQLITE_ROW;
  const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  if (ok) read(stmt);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  if (!ok) throw std::runtime_error("query failed on " + path + ": " + message);
}

// The integer the query `sql` gives first on the database at `path`. Throws on failure.
inline int64_t QueryInt(const std::string& path, const std::string& sql) {
  int64_t value = 0;
  QueryFirst(path, sql, [&](sqlite3_stmt* stmt) { value = sqlite3_column_int64(stmt, 0); });
  return value;
}

// The same as text ("" for NULL).
inline std::string QueryText(const std::string& path, const std::string& sql) {
  std::string value;
  QueryFirst(path, sql, [&](sqlite3_stmt* stmt) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    if (text != nullptr) value = reinterpret_cast<const char*>(text);
  });
  return value;
}

// A database at `path` from fixture files (in order) and then `extra` SQL.
inline std::string MakeDb(const std::string& path, const std::vector<std::string>& fixtures,
                          const std::string& extra = "") {
  std::string sql = "BEGIN;\n";
  for (const std::string& name : fixtures) sql += ReadFile(ShardFile(name));
  sql += extra;
  sql += "\nCOMMIT;\n";
  ExecSql(path, sql);
  return path;
}

// Shard A or B of the game fixture, plus `extra` SQL.
inline std::string MakeShard(const TempDir& dir, const std::string& name, char shard,
                             const std::string& extra = "") {
  return MakeDb(dir.File(name), {"game_schema.sql", std::string("game_") + shard + ".sql"}, extra);
}

// Records tables and rows as a Source delivers them; wants every column.
class RecordingVisitor : public SourceVisitor {
 public:
  struct Row {
    std::vector<Cell::Type> types;
    std::vector<std::string> values;  // decimal for numbers, the bytes otherwise
    uint64_t position = 0;
  };

  std::vector<int> OnTable(const Table& table) override {
    tables[table.name] = table;
    std::vector<int> all;
    for (std::size_t i = 0; i < table.columns.size(); ++i) all.push_back(static_cast<int>(i));
    return all;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    Row row;
    row.position = position;
    for (const Cell& c : cells) {
      row.types.push_back(c.type);
      switch (c.type) {
        case Cell::Type::kInteger:
          row.values.push_back(std::to_string(c.integer));
          break;
        case Cell::Type::kNull:
          row.values.emplace_back("NULL");
          break;
        default:
          row.values.emplace_back(c.bytes);
          break;
      }
    }
    rows[table.name].push_back(std::move(row));
  }

  std::map<std::string, Table> tables;
  std::map<std::string, std::vector<Row>> rows;
};

// Writes SQLite's varint of `value` at `out` (room for 9 bytes): up to eight bytes of 7 bits,
// each but the last with its high bit set, or nine, the ninth of 8 bits, for a value of 2^56 or
// more. Returns its length.
inline int PutVarint(uint64_t value, unsigned char* out) {
  if (value > (uint64_t{1} << 56) - 1) {
    out[8] = static_cast<unsigned char>(value);
    value >>= 8;
    for (int i = 7; i >= 0; --i) {
      out[i] = static_cast<unsigned char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    return 9;
  }
  unsigned char groups[8];
  int n = 0;
  do {
    groups[n++] = static_cast<unsigned char>(value & 0x7f);
    value >>= 7;
  } while (value != 0);
  for (int i = 0; i < n; ++i) out[i] = groups[n - 1 - i] | (i + 1 < n ? 0x80 : 0);
  return n;
}

// PutVarint at the end of `out`.
inline void AppendVarint(uint64_t value, std::vector<unsigned char>& out) {
  unsigned char bytes[9];
  out.insert(out.end(), bytes, bytes + PutVarint(value, bytes));
}

}  // namespace steadyflake::mergecheck::testing

#endif  // STEADYFLAKE_TESTS_MERGECHECK_MERGECHECK_TEST_UTIL_H_
