// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The SQLite reader's trust rules (docs/merging.md "What a SQLite input is"), each against the
// way it was once broken: a WAL database through a symlink, a writer during the check, a file
// truncated under the direct reader, damage in a page the key scan never reads, a hot journal,
// and inputs that are not regular files.

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "page_order_test_util.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

using page_order_test::ErrorOf;
using testing::ReadFile;
using testing::RecordingVisitor;
using testing::TempDir;
using testing::WriteFile;

// A read-write connection of a test's own: another process, as far as the reader can tell.
class Connection {
 public:
  explicit Connection(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) ADD_FAILURE() << sqlite3_errmsg(db_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { sqlite3_close(db_); }
  // SQLite's result code for `sql`.
  int Exec(const std::string& sql) {
    return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  }

 private:
  sqlite3* db_ = nullptr;
};

// Calls `hook` when the table named `at` comes up, then reads its id column alone (straight
// from the b-tree pages when it is the rowid).
class HookVisitor : public RecordingVisitor {
 public:
  HookVisitor(std::string at, std::function<void()> hook)
      : at_(std::move(at)), hook_(std::move(hook)) {}
  std::vector<int> OnTable(const Table& table) override {
    RecordingVisitor::OnTable(table);
    if (table.name == at_) hook_();
    return {0};
  }

 private:
  std::string at_;
  std::function<void()> hook_;
};

constexpr char kTwoTables[] =
    "CREATE TABLE a(id INTEGER PRIMARY KEY, name TEXT);"
    "CREATE TABLE b(id INTEGER PRIMARY KEY, name TEXT);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)"
    " INSERT INTO a SELECT i, printf('row %d', i) FROM n;"
    "INSERT INTO b SELECT * FROM a;";

// 1. The log beside the real file holds the newest rows; a symlink elsewhere has none beside it.
TEST(SqliteTrustTest, WalDatabaseThroughASymlinkIsReadWithItsLog) {
  TempDir dir;
  std::filesystem::create_directory(dir.File("real"));
  const std::string db = dir.File("real/a.db");
  testing::ExecSql(db, "PRAGMA journal_mode=WAL;");
  testing::MakeDb(db, {"game_schema.sql", "game_a.sql"});
  Connection writer(db);  // a live server: its last row is only in real/a.db-wal
  ASSERT_EQ(writer.Exec("PRAGMA wal_autocheckpoint=0; INSERT INTO item VALUES(42, 1, 'new');"),
            SQLITE_OK);
  std::filesystem::create_symlink(db, dir.File("link.db"));
  RecordingVisitor v;
  OpenSource(dir.File("link.db"))->Scan(v, {});
  EXPECT_EQ(v.rows.at("item").size(), 7u);
  EXPECT_FALSE(std::filesystem::exists(dir.File("link.db-wal")));
}

// 1. A WAL database with no log when it is opened may get one before it is read: it is never
// opened immutable, which would hide the log.
TEST(SqliteTrustTest, WalDatabaseSeesALogThatAppearsAfterItIsOpened) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, "PRAGMA journal_mode=WAL;");
  testing::MakeDb(db, {"game_schema.sql", "game_a.sql"});
  ASSERT_FALSE(std::filesystem::exists(db + "-wal"));
  const auto source = OpenSource(db);
  Connection writer(db);
  ASSERT_EQ(writer.Exec("PRAGMA wal_autocheckpoint=0; INSERT INTO item VALUES(42, 1, 'new');"),
            SQLITE_OK);
  RecordingVisitor v;
  source->Scan(v, {});
  EXPECT_EQ(v.rows.at("item").size(), 7u);
}

// Issue 16.4a: the direct b-tree reader must never read a database whose -wal log holds rows;
// the report names the reader each input went through, so the path taken is seen. B's only
// conflicting row lives in its log: read from the pages, the check would say "safe".
TEST(SqliteTrustTest, AConflictOnlyInTheLogIsFoundAndTheReaderNamed) {
  TempDir dir;
  const std::string a = dir.File("a.db"), b = dir.File("b.db");
  constexpr char kMail[] = "CREATE TABLE mail(id INTEGER PRIMARY KEY, body TEXT);";
  testing::ExecSql(
      a, std::string(kMail) + "INSERT INTO mail VALUES(1, 'x'), (2, 'y'), (9000000001, 'z');");
  testing::ExecSql(b, std::string("PRAGMA journal_mode=WAL;") + kMail +
                          "INSERT INTO mail VALUES(5, 'x'), (6, 'y');");
  Connection writer(b);  // a live server: its last row is only in b.db-wal
  ASSERT_EQ(writer.Exec("PRAGMA wal_autocheckpoint=0; INSERT INTO mail VALUES(9000000001, 'w');"),
            SQLITE_OK);
  ASSERT_GT(std::filesystem::file_size(b + "-wal"), 0u);

  const Report r = Check(a, b, Options{});
  EXPECT_EQ(r.inputs[0].reader, "b-tree pages");
  EXPECT_EQ(r.inputs[1].reader, "SQLite: its -wal log holds rows the database file does not");
  ASSERT_EQ(r.keys.size(), 1u);
  EXPECT_EQ(r.keys[0].rows_b, 3u);
  EXPECT_EQ(r.keys[0].overlap, 1u) << "the row in the log was not read";
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("A: " + a + " (sqlite, 1 table, 3 rows; reader: b-tree pages)"),
            std::string::npos)
      << text;
  EXPECT_NE(FormatJson(r).find("\"reader\":\"SQLite: its -wal log"), std::string::npos);

  // Once the log is checkpointed into the file, B is read from its pages too, same answer.
  ASSERT_EQ(writer.Exec("PRAGMA wal_checkpoint(TRUNCATE);"), SQLITE_OK);
  const Report after = Check(a, b, Options{});
  EXPECT_EQ(after.inputs[1].reader, "b-tree pages");
  ASSERT_EQ(after.keys.size(), 1u);
  EXPECT_EQ(after.keys[0].overlap, 1u);
}

// Issue 16.4b: crafted files, each damaged where a reader without its bound checks would read
// outside the page or the file. Check() refuses each (the CLI's exit 2) naming the page, with
// no signal: under the ASan stage of scripts/test a read out of bounds would abort the test.
// `damage` edits the bytes of a sound file built by `sql` at page size 512; returns the page the
// error must name and the problem it must state.
struct Damage {
  uint32_t page;
  std::string problem;
};
struct CraftedCase {
  const char* name;
  const char* sql;
  std::function<Damage(const std::string& path, std::string& bytes)> damage;
};

TEST(SqliteTrustTest, CraftedFilesAreRefusedNamingThePage) {
  using testing::Get32;
  using testing::PageSize;
  using testing::Put32;
  constexpr char kMail[] =
      "CREATE TABLE mail(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO mail VALUES(1, 'x'), (2, 'y'), (9000000001, 'z');";
  // One row whose body runs over a chain of overflow pages; `note` has a text key too, so it is
  // read through SQLite, not the pages.
  constexpr char kNote[] =
      "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);"
      "INSERT INTO note VALUES(1, printf('%.*c', 5000, 'y'));";
  const std::vector<CraftedCase> cases = {
      {"a cell pointer past the end of the page (the last page of the file, read directly)", kMail,
       [](const std::string&, std::string& bytes) {
         const std::size_t page = PageSize(bytes);
         const uint32_t last = static_cast<uint32_t>(bytes.size() / page);
         const std::size_t header = (last - 1) * page;
         EXPECT_EQ(bytes[header], '\x0d') << "the last page is no table leaf";
         bytes[header + 8] = '\xff';  // the first cell pointer: 0xfff0
         bytes[header + 9] = '\xf0';
         return Damage{last, "a cell lies outside the page"};
       }},
      {"an overflow page number past the end of the file", kNote,
       [](const std::string& path, std::string& bytes) {
         // The chain's first page: the overflow page no other overflow page points to.
         const std::vector<uint32_t> overflow = testing::PagesOfType(path, "overflow");
         const std::size_t page = PageSize(bytes);
         std::vector<uint32_t> firsts = overflow;
         for (const uint32_t p : overflow) {
           std::erase(firsts, Get32(bytes, (p - 1) * page));
         }
         EXPECT_EQ(firsts.size(), 1u);
         // Its number, at the end of the leaf cell that holds the row: point it past the file.
         const uint32_t leaf = testing::PagesOfType(path, "leaf", "note").at(0);
         std::string number(4, '\0');
         Put32(number, 0, firsts.at(0));
         const std::size_t at = bytes.find(number, (leaf - 1) * page + 8);
         EXPECT_LT(at, leaf * page) << "the leaf cell's overflow pointer was not found";
         Put32(bytes, at, 999999);
         return Damage{leaf, "it points to page 999999, beyond the end of the file"};
       }},
      {"a header page count larger than the file", kMail,
       [](const std::string&, std::string& bytes) {
         // Valid as SQLite reads it: the change counter (24) equals version-valid-for (92).
         const auto pages = static_cast<uint32_t>(bytes.size() / PageSize(bytes));
         Put32(bytes, 28, pages + 100);
         EXPECT_EQ(Get32(bytes, 24), Get32(bytes, 92));
         return Damage{1, "the header says the file has " + std::to_string(pages + 100) +
                              " pages, but it has " + std::to_string(pages)};
       }},
  };
  for (const CraftedCase& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string a = dir.File("a.db"), b = dir.File("b.db");
    testing::ExecSql(a, c.sql);
    testing::ExecSql(b, std::string("PRAGMA page_size=512;") + c.sql);
    std::string bytes = ReadFile(b);
    const Damage damage = c.damage(b, bytes);
    WriteFile(b, bytes);
    const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
    EXPECT_NE(
        error.find(b + ": page " + std::to_string(damage.page) + " is damaged (" + damage.problem),
        std::string::npos)
        << error;
    EXPECT_EQ(ReadFile(b), bytes) << "the input was modified";
  }
}

// 2. A commit between the first scan and the second read of the same input: no verdict.
TEST(SqliteTrustTest, ACommitBetweenScansIsAnError) {
  for (const bool wal : {false, true}) {
    TempDir dir;
    const std::string db = dir.File("a.db");
    testing::ExecSql(db, std::string(wal ? "PRAGMA journal_mode=WAL;" : "") + kTwoTables);
    const auto source = OpenSource(db);
    RecordingVisitor first;
    source->Scan(first, {});
    Connection writer(db);
    ASSERT_EQ(writer.Exec("INSERT INTO b VALUES(99999, 'late');"), SQLITE_OK);
    const std::string message = ErrorOf([&] {
      RecordingVisitor second;
      source->Scan(second, {"b"});
    });
    EXPECT_EQ(message, db + ": the file changed during the check (another process wrote to it); "
                            "stop the game server that writes it, or check a copy of it (sqlite3 "
                            "FILE \".backup COPY\")")
        << (wal ? "WAL" : "rollback journal");
  }
}

// The exit status of the real sqlite3 shell running `sql` on `db`: another process, whose locks
// are SQLite's POSIX locks on the file (connections in one process share SQLite's own
// bookkeeping instead).
int Sqlite3Shell(const std::string& db, const std::string& sql) {
  return std::system(("sqlite3 '" + db + "' \"" + sql + "\" > /dev/null 2>&1").c_str());
}

// 2. While a scan reads pages straight from the file it holds SQLite's shared lock: a writer
// cannot commit (it once could, after the direct reader closed a descriptor of the file, which
// released every POSIX lock the process held on it).
TEST(SqliteTrustTest, WritersWaitWhileTheFileIsReadDirectly) {
  if (std::system("command -v sqlite3 > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "sqlite3 is not installed (Debian package sqlite3; scripts/setup installs it)";
  }
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, kTwoTables);
  int status = 0;
  HookVisitor v("b", [&] { status = Sqlite3Shell(db, "INSERT INTO a VALUES(99999, 'late');"); });
  OpenSource(db)->Scan(v, {});
  EXPECT_EQ(v.rows.at("a").size(), 4000u);  // read straight from the pages, before the hook
  EXPECT_NE(status, 0) << "a writer committed while the scan held its read lock";
  EXPECT_EQ(Sqlite3Shell(db, "INSERT INTO a VALUES(99998, 'later');"), 0);  // after the scan
}

// 2. A file cut short under the direct reader (by a process that ignores SQLite's locks): an
// error naming the change, never a signal.
TEST(SqliteTrustTest, AFileTruncatedDuringTheScanIsAnErrorNotASignal) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, kTwoTables);
  const auto size = std::filesystem::file_size(db);
  HookVisitor v("b", [&] { ASSERT_EQ(::truncate(db.c_str(), static_cast<off_t>(size / 4)), 0); });
  const std::string message = ErrorOf([&] { OpenSource(db)->Scan(v, {}); });
  EXPECT_EQ(message.rfind(db + ": the file changed during the check", 0), 0u) << message;
}

// Bytes 16-17 of the header: the page size (1 means 65536).
std::size_t PageSizeOf(const std::string& bytes) {
  const std::size_t size =
      static_cast<unsigned char>(bytes[16]) << 8 | static_cast<unsigned char>(bytes[17]);
  return size == 1 ? 65536 : size;
}

// The first number `sql` gives for `name` (?1) in the database at `db`, or 0.
int64_t QueryPage(const std::string& db, const char* sql, const std::string& name) {
  sqlite3* handle = nullptr;
  sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(handle, sql, -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  const int64_t root = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  sqlite3_close(handle);
  return root;
}

int64_t RootPage(const std::string& db, const std::string& name) {
  return QueryPage(db, "SELECT rootpage FROM sqlite_master WHERE name = ?1", name);
}

// The left-most leaf of the b-tree `name` (SQLite's dbstat table).
int64_t FirstLeaf(const std::string& db, const std::string& name) {
  return QueryPage(db,
                   "SELECT pageno FROM dbstat WHERE name = ?1 AND pagetype = 'leaf' ORDER BY "
                   "path LIMIT 1",
                   name);
}

// Overwrites page `page` (1-based) of the file at `path` with `fill`.
void OverwritePage(const std::string& path, int64_t page, char fill) {
  std::string bytes = ReadFile(path);
  const std::size_t size = PageSizeOf(bytes);
  ASSERT_LE(static_cast<std::size_t>(page) * size, bytes.size());
  for (std::size_t i = 0; i < size; ++i)
    bytes[static_cast<std::size_t>(page - 1) * size + i] = fill;
  WriteFile(path, bytes);
}

constexpr char kPlayers[] =
    "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
    " INSERT INTO player SELECT i, printf('player number %d', i) FROM n;";

// 3. The UNIQUE autoindex is never read by the key scan (it reads the table): its damage is
// still exit 2, naming the page and the index.
TEST(SqliteTrustTest, DamageInAnIndexTheScanDoesNotReadIsNamed) {
  for (const char fill : {'\0', '\xab'}) {
    TempDir dir;
    const std::string db = dir.File("a.db");
    testing::ExecSql(db, kPlayers);
    const int64_t root = RootPage(db, "sqlite_autoindex_player_1");
    ASSERT_GT(root, 1);
    OverwritePage(db, root, fill);
    const std::string message = ErrorOf([&] {
      RecordingVisitor v;  // every column: the rows come through SQLite
      OpenSource(db)->Scan(v, {});
    });
    EXPECT_EQ(message.rfind(db + ": page " + std::to_string(root) +
                                " is damaged (it is not an index b-tree page); it belongs to "
                                "index sqlite_autoindex_player_1 of table player; ",
                            0),
              0u)
        << message;
  }
}

// 3. The structure check rides along the key scan's walk of a rowid table (its pages are read
// once) and walks the other trees after it: one record of the pages used serves both, so a page
// the walked table and another tree both claim is found. Here item's right-most child is a leaf
// of tag's table, whose only key is a text one read from its index, so no scan walks tag.
TEST(SqliteTrustTest, APageOfTheScannedTableAndAnotherTreeIsNamed) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const char* const sql =
      "PRAGMA page_size=512;"
      "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);"
      "CREATE TABLE tag(label TEXT PRIMARY KEY, note TEXT);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
      " INSERT INTO item SELECT i, printf('item %d', i) FROM n;"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
      " INSERT INTO tag(rowid, label, note) SELECT 1000 + i, printf('tag %d', i), 'x' FROM n;";
  testing::ExecSql(a, sql);
  testing::ExecSql(b, sql);
  std::string bytes = ReadFile(b);
  const std::size_t page = testing::PageSize(bytes);
  const auto root = static_cast<uint32_t>(RootPage(b, "item"));
  ASSERT_EQ(bytes[(root - 1) * page], '\x05') << "item's root is no interior page";
  // tag's rowids (1001..1300) follow item's: the walk of item finds them in order (its own last
  // leaf is no longer pointed to), and tag's walk meets the leaf again.
  const uint32_t leaf = testing::PagesOfType(b, "leaf", "tag").back();
  testing::Put32(bytes, (root - 1) * page + 8, leaf);
  WriteFile(b, bytes);
  const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
  EXPECT_NE(error.find(b + ": page " + std::to_string(leaf) + " is damaged (it is used twice"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("it belongs to table tag; "), std::string::npos) << error;
}

// 3. A table that no pass reads, its key read from its index, is checked beside the walk of
// that index from the pages of the walk's runs, and after it where they did not hold it: in the
// first scan for a BIGINT primary key, in the merge's later walk for a composite one (the scan
// skips the table), and once the merge is done when the other input lacks the table (no walk).
// Damage in any of its leaves (the first, one in the middle, the last) is named as the table's,
// never the index's. Small pages interleave the two trees through the file; with 64 KiB pages
// the index is one page and a run four, so the table's later leaves lie beyond every run.
TEST(SqliteTrustTest, DamageInATableCheckedBesideItsIndexIsNamed) {
  struct Layout {
    int page_size;
    int rows;
    int note_bytes;
  };
  struct Schema {
    const char* table;
    const char* key;  // the primary key's columns, their values made from i
    const char* values;
  };
  for (const Schema schema :
       {Schema{"account", "id BIGINT PRIMARY KEY", "%1$lld + i * 7919 % 100003"},
        Schema{"inventory", "owner INTEGER, slot INTEGER, PRIMARY KEY(owner, slot)",
               "%1$lld + i * 7919 % 100003, i % 7"}}) {
    for (const Layout layout : {Layout{512, 2000, 10}, Layout{65536, 600, 1000}}) {
      for (const bool drift : {false, true}) {
        if (drift && std::string(schema.table) == "account") continue;  // its scan walks it
        SCOPED_TRACE(std::string(schema.table) + ", page size " + std::to_string(layout.page_size) +
                     (drift ? ", B without the table" : ""));
        TempDir dir;
        const std::string damaged = dir.File("damaged.db");
        const std::string other = dir.File("other.db");
        // No key in both: no row is looked up, so only the structure check reads the table.
        const auto sql = [&](long long first) {
          char values[160];
          std::snprintf(values, sizeof values, schema.values, first);
          return "PRAGMA page_size=" + std::to_string(layout.page_size) + "; CREATE TABLE " +
                 schema.table + "(note TEXT, " + schema.key + ");" +
                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
                 std::to_string(layout.rows) + ") INSERT INTO " + schema.table +
                 " SELECT printf('%." + std::to_string(layout.note_bytes) + "d', i), " + values +
                 " FROM n;";
        };
        testing::ExecSql(damaged, sql(1000000));
        testing::ExecSql(other, drift ? "CREATE TABLE elsewhere(id INTEGER PRIMARY KEY);" : sql(0));
        const std::string sound = ReadFile(damaged);
        const std::vector<uint32_t> leaves = testing::PagesOfType(damaged, "leaf", schema.table);
        ASSERT_GE(leaves.size(), 8u);
        for (const uint32_t leaf : {leaves.front(), leaves[leaves.size() / 2], leaves.back()}) {
          WriteFile(damaged, sound);
          OverwritePage(damaged, leaf, '\xab');
          const std::string error = ErrorOf([&] { Check(other, damaged, Options{}); });
          EXPECT_EQ(error.rfind(damaged + ": page " + std::to_string(leaf) +
                                    " is damaged (it is not a table b-tree page); it belongs to "
                                    "table " +
                                    schema.table + "; ",
                                0),
                    0u)
              << error;
        }
      }
    }
  }
}

// 3. The same across the two threads of the check: the freelist (walked beside the scan) lists
// a leaf of the table the scan walks. Whichever claims the page second names it.
TEST(SqliteTrustTest, APageOfTheScannedTableAndTheFreelistIsNamed) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const char* const sql =
      "PRAGMA page_size=512;"
      "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);"
      "CREATE TABLE junk(x TEXT);"
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
      " INSERT INTO item SELECT i, printf('item %d', i) FROM n;"
      "INSERT INTO junk SELECT name FROM item;"
      "DROP TABLE junk;";
  testing::ExecSql(a, sql);
  testing::ExecSql(b, sql);
  std::string bytes = ReadFile(b);
  const std::size_t page = testing::PageSize(bytes);
  const uint32_t trunk = testing::Get32(bytes, 32);
  ASSERT_NE(trunk, 0u) << "no freelist";
  ASSERT_GT(testing::Get32(bytes, (trunk - 1) * page + 4), 0u) << "the trunk lists no leaf";
  const uint32_t leaf = testing::PagesOfType(b, "leaf", "item").back();
  testing::Put32(bytes, (trunk - 1) * page + 8, leaf);  // its first leaf is now item's
  WriteFile(b, bytes);
  const std::string error = ErrorOf([&] { Check(a, b, Options{}); });
  EXPECT_NE(error.find(b + ": page " + std::to_string(leaf) + " is damaged (it is used twice"),
            std::string::npos)
      << error;
}

// 3. The same with the newest pages in a log: SQLite's quick_check, through the snapshot.
TEST(SqliteTrustTest, DamageInAnIndexOfALiveWalDatabaseIsNamed) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, std::string("PRAGMA journal_mode=WAL;") + kPlayers);
  const int64_t leaf = FirstLeaf(db, "sqlite_autoindex_player_1");
  ASSERT_GT(leaf, RootPage(db, "sqlite_autoindex_player_1"));
  Connection writer(db);
  // 'zzz' goes to the index's last leaf: the first stays in the file alone.
  ASSERT_EQ(writer.Exec("PRAGMA wal_autocheckpoint=0; INSERT INTO player VALUES(1e6, 'zzz');"),
            SQLITE_OK);
  ASSERT_GT(std::filesystem::file_size(db + "-wal"), 0u);
  OverwritePage(db, leaf, '\xab');
  const std::string message = ErrorOf([&] {
    RecordingVisitor v;
    OpenSource(db)->Scan(v, {});
  });
  EXPECT_NE(message.find(db + ": page "), std::string::npos) << message;
  EXPECT_NE(message.find("SQLite's quick_check says"), std::string::npos) << message;
}

// 3. The same when the visitor stops that scan before its end, where SQLite's quick_check runs:
// the check is not counted as done, and the check's end (Source::FinishStructureCheck) runs it.
TEST(SqliteTrustTest, DamageInALiveWalDatabaseWhoseScanWasStoppedIsNamedAtTheEnd) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, std::string("PRAGMA journal_mode=WAL;") + kPlayers);
  const int64_t leaf = FirstLeaf(db, "sqlite_autoindex_player_1");
  Connection writer(db);
  ASSERT_EQ(writer.Exec("PRAGMA wal_autocheckpoint=0; INSERT INTO player VALUES(1e6, 'zzz');"),
            SQLITE_OK);
  OverwritePage(db, leaf, '\xab');
  struct Stopping : RecordingVisitor {
    void OnRow(const Table&, std::span<const Cell>, uint64_t) override {
      throw std::runtime_error("the visitor stops");
    }
  } stopping;
  const std::unique_ptr<Source> source = OpenSource(db);
  EXPECT_THROW(source->Scan(stopping, {}), std::runtime_error);
  const std::string message = ErrorOf([&] { source->FinishStructureCheck(); });
  EXPECT_NE(message.find("SQLite's quick_check says"), std::string::npos) << message;
}

// 5. A writer that crashed mid-transaction leaves a hot journal a reader cannot roll back.
TEST(SqliteTrustTest, AHotJournalSaysWhatHappenedAndWhatToDo) {
  TempDir dir;
  const std::string db = dir.File("live.db");
  testing::ExecSql(db, kPlayers);
  {
    Connection writer(db);
    // A small cache makes the transaction spill changed pages into the file; the copies taken
    // now are what a crash would leave.
    ASSERT_EQ(writer.Exec("PRAGMA cache_size=10; BEGIN; UPDATE player SET name = name || '!';"),
              SQLITE_OK);
    ASSERT_TRUE(std::filesystem::exists(db + "-journal"));
    std::filesystem::copy_file(db, dir.File("crashed.db"));
    std::filesystem::copy_file(db + "-journal", dir.File("crashed.db-journal"));
    ASSERT_EQ(writer.Exec("ROLLBACK;"), SQLITE_OK);
  }
  const std::string crashed = dir.File("crashed.db");
  const std::string journal = ReadFile(crashed + "-journal");
  const std::string message = ErrorOf([&] {
    RecordingVisitor v;
    OpenSource(crashed)->Scan(v, {});
  });
  EXPECT_NE(message.find("it has a hot journal (" + crashed + "-journal)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("open it once with 'sqlite3 " + crashed), std::string::npos) << message;
  EXPECT_EQ(message.find("readonly database"), std::string::npos) << message;
  EXPECT_EQ(ReadFile(crashed + "-journal"), journal);  // nothing rolled back by the check
}

// 5. A FIFO (or any non-regular file) is refused at once, without blocking on a writer that
// never comes.
TEST(SqliteTrustTest, RefusesAFifoWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.File("input.sql");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string message = ErrorOf([&] { OpenSource(fifo); });
  EXPECT_EQ(message, fifo +
                         ": is not a regular file (a pipe, socket or device), and the check "
                         "reads each input more than once; save it to a file and pass that");
}

}  // namespace
}  // namespace steadyflake::mergecheck
