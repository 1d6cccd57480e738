// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/verify_rewrite.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "check/both_inputs.h"
#include "check/collation.h"
#include "merge/transform.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::merge {

namespace {

using Tables = std::vector<std::pair<std::string, std::vector<std::string>>>;

constexpr char kGuardTable[] = "steadyflake_merge_plan";

// "(id=5, owner_id=17 -> 317, name='x')": a row of B with the plan applied, the values the
// plan changed shown with what they were.
std::string Describe(const std::vector<std::string>& columns, const Row& row, const Row* before) {
  std::string out = "(";
  for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i) {
    if (i != 0) out += ", ";
    out += columns[i] + "=";
    if (before != nullptr && !((*before)[i] == row[i])) out += Shown((*before)[i]) + " -> ";
    out += Shown(row[i]);
    if (i >= 7 && columns.size() > 9) {
      out += ", ...";
      break;
    }
  }
  return out + ")";
}

std::string Select(const std::string& schema, const std::string& table,
                   const std::vector<std::string>& columns) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < columns.size(); ++i) sql += (i ? ", " : "") + QuoteName(columns[i]);
  return sql + " FROM " + QuoteName(schema) + "." + QuoteName(table);
}

class TableCheck {
 public:
  TableCheck(Database& b, Database& out, const PlanFile& plan, const std::string& table,
             const std::vector<std::string>& columns, Mismatches& mismatches,
             std::vector<uint64_t>& changed)
      : b_(b),
        out_(out),
        table_(table),
        columns_(columns),
        transform_(plan, table, columns),
        mismatches_(mismatches),
        changed_(changed) {}

  // B's side of the first pass (ExpectRewrite): the sum of B's rows with the plan applied, the
  // rows held back, and the counts.
  void SumB(RewriteExpectation::Table& e) {
    ReadB(
        e.counts, changed_, [&](const RowHash& h) { e.expected.Add(h); }, &e.held);
  }

  // First the sum of B''s rows against `e`'s (no memory per row); only when they differ, the
  // sorted hashes of both, to list what differs.
  // The rows of B the plan holds back: what steadyflake_unmerged_<table> must hold.
  const RowSum& held() const { return held_; }

  void Run(MergeReport::Table& t, const RewriteExpectation::Table& e) {
    const RowSum& expected = e.expected;
    t = e.counts;
    held_ = e.held;
    RowSum actual;
    ReadB2([&](const RowHash& h) { actual.Add(h); });
    t.rows_b_after = actual.rows;
    if (expected == actual) return;
    std::vector<RowHash> want;
    std::vector<RowHash> have;
    MergeReport::Table again;
    std::vector<uint64_t> ignored(changed_.size(), 0);
    // Two connections, two cores.
    OnBothInputs(
        [&] {
          ReadB(again, ignored, [&](const RowHash& h) { want.push_back(h); });
          std::sort(want.begin(), want.end());
        },
        [&] {
          ReadB2([&](const RowHash& h) { have.push_back(h); });
          std::sort(have.begin(), have.end());
        });
    std::vector<RowHash> missing;
    std::vector<RowHash> extra;
    std::set_difference(want.begin(), want.end(), have.begin(), have.end(),
                        std::back_inserter(missing));
    std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                        std::back_inserter(extra));
    Explain(missing, extra);
  }

 private:
  void ReadB2(const std::function<void(const RowHash&)>& add) {
    std::string scratch;
    Statement after = out_.Prepare(Select("b", table_, columns_));
    const std::string what = "read table " + table_ + " of B'";
    while (out_.Step(after, what)) {
      add(HashCurrentRow(after.get(), scratch));
    }
  }

  // B's rows with the plan applied, hashed; the drops counted.
  void ReadB(MergeReport::Table& t, std::vector<uint64_t>& counts,
             const std::function<void(const RowHash&)>& add, RowSum* held = nullptr) {
    Row row;
    std::string scratch;
    Statement rows = b_.Prepare(Select("main", table_, columns_));
    const bool as_is = transform_.empty();
    const std::string what = "read table " + table_;
    while (b_.Step(rows, what)) {
      ++t.rows_b;
      if (as_is || !transform_.Touches(rows.get())) {
        add(HashCurrentRow(rows.get(), scratch));
        continue;
      }
      rows.ReadRow(row);
      const RowHash as_was = HashRow(row, scratch);
      switch (transform_.Apply(row, counts)) {
        case TableTransform::Fate::kDropped:
          ++t.dropped;
          break;
        case TableTransform::Fate::kHeld:
          ++t.held;
          if (held != nullptr) held->Add(as_was);
          break;
        case TableTransform::Fate::kKept:
          add(HashRow(row, scratch));
          break;
      }
    }
  }

  // Lists the rows behind the differing hashes (a second read of the table, of B and of B').
  void Explain(const std::vector<RowHash>& missing, const std::vector<RowHash>& extra) {
    const std::set<RowHash> want_missing(missing.begin(), missing.end());
    const std::set<RowHash> want_extra(extra.begin(), extra.end());
    std::vector<uint64_t> ignored(changed_.size(), 0);
    Row row;
    Row before;
    std::string scratch;
    std::size_t listed = 0;
    const std::size_t limit = mismatches_.max();
    Statement rows = b_.Prepare(Select("main", table_, columns_));
    const std::string reading_b = "read table " + table_;
    while (listed < limit && b_.Step(rows, reading_b)) {
      rows.ReadRow(before);
      row = before;
      if (transform_.Apply(row, ignored) != TableTransform::Fate::kKept) continue;
      if (want_missing.count(HashRow(row, scratch)) == 0) continue;
      mismatches_.Add(table_ + ": B's row " + Describe(columns_, row, &before) +
                      " is not in B' as plan.json makes it");
      ++listed;
    }
    if (missing.size() > listed) mismatches_.Count(missing.size() - listed);
    listed = 0;
    Statement after = out_.Prepare(Select("b", table_, columns_));
    const std::string reading_b2 = "read table " + table_ + " of B'";
    while (listed < limit && out_.Step(after, reading_b2)) {
      after.ReadRow(row);
      if (want_extra.count(HashRow(row, scratch)) == 0) continue;
      mismatches_.Add(table_ + ": B' has row " + Describe(columns_, row, nullptr) +
                      ", which plan.json makes of no row of B");
      ++listed;
    }
    if (extra.size() > listed) mismatches_.Count(extra.size() - listed);
  }

  Database& b_;
  Database& out_;
  const std::string& table_;
  const std::vector<std::string>& columns_;
  TableTransform transform_;
  RowSum held_;
  Mismatches& mismatches_;
  std::vector<uint64_t>& changed_;
};

constexpr char kHeldPrefix[] = "steadyflake_unmerged_";

// Whether `name` is steadyflake_unmerged_<table> of a table the plan holds rows of back.
bool HeldTable(const PlanFile& plan, const std::string& name) {
  if (name.rfind(kHeldPrefix, 0) != 0) return false;
  for (const PlanFile::Rows& u : plan.unmerged) {
    if (kHeldPrefix + u.table == name) return true;
  }
  return false;
}

// steadyflake_unmerged_<table> of B' holds the rows of B the plan held back, as they were.
void CheckHeld(Database& out, const std::string& table, const std::vector<std::string>& columns,
               const RowSum& held, Mismatches& mismatches) {
  const std::string name = kHeldPrefix + table;
  Statement exists =
      out.Prepare("SELECT 1 FROM b.sqlite_schema WHERE type = 'table' AND name = ?1");
  sqlite3_bind_text(exists.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
  if (!out.Step(exists, "read the schema of B'")) {
    if (held.rows != 0) {
      mismatches.Add(table + ": " + std::to_string(held.rows) +
                     " row(s) the plan holds back, but B' has no " + name);
    }
    return;
  }
  RowSum found;
  std::string scratch;
  Statement rows = out.Prepare(Select("b", name, columns));
  const std::string what = "read " + name + " of B'";
  while (out.Step(rows, what)) found.Add(HashCurrentRow(rows.get(), scratch));
  if (!(found == held)) {
    mismatches.Add(name + ": holds " + std::to_string(found.rows) +
                   " row(s); plan.json holds back " + std::to_string(held.rows) +
                   " of B's, as they were" + (found.rows == held.rows ? ", and they differ" : ""));
  }
}

// Tables of B' that B lacks: only the plan's guard, holding this plan's row, and the tables of
// rows held back.
void CheckNewTables(Database& out, const Tables& before, const Tables& after, const PlanFile& plan,
                    Mismatches& mismatches) {
  std::set<std::string> known;
  for (const auto& [name, columns] : before) known.insert(name);
  for (const auto& [name, columns] : after) {
    if (known.count(name) != 0) continue;
    if (name != kGuardTable && !HeldTable(plan, name)) {
      mismatches.Add("B' has table " + name + ", which B lacks and plan.json does not make");
    }
  }
  for (const auto& [name, columns] : before) {
    bool kept = false;
    for (const auto& [other, c] : after) kept = kept || other == name;
    if (!kept) mismatches.Add("table " + name + " of B is gone from B'");
  }
  bool guard = false;
  for (const auto& [name, columns] : after) guard = guard || name == kGuardTable;
  if (!guard || out.Integer("SELECT count(*) FROM b." + QuoteName(kGuardTable) + " WHERE plan = '" +
                            plan.id + "'") != 1) {
    mismatches.Add("B' has no row for plan " + plan.id + " in " + kGuardTable +
                   ": rewrite-b.sql is not this plan's");
  }
}

// The plan's drops of `column` alone in `table`: rows of B the merge replaces by A's same row,
// so a reference to one of them rightly refers to A's after the merge.
std::unordered_set<std::string> DroppedValues(const PlanFile& plan, const PlanFile::Column& key) {
  std::unordered_set<std::string> out;
  for (const PlanFile::Rows& d : plan.drops) {
    if (d.table == key.table && d.columns.size() == 1 && d.columns[0] == key.column) {
      out.insert(d.keys.begin(), d.keys.end());
    }
  }
  return out;
}

// 3. and 4. for one remapped key.
void CheckAgainstA(Database& out, const PlanFile& plan, const PlanFile::Remap& r,
                   Mismatches& mismatches) {
  const std::unordered_set<std::string> dropped = DroppedValues(plan, r.key);
  const std::string kt = QuoteName(r.key.table);
  const std::string kc = QuoteName(r.key.column);
  Statement clash =
      out.Prepare("SELECT " + kc + " FROM b." + kt + " WHERE " + kc + " IN (SELECT " + kc +
                  " FROM main." + kt + ") LIMIT " + std::to_string(mismatches.max()));
  const std::string what = "compare " + r.key.table + " with A";
  while (out.Step(clash, what)) {
    mismatches.Add(r.key.table + "." + r.key.column + ": B' holds " + Shown(clash.Column(0)) +
                   ", a value of A's: the merge would collide");
  }
  for (const PlanFile::Column& ref : r.references) {
    const std::string rc = QuoteName(ref.column);
    std::string where = rc + " IS NOT NULL";
    if (!ref.where_column.empty()) {
      where += " AND " + QuoteName(ref.where_column) + " = " + std::to_string(ref.where_value);
    }
    Statement orphan =
        out.Prepare("SELECT " + rc + ", count(*) FROM b." + QuoteName(ref.table) + " WHERE " +
                    where + " AND " + rc + " NOT IN (SELECT " + kc + " FROM b." + kt + ") AND " +
                    rc + " IN (SELECT " + kc + " FROM main." + kt + ") GROUP BY 1");
    const std::string comparing = "compare " + ref.table + " with A";
    while (out.Step(orphan, comparing)) {
      if (dropped.count(PlanForm(orphan.Column(0))) != 0) continue;
      mismatches.Add(ref.table + "." + ref.column + ": " +
                     std::to_string(sqlite3_column_int64(orphan.get(), 1)) +
                     " row(s) of B' refer to " + r.key.table + "." + r.key.column + " = " +
                     Shown(orphan.Column(0)) +
                     ", which B' lacks and A has: merged, they would belong to A's");
    }
  }
}

// 3. for one renamed key: no new name equal to one of A's under the rename's collation.
void CheckRenameAgainstA(Database& out, const PlanFile::Rename& r, Mismatches& mismatches) {
  const Collation* collation = Collation::Find(r.collation.empty() ? "BINARY" : r.collation);
  if (collation == nullptr) collation = Collation::Find("BINARY");
  const std::string kc = QuoteName(r.key.column);
  std::unordered_set<std::string> a_keys;
  Statement a = out.Prepare("SELECT " + kc + " FROM main." + QuoteName(r.key.table) + " WHERE " +
                            kc + " IS NOT NULL");
  std::string key;
  const std::string what = "read " + r.key.table + " of A";
  while (out.Step(a, what)) {
    key.clear();
    collation->AppendKey(a.Column(0).bytes, key);
    a_keys.insert(key);
  }
  for (const auto& [old_name, new_name] : r.values) {
    key.clear();
    collation->AppendKey(new_name, key);
    if (a_keys.count(key) != 0) {
      mismatches.Add(r.key.table + "." + r.key.column + ": the new name " +
                     Shown(Value{SQLITE_TEXT, 0, 0, new_name}) + " is one of A's under " +
                     collation->name());
    }
  }
}

}  // namespace

RewriteExpectation ExpectRewrite(Database& b, const PlanFile& plan) {
  RewriteExpectation out;
  out.changed.assign(plan.remaps.size() + plan.renames.size(), 0);
  MergeReport unused;  // reading B alone finds no mismatch
  Mismatches none(unused, 0);
  for (const auto& [table, columns] : b.Tables("main")) {
    RewriteExpectation::Table e;
    e.name = table;
    e.columns = columns;
    e.counts.name = table;
    // SumB reads only B: no B' to name.
    TableCheck check(b, b, plan, table, columns, none, out.changed);
    check.SumB(e);
    out.tables.push_back(std::move(e));
  }
  return out;
}

void VerifyRewrite(Database& b, Database& out, const PlanFile& plan,
                   const RewriteExpectation& expectation, MergeReport& report,
                   Mismatches& mismatches,
                   const std::function<void(uint64_t done, uint64_t total)>& progress) {
  const Tables before = b.Tables("main");
  const Tables after = out.Tables("b");
  CheckNewTables(out, before, after, plan, mismatches);
  std::vector<uint64_t> changed = expectation.changed;
  uint64_t done = 0;
  for (const auto& [table, columns] : before) {
    bool present = false;
    for (const auto& [name, c] : after) {
      if (name != table) continue;
      present = true;
      if (c != columns) {
        mismatches.Add("table " + table + " has other columns in B' than in B");
        present = false;
      }
    }
    if (!present) continue;
    const RewriteExpectation::Table* e = nullptr;
    for (const RewriteExpectation::Table& x : expectation.tables) e = x.name == table ? &x : e;
    if (e == nullptr || e->columns != columns) {
      throw Error(Error::Code::kInvalidArgument,
                  "B changed while it was merged: table " + table + " is not as it was read");
    }
    MergeReport::Table t;
    TableCheck check(b, out, plan, table, columns, mismatches, changed);
    check.Run(t, *e);
    if (t.held != 0 || HeldTable(plan, kHeldPrefix + table)) {
      CheckHeld(out, table, columns, check.held(), mismatches);
    }
    report.tables.push_back(t);
    if (progress) progress(++done, before.size());
  }
  for (std::size_t i = 0; i < plan.remaps.size(); ++i) {
    const PlanFile::Remap& r = plan.remaps[i];
    report.keys.push_back(
        {"remapped", r.key.table, r.key.column, r.values.size(), r.references.size(), changed[i]});
    CheckAgainstA(out, plan, r, mismatches);
  }
  for (std::size_t i = 0; i < plan.renames.size(); ++i) {
    const PlanFile::Rename& r = plan.renames[i];
    report.keys.push_back({"renamed", r.key.table, r.key.column, r.values.size(), 0,
                           changed[plan.remaps.size() + i]});
    CheckRenameAgainstA(out, r, mismatches);
  }
}

}  // namespace steadyflake::mergecheck::merge
