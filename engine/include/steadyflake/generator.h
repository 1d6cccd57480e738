// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Generator issues IDs for one server id. A Generator is safe for concurrent use from any
// number of threads without external synchronization.
//
// Invariants (each held by a test in tests/generator_test.cpp):
//   1. IDs from one generator increase strictly in the order they are issued, across threads.
//   2. With a state folder, IDs of one server id never repeat across restarts, whatever the
//      wall clock did between runs.
//   3. After construction only the steady clock is read (skew() excepted, by definition).
//   4. An issued ID's time is never more than max_lead ahead of the anchored clock. When demand
//      exceeds the sequence space, the sequence carries into the next tick (borrowing future
//      time) up to that bound; there, next() waits and try_next() returns nullopt. Neither
//      ever returns a duplicate.
//   5. The sign bit is 0.
//
// Time: the constructor reads the wall clock once (the anchor) and from then on
// now = anchor + (steady now - steady at anchor), so setting the wall clock back or forward
// while the process runs changes nothing. When the state file or resume_after says IDs up to a
// later time may exist, the anchor moves forward to just past them (skew() shows by how much).

#ifndef STEADYFLAKE_GENERATOR_H_
#define STEADYFLAKE_GENERATOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "steadyflake/clock.h"
#include "steadyflake/layout.h"
#include "steadyflake/reservation_store.h"

// The installed headers are C++17 (no [[likely]]): the branch hint as abseil spells it.
#if defined(__GNUC__) || defined(__clang__)
#define STEADYFLAKE_PREDICT_TRUE(x) (__builtin_expect(false || (x), true))
#else
#define STEADYFLAKE_PREDICT_TRUE(x) (x)
#endif

namespace steadyflake {

namespace internal {
class Env;
class HostGuard;

// Turns a position of the generator's counter (tick << sequence_bits | sequence) into an ID by
// slotting the server id in between. Internal; may change between releases.
struct Packer {
  // The masks are stored, not derived from the bit counts on each call: where next() is not
  // inlined (the C ABI's steadyflake_next) that is three dependent instructions fewer.
  uint64_t sequence_mask = 0;  // (1 << sequence_bits) - 1
  uint64_t tick_mask = 0;      // ~sequence_mask
  int server_bits = 0;
  uint64_t server_part = 0;  // server_id << sequence_bits

  Id operator()(uint64_t position) const {
    return static_cast<Id>(((position & tick_mask) << server_bits) | server_part |
                           (position & sequence_mask));
  }
};
}  // namespace internal

// IDs reserved together by Generator::next_batch: `size()` IDs, increasing. Cheap to copy; the
// IDs are computed on access, so a batch of 65,536 costs no memory.
class IdRange {
 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Id;
    using difference_type = std::ptrdiff_t;
    using pointer = const Id*;
    using reference = Id;

    iterator() = default;
    Id operator*() const { return packer_(position_); }
    iterator& operator++() {
      ++position_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++position_;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) {
      return a.position_ == b.position_;
    }
    friend bool operator!=(const iterator& a, const iterator& b) { return !(a == b); }

   private:
    friend class IdRange;
    iterator(internal::Packer packer, uint64_t position) : packer_(packer), position_(position) {}
    internal::Packer packer_;
    uint64_t position_ = 0;
  };

  IdRange() = default;
  std::size_t size() const { return static_cast<std::size_t>(count_); }
  bool empty() const { return count_ == 0; }
  // REQUIRES: i < size().
  Id operator[](std::size_t i) const { return packer_(first_ + i); }
  Id front() const { return packer_(first_); }
  Id back() const { return packer_(first_ + count_ - 1); }
  iterator begin() const { return iterator(packer_, first_); }
  iterator end() const { return iterator(packer_, first_ + count_); }

 private:
  friend class Generator;
  IdRange(internal::Packer packer, uint64_t first, uint64_t count)
      : packer_(packer), first_(first), count_(count) {}
  internal::Packer packer_;
  uint64_t first_ = 0;
  uint64_t count_ = 0;
};

class Generator {
 public:
  // Who publishes the current tick to the fast path.
  enum class Ticker {
    // A background thread wakes at every tick boundary and calls refresh(). The default.
    kThread,
    // No ticker thread: the owner calls refresh() at least once per tick, e.g. once per frame
    // of the game loop. IDs issued between calls carry the time of the last call (plus
    // borrowing), so a caller that refreshes less often gets IDs whose time lags. refresh()
    // never waits for the state file or the store (see write_in_background).
    kManual,
  };

  // The largest max_lead: borrowing more than a day is never what a game wants, and a restart
  // would then start beyond max_startup_lead's default.
  static constexpr std::chrono::hours kMaxLeadLimit{24};
  // reserve_ahead's floor when it is left to the engine.
  static constexpr std::chrono::milliseconds kDefaultReserveAhead{3000};

  struct Options {
    // The bit layout. Default: Layout::Game().
    Layout layout = Layout::Game();

    // The server (shard) id, in [0, layout.max_server_id()] (Layout::CheckServerId). Required:
    // there is no default, because two servers left at a default would issue the same IDs.
    std::optional<uint64_t> server_id{};

    // Where time comes from; not owned, must outlive the generator. nullptr: Clock::Real().
    Clock* clock = nullptr;

    // Folder for the state file `server-<id>.state` (and its lock `server-<id>.lock`), created
    // if missing. Empty: no state file; then IDs may repeat after a restart unless
    // resume_after is given and covers every ID issued before. Recommended in production.
    std::string state_dir{};

    // Where the reservation lives instead of a state file: a fleet's coordinator
    // (steadyflake::registry::EtcdStore, registry/) or a store of the application's own
    // (steadyflake/reservation_store.h). One store serves one generator; shared only so that
    // Options stay copyable. Not together with state_dir (Error(kInvalidArgument)).
    std::shared_ptr<ReservationStore> reservation_store{};

    // One generator per layout, epoch and server id on this host, whatever the state folder or
    // none: a second one, in this process or another, fails to start with Error(kLocked) naming
    // the holder's pid. Skipped when reservation_store excludes other holders on every host by
    // itself (etcd). The namespace is the environment variable STEADYFLAKE_HOST_GUARD_NAMESPACE
    // (tests running in parallel set their own). Turn it off only to share a server id on
    // purpose, which is never safe while both issue IDs.
    bool host_guard = true;

    // Largest ID this server id issued before (e.g. the largest in its own database); IDs start
    // in the tick after it. 0: none. In [0, layout.max_id()], else Error(kInvalidArgument).
    Id resume_after = 0;

    // How far ahead of the anchored clock an issued ID's time may run when demand exceeds the
    // sequence space. Larger absorbs longer spikes; an ID's time is then less exact.
    // Default 2 s, at most kMaxLeadLimit (24 h). Rounded down to whole ticks; 0 forbids
    // borrowing.
    std::chrono::milliseconds max_lead{2000};

    // How far past now each state-file write reserves. Must exceed max_lead by a tick. Larger
    // means fewer writes (one every (reserve_ahead - max_lead) / 2, 0.5 s by default) and a
    // start after a crash further ahead of the wall clock. Default (nullopt): the engine's
    // choice, max(kDefaultReserveAhead, max_lead + 1 s), and at least one tick more than
    // max_lead's ticks (a day for day-long ticks); applications leave it so, tests set it.
    std::optional<std::chrono::milliseconds> reserve_ahead{};

    // The generator refuses to start when the state file or resume_after would put its first
    // tick more than this ahead of the wall clock (a wall clock far behind, or a state file
    // from another system). Default 24 h.
    std::chrono::milliseconds max_startup_lead{std::chrono::hours(24)};

    Ticker ticker = Ticker::kThread;

    // Extend the reservation (a state-file write with its fsyncs, an etcd round trip) on a
    // thread of its own, so that refresh(), whichever thread calls it, never waits for I/O: it
    // asks for the write and returns, and the limit IDs may reach advances once the write is
    // durable. false: the thread that calls refresh() writes (with Ticker::kManual, the game
    // loop: 4-6 ms per state-file write), for a program that must start no thread and for
    // tests that want each write done when refresh() returns. Only with a state_dir or a
    // reservation_store; without one there is nothing to write.
    bool write_in_background = true;

    // The file system the state file goes through; not owned, must outlive the generator.
    // nullptr: the real one. Internal (engine/src/env.h), for tests that fail or lose
    // file-system calls; may change between releases.
    internal::Env* env = nullptr;
  };

  // Validates the options, reads the wall clock once, takes the host guard, opens the
  // reservation store (locks and reads the state file) and reserves ahead in it. Throws Error:
  // kInvalidArgument naming the option, its value and the allowed range; kClock if the wall
  // clock lies outside the layout's lifetime; kState for a corrupt state file or one written for
  // another layout or server id (never replaced); kLocked naming the process that holds the
  // server id (host guard, state file, or the store's owner); kClock if the start would be
  // more than max_startup_lead ahead of the wall clock.
  explicit Generator(Options options);
  // Stops the ticker and closes the store (releasing the state file). IDs issued are already
  // covered by it.
  ~Generator();

  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // One ID. Lock-free fast path: one atomic fetch_add and one atomic load, no clock read.
  // Waits when the ID would be more than max_lead ahead (a spike beyond the sustained rate),
  // or while the state file cannot be extended (see state_error()). Never throws.
  Id next() noexcept {
    // Memory ordering: relaxed is enough for the counter. Every position comes from one
    // read-modify-write of one atomic, so positions are unique and, per the variable's single
    // modification order, increase in issue order; no other data is published through it.
    const uint64_t position = counter_.fetch_add(1, std::memory_order_relaxed);
    // Memory ordering: acquire pairs with the release store in refresh(), so the state-file
    // write that allowed this limit happened before any ID below it is returned.
    if (STEADYFLAKE_PREDICT_TRUE(position < limit_.load(std::memory_order_acquire))) {
      return packer_(position);
    }
    return NextSlow(position);
  }

  // Like next(), but returns nullopt instead of waiting. Never throws, never blocks: when the
  // fast path's limit is stale it refreshes only if no other thread is refreshing (try_lock),
  // and never writes the state file; an ID that needs the reservation extended is reported as
  // "would wait" until the ticker (or, with Ticker::kManual, the owner's refresh()) extends it.
  std::optional<Id> try_next() noexcept;

  // `n` IDs, increasing, reserved with one atomic operation (for spikes: one mail per player).
  // Waits like next(). n == 0 gives an empty range. One reservation holds at most max_batch()
  // IDs: above that it throws Error(kInvalidArgument); next_batch_into takes any count.
  IdRange next_batch(uint64_t n);

  // `n` IDs, increasing, for any n: calls `callback(IdRange)` once per reservation of at most
  // max_batch() IDs, in order (none for n == 0). Each chunk waits like next() until its IDs may
  // be issued, so a count above max_batch() takes (n - max_batch()) / sustained rate to finish.
  // An exception from the callback propagates; the IDs not yet handed to it are skipped.
  template <typename Callback>
  void next_batch_into(uint64_t n, Callback&& callback) {
    while (n > 0) {
      const uint64_t chunk = n < max_batch_ ? n : max_batch_;
      callback(next_batch(chunk));
      n -= chunk;
    }
  }

  // The largest batch: the IDs of the max_lead window, (max_lead ticks + 1) * 2^sequence_bits.
  uint64_t max_batch() const { return max_batch_; }

  // Reads the steady clock, publishes the current tick to the fast path and, when due, has the
  // reservation extended: by the background writer (Options::write_in_background, the
  // default), which never makes it wait, or on this thread. The ticker thread calls it every
  // tick; with Ticker::kManual the owner does. Never throws; a failed write is kept in
  // state_error().
  void refresh() noexcept;

  // Anchored now minus wall-clock now: how far the generator's time has drifted from (or was
  // moved ahead of) the wall clock. Reads the wall clock; for monitoring.
  std::chrono::nanoseconds skew() const;
  // How far the time of the next ID runs ahead of the anchored clock (0 when idle).
  std::chrono::nanoseconds lead() const;
  // How far the reservation runs ahead of the anchored clock: the end of the last reserved tick
  // minus now. Negative once the clock has passed it (IDs then wait for an extension). Without
  // a state file or store, the time left to the layout's end. For monitoring: below max_lead,
  // the store is not keeping up (docs/fleet.md).
  std::chrono::nanoseconds reservation_headroom() const;
  // The last failure to extend the reservation (state file or store), if the latest attempt
  // failed, or why the server id was lost; empty when all is well.
  std::string state_error() const;
  // True once the reservation store reported the server id lost (Error::Code::kLost: a lease
  // expired and another generator may own it). From then on the reservation is never extended:
  // IDs below it may still be issued (the next owner starts past it), then next() waits and
  // try_next() returns nullopt for good. A game server should stop (docs/fleet.md).
  bool lost() const;

  // What a game server exports as metrics (the sample server's /metrics is made from it). A
  // snapshot: each field is read at the call.
  struct Stats {
    // IDs handed out (next, try_next, next_batch) since construction, those of calls still
    // waiting included.
    uint64_t issued = 0;
    // next() and next_batch() calls that had to wait: for the clock (demand beyond max_lead)
    // or for the reservation to be extended.
    uint64_t waits = 0;
    // try_next() calls that returned nullopt.
    uint64_t would_wait = 0;
    // lead() now, and the largest lead seen at a refresh() (every tick with the ticker thread).
    std::chrono::nanoseconds lead{0};
    std::chrono::nanoseconds max_lead_seen{0};
    std::chrono::nanoseconds skew{0};                  // skew()
    std::chrono::nanoseconds reservation_headroom{0};  // reservation_headroom()
    // Failed attempts to extend the reservation since construction, and the latest failure
    // (state_error(): empty when the latest attempt succeeded).
    uint64_t state_errors = 0;
    std::string state_error{};
    bool lost = false;  // lost()
  };
  Stats stats() const;

  const Layout& layout() const { return layout_; }
  uint64_t server_id() const { return server_id_; }

 private:
  // The constructor's second half, after the store is open: checks the start, anchors the
  // clock and reserves ahead. Throws Error like the constructor.
  void Start(const Options& options, int64_t wall_nanos, int64_t steady_nanos, uint64_t start_tick,
             const std::string& start_reason);
  Id NextSlow(uint64_t position) noexcept;
  // Waits until `last_position` may be issued, refreshing as it goes.
  void WaitForLimit(uint64_t last_position) noexcept;
  // refresh()'s work: raises an idle counter to now and publishes the limit. REQUIRES: mu_
  // held. If `may_write` and the reservation is due for extension with no write in flight,
  // marks one in flight (write_in_flight_, write_target_) and returns true: the caller then
  // has it written, by the writer thread or by calling WritePending() without mu_.
  bool RefreshLocked(bool may_write) noexcept;
  // Extends the store to write_target_ and publishes the result. REQUIRES: mu_ not held, and
  // the caller is the one RefreshLocked returned true to (one write at a time).
  void WritePending() noexcept;
  void RunWriter();
  // Anchored time: nanoseconds since the layout's epoch.
  int64_t ElapsedNanos() const;
  void RunTicker();

  // Set in the constructor, never changed after: read by all threads without locking.
  const Layout layout_;
  const uint64_t server_id_;
  Clock* const clock_;
  const internal::Packer packer_;
  const uint64_t lead_ticks_;
  const uint64_t reserve_ticks_;
  const uint64_t max_batch_;
  const int64_t tick_nanos_;
  // Set once in the constructor body: the anchor, as nanoseconds since the layout's epoch, and
  // the steady clock read with it.
  int64_t anchor_nanos_ = 0;
  int64_t anchor_steady_nanos_ = 0;

  // alignas(64) keeps the counter, which every next() writes, off the cache line of the limit,
  // which every next() reads and only refresh() writes, so readers are not invalidated by
  // writers of the other.
  // Next position to issue: tick << sequence_bits | sequence. Only increases.
  alignas(64) std::atomic<uint64_t> counter_{0};
  // Slow-path counts for stats(), on counter_'s line: written only when a call waits.
  std::atomic<uint64_t> waits_{0};
  std::atomic<uint64_t> would_wait_{0};
  // Positions below it may be issued: min(now + max_lead, reserved, end of layout) + 1 ticks,
  // shifted. Only increases.
  alignas(64) std::atomic<uint64_t> limit_{0};

  alignas(64) mutable std::mutex mu_;  // serializes refresh() and guards the fields below
  std::unique_ptr<internal::HostGuard> host_guard_;  // set in the constructor; may be null
  // Null without state_dir or store. Set in the constructor; called (Extend) without mu_ by
  // the one thread that holds the write in flight, so I/O never holds up refresh().
  std::shared_ptr<ReservationStore> store_;
  uint64_t reserved_until_ = 0;   // GUARDED_BY(mu_); last tick the store covers
  bool write_in_flight_ = false;  // GUARDED_BY(mu_); a write to write_target_ was asked for
  uint64_t write_target_ = 0;     // GUARDED_BY(mu_)
  std::string state_error_;       // GUARDED_BY(mu_)
  uint64_t state_errors_ = 0;     // GUARDED_BY(mu_)
  bool lost_ = false;             // GUARDED_BY(mu_)
  // For stats().issued: the counter's first position, and the positions refresh() skipped when
  // it raised an idle counter to now (never issued).
  uint64_t start_position_ = 0;  // GUARDED_BY(mu_)
  uint64_t skipped_ = 0;         // GUARDED_BY(mu_)
  int64_t max_lead_nanos_ = 0;   // GUARDED_BY(mu_)

  // The background writer (Options::write_in_background, with a store): waits on writer_cv_
  // (with mu_) for write_in_flight_. Callers of next() waiting for a write wait on
  // write_done_cv_ (with mu_) for it to clear.
  std::condition_variable writer_cv_;
  std::condition_variable write_done_cv_;
  bool writer_stopping_ = false;  // GUARDED_BY(mu_)
  std::thread writer_;

  // The ticker thread (Ticker::kThread only).
  std::mutex ticker_mu_;
  std::condition_variable ticker_cv_;
  bool stopping_ = false;  // GUARDED_BY(ticker_mu_)
  std::thread ticker_;
};

}  // namespace steadyflake

#endif  // STEADYFLAKE_GENERATOR_H_
