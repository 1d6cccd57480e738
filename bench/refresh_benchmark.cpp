// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// refresh() on a game loop (Ticker::kManual): what one frame pays, 10,000 frames each, worst
// case and p99. The simulated clock moves one 10 ms tick before each call, so the reservation
// comes due every 50 calls and the state file (on the real file system, in a temporary folder)
// is written about 200 times during a case. Three cases in one run:
//   /0: no state folder, nothing to write: the baseline;
//   /1: a state folder with the background writer (the default): refresh() only asks;
//   /2: a state folder written on the caller's thread (write_in_background = false): each due
//       refresh() pays the write, its fsyncs and the rename.
// The target (bench/report.py): /1's worst case under 0.2 ms, beside /0's.

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "steadyflake/clock.h"
#include "steadyflake/generator.h"
#include "time_each_call.h"

namespace steadyflake {
namespace {

void BM_Refresh_Manual(benchmark::State& state) {
  const int64_t mode = state.range(0);
  char dir[] = "/tmp/steadyflake-bench-refresh-XXXXXX";
  if (::mkdtemp(dir) == nullptr) {
    state.SkipWithError("cannot make a temporary folder under /tmp");
    return;
  }
  {
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    SimulatedClock clock(now);
    Generator::Options options;
    // Ids 20 to 22: other benchmarks' generators of this layout may be alive (the host guard).
    options.server_id = 20 + static_cast<uint64_t>(mode);
    options.clock = &clock;
    options.ticker = Generator::Ticker::kManual;
    if (mode != 0) options.state_dir = dir;
    options.write_in_background = mode != 2;
    Generator generator(options);
    TimeEachCall(
        state,
        [&] {
          clock.Advance(10'000'000);  // one `game` tick per frame
          generator.refresh();
          return 0;
        },
        [](int) {});
    state.counters["state_errors"] = static_cast<double>(generator.stats().state_errors);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Refresh_Manual)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Iterations(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace steadyflake
