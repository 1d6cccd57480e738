// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal: may change between releases.
//
// The registry's test seam (docs/testing.md, "Seams"): Options::test_hooks points at one of
// these in the registry's own tests, and is null everywhere else. It injects the clocks, makes
// chosen calls to etcd go unanswered, and switches off either of the two guards that keep a
// holder that lost its id from extending its reservation:
//   - the owner compare: the extension's txn checks the owner key's create revision (token);
//   - the lease deadline: past the deadline (boot clock), a keep-alive must prove the lease
//     before the extension is sent.
// Each one is enough alone; a test switches the other off to prove it (issue 31).

#ifndef STEADYFLAKE_REGISTRY_SRC_TEST_HOOKS_H_
#define STEADYFLAKE_REGISTRY_SRC_TEST_HOOKS_H_

#include <functional>
#include <string>

#include "steadyflake/clock.h"
#include "steadyflake/registry/registry.h"

namespace steadyflake::registry {

struct TestHooks {
  // The lease deadline is measured on clock->SteadyNanos() (in production CLOCK_BOOTTIME) and
  // the owner's since_ms read from clock->WallNanos(). nullptr: internal::BootClock(). Not
  // owned; it outlives the store.
  Clock* clock = nullptr;
  // false: the extension's txn is sent without the owner compare (it always succeeds).
  bool owner_compare = true;
  // false: Extend does not look at the lease deadline (no keep-alive first past it).
  bool lease_deadline = true;
  // Asked before each call to etcd with its path ("/v3/lease/keepalive"); false: the call
  // fails as if etcd had not answered (TransportError). Empty: every call goes out.
  std::function<bool(const std::string& path)> answer{};
};

namespace internal {

// The registry's real clocks: SteadyNanos() is CLOCK_BOOTTIME (it counts a suspend, as etcd's
// clock does, unlike steady_clock), WallNanos() the system clock. Never destroyed.
Clock* BootClock();

}  // namespace internal
}  // namespace steadyflake::registry

#endif  // STEADYFLAKE_REGISTRY_SRC_TEST_HOOKS_H_
