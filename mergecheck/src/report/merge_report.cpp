// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// FormatMergeText and FormatMergeJson (steadyflake/mergecheck/merge.h).

#include <algorithm>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "steadyflake/mergecheck/merge.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

std::string Verdict(const MergeReport& report) {
  if (report.verified) {
    return report.dialect == "mysql" ? "written: run merge.sql on the server (it verifies itself)"
                                     : "merged and verified";
  }
  return "verification failed";
}

std::string Cell(uint64_t value, int width) {
  std::string text = GroupThousands(value);
  if (static_cast<int>(text.size()) < width) text.insert(0, width - text.size(), ' ');
  return text;
}

}  // namespace

std::string FormatMergeText(const MergeReport& report) {
  std::string out = "merge plan " + report.plan + " (" + report.dialect + ")\n";
  for (const std::string& note : report.notes) out += "note: " + note + "\n";
  if (!report.tables.empty()) {
    std::size_t width = 5;
    for (const MergeReport::Table& t : report.tables) width = std::max(width, t.name.size());
    std::string header = "table";
    header.resize(width, ' ');
    out += header + "         A         B        B'   dropped      held  replaced    merged\n";
    for (const MergeReport::Table& t : report.tables) {
      std::string name = t.name;
      name.resize(width, ' ');
      out += name + Cell(t.rows_a, 10) + Cell(t.rows_b, 10) + Cell(t.rows_b_after, 10) +
             Cell(t.dropped, 10) + Cell(t.held, 10) + Cell(t.replaced, 10) + Cell(t.merged, 10) +
             "\n";
    }
  }
  for (const MergeReport::Key& k : report.keys) {
    out += k.change + " " + k.table + "." + k.column + ": " + GroupThousands(k.entities) +
           " values, " + (k.references != 0 ? GroupThousands(k.references) + " references, " : "") +
           GroupThousands(k.rows) + " rows checked\n";
  }
  if (!report.verified) {
    out += "verification failed, nothing written:\n";
    for (const std::string& m : report.mismatches) out += "  " + m + "\n";
    if (report.more != 0) out += "  ... and " + GroupThousands(report.more) + " more\n";
    return out;
  }
  return out + Verdict(report) + ": " + report.out + "\n";
}

std::string FormatMergeJson(const MergeReport& report) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["plan"] = report.plan;
  doc["dialect"] = report.dialect;
  doc["out"] = report.out;
  doc["verdict"] = Verdict(report);
  doc["verified"] = report.verified;
  json tables = json::array();
  for (const MergeReport::Table& t : report.tables) {
    tables.push_back({{"table", t.name},
                      {"rows_a", t.rows_a},
                      {"rows_b", t.rows_b},
                      {"rows_b_rewritten", t.rows_b_after},
                      {"dropped", t.dropped},
                      {"held", t.held},
                      {"replaced", t.replaced},
                      {"merged", t.merged}});
  }
  doc["tables"] = std::move(tables);
  json keys = json::array();
  for (const MergeReport::Key& k : report.keys) {
    keys.push_back({{"change", k.change},
                    {"table", k.table},
                    {"column", k.column},
                    {"entities", k.entities},
                    {"references", k.references},
                    {"rows", k.rows}});
  }
  doc["keys"] = std::move(keys);
  doc["mismatches"] = report.mismatches;
  doc["more_mismatches"] = report.more;
  doc["notes"] = report.notes;
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace steadyflake::mergecheck
