// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The literal decoder on its own: one literal in, one Cell out, for every form a dump writes,
// the streaming contract (nullptr when the window ends inside a literal) and the errors, with
// offsets counted from the literal's start.

#include "dump/literal_decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "dump/sqlite_expr.h"

namespace steadyflake::mergecheck::dump {
namespace {

constexpr Dialect kSqlite = Dialect::kSqlite;
constexpr Dialect kMysql = Dialect::kMysql;

// A decoded literal, its bytes copied out.
struct Out {
  Cell::Type type = Cell::Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string bytes;
  size_t consumed = 0;  // bytes of the input the literal took
  bool in_scratch = false;
};

// Decodes the literal at the start of `text` and expects it to end before the end of `text`.
Out Decode(std::string_view text, Dialect dialect) {
  Cell cell;
  std::string scratch;
  Shortfall need;
  const char* end = text.data() + text.size();
  const Decoded d = DecodeLiteral(text.data(), end, /*at_eof=*/true, dialect, cell, scratch, need);
  Out out;
  EXPECT_NE(d.next, nullptr) << text;
  if (d.next == nullptr) return out;
  out.type = cell.type;
  out.integer = cell.integer;
  out.real = cell.real;
  out.bytes.assign(cell.bytes);
  out.consumed = static_cast<size_t>(d.next - text.data());
  out.in_scratch = d.in_scratch;
  // SkipLiteral agrees on where the literal ends (up to the spaces that may follow it).
  const char* skipped = SkipLiteral(text.data(), end, dialect, need);
  const char* decoded = d.next;
  while (skipped != nullptr && skipped < end && IsSpace(*skipped)) ++skipped;
  while (decoded < end && IsSpace(*decoded)) ++decoded;
  EXPECT_EQ(skipped, decoded) << text;
  return out;
}

// Expects `text` to decode to a `type` cell holding `bytes`.
void ExpectBytes(std::string_view text, Dialect dialect, Cell::Type type, std::string_view bytes) {
  const Out out = Decode(text, dialect);
  EXPECT_EQ(out.type, type) << text;
  EXPECT_EQ(out.bytes, bytes) << text;
}

// The SyntaxError that decoding `text` throws.
SyntaxError DecodeError(std::string_view text, Dialect dialect) {
  Cell cell;
  std::string scratch;
  Shortfall need;
  try {
    DecodeLiteral(text.data(), text.data() + text.size(), true, dialect, cell, scratch, need);
  } catch (const SyntaxError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << text;
  return SyntaxError(0, "");
}

// Whether decoding the window `text` (more input may follow) asks for more.
bool NeedsMore(std::string_view text, Dialect dialect, bool at_eof = false) {
  Cell cell;
  std::string scratch;
  Shortfall need;
  return DecodeLiteral(text.data(), text.data() + text.size(), at_eof, dialect, cell, scratch, need)
             .next == nullptr;
}

bool Contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// Expects decoding `text` to fail at `offset` with a problem that says `part`.
void ExpectError(std::string_view text, Dialect dialect, size_t offset, std::string_view part) {
  const SyntaxError e = DecodeError(text, dialect);
  EXPECT_EQ(e.offset, offset) << text;
  EXPECT_TRUE(Contains(e.problem, part)) << text << ": " << e.problem;
}

TEST(LiteralDecoder, NullInAnyCase) {
  for (Dialect d : {kSqlite, kMysql}) {
    for (std::string_view text : {"NULL,", "null)", "Null ,"}) {
      const Out out = Decode(text, d);
      EXPECT_EQ(out.type, Cell::Type::kNull) << text;
      EXPECT_EQ(out.consumed, 4u) << text;
    }
  }
  // A word that starts like NULL is no NULL (and in MySQL no value at all).
  ExpectError("NULLX,", kMysql, 0u, "expected a value, found 'NULLX,'");
}

TEST(LiteralDecoder, IntegersUpToInt64) {
  for (Dialect d : {kSqlite, kMysql}) {
    EXPECT_EQ(Decode("123,", d).integer, 123);
    EXPECT_EQ(Decode("-5)", d).integer, -5);
    EXPECT_EQ(Decode("+7,", d).integer, 7);
    const Out zero = Decode("-0,", d);
    EXPECT_EQ(zero.type, Cell::Type::kInteger);
    EXPECT_EQ(zero.integer, 0);
    const Out max = Decode("9223372036854775807,", d);
    EXPECT_EQ(max.type, Cell::Type::kInteger);
    EXPECT_EQ(max.integer, std::numeric_limits<int64_t>::max());
    const Out min = Decode("-9223372036854775808,", d);
    EXPECT_EQ(min.type, Cell::Type::kInteger);
    EXPECT_EQ(min.integer, std::numeric_limits<int64_t>::min());
    EXPECT_EQ(min.consumed, 20u);
  }
}

TEST(LiteralDecoder, BeyondInt64IsBigIntegerInMysqlAndRealInSqlite) {
  const Out big = Decode("18446744073709551615,", kMysql);
  EXPECT_EQ(big.type, Cell::Type::kBigInteger);
  EXPECT_EQ(big.bytes, "18446744073709551615");
  EXPECT_EQ(Decode("9223372036854775808,", kMysql).bytes, "9223372036854775808");
  // Leading zeros go; past UINT64_MAX the digits are kept as they are.
  EXPECT_EQ(Decode("000099999999999999999999,", kMysql).bytes, "99999999999999999999");

  const Out real = Decode("9223372036854775808,", kSqlite);
  EXPECT_EQ(real.type, Cell::Type::kReal);
  EXPECT_EQ(real.real, 9223372036854775808.0);
  EXPECT_EQ(real.bytes, "9223372036854775808");
  // Past UINT64_MAX the magnitude wraps around; the literal must still not read as the small
  // integer it wrapped to.
  EXPECT_EQ(Decode("18446744073709551616,", kMysql).bytes, "18446744073709551616");
  EXPECT_EQ(Decode("36893488147419103232,", kMysql).type, Cell::Type::kBigInteger);
  EXPECT_EQ(Decode("18446744073709551616,", kSqlite).type, Cell::Type::kReal);
  EXPECT_EQ(Decode("18446744073709551616,", kSqlite).real, 18446744073709551616.0);
  for (Dialect d : {kSqlite, kMysql}) {
    EXPECT_EQ(Decode("-18446744073709551617,", d).type, Cell::Type::kReal);
    EXPECT_EQ(Decode("-184467440737095516161,", d).type, Cell::Type::kReal);
  }
  // Below INT64_MIN: a REAL in both dialects.
  for (Dialect d : {kSqlite, kMysql}) {
    const Out low = Decode("-9223372036854775809,", d);
    EXPECT_EQ(low.type, Cell::Type::kReal);
    EXPECT_EQ(low.bytes, "-9223372036854775809");
  }
}

// Integers of every length from 1 to 19 digits (the decoder takes eight at a time while eight
// are there), signed and not, and followed by every byte a digit's test could take for one (those
// that share the digits' high nibble: ':' to '?') or a delimiter: the value and the end are
// those of the digits alone.
TEST(LiteralDecoder, IntegersOfEveryLengthEndAtTheirLastDigit) {
  const std::string digits = "9182736455463728192";
  for (std::size_t n = 1; n <= digits.size(); ++n) {
    for (const char* sign : {"", "-"}) {
      for (const char after : std::string(":;<=>?,) /")) {
        const std::string text = sign + digits.substr(0, n) + after + "12345678";
        const Out out = Decode(text, kMysql);
        ASSERT_EQ(out.type, Cell::Type::kInteger) << text;
        const int64_t magnitude = std::stoll(digits.substr(0, n));
        EXPECT_EQ(out.integer, *sign == '-' ? -magnitude : magnitude) << text;
        EXPECT_EQ(out.consumed, std::string(sign).size() + n) << text;
      }
    }
    // Digits that run to the end of the buffer: nothing is read past it (the ASan build says).
    const std::vector<char> exact(digits.begin(), digits.begin() + static_cast<std::ptrdiff_t>(n));
    Cell cell;
    EXPECT_EQ(internal::DecodeNumber(exact.data(), exact.data() + n, kMysql, cell), nullptr);
  }
}

TEST(LiteralDecoder, RealsKeepTheirLiteral) {
  for (Dialect d : {kSqlite, kMysql}) {
    const Out a = Decode("12.50,", d);
    EXPECT_EQ(a.type, Cell::Type::kReal);
    EXPECT_EQ(a.real, 12.5);
    EXPECT_EQ(a.bytes, "12.50");
    EXPECT_EQ(Decode("1e10)", d).real, 1e10);
    EXPECT_EQ(Decode("-2.5E-3,", d).real, -2.5e-3);
    EXPECT_EQ(Decode(".5,", d).real, 0.5);
    EXPECT_TRUE(std::isinf(Decode("1e999,", d).real));
    EXPECT_EQ(Decode("1e999,", d).bytes, "1e999");
  }
  // A literal longer than the decoder's stack buffer.
  const std::string longer = "1." + std::string(80, '0') + "1,";
  const Out l = Decode(longer, kSqlite);
  EXPECT_EQ(l.real, 1.0);
  EXPECT_EQ(l.bytes, longer.substr(0, longer.size() - 1));
}

TEST(LiteralDecoder, MalformedNumbersAreErrors) {
  for (std::string_view text : {"12ab,", "-,", ".,", "1.5x)", "1e5e,"}) {
    ExpectError(text, kMysql, 0u, "a malformed number '" + std::string(text) + "'");
  }
}

// Regression: a number with no digit before its exponent ("+e5", ".e5") read as the real 0,
// and one with no digit after its e ("1e") as 1; SQLite and MySQL refuse both.
TEST(LiteralDecoder, NumbersNeedDigitsInMantissaAndExponent) {
  for (Dialect d : {kSqlite, kMysql}) {
    for (std::string_view text : {"+e5,", "-e5)", ".e5,", "-.e1,", "1e,", "1e+)", "-2.5E-,"}) {
      ExpectError(text, d, 0u, "a malformed number '" + std::string(text) + "'");
    }
    EXPECT_EQ(Decode("1.e5,", d).real, 1e5);
    EXPECT_EQ(Decode("-.5e+1,", d).real, -5.0);
  }
  // The same rule inside a SQLite expression.
  for (std::string_view expr : {"'a'||+e5", "char(1e)", "'a'||1.2.3"}) {
    Cell cell;
    std::string bytes;
    EXPECT_THROW(EvalSqliteExpression(expr, cell, bytes), SyntaxError) << expr;
  }
}

TEST(LiteralDecoder, SqliteStringsUndoubleQuotesOnly) {
  const Out plain = Decode("'plain text',", kSqlite);
  EXPECT_EQ(plain.type, Cell::Type::kText);
  EXPECT_EQ(plain.bytes, "plain text");
  EXPECT_FALSE(plain.in_scratch);  // a slice of the input, not copied
  const Out doubled = Decode("'it''s ''''',", kSqlite);
  EXPECT_EQ(doubled.bytes, "it's ''");
  EXPECT_TRUE(doubled.in_scratch);
  EXPECT_EQ(doubled.consumed, 12u);
  // A backslash is an ordinary byte in SQLite.
  EXPECT_EQ(Decode("'a\\nb\\',", kSqlite).bytes, "a\\nb\\");
  EXPECT_EQ(Decode("'',", kSqlite).bytes, "");
}

TEST(LiteralDecoder, MysqlStringsResolveBackslashEscapes) {
  const Out out = Decode(R"('\0\b\n\r\t\Z\\\'\"\%\_\q' )", kMysql);
  EXPECT_EQ(out.type, Cell::Type::kText);
  EXPECT_EQ(out.bytes, std::string("\0\b\n\r\t\x1a\\'\"\\%\\_q", 14));
  EXPECT_TRUE(out.in_scratch);
  // An even run of backslashes does not escape the closing quote; an odd one does.
  EXPECT_EQ(Decode(R"('a\\',)", kMysql).bytes, "a\\");
  EXPECT_EQ(Decode(R"('a\\\'b',)", kMysql).bytes, "a\\'b");
  EXPECT_EQ(Decode("'it''s',", kMysql).bytes, "it's");
  EXPECT_EQ(Decode(R"("say \"hi\"",)", kMysql).bytes, "say \"hi\"");
  EXPECT_EQ(Decode(R"("it""s",)", kMysql).bytes, "it\"s");
  // Raw bytes (a binary column dumped without --hex-blob) pass through.
  EXPECT_EQ(Decode("'\xff\x01\xc3',", kMysql).bytes, "\xff\x01\xc3");
}

// Issue 16.1: a run of n backslashes before a quote leaves the quote closing the string when n
// is even and escapes it when n is odd, whatever n; and a window that ends inside the run, or
// on the quote after it, never decides too early.
TEST(LiteralDecoder, MysqlBackslashRunsBeforeAQuoteByParity) {
  for (std::size_t n = 1; n <= 4; ++n) {
    const std::string run(n, '\\');
    const std::string text = "'C:" + run + "'),('zz')";
    const Out out = Decode(text, kMysql);
    if (n % 2 == 0) {
      EXPECT_EQ(out.bytes, "C:" + std::string(n / 2, '\\')) << n << " backslashes";
      EXPECT_EQ(out.consumed, 3 + n + 1) << n << " backslashes";  // up to the closing quote
    } else {
      EXPECT_EQ(out.bytes, "C:" + std::string(n / 2, '\\') + "'),(") << n << " backslashes";
      EXPECT_EQ(out.consumed, text.find("zz")) << n << " backslashes";
    }
    for (std::size_t cut = 3; cut <= 3 + n; ++cut) {
      EXPECT_TRUE(NeedsMore(std::string_view(text).substr(0, cut), kMysql))
          << n << " backslashes, window of " << cut << " bytes";
    }
  }
}

TEST(LiteralDecoder, DoubleQuotesAreNoStringInSqlite) {
  ExpectError("\"x\",", kSqlite, 0u, "expected a value");
}

TEST(LiteralDecoder, DecodedBytesAppendToScratch) {
  Cell cell;
  std::string scratch = "xyz";
  Shortfall need;
  const std::string_view text = "'a''b',";
  const Decoded d =
      DecodeLiteral(text.data(), text.data() + text.size(), true, kSqlite, cell, scratch, need);
  EXPECT_TRUE(d.in_scratch);
  EXPECT_EQ(scratch, "xyza'b");
  EXPECT_EQ(cell.bytes.data(), scratch.data() + 3);
  EXPECT_EQ(cell.bytes, "a'b");
}

TEST(LiteralDecoder, HexLiteralsAreBlobs) {
  for (Dialect d : {kSqlite, kMysql}) {
    ExpectBytes("X'00fF',", d, Cell::Type::kBlob, std::string_view("\x00\xff", 2));
    EXPECT_EQ(Decode("X'00fF',", d).consumed, 7u);
    ExpectBytes("x'',", d, Cell::Type::kBlob, "");
    ExpectBytes("0xA5ff,", d, Cell::Type::kBlob, "\xa5\xff");
    EXPECT_EQ(Decode("0xA5ff,", d).consumed, 6u);
  }
}

TEST(LiteralDecoder, OddHexDigitCounts) {
  // 0x.. is padded on the left, as MySQL reads 0xABC as 0x0ABC.
  EXPECT_EQ(Decode("0xABC,", kMysql).bytes, "\x0a\xbc");
  EXPECT_EQ(Decode("0x1)", kMysql).bytes, "\x01");
  // X'..' must have an even count; the error points at the first digit.
  ExpectError("X'ABC',", kMysql, 2u, "odd number of hex digits");
}

TEST(LiteralDecoder, NonHexDigitsAreErrorsAtTheDigit) {
  ExpectError("X'0G',", kSqlite, 3u, "an X'...' blob holds a non-hex character");
  ExpectError("0x0G,", kMysql, 3u, "a 0x... literal holds a non-hex character");
}

TEST(LiteralDecoder, MysqlIntroducers) {
  ExpectBytes("_binary 'a\\0b',", kMysql, Cell::Type::kBlob, std::string_view("a\0b", 3));
  EXPECT_EQ(Decode("_binary 'a\\0b',", kMysql).consumed, 14u);
  ExpectBytes("_utf8mb4 'x',", kMysql, Cell::Type::kText, "x");
  ExpectBytes("_BINARY 0x4142,", kMysql, Cell::Type::kBlob, "AB");
  ExpectBytes("_latin1 X'41',", kMysql, Cell::Type::kText, "A");
  // Errors inside the hex count from the introducer.
  EXPECT_EQ(DecodeError("_binary X'4',", kMysql).offset, 10u);
  ExpectError("_binary 12,", kMysql, 0u, "expected a value");
}

TEST(LiteralDecoder, MysqlBitLiterals) {
  const Out five = Decode("b'101',", kMysql);
  EXPECT_EQ(five.type, Cell::Type::kInteger);
  EXPECT_EQ(five.integer, 5);
  EXPECT_EQ(five.consumed, 6u);
  EXPECT_EQ(Decode("B'',", kMysql).integer, 0);
  EXPECT_EQ(Decode("b'" + std::string(63, '1') + "',", kMysql).integer,
            std::numeric_limits<int64_t>::max());
  ExpectError("b'1" + std::string(63, '0') + "',", kMysql, 2u, "above 2^63-1");
  ExpectError("b'102',", kMysql, 4u, "other than 0 and 1");
}

// Regression: a b'...' literal of more than 64 digits wrapped around, so b'1' followed by 64
// zeros read as 0. Leading zeros stay allowed, as in MySQL.
TEST(LiteralDecoder, BitLiteralsLongerThan64DigitsDoNotWrap) {
  ExpectError("b'1" + std::string(64, '0') + "',", kMysql, 2u, "above 2^63-1");
  ExpectError("b'1" + std::string(64, '0') + "1',", kMysql, 2u, "above 2^63-1");
  EXPECT_EQ(Decode("b'" + std::string(100, '0') + "101',", kMysql).integer, 5);
}

TEST(LiteralDecoder, SqliteExpressions) {
  const Out joined = Decode("'a'||char(10)||'b',", kSqlite);
  EXPECT_EQ(joined.type, Cell::Type::kText);
  EXPECT_EQ(joined.bytes, "a\nb");
  EXPECT_TRUE(joined.in_scratch);
  EXPECT_EQ(joined.consumed, 18u);
  const Out replaced = Decode("replace('a\\nb','\\n',char(10)) ,", kSqlite);
  EXPECT_EQ(replaced.bytes, "a\nb");
  EXPECT_EQ(replaced.consumed, 29u);  // the space before the ',' is not part of it
  EXPECT_EQ(Decode("unistr('x\\000ay'))", kSqlite).bytes, "x\ny");
  // The expression's own errors keep their offset within the literal.
  const SyntaxError e = DecodeError("char(10)||nope(1),", kSqlite);
  EXPECT_TRUE(Contains(e.problem, "'nope'")) << e.problem;
  try {
    Cell cell;
    std::string bytes;
    EvalSqliteExpression("char(10)||nope(1)", cell, bytes);
    ADD_FAILURE() << "no error";
  } catch (const SyntaxError& direct) {
    EXPECT_EQ(e.offset, direct.offset);
    EXPECT_GT(e.offset, 0u);
  }
}

// Regression (fuzz_dump, data/fuzz/dump/regression-char-of-huge-real): char() converted a real
// argument to int64 before checking its range, undefined behaviour for one beyond int64 (UBSan,
// as scripts/test runs the tests, stops on it). SQLite makes U+FFFD of it, and truncates a real
// within range.
TEST(LiteralDecoder, CharOfARealBeyondInt64IsTheReplacementCharacter) {
  for (std::string_view text :
       {"char(1e61),", "char(-1e61),", "char(1e999),", "char(1114112.0),"}) {
    ExpectBytes(text, kSqlite, Cell::Type::kText, "\xEF\xBF\xBD");
  }
  ExpectBytes("char(65.9,-0.5),", kSqlite, Cell::Type::kText, std::string_view("A\0", 2));
}

// Strings of every length to past the 64 bytes the decoder scans at once for a plain one, eight
// bytes at a time: plain, each ends at its closing quote, a slice of the input; a window cut
// anywhere up to that quote asks for more; a doubled quote (and in MySQL a backslash-escaped
// one) at every place is one quote of the value, wherever it falls among the eight-byte words.
TEST(LiteralDecoder, StringsOfEveryLengthEndAtTheirClosingQuote) {
  for (std::size_t n = 0; n <= 80; ++n) {
    std::string body;
    for (std::size_t i = 0; i < n; ++i) body.push_back(static_cast<char>('a' + i % 26));
    for (const Dialect dialect : {kMysql, kSqlite}) {
      const std::string text = "'" + body + "'),('after')";
      const Out out = Decode(text, dialect);
      EXPECT_EQ(out.bytes, body) << text;
      EXPECT_EQ(out.consumed, n + 2) << text;
      EXPECT_FALSE(out.in_scratch) << text;
      for (std::size_t cut = 1; cut <= n + 2; ++cut) {
        EXPECT_TRUE(NeedsMore(std::string_view(text).substr(0, cut), dialect))
            << cut << " of " << text;
      }
      for (std::size_t at = 0; at <= n; ++at) {
        const std::string want = body.substr(0, at) + "'" + body.substr(at);
        for (const char* escape : {"''", "\\'"}) {
          if (dialect == kSqlite && escape[0] == '\\') continue;
          const std::string escaped = "'" + body.substr(0, at) + escape + body.substr(at) + "'),(";
          const Out e = Decode(escaped, dialect);
          EXPECT_EQ(e.bytes, want) << escaped;
          EXPECT_EQ(e.consumed, escaped.size() - 3) << escaped;
          EXPECT_TRUE(e.in_scratch) << escaped;
        }
      }
    }
  }
}

TEST(LiteralDecoder, AWindowThatEndsInsideALiteralAsksForMore) {
  const std::pair<std::string_view, Dialect> cut_short[] = {
      {"123", kMysql},
      {"12.5e", kSqlite},
      {"NUL", kMysql},
      {"0x12", kMysql},
      {"X'12", kSqlite},
      {"b'10", kMysql},
      {"_binary ", kMysql},
      {"?", kMysql},
      // A closing quote at the end of the window may be the first of a doubled pair.
      {"'abc'", kMysql},
      {"'abc'", kSqlite},
      // SQLite: `||` joins more to the string.
      {"'abc'||'d'", kSqlite}};
  for (const auto& [text, dialect] : cut_short) EXPECT_TRUE(NeedsMore(text, dialect)) << text;
  EXPECT_FALSE(NeedsMore("'abc')", kMysql));
  EXPECT_FALSE(NeedsMore("'abc'||'d',", kSqlite));
  // At the end of the input a lone byte is an error, not a request for more.
  EXPECT_THROW(NeedsMore("?", kMysql, /*at_eof=*/true), SyntaxError);
}

TEST(LiteralDecoder, RunningOutInsideAStringNamesItsQuote) {
  const std::string_view text = "_binary 'abc\\'";
  Cell cell;
  std::string scratch;
  Shortfall need;
  EXPECT_EQ(
      DecodeLiteral(text.data(), text.data() + text.size(), false, kMysql, cell, scratch, need)
          .next,
      nullptr);
  EXPECT_EQ(need.at, text.data() + 8);
  EXPECT_STREQ(need.what, "a quoted string");

  Shortfall skip_need;
  EXPECT_EQ(SkipLiteral(text.data(), text.data() + text.size(), kMysql, skip_need), nullptr);
  EXPECT_EQ(skip_need.at, text.data() + 8);
}

TEST(LiteralDecoder, SkipLiteralFindsTheEndOfEveryForm) {
  // Decode() checks that SkipLiteral ends where DecodeLiteral does.
  Decode("'a''b',", kSqlite);
  Decode("'a'||'b',", kSqlite);
  Decode("char(65,66),", kSqlite);
  Decode(R"('a\'b',)", kMysql);
  Decode(R"("a\"b",)", kMysql);
  Decode("_binary 'x',", kMysql);
  Decode("X'00',", kMysql);
  Decode("b'1',", kMysql);
  Decode("-1.5e+3,", kMysql);
  for (Dialect d : {kSqlite, kMysql}) {
    Shortfall need;
    const std::string_view comma = ",1)";
    try {
      SkipLiteral(comma.data(), comma.data() + comma.size(), d, need);
      ADD_FAILURE() << "no error";
    } catch (const SyntaxError& e) {
      EXPECT_EQ(e.offset, 0u);
      EXPECT_TRUE(Contains(e.problem, "expected a value, found ',1)'")) << e.problem;
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::dump
