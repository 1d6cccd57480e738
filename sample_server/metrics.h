// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// The body of GET /metrics: Prometheus text format 0.0.4. RequestHandler counts the answers
// (RequestCounts), takes a MetricsSnapshot of the generator when /metrics is asked for, and
// renders both with RenderMetrics(); main.cpp appends the storage's counters with
// AppendMetric(). Rendering is a pure function of its inputs, so it is tested alone
// (tests/server/metrics_test.cpp). docs/server.md lists the metrics.
//
// Thread-safety: RequestCounts may be counted and read from any number of threads at once; the
// functions touch nothing but their arguments.

#ifndef STEADYFLAKE_SAMPLE_SERVER_METRICS_H_
#define STEADYFLAKE_SAMPLE_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "steadyflake/generator.h"

namespace steadyflake::server {

// The Content-Type of GET /metrics.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// The routes, as /metrics labels them.
enum class Route {
  kCreatePlayer,  // POST /players
  kGrantItems,    // POST /players/{id}/items
  kBroadcast,     // POST /mail/broadcast
  kIds,           // GET /ids?count=N
  kDecodeId,      // GET /ids/{id}
  kMetrics,       // GET /metrics
  kHealthz,       // GET /healthz
  kOther,         // no route, or a request that could not be read
};
inline constexpr std::size_t kRouteCount = 8;

// HTTP answers counted by route and status: steadyflake_http_requests_total.
class RequestCounts {
 public:
  // Status codes counted one by one; any other is counted in the last slot (status="other").
  static constexpr std::array<int, 10> kStatuses = {200, 201, 400, 404, 405, 409, 413, 500, 503, 0};

  // Counts one answer with `status` to a request for `route`.
  void Count(Route route, int status);
  // Answers counted so far under `route` and kStatuses[slot]. REQUIRES: slot < kStatuses.size().
  uint64_t Get(Route route, std::size_t slot) const;

 private:
  // Memory ordering: relaxed; each counter is read on its own for /metrics, and no other memory
  // is published through it.
  std::array<std::array<std::atomic<uint64_t>, kStatuses.size()>, kRouteCount> counts_{};
};

// What /metrics reports besides the request counts, read from the generator once per scrape:
// Generator::stats(), which any game server can export the same way.
struct MetricsSnapshot {
  Generator::Stats stats{};
  std::string layout{};  // Layout::ToString()
  uint64_t server_id = 0;
};

enum class MetricType { kCounter, kGauge };

// Appends a metric with one unlabelled sample: its "# HELP" and "# TYPE" lines, then
// "`name` `value`". `help` is one line ending in a full stop.
void AppendMetric(std::string& out, std::string_view name, MetricType type, std::string_view help,
                  std::string_view value);

// The generator's metrics from `snapshot`, then steadyflake_http_requests_total with one sample
// per route and status counted at least once, in the order of Route and kStatuses.
std::string RenderMetrics(const MetricsSnapshot& snapshot, const RequestCounts& requests);

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_METRICS_H_
