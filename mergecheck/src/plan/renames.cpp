// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// PlanRenames (renames.h): the equality keys of every value of the renamed columns in both
// inputs, hashed, are what a new name must not equal; each differing value of B tries the
// template, then "-2", "-3", ... (at most 100), its name part shortened to the column's length.

#include "plan/renames.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "check/collation.h"
#include "check/collect.h"
#include "check/key_set.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// The characters a text column of `declared` type holds (`VARCHAR(12)`, `char(8)`), 0: no
// declared length.
int DeclaredLength(const std::string& declared) {
  const std::string t = AsciiLower(declared);
  if (t.find("char") == std::string::npos) return 0;
  const std::size_t open = t.find('(');
  if (open == std::string::npos) return 0;
  int n = 0;
  for (std::size_t i = open + 1; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    n = n * 10 + (t[i] - '0');
    if (n > 1000000) return 0;
  }
  return n;
}

// Characters (UTF-8 code points) of `text`.
std::size_t Characters(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// The first `n` characters of `text`: what a MySQL prefix key holds (KeyPrefix).
std::string_view FirstCharacters(std::string_view text, std::size_t n) {
  Value v;
  v.tag = Value::Tag::kText;
  v.bytes = text;
  return KeyPrefix(v, static_cast<int>(n));
}

// The equality keys of every value of some text columns, under some collations each, hashed:
// what a rename must not equal.
class TakenValues : public SourceVisitor {
 public:
  struct Column {
    std::string table;
    std::string lower_column;
    std::vector<const Collation*> collations;  // nullptr: the bytes
    std::unordered_set<uint64_t> taken = {};
  };
  explicit TakenValues(std::vector<Column>& columns) : columns_(columns) {}

  std::vector<int> OnTable(const Table& table) override {
    // A dump may create every table before the rows of any: each table keeps its own cells.
    std::vector<std::pair<std::size_t, int>>& active = active_[table.name];
    active.clear();
    row_table_ = nullptr;
    std::vector<int> wanted;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].table != table.name) continue;
      const int c = FindColumn(table, columns_[i].lower_column);
      if (c < 0) continue;
      active.emplace_back(i, static_cast<int>(wanted.size()));
      wanted.push_back(c);
    }
    return wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (&table != row_table_) {  // another table's rows (OnTable was called for it before)
      row_table_ = &table;
      current_ = &active_[table.name];
    }
    for (const auto& [column, cell] : *current_) {
      const Value v =
          ApplyAffinity(cells[static_cast<std::size_t>(cell)], Affinity::kText, buffer_);
      if (v.tag != Value::Tag::kText && v.tag != Value::Tag::kBlob) continue;
      Add(columns_[column], v.bytes);
    }
  }

  // Adds the keys of `text` to `column`.
  static void Add(Column& column, std::string_view text) {
    for (std::size_t i = 0; i < column.collations.size(); ++i) {
      column.taken.insert(KeyHash(column, i, text));
    }
  }
  // True when none of the keys of `text` is taken.
  static bool Free(const Column& column, std::string_view text) {
    for (std::size_t i = 0; i < column.collations.size(); ++i) {
      if (column.taken.count(KeyHash(column, i, text)) != 0) return false;
    }
    return true;
  }

 private:
  // The hash of the equality key of `text` under the i-th collation of `column` (0 bytes).
  static uint64_t KeyHash(const Column& column, std::size_t i, std::string_view text) {
    std::string key(1, static_cast<char>(i));
    if (column.collations[i] == nullptr) {
      key.append(text);
    } else {
      column.collations[i]->AppendKey(text, key);
    }
    return HashBytes(key).lo;
  }

  std::vector<Column>& columns_;
  // Per table: (column, cell) of each of its columns in columns_.
  std::map<std::string, std::vector<std::pair<std::size_t, int>>> active_;
  const Table* row_table_ = nullptr;  // the table of the last row, whose entry is current_
  const std::vector<std::pair<std::size_t, int>>* current_ = nullptr;
  ValueBuffer buffer_;
};

// The template's parts around {name}, with {server} filled in.
struct Template {
  std::string prefix;
  std::string suffix;
};

Template SplitTemplate(const std::string& text, const std::optional<uint64_t>& server) {
  std::string filled;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 8, "{server}") == 0) {
      filled += std::to_string(*server);
      i += 8;
    } else {
      filled += text[i++];
    }
  }
  const std::size_t at = filled.find("{name}");
  return {filled.substr(0, at), filled.substr(at + 6)};
}

// Every renamed key's column, with the collations its new names must be unique under.
std::vector<TakenValues::Column> RenamedColumns(const Report& report, const Work& work,
                                                std::vector<std::size_t>& keys) {
  std::vector<TakenValues::Column> taken;
  for (const auto& [i, w] : work) {
    if (w.kind != KeyWork::kRename || w.differing.empty()) continue;
    const KeyReport& k = report.keys[i];
    TakenValues::Column column{k.table, AsciiLower(k.columns[0]), {}};
    const std::string collation = k.collations.empty() ? std::string() : k.collations[0];
    if (collation.empty()) {
      column.collations.push_back(nullptr);
    } else if (const Collation* c = Collation::Find(collation); c != nullptr) {
      column.collations.push_back(c);
    } else {
      // Unknown: unique as bytes and under the two commonest case-insensitive collations.
      column.collations = {nullptr, Collation::Find("utf8mb4_general_ci"),
                           Collation::Find("utf8mb4_unicode_ci")};
    }
    taken.push_back(std::move(column));
    keys.push_back(i);
  }
  return taken;
}

// The first name by the template that is free in `taken` and fits `max_length` characters
// (0: any length), or "" when none of 100 tries does.
std::string ChooseName(const Template& parts, const std::string& old, int max_length,
                       const TakenValues::Column& taken) {
  for (int attempt = 1; attempt <= 100; ++attempt) {
    // Another suffix after the first: "-2", "-3", ...; the name part is shortened to fit.
    std::string suffix = parts.suffix;
    if (attempt > 1) suffix.append("-").append(std::to_string(attempt));
    const std::size_t fixed = Characters(parts.prefix) + Characters(suffix);
    std::size_t keep = Characters(old);
    if (max_length != 0) {
      const auto room = static_cast<std::size_t>(max_length);
      if (room <= fixed) return "";  // no room left for the name
      keep = std::min(keep, room - fixed);
    }
    const std::string name = parts.prefix + std::string(FirstCharacters(old, keep)) + suffix;
    if (TakenValues::Free(taken, name)) return name;
  }
  return "";
}

// A column that refers to the renamed one would keep the old names: not followed yet.
void ListUnfollowed(const KeyReport& k, const std::vector<ForeignKeyRef>& b_foreign_keys,
                    Plan& plan) {
  for (const ForeignKeyRef& fk : b_foreign_keys) {
    if (fk.ref_table == AsciiLower(k.table) &&
        (fk.ref_column == AsciiLower(k.columns[0]) ||
         (fk.ref_column.empty() && k.kind == KeyReport::Kind::kPrimary))) {
      plan.unresolved.push_back(
          {fk.table,
           {fk.column},
           {},
           "a FOREIGN KEY onto " + k.table + "." + k.columns[0] +
               ", whose values this plan renames: renames are not followed into referring "
               "columns; update them by hand in the same transaction (plan.json lists the "
               "renames)"});
    }
  }
}

// The Rename of one key's differing values, and an Unresolved for each that no name fits.
Plan::Rename RenameKey(const KeyReport& k, const KeyWork& w, const KeyFacts& f,
                       const Template& parts, const std::string& rule, TakenValues::Column& taken,
                       Plan& plan) {
  Plan::Rename rename;
  rename.table = k.table;
  rename.column = k.columns[0];
  rename.collation = k.collations.empty() ? std::string("the bytes") : k.collations[0];
  const int la = DeclaredLength(f.type_a);
  const int lb = DeclaredLength(f.type_b);
  rename.max_length = la == 0 ? lb : (lb == 0 ? la : std::min(la, lb));
  for (const std::size_t c : w.differing) {
    const bool own = c < k.conflicts_b.size() && !k.conflicts_b[c].empty();
    const ReportValue& old = own ? k.conflicts_b[c][0] : k.conflicts[c][0];
    const std::string chosen = ChooseName(parts, old.text, rename.max_length, taken);
    if (chosen.empty()) {
      plan.unresolved.push_back(
          {k.table,
           k.columns,
           {old},
           "no rename by '" + rule + "' is unique under " + rename.collation +
               (rename.max_length ? " within " + std::to_string(rename.max_length) + " characters"
                                  : std::string()) +
               "; rename it by hand or pass another --rename"});
      continue;
    }
    TakenValues::Add(taken, chosen);
    rename.values.emplace_back(old.text, chosen);
  }
  return rename;
}

// True when `expression` is integer columns of `table` and integer literals joined by `|`,
// `&`, `+` and `-` (PlanOptions::NameRule::set); else false, with what is wrong in `why`.
bool ValidExpression(const Table& table, std::string_view expression, std::string& why) {
  bool operand = true;  // an operand is expected next
  std::size_t i = 0;
  while (i < expression.size()) {
    const char c = expression[i];
    if (c == ' ') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    if (operand && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_')) {
      while (
          i < expression.size() &&
          (std::isalnum(static_cast<unsigned char>(expression[i])) != 0 || expression[i] == '_')) {
        ++i;
      }
      const std::string word(expression.substr(start, i - start));
      const bool digits =
          std::all_of(word.begin(), word.end(), [](char d) { return d >= '0' && d <= '9'; });
      const int column = digits ? -2 : FindColumn(table, AsciiLower(word));
      if (column == -1 ||
          (column >= 0 &&
           table.columns[static_cast<std::size_t>(column)].affinity != Affinity::kInteger)) {
        why = "'" + word + "' is not an integer column of " + table.name;
        return false;
      }
      operand = false;
    } else if (!operand && (c == '|' || c == '&' || c == '+' || c == '-')) {
      ++i;
      operand = true;
    } else {
      why = std::string("unexpected '") + c + "'";
      return false;
    }
  }
  if (operand) why = "it ends where a column or a number should be";
  return !operand;
}

}  // namespace

void CheckNameRules(const Collector& cb, const PlanOptions& options) {
  for (const PlanOptions::NameRule& rule : options.names) {
    const std::string name = rule.table + "." + rule.column;
    const TableState* t = cb.Find(rule.table);
    if (t == nullptr || FindColumn(t->table, AsciiLower(rule.column)) < 0) {
      throw Error(Error::Code::kInvalidArgument,
                  "names " + name + ": input B has no column " + name +
                      "; check the name (table names are case-sensitive)");
    }
    for (const auto& [column, expression] : rule.set) {
      std::string why;
      const int c = FindColumn(t->table, AsciiLower(column));
      if (c < 0) {
        throw Error(
            Error::Code::kInvalidArgument,
            "names " + name + ": set " + column + ": table " + rule.table + " has no such column");
      }
      if (!ValidExpression(t->table, expression, why)) {
        throw Error(Error::Code::kInvalidArgument,
                    "names " + name + ": set " + column + " = \"" + expression + "\": " + why +
                        "; write integer columns of the row and integer literals joined by "
                        "| & + -, e.g. \"at_login | 1\"");
      }
    }
  }
}

void PlanRenames(Source& a, Source& b, const Report& report, const Work& work,
                 const PlanFacts& facts, const PlanOptions& options, Plan& plan) {
  std::vector<std::size_t> keys;
  std::vector<TakenValues::Column> taken = RenamedColumns(report, work, keys);
  if (taken.empty()) return;
  // Each key's rule: its own template and assignments (PlanOptions::names), else --rename.
  std::vector<const PlanOptions::NameRule*> rules;
  for (const std::size_t i : keys) {
    const KeyReport& k = report.keys[i];
    const PlanOptions::NameRule* rule = nullptr;
    for (const PlanOptions::NameRule& r : options.names) {
      if (r.table == k.table && EqualsIgnoreCase(r.column, k.columns[0])) rule = &r;
    }
    rules.push_back(rule);
    const std::string& rename =
        rule != nullptr && !rule->rename.empty() ? rule->rename : options.rename;
    if (rename.find("{server}") != std::string::npos && !plan.b_server) {
      throw Error(Error::Code::kInvalidArgument,
                  "--rename '" + rename + "' names {server}, and shard B has no " +
                      "steadyflake IDs to take its server id from; pass a template without " +
                      "it, e.g. --rename '{name}.b'");
    }
  }
  std::vector<std::string> only;
  for (const TakenValues::Column& c : taken) only.push_back(c.table);
  TakenValues visitor(taken);
  a.Scan(visitor, only);
  b.Scan(visitor, only);
  for (std::size_t n = 0; n < keys.size(); ++n) {
    const KeyReport& k = report.keys[keys[n]];
    const std::string& template_text =
        rules[n] != nullptr && !rules[n]->rename.empty() ? rules[n]->rename : options.rename;
    Plan::Rename rename =
        RenameKey(k, work.at(keys[n]), facts.keys.at(keys[n]),
                  SplitTemplate(template_text, plan.b_server), template_text, taken[n], plan);
    if (rename.values.empty()) continue;
    if (rules[n] != nullptr) rename.set = rules[n]->set;
    ListUnfollowed(k, facts.b_foreign_keys, plan);
    plan.renames.push_back(std::move(rename));
  }
}

}  // namespace steadyflake::mergecheck
