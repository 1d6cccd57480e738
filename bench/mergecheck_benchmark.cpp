// Copyright 2026 The steadyflake Authors.
//
// The merge checker beside SQLite's own join on the same two files (issue 3): each file is
// item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT) with N random 63-bit ids, 1,000 of
// them in both. N = 5,000,000 unless STEADYFLAKE_BENCH_ROWS says otherwise. The files are
// generated once (fixed seed) into $TMPDIR/steadyflake-bench-mergecheck-<N>/ and reused.
//
//   BM_MergeCheck_Sqlite   Check(): every key of both files, both read in parallel
//   BM_Sqlite_AttachJoin   ATTACH 'b.db' AS b; SELECT count(*) FROM main.item JOIN b.item
//                          USING(id), SQLite's defaults (what an operator would type)
//
// After the run it prints the ratio of the two and the bytes per key the checker held.

#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

void Exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "?";
    sqlite3_free(error);
    throw std::runtime_error(std::string(sql) + ": " + message);
  }
}

void WriteDb(const std::string& path, const std::vector<int64_t>& ids, std::mt19937_64& rng) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  Exec(db,
       "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
       "CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT); BEGIN;");
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO item VALUES(?1, ?2, ?3)", -1, &insert, nullptr);
  char name[48];
  for (const int64_t id : ids) {
    const int n = std::snprintf(name, sizeof name, "item %llu of owner %llu",
                                static_cast<unsigned long long>(rng() % 100000),
                                static_cast<unsigned long long>(rng() % 1000000));
    sqlite3_bind_int64(insert, 1, id);
    sqlite3_bind_int64(insert, 2, static_cast<int64_t>(rng() % 1000000));
    sqlite3_bind_text(insert, 3, name, n, SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db));
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  Exec(db, "COMMIT;");
  sqlite3_close(db);
}

// The folder holding a.db and b.db for `rows`, generated on first use.
std::string Files(uint64_t rows) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/steadyflake-bench-mergecheck-" + std::to_string(rows);
  struct stat info {};
  if (::stat((dir + "/done").c_str(), &info) == 0) return dir;
  ::mkdir(dir.c_str(), 0755);
  std::fprintf(stderr, "generating two SQLite files of %llu rows in %s ...\n",
               static_cast<unsigned long long>(rows), dir.c_str());
  std::mt19937_64 rng(20260101);
  std::unordered_set<int64_t> seen;
  std::vector<int64_t> a;
  std::vector<int64_t> b;
  auto fresh = [&] {
    for (;;) {
      const auto id = static_cast<int64_t>(rng() >> 1);  // 63 bits
      if (seen.insert(id).second) return id;
    }
  };
  const uint64_t shared = std::min(kShared, rows);
  for (uint64_t i = 0; i < rows; ++i) a.push_back(fresh());
  for (uint64_t i = 0; i < shared; ++i) b.push_back(a[i * (rows / shared)]);
  for (uint64_t i = shared; i < rows; ++i) b.push_back(fresh());
  seen = {};
  // Inserted in key order: the files are what a VACUUMed shard looks like.
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  WriteDb(dir + "/a.db", a, rng);
  WriteDb(dir + "/b.db", b, rng);
  std::FILE* done = std::fopen((dir + "/done").c_str(), "w");
  if (done != nullptr) std::fclose(done);
  return dir;
}

steadyflake::mergecheck::InputReport g_input;  // of the last merge check, for the summary

void BM_MergeCheck_Sqlite(benchmark::State& state) {
  const uint64_t rows = Rows();
  const std::string dir = Files(rows);
  steadyflake::mergecheck::Options options;
  for (auto _ : state) {
    const auto report = steadyflake::mergecheck::Check(dir + "/a.db", dir + "/b.db", options);
    if (report.keys.size() != 1 || report.keys[0].overlap != std::min(kShared, rows)) {
      state.SkipWithError("wrong overlap");
      return;
    }
    g_input = report.inputs[0];
    benchmark::DoNotOptimize(report.verdict);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows * 2));
  if (g_input.keys_held > 0) {
    state.counters["bytes_per_key"] =
        static_cast<double>(g_input.key_bytes) / static_cast<double>(g_input.keys_held);
  }
}
BENCHMARK(BM_MergeCheck_Sqlite)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_Sqlite_AttachJoin(benchmark::State& state) {
  const uint64_t rows = Rows();
  const std::string dir = Files(rows);
  for (auto _ : state) {
    sqlite3* db = nullptr;
    sqlite3_open_v2((dir + "/a.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    Exec(db, ("ATTACH 'file:" + dir + "/b.db?mode=ro' AS b").c_str());
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM main.item JOIN b.item USING(id)", -1, &stmt,
                       nullptr);
    int64_t count = -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) count = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    if (static_cast<uint64_t>(count) != std::min(kShared, rows)) {
      state.SkipWithError("wrong count");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows * 2));
}
BENCHMARK(BM_Sqlite_AttachJoin)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// Remembers each benchmark's real time per iteration for the ratio.
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

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto check = reporter.times.find("BM_MergeCheck_Sqlite/min_time:2.000/real_time");
  const auto join = reporter.times.find("BM_Sqlite_AttachJoin/min_time:2.000/real_time");
  if (check != reporter.times.end() && join != reporter.times.end()) {
    std::printf("rows per file: %llu\n", static_cast<unsigned long long>(Rows()));
    std::printf("ratio: ATTACH JOIN / merge-check = %.2fx (target >= 2x)\n",
                join->second / check->second);
  }
  if (g_input.keys_held > 0) {
    std::printf("memory: %.2f bytes per key held (%llu keys, %llu bytes; target <= 24)\n",
                static_cast<double>(g_input.key_bytes) / static_cast<double>(g_input.keys_held),
                static_cast<unsigned long long>(g_input.keys_held),
                static_cast<unsigned long long>(g_input.key_bytes));
  }
  benchmark::Shutdown();
  return 0;
}
