// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/statement_scanner.h"

#include <algorithm>

namespace steadyflake::mergecheck::dump {

bool IsStatementKeyword(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "ALTER",  "ANALYZE",  "BEGIN",  "CHANGE", "COMMIT",   "CREATE",    "DELETE", "DELIMITER",
      "DROP",   "END",      "FLUSH",  "GRANT",  "INSERT",   "LOCK",      "PRAGMA", "RELEASE",
      "RENAME", "REPLACE",  "RESET",  "REVOKE", "ROLLBACK", "SAVEPOINT", "SELECT", "SET",
      "START",  "TRUNCATE", "UNLOCK", "UPDATE", "USE",      "VACUUM",    "WITH"};
  for (std::string_view w : kWords) {
    if (EqualsIgnoreCase(word, w)) return true;
  }
  return false;
}

const char* SkipExpression(const char* p, const char* end, bool backslashes, Shortfall& need) {
  int depth = 0;
  const char* q = p;
  while (q < end) {
    const char c = *q;
    if (c == '\'') {
      q = SkipQuoted(q, end, '\'', backslashes, need);
      if (q == nullptr) return nullptr;
      continue;
    }
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (depth == 0) return q;
      --depth;
    } else if (c == ',' && depth == 0) {
      return q;
    }
    ++q;
  }
  return nullptr;
}

const char* StatementScanner::ReadDelimiterCommand(const char* p, const char* args, const char* end,
                                                   bool at_eof) {
  const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
  if (eol == nullptr && !at_eof) return nullptr;
  const char* stop = eol == nullptr ? end : eol;
  const char* d = args;
  while (d < stop && IsSpace(*d)) ++d;
  const char* e = d;
  while (e < stop && !IsSpace(*e)) ++e;
  if (d == e) return p;
  delim_.assign(d, e);
  return stop;
}

bool StatementScanner::IsTrigger(const char* p, const char* end) const {
  if (mysql_) return false;
  Lexer lx(std::string_view(p, static_cast<size_t>(std::min<ptrdiff_t>(end - p, 64))),
           Dialect::kSqlite);
  try {
    if (!lx.Next().IsWord("CREATE")) return false;
    Lexer::Token t = lx.Next();
    if (t.IsWord("TEMP") || t.IsWord("TEMPORARY")) t = lx.Next();
    return t.IsWord("TRIGGER");
  } catch (const SyntaxError&) {
    return false;
  }
}

const char* StatementScanner::FindStatementEnd(const char* p, const char* end, bool at_eof,
                                               bool trigger, Shortfall& need) const {
  // SQLite triggers: their body's statements end in `;` too; the trigger ends at `END;`,
  // where END does not close a CASE.
  bool last_word_end = false;
  int case_depth = 0;
  while (p < end) {
    const char c = *p;
    if (IsQuote(c)) {
      p = SkipQuotedAt(p, end, need);
      if (p == nullptr) return nullptr;
      last_word_end = false;
      continue;
    }
    if (c == '-' || c == '/' || c == '#') {
      if (p + 1 >= end && !at_eof) return nullptr;
      if ((c == '-' && p + 1 < end && p[1] == '-' && (!mysql_ || p + 2 >= end || IsSpace(p[2]))) ||
          (c == '#' && mysql_)) {
        p = FindLineEnd(p, end, at_eof);
        if (p == nullptr) return nullptr;
        continue;
      }
      if (c == '/' && p + 1 < end && p[1] == '*') {
        p = FindBlockCommentEnd(p + 2, end);
        if (p == nullptr) {
          need.what = "a /* comment */";
          return nullptr;
        }
        continue;
      }
    }
    if (AtDelimiter(p, end)) {
      if (!trigger || last_word_end) return p;
    }
    if (IsWordByte(static_cast<unsigned char>(c))) {
      const char* w = p;
      while (w < end && IsWordByte(static_cast<unsigned char>(*w))) ++w;
      if (w == end && !at_eof) return nullptr;  // the word may go on
      const std::string_view word(p, static_cast<size_t>(w - p));
      last_word_end = false;
      if (trigger && EqualsIgnoreCase(word, "CASE")) {
        ++case_depth;
      } else if (trigger && EqualsIgnoreCase(word, "END")) {
        if (case_depth > 0) {
          --case_depth;
        } else {
          last_word_end = true;
        }
      }
      p = w;
      continue;
    }
    if (!IsSpace(c)) last_word_end = false;
    ++p;
  }
  // A delimiter of several bytes may straddle the end.
  return at_eof ? end : nullptr;
}

const char* StatementScanner::FindInsertValues(const char* p, const char* end,
                                               Shortfall& need) const {
  const char* q = p;
  while (q < end) {
    const char c = *q;
    if (IsQuote(c)) {
      q = SkipQuotedAt(q, end, need);
      if (q == nullptr) return nullptr;
      continue;
    }
    if (IsWordByte(static_cast<unsigned char>(c))) {
      const char* w = q;
      while (w < end && IsWordByte(static_cast<unsigned char>(*w))) ++w;
      if (w == end) return nullptr;
      const std::string_view word(q, static_cast<size_t>(w - q));
      if (EqualsIgnoreCase(word, "VALUES") || EqualsIgnoreCase(word, "VALUE")) return w;
      if (EqualsIgnoreCase(word, "SELECT") || EqualsIgnoreCase(word, "SET") ||
          EqualsIgnoreCase(word, "DEFAULT")) {
        return p;  // INSERT ... SELECT / SET / DEFAULT VALUES: no literal rows
      }
      q = w;
      continue;
    }
    if (AtDelimiter(q, end)) return p;
    ++q;
  }
  return nullptr;
}

}  // namespace steadyflake::mergecheck::dump
