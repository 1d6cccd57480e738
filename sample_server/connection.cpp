// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "connection.h"

#include <string>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

namespace steadyflake::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

Connection::Connection(net::ip::tcp::socket socket, RequestHandler& handler,
                       ConnectionManager& manager)
    : stream_(std::move(socket)), handler_(handler), manager_(manager) {}

void Connection::Start() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void Connection::Stop() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    self->stopping_ = true;
    if (!self->busy_) self->Close();  // cancels the pending read
  });
}

void Connection::Abort() {
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void Connection::ReadHeader() {
  if (stopping_) return Close();
  parser_.emplace();
  parser_->body_limit(RequestHandler::kMaxBodyBytes);
  stream_.expires_after(kIdleTimeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
}

void Connection::OnHeader(beast::error_code ec) {
  if (ec == http::error::body_limit) {
    return Reject(413, "request body over 1 MiB");
  }
  if (ec == http::error::header_limit) {
    return Reject(400, "request header over 8 KiB");
  }
  if (ec && ec.category() == beast::http::make_error_code(http::error::bad_target).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message) {
    return Reject(400, std::string("malformed HTTP request: ") + ec.message());
  }
  if (ec) return Close();  // the client went away, timed out, or we are stopping
  busy_ = true;
  const auto& request = parser_->get();
  if (request[http::field::expect] == "100-continue") {
    continue_ = http::response<http::empty_body>(http::status::continue_, request.version());
    return http::async_write(stream_, continue_,
                             [self = shared_from_this()](beast::error_code write_ec, std::size_t) {
                               if (write_ec) return self->Close();
                               self->ReadBody();
                             });
  }
  ReadBody();
}

void Connection::ReadBody() {
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnBody(ec); });
}

void Connection::OnBody(beast::error_code ec) {
  if (ec == http::error::body_limit) return Reject(413, "request body over 1 MiB");
  if (ec && ec.category() == beast::http::make_error_code(http::error::bad_target).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message) {
    return Reject(400, std::string("malformed HTTP request: ") + ec.message());
  }
  if (ec) return Close();
  stream_.expires_never();  // the handler may take a while (group commit); no timeout
  auto& message = parser_->get();
  version_ = message.version();
  keep_alive_ = message.keep_alive();
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  request.body = std::move(message.body());
  parser_.reset();
  // The handler may answer from another thread: go back to the strand to write.
  handler_.Handle(request, [self = shared_from_this()](Response response) {
    net::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
      self->Write(std::move(response));
    });
  });
}

void Connection::Reject(int status, std::string_view message) {
  busy_ = true;
  keep_alive_ = false;  // the rest of the stream cannot be trusted
  linger_ = true;
  version_ = parser_ && parser_->is_header_done() ? parser_->get().version() : 11;
  Write(handler_.Reject(status, message));
}

void Connection::Write(Response response) {
  if (closed_) return;
  response_ = {};
  response_.version(version_);
  response_.result(static_cast<unsigned>(response.status));
  response_.set(http::field::server, "steadyflake-server");
  response_.set(http::field::content_type, response.content_type);
  if (!response.allow.empty()) response_.set(http::field::allow, response.allow);
  response_.body() = std::move(response.body);
  response_.keep_alive(keep_alive_ && !stopping_);
  response_.prepare_payload();
  stream_.expires_after(kWriteTimeout);
  http::async_write(
      stream_, response_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnWrite(ec); });
}

void Connection::OnWrite(beast::error_code ec) {
  busy_ = false;
  if (!ec && linger_) {
    // Tell the client we are done, then drop what it still sends (see kLingerTimeout).
    beast::error_code ignored;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTimeout);
    return Linger();
  }
  if (ec || !response_.keep_alive()) return Close();
  ReadHeader();
}

void Connection::Linger() {
  if (closed_) return;
  stream_.async_read_some(net::buffer(scratch_),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                            if (ec || n >= self->linger_left_) return self->Close();
                            self->linger_left_ -= n;
                            self->Linger();
                          });
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  beast::error_code ignored;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ignored);
  stream_.socket().close(ignored);
  manager_.Remove(shared_from_this());
}

void ConnectionManager::Start(const std::shared_ptr<Connection>& connection) {
  bool stop = false;
  {
    std::lock_guard lock(mu_);
    connections_.insert(connection);
    stop = stopping_;
  }
  connection->Start();
  if (stop) connection->Stop();
}

void ConnectionManager::Remove(const std::shared_ptr<Connection>& connection) {
  std::function<void()> on_empty;
  {
    std::lock_guard lock(mu_);
    connections_.erase(connection);
    if (!stopping_ || !connections_.empty()) return;
    on_empty = std::move(on_empty_);
    on_empty_ = nullptr;
  }
  if (on_empty) on_empty();
}

void ConnectionManager::StopAll(std::function<void()> on_empty) {
  std::set<std::shared_ptr<Connection>> connections;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (!connections_.empty()) {
      on_empty_ = std::move(on_empty);
      connections = connections_;
    }
  }
  if (connections.empty()) {
    if (on_empty) on_empty();
    return;
  }
  for (const auto& c : connections) c->Stop();
}

void ConnectionManager::AbortAll() {
  std::set<std::shared_ptr<Connection>> connections;
  {
    std::lock_guard lock(mu_);
    connections = connections_;
  }
  for (const auto& c : connections) c->Abort();
}

}  // namespace steadyflake::server
