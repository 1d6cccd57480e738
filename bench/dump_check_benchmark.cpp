// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// merge-check of two mariadb-dump files, issue 30's third target: the `player` table of two
// shards (id BIGINT PRIMARY KEY, name VARCHAR UNIQUE under utf8mb4_general_ci, level), random
// 62-bit ids, names `hero_<hex of id>`, 1,000 rows in both (same id and name, another level),
// 2,000,000 rows a file (97 MB, the size; STEADYFLAKE_BENCH_DUMP_ROWS sets another).
// Beside each check, the read floor: read(2) of both files into a buffer on a page, the files
// cached as read from disk (read_floor.h), what `cat a.sql b.sql > /dev/null` costs. The files
// are made once per size in $TMPDIR/steadyflake-bench-dumps-<rows>.
//
//   bench_dump_check    (build with -DCMAKE_BUILD_TYPE=Release)

#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "read_floor.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace {

using steadyflake::bench::FreshMemoryMsPerMib;
using steadyflake::bench::ReadFloor;
using steadyflake::bench::Recache;
using steadyflake::bench::Seconds;

constexpr uint64_t kShared = 1000;

uint64_t Rows() {
  const char* env = std::getenv("STEADYFLAKE_BENCH_DUMP_ROWS");
  return env != nullptr && *env != '\0' ? std::stoull(env) : 2000000;
}

int Rounds() {
  const char* env = std::getenv("STEADYFLAKE_BENCH_ROUNDS");
  return env != nullptr && *env != '\0' ? std::max(1, std::stoi(env)) : 3;
}

// A mariadb-dump file of `ids` (ascending, as InnoDB dumps its primary key), extended INSERTs
// of about 1 MiB; `level` seeds the third column.
void WriteDump(const std::string& path, const std::vector<uint64_t>& ids, uint64_t level) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::fputs(
      "-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)\n"
      "/*!40101 SET NAMES utf8mb4 */;\n"
      "CREATE TABLE `player` (\n  `id` bigint(20) NOT NULL,\n  `name` varchar(32) NOT NULL,\n"
      "  `level` int(11) NOT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `name` (`name`)\n"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;\n"
      "LOCK TABLES `player` WRITE;\n",
      f);
  std::mt19937_64 rng(level);
  std::size_t in_statement = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const bool first = in_statement == 0;
    if (first) std::fputs("INSERT INTO `player` VALUES ", f);
    const auto id = static_cast<unsigned long long>(ids[i]);
    in_statement +=
        static_cast<std::size_t>(std::fprintf(f, "%s(%llu,'hero_%llx',%llu)", first ? "" : ",", id,
                                              id, static_cast<unsigned long long>(1 + rng() % 80)));
    if (in_statement > (std::size_t{1} << 20) || i + 1 == ids.size()) {
      std::fputs(";\n", f);
      in_statement = 0;
    }
  }
  std::fputs("UNLOCK TABLES;\n-- Dump completed on 2026-11-26  9:00:00\n", f);
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
}

std::string Files(uint64_t rows) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/steadyflake-bench-dumps-" + std::to_string(rows);
  struct stat info {};
  if (::stat((dir + "/done").c_str(), &info) == 0) return dir;
  ::mkdir(dir.c_str(), 0755);
  std::fprintf(stderr, "generating two dumps of %llu rows in %s ...\n",
               static_cast<unsigned long long>(rows), dir.c_str());
  std::mt19937_64 rng(20261126);
  std::vector<uint64_t> a(rows);
  std::vector<uint64_t> b(rows);
  for (uint64_t& id : a) id = rng() >> 2;
  const uint64_t shared = std::min(kShared, rows);
  for (uint64_t i = 0; i < rows; ++i) b[i] = i < shared ? a[i * (rows / shared)] : rng() >> 2;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  WriteDump(dir + "/a.sql", a, 1);
  WriteDump(dir + "/b.sql", b, 2);
  std::FILE* done = std::fopen((dir + "/done").c_str(), "w");
  if (done != nullptr) std::fclose(done);
  return dir;
}

// One round is the floor, then the check; the iteration time is the check's. The best of each
// over the rounds, and their ratio, are the counters.
void MergeCheckDumps(benchmark::State& state, uint64_t rows) {
  const std::string dir = Files(rows);
  const uint64_t want = std::min(kShared, rows);
  steadyflake::mergecheck::Options options;
  double floor = 1e30;
  double check = 1e30;
  Recache({dir + "/a.sql", dir + "/b.sql"});  // warm, as read from disk
  for (auto _ : state) {
    floor = std::min(floor, Seconds([&] {
                       benchmark::DoNotOptimize(ReadFloor({dir + "/a.sql", dir + "/b.sql"}));
                     }));
    bool right = true;
    const double t = Seconds([&] {
      const auto report = steadyflake::mergecheck::Check(dir + "/a.sql", dir + "/b.sql", options);
      right = report.keys.size() == 2;
      for (const auto& key : report.keys) right = right && key.overlap == want;
      benchmark::DoNotOptimize(report.verdict);
    });
    if (!right) {
      state.SkipWithError("wrong overlap");
      return;
    }
    check = std::min(check, t);
    state.SetIterationTime(t);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows * 2));
  state.counters["floor_ms"] = floor * 1e3;
  state.counters["check_ms"] = check * 1e3;
  state.counters["floor_x"] = check / floor;
  // Once the case's rounds are done (read_floor.h: its memory stays mapped).
  state.counters["fresh_ms_mib"] = FreshMemoryMsPerMib();
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t rows = Rows();
  const std::string name = "BM_MergeCheckDumps/player/" + std::to_string(rows);
  benchmark::RegisterBenchmark(name.c_str(), MergeCheckDumps, rows)
      ->Unit(benchmark::kMillisecond)
      ->UseManualTime()
      ->Iterations(Rounds());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
