// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "check/collation.h"

#include <unicode/ucol.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {
namespace {

// utf8mb4_general_ci's weight of each code point of the Basic Multilingual Plane.
const std::array<uint16_t, 65536>& GeneralCiWeights() {
  static const std::array<uint16_t, 65536>* const table = [] {
    struct Entry {
      uint16_t point;
      uint16_t weight;
    };
    static constexpr Entry kExceptions[] = {
#include "utf8mb4_general_ci.inc"
    };
    auto* weights = new std::array<uint16_t, 65536>;
    for (std::size_t i = 0; i < weights->size(); ++i) (*weights)[i] = static_cast<uint16_t>(i);
    for (const Entry& e : kExceptions) (*weights)[e.point] = e.weight;
    return weights;
  }();
  return *table;
}

// What every character above U+FFFF weighs under utf8mb4_general_ci (checked by the script
// that generates the table).
constexpr uint16_t kAbovePlaneWeight = 0xFFFD;

// utf8mb4_unicode_ci's weights (UCA 4.0.0) of the code points of the Basic Multilingual Plane
// that do not weigh UCA's implicit weights: `at[point]` is (offset into `pool` << 4 | count),
// or kImplicit.
struct UnicodeCiTable {
  static constexpr uint32_t kImplicit = 0xFFFFFFFF;
  std::array<uint32_t, 65536> at;
  std::vector<uint16_t> pool;
};

const UnicodeCiTable& UnicodeCiWeights() {
  static const UnicodeCiTable* const table = [] {
// One string literal of 200 KB: clang's -Wpedantic warns past C++'s minimum of 64 KB, which
// both compilers exceed by far.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
    static constexpr char kEntries[] =
#include "utf8mb4_unicode_ci.inc"
        ;
#pragma GCC diagnostic pop
    auto* t = new UnicodeCiTable;
    t->at.fill(UnicodeCiTable::kImplicit);
    const auto hex = [](const char* p, int digits) {
      uint32_t value = 0;
      for (int i = 0; i < digits; ++i) {
        const char c = p[i];
        value = value << 4 | static_cast<uint32_t>(c <= '9' ? c - '0' : c - 'A' + 10);
      }
      return value;
    };
    // Entries: "CCCC" (code point), n (one hex digit), n weights "WWWW".
    for (const char* p = kEntries; *p != '\0';) {
      const uint32_t point = hex(p, 4);
      const uint32_t count = hex(p + 4, 1);
      p += 5;
      t->at[point] = static_cast<uint32_t>(t->pool.size()) << 4 | count;
      for (uint32_t i = 0; i < count; ++i, p += 4) {
        t->pool.push_back(static_cast<uint16_t>(hex(p, 4)));
      }
    }
    return t;
  }();
  return *table;
}

// Whether `weight` is a one-byte unit of a key (AppendWeight): from 1 to 0x7F, what an ASCII
// character weighs under general_ci. The ASCII path (MakeGeneralCiAscii) asks the same, so that
// both paths give a text the same key.
constexpr bool IsOneByteUnit(uint16_t weight) { return weight - 1U < 0x7FU; }

// Appends one unit of a key: a weight from 1 to 0x7F as its one byte (what an ASCII character
// weighs under general_ci, so such a key is as long as its text), any other as 0xFE and its two
// bytes. The units are prefix-free (a unit's first byte says its length), so two keys are equal
// exactly when their units are.
void AppendWeight(uint16_t weight, std::string& out) {
  if (IsOneByteUnit(weight)) {
    out.push_back(static_cast<char>(weight));
    return;
  }
  out.push_back('\xFE');
  out.push_back(static_cast<char>(weight >> 8));
  out.push_back(static_cast<char>(weight & 0xFF));
}

// The unit of a byte that is not part of UTF-8: 0xFF and the byte, unlike any weight's.
void AppendByteUnit(uint8_t byte, std::string& out) {
  out.push_back('\xFF');
  out.push_back(static_cast<char>(byte));
}

// The key of `text` under a collation of per-character weights with PAD SPACE (MariaDB's
// utf8mb4_general_ci and utf8mb4_unicode_ci): the weights of its characters, each a unit
// (AppendWeight), without the trailing units that weigh what a space weighs (`space`): a
// shorter string compares as if padded with spaces. `weigh(point, unit)` calls `unit(weight)`
// for each weight of one character. Each byte of a sequence that is not UTF-8 (ICU's U8_NEXT
// says which: overlong forms, surrogates, cut-off sequences; a column MySQL would have refused)
// is a unit of its own (AppendByteUnit).
template <typename Weigh>
void AppendWeightedKey(std::string_view text, uint16_t space, Weigh weigh, std::string& out) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto size = static_cast<int32_t>(text.size());
  std::size_t keep = out.size();  // the key without its trailing space units
  const auto unit = [&](uint16_t weight) {
    AppendWeight(weight, out);
    if (weight != space) keep = out.size();
  };
  for (int32_t i = 0; i < size;) {
    const int32_t start = i;
    UChar32 point = 0;
    U8_NEXT(s, i, size, point);
    if (point < 0) {
      for (int32_t b = start; b < i; ++b) AppendByteUnit(s[b], out);
      keep = out.size();
      continue;
    }
    weigh(static_cast<uint32_t>(point), unit);
  }
  out.resize(keep);
}

// Each byte's one-byte unit under general_ci (AppendWeight), or 0 for a byte that has none: one
// above 0x7F (not ASCII) or one that weighs 0 (NUL). And whether those units are ASCII's
// capitals: each letter a-z weighs its capital and every other byte from 1 to 0x7F itself
// (MariaDB's table says so; checked once), so that eight bytes' units are found at once
// (UpperCaseAscii).
struct GeneralCiAscii {
  std::array<uint8_t, 256> units{};
  bool capitals = true;
};

GeneralCiAscii MakeGeneralCiAscii() {
  const std::array<uint16_t, 65536>& weights = GeneralCiWeights();
  GeneralCiAscii ascii;
  for (std::size_t c = 0; c < 0x80; ++c) {
    if (IsOneByteUnit(weights[c])) ascii.units[c] = static_cast<uint8_t>(weights[c]);
    if (c > 0 && ascii.units[c] != (c >= 'a' && c <= 'z' ? c - 0x20 : c)) ascii.capitals = false;
  }
  return ascii;
}

const GeneralCiAscii& GeneralCiAsciiTable() {
  static const GeneralCiAscii kAscii = MakeGeneralCiAscii();
  return kAscii;
}

// Eight bytes of text, each from 1 to 0x7F, made capitals in place; false, `word` unchanged, when
// some byte is NUL or above 0x7F. Per byte, without carries between bytes: adding 0x80 - 'a'
// sets a byte's top bit when it is 'a' or above, adding 0x80 - '{' when it is above 'z'.
bool UpperCaseAscii(uint64_t& word) {
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kTops = kOnes * 0x80;
  if ((((word - kOnes) | word) & kTops) != 0) return false;  // a NUL borrows; a top bit is set
  const uint64_t from_a = word + kOnes * (0x80 - 'a');
  const uint64_t above_z = word + kOnes * (0x80 - 'z' - 1);
  word -= (from_a & ~above_z & kTops) >> 2;  // 0x80 >> 2: the 0x20 between a letter's cases
  return true;
}

#if defined(__SSE2__)
// UpperCaseAscii for the 16 bytes at `from`, written to `to`: false, nothing written, when some
// byte is NUL or above 0x7F. The bytes compare as signed: below 0x80 they are positive.
bool UpperCaseAscii16(const char* from, char* to) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
  const __m128i nul = _mm_cmpeq_epi8(bytes, _mm_setzero_si128());
  if (_mm_movemask_epi8(_mm_or_si128(bytes, nul)) != 0) return false;  // a top bit, or a NUL
  const __m128i small = _mm_and_si128(_mm_cmpgt_epi8(bytes, _mm_set1_epi8('a' - 1)),
                                      _mm_cmplt_epi8(bytes, _mm_set1_epi8('z' + 1)));
  const __m128i upper = _mm_sub_epi8(bytes, _mm_and_si128(small, _mm_set1_epi8(0x20)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to), upper);
  return true;
}
#endif

// The key of `text` under general_ci, as AppendWeightedKey makes it, when each of its bytes is a
// character of a one-byte unit (ASCII but NUL): the units written to `key` (room for the text's
// size) at once, eight at a time where they are capitals, without the trailing ones that weigh a
// space; returns the key's length. Names and ids are ASCII far more often than not, and then
// weighing needs no UTF-8 decoding and no growth per unit. Collation::kNoKeyInto, with what was
// written to `key` meaningless, for any other text.
std::size_t GeneralCiAsciiKey(std::string_view text, char* key) {
  const GeneralCiAscii& ascii = GeneralCiAsciiTable();
  const std::array<uint8_t, 256>& units = ascii.units;
  const std::size_t size = text.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time where SSE2 is (every x86-64), the last ones as the last sixteen.
  if (ascii.capitals && size >= 16) {
    for (; i + 16 <= size; i += 16) {
      if (!UpperCaseAscii16(text.data() + i, key + i)) break;
    }
    if (i < size && i + 16 > size && UpperCaseAscii16(text.data() + size - 16, key + size - 16)) {
      i = size;
    }
  }
#endif
  if (ascii.capitals && size - i >= 8) {
    uint64_t word = 0;
    for (; i + 8 <= size; i += 8) {
      std::memcpy(&word, text.data() + i, 8);
      if (!UpperCaseAscii(word)) break;  // the loop below finds the byte
      std::memcpy(key + i, &word, 8);
    }
    // The last bytes, as the last eight: those they share with the word before weigh the same.
    if (i < size && i + 8 > size) {
      std::memcpy(&word, text.data() + size - 8, 8);
      if (UpperCaseAscii(word)) {
        std::memcpy(key + size - 8, &word, 8);
        i = size;
      }
    }
  }
  for (; i < size; ++i) {
    const uint8_t u = units[static_cast<unsigned char>(text[i])];
    if (u == 0) return Collation::kNoKeyInto;  // no one-byte unit: the general path weighs it
    key[i] = static_cast<char>(u);
  }
  const auto space = static_cast<char>(units[' ']);  // a space's weight, 0x20: a one-byte unit
  std::size_t n = size;
  while (n > 0 && key[n - 1] == space) --n;
  return n;
}

// GeneralCiAsciiKey appended to `out`; false, with `out` as it was, for text it does not weigh.
bool AppendGeneralCiAsciiKey(std::string_view text, std::string& out) {
  const std::size_t at = out.size();
  out.resize(at + text.size());
  const std::size_t n = GeneralCiAsciiKey(text, out.data() + at);
  out.resize(n == Collation::kNoKeyInto ? at : at + n);
  return n != Collation::kNoKeyInto;
}

void AppendGeneralCiKey(std::string_view text, std::string& out) {
  if (AppendGeneralCiAsciiKey(text, out)) return;
  const std::array<uint16_t, 65536>& weights = GeneralCiWeights();
  AppendWeightedKey(
      text, weights[' '],
      [&](uint32_t point, const auto& unit) {
        unit(point <= 0xFFFF ? weights[point] : kAbovePlaneWeight);
      },
      out);
}

void AppendUnicodeCiKey(std::string_view text, std::string& out) {
  const UnicodeCiTable& table = UnicodeCiWeights();
  AppendWeightedKey(
      text, 0x0209,  // a space's weight in UCA 4.0.0 (also NO-BREAK SPACE's, U+3000's...)
      [&](uint32_t point, const auto& unit) {
        if (point > 0xFFFF) {
          unit(kAbovePlaneWeight);
          return;
        }
        const uint32_t at = table.at[point];
        if (at == UnicodeCiTable::kImplicit) {
          // UCA's implicit weights: CJK ideographs from 0xFB40, everything else from 0xFBC0.
          const bool han =
              (point >= 0x4E00 && point <= 0x9FA5) || (point >= 0xF900 && point <= 0xFAFF);
          unit(static_cast<uint16_t>((han ? 0xFB40 : 0xFBC0) + (point >> 15)));
          unit(static_cast<uint16_t>((point & 0x7FFF) | 0x8000));
          return;
        }
        for (uint32_t i = 0; i < (at & 0xF); ++i) unit(table.pool[(at >> 4) + i]);
      },
      out);
}

// ICU's root collator at `strength` (1-3), opened once and shared: ucol_getSortKey takes a
// const collator and is safe from several threads at once.
const UCollator* IcuCollator(int strength) {
  const auto open = [](UCollationStrength level) {
    UErrorCode status = U_ZERO_ERROR;
    UCollator* collator = ucol_open("", &status);
    if (U_FAILURE(status)) return static_cast<UCollator*>(nullptr);
    ucol_setStrength(collator, level);
    return collator;
  };
  static const UCollator* const kPrimary = open(UCOL_PRIMARY);
  static const UCollator* const kSecondary = open(UCOL_SECONDARY);
  static const UCollator* const kTertiary = open(UCOL_TERTIARY);
  return strength <= 1 ? kPrimary : strength == 2 ? kSecondary : kTertiary;
}

}  // namespace

std::span<const Collation> Collation::All() {
  // MySQL's `binary` is found as BINARY: the same rule.
  static const std::array<Collation, 25> kKnown = {
      Collation("BINARY", Rule::kBytes),
      Collation("NOCASE", Rule::kAsciiNoCase),
      Collation("RTRIM", Rule::kPadSpace),
      Collation("utf8mb4_bin", Rule::kPadSpace),
      Collation("utf8mb3_bin", Rule::kPadSpace),
      Collation("utf8_bin", Rule::kPadSpace),
      Collation("latin1_bin", Rule::kPadSpace),
      Collation("ascii_bin", Rule::kPadSpace),
      Collation("utf8mb4_nopad_bin", Rule::kBytes),
      Collation("utf8mb4_0900_bin", Rule::kBytes),
      Collation("utf8mb4_general_ci", Rule::kGeneralCi),
      Collation("utf8mb3_general_ci", Rule::kGeneralCi),
      Collation("utf8_general_ci", Rule::kGeneralCi),
      Collation("utf8mb4_unicode_ci", Rule::kUnicodeCi),
      Collation("utf8mb3_unicode_ci", Rule::kUnicodeCi),
      Collation("utf8_unicode_ci", Rule::kUnicodeCi),
      Collation("utf8mb4_0900_ai_ci", Rule::kIcu, 1, false),
      Collation("utf8mb4_0900_as_ci", Rule::kIcu, 2, false),
      Collation("utf8mb4_0900_as_cs", Rule::kIcu, 3, false),
      Collation("utf8mb4_uca1400_ai_ci", Rule::kIcu, 1, true),
      Collation("utf8mb4_uca1400_as_ci", Rule::kIcu, 2, true),
      Collation("utf8mb4_uca1400_as_cs", Rule::kIcu, 3, true),
      Collation("utf8mb4_uca1400_nopad_ai_ci", Rule::kIcu, 1, false),
      Collation("utf8mb4_uca1400_nopad_as_ci", Rule::kIcu, 2, false),
      Collation("utf8mb4_uca1400_nopad_as_cs", Rule::kIcu, 3, false),
  };
  return kKnown;
}

const Collation* Collation::Find(std::string_view name) {
  for (const Collation& c : All()) {
    if (EqualsIgnoreCase(c.name(), name)) return &c;
  }
  return nullptr;
}

void Collation::AppendKey(std::string_view text, std::string& out) const {
  switch (rule_) {
    case Rule::kBytes:
      out.append(text);
      return;
    case Rule::kPadSpace:
      while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
      out.append(text);
      return;
    case Rule::kAsciiNoCase:
      for (const char c : text) out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
      return;
    case Rule::kGeneralCi:
      AppendGeneralCiKey(text, out);
      return;
    case Rule::kUnicodeCi:
      AppendUnicodeCiKey(text, out);
      return;
    case Rule::kIcu:
      AppendIcuKey(text, out);
      return;
  }
}

std::size_t Collation::KeyInto(std::string_view text, char* out) const {
  switch (rule_) {
    case Rule::kBytes:
      break;
    case Rule::kPadSpace:
      while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
      break;
    case Rule::kAsciiNoCase:
      for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        out[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
      }
      return text.size();
    case Rule::kGeneralCi:
      return GeneralCiAsciiKey(text, out);
    case Rule::kUnicodeCi:
    case Rule::kIcu:
      return kNoKeyInto;
  }
  if (!text.empty()) std::memcpy(out, text.data(), text.size());
  return text.size();
}

void Collation::AppendIcuKey(std::string_view text, std::string& out) const {
  // UTF-16 for ICU; a byte sequence that is not UTF-8 becomes U+FFFD.
  std::u16string utf16(text.size(), u'\0');
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8WithSub(utf16.data(), static_cast<int32_t>(utf16.size()), &length, text.data(),
                       static_cast<int32_t>(text.size()), 0xFFFD, nullptr, &status);
  const UCollator* collator = IcuCollator(strength_);
  if (U_FAILURE(status) || collator == nullptr) {
    out.append(text);  // cannot happen for a buffer as long as the text; compare the bytes
    return;
  }
  if (pad_) {
    // PAD SPACE as MariaDB pads: trailing characters equal to a space at this strength (a
    // space, NO-BREAK SPACE, U+3000 ...) are ignored.
    static constexpr char16_t kSpace[] = u" ";
    while (length > 0) {
      const int32_t units = length >= 2 &&
                                    U16_IS_TRAIL(utf16[static_cast<std::size_t>(length - 1)]) &&
                                    U16_IS_LEAD(utf16[static_cast<std::size_t>(length - 2)])
                                ? 2
                                : 1;
      if (ucol_strcoll(collator, utf16.data() + length - units, units, kSpace, 1) != UCOL_EQUAL) {
        break;
      }
      length -= units;
    }
  }
  uint8_t buffer[512];
  int32_t size = ucol_getSortKey(collator, utf16.data(), length, buffer, sizeof buffer);
  if (size <= static_cast<int32_t>(sizeof buffer)) {
    out.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(size));
    return;
  }
  std::string key(static_cast<std::size_t>(size), '\0');
  size =
      ucol_getSortKey(collator, utf16.data(), length, reinterpret_cast<uint8_t*>(key.data()), size);
  out.append(key.data(), static_cast<std::size_t>(size));
}

}  // namespace steadyflake::mergecheck
