// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// Expression: what a name rule sets on a renamed row (plan.json renames[].set, "at_login | 1"):
// the row's own integer columns and integer literals joined by | & + -, evaluated as SQLite
// evaluates it in rewrite-b.sql (+ and - bind tighter than & and |, which bind alike, left to
// right; NULL in, NULL out), so the verification knows what each renamed row must hold.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_EXPRESSION_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_EXPRESSION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "merge/database.h"

namespace steadyflake::mergecheck::merge {

class Expression {
 public:
  // Parses `text` over a table of `columns` (names matched without regard to ASCII case).
  // Throws Error(kInvalidArgument) naming the expression for anything else.
  Expression(const std::string& text, const std::vector<std::string>& columns);

  // The value for `row` (the table's columns, in order): an integer, or NULL.
  Value Evaluate(const Row& row) const;

 private:
  struct Operand {
    int column = -1;  // -1: the literal
    int64_t literal = 0;
  };
  // operands[0] op[0] operands[1] op[1] ...; ops are '+', '-', '&', '|'.
  std::vector<Operand> operands_;
  std::vector<char> ops_;
  std::string text_;
};

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_EXPRESSION_H_
