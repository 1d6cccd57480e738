// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace steadyflake::registry::internal {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// An etcd range over every owner of a large fleet stays far below this.
constexpr std::size_t kMaxBody = 16 * 1024 * 1024;

}  // namespace

Endpoint Endpoint::Parse(const std::string& url) {
  Endpoint endpoint;
  endpoint.url = url;
  const std::size_t colon_slashes = url.find("://");
  if (colon_slashes == std::string::npos) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' has no scheme; write it as http://HOST:PORT");
  }
  endpoint.scheme = url.substr(0, colon_slashes);
  if (endpoint.scheme != "http") {
    throw std::invalid_argument("registry endpoint '" + url + "': scheme '" + endpoint.scheme +
                                "' is not supported; use http://HOST:PORT");
  }
  std::string rest = url.substr(colon_slashes + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' has a path; give only http://HOST:PORT");
  }
  std::size_t port_colon = rest.rfind(':');
  if (!rest.empty() && rest.front() == '[') {  // [::1]:2379
    const std::size_t close = rest.find(']');
    if (close == std::string::npos) {
      throw std::invalid_argument("registry endpoint '" + url + "' has an unclosed '['");
    }
    endpoint.host = rest.substr(1, close - 1);
    port_colon = rest.find(':', close);
  } else if (port_colon != std::string::npos) {
    endpoint.host = rest.substr(0, port_colon);
  }
  if (port_colon == std::string::npos || port_colon + 1 >= rest.size()) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' has no port; write it as http://HOST:PORT (etcd: 2379)");
  }
  endpoint.port = rest.substr(port_colon + 1);
  if (endpoint.host.empty() || endpoint.port.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' is not http://HOST:PORT with a numeric port");
  }
  return endpoint;
}

struct HttpClient::Impl {
  explicit Impl(std::chrono::milliseconds t) : timeout(t) {}

  std::chrono::milliseconds timeout;
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;
  std::string connected_url;
  beast::flat_buffer buffer;

  // Runs the queued asynchronous operations to completion; `error` is what they reported.
  void Run() {
    ioc.restart();
    ioc.run();
  }

  [[noreturn]] void Fail(const Endpoint& endpoint, const std::string& step,
                         const beast::error_code& error) {
    stream.reset();
    connected_url.clear();
    const std::string why = error == beast::error::timeout
                                ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                : error.message();
    throw TransportError("etcd at " + endpoint.url + ": " + step + " failed: " + why);
  }

  void Connect(const Endpoint& endpoint) {
    if (stream && connected_url == endpoint.url) return;
    stream.reset();
    connected_url.clear();
    buffer.clear();
    beast::error_code error;
    tcp::resolver resolver(ioc);
    tcp::resolver::results_type results;
    resolver.async_resolve(endpoint.host, endpoint.port,
                           [&](const beast::error_code& e, tcp::resolver::results_type r) {
                             error = e;
                             results = std::move(r);
                           });
    Run();
    if (error) Fail(endpoint, "resolving " + endpoint.host, error);
    stream.emplace(ioc);
    stream->expires_after(timeout);
    stream->async_connect(results,
                          [&](const beast::error_code& e, const tcp::endpoint&) { error = e; });
    Run();
    if (error) Fail(endpoint, "connecting", error);
    stream->socket().set_option(tcp::no_delay(true));
    connected_url = endpoint.url;
  }
};

HttpClient::HttpClient(std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>(timeout)) {}

HttpClient::~HttpClient() = default;

void HttpClient::Close() {
  impl_->stream.reset();
  impl_->connected_url.clear();
}

HttpResponse HttpClient::Post(const Endpoint& endpoint, const std::string& target,
                              const std::string& body,
                              const std::vector<std::pair<std::string, std::string>>& headers) {
  Impl& d = *impl_;
  // A kept-alive connection the server has closed meanwhile fails on first use: then one fresh
  // connection is tried before giving up.
  for (int attempt = 0;; ++attempt) {
    const bool reused = d.stream.has_value() && d.connected_url == endpoint.url;
    d.Connect(endpoint);
    http::request<http::string_body> request{http::verb::post, target, 11};
    request.set(http::field::host, endpoint.host + ":" + endpoint.port);
    request.set(http::field::content_type, "application/json");
    for (const auto& [name, value] : headers) request.set(name, value);
    request.body() = body;
    request.prepare_payload();
    request.keep_alive(true);

    beast::error_code error;
    d.stream->expires_after(d.timeout);
    http::async_write(*d.stream, request,
                      [&](const beast::error_code& e, std::size_t) { error = e; });
    d.Run();
    if (!error) {
      http::response_parser<http::string_body> parser;
      parser.body_limit(kMaxBody);
      http::async_read(*d.stream, d.buffer, parser,
                       [&](const beast::error_code& e, std::size_t) { error = e; });
      d.Run();
      if (!error) {
        auto response = parser.release();
        HttpResponse out;
        out.status = static_cast<int>(response.result_int());
        out.body = std::move(response.body());
        if (!response.keep_alive()) Close();
        return out;
      }
    }
    if (reused && attempt == 0 && error != beast::error::timeout) {
      Close();
      continue;
    }
    d.Fail(endpoint, "POST " + target, error);
  }
}

}  // namespace steadyflake::registry::internal
