// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/literal_decoder.h"

#include <cstdlib>

#include "dump/sqlite_expr.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::dump {
namespace {

// A problem at `at` in the literal that starts at `start`.
[[noreturn]] void Throw(const char* start, const char* at, std::string problem) {
  throw SyntaxError{static_cast<size_t>(at - start), std::move(problem)};
}

// b'0101' (MySQL BIT) with p after the quote: an integer. Leading zeros are allowed, any
// number of them, as MySQL allows them; a value above INT64_MAX is an error, also when it has
// more digits than a uint64_t holds (they must not wrap around to a small value).
const char* DecodeBits(const char* start, const char* p, const char* end, Cell& cell) {
  const char* q = p;
  uint64_t value = 0;
  bool too_big = false;
  while (q < end && (*q == '0' || *q == '1')) {
    value = value << 1 | static_cast<uint64_t>(*q++ - '0');
    too_big = too_big || value > static_cast<uint64_t>(INT64_MAX);
  }
  if (q == end) return nullptr;
  if (*q != '\'') Throw(start, q, "a b'...' literal holds a character other than 0 and 1");
  cell = Cell{};
  if (too_big) Throw(start, p, "a b'...' literal above 2^63-1");
  cell.type = Cell::Type::kInteger;
  cell.integer = static_cast<int64_t>(value);
  return q + 1;
}

}  // namespace

namespace internal {

void ThrowNotAValue(const char* p, const char* end) {
  Throw(p, p, "expected a value, found '" + Printable({p, static_cast<size_t>(end - p)}) + "'");
}

// Hex digits from `digits`: X'..' when `quoted` (digits after the quote), 0x.. otherwise.
Decoded DecodeHex(const char* start, const char* digits, const char* end, bool quoted, Cell& cell,
                  std::string& scratch) {
  const char* p = digits;
  const char* q = p;
  while (q < end && HexDigitValue(*q) >= 0) ++q;
  if (q == end) return {};
  if (quoted && *q != '\'') Throw(start, q, "an X'...' blob holds a non-hex character");
  if (!quoted && IsWordByte(static_cast<unsigned char>(*q))) {
    Throw(start, q, "a 0x... literal holds a non-hex character");
  }
  const size_t count = static_cast<size_t>(q - p);
  const size_t off = scratch.size();
  size_t i = 0;
  if (count % 2 != 0) {
    if (quoted) Throw(start, p, "an X'...' blob has an odd number of hex digits");
    scratch.push_back(static_cast<char>(HexDigitValue(p[0])));  // MySQL pads 0xABC as 0x0ABC
    i = 1;
  }
  for (; i < count; i += 2) {
    scratch.push_back(static_cast<char>(HexDigitValue(p[i]) * 16 + HexDigitValue(p[i + 1])));
  }
  cell = Cell{};
  cell.type = Cell::Type::kBlob;
  cell.bytes = std::string_view(scratch.data() + off, scratch.size() - off);
  return {quoted ? q + 1 : q, true};
}

// The numbers DecodeNumber leaves: reals, integers beyond int64, and malformed ones. [p, q) is
// the literal (q < end), `digits` where its digits start.
const char* DecodeWideNumber(const char* p, const char* digits, const char* q, const char* end,
                             bool real, bool negative, Dialect dialect, Cell& cell) {
  if (IsWordByte(static_cast<unsigned char>(*q)) ||
      !IsNumberLiteral(std::string_view(digits, static_cast<size_t>(q - digits)))) {
    Throw(p, p, "a malformed number '" + Printable({p, static_cast<size_t>(end - p)}) + "'");
  }
  const std::string_view literal(p, static_cast<size_t>(q - p));
  cell = Cell{};
  if (!real && !negative && dialect == Dialect::kMysql) {
    // BIGINT UNSIGNED and DECIMAL(n,0) beyond int64: decimal digits, no leading zeros.
    const char* d = digits;
    while (d + 1 < q && *d == '0') ++d;
    cell.type = Cell::Type::kBigInteger;
    cell.bytes = std::string_view(d, static_cast<size_t>(q - d));
    return q;
  }
  // A decimal, an exponent, or (SQLite) an integer literal beyond int64, which SQLite reads
  // as a REAL.
  char small[64];
  std::string large;
  const char* text;
  if (literal.size() < sizeof(small)) {
    std::memcpy(small, literal.data(), literal.size());
    small[literal.size()] = '\0';
    text = small;
  } else {
    large.assign(literal);
    text = large.c_str();
  }
  cell.type = Cell::Type::kReal;
  cell.real = std::strtod(text, nullptr);
  cell.bytes = literal;
  return q;
}

Decoded DecodeExpression(const char* p, const char* end, Cell& cell, std::string& scratch,
                         Shortfall& need) {
  const char* e = SkipExpression(p, end, /*backslashes=*/false, need);
  if (e == nullptr) return {};
  while (e > p && IsSpace(e[-1])) --e;
  const size_t off = scratch.size();
  cell = Cell{};
  EvalSqliteExpression(std::string_view(p, static_cast<size_t>(e - p)), cell, scratch);
  if (cell.type == Cell::Type::kText || cell.type == Cell::Type::kBlob) {
    cell.bytes = std::string_view(scratch.data() + off, scratch.size() - off);
    return {e, true};
  }
  if (cell.type == Cell::Type::kReal) cell.bytes = std::string_view(p, static_cast<size_t>(e - p));
  return {e, false};
}

// SkipLiteral for what is not a '...' string, a number or NULL.
const char* SkipRareLiteral(const char* p, const char* end, Dialect dialect, Shortfall& need) {
  const bool mysql = dialect == Dialect::kMysql;
  const char c = *p;
  if (c == '"' && mysql) return SkipQuoted(p, end, '"', true, need);
  if (c == '(' ||
      (!mysql && (c == 'r' || c == 'R' || c == 'c' || c == 'C' || c == 'u' || c == 'U'))) {
    return SkipExpression(p, end, mysql, need);
  }
  const char* q = p;
  if (*q == '_') {  // an introducer: _binary '...'
    while (q < end && IsWordByte(static_cast<unsigned char>(*q))) ++q;
    while (q < end && IsSpace(*q)) ++q;
    if (q == end) return nullptr;
    if (*q == '\'') return SkipQuoted(q, end, '\'', mysql, need);
  }
  if ((*q == 'x' || *q == 'X' || *q == 'b' || *q == 'B') && q + 1 < end && q[1] == '\'') {
    return SkipQuoted(q + 1, end, '\'', false, need);
  }
  // 0x.., an introducer's 0x.., other words.
  const char* e = SkipWord(q, end);
  if (e == p) ThrowNotAValue(p, end);
  return e;
}

// X'..', introducers, b'..', SQLite expressions, and what is no value at all.
Decoded DecodeRareLiteral(const char* p, const char* end, bool at_eof, Dialect dialect, Cell& cell,
                          std::string& scratch, Shortfall& need) {
  const bool mysql = dialect == Dialect::kMysql;
  const char c = *p;
  if ((c == 'x' || c == 'X') && p + 1 < end && p[1] == '\'') {
    return DecodeHex(p, p + 2, end, /*quoted=*/true, cell, scratch);
  }
  if (c == '_' && mysql) {  // _binary '...', _utf8mb4 '...'
    const char* q = p;
    while (q < end && IsWordByte(static_cast<unsigned char>(*q))) ++q;
    const bool binary =
        EqualsIgnoreCase(std::string_view(p, static_cast<size_t>(q - p)), "_binary");
    while (q < end && IsSpace(*q)) ++q;
    if (q + 1 >= end) return {};
    const Cell::Type type = binary ? Cell::Type::kBlob : Cell::Type::kText;
    if (*q == '\'') return DecodeString(q, end, dialect, type, cell, scratch, need);
    const bool hex = *q == '0' && (q[1] == 'x' || q[1] == 'X');
    const bool quoted_hex = (*q == 'x' || *q == 'X') && q[1] == '\'';
    if (hex || quoted_hex) {
      const Decoded d = DecodeHex(p, q + 2, end, quoted_hex, cell, scratch);
      if (d.next != nullptr && !binary) cell.type = Cell::Type::kText;
      return d;
    }
  }
  if ((c == 'b' || c == 'B') && p + 1 < end && p[1] == '\'' && mysql) {
    return {DecodeBits(p, p + 2, end, cell), false};
  }
  if (!mysql && IsWordByte(static_cast<unsigned char>(c))) {
    return DecodeExpression(p, end, cell, scratch, need);
  }
  if (p + 1 >= end && !at_eof) return {};
  ThrowNotAValue(p, end);
}

}  // namespace internal

}  // namespace steadyflake::mergecheck::dump
