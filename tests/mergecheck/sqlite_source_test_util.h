// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the tests of the SQLite reader share (sqlite_source_test.cpp,
// sqlite_direct_reads_test.cpp): a table's keys by column name, and visitors that want the rowid
// alone or read by key as the checker does.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_SQLITE_SOURCE_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_SQLITE_SOURCE_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"

namespace steadyflake::mergecheck::sqlite_source_test {

using testing::RecordingVisitor;

inline std::vector<std::vector<std::string>> KeyColumns(const Table& table) {
  std::vector<std::vector<std::string>> keys;
  for (const Key& key : table.keys) {
    std::vector<std::string> names;
    for (const int c : key.columns)
      names.push_back(table.columns.at(static_cast<std::size_t>(c)).name);
    keys.push_back(names);
  }
  return keys;
}

using Names = std::vector<std::vector<std::string>>;

// Wants the first column only (the rowid alias in the tables below).
class IdOnlyVisitor : public RecordingVisitor {
 public:
  std::vector<int> OnTable(const Table& table) override {
    RecordingVisitor::OnTable(table);
    return {0};
  }
};

// Wants every column and reads by key, as the checker does: Groups() names each key's columns,
// and each key's values are taken from the first pass that gives all of them.
class KeyRecordingVisitor : public SourceVisitor {
 public:
  std::vector<int> OnTable(const Table& table) override {
    tables[table.name] = table;
    pass_keys_.Reset();
    std::vector<int> all;
    for (std::size_t i = 0; i < table.columns.size(); ++i) all.push_back(static_cast<int>(i));
    return all;
  }
  std::vector<std::vector<int>> Groups(const Table& table) override {
    std::vector<std::vector<int>> groups;
    for (const Key& key : table.keys) groups.push_back(key.columns);
    return groups;
  }
  void OnPass(const Table& table, std::span<const int> present, bool first) override {
    ++passes[table.name];
    counting_ = first;
    pass_keys_.Start(table.keys.size(), present,
                     [&](std::size_t k) { return std::span(table.keys[k].columns); });
  }
  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    positions[table.name + "#" + std::to_string(passes[table.name])].push_back(position);
    if (counting_) ++rows[table.name];
    for (std::size_t k = 0; k < table.keys.size(); ++k) {
      if (!pass_keys_.Computes(k)) continue;
      std::string tuple;
      for (const int c : table.keys[k].columns) {
        const Cell& cell = cells[static_cast<std::size_t>(c)];
        tuple += "|" + std::to_string(static_cast<int>(cell.type)) + ":";
        if (cell.type == Cell::Type::kInteger) {
          tuple += std::to_string(cell.integer);
        } else if (cell.type == Cell::Type::kReal) {
          tuple += std::to_string(cell.real);
        } else if (cell.type != Cell::Type::kNull) {
          tuple += std::string(cell.bytes);
        }
      }
      keys[table.name + "/" + std::to_string(k)].push_back(tuple);
    }
  }

  std::map<std::string, Table> tables;
  std::map<std::string, std::vector<std::string>> keys;  // "table/key index": one per row
  std::map<std::string, uint64_t> rows;                  // counted in first passes
  std::map<std::string, int> passes;
  // "table#pass": the position of each row, as given
  std::map<std::string, std::vector<uint64_t>> positions;

 private:
  bool counting_ = true;
  PassKeys pass_keys_;
};

}  // namespace steadyflake::mergecheck::sqlite_source_test

#endif  // STEADYFLAKE_TESTS_MERGECHECK_SQLITE_SOURCE_TEST_UTIL_H_
