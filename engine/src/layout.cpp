// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/layout.h"

#include <cassert>
#include <charconv>
#include <string>

#include "steadyflake/error.h"
#include "steadyflake/time_format.h"

namespace steadyflake {
namespace {

constexpr int64_t kGameEpochMs = 1704067200000;     // 2024-01-01T00:00:00Z
constexpr int64_t kTwitterEpochMs = 1288834974657;  // 2010-11-04T01:42:54.657Z

[[noreturn]] void Invalid(const std::string& message) {
  throw Error(Error::Code::kInvalidArgument, message);
}

std::string Describe(int t, int s, int q, int64_t tick_ms) {
  return std::to_string(t) + "/" + std::to_string(s) + "/" + std::to_string(q) + "@" +
         std::to_string(tick_ms) + "ms";
}

// Reads a non-negative decimal integer that fills `text` exactly.
bool ReadNumber(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && ptr == text.data() + text.size() && *value >= 0;
}

}  // namespace

Layout Layout::Game() { return Layout(37, 16, 10, 10, kGameEpochMs); }

Layout Layout::Snowflake() { return Layout(41, 10, 12, 1, kTwitterEpochMs); }

Layout Layout::Parse(std::string_view spec) {
  if (spec == "game") return Game();
  if (spec == "snowflake") return Snowflake();
  const auto bad = [&] {
    Invalid("cannot read layout '" + std::string(spec) +
            "'; use game, snowflake or TIME/SERVER/SEQUENCE@TICKms such as 37/16/10@10ms");
  };
  const std::size_t slash1 = spec.find('/');
  const std::size_t slash2 = slash1 == std::string_view::npos ? slash1 : spec.find('/', slash1 + 1);
  const std::size_t at = slash2 == std::string_view::npos ? slash2 : spec.find('@', slash2 + 1);
  if (at == std::string_view::npos || spec.size() < at + 4 ||
      spec.substr(spec.size() - 2) != "ms") {
    bad();
  }
  int64_t t = 0, s = 0, q = 0, tick = 0;
  if (!ReadNumber(spec.substr(0, slash1), &t) ||
      !ReadNumber(spec.substr(slash1 + 1, slash2 - slash1 - 1), &s) ||
      !ReadNumber(spec.substr(slash2 + 1, at - slash2 - 1), &q) ||
      !ReadNumber(spec.substr(at + 1, spec.size() - 2 - at - 1), &tick)) {
    bad();
  }
  if (t > kIdBits || s > kIdBits || q > kIdBits) {
    Invalid("layout '" + std::string(spec) + "' has a field wider than an ID's " +
            std::to_string(kIdBits) + " bits; the three fields add up to at most 63");
  }
  return Layout(static_cast<int>(t), static_cast<int>(s), static_cast<int>(q), tick, kGameEpochMs);
}

Layout::Layout(int time_bits, int server_bits, int sequence_bits, int64_t tick_ms, int64_t epoch_ms)
    : time_bits_(time_bits),
      server_bits_(server_bits),
      sequence_bits_(sequence_bits),
      tick_ms_(tick_ms),
      epoch_ms_(epoch_ms) {
  const std::string name = Describe(time_bits, server_bits, sequence_bits, tick_ms);
  if (time_bits < 1 || server_bits < 1 || sequence_bits < 1) {
    Invalid("layout " + name + " has a field with no bits; time, server and sequence need at " +
            "least 1 bit each");
  }
  const int total = time_bits + server_bits + sequence_bits;
  if (total > kIdBits) {
    Invalid("layout " + name + " needs " + std::to_string(total) + " bits (" +
            std::to_string(time_bits) + " + " + std::to_string(server_bits) + " + " +
            std::to_string(sequence_bits) + "); an ID has " + std::to_string(kIdBits) +
            ": take bits from one of the fields");
  }
  if (tick_ms < 1 || tick_ms > 86'400'000) {
    Invalid("layout " + name + " has tick " + std::to_string(tick_ms) +
            " ms; a tick is a whole number of milliseconds in [1, 86400000]");
  }
  if (epoch_ms < 0 || epoch_ms >= kMaxUnixMs) {
    Invalid("epoch " + std::to_string(epoch_ms) +
            " ms is outside 1970-01-01..9999-12-31; choose an epoch in that range");
  }
  // 2^time_bits * tick_ms must not overflow before the comparison: time_bits <= 61 here and
  // kMaxUnixMs < 2^48, so compare in ticks instead of milliseconds.
  const uint64_t ticks_left = static_cast<uint64_t>((kMaxUnixMs - epoch_ms) / tick_ms);
  if (time_bits >= 63 || (uint64_t{1} << time_bits) > ticks_left) {
    Invalid("layout " + name + " from epoch " + FormatIso8601(epoch_ms, false) +
            " lasts past year 9999; use fewer time bits or a shorter tick");
  }
}

Layout Layout::WithEpoch(int64_t epoch_ms) const {
  return Layout(time_bits_, server_bits_, sequence_bits_, tick_ms_, epoch_ms);
}

void Layout::CheckServerId(uint64_t id) const {
  if (id > max_server_id()) {
    Invalid("server_id " + std::to_string(id) + " is out of range [0, " +
            std::to_string(max_server_id()) + "] for layout " + ToString() +
            "; use an id in that range or a layout with more server bits");
  }
}

int64_t Layout::end_ms() const {
  return epoch_ms_ + static_cast<int64_t>(uint64_t{1} << time_bits_) * tick_ms_;
}

uint64_t Layout::ids_per_second() const {
  return (uint64_t{1} << sequence_bits_) * 1000 / static_cast<uint64_t>(tick_ms_);
}

std::string Layout::ToString() const {
  return Describe(time_bits_, server_bits_, sequence_bits_, tick_ms_);
}

Id Layout::Compose(uint64_t tick, uint64_t server_id, uint64_t sequence) const {
  if (tick > max_tick()) {
    Invalid("tick " + std::to_string(tick) + " is out of range [0, " + std::to_string(max_tick()) +
            "] for layout " + ToString());
  }
  if (server_id > max_server_id()) {
    Invalid("server id " + std::to_string(server_id) + " is out of range [0, " +
            std::to_string(max_server_id()) + "] for layout " + ToString());
  }
  if (sequence > max_sequence()) {
    Invalid("sequence " + std::to_string(sequence) + " is out of range [0, " +
            std::to_string(max_sequence()) + "] for layout " + ToString());
  }
  return static_cast<Id>((tick << (server_bits_ + sequence_bits_)) | (server_id << sequence_bits_) |
                         sequence);
}

DecodedId Layout::Decode(Id id) const {
  assert(id >= 0 && "Layout::Decode: IDs are never negative");
  // An ID above max_id() has a tick past max_tick(), whose start can overflow int64 (a layout
  // of day-long ticks): the caller should have checked the range.
  assert(id <= max_id() && "Layout::Decode: an ID above the layout's max_id()");
  const uint64_t bits = static_cast<uint64_t>(id);
  DecodedId decoded;
  decoded.sequence = bits & max_sequence();
  decoded.server_id = (bits >> sequence_bits_) & max_server_id();
  decoded.tick = bits >> (sequence_bits_ + server_bits_);
  decoded.unix_ms = TickStartMs(decoded.tick);
  return decoded;
}

}  // namespace steadyflake
