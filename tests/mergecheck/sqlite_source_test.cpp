// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The SQLite reader on databases built at test time from data/shards/: every kind of key, the
// rows, read-only access that leaves the folder untouched, and damaged files.

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "sqlite_source_test_util.h"
#include "steadyflake/error.h"
#include "test_util.h"

namespace steadyflake::mergecheck::sqlite_source_test {
namespace {

using testing::MakeShard;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

RecordingVisitor ScanAll(const std::string& path, const std::vector<std::string>& only = {}) {
  const auto source = OpenSource(path);
  EXPECT_EQ(source->format(), "sqlite");
  RecordingVisitor visitor;
  source->Scan(visitor, only);
  return visitor;
}

TEST(SqliteSourceTest, ReadsEveryKindOfKey) {
  TempDir dir;
  // AUTOINCREMENT and ANALYZE add sqlite_sequence and sqlite_stat1, which are skipped.
  const std::string db = MakeShard(dir, "a.db", 'a',
                                   "CREATE TABLE mail(id INTEGER PRIMARY KEY AUTOINCREMENT, body);"
                                   "INSERT INTO mail(body) VALUES('hi'); ANALYZE;");
  const RecordingVisitor v = ScanAll(db);
  std::vector<std::string> names;
  for (const auto& [name, table] : v.tables) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"account", "chat_log", "event", "guild_member",
                                             "inventory", "item", "mail", "player"}));

  const Table& player = v.tables.at("player");
  EXPECT_EQ(KeyColumns(player), (Names{{"id"}, {"name"}, {"email"}}));
  EXPECT_EQ(player.keys[0].kind, Key::Kind::kPrimary);
  EXPECT_EQ(player.keys[1].kind, Key::Kind::kUnique);
  EXPECT_EQ(player.keys[2].name, "player_email");
  EXPECT_EQ(player.columns[0].affinity, Affinity::kInteger);
  EXPECT_EQ(player.columns[1].affinity, Affinity::kText);
  EXPECT_EQ(KeyColumns(v.tables.at("item")), (Names{{"id"}}));
  EXPECT_EQ(KeyColumns(v.tables.at("inventory")), (Names{{"owner", "slot"}}));
  EXPECT_EQ(KeyColumns(v.tables.at("guild_member")), (Names{{"guild_id", "player_id"}}));
  EXPECT_EQ(KeyColumns(v.tables.at("account")), (Names{{"login"}, {"token"}}));
  EXPECT_EQ(v.tables.at("account").columns[1].affinity, Affinity::kBlob);
  // The partial index and the one on an expression are not keys.
  EXPECT_EQ(KeyColumns(v.tables.at("event")), (Names{{"id"}}));
  EXPECT_TRUE(v.tables.at("chat_log").keys.empty());
  EXPECT_EQ(v.tables.at("mail").columns[1].affinity, Affinity::kBlob);  // no declared type
}

TEST(SqliteSourceTest, ReadsRowsWithTheirTypesAndPositions) {
  TempDir dir;
  const RecordingVisitor v = ScanAll(MakeShard(dir, "a.db", 'a'));
  const auto& players = v.rows.at("player");
  ASSERT_EQ(players.size(), 3u);
  // The rowid alias arrives as the column's value, and the position is the rowid.
  EXPECT_EQ(players[0].values[0], "299767242424423424");
  EXPECT_EQ(players[0].types[0], Cell::Type::kInteger);
  EXPECT_EQ(players[0].position, 299767242424423424u);
  EXPECT_EQ(players[2].values[1], "O'Brien");
  EXPECT_EQ(players[2].types[2], Cell::Type::kNull);
  // WITHOUT ROWID: positions are ordinals.
  const auto& members = v.rows.at("guild_member");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].position, 0u);
  EXPECT_EQ(members[2].position, 2u);
  const auto& accounts = v.rows.at("account");
  ASSERT_EQ(accounts.size(), 2u);
  EXPECT_EQ(accounts[0].types[1], Cell::Type::kBlob);
  EXPECT_EQ(accounts[0].values[1], std::string("\x00\xff\x10", 3));
  EXPECT_EQ(v.rows.at("chat_log").size(), 2u);
}

TEST(SqliteSourceTest, OnlyAndWantedColumns) {
  TempDir dir;
  const std::string db = MakeShard(dir, "a.db", 'a');
  const RecordingVisitor v = ScanAll(db, {"item"});
  EXPECT_EQ(v.tables.size(), 7u);  // every table is defined
  EXPECT_EQ(v.rows.size(), 1u);    // rows of `only` tables only
  EXPECT_EQ(v.rows.at("item").size(), 6u);

  class OneColumn : public RecordingVisitor {
    std::vector<int> OnTable(const Table& table) override {
      RecordingVisitor::OnTable(table);
      return {static_cast<int>(table.columns.size()) - 1};
    }
  } last;
  OpenSource(db)->Scan(last, {"player"});
  std::vector<std::string> emails;
  for (const auto& row : last.rows.at("player")) {
    ASSERT_EQ(row.values.size(), 1u);
    emails.push_back(row.values[0]);
  }
  std::sort(emails.begin(), emails.end());
  EXPECT_EQ(emails, (std::vector<std::string>{"NULL", "alice@a.example", "bob@a.example"}));
}

// A snapshot of a folder: every file's name, bytes and modification time.
std::map<std::string, std::pair<std::string, int64_t>> Snapshot(const std::string& dir) {
  std::map<std::string, std::pair<std::string, int64_t>> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    struct stat info {};
    EXPECT_EQ(::stat(entry.path().c_str(), &info), 0);
    const int64_t mtime_ns = int64_t{info.st_mtim.tv_sec} * 1000000000 + info.st_mtim.tv_nsec;
    files[entry.path().filename()] = {ReadFile(entry.path()), mtime_ns};
  }
  return files;
}

// Reads the database `db`, alone in `dir`, twice. The database file is never written; a WAL
// database may get the -wal and -shm files any SQLite reader makes (docs/merging.md), with
// nothing in the log.
void ExpectUntouchedByReading(const std::string& dir, const std::string& db, bool wal) {
  const auto before = Snapshot(dir);
  ASSERT_EQ(before.size(), 1u);  // the database alone
  RecordingVisitor v;
  const auto source = OpenSource(db);
  source->Scan(v, {});
  source->Scan(v, {"item"});
  EXPECT_EQ(v.rows.at("player").size(), 3u);
  auto after = Snapshot(dir);
  if (wal) {
    const std::string name = std::filesystem::path(db).filename();
    if (after.count(name + "-wal") != 0) {
      EXPECT_EQ(after[name + "-wal"].first, "");
    }
    after.erase(name + "-wal");
    after.erase(name + "-shm");
  }
  EXPECT_EQ(after, before) << "the folder of " << db << " changed";
  EXPECT_FALSE(std::filesystem::exists(db + "-journal"));
}

TEST(SqliteSourceTest, LeavesARollbackJournalDatabaseAndItsFolderUntouched) {
  TempDir dir;
  const std::string db = MakeShard(dir, "a.db", 'a');
  ExpectUntouchedByReading(dir.path(), db, false);
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(db + "-shm"));
}

TEST(SqliteSourceTest, LeavesAWalDatabaseFileUntouched) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, "PRAGMA journal_mode=WAL;");
  testing::MakeDb(db, {"game_schema.sql", "game_a.sql"});
  // The last connection closed: SQLite checkpointed and removed -wal and -shm.
  ExpectUntouchedByReading(dir.path(), db, true);
}

TEST(SqliteSourceTest, ReadsRowsStillInTheWriteAheadLog) {
  TempDir dir;
  const std::string db = dir.File("a.db");
  testing::ExecSql(db, "PRAGMA journal_mode=WAL;");
  testing::MakeDb(db, {"game_schema.sql", "game_a.sql"});
  // A live writer: its last rows are only in a.db-wal while it stays open.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(writer, "PRAGMA wal_autocheckpoint=0; INSERT INTO item VALUES(42, 1, 'new');",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  ASSERT_TRUE(std::filesystem::exists(db + "-wal"));
  const RecordingVisitor v = ScanAll(db);
  sqlite3_close(writer);
  EXPECT_EQ(v.rows.at("item").size(), 7u);
}

// Bytes 16-17 of the header: the page size (1 means 65536).
std::size_t PageSizeOf(const std::string& bytes) {
  const std::size_t size =
      static_cast<unsigned char>(bytes[16]) << 8 | static_cast<unsigned char>(bytes[17]);
  return size == 1 ? 65536 : size;
}

std::string BigShard(const TempDir& dir) {
  return MakeShard(dir, "big.db", 'a',
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
                   " INSERT INTO item SELECT i, i % 7, printf('item number %d', i) FROM n;");
}

void ExpectScanFailsNaming(const std::string& path) {
  try {
    RecordingVisitor v;
    OpenSource(path)->Scan(v, {});
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    // What SQLite said, or the page the direct rowid reader found damaged.
    EXPECT_TRUE(message.find("SQLite says") != std::string::npos ||
                message.find(": page ") != std::string::npos)
        << message;
    EXPECT_NE(message.find("; "), std::string::npos) << message;  // and what to do
    EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
  }
}

TEST(SqliteSourceTest, TruncatedDatabaseIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string db = BigShard(dir);
  const std::string bytes = ReadFile(db);
  ASSERT_GT(bytes.size(), 16 * PageSizeOf(bytes));
  WriteFile(db, bytes.substr(0, bytes.size() / 2 + 100));
  ExpectScanFailsNaming(db);
}

TEST(SqliteSourceTest, OverwrittenPagesAreAnErrorNamingTheFile) {
  TempDir dir;
  const std::string db = BigShard(dir);
  std::string bytes = ReadFile(db);
  const std::size_t page = PageSizeOf(bytes);
  for (std::size_t p = page; p + 16 <= bytes.size(); p += page) {
    for (std::size_t i = 0; i < 16; ++i) bytes[p + i] = '\xab';
  }
  WriteFile(db, bytes);
  ExpectScanFailsNaming(db);
}

TEST(SqliteSourceTest, DamagedPageOfARowidTableIsNamed) {
  TempDir dir;
  const std::string db = dir.File("item.db");
  testing::ExecSql(db,
                   "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
                   " INSERT INTO item SELECT i, printf('item number %d', i) FROM n;");
  std::string bytes = ReadFile(db);
  const std::size_t page = PageSizeOf(bytes);
  ASSERT_GT(bytes.size(), 8 * page);
  bytes[5 * page] = '\x42';  // page 6: no b-tree page type
  WriteFile(db, bytes);
  try {
    IdOnlyVisitor v;  // reads item straight from its pages
    OpenSource(db)->Scan(v, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(db + ": page 6 is damaged ("), std::string::npos) << message;
    EXPECT_NE(message.find("; it belongs to table item; "), std::string::npos) << message;
  }
}

// A WITHOUT ROWID record written before ALTER TABLE ADD COLUMN lacks the new column, which
// SQLite reads as its DEFAULT: a whole-row read must give that default, not NULL.
TEST(SqliteSourceTest, ColumnAddedLaterReadsAsItsDefault) {
  TempDir dir;
  const std::string db = dir.File("bag.db");
  testing::ExecSql(db,
                   "CREATE TABLE bag(owner INTEGER, slot INTEGER, PRIMARY KEY(owner, slot))"
                   " WITHOUT ROWID;"
                   "INSERT INTO bag VALUES(1, 1);"
                   "ALTER TABLE bag ADD COLUMN count INTEGER NOT NULL DEFAULT 7;"
                   "INSERT INTO bag VALUES(1, 2, 3);");
  const RecordingVisitor v = ScanAll(db);
  const auto& rows = v.rows.at("bag");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].values, (std::vector<std::string>{"1", "1", "7"}));
  EXPECT_EQ(rows[1].values, (std::vector<std::string>{"1", "2", "3"}));
}

// Foreign keys as SQLite resolved them, in declaration order (pragma_foreign_key_list numbers
// them from the last declared): a composite one column by column in its order, and one that
// names no columns (the referenced table's PRIMARY KEY), here a column constraint.
TEST(SqliteSourceTest, ReadsForeignKeysInDeclarationOrder) {
  TempDir dir;
  const std::string db = dir.File("fk.db");
  testing::ExecSql(db,
                   "CREATE TABLE guild(id INTEGER PRIMARY KEY, realm INTEGER, UNIQUE(realm, id));"
                   "CREATE TABLE player(id INTEGER PRIMARY KEY);"
                   "CREATE TABLE member(player INTEGER, guild INTEGER, realm INTEGER,"
                   " note TEXT REFERENCES player,"
                   " FOREIGN KEY (realm, guild) REFERENCES \"Guild\"(realm, id) ON DELETE CASCADE);"
                   "INSERT INTO member VALUES(1, 2, 3, NULL);");
  const RecordingVisitor v = ScanAll(db);
  const Table& member = v.tables.at("member");
  ASSERT_EQ(member.foreign_keys.size(), 2u);
  EXPECT_EQ(member.foreign_keys[0].columns, (std::vector<int>{3}));
  EXPECT_EQ(member.foreign_keys[0].ref_table, "player");
  EXPECT_TRUE(member.foreign_keys[0].ref_columns.empty());
  EXPECT_EQ(member.foreign_keys[1].columns, (std::vector<int>{2, 1}));
  EXPECT_EQ(member.foreign_keys[1].ref_table, "Guild");  // as declared
  EXPECT_EQ(member.foreign_keys[1].ref_columns, (std::vector<std::string>{"realm", "id"}));
  EXPECT_TRUE(v.tables.at("guild").foreign_keys.empty());
  EXPECT_EQ(v.rows.at("member").size(), 1u);
}

// Rows are looked up only through a b-tree keyed by the columns asked for; elsewhere each lookup
// would read the whole table, so LookUp declines and the caller scans.
TEST(SqliteSourceTest, LookUpNeedsABtreeKeyedByTheColumns) {
  TempDir dir;
  const std::string db = dir.File("inv.db");
  testing::ExecSql(db,
                   "CREATE TABLE inv(owner INTEGER, slot INTEGER, n INTEGER,"
                   " PRIMARY KEY(owner, slot));"
                   "INSERT INTO inv VALUES(1, 1, 5), (1, 2, 5), (2, 1, 6);");
  const auto source = OpenSource(db);
  RecordingVisitor by_key;
  EXPECT_TRUE(source->LookUp(by_key, "inv", {"SLOT", "owner"}, {{1, 1}, {1, 2}, {9, 9}}));
  ASSERT_EQ(by_key.rows["inv"].size(), 2u);  // (owner 1, slot 1) and (owner 2, slot 1)
  EXPECT_EQ(by_key.rows["inv"][0].values[2], "5");
  RecordingVisitor unindexed;
  EXPECT_FALSE(source->LookUp(unindexed, "inv", {"n"}, {{5}}));
  EXPECT_TRUE(unindexed.tables.empty());  // nothing was called
  EXPECT_FALSE(source->LookUp(unindexed, "nosuch", {"id"}, {{1}}));
}

TEST(SqliteSourceTest, DamagedPageOfAnIndexIsNamed) {
  TempDir dir;
  const std::string db = dir.File("player.db");
  testing::ExecSql(db,
                   "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
                   " INSERT INTO player SELECT i, printf('player number %d', i) FROM n;"
                   "CREATE UNIQUE INDEX player_name ON player(name);");
  std::string bytes = ReadFile(db);
  const std::size_t page = PageSizeOf(bytes);
  const std::size_t pages = bytes.size() / page;
  ASSERT_GT(pages, 8u);
  // The index was made last: its pages are the file's last. Damage its last leaf.
  bytes[(pages - 1) * page] = '\x42';
  WriteFile(db, bytes);
  try {
    KeyRecordingVisitor v;
    OpenSource(db)->Scan(v, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(db + ": page " + std::to_string(pages) + " is damaged ("),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("it belongs to index player_name of table player; "), std::string::npos)
        << message;
  }
}

TEST(SqliteSourceTest, DamagedHeaderIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string db = dir.File("bad.db");
  WriteFile(db, std::string("SQLite format 3\0", 16) + std::string(4096, '\x07'));
  try {
    OpenSource(db);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(db), std::string::npos) << e.what();
    // What failed is the reading of its schema (not a setting made before it).
    EXPECT_NE(std::string(e.what()).find(": cannot read the schema: "), std::string::npos)
        << e.what();
  }
}

void ExpectOpenFails(const std::string& path, const std::string& part) {
  try {
    OpenSource(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
    EXPECT_NE(message.find("; "), std::string::npos) << message;
  }
}

TEST(OpenSourceTest, ClearErrorsForWhatIsNoInput) {
  TempDir dir;
  ExpectOpenFails(dir.File("missing.db"), "no such file");
  ExpectOpenFails(dir.path(), "is a directory");
  WriteFile(dir.File("empty"), "");
  ExpectOpenFails(dir.File("empty"), "empty");
  WriteFile(dir.File("binary"), std::string("\x7f"
                                            "ELF\x02\x01\x01\0\0\0\0\0",
                                            12));
  ExpectOpenFails(dir.File("binary"), "neither a SQLite database nor an SQL dump");
  // As nobody, so it runs as root too (root reads anything).
  WriteFile(dir.File("secret.db"), "x");
  ::chmod(dir.File("secret.db").c_str(), 0);
  ::chmod(dir.path().c_str(), 0755);
  steadyflake::testing::RunUnprivileged([&]() -> std::string {
    try {
      OpenSource(dir.File("secret.db"));
      return "no error for an unreadable file";
    } catch (const Error& e) {
      const std::string message = e.what();
      return message.rfind(dir.File("secret.db") + ": permission denied; ", 0) == 0
                 ? ""
                 : "wrong message: " + message;
    }
  });
}

TEST(OpenSourceTest, PicksTheReaderByContentNotName) {
  TempDir dir;
  const std::string db = MakeShard(dir, "shard.sql", 'a');  // a database named .sql
  EXPECT_EQ(OpenSource(db)->format(), "sqlite");
}

}  // namespace
}  // namespace steadyflake::mergecheck::sqlite_source_test
