// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Linked into the test binaries tests/CMakeLists.txt lists as starting no thread
// (STEADYFLAKE_ONE_THREAD_TESTS), in builds without a sanitizer. ThreadSanitizer can find no data
// race in a process with one thread, so scripts/test's ThreadSanitizer build leaves those
// binaries out. This file keeps the list honest: the executable's own pthread_create comes
// before the C library's, so the first thread such a test starts ends the process with a message
// that says what to change.

#include <pthread.h>

#include <cstdio>
#include <cstdlib>

extern "C" int pthread_create(pthread_t* /*thread*/, const pthread_attr_t* /*attr*/,
                              void* (* /*start*/)(void*), void* /*arg*/) noexcept {
  std::fputs(
      "one_thread_guard: this test binary started a thread, but tests/CMakeLists.txt lists it in "
      "STEADYFLAKE_ONE_THREAD_TESTS, which the ThreadSanitizer build leaves out; take it off that "
      "list\n",
      stderr);
  std::abort();
}
