// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "response_head.h"

#include <charconv>
#include <ostream>  // Boost 1.74's beast/http/status.hpp uses std::ostream without it

#include <boost/beast/http/status.hpp>

namespace steadyflake::server {

namespace {

void AppendNumber(std::string& out, std::size_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
  out.append(digits, end);
}

}  // namespace

void AppendResponseHead(std::string& out, const ResponseHead& head) {
  namespace http = boost::beast::http;
  out.append(head.version >= 11 ? "HTTP/1.1 " : "HTTP/1.0 ");
  AppendNumber(out, static_cast<std::size_t>(head.status));
  out.push_back(' ');
  const auto reason =
      http::obsolete_reason(http::int_to_status(static_cast<unsigned>(head.status)));
  out.append(reason.data(), reason.size());
  out.append("\r\nServer: steadyflake-server\r\nContent-Type: ");
  out.append(head.content_type);
  if (!head.allow.empty()) out.append("\r\nAllow: ").append(head.allow);
  // HTTP/1.1 keeps a connection unless told `close`; HTTP/1.0 closes it unless told `keep-alive`.
  if (head.version >= 11 && !head.keep_alive) out.append("\r\nConnection: close");
  if (head.version < 11 && head.keep_alive) out.append("\r\nConnection: keep-alive");
  out.append("\r\nContent-Length: ");
  AppendNumber(out, head.content_length);
  out.append("\r\n\r\n");
}

std::string_view ContinueHead(unsigned version) {
  return version >= 11 ? "HTTP/1.1 100 Continue\r\n\r\n" : "HTTP/1.0 100 Continue\r\n\r\n";
}

}  // namespace steadyflake::server
