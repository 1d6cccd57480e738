// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "metrics.h"

#include <algorithm>
#include <cstdio>

namespace steadyflake::server {

namespace {

constexpr std::array<const char*, kRouteCount> kRouteLabels = {
    "/players",        "/players/{id}/items",
    "/mail/broadcast", "/ids",
    "/ids/{id}",       "/metrics",
    "/healthz",        "other"};

// The "# HELP" and "# TYPE" lines of a metric.
void AppendHeader(std::string& out, std::string_view name, MetricType type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += type == MetricType::kCounter ? " counter\n" : " gauge\n";
}

// A duration in seconds with 9 decimals: "-0.001500000".
std::string Seconds(std::chrono::nanoseconds d) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9f", static_cast<double>(d.count()) / 1e9);
  return text;
}

}  // namespace

void RequestCounts::Count(Route route, int status) {
  const auto slot = std::find(kStatuses.begin(), kStatuses.end() - 1, status) - kStatuses.begin();
  counts_[static_cast<std::size_t>(route)][static_cast<std::size_t>(slot)].fetch_add(
      1, std::memory_order_relaxed);
}

uint64_t RequestCounts::Get(Route route, std::size_t slot) const {
  return counts_[static_cast<std::size_t>(route)][slot].load(std::memory_order_relaxed);
}

void AppendMetric(std::string& out, std::string_view name, MetricType type, std::string_view help,
                  std::string_view value) {
  AppendHeader(out, name, type, help);
  out += name;
  out += ' ';
  out += value;
  out += '\n';
}

std::string RenderMetrics(const MetricsSnapshot& snapshot, const RequestCounts& requests) {
  std::string out;
  const Generator::Stats& stats = snapshot.stats;
  AppendMetric(out, "steadyflake_ids_issued_total", MetricType::kCounter, "IDs this server issued.",
               std::to_string(stats.issued));
  AppendMetric(out, "steadyflake_clock_skew_seconds", MetricType::kGauge,
               "The generator's clock minus the wall clock.", Seconds(stats.skew));
  AppendMetric(out, "steadyflake_lead_seconds", MetricType::kGauge,
               "How far the next ID's time runs ahead of the clock.", Seconds(stats.lead));
  AppendMetric(out, "steadyflake_max_lead_seconds", MetricType::kGauge,
               "The largest lead seen since the server started.", Seconds(stats.max_lead_seen));
  AppendMetric(out, "steadyflake_waits_total", MetricType::kCounter,
               "ID requests that waited for the clock (beyond max_lead) or the reservation.",
               std::to_string(stats.waits));
  AppendMetric(out, "steadyflake_reservation_headroom_seconds", MetricType::kGauge,
               "How far the reserved time runs ahead of the clock; IDs wait once it is used up.",
               Seconds(stats.reservation_headroom));
  AppendMetric(out, "steadyflake_state_file_ok", MetricType::kGauge,
               "1 if the last state-file write succeeded.", stats.state_error.empty() ? "1" : "0");
  AppendMetric(out, "steadyflake_state_errors_total", MetricType::kCounter,
               "Failed attempts to extend the reservation (state file or store).",
               std::to_string(stats.state_errors));
  AppendHeader(out, "steadyflake_server_info", MetricType::kGauge,
               "The layout and server id of this server.");
  out += "steadyflake_server_info{layout=\"" + snapshot.layout + "\",server_id=\"" +
         std::to_string(snapshot.server_id) + "\"} 1\n";
  AppendHeader(out, "steadyflake_http_requests_total", MetricType::kCounter,
               "HTTP requests answered, by route and status.");
  for (std::size_t r = 0; r < kRouteCount; ++r) {
    for (std::size_t s = 0; s < RequestCounts::kStatuses.size(); ++s) {
      const uint64_t n = requests.Get(static_cast<Route>(r), s);
      if (n == 0) continue;
      const int status = RequestCounts::kStatuses[s];
      out += std::string("steadyflake_http_requests_total{route=\"") + kRouteLabels[r] +
             "\",status=\"" + (status == 0 ? "other" : std::to_string(status)) + "\"} " +
             std::to_string(n) + "\n";
    }
  }
  return out;
}

}  // namespace steadyflake::server
