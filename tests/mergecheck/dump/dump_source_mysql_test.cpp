// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The dump reader on mysqldump / mariadb-dump output: one test per form they write (fixtures
// in data/dumps/mysql_*.sql, written by data/dumps/regenerate.sh with a real mariadb-dump, or
// *.handmade.sql for MySQL 8's form and the cases a server does not produce).

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dump_test_util.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck::testing {
namespace {

using Rows = std::vector<std::vector<Value>>;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<uint64_t> Positions(const Recorder& r, const std::string& table) {
  std::vector<uint64_t> out;
  for (const Row& row : r.rows) {
    if (row.table == table) out.push_back(row.position);
  }
  return out;
}

// Whether each of `positions` is the offset of a row's '(' that starts with the matching one of
// `starts` (the row's first characters), after the offset of INSERT statement `inserts[i]` and
// before the next INSERT statement: a row's position (SourceVisitor::OnRow).
::testing::AssertionResult RowStarts(const std::string& fixture,
                                     const std::vector<uint64_t>& positions,
                                     const std::vector<std::string>& starts,
                                     const std::vector<uint64_t>& inserts,
                                     const std::vector<size_t>& insert_of_row) {
  const std::string text = ReadFile(DumpPath(fixture));
  if (positions.size() != starts.size()) {
    return ::testing::AssertionFailure() << positions.size() << " positions";
  }
  for (size_t i = 0; i < positions.size(); ++i) {
    const uint64_t p = positions[i];
    const size_t s = insert_of_row[i];
    const uint64_t next = s + 1 < inserts.size() ? inserts[s + 1] : text.size();
    if (text.compare(p, starts[i].size(), starts[i]) != 0 || p <= inserts[s] || p >= next) {
      return ::testing::AssertionFailure()
             << "row " << i << " at " << p << ": '" << text.substr(p, starts[i].size()) << "'";
    }
  }
  return ::testing::AssertionSuccess();
}

// Every offset of `needle` in the fixture.
std::vector<uint64_t> Offsets(const std::string& fixture, const std::string& needle) {
  const std::string text = ReadFile(DumpPath(fixture));
  std::vector<uint64_t> out;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    out.push_back(at);
  }
  return out;
}

const Rows kItemRows = {
    {I(2), I(10), T("shield")}, {I(1), I(10), T("sword")}, {I(-3), I(11), T("bow")}};

TEST(MysqlDump, MariadbExtendedInsertOneTuplePerLine) {
  std::unique_ptr<Source> source = OpenDumpSource(DumpPath("mysql_extended.sql"), false);
  EXPECT_EQ(source->format(), "mysql-dump");
  Recorder r;
  source->Scan(r, {});
  const Table* item = r.Find("item");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(ColumnNames(*item), (std::vector<std::string>{"id", "owner", "name"}));
  EXPECT_EQ(item->columns[0].declared_type, "bigint(20)");
  EXPECT_EQ(item->columns[2].declared_type, "varchar(32)");
  EXPECT_EQ(item->columns[0].affinity, AffinityOf("bigint(20)"));
  EXPECT_EQ(KeyStrings(*item), (std::vector<std::string>{"P(id)", "U(owner,name)"}));
  EXPECT_EQ(item->keys[1].name, "owner_name");
  EXPECT_EQ(r.Rows("item"), kItemRows);
  // One statement: every row is at its '('.
  const std::vector<uint64_t> inserts = Offsets("mysql_extended.sql", "INSERT INTO `item`");
  ASSERT_EQ(inserts.size(), 1u);
  EXPECT_TRUE(RowStarts("mysql_extended.sql", Positions(r, "item"), {"(2,", "(1,", "(-3,"}, inserts,
                        {0, 0, 0}));
  const Table* pair = r.Find("pair");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(KeyStrings(*pair), (std::vector<std::string>{"P(a,b)"}));
  EXPECT_EQ(r.Rows("pair"), (Rows{{I(1), T("x")}, {I(1), T("y")}}));
}

TEST(MysqlDump, Mysql8AllOnOneLineWithBinaryIntroducer) {
  std::unique_ptr<Source> source = OpenDumpSource(DumpPath("mysql8_one_line.handmade.sql"), false);
  EXPECT_EQ(source->format(), "mysql-dump");
  Recorder r;
  source->Scan(r, {});
  const Table* item = r.Find("item");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(ColumnNames(*item), (std::vector<std::string>{"id", "owner", "name", "token"}));
  EXPECT_EQ(item->columns[0].declared_type, "bigint unsigned");
  EXPECT_EQ(item->columns[2].declared_type, "varchar(32)");
  EXPECT_EQ(item->columns[3].declared_type, "varbinary(8)");
  EXPECT_EQ(KeyStrings(*item), (std::vector<std::string>{"P(id)", "U(token)"}));
  EXPECT_EQ(r.Rows("item"), (Rows{{I(1), I(10), T("sword"), B("ab'c")},
                                  {I(2), I(10), T("shield"), B(std::string("\0\n", 2))},
                                  {I(3), I(11), T("bow"), N()},
                                  {I(4), I(11), T("axe"), B("")},
                                  {I(5), I(12), T("x),(6,7,'y"), B("z")}}));
  const std::vector<uint64_t> inserts =
      Offsets("mysql8_one_line.handmade.sql", "INSERT INTO `item`");
  ASSERT_EQ(inserts.size(), 2u);
  EXPECT_TRUE(RowStarts("mysql8_one_line.handmade.sql", Positions(r, "item"),
                        {"(1,", "(2,", "(3,", "(4,", "(5,"}, inserts, {0, 0, 0, 1, 1}));
}

TEST(MysqlDump, ExtendedInsertSplitAcrossStatements) {
  Recorder r = ScanFixture("mysql_split.sql");
  const Rows rows = r.Rows("many");
  ASSERT_EQ(rows.size(), 300u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t id = static_cast<int64_t>(i) + 1;
    EXPECT_EQ(rows[i],
              (std::vector<Value>{I(id), T("row " + std::to_string(id) + " with some text")}));
  }
  const std::vector<uint64_t> inserts = Offsets("mysql_split.sql", "INSERT INTO `many`");
  ASSERT_GE(inserts.size(), 2u);  // --net-buffer-length=4096 split the rows
  // Each row at its '(', in the statement that holds it.
  const std::vector<uint64_t> positions = Positions(r, "many");
  std::vector<std::string> starts;
  std::vector<size_t> statement;
  for (size_t i = 0; i < positions.size(); ++i) {
    starts.push_back("(" + std::to_string(i + 1) + ",");
    statement.push_back(static_cast<size_t>(
        std::upper_bound(inserts.begin(), inserts.end(), positions[i]) - inserts.begin() - 1));
  }
  EXPECT_TRUE(RowStarts("mysql_split.sql", positions, starts, inserts, statement));
  EXPECT_EQ(std::set<size_t>(statement.begin(), statement.end()).size(), inserts.size());
}

TEST(MysqlDump, BackslashEscapesFromMariadbDump) {
  Recorder r = ScanFixture("mysql_escapes.sql");
  EXPECT_EQ(r.Rows("esc"), (Rows{{I(1), T("it's")},
                                 {I(2), T("back\\slash")},
                                 {I(3), T(std::string("nul\0byte", 8))},
                                 {I(4), T("ctrl-z\x1a")},
                                 {I(5), T("new\nline")},
                                 {I(6), T("car\rriage")},
                                 {I(7), T("tab\there")},
                                 {I(8), T("back\bspace")},
                                 {I(9), T("dq\"dq")},
                                 {I(10), T("%_ \\% \\_")},
                                 {I(11), T("")}}));
}

// Issue 16.1 end to end: rows whose strings end in runs of 1-4 backslashes, read in chunks of
// every size from 1 to 9 bytes (so a read ends at every place in and after each run), and a key
// after them that overlaps another dump.
constexpr char kBackslashRuns[] =
    "CREATE TABLE `t` (`id` int NOT NULL, `path` varchar(20), PRIMARY KEY (`id`));\n"
    "INSERT INTO `t` VALUES (1,'a\\'b'),(2,'a\\\\'),(3,'a\\\\\\'b'),(4,'a\\\\\\\\'),"
    "(5,'zz');\n";

TEST(MysqlDump, BackslashRunsBeforeAQuoteInEveryChunkSize) {
  const TempDir dir;
  const std::string path = dir.path() + "/runs.sql";
  ::steadyflake::testing::WriteFile(path, kBackslashRuns);
  const Rows want{
      {I(1), T("a'b")}, {I(2), T("a\\")}, {I(3), T("a\\'b")}, {I(4), T("a\\\\")}, {I(5), T("zz")}};
  for (std::size_t chunk = 1; chunk <= 9; ++chunk) {
    Recorder r;
    OpenDumpSourceForTest(path, false, chunk)->Scan(r, {});
    EXPECT_EQ(r.Rows("t"), want) << "chunks of " << chunk << " bytes";
  }
  const std::string other = dir.path() + "/other.sql";
  ::steadyflake::testing::WriteFile(
      other,
      "CREATE TABLE `t` (`id` int NOT NULL, `path` varchar(20), PRIMARY KEY (`id`));\n"
      "INSERT INTO `t` VALUES (5,'other'),(6,'x');\n");
  Options options;
  options.now_ms = int64_t{1767225600000};  // 2026-01-01
  const Report report = Check(path, other, options);
  ASSERT_EQ(report.keys.size(), 1u);
  EXPECT_EQ(report.keys[0].overlap, 1u);
}

TEST(MysqlDump, EveryBackslashEscape) {
  Recorder r = ScanFixture("mysql_escapes_all.handmade.sql");
  EXPECT_EQ(r.Rows("e"), (Rows{{I(1), T("q'q")},
                               {I(2), T("b\\s")},
                               {I(3), T(std::string("n\0n", 3))},
                               {I(4), T("z\x1az")},
                               {I(5), T("l\nl")},
                               {I(6), T("r\rr")},
                               {I(7), T("t\tt")},
                               {I(8), T("b\bb")},
                               {I(9), T("d\"d")},
                               {I(10), T("raw\ttab")},
                               {I(11), T("dbl'q")},
                               {I(12), T("pct\\%\\_")},
                               {I(13), T("xyz")},
                               {I(14), T("dq\"s")}}));
}

// Binary columns without --hex-blob: raw bytes (not UTF-8) in a quoted string, as kText. The
// checker compares them as bytes by the column's BLOB affinity.
TEST(MysqlDump, RawBinaryBytesWithoutHexBlob) {
  Recorder r = ScanFixture("mysql_binary_raw.sql");
  const Table* bin = r.Find("bin");
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(bin->columns[1].declared_type, "varbinary(16)");
  EXPECT_EQ(bin->columns[2].declared_type, "blob");
  EXPECT_EQ(r.Rows("bin"), (Rows{{I(1), T(std::string("\xa5\xff\x00", 3)), T("\xc3")},
                                 {I(2), T("'\\\n\r\x1a"), T("")},
                                 {I(3), N(), T("\x80\x81\x82\x83")}}));
}

TEST(MysqlDump, HexBlob) {
  Recorder r = ScanFixture("mysql_hex_blob.sql");
  // An empty blob is written '' (kText, empty) even with --hex-blob.
  EXPECT_EQ(r.Rows("bin"), (Rows{{I(1), B(std::string("\xa5\xff\x00", 3)), B("\xc3")},
                                 {I(2), B("'\\\n\r\x1a"), T("")},
                                 {I(3), N(), B("\x80\x81\x82\x83")}}));
}

TEST(MysqlDump, CompleteInsertColumnLists) {
  Recorder r = ScanFixture("mysql_complete_insert.sql");
  EXPECT_EQ(r.Rows("item"), kItemRows);
  EXPECT_TRUE(RowStarts("mysql_complete_insert.sql", Positions(r, "item"), {"(2,", "(1,", "(-3,"},
                        Offsets("mysql_complete_insert.sql", "INSERT INTO `item`"), {0, 1, 2}));
}

TEST(MysqlDump, CompleteInsertColumnListInAnotherOrder) {
  const Recorder r = ScanText(
      "CREATE TABLE `t` (`a` int, `b` text, `c` int, PRIMARY KEY (`a`));\n"
      "INSERT INTO `t` (`c`, `a`) VALUES (3,1),(6,4);\n");
  EXPECT_EQ(r.Rows("t"), (Rows{{I(1), N(), I(3)}, {I(4), N(), I(6)}}));
}

// The cells of a row are cleared once per INSERT, not per row: a column the next INSERT's list
// leaves out must be NULL in its rows, not the value the INSERT before gave it; also when rows
// are cut off by the end of a read and read again (reads of 7 bytes and of 1).
TEST(MysqlDump, AColumnOneInsertLeavesOutIsNullAfterOneThatFilledIt) {
  for (const size_t chunk : {kDumpChunkSize, size_t{7}, size_t{1}}) {
    SCOPED_TRACE(std::to_string(chunk) + " bytes a read");
    const Recorder r = ScanText(
        "CREATE TABLE `t` (`a` int, `b` text, `c` int, PRIMARY KEY (`a`));\n"
        "INSERT INTO `t` VALUES (1,'one',10),(2,'two',20);\n"
        "INSERT INTO `t` (`c`, `a`) VALUES (30,3),(40,4);\n"
        "INSERT INTO `t` (`a`, `b`) VALUES (5,'five');\n",
        chunk);
    EXPECT_EQ(r.Rows("t"), (Rows{{I(1), T("one"), I(10)},
                                 {I(2), T("two"), I(20)},
                                 {I(3), N(), I(30)},
                                 {I(4), N(), I(40)},
                                 {I(5), T("five"), N()}}));
  }
}

// Most rows are read by the plain reader (RowReader::ReadPlainRows and ReadPlainValues: rows
// joined by bare commas, no space, numbers, NULL, strings without an escape); a row it meets
// anything else in is read again by the general one. Rows that look plain up to a backslash, a
// doubled quote, a space (in a row, and between rows), a hex blob, a lowercase null, a real or
// a value too many, among plain ones, at every read size: the
// backslash in the first row ends no string (a reader that took it for the closing quote would
// read 'a' and 5 and then fail), and the others decode as they always did.
TEST(MysqlDump, RowsThatLookPlainUntilTheyAreNotAreReadWhole) {
  for (const size_t chunk : {kDumpChunkSize, size_t{7}, size_t{1}}) {
    SCOPED_TRACE(std::to_string(chunk) + " bytes a read");
    const Recorder r = ScanText(
        "CREATE TABLE `t` (`a` text, `b` int);\n"
        "INSERT INTO `t` VALUES ('a\\,5)',6),('it''s',-7),('plain',8), ( 'x' ,9),\n"
        "(0x41,10),(null,11),('r',1.5),(NULL,-0),('last',NULL);\n",
        chunk);
    EXPECT_EQ(r.Rows("t"), (Rows{{T("a,5)"), I(6)},
                                 {T("it's"), I(-7)},
                                 {T("plain"), I(8)},
                                 {T("x"), I(9)},
                                 {B("A"), I(10)},
                                 {N(), I(11)},
                                 {T("r"), R(1.5, "1.5")},
                                 {N(), I(0)},
                                 {T("last"), N()}}));
  }
  // A value too many, and a row that does not start with '(' after plain rows: errors.
  EXPECT_THROW(ScanText("CREATE TABLE `t` (`a` int, `b` int);\nINSERT INTO `t` VALUES (1,2,3);\n"),
               Error);
  EXPECT_THROW(
      ScanText("CREATE TABLE `t` (`a` int, `b` int);\nINSERT INTO `t` VALUES (1,2),x3,4);\n"),
      Error);
}

// Numbers of a column no one asked for are skipped whole, however they end: within eight
// bytes or not, signed, with a fraction or an exponent; the column after is read right.
TEST(MysqlDump, SkipsNumbersOfColumnsNotAskedFor) {
  for (const size_t chunk : {kDumpChunkSize, size_t{7}, size_t{1}}) {
    SCOPED_TRACE(std::to_string(chunk) + " bytes a read");
    const Recorder r = ScanText(
        "CREATE TABLE `t` (`a` int, `b` double, `c` int);\n"
        "INSERT INTO `t` VALUES (1,7,11),(2,-7,12),(3,1234567,13),(4,12345678,14),"
        "(5,-12345678,15),(6,123456789012,16),(7,1.5,17),(8,-0.25,18),(9,1e5,19),"
        "(10,2E-3,20),(11,1234567.5,21),(12,-1,22);\n",
        chunk, {{"t", {0, 2}}});
    Rows want;
    for (int64_t i = 1; i <= 12; ++i) want.push_back({I(i), I(i + 10)});
    EXPECT_EQ(r.Rows("t"), want);
  }
}

TEST(MysqlDump, InsertIgnore) {
  Recorder r = ScanFixture("mysql_insert_ignore.sql");
  EXPECT_EQ(r.Rows("item"), kItemRows);
}

TEST(MysqlDump, ReplaceInto) {
  Recorder r = ScanFixture("mysql_replace.sql");
  EXPECT_EQ(r.Rows("item"), kItemRows);
}

TEST(MysqlDump, BacktickIdentifiersWithDoubledBackticks) {
  Recorder r = ScanFixture("mysql_identifiers.sql");
  const Table* weird = r.Find("we`ird");
  ASSERT_NE(weird, nullptr);
  EXPECT_EQ(ColumnNames(*weird), (std::vector<std::string>{"a`b", "select"}));
  EXPECT_EQ(KeyStrings(*weird), (std::vector<std::string>{"P(a`b)"}));
  EXPECT_EQ(r.Rows("we`ird"), (Rows{{I(1), T("x")}}));
}

TEST(MysqlDump, BigintUnsignedAboveInt64AndDecimals) {
  Recorder r = ScanFixture("mysql_unsigned.sql");
  const Table* big = r.Find("big");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->columns[0].declared_type, "bigint(20) unsigned");
  EXPECT_EQ(r.Rows("big"), (Rows{{I(0), N(), R(0.1, "0.1")},
                                 {Big("9223372036854775808"), R(-0.01, "-0.01"), I(-2)},
                                 {Big("18446744073709551615"), R(12.5, "12.50"), I(15000000000)}}));
}

TEST(MysqlDump, DelimiterBlocksWithTriggers) {
  Recorder r = ScanFixture("mysql_trigger.sql");
  EXPECT_NE(r.Find("audit"), nullptr);
  EXPECT_EQ(r.Rows("item"), kItemRows);
}

TEST(MysqlDump, AlterTableAddsKeysAfterTheData) {
  Recorder r = ScanFixture("mysql_alter_pk.handmade.sql");
  std::vector<std::vector<std::string>> announced;
  for (const Table& t : r.tables) announced.push_back(KeyStrings(t));
  EXPECT_EQ(announced,
            (std::vector<std::vector<std::string>>{{}, {"P(player,season)", "U(code)"}}));
  EXPECT_EQ(r.Rows("score"), (Rows{{I(1), I(1), I(100), T("a")}, {I(2), I(1), I(50), T("b")}}));
}

// Foreign keys reach the visitor on the Table: mysqldump's CONSTRAINT ... FOREIGN KEY inside
// CREATE TABLE, and phpMyAdmin's ALTER TABLE ... ADD CONSTRAINT after the data, which tells the
// visitor about the table again.
TEST(MysqlDump, ForeignKeysReachTheVisitor) {
  const TempDir dir;
  const std::string path = dir.path() + "/fk.sql";
  ::steadyflake::testing::WriteFile(
      path,
      "/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n"
      "CREATE TABLE `player` (\n"
      "  `id` bigint NOT NULL,\n"
      "  `realm` int NOT NULL,\n"
      "  PRIMARY KEY (`id`),\n"
      "  UNIQUE KEY `realm_id` (`realm`,`id`)\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n"
      "CREATE TABLE `item` (\n"
      "  `id` bigint NOT NULL,\n"
      "  `owner_id` bigint NOT NULL,\n"
      "  `realm` int NOT NULL,\n"
      "  PRIMARY KEY (`id`),\n"
      "  KEY `fk_item_owner` (`owner_id`),\n"
      "  CONSTRAINT `fk_item_owner` FOREIGN KEY (`owner_id`) REFERENCES `player` (`id`) ON DELETE "
      "CASCADE\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n"
      "INSERT INTO `item` VALUES (1,10,1),(2,11,1);\n"
      "ALTER TABLE `item`\n"
      "  ADD CONSTRAINT `fk_item_realm` FOREIGN KEY (`realm`, `owner_id`) REFERENCES "
      "`game`.`player` (`realm`, `id`);\n");
  Recorder r;
  OpenDumpSource(path, false)->Scan(r, {});
  ASSERT_EQ(r.tables.size(), 3u);  // player, item, item again after the ALTER TABLE
  EXPECT_TRUE(r.tables[0].foreign_keys.empty());
  const Table& created = r.tables[1];
  ASSERT_EQ(created.name, "item");
  ASSERT_EQ(created.foreign_keys.size(), 1u);
  EXPECT_EQ(created.foreign_keys[0].columns, (std::vector<int>{1}));
  EXPECT_EQ(created.foreign_keys[0].ref_table, "player");
  EXPECT_EQ(created.foreign_keys[0].ref_columns, (std::vector<std::string>{"id"}));
  const Table& altered = r.tables[2];
  ASSERT_EQ(altered.name, "item");
  ASSERT_EQ(altered.foreign_keys.size(), 2u);
  EXPECT_EQ(altered.foreign_keys[0].columns, (std::vector<int>{1}));
  EXPECT_EQ(altered.foreign_keys[1].columns, (std::vector<int>{2, 1}));
  EXPECT_EQ(altered.foreign_keys[1].ref_table, "player");
  EXPECT_EQ(altered.foreign_keys[1].ref_columns, (std::vector<std::string>{"realm", "id"}));
  EXPECT_EQ(KeyStrings(altered), (std::vector<std::string>{"P(id)"}));
  EXPECT_EQ(r.Rows("item"), (Rows{{I(1), I(10), I(1)}, {I(2), I(11), I(1)}}));

  // A foreign key over a column the table lacks is an error at its line, like a key's.
  const std::string bad = dir.path() + "/bad_fk.sql";
  ::steadyflake::testing::WriteFile(bad,
                                    "CREATE TABLE `item` (`id` int, `owner_id` int);\n"
                                    "ALTER TABLE `item` ADD FOREIGN KEY (`owner`) REFERENCES "
                                    "`player` (`id`);\n");
  ExpectDumpError(
      [&] {
        Recorder ignored;
        OpenDumpSource(bad, false)->Scan(ignored, {});
      },
      bad, 2, "foreign key column 'owner' is not a column of table 'item'");
}

TEST(MysqlDump, SkipCommentsNeedsNoTrailer) {
  Recorder r = ScanFixture("mysql_skip_comments.sql");
  EXPECT_EQ(r.Rows("pair"), (Rows{{I(1), T("x")}, {I(1), T("y")}}));
}

TEST(MysqlDump, TruncatedInsideAStringIsAnError) {
  const std::string path = DumpPath("mysql_truncated.handmade.sql");
  const std::string text = ReadFile(path);
  const int line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + text.rfind('\''), '\n'));
  ExpectDumpError([&] { ScanFixture("mysql_truncated.handmade.sql"); }, path, line, "cut short");
}

TEST(MysqlDump, MissingTrailerIsAnError) {
  const std::string path = DumpPath("mysql_no_trailer.handmade.sql");
  const std::string text = ReadFile(path);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  ExpectDumpError([&] { ScanFixture("mysql_no_trailer.handmade.sql"); }, path, line,
                  "Dump completed");
}

}  // namespace
}  // namespace steadyflake::mergecheck::testing
