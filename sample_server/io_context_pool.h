// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// IoContextPool: the server's I/O threads, one io_context each (the design of Asio's HTTP
// "server2" example). The acceptor gives each new connection the next context in turn; every
// handler of that connection then runs on that context's one thread, so a connection needs no
// strand, and a request is read, handled and answered on one thread without waking another.
// Only an answer that comes from another thread (the storage's writer, after its commit) crosses
// over, by posting to the connection's context.
//
// Each context is constructed with the concurrency hint 1, Asio's "one thread runs this
// context": a handler posted from inside another handler goes to a queue of the running thread,
// and no other thread is woken for it. Asio still locks, so other threads may post to a context
// and I/O objects of one context may be set up from another (the acceptor registers each
// accepted socket with its connection's context). The hints that drop the locks
// (BOOST_ASIO_CONCURRENCY_HINT_UNSAFE, _UNSAFE_IO) would make both races.
//
// Each context holds a work guard until ReleaseWork(), so Run() does not return while the server
// waits for connections, or for a storage answer that has no Asio operation pending.
//
// Thread-safety: the constructor, Next() and ReleaseWork() from one thread at a time (the server
// calls Next() on context 0, where its acceptor runs, and ReleaseWork() there too); Run() once;
// at(), size() and contexts' own functions from any thread.

#ifndef STEADYFLAKE_SAMPLE_SERVER_IO_CONTEXT_POOL_H_
#define STEADYFLAKE_SAMPLE_SERVER_IO_CONTEXT_POOL_H_

#include <cstddef>
#include <memory>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace steadyflake::server {

class IoContextPool {
 public:
  // `size` contexts, each to be run by one thread. REQUIRES: size >= 1.
  explicit IoContextPool(std::size_t size);
  IoContextPool(const IoContextPool&) = delete;
  IoContextPool& operator=(const IoContextPool&) = delete;

  std::size_t size() const { return contexts_.size(); }
  // Context `i`. REQUIRES: i < size(). Context 0 runs on the thread that calls Run().
  boost::asio::io_context& at(std::size_t i) { return *contexts_[i]; }

  // The context for the next connection: 0, 1, ..., size() - 1, 0, ...
  boost::asio::io_context& Next();

  // Runs context 0 on this thread and each other context on a thread of its own; returns when
  // every context has run out of work (after ReleaseWork(), once every connection has closed).
  void Run();

  // Drops the work guards: each context's run() returns once it has nothing left to do.
  void ReleaseWork();

 private:
  using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;

  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<WorkGuard> work_;
  std::size_t next_ = 0;
};

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_IO_CONTEXT_POOL_H_
