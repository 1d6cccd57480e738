// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Rows aside (plan.h, Plan::unmerged): an unresolved value holds back its own rows, and the rows
// that refer or may refer to them, in steadyflake_unmerged_<table> of B; never its whole table.
// Each test applies the rewrite through SQLite, merges every table into A with INSERT ... SELECT
// and checks by the rows' uid columns that no row of B is attached to another entity.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "plan_test_util.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::QueryInt;
using testing::Rows;
using testing::TempDir;

// Two realms whose players 101-150 are in both, as other characters: B's players are 101-250
// (A's 1-150). player_stats is keyed by the player's id (a key inside player's), mail.to_player
// refers to players without a FOREIGN KEY (a proposal, inferred), item.owner_id declares one
// (and so does item.maker_id, the same player or none: a row two entries select), and slot
// refers to items, whose ids do not collide.
struct Realms {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  static constexpr const char* kTables[] = {"player", "player_stats", "item", "slot", "mail"};
  Realms() {
    const std::string schema =
        "CREATE TABLE player(id INTEGER PRIMARY KEY, uid TEXT NOT NULL);"
        "CREATE TABLE player_stats(player_id INTEGER PRIMARY KEY, hp INTEGER, uid TEXT);"
        "CREATE TABLE item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES "
        "player(id), maker_id INTEGER REFERENCES player(id), uid TEXT);"
        "CREATE TABLE slot(item_id INTEGER NOT NULL REFERENCES item(id), n INTEGER NOT NULL, "
        "uid TEXT, PRIMARY KEY(item_id, n));"
        "CREATE TABLE mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, uid TEXT);";
    Make(a, "a", schema, 1, 150, 1, 1, 150);
    Make(b, "b", schema, 101, 150, 5001, 1001, 140);
  }
  // `players` players from `first`; two items each from id `item`; a mail to each of the first
  // `mails` players from id `mail`.
  static void Make(const std::string& path, const std::string& s, const std::string& schema,
                   int first, int players, int item, int mail, int mails) {
    std::string sql = "BEGIN;" + schema;
    const auto row = [&](const std::string& table, const std::string& values) {
      sql += "INSERT INTO " + table + " VALUES(" + values + ");";
    };
    for (int p = first; p < first + players; ++p) {
      const std::string id = std::to_string(p);
      row("player", id + ", '" + s + "-p" + id + "'");
      row("player_stats",
          id + ", " + std::to_string(s == "a" ? p : 1000 + p) + ", '" + s + "-p" + id + "'");
      for (int k = 0; k < 2; ++k) {
        const std::string iid = std::to_string(item + 2 * (p - first) + k);
        row("item", iid + ", " + id + ", " + (k == 0 ? id : "NULL") + ", '" + s + "-i" + iid + "'");
        row("slot", iid + ", 1, '" + s + "-i" + iid + "'");
      }
      if (p < first + mails) {
        const std::string mid = std::to_string(mail + p - first);
        row("mail", mid + ", " + id + ", '" + s + "-m" + mid + "'");
      }
    }
    ExecSql(path, sql + "COMMIT;");
  }
};

PlanOptions Options103() {
  PlanOptions options;
  options.server_id = 103;
  options.made_at = "2026-11-23T00:00:00Z";
  return options;
}

// Who each row of B refers to, by uid: "kind|row|referent".
const std::string kOwners =
    "SELECT 'stats', s.uid, p.uid FROM player_stats s LEFT JOIN player p ON p.id = s.player_id "
    "WHERE s.uid LIKE 'b-%' UNION ALL "
    "SELECT 'item', i.uid, p.uid FROM item i LEFT JOIN player p ON p.id = i.owner_id "
    "WHERE i.uid LIKE 'b-%' UNION ALL "
    "SELECT 'slot', s.uid, i.uid FROM slot s LEFT JOIN item i ON i.id = s.item_id "
    "WHERE s.uid LIKE 'b-%' UNION ALL "
    "SELECT 'mail', m.uid, p.uid FROM mail m LEFT JOIN player p ON p.id = m.to_player "
    "WHERE m.uid LIKE 'b-%'";

uint64_t HeldRows(const Plan& plan, const std::string& table) {
  uint64_t rows = 0;
  for (const Plan::Unmerged& u : plan.unmerged) rows += u.table == table ? u.rows : 0;
  return rows;
}

TEST(PlanAside, AnUnresolvedValueHoldsBackItsRowsAndWhatRefersToThemNeverTheTable) {
  Realms realms;
  const Plan plan = MakePlan(realms.a, realms.b, Options103());
  EXPECT_FALSE(plan.unresolved.empty());  // exit 4: mail.to_player is only a proposal
  EXPECT_TRUE(plan.remaps.empty());
  const std::map<std::string, uint64_t> expected = {
      {"player", 50}, {"player_stats", 50}, {"item", 100}, {"slot", 100}, {"mail", 50}};
  for (const auto& [table, rows] : expected) EXPECT_EQ(HeldRows(plan, table), rows) << table;

  const std::string b2 = realms.dir.File("b2.db");
  const std::string merged = realms.dir.File("merged.db");
  // Every table merges: nothing of B collides with A any more.
  ASSERT_NO_THROW(testing::RewriteAndMerge(realms.a, realms.b, plan,
                                           {std::begin(Realms::kTables), std::end(Realms::kTables)},
                                           b2, merged));
  for (const auto& [table, rows] : expected) {
    EXPECT_EQ(QueryInt(b2, "SELECT count(*) FROM steadyflake_unmerged_" + table), int64_t(rows));
  }
  EXPECT_EQ(QueryInt(b2,
                     "SELECT count(*) FROM steadyflake_unmerged_player WHERE uid NOT LIKE "
                     "'b-p1__' OR CAST(substr(uid, 4) AS INTEGER) > 150"),
            0);  // exactly the players in both shards
  EXPECT_EQ(QueryInt(merged, "SELECT count(*) FROM player"), 150 + 100);
  // Every row of B that merged refers to what it referred to in B; with the rows held back,
  // nothing of B is lost.
  const std::multiset<std::string> before = Rows(realms.b, kOwners);
  const std::multiset<std::string> after = Rows(merged, kOwners);
  EXPECT_EQ(after.size() + 50 + 100 + 100 + 50, before.size());
  for (const std::string& r : after) EXPECT_EQ(before.count(r), 1u) << r;

  // plan.json lists them, for the merge to verify.
  const std::string json = FormatPlanJson(plan);
  EXPECT_NE(json.find("\"unmerged\": ["), std::string::npos);
  EXPECT_NE(json.find("mail.to_player refers or may refer to player.id (inferred)"),
            std::string::npos);
  EXPECT_NE(FormatPlanText(plan).find("held back slot: 100 rows moved into "
                                      "steadyflake_unmerged_slot"),
            std::string::npos);
}

// Confirmed, the same references leave nothing unresolved and nothing held back.
TEST(PlanAside, ConfirmedReferencesHoldNothingBack) {
  Realms realms;
  PlanOptions options = Options103();
  options.check.references = {{"mail", "to_player", "player", "id"},
                              {"player_stats", "player_id", "player", "id"}};
  const Plan plan = MakePlan(realms.a, realms.b, options);
  EXPECT_TRUE(plan.unresolved.empty());
  EXPECT_TRUE(plan.unmerged.empty());
  const std::string merged = realms.dir.File("merged.db");
  testing::RewriteAndMerge(realms.a, realms.b, plan,
                           {std::begin(Realms::kTables), std::end(Realms::kTables)},
                           realms.dir.File("b2.db"), merged);
  EXPECT_EQ(Rows(merged, kOwners), Rows(realms.b, kOwners));
}

// The rewrite moves exactly the rows the plan counted: a B that changed since (one more item
// of a held player) is refused, and the whole rewrite rolls back.
TEST(PlanAside, ARewriteOfABThatChangedSinceThePlanRollsBack) {
  Realms realms;
  const Plan plan = MakePlan(realms.a, realms.b, Options103());
  const std::string b2 = realms.dir.File("b2.db");
  std::filesystem::copy_file(realms.b, b2);
  ExecSql(b2, "INSERT INTO item VALUES(9999, 101, NULL, 'b-i9999');");
  EXPECT_THROW(ExecSql(b2, FormatPlanSql(plan)), std::runtime_error);
  EXPECT_EQ(QueryInt(b2, "SELECT count(*) FROM player"), 150);
  EXPECT_EQ(QueryInt(b2, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'steadyflake%'"), 0);
}

}  // namespace
}  // namespace steadyflake::mergecheck
