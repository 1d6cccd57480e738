// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal: may change between releases.
//
// HostGuard: at most one generator per (namespace, layout, epoch, server id) on a host, whatever
// their state folders. The state file's lock covers one folder only; `steadyflake gen
// --server-id 7` (state under the user's home) and `steadyflake-server --server-id 7` (state
// beside its database) once ran side by side and issued the same IDs.
//
// The guard is a listening Unix socket bound to an abstract name (Linux: no file to clean up,
// released by the kernel when the process exits however it exits):
//   "steadyflake/<namespace>/<layout>@<epoch_ms>/<server_id>"
// A second bind of the name fails with EADDRINUSE; the loser connects to the holder and learns
// its pid from SO_PEERCRED, and its command line from /proc. The namespace is the environment
// variable STEADYFLAKE_HOST_GUARD_NAMESPACE ("default" when unset or empty): tests that run in
// parallel set their own; so may two games on one host that share server ids on purpose.
// Abstract socket names are per network namespace: containers with network namespaces of their
// own are separate hosts to the guard (give each its own server id, or use etcd, docs/fleet.md).

#ifndef STEADYFLAKE_ENGINE_SRC_HOST_GUARD_H_
#define STEADYFLAKE_ENGINE_SRC_HOST_GUARD_H_

#include <cstdint>
#include <string>

#include "steadyflake/layout.h"

namespace steadyflake::internal {

class HostGuard {
 public:
  // The environment variable holding the namespace.
  static constexpr const char* kNamespaceVariable = "STEADYFLAKE_HOST_GUARD_NAMESPACE";

  // Takes the guard. Throws Error(kLocked) naming the holder (pid and command line) when another
  // generator on this host holds it, Error(kState) when the socket cannot be made.
  HostGuard(const Layout& layout, uint64_t server_id);
  ~HostGuard();

  HostGuard(const HostGuard&) = delete;
  HostGuard& operator=(const HostGuard&) = delete;

  // The abstract socket name for the current namespace (without the leading NUL).
  static std::string Name(const Layout& layout, uint64_t server_id);

 private:
  int fd_ = -1;
};

}  // namespace steadyflake::internal

#endif  // STEADYFLAKE_ENGINE_SRC_HOST_GUARD_H_
