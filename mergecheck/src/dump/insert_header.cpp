// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The head of an INSERT statement (ddl.h): its table and column list, and those columns
// resolved against the table's schema.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dump/ddl.h"
#include "dump/ddl_tokens.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::dump {

using Token = Lexer::Token;
using Kind = Token::Kind;

InsertHeader ParseInsertHeader(std::string_view header, Dialect dialect) {
  Lexer lx(header, dialect);
  lx.Next();  // INSERT or REPLACE
  for (;;) {
    const Token& t = lx.Peek();
    if (t.IsWord("OR")) {
      lx.Next();
      lx.Next();
    } else if (t.IsWord("IGNORE") || t.IsWord("LOW_PRIORITY") || t.IsWord("DELAYED") ||
               t.IsWord("HIGH_PRIORITY") || t.IsWord("INTO")) {
      lx.Next();
    } else {
      break;
    }
  }
  Token name = lx.Next();
  if (!IsNameToken(name, dialect)) {
    throw SyntaxError{name.offset, "expected a table name after INSERT INTO"};
  }
  while (lx.Peek().IsPunct('.')) {
    lx.Next();
    name = lx.Next();
  }
  InsertHeader result;
  result.table = std::move(name.value);
  result.table_offset = name.offset;
  if (lx.Peek().IsPunct('(')) {
    lx.Next();
    result.has_columns = true;
    for (;;) {
      Token c = lx.Next();
      if (c.IsPunct(')')) break;
      if (c.IsPunct(',')) continue;
      if (!c.IsName() && c.kind != Kind::kString) {
        throw SyntaxError{c.offset, "expected a column name in INSERT's column list"};
      }
      result.columns.push_back(std::move(c.value));
    }
  }
  return result;
}

std::vector<int> ResolveInsertColumns(const std::vector<std::string>& columns, const Table& table,
                                      int rowid_alias, Dialect dialect) {
  std::vector<int> result;
  result.reserve(columns.size());
  for (const std::string& c : columns) {
    int index = -1;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      if (EqualsIgnoreCase(table.columns[i].name, c)) {
        index = static_cast<int>(i);
        break;
      }
    }
    if (index < 0 && dialect == Dialect::kSqlite &&
        (EqualsIgnoreCase(c, "rowid") || EqualsIgnoreCase(c, "_rowid_") ||
         EqualsIgnoreCase(c, "oid"))) {
      index = rowid_alias;  // -1: a hidden rowid, not a column
    } else if (index < 0) {
      throw SyntaxError{
          0, "INSERT names column '" + c + "', which table '" + table.name + "' does not have"};
    }
    result.push_back(index);
  }
  return result;
}

}  // namespace steadyflake::mergecheck::dump
