// Copyright 2026 The steadyflake Authors.
//
// The SQLite reader: schema from the database itself (sqlite_master and the table_info,
// index_list and index_info pragmas), rows by one SELECT of the wanted columns per table.
//
// The file is never modified and nothing is created beside it:
// - it is opened with SQLITE_OPEN_READONLY and the URI parameter mode=ro;
// - a WAL-mode database without a -wal file is opened immutable=1, because a read-only
//   connection to it would otherwise create -wal and -shm files; with no -wal file there is no
//   log to miss. A WAL-mode database that has a -wal file (a live or crashed server) is read
//   through its log, as SQLite would; SQLite may then touch its -shm file.
// - the whole scan runs in one read transaction, so it sees one consistent snapshot.
//
// Speed: a table whose wanted columns are at most its INTEGER PRIMARY KEY (the rowid) is read
// by RowidReader straight from the file's b-tree pages, when the file alone holds the database
// (no -wal or -journal beside it); every other table by one SELECT of its wanted columns.

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "rowid_reader.h"
#include "source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

constexpr char kCorruptFix[] =
    "the file is damaged or not a SQLite database: restore it from a backup, or try "
    "'sqlite3 FILE .recover' on a copy";

bool FileExists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

// "file:" URI for `path`, every byte but unreserved ones and '/' percent-encoded.
std::string FileUri(const std::string& path, bool immutable) {
  std::string uri = "file:";
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
        c == '-' || c == '_' || c == '.' || c == '~') {
      uri += ch;
    } else {
      uri += '%';
      AppendHexByte(uri, c);
    }
  }
  uri += "?mode=ro";
  if (immutable) uri += "&immutable=1";
  return uri;
}

// True if the header says WAL mode (file format version bytes 18 and 19 are 2).
bool IsWalMode(const std::string& path) {
  unsigned char header[20] = {};
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  const std::size_t n = std::fread(header, 1, sizeof header, file);
  std::fclose(file);
  return n == sizeof header && (header[18] == 2 || header[19] == 2);
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

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
std::string_view ColumnBytes(sqlite3_stmt* stmt, int i, bool as_text) {
  const void* data = as_text ? static_cast<const void*>(sqlite3_column_text(stmt, i))
                             : sqlite3_column_blob(stmt, i);
  if (data == nullptr) return {};
  return std::string_view(static_cast<const char*>(data),
                          static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
}

std::string_view ColumnText(sqlite3_stmt* stmt, int i) { return ColumnBytes(stmt, i, true); }

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
      char* const first = real_text.data();
      const auto r = std::to_chars(first, first + real_text.size(), cell.real);
      cell.bytes = std::string_view(first, static_cast<std::size_t>(r.ptr - first));
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

class SqliteSource final : public Source {
 public:
  explicit SqliteSource(std::string path) : path_(std::move(path)) {
    const bool wal = IsWalMode(path_);
    const bool immutable = wal && !FileExists(path_ + "-wal");
    // With a log or a journal beside it, the file alone is not the database.
    direct_ok_ = (!wal || immutable) && !FileExists(path_ + "-journal");
    const std::string uri = FileUri(path_, immutable);
    const int rc = sqlite3_open_v2(
        uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    try {
      if (rc != SQLITE_OK) Fail("cannot open", rc);
      sqlite3_extended_result_codes(db_, 1);
      // Validates the header and schema now, so a bad file fails at open with its name.
      Statement stmt;
      Prepare("SELECT count(*) FROM sqlite_master", stmt);
      const int step = sqlite3_step(stmt.get());
      if (step != SQLITE_ROW) Fail("cannot read the schema", step);
    } catch (...) {
      // No destructor runs for a constructor that throws: close here (stmt is finalized).
      sqlite3_close_v2(db_);
      throw;
    }
  }

  ~SqliteSource() override { sqlite3_close_v2(db_); }

  std::string format() const override { return "sqlite"; }

  uint64_t bytes_read() const override { return bytes_.load(std::memory_order_relaxed); }
  uint64_t rows_read() const override { return rows_.load(std::memory_order_relaxed); }

  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    // Progress counters are for display only, so relaxed order is enough for them.
    rows_.store(0, std::memory_order_relaxed);
    bytes_.store(0, std::memory_order_relaxed);
    misses_at_start_ = CacheMisses();
    direct_bytes_ = 0;
    Exec("BEGIN");
    try {
      // A deferred BEGIN takes SQLite's shared lock at its first read: take it now, so no
      // writer changes the file while RowidReader reads it directly.
      const std::vector<TableRef> refs = TableRefs();
      // Mapped when the first table it can read comes up.
      std::unique_ptr<RowidReader> direct;
      bool direct_failed = !direct_ok_;
      for (const TableRef& ref : refs) {
        int alias = -1;
        const Table table = ReadTable(ref.name, alias);
        const std::vector<int> wanted = visitor.OnTable(table);
        bool selected = only.empty();
        for (const std::string& o : only) selected = selected || o == ref.name;
        if (!selected) continue;
        bool rowid_only = !direct_failed && alias >= 0 && ref.root > 0;
        for (const int c : wanted) rowid_only = rowid_only && c == alias;
        if (rowid_only && direct == nullptr) {
          try {
            direct = std::make_unique<RowidReader>(path_);
          } catch (const RowidReader::Corrupt&) {
            direct_failed = true;  // SQLite will say what is wrong
            rowid_only = false;
          }
        }
        if (rowid_only) {
          ReadRowids(*direct, ref.root, table, wanted, visitor);
        } else {
          ReadRows(table, wanted, visitor);
        }
      }
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    Exec("ROLLBACK");
  }

 private:
  struct TableRef {
    std::string name;
    uint32_t root = 0;  // the table b-tree's root page
  };

  [[noreturn]] void Fail(const std::string& what, int rc) const {
    const char* message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    std::string fix = kCorruptFix;
    const int primary = rc & 0xff;
    if (primary == SQLITE_CANTOPEN || primary == SQLITE_PERM || primary == SQLITE_READONLY ||
        primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
      fix =
          "check the file's permissions and that no process is rewriting it (stop the game "
          "server), then retry";
    }
    throw Error(Error::Code::kInvalidArgument, path_ + ": " + what + ": SQLite says '" + message +
                                                   "' (code " + std::to_string(rc) + "); " + fix);
  }

  void Exec(const char* sql) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) Fail(std::string("cannot run ") + sql, rc);
  }

  void Prepare(const std::string& sql, Statement& stmt) {
    const int rc =
        sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), stmt.out(), nullptr);
    if (rc != SQLITE_OK) Fail("cannot read the schema", rc);
  }

  void Bind(Statement& stmt, const std::string& text) {
    sqlite3_bind_text(stmt.get(), 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }

  // Steps `stmt`; false when done. Throws with `what` on an error.
  bool Step(Statement& stmt, const std::string& what) {
    const int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Fail(what, rc);
  }

  // Ordinary tables in creation order: not sqlite_% internals, not virtual tables.
  std::vector<TableRef> TableRefs() {
    Statement stmt;
    Prepare(
        "SELECT name, rootpage FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
        "'sqlite\\_%' ESCAPE '\\' AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%' ORDER BY "
        "rowid",
        stmt);
    std::vector<TableRef> refs;
    while (Step(stmt, "cannot read the schema")) {
      const int64_t root = sqlite3_column_int64(stmt.get(), 1);
      refs.push_back(TableRef{std::string(ColumnText(stmt.get(), 0)),
                              root > 0 && root <= UINT32_MAX ? static_cast<uint32_t>(root) : 0});
    }
    return refs;
  }

  // The table's columns and keys. `alias` is set to its INTEGER PRIMARY KEY column (the rowid
  // under another name), or -1.
  Table ReadTable(const std::string& name, int& alias) {
    const std::string what = "cannot read the schema of table " + name;
    Table table;
    table.name = name;
    std::vector<std::pair<int, int>> pk;  // (position in the primary key, column)
    {
      Statement stmt;
      Prepare("SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid", stmt);
      Bind(stmt, name);
      while (Step(stmt, what)) {
        Column column;
        column.name = ColumnText(stmt.get(), 0);
        column.declared_type = ColumnText(stmt.get(), 1);
        column.affinity = AffinityOf(column.declared_type);
        const int position = sqlite3_column_int(stmt.get(), 2);
        if (position > 0) pk.emplace_back(position, static_cast<int>(table.columns.size()));
        table.columns.push_back(std::move(column));
      }
    }
    if (!pk.empty()) {
      std::sort(pk.begin(), pk.end());
      Key key;
      key.kind = Key::Kind::kPrimary;
      for (const auto& [position, column] : pk) key.columns.push_back(column);
      table.keys.push_back(std::move(key));
    }
    // Unique indexes: UNIQUE constraints (origin 'u') and CREATE UNIQUE INDEX (origin 'c').
    // The primary key's own index (origin 'pk') is the key above. Partial indexes (WHERE)
    // constrain only some rows and indexes on expressions hold no column values: neither is
    // checked (docs/merging.md).
    struct IndexRow {
      std::string name;
      bool usable;
    };
    std::vector<IndexRow> indexes;
    bool pk_index = false;  // the primary key has an index of its own: it is not the rowid
    {
      Statement stmt;
      Prepare("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", stmt);
      Bind(stmt, name);
      while (Step(stmt, what)) {
        const bool unique = sqlite3_column_int(stmt.get(), 1) != 0;
        const std::string_view origin = ColumnText(stmt.get(), 2);
        const bool partial = sqlite3_column_int(stmt.get(), 3) != 0;
        pk_index = pk_index || origin == "pk";
        if (!unique || origin == "pk" || partial) continue;
        indexes.push_back({std::string(ColumnText(stmt.get(), 0)), true});
      }
    }
    alias = -1;
    if (pk.size() == 1 && !pk_index &&
        EqualsIgnoreCase(table.columns[static_cast<std::size_t>(pk[0].second)].declared_type,
                         "INTEGER")) {
      alias = pk[0].second;
    }
    // pragma_index_list lists the newest index first; keys go in creation order.
    for (auto it = indexes.rbegin(); it != indexes.rend(); ++it) {
      Key key;
      key.kind = Key::Kind::kUnique;
      key.name = it->name;
      Statement stmt;
      Prepare("SELECT cid FROM pragma_index_info(?1) ORDER BY seqno", stmt);
      Bind(stmt, it->name);
      bool usable = true;
      while (Step(stmt, what)) {
        const int cid = sqlite3_column_int(stmt.get(), 0);
        if (cid < 0 || cid >= static_cast<int>(table.columns.size())) {
          usable = false;  // an expression (-2) or the rowid (-1)
        } else {
          key.columns.push_back(cid);
        }
      }
      if (!usable || key.columns.empty()) continue;
      bool duplicate = false;
      for (const Key& other : table.keys) duplicate = duplicate || other.columns == key.columns;
      if (!duplicate) table.keys.push_back(std::move(key));
    }
    return table;
  }

  // The name that selects the rowid of `table`, or "" when it has none (WITHOUT ROWID) or
  // columns shadow all three names.
  std::string RowidName(const Table& table) {
    for (const char* candidate : {"rowid", "_rowid_", "oid"}) {
      bool shadowed = false;
      for (const Column& c : table.columns)
        shadowed = shadowed || EqualsIgnoreCase(c.name, candidate);
      if (shadowed) continue;
      Statement stmt;
      const std::string sql =
          std::string("SELECT ") + candidate + " FROM " + QuoteIdentifier(table.name) + " LIMIT 0";
      if (sqlite3_prepare_v2(db_, sql.c_str(), -1, stmt.out(), nullptr) == SQLITE_OK) {
        return candidate;
      }
      return "";
    }
    return "";
  }

  void ReadRows(const Table& table, const std::vector<int>& wanted, SourceVisitor& visitor) {
    const std::string rowid = RowidName(table);
    std::string sql = "SELECT ";
    sql += rowid.empty() ? "0" : rowid;
    // A column named in a rowid alias (INTEGER PRIMARY KEY) is read straight from the rowid.
    for (const int column : wanted) {
      sql += ", ";
      sql += QuoteIdentifier(table.columns.at(static_cast<std::size_t>(column)).name);
    }
    sql += " FROM " + QuoteIdentifier(table.name);
    const std::string what = "cannot read table " + table.name;
    Statement stmt;
    {
      const int rc =
          sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), stmt.out(), nullptr);
      if (rc != SQLITE_OK) Fail(what, rc);
    }
    sqlite3_stmt* const s = stmt.get();
    std::vector<Cell> cells(wanted.size());
    // Text of REAL values (Cell::bytes "the literal as written"), one buffer per column.
    std::vector<std::array<char, 32>> reals(wanted.size());
    uint64_t ordinal = 0;
    uint64_t unpublished = 0;
    for (;;) {
      const int rc = sqlite3_step(s);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) Fail(what, rc);
      for (std::size_t i = 0; i < cells.size(); ++i) {
        ReadCell(s, static_cast<int>(i) + 1, reals[i], cells[i]);
      }
      const uint64_t position =
          rowid.empty() ? ordinal : static_cast<uint64_t>(sqlite3_column_int64(s, 0));
      ++ordinal;
      visitor.OnRow(table, cells, position);
      if (++unpublished == 4096) {
        Publish(unpublished);
        unpublished = 0;
      }
    }
    Publish(unpublished);
  }

  // Rows of a rowid table whose wanted columns are all its rowid alias, from RowidReader.
  void ReadRowids(const RowidReader& direct, uint32_t root, const Table& table,
                  const std::vector<int>& wanted, SourceVisitor& visitor) {
    std::vector<Cell> cells(wanted.size());
    for (Cell& cell : cells) cell.type = Cell::Type::kInteger;
    uint64_t unpublished = 0;
    uint64_t pages = 0;
    try {
      pages = direct.Walk(root, [&](int64_t rowid) {
        for (Cell& cell : cells) cell.integer = rowid;
        visitor.OnRow(table, cells, static_cast<uint64_t>(rowid));
        if (++unpublished == 4096) {
          rows_.fetch_add(unpublished, std::memory_order_relaxed);
          unpublished = 0;
        }
      });
    } catch (const RowidReader::Corrupt& corrupt) {
      throw Error(Error::Code::kInvalidArgument, path_ + ": cannot read table " + table.name +
                                                     ": page " + std::to_string(corrupt.page()) +
                                                     " is damaged (" + corrupt.what() + "); " +
                                                     kCorruptFix);
    }
    rows_.fetch_add(unpublished, std::memory_order_relaxed);
    direct_bytes_ += pages * direct.page_size();
    bytes_.store(direct_bytes_ + (CacheMisses() - misses_at_start_) * PageSize(),
                 std::memory_order_relaxed);
  }

  // Adds `rows` to the progress counters, with the bytes SQLite has read so far.
  void Publish(uint64_t rows) {
    const auto page_size = static_cast<uint64_t>(PageSize());
    rows_.fetch_add(rows, std::memory_order_relaxed);
    bytes_.store(direct_bytes_ + (CacheMisses() - misses_at_start_) * page_size,
                 std::memory_order_relaxed);
  }

  // Pages SQLite has read from the file on this connection.
  uint64_t CacheMisses() {
    int current = 0;
    int high = 0;
    sqlite3_db_status(db_, SQLITE_DBSTATUS_CACHE_MISS, &current, &high, 0);
    return static_cast<uint64_t>(current);
  }

  int PageSize() {
    if (page_size_ == 0) {
      Statement stmt;
      Prepare("PRAGMA page_size", stmt);
      page_size_ =
          Step(stmt, "cannot read the page size") ? sqlite3_column_int(stmt.get(), 0) : 4096;
    }
    return page_size_;
  }

  const std::string path_;
  sqlite3* db_ = nullptr;
  int page_size_ = 0;
  uint64_t misses_at_start_ = 0;
  uint64_t direct_bytes_ = 0;  // bytes RowidReader has read in this scan
  bool direct_ok_ = false;     // the file alone holds the database: RowidReader may read it
  std::atomic<uint64_t> rows_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace

std::unique_ptr<Source> OpenSqliteSource(const std::string& path) {
  return std::make_unique<SqliteSource>(path);
}

}  // namespace steadyflake::mergecheck
