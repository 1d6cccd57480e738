// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Source::ReadRowsAt on dumps: a plain dump gives the rows at the positions its scan gave them,
// exactly as the scan gave them (every fixture form: extended INSERTs, one per row, column
// lists, rows split across statements, rows longer than the first read window, the last row of
// the file); it declines what it cannot read by position (gzip, a table the scan did not give, a
// table created twice), and it refuses a file that changed since it was opened.

#include <zlib.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "dump/rows_at.h"
#include "dump_test_util.h"

namespace steadyflake::mergecheck::testing {
namespace {

// The rows of `table` the scan of `path` gave, and the same rows read again by position: every
// other one, and all of them.
void ExpectRowsAtMatchTheScan(const std::string& path) {
  std::unique_ptr<Source> source = OpenDumpSource(path, false);
  ASSERT_TRUE(source->ReadsRowsAt());
  Recorder scanned;
  source->Scan(scanned, {});
  std::map<std::string, std::vector<Row>> by_table;
  for (const Row& row : scanned.rows) by_table[row.table].push_back(row);
  ASSERT_FALSE(by_table.empty()) << path;
  for (const auto& [table, rows] : by_table) {
    for (const size_t step : {size_t{2}, size_t{1}}) {
      std::vector<uint64_t> positions;
      std::vector<Row> want;
      for (size_t i = 0; i < rows.size(); i += step) {
        positions.push_back(rows[i].position);
        want.push_back(rows[i]);
      }
      Recorder again;
      ASSERT_TRUE(source->ReadRowsAt(again, table, positions)) << path << " " << table;
      ASSERT_EQ(again.tables.size(), 1u);
      EXPECT_EQ(again.tables[0].name, table);
      ASSERT_EQ(again.rows.size(), want.size()) << path << " " << table;
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(again.rows[i].table, table);
        EXPECT_EQ(again.rows[i].cells, want[i].cells) << path << " " << table << " row " << i;
        EXPECT_EQ(again.rows[i].position, want[i].position);
      }
    }
  }
}

TEST(DumpRowsAt, GivesTheRowsTheScanGaveAtThosePositions) {
  for (const char* fixture : {"mysql_extended.sql", "mysql8_one_line.handmade.sql",
                              "mysql_split.sql", "mysql_complete_insert.sql", "mysql_escapes.sql",
                              "sqlite_wrapper.sql", "sqlite_quotes.sql"}) {
    ExpectRowsAtMatchTheScan(DumpPath(fixture));
  }
}

// A row of 100 KB (more than the 1 KiB first window), short rows after it (read with the window
// it left, then a smaller one), column lists in two orders, and the file's last row right
// before its end (no trailer after it).
TEST(DumpRowsAt, ReadsLongRowsAndTheLastRowOfTheFile) {
  TempDir dir;
  const std::string path = dir.path() + "/" + "long.sql";
  std::string text =
      "CREATE TABLE t(id INTEGER PRIMARY KEY, note TEXT, n INT);\n"
      "INSERT INTO t VALUES(1,'short',1),(2,'" +
      std::string(100000, 'x') + "',2),(3,'it''s',3);\n";
  text += "INSERT INTO t(n, note, id) VALUES(40,'four',4),(50,'five',5);\n";
  text += "INSERT INTO t VALUES(6,'" + std::string(40000, 'y') + "',6)";
  ::steadyflake::testing::WriteFile(path, text + ";");
  ExpectRowsAtMatchTheScan(path);
}

TEST(DumpRowsAt, DeclinesWhatItCannotReadByPosition) {
  TempDir dir;
  const std::string text =
      "CREATE TABLE a(id INTEGER PRIMARY KEY, v TEXT);\n"
      "INSERT INTO a VALUES(1,'x'),(2,'y');\n"
      "CREATE TABLE b(id INTEGER PRIMARY KEY);\n"
      "INSERT INTO b VALUES(7);\n"
      "DROP TABLE a;\n"
      "CREATE TABLE a(id INTEGER PRIMARY KEY, v TEXT, w TEXT);\n"
      "INSERT INTO a VALUES(3,'z','w');\n";
  const std::string plain = dir.path() + "/" + "d.sql";
  ::steadyflake::testing::WriteFile(plain, text);
  std::unique_ptr<Source> source = OpenDumpSource(plain, false);
  Recorder scanned;
  source->Scan(scanned, {"b"});
  Recorder none;
  // `a` was not given by the scan; then, scanned, it was created twice.
  EXPECT_FALSE(source->ReadRowsAt(none, "a", std::vector<uint64_t>{scanned.rows[0].position}));
  source->Scan(scanned, {});
  std::vector<uint64_t> positions;
  for (const Row& row : scanned.rows) {
    if (row.table == "a") positions.push_back(row.position);
  }
  ASSERT_EQ(positions.size(), 3u);
  EXPECT_FALSE(source->ReadRowsAt(none, "a", positions));
  EXPECT_TRUE(none.tables.empty());
  EXPECT_TRUE(none.rows.empty());

  const std::string gz = dir.path() + "/" + "d.sql.gz";
  gzFile out = gzopen(gz.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(out), Z_OK);
  std::unique_ptr<Source> zipped = OpenDumpSource(gz, true);
  EXPECT_FALSE(zipped->ReadsRowsAt());
  Recorder zscan;
  zipped->Scan(zscan, {});
  EXPECT_FALSE(zipped->ReadRowsAt(none, "b", std::vector<uint64_t>{zscan.rows[2].position}));
  EXPECT_TRUE(none.rows.empty());
}

TEST(DumpRowsAt, RefusesAFileThatChanged) {
  TempDir dir;
  const std::string path = dir.path() + "/" + "d.sql";
  const std::string text =
      "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\nINSERT INTO t VALUES(1,'a'),(2,'b');\n";
  ::steadyflake::testing::WriteFile(path, text);
  std::unique_ptr<Source> source = OpenDumpSource(path, false);
  Recorder scanned;
  source->Scan(scanned, {});
  ASSERT_EQ(scanned.rows.size(), 2u);
  const std::vector<uint64_t> positions{scanned.rows[1].position};
  // Another row where the second was: same size, another content.
  std::string changed = text;
  changed[scanned.rows[1].position + 1] = '9';
  ::steadyflake::testing::WriteFile(path + ".new", changed);
  ASSERT_EQ(std::rename((path + ".new").c_str(), path.c_str()), 0);
  Recorder again;
  try {
    source->ReadRowsAt(again, "t", positions);
    ADD_FAILURE() << "read a changed file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("changed since merge-check began reading it"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(again.rows.empty());
}

// Rows read by position once are given again as they were without the file: a later pass
// wants the rows of the same values, and reads them from what the first read kept.
TEST(DumpRowsAt, GivesRowsReadBeforeWithoutTheFile) {
  TempDir dir;
  const std::string path = dir.path() + "/" + "d.sql";
  ::steadyflake::testing::WriteFile(path,
                                    "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\n"
                                    "INSERT INTO t VALUES(1,'a'),(2,'b''c'),(3,'d');\n");
  std::unique_ptr<Source> source = OpenDumpSource(path, false);
  Recorder scanned;
  source->Scan(scanned, {});
  ASSERT_EQ(scanned.rows.size(), 3u);
  const std::vector<uint64_t> positions{scanned.rows[0].position, scanned.rows[1].position};
  Recorder first;
  ASSERT_TRUE(source->ReadRowsAt(first, "t", positions));
  ASSERT_EQ(std::remove(path.c_str()), 0);
  Recorder again;
  ASSERT_TRUE(source->ReadRowsAt(again, "t", std::vector<uint64_t>{positions[1]}));
  ASSERT_EQ(again.rows.size(), 1u);
  EXPECT_EQ(again.rows[0].cells, scanned.rows[1].cells);
  EXPECT_EQ(again.rows[0].position, positions[1]);
  // A row not read before needs the file, which is gone.
  EXPECT_THROW(source->ReadRowsAt(again, "t", std::vector<uint64_t>{scanned.rows[2].position}),
               Error);
}

// The rows a read by position keeps for the next (RowCache): each found by its position as it
// was added, none past the cache's bytes, and a position added twice kept as first added.
TEST(DumpRowsAt, KeepsRowsReadUpToItsBytes) {
  dump::RowCache cache;
  const std::string row = "(1,'a'," + std::string(1000, 'x') + ")";
  const size_t fit = dump::RowCache::kMaxBytes / row.size();
  for (size_t i = 0; i <= fit; ++i) cache.Add(i * 4096, row);
  EXPECT_EQ(cache.Find(0), row);
  EXPECT_EQ(cache.Find((fit - 1) * 4096), row);
  EXPECT_TRUE(cache.Find(fit * 4096).empty());  // past kMaxBytes
  EXPECT_TRUE(cache.Find(1).empty());
  dump::RowCache small;
  small.Add(7, "(1)");
  small.Add(7, "(2)");
  EXPECT_EQ(small.Find(7), "(1)");
}

}  // namespace
}  // namespace steadyflake::mergecheck::testing
