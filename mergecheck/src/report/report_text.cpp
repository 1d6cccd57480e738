// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// FormatText: the report for people. The verdict is always the last line.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "check/collation.h"
#include "check/verdict.h"
#include "steadyflake/id_format.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// Conflicting keys shown per key; --json lists up to --limit.
constexpr std::size_t kShownConflicts = 10;

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

// "(1, 'a', x'00')": a composite key's values.
std::string Tuple(const std::vector<ReportValue>& row) {
  std::string out = "(";
  for (std::size_t c = 0; c < row.size(); ++c) {
    if (c > 0) out += ", ";
    out += Show(row[c]);
  }
  return out + ")";
}

std::string Columns(const std::vector<std::string>& columns) {
  std::string out = "(";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i];
  }
  return out + ")";
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

// The inputs, one line each.
void AppendInputs(const Report& report, std::string& out) {
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
}

// A key's line: counts, the collation it compares under, and what differs between A and B.
void AppendKeyLine(const KeyReport& k, std::string& out) {
  out += k.table + " " + Columns(k.columns) +
         (k.kind == KeyReport::Kind::kPrimary ? " primary key" : " unique") + ": A " +
         GroupThousands(k.rows_a) + ", B " + GroupThousands(k.rows_b) + ", overlap " +
         GroupThousands(k.overlap);
  if (k.overlap > 0) {
    // The differing first: they are the conflicts; identical rows a merge may skip.
    out += " (" + GroupThousands(k.differing) + " differ, " + GroupThousands(k.identical) +
           " identical)";
  }
  // The collation, unless it is plain bytes (SQLite's BINARY, MySQL's binary).
  bool bytes = true;
  for (const std::string& name : k.collations) {
    const Collation* c = Collation::Find(name);
    bytes = bytes && c != nullptr && c->bytewise();
  }
  if (!bytes) out += ", under " + JoinComma(k.collations);
  if (k.approximate) out += " (approximate: ICU's UCA 14)";
  out += "\n";
  if (!k.unknown_collations.empty()) {
    out += "  compared as bytes: collation" +
           std::string(k.unknown_collations.size() == 1 ? " " : "s ") +
           JoinComma(k.unknown_collations) + " unknown to this checker\n";
  }
  if (!k.collations_b.empty()) {
    out += "  collation differs: A " + JoinComma(k.collations) + ", B " +
           JoinComma(k.collations_b) + "; compared under A's, the merge target's\n";
  }
}

// The first conflicts of a key, decoded when they are IDs.
void AppendConflicts(const KeyReport& k, const Layout& layout, std::string& out) {
  const std::size_t shown = std::min(k.conflicts.size(), kShownConflicts);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& row = k.conflicts[i];
    std::string line = "    ";
    if (row.size() == 1) {
      line += Show(row[0]);
      if (k.id_use == KeyReport::IdUse::kAnalysed && row[0].type == ReportValue::Type::kInteger) {
        line += Decoded(row[0].text, layout);
      }
    } else {
      line += Tuple(row);
    }
    if (i < k.conflicts_identical.size() && k.conflicts_identical[i]) {
      line += "  (identical rows)";
    }
    // Under a collation, B's own value when its bytes differ: 'Alice' = 'alice'.
    if (i < k.conflicts_b.size() && !k.conflicts_b[i].empty()) {
      const auto& row_b = k.conflicts_b[i];
      line += " = " + (row_b.size() == 1 ? Show(row_b[0]) : Tuple(row_b)) + " under " +
              JoinComma(k.collations);
    }
    out += line + "\n";
  }
  if (k.overlap > shown) {
    out += "    ... " + GroupThousands(k.overlap - shown) + " more (--json lists up to --limit)\n";
  }
}

// The columns of B that refer to a key (the blast radius of remapping the overlapping values
// in B, references.h), and the key's legacy values.
void AppendReferences(const KeyReport& k, const Layout& layout, std::string& out) {
  for (const ReferenceReport& r : k.references) {
    out += "  referenced by " + r.table + "." + r.column + " (" + r.found;
    if (r.found == "inferred") {
      out += ": " + GroupThousands(r.distinct) + " distinct values, all among the key's " +
             GroupThousands(r.key_values);
    }
    out += "): " + GroupThousands(r.rows) + (r.rows == 1 ? " row" : " rows") +
           " hold an overlapping value";
    if (!r.also.empty()) {
      out += "; also fits " + JoinComma(r.also) + ": name the one with --refs";
    }
    out += "\n";
  }
  if (k.id_use == KeyReport::IdUse::kAnalysed && (k.legacy_a > 0 || k.legacy_b > 0)) {
    out += "  not IDs of layout " + layout.ToString() + " (legacy/foreign): A " +
           GroupThousands(k.legacy_a) + ", B " + GroupThousands(k.legacy_b) + "\n";
  }
}

// The server ids of each input, and which integer keys they come from and which not and why
// (docs/merging.md).
void AppendServerIds(const Report& report, const Layout& layout, std::string& out) {
  out += "\nserver ids in A: " + IdRanges(report.servers_a) + "\n";
  out += "server ids in B: " + IdRanges(report.servers_b) + "\n";
  out += "server ids in both: " + IdRanges(report.servers_shared) + "\n";
  // Which integer keys the server ids come from, and which not and why (docs/merging.md).
  std::string analysed;
  std::string legacy;  // one line for them all: a legacy database has dozens
  for (const KeyReport& k : report.keys) {
    const std::string key = k.table + " " + Columns(k.columns);
    switch (k.id_use) {
      case KeyReport::IdUse::kNotDecoded:
        break;
      case KeyReport::IdUse::kAnalysed:
        analysed += (analysed.empty() ? "" : ", ") + key;
        break;
      case KeyReport::IdUse::kLegacy: {
        const uint64_t values = k.legacy_a + k.legacy_b + k.ids_a + k.ids_b;
        legacy += (legacy.empty() ? "" : ", ") + key + " " +
                  GroupThousands(k.legacy_a + k.legacy_b) + " of " + GroupThousands(values);
        break;
      }
      case KeyReport::IdUse::kSkipped:
        out += "not analysed for server ids: " + key + ": " + k.id_reason;
        if (k.id_reason != "--not-id-column") {
          out += " (--id-column " + k.table + ":" + k.columns[0] + " analyses it)";
        }
        out += "\n";
        break;
    }
  }
  if (!legacy.empty()) {
    out += "legacy integers, no server ids (most values are not IDs of layout " +
           layout.ToString() + "): " + legacy + "\n";
  }
  out += "server ids from: " + (analysed.empty() ? std::string("no column") : analysed) + "\n";
}

// Tables or keys in one input only, and tables without keys.
void AppendDriftAndKeyless(const Report& report, std::string& out) {
  for (const Drift& d : report.drift) {
    const std::string where = d.only_in == "a" ? "A" : "B";
    if (d.columns.empty()) {
      out += "drift: table " + d.table + " only in " + where + "\n";
    } else {
      out += "drift: key " + d.table + " " + Columns(d.columns) + " only in " + where + "\n";
    }
  }
  for (const KeylessTable& k : report.keyless) {
    out += "keyless table " + k.table + " (a merge appends its rows): A " +
           GroupThousands(k.rows_a) + (k.rows_a == 1 ? " row" : " rows") + ", B " +
           GroupThousands(k.rows_b) + (k.rows_b == 1 ? " row" : " rows");
    if (k.in_both > 0) {
      out += "; " + GroupThousands(k.in_both) +
             (k.in_both == 1 ? " row is in both and would be twice in the merge"
                             : " rows are in both and would be twice in the merge");
    }
    out += "\n";
  }
}

void AppendVerdict(const Report& report, std::string& out) {
  uint64_t overlap = 0;
  uint64_t keys_overlapping = 0;
  uint64_t identical = 0;
  std::set<std::string> tables;
  for (const KeyReport& k : report.keys) {
    overlap += k.overlap;
    identical += k.identical;
    if (k.overlap > 0) {
      ++keys_overlapping;
      tables.insert(k.table);
    }
  }
  const uint64_t tables_overlapping = tables.size();
  switch (report.verdict) {
    case Report::Verdict::kSafe:
      out += "verdict: safe to merge\n";
      break;
    case Report::Verdict::kConflict:
      // Values, counted apart from the keys they are in: "4 values in 3 keys overlap".
      out.append("verdict: CONFLICT \xe2\x80\x94 ")
          .append(GroupThousands(overlap))
          .append(overlap == 1 ? " value in " : " values in ")
          .append(GroupThousands(keys_overlapping))
          .append(keys_overlapping == 1 ? " key" : " keys")
          .append(" (from ")
          .append(GroupThousands(tables_overlapping))
          .append(tables_overlapping == 1 ? " table)" : " tables)")
          .append(overlap == 1 ? " overlaps: " : " overlap: ")
          .append(GroupThousands(overlap - identical))
          .append(overlap - identical == 1 ? " row differs, " : " rows differ, ")
          .append(GroupThousands(identical))
          .append(" identical\n");
      break;
    case Report::Verdict::kRisk: {
      out += "verdict: RISK \xe2\x80\x94 ";
      for (std::size_t i = 0; i < report.risks.size(); ++i) {
        if (i > 0) out += "; ";
        out += report.risks[i];
      }
      out += "\n";
      break;
    }
  }
}

}  // namespace

std::string FormatText(const Report& report, const Layout& layout) {
  std::string out;
  AppendInputs(report, out);
  if (report.keys.empty()) out += "no key of a table in both inputs to compare\n";
  for (const KeyReport& k : report.keys) {
    AppendKeyLine(k, out);
    AppendConflicts(k, layout, out);
    AppendReferences(k, layout, out);
  }
  AppendServerIds(report, layout, out);
  AppendDriftAndKeyless(report, out);
  AppendVerdict(report, out);
  return out;
}

}  // namespace steadyflake::mergecheck

namespace steadyflake::mergecheck {

namespace {

// "<1 s", "12 s", "3 min 05 s", "1 h 02 min".
std::string Duration(double seconds) {
  if (seconds < 1) return "<1 s";
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  char text[48];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%llu s", static_cast<unsigned long long>(s));
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%llu min %02llu s", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(text, sizeof text, "%llu h %02llu min", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60));
  }
  return text;
}

}  // namespace

std::string FormatProgress(const Options::Progress (&inputs)[2], double elapsed_seconds) {
  std::string line;
  uint64_t read = 0;
  uint64_t size = 0;
  for (int i = 0; i < 2; ++i) {
    const Options::Progress& p = inputs[i];
    line += i == 0 ? "A " : " | B ";
    if (p.file_size > 0) {
      const uint64_t done = std::min(p.file_read, p.file_size);
      read += done;
      size += p.file_size;
      // Whole percent, rounded down, at most 99: 100% would claim the input is finished.
      const uint64_t percent = std::min<uint64_t>(99, done * 100 / p.file_size);
      line += std::to_string(percent) + "%";
    } else {
      line += GroupThousands(p.bytes >> 20) + " MB";
    }
    line.append(" ").append(GroupThousands(p.rows)).append(" rows");
  }
  if (size > 0 && read > 0 && elapsed_seconds >= 1 && read * 100 >= size) {
    const double share = static_cast<double>(read) / static_cast<double>(size);
    line += " | " + Duration(elapsed_seconds * (1 - share) / share) + " left";
  }
  return line;
}

}  // namespace steadyflake::mergecheck
