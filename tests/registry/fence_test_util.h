// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Helpers of the registry's C++ tests (fence_test.cpp, partition_test.cpp): the etcd that
// with_etcd.sh started, an operator's client to read and write its keys directly, and a holder
// (an EtcdStore and its generator) driven by a simulated clock.

#ifndef STEADYFLAKE_TESTS_REGISTRY_FENCE_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_REGISTRY_FENCE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "etcd.h"
#include "steadyflake/clock.h"
#include "steadyflake/generator.h"
#include "steadyflake/registry/registry.h"
#include "test_hooks.h"

namespace steadyflake::registry::testing {

inline constexpr int64_t kMs = 1'000'000;  // nanoseconds
inline constexpr int64_t kSecond = 1000 * kMs;
// 2026-06-01T00:00:00Z, well inside the `game` layout.
inline constexpr int64_t kJune2026 = 1780272000000 * kMs;

// The etcd of this test run: STEADYFLAKE_TEST_ETCD, set by with_etcd.sh; empty without it.
inline std::string EtcdUrl() {
  const char* url = std::getenv("STEADYFLAKE_TEST_ETCD");
  return url ? url : "";
}

inline int PortOf(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

// Options for a holder of this test: a prefix no other test or repetition uses (the keys of
// the last one stay in etcd), a 2 s lease, a short call timeout.
inline Options TestOptions(const std::string& url, const std::string& name) {
  static int runs = 0;
  Options options;
  options.endpoints = {url};
  options.prefix =
      "/steadyflake-test/" + std::to_string(::getpid()) + "/" + name + "-" + std::to_string(++runs);
  options.lease_ttl = std::chrono::seconds(2);
  options.timeout = std::chrono::milliseconds(300);
  return options;
}

// etcd's API as an operator (or another process) uses it: keys written and read directly.
class EtcdApi {
 public:
  explicit EtcdApi(const std::string& url) : etcd_(Options{.endpoints = {url}}) {}

  // The key's kv (value decoded into "json", revisions as numbers), or nullopt.
  std::optional<nlohmann::json> Get(const std::string& key) {
    const nlohmann::json answer =
        etcd_.Call("/v3/kv/range", {{"key", internal::Etcd::Base64(key)}});
    if (!answer.contains("kvs") || answer["kvs"].empty()) return std::nullopt;
    const nlohmann::json& kv = answer["kvs"][0];
    return nlohmann::json{
        {"json", nlohmann::json::parse(internal::Etcd::Unbase64(kv.value("value", "")))},
        {"create_revision", internal::Etcd::Int(kv, "create_revision")},
        {"mod_revision", internal::Etcd::Int(kv, "mod_revision")},
        {"lease", internal::Etcd::Int(kv, "lease")}};
  }
  void Put(const std::string& key, const nlohmann::json& value, int64_t lease) {
    etcd_.Call("/v3/kv/put", {{"key", internal::Etcd::Base64(key)},
                              {"value", internal::Etcd::Base64(value.dump())},
                              {"lease", std::to_string(lease)}});
  }
  void Delete(const std::string& key) {
    etcd_.Call("/v3/kv/deleterange", {{"key", internal::Etcd::Base64(key)}});
  }
  int64_t Grant(int64_t seconds) {
    return internal::Etcd::Int(etcd_.Call("/v3/lease/grant", {{"TTL", std::to_string(seconds)}}),
                               "ID");
  }
  void Revoke(int64_t lease) { etcd_.Call("/v3/lease/revoke", {{"ID", std::to_string(lease)}}); }
  // Seconds left on the lease; -1 once it is gone.
  int64_t TimeToLive(int64_t lease) {
    return internal::Etcd::Int(etcd_.Call("/v3/lease/timetolive", {{"ID", std::to_string(lease)}}),
                               "TTL");
  }

 private:
  internal::Etcd etcd_;
};

// A store and its generator on a clock of the test's: the generator extends only when the test
// calls refresh(), on the test's thread (Ticker::kManual, no background writer).
struct Holder {
  std::shared_ptr<EtcdStore> store;
  std::unique_ptr<Generator> ids;

  Holder(Options options, std::shared_ptr<TestHooks> hooks, SimulatedClock* clock,
         uint64_t server_id) {
    if (!hooks->clock) hooks->clock = clock;
    options.test_hooks = std::move(hooks);
    store = EtcdStore::Claim(options, Layout::Game(), server_id);
    Generator::Options g;
    g.server_id = store->server_id();
    g.clock = clock;
    g.reservation_store = store;
    g.ticker = Generator::Ticker::kManual;
    g.write_in_background = false;
    ids = std::make_unique<Generator>(g);
  }

  // The first and the last ID issued (by Drain), if any.
  std::optional<Id> first;
  std::optional<Id> last;

  // Refreshes (extending when due, on this thread) and takes every ID below the limit; true
  // if there was one.
  bool Drain() {
    ids->refresh();
    bool any = false;
    while (auto id = ids->try_next()) {
      if (!first) first = id;
      last = id;
      any = true;
    }
    return any;
  }
};

inline uint64_t TickOf(Id id) { return Layout::Game().Decode(id).tick; }

// A Unix millisecond as the simulated clock's steady nanoseconds would read on the generator's
// anchored time: for comparing a deadline with a reservation's end.
inline int64_t WallMsAt(int64_t wall0_nanos, int64_t steady0_nanos, int64_t steady_nanos) {
  return (wall0_nanos + (steady_nanos - steady0_nanos)) / kMs;
}

}  // namespace steadyflake::registry::testing

#endif  // STEADYFLAKE_TESTS_REGISTRY_FENCE_TEST_UTIL_H_
