// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The etcd registry (docs/fleet.md), part of bench_generator when the registry is built:
// next() with the etcd reservation store beside BM_Floor_AtomicFetchAdd, and in alternating
// blocks with the same fetch_add for target 10 (the fast path must not notice where the
// reservation lives), and the latency of a claim and of an extension against the etcd that
// bench/run starts on 127.0.0.1 (STEADYFLAKE_BENCH_ETCD). Without that variable each case is
// skipped with a message.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alternate_blocks.h"
#include "steadyflake/generator.h"
#include "steadyflake/registry/registry.h"
#include "time_each_call.h"

namespace steadyflake {
namespace {

// etcd's URL from bench/run, or nullopt (the case is then skipped).
std::optional<registry::Options> Fleet(benchmark::State& state) {
  const char* url = std::getenv("STEADYFLAKE_BENCH_ETCD");
  if (url == nullptr || *url == '\0') {
    state.SkipWithError("STEADYFLAKE_BENCH_ETCD is not set: bench/run starts an etcd for this");
    return std::nullopt;
  }
  registry::Options options;
  options.endpoints = {url};
  options.prefix = "/steadyflake/bench";
  return options;
}

Layout RoomyLayout() { return Layout::Parse("38/3/22@1ms"); }

// The generator whose reservation lives on etcd (server id 4: ids 1 to 3 are the other
// benchmarks' generators of this layout), made on first use; null (the case skipped) without an
// etcd.
Generator* EtcdGenerator(benchmark::State& state) {
  static std::unique_ptr<Generator> generator;
  if (!generator) {
    const auto fleet = Fleet(state);
    if (!fleet) return nullptr;
    auto store = registry::EtcdStore::Claim(*fleet, RoomyLayout(), uint64_t{4});
    Generator::Options options;
    options.layout = RoomyLayout();
    options.server_id = store->server_id();
    options.reservation_store = std::move(store);
    generator = std::make_unique<Generator>(options);
  }
  return generator.get();
}

// next() on the generator whose reservation lives on etcd.
void BM_Registry_Next(benchmark::State& state) {
  Generator* generator = EtcdGenerator(state);
  if (generator == nullptr) return;
  Id last = 0;
  for (auto _ : state) {
    last = generator->next();
    benchmark::DoNotOptimize(last);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Registry_Next);

// Target 10's figure: the same next() and a relaxed fetch_add (BM_Floor_AtomicFetchAdd's loop)
// in alternating blocks (alternate_blocks.h; counter x).
void BM_Registry_Next_Alternating(benchmark::State& state) {
  Generator* generator = EtcdGenerator(state);
  if (generator == nullptr) return;
  static std::atomic<uint64_t> counter{0};
  AlternateBlocks(
      state, [] { return counter.fetch_add(1, std::memory_order_relaxed); },
      [generator] { return generator->next(); });
}
BENCHMARK(BM_Registry_Next_Alternating)->UseManualTime()->Iterations(400);

// A claim of one server id: one txn, plus a lease grant before it. The store is closed (its
// lease revoked) outside the timing, so each claim finds the id free.
void BM_Registry_Claim(benchmark::State& state) {
  const auto fleet = Fleet(state);
  if (!fleet) return;
  TimeEachCall(
      state, [&] { return registry::EtcdStore::Claim(*fleet, RoomyLayout(), uint64_t{5}); },
      [](const std::shared_ptr<registry::EtcdStore>& store) { store->Close(std::nullopt); });
}
BENCHMARK(BM_Registry_Claim)->UseManualTime()->Iterations(200)->Unit(benchmark::kMillisecond);

// An extension of the reservation: one txn that checks the owner's token and writes the tick.
void BM_Registry_Extend(benchmark::State& state) {
  const auto fleet = Fleet(state);
  if (!fleet) return;
  auto store = registry::EtcdStore::Claim(*fleet, RoomyLayout(), uint64_t{6});
  uint64_t tick = store->Open(RoomyLayout(), 6).value_or(0) + 1'000'000;
  TimeEachCall(
      state,
      [&] {
        store->Extend(++tick);
        return tick;
      },
      [](uint64_t) {});
  store->Close(std::nullopt);
}
BENCHMARK(BM_Registry_Extend)->UseManualTime()->Iterations(500)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace steadyflake
