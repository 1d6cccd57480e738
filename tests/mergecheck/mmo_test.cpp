// Copyright 2026 The steadyflake Authors.
//
// Issue 17: the checker on databases shaped like a real MMO server's `characters` database
// (data/mmo/: 42 tables, auto-increment guids whose counters overlap, seeded reference tables,
// keyless tables, text keys under utf8mb4_bin and utf8mb4_unicode_ci), exported by a real
// mariadb-dump. The truth is MariaDB's own (data/mmo/regenerate.sh): every per-key overlap, its
// identical/differing split and every keyless table's rows must be what the server said.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {
namespace {

std::string MmoFile(const std::string& name) {
  return std::string(STEADYFLAKE_SHARDS_DIR) + "/../mmo/" + name;
}

Options Opts() {
  Options options;
  options.now_ms = 1767225600000;  // 2026-01-01
  return options;
}

// truth_*.tsv: "key TABLE COL[,COL] OVERLAP IDENTICAL" and "keyless TABLE ROWS_A ROWS_B BOTH".
struct Truth {
  std::map<std::string, std::pair<uint64_t, uint64_t>> keys;  // "table:col,col"
  std::map<std::string, std::vector<uint64_t>> keyless;
};

Truth ReadTruth(const std::string& path) {
  Truth truth;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind, table;
    fields >> kind >> table;
    if (kind == "key") {
      std::string columns;
      uint64_t overlap = 0, identical = 0;
      fields >> columns >> overlap >> identical;
      truth.keys[table + ":" + columns] = {overlap, identical};
    } else {
      uint64_t a = 0, b = 0, both = 0;
      fields >> a >> b >> both;
      truth.keyless[table] = {a, b, both};
    }
  }
  return truth;
}

std::string Name(const KeyReport& k) {
  std::string name = k.table + ":";
  for (std::size_t i = 0; i < k.columns.size(); ++i) name += (i > 0 ? "," : "") + k.columns[i];
  return name;
}

TEST(MmoTest, EveryKeyAndKeylessTableIsWhatMariaDbSaid) {
  const Truth truth = ReadTruth(MmoFile("truth_ab.tsv"));
  ASSERT_GE(truth.keys.size() + truth.keyless.size(), 40u);
  const Report r = Check(MmoFile("a.mariadb.sql.gz"), MmoFile("b.mariadb.sql.gz"), Opts());
  std::map<std::string, std::pair<uint64_t, uint64_t>> got;
  for (const KeyReport& k : r.keys) {
    EXPECT_EQ(k.identical + k.differing, k.overlap) << Name(k);
    got[Name(k)] = {k.overlap, k.identical};
  }
  EXPECT_EQ(got, truth.keys);
  std::map<std::string, std::vector<uint64_t>> keyless;
  for (const KeylessTable& k : r.keyless) keyless[k.table] = {k.rows_a, k.rows_b, k.in_both};
  EXPECT_EQ(keyless, truth.keyless);
  // Counters that overlap: a conflict, with both kinds of rows among the values in both.
  EXPECT_EQ(r.verdict, Report::Verdict::kConflict);
  uint64_t identical = 0, differing = 0;
  for (const KeyReport& k : r.keys) {
    identical += k.identical;
    differing += k.differing;
  }
  EXPECT_GT(identical, 0u);
  EXPECT_GT(differing, 0u);
  // Auto-increment guids give no server ids, so none is shared.
  EXPECT_TRUE(r.servers_shared.empty());
}

// The negative control: a realm whose counters never met A's and that seeds its reference
// tables under other keys shares no key with A, and its legacy guids give no RISK: exit 0.
TEST(MmoTest, RealmsThatShareNoKeyAreSafe) {
  const Truth truth = ReadTruth(MmoFile("truth_ac.tsv"));
  for (const auto& [key, counts] : truth.keys) EXPECT_EQ(counts.first, 0u) << key;
  const Report r = Check(MmoFile("a.mariadb.sql.gz"), MmoFile("c.mariadb.sql.gz"), Opts());
  EXPECT_EQ(r.verdict, Report::Verdict::kSafe) << FormatText(r, Layout::Game());
  for (const KeyReport& k : r.keys) {
    if (k.decoded && k.kind == KeyReport::Kind::kPrimary) {
      EXPECT_EQ(k.id_use, KeyReport::IdUse::kLegacy) << Name(k);
    }
  }
  EXPECT_TRUE(r.servers_a.empty());
  std::map<std::string, std::vector<uint64_t>> keyless;
  for (const KeylessTable& k : r.keyless) keyless[k.table] = {k.rows_a, k.rows_b, k.in_both};
  EXPECT_EQ(keyless, truth.keyless);
}

}  // namespace
}  // namespace steadyflake::mergecheck
