// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "connection.h"

#include <string>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>

#include "response_head.h"

namespace steadyflake::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

Connection::Connection(Socket socket, RequestHandler& handler, ConnectionManager& manager)
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
    return net::async_write(stream_, net::buffer(ContinueHead(request.version())),
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
  // The handler answers before Handle returns (GET /ids: dispatch writes at once, on this
  // thread) or later from the storage's thread (dispatch posts to the connection's context).
  handler_.Handle(request, [self = shared_from_this()](Response response) {
    net::dispatch(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
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
  answer_keep_alive_ = keep_alive_ && !stopping_;
  body_ = std::move(response.body);
  head_.clear();  // keeps its capacity: no allocation after the first response
  AppendResponseHead(head_, {.version = version_,
                             .status = response.status,
                             .content_type = response.content_type,
                             .allow = response.allow,
                             .content_length = body_.size(),
                             .keep_alive = answer_keep_alive_});
  stream_.expires_after(kWriteTimeout);
  const std::array<net::const_buffer, 2> buffers = {net::buffer(head_), net::buffer(body_)};
  net::async_write(
      stream_, buffers,
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
  if (ec || !answer_keep_alive_) return Close();
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
