// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge checker beside SQLite's own join and beside the read floor on the same two files
// (issues 3, 11 and 30), on the shapes of table games have. Each case is two SQLite files of N
// rows, 1,000 rows of them in both, inserted in primary-key order (what a VACUUMed shard looks
// like), generated once (fixed seed) into $TMPDIR/steadyflake-bench-mergecheck-<case>-<N>/ and
// reused. N is each of STEADYFLAKE_BENCH_SIZES (comma-separated; default 1000000,2000000), or
// STEADYFLAKE_BENCH_ROWS alone when that is set; bench/run leaves 5,000,000 to
// STEADYFLAKE_BENCH_SIZES=1000000,2000000,5000000 (the 5M files take minutes to generate).
//
//   rowid        item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT)
//   unique_text  player(id INTEGER PRIMARY KEY, name TEXT UNIQUE, level INTEGER), names of
//                6-16 random letters (the name index is written in random order)
//   player       player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, level INTEGER),
//                random 62-bit ids, names `hero_<hex of id>` (issue 30); of the 1,000 shared
//                rows, 500 have another level in B (identical and differing rows)
//   composite    inventory(player_id INTEGER, slot INTEGER, item_id INTEGER,
//                          PRIMARY KEY(player_id, slot))
//   without_rowid  the same, WITHOUT ROWID
//   bigint       account(id BIGINT PRIMARY KEY, name TEXT, created INTEGER): not a rowid alias,
//                so SQLite keeps the key in an index beside the table
//
// BM_MergeCheck/<case>/<N> runs, interleaved, STEADYFLAKE_BENCH_ROUNDS times (default 3):
//   floor        read(2) of both files into one buffer on a page, the files cached as read
//                from disk (read_floor.h: `cat a.db b.db`)
//   merge-check  Check(): every key of both files, the identical-row comparison and B's values
//   join         ATTACH 'b.db' AS b; then for every key of the table
//                SELECT count(*) FROM main.T JOIN b.T USING(<key columns>), SQLite's defaults
//                (what an operator would type)
// and reports the best of each (floor_ms, check_ms, join_ms) and their ratios measured in the
// same rounds (join_x: join / merge-check, floor_x: merge-check / floor), with the bytes per key
// the checker held. Interleaving keeps the ratios honest on a shared machine: a burst of load
// from another process slows all three of a round, not one case's whole measurement.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "read_floor.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace {

using steadyflake::bench::FreshMemoryMsPerMib;
using steadyflake::bench::ReadFloor;
using steadyflake::bench::Recache;
using steadyflake::bench::Seconds;

constexpr uint64_t kShared = 1000;

// The sizes to measure (rows per file): STEADYFLAKE_BENCH_ROWS alone, else
// STEADYFLAKE_BENCH_SIZES, else 1M and 2M.
std::vector<uint64_t> Sizes() {
  const char* rows = std::getenv("STEADYFLAKE_BENCH_ROWS");
  if (rows != nullptr && *rows != '\0') return {std::stoull(rows)};
  const char* env = std::getenv("STEADYFLAKE_BENCH_SIZES");
  std::string list = env != nullptr && *env != '\0' ? env : "1000000,2000000";
  std::vector<uint64_t> sizes;
  for (std::size_t at = 0; at < list.size();) {
    std::size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    sizes.push_back(std::stoull(list.substr(at, end - at)));
    at = end + 1;
  }
  return sizes;
}

int Rounds() {
  const char* env = std::getenv("STEADYFLAKE_BENCH_ROUNDS");
  return env != nullptr && *env != '\0' ? std::max(1, std::stoi(env)) : 3;
}

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "?";
    sqlite3_free(error);
    throw std::runtime_error(sql + ": " + message);
  }
}

// One row to insert: up to three integers and one text, bound in the order `insert` names them.
struct Row {
  int64_t a = 0;
  int64_t b = 0;
  int64_t c = 0;
  std::string text;
};

struct Case {
  const char* name;
  const char* table;
  const char* create;             // the table and its indexes
  const char* insert;             // ?1..?3 integers, ?4 text
  std::vector<const char*> keys;  // USING(...) of each key
  // The rows of both files: the first kShared rows of `a` are also in `b`.
  std::function<void(uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a, std::vector<Row>& b)>
      generate;
};

// A player name as games allow them: 6-16 letters and digits, unique within `seen`.
std::string FreshName(std::mt19937_64& rng, std::unordered_set<std::string>& seen) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (;;) {
    std::string name;
    const uint64_t n = 6 + rng() % 11;
    for (uint64_t i = 0; i < n; ++i) name.push_back(kChars[rng() % (sizeof(kChars) - 1)]);
    if (seen.insert(name).second) return name;
  }
}

int64_t FreshId(std::mt19937_64& rng, std::unordered_set<int64_t>& seen) {
  for (;;) {
    const auto id = static_cast<int64_t>(rng() >> 1);  // 63 bits
    if (seen.insert(id).second) return id;
  }
}

// Rows keyed by one random 63-bit id, with a unique name when `names`.
void GenerateById(uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a, std::vector<Row>& b,
                  bool names) {
  std::unordered_set<int64_t> ids;
  std::unordered_set<std::string> taken;
  auto row = [&] {
    Row r;
    r.a = FreshId(rng, ids);
    r.b = static_cast<int64_t>(rng() % 1000000);
    r.text = names ? FreshName(rng, taken) : "item " + std::to_string(rng() % 100000);
    return r;
  };
  const uint64_t shared = std::min(kShared, rows);
  for (uint64_t i = 0; i < rows; ++i) a.push_back(row());
  for (uint64_t i = 0; i < shared; ++i) b.push_back(a[i]);
  for (uint64_t i = shared; i < rows; ++i) b.push_back(row());
}

// The player table of issue 30: random 62-bit ids, names `hero_<hex of id>`; of the kShared rows
// in both, every other one has another level in B.
void GeneratePlayers(uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a,
                     std::vector<Row>& b) {
  std::unordered_set<int64_t> ids;
  auto row = [&] {
    Row r;
    do {
      r.a = static_cast<int64_t>(rng() >> 2);  // 62 bits
    } while (!ids.insert(r.a).second);
    r.b = static_cast<int64_t>(rng() % 100);
    char hex[24];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(r.a));
    r.text = std::string("hero_") + hex;
    return r;
  };
  const uint64_t shared = std::min(kShared, rows);
  for (uint64_t i = 0; i < rows; ++i) a.push_back(row());
  for (uint64_t i = 0; i < shared; ++i) {
    b.push_back(a[i]);
    if (i % 2 == 1) b.back().b += 100;
  }
  for (uint64_t i = shared; i < rows; ++i) b.push_back(row());
}

// Inventory rows: 50 slots for each of rows/50 players; the first kShared/50 players of A are
// in B too, with the same slots.
void GenerateInventory(uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a,
                       std::vector<Row>& b) {
  constexpr uint64_t kSlots = 50;
  std::unordered_set<int64_t> ids;
  const uint64_t players = std::max<uint64_t>(1, rows / kSlots);
  const uint64_t shared = std::min(kShared / kSlots, players);
  auto player = [&](std::vector<Row>& out, int64_t id) {
    for (uint64_t slot = 0; slot < kSlots; ++slot) {
      out.push_back(Row{id, static_cast<int64_t>(slot), FreshId(rng, ids), {}});
    }
  };
  std::vector<int64_t> first;
  for (uint64_t i = 0; i < players; ++i) {
    first.push_back(FreshId(rng, ids));
    player(a, first.back());
  }
  for (uint64_t i = 0; i < players; ++i) player(b, i < shared ? first[i] : FreshId(rng, ids));
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"rowid",
       "item",
       "CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT)",
       "INSERT INTO item VALUES(?1, ?2, ?4)",
       {"id"},
       [](uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a, std::vector<Row>& b) {
         GenerateById(rows, rng, a, b, false);
       }},
      {"unique_text",
       "player",
       "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT UNIQUE, level INTEGER)",
       "INSERT INTO player VALUES(?1, ?4, ?2)",
       {"id", "name"},
       [](uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a, std::vector<Row>& b) {
         GenerateById(rows, rng, a, b, true);
       }},
      {"player",
       "player",
       "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, level INTEGER)",
       "INSERT INTO player VALUES(?1, ?4, ?2)",
       {"id", "name"},
       GeneratePlayers},
      {"composite",
       "inventory",
       "CREATE TABLE inventory(player_id INTEGER, slot INTEGER, item_id INTEGER,"
       " PRIMARY KEY(player_id, slot))",
       "INSERT INTO inventory VALUES(?1, ?2, ?3)",
       {"player_id, slot"},
       GenerateInventory},
      {"without_rowid",
       "inventory",
       "CREATE TABLE inventory(player_id INTEGER, slot INTEGER, item_id INTEGER,"
       " PRIMARY KEY(player_id, slot)) WITHOUT ROWID",
       "INSERT INTO inventory VALUES(?1, ?2, ?3)",
       {"player_id, slot"},
       GenerateInventory},
      {"bigint",
       "account",
       "CREATE TABLE account(id BIGINT PRIMARY KEY, name TEXT, created INTEGER)",
       "INSERT INTO account VALUES(?1, ?4, ?2)",
       {"id"},
       [](uint64_t rows, std::mt19937_64& rng, std::vector<Row>& a, std::vector<Row>& b) {
         GenerateById(rows, rng, a, b, false);
       }},
  };
  return cases;
}

void WriteDb(const std::string& path, const Case& c, std::vector<Row>& rows) {
  // In primary-key order, as a VACUUMed shard holds them.
  std::sort(rows.begin(), rows.end(),
            [](const Row& x, const Row& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  Exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
  Exec(db, c.create);
  Exec(db, "BEGIN");
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, c.insert, -1, &insert, nullptr);
  for (const Row& r : rows) {
    sqlite3_bind_int64(insert, 1, r.a);
    sqlite3_bind_int64(insert, 2, r.b);
    sqlite3_bind_int64(insert, 3, r.c);
    sqlite3_bind_text(insert, 4, r.text.data(), static_cast<int>(r.text.size()), SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db));
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  Exec(db, "COMMIT");
  sqlite3_close(db);
}

// The folder holding a.db and b.db of case `c`, generated on first use.
std::string Files(const Case& c, uint64_t rows) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/steadyflake-bench-mergecheck-" + c.name + "-" + std::to_string(rows);
  struct stat info {};
  if (::stat((dir + "/done").c_str(), &info) == 0) return dir;
  ::mkdir(dir.c_str(), 0755);
  std::fprintf(stderr, "generating two SQLite files of %llu rows in %s ...\n",
               static_cast<unsigned long long>(rows), dir.c_str());
  std::mt19937_64 rng(20260101);
  std::vector<Row> a;
  std::vector<Row> b;
  c.generate(rows, rng, a, b);
  WriteDb(dir + "/a.db", c, a);
  WriteDb(dir + "/b.db", c, b);
  std::FILE* done = std::fopen((dir + "/done").c_str(), "w");
  if (done != nullptr) std::fclose(done);
  return dir;
}

// SQLite's own join of every key; false when a count is not the overlap.
bool AttachJoin(const Case& c, const std::string& dir, uint64_t want) {
  sqlite3* db = nullptr;
  sqlite3_open_v2((dir + "/a.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  Exec(db, "ATTACH 'file:" + dir + "/b.db?mode=ro' AS b");
  bool right = true;
  for (const char* key : c.keys) {
    const std::string sql = std::string("SELECT count(*) FROM main.") + c.table + " JOIN b." +
                            c.table + " USING(" + key + ")";
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
    int64_t count = -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) count = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    right = right && static_cast<uint64_t>(count) == want;
  }
  sqlite3_close(db);
  return right;
}

// One round is the floor, the check and the join, in that order; the iteration time is the
// check's. The best of each over the rounds, and their ratios, are the counters.
void MergeCheck(benchmark::State& state, const Case& c, uint64_t rows) {
  const std::string dir = Files(c, rows);
  const uint64_t want = std::min(kShared, rows);
  // The player case's B changes every other shared row (GeneratePlayers): half identical.
  const bool player = std::string(c.name) == "player";
  steadyflake::mergecheck::Options options;
  steadyflake::mergecheck::InputReport input;
  double floor = 1e30;
  double check = 1e30;
  double join = 1e30;
  Recache({dir + "/a.db", dir + "/b.db"});  // warm, as read from disk
  for (auto _ : state) {
    floor = std::min(floor, Seconds([&] {
                       benchmark::DoNotOptimize(ReadFloor({dir + "/a.db", dir + "/b.db"}));
                     }));
    bool right = true;
    const double t = Seconds([&] {
      const auto report = steadyflake::mergecheck::Check(dir + "/a.db", dir + "/b.db", options);
      right = report.keys.size() == c.keys.size();
      for (const auto& key : report.keys) {
        right = right && key.overlap == want && (!player || key.identical == want - want / 2);
      }
      input = report.inputs[0];
      benchmark::DoNotOptimize(report.verdict);
    });
    if (!right) {
      state.SkipWithError("wrong overlap");
      return;
    }
    check = std::min(check, t);
    state.SetIterationTime(t);
    bool joined = true;
    join = std::min(join, Seconds([&] { joined = AttachJoin(c, dir, want); }));
    if (!joined) {
      state.SkipWithError("wrong count from SQLite's join");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows * 2));
  state.counters["floor_ms"] = floor * 1e3;
  state.counters["check_ms"] = check * 1e3;
  state.counters["join_ms"] = join * 1e3;
  state.counters["join_x"] = join / check;
  state.counters["floor_x"] = check / floor;
  // Once the case's rounds are done (read_floor.h: its memory stays mapped).
  state.counters["fresh_ms_mib"] = FreshMemoryMsPerMib();
  // 0 when no key value was held: every key of the case merged in index order (a few batches
  // per input, whatever the rows).
  state.counters["bytes_per_key"] = input.keys_held > 0 ? static_cast<double>(input.key_bytes) /
                                                              static_cast<double>(input.keys_held)
                                                        : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = Rounds();
  for (const uint64_t rows : Sizes()) {
    for (const Case& c : Cases()) {
      const std::string name = std::string("BM_MergeCheck/") + c.name + "/" + std::to_string(rows);
      benchmark::RegisterBenchmark(name.c_str(), MergeCheck, c, rows)
          ->Unit(benchmark::kMillisecond)
          ->UseManualTime()
          ->Iterations(rounds);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
