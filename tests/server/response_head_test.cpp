// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The response head a connection writes itself (response_head.h) against the bytes Beast's
// serializer writes for the same response, which the server sent before: clients see the same
// status line and fields, in the same order, for both HTTP versions, kept or closed.

#include "response_head.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "metrics.h"

namespace steadyflake::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;

// What Beast writes for `head` and `body`, as the connection built its responses before.
std::string BeastBytes(const ResponseHead& head, const std::string& body) {
  http::response<http::string_body> response;
  response.version(head.version);
  response.result(static_cast<unsigned>(head.status));
  response.set(http::field::server, "steadyflake-server");
  response.set(http::field::content_type, std::string(head.content_type));
  if (!head.allow.empty()) response.set(http::field::allow, std::string(head.allow));
  response.body() = body;
  response.keep_alive(head.keep_alive);
  response.prepare_payload();
  std::string out;
  http::response_serializer<http::string_body> serializer(response);
  beast::error_code ec;
  while (!serializer.is_done()) {
    serializer.next(ec, [&](beast::error_code&, const auto& buffers) {
      out += beast::buffers_to_string(buffers);
      serializer.consume(beast::buffer_bytes(buffers));
    });
    if (ec) return "serializer error: " + ec.message();
  }
  return out;
}

std::string OurBytes(ResponseHead head, const std::string& body) {
  head.content_length = body.size();
  std::string out = "junk before: appended, not replaced|";
  AppendResponseHead(out, head);
  return out.substr(out.find('|') + 1) + body;
}

TEST(ResponseHeadTest, SameBytesAsBeastForEveryVersionStatusAndConnection) {
  struct Case {
    int status;
    std::string_view content_type;
    std::string_view allow;
    std::string body;
  };
  const Case cases[] = {
      {200, "application/json", "", R"({"ids":["614683643700315136"]})"},
      {201, "application/json", "", R"({"id":"1","name":"a","level":1})"},
      {400, "application/json", "", R"({"error":"bad count"})"},
      {404, "application/json", "", R"({"error":"no such route"})"},
      {405, "application/json", "POST", R"({"error":"method not allowed; use POST"})"},
      {413, "application/json", "", R"({"error":"request body over 1 MiB"})"},
      {500, "application/json", "", ""},
      {503, "application/json", "", R"({"error":"stopping"})"},
      {200, kMetricsContentType, "", "# HELP x y\n"},
  };
  int compared = 0;
  for (const unsigned version : {10u, 11u}) {
    for (const bool keep_alive : {true, false}) {
      for (const Case& c : cases) {
        const ResponseHead head{.version = version,
                                .status = c.status,
                                .content_type = c.content_type,
                                .allow = c.allow,
                                .keep_alive = keep_alive};
        EXPECT_EQ(OurBytes(head, c.body), BeastBytes(head, c.body))
            << "HTTP/" << version / 10 << "." << version % 10 << " " << c.status
            << (keep_alive ? " keep-alive" : " close");
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 36);
}

TEST(ResponseHeadTest, ContinueIsBeastsInterimResponse) {
  for (const unsigned version : {10u, 11u}) {
    http::response<http::empty_body> interim(http::status::continue_, version);
    std::string bytes;
    http::response_serializer<http::empty_body> serializer(interim);
    beast::error_code ec;
    while (!serializer.is_done() && !ec) {
      serializer.next(ec, [&](beast::error_code&, const auto& buffers) {
        bytes += beast::buffers_to_string(buffers);
        serializer.consume(beast::buffer_bytes(buffers));
      });
    }
    EXPECT_EQ(ContinueHead(version), bytes) << version;
  }
}

}  // namespace
}  // namespace steadyflake::server
