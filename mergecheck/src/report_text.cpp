// Copyright 2026 The steadyflake Authors.
//
// FormatText: the report for people. The verdict is always the last line.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "steadyflake/id_format.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// Conflicting keys shown per key; --json lists up to --limit.
constexpr std::size_t kShownConflicts = 10;
// Ranges of server ids shown per list.
constexpr std::size_t kShownRanges = 20;

// A value as SQL would write it, on one line: 'text' (non-printable bytes as \xNN), x'blob'.
std::string Show(const ReportValue& v) {
  switch (v.type) {
    case ReportValue::Type::kNull:
      return "NULL";
    case ReportValue::Type::kInteger:
    case ReportValue::Type::kReal:
      return v.text;
    case ReportValue::Type::kBlob:
      return BlobLiteral(v.text);
    case ReportValue::Type::kText: {
      std::string escaped;
      AppendEscaped(escaped, v.text, Escape::kControl);
      std::string out = "'";
      for (const char c : escaped) {
        out += c;
        if (c == '\'') out += '\'';  // SQL doubles a quote inside a string
      }
      return out + "'";
    }
  }
  return "";
}

std::string Columns(const std::vector<std::string>& columns) {
  std::string out = "(";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i];
  }
  return out + ")";
}

// "101-103, 205": ascending ids as ranges, at most kShownRanges of them.
std::string Ranges(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return "none";
  std::string out;
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (ranges == kShownRanges) {
      // Appended piece by piece: GCC 12 at -O3 flags "literal" + std::string as -Wrestrict, a
      // known false positive (GCC bug 105329).
      out.append(", ... (").append(GroupThousands(ids.size())).append(" in all)");
      break;
    }
    if (ranges > 0) out += ", ";
    out += std::to_string(ids[i]);
    if (j > i) out.append("-").append(std::to_string(ids[j]));
    ++ranges;
    i = j + 1;
  }
  return out;
}

// "  6710893571  2024-01-01T00:00:01.000Z server=7 seq=3" for an ID of the layout.
std::string Decoded(const std::string& decimal, const Layout& layout) {
  if (decimal.empty() || decimal[0] == '-' || decimal.size() > 19) return "";
  const uint64_t value = std::stoull(decimal);
  if (value > static_cast<uint64_t>(layout.max_id())) return "";
  const Id id = static_cast<Id>(value);
  std::string out = "  ";
  out += FormatDecoded(id, layout.Decode(id), DecodedFormat::kFields);
  return out;
}

}  // namespace

std::string FormatText(const Report& report, const Layout& layout) {
  std::string out;
  const char* labels[2] = {"A", "B"};
  for (int i = 0; i < 2; ++i) {
    const InputReport& in = report.inputs[i];
    out += std::string(labels[i]) + ": " + in.path + " (" + in.format + ", " +
           GroupThousands(in.tables) + (in.tables == 1 ? " table, " : " tables, ") +
           GroupThousands(in.rows) + (in.rows == 1 ? " row" : " rows");
    if (!in.reader.empty()) out += "; reader: " + in.reader;
    out += ")\n";
  }
  out += "\n";
  if (report.keys.empty()) out += "no key of a table in both inputs to compare\n";
  for (const KeyReport& k : report.keys) {
    out += k.table + " " + Columns(k.columns) +
           (k.kind == KeyReport::Kind::kPrimary ? " primary key" : " unique") + ": A " +
           GroupThousands(k.rows_a) + ", B " + GroupThousands(k.rows_b) + ", overlap " +
           GroupThousands(k.overlap) + "\n";
    const std::size_t shown = std::min(k.conflicts.size(), kShownConflicts);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& row = k.conflicts[i];
      std::string line = "    ";
      if (row.size() == 1) {
        line += Show(row[0]);
        if (k.decoded && row[0].type == ReportValue::Type::kInteger) {
          line += Decoded(row[0].text, layout);
        }
      } else {
        line += "(";
        for (std::size_t c = 0; c < row.size(); ++c) {
          if (c > 0) line += ", ";
          line += Show(row[c]);
        }
        line += ")";
      }
      out += line + "\n";
    }
    if (k.overlap > shown) {
      out +=
          "    ... " + GroupThousands(k.overlap - shown) + " more (--json lists up to --limit)\n";
    }
    if (k.decoded && (k.legacy_a > 0 || k.legacy_b > 0)) {
      out += "  not IDs of layout " + layout.ToString() + " (legacy/foreign): A " +
             GroupThousands(k.legacy_a) + ", B " + GroupThousands(k.legacy_b) + "\n";
    }
  }
  out += "\nserver ids in A: " + Ranges(report.servers_a) + "\n";
  out += "server ids in B: " + Ranges(report.servers_b) + "\n";
  out += "server ids in both: " + Ranges(report.servers_shared) + "\n";
  for (const Drift& d : report.drift) {
    const std::string where = d.only_in == "a" ? "A" : "B";
    if (d.columns.empty()) {
      out += "drift: table " + d.table + " only in " + where + "\n";
    } else {
      out += "drift: key " + d.table + " " + Columns(d.columns) + " only in " + where + "\n";
    }
  }
  uint64_t overlap = 0;
  for (const KeyReport& k : report.keys) overlap += k.overlap;
  switch (report.verdict) {
    case Report::Verdict::kSafe:
      out += "verdict: safe to merge\n";
      break;
    case Report::Verdict::kConflict:
      out += "verdict: CONFLICT \xe2\x80\x94 " + GroupThousands(overlap) +
             (overlap == 1 ? " key overlaps\n" : " keys overlap\n");
      break;
    case Report::Verdict::kRisk: {
      const auto& shared = report.servers_shared;
      out += "verdict: RISK \xe2\x80\x94 server id" + std::string(shared.size() == 1 ? " " : "s ") +
             Ranges(shared) + (shared.size() == 1 ? " issues" : " issue") + " IDs in both shards\n";
      break;
    }
  }
  return out;
}

}  // namespace steadyflake::mergecheck
