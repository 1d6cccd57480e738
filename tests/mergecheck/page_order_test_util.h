// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the tests of the structure check share (sqlite_index_walk_test.cpp,
// sqlite_page_order_test.cpp, sqlite_trust_test.cpp): the error a check ends with, damage only
// the structure check sees, and a visitor that reads a table's first column alone.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_PAGE_ORDER_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_PAGE_ORDER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "source/source.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck::page_order_test {

using testing::ReadFile;
using testing::RecordingVisitor;
using testing::WriteFile;

inline std::string ErrorOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

// Sets the cell content area of page `page` of the file at `path` to start at byte 1, inside
// its header: the structure check refuses it ("its cell content area lies outside the page");
// the record reader reads cells through their pointers and never looks.
inline void BreakContentArea(const std::string& path, uint32_t page) {
  std::string bytes = ReadFile(path);
  const std::size_t at = (page - 1) * testing::PageSize(bytes) + 5;
  bytes[at] = 0;
  bytes[at + 1] = 1;
  WriteFile(path, bytes);
}

// Reads the id column alone: the rowids, from the table's b-tree.
class IdVisitor : public RecordingVisitor {
 public:
  std::vector<int> OnTable(const Table& table) override {
    RecordingVisitor::OnTable(table);
    return {0};
  }
};

// Reads the id column (the first) as the table's only key, as the checker reads a table whose
// other key it merges in index order: that key's group is left out (Key::in_index_order), to be
// read in index order. `throw_at_row` > 0: throws std::runtime_error at that row.
class IdKeyVisitor : public RecordingVisitor {
 public:
  explicit IdKeyVisitor(uint64_t throw_at_row = 0) : throw_at_row_(throw_at_row) {}
  std::vector<int> OnTable(const Table& table) override {
    RecordingVisitor::OnTable(table);
    return {0};
  }
  std::vector<std::vector<int>> Groups(const Table&) override { return {{0}}; }
  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
    if (++rows_seen == throw_at_row_) throw std::runtime_error("the visitor stops");
    RecordingVisitor::OnRow(table, cells, position);
  }
  uint64_t rows_seen = 0;

 private:
  uint64_t throw_at_row_;
};

}  // namespace steadyflake::mergecheck::page_order_test

#endif  // STEADYFLAKE_TESTS_MERGECHECK_PAGE_ORDER_TEST_UTIL_H_
