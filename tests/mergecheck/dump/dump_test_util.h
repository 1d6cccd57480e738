// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Helpers for the dump reader's tests: a visitor that records everything it is told, with the
// cells copied out (a Cell only lives for its OnRow call), and short ways to write the
// expected cells.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_DUMP_DUMP_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_DUMP_DUMP_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "dump/dump_source.h"
#include "source/schema.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "test_util.h"

namespace steadyflake::mergecheck::testing {

// A fresh folder under $TMPDIR for the files a test writes, removed with the object: fixed
// names in a shared folder would collide when two runs of the tests overlap.
using ::steadyflake::testing::TempDir;

inline std::string DumpPath(const std::string& name) {
  return std::string(STEADYFLAKE_DATA_DIR) + "/dumps/" + name;
}

// A Cell that owns its bytes.
struct Value {
  Cell::Type type = Cell::Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string bytes;

  bool operator==(const Value& o) const {
    if (type != o.type) return false;
    switch (type) {
      case Cell::Type::kNull:
        return true;
      case Cell::Type::kInteger:
        return integer == o.integer;
      case Cell::Type::kReal:
        // Same value (bit for bit, so -0.0 != 0.0 and NaN == NaN) and same literal.
        return std::memcmp(&real, &o.real, sizeof(real)) == 0 && bytes == o.bytes;
      default:
        return bytes == o.bytes;
    }
  }
};

inline std::ostream& operator<<(std::ostream& os, const Value& v) {
  auto escaped = [&os](const std::string& s) {
    for (unsigned char c : s) {
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        os << c;
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        os << "\\x" << kHex[c >> 4] << kHex[c & 15];
      }
    }
  };
  switch (v.type) {
    case Cell::Type::kNull:
      return os << "NULL";
    case Cell::Type::kInteger:
      return os << "I(" << v.integer << ")";
    case Cell::Type::kBigInteger:
      return os << "Big(" << v.bytes << ")";
    case Cell::Type::kReal:
      os << "R(" << v.real << ", \"" << v.bytes << "\")";
      return os;
    case Cell::Type::kText:
      os << "T(\"";
      escaped(v.bytes);
      return os << "\")";
    case Cell::Type::kBlob:
      os << "B(\"";
      escaped(v.bytes);
      return os << "\")";
  }
  return os;
}

inline Value N() { return {}; }
inline Value I(int64_t i) { return {Cell::Type::kInteger, i, 0, {}}; }
inline Value Big(std::string digits) { return {Cell::Type::kBigInteger, 0, 0, std::move(digits)}; }
inline Value R(double r, std::string literal) {
  return {Cell::Type::kReal, 0, r, std::move(literal)};
}
inline Value T(std::string s) { return {Cell::Type::kText, 0, 0, std::move(s)}; }
inline Value B(std::string s) { return {Cell::Type::kBlob, 0, 0, std::move(s)}; }

struct Row {
  std::string table;
  std::vector<Value> cells;
  uint64_t position = 0;
};

// Records OnTable and OnRow calls. Wants every column unless `want` names the columns to ask
// for per table.
class Recorder : public SourceVisitor {
 public:
  std::map<std::string, std::vector<int>> want;
  std::vector<Table> tables;  // every OnTable call, in order
  std::vector<Row> rows;

  std::vector<int> OnTable(const Table& table) override {
    tables.push_back(table);
    auto it = want.find(table.name);
    if (it != want.end()) return it->second;
    std::vector<int> all;
    for (size_t i = 0; i < table.columns.size(); ++i) all.push_back(static_cast<int>(i));
    return all;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    Row row{table.name, {}, position};
    for (const Cell& c : cells) {
      Value v{c.type, c.integer, c.real, std::string(c.bytes)};
      if (c.type == Cell::Type::kInteger || c.type == Cell::Type::kNull) v.bytes.clear();
      row.cells.push_back(std::move(v));
    }
    rows.push_back(std::move(row));
  }

  // The last definition of `name` (nullptr if never seen).
  const Table* Find(const std::string& name) const {
    for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
      if (it->name == name) return &*it;
    }
    return nullptr;
  }

  // The cells of every row of `name`, in order.
  std::vector<std::vector<Value>> Rows(const std::string& name) const {
    std::vector<std::vector<Value>> out;
    for (const Row& r : rows) {
      if (r.table == name) out.push_back(r.cells);
    }
    return out;
  }
};

// Scans the fixture `name` (in data/dumps/) with `chunk` bytes per read.
inline Recorder ScanFixture(const std::string& name, size_t chunk = kDumpChunkSize,
                            const std::vector<std::string>& only = {},
                            std::map<std::string, std::vector<int>> want = {}) {
  Recorder recorder;
  recorder.want = std::move(want);
  std::unique_ptr<Source> source = OpenDumpSourceForTest(DumpPath(name), false, chunk);
  source->Scan(recorder, only);
  return recorder;
}

// Scans the dump `text`, written to a file in a temporary folder first, `chunk` bytes a read,
// asking for the columns `want` names per table (Recorder::want).
inline Recorder ScanText(const std::string& text, size_t chunk = kDumpChunkSize,
                         std::map<std::string, std::vector<int>> want = {}) {
  const TempDir dir;
  const std::string path = dir.path() + "/dump.sql";
  {
    std::ofstream out(path);
    out << text;
  }
  Recorder recorder;
  recorder.want = std::move(want);
  OpenDumpSourceForTest(path, false, chunk)->Scan(recorder, {});
  return recorder;
}

// Column names of `table`, and its keys as lists of column names with P/U.
inline std::vector<std::string> ColumnNames(const Table& table) {
  std::vector<std::string> names;
  for (const Column& c : table.columns) names.push_back(c.name);
  return names;
}

inline std::vector<std::string> KeyStrings(const Table& table) {
  std::vector<std::string> out;
  for (const Key& k : table.keys) {
    std::string s = k.kind == Key::Kind::kPrimary ? "P(" : "U(";
    for (size_t i = 0; i < k.columns.size(); ++i) {
      if (i) s += ",";
      s += table.columns[static_cast<size_t>(k.columns[i])].name;
    }
    out.push_back(s + ")");
  }
  return out;
}

// Runs `fn` expecting Error(kInvalidArgument) whose one-line message contains `path:line:`
// and `what`.
template <typename Fn>
void ExpectDumpError(Fn fn, const std::string& path, int line, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << "expected an error mentioning " << what;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
    EXPECT_NE(message.find(path + ":" + std::to_string(line) + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find("; "), std::string::npos) << "no fix in: " << message;
  }
}

}  // namespace steadyflake::mergecheck::testing

#endif  // STEADYFLAKE_TESTS_MERGECHECK_DUMP_DUMP_TEST_UTIL_H_
