// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// FormatJson: the report as one JSON document, documented in docs/merging.md.

#include <nlohmann/json.hpp>

#include <string>

#include "check/verdict.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

using nlohmann::json;

// Integers (which may exceed 2^63 - 1) and reals as strings, so no JSON reader rounds them;
// blobs as "x'hex'"; NULL as null.
json ToJson(const ReportValue& v) {
  switch (v.type) {
    case ReportValue::Type::kNull:
      return nullptr;
    case ReportValue::Type::kInteger:
    case ReportValue::Type::kReal:
    case ReportValue::Type::kText:
      return v.text;
    case ReportValue::Type::kBlob:
      return BlobLiteral(v.text);
  }
  return nullptr;
}

const char* VerdictName(Report::Verdict verdict) {
  switch (verdict) {
    case Report::Verdict::kSafe:
      return "safe";
    case Report::Verdict::kConflict:
      return "conflict";
    case Report::Verdict::kRisk:
      return "risk";
  }
  return "safe";
}

const char* IdUseName(KeyReport::IdUse use) {
  switch (use) {
    case KeyReport::IdUse::kAnalysed:
      return "analysed";
    case KeyReport::IdUse::kLegacy:
      return "legacy";
    case KeyReport::IdUse::kSkipped:
    case KeyReport::IdUse::kNotDecoded:
      break;
  }
  return "skipped";
}

}  // namespace

std::string FormatJson(const Report& report) {
  json doc;
  doc["verdict"] = VerdictName(report.verdict);
  doc["risks"] = report.risks;
  doc["inputs"] = json::array();
  for (const InputReport& in : report.inputs) {
    doc["inputs"].push_back({{"path", in.path},
                             {"format", in.format},
                             {"reader", in.reader},
                             {"tables", in.tables},
                             {"rows", in.rows},
                             {"bytes", in.bytes}});
  }
  doc["keys"] = json::array();
  uint64_t legacy[2] = {0, 0};
  // The integer keys that gave server ids, those judged legacy and those skipped.
  json id_columns = {
      {"analysed", json::array()}, {"legacy", json::array()}, {"skipped", json::array()}};
  for (const KeyReport& k : report.keys) {
    json conflicts = json::array();
    for (const auto& row : k.conflicts) {
      json values = json::array();
      for (const ReportValue& v : row) values.push_back(ToJson(v));
      conflicts.push_back(std::move(values));
    }
    json key = {{"table", k.table},
                {"columns", k.columns},
                {"kind", k.kind == KeyReport::Kind::kPrimary ? "primary" : "unique"},
                {"rows_a", k.rows_a},
                {"rows_b", k.rows_b},
                {"overlap", k.overlap},
                {"conflicts", std::move(conflicts)},
                {"identical", k.identical},
                {"differing", k.differing},
                {"conflicts_identical", k.conflicts_identical},
                {"decoded", k.decoded},
                {"collation", nullptr},
                {"approximate", k.approximate}};
    if (!k.collations.empty()) key["collation"] = JoinComma(k.collations);
    if (!k.conflicts_b.empty()) {
      json in_b = json::array();
      for (const auto& row : k.conflicts_b) {
        if (row.empty()) {
          in_b.push_back(nullptr);
          continue;
        }
        json values = json::array();
        for (const ReportValue& v : row) values.push_back(ToJson(v));
        in_b.push_back(std::move(values));
      }
      key["conflicts_b"] = std::move(in_b);
    }
    if (!k.collations_b.empty()) key["collation_b"] = JoinComma(k.collations_b);
    if (!k.unknown_collations.empty()) key["unknown_collations"] = k.unknown_collations;
    json references = json::array();
    for (const ReferenceReport& r : k.references) {
      json ref = {{"table", r.table}, {"column", r.column}, {"found", r.found}, {"rows", r.rows}};
      if (r.found == "inferred") {
        ref["distinct"] = r.distinct;
        ref["key_values"] = r.key_values;
      }
      if (!r.also.empty()) ref["also"] = r.also;
      references.push_back(std::move(ref));
    }
    key["references"] = std::move(references);
    key["id_use"] = nullptr;
    if (k.decoded) {
      key["ids_a"] = k.ids_a;
      key["ids_b"] = k.ids_b;
      key["legacy_a"] = k.legacy_a;
      key["legacy_b"] = k.legacy_b;
      legacy[0] += k.legacy_a;
      legacy[1] += k.legacy_b;
      const char* use = IdUseName(k.id_use);
      key["id_use"] = use;
      key["id_reason"] = k.id_reason;
      json entry = {{"table", k.table}, {"column", k.columns[0]}};
      if (k.id_use != KeyReport::IdUse::kAnalysed) entry["reason"] = k.id_reason;
      id_columns[use].push_back(std::move(entry));
    }
    doc["keys"].push_back(std::move(key));
  }
  doc["id_columns"] = std::move(id_columns);
  doc["servers"] = {
      {"a", report.servers_a}, {"b", report.servers_b}, {"shared", report.servers_shared}};
  doc["legacy"] = {{"a", legacy[0]}, {"b", legacy[1]}};
  doc["keyless"] = json::array();
  for (const KeylessTable& k : report.keyless) {
    doc["keyless"].push_back(
        {{"table", k.table}, {"rows_a", k.rows_a}, {"rows_b", k.rows_b}, {"in_both", k.in_both}});
  }
  doc["drift"] = json::array();
  for (const Drift& d : report.drift) {
    doc["drift"].push_back({{"table", d.table}, {"columns", d.columns}, {"only_in", d.only_in}});
  }
  // Text that is not UTF-8 (raw bytes in a text column) is shown with U+FFFD in its place.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace steadyflake::mergecheck
