// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/registry/registry.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "etcd.h"
#include "steadyflake/error.h"
#include "steadyflake/time_format.h"
#include "test_hooks.h"

namespace steadyflake::registry {

using internal::Etcd;
using internal::EtcdError;
using internal::TransportError;
using json = nlohmann::json;

struct EtcdStore::Private {
  explicit Private(const Options& options) : etcd(options) {}
  Etcd etcd;
};

namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw Error(Error::Code::kInvalidArgument, message);
}

// etcd could not be reached, or refused a request: the message says which and how to fix it.
[[noreturn]] void Unreachable(const std::exception& e) {
  std::string fix = "check --registry (every etcd member's client URL) and that etcd runs";
  if (const auto* transport = dynamic_cast<const TransportError*>(&e)) {
    if (!transport->fix().empty()) fix = transport->fix();
  } else if (const auto* refused = dynamic_cast<const EtcdError*>(&e)) {
    if (!refused->fix().empty()) fix = refused->fix();
  }
  throw Error(Error::Code::kState, std::string("registry: ") + e.what() + "; " + fix);
}

bool IsHttps(const std::string& url) { return url.compare(0, 8, "https://") == 0; }

class BootTimeClock final : public Clock {
 public:
  int64_t SteadyNanos() override {
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  }
  int64_t WallNanos() override { return Clock::Real()->WallNanos(); }
  void SleepFor(int64_t nanos) override { Clock::Real()->SleepFor(nanos); }
  bool IsReal() const override { return true; }
};

// The clocks of a store: a test's (Options::test_hooks), else the real ones.
Clock* ClockOf(const Options& options) {
  if (options.test_hooks && options.test_hooks->clock) return options.test_hooks->clock;
  return internal::BootClock();
}

// Now on the clock that lease deadlines are measured on: CLOCK_BOOTTIME in production. Never
// the wall clock, which may be set back or forward under a running holder.
int64_t BootNanos(Clock* clock) { return clock->SteadyNanos(); }

// Whether a guard is on: always, unless a test switched it off.
bool OwnerCompareOn(const Options& options) {
  return !options.test_hooks || options.test_hooks->owner_compare;
}
bool LeaseDeadlineOn(const Options& options) {
  return !options.test_hooks || options.test_hooks->lease_deadline;
}

std::string OwnerPrefix(const Options& options) { return options.prefix + "/owner/"; }
std::string ReservedPrefix(const Options& options) { return options.prefix + "/reserved/"; }
std::string OwnerKey(const Options& options, uint64_t id) {
  return OwnerPrefix(options) + std::to_string(id);
}
std::string ReservedKey(const Options& options, uint64_t id) {
  return ReservedPrefix(options) + std::to_string(id);
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

// A value this library wrote, or an empty object for anything else.
json ParseValue(const json& kv) {
  try {
    json value = json::parse(Etcd::Unbase64(kv.value("value", std::string())));
    if (value.is_object()) return value;
  } catch (const std::exception&) {
  }
  return json::object();
}

// "host web-3 pid 4242 since 2026-11-23T10:00:00Z (etcd key /p/owner/101)".
std::string DescribeOwner(const json& kv) {
  const json value = ParseValue(kv);
  std::string text = "host " + value.value("host", std::string("?")) + " pid " +
                     std::to_string(value.value("pid", int64_t{0}));
  if (value.contains("since_ms")) {
    text += " since " + FormatIso8601(value.value("since_ms", int64_t{0}), false);
  }
  return text + " (etcd key " + Etcd::Unbase64(kv.value("key", std::string())) + ")";
}

// The id at the end of "<prefix>/owner/<id>", or nullopt for a key that is not one.
std::optional<uint64_t> IdOfKey(const std::string& key, const std::string& prefix) {
  if (key.compare(0, prefix.size(), prefix) != 0 || key.size() == prefix.size()) return {};
  const std::string digits = key.substr(prefix.size());
  if (digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return {};
  }
  return std::stoull(digits);
}

// Every key under `prefix`, as etcd's kvs.
std::vector<json> RangePrefix(Etcd& etcd, const std::string& prefix) {
  const json answer = etcd.Call(
      "/v3/kv/range",
      {{"key", Etcd::Base64(prefix)}, {"range_end", Etcd::Base64(Etcd::PrefixEnd(prefix))}});
  std::vector<json> kvs;
  if (answer.contains("kvs")) {
    for (const json& kv : answer["kvs"]) kvs.push_back(kv);
  }
  return kvs;
}

int64_t Grant(Etcd& etcd, std::chrono::milliseconds ttl) {
  const int64_t seconds = std::max<int64_t>(1, (ttl.count() + 999) / 1000);
  const json answer = etcd.Call("/v3/lease/grant", {{"TTL", std::to_string(seconds)}});
  const int64_t lease = Etcd::Int(answer, "ID");
  if (lease == 0) throw EtcdError(0, "etcd granted no lease: " + answer.dump());
  return lease;
}

void Revoke(Etcd& etcd, int64_t lease) noexcept {
  try {
    etcd.Call("/v3/lease/revoke", {{"ID", std::to_string(lease)}});
  } catch (const std::exception&) {
    // It expires by itself after its TTL.
  }
}

// One keep-alive: the TTL etcd granted (0: the lease is gone).
int64_t KeepAlive(Etcd& etcd, int64_t lease) {
  const json answer = etcd.Call("/v3/lease/keepalive", {{"ID", std::to_string(lease)}});
  // The gateway streams: each answer is {"result": {...}}.
  const json& result = answer.contains("result") ? answer["result"] : answer;
  return Etcd::Int(result, "TTL");
}

struct ClaimResult {
  bool won = false;
  int64_t token = 0;
  std::string holder;  // when lost
};

// One txn: create the owner key with `lease` if it does not exist; else read the holder.
ClaimResult TryClaim(Etcd& etcd, const Options& options, const Layout& layout, uint64_t id,
                     int64_t lease) {
  const std::string key = Etcd::Base64(OwnerKey(options, id));
  const json value = {{"host", HostName()},
                      {"pid", static_cast<int64_t>(getpid())},
                      {"since_ms", ClockOf(options)->WallNanos() / 1'000'000},
                      {"layout", layout.ToString()},
                      {"epoch_ms", layout.epoch_ms()}};
  const json request = {
      {"compare",
       {{{"key", key}, {"target", "CREATE"}, {"result", "EQUAL"}, {"create_revision", "0"}}}},
      {"success",
       {{{"request_put",
          {{"key", key},
           {"value", Etcd::Base64(value.dump())},
           {"lease", std::to_string(lease)}}}}}},
      {"failure", {{{"request_range", {{"key", key}}}}}}};
  const json answer = etcd.Call("/v3/kv/txn", request);
  ClaimResult result;
  if (answer.value("succeeded", false)) {
    result.won = true;
    // The put is the txn's only write: its revision is the header's, the key's create revision.
    result.token = Etcd::Int(answer["header"], "revision");
    return result;
  }
  // Lost, unless the holder is this very lease: a retried request whose first answer was lost.
  for (const json& response : answer.value("responses", json::array())) {
    const json range = response.value("response_range", json::object());
    for (const json& kv : range.value("kvs", json::array())) {
      if (Etcd::Int(kv, "lease") == lease) {
        result.won = true;
        result.token = Etcd::Int(kv, "create_revision");
        return result;
      }
      result.holder = DescribeOwner(kv);
    }
  }
  if (result.holder.empty()) result.holder = "another generator (it has just let go; try again)";
  return result;
}

}  // namespace

void Validate(const Options& options) {
  if (options.endpoints.empty()) {
    Invalid("registry: no etcd endpoint; give --registry http://HOST:PORT[,HOST2:PORT...]");
  }
  for (const std::string& url : options.endpoints) {
    try {
      internal::Endpoint::Parse(url);
    } catch (const std::invalid_argument& e) {
      Invalid(e.what());
    }
  }
  if (options.prefix.size() < 2 || options.prefix.front() != '/' || options.prefix.back() == '/') {
    Invalid("registry prefix '" + options.prefix +
            "' must start with '/' and not end with one, e.g. /steadyflake/mygame-eu");
  }
  if (options.lease_ttl < std::chrono::seconds(2) || options.lease_ttl > std::chrono::hours(1)) {
    Invalid("lease TTL " + std::to_string(options.lease_ttl.count()) +
            " ms is out of range [2000, 3600000] ms; 10000 is the default");
  }
  if (options.lease_ttl.count() % 1000 != 0) {
    Invalid("lease TTL " + std::to_string(options.lease_ttl.count()) +
            " ms is not whole seconds; etcd leases count seconds");
  }
  if (options.timeout < std::chrono::milliseconds(10) ||
      options.timeout > std::chrono::minutes(1)) {
    Invalid("registry timeout " + std::to_string(options.timeout.count()) +
            " ms is out of range [10, 60000] ms");
  }
  const auto https = std::count_if(options.endpoints.begin(), options.endpoints.end(), IsHttps);
  if (https != 0 && static_cast<std::size_t>(https) != options.endpoints.size()) {
    Invalid(
        "registry endpoints mix http:// and https://; write every member's URL with the "
        "scheme its etcd serves (https:// for one started with --cert-file)");
  }
  if (options.cert_file.empty() != options.key_file.empty()) {
    Invalid(options.cert_file.empty()
                ? "registry client key " + options.key_file +
                      " (--registry-key) without a certificate; give --registry-cert too"
                : "registry client certificate " + options.cert_file +
                      " (--registry-cert) without its key; give --registry-key too");
  }
  if (https == 0 &&
      (!options.ca_file.empty() || !options.cert_file.empty() || !options.key_file.empty())) {
    Invalid(
        "registry CA or client certificate given, but the endpoints are http://; write them "
        "as https://HOST:PORT for TLS, or drop --registry-ca/--registry-cert/--registry-key");
  }
  if (options.user.empty() && !options.password.empty()) {
    Invalid("a registry password without a user; give the etcd user with --registry-user");
  }
  if (!options.user.empty() && options.password.empty()) {
    Invalid("registry user '" + options.user +
            "' has no password; give it in a file (--registry-password-file FILE) or in "
            "STEADYFLAKE_REGISTRY_PASSWORD");
  }
  if (https != 0) {
    try {
      internal::CheckTlsFiles({options.ca_file, options.cert_file, options.key_file});
    } catch (const std::invalid_argument& e) {
      Invalid(e.what());
    }
  }
}

std::vector<Entry> List(const Options& options) {
  Validate(options);
  std::map<uint64_t, Entry> entries;
  try {
    Etcd etcd(options);
    for (const json& kv : RangePrefix(etcd, OwnerPrefix(options))) {
      const auto id = IdOfKey(Etcd::Unbase64(kv.value("key", std::string())), OwnerPrefix(options));
      if (!id) continue;
      const json value = ParseValue(kv);
      Entry& entry = entries[*id];
      entry.server_id = *id;
      entry.owned = true;
      entry.host = value.value("host", std::string());
      entry.pid = value.value("pid", int64_t{0});
      entry.since_ms = value.value("since_ms", int64_t{0});
      entry.token = Etcd::Int(kv, "create_revision");
      entry.layout = value.value("layout", std::string());
      entry.lease_ttl_s = -1;
      if (const int64_t lease = Etcd::Int(kv, "lease"); lease != 0) {
        const json ttl = etcd.Call("/v3/lease/timetolive", {{"ID", std::to_string(lease)}});
        entry.lease_ttl_s = Etcd::Int(ttl, "TTL");
      }
    }
    for (const json& kv : RangePrefix(etcd, ReservedPrefix(options))) {
      const auto id =
          IdOfKey(Etcd::Unbase64(kv.value("key", std::string())), ReservedPrefix(options));
      if (!id) continue;
      const json value = ParseValue(kv);
      Entry& entry = entries[*id];
      entry.server_id = *id;
      if (entry.layout.empty()) entry.layout = value.value("layout", std::string());
      if (value.contains("end_ms")) entry.reserved_until_ms = value.value("end_ms", int64_t{0});
    }
  } catch (const TransportError& e) {
    Unreachable(e);
  } catch (const EtcdError& e) {
    Unreachable(e);
  } catch (const std::invalid_argument& e) {  // a TLS file changed since Validate
    Invalid(e.what());
  }
  std::vector<Entry> out;
  for (auto& [id, entry] : entries) out.push_back(std::move(entry));
  return out;
}

std::shared_ptr<EtcdStore> EtcdStore::Claim(const Options& options, const Layout& layout,
                                            uint64_t id) {
  return Claim(options, layout, IdRange{id, id});
}

std::shared_ptr<EtcdStore> EtcdStore::Claim(const Options& options, const Layout& layout,
                                            IdRange range) {
  Validate(options);
  if (range.lo > range.hi) {
    Invalid("server id range " + std::to_string(range.lo) + "-" + std::to_string(range.hi) +
            " is empty; write it as LO-HI with LO <= HI");
  }
  layout.CheckServerId(range.hi);
  const int64_t started = BootNanos(ClockOf(options));
  try {
    Etcd etcd(options);
    std::set<uint64_t> held;
    if (range.lo != range.hi) {
      for (const json& kv : RangePrefix(etcd, OwnerPrefix(options))) {
        const auto id =
            IdOfKey(Etcd::Unbase64(kv.value("key", std::string())), OwnerPrefix(options));
        if (id) held.insert(*id);
      }
    }
    const int64_t lease = Grant(etcd, options.lease_ttl);
    // The lease runs from when etcd granted it, at the latest now: the deadline counts from
    // before the grant was sent.
    const auto deadline = std::chrono::nanoseconds(started) + options.lease_ttl;
    std::string last_holder;
    for (uint64_t id = range.lo;; ++id) {
      if (!held.count(id)) {
        const ClaimResult result = TryClaim(etcd, options, layout, id, lease);
        if (result.won) {
          return std::shared_ptr<EtcdStore>(
              new EtcdStore(options, layout, id, lease, result.token, deadline));
        }
        last_holder = result.holder;
      }
      if (id == range.hi) break;
    }
    Revoke(etcd, lease);
    if (range.lo == range.hi) {
      throw Error(Error::Code::kLocked,
                  "server id " + std::to_string(range.lo) + " is held by " + last_holder +
                      "; stop that generator first, or claim another id: two generators with "
                      "one server id would issue the same IDs");
    }
    throw Error(Error::Code::kLocked,
                "no free server id in " + std::to_string(range.lo) + "-" +
                    std::to_string(range.hi) + " under " + options.prefix +
                    ": every one is held; widen --server-range or stop a server");
  } catch (const TransportError& e) {
    Unreachable(e);
  } catch (const EtcdError& e) {
    Unreachable(e);
  } catch (const std::invalid_argument& e) {  // a TLS file changed since Validate
    Invalid(e.what());
  }
}

EtcdStore::EtcdStore(const Options& options, const Layout& layout, uint64_t server_id,
                     int64_t lease, int64_t token, std::chrono::nanoseconds lease_deadline)
    : options_(options),
      layout_(layout),
      server_id_(server_id),
      lease_(lease),
      token_(token),
      clock_(ClockOf(options)),
      extend_client_(std::make_unique<Private>(options)),
      keepalive_client_(std::make_unique<Private>(options)),
      lease_deadline_boot_ns_(lease_deadline.count()) {
  keepalive_ = std::thread([this] { KeepAliveLoop(); });
}

EtcdStore::~EtcdStore() {
  // A store no generator closed (its constructor failed before Open): let the id go now
  // rather than when the lease runs out.
  if (!closed_) Close(std::nullopt);
}

bool EtcdStore::KeepAliveOnce(Private& client) {
  const int64_t sent = BootNanos(clock_);
  try {
    const int64_t ttl = KeepAlive(client.etcd, lease_);
    if (ttl <= 0) {
      lost_.store(true, std::memory_order_relaxed);
      return true;
    }
    lease_deadline_boot_ns_.store(sent + ttl * 1'000'000'000, std::memory_order_relaxed);
    return true;
  } catch (const std::exception&) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
}

void EtcdStore::KeepAliveLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_ && !lost_.load(std::memory_order_relaxed)) {
    lock.unlock();
    const bool answered = KeepAliveOnce(*keepalive_client_);
    lock.lock();
    // Every third of the TTL; after a failure sooner (a tenth), to catch etcd's return.
    const auto period = options_.lease_ttl / (answered ? 3 : 10);
    cv_.wait_for(lock, period, [this] { return stopping_; });
  }
}

std::optional<uint64_t> EtcdStore::Open(const Layout& layout, uint64_t server_id) {
  if (server_id != server_id_ || layout.ToString() != layout_.ToString() ||
      layout.epoch_ms() != layout_.epoch_ms()) {
    Invalid("the etcd store was claimed for server id " + std::to_string(server_id_) +
            " under layout " + layout_.ToString() + ", not " + std::to_string(server_id) +
            " under " + layout.ToString() + "; pass the claimed id to the generator");
  }
  try {
    const std::string key = ReservedKey(options_, server_id_);
    const json answer = extend_client_->etcd.Call("/v3/kv/range", {{"key", Etcd::Base64(key)}});
    if (!answer.contains("kvs") || answer["kvs"].empty()) return std::nullopt;
    const json value = ParseValue(answer["kvs"][0]);
    if (!value.contains("tick") || value.value("layout", std::string()) != layout_.ToString() ||
        value.value("epoch_ms", int64_t{-1}) != layout_.epoch_ms()) {
      throw Error(Error::Code::kState,
                  "etcd key " + key + " holds a reservation of layout " +
                      value.value("layout", std::string("?")) + " (epoch_ms " +
                      std::to_string(value.value("epoch_ms", int64_t{-1})) + "), not " +
                      layout_.ToString() + " (epoch_ms " + std::to_string(layout_.epoch_ms()) +
                      "); it is never replaced: use the layout it was written with, or another "
                      "--registry-prefix");
    }
    const uint64_t tick = value.value("tick", uint64_t{0});
    reserved_ = tick;
    return tick;
  } catch (const TransportError& e) {
    Unreachable(e);
  } catch (const EtcdError& e) {
    Unreachable(e);
  }
}

void EtcdStore::ThrowIfLost(const std::string& owner) const {
  if (!lost_.load(std::memory_order_relaxed)) return;
  throw Error(Error::Code::kLost, "server id " + std::to_string(server_id_) +
                                      " is lost: its etcd lease expired (" + owner +
                                      "); restart to claim an id again");
}

void EtcdStore::Extend(uint64_t tick) {
  const std::string owner = OwnerKey(options_, server_id_);
  ThrowIfLost(owner);
  // Past the lease's deadline the lease may have expired and another generator may own the id:
  // prove it is still ours (a keep-alive that etcd answers with a TTL) before extending.
  if (LeaseDeadlineOn(options_) &&
      BootNanos(clock_) >= lease_deadline_boot_ns_.load(std::memory_order_relaxed)) {
    if (!KeepAliveOnce(*extend_client_)) {
      throw Error(Error::Code::kState,
                  "registry: etcd did not answer a keep-alive past the "
                  "lease's deadline; issuing stops at the reservation "
                  "until it does");
    }
    ThrowIfLost(owner);
  }
  ExtendTxn(tick, owner);
  reserved_ = tick;
}

void EtcdStore::ExtendTxn(uint64_t tick, const std::string& owner) {
  const std::string key = Etcd::Base64(ReservedKey(options_, server_id_));
  const json value = {{"tick", tick},
                      {"end_ms", layout_.TickStartMs(tick) + layout_.tick_ms()},
                      {"layout", layout_.ToString()},
                      {"epoch_ms", layout_.epoch_ms()},
                      {"token", token_}};
  json compare = json::array();
  if (OwnerCompareOn(options_)) {
    compare.push_back({{"key", Etcd::Base64(owner)},
                       {"target", "CREATE"},
                       {"result", "EQUAL"},
                       {"create_revision", std::to_string(token_)}});
  }
  const json request = {
      {"compare", compare},
      {"success", {{{"request_put", {{"key", key}, {"value", Etcd::Base64(value.dump())}}}}}},
      {"failure", {{{"request_range", {{"key", Etcd::Base64(owner)}}}}}}};
  json answer;
  try {
    answer = extend_client_->etcd.Call("/v3/kv/txn", request);
  } catch (const std::exception& e) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    throw Error(Error::Code::kState, std::string("registry: cannot extend the reservation: ") +
                                         e.what() +
                                         "; issuing stops at the reservation until "
                                         "etcd answers");
  }
  if (answer.value("succeeded", false)) return;
  lost_.store(true, std::memory_order_relaxed);
  std::string holder = "nobody (its lease expired)";
  for (const json& response : answer.value("responses", json::array())) {
    for (const json& kv :
         response.value("response_range", json::object()).value("kvs", json::array())) {
      holder = DescribeOwner(kv);
    }
  }
  throw Error(Error::Code::kLost, "server id " + std::to_string(server_id_) +
                                      " is lost: it is now held by " + holder +
                                      "; this generator issues nothing past its reservation");
}

void EtcdStore::Close(std::optional<uint64_t> last_used) noexcept {
  if (closed_) return;
  closed_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (keepalive_.joinable()) keepalive_.join();
  if (lost_.load(std::memory_order_relaxed)) return;
  try {
    // Like the state file: record the last tick used, so a prompt restart does not start
    // ahead of the clock. Guarded by the token like every extension.
    if (last_used && *last_used < reserved_) Extend(*last_used);
  } catch (const std::exception&) {
    // The reservation recorded before still covers every ID.
  }
  Revoke(extend_client_->etcd, lease_);
}

std::string EtcdStore::Describe() const { return "etcd key " + ReservedKey(options_, server_id_); }

namespace internal {

Clock* BootClock() {
  // Never destroyed, like Clock::Real(): a store in a static object may outlive it otherwise.
  static BootTimeClock* const clock = new BootTimeClock();
  return clock;
}

}  // namespace internal
}  // namespace steadyflake::registry
