// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// One scan of a plain dump serves every pass (design section 10): the passes after the
// comparison (A's values behind hashed keys, the whole-row comparison, B's values under a
// collation) read the few rows they want by position (Source::ReadRowsAt). Random mariadb-dump
// pairs give the same report read that way as read from their gzip forms, which can only be
// scanned; and the plain ones are scanned once each (twice with a table whose keys come after
// its rows).

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "check/checker.h"
#include "check/collect.h"
#include "dump/dump_parser.h"
#include "mergecheck_test_util.h"
#include "source/source.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using ::steadyflake::testing::TempDir;

// A dump source that counts its scans and its reads by position.
class CountingDump : public Source {
 public:
  CountingDump(const std::string& path, bool gzip) : inner_(OpenDumpSource(path, gzip)) {}
  std::string format() const override { return inner_->format(); }
  std::string reader() const override { return inner_->reader(); }
  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    ++scans;
    RowCounter counter(visitor);
    try {
      inner_->Scan(counter, only);
    } catch (...) {
      last_scan_rows = counter.rows;
      throw;
    }
    last_scan_rows = counter.rows;
  }
  bool ReadsRowsAt() const override { return inner_->ReadsRowsAt(); }
  bool ReadRowsAt(SourceVisitor& visitor, const std::string& table,
                  std::span<const uint64_t> positions) override {
    const bool done = !refuse && inner_->ReadRowsAt(visitor, table, positions);
    reads_at += done ? 1 : 0;
    rows_at += done ? positions.size() : 0;
    return done;
  }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  uint64_t rows_read() const override { return inner_->rows_read(); }

  bool refuse = false;  // ReadRowsAt refuses (as for a table the dump created twice)
  int scans = 0;
  int reads_at = 0;
  uint64_t rows_at = 0;
  uint64_t last_scan_rows = 0;  // rows the last Scan gave, until it ended or was stopped

 private:
  // Passes a dump's calls on, counting the rows.
  struct RowCounter : SourceVisitor {
    explicit RowCounter(SourceVisitor& to) : inner(to) {}
    std::vector<int> OnTable(const Table& table) override { return inner.OnTable(table); }
    void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) override {
      ++rows;
      inner.OnRow(table, cells, position);
    }
    // As a dump gives them (a few hundred at once): the Collector's OnRows, not its OnRow.
    void OnRows(const Table& table, std::span<const Cell> cells, std::size_t width,
                std::span<const uint64_t> positions) override {
      rows += positions.size();
      inner.OnRows(table, cells, width, positions);
    }
    SourceVisitor& inner;
    uint64_t rows = 0;
  };

  std::unique_ptr<Source> inner_;
};

// Rows as mariadb-dump writes them, `per_insert` to an extended INSERT; with `listed`, each
// INSERT names its columns in `columns` order (the rows are written in that order too).
std::string Inserts(const std::string& table, const std::vector<std::vector<std::string>>& rows,
                    size_t per_insert, const std::string& listed) {
  std::string out;
  for (size_t i = 0; i < rows.size(); i += per_insert) {
    out += "INSERT INTO `" + table + "` " + listed + (listed.empty() ? "" : " ") + "VALUES ";
    for (size_t j = i; j < std::min(rows.size(), i + per_insert); ++j) {
      out += j == i ? "(" : ",(";
      for (size_t c = 0; c < rows[j].size(); ++c) out += (c ? "," : "") + rows[j][c];
      out += ")";
    }
    out += ";\n";
  }
  return out;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

struct Shard {
  std::vector<std::vector<std::string>> player, inv, late, log, mail, bag;
};

// Two shards with overlaps of every kind: player ids in both (some rows identical), names in
// both as they are and in another case (one key under utf8mb4_general_ci), inventory slots in
// both, a table whose keys the dump declares after its rows, and a keyless log.
void MakeShards(std::mt19937_64& rng, Shard& a, Shard& b) {
  std::uniform_int_distribution<int> level(1, 80);
  std::bernoulli_distribution coin(0.5);
  const int n = 1500 + static_cast<int>(rng() % 1500);
  std::set<int64_t> used;
  for (int i = 0; i < n; ++i) {
    for (Shard* s : {&a, &b}) {
      int64_t id = static_cast<int64_t>(rng() >> 2);
      while (!used.insert(id).second) ++id;
      const std::string name = "hero_" + std::to_string(id % 100000000);
      s->player.push_back({std::to_string(id), Quote(name), std::to_string(level(rng))});
    }
  }
  // Shared: the same row, the same id with another level, the same name in another case.
  for (int i = 0; i < n / 20; ++i) {
    const auto& from = a.player[rng() % a.player.size()];
    auto& to = b.player[rng() % b.player.size()];
    switch (rng() % 3) {
      case 0:
        to = from;
        break;
      case 1:
        to[0] = from[0];
        to[2] = std::to_string(level(rng));
        break;
      default: {
        std::string name = from[1];
        for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        to[1] = name;
      }
    }
  }
  for (int i = 0; i < n / 2; ++i) {
    for (Shard* s : {&a, &b}) {
      s->inv.push_back({std::to_string(rng() % 300), std::to_string(rng() % 40),
                        Quote("item" + std::to_string(rng() % 50))});
      s->late.push_back({std::to_string(i * 2 + (s == &b ? static_cast<int>(rng() % 2) : 0)),
                         Quote(coin(rng) ? "c" + std::to_string(i) : "C" + std::to_string(i))});
      s->log.push_back({Quote("m" + std::to_string(rng() % 100))});
      // Mail ids: a single integer key, the only key of its table.
      s->mail.push_back({std::to_string(i * 3 + (s == &b ? static_cast<int>(rng() % 3) : 0)),
                         Quote("hi" + std::to_string(rng() % 3))});
    }
  }
  // Bags: an integer key alone, its rows in no order (so the row directory keeps their
  // fingerprints), a tenth of A's rows in B as they are and as many under their ids only.
  for (int i = 0; i < n / 2; ++i) {
    for (Shard* s : {&a, &b}) {
      // `ref`: unique integers, a NULL now and then (the directory then keeps their
      // fingerprints from that row on), the same in both shards for every fifth row.
      const bool null = rng() % 40 == 0;
      s->bag.push_back({std::to_string(rng() % (1 << 30) + (s == &b ? (1 << 30) : 0)),
                        Quote("bag" + std::to_string(rng() % 5)),
                        null ? "NULL" : std::to_string(i % 5 == 0 ? i : i + (s == &b) * n)});
    }
  }
  for (int i = 0; i < n / 10; ++i) {
    b.bag[rng() % b.bag.size()] = a.bag[rng() % a.bag.size()];
    b.bag[rng() % b.bag.size()][0] = a.bag[rng() % a.bag.size()][0];
  }
  for (Shard* s : {&a, &b}) {
    std::set<std::string> ids, refs;
    std::erase_if(s->bag, [&](const auto& row) {
      return !ids.insert(row[0]).second || (row[2] != "NULL" && !refs.insert(row[2]).second);
    });
  }
  for (Shard* s : {&a, &b}) {
    // Unique keys within each shard: first row of each key wins.
    for (auto* rows : {&s->player, &s->inv}) {
      std::set<std::string> seen_a, seen_b;
      std::vector<std::vector<std::string>> kept;
      for (auto& row : *rows) {
        std::string k1 = rows == &s->inv ? row[0] + "," + row[1] : row[0];
        std::string k2 = row[1];
        for (char& c : k2) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (rows == &s->inv) k2 = k1;
        if (!seen_a.insert(k1).second || !seen_b.insert(k2).second) continue;
        kept.push_back(row);
      }
      *rows = kept;
    }
  }
}

std::string Dump(std::mt19937_64& rng, const Shard& s) {
  const size_t per = 1 + rng() % 400;
  std::string out =
      "-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)\n"
      "/*!40101 SET NAMES utf8mb4 */;\n"
      "CREATE TABLE `player` (\n  `id` bigint(20) NOT NULL,\n  `name` varchar(32) NOT NULL,\n"
      "  `level` int(11) NOT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `name` (`name`)\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;\n"
      "CREATE TABLE `inv` (\n  `owner` bigint(20) NOT NULL,\n  `slot` int(11) NOT NULL,\n"
      "  `item` varchar(20) NOT NULL,\n  PRIMARY KEY (`owner`,`slot`)\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;\n"
      "CREATE TABLE `late` (\n  `id` int(11) NOT NULL,\n  `code` varchar(10) NOT NULL\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;\n"
      "CREATE TABLE `log` (\n  `msg` varchar(10) NOT NULL\n) ENGINE=InnoDB;\n"
      "CREATE TABLE `mail` (\n  `id` bigint(20) NOT NULL,\n  `body` text,\n"
      "  PRIMARY KEY (`id`)\n) ENGINE=InnoDB;\n"
      "CREATE TABLE `bag` (\n  `id` bigint(20) NOT NULL,\n  `item` varchar(10) NOT NULL,\n"
      "  `ref` bigint(20) DEFAULT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `ref` (`ref`)\n"
      ") ENGINE=InnoDB;\n";
  // Half the time the player rows name their columns in another order.
  std::vector<std::vector<std::string>> player = s.player;
  std::string listed;
  if (rng() % 2 == 0) {
    listed = "(`level`, `name`, `id`)";
    for (auto& row : player) std::swap(row[0], row[2]);
  }
  out += Inserts("player", player, per, listed);
  out += Inserts("inv", s.inv, 1 + rng() % 50, "");
  out += Inserts("late", s.late, per, "");
  out += Inserts("log", s.log, per, "");
  out += Inserts("mail", s.mail, 1 + rng() % 100, "");
  out += Inserts("bag", s.bag, 1 + rng() % 100, "");
  out += "ALTER TABLE `late` ADD PRIMARY KEY (`id`), ADD UNIQUE KEY `code` (`code`);\n";
  return out + "-- Dump completed on 2026-11-26  9:00:00\n";
}

void Gzip(const std::string& text, const std::string& path) {
  gzFile out = gzopen(path.c_str(), "wb1");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(out), Z_OK);
}

// Where `got` and `want` first differ, with some context, or "" when they do not.
std::string FirstDifference(const std::string& got, const std::string& want) {
  const auto at = static_cast<size_t>(
      std::mismatch(got.begin(), got.begin() + std::min(got.size(), want.size()), want.begin())
          .first -
      got.begin());
  if (at == got.size() && at == want.size()) return "";
  const size_t from = at > 60 ? at - 60 : 0;
  return "at " + std::to_string(at) + ":\n  got  ..." + got.substr(from, 200) + "\n  want ..." +
         want.substr(from, 200);
}

std::string Comparable(Report r) {
  for (InputReport& in : r.inputs) {
    in.path.clear();
    in.format.clear();
    in.bytes = 0;
  }
  return FormatJson(r);
}

TEST(DumpPasses, ReadingRowsByPositionGivesTheReportOfScanning) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  TempDir dir;
  for (int round = 0; round < 3; ++round) {
    Shard a, b;
    MakeShards(rng, a, b);
    const std::string path_a = dir.path() + "/a.sql";
    const std::string path_b = dir.path() + "/b.sql";
    const std::string text_a = Dump(rng, a);
    const std::string text_b = Dump(rng, b);
    testing::WriteFile(path_a, text_a);
    testing::WriteFile(path_b, text_b);
    Gzip(text_a, path_a + ".gz");
    Gzip(text_b, path_b + ".gz");
    Options options;
    options.now_ms = 1767225600000;
    options.limit = 0;  // every conflict, with its B value
    CountingDump plain_a(path_a, false), plain_b(path_b, false);
    CountingDump zip_a(path_a + ".gz", true), zip_b(path_b + ".gz", true);
    // A plain dump's first pass keeps its hashed keys (names, `late`'s codes, which its reread
    // gives) as fingerprints; the sets then hold the hashes of the overlap and of the rare rows
    // whose fingerprints meet by chance (about one in 2^32 pairs), not one a row.
    const auto held = [&](const Collector& ca, const Collector& cb, Report& r) {
      for (const KeyReport& k : r.keys) {
        for (const Collector* c : {&ca, &cb}) {
          for (const KeyState& key : c->Find(k.table)->keys) {
            if (key.names != k.columns) continue;
            EXPECT_EQ(key.set.elided(), 0u) << k.table;
            EXPECT_LE(key.set.hashes().size(), k.overlap + 2) << k.table << " " << k.columns[0];
          }
        }
      }
    };
    const Report by_position =
        CheckSources(path_a, plain_a, path_b, plain_b, options, CutoffOf(options), held);
    const Report by_scan = CheckSources(path_a, zip_a, path_b, zip_b, options, CutoffOf(options));
    ASSERT_EQ(FirstDifference(Comparable(by_position), Comparable(by_scan)), "")
        << "round " << round;
    // Where reads by position are refused, each pass scans instead: the same report.
    CountingDump refusing_a(path_a, false), refusing_b(path_b, false);
    refusing_a.refuse = refusing_b.refuse = true;
    const Report by_rescan =
        CheckSources(path_a, refusing_a, path_b, refusing_b, options, CutoffOf(options));
    ASSERT_EQ(FirstDifference(Comparable(by_rescan), Comparable(by_scan)), "") << "round " << round;
    EXPECT_GT(refusing_a.scans, plain_a.scans);
    uint64_t overlap = 0, identical = 0;
    size_t collated = 0;
    for (const KeyReport& k : by_position.keys) {
      overlap += k.overlap;
      identical += k.identical;
      collated += k.conflicts_b.size();
    }
    EXPECT_GT(overlap, 0u);
    EXPECT_GT(identical, 0u);
    EXPECT_GT(collated, 0u);  // B's 'HERO_1' for A's 'hero_1'
    // A's plain dump: the first scan and the reread of `late` (its keys came last), then rows
    // by position only; its gzip form is scanned again for A's values and for the rows. B's
    // likewise, and both forms once more for the references to player ids (inv.owner).
    EXPECT_EQ(plain_a.scans, 2) << "round " << round;
    EXPECT_EQ(zip_a.scans, 4) << "round " << round;
    EXPECT_EQ(plain_b.scans, 3) << "round " << round;
    EXPECT_EQ(zip_b.scans, 5) << "round " << round;
    EXPECT_GT(plain_a.reads_at, 0);
    EXPECT_GT(plain_b.reads_at, 0);
    EXPECT_LT(plain_a.rows_at + plain_b.rows_at, 4 * overlap + 64);
  }
}

// `INSERT INTO table VALUES (from), ..., (to)`.
std::string Values(const std::string& table, int from, int to) {
  std::string sql = "INSERT INTO " + table + " VALUES ";
  for (int v = from; v <= to; ++v) sql += "(" + std::to_string(v) + ")" + (v < to ? "," : ";\n");
  return sql;
}

// The reference scan of B (references.h) reads a dump only as long as some column may still
// refer to an overlapping key: a level column meets a value that is no player id at its first
// row, and with nothing else to learn the scan stops there; a column whose values are all
// player ids keeps it going to the end, and is inferred.
TEST(DumpPasses, TheReferenceScanStopsOnceNoColumnIsLeftToLearnFrom) {
  TempDir dir;
  const std::string schema =
      "CREATE TABLE player(id INTEGER PRIMARY KEY);\nCREATE TABLE stat(level INTEGER);\n"
      "CREATE TABLE bag(owner INTEGER);\n";
  const std::string a = dir.path() + "/a.sql";
  testing::WriteFile(a, schema + Values("player", 1, 300));
  const std::string b_stat = schema + Values("player", 1, 300) + Values("stat", 5000, 9000);
  for (const bool with_bag : {false, true}) {
    const std::string b = dir.path() + (with_bag ? "/b_bag.sql" : "/b.sql");
    testing::WriteFile(b, b_stat + (with_bag ? Values("bag", 1, 200) : ""));
    CountingDump source_a(a, false), source_b(b, false);
    Options options;
    const Report report = CheckSources(a, source_a, b, source_b, options, CutoffOf(options));
    ASSERT_EQ(report.keys.size(), 1u);
    EXPECT_EQ(report.keys[0].overlap, 300u);
    if (with_bag) {
      ASSERT_EQ(report.keys[0].references.size(), 1u);
      EXPECT_EQ(report.keys[0].references[0].table, "bag");
      EXPECT_EQ(report.keys[0].references[0].found, "inferred");
      EXPECT_EQ(source_b.last_scan_rows, 4001u + 200u);  // stat and bag, to the end
    } else {
      EXPECT_TRUE(report.keys[0].references.empty());
      // The first row of stat says it all: the scan stops within the first run of its rows
      // the dump gives at once.
      EXPECT_EQ(source_b.last_scan_rows, dump::kRowBatch);
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
