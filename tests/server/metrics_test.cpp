// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The /metrics text alone: RenderMetrics() byte for byte, the request counts under concurrent
// counting, and the Prometheus text syntax. request_handler_test checks what the handler feeds it.

#include "metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace steadyflake::server {
namespace {

using std::chrono::nanoseconds;

MetricsSnapshot Snapshot() {
  MetricsSnapshot snapshot;
  snapshot.stats.issued = 12345;
  snapshot.stats.skew = nanoseconds(-1'500'000'001);
  snapshot.stats.lead = nanoseconds(20'000'000);
  snapshot.stats.max_lead_seen = nanoseconds(2'000'000'000);
  snapshot.stats.waits = 3;
  snapshot.stats.reservation_headroom = nanoseconds(2'990'000'000);
  snapshot.stats.state_errors = 2;
  snapshot.layout = "37/16/10@10ms";
  snapshot.server_id = 7;
  return snapshot;
}

// Fails unless every line of `text` is "# HELP ", "# TYPE " or `steadyflake_…{labels} value`.
void ExpectPrometheusText(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "last line has no newline";
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
    const std::size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_NO_THROW((void)std::stod(line.substr(space + 1))) << line;
    EXPECT_EQ(line.rfind("steadyflake_", 0), 0u) << line;
  }
}

TEST(MetricsTest, RendersEveryMetricExactly) {
  RequestCounts requests;
  requests.Count(Route::kIds, 200);
  requests.Count(Route::kIds, 200);
  requests.Count(Route::kCreatePlayer, 409);
  requests.Count(Route::kCreatePlayer, 201);
  requests.Count(Route::kOther, 404);
  EXPECT_EQ(RenderMetrics(Snapshot(), requests),
            "# HELP steadyflake_ids_issued_total IDs this server issued.\n"
            "# TYPE steadyflake_ids_issued_total counter\n"
            "steadyflake_ids_issued_total 12345\n"
            "# HELP steadyflake_clock_skew_seconds The generator's clock minus the wall clock.\n"
            "# TYPE steadyflake_clock_skew_seconds gauge\n"
            "steadyflake_clock_skew_seconds -1.500000001\n"
            "# HELP steadyflake_lead_seconds How far the next ID's time runs ahead of the clock.\n"
            "# TYPE steadyflake_lead_seconds gauge\n"
            "steadyflake_lead_seconds 0.020000000\n"
            "# HELP steadyflake_max_lead_seconds The largest lead seen since the server started.\n"
            "# TYPE steadyflake_max_lead_seconds gauge\n"
            "steadyflake_max_lead_seconds 2.000000000\n"
            "# HELP steadyflake_waits_total ID requests that waited for the clock (beyond "
            "max_lead) or the reservation.\n"
            "# TYPE steadyflake_waits_total counter\n"
            "steadyflake_waits_total 3\n"
            "# HELP steadyflake_reservation_headroom_seconds How far the reserved time runs "
            "ahead of the clock; IDs wait once it is used up.\n"
            "# TYPE steadyflake_reservation_headroom_seconds gauge\n"
            "steadyflake_reservation_headroom_seconds 2.990000000\n"
            "# HELP steadyflake_state_file_ok 1 if the last state-file write succeeded.\n"
            "# TYPE steadyflake_state_file_ok gauge\n"
            "steadyflake_state_file_ok 1\n"
            "# HELP steadyflake_state_errors_total Failed attempts to extend the reservation "
            "(state file or store).\n"
            "# TYPE steadyflake_state_errors_total counter\n"
            "steadyflake_state_errors_total 2\n"
            "# HELP steadyflake_server_info The layout and server id of this server.\n"
            "# TYPE steadyflake_server_info gauge\n"
            "steadyflake_server_info{layout=\"37/16/10@10ms\",server_id=\"7\"} 1\n"
            "# HELP steadyflake_http_requests_total HTTP requests answered, by route and "
            "status.\n"
            "# TYPE steadyflake_http_requests_total counter\n"
            "steadyflake_http_requests_total{route=\"/players\",status=\"201\"} 1\n"
            "steadyflake_http_requests_total{route=\"/players\",status=\"409\"} 1\n"
            "steadyflake_http_requests_total{route=\"/ids\",status=\"200\"} 2\n"
            "steadyflake_http_requests_total{route=\"other\",status=\"404\"} 1\n");
}

TEST(MetricsTest, NoRequestsYetKeepsTheRequestsHeader) {
  const std::string text = RenderMetrics(MetricsSnapshot{}, RequestCounts{});
  ExpectPrometheusText(text);
  EXPECT_NE(text.find("steadyflake_clock_skew_seconds 0.000000000\n"), std::string::npos);
  EXPECT_TRUE(text.ends_with("# TYPE steadyflake_http_requests_total counter\n")) << text;
}

TEST(MetricsTest, FailedStateFileIsZero) {
  MetricsSnapshot snapshot = Snapshot();
  snapshot.stats.state_error = "cannot write the state file";
  EXPECT_NE(RenderMetrics(snapshot, RequestCounts{}).find("\nsteadyflake_state_file_ok 0\n"),
            std::string::npos);
}

TEST(MetricsTest, UnlistedStatusCountsAsOther) {
  RequestCounts requests;
  requests.Count(Route::kHealthz, 418);
  requests.Count(Route::kHealthz, 0);
  requests.Count(Route::kMetrics, 503);
  EXPECT_EQ(requests.Get(Route::kHealthz, RequestCounts::kStatuses.size() - 1), 2u);
  const std::string text = RenderMetrics(Snapshot(), requests);
  ExpectPrometheusText(text);
  EXPECT_NE(text.find("steadyflake_http_requests_total{route=\"/healthz\",status=\"other\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("steadyflake_http_requests_total{route=\"/metrics\",status=\"503\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(MetricsTest, CountsFromManyThreadsAddUp) {
  RequestCounts requests;
  constexpr int kThreads = 4;
  constexpr int kEach = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&requests] {
      for (int i = 0; i < kEach; ++i) requests.Count(Route::kIds, i % 2 == 0 ? 200 : 400);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(requests.Get(Route::kIds, 0), uint64_t{kThreads * kEach / 2});
  EXPECT_EQ(requests.Get(Route::kIds, 2), uint64_t{kThreads * kEach / 2});
}

TEST(MetricsTest, AppendMetricWritesHelpTypeAndSample) {
  std::string out = "x\n";
  AppendMetric(out, "steadyflake_db_operations_total", MetricType::kCounter,
               "Writes committed in those transactions.", "42");
  EXPECT_EQ(out,
            "x\n"
            "# HELP steadyflake_db_operations_total Writes committed in those transactions.\n"
            "# TYPE steadyflake_db_operations_total counter\n"
            "steadyflake_db_operations_total 42\n");
}

}  // namespace
}  // namespace steadyflake::server
