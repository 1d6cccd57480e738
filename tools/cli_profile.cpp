// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ReadProfile and DraftProfile (cli_profile.h), over toml++ (Debian libtomlplusplus-dev): its
// parser gives every node's line, so each error names where in the file it is.

#include "cli_profile.h"

#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "cli.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::cli {

namespace {

constexpr char kKeys[] =
    "server_id, rename, keys, id_columns, not_id_columns, tables, global, own_keys, "
    "[references], "
    "[on_conflict] and [names]";

[[noreturn]] void Fail(const Profile& p, const toml::source_region& where,
                       const std::string& problem, const std::string& fix) {
  throw CliError(p.path + ":" + std::to_string(where.begin.line) + ": " + problem, fix);
}

// "table.column" split at its last dot, or false.
bool SplitColumn(std::string_view text, std::string& table, std::string& column) {
  const std::size_t dot = text.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return false;
  table = std::string(text.substr(0, dot));
  column = std::string(text.substr(dot + 1));
  return true;
}

std::vector<std::string> Strings(const Profile& p, const std::string& key, const toml::node& n) {
  const toml::array* array = n.as_array();
  if (array == nullptr) {
    Fail(p, n.source(), key + " is not an array of strings", "write " + key + " = [\"...\"]");
  }
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    const std::optional<std::string> text = item.value<std::string>();
    if (!text) {
      Fail(p, item.source(), key + " holds a value that is not a string",
           "write each entry as a quoted string");
    }
    out.push_back(*text);
  }
  return out;
}

// `where = "messageType = 0"`: an integer column of the row, '=', an integer; else false.
bool ParseWhere(std::string_view text, std::string& column, int64_t& value) {
  const auto space = [&](std::size_t i) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    return i;
  };
  std::size_t i = space(0);
  const std::size_t start = i;
  while (i < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[i])) != 0 || text[i] == '_')) {
    ++i;
  }
  if (i == start || std::isdigit(static_cast<unsigned char>(text[start])) != 0) return false;
  column = std::string(text.substr(start, i - start));
  i = space(i);
  if (i >= text.size() || text[i] != '=') return false;
  i = space(i + 1);
  const auto [end, error] = std::from_chars(text.data() + i, text.data() + text.size(), value);
  return error == std::errc() && end != text.data() + i &&
         space(static_cast<std::size_t>(end - text.data())) == text.size();
}

// A conditional reference: { to = "TABLE.COLUMN", where = "COLUMN = INTEGER" }.
std::optional<std::string> ReadConditional(const Profile& p, std::string_view key,
                                           const toml::table& t,
                                           mergecheck::Options::Reference& r) {
  std::optional<std::string> to;
  bool where = false;
  for (const auto& [field, v] : t) {
    const std::optional<std::string> text = v.value<std::string>();
    if (field.str() == "to" && text) {
      to = text;
    } else if (field.str() == "where" && text) {
      where = true;
      if (!ParseWhere(*text, r.where_column, r.where_value)) {
        Fail(p, v.source(),
             "where " + Quote(*text) + " of " + std::string(key) + " is not COLUMN = INTEGER",
             "write where = \"messageType = 0\": only the rows whose integer column holds that "
             "integer refer to the key");
      }
    } else {
      Fail(p, v.source(),
           "the reference of " + std::string(key) + " has " + Quote(field.str()) +
               (text ? "" : " that is not a string"),
           "write \"" + std::string(key) +
               "\" = { to = \"TABLE.COLUMN\", where = \"COLUMN = INTEGER\" }");
    }
  }
  if (!where) {
    Fail(p, t.source(), "the reference of " + std::string(key) + " is a table without where",
         "write \"" + std::string(key) +
             "\" = \"TABLE.COLUMN\", or add where = \"COLUMN = INTEGER\"");
  }
  return to;
}

void ReadReferences(Profile& p, const toml::node& n) {
  const toml::table* refs = n.as_table();
  if (refs == nullptr) {
    Fail(p, n.source(), "references is not a table",
         "write [references] with lines \"item.owner_id\" = \"player.id\"");
  }
  for (const auto& [key, value] : *refs) {
    mergecheck::Options::Reference r;
    r.source = "profile";
    const std::optional<std::string> to = value.is_table()
                                              ? ReadConditional(p, key.str(), *value.as_table(), r)
                                              : value.value<std::string>();
    if (!SplitColumn(key.str(), r.table, r.column) || !to ||
        !SplitColumn(*to, r.ref_table, r.ref_column)) {
      Fail(p, value.source(), "a reference is not \"TABLE.COLUMN\" = \"TABLE.COLUMN\"",
           "write e.g. \"item.owner_id\" = \"player.id\" under [references]");
    }
    p.references.push_back(std::move(r));
  }
}

// [on_conflict]: "table" = "keep_a" | "keep_b" | "unresolved" | "dedupe", or
// "table" = { newest = "column" } (PlanOptions::on_conflict's "newest:column").
void ReadOnConflict(Profile& p, const toml::node& n) {
  const toml::table* policies = n.as_table();
  if (policies == nullptr) {
    Fail(p, n.source(), "on_conflict is not a table",
         "write [on_conflict] with lines \"account_data\" = \"keep_a\"");
  }
  for (const auto& [table, value] : *policies) {
    std::optional<std::string> policy = value.value<std::string>();
    const toml::table* newest = value.as_table();
    if (newest != nullptr && newest->size() == 1 && newest->contains("newest")) {
      const std::optional<std::string> column = (*newest)["newest"].value<std::string>();
      if (column && !column->empty()) policy = "newest:" + *column;
    }
    if (!policy || (newest == nullptr && *policy != "keep_a" && *policy != "keep_b" &&
                    *policy != "unresolved" && *policy != "dedupe")) {
      Fail(p, value.source(),
           "on_conflict of " + std::string(table.str()) +
               " is not \"keep_a\", \"keep_b\", { newest = \"COLUMN\" }, \"unresolved\" or "
               "\"dedupe\"",
           "keep_a keeps A's row, keep_b B's, newest the one with the larger COLUMN; dedupe drops "
           "B's rows identical to A's in a table without a key");
    }
    p.on_conflict[std::string(table.str())] = *policy;
  }
}

// One game-level name: [names."player.name"] with compare_as, rename and set.
Profile::Name ReadName(const Profile& p, std::string_view key, const toml::node& value) {
  Profile::Name name;
  const toml::table* t = value.as_table();
  if (t == nullptr || !SplitColumn(key, name.rule.table, name.rule.column)) {
    Fail(p, value.source(), "names entry " + Quote(key) + " is not a table named TABLE.COLUMN",
         "write [names.\"player.name\"] with compare_as, rename or set under it");
  }
  for (const auto& [field, v] : *t) {
    const std::string f(field.str());
    if (f == "compare_as" || f == "rename") {
      const std::optional<std::string> text = v.value<std::string>();
      if (!text) Fail(p, v.source(), f + " is not a string", "write " + f + " = \"...\"");
      (f == "compare_as" ? name.compare_as : name.rule.rename) = *text;
    } else if (f == "set" && v.is_table()) {
      for (const auto& [column, e] : *v.as_table()) {
        const std::optional<std::string> expression = e.value<std::string>();
        if (!expression) {
          Fail(p, e.source(), "set " + std::string(column.str()) + " is not a string",
               "write set = { at_login = \"at_login | 1\" }");
        }
        name.rule.set.emplace_back(std::string(column.str()), *expression);
      }
    } else {
      Fail(p, v.source(), "unknown key " + Quote(f) + " under names." + std::string(key),
           "a name takes compare_as, rename and set = { column = \"expression\" }");
    }
  }
  return name;
}

void ReadNames(Profile& p, const toml::node& n) {
  const toml::table* names = n.as_table();
  if (names == nullptr) {
    Fail(p, n.source(), "names is not a table", "write [names.\"player.name\"] tables");
  }
  for (const auto& [key, value] : *names) p.names.push_back(ReadName(p, key.str(), value));
}

// global = [...] or own_keys = [...]: "table.column" each.
void ReadColumns(Profile& p, const std::string& key, const toml::node& n,
                 std::vector<mergecheck::Options::Column>& out) {
  for (const std::string& text : Strings(p, key, n)) {
    mergecheck::Options::Column c;
    if (!SplitColumn(text, c.table, c.column)) {
      Fail(p, n.source(), key + " entry " + Quote(text) + " is not TABLE.COLUMN",
           "write " + key + " = [\"characters.guid\"]");
    }
    out.push_back(std::move(c));
  }
}

void ReadEntry(Profile& p, const std::string& key, const toml::node& value) {
  if (key == "server_id") {
    const std::optional<int64_t> id = value.value<int64_t>();
    if (!id || *id < 0) {
      Fail(p, value.source(), "server_id is not a non-negative integer", "write server_id = 103");
    }
    p.server_id = id;
  } else if (key == "rename") {
    p.rename = value.value<std::string>();
    if (!p.rename) Fail(p, value.source(), "rename is not a string", "write rename = \"{name}.b\"");
  } else if (key == "keys") {
    p.keys = Strings(p, key, value);
  } else if (key == "id_columns") {
    p.id_columns = Strings(p, key, value);
  } else if (key == "not_id_columns") {
    p.not_id_columns = Strings(p, key, value);
  } else if (key == "tables") {
    p.tables = Strings(p, key, value);
  } else if (key == "global") {
    ReadColumns(p, key, value, p.global);
  } else if (key == "own_keys") {
    ReadColumns(p, key, value, p.own_keys);
  } else if (key == "references") {
    ReadReferences(p, value);
  } else if (key == "on_conflict") {
    ReadOnConflict(p, value);
  } else if (key == "names") {
    ReadNames(p, value);
  } else {
    Fail(p, value.source(), "unknown key " + Quote(key), std::string("the profile takes ") + kKeys);
  }
}

}  // namespace

Profile ReadProfile(const std::string& path) {
  Profile p;
  p.path = path;
  toml::table doc;
  try {
    doc = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    if (e.source().begin.line == 0) {
      throw CliError(
          "cannot read --profile file " + Quote(path) + ": " + std::string(e.description()),
          "pass a readable TOML file (docs/merging.md, \"The merge profile\")");
    }
    Fail(p, e.source(), "not TOML: " + std::string(e.description()),
         "fix the line (docs/merging.md, \"The merge profile\")");
  }
  for (const auto& [key, value] : doc) ReadEntry(p, std::string(key.str()), value);
  return p;
}

}  // namespace steadyflake::cli
