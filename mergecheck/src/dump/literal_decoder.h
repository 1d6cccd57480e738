// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The literal decoder: one SQL literal as a dump writes it -> the Cell it stands for. Pure
// functions of the bytes and the dialect; nothing is kept between calls. No column affinity is
// applied (the checker does that):
//   NULL                          kNull
//   123, -5, -0, +7               kInteger (fits int64)
//   18446744073709551615          kBigInteger, digits without leading zeros (MySQL only; in a
//                                 sqlite3 dump an integer beyond int64 is a REAL, as SQLite
//                                 reads it: kReal). Below INT64_MIN: kReal.
//   1.5, 1e10, 12.50, 1e999       kReal: `real` = strtod(literal), `bytes` = the literal
//   'text' (and MySQL "text")     kText, escapes resolved ('' always; MySQL's backslash
//                                 escapes: AppendMysqlUnescaped in sql_text.h). Raw bytes of a
//                                 MySQL binary column dumped without --hex-blob arrive here
//                                 too, as kText, byte for byte.
//   X'00ff', 0xA5FF (MySQL)       kBlob, the decoded bytes (X'' and 0x: empty). An odd number
//                                 of digits is padded as MySQL does (0xABC = 0x0ABC) after 0x
//                                 and is an error in X'...'.
//   _binary '...'                 kBlob, escapes resolved; other _charset '...' introducers:
//                                 kText
//   b'101' (MySQL BIT)            kInteger
//   replace(...)/char(...)/       kText, evaluated as SQLite would (sqlite_expr.h)
//   unistr(...)/'a'||'b' (SQLite)
// A MySQL empty blob dumped with --hex-blob is written '' and arrives as kText "".
//
// Streaming: the literal starts at p and is read from [p, end), a window of the parser's buffer
// that may stop inside it. A function that needs bytes past `end` returns nullptr (more input
// needed); when it ran out inside a quoted string it records that in `need` (statement_scanner.h).
// A malformed literal throws SyntaxError (sql_text.h) whose offset counts from p.
//
// Where the bytes go: when they are a plain slice of the input (a string without escapes, a
// number's literal) cell.bytes points into [p, end). Bytes that had to be decoded (escapes, hex,
// expressions) are appended to `scratch`, cell.bytes points at them and Decoded::in_scratch
// says so: appending to `scratch` may move them, so a caller that decodes several values into
// one scratch re-points cell.bytes at scratch once it stops growing.
//
// The forms every row goes through (strings, integers, NULL, skipping a value) are defined
// inline here so the parser's row loop can inline them; the rest is in literal_decoder.cpp.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_LITERAL_DECODER_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_LITERAL_DECODER_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dump/sql_text.h"
#include "dump/statement_scanner.h"
#include "source/source.h"

namespace steadyflake::mergecheck::dump {

// How DecodeLiteral ended.
struct Decoded {
  const char* next = nullptr;  // after the literal; nullptr: more input needed
  bool in_scratch = false;     // cell.bytes are the bytes this call appended to `scratch`
};

// Decodes the literal at p into `cell` (every field of it). `at_eof`: nothing follows `end`.
Decoded DecodeLiteral(const char* p, const char* end, bool at_eof, Dialect dialect, Cell& cell,
                      std::string& scratch, Shortfall& need);

// Where the literal at p ends, without decoding it (any form DecodeLiteral reads; the checks
// are looser). Returns nullptr when more input is needed. Throws SyntaxError when no value
// starts at p.
const char* SkipLiteral(const char* p, const char* end, Dialect dialect, Shortfall& need);

// --- Implementation ---------------------------------------------------------------------------

namespace internal {

// The out-of-line parts of the inline functions below (literal_decoder.cpp).
Decoded DecodeRareLiteral(const char* p, const char* end, bool at_eof, Dialect dialect, Cell& cell,
                          std::string& scratch, Shortfall& need);
Decoded DecodeExpression(const char* p, const char* end, Cell& cell, std::string& scratch,
                         Shortfall& need);
Decoded DecodeHex(const char* start, const char* digits, const char* end, bool quoted, Cell& cell,
                  std::string& scratch);
const char* DecodeWideNumber(const char* p, const char* digits, const char* q, const char* end,
                             bool real, bool negative, Dialect dialect, Cell& cell);
const char* SkipRareLiteral(const char* p, const char* end, Dialect dialect, Shortfall& need);
[[noreturn]] void ThrowNotAValue(const char* p, const char* end);

// Where the number or word at p ends (p itself when none starts there), or nullptr.
inline const char* SkipWord(const char* p, const char* end) {
  const char* q = p;
  while (q < end &&
         (IsWordByte(static_cast<unsigned char>(*q)) || *q == '.' || *q == '-' || *q == '+')) {
    ++q;
  }
  return q == end ? nullptr : q;
}

// The first byte from q on, among the first kPlainScan, that is `a` or `b`; nullptr when there
// is none (or the machine is not little-endian). Sixteen bytes at a time where SSE2 is (every
// x86-64), then eight: a byte equal to `a` is a zero byte of word ^ a, and the lowest top bit of
// (x - 1s) & ~x is x's first zero byte.
inline constexpr size_t kPlainScan = 64;
inline const char* FindEitherByte(const char* q, const char* end, char a, char b) {
  const char* stop = end - q > static_cast<ptrdiff_t>(kPlainScan) ? q + kPlainScan : end;
#if defined(__SSE2__)
  const __m128i as16 = _mm_set1_epi8(a);
  const __m128i bs16 = _mm_set1_epi8(b);
  for (; stop - q >= 16; q += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    const auto found = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(bytes, as16), _mm_cmpeq_epi8(bytes, bs16))));
    if (found != 0) return q + std::countr_zero(found);
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    constexpr uint64_t kTops = kOnes * 0x80;
    const uint64_t as = kOnes * static_cast<unsigned char>(a);
    const uint64_t bs = kOnes * static_cast<unsigned char>(b);
    for (uint64_t word = 0; stop - q >= 8; q += 8) {
      std::memcpy(&word, q, 8);
      const uint64_t xa = word ^ as;
      const uint64_t xb = word ^ bs;
      const uint64_t found = (((xa - kOnes) & ~xa) | ((xb - kOnes) & ~xb)) & kTops;
      if (found != 0) return q + (std::countr_zero(found) >> 3);
    }
    for (; q < stop; ++q) {
      if (*q == a || *q == b) return q;
    }
  }
  return nullptr;
}

// A quoted string at p ('...', or MySQL "..."): kText, or `type` for an introducer's string.
inline Decoded DecodeString(const char* p, const char* end, Dialect dialect, Cell::Type type,
                            Cell& cell, std::string& scratch, Shortfall& need) {
  const bool mysql = dialect == Dialect::kMysql;
  const char quote = *p;
  // Most strings are short and plain: no escape before a closing quote that is not doubled
  // (nor, in SQLite's dialect, followed by `||`). One scan finds that; anything else is read
  // below.
  const char* close = FindEitherByte(p + 1, end, quote, mysql ? '\\' : quote);
  if (close != nullptr && *close == quote && end - close > 1 && close[1] != quote &&
      (mysql || close[1] != '|')) {
    cell = Cell{};
    cell.type = type;
    cell.bytes = std::string_view(p + 1, static_cast<size_t>(close - p - 1));
    return {close + 1, false};
  }
  const char* e = SkipQuoted(p, end, quote, mysql, need);
  if (e == nullptr) return {};
  if (!mysql && e < end && *e == '|') return DecodeExpression(p, end, cell, scratch, need);
  if (!mysql && e == end) return {};  // `||` may follow
  cell = Cell{};
  cell.type = type;
  const std::string_view body(p + 1, static_cast<size_t>(e - p - 2));
  const bool escaped = std::memchr(body.data(), quote, body.size()) != nullptr ||
                       (mysql && std::memchr(body.data(), '\\', body.size()) != nullptr);
  if (!escaped) {
    cell.bytes = body;
    return {e, false};
  }
  const size_t off = scratch.size();
  if (mysql) {
    AppendMysqlUnescaped(body, quote, scratch);
  } else {
    AppendUndoubled(body, quote, scratch);
  }
  cell.bytes = std::string_view(scratch.data() + off, scratch.size() - off);
  return {e, true};
}

// How many of the 8 bytes of `chunk` (loaded from memory on a little-endian machine) are ASCII
// digits before the first that is not. A byte is a digit when its high nibble is 3, and still is
// after adding 6 (not ':' to '?'). A carry of `+ 6` leaves a byte only when it is 0xFA or above,
// no digit, so the bytes up to the first other byte are tested right.
inline int LeadingDigits(uint64_t chunk) {
  const uint64_t other =
      ((chunk & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u) |
      (((chunk + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u);
  return other == 0 ? 8 : std::countr_zero(other) >> 3;
}

// SkipWord of a number at p (a digit or '-'): its digits as one word of eight where they end
// within it (a column no key wants, as a `level`, is skipped per row), else a byte at a time.
inline const char* SkipNumber(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    const char* q = p + (*p == '-' ? 1 : 0);
    if (end - q > 8) {
      uint64_t chunk = 0;
      std::memcpy(&chunk, q, 8);
      const int digits = LeadingDigits(chunk);
      const char after = q[digits];
      if (digits < 8 && !IsWordByte(static_cast<unsigned char>(after)) && after != '.' &&
          after != '-' && after != '+') {
        return q + digits;
      }
    }
  }
  return SkipWord(p, end);
}

// The value of the 8 ASCII digits of `chunk`, loaded from memory on a little-endian machine
// (the first digit in its lowest byte): pairs, then fours, then the eight, by multiplies.
inline uint64_t ValueOfEightDigits(uint64_t chunk) {
  chunk -= 0x3030303030303030u;
  chunk = chunk * 10 + (chunk >> 8);
  chunk = ((chunk & 0x000000FF000000FFu) * (100 + (uint64_t{1000000} << 32)) +
           ((chunk >> 16) & 0x000000FF000000FFu) * (1 + (uint64_t{10000} << 32))) >>
          32;
  return chunk & 0xFFFFFFFFu;
}

// A number at p (a digit, sign or '.').
inline const char* DecodeNumber(const char* p, const char* end, Dialect dialect, Cell& cell) {
  const char* q = p;
  bool negative = false;
  if (*q == '-' || *q == '+') {
    negative = *q == '-';
    ++q;
  }
  const char* digits = q;
  uint64_t magnitude = 0;
  bool overflow = false;
  if constexpr (std::endian::native == std::endian::little) {
    // Eight digits at a time while the magnitude cannot overflow (ids run to 19 digits): the
    // loop below, a digit at a time, was a tenth of a dump check's time.
    // The digits before the first other byte of the last eight are read the same way, after
    // '0's (a number of 12 digits is two steps, not one and four digits).
    constexpr uint64_t kEightCutoff = (UINT64_MAX - 99999999) / 100000000;
    constexpr uint64_t kPowers[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    uint64_t chunk = 0;
    while (end - q >= 8 && magnitude <= kEightCutoff) {
      std::memcpy(&chunk, q, 8);
      const int count = LeadingDigits(chunk);
      if (count == 8) {
        magnitude = magnitude * 100000000 + ValueOfEightDigits(chunk);
        q += 8;
        continue;
      }
      if (count > 0) {
        const int pad = 8 * (8 - count);  // bits of '0's before the digits
        chunk = (chunk << pad) | (0x3030303030303030u >> (64 - pad));
        magnitude = magnitude * kPowers[count] + ValueOfEightDigits(chunk);
        q += count;
      }
      break;
    }
  }
  while (q < end && static_cast<unsigned>(*q - '0') <= 9) {
    const uint64_t d = static_cast<uint64_t>(*q - '0');
    // magnitude * 10 + d > UINT64_MAX, with one compare while the magnitude is below the cutoff.
    constexpr uint64_t kCutoff = UINT64_MAX / 10;
    if (magnitude >= kCutoff && (magnitude > kCutoff || d > UINT64_MAX % 10)) overflow = true;
    magnitude = magnitude * 10 + d;
    ++q;
  }
  bool real = false;
  if (q < end && *q == '.') {
    real = true;
    ++q;
    while (q < end && static_cast<unsigned>(*q - '0') <= 9) ++q;
  }
  if (q < end && (*q == 'e' || *q == 'E')) {
    real = true;
    ++q;
    if (q < end && (*q == '-' || *q == '+')) ++q;
    while (q < end && static_cast<unsigned>(*q - '0') <= 9) ++q;
  }
  if (q == end) return nullptr;
  if (!real && !overflow && q != digits && !IsWordByte(static_cast<unsigned char>(*q))) {
    if (!negative && magnitude <= static_cast<uint64_t>(INT64_MAX)) {
      cell = Cell{};
      cell.type = Cell::Type::kInteger;
      cell.integer = static_cast<int64_t>(magnitude);
      return q;
    }
    if (negative && magnitude <= static_cast<uint64_t>(INT64_MAX) + 1) {
      cell = Cell{};
      cell.type = Cell::Type::kInteger;
      cell.integer = static_cast<int64_t>(0 - magnitude);
      return q;
    }
  }
  return DecodeWideNumber(p, digits, q, end, real, negative, dialect, cell);
}

}  // namespace internal

// Always inline: GCC otherwise calls it out of line from the parser's long row loop, which costs
// 2% more instructions per row of the MySQL benchmark.
[[gnu::always_inline]] inline Decoded DecodeLiteral(const char* p, const char* end, bool at_eof,
                                                    Dialect dialect, Cell& cell,
                                                    std::string& scratch, Shortfall& need) {
  const char c = *p;
  if (c == '\'' || (c == '"' && dialect == Dialect::kMysql)) {
    return internal::DecodeString(p, end, dialect, Cell::Type::kText, cell, scratch, need);
  }
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
    if (c == '0' && p + 1 < end && (p[1] == 'x' || p[1] == 'X')) {
      return internal::DecodeHex(p, p + 2, end, /*quoted=*/false, cell, scratch);
    }
    return {internal::DecodeNumber(p, end, dialect, cell), false};
  }
  if (c == 'N' || c == 'n') {
    if (end - p < 5) return {};
    if (EqualsIgnoreCase(std::string_view(p, 4), "NULL") &&
        !IsWordByte(static_cast<unsigned char>(p[4]))) {
      cell = Cell{};
      return {p + 4, false};
    }
  }
  return internal::DecodeRareLiteral(p, end, at_eof, dialect, cell, scratch, need);
}

inline const char* SkipLiteral(const char* p, const char* end, Dialect dialect, Shortfall& need) {
  const bool mysql = dialect == Dialect::kMysql;
  const char c = *p;
  if (c == '\'') {
    const char* e = SkipQuoted(p, end, '\'', mysql, need);
    if (e == nullptr || mysql || (e < end && *e != '|')) return e;
    return SkipExpression(p, end, mysql, need);  // 'a'||char(10)||'b'
  }
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'N' || c == 'n') {
    return internal::SkipWord(p, end);  // numbers, NULL
  }
  return internal::SkipRareLiteral(p, end, dialect, need);
}

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_LITERAL_DECODER_H_
