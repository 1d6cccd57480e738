// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The checker's passes read inputs A and B at once, one thread each.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_BOTH_INPUTS_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_BOTH_INPUTS_H_

#include <exception>
#include <thread>

namespace steadyflake::mergecheck {

// Runs `on_b` on a thread of its own and `on_a` on the calling thread, and returns when both
// are done. Throws what either threw, A's error first; B's thread is joined either way, so
// what the two share may be freed once this returns or throws.
template <typename OnA, typename OnB>
void OnBothInputs(OnA&& on_a, OnB&& on_b) {
  std::exception_ptr error_b;
  std::thread thread_b([&] {
    try {
      on_b();
    } catch (...) {
      error_b = std::current_exception();
    }
  });
  std::exception_ptr error_a;
  try {
    on_a();
  } catch (...) {
    error_a = std::current_exception();
  }
  thread_b.join();
  if (error_a) std::rethrow_exception(error_a);
  if (error_b) std::rethrow_exception(error_b);
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_BOTH_INPUTS_H_
