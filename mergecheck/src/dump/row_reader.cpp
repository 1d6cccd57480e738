// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/row_reader.h"

#include <cstring>
#include <string_view>

#include "dump/ddl.h"
#include "dump/literal_decoder.h"

namespace steadyflake::mergecheck::dump {

void RowReader::StartRows(std::string_view header, DumpTables& tables) {
  const InsertHeader parsed = ParseInsertHeader(header, dialect_);
  Flush();  // the rows of the INSERT before, to its table
  DumpTable* state = tables.Find(parsed.table);
  table_ = state;
  cells_.clear();  // ReadRow clears them for this INSERT's slots
  cells_slots_ = kNoSlots;
  slot_of_value_.clear();
  arity_ = 0;
  if (state == nullptr) {
    if (dialect_ == Dialect::kSqlite && IsSqliteInternalTable(parsed.table)) return;  // skipped
    throw SyntaxError{parsed.table_offset,
                      "INSERT into table '" + parsed.table +
                          "', which the dump does not create (a data-only dump?)"};
  }
  if (!parsed.has_columns) {
    // One value per column but the generated ones, whose values are computed: sqlite3 .dump
    // leaves them out (their cells stay NULL).
    for (size_t i = 0; i < state->table.columns.size(); ++i) {
      if (state->table.columns[i].generated) continue;
      slot_of_value_.push_back(state->rows ? state->slot_of_column[i] : -1);
    }
    arity_ = slot_of_value_.size();
    return;
  }
  const std::vector<int> columns =
      ResolveInsertColumns(parsed.columns, state->table, state->rowid_alias, dialect_);
  arity_ = columns.size();
  for (const int column : columns) {  // -1: SQLite's hidden rowid, skipped
    slot_of_value_.push_back(
        column >= 0 && state->rows ? state->slot_of_column[static_cast<size_t>(column)] : -1);
  }
}

const char* RowReader::ReadPlainValues(const char* p, const char* end) {
  const bool mysql = dialect_ == Dialect::kMysql;
  Cell* cells = cells_.data() + row_first_cell_;
  try {
    for (size_t i = 0; i < arity_; ++i) {
      if (p == end) return nullptr;
      const int slot = slot_of_value_[i];
      const char c = *p;
      if (c == '\'') {
        // DecodeString's plain case: no backslash (MySQL) before the closing quote, which the
        // test after the value finds not doubled and not followed by || (SQLite).
        const char* close = internal::FindEitherByte(p + 1, end, '\'', mysql ? '\\' : '\'');
        if (close == nullptr || *close != '\'') return nullptr;
        if (slot >= 0) {
          Cell& cell = cells[slot];
          cell = Cell{};
          cell.type = Cell::Type::kText;
          cell.bytes = std::string_view(p + 1, static_cast<size_t>(close - p - 1));
        }
        p = close + 1;
      } else if ((c >= '0' && c <= '9') || c == '-') {
        if (slot < 0) {
          p = internal::SkipNumber(p, end);
        } else if (c == '0' && end - p > 1 && (p[1] == 'x' || p[1] == 'X')) {
          return nullptr;  // 0x...: a blob
        } else {
          p = internal::DecodeNumber(p, end, dialect_, cells[slot]);
        }
        if (p == nullptr) return nullptr;
      } else if (c == 'N' && end - p > 4 && std::memcmp(p, "NULL", 4) == 0 &&
                 !IsWordByte(static_cast<unsigned char>(p[4]))) {
        if (slot >= 0) cells[slot] = Cell{};
        p += 4;
      } else {
        return nullptr;
      }
      if (p == end) return nullptr;
      if (*p == ')' && i + 1 == arity_) return p + 1;
      if (*p != ',') return nullptr;
      ++p;
    }
  } catch (const SyntaxError&) {  // ReadValues reports it, quoting the row
  }
  return nullptr;
}

const char* RowReader::ReadValues(const char* p, const char* end, bool at_eof, bool emit,
                                  size_t& count, Shortfall& need) {
  count = 0;
  for (;;) {
    while (p < end && IsSpace(*p)) ++p;
    if (p == end) return nullptr;
    if (*p == ')' && count == 0) return p + 1;  // `()`: no values
    const int slot = count < slot_of_value_.size() ? slot_of_value_[count] : -1;
    if (table_ != nullptr && count >= arity_) {
      throw RowError{row_start_, nullptr,
                     "a row has more values than the " + std::to_string(arity_) +
                         " columns of table '" + table_->table.name + "'"};
    }
    const char* value = p;
    try {
      if (slot >= 0 && emit) {
        const size_t cell = row_first_cell_ + static_cast<size_t>(slot);
        const size_t off = scratch_.size();
        const Decoded d = DecodeLiteral(p, end, at_eof, dialect_, cells_[cell], scratch_, need);
        if (d.in_scratch) {
          // Pointed at once the row is read, as scratch_ may move while it grows.
          in_scratch_.emplace_back(cell, std::make_pair(off, scratch_.size() - off));
        }
        p = d.next;
      } else {
        p = SkipLiteral(p, end, dialect_, need);
      }
    } catch (const SyntaxError& e) {  // the decoder quotes from the value
      throw RowError{value + e.offset, value, e.problem};
    }
    if (p == nullptr) return nullptr;
    ++count;
    while (p < end && IsSpace(*p)) ++p;
    if (p == end) return nullptr;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == ')') return p + 1;
    throw RowError{p, p,
                   "expected ',' or ')' after a value, found '" +
                       Printable({p, static_cast<size_t>(end - p)}) + "'"};
  }
}

const char* RowReader::ReadRow(const char* p, const char* end, bool at_eof, uint64_t position,
                               Shortfall& need) {
  need.what = "a row of an INSERT";
  while (p < end && IsSpace(*p)) ++p;
  if (p == end) return nullptr;
  if (*p != '(') {
    throw RowError{p, p,
                   "expected '(' to start a row of INSERT values, found '" +
                       Printable({p, static_cast<size_t>(end - p)}) + "'"};
  }
  row_start_ = p;
  need.at = p;
  const bool emit = emits();
  if (emit) {
    PrepareRow();
    row_first_cell_ = positions_.size() * table_->slots;
  }
  size_t count = 0;
  const char* next = ReadValues(p + 1, end, at_eof, emit, count, need);
  if (next == nullptr) return nullptr;
  if (table_ != nullptr && count != arity_) {
    throw RowError{row_start_, nullptr,
                   "a row has " + std::to_string(count) + " values but table '" +
                       table_->table.name + "' has " + std::to_string(arity_) + " columns"};
  }
  if (emit) {
    positions_.push_back(position);
    scratch_kept_ = scratch_.size();
    in_scratch_kept_ = in_scratch_.size();
    if (positions_.size() == batch_) Flush();
  }
  return next;
}

void RowReader::PrepareRow() {
  // Every row of an INSERT decodes a whole Cell into the same slots (DecodeLiteral), so the
  // cells are cleared once per INSERT (StartRows): a slot no value of the INSERT fills stays
  // NULL. Clearing them per row was 2% of the dump parser's time.
  if (cells_slots_ != table_->slots) {  // not cells_.size(): a division by a Cell's size
    cells_.assign(table_->slots * batch_, Cell{});
    cells_slots_ = table_->slots;
  }
  // A row read again, after more input, starts over (the size tested first: resize is a call).
  if (scratch_.size() != scratch_kept_) scratch_.resize(scratch_kept_);
  in_scratch_.resize(in_scratch_kept_);
}

const char* RowReader::ReadPlainRows(const char* p, const char* end, const char* origin,
                                     uint64_t base, size_t& rows) {
  rows = 0;
  if (!emits() || p == end || *p != '(') return nullptr;
  PrepareRow();
  const size_t slots = table_->slots;
  const char* last = nullptr;  // where the last row read ends
  for (;;) {
    row_first_cell_ = positions_.size() * slots;
    const char* next = ReadPlainValues(p + 1, end);
    if (next == nullptr) return last;
    positions_.push_back(base + static_cast<uint64_t>(p - origin));
    ++rows;
    if (positions_.size() == batch_) Flush();
    last = next;
    if (end - next < 2 || next[0] != ',' || next[1] != '(') return last;
    p = next + 1;
  }
}

void RowReader::Flush() {
  if (positions_.empty()) return;
  for (const auto& [cell, off_len] : in_scratch_) {
    cells_[cell].bytes = std::string_view(scratch_.data() + off_len.first, off_len.second);
  }
  const size_t slots = table_->slots;
  const size_t rows = positions_.size();
  if (!table_->extra_slots.empty()) {
    for (size_t row = 0; row < rows; ++row) {
      Cell* cells = cells_.data() + row * slots;
      for (const auto& [from, to] : table_->extra_slots) {
        cells[static_cast<size_t>(to)] = cells[static_cast<size_t>(from)];
      }
    }
  }
  // Emptied before the call: rows a visitor throws from are not given again.
  std::vector<uint64_t> positions;
  positions.swap(positions_);
  scratch_kept_ = in_scratch_kept_ = 0;
  in_scratch_.clear();
  visitor_.OnRows(table_->table, std::span<const Cell>(cells_.data(), rows * slots), slots,
                  positions);
  scratch_.clear();
  positions.clear();
  positions_.swap(positions);  // its room, for the next rows
}

}  // namespace steadyflake::mergecheck::dump
