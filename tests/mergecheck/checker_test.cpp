// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Check() on two game shards built from data/shards/: every verdict, legacy IDs, drift,
// --table, --key (what the inputs themselves may be: checker_inputs_test.cpp).

#include "check/checker.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "checker_test_util.h"
#include "mergecheck_test_util.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck::checker_test {
namespace {

using testing::MakeShard;
using testing::TempDir;

std::string LastLine(const std::string& text) {
  const std::size_t end = text.size() - 1;  // the final newline
  return text.substr(text.rfind('\n', end - 1) + 1, end - text.rfind('\n', end - 1) - 1);
}

TEST(CheckerTest, SafeWhenShardsUseDistinctServerIds) {
  TempDir dir;
  const Report r = Check(MakeShard(dir, "a.db", 'a'), MakeShard(dir, "b.db", 'b'), Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe);
  std::vector<std::string> keys;
  for (const KeyReport& k : r.keys) {
    std::string name = k.table + "(";
    for (const auto& c : k.columns) name += c + (&c == &k.columns.back() ? "" : ",");
    keys.push_back(name + ")" + (k.kind == KeyReport::Kind::kPrimary ? "pk" : ""));
    EXPECT_EQ(k.overlap, 0u) << name;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"account(login)pk", "account(token)", "event(id)pk",
                                            "guild_member(guild_id,player_id)pk",
                                            "inventory(owner,slot)pk", "item(id)pk", "player(id)pk",
                                            "player(email)", "player(name)"}));
  const KeyReport& email = KeyOf(r, "player", {"email"});
  EXPECT_EQ(email.rows_a, 2u);  // O'Brien has no email: NULLs never collide
  EXPECT_EQ(email.rows_b, 2u);
  const KeyReport& item = KeyOf(r, "item", {"id"});
  EXPECT_EQ(item.rows_a, 6u);
  EXPECT_TRUE(item.decoded);
  EXPECT_FALSE(KeyOf(r, "player", {"name"}).decoded);
  EXPECT_EQ(r.servers_a, (std::vector<uint64_t>{101}));
  EXPECT_EQ(r.servers_b, (std::vector<uint64_t>{202}));
  EXPECT_TRUE(r.servers_shared.empty());
  EXPECT_TRUE(r.drift.empty());
  EXPECT_EQ(r.inputs[0].format, "sqlite");
  EXPECT_EQ(r.inputs[0].tables, 7u);
  EXPECT_EQ(r.inputs[0].rows, 3u + 6 + 6 + 3 + 2 + 3 + 2);
  EXPECT_EQ(LastLine(FormatText(r, Layout::Game())), "verdict: safe to merge");
}

TEST(CheckerTest, ConflictListsTheOverlappingKeysAscending) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a');
  const std::string b = MakeShard(
      dir, "b.db", 'b',
      // Two of A's item IDs (in descending order), A's player name, A's token, A's slot.
      "INSERT INTO item VALUES(" + std::to_string(Gid(kT0 + 101, 101, 2)) + ", 1, 'x');" +
          "INSERT INTO item VALUES(" + std::to_string(Gid(kT0 + 100, 101, 0)) + ", 1, 'y');" +
          "INSERT INTO player VALUES(" + std::to_string(Gid(kT0 + 9, 202, 0)) +
          ", 'alice', NULL);"
          "INSERT INTO account VALUES('zed', X'00ff10', '');"
          "INSERT INTO inventory VALUES(" +
          std::to_string(Gid(kT0, 101, 0)) + ", 0, NULL);");
  const Report r = Check(a, b, Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
  const KeyReport& item = KeyOf(r, "item", {"id"});
  EXPECT_EQ(item.overlap, 2u);
  EXPECT_EQ(Texts(item.conflicts),
            (std::vector<std::string>{std::to_string(Gid(kT0 + 100, 101, 0)),
                                      std::to_string(Gid(kT0 + 101, 101, 2))}));
  EXPECT_EQ(item.conflicts[0][0].type, ReportValue::Type::kInteger);
  const KeyReport& name = KeyOf(r, "player", {"name"});
  EXPECT_EQ(name.overlap, 1u);
  EXPECT_EQ(Texts(name.conflicts), (std::vector<std::string>{"alice"}));
  EXPECT_EQ(name.conflicts[0][0].type, ReportValue::Type::kText);
  const KeyReport& token = KeyOf(r, "account", {"token"});
  EXPECT_EQ(token.overlap, 1u);
  ASSERT_EQ(token.conflicts.size(), 1u);
  EXPECT_EQ(token.conflicts[0][0].type, ReportValue::Type::kBlob);
  EXPECT_EQ(token.conflicts[0][0].text, std::string("\x00\xff\x10", 3));
  const KeyReport& slot = KeyOf(r, "inventory", {"owner", "slot"});
  EXPECT_EQ(Texts(slot.conflicts),
            (std::vector<std::string>{std::to_string(Gid(kT0, 101, 0)) + "|0"}));
  EXPECT_EQ(KeyOf(r, "player", {"id"}).overlap, 0u);

  const std::string text = FormatText(r, Layout::Game());
  EXPECT_EQ(
      LastLine(text),
      "verdict: CONFLICT \xe2\x80\x94 5 values in 4 keys (from 4 tables) overlap: 5 rows differ, 0 "
      "identical");
  EXPECT_NE(text.find(std::to_string(Gid(kT0 + 100, 101, 0)) +
                      "  2025-06-01T00:00:01.000Z server=101 seq=0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("x'00ff10'"), std::string::npos) << text;

  Options one = Opts();
  one.limit = 1;
  const Report limited = Check(a, b, one);
  EXPECT_EQ(KeyOf(limited, "item", {"id"}).overlap, 2u);
  EXPECT_EQ(Texts(KeyOf(limited, "item", {"id"}).conflicts),
            (std::vector<std::string>{std::to_string(Gid(kT0 + 100, 101, 0))}));
}

TEST(CheckerTest, RiskWhenAServerIdIssuedIdsInBoth) {
  TempDir dir;
  const Report r = Check(
      MakeShard(dir, "a.db", 'a'),
      MakeShard(dir, "b.db", 'b',
                "INSERT INTO item VALUES(" + std::to_string(Gid(kT0 + 999, 101, 5)) + ", 1, 'z');"),
      Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kRisk);
  EXPECT_EQ(r.servers_shared, (std::vector<uint64_t>{101}));
  EXPECT_EQ(r.servers_b, (std::vector<uint64_t>{101, 202}));
  EXPECT_EQ(LastLine(FormatText(r, Layout::Game())),
            "verdict: RISK \xe2\x80\x94 server id 101 issues IDs in both shards");
}

TEST(CheckerTest, LegacyAndForeignIdsAreCountedNotDecoded) {
  TempDir dir;
  const int64_t in_2030 = Gid((1893456000000 - 1704067200000) / 10, 303, 0);
  const Report r =
      Check(MakeShard(dir, "a.db", 'a'),
            MakeShard(dir, "b.db", 'b',
                      "INSERT INTO item VALUES(-5, 0, 'negative');"
                      "INSERT INTO item VALUES(" +
                          std::to_string(in_2030) + ", 0, 'after now + 1 day');" +
                          "INSERT INTO event VALUES(7, 'x', 'text in an INTEGER column');"),
            [] {
              Options o = Opts();
              o.extra_keys.push_back({"event", {"ref"}});
              return o;
            }());
  const KeyReport& item = KeyOf(r, "item", {"id"});
  EXPECT_EQ(item.legacy_a, 0u);
  EXPECT_EQ(item.legacy_b, 2u);
  EXPECT_EQ(item.ids_b, 6u);
  EXPECT_EQ(item.rows_b, 8u);
  EXPECT_EQ(item.id_use, KeyReport::IdUse::kAnalysed);
  // event.id 7 decodes to tick 0, before the epoch + 2 s: legacy, no server 0.
  EXPECT_EQ(KeyOf(r, "event", {"id"}).legacy_b, 1u);
  EXPECT_EQ(r.servers_b, (std::vector<uint64_t>{202}));
  const KeyReport& ref = KeyOf(r, "event", {"ref"});
  EXPECT_EQ(ref.legacy_b, 4u);  // 0, 1, 2 (tick 0) and a text
  EXPECT_EQ(ref.id_use, KeyReport::IdUse::kSkipped);
  EXPECT_EQ(ref.overlap, 3u);  // 0, 1, 2 in both
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
}

// Shards of a game older than steadyflake: guild ids are auto-increment (1-40 in A, 41-80 in B,
// no overlap), and a UNIQUE steam_id column holds values that decode under `game` to server
// 101, A's own server id. Neither may give server ids by default: safe to merge (exit 0), not
// RISK.
std::string LegacyTables(int first_guild, int64_t steam_tick) {
  std::string sql =
      "CREATE TABLE guild(id INTEGER PRIMARY KEY, name TEXT);"
      "CREATE TABLE steam(player_id INTEGER PRIMARY KEY, steam_id INTEGER UNIQUE);";
  for (int i = first_guild; i < first_guild + 40; ++i) {
    sql +=
        "INSERT INTO guild VALUES(" + std::to_string(i) + ", 'guild " + std::to_string(i) + "');";
  }
  sql += "INSERT INTO steam VALUES(" + std::to_string(first_guild) + ", " +
         std::to_string(Gid(steam_tick, 101, 9)) + ");";
  return sql;
}

TEST(CheckerTest, ServerIdsComeOnlyFromPrimaryKeysThatHoldIds) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a', LegacyTables(1, kT0 + 5000));
  const std::string b = MakeShard(dir, "b.db", 'b', LegacyTables(41, kT0 + 6000));
  const Report r = Check(a, b, Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe) << FormatText(r, Layout::Game());
  EXPECT_EQ(r.servers_a, (std::vector<uint64_t>{101}));
  EXPECT_EQ(r.servers_b, (std::vector<uint64_t>{202}));
  const KeyReport& guild = KeyOf(r, "guild", {"id"});
  EXPECT_EQ(guild.id_use, KeyReport::IdUse::kLegacy);
  EXPECT_EQ(guild.id_reason, "80 of 80 values are not IDs of layout 37/16/10@10ms");
  EXPECT_EQ(guild.legacy_a, 40u);
  EXPECT_EQ(guild.ids_a, 0u);
  EXPECT_EQ(KeyOf(r, "steam", {"steam_id"}).id_use, KeyReport::IdUse::kSkipped);
  EXPECT_EQ(KeyOf(r, "steam", {"steam_id"}).id_reason, "not a primary key");
  EXPECT_EQ(KeyOf(r, "player", {"id"}).id_use, KeyReport::IdUse::kAnalysed);
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("\nlegacy integers, no server ids (most values are not IDs of layout "
                      "37/16/10@10ms): guild (id) 80 of 80, steam (player_id) 2 of 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nserver ids from: event (id), item (id), player (id)\n"), std::string::npos)
      << text;

  // --id-column takes steam_id's server id 101 into B's: now it is in both.
  Options with = Opts();
  with.id_columns.push_back({"steam", "STEAM_ID"});
  const Report risk = Check(a, b, with);
  EXPECT_EQ(risk.verdict, Report::Verdict::kRisk);
  EXPECT_EQ(risk.servers_shared, (std::vector<uint64_t>{101}));
  EXPECT_EQ(KeyOf(risk, "steam", {"steam_id"}).id_reason, "--id-column");

  // --not-id-column takes a primary key out: item's server ids are gone from A and B.
  Options without = with;
  without.not_id_columns.push_back({"steam", "steam_id"});
  without.id_columns.clear();
  without.not_id_columns.push_back({"player", "id"});
  const Report fewer = Check(a, b, without);
  EXPECT_EQ(KeyOf(fewer, "player", {"id"}).id_use, KeyReport::IdUse::kSkipped);
  EXPECT_EQ(KeyOf(fewer, "player", {"id"}).id_reason, "--not-id-column");
  EXPECT_EQ(fewer.verdict, Report::Verdict::kSafe);
}

// A column holds IDs when most of its values are IDs: a few legacy rows below are counted, and
// the rest still give server ids. The first IDs are those after the epoch + 2 s.
TEST(CheckerTest, APrimaryKeyOfMostlyIdsKeepsItsServerIds) {
  TempDir dir;
  // Tick 200 starts at the epoch + 2 s exactly (not after it): legacy; tick 201 is an ID.
  const std::string extra =
      "CREATE TABLE mail(id INTEGER PRIMARY KEY);"
      "INSERT INTO mail VALUES(" +
      std::to_string(Gid(200, 55, 0)) + "), (" + std::to_string(Gid(201, 66, 0)) + "), (" +
      std::to_string(Gid(kT0, 77, 0)) + ");";
  const std::string mail_b = "CREATE TABLE mail(id INTEGER PRIMARY KEY);";
  const Report r =
      Check(MakeShard(dir, "a.db", 'a', extra), MakeShard(dir, "b.db", 'b', mail_b), Opts());
  const KeyReport& mail = KeyOf(r, "mail", {"id"});
  EXPECT_EQ(mail.id_use, KeyReport::IdUse::kAnalysed);
  EXPECT_EQ(mail.legacy_a, 1u);
  EXPECT_EQ(mail.ids_a, 2u);
  EXPECT_EQ(r.servers_a, (std::vector<uint64_t>{66, 77, 101}));

  // Mostly legacy: judged legacy, unless --id-column says it holds IDs.
  const std::string legacy =
      "CREATE TABLE mail(id INTEGER PRIMARY KEY);"
      "INSERT INTO mail VALUES(1), (2), (" +
      std::to_string(Gid(kT0, 77, 0)) + ");";
  const std::string a = MakeShard(dir, "a2.db", 'a', legacy);
  const std::string b = MakeShard(dir, "b2.db", 'b', mail_b);
  EXPECT_EQ(KeyOf(Check(a, b, Opts()), "mail", {"id"}).id_use, KeyReport::IdUse::kLegacy);
  Options forced = Opts();
  forced.id_columns.push_back({"mail", "id"});
  const Report f = Check(a, b, forced);
  EXPECT_EQ(KeyOf(f, "mail", {"id"}).id_use, KeyReport::IdUse::kAnalysed);
  EXPECT_EQ(f.servers_a, (std::vector<uint64_t>{77, 101}));  // 1 and 2 stay legacy
}

TEST(CheckerTest, IdColumnOptionsNameIntegerKeys) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a');
  const std::string b = MakeShard(dir, "b.db", 'b');
  const auto fails = [&](const Options& options, const std::string& part) {
    try {
      Check(a, b, options);
      ADD_FAILURE() << "no error, want " << part;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Error::Code::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  Options text = Opts();
  text.id_columns.push_back({"player", "name"});
  fails(text,
        "--id-column player:name: player has no integer key of that one column; name a "
        "column that holds IDs (add --key player:name if it has no key of its own)");
  Options missing = Opts();
  missing.not_id_columns.push_back({"nosuch", "id"});
  fails(missing, "--not-id-column nosuch: neither input has a table nosuch");
  Options both = Opts();
  both.id_columns.push_back({"item", "id"});
  both.not_id_columns.push_back({"item", "ID"});
  fails(both, "--id-column and --not-id-column both name item:id; name it in one of them");
}

// Seeded reference rows are the same in both shards under the same key: told apart from rows
// that differ, for an integer key (B declares the columns in another order), a text key and a
// two-integer key. Every overlap is still a conflict (exit 1).
TEST(CheckerTest, IdenticalRowsAreToldApartFromConflicts) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a',
                                  "CREATE TABLE world_state(id INTEGER PRIMARY KEY, value TEXT);"
                                  "INSERT INTO world_state VALUES(1, 'a'), (2, 'b'), (3, 'c');"
                                  "CREATE TABLE applied(name TEXT PRIMARY KEY, state INTEGER);"
                                  "INSERT INTO applied VALUES('2024_01_x', 1), ('2024_02_y', 1);"
                                  "CREATE TABLE reset(map INTEGER, difficulty INTEGER, at INTEGER,"
                                  " PRIMARY KEY(map, difficulty));"
                                  "INSERT INTO reset VALUES(1, 0, 100), (1, 1, 200);");
  const std::string b = MakeShard(dir, "b.db", 'b',
                                  "CREATE TABLE world_state(value TEXT, id INTEGER PRIMARY KEY);"
                                  "INSERT INTO world_state VALUES('a', 1), ('B', 2), ('d', 4);"
                                  "CREATE TABLE applied(name TEXT PRIMARY KEY, state INTEGER);"
                                  "INSERT INTO applied VALUES('2024_01_x', 1), ('2024_02_y', 0);"
                                  "CREATE TABLE reset(map INTEGER, difficulty INTEGER, at INTEGER,"
                                  " PRIMARY KEY(map, difficulty));"
                                  "INSERT INTO reset VALUES(1, 0, 100), (1, 1, 300);");
  const Report r = Check(a, b, Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
  for (const auto& [table, columns] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"world_state", {"id"}}, {"applied", {"name"}}, {"reset", {"map", "difficulty"}}}) {
    const KeyReport& k = KeyOf(r, table, columns);
    EXPECT_EQ(k.overlap, 2u) << table;
    EXPECT_EQ(k.identical, 1u) << table;
    EXPECT_EQ(k.differing, 1u) << table;
    // The first value in order is the identical one in each table.
    EXPECT_EQ(k.conflicts_identical, (std::vector<bool>{true, false})) << table;
  }
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("\nworld_state (id) primary key: A 3, B 3, overlap 2 (1 differ, 1 "
                      "identical)\n    1  (identical rows)\n    2\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(LastLine(text),
            "verdict: CONFLICT \xe2\x80\x94 6 values in 3 keys (from 3 tables) overlap: 3 rows "
            "differ, 3 identical");
}

// A table without keys merges by appending: its rows in both shards are listed as a warning,
// matched on every column by name (B declares them in another order), and the verdict stays.
TEST(CheckerTest, KeylessTablesWarnOfRowsInBoth) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a',
                                  "CREATE TABLE world_state(k TEXT, v INTEGER);"
                                  "INSERT INTO world_state VALUES('season', 3), ('event', 1),"
                                  " ('event', 1), ('boss', NULL);");
  const std::string b = MakeShard(dir, "b.db", 'b',
                                  "CREATE TABLE world_state(v INTEGER, k TEXT);"
                                  "INSERT INTO world_state VALUES(3, 'season'), (2, 'event'),"
                                  " (NULL, 'boss');");
  const Report r = Check(a, b, Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe);
  ASSERT_EQ(r.keyless.size(), 2u);
  EXPECT_EQ(r.keyless[0].table, "chat_log");
  EXPECT_EQ(r.keyless[0].rows_a, 2u);
  EXPECT_EQ(r.keyless[0].rows_b, 2u);
  EXPECT_EQ(r.keyless[0].in_both, 1u);  // (1, 'hello'), twice on each side
  EXPECT_EQ(r.keyless[1].table, "world_state");
  EXPECT_EQ(r.keyless[1].rows_a, 4u);
  EXPECT_EQ(r.keyless[1].rows_b, 3u);
  EXPECT_EQ(r.keyless[1].in_both, 2u);  // season 3 and boss NULL; event 1 is not event 2
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("\nkeyless table world_state (a merge appends its rows): A 4 rows, B 3 "
                      "rows; 2 rows are in both and would be twice in the merge\n"),
            std::string::npos)
      << text;

  // A --key makes the table keyed: no longer listed.
  Options keyed = Opts();
  keyed.extra_keys.push_back({"world_state", {"k"}});
  const Report k = Check(a, b, keyed);
  ASSERT_EQ(k.keyless.size(), 1u);
  EXPECT_EQ(k.keyless[0].table, "chat_log");
}

TEST(CheckerTest, DriftIsReportedButChangesNoVerdict) {
  TempDir dir;
  const Report r = Check(MakeShard(dir, "a.db", 'a', "CREATE TABLE only_a(x INTEGER PRIMARY KEY);"),
                         MakeShard(dir, "b.db", 'b',
                                   "CREATE TABLE only_b(x TEXT PRIMARY KEY);"
                                   "CREATE UNIQUE INDEX item_name ON item(name);"
                                   "DROP INDEX player_email;"),
                         Opts());
  ASSERT_EQ(r.drift.size(), 4u);
  EXPECT_EQ(r.drift[0].table, "item");
  EXPECT_EQ(r.drift[0].columns, (std::vector<std::string>{"name"}));
  EXPECT_EQ(r.drift[0].only_in, "b");
  EXPECT_EQ(r.drift[1].table, "only_a");
  EXPECT_TRUE(r.drift[1].columns.empty());
  EXPECT_EQ(r.drift[1].only_in, "a");
  EXPECT_EQ(r.drift[2].table, "only_b");
  EXPECT_EQ(r.drift[3].table, "player");
  EXPECT_EQ(r.drift[3].columns, (std::vector<std::string>{"email"}));
  EXPECT_EQ(r.drift[3].only_in, "a");
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe);
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("drift: table only_a only in A"), std::string::npos) << text;
  EXPECT_NE(text.find("drift: key item (name) only in B"), std::string::npos) << text;
}

TEST(CheckerTest, TableAndKeyOptions) {
  TempDir dir;
  const std::string a = MakeShard(dir, "a.db", 'a');
  const std::string b = MakeShard(dir, "b.db", 'b');
  Options options = Opts();
  options.tables = {"item"};
  options.extra_keys.push_back({"item", {"NAME"}});  // column names match case-insensitively
  const Report r = Check(a, b, options);
  ASSERT_EQ(r.keys.size(), 2u);
  EXPECT_EQ(r.keys[0].columns, (std::vector<std::string>{"id"}));
  EXPECT_EQ(r.keys[1].columns, (std::vector<std::string>{"name"}));
  EXPECT_EQ(r.keys[1].kind, KeyReport::Kind::kUnique);
  EXPECT_EQ(r.keys[1].overlap, 6u);  // 'sword 0' .. 'sword 5' in both
  EXPECT_EQ(Texts(r.keys[1].conflicts).front(), "sword 0");
  EXPECT_EQ(r.inputs[0].rows, 6u);  // only item was read

  // A --key that duplicates a declared key is that key.
  options.extra_keys = {{"item", {"id"}}};
  EXPECT_EQ(Check(a, b, options).keys.size(), 1u);

  for (const auto& bad : std::vector<std::pair<Options::ExtraKey, std::string>>{
           {{"nosuch", {"x"}}, "--key nosuch"}, {{"item", {"nosuch"}}, "no column nosuch"}}) {
    Options o = Opts();
    o.extra_keys = {bad.first};
    try {
      Check(a, b, o);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad.second), std::string::npos) << e.what();
    }
  }
  Options o = Opts();
  o.tables = {"Item"};  // table names are case-sensitive
  EXPECT_THROW(Check(a, b, o), Error);
}

}  // namespace
}  // namespace steadyflake::mergecheck::checker_test
