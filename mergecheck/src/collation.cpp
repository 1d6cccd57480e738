// Copyright 2026 The steadyflake Authors.

#include "collation.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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

// Decodes one UTF-8 character at the start of `s` (of `size` bytes): returns its length and
// sets `point`, or returns 0 when the bytes there are not well-formed UTF-8 (a lone
// continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut off).
std::size_t DecodeUtf8(const unsigned char* s, std::size_t size, uint32_t& point) {
  const unsigned char c = s[0];
  std::size_t length = 0;
  uint32_t min = 0;
  if (c < 0x80) {
    point = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    length = 2;
    point = c & 0x1Fu;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3;
    point = c & 0x0Fu;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    length = 4;
    point = c & 0x07u;
    min = 0x10000;
  } else {
    return 0;
  }
  if (size < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    point = point << 6 | (s[i] & 0x3Fu);
  }
  if (point < min || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) return 0;
  return length;
}

// The key of `text` under utf8mb4_general_ci: 3 bytes per character, 0 and its weight, or 1, 0
// and the byte for a byte that is not UTF-8.
void AppendGeneralCiKey(std::string_view text, std::string& out) {
  const std::array<uint16_t, 65536>& weights = GeneralCiWeights();
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t size = text.size();
  while (size > 0 && s[size - 1] == ' ') --size;  // PAD SPACE
  for (std::size_t i = 0; i < size;) {
    uint32_t point = 0;
    const std::size_t length = DecodeUtf8(s + i, size - i, point);
    if (length == 0) {
      out.push_back('\x01');
      out.push_back('\0');
      out.push_back(static_cast<char>(s[i]));
      ++i;
      continue;
    }
    const uint16_t weight = point <= 0xFFFF ? weights[point] : kAbovePlaneWeight;
    out.push_back('\0');
    out.push_back(static_cast<char>(weight >> 8));
    out.push_back(static_cast<char>(weight & 0xFF));
    i += length;
  }
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const Collation* Collation::Find(std::string_view name) {
  // MySQL's `binary` is found as BINARY: the same rule.
  static const std::array<Collation, 13> kKnown = {
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
  };
  for (const Collation& c : kKnown) {
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
  }
}

std::string DefaultCollationOf(std::string_view charset) {
  const std::string c = Lower(charset);
  if (c == "utf8mb4") return "utf8mb4_general_ci";
  if (c == "utf8" || c == "utf8mb3") return "utf8mb3_general_ci";
  if (c == "latin1") return "latin1_swedish_ci";
  if (c == "ascii") return "ascii_general_ci";
  if (c == "binary") return "binary";
  if (c == "ucs2") return "ucs2_general_ci";
  if (c == "utf16") return "utf16_general_ci";
  if (c == "utf32") return "utf32_general_ci";
  return "";
}

}  // namespace steadyflake::mergecheck
