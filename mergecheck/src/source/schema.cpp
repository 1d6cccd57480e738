// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// AffinityOf: SQLite's column affinity rules, extended to the MySQL types SQLite does not know.

#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include "source/schema.h"

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The type's first word, before any '(' or space: "ENUM('a','b')" -> "ENUM".
std::string_view BaseName(std::string_view upper) {
  std::size_t start = 0;
  while (start < upper.size() && std::isspace(static_cast<unsigned char>(upper[start]))) ++start;
  std::size_t end = start;
  while (end < upper.size() && std::isalnum(static_cast<unsigned char>(upper[end]))) ++end;
  return upper.substr(start, end - start);
}

bool Has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

Affinity AffinityOf(std::string_view declared_type) {
  const std::string upper = Upper(declared_type);
  // MySQL types whose name SQLite's rules would misread: ENUM('point') contains "INT", and
  // BINARY/VARBINARY/JSON/SET would fall through to NUMERIC. MySQL compares ENUM, SET and JSON
  // as text and BINARY/VARBINARY as bytes.
  const std::string_view base = BaseName(upper);
  if (base == "ENUM" || base == "SET" || base == "JSON") return Affinity::kText;
  if (base == "BINARY" || base == "VARBINARY") return Affinity::kBlob;
  // https://www.sqlite.org/datatype3.html 3.1, in its order.
  if (Has(upper, "INT")) return Affinity::kInteger;
  if (Has(upper, "CHAR") || Has(upper, "CLOB") || Has(upper, "TEXT")) return Affinity::kText;
  if (Has(upper, "BLOB") || upper.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Affinity::kBlob;
  }
  if (Has(upper, "REAL") || Has(upper, "FLOA") || Has(upper, "DOUB")) return Affinity::kReal;
  return Affinity::kNumeric;
}

int FindColumn(const Table& table, std::string_view lower) {
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (AsciiLower(table.columns[i].name) == lower) return static_cast<int>(i);
  }
  return -1;
}

const std::string& KeyCollation(const Table& table, const Key& key, std::size_t i) {
  if (i < key.collations.size() && !key.collations[i].empty()) return key.collations[i];
  return table.columns[static_cast<std::size_t>(key.columns[i])].collation;
}

std::string DefaultCollationOf(std::string_view charset) {
  static constexpr std::pair<std::string_view, std::string_view> kDefaults[] = {
      {"utf8mb4", "utf8mb4_general_ci"}, {"utf8", "utf8mb3_general_ci"},
      {"utf8mb3", "utf8mb3_general_ci"}, {"latin1", "latin1_swedish_ci"},
      {"ascii", "ascii_general_ci"},     {"binary", "binary"},
      {"ucs2", "ucs2_general_ci"},       {"utf16", "utf16_general_ci"},
      {"utf32", "utf32_general_ci"}};
  for (const auto& [set, collation] : kDefaults) {
    if (EqualsIgnoreCase(set, charset)) return std::string(collation);
  }
  return "";
}

}  // namespace steadyflake::mergecheck
