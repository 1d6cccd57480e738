// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/expression.h"

#include <cctype>
#include <string>
#include <vector>

#include "steadyflake/error.h"

namespace steadyflake::mergecheck::merge {

Expression::Expression(const std::string& text, const std::vector<std::string>& columns)
    : text_(text) {
  const auto fail = [&](const std::string& why) {
    throw Error(Error::Code::kInvalidArgument,
                "the expression '" + text + "' of plan.json: " + why +
                    "; an expression is integer columns and literals joined by | & + -");
  };
  std::size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  for (;;) {
    skip();
    Operand operand;
    const std::size_t start = i;
    if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      try {
        operand.literal = std::stoll(text.substr(start, i - start));
      } catch (const std::exception&) {
        fail("literal too large");
      }
    } else if (i < text.size() &&
               (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
        ++i;
      }
      const std::string name = text.substr(start, i - start);
      for (std::size_t c = 0; c < columns.size() && operand.column < 0; ++c) {
        if (SameName(columns[c], name)) operand.column = static_cast<int>(c);
      }
      if (operand.column < 0) fail("no column " + name);
    } else {
      fail("an operand expected at offset " + std::to_string(i));
    }
    operands_.push_back(operand);
    skip();
    if (i == text.size()) break;
    const char op = text[i];
    if (op != '+' && op != '-' && op != '&' && op != '|') fail(std::string("operator ") + op);
    ops_.push_back(op);
    ++i;
  }
}

Value Expression::Evaluate(const Row& row) const {
  Value null;
  const auto operand = [&](const Operand& o, int64_t& out) {
    if (o.column < 0) {
      out = o.literal;
      return true;
    }
    const Value& v = row[static_cast<std::size_t>(o.column)];
    if (v.type == SQLITE_NULL) return false;
    if (v.type != SQLITE_INTEGER) return false;
    out = v.integer;
    return true;
  };
  // Sums first (+ - bind tighter), then the bit operators left to right.
  int64_t result = 0;
  bool have = false;
  char pending = 0;  // the bit operator before the current sum
  std::size_t k = 0;
  while (k < operands_.size()) {
    int64_t sum = 0;
    if (!operand(operands_[k], sum)) return null;
    while (k < ops_.size() && (ops_[k] == '+' || ops_[k] == '-')) {
      int64_t next = 0;
      if (!operand(operands_[k + 1], next)) return null;
      sum = ops_[k] == '+'
                ? static_cast<int64_t>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(next))
                : static_cast<int64_t>(static_cast<uint64_t>(sum) - static_cast<uint64_t>(next));
      ++k;
    }
    if (!have) {
      result = sum;
      have = true;
    } else {
      result = pending == '&' ? (result & sum) : (result | sum);
    }
    if (k < ops_.size()) pending = ops_[k];
    ++k;
  }
  Value out;
  out.type = SQLITE_INTEGER;
  out.integer = result;
  return out;
}

}  // namespace steadyflake::mergecheck::merge
