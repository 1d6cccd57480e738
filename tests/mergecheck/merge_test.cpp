// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Merge (merge.h) at the library level: the name rule's expressions evaluated as SQLite does,
// the fingerprints, and the row-by-row verification catching what counts cannot (two rows
// that swap entities). tests/cli/merge_test.sh runs merge end to end, on SQLite and MariaDB.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "merge/database.h"
#include "merge/expression.h"
#include "mergecheck_test_util.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/fingerprint.h"
#include "steadyflake/mergecheck/merge.h"
#include "steadyflake/mergecheck/plan.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::QueryInt;
using testing::TempDir;

// Random expressions over three integer columns (NULL among their values) agree with what
// SQLite computes for the same text, so the verification expects what rewrite-b.sql writes.
TEST(MergeExpression, EvaluatesAsSqliteDoes) {
  std::mt19937_64 random = steadyflake::testing::SeededRandom();
  TempDir dir;
  merge::Database db(dir.File("e.db"), merge::Database::Mode::kCreate, "test");
  const std::vector<std::string> columns = {"a", "b", "at_login"};
  const char ops[] = {'+', '-', '&', '|'};
  for (int round = 0; round < 400; ++round) {
    std::string text;
    const int operands = 1 + static_cast<int>(random() % 5);
    for (int i = 0; i < operands; ++i) {
      if (i != 0) text += std::string(" ") + ops[random() % 4] + " ";
      text += random() % 2 ? columns[random() % 3] : std::to_string(random() % 300);
    }
    merge::Row row(3);
    std::string values;
    for (std::size_t c = 0; c < 3; ++c) {
      values += c ? ", " : "";
      if (random() % 8 == 0) {
        values += "NULL AS " + columns[c];
        continue;
      }
      row[c].type = SQLITE_INTEGER;
      row[c].integer = static_cast<int64_t>(random() % 2000) - 1000;
      values += std::to_string(row[c].integer) + " AS " + columns[c];
    }
    merge::Statement stmt = db.Prepare("SELECT " + text + " FROM (SELECT " + values + ")");
    ASSERT_TRUE(db.Step(stmt, text));
    const merge::Value want = stmt.Column(0);
    const merge::Value got = merge::Expression(text, columns).Evaluate(row);
    ASSERT_EQ(got.type, want.type) << text << " over (" << values << ")";
    EXPECT_EQ(got.integer, want.integer) << text << " over (" << values << ")";
  }
}

TEST(MergeExpression, RefusesWhatIsNotColumnsLiteralsAndBitOperators) {
  const std::vector<std::string> columns = {"at_login"};
  for (const char* bad : {"at_login * 2", "flags | 1", "at_login |", "(at_login)", ""}) {
    EXPECT_THROW(merge::Expression(bad, columns), Error) << bad;
  }
}

TEST(MergeFingerprint, NamesWhatChangedAndAcceptsACopy) {
  TempDir dir;
  const std::string path = dir.File("b.db");
  ExecSql(path,
          "CREATE TABLE mail(id INTEGER PRIMARY KEY, x INTEGER);"
          "INSERT INTO mail VALUES (1, 10), (2, 20);");
  const InputFingerprint planned = FingerprintInput(path);
  EXPECT_EQ(planned.rows.at("mail"), 2u);
  const std::string copy = dir.File("copy.db");
  ExecSql(copy, "");
  std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(FingerprintChange(planned, FingerprintInput(copy)), "");
  ExecSql(path, "INSERT INTO mail VALUES (3, 30)");
  EXPECT_EQ(FingerprintChange(planned, FingerprintInput(path)),
            "table mail: 2 rows at the plan, 3 now");
  ExecSql(path, "DELETE FROM mail WHERE id = 3; UPDATE mail SET x = 11 WHERE id = 1");
  EXPECT_NE(FingerprintChange(planned, FingerprintInput(path)).find("its content"),
            std::string::npos);
  ExecSql(path, "CREATE INDEX mail_x ON mail(x)");
  EXPECT_EQ(FingerprintChange(planned, FingerprintInput(path)).rfind("its schema", 0), 0u);
}

// Two shards of players and their items; B's players collide with A's and are remapped.
struct Shards {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  std::string plan = dir.File("plan");
  Shards() {
    const std::string schema =
        "CREATE TABLE player(id INTEGER PRIMARY KEY, uid TEXT NOT NULL);"
        "CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES player(id),"
        " uid TEXT NOT NULL);";
    ExecSql(a, schema +
                   "INSERT INTO player VALUES (1, 'a1'), (2, 'a2');"
                   "INSERT INTO item VALUES (1, 1, 'ai1'), (2, 2, 'ai2');");
    ExecSql(b, schema +
                   "INSERT INTO player VALUES (1, 'b1'), (2, 'b2');"
                   "INSERT INTO item VALUES (11, 1, 'bi1'), (12, 2, 'bi2'), (13, 2, 'bi3');");
    PlanOptions options;
    options.server_id = 103;
    const Plan p = MakePlan(a, b, options);
    std::filesystem::create_directories(plan);
    steadyflake::testing::WriteFile(plan + "/plan.json", FormatPlanJson(p));
    steadyflake::testing::WriteFile(plan + "/rewrite-b.sql", FormatPlanSql(p));
  }
  MergeReport Run(const std::string& out) {
    MergeOptions options;
    options.plan_dir = plan;
    options.out = dir.File(out);
    return Merge(a, b, options);
  }
};

TEST(Merge, MergesAndKeepsEveryItemWithItsOwner) {
  Shards s;
  const MergeReport report = s.Run("m.db");
  ASSERT_TRUE(report.verified) << (report.mismatches.empty() ? "" : report.mismatches[0]);
  const std::string out = s.dir.File("m.db");
  EXPECT_EQ(QueryInt(out, "SELECT count(*) FROM item"), 5);
  // bi3 still belongs to b2, whatever b2's id now is.
  EXPECT_EQ(QueryInt(out,
                     "SELECT count(*) FROM item i JOIN player p ON p.id = i.owner"
                     " WHERE i.uid = 'bi3' AND p.uid = 'b2'"),
            1);
}

// A rewrite that swaps two players' items keeps every count (rows per table, per owner): only
// the comparison of whole rows sees it.
TEST(Merge, CatchesTwoItemsThatSwappedOwners) {
  Shards s;
  std::string sql = steadyflake::testing::ReadFile(s.plan + "/rewrite-b.sql");
  const std::size_t commit = sql.rfind("COMMIT;");
  ASSERT_NE(commit, std::string::npos);
  sql.insert(commit,
             "UPDATE item SET owner = (SELECT owner FROM item WHERE id = 12) WHERE id = 11;"
             "UPDATE item SET owner = (SELECT min(owner) FROM item) WHERE id = 12;\n");
  steadyflake::testing::WriteFile(s.plan + "/rewrite-b.sql", sql);
  const MergeReport report = s.Run("m.db");
  EXPECT_FALSE(report.verified);
  ASSERT_FALSE(report.mismatches.empty());
  EXPECT_EQ(report.mismatches[0].rfind("item: B's row (id=11", 0), 0u) << report.mismatches[0];
  EXPECT_FALSE(std::filesystem::exists(s.dir.File("m.db")));
}

// A connection that keeps a database open, so that what it commits stays in the -wal file (no
// checkpoint while it is open, none at close while another connection has the file).
class WalHolder {
 public:
  WalHolder(const std::string& path, const std::string& sql) {
    sqlite3_open(path.c_str(), &db_);
    sqlite3_exec(db_, ("PRAGMA wal_autocheckpoint = 0;" + sql).c_str(), nullptr, nullptr, nullptr);
  }
  ~WalHolder() { sqlite3_close(db_); }

 private:
  sqlite3* db_ = nullptr;
};

// Inputs in WAL mode whose last rows are only in their logs: the working copies must hold them
// (a WAL database is copied through SQLite, never as its file alone).
TEST(Merge, KeepsTheRowsOnlyAWalInputsLogHolds) {
  Shards s;
  ExecSql(s.a, "PRAGMA journal_mode = WAL");
  ExecSql(s.b, "PRAGMA journal_mode = WAL");
  WalHolder a(s.a, "INSERT INTO item VALUES (3, 1, 'ai3');");
  WalHolder b(s.b, "INSERT INTO item VALUES (14, 1, 'bi4');");
  ASSERT_GT(std::filesystem::file_size(s.a + "-wal"), 0u);
  ASSERT_GT(std::filesystem::file_size(s.b + "-wal"), 0u);
  PlanOptions options;
  options.server_id = 103;
  const Plan p = MakePlan(s.a, s.b, options);
  steadyflake::testing::WriteFile(s.plan + "/plan.json", FormatPlanJson(p));
  steadyflake::testing::WriteFile(s.plan + "/rewrite-b.sql", FormatPlanSql(p));
  const MergeReport report = s.Run("m.db");
  ASSERT_TRUE(report.verified) << (report.mismatches.empty() ? "" : report.mismatches[0]);
  const std::string out = s.dir.File("m.db");
  EXPECT_EQ(QueryInt(out, "SELECT count(*) FROM item WHERE uid IN ('ai3', 'bi4')"), 2);
  EXPECT_EQ(QueryInt(out, "SELECT count(*) FROM item"), 7);
}

// REAL keys: 0.1 is identical in both (dropped from B), 0.7 differs (held back). plan.json
// names them as the plan writes a REAL, and the merge must read B's values as the same text
// (it once wrote 0.10000000000000001 and failed its own verification).
TEST(Merge, DropsAndHoldsRowsUnderRealKeys) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const std::string schema = "CREATE TABLE rate(k REAL PRIMARY KEY, v TEXT NOT NULL);";
  ExecSql(a, schema + "INSERT INTO rate VALUES (0.1, 'same'), (0.7, 'a'), (2.5, 'x');");
  ExecSql(b, schema + "INSERT INTO rate VALUES (0.1, 'same'), (0.7, 'b'), (3.25, 'y');");
  PlanOptions plan_options;
  plan_options.server_id = 103;
  const Plan p = MakePlan(a, b, plan_options);
  const std::string plan = dir.File("plan");
  std::filesystem::create_directories(plan);
  steadyflake::testing::WriteFile(plan + "/plan.json", FormatPlanJson(p));
  steadyflake::testing::WriteFile(plan + "/rewrite-b.sql", FormatPlanSql(p));
  MergeOptions options;
  options.plan_dir = plan;
  options.out = dir.File("m.db");
  const MergeReport report = Merge(a, b, options);
  ASSERT_TRUE(report.verified) << (report.mismatches.empty() ? "" : report.mismatches[0]);
  EXPECT_EQ(QueryInt(options.out, "SELECT count(*) FROM rate"), 4);  // A's 3 and B's 3.25
  EXPECT_EQ(QueryInt(options.out, "SELECT count(*) FROM steadyflake_unmerged_rate WHERE v = 'b'"),
            1);
}

}  // namespace
}  // namespace steadyflake::mergecheck
