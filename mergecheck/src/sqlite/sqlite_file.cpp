// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SqliteFile: opening, errors, and the content's identity.

#include "sqlite/sqlite_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sqlite/page_file.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

const char kCorruptFix[] =
    "the file is damaged or not a SQLite database: restore it from a backup, or try "
    "'sqlite3 FILE .recover' on a copy";

namespace {

constexpr char kChangedFix[] =
    "stop the game server that writes it, or check a copy of it (sqlite3 FILE \".backup "
    "COPY\")";

// The path with every symlink resolved, so that SQLite looks for -wal and -journal files beside
// the real file.
std::string RealPath(const std::string& path) {
  char* const real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) {
    throw Error(Error::Code::kInvalidArgument,
                path + ": cannot resolve the path: " + std::strerror(errno) + "; check the path");
  }
  std::string out = real;
  std::free(real);
  return out;
}

// "file:" URI for `path`, read-only, every byte but unreserved ones and '/' percent-encoded.
std::string FileUri(const std::string& path) {
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
  return uri;
}

}  // namespace

SqliteFile::SqliteFile(const std::string& path) : path_(path), real_(RealPath(path)) {
  // Kept open until SQLite's connection is closed: closing any descriptor of the file would
  // release SQLite's locks on it (page_file.h).
  fd_ = ::open(real_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    throw Error(Error::Code::kInvalidArgument,
                path_ + ": cannot open: " + std::strerror(errno) + "; check the path");
  }
  const std::string uri = FileUri(real_);
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
    // SQLite's page cache, set after that read (which names what a damaged file fails at).
    // SQLite reads only the schema, the whole rows of the overlapping values by lookup and the
    // tables no b-tree walk serves. A cache of 64 pages keeps the upper interior pages the
    // lookups pass through again, is soon full and then reuses its pages; SQLite's default (2 MB)
    // allocates a page afresh at each miss until 500 are held, a page fault or more each and its
    // allocator's lock, shared with the other input's thread: 2,000 lookups a side took 35 ms
    // with it, 17 ms with 64 pages (docs/merge-check-performance.md, the seventh session).
    Exec("PRAGMA cache_size = 64");
  } catch (...) {
    // No destructor runs for a constructor that throws: close here (stmt is finalized).
    sqlite3_close_v2(db_);
    ::close(fd_);
    throw;
  }
}

SqliteFile::~SqliteFile() {
  sqlite3_close_v2(db_);
  ::close(fd_);  // after SQLite has let go of its locks
}

void SqliteFile::Fail(const std::string& what, int rc) const {
  // SQLite says only "malformed"; where the damage is a header that promises more pages than
  // the file has, name it (issue 16.4b). Not with frames in a -wal log: a checkpoint may write
  // page 1 before the pages that grow the file.
  if ((rc & 0xff) == SQLITE_CORRUPT && FileHoldsSnapshot()) {
    if (std::optional<BtreeDamage> damage = HeaderDamage()) ThrowDamaged(*damage);
  }
  const char* message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  std::string problem =
      std::string("SQLite says '") + message + "' (code " + std::to_string(rc) + ")";
  std::string fix = kCorruptFix;
  const int primary = rc & 0xff;
  if (rc == SQLITE_READONLY_ROLLBACK) {
    problem = "it has a hot journal (" + real_ +
              "-journal): a writer crashed in the middle of a transaction, and only a "
              "connection that may write can roll it back";
    fix = "open it once with 'sqlite3 " + real_ +
          " \"PRAGMA quick_check\"' (that rolls the transaction back), or check a copy of "
          "both files made with the journal beside it";
  } else if (rc == SQLITE_READONLY_RECOVERY || rc == SQLITE_READONLY_CANTINIT ||
             rc == SQLITE_READONLY_DIRECTORY) {
    problem = "its write-ahead log (" + real_ +
              "-wal) needs a connection that may write: it must be recovered, or the -shm "
              "file beside it cannot be created (" +
              message + ")";
    fix = "open it once with 'sqlite3 " + real_ +
          " \"PRAGMA quick_check\"' as a user who may write its folder, or check a copy";
  } else if (primary == SQLITE_CANTOPEN || primary == SQLITE_PERM || primary == SQLITE_READONLY ||
             primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    fix =
        "check the file's permissions and that no process is rewriting it (stop the game "
        "server), then retry";
  }
  throw Error(Error::Code::kInvalidArgument, path_ + ": " + what + ": " + problem + "; " + fix);
}

void SqliteFile::Exec(const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) Fail(std::string("cannot run ") + sql, rc);
}

void SqliteFile::Prepare(const std::string& sql, Statement& stmt) {
  const int rc =
      sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), stmt.out(), nullptr);
  if (rc != SQLITE_OK) Fail("cannot read the schema", rc);
}

void SqliteFile::Bind(Statement& stmt, const std::string& text) {
  sqlite3_bind_text(stmt.get(), 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

bool SqliteFile::Step(Statement& stmt, const std::string& what) {
  const int rc = sqlite3_step(stmt.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Fail(what, rc);
}

FileState SqliteFile::Observe() {
  FileState state;
  Statement stmt;
  // A file damaged since the last look may fail even this: that is a change too.
  state.data_version =
      sqlite3_prepare_v2(db_, "PRAGMA data_version", -1, stmt.out(), nullptr) == SQLITE_OK &&
              sqlite3_step(stmt.get()) == SQLITE_ROW
          ? sqlite3_column_int64(stmt.get(), 0)
          : -1;
  struct stat info {};
  if (::stat(real_.c_str(), &info) == 0) {
    state.device = info.st_dev;
    state.inode = info.st_ino;
    state.size = info.st_size;
    state.mtime_ns = int64_t{info.st_mtim.tv_sec} * 1000000000 + info.st_mtim.tv_nsec;
  }
  return state;
}

std::optional<BtreeDamage> SqliteFile::HeaderDamage() const {
  try {
    const PageFile file(fd_);  // the page size, and the pages the file holds
    std::vector<unsigned char> first(file.page_size());
    file.Read(1, 1, first.data());
    // SQLite trusts the header's page count (offset 28) only when the change counter (24)
    // equals the version-valid-for number (92); otherwise it goes by the file's size.
    using page_file_internal::Get32;
    const uint32_t claimed = Get32(first.data() + 28);
    if (claimed == 0 || Get32(first.data() + 24) != Get32(first.data() + 92) ||
        claimed <= file.pages()) {
      return std::nullopt;
    }
    return BtreeDamage{1,
                       "the header says the file has " + std::to_string(claimed) +
                           " pages, but it has " + std::to_string(file.pages()),
                       "the database header"};
  } catch (const DamagedPage&) {
    return std::nullopt;  // no header to say more of than SQLite did
  }
}

bool SqliteFile::FileHoldsSnapshot() const {
  unsigned char header[20] = {};
  if (::pread(fd_, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    return false;
  }
  if (header[18] != 2 && header[19] != 2) return true;
  struct stat wal {};
  if (::stat((real_ + "-wal").c_str(), &wal) != 0) return errno == ENOENT;
  return wal.st_size == 0;
}

void SqliteFile::ThrowChanged() const {
  throw Error(
      Error::Code::kInvalidArgument,
      path_ + ": the file changed during the check (another process wrote to it); " + kChangedFix);
}

void SqliteFile::ThrowDamaged(const BtreeDamage& damage) const {
  std::string message =
      path_ + ": page " + std::to_string(damage.page) + " is damaged (" + damage.problem + ")";
  if (!damage.owner.empty()) message += "; it belongs to " + damage.owner;
  throw Error(Error::Code::kInvalidArgument, message + "; " + kCorruptFix);
}

void SqliteFile::QuickCheck(const std::vector<Btree>& trees) {
  Statement stmt;
  Prepare("PRAGMA quick_check(1)", stmt);
  std::string result = "ok";
  if (Step(stmt, "cannot check the file's structure")) result = ColumnText(stmt.get(), 0);
  if (result == "ok") return;
  // "Tree 3 page 4 cell 0: ...", "On tree page 4 cell 0: ...", "Page 7: never used".
  BtreeDamage damage;
  damage.problem = "SQLite's quick_check says '" + result + "'";
  const auto number_after = [&result](std::string_view word) -> uint32_t {
    const std::size_t at = result.find(word);
    if (at == std::string::npos) return 0;
    return static_cast<uint32_t>(std::strtoul(result.c_str() + at + word.size(), nullptr, 10));
  };
  damage.page = number_after("page ");
  if (damage.page == 0) damage.page = number_after("Page ");
  const uint32_t root = number_after("Tree ");
  for (const Btree& tree : trees) {
    if (root != 0 && tree.root == root) damage.owner = tree.owner;
  }
  if (damage.page == 0) {
    throw Error(Error::Code::kInvalidArgument,
                path_ + ": the file is damaged (" + damage.problem + "); " + kCorruptFix);
  }
  ThrowDamaged(damage);
}

}  // namespace steadyflake::mergecheck
