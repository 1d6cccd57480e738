// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Linked into every GoogleTest binary: gives the process a host-guard namespace of its own
// (engine/src/host_guard.h) before any test runs. CTest runs tests in parallel processes, and
// many use the same server ids; without this, one test's generator would make another's fail
// to start. A namespace set from outside is kept (a test that starts processes which must
// collide sets one for all of them).

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

const bool kNamespaceSet = [] {
  const std::string name = "test-" + std::to_string(::getpid());
  return ::setenv("STEADYFLAKE_HOST_GUARD_NAMESPACE", name.c_str(), /*overwrite=*/0) == 0;
}();

}  // namespace
