// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The server's threading in-process, on 127.0.0.1 port 0: an IoContextPool of two I/O threads,
// the Server (acceptor and connections) and the RequestHandler over a storage that holds its
// answers until the test gives them, from the test's own thread, as the SQLite writer answers
// from its own. What main() adds (signals, the drain deadline) is tested on the real binary in
// server_integration_test.cpp.
//
// Bounded and self-stopping: every socket operation and every wait has a 30 s deadline, and the
// fixture aborts and joins the server's threads if a test did not stop it.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "../test_util.h"
#include "http_client.h"
#include "io_context_pool.h"
#include "manual_generator.h"
#include "request_handler.h"
#include "server.h"
#include "steadyflake/clock.h"
#include "steadyflake/generator.h"
#include "storage.h"

namespace steadyflake::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using steadyflake::testing::kJune2026;

constexpr auto kDeadline = std::chrono::seconds(30);

// Holds every player creation's answer until AnswerAll(); refuses the other writes at once.
class HeldStorage : public Storage {
 public:
  void CreatePlayer(Id, std::string, int64_t, StorageDone done) override {
    std::lock_guard lock(mu_);
    held_.push_back(std::move(done));
    cv_.notify_all();
  }
  void GrantItems(Id, std::vector<ItemGrant>, StorageDone done) override { Refuse(done); }
  void Broadcast(MailBody, uint64_t, IdSource, StorageDone done) override { Refuse(done); }
  void ContinueBroadcast(Id, uint64_t, IdSource, StorageDone done) override { Refuse(done); }

  // True once `n` answers are held; false after 30 s.
  bool WaitForHeld(std::size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kDeadline, [&] { return held_.size() >= n; });
  }
  // Answers every held write with success, on this thread.
  void AnswerAll() {
    std::vector<StorageDone> held;
    {
      std::lock_guard lock(mu_);
      held.swap(held_);
    }
    for (StorageDone& done : held) done(StorageResult{});
  }

 private:
  static void Refuse(const StorageDone& done) {
    StorageResult r;
    r.status = StorageResult::Status::kFailed;
    r.message = "not in this test";
    done(r);
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<StorageDone> held_;  // GUARDED_BY(mu_)
};

using server_test::HttpClient;
using server_test::Reply;

class ServerThreadsTest : public ::testing::Test {
 protected:
  ServerThreadsTest()
      : clock_(kJune2026),
        generator_(server_test::ManualGeneratorOptions(&clock_, 7)),
        handler_(generator_, storage_, HandlerOptions()),
        pool_(2),
        server_(pool_, net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), 0), handler_),
        port_(server_.local_endpoint().port()) {
    std::promise<void> ran;
    run_returned_ = ran.get_future();
    server_.Start();
    runner_ = std::thread([this, ran = std::move(ran)]() mutable {
      pool_.Run();
      ran.set_value();
    });
  }
  ~ServerThreadsTest() override {
    if (!runner_.joinable()) return;
    Shutdown();
    server_.Abort();
    // A server that does not stop fails its test; here it is made to, so the test ends.
    if (!Stopped()) {
      for (std::size_t i = 0; i < pool_.size(); ++i) pool_.at(i).stop();
    }
    runner_.join();
  }

  // True once the pool's Run() returned (every context ran out of work); false after 30 s.
  bool Stopped() { return run_returned_.wait_for(kDeadline) == std::future_status::ready; }

  // Each GET /metrics notes the thread that answered it.
  RequestHandler::Options HandlerOptions() {
    RequestHandler::Options options;
    options.extra_metrics = [this](std::string*) {
      std::lock_guard lock(mu_);
      metrics_threads_.push_back(std::this_thread::get_id());
    };
    return options;
  }
  std::thread::id LastMetricsThread() {
    std::lock_guard lock(mu_);
    return metrics_threads_.empty() ? std::thread::id() : metrics_threads_.back();
  }

  // As main() does: stop accepting, drain, then let the pool's threads finish.
  void Shutdown() {
    server_.Shutdown([this] {
      net::post(pool_.at(0), [this] {
        drained_ = true;
        pool_.ReleaseWork();
      });
    });
  }
  // True once every handler queued on every context before this call has run: first on context
  // 0 (where Shutdown runs and stops the connections), then on each context. False at once if
  // a context stopped first (it runs nothing more), or after 30 s.
  bool Barrier() {
    for (std::size_t i : {std::size_t{0}, std::size_t{0}, std::size_t{1}}) {
      auto ran = std::make_shared<std::promise<void>>();
      std::future<void> done = ran->get_future();
      net::post(pool_.at(i), [ran] { ran->set_value(); });
      const auto deadline = std::chrono::steady_clock::now() + kDeadline;
      while (done.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
        if (pool_.at(i).stopped() || std::chrono::steady_clock::now() > deadline) return false;
      }
    }
    return true;
  }

  SimulatedClock clock_;
  Generator generator_;
  HeldStorage storage_;
  RequestHandler handler_;
  IoContextPool pool_;
  Server server_;
  const uint16_t port_;
  std::future<void> run_returned_;
  std::thread runner_;
  std::atomic<bool> drained_{false};
  std::mutex mu_;
  std::vector<std::thread::id> metrics_threads_;  // GUARDED_BY(mu_)
};

TEST_F(ServerThreadsTest, ConnectionsTakeTurnsOverTheThreadsAndEachStaysOnOne) {
  constexpr int kConnections = 4;
  std::vector<std::unique_ptr<HttpClient>> clients;
  for (int i = 0; i < kConnections; ++i) clients.push_back(std::make_unique<HttpClient>(port_));
  std::vector<std::thread::id> on(kConnections);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kConnections; ++i) {
      ASSERT_EQ(clients[i]->Get("/metrics").status, 200);
      const std::thread::id thread = LastMetricsThread();
      if (round == 0) on[i] = thread;
      EXPECT_EQ(thread, on[i]) << "connection " << i << " moved to another thread";
    }
  }
  // Accepted in order, so given to context 0, 1, 0, 1: two threads, neither the test's.
  EXPECT_NE(on[0], on[1]);
  EXPECT_EQ(on[0], on[2]);
  EXPECT_EQ(on[1], on[3]);
  EXPECT_NE(on[0], std::this_thread::get_id());
  EXPECT_NE(on[1], std::this_thread::get_id());
}

TEST_F(ServerThreadsTest, DrainAnswersTheRequestInFlightFromAnotherThreadThenStops) {
  HttpClient idle(port_);
  ASSERT_EQ(idle.Get("/healthz").status, 200);
  HttpClient busy(port_);  // on the other thread than `idle`
  busy.Write(http::verb::post, "/players", R"({"name":"late"})");
  ASSERT_TRUE(storage_.WaitForHeld(1));

  Shutdown();
  EXPECT_TRUE(idle.ClosedByServer());  // an idle keep-alive connection closes at once
  ASSERT_TRUE(Barrier()) << "an I/O thread stopped with a request in flight";
  EXPECT_FALSE(drained_) << "drained with a request in flight";
  EXPECT_THROW(HttpClient{port_}, boost::system::system_error) << "still accepting";

  storage_.AnswerAll();  // the commit is done: answered from this thread, not the connection's
  const Reply reply = busy.Read();
  EXPECT_EQ(reply.status, 201);
  EXPECT_FALSE(reply.keep_alive) << "a draining server must say Connection: close";
  EXPECT_TRUE(busy.ClosedByServer());
  ASSERT_TRUE(Stopped()) << "the I/O threads did not stop after the drain";
  EXPECT_TRUE(drained_);
}

// An answer given on another thread (the storage's, here this one) is written by the
// connection's own thread: while that thread is held, nothing reaches the client. (A connection
// that wrote from the answering thread would have sent the response before AnswerAll returned.)
TEST_F(ServerThreadsTest, AnAnswerFromAnotherThreadIsWrittenByTheConnectionsThread) {
  HttpClient busy(port_);  // the first connection: context 0
  busy.Write(http::verb::post, "/players", R"({"name":"waits"})");
  ASSERT_TRUE(storage_.WaitForHeld(1));
  std::promise<void> held;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  net::post(pool_.at(0), [&held, released] {
    held.set_value();
    released.wait();
  });
  ASSERT_EQ(held.get_future().wait_for(kDeadline), std::future_status::ready);
  storage_.AnswerAll();
  EXPECT_EQ(busy.Available(), 0u) << "the response was written from the answering thread";
  release.set_value();
  const Reply reply = busy.Read();
  EXPECT_EQ(reply.status, 201);
  EXPECT_TRUE(reply.keep_alive);
}

// The answers come from this thread while the drain stops their connections on theirs, with
// nothing ordering the two: each is written on its connection's thread all the same (under
// TSan, a connection that wrote from the answering thread would race with its Stop()).
TEST_F(ServerThreadsTest, AnswersRacingTheDrainAreEachWrittenThenTheConnectionCloses) {
  constexpr int kConnections = 4;
  std::vector<std::unique_ptr<HttpClient>> clients;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(std::make_unique<HttpClient>(port_));
    clients.back()->Write(http::verb::post, "/players",
                          R"({"name":"racer)" + std::to_string(i) + R"("})");
  }
  ASSERT_TRUE(storage_.WaitForHeld(kConnections));
  Shutdown();
  storage_.AnswerAll();
  for (int i = 0; i < kConnections; ++i) {
    EXPECT_EQ(clients[i]->Read().status, 201) << "connection " << i;
    EXPECT_TRUE(clients[i]->ClosedByServer()) << "connection " << i;
  }
  ASSERT_TRUE(Stopped()) << "the I/O threads did not stop after the drain";
  EXPECT_TRUE(drained_);
}

TEST_F(ServerThreadsTest, AbortClosesTheRequestInFlightAndALateAnswerIsDropped) {
  HttpClient busy(port_);
  busy.Write(http::verb::post, "/players", R"({"name":"never"})");
  ASSERT_TRUE(storage_.WaitForHeld(1));
  Shutdown();
  server_.Abort();  // the drain took too long
  EXPECT_TRUE(busy.ClosedByServer());
  ASSERT_TRUE(Stopped()) << "the I/O threads did not stop after the abort";
  EXPECT_TRUE(drained_);
  storage_.AnswerAll();  // after the threads stopped: queued on a stopped context, never run
}

}  // namespace
}  // namespace steadyflake::server
