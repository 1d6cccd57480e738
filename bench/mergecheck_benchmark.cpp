// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge checker beside SQLite's own join on the same two files (issues 3 and 11), on the
// shapes of table games have. Each case is two SQLite files of N rows (5,000,000 unless
// STEADYFLAKE_BENCH_ROWS says otherwise), 1,000 rows of them in both, inserted in primary-key
// order (what a VACUUMed shard looks like), generated once (fixed seed) into
// $TMPDIR/steadyflake-bench-mergecheck-<case>-<N>/ and reused:
//
//   rowid        item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT)
//   unique_text  player(id INTEGER PRIMARY KEY, name TEXT UNIQUE, level INTEGER)
//   composite    inventory(player_id INTEGER, slot INTEGER, item_id INTEGER,
//                          PRIMARY KEY(player_id, slot))
//   without_rowid  the same, WITHOUT ROWID
//   bigint       account(id BIGINT PRIMARY KEY, name TEXT, created INTEGER): not a rowid alias,
//                so SQLite keeps the key in an index beside the table
//
//   BM_MergeCheck_Sqlite/<case>   Check(): every key of both files
//   BM_Sqlite_AttachJoin/<case>   ATTACH 'b.db' AS b; then for every key of the table
//                                 SELECT count(*) FROM main.T JOIN b.T USING(<key columns>),
//                                 SQLite's defaults (what an operator would type)
//
// After the run it prints each case's ratio and the bytes per key the checker held.

#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "steadyflake/mergecheck/mergecheck.h"

namespace {

constexpr uint64_t kShared = 1000;

uint64_t Rows() {
  const char* env = std::getenv("STEADYFLAKE_BENCH_ROWS");
  return env != nullptr && *env != '\0' ? std::stoull(env) : 5000000;
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

std::map<std::string, double> g_bytes_per_key;  // per case, of the last merge check

void MergeCheck(benchmark::State& state, const Case& c) {
  const uint64_t rows = Rows();
  const std::string dir = Files(c, rows);
  const uint64_t want = std::min(kShared, rows);
  steadyflake::mergecheck::Options options;
  steadyflake::mergecheck::InputReport input;
  for (auto _ : state) {
    const auto report = steadyflake::mergecheck::Check(dir + "/a.db", dir + "/b.db", options);
    bool right = report.keys.size() == c.keys.size();
    for (const auto& key : report.keys) right = right && key.overlap == want;
    if (!right) {
      state.SkipWithError("wrong overlap");
      return;
    }
    input = report.inputs[0];
    benchmark::DoNotOptimize(report.verdict);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows * 2));
  if (input.keys_held > 0) {
    const double per_key =
        static_cast<double>(input.key_bytes) / static_cast<double>(input.keys_held);
    state.counters["bytes_per_key"] = per_key;
    g_bytes_per_key[c.name] = per_key;
  }
}

void AttachJoin(benchmark::State& state, const Case& c) {
  const uint64_t rows = Rows();
  const std::string dir = Files(c, rows);
  const uint64_t want = std::min(kShared, rows);
  for (auto _ : state) {
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
    if (!right) {
      state.SkipWithError("wrong count");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows * 2));
}

// Remembers each benchmark's real time per iteration for the ratios.
class Reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Iteration)
        times[run.benchmark_name()] = run.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> times;
};

std::string Name(const char* benchmark, const Case& c) {
  return std::string(benchmark) + "/" + c.name;
}

}  // namespace

int main(int argc, char** argv) {
  for (const Case& c : Cases()) {
    benchmark::RegisterBenchmark(Name("BM_MergeCheck_Sqlite", c).c_str(), MergeCheck, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(1.0);
    benchmark::RegisterBenchmark(Name("BM_Sqlite_AttachJoin", c).c_str(), AttachJoin, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(1.0);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("rows per file: %llu\n", static_cast<unsigned long long>(Rows()));
  for (const Case& c : Cases()) {
    const auto check =
        reporter.times.find(Name("BM_MergeCheck_Sqlite", c) + "/min_time:1.000/real_time");
    const auto join =
        reporter.times.find(Name("BM_Sqlite_AttachJoin", c) + "/min_time:1.000/real_time");
    if (check == reporter.times.end() || join == reporter.times.end()) continue;
    std::printf("%-14s ATTACH JOIN / merge-check = %.2fx (target >= 2x)", c.name,
                join->second / check->second);
    const auto per_key = g_bytes_per_key.find(c.name);
    if (per_key != g_bytes_per_key.end()) {
      std::printf(", %.2f bytes per key held (target <= 24)", per_key->second);
    }
    std::printf("\n");
  }
  benchmark::Shutdown();
  return 0;
}
