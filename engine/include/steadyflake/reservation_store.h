// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ReservationStore: where a generator keeps its reserved time, the last tick its server id may
// have used. A generator never issues an ID past the reservation, extends it ahead of the clock
// off the fast path, and a new generator for the same server id (after a restart, or on another
// host) starts past it. That is what keeps IDs from repeating whatever the wall clock did.
//
// Two implementations:
//   - the state file (Generator::Options::state_dir), for one host: a file under a flock;
//   - steadyflake::registry::EtcdStore (registry/), for fleets: the server id is claimed with an
//     etcd lease and the reservation is an etcd key that only the owner can extend.
// Other coordinators may implement it; the contract below is what the generator relies on.
//
// The generator calls a store from one thread at a time, never from next()'s fast path, and
// Extend without holding its own lock (on its writer thread, Options::write_in_background).
// Calls may block (an fsync, a network round trip): next() keeps issuing below the reservation
// meanwhile, and refresh() does not wait for them.

#ifndef STEADYFLAKE_RESERVATION_STORE_H_
#define STEADYFLAKE_RESERVATION_STORE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "steadyflake/layout.h"

namespace steadyflake {

class ReservationStore {
 public:
  virtual ~ReservationStore() = default;

  // Takes ownership of `server_id` under `layout` for this generator (locks the state file,
  // claims the id on etcd) and returns the last tick that any earlier owner may have used, or
  // nullopt when nothing is recorded. Called once, by the Generator constructor, before any ID.
  // Throws Error: kLocked naming the holder when another generator owns the id; kState when the
  // store cannot be read, or holds a reservation of another layout, epoch or server id.
  virtual std::optional<uint64_t> Open(const Layout& layout, uint64_t server_id) = 0;

  // Durably records `tick` as the last tick this server id may use; returns only once a
  // restarted or new owner would see it. Ticks only grow. Throws Error: kState when it could not
  // (the generator keeps the message in state_error() and tries again at its next refresh);
  // kLost when ownership is gone (a lease expired and another generator may own the id): the
  // generator then never calls Extend again and issues nothing past the last reservation.
  virtual void Extend(uint64_t tick) = 0;

  // At the generator's clean stop. `last_used` is the last tick it issued an ID in (at most the
  // reservation; nullopt if it issued none): the store may record it instead of the reservation,
  // so that a prompt restart does not start ahead of the clock, then releases ownership. Never
  // throws: on failure the reservation recorded before still covers every ID.
  virtual void Close(std::optional<uint64_t> last_used) noexcept = 0;

  // Where the reservation lives, for messages: "state file /var/lib/ids/server-7.state",
  // "etcd key /steadyflake/default/reserved/7".
  virtual std::string Describe() const = 0;

  // True when owning the id through this store excludes every other generator of the fleet,
  // on any host (etcd's lease). Then the generator takes no host-wide guard of its own (see
  // Generator::Options::host_guard): a successor on this host after a lease expired must start.
  virtual bool ExcludesAcrossHosts() const { return false; }
};

}  // namespace steadyflake

#endif  // STEADYFLAKE_RESERVATION_STORE_H_
