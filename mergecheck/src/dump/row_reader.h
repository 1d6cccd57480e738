// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The rows of an INSERT: which of a dump table's cells each value of a row goes to (from the
// INSERT's header) and the reading of one `( value, ... )` row into those cells, handed to the
// visitor. The streaming parser (dump_parser.cpp) reads every row this way, and the reader of
// rows by position (rows_at.cpp) the few rows a later pass wants.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_ROW_READER_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_ROW_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dump/dump_tables.h"
#include "dump/sql_text.h"
#include "dump/statement_scanner.h"
#include "source/source.h"

namespace steadyflake::mergecheck::dump {

// A row that cannot be read. `at` is where the problem is; when `context` is set, the message
// quotes the input from it, so it must first have every byte Printable would show (the reader
// asks for more input, when there is more, before it reports).
struct RowError {
  const char* at;
  const char* context;  // nullptr: the message quotes nothing
  std::string problem;
};

class RowReader {
 public:
  // `batch`: the rows given to the visitor at once (SourceVisitor::OnRows); 1 gives each row as
  // it is read.
  RowReader(Dialect dialect, SourceVisitor& visitor, size_t batch = 1)
      : dialect_(dialect), visitor_(visitor), batch_(batch == 0 ? 1 : batch) {
    scratch_.reserve(1 << 16);
    positions_.reserve(batch_);
  }

  // An INSERT whose header (from INSERT or REPLACE through VALUES) is `header`, into one of
  // `tables`: its rows go to that table's cells (none when the table takes no rows, or is one of
  // SQLite's own sqlite_* tables). Throws SyntaxError (offsets into `header`) for a header that
  // names a table the dump does not create or columns the table lacks.
  void StartRows(std::string_view header, DumpTables& tables);

  // Reads the row at p (`( value, ... )`, after any space) for the visitor, at `position`, when
  // its table takes rows: it is given once `batch` rows are read, or at Flush. Returns where the
  // row ends, or nullptr when it reaches `end` before then and `at_eof` is false (more input is
  // needed; the row is read again from its start). Throws RowError for a row that is not one.
  const char* ReadRow(const char* p, const char* end, bool at_eof, uint64_t position,
                      Shortfall& need);

  // Reads the rows from p (a row's '(') that ReadPlainValues reads, one after another while a
  // comma and the next '(' follow each, for the visitor, each at `base` plus its offset from
  // `origin`; returns where the last one read ends (before any comma), or nullptr when the row
  // at p is not one of them (ReadRow reads it). `rows`: how many were read. The parser's loop
  // for the thousands of rows of a dump's INSERT: no step, no error context per row.
  const char* ReadPlainRows(const char* p, const char* end, const char* origin, uint64_t base,
                            size_t& rows);

  // Gives the visitor the rows read and not yet given (SourceVisitor::OnRows). Their values
  // point into the input they were read from: the caller flushes before that input moves or
  // changes, before a table's definition may change (StartRows flushes), and at the end.
  void Flush();

  // Whether the rows of the current INSERT go to the visitor.
  bool emits() const { return table_ != nullptr && table_->rows; }
  // The table of the current INSERT, or nullptr (rows skipped).
  const DumpTable* table() const { return table_; }

 private:
  // Readies the cells and the scratch for a row (ReadRow, ReadPlainRows).
  void PrepareRow();
  // Reads the values after the row's '(' into its cells when the row is written as dumps write
  // nearly every row: no space, one value per column, each a number, NULL or a string without
  // an escape; returns where the row ends. nullptr for any other row, and for one that reaches
  // `end`: ReadRow (ReadValues) reads it then, every cell again. Nothing but ReadValues' per-value
  // bookkeeping is spared (the values decode as it decodes them), which was a third of its
  // instructions.
  const char* ReadPlainValues(const char* p, const char* end);
  // Reads the values after the row's '(' into its cells (when `emit`); returns where the row
  // ends and sets `count` to the number of values, or nullptr (more input needed).
  const char* ReadValues(const char* p, const char* end, bool at_eof, bool emit, size_t& count,
                         Shortfall& need);

  const Dialect dialect_;
  SourceVisitor& visitor_;

  // The INSERT being read.
  DumpTable* table_ = nullptr;      // null: rows skipped (sqlite_* tables)
  std::vector<int> slot_of_value_;  // per value in a row: its cell, or -1
  size_t arity_ = 0;                // values per row

  // The rows read and not yet given: `batch_` rows of the table's slots, the first
  // positions_.size() of them read.
  const size_t batch_;
  std::vector<Cell> cells_;
  // The slots of a row in cells_ (it holds `batch_` rows), kNoSlots once cleared.
  static constexpr size_t kNoSlots = static_cast<size_t>(-1);
  size_t cells_slots_ = kNoSlots;
  std::vector<uint64_t> positions_;
  // Their decoded bytes that are not a plain slice of the input, and which cells (indexes into
  // cells_) hold which (offset, length): pointed at when given, as scratch_ may move while it
  // grows. The `_kept` counts are those of the rows read whole.
  std::string scratch_;
  std::vector<std::pair<size_t, std::pair<size_t, size_t>>> in_scratch_;
  size_t scratch_kept_ = 0;
  size_t in_scratch_kept_ = 0;

  // The row being read.
  const char* row_start_ = nullptr;
  size_t row_first_cell_ = 0;  // its first cell in cells_
};

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_ROW_READER_H_
