// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "server.h"

#include <memory>
#include <utility>

#include <boost/asio/dispatch.hpp>

namespace steadyflake::server {

namespace net = boost::asio;
using net::ip::tcp;

Server::Server(IoContextPool& pool, const tcp::endpoint& endpoint, RequestHandler& handler)
    : pool_(pool),
      acceptor_(pool.at(0).get_executor()),
      retry_(pool.at(0).get_executor()),
      handler_(handler) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  local_endpoint_ = acceptor_.local_endpoint();
}

void Server::Start() {
  net::dispatch(acceptor_.get_executor(), [this] { Accept(); });
}

void Server::Accept() {
  if (!acceptor_.is_open()) return;
  // Each connection goes to the next context in turn, whose one thread runs all its handlers.
  acceptor_.async_accept(
      pool_.Next(), [this](boost::system::error_code ec, Connection::Socket socket) {
        if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
        if (ec) {
          // E.g. out of file descriptors: try again shortly rather than spin.
          retry_.expires_after(std::chrono::milliseconds(50));
          retry_.async_wait([this](boost::system::error_code wait_ec) {
            if (!wait_ec) Accept();
          });
          return;
        }
        socket.set_option(tcp::no_delay(true), ec);
        connections_.Start(std::make_shared<Connection>(std::move(socket), handler_, connections_));
        Accept();
      });
}

void Server::Shutdown(std::function<void()> on_drained) {
  net::dispatch(acceptor_.get_executor(), [this, on_drained = std::move(on_drained)]() mutable {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    retry_.cancel();
    connections_.StopAll(std::move(on_drained));
  });
}

void Server::Abort() { connections_.AbortAll(); }

}  // namespace steadyflake::server
