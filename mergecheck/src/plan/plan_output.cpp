// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The plan's three forms (plan.h): rewrite-b.sql, plan.json and the summary.
//
// rewrite-b.sql is one transaction. Every change goes through a temporary table of old and new
// values (or of the keys of the rows to drop), filled before the guard: a row for this plan in
// `steadyflake_merge_plan`. A second run fails at the guard: SQLite's INSERT OR ROLLBACK ends
// the transaction, which takes the temporary tables with it, so every later statement fails
// too, even in a client that goes on after an error (the sqlite3 shell does); MySQL's client
// stops at the first error and the open transaction is rolled back. Each UPDATE is OR ROLLBACK
// in SQLite for the same reason. Changes by value also make a rerun harmless: no new value is
// an old one (offsets land above every value, fresh IDs are new, renames are unique).

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/aside.h"
#include "plan/sql_writer.h"
#include "steadyflake/mergecheck/plan.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// `prefix` then the digits of `n`. (Appended, not `"k" + std::to_string(n)`: GCC 12 at -O3 warns
// of overlapping copies in that operator+, a false -Wrestrict.)
std::string Numbered(std::string_view prefix, std::size_t n) {
  std::string out(prefix);
  out.append(std::to_string(n));
  return out;
}

using json = nlohmann::ordered_json;

std::string Columns(const std::vector<std::string>& columns) {
  std::string out = "(";
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? ", " : "") + columns[i];
  return out + ")";
}

json ToJson(const ReportValue& v) {
  switch (v.type) {
    case ReportValue::Type::kNull:
      return nullptr;
    case ReportValue::Type::kBlob:
      return BlobLiteral(v.text);
    default:
      return v.text;
  }
}

json ValuesJson(const std::vector<ReportValue>& row) {
  json out = json::array();
  for (const ReportValue& v : row) out.push_back(ToJson(v));
  return out;
}

json FingerprintJson(const InputFingerprint& f) {
  json out = {{"size", f.size}, {"mtime", f.mtime}, {"content", f.content}};
  if (!f.schema.empty()) out["schema"] = f.schema;
  if (!f.rows.empty()) out["rows"] = f.rows;
  return out;
}

json ReferencesJson(const std::vector<ReferenceReport>& references) {
  json out = json::array();
  for (const ReferenceReport& r : references) {
    json ref = {{"table", r.table}, {"column", r.column}, {"found", r.found}, {"rows", r.rows}};
    if (r.found == "inferred") {
      ref["distinct"] = r.distinct;
      ref["key_values"] = r.key_values;
    }
    if (!r.where_column.empty()) {
      ref["where"] = r.where_column + " = " + std::to_string(r.where_value);
    }
    out.push_back(std::move(ref));
  }
  return out;
}

// `expression` (PlanOptions::NameRule::set: integer columns and literals joined by | & + -) with
// its column names quoted, each behind `prefix` ("t." in MySQL's joined UPDATE).
std::string Expression(const Writer& w, std::string_view expression, const std::string& prefix) {
  std::string out;
  for (std::size_t i = 0; i < expression.size();) {
    const char c = expression[i];
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      std::size_t end = i;
      while (end < expression.size() &&
             (std::isalnum(static_cast<unsigned char>(expression[end])) != 0 ||
              expression[end] == '_')) {
        ++end;
      }
      out += prefix + w.Name(expression.substr(i, end - i));
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

// The assignment `column = expression` on every row of B renamed by `r` (its new names in the
// temporary table `map`).
std::string SetOnRenamed(const Writer& w, const Plan::Rename& r, const std::string& column,
                         const std::string& expression, const std::string& map) {
  if (w.mysql()) {
    return "UPDATE " + w.Name(r.table) + " AS t JOIN " + map + " AS m ON t." + w.Name(r.column) +
           " = m.new SET t." + w.Name(column) + " = " + Expression(w, expression, "t.") + ";";
  }
  return "UPDATE OR ROLLBACK " + w.Name(r.table) + " SET " + w.Name(column) + " = " +
         Expression(w, expression, "") + " WHERE " + w.Name(r.column) +
         " IN (SELECT new FROM temp." + map + ");";
}

// The DELETE of a keyless table's rows identical to A's (Plan::Drop::whole_row), their values
// in the temporary table `keys`, compared NULL-safe.
std::string WholeRowDelete(const Writer& w, const Plan::Drop& d, const std::string& keys) {
  std::string on;
  const std::string t = w.mysql() ? "t." : w.Name(d.table) + ".";
  for (std::size_t c = 0; c < d.columns.size(); ++c) {
    on += std::string(c ? " AND " : "") + t + w.Name(d.columns[c]) +
          (w.mysql() ? " <=> d.k" : " IS d.k") + std::to_string(c + 1);
  }
  if (w.mysql()) {
    return "DELETE t FROM " + w.Name(d.table) + " AS t JOIN " + keys + " AS d ON " + on + ";";
  }
  return "DELETE FROM " + w.Name(d.table) + " WHERE EXISTS (SELECT 1 FROM " + w.temp() + keys +
         " AS d WHERE " + on + ");";
}

// The DELETEs of Plan::drops: each drop's keys in a temporary table (in `out`, before the
// guard), its DELETE in `changes`.
void WriteDrops(const Writer& w, const Plan& plan, std::string& out,
                std::vector<std::string>& changes) {
  for (std::size_t i = 0; i < plan.drops.size(); ++i) {
    const Plan::Drop& d = plan.drops[i];
    const std::string table = "steadyflake_drop_" + std::to_string(i + 1);
    w.TempKeys(out, table, d.columns.size(), d.keys);
    std::string keys;
    std::string on;
    std::string names;
    for (std::size_t c = 0; c < d.columns.size(); ++c) {
      const std::string k = Numbered("k", c + 1);
      keys += (c ? ", " : "") + k;
      on += std::string(c ? " AND " : "") + "t." + w.Name(d.columns[c]) + " = d." + k;
      if (c != 0) names += ", ";
      names += w.Name(d.columns[c]);
    }
    if (d.whole_row) {  // NULL-safe: a keyless row's NULL column matches NULL
      changes.push_back(WholeRowDelete(w, d, table));
    } else if (w.mysql()) {
      changes.push_back("DELETE t FROM " + w.Name(d.table) + " AS t JOIN " + table + " AS d ON " +
                        on + ";");
    } else {
      changes.push_back("DELETE FROM " + w.Name(d.table) + " WHERE (" + names + ") IN (SELECT " +
                        keys + " FROM " + w.temp() + table + ");");
    }
  }
  // `where`: a conditional reference's column and value (only those rows refer to the key).
}

}  // namespace

std::string FormatPlanSql(const Plan& plan) {
  Writer w(plan.dialect == "mysql");
  const bool mysql = w.mysql();
  const std::string temp = mysql ? "" : "temp.";
  std::string out;
  out += "-- steadyflake merge-plan " + plan.id + ", made " + plan.made_at + ": the rewrite of\n";
  out += "-- shard B (" + plan.check.inputs[1].path + ") before it is merged into A (" +
         plan.check.inputs[0].path + ").\n";
  out += "-- Review plan.json beside this file first. Apply it to a copy of B, then check again:\n";
  out += mysql ? "--   mysql --database=B_COPY < rewrite-b.sql\n"
               : "--   sqlite3 B_COPY.db < rewrite-b.sql\n";
  out +=
      "-- One transaction; a second run fails at the guard (steadyflake_merge_plan) and changes\n";
  out += "-- nothing.\n";
  if (mysql) {
    out += "SET @steadyflake_fk_checks = @@FOREIGN_KEY_CHECKS;\n";
    out += "SET FOREIGN_KEY_CHECKS = 0;\n";
    out +=
        "CREATE TABLE IF NOT EXISTS steadyflake_merge_plan (plan VARCHAR(64) NOT NULL PRIMARY "
        "KEY,\n  applied_at DATETIME NOT NULL) ENGINE=InnoDB;\n";
  } else {
    out += "BEGIN IMMEDIATE;\n";
    out += "PRAGMA defer_foreign_keys = ON;\n";
  }

  // The temporary tables, filled before the guard; the rows held back move first.
  std::vector<std::string> changes;  // the statements after the guard
  WriteRowsAside(w, plan, out, changes);
  WriteDrops(w, plan, out, changes);
  auto update = [&](const std::string& table, const std::string& column, const std::string& map,
                    const std::string& where_column = "", int64_t where_value = 0) {
    const std::string prefix = mysql ? "t." : w.Name(table) + ".";
    const std::string where = where_column.empty() ? ""
                                                   : " AND " + prefix + w.Name(where_column) +
                                                         " = " + std::to_string(where_value);
    if (mysql) {
      return "UPDATE " + w.Name(table) + " AS t JOIN " + map + " AS m ON t." + w.Name(column) +
             " = m.old" + where + " SET t." + w.Name(column) + " = m.new;";
    }
    // Rows chosen by IN: SQLite seeks them through the column's index (or the rowid) value by
    // value. UPDATE … FROM joined the other way round, scanning the whole table (0.13 s of a
    // 1M-row table for 1,000 values, against 0.005 s). Both compare as `=` does.
    const std::string target = w.Name(table) + "." + w.Name(column);
    const std::string from = temp + map;
    return "UPDATE OR ROLLBACK " + w.Name(table) + " SET " + w.Name(column) +
           " = (SELECT new FROM " + from + " WHERE old = " + target + ") WHERE " + target +
           " IN (SELECT old FROM " + from + ")" + where + ";";
  };
  for (std::size_t i = 0; i < plan.remaps.size(); ++i) {
    const Plan::Remap& r = plan.remaps[i];
    const std::string map = Numbered("steadyflake_map_", i + 1);
    out += mysql
               ? "CREATE TEMPORARY TABLE " + map +
                     " (old BIGINT NOT NULL PRIMARY KEY, new BIGINT NOT NULL);\n"
               : "CREATE TEMP TABLE " + map + " (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);\n";
    std::vector<std::string> rows;
    for (const auto& [from, to] : r.values) {
      rows.push_back(
          std::string("(").append(std::to_string(from)).append(", ").append(std::to_string(to)) +
          ")");
    }
    w.Insert(out, temp + map, rows);
    changes.push_back("-- " + r.table + "." + r.column + ": " + r.method + ", " +
                      std::to_string(r.values.size()) + " values");
    changes.push_back(update(r.table, r.column, map));
    for (const ReferenceReport& ref : r.references) {
      changes.push_back(update(ref.table, ref.column, map, ref.where_column, ref.where_value));
    }
  }
  for (std::size_t i = 0; i < plan.renames.size(); ++i) {
    const Plan::Rename& r = plan.renames[i];
    const std::string map = Numbered("steadyflake_name_", i + 1);
    std::size_t longest = 1;
    for (const auto& [from, to] : r.values) longest = std::max({longest, from.size(), to.size()});
    out += mysql ? "CREATE TEMPORARY TABLE " + map + " (old VARBINARY(" + std::to_string(longest) +
                       ") NOT NULL PRIMARY KEY, new VARBINARY(" + std::to_string(longest) +
                       ") NOT NULL);\n"
                 : "CREATE TEMP TABLE " + map + " (old TEXT PRIMARY KEY, new TEXT NOT NULL);\n";
    std::vector<std::string> rows;
    for (const auto& [from, to] : r.values)
      rows.push_back(
          std::string("(").append(w.Text(from)).append(", ").append(w.Text(to)).append(")"));
    w.Insert(out, temp + map, rows);
    changes.push_back("-- " + r.table + "." + r.column + ": " + std::to_string(r.values.size()) +
                      " renamed");
    changes.push_back(update(r.table, r.column, map));
    for (const auto& [column, expression] : r.set) {
      changes.push_back(SetOnRenamed(w, r, column, expression, map));
    }
  }

  // The guard, then the changes.
  if (mysql) {
    out += "START TRANSACTION;\n";
    out += "INSERT INTO steadyflake_merge_plan VALUES ('" + plan.id + "', NOW());\n";
  } else {
    out +=
        "CREATE TABLE IF NOT EXISTS steadyflake_merge_plan (plan TEXT PRIMARY KEY, "
        "applied_at TEXT NOT NULL);\n";
    out += "INSERT OR ROLLBACK INTO steadyflake_merge_plan VALUES ('" + plan.id +
           "', datetime('now'));\n";
  }
  for (const std::string& s : changes) out += s + "\n";
  out += "COMMIT;\n";
  if (mysql) out += "SET FOREIGN_KEY_CHECKS = @steadyflake_fk_checks;\n";
  return out;
}

namespace {

// plan.json's drops and replaces.
void DropsJson(const Plan& plan, json& doc) {
  json drops = json::array();
  for (const Plan::Drop& d : plan.drops) {
    json keys = json::array();
    for (const auto& row : d.keys) keys.push_back(ValuesJson(row));
    drops.push_back({{"table", d.table},
                     {"columns", d.columns},
                     {"reason", d.reason},
                     {"rows", d.keys.size()},
                     {"keys", std::move(keys)}});
  }
  doc["drops"] = std::move(drops);
  json replaces = json::array();
  for (const Plan::Replace& r : plan.replaces) {
    json keys = json::array();
    for (const auto& row : r.keys) keys.push_back(ValuesJson(row));
    replaces.push_back({{"table", r.table},
                        {"columns", r.columns},
                        {"keys", std::move(keys)},
                        {"reason", r.reason}});
  }
  doc["replaces"] = std::move(replaces);
}

// plan.json's unmerged: the rows held back.
void UnmergedJson(const Plan& plan, json& doc) {
  json unmerged = json::array();
  for (const Plan::Unmerged& u : plan.unmerged) {
    json keys = json::array();
    for (const auto& row : u.keys) keys.push_back(ValuesJson(row));
    json entry = {{"table", u.table}, {"columns", u.columns}};
    if (!u.where_column.empty()) {
      entry["where"] = u.where_column + " = " + std::to_string(u.where_value);
    }
    entry["rows"] = u.rows;
    entry["reason"] = u.reason;
    entry["keys"] = std::move(keys);
    unmerged.push_back(std::move(entry));
  }
  doc["unmerged"] = std::move(unmerged);
}

}  // namespace

std::string FormatPlanJson(const Plan& plan) {
  json doc;
  doc["plan"] = plan.id;
  doc["made_at"] = plan.made_at;
  for (int i = 0; i < 2; ++i) {
    doc[i == 0 ? "a" : "b"] = {{"path", plan.check.inputs[i].path},
                               {"format", plan.check.inputs[i].format},
                               {"fingerprint", FingerprintJson(plan.fingerprints[i])}};
  }
  doc["dialect"] = plan.dialect;
  doc["server_id"] = plan.server_id;
  doc["b_server"] = plan.b_server ? json(*plan.b_server) : json(nullptr);
  json remaps = json::array();
  for (const Plan::Remap& r : plan.remaps) {
    json values = json::array();
    for (const auto& [from, to] : r.values) {
      values.push_back({std::to_string(from), std::to_string(to)});
    }
    json entry = {{"table", r.table}, {"column", r.column}, {"method", r.method}};
    if (r.method == "offset") entry["offset"] = std::to_string(r.offset);
    entry["reason"] = r.reason;
    entry["count"] = r.values.size();
    entry["values"] = std::move(values);
    entry["references"] = ReferencesJson(r.references);
    remaps.push_back(std::move(entry));
  }
  doc["remaps"] = std::move(remaps);
  json renames = json::array();
  for (const Plan::Rename& r : plan.renames) {
    json values = json::array();
    for (const auto& [from, to] : r.values) values.push_back({from, to});
    renames.push_back({{"table", r.table},
                       {"column", r.column},
                       {"collation", r.collation},
                       {"max_length", r.max_length},
                       {"reason", "the same value in A (under " + r.collation + ")"},
                       {"count", r.values.size()},
                       {"values", std::move(values)}});
    json set = json::object();
    for (const auto& [column, expression] : r.set) set[column] = expression;
    if (!r.set.empty()) renames.back()["set"] = std::move(set);
  }
  doc["renames"] = std::move(renames);
  DropsJson(plan, doc);
  json follows = json::array();
  for (const Plan::Follow& f : plan.follows) {
    follows.push_back({{"table", f.table},
                       {"columns", f.columns},
                       {"values", f.values},
                       {"via", f.via},
                       {"reason", "a column of the key refers to " + f.via + ", remapped"}});
  }
  doc["follows"] = std::move(follows);
  json unresolved = json::array();
  for (const Plan::Unresolved& u : plan.unresolved) {
    unresolved.push_back({{"table", u.table},
                          {"columns", u.columns},
                          {"value", u.value.empty() ? json(nullptr) : ValuesJson(u.value)},
                          {"reason", u.reason}});
  }
  doc["unresolved"] = std::move(unresolved);
  UnmergedJson(plan, doc);
  json proposals = json::array();
  for (const Plan::Proposal& p : plan.proposals) {
    proposals.push_back({{"table", p.table},
                         {"column", p.column},
                         {"found", p.found},
                         {"to", p.to.empty() ? json() : json(p.to)},
                         {"also", p.also},
                         {"evidence", p.evidence}});
  }
  doc["proposals"] = std::move(proposals);
  // Text that is not UTF-8 shows with U+FFFD here; rewrite-b.sql carries the exact bytes.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string FormatPlanText(const Plan& plan) {
  std::string out = "merge plan " + plan.id + ": rewrite B (" + plan.check.inputs[1].path + ", " +
                    plan.check.inputs[1].format + ") to merge into A (" +
                    plan.check.inputs[0].path + ", " + plan.check.inputs[0].format + ")\n";
  for (const Plan::Remap& r : plan.remaps) {
    out += "remap " + r.table + " (" + r.column + "): " + GroupThousands(r.values.size()) +
           " values, " + (r.method == "offset" ? "offset +" + std::to_string(r.offset) : r.method) +
           " (" + r.reason + ")\n";
    for (const ReferenceReport& ref : r.references) {
      out += "  and " + ref.table + "." + ref.column + " (" + ref.found +
             (ref.where_column.empty()
                  ? std::string()
                  : ", where " + ref.where_column + " = " + std::to_string(ref.where_value)) +
             "): " + GroupThousands(ref.rows) + (ref.rows == 1 ? " row\n" : " rows\n");
    }
  }
  for (const Plan::Rename& r : plan.renames) {
    out += "rename " + r.table + " (" + r.column + "): " + GroupThousands(r.values.size()) +
           " values, unique under " + r.collation +
           (r.max_length ? " within " + std::to_string(r.max_length) + " characters" : "") + "\n";
    for (std::size_t i = 0; i < r.values.size() && i < 10; ++i) {
      std::string line = "    '";
      AppendEscaped(line, r.values[i].first, Escape::kNonAscii);
      line += "' -> '";
      AppendEscaped(line, r.values[i].second, Escape::kNonAscii);
      out += line + "'\n";
    }
    if (r.values.size() > 10) out += "    ... " + GroupThousands(r.values.size() - 10) + " more\n";
  }
  for (const Plan::Drop& d : plan.drops) {
    out += "drop " + d.table + " " + Columns(d.columns) + ": " + GroupThousands(d.keys.size()) +
           (d.keys.size() == 1 ? " row" : " rows") + " (" + d.reason + ")\n";
  }
  for (const Plan::Replace& r : plan.replaces) {
    out += "replace in A " + r.table + " " + Columns(r.columns) + ": " +
           GroupThousands(r.keys.size()) + (r.keys.size() == 1 ? " row" : " rows") + " (" +
           r.reason + "): the merge deletes A's row before it inserts B's\n";
  }
  for (const Plan::Follow& f : plan.follows) {
    out += "follows " + f.table + " " + Columns(f.columns) + ": " + GroupThousands(f.values) +
           " values, by the remap of " + f.via + "\n";
  }
  for (std::size_t i = 0; i < plan.unresolved.size() && i < 20; ++i) {
    const Plan::Unresolved& u = plan.unresolved[i];
    std::string line = "UNRESOLVED " + u.table + " " + Columns(u.columns);
    if (!u.value.empty()) {
      line += " = (";
      for (std::size_t c = 0; c < u.value.size(); ++c) {
        line += c ? ", " : "";
        AppendEscaped(line, u.value[c].text, Escape::kNonAscii);
      }
      line += ")";
    }
    out += line + ": " + u.reason + "\n";
  }
  if (plan.unresolved.size() > 20) {
    out += "... " + GroupThousands(plan.unresolved.size() - 20) + " more unresolved (plan.json)\n";
  }
  std::map<std::string, uint64_t> held;
  for (const Plan::Unmerged& u : plan.unmerged) held[u.table] += u.rows;
  for (const auto& [table, rows] : held) {
    out += "held back " + table + ": " + GroupThousands(rows) + (rows == 1 ? " row" : " rows") +
           " moved into steadyflake_unmerged_" + table +
           " (unresolved, or referring to what is); the rest of the table merges\n";
  }
  if (plan.remaps.empty() && plan.renames.empty() && plan.drops.empty() && plan.replaces.empty() &&
      plan.unresolved.empty()) {
    out += "nothing to rewrite: no key of B overlaps A\n";
  }
  bool fresh = false;
  for (const Plan::Remap& r : plan.remaps) fresh = fresh || r.method == "fresh IDs";
  if (fresh) {
    out += "server id " + std::to_string(plan.server_id) +
           " issued the fresh IDs: retire it (give it to no running server), as A's and B's "
           "own once they are merged\n";
  }
  return out;
}

}  // namespace steadyflake::mergecheck
