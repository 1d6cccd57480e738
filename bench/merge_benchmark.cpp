// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake merge` beside what an operator runs by hand (issue 29, target 14): two SQLite
// shards of a game's two busiest tables, N rows each (1,000,000 and 2,000,000; the env var
// STEADYFLAKE_BENCH_MERGE_ROWS names one size instead), 0.1% of the players in both (legacy ids:
// the plan moves B's by an offset and rewrites item.owner_id, a declared FOREIGN KEY):
//
//   player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, level INTEGER NOT NULL)
//   item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES player(id),
//        template INTEGER NOT NULL)
//
// generated once into $TMPDIR/steadyflake-bench-merge-<N>/ with the plan (MakePlan) and B'
// (B with rewrite-b.sql applied), and reused:
//
//   BM_Merge/<N>, three rounds, each of them
//     by hand     the copy of A (cp), then `ATTACH 'b-rewritten.db' AS b; BEGIN;
//                 INSERT INTO player SELECT * FROM b.player; ... COMMIT;`
//     Merge()     fingerprints, copies, the rewrite, its row-by-row verification, the merge in
//                 one transaction and its checks
//
// The target is Merge's best round at most 2x the hand merge's at every size (merge_x,
// bench/report.py).

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "steadyflake/mergecheck/merge.h"
#include "steadyflake/mergecheck/plan.h"

namespace {

namespace fs = std::filesystem;

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "?";
    sqlite3_free(error);
    throw std::runtime_error(sql.substr(0, 80) + ": " + message);
  }
}

void ExecFile(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  Exec(db, sql);
  sqlite3_close(db);
}

// Players [first, first + n), each with one item of id item_base + player id.
void MakeShard(const std::string& path, int64_t first, int64_t n, int64_t item_base,
               const char* prefix) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  Exec(db,
       "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;"
       "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
       " level INTEGER NOT NULL);"
       "CREATE TABLE item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES player(id),"
       " template INTEGER NOT NULL);");
  std::mt19937_64 random(static_cast<uint64_t>(first));
  sqlite3_stmt* player = nullptr;
  sqlite3_stmt* item = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO player VALUES (?1, ?2, ?3)", -1, &player, nullptr);
  sqlite3_prepare_v2(db, "INSERT INTO item VALUES (?1, ?2, ?3)", -1, &item, nullptr);
  for (int64_t id = first; id < first + n; ++id) {
    const std::string name = std::string(prefix) + std::to_string(id);
    sqlite3_bind_int64(player, 1, id);
    sqlite3_bind_text(player, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(player, 3, static_cast<int64_t>(random() % 80));
    sqlite3_step(player);
    sqlite3_reset(player);
    sqlite3_bind_int64(item, 1, item_base + id);
    sqlite3_bind_int64(item, 2, id);
    sqlite3_bind_int64(item, 3, static_cast<int64_t>(random() % 5000));
    sqlite3_step(item);
    sqlite3_reset(item);
  }
  sqlite3_finalize(player);
  sqlite3_finalize(item);
  Exec(db, "COMMIT");
  sqlite3_close(db);
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct Case {
  std::string dir, a, b, b2, plan;
};

// The shards, the plan and B', made once per size.
const Case& Prepare(int64_t n) {
  static std::vector<std::pair<int64_t, Case>> made;
  for (const auto& [size, c] : made) {
    if (size == n) return c;
  }
  const char* tmp = std::getenv("TMPDIR");
  Case c;
  c.dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/steadyflake-bench-merge-" +
          std::to_string(n);
  c.a = c.dir + "/a.db";
  c.b = c.dir + "/b.db";
  c.b2 = c.dir + "/b-rewritten.db";
  c.plan = c.dir + "/plan";
  if (!fs::exists(c.b2)) {
    fs::remove_all(c.dir);
    fs::create_directories(c.plan);
    const int64_t shared = n / 1000;
    MakeShard(c.a, 1, n, 0, "a_");
    MakeShard(c.b, n - shared + 1, n, 10 * n, "b_");
    steadyflake::mergecheck::PlanOptions options;
    options.server_id = 103;
    const auto plan = steadyflake::mergecheck::MakePlan(c.a, c.b, options);
    WriteText(c.plan + "/plan.json", steadyflake::mergecheck::FormatPlanJson(plan));
    WriteText(c.plan + "/rewrite-b.sql", steadyflake::mergecheck::FormatPlanSql(plan));
    fs::copy_file(c.b, c.dir + "/b2.tmp");
    ExecFile(c.dir + "/b2.tmp", steadyflake::mergecheck::FormatPlanSql(plan));
    fs::rename(c.dir + "/b2.tmp", c.b2);
  }
  made.emplace_back(n, c);
  return made.back().second;
}

// Seconds since `start`.
double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The hand merge into `out`: cp of A, then B' attached and inserted in one transaction.
void HandMerge(const Case& c, const std::string& out) {
  fs::remove(out);
  fs::copy_file(c.a, out);
  sqlite3* db = nullptr;
  sqlite3_open(out.c_str(), &db);
  Exec(db, "ATTACH '" + c.b2 +
               "' AS b; BEGIN; INSERT INTO main.player SELECT * FROM b.player;"
               " INSERT INTO main.item SELECT * FROM b.item; COMMIT;");
  sqlite3_close(db);
  fs::remove(out);
}

// Merge() into `out`, verified; adds each stage's seconds (from its first progress call to the
// next stage's) to `stages`. False if the merge was not verified.
bool SteadyflakeMerge(const Case& c, const std::string& out,
                      std::map<std::string, double>& stages) {
  fs::remove(out);
  steadyflake::mergecheck::MergeOptions options;
  options.plan_dir = c.plan;
  options.out = out;
  std::string stage = "plan";
  auto since = std::chrono::steady_clock::now();
  options.progress = [&](const steadyflake::mergecheck::MergeOptions::Progress& p) {
    if (p.stage == stage) return;
    const auto now = std::chrono::steady_clock::now();
    stages[stage] += std::chrono::duration<double>(now - since).count();
    stage = p.stage;
    since = now;
  };
  const auto report = steadyflake::mergecheck::Merge(c.a, c.b, options);
  stages[stage] += Since(since);
  fs::remove(out);
  return report.verified;
}

// One round is the hand merge, then Merge(); the iteration time is Merge()'s. The best of each
// over the rounds and their ratio (merge_x) are the counters, as for the merge checker's cases:
// interleaved, a burst of load from elsewhere slows both of a round, not all of one side's.
void BM_Merge(benchmark::State& state) {
  const Case& c = Prepare(state.range(0));
  std::map<std::string, double> stages;
  double hand = 1e30;
  double merge = 1e30;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    HandMerge(c, c.dir + "/by-hand.db");
    hand = std::min(hand, Since(start));
    start = std::chrono::steady_clock::now();
    const bool verified = SteadyflakeMerge(c, c.dir + "/merged.db", stages);
    const double t = Since(start);
    if (!verified) {
      state.SkipWithError("the merge was not verified");
      return;
    }
    merge = std::min(merge, t);
    state.SetIterationTime(t);
  }
  for (const auto& [name, seconds] : stages) {
    std::string key = name + "_s";
    for (char& ch : key) ch = ch == ' ' ? '_' : ch;
    state.counters[key] = seconds / static_cast<double>(state.iterations());
  }
  state.counters["best_hand_s"] = hand;
  state.counters["best_merge_s"] = merge;  // merge_s is the stage "merge" (above)
  state.counters["merge_x"] = merge / hand;
  state.SetItemsProcessed(state.iterations() * state.range(0) * 4);
}

void Sizes(benchmark::internal::Benchmark* b) {
  const char* env = std::getenv("STEADYFLAKE_BENCH_MERGE_ROWS");
  if (env != nullptr && *env != '\0') {
    b->Arg(std::stoll(env));
  } else {
    b->Arg(1000000)->Arg(2000000);
  }
  b->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);
}

BENCHMARK(BM_Merge)->Apply(Sizes);

}  // namespace

BENCHMARK_MAIN();
