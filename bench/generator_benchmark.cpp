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

// Fails the run if IDs did not increase (checked outside the timed loop's hot path).
void CheckIncreasing(benchmark::State& state, Id first, Id last) {
  if (state.iterations() > 1 && last <= first) state.SkipWithError("IDs did not increase");
}

Generator* shared_generator = nullptr;

void BM_Steadyflake_Next(benchmark::State& state) {
  std::unique_ptr<Generator> owned;
  if (state.thread_index() == 0) {
    owned = MakeGenerator();
    shared_generator = owned.get();
  }
  // Google Benchmark starts every thread's loop together, after this setup.
  Id first = 0, last = 0;
  bool have_first = false;
  for (auto _ : state) {
    last = shared_generator->next();
    if (!have_first) {
      first = last;
      have_first = true;
    }
    benchmark::DoNotOptimize(last);
  }
  CheckIncreasing(state, first, last);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Steadyflake_Next);

void BM_Steadyflake_Next_Threads(benchmark::State& state) {
  static std::unique_ptr<Generator> generator = MakeGenerator();  // outlives every thread's loop
  Id first = 0, last = 0;
  bool have_first = false;
  for (auto _ : state) {
    last = generator->next();
    if (!have_first) {
      first = last;
      have_first = true;
    }
    benchmark::DoNotOptimize(last);
  }
  CheckIncreasing(state, first, last);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Steadyflake_Next_Threads)->Name("BM_Steadyflake_Next")->Threads(2)->UseRealTime();

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
