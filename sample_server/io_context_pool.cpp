// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "io_context_pool.h"

#include <cassert>
#include <thread>

namespace steadyflake::server {

IoContextPool::IoContextPool(std::size_t size) {
  assert(size >= 1 && "a server needs at least one I/O thread");
  contexts_.reserve(size);
  work_.reserve(size);
  for (std::size_t i = 0; i < size; ++i) {
    // 1: one thread runs this context (see the header).
    contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
    work_.push_back(boost::asio::make_work_guard(*contexts_.back()));
  }
}

boost::asio::io_context& IoContextPool::Next() {
  boost::asio::io_context& context = *contexts_[next_];
  next_ = (next_ + 1) % contexts_.size();
  return context;
}

void IoContextPool::Run() {
  std::vector<std::thread> threads;
  threads.reserve(contexts_.size() - 1);
  for (std::size_t i = 1; i < contexts_.size(); ++i) {
    threads.emplace_back([context = contexts_[i].get()] { context->run(); });
  }
  contexts_[0]->run();
  for (std::thread& t : threads) t.join();
}

void IoContextPool::ReleaseWork() {
  for (WorkGuard& work : work_) work.reset();
}

}  // namespace steadyflake::server
