// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// KeyReport::references (src/check/references.h): which columns of B refer to an overlapping
// integer key, how each was found, and how many of B's rows hold an overlapping value.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

using testing::ExecSql;
using testing::TempDir;

// `INSERT INTO table VALUES (from), ..., (to)`.
std::string Values(const std::string& table, int from, int to) {
  std::string sql = "INSERT INTO " + table + " VALUES ";
  for (int v = from; v <= to; ++v) sql += "(" + std::to_string(v) + ")" + (v < to ? "," : ";\n");
  return sql;
}

const KeyReport& KeyOf(const Report& report, const std::string& table) {
  for (const KeyReport& k : report.keys) {
    if (k.table == table && k.columns.size() == 1) return k;
  }
  throw std::runtime_error("no key of " + table);
}

// The references of `key` as "table.column found rows", sorted by table.
std::vector<std::string> Refs(const KeyReport& key) {
  std::vector<std::string> out;
  for (const ReferenceReport& r : key.references) {
    std::string line = r.table + "." + r.column + " " + r.found + " " + std::to_string(r.rows);
    for (const std::string& other : r.also) line += " also " + other;
    out.push_back(line);
  }
  return out;
}

TEST(References, FoundByDeclarationNameOptionAndInferenceWithItsThresholds) {
  TempDir dir;
  const std::string schema =
      "CREATE TABLE player(id INTEGER PRIMARY KEY);\n"
      "CREATE TABLE guild(id INTEGER PRIMARY KEY, guild_id INTEGER);\n"
      "CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER REFERENCES player(id));\n"
      "CREATE TABLE stuff(player_id INTEGER, guildid INTEGER, Guild_GUID INTEGER);\n"
      "CREATE TABLE gear(holder INTEGER);\n"
      "CREATE TABLE t99(x INTEGER);\n"
      "CREATE TABLE t100(x INTEGER);\n"
      "CREATE TABLE outside(x INTEGER);\n"
      "CREATE TABLE texts(x TEXT);\n"
      "CREATE TABLE ninety(g INTEGER);\n"
      "CREATE TABLE eighty(g INTEGER);\n"
      "CREATE TABLE keyed(x INTEGER UNIQUE);\n";
  // A holds players 1..100 and guilds 1..10: B's players 1..100 overlap, 101..200 do not.
  ExecSql(dir.File("a.db"), schema + Values("player", 1, 100) + Values("guild(id)", 1, 10));
  std::string b = schema + Values("player", 1, 200) + Values("guild(id)", 1, 10);
  b += "INSERT INTO item VALUES (1, 5), (2, 150), (3, NULL);\n";
  b += "INSERT INTO stuff VALUES (7, 3, 4), (8, 3, 11);\n";
  b += Values("gear", 1, 3);
  b += Values("t99", 101, 199);  // 99 distinct values, all among B's 200: too few
  b += Values("t100", 51, 150) + Values("t100", 51, 60);  // 100 distinct: inferred; 60 rows hit
  b += Values("outside", 1, 150) + "INSERT INTO outside VALUES (201);\n";  // one value not a player
  b += "INSERT INTO texts VALUES ('1'), ('2');\n";
  // guild.id has 10 values in B: 9 of them is 90%, 8 is 80%. 1..9 also lie among the players,
  // but are far from 100 distinct or 90% of 200.
  b += Values("ninety", 1, 9) + Values("eighty", 1, 8);
  b += Values("keyed", 1, 150);  // a single-column key itself: never inferred
  ExecSql(dir.File("b.db"), b);

  Options options;
  options.references.push_back({"gear", "holder", "player", "id"});
  const Report report = Check(dir.File("a.db"), dir.File("b.db"), options);
  EXPECT_EQ(Refs(KeyOf(report, "player")),
            (std::vector<std::string>{"gear.holder --refs 3", "item.owner foreign key 1",
                                      "stuff.player_id name 2", "t100.x inferred 60"}));
  EXPECT_EQ(Refs(KeyOf(report, "guild")),
            (std::vector<std::string>{"ninety.g inferred 9", "stuff.Guild_GUID name 1",
                                      "stuff.guildid name 2"}));
  const ReferenceReport& inferred = KeyOf(report, "player").references.back();
  EXPECT_EQ(inferred.distinct, 100u);
  EXPECT_EQ(inferred.key_values, 200u);
}

TEST(References, AColumnInferredForTwoKeysIsAmbiguous) {
  TempDir dir;
  const std::string schema =
      "CREATE TABLE player(id INTEGER PRIMARY KEY);\n"
      "CREATE TABLE clan(id INTEGER PRIMARY KEY);\n"
      "CREATE TABLE log(who INTEGER);\n";
  ExecSql(dir.File("a.db"), schema + Values("player", 1, 150) + Values("clan", 1, 150));
  ExecSql(dir.File("b.db"),
          schema + Values("player", 1, 150) + Values("clan", 1, 150) + Values("log", 1, 120));
  const Report report = Check(dir.File("a.db"), dir.File("b.db"), Options{});
  EXPECT_EQ(Refs(KeyOf(report, "player")),
            (std::vector<std::string>{"log.who inferred 120 also clan.id"}));
  EXPECT_EQ(Refs(KeyOf(report, "clan")),
            (std::vector<std::string>{"log.who inferred 120 also player.id"}));
  // --refs settles it: the column is then the named key's only.
  Options options;
  options.references.push_back({"log", "who", "clan", "id"});
  const Report settled = Check(dir.File("a.db"), dir.File("b.db"), options);
  EXPECT_EQ(Refs(KeyOf(settled, "clan")), (std::vector<std::string>{"log.who --refs 120"}));
  EXPECT_TRUE(KeyOf(settled, "player").references.empty());
}

TEST(References, AnOptionNamingWhatBLacksIsAnError) {
  TempDir dir;
  const std::string schema = "CREATE TABLE player(id INTEGER PRIMARY KEY, n INTEGER);\n";
  ExecSql(dir.File("a.db"), schema + "INSERT INTO player VALUES (1, 1);");
  ExecSql(dir.File("b.db"), schema + "INSERT INTO player VALUES (1, 2);");
  Options options;
  options.references.push_back({"player", "nope", "player", "id"});
  EXPECT_THROW(Check(dir.File("a.db"), dir.File("b.db"), options), Error);
  options.references = {{"player", "n", "player", "n"}};  // not a key
  try {
    Check(dir.File("a.db"), dir.File("b.db"), options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("player.n is not a single-column PRIMARY KEY or UNIQUE"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
