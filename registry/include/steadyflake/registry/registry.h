// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// steadyflake::registry: server ids and reserved time on etcd, for fleets of hosts
// (docs/fleet.md). A generator's server id is claimed with an etcd lease, and its reservation
// (the last tick it may use) lives in an etcd key that only the owner can extend:
//
//   <prefix>/owner/<id>     {"host", "pid", "since_ms", "layout"}, with the owner's lease. Its
//                           create revision is the owner's fencing token.
//   <prefix>/reserved/<id>  {"tick", "unix_ms", "layout", "epoch_ms"}, no lease: it outlives
//                           every owner. Extended only by a txn that also checks
//                           owner.create_revision == token; a new owner starts past it.
//
// So a holder that lost its lease (paused, partitioned) can never extend, and issues only below
// what the next owner starts above: no duplicate, whatever the clocks or pauses did.
//
//   registry::Options fleet{.endpoints = {"http://10.0.0.5:2379", "http://10.0.0.6:2379"}};
//   auto store = registry::EtcdStore::Claim(fleet, Layout::Game(), registry::IdRange{1, 999});
//   Generator ids({.server_id = store->server_id(), .reservation_store = store});
//
// etcd is reached through its HTTP/JSON gateway with Boost.Beast; a secured etcd over TLS
// (https:// endpoints, OpenSSL) and with etcd's own auth (a user and password, traded for a
// token that is renewed when etcd refuses it).

#ifndef STEADYFLAKE_REGISTRY_REGISTRY_H_
#define STEADYFLAKE_REGISTRY_REGISTRY_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "steadyflake/layout.h"
#include "steadyflake/reservation_store.h"

namespace steadyflake {
class Clock;
}

namespace steadyflake::registry {

// The registry's own tests' seam (registry/src/test_hooks.h): injected clocks, unanswered
// calls, each guard switched off alone. Internal; leave Options::test_hooks null.
struct TestHooks;

struct Options {
  // etcd client URLs, http://HOST:PORT or https://HOST:PORT (all alike), one per member of the
  // cluster; tried in turn.
  std::vector<std::string> endpoints{};
  // Keys live under it: one prefix per game and region, so their server ids are separate.
  // Starts with '/', no trailing '/'.
  std::string prefix = "/steadyflake/default";
  // The owner key's lease. A holder that stops answering (crash, pause, partition) loses the id
  // this long after its last keep-alive; shorter frees ids sooner, longer survives longer
  // outages of etcd without losing the id. In [2 s, 1 h].
  std::chrono::milliseconds lease_ttl{10000};
  // The deadline of each call to etcd (connect, send, answer), per endpoint tried.
  std::chrono::milliseconds timeout{2000};

  // With https:// endpoints (TLS 1.2 or later; etcd's certificate must name the host or IP
  // address connected to). PEM files, read when a connection is set up.
  // The CAs that may sign etcd's certificate; empty: the system's default CAs.
  std::string ca_file{};
  // This client's certificate and its private key (unencrypted), for an etcd started with
  // --client-cert-auth: both or neither.
  std::string cert_file{};
  std::string key_file{};

  // etcd's auth: the user (empty: none) and its password, the secret itself (read it from a
  // file or the environment, never from a command line). It goes to /v3/auth/authenticate
  // only, and is never in a message.
  std::string user{};
  std::string password{};

  // Internal, for the registry's own tests (docs/testing.md, "Seams"); may change between
  // releases. Null: the real clocks and both guards, as every program runs.
  std::shared_ptr<const TestHooks> test_hooks{};
};

// Throws Error(kInvalidArgument) naming the field when `options` cannot work, or the file (and
// why) when a TLS file cannot be read or used.
void Validate(const Options& options);

// Which server id to claim: exactly one, or the lowest free one in [lo, hi].
struct IdRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
};

// One server id as the registry holds it (steadyflake registry list).
struct Entry {
  uint64_t server_id = 0;
  bool owned = false;       // an owner key exists (its lease alive)
  std::string host{};       // the owner's, when owned
  int64_t pid = 0;          // the owner's, when owned
  int64_t since_ms = 0;     // when the owner claimed it (Unix ms), when owned
  int64_t token = 0;        // the owner key's create revision, when owned
  int64_t lease_ttl_s = 0;  // seconds left on the owner's lease (-1: expired or unknown)
  std::string layout{};     // of the owner, or of the reservation
  std::optional<int64_t> reserved_until_ms{};  // the end of the reserved tick (Unix ms)
};

// Every server id under options.prefix that has an owner or a reservation, by id. Throws
// Error(kState) when etcd cannot be reached.
std::vector<Entry> List(const Options& options);

// The registry as a generator's ReservationStore. Thread-safe as the contract asks: the
// generator calls Open / Extend / Close one at a time; a keep-alive thread of its own renews
// the lease every lease_ttl / 3.
class EtcdStore : public ReservationStore {
 public:
  // Claims server id `id` (or the lowest free one in `range`) for `layout`, before any ID
  // exists. Throws Error: kLocked naming the holder (host, pid, since) when another generator
  // owns it, or when every id in the range is owned; kState when etcd cannot be reached or
  // answers with an error; kInvalidArgument for bad options or an id the layout cannot hold.
  static std::shared_ptr<EtcdStore> Claim(const Options& options, const Layout& layout,
                                          uint64_t id);
  static std::shared_ptr<EtcdStore> Claim(const Options& options, const Layout& layout,
                                          IdRange range);

  ~EtcdStore() override;

  uint64_t server_id() const { return server_id_; }
  // The fencing token: the create revision of the owner key.
  int64_t token() const { return token_; }

  std::optional<uint64_t> Open(const Layout& layout, uint64_t server_id) override;
  void Extend(uint64_t tick) override;
  void Close(std::optional<uint64_t> last_used) noexcept override;
  std::string Describe() const override;
  bool ExcludesAcrossHosts() const override { return true; }

  // Failed calls to etcd so far (keep-alives and extensions), for metrics.
  uint64_t errors() const { return errors_.load(std::memory_order_relaxed); }

 private:
  struct Private;
  EtcdStore(const Options& options, const Layout& layout, uint64_t server_id, int64_t lease,
            int64_t token, std::chrono::nanoseconds lease_deadline);

  // Throws Error(kLost) naming the owner key, when lost_ is set.
  void ThrowIfLost(const std::string& owner) const;
  // The extension's txn: put `tick` in the reserved key if the owner key still has token_.
  // Throws Error: kState when etcd did not answer, kLost naming the holder when the compare
  // failed.
  void ExtendTxn(uint64_t tick, const std::string& owner);

  void KeepAliveLoop();
  // Renews the lease once. Returns false when etcd did not answer; sets lost_ when the lease is
  // gone. REQUIRES: called from one thread at a time per client.
  bool KeepAliveOnce(Private& client);

  const Options options_;
  const Layout layout_;
  const uint64_t server_id_;
  const int64_t lease_;
  const int64_t token_;
  // Where the lease deadline's boot time comes from: CLOCK_BOOTTIME, or a test's clock.
  Clock* const clock_;
  std::unique_ptr<Private> extend_client_;     // used by Open, Extend, Close
  std::unique_ptr<Private> keepalive_client_;  // used by the keep-alive thread
  // CLOCK_BOOTTIME nanoseconds until which the lease is known alive: the send time of the last
  // answered keep-alive plus the TTL it granted. Boot time counts a suspend, which a lease
  // deadline must: etcd's clock kept running.
  std::atomic<int64_t> lease_deadline_boot_ns_;
  std::atomic<bool> lost_{false};
  std::atomic<uint64_t> errors_{0};
  uint64_t reserved_ = 0;  // the last tick Extend recorded (generator's lock)
  bool closed_ = false;    // Close ran (generator's lock, or the destructor)

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // GUARDED_BY(mu_)
  std::thread keepalive_;
};

}  // namespace steadyflake::registry

#endif  // STEADYFLAKE_REGISTRY_REGISTRY_H_
