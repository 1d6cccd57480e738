// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Writer (sql_writer.h): literals and statements of rewrite-b.sql in B's dialect.

#include "plan/sql_writer.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

constexpr std::size_t kRowsPerInsert = 500;

bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    std::size_t n = 0;
    if (c < 0x80) {
      n = 0;
    } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      n = 1;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      n = 3;
    } else {
      return false;
    }
    if (i + n >= s.size() && n != 0) return false;  // cut short
    for (std::size_t k = 1; k <= n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n + 1;
  }
  return true;
}

}  // namespace

std::string Writer::Name(std::string_view name) const {
  const char q = mysql_ ? '`' : '"';
  std::string out(1, q);
  for (const char c : name) {
    out += c;
    if (c == q) out += q;
  }
  return out + q;
}

std::string Writer::Text(std::string_view bytes) const {
  std::string out;
  if (!mysql_ && ValidUtf8(bytes)) {
    out = "'";
    for (const char c : bytes) {
      out += c;
      if (c == '\'') out += '\'';
    }
    return out + "'";
  }
  out = "X'";
  AppendHex(out, bytes);
  out += "'";
  return mysql_ ? out : "CAST(" + out + " AS TEXT)";
}

std::string Writer::Value(const ReportValue& v) const {
  switch (v.type) {
    case ReportValue::Type::kNull:
      return "NULL";
    case ReportValue::Type::kInteger:
    case ReportValue::Type::kReal:
      return v.text;
    case ReportValue::Type::kText:
      return Text(v.text);
    case ReportValue::Type::kBlob: {
      std::string out = "X'";
      AppendHex(out, v.text);
      return out + "'";
    }
  }
  return "NULL";
}

void Writer::Insert(std::string& out, const std::string& table,
                    const std::vector<std::string>& rows) const {
  for (std::size_t i = 0; i < rows.size(); i += kRowsPerInsert) {
    out += "INSERT INTO " + table + " VALUES\n";
    const std::size_t end = std::min(rows.size(), i + kRowsPerInsert);
    for (std::size_t j = i; j < end; ++j) out += "  " + rows[j] + (j + 1 < end ? ",\n" : ";\n");
  }
}

void Writer::TempKeys(std::string& out, const std::string& table, std::size_t width,
                      const std::vector<std::vector<ReportValue>>& keys) const {
  std::string columns;
  for (std::size_t c = 0; c < width; ++c) {
    std::string type;
    if (mysql_) {
      bool integers = true;
      std::size_t longest = 1;
      for (const auto& row : keys) {
        integers = integers && row[c].type == ReportValue::Type::kInteger;
        longest = std::max(longest, row[c].text.size());
      }
      type = integers ? " DECIMAL(20, 0)" : " VARBINARY(" + std::to_string(longest) + ")";
    }
    columns += (c ? ", k" : "k") + std::to_string(c + 1) + type;
  }
  out += std::string(mysql_ ? "CREATE TEMPORARY TABLE " : "CREATE TEMP TABLE ") + table + " (" +
         columns + ");\n";
  std::vector<std::string> rows;
  for (const auto& row : keys) {
    std::string r = "(";
    for (std::size_t c = 0; c < row.size(); ++c) r += (c ? ", " : "") + Value(row[c]);
    rows.push_back(r + ")");
  }
  Insert(out, temp() + table, rows);
}

}  // namespace steadyflake::mergecheck
