// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The statement scanner: finds where the parts of a dump's text end, without decoding them:
// quoted strings and identifiers, comments, the statement delimiter, whole statements (SQLite
// trigger bodies included) and an INSERT's header. The dump parser (dump_parser.cpp) owns the
// buffer and calls these on a window [p, end) of it.
//
// Every function that may run into `end` before the part it looks for is complete returns
// nullptr (more input is needed), unless `at_eof` says nothing follows `end`. It then records
// in a Shortfall where the unfinished part starts and what it is, for the parser's "the dump
// ends inside ..." error when no more input comes. Nothing is kept between calls except the
// delimiter (a mysql client `DELIMITER` line changes it).
//
// SkipQuoted, AtDelimiter and FindBlockCommentEnd run for every value and statement: they are
// inline here so the parser's loops keep them inline.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_STATEMENT_SCANNER_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_STATEMENT_SCANNER_H_

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "dump/sql_text.h"

namespace steadyflake::mergecheck::dump {

// Where a scan ran out of input: the start of the unit that did not fit in the buffer and what
// that unit is, as the error names it. The parser sets both at the start of each step; a
// function that runs out inside a smaller unit (a quoted string, a comment) narrows them.
struct Shortfall {
  const char* at = nullptr;
  const char* what = "a statement";
};

// Statement keywords a dump may start a statement with. Anything else is not a dump.
bool IsStatementKeyword(std::string_view word);

// Where `/*` ... `*/` ends (q is after the `/*`): after the `*/`, or nullptr.
inline const char* FindBlockCommentEnd(const char* q, const char* end) {
  while (q < end) {
    const char* star = static_cast<const char*>(std::memchr(q, '*', static_cast<size_t>(end - q)));
    if (star == nullptr || star + 1 >= end) return nullptr;
    if (star[1] == '/') return star + 2;
    q = star + 1;
  }
  return nullptr;
}

// Where the line starting at p ends: after its '\n'; `end` when the input ends without one
// (at_eof); nullptr when more input is needed.
inline const char* FindLineEnd(const char* p, const char* end, bool at_eof) {
  const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
  if (eol != nullptr) return eol + 1;
  return at_eof ? end : nullptr;
}

// Where the quoted text opened at p (its opening quote) ends: after its closing quote `close`,
// or nullptr when the buffer ends first (recorded in `need`). A doubled `close` stands for
// one, except in [identifiers]. `backslashes`: MySQL strings, where \x escapes the next byte.
inline const char* SkipQuoted(const char* p, const char* end, char close, bool backslashes,
                              Shortfall& need) {
  const char* q = p + 1;
  for (;;) {
    const char* e = static_cast<const char*>(std::memchr(q, close, static_cast<size_t>(end - q)));
    if (e == nullptr) break;
    if (backslashes) {
      const char* b = e;
      while (b > p + 1 && b[-1] == '\\') --b;
      if (((e - b) & 1) != 0) {  // an odd run of backslashes escapes this quote
        q = e + 1;
        continue;
      }
    }
    if (close == ']') return e + 1;
    if (e + 1 >= end) break;  // a doubled quote may follow
    if (e[1] == close) {
      q = e + 2;
      continue;
    }
    return e + 1;
  }
  need = {p, "a quoted string"};
  return nullptr;
}

// Where an expression value (SQLite's replace()/char()/||) starting at p ends: at the ',' or
// ')' that ends it, outside quotes and parentheses; nullptr when more input is needed.
// `backslashes` as for SkipQuoted.
const char* SkipExpression(const char* p, const char* end, bool backslashes, Shortfall& need);

// The dialect's rules for the parts of a statement, and the current delimiter.
class StatementScanner {
 public:
  explicit StatementScanner(Dialect dialect) : mysql_(dialect == Dialect::kMysql) {}

  // The statement delimiter: ";" until a mysql client `DELIMITER x` line makes it x.
  const std::string& delimiter() const { return delim_; }

  // Reads the mysql client command `DELIMITER x` (p at DELIMITER, `args` after the word) and
  // makes x the delimiter. Returns the end of its line (the '\n' is left unread), p when the
  // line names no delimiter, or nullptr when more input is needed.
  const char* ReadDelimiterCommand(const char* p, const char* args, const char* end, bool at_eof);

  // True when the delimiter starts at p.
  bool AtDelimiter(const char* p, const char* end) const {
    if (delim_.size() == 1) return *p == delim_[0];
    return static_cast<size_t>(end - p) >= delim_.size() &&
           std::memcmp(p, delim_.data(), delim_.size()) == 0;
  }

  // True when the quoted text opened by c needs SkipQuoted: ' " ` always, [ in SQLite.
  bool IsQuote(char c) const { return c == '\'' || c == '"' || c == '`' || (c == '[' && !mysql_); }

  // SkipQuoted for the quoted text opened at p (IsQuote(*p)), by the dialect's rules.
  const char* SkipQuotedAt(const char* p, const char* end, Shortfall& need) const {
    const char c = *p;
    return SkipQuoted(p, end, c == '[' ? ']' : c, mysql_ && (c == '\'' || c == '"'), need);
  }

  // `CREATE [TEMP|TEMPORARY] TRIGGER` at p: SQLite's trigger bodies hold `;`.
  bool IsTrigger(const char* p, const char* end) const;

  // The end of the statement starting at p: the position of its delimiter, `end` when the
  // input ends without one (at_eof), or nullptr (more input needed). Quotes and comments are
  // skipped; a `trigger` (IsTrigger) ends only at the delimiter after its END, where END does
  // not close a CASE.
  const char* FindStatementEnd(const char* p, const char* end, bool at_eof, bool trigger,
                               Shortfall& need) const;

  // Where the header of the INSERT (or REPLACE) statement at p ends: after its VALUES (or
  // VALUE) keyword outside quotes. Returns p when the statement has no VALUES list (INSERT ...
  // SELECT / SET / DEFAULT VALUES), nullptr when more input is needed.
  const char* FindInsertValues(const char* p, const char* end, Shortfall& need) const;

 private:
  const bool mysql_;
  std::string delim_ = ";";
};

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_STATEMENT_SCANNER_H_
