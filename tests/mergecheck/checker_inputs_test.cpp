// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Check() on what its inputs may be: a copy of one input, the same file by another name, REAL
// and NUMERIC keys against SQLite's answer, many overlaps of a hashed key, a missing input, a
// key declared after its table's rows, and the progress of each input through its file.

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "check/checker.h"
#include "checker_test_util.h"
#include "mergecheck_test_util.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck::checker_test {
namespace {

using testing::MakeShard;
using testing::TempDir;

TEST(CheckerTest, ACopyOfTheSameInputOverlapsEverywhere) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a');
  std::filesystem::copy_file(a, dir.File("copy.db"));
  const Report r = Check(a, dir.File("copy.db"), Opts());
  for (const KeyReport& k : r.keys) EXPECT_EQ(k.overlap, k.rows_a) << k.table;
  EXPECT_EQ(r.servers_shared, (std::vector<uint64_t>{101}));
}

// The same file as A and B, by any name, says nothing about a merge: exit 2, naming both.
TEST(CheckerTest, RefusesTheSameFileAsBothInputs) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a');
  std::filesystem::create_symlink(a, dir.File("link.db"));
  std::filesystem::create_hard_link(a, dir.File("hard.db"));
  for (const std::string& b :
       {a, dir.File("link.db"), dir.File("hard.db"), dir.path() + "/./a.db"}) {
    try {
      Check(a, b, Opts());
      ADD_FAILURE() << "no error for " << b;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
      EXPECT_EQ(std::string(e.what()), a + " and " + b +
                                           " are the same file; pass the two shards to merge (A "
                                           "the target, B the one merged into it)");
    }
  }
}

// The overlap SQLite itself finds between table t of `a` and of `b` (ATTACH and JOIN on k).
uint64_t SqliteOverlap(const std::string& a, const std::string& b) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(a.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "ATTACH '" + b + "' AS b";
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_prepare_v2(db, "SELECT count(*) FROM main.t JOIN b.t ON main.t.k = b.t.k", -1, &stmt,
                     nullptr);
  const uint64_t overlap =
      sqlite3_step(stmt) == SQLITE_ROW ? static_cast<uint64_t>(sqlite3_column_int64(stmt, 0)) : 0;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return overlap;
}

// Issue 16.4c: in a REAL or NUMERIC key column, 1, 1.0, '1' and '1.0' may be one key to SQLite
// (affinity converts them on insert). The checker's overlap is SQLite's own, value by value.
TEST(CheckerTest, IntegralValuesOfRealAndNumericKeysOverlapAsSqliteSays) {
  const std::vector<std::string> values = {"1",   "1.0",   "'1'", "'1.0'",  "1.5", "'01'",
                                           "1e0", "'1e0'", "2",   "'2.50'", "2.5", "'abc'"};
  for (const char* type : {"REAL", "NUMERIC"}) {
    TempDir dir;
    std::vector<std::string> files;  // one database per value
    std::vector<std::string> dumps;  // the same as a sqlite3 .dump: the literal as written
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string sql = std::string("CREATE TABLE t(k ") + type +
                              " PRIMARY KEY);\nINSERT INTO t VALUES(" + values[i] + ");\n";
      files.push_back(dir.File(std::to_string(i) + ".db"));
      testing::ExecSql(files.back(), sql);
      dumps.push_back(dir.File(std::to_string(i) + ".sql"));
      testing::WriteFile(dumps.back(),
                         "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n" + sql + "COMMIT;\n");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      for (std::size_t j = 0; j < values.size(); ++j) {
        const uint64_t want = SqliteOverlap(files[i], files[j]);
        const std::string what =
            std::string("k ") + type + ": A holds " + values[i] + ", B holds " + values[j];
        if (i < j) {  // one order is enough; the same file twice is refused
          const Report files_only = Check(files[i], files[j], Opts());
          ASSERT_EQ(files_only.keys.size(), 1u);
          EXPECT_EQ(files_only.keys[0].overlap, want) << what << " (two databases)";
        }
        const Report with_dump = Check(files[i], dumps[j], Opts());
        ASSERT_EQ(with_dump.keys.size(), 1u);
        EXPECT_EQ(with_dump.keys[0].overlap, want) << what << " (B a dump)";
      }
    }
  }
}

// Many overlapping text keys: the second read of input A cuts its list down as it goes (past
// 2 * limit + 1024 values) and still reports the first ones, ascending.
TEST(CheckerTest, ListsTheFirstConflictsOfAHashedKeyWithManyOverlaps) {
  TempDir dir;
  // Names n4999 down to n2000 in A, n3999 down to n0000 in B: n2000..n3999 are in both.
  auto shard = [&](const std::string& name, int from) {
    const std::string path = dir.File(name);
    testing::ExecSql(path,
                     "CREATE TABLE guild(name TEXT PRIMARY KEY) WITHOUT ROWID;"
                     "WITH RECURSIVE n(i) AS (SELECT " +
                         std::to_string(from) + " UNION ALL SELECT i - 1 FROM n WHERE i > " +
                         std::to_string(from - 2999) +
                         ") INSERT INTO guild SELECT printf('n%04d', i) FROM n;");
    return path;
  };
  Options options = Opts();
  options.limit = 10;
  const Report r = Check(shard("a.db", 4999), shard("b.db", 3999), options);
  const KeyReport& name = KeyOf(r, "guild", {"name"});
  EXPECT_EQ(name.overlap, 2000u);
  EXPECT_EQ(Texts(name.conflicts),
            (std::vector<std::string>{"n2000", "n2001", "n2002", "n2003", "n2004", "n2005", "n2006",
                                      "n2007", "n2008", "n2009"}));
}

TEST(CheckerTest, MissingInputIsAnErrorNamingIt) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a');
  try {
    Check(a, dir.File("nope.db"), Opts());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.File("nope.db")), std::string::npos);
  }
}

// A source that defines table t(id INTEGER) without a key, gives its rows, and only then
// declares the primary key, as a mysqldump does with ALTER TABLE ... ADD PRIMARY KEY.
class KeyAfterRowsSource : public Source {
 public:
  explicit KeyAfterRowsSource(std::vector<int64_t> ids) : ids_(std::move(ids)) {}
  std::string format() const override { return "fake"; }
  std::string reader() const override { return "fake"; }
  uint64_t bytes_read() const override { return 0; }
  uint64_t rows_read() const override { return 0; }
  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    scans.push_back(only);
    Table t;
    t.name = "t";
    t.columns = {Column{"id", "INTEGER", Affinity::kInteger}, Column{"v", "", Affinity::kBlob}};
    const std::vector<int> wanted = visitor.OnTable(t);
    for (const int64_t id : ids_) {
      std::vector<Cell> cells;
      for (const int c : wanted) {
        Cell cell;
        if (c == 0) {
          cell.type = Cell::Type::kInteger;
          cell.integer = id;
        }
        cells.push_back(cell);
      }
      visitor.OnRow(t, cells, 0);
    }
    t.keys.push_back(Key{Key::Kind::kPrimary, "", {0}});
    visitor.OnTable(t);
  }
  std::vector<std::vector<std::string>> scans;

 private:
  std::vector<int64_t> ids_;
};

TEST(CheckerTest, RereadsATableWhoseKeyCameAfterItsRows) {
  KeyAfterRowsSource a({1, 2, 3});
  KeyAfterRowsSource b({3, 4});
  const Report r = CheckSources("a", a, "b", b, Opts(), kNowMs);
  ASSERT_EQ(r.keys.size(), 1u);
  EXPECT_EQ(r.keys[0].rows_a, 3u);
  EXPECT_EQ(r.keys[0].rows_b, 2u);
  EXPECT_EQ(r.keys[0].overlap, 1u);
  EXPECT_EQ(r.keys[0].kind, KeyReport::Kind::kPrimary);
  EXPECT_EQ(r.inputs[0].rows, 3u);     // the reread is not counted twice
  EXPECT_EQ(r.keys[0].identical, 1u);  // (3, NULL) on both sides
  // The first read, the reread for the key, and the whole-row comparison of the overlap (this
  // source cannot look rows up: it is scanned).
  EXPECT_EQ(a.scans, (std::vector<std::vector<std::string>>{{}, {"t"}, {"t"}}));
}

// The progress callback: each input's file size, and how far into it the reading came, for a
// SQLite file, a plain dump and a gzip dump (whose share is of the compressed bytes).
TEST(CheckerTest, ProgressReportsEachInputsShareOfItsFile) {
  TempDir dir;
  std::string sql = "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);\n";
  for (int i = 1; i <= 140000; ++i) {
    sql += "INSERT INTO item VALUES(" + std::to_string(i) + ",'item number " + std::to_string(i) +
           "');\n";
  }
  const std::string dump = dir.path() + "/b.sql";
  testing::WriteFile(dump, "BEGIN TRANSACTION;\n" + sql + "COMMIT;\n");
  const std::string db = dir.path() + "/a.db";
  testing::ExecSql(db, "BEGIN;\n" + sql + "COMMIT;\n");
  const std::string gz = dir.path() + "/c.sql.gz";
  ASSERT_EQ(std::system(("gzip -c " + dump + " > " + gz).c_str()), 0);
  for (const std::string& b : {dump, gz}) {
    std::mutex mu;
    std::vector<Options::Progress> seen[2];
    Options options = Opts();
    options.progress = [&](const Options::Progress& p) {
      std::lock_guard<std::mutex> lock(mu);
      seen[p.input].push_back(p);
    };
    Check(db, b, options);
    for (int input = 0; input < 2; ++input) {
      const auto& calls = seen[input];
      ASSERT_GE(calls.size(), 2u) << b << " input " << input;
      const uint64_t size = std::filesystem::file_size(input == 0 ? db : b);
      uint64_t previous = 0;
      for (const Options::Progress& p : calls) {
        EXPECT_EQ(p.file_size, size) << b << " input " << input;
        EXPECT_GT(p.file_read, 0u);
        EXPECT_LE(p.file_read, size + size / 10) << "far past the file";
        if (p.rows > calls.front().rows) {
          EXPECT_GE(p.file_read, previous) << "went back";
        }
        previous = p.file_read;
      }
      // Every 65,536 rows: the last call came after at least 131,072 of 140,000, so at least
      // about 90% of the file was read (half of it would mean the share counts the wrong
      // bytes, e.g. inflated text against a compressed size).
      EXPECT_GE(calls.back().file_read * 10, size * 8) << b << " input " << input;
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::checker_test
