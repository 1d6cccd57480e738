// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// MakePlan and its outputs (plan.h) on the merge-plan fixture (data/merge_plan/): what each
// conflict becomes, that rewrite-b.sql applied through SQLite leaves no overlapping key, and
// what MakePlan refuses. tests/cli/merge_plan_test.sh runs the same day end to end through the
// CLI, sqlite3 and MariaDB; these run under the sanitizers too.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "mergecheck_test_util.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/plan.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::ReadFile;
using testing::ShardFile;
using testing::TempDir;

std::string PlanFile(const std::string& name) { return ShardFile("../merge_plan/" + name); }

struct Shards {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  Shards() {
    for (const auto& [path, shard] : {std::pair{a, "a"}, std::pair{b, "b"}}) {
      ExecSql(path, "BEGIN;" + ReadFile(PlanFile("schema.sqlite.sql")) +
                        ReadFile(PlanFile(std::string(shard) + ".data.sql")) + "COMMIT;");
    }
  }
};

// Fresh IDs from a counter: deterministic, and above every ID of the fixture.
PlanOptions Fixed() {
  PlanOptions options;
  options.server_id = 103;
  options.made_at = "2026-11-23T00:00:00Z";
  // The references the fixture declares no FOREIGN KEY for, confirmed as an operator would:
  // found by name or inferred, they are proposals a plan never applies unconfirmed.
  options.check.references = {
      {"item", "owner_id", "player", "id"},     {"guild_member", "player_id", "player", "id"},
      {"mail", "to_player", "player", "id"},    {"player_slot", "player_id", "player", "id"},
      {"player_slot", "item_id", "item", "id"}, {"item", "template_id", "item_template", "id"}};
  auto next = std::make_shared<int64_t>(int64_t{1} << 60);
  options.next_id = [next] { return (*next)++; };
  return options;
}

const Plan::Remap* RemapOf(const Plan& plan, const std::string& table) {
  for (const Plan::Remap& r : plan.remaps) {
    if (r.table == table) return &r;
  }
  return nullptr;
}

TEST(Plan, DecidesEveryConflictOfTheFixture) {
  Shards shards;
  const Plan plan = MakePlan(shards.a, shards.b, Fixed());
  EXPECT_EQ(plan.dialect, "sqlite");
  EXPECT_EQ(plan.b_server, 102u);
  ASSERT_EQ(plan.remaps.size(), 4u);  // guild, item, item_template, player (by table)
  const Plan::Remap* player = RemapOf(plan, "player");
  ASSERT_NE(player, nullptr);
  EXPECT_EQ(player->method, "offset");
  EXPECT_EQ(player->offset, 300);  // B's 1..260 above A's largest, 300
  EXPECT_EQ(player->values.size(), 260u);
  std::vector<std::string> refs;
  for (const ReferenceReport& r : player->references)
    refs.push_back(r.table + "." + r.column + " " + r.found);
  EXPECT_EQ(refs,
            (std::vector<std::string>{"guild.leader_id foreign key",
                                      "guild_member.player_id --refs", "item.owner_id --refs",
                                      "mail.to_player --refs", "player_slot.player_id --refs"}));
  const Plan::Remap* item = RemapOf(plan, "item");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->method, "fresh IDs");
  ASSERT_EQ(item->values.size(), 11u);  // 10 differing, and the twin that refers to player 7
  EXPECT_EQ(item->values.front().second, int64_t{1} << 60);
  ASSERT_EQ(plan.drops.size(), 1u);
  EXPECT_EQ(plan.drops[0].table, "item_template");
  EXPECT_EQ(plan.drops[0].keys.size(), 20u);
  bool slot_follows = false;
  for (const Plan::Follow& f : plan.follows) {
    slot_follows =
        slot_follows || (f.table == "player_slot" && f.via == "player.id" && f.values == 390);
  }
  EXPECT_TRUE(slot_follows);
  std::map<std::string, std::string> names;
  for (const Plan::Rename& r : plan.renames) {
    if (r.table != "player") continue;
    EXPECT_EQ(r.max_length, 12);
    for (const auto& [from, to] : r.values) names[from] = to;
  }
  EXPECT_EQ(names, (std::map<std::string, std::string>{{"Bob", "Bob.s102"},
                                                       {"Dave", "Dave.s102-2"},
                                                       {"abcdefghijkl", "abcdefg.s102"},
                                                       {"alice", "alice.s102"},
                                                       {"eve", "eve.s102"}}));
  EXPECT_TRUE(plan.unresolved.empty());
}

TEST(Plan, TheRewriteLeavesNoOverlapAndRefusesASecondRun) {
  Shards shards;
  const Plan plan = MakePlan(shards.a, shards.b, Fixed());
  const std::string sql = FormatPlanSql(plan);
  const std::string rewritten = shards.dir.File("b2.db");
  std::filesystem::copy_file(shards.b, rewritten);
  ExecSql(rewritten, sql);
  Options options;
  const Report after = Check(shards.a, rewritten, options);
  for (const KeyReport& k : after.keys) EXPECT_EQ(k.overlap, 0u) << k.table;
  EXPECT_THROW(ExecSql(rewritten, sql), std::runtime_error);
  // The same inputs, time and IDs give the same plan.
  EXPECT_EQ(FormatPlanSql(MakePlan(shards.a, shards.b, Fixed())), sql);
  EXPECT_EQ(FormatPlanJson(MakePlan(shards.a, shards.b, Fixed())), FormatPlanJson(plan));
}

// The details of SQLite's plan for `sql` on `db`, one per line.
std::string QueryPlan(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &stmt, nullptr) !=
      SQLITE_OK) {
    return std::string("cannot plan: ") + sqlite3_errmsg(db);
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    out += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3)) + std::string("\n");
  }
  sqlite3_finalize(stmt);
  return out;
}

// A remapped key's own UPDATE finds its rows through the key's index (the rowid here), value by
// value, rather than scanning the table: on a shard of a million players for a thousand values
// that is 0.005 s against 0.13 s, on the merge's critical path.
TEST(Plan, TheRewriteSeeksTheRowsOfARemappedKey) {
  Shards shards;
  const Plan plan = MakePlan(shards.a, shards.b, Fixed());
  const std::string sql = FormatPlanSql(plan);
  ASSERT_FALSE(plan.remaps.empty());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(shards.b.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  for (std::size_t i = 0; i < plan.remaps.size(); ++i) {
    const std::string map = "steadyflake_map_" + std::to_string(i + 1);
    sqlite3_exec(db,
                 ("CREATE TEMP TABLE " + map + " (old INTEGER PRIMARY KEY, new INTEGER)").c_str(),
                 nullptr, nullptr, nullptr);
    const Plan::Remap& r = plan.remaps[i];
    const std::string head = "UPDATE OR ROLLBACK \"" + r.table + "\" SET \"" + r.column + "\" = ";
    const std::size_t at = sql.find(head);
    ASSERT_NE(at, std::string::npos) << head;
    const std::string update = sql.substr(at, sql.find('\n', at) - at);
    const std::string details = QueryPlan(db, update);
    EXPECT_NE(details.find("SEARCH " + r.table), std::string::npos) << update << "\n" << details;
    EXPECT_EQ(details.find("SCAN " + r.table), std::string::npos) << update << "\n" << details;
  }
  sqlite3_close(db);
}

const Plan::Unresolved* UnresolvedOf(const Plan& plan, const std::string& table,
                                     const std::string& column) {
  for (const Plan::Unresolved& u : plan.unresolved) {
    if (u.table == table && u.columns == std::vector<std::string>{column}) return &u;
  }
  return nullptr;
}

// Found by name or inferred, a reference is a proposal: the key it may refer to is held (not
// remapped, its values unresolved), so no row is left on A's entity of the same value.
TEST(Plan, UnconfirmedReferencesHoldTheKeyTheyMayReferTo) {
  Shards shards;
  PlanOptions options = Fixed();
  options.check.references.clear();
  const Plan plan = MakePlan(shards.a, shards.b, options);
  EXPECT_EQ(RemapOf(plan, "player"), nullptr);
  EXPECT_EQ(RemapOf(plan, "item"), nullptr);
  EXPECT_EQ(RemapOf(plan, "item_template"), nullptr);
  const Plan::Remap* guild = RemapOf(plan, "guild");  // its one reference is a FOREIGN KEY
  ASSERT_NE(guild, nullptr);
  for (const auto& [table, column, key] : {std::tuple{"guild_member", "player_id", "player.id"},
                                           {"player_slot", "player_id", "player.id"},
                                           {"mail", "to_player", "player.id"},
                                           {"item", "owner_id", "player.id"},
                                           {"player_slot", "item_id", "item.id"},
                                           {"item", "template_id", "item_template.id"}}) {
    const Plan::Unresolved* u = UnresolvedOf(plan, table, column);
    ASSERT_NE(u, nullptr) << table << "." << column;
    EXPECT_NE(u->reason.find(std::string("--refs line '") + table + "." + column + " -> " + key),
              std::string::npos)
        << u->reason;
  }
  std::size_t held = 0;
  for (const Plan::Unresolved& u : plan.unresolved) {
    if (u.table != "player" || u.columns != std::vector<std::string>{"id"}) continue;
    ++held;
    EXPECT_EQ(u.value.size(), 1u);
    EXPECT_NE(u.reason.find("not remapped while 4 unconfirmed references"), std::string::npos)
        << u.reason;
  }
  EXPECT_EQ(held, 260u);  // each of B's differing players
  // The item identical in A and B whose owner_id may refer to a held player is not dropped:
  // only item_template's rows are.
  ASSERT_EQ(plan.drops.size(), 1u);
  EXPECT_EQ(plan.drops[0].table, "item_template");
  // No row of B follows a held key: player_slot's keys stay, each unresolved, saying why.
  for (const Plan::Follow& f : plan.follows) EXPECT_NE(f.via, "player.id") << f.table;
  const Plan::Unresolved* slot = nullptr;
  for (const Plan::Unresolved& u : plan.unresolved) {
    if (u.table == "player_slot" && u.columns.size() == 2) slot = &u;
  }
  ASSERT_NE(slot, nullptr);
  EXPECT_NE(slot->reason.find("would follow the remap of player.id, which is held"),
            std::string::npos)
      << slot->reason;
}

// Two small shards of a game whose character_homebind is keyed by the character's guid (a 1:1
// extension table, a row for 108 of the 135 characters, guids 1-150 but the tens), with no
// FOREIGN KEY: its guids all lie among the characters'. Guild ids 1-110 lie in the same range,
// but not among them (the tens): a key of its own.
struct Homebind {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  Homebind() {
    for (const auto& [path, shard] : {std::pair{a, "a"}, std::pair{b, "b"}}) {
      std::string sql =
          "BEGIN; CREATE TABLE characters(guid INTEGER PRIMARY KEY, name TEXT, uid TEXT);"
          "CREATE TABLE character_homebind(guid INTEGER PRIMARY KEY, map INTEGER, uid TEXT);"
          "CREATE TABLE guild(id INTEGER PRIMARY KEY, uid TEXT);";
      for (int id = 1; id <= 110; ++id) {
        sql += "INSERT INTO guild VALUES(" + std::to_string(id) + ", '" + shard +
               std::to_string(id) + "');";
      }
      for (int guid = 1; guid <= 150; ++guid) {
        if (guid % 10 == 0) continue;
        const std::string owner = std::string(shard) + std::to_string(guid);
        sql += "INSERT INTO characters VALUES(" + std::to_string(guid) + ", 'n" + owner + "', '" +
               owner + "');";
        if (guid > 120) continue;
        sql += "INSERT INTO character_homebind VALUES(" + std::to_string(guid) + ", " +
               std::to_string(shard[0] == 'a' ? guid : guid + 1000) + ", '" + owner + "');";
      }
      ExecSql(path, sql + "COMMIT;");
    }
  }
};

TEST(Plan, AKeyInsideAnotherIsHeldWithItUntilConfirmed) {
  Homebind shards;
  PlanOptions options = Fixed();
  options.check.references.clear();
  const Plan unconfirmed = MakePlan(shards.a, shards.b, options);
  ASSERT_EQ(unconfirmed.remaps.size(), 1u);  // neither character key moves on a guess
  EXPECT_EQ(unconfirmed.remaps[0].table, "guild");
  const Plan::Unresolved* child = UnresolvedOf(unconfirmed, "character_homebind", "guid");
  ASSERT_NE(child, nullptr);
  EXPECT_NE(child->reason.find("'character_homebind.guid -> characters.guid'"), std::string::npos)
      << child->reason;

  options.check.references = {{"character_homebind", "guid", "characters", "guid"}};
  const Plan plan = MakePlan(shards.a, shards.b, options);
  ASSERT_EQ(plan.remaps.size(), 2u);
  EXPECT_EQ(plan.remaps[0].table, "characters");
  EXPECT_EQ(plan.remaps[1].table, "guild");
  ASSERT_EQ(plan.follows.size(), 1u);
  EXPECT_EQ(plan.follows[0].table, "character_homebind");
  EXPECT_EQ(plan.follows[0].values, 108u);
  EXPECT_TRUE(plan.unresolved.empty());
  // After the rewrite every homebind row of B still belongs to its own character.
  const std::string rewritten = shards.dir.File("b2.db");
  std::filesystem::copy_file(shards.b, rewritten);
  ExecSql(rewritten, FormatPlanSql(plan));
  EXPECT_EQ(testing::QueryInt(rewritten,
                              "SELECT count(*) FROM character_homebind h JOIN characters c "
                              "USING(guid) WHERE h.uid = c.uid"),
            108);
}

// Realms that share one login database: account ids mean the same account in every shard.
// account_tutorial is keyed by the account id, and this shard has no account table.
struct SharedAccounts {
  TempDir dir;
  std::string a = dir.File("a.db");
  std::string b = dir.File("b.db");
  SharedAccounts() {
    for (const auto& [path, shard] : {std::pair{a, "a"}, std::pair{b, "b"}}) {
      std::string sql =
          "BEGIN; CREATE TABLE characters(guid INTEGER PRIMARY KEY, account INTEGER, uid TEXT);"
          "CREATE TABLE account_tutorial(accountId INTEGER PRIMARY KEY, tut INTEGER);";
      for (int guid = 1; guid <= 150; ++guid) {
        sql += "INSERT INTO characters VALUES(" + std::to_string(guid) + ", " +
               std::to_string(guid % 40 + 1) + ", '" + shard + std::to_string(guid) + "');";
      }
      for (int account = 1; account <= 40; ++account) {
        sql += "INSERT INTO account_tutorial VALUES(" + std::to_string(account) + ", " +
               (shard[0] == 'a' ? "1" : "2") + ");";
      }
      ExecSql(path, sql + "COMMIT;");
    }
  }
};

TEST(Plan, AKeyNamedForATableElsewhereIsHeldUntilMarkedGlobal) {
  SharedAccounts shards;
  PlanOptions options = Fixed();
  options.check.references.clear();
  const Plan unmarked = MakePlan(shards.a, shards.b, options);
  EXPECT_EQ(RemapOf(unmarked, "account_tutorial"), nullptr);
  const Plan::Unresolved* named = UnresolvedOf(unmarked, "account_tutorial", "accountId");
  ASSERT_NE(named, nullptr);
  EXPECT_NE(named->reason.find("named for a table this shard does not have (account)"),
            std::string::npos)
      << named->reason;
  EXPECT_NE(named->reason.find("global = [\"account_tutorial.accountId\"]"), std::string::npos);

  options.global = {{"account_tutorial", "accountId"}};
  const Plan plan = MakePlan(shards.a, shards.b, options);
  EXPECT_EQ(RemapOf(plan, "account_tutorial"), nullptr);
  ASSERT_NE(RemapOf(plan, "characters"), nullptr);  // the characters still move
  std::size_t global = 0;
  for (const Plan::Unresolved& u : plan.unresolved) {
    EXPECT_EQ(u.table, "account_tutorial");
    EXPECT_NE(u.reason.find("a global key"), std::string::npos) << u.reason;
    global += u.value.size();
  }
  EXPECT_EQ(global, 40u);  // each differing account row, none remapped
  // Every character of B keeps its account after the rewrite.
  const std::string rewritten = shards.dir.File("b2.db");
  std::filesystem::copy_file(shards.b, rewritten);
  ExecSql(rewritten, FormatPlanSql(plan));
  EXPECT_EQ(testing::QueryInt(rewritten,
                              "SELECT count(*) FROM characters WHERE account = "
                              "CAST(substr(uid, 2) AS INTEGER) % 40 + 1"),
            150);
  options.global = {{"account_tutorial", "account"}};
  EXPECT_THROW(MakePlan(shards.a, shards.b, options), Error);  // no such column
}

// on_conflict = keep_a: B's differing account rows are dropped, A's stay; nothing unresolved.
TEST(Plan, KeepADropsBsDifferingRowsOfTheTable) {
  SharedAccounts shards;
  PlanOptions options = Fixed();
  options.check.references.clear();
  options.global = {{"account_tutorial", "accountId"}};
  options.on_conflict = {{"account_tutorial", "keep_a"}};
  const Plan plan = MakePlan(shards.a, shards.b, options);
  EXPECT_TRUE(plan.unresolved.empty());
  ASSERT_EQ(plan.drops.size(), 1u);
  EXPECT_EQ(plan.drops[0].table, "account_tutorial");
  EXPECT_EQ(plan.drops[0].keys.size(), 40u);
  EXPECT_NE(plan.drops[0].reason.find("keep_a"), std::string::npos);
  const std::string rewritten = shards.dir.File("b2.db");
  std::filesystem::copy_file(shards.b, rewritten);
  ExecSql(rewritten, FormatPlanSql(plan));
  EXPECT_EQ(testing::QueryInt(rewritten, "SELECT count(*) FROM account_tutorial"), 0);
  EXPECT_EQ(testing::QueryInt(rewritten, "SELECT count(*) FROM characters"), 150);
  options.on_conflict = {{"account_tutorial", "keep_c"}};  // no such policy
  EXPECT_THROW(MakePlan(shards.a, shards.b, options), Error);
  options.on_conflict = {{"accounts", "keep_a"}};  // no such table
  EXPECT_THROW(MakePlan(shards.a, shards.b, options), Error);
}

// A game that compares names case-insensitively in a BINARY column: 'Alice' of A and 'alice' of
// B are one name to it. The profile's names rule compares under NOCASE, renames by its own
// template and sets the "rename at next login" bit on the renamed row.
TEST(Plan, ANameRuleComparesUnderTheGamesRuleAndFlagsRenamedRows) {
  TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const std::string schema =
      "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT UNIQUE, at_login INTEGER NOT NULL);";
  ExecSql(a, schema + "INSERT INTO player VALUES(1, 'Alice', 0), (2, 'bob', 4);");
  ExecSql(b, schema + "INSERT INTO player VALUES(11, 'alice', 2), (12, 'carol', 0);");
  PlanOptions options = Fixed();
  options.check.references.clear();
  EXPECT_TRUE(MakePlan(a, b, options).renames.empty());  // under BINARY, no name collides
  options.check.extra_keys = {{"player", {"name"}, {"NOCASE"}}};
  options.names = {{"player", "name", "{name}.eu", {{"at_login", "at_login | 1"}}}};
  const Plan plan = MakePlan(a, b, options);
  ASSERT_EQ(plan.renames.size(), 1u);
  EXPECT_EQ(plan.renames[0].values,
            (std::vector<std::pair<std::string, std::string>>{{"alice", "alice.eu"}}));
  const std::string rewritten = dir.File("b2.db");
  std::filesystem::copy_file(b, rewritten);
  ExecSql(rewritten, FormatPlanSql(plan));
  EXPECT_EQ(testing::QueryInt(rewritten, "SELECT at_login FROM player WHERE id = 11"), 3);
  EXPECT_EQ(testing::QueryInt(rewritten, "SELECT at_login FROM player WHERE id = 12"), 0);
  for (const char* bad : {"at_login | name", "at_login |", "at_login * 2", "nope + 1"}) {
    options.names[0].set = {{"at_login", bad}};
    EXPECT_THROW(MakePlan(a, b, options), Error) << bad;
  }
  options.names[0].set = {};
  options.check.extra_keys = {{"player", {"name"}, {"utf8mb4_nonsense_ci"}}};
  EXPECT_THROW(MakePlan(a, b, options), Error);
}

// A rename never takes a name the table holds, also from a dump that creates every table before
// the rows of any (a schema dump and a data dump concatenated): the names taken are read table by
// table as the rows come, not by the table the dump announced last.
TEST(Plan, ARenameAvoidsANameTakenInADumpThatCreatesEveryTableFirst) {
  TempDir dir;
  const std::string schema =
      "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT UNIQUE);\n"
      "CREATE TABLE guild(id INTEGER PRIMARY KEY, tag TEXT);\n";
  const std::string rows_a =
      "INSERT INTO player VALUES(1,'bob');\nINSERT INTO player VALUES(2,'eve');\n"
      "INSERT INTO guild VALUES(1,'g');\n";
  const std::string rows_b =
      "INSERT INTO player VALUES(11,'bob');\nINSERT INTO player VALUES(12,'bob.eu');\n"
      "INSERT INTO guild VALUES(5,'h');\n";
  testing::WriteFile(dir.File("a.sql"), schema + rows_a);
  testing::WriteFile(dir.File("b.sql"), schema + rows_b);
  ExecSql(dir.File("a.db"), schema + rows_a);
  ExecSql(dir.File("b.db"), schema + rows_b);
  PlanOptions options = Fixed();
  options.check.references.clear();
  options.names = {{"player", "name", "{name}.eu", {}}};
  const Plan from_files = MakePlan(dir.File("a.db"), dir.File("b.db"), options);
  const Plan from_dumps = MakePlan(dir.File("a.sql"), dir.File("b.sql"), options);
  const std::vector<std::pair<std::string, std::string>> want{{"bob", "bob.eu-2"}};
  ASSERT_EQ(from_files.renames.size(), 1u);
  EXPECT_EQ(from_files.renames[0].values, want);
  ASSERT_EQ(from_dumps.renames.size(), 1u);
  EXPECT_EQ(from_dumps.renames[0].values, want);
}

TEST(Plan, RefusesAServerIdAShardHoldsAndFreshIdsWithoutAGenerator) {
  Shards shards;
  PlanOptions options = Fixed();
  options.server_id = 102;
  EXPECT_THROW(MakePlan(shards.a, shards.b, options), Error);
  options = Fixed();
  options.next_id = nullptr;
  EXPECT_THROW(MakePlan(shards.a, shards.b, options), Error);
  options = Fixed();
  options.rename = "{server}";
  EXPECT_THROW(MakePlan(shards.a, shards.b, options), Error);
}

}  // namespace
}  // namespace steadyflake::mergecheck
