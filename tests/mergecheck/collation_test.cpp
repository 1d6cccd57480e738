// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Keys compared as the database compares them (issue 11). The truth is the databases' own:
// data/collations/golden.tsv holds planted pairs of values (case, accents, ß, trailing spaces
// under PAD SPACE and NO PAD, emoji, negative controls) and whether a real MariaDB 10.11 or
// sqlite3 unique key refused the second value of each pair; golden_a.sql and golden_b.sql are
// the same pairs as two shards dumped by mariadb-dump. data/collations/regenerate.sh makes them.

#include "check/collation.h"

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "check/collect.h"
#include "mergecheck_test_util.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {
namespace {

using testing::TempDir;

std::string CollationsFile(const std::string& name) {
  return std::string(STEADYFLAKE_COLLATIONS_DIR) + "/" + name;
}

std::string Hex(const std::string& bytes) {
  std::string out;
  AppendHex(out, bytes);
  return out;
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

struct Pair {
  std::string dialect, collation, a, b;  // a and b as bytes
  bool collides = false;
  int prefix = 0;     // "utf8mb4_general_ci/3": a key on the first 3 characters, UNIQUE KEY (v(3))
  std::string label;  // the collation as golden.tsv names it, prefix included
};

// The table of the golden shards that holds the pairs of `label`: g_utf8mb4_general_ci_p3 for
// utf8mb4_general_ci/3.
std::string TableOf(const std::string& label) {
  std::string table = "g_" + label;
  const std::size_t slash = table.find('/');
  if (slash != std::string::npos) table.replace(slash, 1, "_p");
  return table;
}

std::vector<Pair> Golden() {
  std::ifstream in(CollationsFile("golden.tsv"));
  EXPECT_TRUE(in) << "cannot read " << CollationsFile("golden.tsv");
  std::vector<Pair> pairs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream split(line);
    std::string field;
    while (std::getline(split, field, '\t')) fields.push_back(field);
    if (fields.size() == 4) fields.insert(fields.begin() + 2, "");  // an empty first value
    EXPECT_EQ(fields.size(), 5u) << line;
    if (fields.size() != 5) continue;
    Pair pair{fields[0],        fields[1], Unhex(fields[2]), Unhex(fields[3]),
              fields[4] == "1", 0,         fields[1]};
    const std::size_t slash = pair.collation.find('/');
    if (slash != std::string::npos) {
      pair.prefix = std::stoi(pair.collation.substr(slash + 1));
      pair.collation.resize(slash);
    }
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

// The equality key of `text` under `c`, of its first `prefix` characters if not 0.
std::string KeyOf(const Collation& c, const std::string& text, int prefix = 0) {
  Value v;
  v.tag = Value::Tag::kText;
  v.bytes = text;
  std::string key;
  c.AppendKey(prefix > 0 ? KeyPrefix(v, prefix) : v.bytes, key);
  return key;
}

// The collations implemented exactly, each held to every golden pair of it.
const std::set<std::string> kExact = {"utf8mb4_general_ci",
                                      "utf8mb4_unicode_ci",
                                      "utf8mb4_bin",
                                      "utf8mb4_nopad_bin",
                                      "binary",
                                      "BINARY",
                                      "NOCASE",
                                      "RTRIM"};

TEST(CollationTest, EveryGoldenPairGetsTheDatabasesAnswer) {
  const std::vector<Pair> pairs = Golden();
  std::map<std::string, int> checked;
  for (const Pair& p : pairs) {
    const Collation* c = Collation::Find(p.collation);
    if (kExact.count(p.collation) == 0) continue;
    ASSERT_NE(c, nullptr) << p.collation;
    EXPECT_EQ(KeyOf(*c, p.a, p.prefix) == KeyOf(*c, p.b, p.prefix), p.collides)
        << p.dialect << " " << p.label << ": '" << p.a << "' and '" << p.b << "' "
        << (p.collides ? "collide" : "do not collide") << " in the database";
    ++checked[p.label];
  }
  for (const std::string& name : kExact) {
    EXPECT_GE(checked[name], 20) << "too few golden pairs of " << name;
  }
  EXPECT_GE(checked["utf8mb4_general_ci/3"], 20) << "too few golden pairs of a prefix key";
}

// The collations only approximated (ICU's UCA 14 for MariaDB's own uca1400 implementation) get
// every golden pair right too; a pair one gets wrong is listed. They stay flagged approximate:
// the pairs are a sample, and MySQL 8's 0900 collations (UCA 9.0.0) have no server here to
// take answers from.
TEST(CollationTest, ApproximateCollationsAgreeOnEveryGoldenPair) {
  std::map<std::string, std::vector<std::string>> misses;
  int checked = 0;
  for (const Pair& p : Golden()) {
    const Collation* c = Collation::Find(p.collation);
    if (c == nullptr || !c->approximate()) continue;
    ++checked;
    if ((KeyOf(*c, p.a) == KeyOf(*c, p.b)) != p.collides) {
      misses[p.collation].push_back(Hex(p.a) + "/" + Hex(p.b));
    }
  }
  EXPECT_GE(checked, 60);
  for (const auto& [collation, pairs] : misses) {
    std::string list;
    for (const std::string& pair : pairs) list += " " + pair;
    ADD_FAILURE() << collation << " misses" << list;
  }
}

TEST(CollationTest, NamesAreFoundWhateverTheirCase) {
  ASSERT_NE(Collation::Find("nocase"), nullptr);
  EXPECT_EQ(Collation::Find("nocase")->name(), "NOCASE");
  EXPECT_NE(Collation::Find("UTF8MB4_GENERAL_CI"), nullptr);
  EXPECT_EQ(Collation::Find("utf8mb4_klingon_ci"), nullptr);
  EXPECT_TRUE(Collation::Find("BINARY")->bytewise());
  EXPECT_FALSE(Collation::Find("RTRIM")->bytewise());
}

TEST(CollationTest, BytesThatAreNotUtf8CompareAsThemselves) {
  const Collation& general = *Collation::Find("utf8mb4_general_ci");
  EXPECT_NE(KeyOf(general, "\xff"), KeyOf(general, "\xfe"));
  EXPECT_NE(KeyOf(general, "\xc3"), KeyOf(general, "\xc3\xa9"));  // cut off
  EXPECT_EQ(KeyOf(general, "A\xff"), KeyOf(general, "a\xff"));
  EXPECT_NE(KeyOf(general, "\xed\xa0\x80"), KeyOf(general, "\xef\xbf\xbd"));  // a surrogate
}

// Texts for the per-row paths' tests: ASCII of every length around a word's, with trailing spaces
// and capitals, a NUL, UTF-8 and bytes that are not, and random ones (the seed printed).
std::vector<std::string> MakeKeyTexts() {
  std::vector<std::string> texts = {"",
                                    " ",
                                    "hero_177eb998529",
                                    "Hero_177EB998529 ",
                                    "ab  ",
                                    std::string("a\0b", 3),
                                    std::string(1, '\0'),
                                    "caf\xc3\xa9",
                                    "\xff\xfe",
                                    "ZZZZZZZZz",
                                    "\x7f\x01~",
                                    std::string(120, 'q'),
                                    "1234567 ",
                                    "abcdefgh  ",
                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`{|}"};
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const std::string alphabet = std::string("aAzZ09 _-@`{[\x7f\x01") + '\0' + "\xc3\xa9\xff";
  for (int i = 0; i < 2000; ++i) {
    std::string text(rng() % 40, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    texts.push_back(text);
  }
  return texts;
}

const std::vector<std::string>& KeyTexts() {
  static const std::vector<std::string> kTexts = MakeKeyTexts();
  return kTexts;
}

// The key KeyInto writes is AppendKey's, and it writes one for every text it should: any text
// under the rules that only copy, trim or fold ASCII, ASCII without NUL under general_ci.
TEST(CollationTest, KeyIntoWritesTheKeyAppendKeyAppends) {
  for (const Collation& collation : Collation::All()) {
    for (const std::string& text : KeyTexts()) {
      std::string expected;
      collation.AppendKey(text, expected);
      std::string key(text.size(), '\0');
      const std::size_t n = collation.KeyInto(text, key.data());
      const bool ascii = std::none_of(text.begin(), text.end(), [](char c) {
        return c == '\0' || static_cast<unsigned char>(c) > 0x7F;
      });
      const std::string& name = collation.name();
      const bool expect_key = name == "BINARY" || name == "NOCASE" || name == "RTRIM" ||
                              name.ends_with("_bin") || (name.ends_with("general_ci") && ascii);
      EXPECT_EQ(n != Collation::kNoKeyInto, expect_key) << name << " '" << Hex(text) << "'";
      if (n == Collation::kNoKeyInto) continue;
      key.resize(n);
      EXPECT_EQ(Hex(key), Hex(expected)) << name << " '" << Hex(text) << "'";
    }
  }
}

// general_ci's ASCII path (eight and sixteen bytes at a time) weighs each byte as MariaDB's table
// does: a text followed by 'é' is weighed character by character through the table (the ASCII
// path declines it), and general_ci weighs each character alone, so that key is the ASCII key of
// the text followed by the key of 'é'. Every ASCII byte but NUL, at every length to 40.
TEST(CollationTest, GeneralCiAsciiKeysAreTheTablesWeights) {
  const Collation& general = *Collation::Find("utf8mb4_general_ci");
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::string e_acute_key;
  general.AppendKey("\xc3\xa9", e_acute_key);
  for (int i = 0; i < 20000; ++i) {
    std::string text(i % 41, 'x');
    for (char& c : text) c = static_cast<char>(1 + rng() % 0x7F);
    if (!text.empty() && text.back() == ' ') text.back() = 'z';  // trailing spaces: not weighed
    std::string whole;
    general.AppendKey(text + "\xc3\xa9", whole);
    std::string key(text.size(), '\0');
    const std::size_t n = general.KeyInto(text, key.data());
    ASSERT_NE(n, Collation::kNoKeyInto) << Hex(text);
    key.resize(n);
    EXPECT_EQ(Hex(key + e_acute_key), Hex(whole)) << Hex(text);
  }
}

// A key of one text column hashes on the stack (HashOneText) as AppendKeyValue encodes it, under
// every collation and none, and FingerprintOneText gives that hash's fingerprint alone; a text
// longer than the room goes to AppendKeyValue.
TEST(CollationTest, OneTextKeyHashesAsItsEncoding) {
  std::vector<const Collation*> collations = {nullptr};
  for (const Collation& collation : Collation::All()) collations.push_back(&collation);
  for (const Collation* collation : collations) {
    KeyState key;
    key.prefix = {0};
    key.collation = {collation};
    for (const std::string& text : KeyTexts()) {
      Value v;
      v.tag = Value::Tag::kText;
      v.bytes = text;
      KeyScratch scratch;
      AppendKeyValue(key, 0, v, scratch);
      Hash128 hash;
      uint32_t fingerprint = 0;
      const bool fingerprinted = FingerprintOneText(collation, text, fingerprint);
      if (!HashOneText(collation, text, hash)) {
        EXPECT_FALSE(fingerprinted);
        continue;
      }
      const std::string name = collation == nullptr ? "none" : collation->name();
      EXPECT_EQ(hash, KeyHash(scratch.encoding)) << name << " '" << Hex(text) << "'";
      // 96 of XXH3's 128 bits, and the fingerprint's 32 in the low ones.
      const Hash128 whole = HashBytes(scratch.encoding);
      EXPECT_EQ(hash.hi, whole.hi);
      EXPECT_EQ(hash.lo >> 32, whole.lo >> 32);
      ASSERT_TRUE(fingerprinted);
      EXPECT_EQ(fingerprint, HashFingerprint(hash)) << name << " '" << Hex(text) << "'";
    }
  }
  Hash128 hash;
  uint32_t fingerprint = 0;
  EXPECT_TRUE(HashOneText(nullptr, std::string(120, 'x'), hash));
  EXPECT_FALSE(HashOneText(nullptr, std::string(121, 'x'), hash));
  EXPECT_FALSE(FingerprintOneText(nullptr, std::string(121, 'x'), fingerprint));
}

// The fold's two ways agree: from 32-bit halves (targets without 128-bit integers) and with
// one wide multiply, on random words and on words of all ones in either half.
TEST(KeyFingerprintTest, TheFoldByHalvesIsTheWideFold) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = rng();
    uint64_t b = rng();
    if (i % 3 == 0) a |= 0xFFFFFFFF00000000u;
    if (i % 5 == 0) b |= 0x00000000FFFFFFFFu;
    if (i % 7 == 0) a = b = ~uint64_t{0};
    ASSERT_EQ(FoldedMultiplyByHalves(a, b), FoldedMultiply(a, b)) << a << " " << b;
  }
}

// KeyFingerprintBits spreads keys that differ in a few characters as random bits would: names
// of a game (`hero_<hex>` of random ids, `player<n>` counting up, `x<hex>_of_the_north`, and
// short ones, `<n>` from 0, under general_ci and as bytes) seldom share a fingerprint (2^17 names:
// about 2 pairs by chance), and a filter of half of them, 8 bits a name, passes the other half's as
// it would random fingerprints: about one in 18.6 (two bits in a word of 64 holding about 8 names).
TEST(KeyFingerprintTest, SpreadsNamesAsRandomBitsWould) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const Collation* general_ci = Collation::Find("utf8mb4_general_ci");
  ASSERT_NE(general_ci, nullptr);
  constexpr std::size_t kNames = std::size_t{1} << 17;
  for (int shape = 0; shape < 4; ++shape) {
    for (const Collation* collation : {general_ci, static_cast<const Collation*>(nullptr)}) {
      std::vector<uint32_t> fingerprints;
      for (std::size_t i = 0; i < kNames; ++i) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(rng() >> 2));
        const std::string name = shape == 0   ? "hero_" + std::string(hex)
                                 : shape == 1 ? "player" + std::to_string(1000000 + i)
                                 : shape == 2 ? "x" + std::string(hex) + "_of_the_north"
                                              : std::to_string(i);
        uint32_t fingerprint = 0;
        ASSERT_TRUE(FingerprintOneText(collation, name, fingerprint));
        fingerprints.push_back(fingerprint);
      }
      const std::string what =
          std::to_string(shape) + " under " + (collation == nullptr ? "bytes" : collation->name());
      std::vector<uint32_t> sorted = fingerprints;
      std::sort(sorted.begin(), sorted.end());
      const auto shared =
          static_cast<std::size_t>(sorted.end() - std::unique(sorted.begin(), sorted.end()));
      EXPECT_LT(shared, 20u) << what;
      FingerprintFilter filter(kNames / 2, 8);
      for (std::size_t i = 0; i < kNames / 2; ++i) filter.Add(fingerprints[i]);
      std::size_t passed = 0;
      for (std::size_t i = kNames / 2; i < kNames; ++i) passed += filter.MayHold(fingerprints[i]);
      EXPECT_GT(passed, kNames / 2 / 24) << what;
      EXPECT_LT(passed, kNames / 2 / 15) << what;
    }
  }
}

// The same pairs through the whole check: one SQLite file per shard, A holding each pair's
// first value and B its second in a table keyed UNIQUE (pair, v), under the column's COLLATE,
// and under a unique index's own COLLATE over a BINARY column; and the same shards as sqlite3
// dumps. The key overlaps exactly where sqlite3 said the pair collides.
TEST(CollationTest, SqliteShardsOverlapWhereSqliteSays) {
  std::map<std::string, uint64_t> truth;
  std::vector<Pair> pairs;
  for (const Pair& p : Golden()) {
    if (p.dialect != "sqlite") continue;
    pairs.push_back(p);
    truth[p.collation] += p.collides ? 1 : 0;
  }
  ASSERT_EQ(truth.size(), 3u);
  TempDir dir;
  const std::string a = dir.File("a.db"), b = dir.File("b.db");
  for (const auto& [collation, count] : truth) {
    const std::string column = "c_" + collation, index = "i_" + collation;
    std::string sql_a = "CREATE TABLE " + column + "(pair INTEGER, v TEXT COLLATE " + collation +
                        ", UNIQUE (pair, v));" + "CREATE TABLE " + index +
                        "(pair INTEGER, v TEXT); CREATE UNIQUE INDEX u_" + collation + " ON " +
                        index + "(pair, v COLLATE " + collation + ");";
    std::string sql_b = sql_a;
    int i = 0;
    for (const Pair& p : pairs) {
      if (p.collation != collation) continue;
      for (const std::string& table : {column, index}) {
        sql_a += "INSERT INTO " + table + " VALUES(" + std::to_string(i) + ", CAST(X'" + Hex(p.a) +
                 "' AS TEXT));";
        sql_b += "INSERT INTO " + table + " VALUES(" + std::to_string(i) + ", CAST(X'" + Hex(p.b) +
                 "' AS TEXT));";
      }
      ++i;
    }
    testing::ExecSql(a, sql_a);
    testing::ExecSql(b, sql_b);
  }
  const std::string dump_a = dir.File("a.sql"), dump_b = dir.File("b.sql");
  ASSERT_EQ(std::system(("sqlite3 '" + a + "' .dump > '" + dump_a + "' && sqlite3 '" + b +
                         "' .dump > '" + dump_b + "'")
                            .c_str()),
            0)
      << "sqlite3 is not installed (Debian package sqlite3; scripts/setup installs it)";
  for (const auto& [path_a, path_b] : {std::pair{a, b}, std::pair{dump_a, dump_b}}) {
    SCOPED_TRACE(path_a);
    const Report r = Check(path_a, path_b, Options{});
    ASSERT_EQ(r.keys.size(), 6u);
    for (const KeyReport& k : r.keys) {
      const std::string collation = k.table.substr(2);
      SCOPED_TRACE(k.table);
      EXPECT_EQ(k.overlap, truth.at(collation));
      ASSERT_EQ(k.collations.size(), 1u);
      EXPECT_TRUE(EqualsIgnoreCase(k.collations[0], collation)) << k.collations[0];
      EXPECT_TRUE(k.unknown_collations.empty());
    }
  }
}

// The pairs as two MariaDB shards, dumped by mariadb-dump: each key overlaps where MariaDB said
// its pairs collide, under every collation golden.tsv holds (the ICU ones flagged approximate).
TEST(CollationTest, MariadbDumpsOverlapWhereMariadbSays) {
  std::map<std::string, uint64_t> truth;  // by table
  std::map<std::string, std::string> collation_of, label_of;
  for (const Pair& p : Golden()) {
    if (p.dialect != "mysql") continue;
    truth[TableOf(p.label)] += p.collides ? 1 : 0;
    collation_of[TableOf(p.label)] = p.collation;
    label_of[TableOf(p.label)] = p.label;
  }
  const Report r = Check(CollationsFile("golden_a.sql"), CollationsFile("golden_b.sql"), Options{});
  ASSERT_EQ(r.keys.size(), truth.size());
  for (const KeyReport& k : r.keys) {
    ASSERT_EQ(truth.count(k.table), 1u) << k.table;
    const std::string& collation = collation_of.at(k.table);
    SCOPED_TRACE(k.table);
    EXPECT_EQ(k.overlap, truth.at(k.table));
    EXPECT_TRUE(k.unknown_collations.empty());
    EXPECT_EQ(k.approximate, kExact.count(collation) == 0);
    // Every colliding pair whose two values differ shows B's value beside A's.
    uint64_t differing = 0;
    for (const Pair& p : Golden()) {
      differing +=
          p.dialect == "mysql" && p.label == label_of.at(k.table) && p.collides && p.a != p.b;
    }
    uint64_t shown = 0;
    for (const auto& row : k.conflicts_b) shown += row.empty() ? 0 : 1;
    EXPECT_EQ(shown, differing);
    if (collation != "binary") {
      EXPECT_EQ(k.collations, std::vector<std::string>{collation});
    }
  }
}

// A conflict under a collation shows both values, A's and B's: the operator sees which two
// rows collide, not only one of them. An identical value is shown once.
TEST(CollationTest, AConflictShowsBothValues) {
  TempDir dir;
  const std::string a = dir.File("a.db"), b = dir.File("b.db");
  constexpr char kSchema[] =
      "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE UNIQUE);";
  testing::ExecSql(a,
                   std::string(kSchema) + "INSERT INTO player VALUES(-1, 'Alice'), (-2, 'Bob');");
  testing::ExecSql(b, std::string(kSchema) +
                          "INSERT INTO player VALUES(-3, 'alice'), (-4, 'Bob'), (-5, 'carol');");
  const Report r = Check(a, b, Options{});
  ASSERT_EQ(r.keys.size(), 2u);
  const KeyReport& name = r.keys[1];
  ASSERT_EQ(name.overlap, 2u);
  ASSERT_EQ(name.conflicts.size(), 2u);
  EXPECT_EQ(name.conflicts[0][0].text, "Alice");
  EXPECT_EQ(name.conflicts[1][0].text, "Bob");
  ASSERT_EQ(name.conflicts_b.size(), 2u);
  ASSERT_EQ(name.conflicts_b[0].size(), 1u);
  EXPECT_EQ(name.conflicts_b[0][0].text, "alice");
  EXPECT_TRUE(name.conflicts_b[1].empty());
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("    'Alice' = 'alice' under NOCASE\n    'Bob'\n"), std::string::npos)
      << text;
  EXPECT_NE(FormatJson(r).find("\"conflicts_b\":[[\"alice\"],null]"), std::string::npos)
      << FormatJson(r);
}

// The merge target's collation decides (design section 10): A is MariaDB's shard, B a SQLite
// file with the same table under BINARY. B's values are compared under A's
// utf8mb4_general_ci, so the key overlaps where MariaDB said, and the report names B's
// collation as drift.
TEST(CollationTest, TheTargetsCollationDecides) {
  uint64_t truth = 0;
  std::string sql =
      "CREATE TABLE g_utf8mb4_general_ci(pair INTEGER NOT NULL, v TEXT, UNIQUE (pair, v));";
  int i = 0;
  for (const Pair& p : Golden()) {
    if (p.dialect != "mysql" || p.label != "utf8mb4_general_ci") continue;
    truth += p.collides ? 1 : 0;
    sql += "INSERT INTO g_utf8mb4_general_ci VALUES(" + std::to_string(i++) + ", CAST(X'" +
           Hex(p.b) + "' AS TEXT));";
  }
  ASSERT_GT(truth, 0u);
  TempDir dir;
  const std::string b = dir.File("b.db");
  testing::ExecSql(b, sql);
  Options options;
  options.tables = {"g_utf8mb4_general_ci"};
  const Report r = Check(CollationsFile("golden_a.sql"), b, options);
  ASSERT_EQ(r.keys.size(), 1u);
  EXPECT_EQ(r.keys[0].overlap, truth);
  EXPECT_EQ(r.keys[0].collations, std::vector<std::string>{"utf8mb4_general_ci"});
  EXPECT_EQ(r.keys[0].collations_b, std::vector<std::string>{"BINARY"});
  EXPECT_NE(FormatText(r, Layout::Game())
                .find("collation differs: A utf8mb4_general_ci, B BINARY; compared under A's"),
            std::string::npos);
}

// A collation this checker does not know: the key is compared as bytes and says so, and with
// nothing overlapping the verdict is RISK naming the key, not "safe".
TEST(CollationTest, AnUnknownCollationIsRiskNotSafe) {
  TempDir dir;
  const auto shard = [&](const std::string& name, const std::string& value) {
    testing::WriteFile(dir.File(name),
                       "-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu\n"
                       "CREATE TABLE `player` (\n  `id` bigint(20) NOT NULL,\n"
                       "  `name` varchar(32) NOT NULL,\n  PRIMARY KEY (`id`),\n"
                       "  UNIQUE KEY `name` (`name`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1 "
                       "COLLATE=latin1_swedish_ci;\n"
                       "INSERT INTO `player` VALUES (" +  // negative ids are legacy: no server id
                           std::string(name == "a.sql" ? "-1" : "-2") +
                           ",'" + value + "');\n-- Dump completed on 2026-11-23 12:00:00\n");
    return dir.File(name);
  };
  const Report r = Check(shard("a.sql",
                               "Stra\xc3\x9f"
                               "e"),
                         shard("b.sql", "Strasse"), Options{});
  ASSERT_EQ(r.keys.size(), 2u);
  const KeyReport& name = r.keys[1];
  EXPECT_EQ(name.overlap, 0u);
  EXPECT_EQ(name.unknown_collations, std::vector<std::string>{"latin1_swedish_ci"});
  EXPECT_EQ(r.verdict, Report::Verdict::kRisk);
  ASSERT_EQ(r.risks.size(), 1u);
  EXPECT_EQ(r.risks[0], "player (name) was compared as bytes: collation latin1_swedish_ci unknown");
  const std::string text = FormatText(r, Layout::Game());
  EXPECT_NE(text.find("compared as bytes: collation latin1_swedish_ci unknown to this checker"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("verdict: RISK \xe2\x80\x94 player (name) was compared as bytes"),
            std::string::npos)
      << text;
  EXPECT_NE(FormatJson(r).find("\"unknown_collations\":[\"latin1_swedish_ci\"]"),
            std::string::npos);
}

}  // namespace
}  // namespace steadyflake::mergecheck
