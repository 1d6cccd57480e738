// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// CountingSource: a SQLite source for tests that counts the ways it was read (scans, look-ups
// done, index-order reads tried and done, splits given, cursors given), to assert that a check
// reads each input as often as it should.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_COUNTING_SOURCE_H_
#define STEADYFLAKE_TESTS_MERGECHECK_COUNTING_SOURCE_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "source/source.h"

namespace steadyflake::mergecheck::testing {

class CountingSource : public Source {
 public:
  explicit CountingSource(const std::string& path) : inner_(OpenSqliteSource(path)) {}
  std::string format() const override { return inner_->format(); }
  std::string reader() const override { return inner_->reader(); }
  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    ++scans;
    inner_->Scan(visitor, only);
  }
  bool LookUpValues(SourceVisitor& visitor, const std::string& table,
                    const std::vector<std::string>& columns,
                    const std::vector<std::string>& collations,
                    const std::vector<std::vector<Cell>>& tuples) override {
    const bool done = inner_->LookUpValues(visitor, table, columns, collations, tuples);
    lookups += done ? 1 : 0;
    sought += done ? static_cast<int>(tuples.size()) : 0;
    return done;
  }
  bool ReadInIndexOrder(const std::string& table, const std::vector<std::string>& columns,
                        const std::vector<std::string>& collations, const RecordsInOrder& on_record,
                        const IntegersInOrder& on_integers) override {
    ++ordered;
    const bool done = inner_->ReadInIndexOrder(table, columns, collations, on_record, on_integers);
    ordered_done += done ? 1 : 0;
    return done;
  }
  std::size_t SplitsInIndexOrder(const std::string& table, const std::vector<std::string>& columns,
                                 const std::vector<std::string>& collations, std::size_t most,
                                 const RecordsInOrder& on_record) override {
    const std::size_t given =
        splits ? splits(on_record)
               : inner_->SplitsInIndexOrder(table, columns, collations, most, on_record);
    splits_given += given;
    return given;
  }
  bool WithKeyCursors(const std::string& table, const std::string& column,
                      const std::string& collation,
                      const std::function<void(const KeyCursors&)>& use) override {
    if (!in_parts) return false;
    const bool given = inner_->WithKeyCursors(table, column, collation, use);
    parts_given += given ? 1 : 0;
    return given;
  }
  void FinishStructureCheck() override { inner_->FinishStructureCheck(); }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  uint64_t rows_read() const override { return inner_->rows_read(); }

  int scans = 0;
  int lookups = 0;               // LookUpValues calls that did the look-ups
  int sought = 0;                // ... and the values they were given
  int ordered = 0;               // ReadInIndexOrder calls
  int ordered_done = 0;          // ... that read the index
  std::size_t splits_given = 0;  // records SplitsInIndexOrder gave
  // Whether WithKeyCursors gives the inner source's cursors (a merge in parts), and how often
  // it did. Off: the merge reads each index whole (ReadInIndexOrder).
  bool in_parts = false;
  int parts_given = 0;
  // When set, SplitsInIndexOrder gives what this gives (splits of the test's choosing).
  std::function<std::size_t(const RecordsInOrder&)> splits;

 private:
  std::unique_ptr<Source> inner_;
};

}  // namespace steadyflake::mergecheck::testing

#endif  // STEADYFLAKE_TESTS_MERGECHECK_COUNTING_SOURCE_H_
