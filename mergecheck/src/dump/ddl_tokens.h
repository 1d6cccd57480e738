// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The token-level steps the dump's statement parsers share (ddl.cpp, insert_header.cpp): expect
// a keyword, a punctuation mark or a name, or skip to the next separator. Each throws
// SyntaxError naming what it expected and what it found.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DDL_TOKENS_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DDL_TOKENS_H_

#include <string>
#include <string_view>

#include "dump/sql_text.h"

namespace steadyflake::mergecheck::dump {

// Consumes the keyword `keyword` (any case).
void Expect(Lexer& lx, std::string_view keyword);

// Consumes the punctuation mark `c`.
void ExpectPunct(Lexer& lx, char c);

// Consumes the keyword `keyword` if it is next; whether it was.
bool AcceptWord(Lexer& lx, std::string_view keyword);

// A name, where SQLite also accepts a 'string'.
bool IsNameToken(const Lexer::Token& t, Dialect dialect);

// Consumes a name (IsNameToken) and returns it unquoted; `what` names it in the error.
std::string ExpectName(Lexer& lx, Dialect dialect, const char* what);

// `[schema.]name`: the last part.
std::string ExpectQualifiedName(Lexer& lx, Dialect dialect, const char* what);

// Consumes tokens up to (not including) a ',' or ')' outside parentheses, or the end.
void SkipToSeparator(Lexer& lx);

// Consumes a balanced `( ... )`, the '(' being next.
void SkipParenthesized(Lexer& lx);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DDL_TOKENS_H_
