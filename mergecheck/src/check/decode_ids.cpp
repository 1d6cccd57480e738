// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Which integers of a key are steadyflake IDs of the layout, and their server ids (design
// section 10): IdBoundsOf and DecodeIds, for the Collector and the planner.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "check/collect.h"

namespace steadyflake::mergecheck {

namespace {
// Design section 10: every 32-bit auto-increment value decodes before the epoch + 2 s, in
// `game` and in `snowflake`.
constexpr int64_t kFirstIdMs = 2000;
}  // namespace

IdBounds IdBoundsOf(const Layout& layout, int64_t cutoff_ms) {
  IdBounds b;
  b.shift = layout.sequence_bits() + layout.server_bits();
  b.max_id = static_cast<int64_t>((uint64_t{1} << (layout.time_bits() + b.shift)) - 1);
  // The last tick whose start is not after the cutoff; -1: every ID is after it.
  b.last_tick =
      cutoff_ms < layout.epoch_ms()
          ? -1
          : static_cast<int64_t>(std::min<uint64_t>(layout.TickAt(cutoff_ms), layout.max_tick()));
  // The last tick whose start is not after the epoch + kFirstIdMs.
  b.first_tick = static_cast<int64_t>(
      std::min<uint64_t>(layout.TickAt(layout.epoch_ms() + kFirstIdMs), layout.max_tick()));
  return b;
}

void DecodeIds(std::span<const int64_t> ids, const Layout& layout, int64_t cutoff_ms,
               uint64_t& id_count, uint64_t& legacy, std::vector<uint64_t>& servers) {
  const int q = layout.sequence_bits();
  const int s = layout.server_bits();
  const IdBounds bounds = IdBoundsOf(layout, cutoff_ms);
  const uint64_t mask = layout.max_server_id();
  const bool bitmap = s <= 24;
  std::vector<uint64_t> bits(bitmap ? ((uint64_t{1} << s) + 63) / 64 : 0);
  std::vector<uint64_t> list;
  // The values IdBounds::Holds takes are one run of the sorted ids: from the first ID of tick
  // first_tick + 1 to the last before tick last_tick + 1 (which is at most max_id + 1, as
  // last_tick is at most the layout's last tick). Found by two binary searches, not a test per
  // value: random 64-bit values are mostly legacy ones.
  const auto shifted = [&](int64_t tick) {  // the first ID of tick + 1; at most 2^63, unsigned
    return static_cast<uint64_t>(tick + 1) << bounds.shift;
  };
  const uint64_t low = shifted(bounds.first_tick);
  const uint64_t high = shifted(bounds.last_tick);  // 0 when last_tick is -1: no IDs
  const auto at = [&](uint64_t value) {             // the first id not below `value`
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return ids.end();
    return std::lower_bound(ids.begin(), ids.end(), static_cast<int64_t>(value));
  };
  const auto first = low < high ? at(low) : ids.end();
  const auto last = low < high ? at(high) : ids.end();
  const auto in_bounds = static_cast<uint64_t>(last - first);
  id_count += in_bounds;
  legacy += ids.size() - in_bounds;
  for (const int64_t id : std::span<const int64_t>(first, last)) {
    const uint64_t server = (static_cast<uint64_t>(id) >> q) & mask;
    if (bitmap) {
      bits[server >> 6] |= uint64_t{1} << (server & 63);
    } else {
      list.push_back(server);
    }
  }
  servers.clear();
  if (bitmap) {
    // Reserved at once: random 64-bit ids name most of the 2^16 servers of `game`, and a vector
    // doubling to 65,536 values faults in twice the pages it keeps.
    std::size_t count = 0;
    for (const uint64_t word : bits) count += static_cast<std::size_t>(std::popcount(word));
    servers.reserve(count);
    for (std::size_t w = 0; w < bits.size(); ++w) {
      for (uint64_t word = bits[w]; word != 0; word &= word - 1) {
        servers.push_back(w * 64 + static_cast<uint64_t>(__builtin_ctzll(word)));
      }
    }
  } else {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    servers = std::move(list);
  }
}

}  // namespace steadyflake::mergecheck
