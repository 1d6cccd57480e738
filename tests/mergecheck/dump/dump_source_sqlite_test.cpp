// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The dump reader on sqlite3 .dump output: one test per form sqlite3 writes (fixtures in
// data/dumps/sqlite_*.sql, written by data/dumps/regenerate.sh with the real sqlite3, or
// *.handmade.sql where sqlite3 cannot produce the case).

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "dump_test_util.h"

namespace steadyflake::mergecheck::testing {
namespace {

using Rows = std::vector<std::vector<Value>>;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SqliteDump, WrapperPragmaBeginCommit) {
  std::unique_ptr<Source> source = OpenDumpSource(DumpPath("sqlite_wrapper.sql"), false);
  EXPECT_EQ(source->format(), "sqlite-dump");
  Recorder r;
  source->Scan(r, {});
  ASSERT_EQ(r.tables.size(), 1u);
  const Table& item = r.tables[0];
  EXPECT_EQ(item.name, "item");
  EXPECT_EQ(ColumnNames(item), (std::vector<std::string>{"id", "owner", "name"}));
  EXPECT_EQ(item.columns[0].declared_type, "INTEGER");
  EXPECT_EQ(item.columns[2].declared_type, "TEXT");
  EXPECT_EQ(item.columns[0].affinity, AffinityOf("INTEGER"));
  EXPECT_EQ(item.columns[2].affinity, AffinityOf("TEXT"));
  EXPECT_EQ(KeyStrings(item), (std::vector<std::string>{"P(id)"}));
  EXPECT_EQ(r.Rows("item"),
            (Rows{{I(1), I(10), T("sword")}, {I(2), I(10), T("shield")}, {I(3), I(11), T("bow")}}));
  // position: the byte offset of each row's '(', in its own INSERT statement.
  const std::string text = ReadFile(DumpPath("sqlite_wrapper.sql"));
  size_t at = 0;
  for (const Row& row : r.rows) {
    at = text.find("INSERT", at);
    EXPECT_EQ(row.position, text.find('(', at));
    ++at;
  }
  EXPECT_EQ(source->rows_read(), 3u);
  EXPECT_EQ(source->bytes_read(), text.size());
}

TEST(SqliteDump, DoubledQuotes) {
  Recorder r = ScanFixture("sqlite_quotes.sql");
  EXPECT_EQ(r.Rows("player"), (Rows{{I(1), T("O'Brien")},
                                    {I(2), T("'")},
                                    {I(3), T("back\\slash")},
                                    {I(4), T("\"dq\"")},
                                    {I(5), T("")}}));
}

TEST(SqliteDump, ReplaceCharNewlines) {
  Recorder r = ScanFixture("sqlite_newlines.sql");
  EXPECT_EQ(r.Rows("note"), (Rows{{I(1), T("a\nb")},
                                  {I(2), T("a\r\nb")},
                                  {I(3), T("has \\n literal\nx")},
                                  {I(4), T("has \\n and \\012\n")},
                                  {I(5), T("cr \\r and \\015\rlf \\n \\012 (\\n0)\n")},
                                  {I(6), T("\nO'Brien\r")}}));
}

TEST(SqliteDump, LegacyConcatUnistrAndCharExpressions) {
  Recorder r = ScanFixture("sqlite_expressions.handmade.sql");
  EXPECT_EQ(r.Rows("note"), (Rows{{I(1), T("a\nb")},
                                  {I(2), T("a\nb\r\\")},
                                  {I(3), T("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80")},
                                  {I(4), T("x")}}));
}

TEST(SqliteDump, BlobsAndNull) {
  Recorder r = ScanFixture("sqlite_blobs.sql");
  EXPECT_EQ(r.Rows("asset"), (Rows{{I(1), B(std::string("\x00\xff", 2)), T("two bytes")},
                                   {I(2), B(""), T("empty")},
                                   {I(3), N(), N()},
                                   {I(4), B("\n\r'"), N()}}));
}

TEST(SqliteDump, QuotedIdentifiersInCreate) {
  Recorder r = ScanFixture("sqlite_identifiers.sql");
  const Table* weird = r.Find("my \"weird\" table");
  ASSERT_NE(weird, nullptr);
  EXPECT_EQ(ColumnNames(*weird), (std::vector<std::string>{"x", "y z", "select"}));
  EXPECT_EQ(KeyStrings(*weird), (std::vector<std::string>{"P(x)", "U(y z)"}));
  EXPECT_EQ(r.Rows("my \"weird\" table"), (Rows{{I(1), T("a"), I(7)}}));
  // CREATE TABLE [order] ... and INSERT INTO "order": the same table.
  const Table* order = r.Find("order");
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(ColumnNames(*order), (std::vector<std::string>{"id", "key"}));
  EXPECT_EQ(KeyStrings(*order), (std::vector<std::string>{"P(id)"}));
  EXPECT_EQ(r.Rows("order"), (Rows{{T("k1"), B("\x01")}}));
}

TEST(SqliteDump, StringsThatLookLikeSql) {
  Recorder r = ScanFixture("sqlite_sql_in_strings.sql");
  EXPECT_EQ(r.Rows("item"), (Rows{{I(1), T("x); INSERT INTO item VALUES(999); --")},
                                  {I(2), T("/* not a comment */")},
                                  {I(3), T(";")}}));
}

TEST(SqliteDump, CommentsInsideCreate) {
  Recorder r = ScanFixture("sqlite_comments_in_create.sql");
  const Table* item = r.Find("item");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(ColumnNames(*item), (std::vector<std::string>{"id", "owner", "code"}));
  EXPECT_EQ(item->columns[1].declared_type, "INTEGER");
  EXPECT_EQ(KeyStrings(*item), (std::vector<std::string>{"P(id)", "U(code)"}));
  EXPECT_EQ(item->keys[1].name, "code_unique");
  EXPECT_EQ(r.Rows("item"), (Rows{{I(1), I(2), T("a")}}));
}

TEST(SqliteDump, RowidColumnList) {
  Recorder r = ScanFixture("sqlite_rowid.sql");
  // loose has no INTEGER PRIMARY KEY: the rowid is hidden, not a column, and is skipped.
  const Table* loose = r.Find("loose");
  ASSERT_NE(loose, nullptr);
  EXPECT_EQ(ColumnNames(*loose), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(loose->keys.empty());
  EXPECT_EQ(r.Rows("loose"), (Rows{{I(2), T("y")}, {I(3), T("z")}}));
  EXPECT_EQ(r.Rows("item"), (Rows{{I(5), T("five")}}));
}

TEST(SqliteDump, RowidIsTheIntegerPrimaryKey) {
  // INSERT INTO t(rowid,...) on a table whose INTEGER PRIMARY KEY aliases the rowid: the
  // rowid value is the key column's value.
  const Recorder r = ScanText(
      "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n"
      "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\n"
      "INSERT INTO t(rowid,v) VALUES(42,'x');\nCOMMIT;\n");
  EXPECT_EQ(r.Rows("t"), (Rows{{I(42), T("x")}}));
}

TEST(SqliteDump, InternalTablesAreSkipped) {
  Recorder r = ScanFixture("sqlite_internal.sql");
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_EQ(r.tables[0].name, "item");
  EXPECT_EQ(r.Rows("item"), (Rows{{I(1), T("a")}, {I(2), T("b")}}));
  EXPECT_EQ(r.rows.size(), 2u);  // no sqlite_sequence or sqlite_stat1 rows
}

TEST(SqliteDump, PrimaryUniqueAndUniqueIndexes) {
  Recorder r = ScanFixture("sqlite_keys.sql");
  const Table* pair = r.Find("pair");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(KeyStrings(*pair), (std::vector<std::string>{"P(a,b)", "U(c)"}));
  // CREATE UNIQUE INDEX comes after the rows: OnTable again with the keys added. Plain indexes,
  // expression indexes and partial indexes add no key.
  const Table* account = r.Find("account");
  ASSERT_NE(account, nullptr);
  EXPECT_EQ(KeyStrings(*account), (std::vector<std::string>{"P(id)", "U(email)", "U(shard,slot)"}));
  EXPECT_EQ(account->keys[1].name, "account_email");
  int account_calls = 0;
  for (const Table& t : r.tables) account_calls += t.name == "account";
  EXPECT_EQ(account_calls, 3);
  const Table* kv = r.Find("kv");
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(ColumnNames(*kv), (std::vector<std::string>{"key", "value"}));
  EXPECT_EQ(kv->columns[1].declared_type, "");
  EXPECT_EQ(KeyStrings(*kv), (std::vector<std::string>{"P(key)"}));
  EXPECT_EQ(r.Rows("kv"), (Rows{{T("k"), I(1)}}));
}

// Trigger bodies hold `;` (and CASE ... END) before their END;, views and virtual tables are
// schema only; a virtual table's shadow tables (docs_data...) are ordinary tables.
TEST(SqliteDump, TriggersViewsAndVirtualTables) {
  Recorder r = ScanFixture("sqlite_trigger_view.sql");
  std::vector<std::string> names;
  for (const Table& t : r.tables) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"item", "log", "docs_data", "docs_idx", "docs_content",
                                             "docs_docsize", "docs_config"}));
  EXPECT_EQ(r.Rows("item"), (Rows{{I(1), T("a;b")}}));
  EXPECT_EQ(r.Rows("log"), (Rows{{I(1)}}));
  const Table* idx = r.Find("docs_idx");
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(KeyStrings(*idx), (std::vector<std::string>{"P(segid,term)"}));
  EXPECT_EQ(r.Rows("docs_config"), (Rows{{T("version"), I(4)}}));
}

TEST(SqliteDump, Numbers) {
  const double inf = std::numeric_limits<double>::infinity();
  Recorder r = ScanFixture("sqlite_numbers.sql");
  EXPECT_EQ(r.Rows("num"),
            (Rows{{I(1), I(-5)},
                  {I(2), R(1.5, "1.5")},
                  {I(3), R(1e10, "10000000000.0")},
                  {I(4), R(0.0, "0.0")},
                  {I(5), I(std::numeric_limits<int64_t>::max())},
                  {I(6), I(std::numeric_limits<int64_t>::min())},
                  {I(7), R(inf, "1e999")},
                  {I(8), R(-inf, "-1e999")},
                  {I(9), R(0.1, "0.10000000000000000555")},
                  {I(10), R(-2.49999999999999998e-300, "-2.49999999999999998e-300")}}));
}

TEST(SqliteDump, NumbersBeyondInt64BecomeReals) {
  Recorder r = ScanFixture("sqlite_numbers.handmade.sql");
  EXPECT_EQ(r.Rows("num"), (Rows{{I(1), I(0)},
                                 {I(2), I(7)},
                                 {I(3), R(9223372036854775808.0, "9223372036854775808")},
                                 {I(4), R(-9223372036854775809.0, "-9223372036854775809")},
                                 {I(5), R(18446744073709551616000.0, "18446744073709551616000")},
                                 {I(6), R(-0.0, "-0.0")},
                                 {I(7), R(1e10, "1E10")},
                                 {I(8), R(0.5, ".5")}}));
}

TEST(SqliteDump, OnlyWantedColumnsAndTables) {
  Recorder r = ScanFixture("sqlite_keys.sql", kDumpChunkSize, {"account"}, {{"account", {3, 0}}});
  EXPECT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.Rows("account"), (Rows{{I(1), I(1)}}));
  // Tables outside `only` are still announced.
  EXPECT_NE(r.Find("pair"), nullptr);
}

TEST(SqliteDump, CorruptDatabaseRollbackIsAnError) {
  const std::string path = DumpPath("sqlite_corrupt.sql");
  const std::string text = ReadFile(path);
  const int line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + text.find("ROLLBACK"), '\n'));
  ExpectDumpError([&] { ScanFixture("sqlite_corrupt.sql"); }, path, line, "ROLLBACK");
}

TEST(SqliteDump, CorruptionErrorCommentIsAnError) {
  const std::string path = DumpPath("sqlite_corruption_comment.handmade.sql");
  ExpectDumpError([&] { ScanFixture("sqlite_corruption_comment.handmade.sql"); }, path, 5,
                  "corrupt");
}

TEST(SqliteDump, TruncatedInsideAStringIsAnError) {
  const std::string path = DumpPath("sqlite_truncated.handmade.sql");
  ExpectDumpError([&] { ScanFixture("sqlite_truncated.handmade.sql"); }, path, 5, "cut short");
}

TEST(SqliteDump, MissingCommitIsAnError) {
  const std::string path = DumpPath("sqlite_no_commit.handmade.sql");
  ExpectDumpError([&] { ScanFixture("sqlite_no_commit.handmade.sql"); }, path, 6, "COMMIT");
}

}  // namespace
}  // namespace steadyflake::mergecheck::testing
