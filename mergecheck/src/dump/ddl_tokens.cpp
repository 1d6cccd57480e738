// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/ddl_tokens.h"

#include <string>
#include <string_view>
#include <utility>

namespace steadyflake::mergecheck::dump {

using Token = Lexer::Token;
using Kind = Token::Kind;

void Expect(Lexer& lx, std::string_view keyword) {
  const Token t = lx.Next();
  if (!t.IsWord(keyword)) {
    throw SyntaxError{t.offset,
                      "expected " + std::string(keyword) + ", found '" + std::string(t.raw) + "'"};
  }
}

void ExpectPunct(Lexer& lx, char c) {
  const Token t = lx.Next();
  if (!t.IsPunct(c)) {
    throw SyntaxError{t.offset,
                      std::string("expected '") + c + "', found '" +
                          (t.kind == Kind::kEnd ? "end of statement" : std::string(t.raw)) + "'"};
  }
}

bool AcceptWord(Lexer& lx, std::string_view keyword) {
  if (!lx.Peek().IsWord(keyword)) return false;
  lx.Next();
  return true;
}

// A name, where SQLite also accepts a 'string'.
bool IsNameToken(const Token& t, Dialect dialect) {
  return t.IsName() || (dialect == Dialect::kSqlite && t.kind == Kind::kString);
}

std::string ExpectName(Lexer& lx, Dialect dialect, const char* what) {
  Token t = lx.Next();
  if (!IsNameToken(t, dialect)) {
    throw SyntaxError{t.offset,
                      std::string("expected ") + what + ", found '" +
                          (t.kind == Kind::kEnd ? "end of statement" : std::string(t.raw)) + "'"};
  }
  return std::move(t.value);
}

// `[schema.]name`: the last part.
std::string ExpectQualifiedName(Lexer& lx, Dialect dialect, const char* what) {
  std::string name = ExpectName(lx, dialect, what);
  while (lx.Peek().IsPunct('.')) {
    lx.Next();
    name = ExpectName(lx, dialect, what);
  }
  return name;
}

// Consumes tokens up to (not including) a ',' or ')' outside parentheses, or the end.
void SkipToSeparator(Lexer& lx) {
  int depth = 0;
  for (;;) {
    const Token& t = lx.Peek();
    if (t.kind == Kind::kEnd) return;
    if (depth == 0 && (t.IsPunct(',') || t.IsPunct(')'))) return;
    if (t.IsPunct('(')) ++depth;
    if (t.IsPunct(')')) --depth;
    lx.Next();
  }
}

// Consumes a balanced `( ... )`, the '(' being next.
void SkipParenthesized(Lexer& lx) {
  ExpectPunct(lx, '(');
  SkipToSeparator(lx);
  while (lx.Peek().IsPunct(',')) {
    lx.Next();
    SkipToSeparator(lx);
  }
  ExpectPunct(lx, ')');
}

}  // namespace steadyflake::mergecheck::dump
