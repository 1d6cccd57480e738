// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/sqlite_expr.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "dump/sql_text.h"

namespace steadyflake::mergecheck::dump {
namespace {

struct Value {
  Cell::Type type = Cell::Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string bytes;  // text or blob; for numbers, their text (for ||)
};

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | ((cp >> 18) & 0x07)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// An argument of char() as the code point SQLite makes of it: an integer as it is, a real
// truncated toward zero, and U+FFFD for anything outside 0..0x10FFFF. A real is range-checked
// before it is converted: converting one beyond int64 (1e61) is undefined behaviour.
uint32_t CodePoint(const Value& arg) {
  constexpr uint32_t kReplacement = 0xFFFD, kMax = 0x10FFFF;
  if (arg.type == Cell::Type::kInteger) {
    return arg.integer < 0 || arg.integer > kMax ? kReplacement
                                                 : static_cast<uint32_t>(arg.integer);
  }
  if (arg.type == Cell::Type::kReal) {
    // -0.5 truncates to 0; NaN fails both compares.
    return arg.real > -1.0 && arg.real < kMax + 1.0 ? static_cast<uint32_t>(arg.real)
                                                    : kReplacement;
  }
  return 0;  // NULL (and text, which sqlite3 .dump never writes here)
}

class Evaluator {
 public:
  explicit Evaluator(std::string_view text) : text_(text) {}

  Value Parse() {
    Value v = Expression();
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text after a value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& problem) { throw SyntaxError{pos_, problem}; }

  void SkipSpace() {
    while (pos_ < text_.size() && static_cast<unsigned char>(text_[pos_]) <= ' ') ++pos_;
  }

  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void Expect(char c) {
    if (!Accept(c)) Fail(std::string("expected '") + c + "' in a value expression");
  }

  static std::string AsText(const Value& v) { return v.bytes; }

  Value Expression() {
    Value v = Term();
    for (;;) {
      SkipSpace();
      if (pos_ + 1 < text_.size() && text_[pos_] == '|' && text_[pos_ + 1] == '|') {
        pos_ += 2;
        Value rhs = Term();
        if (v.type == Cell::Type::kNull || rhs.type == Cell::Type::kNull) {
          v = Value{};
        } else {
          v.bytes += rhs.bytes;
          v.type = Cell::Type::kText;
        }
      } else {
        return v;
      }
    }
  }

  std::string Word() {
    const size_t start = pos_;
    while (pos_ < text_.size() && IsWordByte(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  std::vector<Value> Arguments() {
    std::vector<Value> args;
    Expect('(');
    if (Accept(')')) return args;
    do {
      args.push_back(Expression());
    } while (Accept(','));
    Expect(')');
    return args;
  }

  Value Term() {
    SkipSpace();
    if (pos_ >= text_.size()) Fail("a value expression ends early");
    const char c = text_[pos_];
    Value v;
    if (c == '\'') {
      const size_t start = ++pos_;
      for (;;) {
        const size_t q = text_.find('\'', pos_);
        if (q == std::string_view::npos) Fail("unterminated string");
        if (q + 1 < text_.size() && text_[q + 1] == '\'') {
          pos_ = q + 2;
          continue;
        }
        AppendUndoubled(text_.substr(start, q - start), '\'', v.bytes);
        pos_ = q + 1;
        break;
      }
      v.type = Cell::Type::kText;
      return v;
    }
    if ((c == 'x' || c == 'X') && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\'') {
      const size_t q = text_.find('\'', pos_ + 2);
      if (q == std::string_view::npos) Fail("unterminated X'' blob");
      const std::string_view hex = text_.substr(pos_ + 2, q - pos_ - 2);
      if (hex.size() % 2 != 0) Fail("an X'' blob has an odd number of hex digits");
      for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = HexDigitValue(hex[i]), lo = HexDigitValue(hex[i + 1]);
        if (hi < 0 || lo < 0) Fail("an X'' blob holds a non-hex digit");
        v.bytes.push_back(static_cast<char>(hi * 16 + lo));
      }
      pos_ = q + 1;
      v.type = Cell::Type::kBlob;
      return v;
    }
    if (c == '(') {
      ++pos_;
      v = Expression();
      Expect(')');
      return v;
    }
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) {
      const size_t start = pos_;
      if (c == '-' || c == '+') ++pos_;
      bool real = false;
      while (pos_ < text_.size()) {
        const char d = text_[pos_];
        if (d >= '0' && d <= '9') {
          ++pos_;
        } else if (d == '.' || d == 'e' || d == 'E') {
          real = true;
          ++pos_;
          if ((d == 'e' || d == 'E') && pos_ < text_.size() &&
              (text_[pos_] == '-' || text_[pos_] == '+')) {
            ++pos_;
          }
        } else {
          break;
        }
      }
      v.bytes.assign(text_.substr(start, pos_ - start));
      if (!IsNumberLiteral(v.bytes)) throw SyntaxError{start, "a malformed number"};
      errno = 0;
      char* endp = nullptr;
      const long long n = std::strtoll(v.bytes.c_str(), &endp, 10);
      if (!real && errno == 0 && *endp == '\0') {
        v.type = Cell::Type::kInteger;
        v.integer = n;
      } else {
        v.type = Cell::Type::kReal;
        v.real = std::strtod(v.bytes.c_str(), nullptr);
      }
      return v;
    }
    if (!IsWordByte(static_cast<unsigned char>(c))) Fail("unexpected character in a value");
    const std::string name = Word();
    if (EqualsIgnoreCase(name, "NULL")) return v;
    if (EqualsIgnoreCase(name, "char")) {
      v.type = Cell::Type::kText;
      for (const Value& arg : Arguments()) AppendUtf8(CodePoint(arg), v.bytes);
      return v;
    }
    if (EqualsIgnoreCase(name, "replace")) {
      std::vector<Value> args = Arguments();
      if (args.size() != 3) Fail("replace() takes three arguments");
      for (const Value& arg : args) {
        if (arg.type == Cell::Type::kNull) return v;
      }
      const std::string& from = args[1].bytes;
      const std::string& to = args[2].bytes;
      v.type = Cell::Type::kText;
      if (from.empty()) {
        v.bytes = args[0].bytes;
        return v;
      }
      const std::string& s = args[0].bytes;
      size_t i = 0;
      for (;;) {
        const size_t hit = s.find(from, i);
        if (hit == std::string::npos) break;
        v.bytes.append(s, i, hit - i);
        v.bytes += to;
        i = hit + from.size();
      }
      v.bytes.append(s, i, std::string::npos);
      return v;
    }
    if (EqualsIgnoreCase(name, "unistr")) {
      std::vector<Value> args = Arguments();
      if (args.size() != 1) Fail("unistr() takes one argument");
      if (args[0].type == Cell::Type::kNull) return v;
      const std::string& s = args[0].bytes;
      v.type = Cell::Type::kText;
      for (size_t i = 0; i < s.size();) {
        if (s[i] != '\\') {
          v.bytes.push_back(s[i++]);
          continue;
        }
        if (i + 1 < s.size() && s[i + 1] == '\\') {
          v.bytes.push_back('\\');
          i += 2;
          continue;
        }
        size_t digits = 4, skip = 1;
        if (i + 1 < s.size() && s[i + 1] == 'u') {
          skip = 2;
        } else if (i + 1 < s.size() && s[i + 1] == '+') {
          skip = 2, digits = 6;
        } else if (i + 1 < s.size() && s[i + 1] == 'U') {
          skip = 2, digits = 8;
        }
        if (i + skip + digits > s.size()) Fail("unistr() has a short \\ escape");
        uint32_t cp = 0;
        for (size_t k = 0; k < digits; ++k) {
          const int d = HexDigitValue(s[i + skip + k]);
          if (d < 0) Fail("unistr() has a bad \\ escape");
          cp = cp * 16 + static_cast<uint32_t>(d);
        }
        AppendUtf8(cp > 0x10FFFF ? 0xFFFD : cp, v.bytes);
        i += skip + digits;
      }
      return v;
    }
    Fail("unexpected '" + name + "' in a value (only replace(), char() and unistr() are read)");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

void EvalSqliteExpression(std::string_view expr, Cell& cell, std::string& bytes) {
  Value v = Evaluator(expr).Parse();
  cell = Cell{};
  cell.type = v.type;
  cell.integer = v.integer;
  cell.real = v.real;
  if (v.type == Cell::Type::kText || v.type == Cell::Type::kBlob) bytes += v.bytes;
}

}  // namespace steadyflake::mergecheck::dump
