// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The parser keeps one buffer of the input. Each step reads one unit from the buffer: a
// comment, a whole schema (or other) statement, an INSERT's header, or one row of an INSERT.
// A step that runs into the end of the buffer consumes nothing and asks for more input: the
// buffer is compacted, grown if one unit does not fit, refilled, and the step runs again from
// the unit's start. Rows are therefore emitted exactly once, and a token may straddle any
// number of chunks. Memory is bounded by the largest unit (a row, or a schema statement), not
// by the size of the dump.
//
// The parser keeps the buffer and the state machine; the work of each step is done by units
// that know nothing of either: the statement scanner (statement_scanner.h) finds where a
// statement, comment or quoted string ends, and the literal decoder (literal_decoder.h) turns
// each wanted value of a row into a Cell.

#include "dump/dump_parser.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "dump/byte_stream.h"
#include "dump/ddl.h"
#include "dump/dump_error.h"
#include "dump/dump_tables.h"
#include "dump/literal_decoder.h"
#include "dump/statement_scanner.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck::dump {

namespace {

class Parser {
 public:
  Parser(const std::string& path, bool gzip, DumpKind kind, size_t chunk_size,
         SourceVisitor& visitor, const std::vector<std::string>& only, ScanProgress& progress)
      : path_(path),
        gzip_(gzip),
        kind_(kind),
        mysql_(kind.dialect == Dialect::kMysql),
        chunk_(chunk_size == 0 ? 1 : chunk_size),
        scanner_(kind.dialect),
        visitor_(visitor),
        progress_(progress),
        tables_(kind.dialect, visitor, only) {}

  void Run() {
    in_ = OpenByteStream(path_, gzip_);
    cap_ = std::max<size_t>(chunk_ * 2, 64);
    buf_ = std::make_unique_for_overwrite<char[]>(cap_);
    scratch_.reserve(1 << 16);
    for (;;) {
      const char* p = buf_.get() + pos_;
      need_ = {p, "a statement"};
      const char* next = Step(p, buf_.get() + len_);
      if (next == kDone) break;
      if (next != nullptr) {
        pos_ = static_cast<size_t>(next - buf_.get());
        continue;
      }
      // need_.at is still in the buffer: Refill moves nothing when it returns false.
      if (!Refill()) {
        FailAtPtr(need_.at,
                  "the dump ends inside " + std::string(need_.what) + " (it is cut short)",
                  "copy or dump the database again; a complete dump ends between statements");
      }
    }
    progress_.rows.fetch_add(rows_since_publish_, std::memory_order_relaxed);
    rows_since_publish_ = 0;
  }

 private:
  enum class State { kStatement, kTuple, kAfterTuple, kSkipStatement };

  // A sentinel Step result: the input is finished.
  static inline const char* const kDone = reinterpret_cast<const char*>(1);

  // --- Errors -------------------------------------------------------------------------------

  // Throws the error for the input at p: "<path>:<line>: <problem>; <fix>".
  [[noreturn]] void FailAtPtr(const char* p, std::string_view problem, std::string_view fix) {
    const uint64_t offset = base_ + static_cast<uint64_t>(p - buf_.get());
    FailAt(path_, LineOfOffset(path_, gzip_, offset), problem, fix);
  }

  // Whether an error that quotes the input from p (Printable) must first ask for more input:
  // the message must not depend on where a read happened to stop, so it quotes what Printable
  // would of the whole input.
  bool NeedsContext(const char* p, const char* end) const {
    const auto have = static_cast<size_t>(end - p);
    return !eof_ && have < kPrintableBytes && std::memchr(p, '\n', have) == nullptr;
  }

  // --- Input --------------------------------------------------------------------------------

  // Moves the unread bytes to the front, grows the buffer when a unit fills it, and reads the
  // next chunk. Returns false at the end of the input.
  bool Refill() {
    if (eof_) return false;
    if (pos_ > 0) {
      std::memmove(buf_.get(), buf_.get() + pos_, len_ - pos_);
      base_ += pos_;
      len_ -= pos_;
      pos_ = 0;
    }
    if (cap_ - len_ < chunk_) {
      const size_t cap = std::max(cap_ * 2, len_ + chunk_);
      auto bigger = std::make_unique_for_overwrite<char[]>(cap);
      std::memcpy(bigger.get(), buf_.get(), len_);
      buf_ = std::move(bigger);
      cap_ = cap;
    }
    const size_t got = in_->Read(buf_.get() + len_, std::min(chunk_, cap_ - len_));
    if (got == 0) {
      eof_ = true;
    } else {
      len_ += got;
      progress_.bytes.fetch_add(got, std::memory_order_relaxed);
      progress_.file_bytes.store(in_->consumed(), std::memory_order_relaxed);
      progress_.rows.fetch_add(rows_since_publish_, std::memory_order_relaxed);
      rows_since_publish_ = 0;
    }
    return true;  // even at the end: the step runs once more knowing nothing follows
  }

  // --- Steps --------------------------------------------------------------------------------

  // Reads one unit at p (end: end of the buffered input). Returns the position after it,
  // nullptr when the unit reaches `end` (more input needed), or kDone.
  const char* Step(const char* p, const char* end) {
    switch (state_) {
      case State::kStatement:
        return StepStatement(p, end);
      case State::kTuple:
        try {
          return StepTuple(p, end);
        } catch (const SyntaxError& e) {  // from the literal decoder, which quotes from value_
          if (NeedsContext(value_, end)) return nullptr;  // the row is read again, whole
          FailAtPtr(value_ + e.offset, e.problem, kFixUnreadable);
        }
      case State::kAfterTuple:
        return StepAfterTuple(p, end);
      case State::kSkipStatement:
        return StepSkipStatement(p, end);
    }
    return nullptr;
  }

  const char* StepStatement(const char* p, const char* end) {
    while (p < end && IsSpace(*p)) ++p;
    if (p == end) {
      if (eof_) {
        Finish(p);
        return kDone;
      }
      return nullptr;
    }
    const char c = *p;
    // Fast path: another INSERT with the same header as the last one.
    if ((c == 'I' || c == 'R') && !cached_header_.empty() &&
        static_cast<size_t>(end - p) > cached_header_.size() &&
        std::memcmp(p, cached_header_.data(), cached_header_.size()) == 0 &&
        !IsWordByte(static_cast<unsigned char>(p[cached_header_.size()]))) {
      insert_offset_ = base_ + static_cast<uint64_t>(p - buf_.get());
      state_ = State::kTuple;
      return p + cached_header_.size();
    }
    if (p + 1 >= end && !eof_ && (c == '-' || c == '/')) return nullptr;
    if ((c == '-' && p + 1 < end && p[1] == '-') || (c == '#' && mysql_)) {
      const char* stop = FindLineEnd(p, end, eof_);
      if (stop == nullptr) return nullptr;
      OnLineComment(std::string_view(p, static_cast<size_t>(stop - p)));
      return stop;
    }
    if (c == '/' && p + 1 < end && p[1] == '*') {
      const char* close = FindBlockCommentEnd(p + 2, end);
      if (close == nullptr) {
        need_.what = "a /* comment */";
        return nullptr;
      }
      OnBlockComment(p, std::string_view(p, static_cast<size_t>(close - p)));
      return close;
    }
    if (scanner_.AtDelimiter(p, end)) return p + scanner_.delimiter().size();
    if (c == ';') return p + 1;  // an empty statement (e.g. after a /*!40101 ... */)
    if (!IsWordByte(static_cast<unsigned char>(c)) || (c >= '0' && c <= '9')) {
      if (NeedsContext(p, end)) return nullptr;
      FailAtPtr(
          p,
          "expected an SQL statement, found '" + Printable({p, static_cast<size_t>(end - p)}) + "'",
          kFixUnreadable);
    }
    const char* w = p;
    while (w < end && IsWordByte(static_cast<unsigned char>(*w))) ++w;
    if (w == end && !eof_) return nullptr;
    const std::string_view word(p, static_cast<size_t>(w - p));
    if (EqualsIgnoreCase(word, "INSERT") || EqualsIgnoreCase(word, "REPLACE")) {
      return StartInsert(p, end);
    }
    if (EqualsIgnoreCase(word, "DELIMITER")) {
      const char* stop = scanner_.ReadDelimiterCommand(p, w, end, eof_);
      if (stop == p) FailAtPtr(p, "DELIMITER without a delimiter", kFixUnreadable);
      return stop;
    }
    if (!IsStatementKeyword(word)) {
      FailAtPtr(p, "expected an SQL statement, found '" + Printable(word) + "'", kFixUnreadable);
    }
    const char* stmt_end =
        scanner_.FindStatementEnd(p, end, eof_, scanner_.IsTrigger(p, end), need_);
    if (stmt_end == nullptr) return nullptr;
    OnStatement(p, std::string_view(p, static_cast<size_t>(stmt_end - p)));
    return stmt_end == end ? end : stmt_end + scanner_.delimiter().size();
  }

  const char* StepSkipStatement(const char* p, const char* end) {
    const char* stmt_end = scanner_.FindStatementEnd(p, end, eof_, false, need_);
    if (stmt_end == nullptr) return nullptr;
    if (stmt_end == end) {
      need_.what = "an INSERT statement";
      return nullptr;  // at the end of the input: no delimiter, so it is cut short
    }
    state_ = State::kStatement;
    return stmt_end + scanner_.delimiter().size();
  }

  // --- Comments and whole statements ----------------------------------------------------------

  void OnLineComment(std::string_view text) {
    if (StartsWithIgnoreCase(text, "-- Dump completed")) saw_trailer_ = true;
  }

  void OnBlockComment(const char* p, std::string_view text) {
    // sqlite3 .dump reports a database it could not read whole in comments like these and
    // then ends with ROLLBACK; the rest of the dump is missing rows.
    if (!mysql_ && (text.find("CORRUPTION ERROR") != std::string_view::npos ||
                    StartsWithIgnoreCase(text, "/**** ERROR:"))) {
      FailAtPtr(p,
                "sqlite3 .dump reported that the database is corrupt ('" +
                    Printable(text.substr(0, 40)) + "...'), so rows are missing",
                "repair the database (sqlite3 db .recover) and dump it again");
    }
  }

  void OnStatement(const char* p, std::string_view text) {
    Lexer lx(text, kind_.dialect);
    Lexer::Token first, second, third;
    try {
      first = lx.Next();
      second = lx.Next();
      third = lx.Next();
    } catch (const SyntaxError& e) {
      FailAtPtr(p + e.offset, e.problem, kFixUnreadable);
    }
    if (first.IsWord("BEGIN") || first.IsWord("START")) {
      saw_begin_ = true;
    } else if (first.IsWord("COMMIT") || (first.IsWord("END") && !mysql_)) {
      saw_commit_ = true;
    } else if (first.IsWord("ROLLBACK")) {
      if (!mysql_) {
        FailAtPtr(p,
                  "the dump ends its transaction with ROLLBACK: sqlite3 .dump hit errors "
                  "reading the database, so rows are missing",
                  "repair the database (sqlite3 db .recover) and dump it again");
      }
    } else if (first.IsWord("CREATE")) {
      try {
        const Lexer::Token& kind =
            second.IsWord("TEMP") || second.IsWord("TEMPORARY") ? third : second;
        if (kind.IsWord("TABLE")) {
          if (tables_.OnCreateTable(text)) cached_header_.clear();
        } else if ((second.IsWord("UNIQUE") && third.IsWord("INDEX")) || second.IsWord("INDEX")) {
          if (tables_.OnCreateIndex(text)) cached_header_.clear();
        }
      } catch (const SyntaxError& e) {
        FailAtPtr(p + e.offset, e.problem, kFixUnreadable);
      }
    } else if (first.IsWord("ALTER") && (second.IsWord("TABLE") || third.IsWord("TABLE"))) {
      try {
        if (tables_.OnAlterTable(text)) cached_header_.clear();
      } catch (const SyntaxError& e) {
        FailAtPtr(p + e.offset, e.problem, kFixUnreadable);
      }
    }
  }

  // Checks the end-of-input rules (dump_parser.h, rules 2 and 3).
  void Finish(const char* p) {
    if (!mysql_ && saw_begin_ && !saw_commit_) {
      FailAtPtr(
          p, "the dump ends without the COMMIT that closes its BEGIN TRANSACTION (it is cut short)",
          "copy or dump the database again; sqlite3 .dump ends with COMMIT");
    }
    if (mysql_ && kind_.has_header_comment && !saw_trailer_) {
      FailAtPtr(p, "the dump ends without its '-- Dump completed' trailer (it is cut short)",
                "copy or dump the database again; a complete mysqldump/mariadb-dump ends with "
                "'-- Dump completed'");
    }
  }

  // --- INSERT ---------------------------------------------------------------------------------

  // p: at INSERT or REPLACE. Reads the header through VALUES, sets up the row mapping.
  const char* StartInsert(const char* p, const char* end) {
    const char* values_end = scanner_.FindInsertValues(p, end, need_);
    if (values_end == nullptr) return nullptr;
    if (values_end == p) {
      FailAtPtr(p, "an INSERT without VALUES (INSERT ... SELECT or SET) is not a dump's row",
                kFixUnreadable);
    }
    const std::string_view header(p, static_cast<size_t>(values_end - p));
    try {
      StartRows(header);
    } catch (const SyntaxError& e) {
      FailAtPtr(p + e.offset, e.problem, kFixUnreadable);
    }
    cached_header_.assign(header);
    insert_offset_ = base_ + static_cast<uint64_t>(p - buf_.get());
    state_ = State::kTuple;
    return values_end;
  }

  // Fills insert_table_, slot_of_value_ and insert_arity_ for an INSERT's header (ddl.h).
  void StartRows(std::string_view header) {
    const InsertHeader parsed = ParseInsertHeader(header, kind_.dialect);
    DumpTable* state = tables_.Find(parsed.table);
    insert_table_ = state;
    slot_of_value_.clear();
    insert_arity_ = 0;
    if (state == nullptr) {
      if (!mysql_ && IsSqliteInternalTable(parsed.table)) return;  // skipped: SQLite's own rows
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
      insert_arity_ = slot_of_value_.size();
      return;
    }
    const std::vector<int> columns =
        ResolveInsertColumns(parsed.columns, state->table, state->rowid_alias, kind_.dialect);
    insert_arity_ = columns.size();
    for (const int column : columns) {  // -1: SQLite's hidden rowid, skipped
      slot_of_value_.push_back(
          column >= 0 && state->rows ? state->slot_of_column[static_cast<size_t>(column)] : -1);
    }
  }

  const char* StepAfterTuple(const char* p, const char* end) {
    while (p < end && IsSpace(*p)) ++p;
    if (p == end) {
      need_.what = "an INSERT statement";
      return nullptr;
    }
    if (*p == ',') {
      state_ = State::kTuple;
      return p + 1;
    }
    const std::string& delim = scanner_.delimiter();
    if (scanner_.AtDelimiter(p, end)) {
      state_ = State::kStatement;
      return p + delim.size();
    }
    if (delim.size() > 1 && static_cast<size_t>(end - p) < delim.size() && !eof_) {
      return nullptr;
    }
    // ON DUPLICATE KEY UPDATE ... and the like: skip to the delimiter.
    state_ = State::kSkipStatement;
    return p;
  }

  // One `( value, ... )` row.
  const char* StepTuple(const char* p, const char* end) {
    need_.what = "a row of an INSERT";
    while (p < end && IsSpace(*p)) ++p;
    if (p == end) return nullptr;
    if (*p != '(') {
      if (NeedsContext(p, end)) return nullptr;
      FailAtPtr(p,
                "expected '(' to start a row of INSERT values, found '" +
                    Printable({p, static_cast<size_t>(end - p)}) + "'",
                kFixUnreadable);
    }
    const char* row_start = p;
    need_.at = p;
    ++p;
    DumpTable* table = insert_table_;
    const bool emit = table != nullptr && table->rows;
    if (emit) {
      cells_.assign(table->slots, Cell{});
      scratch_.clear();
      in_scratch_.clear();
    }
    size_t index = 0;
    for (;;) {
      while (p < end && IsSpace(*p)) ++p;
      if (p == end) return nullptr;
      if (*p == ')' && index == 0) {  // `()`: no values
        ++p;
        break;
      }
      const int slot = index < slot_of_value_.size() ? slot_of_value_[index] : -1;
      if (table != nullptr && index >= insert_arity_) {
        FailAtPtr(row_start,
                  "a row has more values than the " + std::to_string(insert_arity_) +
                      " columns of table '" + table->table.name + "'",
                  kFixUnreadable);
      }
      value_ = p;
      if (slot >= 0 && emit) {
        const auto cell = static_cast<size_t>(slot);
        const size_t off = scratch_.size();
        const Decoded d = DecodeLiteral(p, end, eof_, kind_.dialect, cells_[cell], scratch_, need_);
        if (d.in_scratch) {
          // Pointed at once the row is read, as scratch_ may move while it grows.
          in_scratch_.emplace_back(cell, std::make_pair(off, scratch_.size() - off));
        }
        p = d.next;
      } else {
        p = SkipLiteral(p, end, kind_.dialect, need_);
      }
      if (p == nullptr) return nullptr;
      ++index;
      while (p < end && IsSpace(*p)) ++p;
      if (p == end) return nullptr;
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == ')') {
        ++p;
        break;
      }
      if (NeedsContext(p, end)) return nullptr;
      FailAtPtr(p,
                "expected ',' or ')' after a value, found '" +
                    Printable({p, static_cast<size_t>(end - p)}) + "'",
                kFixUnreadable);
    }
    if (table != nullptr && index != insert_arity_) {
      FailAtPtr(row_start,
                "a row has " + std::to_string(index) + " values but table '" + table->table.name +
                    "' has " + std::to_string(insert_arity_) + " columns",
                kFixUnreadable);
    }
    if (emit) {
      for (const auto& [slot, off_len] : in_scratch_) {
        cells_[slot].bytes = std::string_view(scratch_.data() + off_len.first, off_len.second);
      }
      for (const auto& [from, to] : table->extra_slots) {
        cells_[static_cast<size_t>(to)] = cells_[static_cast<size_t>(from)];
      }
      visitor_.OnRow(table->table, cells_, insert_offset_);
      if (++rows_since_publish_ >= 4096) {
        progress_.rows.fetch_add(rows_since_publish_, std::memory_order_relaxed);
        rows_since_publish_ = 0;
      }
    }
    state_ = State::kAfterTuple;
    return p;
  }

  // --- State ----------------------------------------------------------------------------------

  const std::string& path_;
  const bool gzip_;
  const DumpKind kind_;
  const bool mysql_;
  const size_t chunk_;
  StatementScanner scanner_;
  SourceVisitor& visitor_;
  ScanProgress& progress_;

  std::unique_ptr<ByteStream> in_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t len_ = 0;     // bytes in buf_
  size_t pos_ = 0;     // first unread byte in buf_
  uint64_t base_ = 0;  // input offset of buf_[0]
  bool eof_ = false;

  // Where and in what the current step ran out of input (for "cut short" errors).
  Shortfall need_;

  State state_ = State::kStatement;
  bool saw_begin_ = false;
  bool saw_commit_ = false;
  bool saw_trailer_ = false;

  DumpTables tables_;

  // The INSERT being read.
  DumpTable* insert_table_ = nullptr;  // null: rows skipped (sqlite_* tables)
  std::vector<int> slot_of_value_;     // per value in a row: its cell, or -1
  size_t insert_arity_ = 0;            // values per row
  uint64_t insert_offset_ = 0;
  std::string cached_header_;  // "INSERT INTO item VALUES" of the last INSERT, for reuse

  // The row being read.
  const char* value_ = nullptr;  // the value being read, for the decoder's errors
  std::vector<Cell> cells_;
  std::string scratch_;  // decoded bytes that are not a plain slice of the input
  std::vector<std::pair<size_t, std::pair<size_t, size_t>>> in_scratch_;
  uint64_t rows_since_publish_ = 0;
};

}  // namespace

void ParseDump(const std::string& path, bool gzip, DumpKind kind, size_t chunk_size,
               SourceVisitor& visitor, const std::vector<std::string>& only,
               ScanProgress& progress) {
  Parser(path, gzip, kind, chunk_size, visitor, only, progress).Run();
}

}  // namespace steadyflake::mergecheck::dump
