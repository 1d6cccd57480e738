// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/plan_file.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "steadyflake/error.h"

namespace steadyflake::mergecheck::merge {

namespace {

using json = nlohmann::json;

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(Error::Code::kInvalidArgument,
                "cannot read " + path + "; pass --plan the folder merge-plan wrote (--out)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t ParseInteger(const json& v, const std::string& what) {
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  std::size_t used = 0;
  int64_t out = 0;
  try {
    out = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw std::invalid_argument(what + " is not an integer");
  return out;
}

std::string ValueForm(const json& v) {
  if (v.is_null()) return "NULL";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

PlanFile::Column ReadColumn(const json& j) {
  PlanFile::Column c{j.at("table").get<std::string>(), j.at("column").get<std::string>(), "", 0};
  if (j.contains("where") && !j["where"].is_null()) {
    // "messageType = 0": an integer column equal to an integer.
    const std::string where = j["where"].get<std::string>();
    const std::size_t eq = where.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("where '" + where + "' has no '='");
    auto trim = [](std::string s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
      return s;
    };
    c.where_column = trim(where.substr(0, eq));
    c.where_value = ParseInteger(json(trim(where.substr(eq + 1))), "where '" + where + "'");
  }
  return c;
}

PlanFile::Rows ReadRows(const json& j) {
  PlanFile::Rows rows;
  rows.table = j.at("table").get<std::string>();
  rows.columns = j.at("columns").get<std::vector<std::string>>();
  rows.reason = j.value("reason", "");
  if (j.contains("where") && !j["where"].is_null()) {
    const PlanFile::Column c =
        ReadColumn({{"table", rows.table}, {"column", ""}, {"where", j["where"]}});
    rows.where_column = c.where_column;
    rows.where_value = c.where_value;
  }
  if (j.contains("rows") && j["rows"].is_number_unsigned()) rows.rows = j["rows"].get<uint64_t>();
  for (const json& key : j.at("keys")) {
    std::vector<std::string> values;
    for (const json& v : key) values.push_back(ValueForm(v));
    if (values.size() != rows.columns.size()) {
      throw std::invalid_argument("a key of " + rows.table + " has " +
                                  std::to_string(values.size()) + " values for " +
                                  std::to_string(rows.columns.size()) + " columns");
    }
    rows.keys.insert(RowKey(values));
  }
  return rows;
}

InputFingerprint ReadFingerprint(const json& j) {
  InputFingerprint f;
  f.size = j.at("size").get<uint64_t>();
  f.mtime = j.at("mtime").get<std::string>();
  f.content = j.at("content").get<std::string>();
  f.schema = j.value("schema", "");
  if (j.contains("rows")) f.rows = j["rows"].get<std::map<std::string, uint64_t>>();
  return f;
}

void ReadJson(const json& doc, PlanFile& plan) {
  plan.id = doc.at("plan").get<std::string>();
  plan.dialect = doc.at("dialect").get<std::string>();
  for (int i = 0; i < 2; ++i) {
    const json& input = doc.at(i == 0 ? "a" : "b");
    plan.paths[i] = input.at("path").get<std::string>();
    plan.formats[i] = input.at("format").get<std::string>();
    if (input.contains("fingerprint")) plan.fingerprints[i] = ReadFingerprint(input["fingerprint"]);
  }
  for (const json& r : doc.at("remaps")) {
    PlanFile::Remap remap;
    remap.key = ReadColumn(r);
    for (const json& pair : r.at("values")) {
      remap.values.emplace(ParseInteger(pair.at(0), "a remapped value"),
                           ParseInteger(pair.at(1), "a new value"));
    }
    for (const json& ref : r.at("references")) remap.references.push_back(ReadColumn(ref));
    plan.remaps.push_back(std::move(remap));
  }
  for (const json& r : doc.at("renames")) {
    PlanFile::Rename rename;
    rename.key = ReadColumn(r);
    rename.collation = r.value("collation", "");
    for (const json& pair : r.at("values")) {
      rename.values.emplace(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    }
    if (r.contains("set")) {
      for (const auto& [column, expression] : r["set"].items()) {
        rename.set.emplace_back(column, expression.get<std::string>());
      }
    }
    plan.renames.push_back(std::move(rename));
  }
  for (const json& d : doc.at("drops")) plan.drops.push_back(ReadRows(d));
  if (doc.contains("unmerged")) {
    for (const json& u : doc["unmerged"]) plan.unmerged.push_back(ReadRows(u));
  }
  if (doc.contains("replaces")) {
    for (const json& r : doc["replaces"]) plan.replaces.push_back(ReadRows(r));
  }
  plan.unresolved = doc.at("unresolved").size();
}

}  // namespace

std::string RowKey(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += '\x1f';
    out += values[i];
  }
  return out;
}

PlanFile ReadPlanFile(const std::string& dir) {
  PlanFile plan;
  plan.dir = dir;
  const std::string path = dir + "/plan.json";
  const std::string text = ReadWhole(path);
  try {
    ReadJson(json::parse(text), plan);
  } catch (const std::exception& e) {
    throw Error(Error::Code::kInvalidArgument, path + " is not a plan merge-plan wrote (" +
                                                   e.what() +
                                                   "); run merge-plan again, or undo the edit");
  }
  plan.rewrite_sql = ReadWhole(dir + "/rewrite-b.sql");
  // The guard rewrite-b.sql inserts names the plan it was written for.
  const std::string guard = "steadyflake_merge_plan VALUES ('";
  const std::size_t at = plan.rewrite_sql.find(guard);
  if (at != std::string::npos) {
    const std::size_t from = at + guard.size();
    const std::string written_for =
        plan.rewrite_sql.substr(from, plan.rewrite_sql.find('\'', from) - from);
    if (written_for != plan.id) {
      throw Error(Error::Code::kInvalidArgument,
                  dir + "/rewrite-b.sql was written for plan " + written_for +
                      ", plan.json is plan " + plan.id +
                      " (a merge-plan run stopped between the two); run merge-plan again");
    }
  }
  return plan;
}

}  // namespace steadyflake::mergecheck::merge
