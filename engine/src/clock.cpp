// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/clock.h"

#include <chrono>
#include <thread>

namespace steadyflake {
namespace {

class RealClock final : public Clock {
 public:
  int64_t SteadyNanos() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t WallNanos() override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void SleepFor(int64_t nanos) override {
    if (nanos > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(nanos));
  }
  bool IsReal() const override { return true; }
};

}  // namespace

Clock* Clock::Real() {
  // Never destroyed, so generators in static objects may use it during shutdown.
  static RealClock* const clock = new RealClock();
  return clock;
}

}  // namespace steadyflake
