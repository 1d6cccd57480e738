// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// FingerprintInput and FingerprintChange (steadyflake/mergecheck/fingerprint.h).

#include "steadyflake/mergecheck/fingerprint.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "source/read_buffer.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw Error(Error::Code::kInvalidArgument,
              path + ": cannot " + what + "; check that the file exists and can be read");
}

std::string Hex(XXH128_hash_t hash) {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(hash.high64),
                static_cast<unsigned long long>(hash.low64));
  return text;
}

// Feeds the bytes of `path` into `state`; false when there is no such file.
bool HashFile(const std::string& path, XXH3_state_t* state, bool must_exist) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (!must_exist && errno == ENOENT) return false;
    Fail(path, std::string("open it (") + std::strerror(errno) + ")");
  }
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  const ReadBuffer buffer = NewReadBuffer(kBytes);  // on a page: read_buffer.h
  for (;;) {
    const ssize_t n = ::read(fd, buffer.get(), kBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      Fail(path, std::string("read it (") + std::strerror(error) + ")");
    }
    if (n == 0) break;
    XXH3_128bits_update(state, buffer.get(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return true;
}

std::string IsoTime(const struct timespec& t) {
  struct tm utc {};
  gmtime_r(&t.tv_sec, &utc);
  char text[48];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long>(t.tv_nsec));
  return text;
}

bool IsSqliteFile(const std::string& path) {
  char header[16] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const std::size_t n = std::fread(header, 1, sizeof header, f);
  std::fclose(f);
  return n == sizeof header && std::memcmp(header, "SQLite format 3", 16) == 0;
}

using Db = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;

// The schema's hash and each table's rows, in one read transaction of SQLite's.
void ReadSqlite(const std::string& path, InputFingerprint& out) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw, &sqlite3_close);
  const auto fail = [&](const char* what) {
    Fail(path, std::string(what) + " (" + sqlite3_errmsg(db.get()) + ")");
  };
  if (rc != SQLITE_OK) fail("open it with SQLite");
  if (sqlite3_exec(db.get(), "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) fail("read it");
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(),
                         "SELECT type, name, coalesce(sql, '') FROM sqlite_schema "
                         "ORDER BY type, name",
                         -1, &stmt, nullptr) != SQLITE_OK) {
    fail("read its schema");
  }
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  std::vector<std::string> tables;
  int step;
  while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
    for (int i = 0; i < 3; ++i) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      const std::string value = text == nullptr ? "" : text;
      XXH3_128bits_update(state, value.c_str(), value.size() + 1);  // with its NUL: a separator
    }
    const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    const std::string sql = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2));
    if (type == "table" && sql.rfind("CREATE VIRTUAL", 0) != 0) {
      tables.push_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
    }
  }
  sqlite3_finalize(stmt);
  out.schema = Hex(XXH3_128bits_digest(state));
  XXH3_freeState(state);
  if (step != SQLITE_DONE) fail("read its schema");
  for (const std::string& table : tables) {
    std::string quoted = "\"";
    for (const char c : table) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    const std::string sql = "SELECT count(*) FROM " + quoted + "\"";
    if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK ||
        sqlite3_step(stmt) != SQLITE_ROW) {
      sqlite3_finalize(stmt);
      fail(("count the rows of table " + table).c_str());
    }
    out.rows[table] = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
    sqlite3_finalize(stmt);
  }
  sqlite3_exec(db.get(), "COMMIT", nullptr, nullptr, nullptr);
}

}  // namespace

InputFingerprint FingerprintInput(const std::string& path) {
  InputFingerprint out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    Fail(path, std::string("read it (") + std::strerror(errno) + ")");
  }
  out.size = static_cast<uint64_t>(st.st_size);
  out.mtime = IsoTime(st.st_mtim);
  const bool sqlite = IsSqliteFile(path);
  // The rows first: SQLite may write the -wal and -shm files as any reader does (never the
  // database file), and the hash should see the log as SQLite left it.
  if (sqlite) ReadSqlite(path, out);
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  try {
    HashFile(path, state, true);
    if (sqlite) HashFile(path + "-wal", state, false);
  } catch (...) {
    XXH3_freeState(state);
    throw;
  }
  out.content = Hex(XXH3_128bits_digest(state));
  XXH3_freeState(state);
  return out;
}

std::string FingerprintChange(const InputFingerprint& planned, const InputFingerprint& now) {
  if (planned.content == now.content && planned.size == now.size) return "";
  if (planned.schema != now.schema) return "its schema (a table, column or index changed)";
  for (const auto& [table, rows] : planned.rows) {
    const auto it = now.rows.find(table);
    if (it == now.rows.end()) return "table " + table + " (gone)";
    if (it->second != rows) {
      return "table " + table + ": " + GroupThousands(rows) + " rows at the plan, " +
             GroupThousands(it->second) + " now";
    }
  }
  if (planned.size != now.size) {
    return "its content (" + GroupThousands(planned.size) + " bytes at the plan, " +
           GroupThousands(now.size) + " now)";
  }
  return "its content (same size" +
         std::string(planned.rows.empty() ? "" : ", schema and row counts") +
         ": rows changed in place, modified " + now.mtime + ")";
}

}  // namespace steadyflake::mergecheck
