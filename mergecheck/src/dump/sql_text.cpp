// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/sql_text.h"

#include <cstring>

namespace steadyflake::mergecheck::dump {
namespace {

// The byte MySQL's escape `\e` stands for: \0 \b \n \r \t as in C, \Z for 0x1a (Ctrl-Z), any
// other e for itself.
char MysqlEscaped(char e) {
  static constexpr std::string_view kEscapes = "0bnrtZ";
  static constexpr std::string_view kBytes("\0\b\n\r\t\x1a", 6);
  const size_t k = kEscapes.find(e);
  return k == std::string_view::npos ? e : kBytes[k];
}

}  // namespace

void AppendMysqlUnescaped(std::string_view body, char quote, std::string& out) {
  size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    if (c == '\\' && i + 1 < body.size()) {
      const char e = body[i + 1];
      i += 2;
      if (e == '%' || e == '_') out.push_back('\\');  // kept as two bytes, as MySQL keeps them
      out.push_back(MysqlEscaped(e));
    } else if (c == quote && i + 1 < body.size() && body[i + 1] == quote) {
      out.push_back(quote);
      i += 2;
    } else {
      out.push_back(c);
      ++i;
    }
  }
}

void AppendUndoubled(std::string_view body, char quote, std::string& out) {
  size_t i = 0;
  while (i < body.size()) {
    const size_t q = body.find(quote, i);
    if (q == std::string_view::npos) {
      out.append(body.substr(i));
      return;
    }
    out.append(body.substr(i, q + 1 - i));
    i = q + 2;  // skip the second quote of the pair
  }
}

bool IsNumberLiteral(std::string_view text) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  bool mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa = digits() || mantissa;
  }
  if (!mantissa) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

std::string Printable(std::string_view text) {
  std::string out;
  text = text.substr(0, kPrintableBytes);
  AppendEscaped(out, text.substr(0, text.find('\n')), Escape::kNonAscii);
  return out;
}

const Lexer::Token& Lexer::Peek() {
  if (!has_peeked_) {
    peeked_ = Scan();
    has_peeked_ = true;
  }
  return peeked_;
}

Lexer::Token Lexer::Next() {
  if (has_peeked_) {
    has_peeked_ = false;
    return std::move(peeked_);
  }
  return Scan();
}

Lexer::Token Lexer::Scan() {
  const size_t n = text_.size();
  // White space and comments.
  for (;;) {
    while (pos_ < n && static_cast<unsigned char>(text_[pos_]) <= ' ') ++pos_;
    if (pos_ + 1 < n && text_[pos_] == '-' && text_[pos_ + 1] == '-') {
      const size_t eol = text_.find('\n', pos_);
      pos_ = eol == std::string_view::npos ? n : eol + 1;
    } else if (pos_ < n && text_[pos_] == '#' && dialect_ == Dialect::kMysql) {
      const size_t eol = text_.find('\n', pos_);
      pos_ = eol == std::string_view::npos ? n : eol + 1;
    } else if (pos_ + 1 < n && text_[pos_] == '/' && text_[pos_ + 1] == '*') {
      const size_t close = text_.find("*/", pos_ + 2);
      if (close == std::string_view::npos) throw SyntaxError{pos_, "unterminated /* comment"};
      pos_ = close + 2;
    } else {
      break;
    }
  }
  Token t;
  t.offset = pos_;
  if (pos_ >= n) return t;
  const char c = text_[pos_];
  const size_t start = pos_;
  auto quoted = [&](char close, Token::Kind kind, bool backslashes) {
    size_t i = pos_ + 1;
    for (;;) {
      if (i >= n) throw SyntaxError{start, std::string("unterminated ") + c + "-quoted text"};
      if (backslashes && text_[i] == '\\') {
        i += 2;
      } else if (text_[i] == close) {
        if (close != ']' && i + 1 < n && text_[i + 1] == close) {
          i += 2;
        } else {
          break;
        }
      } else {
        ++i;
      }
    }
    pos_ = i + 1;
    t.kind = kind;
    t.raw = text_.substr(start, pos_ - start);
    const std::string_view body = text_.substr(start + 1, i - start - 1);
    if (backslashes) {
      AppendMysqlUnescaped(body, close, t.value);
    } else if (close == ']') {
      t.value.assign(body);
    } else {
      AppendUndoubled(body, close, t.value);
    }
  };
  const bool mysql = dialect_ == Dialect::kMysql;
  if (c == '\'') {
    quoted('\'', Token::Kind::kString, mysql);
  } else if (c == '"') {
    // MySQL (without ANSI_QUOTES) reads "x" as a string; SQLite as an identifier.
    quoted('"', mysql ? Token::Kind::kString : Token::Kind::kQuotedIdentifier, mysql);
  } else if (c == '`') {
    quoted('`', Token::Kind::kQuotedIdentifier, false);
  } else if (c == '[' && !mysql) {
    quoted(']', Token::Kind::kQuotedIdentifier, false);
  } else if (c >= '0' && c <= '9') {
    while (pos_ < n &&
           (IsWordByte(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      ++pos_;
    }
    t.kind = Token::Kind::kNumber;
    t.raw = text_.substr(start, pos_ - start);
    t.value.assign(t.raw);
  } else if (IsWordByte(static_cast<unsigned char>(c))) {
    while (pos_ < n && IsWordByte(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    t.kind = Token::Kind::kWord;
    t.raw = text_.substr(start, pos_ - start);
    t.value.assign(t.raw);
  } else {
    ++pos_;
    t.kind = Token::Kind::kPunct;
    t.raw = text_.substr(start, 1);
    t.value.assign(t.raw);
  }
  return t;
}

}  // namespace steadyflake::mergecheck::dump
