// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/merge_tables.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "merge/check_output.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::merge {

namespace {

using Tables = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::string ColumnList(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? ", " : "") + QuoteName(columns[i]);
  return out;
}

int64_t Count(Database& db, const std::string& schema, const std::string& table) {
  return db.Integer("SELECT count(*) FROM " + QuoteName(schema) + "." + QuoteName(table));
}

// Rows of a reference that resolve to no row of its key, in `schema`.
int64_t Dangling(Database& db, const std::string& schema, const PlanFile::Column& ref,
                 const PlanFile::Column& key) {
  const std::string s = QuoteName(schema) + ".";
  std::string where = QuoteName(ref.column) + " IS NOT NULL";
  if (!ref.where_column.empty()) {
    where += " AND " + QuoteName(ref.where_column) + " = " + std::to_string(ref.where_value);
  }
  return db.Integer("SELECT count(*) FROM " + s + QuoteName(ref.table) + " WHERE " + where +
                    " AND " + QuoteName(ref.column) + " NOT IN (SELECT " + QuoteName(key.column) +
                    " FROM " + s + QuoteName(key.table) + ")");
}

int64_t ForeignKeyViolations(Database& db, const std::string& schema) {
  return db.Integer("SELECT count(*) FROM pragma_foreign_key_check(NULL, '" + schema + "')");
}

// Whether the output declares `ref` (unconditional) as a one-column FOREIGN KEY to `key`: named
// as its parent's column, or left to mean the parent's one-column PRIMARY KEY.
bool DeclaredForeignKey(Database& out, const PlanFile::Column& ref, const PlanFile::Column& key) {
  if (!ref.where_column.empty()) return false;
  Statement fk = out.Prepare(
      "SELECT count(*) FROM pragma_foreign_key_list(?1, 'main') AS f"
      " WHERE f.\"from\" = ?2 COLLATE NOCASE AND f.\"table\" = ?3 COLLATE NOCASE"
      " AND (SELECT count(*) FROM pragma_foreign_key_list(?1, 'main') AS g WHERE g.id = f.id) = 1"
      " AND (f.\"to\" = ?4 COLLATE NOCASE OR (f.\"to\" IS NULL"
      "  AND (SELECT count(*) FROM pragma_table_info(?3, 'main') WHERE pk > 0) = 1"
      "  AND (SELECT name FROM pragma_table_info(?3, 'main') WHERE pk = 1) = ?4 COLLATE NOCASE))");
  const std::string* values[] = {&ref.table, &ref.column, &key.table, &key.column};
  for (int i = 0; i < 4; ++i) {
    sqlite3_bind_text(fk.get(), i + 1, values[i]->c_str(), -1, SQLITE_TRANSIENT);
  }
  return out.Step(fk, "read the foreign keys of " + ref.table) && fk.Column(0).integer != 0;
}

// Tables B' has and A lacks are made in the output as B' declares them, with their indexes.
void MakeMissingTables(Database& out, const Tables& a, const Tables& b) {
  std::set<std::string> in_a;
  for (const auto& [name, columns] : a) in_a.insert(name);
  for (const auto& [name, columns] : b) {
    if (in_a.count(name) != 0) continue;
    Statement sql = out.Prepare(
        "SELECT sql FROM b.sqlite_schema WHERE tbl_name = ?1 AND sql IS NOT NULL AND type IN "
        "('table', 'index') ORDER BY type = 'index', name");
    sqlite3_bind_text(sql.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
    std::vector<std::string> statements;
    while (out.Step(sql, "read the schema of B'")) statements.push_back(sql.Column(0).bytes);
    for (const std::string& s : statements) out.Exec(s);
  }
}

// A's triggers on the merged tables: dropped before the inserts, their SQL returned.
std::vector<std::string> SetTriggersAside(Database& out, const std::vector<std::string>& order) {
  std::vector<std::pair<std::string, std::string>> triggers;
  Statement list =
      out.Prepare("SELECT name, tbl_name, sql FROM main.sqlite_schema WHERE type = 'trigger'");
  const std::set<std::string> merged(order.begin(), order.end());
  while (out.Step(list, "read A's triggers")) {
    if (merged.count(list.Column(1).bytes) != 0) {
      triggers.emplace_back(list.Column(0).bytes, list.Column(2).bytes);
    }
  }
  std::vector<std::string> sql;
  for (const auto& [name, text] : triggers) {
    out.Exec("DROP TRIGGER main." + QuoteName(name));
    sql.push_back(text);
  }
  return sql;
}

// The checks that read only the merged file, run as the transaction commits: rows per table,
// references of remapped keys that resolve to nothing, foreign-key violations. The last two
// are counted in A (`a`, as it was) and B' only when the output has any: the merge may keep
// what they had, never add to it.
void VerifyMerged(Database& out, Database& a, const PlanFile& plan, MergeReport& report,
                  Mismatches& mismatches) {
  for (MergeReport::Table& t : report.tables) {
    const int64_t now = Count(out, "main", t.name);
    if (static_cast<uint64_t>(now) != t.merged) {
      mismatches.Add(t.name + ": " + GroupThousands(static_cast<uint64_t>(now)) +
                     " rows merged, expected " + GroupThousands(t.merged) + " (A's " +
                     GroupThousands(t.rows_a) + " + B''s " + GroupThousands(t.rows_b_after) + ")");
    }
  }
  // A reference declared as a FOREIGN KEY is one that foreign_key_check covers: when that finds
  // no violation, it cannot dangle, and the join need not run again.
  const int64_t fk_now = ForeignKeyViolations(out, "main");
  for (const PlanFile::Remap& r : plan.remaps) {
    for (const PlanFile::Column& ref : r.references) {
      if (fk_now == 0 && DeclaredForeignKey(out, ref, r.key)) continue;
      const int64_t now = Dangling(out, "main", ref, r.key);
      if (now == 0) continue;
      const int64_t before = Dangling(a, "main", ref, r.key) + Dangling(out, "b", ref, r.key);
      if (now > before) {
        mismatches.Add(ref.table + "." + ref.column + ": " + std::to_string(now - before) +
                       " row(s) refer to no " + r.key.table + "." + r.key.column +
                       " after the merge that did before");
      }
    }
  }
  if (fk_now == 0) return;
  const int64_t fk_before = ForeignKeyViolations(a, "main") + ForeignKeyViolations(out, "b");
  if (fk_now > fk_before) {
    mismatches.Add("PRAGMA foreign_key_check: " + std::to_string(fk_now - fk_before) +
                   " violation(s) the merge made");
  }
}

// Deletes A's rows of `table` that plan.json's replaces name (B's row wins: on_conflict keep_b,
// newest), one statement per key; returns how many. A key that finds no row is a mismatch (A
// changed, which the fingerprint should have said).
uint64_t Replace(Database& out, const PlanFile& plan, const std::string& table,
                 Mismatches& mismatches) {
  uint64_t deleted = 0;
  for (const PlanFile::Rows& r : plan.replaces) {
    if (r.table != table) continue;
    std::string where;
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      where += (c ? " AND " : "") + QuoteName(r.columns[c]) + " = ?" + std::to_string(c + 1);
    }
    Statement del = out.Prepare("DELETE FROM main." + QuoteName(table) + " WHERE " + where);
    for (const std::string& key : r.keys) {
      std::vector<std::string> values;
      for (std::size_t from = 0;;) {
        const std::size_t to = key.find('\x1f', from);
        values.push_back(key.substr(from, to == std::string::npos ? std::string::npos : to - from));
        if (to == std::string::npos) break;
        from = to + 1;
      }
      sqlite3_reset(del.get());
      for (std::size_t c = 0; c < values.size(); ++c) {
        const std::string& v = values[c];
        const int i = static_cast<int>(c + 1);
        if (v.size() >= 3 && v.compare(0, 2, "x'") == 0 && v.back() == '\'') {
          std::string bytes;
          for (std::size_t k = 2; k + 1 < v.size(); k += 2) {
            bytes += static_cast<char>(std::stoi(v.substr(k, 2), nullptr, 16));
          }
          sqlite3_bind_blob(del.get(), i, bytes.data(), static_cast<int>(bytes.size()),
                            SQLITE_TRANSIENT);
        } else {
          sqlite3_bind_text(del.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        }
      }
      out.Step(del, "delete A's row of " + table + " that B's replaces");
      const int n = sqlite3_changes(out.get());
      if (n == 0) {
        std::string shown = key;
        for (char& ch : shown) ch = ch == '\x1f' ? ',' : ch;
        mismatches.Add(table + ": A has no row (" + shown + ") for B's to replace");
      }
      deleted += static_cast<uint64_t>(n);
    }
  }
  return deleted;
}

// The output's tables, weighed for CheckIntegrity by their rows and indexes.
std::vector<CheckedTable> Weighed(Database& out, const MergeReport& report) {
  std::map<std::string, uint64_t> indexes;
  Statement list = out.Prepare(
      "SELECT tbl_name, count(*) FROM main.sqlite_schema WHERE type = 'index' GROUP BY tbl_name");
  while (out.Step(list, "read the output's indexes")) {
    indexes[list.Column(0).bytes] = static_cast<uint64_t>(list.Column(1).integer);
  }
  std::vector<CheckedTable> tables;
  for (const auto& [name, columns] : out.Tables("main")) {
    uint64_t rows = 0;
    for (const MergeReport::Table& t : report.tables) rows = t.name == name ? t.merged : rows;
    tables.push_back({name, (rows + 1) * (1 + indexes[name]), rows + 1});
  }
  return tables;
}

}  // namespace

std::vector<std::string> Ordered(const std::map<std::string, std::set<std::string>>& parents) {
  std::vector<std::string> order;
  std::set<std::string> placed;
  while (order.size() < parents.size()) {
    bool progress = false;
    for (const auto& [name, from] : parents) {
      if (placed.count(name) != 0) continue;
      bool ready = true;
      for (const std::string& p : from) {
        ready = ready && (placed.count(p) != 0 || parents.count(p) == 0);
      }
      if (!ready) continue;
      order.push_back(name);
      placed.insert(name);
      progress = true;
    }
    if (!progress) {  // a cycle: the first unplaced table goes next (deferred keys allow it)
      for (const auto& [name, from] : parents) {
        if (placed.count(name) == 0) {
          order.push_back(name);
          placed.insert(name);
          break;
        }
      }
    }
  }
  return order;
}

std::vector<std::string> DependencyOrder(Database& out, const PlanFile& plan) {
  const Tables tables = out.Tables("b");
  std::map<std::string, std::set<std::string>> parents;  // table -> tables it refers to
  for (const auto& [name, columns] : tables) {
    parents[name];
    Statement fk = out.Prepare("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1, 'b')");
    sqlite3_bind_text(fk.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
    while (out.Step(fk, "read the foreign keys of " + name)) {
      const std::string parent = fk.Column(0).bytes;
      if (parent != name) parents[name].insert(parent);
    }
  }
  for (const PlanFile::Remap& r : plan.remaps) {
    for (const PlanFile::Column& ref : r.references) {
      if (ref.table != r.key.table && parents.count(ref.table) != 0) {
        parents[ref.table].insert(r.key.table);
      }
    }
  }
  return Ordered(parents);
}

void MergeTables(Database& out, Database& a_input, const PlanFile& plan, MergeReport& report,
                 Mismatches& mismatches,
                 const std::function<void(uint64_t done, uint64_t total)>& progress) {
  const Tables a = out.Tables("main");
  const Tables b = out.Tables("b");
  // Deferred: a write lock on the output alone when the first insert runs, only read locks on
  // B', which the verification reads at the same time.
  out.Exec("BEGIN");
  MakeMissingTables(out, a, b);
  const std::vector<std::string> order = DependencyOrder(out, plan);
  std::map<std::string, std::vector<std::string>> a_columns(a.begin(), a.end());
  const std::vector<std::string> triggers = SetTriggersAside(out, order);
  report.tables.reserve(report.tables.size() + a.size() + b.size());
  std::map<std::string, MergeReport::Table*> by_name;
  for (MergeReport::Table& t : report.tables) by_name[t.name] = &t;
  uint64_t done = 0;
  for (const std::string& table : order) {
    std::vector<std::string> columns;
    for (const auto& [name, c] : b) {
      if (name == table) columns = c;
    }
    MergeReport::Table* t = by_name.count(table) ? by_name[table] : nullptr;
    if (t == nullptr) {  // a table of B' only (the plan's guard): pointers stay, room reserved
      MergeReport::Table only_b;
      only_b.name = table;
      only_b.rows_b_after = static_cast<uint64_t>(Count(out, "b", table));
      report.tables.push_back(only_b);
      t = by_name[table] = &report.tables.back();
    }
    const auto it = a_columns.find(table);
    if (it != a_columns.end() && std::set<std::string>(it->second.begin(), it->second.end()) !=
                                     std::set<std::string>(columns.begin(), columns.end())) {
      mismatches.Add(table + ": A's columns (" + ColumnList(it->second) + ") are not B''s (" +
                     ColumnList(columns) + "): the schemas drifted; align them before merging");
      out.Exec("ROLLBACK");
      return;
    }
    t->rows_a = it == a_columns.end() ? 0 : static_cast<uint64_t>(Count(out, "main", table));
    t->replaced = Replace(out, plan, table, mismatches);
    t->merged = t->rows_a - t->replaced + t->rows_b_after;
    const std::string error =
        out.TryExec("INSERT INTO main." + QuoteName(table) + " (" + ColumnList(columns) +
                    ") SELECT " + ColumnList(columns) + " FROM b." + QuoteName(table));
    if (!error.empty()) {
      mismatches.Add(table + ": the merge's INSERT failed: " + error);
      out.Exec("ROLLBACK");
      return;
    }
    if (progress) progress(++done, order.size());
  }
  for (const auto& [name, columns] : a) {
    if (by_name.count(name) != 0) continue;
    const uint64_t rows = static_cast<uint64_t>(Count(out, "main", name));
    MergeReport::Table only_a;
    only_a.name = name;
    only_a.rows_a = only_a.merged = rows;
    report.tables.push_back(only_a);
  }
  for (const std::string& sql : triggers) out.Exec(sql);
  // Committed to the working file, which is renamed into place only if every check passes.
  out.Exec("COMMIT");
  // The file no longer changes: written to disk while it is checked, the I/O waits beside the
  // checks' CPU instead of after it, and the fsync before the rename finds little left to do.
  // An error here is Publish's to report, when its own fsync fails.
  std::future<void> flushed = std::async(std::launch::async, [path = out.path()] {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ::fdatasync(fd);
    ::close(fd);
  });
  // One thread more than the cores: this one runs VerifyMerged first, and the checks' tasks
  // (quick_check, a table's pass, an index's) differ too much in length to share the cores
  // well one after another; run together, the kernel shares them (2.0-2.4 s -> 1.9 s at 1M).
  const unsigned workers = 1 + std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::string> damage = CheckIntegrity(out.path(), Weighed(out, report), workers, [&] {
    VerifyMerged(out, a_input, plan, report, mismatches);
  });
  for (std::string& line : damage) mismatches.Add(std::move(line));
  flushed.wait();
}

}  // namespace steadyflake::mergecheck::merge
