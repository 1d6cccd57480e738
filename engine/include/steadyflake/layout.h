// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The bit layout of an ID: high to low `0 | time | serverId | sequence`. The sign bit is always
// 0, so an ID is a positive signed 64-bit integer in every database and language.
//
// A Layout is immutable after construction and safe to share between threads.

#ifndef STEADYFLAKE_LAYOUT_H_
#define STEADYFLAKE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace steadyflake {

// An ID as it is stored: always >= 0.
using Id = int64_t;

// The three fields of an ID, plus the time its tick starts at.
struct DecodedId {
  uint64_t tick = 0;       // ticks since the layout's epoch
  int64_t unix_ms = 0;     // start of that tick, milliseconds since 1970-01-01T00:00:00Z
  uint64_t server_id = 0;  // the server (shard) that issued it
  uint64_t sequence = 0;   // position within the tick
};

class Layout {
 public:
  // Bits an ID has for its three fields (the 64th is the sign bit, always 0).
  static constexpr int kIdBits = 63;
  // Layouts must end before year 10000 so every time they hold prints as ISO-8601.
  static constexpr int64_t kMaxUnixMs = 253402300800000;  // 10000-01-01T00:00:00Z

  // The default: 37/16/10 bits at 10 ms ticks from 2024-01-01T00:00:00Z. About 43.5 years,
  // 65,536 servers, 102,400 IDs per second per server sustained.
  static Layout Game();
  // Twitter's: 41/10/12 bits at 1 ms ticks from 1288834974657 ms.
  static Layout Snowflake();

  // Parses "game", "snowflake" or "T/S/Q@<n>ms" (e.g. "37/16/10@10ms"); a custom layout gets the
  // `game` epoch. Throws Error(kInvalidArgument) naming what is wrong, with the arithmetic for a
  // layout that does not fit ("needs 73 bits (37 + 20 + 16); an ID has 63").
  static Layout Parse(std::string_view spec);

  // Validates and throws Error(kInvalidArgument) like Parse. Every field needs at least 1 bit,
  // the three at most 63; tick_ms >= 1; the epoch and the lifetime's end within 1970..9999.
  Layout(int time_bits, int server_bits, int sequence_bits, int64_t tick_ms, int64_t epoch_ms);

  // The same bits and tick from another epoch (validated as above).
  Layout WithEpoch(int64_t epoch_ms) const;

  int time_bits() const { return time_bits_; }
  int server_bits() const { return server_bits_; }
  int sequence_bits() const { return sequence_bits_; }
  int64_t tick_ms() const { return tick_ms_; }
  int64_t epoch_ms() const { return epoch_ms_; }

  uint64_t max_tick() const { return (uint64_t{1} << time_bits_) - 1; }
  uint64_t max_server_id() const { return (uint64_t{1} << server_bits_) - 1; }
  uint64_t max_sequence() const { return (uint64_t{1} << sequence_bits_) - 1; }
  // The largest ID of the layout: every field at its maximum. IDs are in [0, max_id()].
  Id max_id() const {
    return static_cast<Id>((uint64_t{1} << (time_bits_ + server_bits_ + sequence_bits_)) - 1);
  }

  // The one rule for server ids: throws Error(kInvalidArgument) unless id <= max_server_id(),
  // naming the id, the range and the fix. Generator, CLI and server all ask the layout.
  void CheckServerId(uint64_t id) const;
  // First Unix millisecond the layout cannot represent: epoch + 2^time_bits ticks.
  int64_t end_ms() const;
  // Sustained IDs per second per server: 2^sequence_bits per tick (rounded down).
  uint64_t ids_per_second() const;

  // "T/S/Q@<n>ms"; the epoch is not part of it.
  std::string ToString() const;

  // The tick that holds `unix_ms`. REQUIRES: epoch_ms() <= unix_ms.
  uint64_t TickAt(int64_t unix_ms) const {
    return static_cast<uint64_t>((unix_ms - epoch_ms_) / tick_ms_);
  }
  // The Unix millisecond a tick starts at. REQUIRES: tick <= max_tick() (beyond it the multiply
  // can overflow: 2^42 ticks of a day do).
  int64_t TickStartMs(uint64_t tick) const {
    return epoch_ms_ + static_cast<int64_t>(tick) * tick_ms_;
  }

  // Builds an ID from its fields. Throws Error(kInvalidArgument) naming a field out of range.
  Id Compose(uint64_t tick, uint64_t server_id, uint64_t sequence) const;
  // Splits an ID. REQUIRES: 0 <= id <= max_id(). Callers holding outside input check the range
  // against max_id() first (`decode`, the merge report, the server's GET /ids/{id}).
  DecodedId Decode(Id id) const;

  // Written out, not defaulted: the installed headers are C++17.
  friend bool operator==(const Layout& a, const Layout& b) {
    return a.time_bits_ == b.time_bits_ && a.server_bits_ == b.server_bits_ &&
           a.sequence_bits_ == b.sequence_bits_ && a.tick_ms_ == b.tick_ms_ &&
           a.epoch_ms_ == b.epoch_ms_;
  }
  friend bool operator!=(const Layout& a, const Layout& b) { return !(a == b); }

 private:
  int time_bits_;
  int server_bits_;
  int sequence_bits_;
  int64_t tick_ms_;
  int64_t epoch_ms_;
};

}  // namespace steadyflake

#endif  // STEADYFLAKE_LAYOUT_H_
