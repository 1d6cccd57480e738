// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The few SQL expressions sqlite3 .dump writes as row values, evaluated the way SQLite would:
// text holding CR or LF is written as replace('a\nb','\n',char(10)) (nested for CR:
// replace(replace('a\r\nb','\r',char(13)),'\n',char(10)), with another placeholder such as
// '\012' or '(\n0)' when the text already contains '\n'); older shells wrote 'a'||char(10)||'b',
// newer ones unistr('a\u000ab').

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_SQLITE_EXPR_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_SQLITE_EXPR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "source/source.h"

namespace steadyflake::mergecheck::dump {

// The value of a constant expression built from literals ('text', X'hex', integers, reals,
// NULL), replace(x,y,z), char(n,...), unistr(x), || and parentheses. Text and blob bytes are
// appended to `bytes`; `cell` gets the type and, for numbers, the value (its `bytes` is left
// to the caller). Throws SyntaxError (offset within `expr`) for anything else.
void EvalSqliteExpression(std::string_view expr, Cell& cell, std::string& bytes);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_SQLITE_EXPR_H_
