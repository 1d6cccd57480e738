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

}  // namespace steadyflake::mergecheck::page_order_test

#endif  // STEADYFLAKE_TESTS_MERGECHECK_PAGE_ORDER_TEST_UTIL_H_
