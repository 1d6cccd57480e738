// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// Server: the acceptor. It accepts connections on its endpoint and gives each to a Connection
// (connection.h) that talks to the RequestHandler, on the pool's next io_context in turn
// (io_context_pool.h): a connection's handlers all run on that context's one thread. Shutdown()
// stops accepting and drains: idle connections close at once, requests in flight are answered,
// then `on_drained` runs.
//
// Thread-safety: the constructor and local_endpoint() from one thread; Start() once;
// Shutdown() and Abort() from any thread, any number of times.

#ifndef STEADYFLAKE_SAMPLE_SERVER_SERVER_H_
#define STEADYFLAKE_SAMPLE_SERVER_SERVER_H_

#include <chrono>
#include <functional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "connection.h"
#include "io_context_pool.h"
#include "request_handler.h"

namespace steadyflake::server {

class Server {
 public:
  // Opens, binds and listens on `endpoint` (port 0: a free one); the acceptor runs on the pool's
  // context 0. Throws boost::system::system_error if it cannot (e.g. the port is in use).
  // `handler` must outlive the server; `pool` must outlive it and run its handlers.
  Server(IoContextPool& pool, const boost::asio::ip::tcp::endpoint& endpoint,
         RequestHandler& handler);

  // The bound address and port.
  boost::asio::ip::tcp::endpoint local_endpoint() const { return local_endpoint_; }

  // Begins accepting.
  void Start();
  // Closes the acceptor and stops every connection gracefully; `on_drained` runs once when the
  // last connection has closed (on whichever thread closed it, or this one).
  void Shutdown(std::function<void()> on_drained);
  // Closes every connection now, in flight or not (the drain took too long).
  void Abort();

 private:
  void Accept();

  using Executor = boost::asio::io_context::executor_type;

  IoContextPool& pool_;
  // On the pool's context 0, whose one thread serializes them.
  boost::asio::basic_socket_acceptor<boost::asio::ip::tcp, Executor> acceptor_;
  boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                    boost::asio::wait_traits<std::chrono::steady_clock>, Executor>
      retry_;
  boost::asio::ip::tcp::endpoint local_endpoint_;
  RequestHandler& handler_;
  ConnectionManager connections_;
};

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_SERVER_H_
