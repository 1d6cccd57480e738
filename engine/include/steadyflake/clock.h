// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Where a Generator gets its time. Code takes a Clock; production passes Clock::Real(), tests
// drive a SimulatedClock, so rollback, jumps and exhaustion are tested without sleeping.
//
// A Generator reads WallNanos() exactly once, when it is constructed (the anchor), and from
// then on advances on SteadyNanos() only; skew() is the one other reader of the wall clock.

#ifndef STEADYFLAKE_CLOCK_H_
#define STEADYFLAKE_CLOCK_H_

#include <atomic>
#include <cstdint>

namespace steadyflake {

// Implementations must be safe to call from several threads at once.
class Clock {
 public:
  virtual ~Clock() = default;

  // Nanoseconds on a clock that never goes back, from an arbitrary origin.
  virtual int64_t SteadyNanos() = 0;
  // Nanoseconds since 1970-01-01T00:00:00Z on the wall clock, which may jump either way.
  virtual int64_t WallNanos() = 0;
  // Blocks the calling thread for about `nanos` of steady time (returns at once if <= 0).
  virtual void SleepFor(int64_t nanos) = 0;
  // True if SleepFor really sleeps, so a background thread can pace itself on real time.
  virtual bool IsReal() const { return false; }

  // The process's real clock: std::chrono::steady_clock and system_clock. Never destroyed.
  static Clock* Real();
};

// A clock that moves only when told to. Steady and wall time start where the constructor puts
// them; Advance() moves both, SetWall() moves only the wall clock (a rollback or a jump), and
// SleepFor() advances both by the time asked for, so a generator that waits finishes at once
// with the simulated time moved on. Thread-safe; it counts its reads so tests can check who
// read what.
class SimulatedClock : public Clock {
 public:
  explicit SimulatedClock(int64_t wall_nanos, int64_t steady_nanos = 1'000'000'000)
      : wall_(wall_nanos), steady_(steady_nanos) {}

  int64_t SteadyNanos() override {
    steady_reads_.fetch_add(1, std::memory_order_relaxed);
    return steady_.load(std::memory_order_relaxed);
  }
  int64_t WallNanos() override {
    wall_reads_.fetch_add(1, std::memory_order_relaxed);
    return wall_.load(std::memory_order_relaxed);
  }
  void SleepFor(int64_t nanos) override {
    if (nanos <= 0) return;
    slept_.fetch_add(nanos, std::memory_order_relaxed);
    Advance(nanos);
  }

  // Moves both clocks forward by `nanos` (>= 0).
  void Advance(int64_t nanos) {
    steady_.fetch_add(nanos, std::memory_order_relaxed);
    wall_.fetch_add(nanos, std::memory_order_relaxed);
  }
  // Moves only the wall clock, to `nanos`: back for a rollback, forward for a jump.
  void SetWall(int64_t nanos) { wall_.store(nanos, std::memory_order_relaxed); }

  int64_t wall_reads() const { return wall_reads_.load(std::memory_order_relaxed); }
  int64_t steady_reads() const { return steady_reads_.load(std::memory_order_relaxed); }
  // Total nanoseconds callers asked SleepFor to wait.
  int64_t slept_nanos() const { return slept_.load(std::memory_order_relaxed); }

  // Memory ordering: relaxed throughout. Each field is one atomic that callers read for its own
  // value; no other memory is published through it.
 private:
  std::atomic<int64_t> wall_;
  std::atomic<int64_t> steady_;
  std::atomic<int64_t> wall_reads_{0};
  std::atomic<int64_t> steady_reads_{0};
  std::atomic<int64_t> slept_{0};
};

}  // namespace steadyflake

#endif  // STEADYFLAKE_CLOCK_H_
