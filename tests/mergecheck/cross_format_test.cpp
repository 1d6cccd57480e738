// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The same two shards as SQLite files and as `sqlite3 .dump` output (plain and gzip), in every
// pairing, give the same report: keys, overlaps, conflicts, servers, legacy, drift, verdict.
// The dumps are made at test time with the sqlite3 shell; the test is skipped without it, and
// until the dump reader (src/dump/) is in.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::MakeShard;
using testing::ReadFile;
using testing::TempDir;

bool DumpReaderReady(const TempDir& dir) {
  testing::WriteFile(dir.File("probe.sql"), "CREATE TABLE t(id INTEGER PRIMARY KEY);\n");
  try {
    OpenDumpSource(dir.File("probe.sql"), false);
    return true;
  } catch (const Error& e) {
    return std::string(e.what()).find("not supported yet") == std::string::npos;
  }
}

bool RunShell(const std::string& command) { return std::system(command.c_str()) == 0; }

std::string Shell(const std::string& path) { return "'" + path + "'"; }

// Everything but the inputs' paths, formats, readers and byte counts, and the names of the
// keys' collations: a SQLite schema names BINARY where MariaDB's names utf8mb4_general_ci.
// The overlaps must agree all the same: the fixtures hold no values those collations tell
// apart differently.
std::string Comparable(Report r) {
  for (InputReport& in : r.inputs) {
    in.path.clear();
    in.format.clear();
    in.reader.clear();
    in.bytes = 0;
  }
  for (KeyReport& k : r.keys) {
    k.collations.clear();
    k.collations_b.clear();
  }
  return FormatJson(r);
}

TEST(CrossFormatTest, SqliteFilesAndTheirDumpsGiveTheSameReport) {
  TempDir dir;
  if (!DumpReaderReady(dir)) GTEST_SKIP() << "the SQL dump reader has not landed yet";
  if (!RunShell("sqlite3 -version >/dev/null 2>&1")) GTEST_SKIP() << "no sqlite3 shell";
  constexpr int64_t kT0 = 4466880000;
  auto gid = [](int64_t tick, int64_t server, int64_t seq) {
    return std::to_string(tick << 26 | server << 10 | seq);
  };
  // Conflicts of every key kind, a shared server id, legacy IDs and drift.
  const std::string a = MakeShard(dir, "a.db", 'a', "CREATE TABLE only_a(x INTEGER PRIMARY KEY);");
  const std::string b = MakeShard(
      dir, "b.db", 'b',
      "INSERT INTO item VALUES(" + gid(kT0 + 100, 101, 0) + ", 1, 'dup');" +
          "INSERT INTO item VALUES(" + gid(kT0 + 777, 101, 9) + ", 1, 'risk');" +
          "INSERT INTO item VALUES(-3, 1, 'legacy');" + "INSERT INTO player VALUES(" +
          gid(kT0 + 9, 202, 0) + ", 'alice', 'O''Neil');" +
          "INSERT INTO account VALUES('zed', X'00ff10', '');"
          "INSERT INTO inventory VALUES(" +
          gid(kT0, 101, 0) + ", 0, NULL);" + "CREATE UNIQUE INDEX item_name ON item(name);");
  for (const std::string& db : {a, b}) {
    ASSERT_TRUE(RunShell("sqlite3 " + Shell(db) + " .dump > " + Shell(db + ".sql")));
    ASSERT_TRUE(RunShell("gzip -c " + Shell(db + ".sql") + " > " + Shell(db + ".sql.gz")));
  }
  Options options;
  options.now_ms = 1767225600000;
  const Report want = Check(a, b, options);
  ASSERT_EQ(want.verdict, Report::Verdict::kConflict);
  for (const std::string& sa : {a, a + ".sql", a + ".sql.gz"}) {
    for (const std::string& sb : {b, b + ".sql", b + ".sql.gz"}) {
      const Report got = Check(sa, sb, options);
      EXPECT_EQ(Comparable(got), Comparable(want)) << sa << " vs " << sb;
      EXPECT_EQ(got.verdict, want.verdict);
    }
  }
  EXPECT_EQ(OpenSource(a + ".sql")->format(), "sqlite-dump");
  EXPECT_EQ(OpenSource(a + ".sql.gz")->format(), "sqlite-dump+gzip");
}

std::string MergeDayFile(const std::string& name) {
  return std::string(STEADYFLAKE_SHARDS_DIR) + "/../merge_day/" + name;
}

// Issue 3's merge-day case: the same two shards exported the four ways operators have them (a
// SQLite file, `sqlite3 .dump`, mariadb-dump with extended inserts and raw binary blobs, and
// mariadb-dump --hex-blob --skip-extended-insert) give the same report in all 16 pairings.
// The MariaDB exports are committed (data/merge_day/regenerate.sh writes them); the SQLite file
// and its dump are made here from the same rows.
TEST(CrossFormatTest, MergeDayShardsGiveTheSameReportInEveryExportFormat) {
  TempDir dir;
  if (!RunShell("sqlite3 -version >/dev/null 2>&1")) GTEST_SKIP() << "no sqlite3 shell";
  std::vector<std::string> a_forms, b_forms;
  for (const char shard : {'a', 'b'}) {
    const std::string db = dir.File(std::string(1, shard) + ".db");
    ExecSql(db, "BEGIN;\n" + ReadFile(MergeDayFile("schema.sqlite.sql")) +
                    ReadFile(MergeDayFile(std::string(1, shard) + ".data.sql")) + "\nCOMMIT;\n");
    ASSERT_TRUE(RunShell("sqlite3 " + Shell(db) + " .dump > " + Shell(db + ".sql")));
    auto& forms = shard == 'a' ? a_forms : b_forms;
    forms = {db, db + ".sql", MergeDayFile(std::string(1, shard) + ".mariadb.sql"),
             MergeDayFile(std::string(1, shard) + ".mariadb-hex.sql")};
  }
  Options options;
  options.now_ms = 1767225600000;  // 2026-01-01
  const Report want = Check(a_forms[0], b_forms[0], options);
  // What the fixture plants (data/merge_day/b.data.sql): one collision per key kind, and an ID
  // of A's server id 101 in B.
  ASSERT_EQ(want.verdict, Report::Verdict::kConflict);
  std::map<std::string, uint64_t> overlaps;
  for (const KeyReport& key : want.keys) {
    std::string name = key.table;
    for (const std::string& column : key.columns) name += ":" + column;
    overlaps[name] = key.overlap;
  }
  EXPECT_EQ(overlaps["player:id"], 0u);
  EXPECT_EQ(overlaps["player:name"], 1u);
  EXPECT_EQ(overlaps["item:id"], 1u);
  EXPECT_EQ(overlaps["mail:id"], 0u);
  EXPECT_EQ(overlaps["account:login"], 0u);
  EXPECT_EQ(overlaps["account:token"], 1u);
  EXPECT_EQ(overlaps["inventory:owner:slot"], 1u);
  EXPECT_EQ(want.servers_shared, std::vector<uint64_t>{101});
  for (const std::string& sa : a_forms) {
    for (const std::string& sb : b_forms) {
      const Report got = Check(sa, sb, options);
      EXPECT_EQ(Comparable(got), Comparable(want)) << sa << " vs " << sb;
      EXPECT_EQ(got.verdict, want.verdict) << sa << " vs " << sb;
    }
  }
  EXPECT_EQ(OpenSource(a_forms[2])->format(), "mysql-dump");
}

// A generated column is computed, and `sqlite3 .dump` leaves it out of its INSERTs: whole rows
// compare without it, so a file and its dump agree on identical rows and keyless rows.
TEST(CrossFormatTest, GeneratedColumnsDoNotMakeRowsDiffer) {
  TempDir dir;
  if (!RunShell("sqlite3 -version >/dev/null 2>&1")) GTEST_SKIP() << "no sqlite3 shell";
  const std::string schema =
      "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, g INT GENERATED ALWAYS AS (id * 2) VIRTUAL);"
      "CREATE TABLE k(a INTEGER, b INTEGER, c INT GENERATED ALWAYS AS (a + b) STORED);";
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  ExecSql(a, schema +
                 "INSERT INTO t(id, v) VALUES(1, 'x'), (2, 'y');"
                 "INSERT INTO k(a, b) VALUES(1, 2);");
  ExecSql(b, schema +
                 "INSERT INTO t(id, v) VALUES(1, 'x'), (2, 'z');"
                 "INSERT INTO k(a, b) VALUES(1, 2), (3, 4);");
  ASSERT_TRUE(RunShell("sqlite3 " + Shell(a) + " .dump > " + Shell(a + ".sql")));
  Options options;
  options.now_ms = 1767225600000;
  for (const std::string& input : {a, a + ".sql"}) {
    const Report r = Check(input, b, options);
    ASSERT_EQ(r.keys.size(), 1u) << input;
    EXPECT_EQ(r.keys[0].overlap, 2u) << input;
    EXPECT_EQ(r.keys[0].identical, 1u) << input;
    ASSERT_EQ(r.keyless.size(), 1u) << input;
    EXPECT_EQ(r.keyless[0].in_both, 1u) << input;
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
