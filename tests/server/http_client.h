// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The server tests' HTTP client: blocking, HTTP/1.1 keep-alive, one connection to 127.0.0.1,
// every operation bounded by kClientDeadline (a server that stops answering fails the test with
// a timeout instead of hanging it).

#ifndef STEADYFLAKE_TESTS_SERVER_HTTP_CLIENT_H_
#define STEADYFLAKE_TESTS_SERVER_HTTP_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace steadyflake::server_test {

inline constexpr auto kClientDeadline = std::chrono::seconds(30);

struct Reply {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;
  bool keep_alive = false;
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
};

class HttpClient {
 public:
  explicit HttpClient(uint16_t port) : stream_(io_) {
    stream_.expires_after(kClientDeadline);
    stream_.connect(
        boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  }

  // Sends a request without waiting for its answer (a POST's body as JSON).
  void Write(boost::beast::http::verb method, const std::string& target,
             const std::string& body = "") {
    namespace http = boost::beast::http;
    http::request<http::string_body> request(method, target, 11);
    request.set(http::field::host, "127.0.0.1");
    if (!body.empty() || method == http::verb::post) {
      request.set(http::field::content_type, "application/json");
      request.body() = body;
    }
    request.keep_alive(true);
    request.prepare_payload();
    stream_.expires_after(kClientDeadline);
    http::write(stream_, request);
  }
  // Reads one response (bodies up to 64 MB).
  Reply Read() {
    namespace http = boost::beast::http;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    stream_.expires_after(kClientDeadline);
    http::read(stream_, buffer_, parser);
    Reply reply;
    reply.status = static_cast<int>(parser.get().result_int());
    reply.body = parser.get().body();
    reply.keep_alive = parser.get().keep_alive();
    for (const auto& field : parser.get()) {
      reply.headers[std::string(field.name_string())] = std::string(field.value());
    }
    return reply;
  }
  Reply Send(boost::beast::http::verb method, const std::string& target,
             const std::string& body = "") {
    Write(method, target, body);
    return Read();
  }
  Reply Get(const std::string& target) { return Send(boost::beast::http::verb::get, target); }
  Reply Post(const std::string& target, const std::string& body) {
    return Send(boost::beast::http::verb::post, target, body);
  }
  // Writes raw bytes and reads one response.
  Reply Raw(const std::string& bytes) {
    stream_.expires_after(kClientDeadline);
    boost::asio::write(stream_, boost::asio::buffer(bytes));
    return Read();
  }

  // Bytes received and not yet read.
  std::size_t Available() { return stream_.socket().available(); }
  // True once the server has closed the connection (reads EOF).
  bool ClosedByServer() {
    stream_.expires_after(kClientDeadline);
    char c;
    boost::beast::error_code ec;
    stream_.read_some(boost::asio::buffer(&c, 1), ec);
    return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
  }

 private:
  boost::asio::io_context io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
};

}  // namespace steadyflake::server_test

#endif  // STEADYFLAKE_TESTS_SERVER_HTTP_CLIENT_H_
