// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The dump reader as a stream: the same results whatever the chunk size (every token across
// a chunk boundary), through gzip, on a second Scan, and against the real sqlite3 on random
// data; and the errors for input that is not a dump.

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
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

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

void WriteGzip(const std::string& path, const std::vector<std::string>& members) {
  std::string all;
  for (const std::string& member : members) {
    const std::string part = path + ".part";
    gzFile gz = gzopen(part.c_str(), "wb9");
    ASSERT_NE(gz, nullptr);
    ASSERT_EQ(gzwrite(gz, member.data(), static_cast<unsigned>(member.size())),
              static_cast<int>(member.size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
    all += ReadFile(part);
    std::remove(part.c_str());
  }
  WriteFile(path, all);
}

// What a scan produced, or the error it threw, as one comparable string.
std::string Outcome(const std::string& path, bool gzip, size_t chunk) {
  std::ostringstream os;
  try {
    Recorder r;
    OpenDumpSourceForTest(path, gzip, chunk)->Scan(r, {});
    for (const Table& t : r.tables) {
      os << "table " << t.name;
      for (const Column& c : t.columns) os << " [" << c.name << " " << c.declared_type << "]";
      for (const std::string& k : KeyStrings(t)) os << " " << k;
      os << "\n";
    }
    for (const Row& row : r.rows) {
      os << row.table << "@" << row.position;
      for (const Value& v : row.cells) os << " " << v;
      os << "\n";
    }
  } catch (const Error& e) {
    os << "error: " << e.what();
  }
  return os.str();
}

std::vector<std::string> Fixtures() {
  std::vector<std::string> names;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(STEADYFLAKE_DATA_DIR) + "/dumps")) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".sql") || name.ends_with(".txt")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(DumpStream, EveryChunkSizeGivesTheSameResult) {
  const std::vector<std::string> names = Fixtures();
  ASSERT_GE(names.size(), 30u);
  for (const std::string& name : names) {
    const std::string whole = Outcome(DumpPath(name), false, kDumpChunkSize);
    for (size_t chunk = 1; chunk <= 7; ++chunk) {
      EXPECT_EQ(Outcome(DumpPath(name), false, chunk), whole) << name << " chunk " << chunk;
    }
  }
}

// Regression (fuzz_dump, data/fuzz/dump/regression-error-text-depends-on-read-size): an error
// that quotes the input where it stops ("found '...'") quoted only what the buffer held, so
// reading a byte at a time gave "found '2'" where one read gave "found '2d+1s\");'".
TEST(DumpStream, ErrorsQuoteTheSameTextWhateverTheChunkSize) {
  const TempDir dir;
  const std::string mysql_table = "CREATE TABLE `t` (`a` int, `b` int);\n";
  const std::string cases[] = {
      "CREATE TABLE t(a);\n;2d+1s\");\nmore\n",                        // no statement
      mysql_table + "INSERT INTO `t` VALUES x1234567890;\n",           // no row
      mysql_table + "INSERT INTO `t` VALUES (1 x234567, 2);\n",        // no ',' after a value
      mysql_table + "INSERT INTO `t` VALUES (@abcdefghij, 2);\n",      // no value
      "CREATE TABLE t(a, b);\nINSERT INTO t VALUES(12abcdefgh,2);\n",  // a malformed number
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    const std::string path = dir.path() + "/case" + std::to_string(i) + ".sql";
    WriteFile(path, cases[i]);
    const std::string whole = Outcome(path, false, kDumpChunkSize);
    EXPECT_NE(whole.find("error: "), std::string::npos) << whole;
    for (size_t chunk = 1; chunk <= 7; ++chunk) {
      EXPECT_EQ(Outcome(path, false, chunk), whole) << cases[i] << " chunk " << chunk;
    }
  }
}

// A row that fails after others of its INSERT were read in the same step (StepTuple reads the
// rows a comma joins at once) is read again, for its error's quote, after more input: the rows
// before it are not read, nor given, again. Whatever the chunk size, the rows given before the
// error are given once each, in order.
TEST(DumpStream, RowsBeforeABadRowAreGivenOnce) {
  const TempDir dir;
  const std::string path = dir.path() + "/bad.sql";
  WriteFile(path,
            "CREATE TABLE `t` (`a` int, `b` int);\n"
            "INSERT INTO `t` VALUES (1,2),(3,4),(5,6),(7,8),(9 x234567, 10);\n");
  for (size_t chunk = 1; chunk <= 24; ++chunk) {
    Recorder r;
    EXPECT_THROW(OpenDumpSourceForTest(path, false, chunk)->Scan(r, {}), Error) << chunk;
    for (size_t i = 1; i < r.rows.size(); ++i) {
      EXPECT_LT(r.rows[i - 1].position, r.rows[i].position) << "chunk " << chunk;
    }
  }
}

TEST(DumpStream, GzipGivesTheSameResult) {
  const TempDir dir;
  for (const char* name : {"mysql_binary_raw.sql", "sqlite_newlines.sql", "mysql_split.sql"}) {
    const std::string text = ReadFile(DumpPath(name));
    const std::string gz = dir.path() + "/" + name + ".gz";
    WriteGzip(gz, {text});
    std::unique_ptr<Source> source = OpenDumpSource(gz, true);
    EXPECT_TRUE(source->format().ends_with("-dump+gzip")) << source->format();
    EXPECT_EQ(Outcome(gz, true, kDumpChunkSize), Outcome(DumpPath(name), false, kDumpChunkSize))
        << name;
    EXPECT_EQ(Outcome(gz, true, 3), Outcome(DumpPath(name), false, kDumpChunkSize)) << name;
    // Concatenated gzip members (cat a.gz b.gz) read as one stream.
    const std::string two = dir.path() + "/" + name + ".two.gz";
    WriteGzip(two, {text.substr(0, text.size() / 2), text.substr(text.size() / 2)});
    EXPECT_EQ(Outcome(two, true, kDumpChunkSize), Outcome(DumpPath(name), false, kDumpChunkSize))
        << name;
  }
}

TEST(DumpStream, TruncatedGzipIsAnError) {
  const std::string text = ReadFile(DumpPath("mysql_split.sql"));
  const TempDir dir;
  const std::string gz = dir.path() + "/cut.sql.gz";
  WriteGzip(gz, {text});
  const std::string compressed = ReadFile(gz);
  WriteFile(gz, compressed.substr(0, compressed.size() / 2));
  try {
    Recorder r;
    OpenDumpSource(gz, true)->Scan(r, {});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(gz + ": "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
}

// Issue 16.5: damaged gzip (a flipped byte anywhere past the header, garbage or zeros after
// the last member) is refused naming the file, and at once: a reader that ignored zlib's
// Z_DATA_ERROR would spin forever, so each read runs under alarm(20), whose SIGALRM fails
// the test long before CTest's timeout would.
TEST(DumpStream, CorruptGzipIsRefusedAtOnce) {
  const std::string text = ReadFile(DumpPath("mysql_split.sql"));
  const TempDir dir;
  const std::string gz = dir.path() + "/good.sql.gz";
  WriteGzip(gz, {text});
  const std::string good = ReadFile(gz);
  std::vector<std::pair<std::string, std::string>> damaged;  // (what, bytes)
  for (std::size_t at = 10; at < good.size(); at += good.size() / 9) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    damaged.emplace_back("byte " + std::to_string(at) + " flipped", flipped);
  }
  damaged.emplace_back("the trailer's last byte flipped",
                       good.substr(0, good.size() - 1) + static_cast<char>(good.back() ^ 1));
  damaged.emplace_back("garbage after the member", good + "garbage\n");
  damaged.emplace_back("zeros after the member", good + std::string(512, '\0'));
  for (const auto& [what, bytes] : damaged) {
    const std::string path = dir.path() + "/damaged.sql.gz";
    WriteFile(path, bytes);
    ::alarm(20);
    try {
      Recorder r;
      OpenDumpSource(path, true)->Scan(r, {});
      ADD_FAILURE() << what << ": read without an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Error::Code::kInvalidArgument) << what;
      EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << what << ": " << e.what();
    }
    ::alarm(0);
  }
}

TEST(DumpStream, ScanTwiceGivesTheSameResult) {
  std::unique_ptr<Source> source = OpenDumpSource(DumpPath("mysql_alter_pk.handmade.sql"), false);
  Recorder first, second;
  source->Scan(first, {});
  source->Scan(second, {});
  EXPECT_EQ(first.Rows("score"), second.Rows("score"));
  EXPECT_EQ(first.tables.size(), second.tables.size());
}

TEST(DumpStream, TextThatIsNotADumpIsAnError) {
  const std::string path = DumpPath("not_a_dump.handmade.txt");
  ExpectDumpError([&] { OpenDumpSource(path, false); }, path, 1, "not an SQL dump");
}

TEST(DumpStream, BinaryGarbageIsAnError) {
  std::mt19937_64 rng(7);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  garbage[0] = '\x01';
  const TempDir dir;
  const std::string path = dir.path() + "/garbage.bin";
  WriteFile(path, garbage);
  ExpectDumpError([&] { OpenDumpSource(path, false); }, path, 1, "not an SQL dump");
}

TEST(DumpStream, GarbageAfterAStatementNamesTheLine) {
  const TempDir dir;
  const std::string path = dir.path() + "/garbage_later.sql";
  WriteFile(path, "CREATE TABLE t(a);\nINSERT INTO t VALUES(1);\n\x01\x02garbage\n");
  ExpectDumpError(
      [&] {
        Recorder r;
        OpenDumpSource(path, false)->Scan(r, {});
      },
      path, 3, "expected an SQL statement");
}

// Regression (fuzz_dump, data/fuzz/dump/regression-line-end-in-error-message): names from the
// dump went into error messages byte for byte, so a table name holding a line end split the
// one-line message (and control bytes reached the terminal as they were).
TEST(DumpStream, ErrorMessagesEscapeTheDumpsBytes) {
  const TempDir dir;
  const std::string mysql = dir.path() + "/line_end_in_name.sql";
  WriteFile(mysql, "CREATE TABLE `t` (`a` int);\nINSERT INTO `no\nsuch\x1b` VALUES (1);\n");
  ExpectDumpError(
      [&] {
        Recorder r;
        OpenDumpSource(mysql, false)->Scan(r, {});
      },
      mysql, 2, "INSERT into table 'no\\x0asuch\\x1b'");
  const std::string sqlite = dir.path() + "/line_end_in_key.sql";
  WriteFile(sqlite, "CREATE TABLE t(a, UNIQUE(\"b\nc\"));\n");
  ExpectDumpError(
      [&] {
        Recorder r;
        OpenDumpSource(sqlite, false)->Scan(r, {});
      },
      sqlite, 1, "key column 'b\\x0ac'");
}

TEST(DumpStream, EmptyFileIsAnError) {
  const TempDir dir;
  const std::string path = dir.path() + "/empty.sql";
  WriteFile(path, "");
  ExpectDumpError([&] { OpenDumpSource(path, false); }, path, 1, "empty");
}

TEST(DumpStream, MissingFileIsAnError) {
  const TempDir dir;
  const std::string path = dir.path() + "/does_not_exist.sql";
  try {
    OpenDumpSource(path, false);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find(path + ": cannot open"), std::string::npos) << e.what();
  }
}

// ---- Random round trip through the real sqlite3 ------------------------------------------------

// A text literal; CR and LF go in as char() so the sqlite3 shell's line reader keeps them.
std::string SqlText(const std::string& s) {
  std::string out = "('";
  for (char c : s) {
    if (c == '\r' || c == '\n') {
      out += "'||char(" + std::to_string(static_cast<int>(c)) + ")||'";
      continue;
    }
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  return out + "')";
}

std::string SqlBlob(const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "X'";
  for (unsigned char c : s) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out + "'";
}

TEST(DumpStream, RandomRowsRoundTripThroughSqlite3Dump) {
  if (std::system("command -v sqlite3 > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "sqlite3 is not installed";
  }
  std::mt19937_64 rng = steadyflake::testing::SeededRandom();

  // Pieces chosen to hit every escape sqlite3 .dump writes.
  const std::vector<std::string> pieces = {
      "a",      "Z",   " ",   "'",     "''",    "\n",       "\r",
      "\r\n",   "\\n", "\\r", "\\012", "\\015", "(\\n0)",   "(\\r0)",
      ");",     "--",  "/*",  "*/",    "\t",    "\xc3\xa9", "\xf0\x9f\x98\x80",
      "INSERT", ",",   "\""};
  auto random_text = [&] {
    std::string s;
    const size_t n = rng() % 8;
    for (size_t i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
    return s;
  };
  auto random_blob = [&] {
    std::string s(rng() % 6, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  };

  const TempDir dir;
  const std::string db = dir.path() + "/roundtrip.db", script = dir.path() + "/roundtrip_in.sql",
                    dump = dir.path() + "/roundtrip_dump.sql";
  std::ostringstream sql;
  sql << "CREATE TABLE t(id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB);\n";
  Rows expected;
  std::set<int64_t> ids;
  for (int row = 0; row < 300; ++row) {
    int64_t id;
    do {
      id = static_cast<int64_t>(rng());
    } while (!ids.insert(id).second);
    std::vector<Value> cells{I(id)};
    std::vector<std::string> literals{std::to_string(id)};
    // i: any int64, small or negative, or NULL.
    switch (rng() % 4) {
      case 0:
        cells.push_back(N());
        literals.push_back("NULL");
        break;
      case 1: {
        const int64_t v = static_cast<int64_t>(rng() % 2000) - 1000;
        cells.push_back(I(v));
        literals.push_back(std::to_string(v));
        break;
      }
      default: {
        const int64_t v = static_cast<int64_t>(rng());
        cells.push_back(I(v));
        literals.push_back(std::to_string(v));
      }
    }
    // r: a real (compared by value: sqlite3 prints its own literal).
    const double r =
        std::ldexp(static_cast<double>(rng() % 2000000) - 1e6, static_cast<int>(rng() % 80) - 40) +
        0.5;
    char lit[64];
    std::snprintf(lit, sizeof(lit), "%.17g", r);
    cells.push_back(R(r, ""));
    literals.push_back(lit);
    const std::string s = random_text();
    cells.push_back(T(s));
    literals.push_back(SqlText(s));
    const std::string b = random_blob();
    cells.push_back(B(b));
    literals.push_back(SqlBlob(b));
    expected.push_back(cells);
    sql << "INSERT INTO t VALUES(" << literals[0];
    for (size_t i = 1; i < literals.size(); ++i) sql << "," << literals[i];
    sql << ");\n";
  }
  WriteFile(script, sql.str());
  ASSERT_EQ(std::system(("sqlite3 '" + db + "' < '" + script + "'").c_str()), 0);
  ASSERT_EQ(std::system(("sqlite3 '" + db + "' .dump > '" + dump + "'").c_str()), 0);

  for (size_t chunk : {size_t{kDumpChunkSize}, size_t{5}}) {
    Recorder rec;
    OpenDumpSourceForTest(dump, false, chunk)->Scan(rec, {});
    Rows got = rec.Rows("t");
    for (auto& row : got) row[2].bytes.clear();  // the real's literal is sqlite3's own
    // sqlite3 dumps in rowid order.
    Rows want = expected;
    std::sort(want.begin(), want.end(),
              [](const auto& a, const auto& b) { return a[0].integer < b[0].integer; });
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << "row " << i;
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::testing
