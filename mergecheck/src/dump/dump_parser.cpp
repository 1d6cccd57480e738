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
#include "dump/row_reader.h"
#include "dump/statement_scanner.h"
#include "source/huge_pages.h"
#include "source/read_buffer.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck::dump {

namespace {

// The parser's buffer: twice a chunk, in a region of huge pages (huge_pages.h) from
// kHugeRegionFrom bytes where the kernel gives one, else from new[] on a page (read_buffer.h).
// A buffer of 8 MB (4 MiB chunks, before) in 4 KiB pages was 2,048 page faults a pass, 44% of a
// dump check's on a VM where each costs ~11 us.
struct ReleaseChunk {
  size_t region = 0;  // bytes of the region the buffer is; 0: it is new[]'s
  void operator()(char* buffer) const {
    if (region != 0) {
      ReleaseHugeRegion(buffer, region);
    } else {
      ReadBufferDelete{}(reinterpret_cast<unsigned char*>(buffer));
    }
  }
};
using ChunkBuffer = std::unique_ptr<char[], ReleaseChunk>;

ChunkBuffer NewChunkBuffer(size_t bytes) {
  if (bytes >= kHugeRegionFrom) {
    if (void* region = ReserveHugeRegion(bytes)) {
      return ChunkBuffer(static_cast<char*>(region), ReleaseChunk{bytes});
    }
  }
  return ChunkBuffer(reinterpret_cast<char*>(NewReadBuffer(bytes).release()));  // not zeroed
}

class Parser {
 public:
  Parser(const std::string& path, bool gzip, DumpKind kind, size_t chunk_size,
         SourceVisitor& visitor, const std::vector<std::string>& only, ScanProgress& progress,
         InsertIndex* index)
      : path_(path),
        gzip_(gzip),
        kind_(kind),
        mysql_(kind.dialect == Dialect::kMysql),
        chunk_(chunk_size == 0 ? 1 : chunk_size),
        scanner_(kind.dialect),
        progress_(progress),
        index_(index),
        tables_(kind.dialect, visitor, only),
        rows_(kind.dialect, visitor, kRowBatch) {}

  void Run() {
    in_ = OpenByteStream(path_, gzip_);
    cap_ = std::max<size_t>(chunk_ * 2, 64);
    buf_ = NewChunkBuffer(cap_);
    for (;;) {
      const char* p = buf_.get() + pos_;
      need_ = {p, "a statement"};
      const char* next = Step(p, buf_.get() + len_);
      if (next == kDone) break;
      if (next != nullptr) {
        pos_ = static_cast<size_t>(next - buf_.get());
        continue;
      }
      rows_.Flush();  // the rows point into the buffer Refill moves
      // need_.at is still in the buffer: Refill moves nothing when it returns false.
      if (!Refill()) {
        FailAtPtr(need_.at,
                  "the dump ends inside " + std::string(need_.what) + " (it is cut short)",
                  "copy or dump the database again; a complete dump ends between statements");
      }
    }
    rows_.Flush();
    progress_.rows.fetch_add(rows_since_publish_, std::memory_order_relaxed);
    rows_since_publish_ = 0;
    FinishIndex();
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
  // next chunk. Returns false at the end of the input. The unread bytes go as far past the
  // buffer's start (under 64) as puts the read after them on a line of the cache
  // (read_buffer.h: the kernel's copy into a destination a few bytes past one is 2.5-6x slower),
  // except within the input's first line's worth of bytes, where base_ cannot go back that far.
  bool Refill() {
    if (eof_) return false;
    const size_t kept = len_ - pos_;
    const uint64_t kept_at = base_ + pos_;  // the input offset of the first unread byte
    const size_t shift = kept_at >= kReadDestinationAlignment ? AlignedReadShift(kept) : 0;
    if (cap_ < shift + kept + chunk_) {
      const size_t cap = std::max(cap_ * 2, shift + kept + chunk_);
      ChunkBuffer bigger = NewChunkBuffer(cap);
      std::memcpy(bigger.get() + shift, buf_.get() + pos_, kept);
      buf_ = std::move(bigger);
      cap_ = cap;
    } else if (pos_ != shift) {
      std::memmove(buf_.get() + shift, buf_.get() + pos_, kept);
    }
    base_ = kept_at - shift;
    pos_ = shift;
    len_ = shift + kept;
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
        return StepTuple(p, end);
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
      NoteInsert(base_ + static_cast<uint64_t>(p - buf_.get()));
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
    rows_.Flush();  // a statement may change a table (and tell the visitor) after its rows
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
      rows_.StartRows(header, tables_);
    } catch (const SyntaxError& e) {
      FailAtPtr(p + e.offset, e.problem, kFixUnreadable);
    }
    cached_header_.assign(header);
    header_pending_ = true;
    NoteInsert(base_ + static_cast<uint64_t>(p - buf_.get()));
    state_ = State::kTuple;
    return values_end;
  }

  // An INSERT of the current header starts at `offset`: recorded in index_ when its rows go to
  // the visitor, so they can be read again by position.
  void NoteInsert(uint64_t offset) {
    if (index_ == nullptr || !rows_.emits()) return;
    if (header_pending_) {
      index_->headers.push_back(cached_header_);
      header_pending_ = false;
    }
    const DumpTable* table = rows_.table();
    if (table->serial != indexed_serial_) {  // another table than the last INSERT's: look it up
      indexed_ = &index_->tables[table->table.name];
      indexed_serial_ = table->serial;
      if (indexed_->created != 0 && indexed_->created != table->serial) {
        indexed_->usable = false;  // created again
      }
      indexed_->created = table->serial;
    }
    indexed_->statements.push_back({offset, static_cast<uint32_t>(index_->headers.size() - 1)});
  }

  // The end of the scan: each indexed table's final definition, unless the dump created the
  // table again after its rows.
  void FinishIndex() {
    if (index_ == nullptr) return;
    for (auto& [name, entry] : index_->tables) {
      const DumpTable* now = tables_.Find(name);
      if (now == nullptr || now->serial != entry.created) entry.usable = false;
      if (entry.usable) {
        entry.table = now->table;
        entry.rowid_alias = now->rowid_alias;
      }
      entry.created = 0;
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

  // `( value, ... )` rows, each given to the visitor at the offset of its '(': the rows that
  // follow one another with nothing but a comma between them, read in one step (a dump's INSERT
  // holds thousands; a step per row and one per comma were a tenth of a dump's parse). Returns
  // after the last row read whole and its comma (then the step runs again), or after a row that
  // no comma follows (in kAfterTuple), or nullptr when not even one row was read whole.
  const char* StepTuple(const char* p, const char* end) {
    const char* done = nullptr;  // after the last row read whole and its comma
    for (;;) {
      need_.what = "a row of an INSERT";
      while (p < end && IsSpace(*p)) ++p;
      if (p == end) return done;
      // A run of plain rows (RowReader::ReadPlainRows), else one row of any form.
      size_t rows = 0;
      const char* next = rows_.ReadPlainRows(p, end, buf_.get(), base_, rows);
      if (next == nullptr) {
        try {
          next = rows_.ReadRow(p, end, eof_, base_ + static_cast<uint64_t>(p - buf_.get()), need_);
        } catch (const RowError& e) {
          if (done != nullptr) return done;  // the rows before, then this one again
          if (e.context != nullptr && NeedsContext(e.context, end)) return nullptr;  // again
          FailAtPtr(e.at, e.problem, kFixUnreadable);
        }
        if (next == nullptr) return done;
        rows = rows_.emits() ? 1 : 0;
      }
      if ((rows_since_publish_ += rows) >= 4096) {
        progress_.rows.fetch_add(rows_since_publish_, std::memory_order_relaxed);
        rows_since_publish_ = 0;
      }
      if (next < end && *next == ',') {
        p = done = next + 1;
        continue;
      }
      state_ = State::kAfterTuple;
      return next;
    }
  }

  // --- State ----------------------------------------------------------------------------------

  const std::string& path_;
  const bool gzip_;
  const DumpKind kind_;
  const bool mysql_;
  const size_t chunk_;
  StatementScanner scanner_;
  ScanProgress& progress_;
  InsertIndex* index_;  // nullptr: no index kept

  std::unique_ptr<ByteStream> in_;
  ChunkBuffer buf_;
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
  RowReader rows_;
  std::string cached_header_;    // "INSERT INTO item VALUES" of the last INSERT, for reuse
  bool header_pending_ = false;  // cached_header_ is not yet in index_->headers
  // The entry of index_ the last INSERT went to, and its table's DumpTable::serial (0: none).
  InsertIndex::TableRows* indexed_ = nullptr;
  uint64_t indexed_serial_ = 0;
  uint64_t rows_since_publish_ = 0;
};

}  // namespace

void ParseDump(const std::string& path, bool gzip, DumpKind kind, size_t chunk_size,
               SourceVisitor& visitor, const std::vector<std::string>& only, ScanProgress& progress,
               InsertIndex* index) {
  if (index != nullptr) *index = InsertIndex();
  Parser(path, gzip, kind, chunk_size, visitor, only, progress, index).Run();
}

}  // namespace steadyflake::mergecheck::dump
