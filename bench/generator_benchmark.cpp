// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The generator beside its floor, measured in one run: every steadyflake figure is read as a
// ratio against BM_Floor_AtomicFetchAdd (what one atomic read-modify-write costs here) and
// BM_Floor_SteadyClockNow (what next() would cost if it read the clock per ID).

#include <benchmark/benchmark.h>
#include <bson/bson.h>
#include <uuid/uuid.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "alternate_blocks.h"
#include "classic_id_worker.h"
#include "steadyflake/generator.h"
#ifdef STEADYFLAKE_BENCH_CAPI
#include "steadyflake/c.h"
#endif

namespace steadyflake {
namespace {

// A layout with room enough that capacity never binds (2^22 IDs per millisecond), so the
// figures are pure CPU cost.
Layout RoomyLayout() { return Layout::Parse("38/3/22@1ms"); }

// Each generator that lives at the same time as another needs a server id of its own: the host
// guard refuses a second holder of one id, in one process as in two. BM_Steadyflake_Next's
// lives until the process ends (id 1), BM_CApi_Next's too (id 2), and
// BM_Steadyflake_Next_OutOfLine's (id 7); the others are made and dropped within one benchmark
// (id 3).
std::unique_ptr<Generator> MakeGenerator(uint64_t server_id) {
  Generator::Options options;
  options.layout = RoomyLayout();
  options.server_id = server_id;
  return std::make_unique<Generator>(options);
}

void BM_Floor_AtomicFetchAdd(benchmark::State& state) {
  static std::atomic<uint64_t> counter{0};
  for (auto _ : state) {
    benchmark::DoNotOptimize(counter.fetch_add(1, std::memory_order_relaxed));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Floor_AtomicFetchAdd);
BENCHMARK(BM_Floor_AtomicFetchAdd)->Threads(2)->UseRealTime();

void BM_Floor_SteadyClockNow(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Floor_SteadyClockNow);
BENCHMARK(BM_Floor_SteadyClockNow)->Threads(2)->UseRealTime();

// BM_Steadyflake_Next's generator: one for every run and thread, it outlives each run's threads.
Generator& NextGenerator() {
  static const std::unique_ptr<Generator> generator = MakeGenerator(1);
  return *generator;
}

void BM_Steadyflake_Next(benchmark::State& state) {
  Generator* const generator = &NextGenerator();
  Id first = 0, last = 0;
  for (auto _ : state) {
    last = generator->next();
    if (first == 0) first = last;
    benchmark::DoNotOptimize(last);
  }
  // Outside the timed loop: this thread's IDs must have increased.
  if (state.iterations() > 1 && last <= first) state.SkipWithError("IDs did not increase");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Steadyflake_Next);
BENCHMARK(BM_Steadyflake_Next)->Threads(2)->UseRealTime();

#ifdef STEADYFLAKE_BENCH_CAPI
// BM_CApi_Next: the same next() through the C ABI (libsteadyflake_c), a call into the shared
// library plus its fork check, against BM_Steadyflake_Next's inlined call (target 8: at most
// 1.5x, measured by BM_CApi_Next_Alternating). Its generator lives until the process ends.
steadyflake_generator* CApiGenerator() {
  static steadyflake_generator* const generator = [] {
    steadyflake_options* options = steadyflake_options_create();
    char* err = nullptr;
    steadyflake_options_set_layout(options, RoomyLayout().ToString().c_str(), &err);
    steadyflake_options_set_server_id(options, 2);  // see MakeGenerator
    steadyflake_generator* opened = steadyflake_generator_open(options, &err);
    steadyflake_options_destroy(options);
    if (opened == nullptr) {
      std::fprintf(stderr, "BM_CApi_Next: %s\n", err != nullptr ? err : "cannot open");
      std::abort();
    }
    return opened;
  }();
  return generator;
}

void BM_CApi_Next(benchmark::State& state) {
  steadyflake_generator* const generator = CApiGenerator();
  int64_t first = 0, last = 0;
  for (auto _ : state) {
    last = steadyflake_next(generator);
    if (first == 0) first = last;
    benchmark::DoNotOptimize(last);
  }
  if (state.iterations() > 1 && last <= first) state.SkipWithError("IDs did not increase");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CApi_Next);

// The same next() in this binary but behind a call that is never inlined: the part of
// BM_CApi_Next's cost that any out-of-line call pays (the call, its return address, the
// handle's loads), whatever the ABI.
[[gnu::noinline]] Id NextOutOfLine(Generator& generator) { return generator.next(); }

Generator& OutOfLineGenerator() {
  static const std::unique_ptr<Generator> generator = MakeGenerator(7);
  return *generator;
}

void BM_Steadyflake_Next_OutOfLine(benchmark::State& state) {
  Generator& generator = OutOfLineGenerator();
  for (auto _ : state) benchmark::DoNotOptimize(NextOutOfLine(generator));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Steadyflake_Next_OutOfLine);

// Targets 8 and 8b: the C ABI's next() against the inlined and the out-of-line C++ call, each
// pair in alternating blocks (alternate_blocks.h; counter x).
void BM_CApi_Next_Alternating(benchmark::State& state) {
  steadyflake_generator* const capi = CApiGenerator();
  Generator& inlined = NextGenerator();
  AlternateBlocks(
      state, [&inlined] { return inlined.next(); }, [capi] { return steadyflake_next(capi); });
}
BENCHMARK(BM_CApi_Next_Alternating)->UseManualTime()->Iterations(400);

void BM_CApi_Next_VsOutOfLine(benchmark::State& state) {
  steadyflake_generator* const capi = CApiGenerator();
  Generator& outofline = OutOfLineGenerator();
  AlternateBlocks(
      state, [&outofline] { return NextOutOfLine(outofline); },
      [capi] { return steadyflake_next(capi); });
}
BENCHMARK(BM_CApi_Next_VsOutOfLine)->UseManualTime()->Iterations(400);
#endif

void BM_Steadyflake_TryNext(benchmark::State& state) {
  const auto generator = MakeGenerator(3);
  for (auto _ : state) benchmark::DoNotOptimize(generator->try_next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Steadyflake_TryNext);

void BM_Steadyflake_Batch(benchmark::State& state) {
  const auto generator = MakeGenerator(3);
  const auto n = static_cast<uint64_t>(state.range(0));
  Id sum = 0;
  for (auto _ : state) {
    for (const Id id : generator->next_batch(n)) sum += id & 1;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Steadyflake_Batch)->RangeMultiplier(4)->Range(16, 65536);

// What users pick instead of a snowflake generator.
void BM_Classic_Next(benchmark::State& state) {
  bench::ClassicIdWorker worker(1);
  for (auto _ : state) benchmark::DoNotOptimize(worker.Next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Classic_Next);

void BM_UUIDv4(benchmark::State& state) {
  uuid_t uuid;
  for (auto _ : state) {
    uuid_generate_random(uuid);
    benchmark::DoNotOptimize(uuid[0]);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UUIDv4);

void BM_ObjectId(benchmark::State& state) {
  bson_oid_t oid;
  for (auto _ : state) {
    bson_oid_init(&oid, nullptr);
    benchmark::DoNotOptimize(oid.bytes[11]);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ObjectId);

// Spikes: the wall time to issue a burst of IDs at once, measured per iteration around the
// burst only (a fresh generator each time, built outside the timing so every burst starts with
// the whole max_lead window free).
constexpr std::size_t kBurst = 1'000'000;

Generator::Options SnowflakeOptions() {
  Generator::Options options;
  options.layout = Layout::Snowflake();
  options.server_id = 1;
  return options;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Outside the timed region: the burst's IDs must be strictly increasing.
void CheckBurst(benchmark::State& state, const std::vector<Id>& ids) {
  if (std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<Id>()) != ids.end()) {
    state.SkipWithError("burst IDs are not strictly increasing");
  }
}

void BM_Burst1M_Classic(benchmark::State& state) {
  std::vector<Id> ids(kBurst);
  for (auto _ : state) {
    bench::ClassicIdWorker worker(1);
    const auto start = std::chrono::steady_clock::now();
    for (Id& id : ids) id = worker.Next();
    state.SetIterationTime(Seconds(std::chrono::steady_clock::now() - start));
    CheckBurst(state, ids);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kBurst));
}
BENCHMARK(BM_Burst1M_Classic)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

// Times `fill(generator, ids)` on a fresh snowflake-layout generator per iteration and reports
// the largest lead it reached.
template <typename Fill>
void RunSnowflakeBurst(benchmark::State& state, Fill fill) {
  std::vector<Id> ids(kBurst);
  double lead_ms = 0;
  for (auto _ : state) {
    Generator generator(SnowflakeOptions());
    const auto start = std::chrono::steady_clock::now();
    fill(generator, ids);
    state.SetIterationTime(Seconds(std::chrono::steady_clock::now() - start));
    lead_ms =
        std::max(lead_ms, std::chrono::duration<double, std::milli>(generator.lead()).count());
    CheckBurst(state, ids);
  }
  state.counters["lead_ms"] = lead_ms;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kBurst));
}

void BM_Burst1M_Next(benchmark::State& state) {
  RunSnowflakeBurst(state, [](Generator& generator, std::vector<Id>& ids) {
    for (Id& id : ids) id = generator.next();
  });
}
BENCHMARK(BM_Burst1M_Next)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

void BM_Burst1M_Batch1000(benchmark::State& state) {
  RunSnowflakeBurst(state, [](Generator& generator, std::vector<Id>& ids) {
    for (std::size_t i = 0; i < ids.size(); i += 1000) {
      std::copy_n(generator.next_batch(1000).begin(), 1000, ids.begin() + static_cast<long>(i));
    }
  });
}
BENCHMARK(BM_Burst1M_Batch1000)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// A 300,000-ID burst on the `game` layout with the default 2 s max_lead: 205,824 IDs fit in the
// window at once, the rest come at the sustained 102,400 a second. Reports the lead reached and
// the longest stall between two IDs (it must stay far below max_lead). With
// STEADYFLAKE_SPIKE_CSV=<file>, writes "seconds,ids,lead_ms" samples for bench/spike.png.
void BM_Burst_Game(benchmark::State& state) {
  constexpr std::size_t kGameBurst = 300'000;
  std::vector<Id> ids(kGameBurst);
  double lead_ms = 0, stall_ms = 0;
  struct Sample {
    double seconds;
    std::size_t ids;
    double lead_ms;
  };
  std::vector<Sample> samples;
  for (auto _ : state) {
    Generator::Options options;
    options.server_id = 1;
    Generator generator(options);
    samples.clear();
    const auto start = std::chrono::steady_clock::now();
    auto previous = start;
    for (std::size_t i = 0; i < kGameBurst; ++i) {
      ids[i] = generator.next();
      const auto now = std::chrono::steady_clock::now();
      stall_ms =
          std::max(stall_ms, std::chrono::duration<double, std::milli>(now - previous).count());
      previous = now;
      if (i % 1024 == 0) {
        const double lead = std::chrono::duration<double, std::milli>(generator.lead()).count();
        lead_ms = std::max(lead_ms, lead);
        samples.push_back({Seconds(now - start), i, lead});
      }
    }
    state.SetIterationTime(Seconds(std::chrono::steady_clock::now() - start));
    CheckBurst(state, ids);
  }
  state.counters["lead_ms"] = lead_ms;
  state.counters["max_stall_ms"] = stall_ms;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kGameBurst));
  if (const char* path = std::getenv("STEADYFLAKE_SPIKE_CSV")) {
    if (std::FILE* out = std::fopen(path, "w")) {
      std::fprintf(out, "seconds,ids,lead_ms\n");
      for (const Sample& s : samples)
        std::fprintf(out, "%.6f,%zu,%.3f\n", s.seconds, s.ids, s.lead_ms);
      std::fclose(out);
    }
  }
}
BENCHMARK(BM_Burst_Game)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace steadyflake
