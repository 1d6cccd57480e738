// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// TimeEachCall: latency benchmarks (registry_benchmark.cpp, refresh_benchmark.cpp) time every
// call on its own and report its distribution as counters.

#ifndef STEADYFLAKE_BENCH_TIME_EACH_CALL_H_
#define STEADYFLAKE_BENCH_TIME_EACH_CALL_H_

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace steadyflake {

// Runs `operation` once per iteration, timing each call on its own (the benchmark's manual
// time), then sets the p50, p99 and worst of the calls as counters, in milliseconds (p50_ms,
// p99_ms, worst_ms). `after`, if given, runs after each call with its result, outside the
// timing.
template <typename Operation, typename After>
void TimeEachCall(benchmark::State& state, Operation operation, After after) {
  std::vector<double> samples;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto result = operation();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(took.count());
    samples.push_back(took.count());
    after(result);
  }
  if (samples.empty()) return;
  std::sort(samples.begin(), samples.end());
  const auto at = [&](double q) {
    return samples[std::min(samples.size() - 1,
                            static_cast<std::size_t>(q * static_cast<double>(samples.size())))];
  };
  state.counters["p50_ms"] = at(0.50) * 1e3;
  state.counters["p99_ms"] = at(0.99) * 1e3;
  state.counters["worst_ms"] = samples.back() * 1e3;
}

}  // namespace steadyflake

#endif  // STEADYFLAKE_BENCH_TIME_EACH_CALL_H_
