// Copyright 2026 The steadyflake Authors.
//
// The generator beside its floor, measured in one run: every steadyflake figure is read as a
// ratio against BM_Floor_AtomicFetchAdd (what one atomic read-modify-write costs here) and
// BM_Floor_SteadyClockNow (what next() would cost if it read the clock per ID).

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "steadyflake/generator.h"

namespace steadyflake {
namespace {

// A layout with room enough that capacity never binds (2^22 IDs per millisecond), so the
// figures are pure CPU cost.
Layout RoomyLayout() { return Layout::Parse("38/3/22@1ms"); }

std::unique_ptr<Generator> MakeGenerator() {
  Generator::Options options;
  options.layout = RoomyLayout();
  options.server_id = 1;
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

void BM_Steadyflake_Next(benchmark::State& state) {
  // One generator for every run and thread: it outlives each run's threads.
  static const std::unique_ptr<Generator> generator = MakeGenerator();
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

void BM_Steadyflake_TryNext(benchmark::State& state) {
  const auto generator = MakeGenerator();
  for (auto _ : state) benchmark::DoNotOptimize(generator->try_next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Steadyflake_TryNext);

void BM_Steadyflake_Batch(benchmark::State& state) {
  const auto generator = MakeGenerator();
  const auto n = static_cast<uint64_t>(state.range(0));
  Id sum = 0;
  for (auto _ : state) {
    for (const Id id : generator->next_batch(n)) sum += id & 1;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Steadyflake_Batch)->RangeMultiplier(4)->Range(16, 65536);

}  // namespace
}  // namespace steadyflake
