// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Small text helpers of the merge checker, public so that the `steadyflake` CLI prints numbers
// and bytes exactly as the reports do: one home each for thousands grouping, hex digits, the
// \xNN escape and ASCII case-insensitive comparison.

#ifndef STEADYFLAKE_MERGECHECK_TEXT_H_
#define STEADYFLAKE_MERGECHECK_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace steadyflake::mergecheck {

// "65,536": thousands separated by commas, for reports people read.
inline std::string GroupThousands(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The value of hex digit `c` (either case), or -1 if it is none.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends `byte` as two lower-case hex digits.
inline void AppendHexByte(std::string& out, unsigned char byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 15];
}

// Appends every byte of `bytes` as two lower-case hex digits.
inline void AppendHex(std::string& out, std::string_view bytes) {
  for (const char c : bytes) AppendHexByte(out, static_cast<unsigned char>(c));
}

// `bytes` as an SQL blob literal, x'0aff': how reports show a BLOB value.
inline std::string BlobLiteral(std::string_view bytes) {
  std::string out = "x'";
  AppendHex(out, bytes);
  out += '\'';
  return out;
}

// Which bytes AppendEscaped writes as \xNN.
enum class Escape {
  kNonAscii,  // all but printable ASCII (0x20..0x7e): for one-line error messages
  kControl,   // control bytes only (< 0x20, 0x7f); UTF-8 passes through: for reports
};

// Appends `text` with the bytes `escape` names written as \xNN.
inline void AppendEscaped(std::string& out, std::string_view text, Escape escape) {
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    const bool control = b < 0x20 || b == 0x7f;
    if (control || (escape == Escape::kNonAscii && b > 0x7f)) {
      out += "\\x";
      AppendHexByte(out, b);
    } else {
      out += c;
    }
  }
}

// Whether `a` and `b` are equal when ASCII letters are folded to one case (SQL keywords and
// identifiers; other bytes compare exactly).
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// `text` with ASCII letters in lowercase (identifiers matched without regard to case).
inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_TEXT_H_
