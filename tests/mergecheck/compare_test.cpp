// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The checker's middle stages on sources built in memory: what a Collector keeps of each key
// (collect.h), how Compare matches tables and keys across inputs and reports drift
// (compare.h), and the values the re-read of input A recovers for hashed keys (reread.h).

#include "check/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "check/collect.h"
#include "check/reread.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/mergecheck.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

// Layout game, tick T0 = 2025-06-01T00:00:00Z; "now" 2026-01-01T00:00:00Z, cutoff a day later.
constexpr int64_t kT0 = 4466880000;
int64_t Gid(int64_t tick, int64_t server, int64_t seq) { return tick << 26 | server << 10 | seq; }
constexpr int64_t kNowMs = 1767225600000;
constexpr int64_t kCutoffMs = kNowMs + 24 * 60 * 60 * 1000;

Cell Int(int64_t value) {
  Cell cell;
  cell.type = Cell::Type::kInteger;
  cell.integer = value;
  return cell;
}

Cell Text(std::string_view bytes) {
  Cell cell;
  cell.type = Cell::Type::kText;
  cell.bytes = bytes;
  return cell;
}

Cell Null() { return Cell(); }

// A Source over tables and rows held in memory (every row gives every column).
class MemorySource : public Source {
 public:
  // Adds a table with `columns` (name, affinity) and `keys` (kind, column indexes).
  MemorySource& Add(std::string name, std::vector<std::pair<std::string, Affinity>> columns,
                    std::vector<Key> keys, std::vector<std::vector<Cell>> rows) {
    Table t;
    t.name = std::move(name);
    for (auto& [column, affinity] : columns) t.columns.push_back(Column{column, "", affinity});
    t.keys = std::move(keys);
    tables_.push_back(Entry{std::move(t), std::move(rows)});
    return *this;
  }

  std::string format() const override { return "memory"; }
  std::string reader() const override { return "memory"; }
  uint64_t bytes_read() const override { return 0; }
  uint64_t rows_read() const override { return 0; }
  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    ++scans;
    for (const Entry& e : tables_) {
      const std::vector<int> wanted = visitor.OnTable(e.table);
      if (!only.empty() && std::find(only.begin(), only.end(), e.table.name) == only.end()) {
        continue;
      }
      for (const std::vector<Cell>& row : e.rows) {
        std::vector<Cell> cells;
        for (const int c : wanted) cells.push_back(row.at(static_cast<std::size_t>(c)));
        visitor.OnRow(e.table, cells, 0);
      }
    }
  }

  int scans = 0;

 private:
  struct Entry {
    Table table;
    std::vector<std::vector<Cell>> rows;
  };
  std::vector<Entry> tables_;
};

Key Primary(std::vector<int> columns) { return Key{Key::Kind::kPrimary, "", std::move(columns)}; }
Key Unique(std::vector<int> columns) { return Key{Key::Kind::kUnique, "", std::move(columns)}; }

Options Opts() {
  Options options;
  options.now_ms = kNowMs;
  return options;
}

std::string DriftText(const Drift& d) {
  std::string text = d.table + "(";
  for (const std::string& c : d.columns) text += (text.back() == '(' ? "" : ",") + c;
  return text + ")" + d.only_in;
}

TEST(CollectTest, KeepsIntegersHashesAndServerIdsPerKey) {
  const std::string as_text = std::to_string(Gid(kT0, 101, 1));
  MemorySource a;
  a.Add("player", {{"id", Affinity::kInteger}, {"name", Affinity::kText}},
        {Primary({0}), Unique({1})},
        {{Int(Gid(kT0 + 2, 101, 0)), Text("alice")},
         {Int(Gid(kT0 + 1, 7, 3)), Null()},   // NULLs are never counted
         {Text(as_text), Text("bob")},        // text in an INTEGER column: the integer
         {Text("guest-1"), Text("alice")}});  // no ID: legacy
  const Options options = Opts();
  Collector collector(options, 0, a);
  const std::atomic<bool> cancelled{false};
  collector.Run(options.layout, kCutoffMs, cancelled);

  const TableState* player = collector.Find("player");
  ASSERT_NE(player, nullptr);
  ASSERT_EQ(player->keys.size(), 2u);
  const KeyState& id = player->keys[0];
  EXPECT_TRUE(id.decoded);
  EXPECT_EQ(id.set.rows(), 4u);
  EXPECT_EQ(std::vector<int64_t>(id.set.integers().begin(), id.set.integers().end()),
            (std::vector<int64_t>{Gid(kT0, 101, 1), Gid(kT0 + 1, 7, 3), Gid(kT0 + 2, 101, 0)}));
  EXPECT_EQ(id.set.hashes().size(), 1u);
  EXPECT_EQ(id.legacy, 1u);
  EXPECT_EQ(id.servers, (std::vector<uint64_t>{7, 101}));
  const KeyState& name = player->keys[1];
  EXPECT_FALSE(name.decoded);
  EXPECT_EQ(name.set.rows(), 3u);
  EXPECT_EQ(name.set.hashes().size(), 2u);  // alice twice, once kept
  EXPECT_EQ(collector.rows(), 4u);

  const InputReport in = DescribeInput("a", a, collector);
  EXPECT_EQ(in.format, "memory");
  EXPECT_EQ(in.tables, 1u);
  EXPECT_EQ(in.keys_held, 7u);
}

TEST(CompareTest, MatchesKeysByColumnNameAndReportsWhatOneInputLacks) {
  MemorySource a;
  a.Add("player", {{"id", Affinity::kInteger}, {"Name", Affinity::kText}},
        {Unique({1}), Unique({0})}, {})
      .Add("guild", {{"id", Affinity::kInteger}}, {Primary({0})}, {});
  MemorySource b;
  b.Add("mail", {{"id", Affinity::kInteger}}, {Primary({0})}, {})
      .Add("player",
           {{"ID", Affinity::kInteger}, {"name", Affinity::kText}, {"email", Affinity::kText}},
           {Primary({0}), Unique({1}), Unique({2})}, {});
  const Options options = Opts();
  Collector ca(options, 0, a);
  Collector cb(options, 1, b);
  CollectBoth(ca, cb, options.layout, kCutoffMs);
  Report report;
  const Comparison comparison = Compare(ca, cb, options, report);

  // Primary first (primary in either input: here B's); columns as input A spells them.
  ASSERT_EQ(report.keys.size(), 2u);
  EXPECT_EQ(report.keys[0].columns, std::vector<std::string>{"id"});
  EXPECT_EQ(report.keys[0].kind, KeyReport::Kind::kPrimary);
  EXPECT_EQ(report.keys[1].columns, std::vector<std::string>{"Name"});
  EXPECT_EQ(report.keys[1].kind, KeyReport::Kind::kUnique);
  std::vector<std::string> drift;
  for (const Drift& d : report.drift) drift.push_back(DriftText(d));
  EXPECT_EQ(drift, (std::vector<std::string>{"guild()a", "mail()b", "player(email)b"}));
  EXPECT_EQ(comparison.pending.size(), 2u);
  EXPECT_TRUE(comparison.targets.empty());
}

TEST(CompareTest, NamesTheOptionWhoseTableNeitherInputHas) {
  MemorySource a;
  a.Add("item", {{"id", Affinity::kInteger}}, {Primary({0})}, {});
  MemorySource b = a;
  Options options = Opts();
  options.tables = {"item", "itme"};
  Collector ca(options, 0, a);
  Collector cb(options, 1, b);
  CollectBoth(ca, cb, options.layout, kCutoffMs);
  Report report;
  try {
    Compare(ca, cb, options, report);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--table itme: neither input has a table itme; check the name (it is "
              "case-sensitive)");
  }
}

TEST(CompareTest, ListsIntegersAtOnceAndHashedValuesAfterTheReread) {
  auto shard = [](std::vector<int64_t> ids, std::vector<std::string_view> names) {
    MemorySource s;
    std::vector<std::vector<Cell>> rows;
    for (std::size_t i = 0; i < ids.size(); ++i) rows.push_back({Int(ids[i]), Text(names[i])});
    s.Add("item", {{"id", Affinity::kInteger}, {"name", Affinity::kText}},
          {Primary({0}), Unique({1})}, std::move(rows));
    return s;
  };
  MemorySource a = shard({30, 10, 20}, {"sword", "axe", "bow"});
  MemorySource b = shard({20, 40, 10}, {"bow", "axe", "mace"});
  const Options options = Opts();
  Collector ca(options, 0, a);
  Collector cb(options, 1, b);
  CollectBoth(ca, cb, options.layout, kCutoffMs);
  Report report;
  Comparison comparison = Compare(ca, cb, options, report);
  ASSERT_EQ(report.keys.size(), 2u);
  EXPECT_EQ(report.keys[0].overlap, 2u);
  EXPECT_EQ(report.keys[1].overlap, 2u);
  ASSERT_EQ(comparison.targets.count("item"), 1u);
  EXPECT_EQ(comparison.targets.at("item").at(0).hashes.size(), 2u);

  const int scans = a.scans;
  Reread(a, ca, comparison.targets);
  EXPECT_EQ(a.scans, scans + 1);
  ListConflicts(comparison, options.limit, report);
  std::vector<std::string> ids;
  for (const auto& row : report.keys[0].conflicts) ids.push_back(row.at(0).text);
  EXPECT_EQ(ids, (std::vector<std::string>{"10", "20"}));
  std::vector<std::string> names;
  for (const auto& row : report.keys[1].conflicts) names.push_back(row.at(0).text);
  EXPECT_EQ(names, (std::vector<std::string>{"axe", "bow"}));
  EXPECT_EQ(report.keys[1].conflicts[0][0].type, ReportValue::Type::kText);
}

// DecodeIds finds the IDs of a sorted key as one run between two binary searches: it must count
// and decode exactly the values IdBounds::Holds takes, one by one, at every edge of the run
// (the epoch + 2 s, the cutoff, the layout's last ID), for a cutoff before the epoch or past the
// layout's end, and for server ids counted in a bitmap (16 bits) or a list (30 bits).
TEST(CompareTest, DecodeIdsTakesTheValuesIdBoundsHolds) {
  std::mt19937_64 random = steadyflake::testing::SeededRandom();
  const Layout layouts[] = {Layout::Game(), Layout::Snowflake(), Layout::Parse("3/30/5@1000ms"),
                            Layout::Parse("1/1/1@1ms")};
  for (const Layout& layout : layouts) {
    const int64_t ends[] = {layout.epoch_ms() - 1, layout.epoch_ms() + 1000,
                            layout.epoch_ms() + 5000, kCutoffMs, layout.end_ms() + 1000};
    for (const int64_t cutoff : ends) {
      SCOPED_TRACE(layout.ToString() + " cutoff " + std::to_string(cutoff));
      const IdBounds bounds = IdBoundsOf(layout, cutoff);
      std::vector<int64_t> ids = {INT64_MIN, -1, 0, 1, layout.max_id(), INT64_MAX};
      if (layout.max_id() < INT64_MAX) ids.push_back(layout.max_id() + 1);
      for (const int64_t tick : {bounds.first_tick, bounds.last_tick}) {
        if (tick < 0) continue;
        // The first ID of tick + 1 and its neighbours; 2^63 (the last tick's) is no int64_t.
        const uint64_t edge = static_cast<uint64_t>(tick + 1) << bounds.shift;
        for (uint64_t v = edge - 2; v <= edge + 2; ++v) {
          if (v <= static_cast<uint64_t>(INT64_MAX)) ids.push_back(static_cast<int64_t>(v));
        }
      }
      for (int i = 0; i < 2000; ++i) {
        ids.push_back(static_cast<int64_t>(random() >> (random() % 4 == 0 ? 0 : 1)));
        ids.push_back(static_cast<int64_t>(random() % (uint64_t(layout.max_id()) + 1)));
      }
      ids.push_back(ids[ids.size() / 2]);  // a value twice: counted twice, as rows are
      std::sort(ids.begin(), ids.end());
      uint64_t want_ids = 0;
      uint64_t want_legacy = 0;
      std::vector<uint64_t> want_servers;
      for (const int64_t id : ids) {
        if (!bounds.Holds(id)) {
          ++want_legacy;
          continue;
        }
        ++want_ids;
        want_servers.push_back(layout.Decode(id).server_id);
      }
      std::sort(want_servers.begin(), want_servers.end());
      want_servers.erase(std::unique(want_servers.begin(), want_servers.end()), want_servers.end());
      uint64_t got_ids = 0;
      uint64_t got_legacy = 0;
      std::vector<uint64_t> got_servers = {12345};  // replaced, not added to
      DecodeIds(ids, layout, cutoff, got_ids, got_legacy, got_servers);
      EXPECT_EQ(got_ids, want_ids);
      EXPECT_EQ(got_legacy, want_legacy);
      EXPECT_EQ(got_servers, want_servers);
    }
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
