// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// merge.sql and verify.sql (merge/merge_sql.h). Each check is a count on the server compared
// with the count the tool made of the dumps with the plan applied (MysqlFacts). In merge.sql a
// check is a row inserted into a temporary table whose CHECK constraint fails unless the two
// agree: the client stops at the first failing statement (it prints merge.sql's line, where a
// comment says what was checked) and the open transaction is rolled back when it disconnects,
// so nothing is committed unless every check passes. verify.sql runs the post-merge checks as
// one query that lists the failing ones: no rows when the merge is right.

#include "merge/merge_sql.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "merge/merge_tables.h"
#include "merge/mysql_facts.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::merge {

namespace {

constexpr std::size_t kRowsPerInsert = 500;

std::string Name(const std::string& name) {
  std::string out = "`";
  for (const char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

std::string Literal(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += c;
    out += c;
  }
  return out + "'";
}

std::string HeldName(const std::string& table) { return "steadyflake_unmerged_" + table; }

// `key` (plan form, values joined by '\x1f') as a MySQL row constructor of literals.
std::string KeyLiteral(const std::string& key) {
  std::string out = "(";
  for (std::size_t from = 0, n = 0;; ++n) {
    const std::size_t to = key.find('\x1f', from);
    const std::string v = key.substr(from, to == std::string::npos ? std::string::npos : to - from);
    out += (n ? ", " : "");
    out += v.size() >= 3 && v.compare(0, 2, "x'") == 0 && v.back() == '\'' ? v : Literal(v);
    if (to == std::string::npos) break;
    from = to + 1;
  }
  return out + ")";
}

struct Check {
  std::string what;
  std::string found;  // a scalar subquery
  uint64_t expected = 0;
};

class Script {
 public:
  Script(const MergeOptions& options) : a_(Name(options.a_db)), b_(Name(options.b_db)) {}
  std::string A(const std::string& table) const { return a_ + "." + Name(table); }
  std::string B(const std::string& table) const { return b_ + "." + Name(table); }
  const std::string& a() const { return a_; }

  // A temporary table of (v, n) rows in A's database, named `name`.
  std::string Expectations(const std::string& name, const std::map<int64_t, uint64_t>& rows) {
    std::string sql = "CREATE TEMPORARY TABLE " + a_ + "." + name +
                      " (v BIGINT NOT NULL PRIMARY KEY, n BIGINT NOT NULL);\n";
    std::size_t i = 0;
    for (const auto& [v, n] : rows) {
      sql += (i % kRowsPerInsert == 0 ? "INSERT INTO " + a_ + "." + name + " VALUES\n  " : ",\n  ");
      sql += "(" + std::to_string(v) + ", " + std::to_string(n) + ")";
      if (++i % kRowsPerInsert == 0 || i == rows.size()) sql += ";\n";
    }
    return sql;
  }

 private:
  std::string a_;
  std::string b_;
};

std::string Where(const PlanFile::Column& c) {
  std::string out = Name(c.column) + " IS NOT NULL";
  if (!c.where_column.empty()) {
    out += " AND " + Name(c.where_column) + " = " + std::to_string(c.where_value);
  }
  return out;
}

// Rows of `db_table`'s column that do not carry the count `expect` says, per value.
std::string PerEntity(const std::string& db_table, const PlanFile::Column& c,
                      const std::string& expect) {
  return "(SELECT COUNT(*) FROM " + expect + " e LEFT JOIN (SELECT " + Name(c.column) +
         " AS v, COUNT(*) AS n FROM " + db_table + " WHERE " + Where(c) + " GROUP BY " +
         Name(c.column) + ") x ON x.v = e.v WHERE COALESCE(x.n, 0) <> e.n)";
}

// MysqlFacts::Column::checksum as the server computes it.
std::string Checksum(const std::string& db_table, const PlanFile::Column& c,
                     const std::string& pk) {
  if (!pk.empty()) {
    return "(SELECT COALESCE(SUM(CRC32(CONCAT(" + Name(pk) + ", ':', " + Name(c.column) +
           "))), 0) FROM " + db_table + " WHERE " + Where(c) + ")";
  }
  return "(SELECT COALESCE(SUM(CRC32(CONCAT(v, ':', n))), 0) FROM (SELECT " + Name(c.column) +
         " AS v, COUNT(*) AS n FROM " + db_table + " WHERE " + Where(c) + " GROUP BY " +
         Name(c.column) + ") x)";
}

// The checks of B' against the plan (before the inserts) and of the merge (after), and the
// temporary tables they read.
void PlanChecks(const PlanFile& plan, const MysqlFacts& facts, Script& s, std::string& setup,
                std::string& setup_after, std::vector<Check>& before, std::vector<Check>& after) {
  before.push_back(
      {"rows of plan " + plan.id + " in B''s steadyflake_merge_plan (rewrite-b.sql applied)",
       "(SELECT COUNT(*) FROM " + s.B("steadyflake_merge_plan") +
           " WHERE plan = " + Literal(plan.id) + ")",
       1});
  for (const auto& [table, t] : facts.tables) {
    if (!t.in_b) continue;
    before.push_back(
        {"rows of B' " + table, "(SELECT COUNT(*) FROM " + s.B(table) + ")", t.b_after()});
    after.push_back(
        {"rows of " + table + " merged", "(SELECT COUNT(*) FROM " + s.A(table) + ")", t.merged()});
    if (t.held != 0) {
      before.push_back({"rows held back in B''s " + HeldName(table),
                        "(SELECT COUNT(*) FROM " + s.B(HeldName(table)) + ")", t.held});
    }
  }
  for (std::size_t r = 0; r < plan.remaps.size(); ++r) {
    const PlanFile::Remap& remap = plan.remaps[r];
    const std::string kt = remap.key.table;
    const std::string kc = Name(remap.key.column);
    before.push_back({kt + "." + remap.key.column + " of B' among A's",
                      "(SELECT COUNT(*) FROM " + s.B(kt) + " x JOIN " + s.A(kt) + " y ON x." + kc +
                          " = y." + kc + ")",
                      0});
    std::string dropped;
    for (const PlanFile::Rows& d : plan.drops) {
      if (d.table == kt && d.columns.size() == 1 && d.columns[0] == remap.key.column) {
        std::map<int64_t, uint64_t> values;
        for (const std::string& k : d.keys) values[std::stoll(k)] = 0;
        const std::string name = "steadyflake_dropped_" + std::to_string(r + 1);
        setup += s.Expectations(name, values);
        dropped = " AND " + kc + " NOT IN (SELECT v FROM " + s.a() + "." + name + ")";
      }
    }
    for (std::size_t j = 0; j <= remap.references.size(); ++j) {
      const PlanFile::Column& c = j == 0 ? remap.key : remap.references[j - 1];
      const MysqlFacts::Column& f = facts.remaps[r][j];
      const std::string label = c.table + "." + c.column;
      const std::string name =
          "steadyflake_expect_" + std::to_string(r + 1) + "_" + std::to_string(j);
      std::map<int64_t, uint64_t> merged = f.b_new;
      for (const auto& [v, n] : f.a_new) merged[v] += n;
      setup += s.Expectations(name + "b", f.b_new);
      setup_after += s.Expectations(name + "m", merged);
      before.push_back({label + ": rows per new value in B'",
                        PerEntity(s.B(c.table), c, s.a() + "." + name + "b"), 0});
      after.push_back({label + ": rows per new value merged",
                       PerEntity(s.A(c.table), c, s.a() + "." + name + "m"), 0});
      after.push_back(
          {label + ": who refers to what (checksum)", Checksum(s.A(c.table), c, f.pk), f.checksum});
      if (j == 0) continue;
      const std::string cc = Name(c.column);
      before.push_back(
          {label + ": rows of B' that would join A's " + kt,
           "(SELECT COUNT(*) FROM " + s.B(c.table) + " WHERE " + Where(c) + " AND " + cc +
               " NOT IN (SELECT " + kc + " FROM " + s.B(kt) + ") AND " + cc + " IN (SELECT " + kc +
               " FROM " + s.A(kt) + ")" +
               (dropped.empty() ? "" : " AND " + cc + dropped.substr(dropped.find(" NOT IN"))) +
               ")",
           0});
      after.push_back({label + ": rows that refer to no " + kt,
                       "(SELECT COUNT(*) FROM " + s.A(c.table) + " WHERE " + Where(c) + " AND " +
                           cc + " NOT IN (SELECT " + kc + " FROM " + s.A(kt) + "))",
                       f.dangling});
    }
  }
  for (std::size_t r = 0; r < plan.renames.size(); ++r) {
    const PlanFile::Rename& rename = plan.renames[r];
    std::string names;
    for (const auto& [from, to] : rename.values) {
      names += (names.empty() ? "" : ", ") + std::string("X'");
      AppendHex(names, to);
      names += "'";
    }
    if (names.empty()) continue;
    before.push_back({rename.key.table + "." + rename.key.column + ": rows renamed in B'",
                      "(SELECT COUNT(*) FROM " + s.B(rename.key.table) + " WHERE BINARY " +
                          Name(rename.key.column) + " IN (" + names + "))",
                      facts.renamed[r]});
  }
}

std::string Run(const std::vector<Check>& checks, const std::string& table, std::size_t& n) {
  std::string out;
  for (const Check& c : checks) {
    ++n;
    out += "-- check " + std::to_string(n) + ": " + c.what + " = " + std::to_string(c.expected) +
           "\nINSERT INTO " + table + " VALUES (" + std::to_string(n) + ", " + Literal(c.what) +
           ", " + c.found + " = " + std::to_string(c.expected) + ");\n";
  }
  return out;
}

std::string VerifySql(const PlanFile& plan, const std::string& setup,
                      const std::vector<Check>& after) {
  std::string out = "-- steadyflake merge " + plan.id +
                    ": checks of the merged database, run again at any time.\n"
                    "-- Each row is a check that fails: no rows when the merge is right.\n";
  std::string query;
  for (std::size_t i = 0; i < after.size(); ++i) {
    query += std::string(i ? "UNION ALL " : "") + "SELECT " + std::to_string(i + 1) + " AS n, " +
             Literal(after[i].what) + " AS what, " + after[i].found + " AS found, " +
             std::to_string(after[i].expected) + " AS expected\n";
  }
  if (query.empty()) return out;
  return out + setup + "SELECT * FROM (\n" + query + ") AS checks WHERE found <> expected;\n";
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  const std::string tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (std::size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    done += ok ? static_cast<std::size_t>(n) : 0;
  }
  ok = ok && ::fsync(fd) == 0;
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    throw Error(Error::Code::kInvalidArgument, "cannot write " + path.string() + ": " +
                                                   std::strerror(error) +
                                                   "; name a folder you can write for --out");
  }
}

}  // namespace

void WriteMysqlMerge(const std::string& path_a, const std::string& path_b, const PlanFile& plan,
                     const MergeOptions& options, MergeReport& report) {
  const MysqlFacts facts = GatherMysqlFacts(path_a, path_b, plan);
  Script s(options);
  std::string setup;
  std::string setup_after;
  std::vector<Check> before;
  std::vector<Check> after;
  PlanChecks(plan, facts, s, setup, setup_after, before, after);
  std::map<std::string, std::set<std::string>> parents;
  for (const auto& [name, t] : facts.tables) {
    if (t.in_b) parents[name] = t.parents;
  }
  for (const PlanFile::Remap& r : plan.remaps) {
    for (const PlanFile::Column& ref : r.references) {
      if (ref.table != r.key.table && parents.count(ref.table) != 0) {
        parents[ref.table].insert(r.key.table);
      }
    }
  }
  const std::vector<std::string> order = Ordered(parents);
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  bool cycle = false;
  for (const auto& [name, from] : parents) {
    for (const std::string& p : from) {
      cycle = cycle || (position.count(p) != 0 && position[p] > position[name]);
    }
  }

  std::string sql =
      "-- steadyflake merge " + plan.id + ": B' (database " + Name(options.b_db) +
      ", B after rewrite-b.sql) into A (database " + s.a() + ").\n" +
      "-- Run it with the server's client, which stops at the first error:\n"
      "--   mariadb < merge.sql\n"
      "-- One transaction (InnoDB tables): the inserts in dependency order, then the checks.\n"
      "-- A check that fails stops the client at its line (\"CONSTRAINT ...\n"
      "-- steadyflake_verification_failed failed\"; the comment above it says what), and the\n"
      "-- transaction is rolled back: nothing is committed unless every check passes.\n";
  for (const auto& [name, t] : facts.tables) {
    if (t.in_b && !t.in_a) {
      sql += "-- (before the transaction: DDL commits in MySQL) a table A lacks, made empty\n";
      sql += "CREATE TABLE IF NOT EXISTS " + s.A(name) + " LIKE " + s.B(name) + ";\n";
    }
  }
  sql += "-- (before the transaction) the plan's guard, where A keeps the plans merged into it\n";
  sql += "CREATE TABLE IF NOT EXISTS " + s.A("steadyflake_merge_plan") + " LIKE " +
         s.B("steadyflake_merge_plan") + ";\n";
  for (const auto& [name, t] : facts.tables) {
    if (t.held == 0) continue;
    sql += "-- (before the transaction) where A keeps the rows of B held back\n";
    sql += "CREATE TABLE IF NOT EXISTS " + s.A(HeldName(name)) + " LIKE " + s.B(HeldName(name)) +
           ";\n";
  }
  sql += "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO';\n";
  if (cycle || !plan.replaces.empty()) {
    sql +=
        "SET SESSION FOREIGN_KEY_CHECKS = 0;  -- tables that refer to each other, or rows of A "
        "replaced by B's\n";
  }
  sql += "START TRANSACTION;\n";
  const std::string check = s.a() + ".steadyflake_check";
  sql += "CREATE TEMPORARY TABLE " + check +
         " (n INT NOT NULL, what VARCHAR(255) NOT NULL, ok INT NOT NULL,\n"
         "  CONSTRAINT steadyflake_verification_failed CHECK (ok = 1));\n";
  sql += setup + setup_after;
  std::size_t n = 0;
  sql += "-- B' against the plan, before anything is merged\n" + Run(before, check, n);
  std::vector<Check> held_after;
  for (const auto& [name, t] : facts.tables) {
    if (t.held == 0) continue;
    const std::string var = "@steadyflake_held_" + std::to_string(held_after.size() + 1);
    sql += "SET " + var + " = (SELECT COUNT(*) FROM " + s.A(HeldName(name)) + ");\n";
    held_after.push_back({"rows held back added to " + HeldName(name),
                          "((SELECT COUNT(*) FROM " + s.A(HeldName(name)) + ") - " + var + ")",
                          t.held});
  }
  for (const PlanFile::Rows& r : plan.replaces) {
    std::string columns;
    for (const std::string& c : r.columns) columns += (columns.empty() ? "" : ", ") + Name(c);
    std::string keys;
    for (const std::string& k : r.keys) keys += (keys.empty() ? "" : ",\n  ") + KeyLiteral(k);
    if (keys.empty()) continue;
    sql += "-- A's rows that B's replace (" + r.reason + ")\n";
    sql += "DELETE FROM " + s.A(r.table) + " WHERE (" + columns + ") IN (\n  " + keys + ");\n";
  }
  sql += "-- the merge, in dependency order\n";
  for (const std::string& table : order) {
    std::string columns;
    for (const std::string& c : facts.tables.at(table).columns) {
      columns += (columns.empty() ? "" : ", ") + Name(c);
    }
    sql += "INSERT INTO " + s.A(table) + " (" + columns + ") SELECT " + columns + " FROM " +
           s.B(table) + ";\n";
  }
  for (const auto& [name, t] : facts.tables) {
    if (t.held == 0) continue;
    sql += "INSERT INTO " + s.A(HeldName(name)) + " SELECT * FROM " + s.B(HeldName(name)) + ";\n";
  }
  sql += "INSERT INTO " + s.A("steadyflake_merge_plan") + " SELECT * FROM " +
         s.B("steadyflake_merge_plan") + " WHERE plan = " + Literal(plan.id) + ";\n";
  sql += "-- the merged database\n" + Run(after, check, n) + Run(held_after, check, n);
  sql += "COMMIT;\n";
  if (cycle || !plan.replaces.empty()) sql += "SET SESSION FOREIGN_KEY_CHECKS = 1;\n";

  std::error_code error;
  std::filesystem::create_directories(options.out, error);
  if (error) {
    throw Error(Error::Code::kInvalidArgument, "cannot make the folder " + options.out + ": " +
                                                   error.message() + "; name one you can write");
  }
  WriteFile(std::filesystem::path(options.out) / "merge.sql", sql);
  WriteFile(std::filesystem::path(options.out) / "verify.sql", VerifySql(plan, setup_after, after));
  for (const auto& [name, t] : facts.tables) {
    MergeReport::Table row;
    row.name = name;
    row.rows_a = t.rows_a;
    row.rows_b = t.rows_b;
    row.rows_b_after = t.b_after();
    row.dropped = t.dropped;
    row.held = t.held;
    row.replaced = t.replaced;
    row.merged = t.merged();
    report.tables.push_back(row);
  }
  for (std::size_t r = 0; r < plan.remaps.size(); ++r) {
    uint64_t rows = 0;
    for (const MysqlFacts::Column& c : facts.remaps[r]) {
      for (const auto& [v, k] : c.b_new) rows += k;
    }
    report.keys.push_back({"remapped", plan.remaps[r].key.table, plan.remaps[r].key.column,
                           plan.remaps[r].values.size(), plan.remaps[r].references.size(), rows});
  }
  report.notes.push_back("wrote " + options.out +
                         "/merge.sql and verify.sql: " + std::to_string(n) + " checks");
  report.verified = true;
}

}  // namespace steadyflake::mergecheck::merge
