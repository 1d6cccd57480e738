// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge profile's rules beyond plain references (plan.h, docs/merging.md "The merge
// profile"): conditional references for polymorphic columns, and the policies for differing
// rows (keep_b, newest) and for keyless tables (dedupe). Each is checked after the rewrite and
// a merge through SQLite, by the rows' uid columns.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "plan_test_util.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::QueryInt;
using testing::TempDir;

PlanOptions Options103() {
  PlanOptions options;
  options.server_id = 103;
  options.made_at = "2026-11-23T00:00:00Z";
  return options;
}

// Characters 1-150 in both shards, other characters; mail's sender is a character when
// messageType is 0 and a creature's entry (1-150 too) when it is 3. sender_uid says which.
struct Mailbox {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  Mailbox() {
    for (const std::string s : {"a", "b"}) {
      std::string sql =
          "BEGIN; CREATE TABLE characters(guid INTEGER PRIMARY KEY, uid TEXT);"
          "CREATE TABLE mail(id INTEGER PRIMARY KEY, messageType INTEGER NOT NULL, sender "
          "INTEGER NOT NULL, receiver INTEGER NOT NULL REFERENCES characters(guid), uid TEXT, "
          "sender_uid TEXT);";
      for (int g = 1; g <= 150; ++g) {
        sql += "INSERT INTO characters VALUES(" + std::to_string(g) + ", '" + s + "-c" +
               std::to_string(g) + "');";
      }
      const int first = s == "a" ? 1 : 1001;
      for (int i = 0; i < 300; ++i) {
        const int type = i % 2 == 0 ? 0 : 3;
        const std::string sender = std::to_string((i * 7) % 150 + 1);
        sql += "INSERT INTO mail VALUES(" + std::to_string(first + i) + ", " +
               std::to_string(type) + ", " + sender + ", " + std::to_string(i % 150 + 1) + ", '" +
               s + "-m" + std::to_string(i) + "', '" +
               (type == 0 ? s + "-c" + sender : "creature-" + sender) + "');";
      }
      ExecSql(s == "a" ? a : b, sql + "COMMIT;");
    }
  }
  // B's mails whose sender is still who sender_uid says, after the merge into `merged`.
  static int64_t RightSenders(const std::string& merged, int type) {
    return QueryInt(merged,
                    "SELECT count(*) FROM mail m LEFT JOIN characters c ON c.guid = m.sender "
                    "WHERE m.uid LIKE 'b-%' AND m.messageType = " +
                        std::to_string(type) +
                        " AND m.sender_uid = CASE m.messageType WHEN 0 THEN c.uid ELSE "
                        "'creature-' || m.sender END");
  }
};

TEST(PlanPolicy, AConditionalReferenceRewritesOnlyTheRowsItsConditionSelects) {
  Mailbox box;
  PlanOptions options = Options103();
  options.check.references = {
      {"mail", "sender", "characters", "guid", "profile", "messageType", 0}};
  const Plan plan = MakePlan(box.a, box.b, options);
  EXPECT_TRUE(plan.unresolved.empty());
  ASSERT_EQ(plan.remaps.size(), 1u);
  uint64_t sender_rows = 0;
  for (const ReferenceReport& r : plan.remaps[0].references) {
    if (r.column == "sender") sender_rows = r.rows;
  }
  EXPECT_EQ(sender_rows, 150u);  // the mails of type 0, not the creatures' 150
  const std::string sql = FormatPlanSql(plan);
  EXPECT_NE(
      sql.find("IN (SELECT old FROM temp.steadyflake_map_1) AND \"mail\".\"messageType\" = 0;"),
      std::string::npos);
  EXPECT_NE(FormatPlanJson(plan).find("\"where\": \"messageType = 0\""), std::string::npos);
  const std::string merged = box.dir.File("merged.db");
  testing::RewriteAndMerge(box.a, box.b, plan, {"characters", "mail"}, box.dir.File("b2.db"),
                           merged);
  EXPECT_EQ(Mailbox::RightSenders(merged, 0), 150);
  EXPECT_EQ(Mailbox::RightSenders(merged, 3), 150);  // creatures' entries untouched

  // Without the condition every sender moves: the creatures' entries with them.
  options.check.references[0].where_column.clear();
  testing::RewriteAndMerge(box.a, box.b, MakePlan(box.a, box.b, options), {"characters", "mail"},
                           box.dir.File("b3.db"), merged);
  EXPECT_EQ(Mailbox::RightSenders(merged, 3), 0);

  options.check.references[0].where_column = "kind";  // B has no such column
  EXPECT_THROW(MakePlan(box.a, box.b, options), Error);
}

// realm_data 1-40 in both shards, differing; `time` says which row is newer: B's when id % 3
// is 0, A's when 1, a tie when 2 (A's wins), and A's NULL for id 40 (B's wins).
struct RealmData {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  RealmData() {
    for (const std::string s : {"a", "b"}) {
      std::string sql =
          "BEGIN; CREATE TABLE realm_data(id INTEGER PRIMARY KEY, data TEXT, time INTEGER);";
      for (int id = 1; id <= 40; ++id) {
        int time = id * 10;
        if (s == "b") time += id % 3 == 0 ? 5 : id % 3 == 1 ? -5 : 0;
        const std::string t = s == "a" && id == 40 ? "NULL" : std::to_string(time);
        sql += "INSERT INTO realm_data VALUES(" + std::to_string(id) + ", '" + s + "-d" +
               std::to_string(id) + "', " + t + ");";
      }
      ExecSql(s == "a" ? a : b, sql + "COMMIT;");
    }
  }
  // The merge as the plan says: A's replaced rows deleted, then B' inserted.
  std::string Merge(const Plan& plan) {
    const std::string b2 = dir.File("b2.db");
    const std::string merged = dir.File("merged.db");
    std::filesystem::copy_file(b, b2, std::filesystem::copy_options::overwrite_existing);
    ExecSql(b2, FormatPlanSql(plan));
    std::filesystem::copy_file(a, merged, std::filesystem::copy_options::overwrite_existing);
    std::string sql = "BEGIN;";
    for (const Plan::Replace& r : plan.replaces) {
      for (const auto& key : r.keys)
        sql += "DELETE FROM realm_data WHERE id = " + key[0].text + ";";
    }
    ExecSql(merged, sql + "ATTACH '" + b2 +
                        "' AS b; INSERT INTO realm_data SELECT * FROM b.realm_data; COMMIT;");
    return merged;
  }
};

TEST(PlanPolicy, KeepBListsAsRowsTheMergeReplaces) {
  RealmData realm;
  PlanOptions options = Options103();
  options.on_conflict = {{"realm_data", "keep_b"}};
  const Plan plan = MakePlan(realm.a, realm.b, options);
  EXPECT_TRUE(plan.unresolved.empty());
  EXPECT_TRUE(plan.remaps.empty());
  EXPECT_TRUE(plan.drops.empty());
  ASSERT_EQ(plan.replaces.size(), 1u);
  EXPECT_EQ(plan.replaces[0].keys.size(), 40u);
  EXPECT_NE(FormatPlanJson(plan).find("\"replaces\": ["), std::string::npos);
  EXPECT_NE(FormatPlanText(plan).find("replace in A realm_data (id): 40 rows"), std::string::npos);
  const std::string merged = realm.Merge(plan);
  EXPECT_EQ(QueryInt(merged, "SELECT count(*) FROM realm_data WHERE data LIKE 'b-%'"), 40);
}

TEST(PlanPolicy, NewestKeepsTheRowWithTheLargerColumnAndAsOnATie) {
  RealmData realm;
  PlanOptions options = Options103();
  options.on_conflict = {{"realm_data", "newest:time"}};
  const Plan plan = MakePlan(realm.a, realm.b, options);
  EXPECT_TRUE(plan.unresolved.empty());
  ASSERT_EQ(plan.replaces.size(), 1u);
  ASSERT_EQ(plan.drops.size(), 1u);
  EXPECT_EQ(plan.replaces[0].keys.size(), 14u);  // 13 with id % 3 == 0, and 40
  EXPECT_EQ(plan.drops[0].keys.size(), 26u);
  EXPECT_NE(plan.drops[0].reason.find("newest"), std::string::npos);
  const std::string merged = realm.Merge(plan);
  EXPECT_EQ(QueryInt(merged,
                     "SELECT count(*) FROM realm_data WHERE data = "
                     "CASE WHEN id % 3 = 0 OR id = 40 THEN 'b-d' ELSE 'a-d' END || id"),
            40);
  options.on_conflict = {{"realm_data", "newest:updated"}};  // no such column
  EXPECT_THROW(MakePlan(realm.a, realm.b, options), Error);
  options.on_conflict = {{"realm_data", "dedupe"}};  // the table has a key
  EXPECT_THROW(MakePlan(realm.a, realm.b, options), Error);
}

TEST(PlanPolicy, DedupeDropsBsRowsIdenticalToOneOfAsNullsIncluded) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const std::string schema = "CREATE TABLE chat_log(who INTEGER, msg TEXT, note TEXT);";
  ExecSql(a, schema + "INSERT INTO chat_log VALUES(1, 'hi', NULL), (2, 'yo', 'x');");
  ExecSql(b, schema +
                 "INSERT INTO chat_log VALUES(1, 'hi', NULL), (1, 'hi', NULL), (2, 'yo', 'y'), "
                 "(3, 'new', NULL);");
  PlanOptions options = Options103();
  options.on_conflict = {{"chat_log", "dedupe"}};
  const Plan plan = MakePlan(a, b, options);
  ASSERT_EQ(plan.drops.size(), 1u);
  EXPECT_TRUE(plan.drops[0].whole_row);
  EXPECT_EQ(plan.drops[0].keys.size(), 1u);
  const std::string merged = dir.File("merged.db");
  testing::RewriteAndMerge(a, b, plan, {"chat_log"}, dir.File("b2.db"), merged);
  EXPECT_EQ(QueryInt(merged, "SELECT count(*) FROM chat_log"), 4);
  EXPECT_EQ(QueryInt(merged, "SELECT count(*) FROM (SELECT DISTINCT who, msg, note FROM chat_log)"),
            4);
  options.on_conflict = {{"chat_log", "keep_a"}};  // no key: nothing of it overlaps
  EXPECT_THROW(MakePlan(a, b, options), Error);
}

// A dump may create every table before it inserts the rows of any: each row belongs to its own
// table, not to the last one created (the visitors of references, drops, rows aside, newest and
// dedupe once read mail's rows with held's columns, and found no conditional row).
TEST(PlanPolicy, ADumpThatCreatesEveryTableFirstIsReadByEachRowsTable) {
  TempDir dir;
  for (const std::string s : {"a", "b"}) {
    testing::WriteFile(
        dir.File(s + ".sql"),
        "CREATE TABLE `characters` (`guid` int NOT NULL, `uid` varchar(20), PRIMARY KEY "
        "(`guid`));\n"
        "CREATE TABLE `mail` (`id` int NOT NULL, `messageType` int NOT NULL, `sender` int NOT "
        "NULL, PRIMARY KEY (`id`));\n"
        "CREATE TABLE `realm_log` (`event` varchar(20), `note` varchar(20));\n"
        "CREATE TABLE `held` (`id` int NOT NULL, `guid` int NOT NULL, PRIMARY KEY (`id`, "
        "`guid`));\n"
        "INSERT INTO `characters` VALUES (1,'" +
            s + "-1'),(2,'" + s + "-2');\n" +
            (s == "b" ? "INSERT INTO `mail` VALUES (10,0,2),(11,3,2);\n"
                      : "INSERT INTO `mail` VALUES (1,0,1);\n") +
            "INSERT INTO `realm_log` VALUES ('boot',NULL),('" + s +
            "',NULL);\n"
            "INSERT INTO `held` VALUES (10,1),(20,1);\n");
  }
  PlanOptions options = Options103();
  options.check.references = {{"mail", "sender", "characters", "guid", "profile", "messageType", 0},
                              {"held", "guid", "characters", "guid"}};
  options.on_conflict = {{"realm_log", "dedupe"}};
  const Plan plan = MakePlan(dir.File("a.sql"), dir.File("b.sql"), options);
  EXPECT_EQ(plan.dialect, "mysql");
  ASSERT_EQ(plan.remaps.size(), 1u);
  std::map<std::string, uint64_t> rows;
  for (const ReferenceReport& r : plan.remaps[0].references) rows[r.column] = r.rows;
  EXPECT_EQ(rows, (std::map<std::string, uint64_t>{{"guid", 2}, {"sender", 1}}));
  ASSERT_EQ(plan.drops.size(), 1u);
  EXPECT_EQ(plan.drops[0].table, "realm_log");
  ASSERT_EQ(plan.drops[0].keys.size(), 1u);  // ('boot', NULL), and no row of another table
  EXPECT_EQ(plan.drops[0].keys[0].size(), 2u);
}

}  // namespace
}  // namespace steadyflake::mergecheck
