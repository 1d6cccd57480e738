// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// How the fast path avoids a clock read. A steady_clock::now() call costs about ten atomic
// increments on this machine (bench/generator_benchmark.cpp, BM_Floor_SteadyClockNow against
// BM_Floor_AtomicFetchAdd), so next() reads no clock. Instead:
//   - counter_ holds the next position (tick << sequence_bits | sequence). next() takes one
//     with fetch_add; a full tick's sequence carries into the next tick by itself, which is how
//     a spike borrows future time.
//   - limit_ is the first position next() may not issue: the end of tick now + max_lead (or of
//     the state file's reservation, or of the layout). next() compares against it with a plain
//     load; only a position at or past it takes the slow path, which reads the clock and waits.
//   - refresh() is the only place that reads the clock. It raises counter_ to the current tick
//     when the generator was idle (so an ID's time is never older than the last refresh) and
//     publishes a new limit_. A ticker thread calls it just after every tick boundary, so the
//     time in IDs lags real time by at most one tick plus the thread's wake-up latency; with
//     Ticker::kManual the owner calls it.
// A stale limit_ only sends more calls to the slow path, and a stale floor only makes IDs'
// time older, so a late ticker can never cause a duplicate or break the max_lead bound.
//
// The reservation is extended off every caller's path: refresh() only marks a write in flight
// (under mu_), and the writer thread (or, with write_in_background off, refresh()'s caller after
// releasing mu_) calls the store, then takes mu_ again to raise reserved_until_ and the limit.
// mu_ is never held across I/O, so an fsync or an etcd round trip delays no refresh(), no
// try_next() and no waiting next(); only the limit waits for the write to be durable.

#include "steadyflake/generator.h"

#include <algorithm>
#include <limits>
#include <string>

#include "host_guard.h"
#include "state_file.h"
#include "steadyflake/error.h"
#include "steadyflake/time_format.h"

namespace steadyflake {
namespace {

constexpr int64_t kNanosPerMs = 1'000'000;

[[noreturn]] void Invalid(const std::string& message) {
  throw Error(Error::Code::kInvalidArgument, message);
}

uint64_t ValidServerId(const Generator::Options& options) {
  if (!options.server_id) {
    Invalid("server_id is not set; give every server that may ever be merged a unique id in [0, " +
            std::to_string(options.layout.max_server_id()) + "]");
  }
  options.layout.CheckServerId(*options.server_id);
  return *options.server_id;
}

uint64_t LeadTicks(const Generator::Options& options) {
  if (options.max_lead.count() < 0 || options.max_lead > Generator::kMaxLeadLimit) {
    Invalid("max_lead " + std::to_string(options.max_lead.count()) + " ms is out of range [0, " +
            std::to_string(std::chrono::milliseconds(Generator::kMaxLeadLimit).count()) +
            "] ms (24 h); borrowing more than a day would also outrun max_startup_lead");
  }
  return static_cast<uint64_t>(options.max_lead.count() / options.layout.tick_ms());
}

// The engine's reservation: reserve_ahead if given, else max(3 s, max_lead + 1 s) (design
// section 10: callers do not adjust it), and at least one tick past max_lead's ticks, which
// only layouts of ticks above a second need (20/10/10@86400000ms: one day).
uint64_t ReserveTicks(const Generator::Options& options) {
  const uint64_t lead = static_cast<uint64_t>(options.max_lead.count() / options.layout.tick_ms());
  const std::chrono::milliseconds reserve_ahead = options.reserve_ahead.value_or(std::max(
      {Generator::kDefaultReserveAhead, options.max_lead + std::chrono::seconds(1),
       std::chrono::milliseconds(static_cast<int64_t>(lead + 1) * options.layout.tick_ms())}));
  if (reserve_ahead.count() < 0 || reserve_ahead > std::chrono::hours(24 * 366) ||
      static_cast<uint64_t>(reserve_ahead.count() / options.layout.tick_ms()) <= lead) {
    Invalid("reserve_ahead " + std::to_string(reserve_ahead.count()) +
            " ms must exceed max_lead (" + std::to_string(options.max_lead.count()) +
            " ms) by at least one tick (" + std::to_string(options.layout.tick_ms()) +
            " ms), and be at most 1 year");
  }
  return static_cast<uint64_t>(reserve_ahead.count() / options.layout.tick_ms());
}

}  // namespace

Generator::Generator(Options options)
    : layout_(options.layout),
      server_id_(ValidServerId(options)),
      clock_(options.clock != nullptr ? options.clock : Clock::Real()),
      packer_{(uint64_t{1} << layout_.sequence_bits()) - 1,
              ~((uint64_t{1} << layout_.sequence_bits()) - 1), layout_.server_bits(),
              server_id_ << layout_.sequence_bits()},
      lead_ticks_(LeadTicks(options)),
      reserve_ticks_(ReserveTicks(options)),
      max_batch_((lead_ticks_ + 1) << layout_.sequence_bits()),
      tick_nanos_(layout_.tick_ms() * kNanosPerMs) {
  if (options.max_startup_lead.count() < 0) {
    Invalid("max_startup_lead " + std::to_string(options.max_startup_lead.count()) +
            " ms must not be negative");
  }
  if (options.resume_after < 0) {
    Invalid("resume_after " + std::to_string(options.resume_after) +
            " is negative; IDs are never negative");
  }
  if (options.resume_after > layout_.max_id()) {
    std::string message = "resume_after ";
    message.append(std::to_string(options.resume_after))
        .append(" is larger than layout ")
        .append(layout_.ToString())
        .append(" holds (its largest ID is ")
        .append(std::to_string(layout_.max_id()))
        .append("); pass an ID this layout issued");
    Invalid(message);
  }

  // The anchor: the one wall-clock read of the generator's life.
  const int64_t wall_nanos = clock_->WallNanos();
  const int64_t steady_nanos = clock_->SteadyNanos();
  const int64_t wall_ms = wall_nanos / kNanosPerMs;
  if (wall_ms < layout_.epoch_ms() || wall_ms >= layout_.end_ms()) {
    throw Error(Error::Code::kClock,
                "wall clock " + FormatIso8601(wall_ms) + " is outside layout " +
                    layout_.ToString() + "'s lifetime " + FormatIso8601(layout_.epoch_ms(), false) +
                    " .. " + FormatIso8601(layout_.end_ms(), false) +
                    "; set the clock right or choose a layout whose epoch and end surround now");
  }
  const uint64_t wall_tick = layout_.TickAt(wall_ms);
  uint64_t start_tick = wall_tick;
  std::string start_reason;
  if (options.resume_after > 0) {
    const uint64_t tick = layout_.Decode(options.resume_after).tick;
    if (tick >= wall_tick) {
      start_tick = tick + 1;
      start_reason = "resume_after ID " + std::to_string(options.resume_after);
    }
  }
  if (!options.state_dir.empty() && options.reservation_store) {
    Invalid("state_dir \"" + options.state_dir +
            "\" and reservation_store are both set; a generator keeps its reservation in one "
            "place: drop state_dir when the reservation lives in a store (etcd)");
  }
  if (!options.state_dir.empty()) {
    store_ = std::make_shared<internal::StateFileStore>(options.env, options.state_dir);
  } else {
    store_ = std::move(options.reservation_store);
  }
  if (options.host_guard && !(store_ && store_->ExcludesAcrossHosts())) {
    host_guard_ = std::make_unique<internal::HostGuard>(layout_, server_id_);
  }
  if (store_) {
    if (const auto reserved = store_->Open(layout_, server_id_);
        reserved && *reserved >= start_tick) {
      start_tick = *reserved + 1;
      start_reason = store_->Describe();
    }
  }
  try {
    Start(options, wall_nanos, steady_nanos, start_tick, start_reason);
  } catch (...) {
    // Nothing was issued: release what Open took (a lock, a claimed id).
    if (store_) store_->Close(std::nullopt);
    throw;
  }
  if (store_ && options.write_in_background) {
    writer_ = std::thread([this] { RunWriter(); });
  }
  if (options.ticker == Ticker::kThread) {
    ticker_ = std::thread([this] { RunTicker(); });
  }
}

void Generator::Start(const Options& options, int64_t wall_nanos, int64_t steady_nanos,
                      uint64_t start_tick, const std::string& start_reason) {
  const int64_t wall_ms = wall_nanos / kNanosPerMs;
  const uint64_t wall_tick = layout_.TickAt(wall_ms);
  if (start_tick > layout_.max_tick()) {
    throw Error(Error::Code::kClock, "layout " + layout_.ToString() +
                                         " has no time left: its last tick ends at " +
                                         FormatIso8601(layout_.end_ms(), false) + " (start from " +
                                         start_reason + "); move to a layout with a later end");
  }
  const int64_t ahead_ms = static_cast<int64_t>(start_tick - wall_tick) * layout_.tick_ms();
  if (ahead_ms > options.max_startup_lead.count()) {
    throw Error(Error::Code::kClock,
                start_reason + " puts the first ID at " +
                    FormatIso8601(layout_.TickStartMs(start_tick)) + ", " +
                    std::to_string(ahead_ms / 1000) + " s ahead of the wall clock " +
                    FormatIso8601(wall_ms) + " (max_startup_lead " +
                    std::to_string(options.max_startup_lead.count() / 1000) +
                    " s); set the wall clock right, or raise max_startup_lead if that is intended");
  }
  // Time since the epoch; moved forward to the first tick when that is ahead of the wall clock,
  // so that no ID is ever more than max_lead ahead of the anchored clock.
  anchor_nanos_ = start_tick > wall_tick ? static_cast<int64_t>(start_tick) * tick_nanos_
                                         : wall_nanos - layout_.epoch_ms() * kNanosPerMs;
  anchor_steady_nanos_ = steady_nanos;
  counter_.store(start_tick << layout_.sequence_bits(), std::memory_order_relaxed);

  {
    std::lock_guard<std::mutex> lock(mu_);
    start_position_ = start_tick << layout_.sequence_bits();
    if (store_) {
      reserved_until_ = std::min(start_tick + reserve_ticks_, layout_.max_tick());
      store_->Extend(reserved_until_);  // throws Error: nothing was issued yet
    } else {
      reserved_until_ = layout_.max_tick();
    }
  }
  refresh();
}

Generator::~Generator() {
  if (ticker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(ticker_mu_);
      stopping_ = true;
    }
    ticker_cv_.notify_all();
    ticker_.join();
  }
  if (writer_.joinable()) {
    // A write in flight finishes first (the store is not called from two threads at once).
    {
      std::lock_guard<std::mutex> lock(mu_);
      writer_stopping_ = true;
    }
    writer_cv_.notify_all();
    writer_.join();
  }
  // The store may record the last tick really used instead of the reservation, so a prompt
  // restart does not start ahead of the wall clock. Every issued position is below counter_.
  std::lock_guard<std::mutex> lock(mu_);
  if (store_) {
    const uint64_t next = counter_.load(std::memory_order_relaxed);
    std::optional<uint64_t> last_used;
    if (next > 0) last_used = std::min((next - 1) >> layout_.sequence_bits(), reserved_until_);
    store_->Close(last_used);
  }
}

int64_t Generator::ElapsedNanos() const {
  return anchor_nanos_ + (clock_->SteadyNanos() - anchor_steady_nanos_);
}

void Generator::refresh() noexcept {
  bool write;
  {
    std::lock_guard<std::mutex> lock(mu_);
    write = RefreshLocked(/*may_write=*/true);
    if (write && writer_.joinable()) {
      writer_cv_.notify_one();
      return;
    }
  }
  if (write) WritePending();
}

bool Generator::RefreshLocked(bool may_write) noexcept {
  const uint64_t max_tick = layout_.max_tick();
  const int64_t elapsed = ElapsedNanos();
  const uint64_t now = std::min(static_cast<uint64_t>(elapsed / tick_nanos_), max_tick);

  // Raise an idle counter to the current tick. Memory ordering: relaxed, as in next(); the CAS
  // only moves the counter forward, so positions stay unique and increasing.
  const uint64_t floor = now << layout_.sequence_bits();
  uint64_t current = counter_.load(std::memory_order_relaxed);
  // The lead of the next ID, as lead() computes it: the largest seen goes to stats().
  const int64_t ahead =
      static_cast<int64_t>(current >> layout_.sequence_bits()) * tick_nanos_ - elapsed;
  max_lead_nanos_ = std::max(max_lead_nanos_, ahead);
  while (current < floor) {
    if (counter_.compare_exchange_weak(current, floor, std::memory_order_relaxed)) {
      skipped_ += floor - current;  // positions never issued (stats().issued)
      break;
    }
  }

  // Extend the reservation once less than halfway between max_lead and reserve_ahead is left,
  // so that the limit below is bound by max_lead, not by the store.
  // Written as a sum, not reserved_until_ - now: after a pause longer than the reservation
  // (a stopped process, a suspended VM) now is past reserved_until_ (tests/state_file_test.cpp,
  // PauseLongerThanTheReservationRenewsIt).
  bool write = false;
  if (may_write && store_ && !lost_ && !write_in_flight_ && reserved_until_ < max_tick &&
      reserved_until_ < now + lead_ticks_ + (reserve_ticks_ - lead_ticks_ + 1) / 2) {
    write_in_flight_ = true;
    write_target_ = std::min(now + reserve_ticks_, max_tick);
    write = true;
  }

  const uint64_t allowed = std::min({now + lead_ticks_, reserved_until_, max_tick});
  const uint64_t limit = (allowed + 1) << layout_.sequence_bits();
  // Memory ordering: release pairs with the acquire loads in next(), try_next() and
  // next_batch(): the store write that covers `limit` (reserved_until_, raised only after it
  // returned) is complete before an ID below it can be returned. Only this function stores,
  // under mu_, so a plain compare suffices.
  if (limit > limit_.load(std::memory_order_relaxed)) {
    limit_.store(limit, std::memory_order_release);
  }
  return write;
}

void Generator::WritePending() noexcept {
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(mu_);
    target = write_target_;
  }
  std::string error;
  bool ok = false;
  bool lost = false;
  try {
    store_->Extend(target);
    ok = true;
  } catch (const Error& e) {
    error = e.what();
    lost = e.code() == Error::Code::kLost;
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::unique_lock<std::mutex> lock(mu_);
  write_in_flight_ = false;
  write_done_cv_.notify_all();
  if (ok) {
    reserved_until_ = std::max(reserved_until_, target);
    state_error_.clear();
  } else {
    // Kept for state_error(); the next refresh() tries again, unless the server id is gone:
    // then never again: another generator may own it now.
    state_error_ = std::move(error);
    ++state_errors_;
    if (lost) lost_ = true;
  }
  RefreshLocked(/*may_write=*/false);  // publish the new limit now, not at the next tick
}

void Generator::RunWriter() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    writer_cv_.wait(lock, [this] { return writer_stopping_ || write_in_flight_; });
    if (writer_stopping_) return;
    lock.unlock();
    WritePending();  // clears write_in_flight_
    lock.lock();
  }
}

void Generator::WaitForLimit(uint64_t last_position) noexcept {
  bool counted = false;
  for (;;) {
    refresh();
    if (last_position < limit_.load(std::memory_order_acquire)) return;
    if (!counted) {
      waits_.fetch_add(1, std::memory_order_relaxed);
      counted = true;
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (write_in_flight_) {
        // The limit waits for a write: wake when it lands (WritePending publishes the new
        // limit), not a tick of the clock later. A simulated clock would otherwise run ahead
        // by a tick per turn of this loop while the I/O takes real time.
        write_done_cv_.wait(lock, [this] { return !write_in_flight_; });
        continue;
      }
    }
    // The tick of last_position becomes legal when now reaches it minus max_lead. If that time
    // has come but the limit is still short, the state file could not be extended (or the
    // layout is at its end): try again a tick later.
    const uint64_t tick = last_position >> layout_.sequence_bits();
    const int64_t legal_at =
        static_cast<int64_t>(tick > lead_ticks_ ? tick - lead_ticks_ : 0) * tick_nanos_;
    const int64_t wait = legal_at - ElapsedNanos();
    clock_->SleepFor(wait > 0 ? wait : tick_nanos_);
  }
}

Id Generator::NextSlow(uint64_t position) noexcept {
  WaitForLimit(position);
  return packer_(position);
}

std::optional<Id> Generator::try_next() noexcept {
  uint64_t position = counter_.load(std::memory_order_relaxed);
  bool refreshed = false;
  for (;;) {
    if (position >= limit_.load(std::memory_order_acquire)) {
      if (refreshed) {
        would_wait_.fetch_add(1, std::memory_order_relaxed);
        return std::nullopt;
      }
      // The limit may only be stale. Refresh without blocking: not while another thread holds
      // mu_, and without writing the state file ourselves.
      std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
      if (!lock.owns_lock()) {
        would_wait_.fetch_add(1, std::memory_order_relaxed);
        return std::nullopt;
      }
      RefreshLocked(/*may_write=*/false);
      refreshed = true;
      position = counter_.load(std::memory_order_relaxed);
      continue;
    }
    // Memory ordering: relaxed, as fetch_add in next().
    if (counter_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
      return packer_(position);
    }
  }
}

IdRange Generator::next_batch(uint64_t n) {
  if (n == 0) return IdRange();
  if (n > max_batch_) {
    Invalid("next_batch count " + std::to_string(n) + " is above max_batch() " +
            std::to_string(max_batch_) +
            " (the IDs of the max_lead window, one reservation); use next_batch_into for any "
            "count");
  }
  // Memory ordering: relaxed, as in next().
  const uint64_t first = counter_.fetch_add(n, std::memory_order_relaxed);
  const uint64_t last = first + n - 1;
  if (last >= limit_.load(std::memory_order_acquire)) WaitForLimit(last);
  return IdRange(packer_, first, n);
}

std::chrono::nanoseconds Generator::skew() const {
  const int64_t anchored = ElapsedNanos() + layout_.epoch_ms() * kNanosPerMs;
  return std::chrono::nanoseconds(anchored - clock_->WallNanos());
}

std::chrono::nanoseconds Generator::lead() const {
  const uint64_t tick = counter_.load(std::memory_order_relaxed) >> layout_.sequence_bits();
  const int64_t ahead = static_cast<int64_t>(tick) * tick_nanos_ - ElapsedNanos();
  return std::chrono::nanoseconds(ahead > 0 ? ahead : 0);
}

std::chrono::nanoseconds Generator::reservation_headroom() const {
  uint64_t reserved;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reserved = reserved_until_;
  }
  // The end of tick `reserved` in anchored nanoseconds. A layout may last to year 9999, past
  // what int64 nanoseconds hold (year 2262 from 1970): that much headroom is reported as the
  // largest duration.
  if (reserved + 1 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / tick_nanos_)) {
    return std::chrono::nanoseconds::max();
  }
  const int64_t end = static_cast<int64_t>(reserved + 1) * tick_nanos_;
  return std::chrono::nanoseconds(end - ElapsedNanos());
}

Generator::Stats Generator::stats() const {
  Stats stats;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Under mu_, skipped_ and the counter agree: only RefreshLocked skips positions, under mu_.
    stats.issued = counter_.load(std::memory_order_relaxed) - start_position_ - skipped_;
    stats.max_lead_seen = std::chrono::nanoseconds(max_lead_nanos_);
    stats.state_errors = state_errors_;
    stats.state_error = state_error_;
    stats.lost = lost_;
  }
  stats.waits = waits_.load(std::memory_order_relaxed);
  stats.would_wait = would_wait_.load(std::memory_order_relaxed);
  stats.lead = lead();
  stats.skew = skew();
  stats.reservation_headroom = reservation_headroom();
  return stats;
}

std::string Generator::state_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_error_;
}

bool Generator::lost() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lost_;
}

void Generator::RunTicker() {
  std::unique_lock<std::mutex> lock(ticker_mu_);
  while (!stopping_) {
    lock.unlock();
    refresh();
    lock.lock();
    // Wake just after the next tick boundary of the anchored clock. A simulated clock has no
    // relation to real time: then pace on real ticks, which only makes refreshes more frequent.
    int64_t delay = tick_nanos_;
    if (clock_->IsReal()) {
      const int64_t elapsed = ElapsedNanos();
      delay = tick_nanos_ - elapsed % tick_nanos_ + 1000;
    }
    ticker_cv_.wait_for(lock, std::chrono::nanoseconds(delay), [this] { return stopping_; });
  }
}

}  // namespace steadyflake
