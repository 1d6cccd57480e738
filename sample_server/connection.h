// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// Connection: one HTTP/1.1 client connection with keep-alive. It reads a request (at most
// RequestHandler::kMaxBodyBytes of body, answering `Expect: 100-continue`), hands it to the
// RequestHandler, writes the response when the handler calls back, and reads the next one.
// Requests on one connection are answered one at a time, in order.
//
// ConnectionManager: owns the open connections so the server can stop them all (the Asio
// HTTP server example's pattern).
//
// Thread-safety: a Connection runs on the one thread of its socket's io_context (the server's
// IoContextPool gives each connection one in turn), so its handlers never run concurrently and
// need no strand; Start(), Stop() and Abort() may be called from any thread (they dispatch to
// that context), and so may the handler's answer (it is written from that context).
// ConnectionManager is safe to call from any thread.

#ifndef STEADYFLAKE_SAMPLE_SERVER_CONNECTION_H_
#define STEADYFLAKE_SAMPLE_SERVER_CONNECTION_H_

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "request_handler.h"

namespace steadyflake::server {

class ConnectionManager;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // A keep-alive connection idle for this long is closed.
  static constexpr std::chrono::seconds kIdleTimeout{60};
  // A response that cannot be written in this long is dropped with its connection.
  static constexpr std::chrono::seconds kWriteTimeout{30};
  // After answering a request it could not read (413, 400), the connection reads and drops
  // what the client still sends, for at most this long and this many bytes, before closing:
  // closing with unread data would reset the connection, and the client could lose the answer.
  static constexpr std::chrono::seconds kLingerTimeout{2};
  static constexpr std::size_t kLingerBytes = std::size_t{8} << 20;

  // A socket of one io_context of the server's pool, run by one thread.
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp,
                                                  boost::asio::io_context::executor_type>;

  // `socket` must belong to a context that one thread runs. `handler` and `manager` must
  // outlive the connection.
  Connection(Socket socket, RequestHandler& handler, ConnectionManager& manager);

  // Begins reading requests.
  void Start();
  // Graceful stop: a connection waiting for a request is closed now; one with a request in
  // flight closes after writing that response (with `Connection: close`).
  void Stop();
  // Closes the socket now, whatever it was doing.
  void Abort();

 private:
  void ReadHeader();
  void OnHeader(boost::beast::error_code ec);
  void ReadBody();
  void OnBody(boost::beast::error_code ec);
  // Answers a request that could not be read, then closes.
  void Reject(int status, std::string_view message);
  void Write(Response response);
  void OnWrite(boost::beast::error_code ec);
  void Linger();
  void Close();

  // Beast's stream (timeouts) over the socket, with the context's own executor type rather than
  // the type-erased any_io_executor of beast::tcp_stream: no executor copy allocates or goes
  // through a function table on the hot path.
  using Stream = boost::beast::basic_stream<boost::asio::ip::tcp, Socket::executor_type>;

  // All below are touched only on the connection's context's thread.
  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::string head_;  // the response being written: its head (response_head.h), reused
  std::string body_;  // and its body
  RequestHandler& handler_;
  ConnectionManager& manager_;
  unsigned version_ = 11;           // HTTP version of the request being answered
  bool keep_alive_ = false;         // the request being answered asked to keep the connection
  bool answer_keep_alive_ = false;  // the response being written keeps it
  bool busy_ = false;               // a request is being handled or its response written
  bool stopping_ = false;           // Stop() was called: answer what is in flight, then close
  bool closed_ = false;
  bool linger_ = false;  // drain the client's unread bytes before closing (see kLingerTimeout)
  std::size_t linger_left_ = kLingerBytes;
  std::array<char, 16384> scratch_;  // where lingering reads go
};

class ConnectionManager {
 public:
  // Adds and starts `connection`; stops it at once if StopAll() was called.
  void Start(const std::shared_ptr<Connection>& connection);
  // Called by a connection once it has closed.
  void Remove(const std::shared_ptr<Connection>& connection);
  // Stops every connection (Connection::Stop) and every later one; `on_empty` runs once, on
  // the thread that removes the last connection (or here if there is none).
  void StopAll(std::function<void()> on_empty);
  // Closes every connection now.
  void AbortAll();

 private:
  std::mutex mu_;                                      // guards the fields below
  std::set<std::shared_ptr<Connection>> connections_;  // GUARDED_BY(mu_)
  bool stopping_ = false;                              // GUARDED_BY(mu_)
  std::function<void()> on_empty_;                     // GUARDED_BY(mu_)
};

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_CONNECTION_H_
