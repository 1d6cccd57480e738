// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// SQL text as the two dump dialects write it: string-literal decoding and a tokenizer for
// whole statements (used for CREATE TABLE, CREATE INDEX, ALTER TABLE and INSERT headers; the
// row values have their own streaming decoder, literal_decoder.h).

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_SQL_TEXT_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_SQL_TEXT_H_

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::dump {

// Which program wrote the dump; it decides how string literals escape.
//   kSqlite: `sqlite3 .dump`. Strings double their quotes ('O''Brien'); a backslash is an
//            ordinary byte; identifiers may be quoted with "", [], or ``.
//   kMysql:  mysqldump / mariadb-dump. Strings also take backslash escapes (\' \\ \0 \n ...);
//            identifiers are quoted with ``.
enum class Dialect { kSqlite, kMysql };

// A problem in one statement, at `offset` bytes from the statement's start. The dump parser
// turns it into an Error naming the file and line.
struct SyntaxError : std::runtime_error {
  SyntaxError(size_t offset_in_statement, const std::string& what_is_wrong)
      : std::runtime_error(what_is_wrong), offset(offset_in_statement), problem(what_is_wrong) {}
  size_t offset;
  std::string problem;
};

// Appends the decoded body of a MySQL string literal (the bytes between its quotes) to `out`:
// \0 \' \" \b \n \r \t \Z \\ are resolved, \% and \_ stay two bytes (as MySQL keeps them), any
// other \x becomes x, and a doubled quote `quote` becomes one.
void AppendMysqlUnescaped(std::string_view body, char quote, std::string& out);

// Appends `body` with every doubled `quote` collapsed to one (SQL-standard escaping).
void AppendUndoubled(std::string_view body, char quote, std::string& out);

// True for bytes that may appear in an unquoted identifier or keyword.
inline bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c >= 0x80;
}

// True when `text` is a whole decimal number: an optional sign, digits with an optional '.'
// (a digit on at least one side of it), and an optional exponent: e or E, an optional sign and
// at least one digit. Neither SQLite nor MySQL reads anything else as a number ("+e5" and "1e"
// are errors there, not 0 and 1).
bool IsNumberLiteral(std::string_view text);

// True for white space and control bytes, which separate tokens.
inline bool IsSpace(char c) { return static_cast<unsigned char>(c) <= ' '; }

// True when `text` starts with `prefix`, ASCII case-insensitively.
inline bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

// How many bytes of the input Printable quotes at most.
inline constexpr size_t kPrintableBytes = 24;

// Up to kPrintableBytes bytes of `text`, to its first line end, with other control and
// non-ASCII bytes as \xNN, for error messages.
std::string Printable(std::string_view text);

// Splits one complete statement into tokens, skipping white space and comments (`-- ...`,
// `# ...` in MySQL, `/* ... */` including MySQL's `/*!40101 ... */`).
class Lexer {
 public:
  struct Token {
    enum class Kind { kEnd, kWord, kQuotedIdentifier, kString, kNumber, kPunct };
    Kind kind = Kind::kEnd;
    std::string_view raw;  // as written, quotes included
    std::string value;     // kWord: as written; kQuotedIdentifier/kString: decoded
    size_t offset = 0;     // of `raw` in the statement

    bool IsWord(std::string_view keyword) const {
      return kind == Kind::kWord && EqualsIgnoreCase(value, keyword);
    }
    bool IsPunct(char c) const { return kind == Kind::kPunct && raw.size() == 1 && raw[0] == c; }
    // A name: a bare word or a quoted identifier (MySQL also accepts a 'string' in places).
    bool IsName() const { return kind == Kind::kWord || kind == Kind::kQuotedIdentifier; }
  };

  Lexer(std::string_view text, Dialect dialect) : text_(text), dialect_(dialect) {}

  // The next token; kEnd at the end of the text. Throws SyntaxError for an unterminated string,
  // identifier or comment.
  Token Next();
  // The next token, without consuming it.
  const Token& Peek();
  // Offset of the next unread byte.
  size_t offset() const { return has_peeked_ ? peeked_.offset : pos_; }

 private:
  Token Scan();

  std::string_view text_;
  Dialect dialect_;
  size_t pos_ = 0;
  bool has_peeked_ = false;
  Token peeked_;
};

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_SQL_TEXT_H_
