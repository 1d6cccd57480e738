// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// MakePlan and its outputs (plan.h) on the merge-plan fixture (data/merge_plan/): what each
// conflict becomes, that rewrite-b.sql applied through SQLite leaves no overlapping key, and
// what MakePlan refuses. tests/cli/merge_plan_test.sh runs the same day end to end through the
// CLI, sqlite3 and MariaDB; these run under the sanitizers too.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
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
  options.check.references.push_back({"item", "owner_id", "player", "id"});
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
            (std::vector<std::string>{"guild.leader_id foreign key", "guild_member.player_id name",
                                      "item.owner_id --refs", "mail.to_player inferred",
                                      "player_slot.player_id name"}));
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
