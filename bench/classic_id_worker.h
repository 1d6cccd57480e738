// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The baseline steadyflake is measured against: a generator built the way Twitter's original
// IdWorker (2010, Scala) works, which most snowflake clones copy. One mutex around everything;
// the wall clock (system_clock) read in milliseconds on every call; 41/10/12 bits from Twitter's
// epoch; when a millisecond's 4,096 sequence numbers are spent it spins until the next
// millisecond; when the clock goes back it throws. Benchmark-only code.

#ifndef STEADYFLAKE_BENCH_CLASSIC_ID_WORKER_H_
#define STEADYFLAKE_BENCH_CLASSIC_ID_WORKER_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>

namespace steadyflake::bench {

class ClassicIdWorker {
 public:
  explicit ClassicIdWorker(int64_t worker_id) : worker_id_(worker_id) {}

  // Thread-safe (one mutex). Throws std::runtime_error if the wall clock moved back.
  int64_t Next() {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t timestamp = NowMs();
    if (timestamp < last_timestamp_) {
      throw std::runtime_error("clock moved backwards; refusing to generate an id");
    }
    if (timestamp == last_timestamp_) {
      sequence_ = (sequence_ + 1) & kSequenceMask;
      if (sequence_ == 0) {
        while (timestamp <= last_timestamp_) timestamp = NowMs();  // spin to the next ms
      }
    } else {
      sequence_ = 0;
    }
    last_timestamp_ = timestamp;
    return ((timestamp - kTwitterEpochMs) << 22) | (worker_id_ << 12) | sequence_;
  }

 private:
  static constexpr int64_t kTwitterEpochMs = 1288834974657;
  static constexpr int64_t kSequenceMask = 4095;

  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  const int64_t worker_id_;
  std::mutex mu_;
  int64_t last_timestamp_ = -1;  // GUARDED_BY(mu_)
  int64_t sequence_ = 0;         // GUARDED_BY(mu_)
};

}  // namespace steadyflake::bench

#endif  // STEADYFLAKE_BENCH_CLASSIC_ID_WORKER_H_
