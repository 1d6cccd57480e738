// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The real steadyflake-server binary on 127.0.0.1, port 0, talked to over HTTP/1.1 keep-alive
// with a Beast client: every route, bad requests on the wire, concurrent clients, SIGTERM, and
// restarts (also with the wall clock set back an hour by libfaketime).
//
// Bounded and self-stopping: a server is waited for by reading its "listening on" line (30 s
// deadline), every socket operation has a 30 s timeout, and the ServerProcess destructor kills
// and reaps a server that is still running.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "../test_util.h"
#include "http_client.h"
#include "steadyflake/layout.h"

extern char** environ;

namespace steadyflake::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using nlohmann::json;
using steadyflake::testing::ReadFile;
using steadyflake::testing::TempDir;

constexpr auto kDeadline = std::chrono::seconds(30);

// A steadyflake-server child process. Start() returns once it printed "listening on".
class ServerProcess {
 public:
  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }

  // Starts the server with `args`, extra environment `env` ("NAME=value"), stderr to
  // `stderr_path`. Returns the port, or fails the test.
  uint16_t Start(const std::vector<std::string>& args, const std::string& stderr_path,
                 const std::vector<std::string>& env = {}) {
    return Spawn(args, stderr_path, env, /*expect_listen=*/true);
  }

  // Starts a server that must fail to start; returns its exit status.
  int StartExpectingFailure(const std::vector<std::string>& args, const std::string& stderr_path) {
    if (Spawn(args, stderr_path, {}, /*expect_listen=*/false) != 0) {
      ADD_FAILURE() << "the server started";
      return -1;
    }
    return Wait();
  }

 private:
  uint16_t Spawn(const std::vector<std::string>& args, const std::string& stderr_path,
                 const std::vector<std::string>& env, bool expect_listen) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2 failed";
      return 0;
    }
    std::vector<std::string> argv_text = {STEADYFLAKE_SERVER_BINARY};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text;
    // `env` replaces variables of the same name (getenv would find the first of two).
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view entry(*e);
      const std::string_view name = entry.substr(0, entry.find('=') + 1);
      if (std::none_of(env.begin(), env.end(),
                       [&](const std::string& mine) { return mine.starts_with(name); })) {
        env_text.emplace_back(entry);
      }
    }
    env_text.insert(env_text.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // The child: only async-signal-safe calls until execve. PR_SET_PDEATHSIG kills the server
      // if this test process dies before its destructor could (a crash, an abort).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(pipe_fds[1], STDOUT_FILENO);
      ::dup2(err, STDERR_FILENO);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(err);
    ::close(pipe_fds[1]);
    out_ = pipe_fds[0];
    if (pid_ < 0) {
      pid_ = -1;
      ADD_FAILURE() << "cannot start " << argv[0];
      return 0;
    }
    // Read stdout until the first line is complete.
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{out_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        ADD_FAILURE() << "no 'listening on' line within 30 s; stderr: " << ReadFile(stderr_path);
        return 0;
      }
      char buffer[256];
      const ssize_t n = ::read(out_, buffer, sizeof(buffer));
      if (n <= 0) {
        if (expect_listen) {
          ADD_FAILURE() << "server exited before listening; stderr: " << ReadFile(stderr_path);
        }
        return 0;
      }
      line.append(buffer, static_cast<std::size_t>(n));
    }
    const std::string prefix = "listening on 127.0.0.1:";
    if (line.rfind(prefix, 0) != 0) {
      ADD_FAILURE() << "first line is '" << line << "'";
      return 0;
    }
    return static_cast<uint16_t>(std::stoi(line.substr(prefix.size())));
  }

 public:
  // Sends `signal` and waits (bounded) for the exit. Returns the exit status, or -1 if it did
  // not exit normally in time.
  int Stop(int signal = SIGTERM) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, signal);
    return Wait();
  }

  // Waits (bounded) for the process to exit by itself; its exit status, or -1.
  int Wait() {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::chrono::milliseconds(kDeadline).count()));
      ::close(pidfd);
    }
    int status = 0;
    if (::waitpid(pid_, &status, pidfd >= 0 ? WNOHANG : 0) != pid_) return -1;  // dtor kills
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

using server_test::HttpClient;
using server_test::Reply;

Id IdOf(const json& value) { return std::stoll(value.get<std::string>()); }

class ServerTest : public ::testing::Test {
 protected:
  std::vector<std::string> Args(uint64_t server_id, const std::string& db,
                                const std::string& state_dir = "") {
    std::vector<std::string> args = {"--server-id", std::to_string(server_id),
                                     "--db",        dir_.path() + "/" + db,
                                     "--listen",    "127.0.0.1:0",
                                     "--threads",   "2"};
    if (!state_dir.empty()) {
      args.push_back("--state-dir");
      args.push_back(dir_.path() + "/" + state_dir);
    }
    return args;
  }
  std::string Log(const std::string& name) const { return dir_.path() + "/" + name + ".log"; }

  TempDir dir_;
};

TEST_F(ServerTest, EveryRouteOverOneKeepAliveConnection) {
  ServerProcess server;
  const uint16_t port = server.Start(Args(101, "a.db"), Log("a"));
  ASSERT_NE(port, 0);
  HttpClient client(port);

  Reply r = client.Get("/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.keep_alive);

  r = client.Post("/players", R"({"name":"alice"})");
  ASSERT_EQ(r.status, 201) << r.body;
  const json alice = r.Json();
  EXPECT_EQ(alice["name"], "alice");
  EXPECT_EQ(alice["level"], 1);
  const Id alice_id = IdOf(alice["id"]);
  EXPECT_EQ(Layout::Game().Decode(alice_id).server_id, 101u);

  EXPECT_EQ(client.Post("/players", R"({"name":"alice"})").status, 409);
  ASSERT_EQ(client.Post("/players", R"({"name":"bob"})").status, 201);

  r = client.Post("/players/" + std::to_string(alice_id) + "/items",
                  R"([{"template":7,"count":2},{"template":8,"count":1}])");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json()["ids"].size(), 2u);
  EXPECT_EQ(client.Post("/players/1/items", R"({"template":7,"count":2})").status, 404);

  r = client.Post("/mail/broadcast", R"({"subject":"welcome","body":"hi"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["sent"], 2);
  EXPECT_EQ(r.Json()["done"], true);
  // The next page of a finished broadcast: nobody new to mail.
  r = client.Post("/mail/broadcast", json{{"body_id", r.Json()["body_id"]}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["sent"], 0);
  EXPECT_EQ(r.Json()["done"], true);

  r = client.Get("/ids?count=5");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json()["ids"].size(), 5u);

  r = client.Get("/ids/" + std::to_string(alice_id));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json()["server_id"], 101);
  EXPECT_EQ(r.Json()["id"], std::to_string(alice_id));

  r = client.Get("/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["Content-Type"].rfind("text/plain; version=0.0.4", 0), 0u);
  // 3 players (the 409 burns one), 2 + 1 items (the 404 burns one), a mail body and 2 mails,
  // 5 IDs.
  EXPECT_NE(r.body.find("steadyflake_ids_issued_total 14\n"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("steadyflake_clock_skew_seconds "), std::string::npos);
  EXPECT_NE(r.body.find("steadyflake_lead_seconds "), std::string::npos);
  EXPECT_NE(r.body.find(R"(steadyflake_http_requests_total{route="/players",status="201"} 2)"),
            std::string::npos);

  EXPECT_EQ(server.Stop(), 0) << ReadFile(Log("a"));
}

TEST_F(ServerTest, BadRequestsGet4xxAndTheServerCarriesOn) {
  ServerProcess server;
  const uint16_t port = server.Start(Args(102, "b.db"), Log("b"));
  ASSERT_NE(port, 0);
  {
    HttpClient client(port);
    EXPECT_EQ(client.Post("/players", "{\"name\":").status, 400);      // malformed JSON
    EXPECT_EQ(client.Post("/players", R"({"name":42})").status, 400);  // wrong type
    EXPECT_EQ(client.Get("/nowhere").status, 404);
    Reply r = client.Send(http::verb::delete_, "/players");
    EXPECT_EQ(r.status, 405);
    EXPECT_EQ(r.headers["Allow"], "POST");
    EXPECT_EQ(client.Get("/ids/not-an-id").status, 400);
    EXPECT_EQ(client.Get("/ids?count=10001").status, 400);
    r = client.Get("/healthz");  // the same connection still works
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.keep_alive);
  }
  {
    HttpClient client(port);
    const Reply r = client.Post("/players", std::string((1 << 20) + 1, 'x'));
    EXPECT_EQ(r.status, 413);
    EXPECT_NE(r.Json()["error"].get<std::string>().find("1 MiB"), std::string::npos);
    EXPECT_FALSE(r.keep_alive);
    EXPECT_TRUE(client.ClosedByServer());
  }
  {
    HttpClient client(port);  // exactly 1 MiB is allowed (and is bad JSON)
    EXPECT_EQ(client.Post("/players", std::string(1 << 20, 'x')).status, 400);
  }
  {
    HttpClient client(port);
    const Reply r = client.Raw("NOT HTTP AT ALL\r\n\r\n");
    EXPECT_EQ(r.status, 400);
    EXPECT_TRUE(client.ClosedByServer());
  }
  {
    HttpClient client(port);
    const Reply r = client.Raw("GET /healthz HTTP/1.1\r\nHost: x\r\nX: " + std::string(20000, 'a') +
                               "\r\n\r\n");
    EXPECT_EQ(r.status, 400);
  }
  HttpClient client(port);
  EXPECT_EQ(client.Get("/healthz").status, 200);
  const std::string metrics = client.Get("/metrics").body;
  EXPECT_NE(metrics.find(R"(steadyflake_http_requests_total{route="other",status="413"} 1)"),
            std::string::npos)
      << metrics;
  EXPECT_EQ(server.Stop(), 0) << ReadFile(Log("b"));
}

TEST_F(ServerTest, ConcurrentClientsGetDistinctIncreasingIds) {
  ServerProcess server;
  const uint16_t port = server.Start(Args(103, "c.db"), Log("c"));
  ASSERT_NE(port, 0);
  constexpr int kThreads = 4;
  constexpr int kRequests = 200;
  std::vector<std::vector<Id>> ids(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        HttpClient client(port);
        for (int i = 0; i < kRequests; ++i) {
          const Reply r =
              i % 2 == 0 ? client.Post("/players", json{{"name", std::string("t")
                                                                     .append(std::to_string(t))
                                                                     .append("-")
                                                                     .append(std::to_string(i))}}
                                                       .dump())
                         : client.Get("/ids?count=3");
          if (r.status != (i % 2 == 0 ? 201 : 200)) {
            ++failures;
            continue;
          }
          const json body = r.Json();
          if (body.contains("id")) {
            ids[t].push_back(IdOf(body["id"]));
          } else {
            for (const json& id : body["ids"]) ids[t].push_back(IdOf(id));
          }
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::set<Id> all;
  for (const auto& per_thread : ids) {
    // Each client sees its IDs increase: requests on a connection are answered in order.
    for (std::size_t i = 1; i < per_thread.size(); ++i) EXPECT_LT(per_thread[i - 1], per_thread[i]);
    all.insert(per_thread.begin(), per_thread.end());
  }
  EXPECT_EQ(all.size(), std::size_t{kThreads} * (kRequests / 2) * 4);
  EXPECT_EQ(server.Stop(), 0) << ReadFile(Log("c"));
}

// The largest IDs a run issued: of the players it created (stored in the database), and of
// those and 100 from /ids (in no table: only the state file covers them).
struct Issued {
  Id stored = 0;
  Id any = 0;
};
Issued RunAndIssue(uint16_t port, const std::string& name_prefix) {
  HttpClient client(port);
  Issued largest;
  for (int i = 0; i < 20; ++i) {
    const Reply r = client.Post("/players", json{{"name", name_prefix + std::to_string(i)}}.dump());
    EXPECT_EQ(r.status, 201) << r.body;
    if (r.status == 201) largest.stored = std::max(largest.stored, IdOf(r.Json()["id"]));
  }
  largest.any = largest.stored;
  const Reply r = client.Get("/ids?count=100");
  EXPECT_EQ(r.status, 200);
  const json body = r.Json();  // a named value: the loop must not outlive a temporary
  for (const json& id : body["ids"]) largest.any = std::max(largest.any, IdOf(id));
  return largest;
}

Id SmallestNewId(uint16_t port, const std::string& name) {
  HttpClient client(port);
  const Reply r = client.Post("/players", json{{"name", name}}.dump());
  EXPECT_EQ(r.status, 201) << r.body;
  return r.status == 201 ? IdOf(r.Json()["id"]) : 0;
}

TEST_F(ServerTest, SigtermExitsZeroAndReleasesTheStateFile) {
  ServerProcess first;
  const uint16_t port = first.Start(Args(104, "d.db"), Log("d1"));
  ASSERT_NE(port, 0);
  HttpClient idle(port);  // an idle keep-alive connection must not hold the stop up
  EXPECT_EQ(idle.Get("/healthz").status, 200);
  // A second server with the same server id and state folder is refused while the first runs.
  ServerProcess clash;
  EXPECT_EQ(clash.StartExpectingFailure(Args(104, "other.db", "."), Log("clash")), 1);
  EXPECT_NE(ReadFile(Log("clash")).find("another server with this --server-id"), std::string::npos)
      << ReadFile(Log("clash"));
  EXPECT_EQ(first.Stop(SIGTERM), 0);
  EXPECT_TRUE(idle.ClosedByServer());
  EXPECT_NE(ReadFile(Log("d1")).find("stopped after issuing"), std::string::npos);
  ServerProcess second;
  ASSERT_NE(second.Start(Args(104, "d.db"), Log("d2")), 0);
  EXPECT_EQ(second.Stop(SIGINT), 0);
}

TEST_F(ServerTest, RestartResumesAboveTheLargestId) {
  Issued largest;
  {
    ServerProcess server;
    const uint16_t port = server.Start(Args(105, "e.db"), Log("e1"));
    ASSERT_NE(port, 0);
    largest = RunAndIssue(port, "e");
    ASSERT_EQ(server.Stop(), 0);
  }
  ServerProcess server;
  const uint16_t port = server.Start(Args(105, "e.db"), Log("e2"));
  ASSERT_NE(port, 0);
  EXPECT_GT(SmallestNewId(port, "after-restart"), largest.any);
  EXPECT_EQ(server.Stop(), 0);
}

// Runs the server with its wall clock an hour behind (libfaketime), or returns false.
std::vector<std::string> HourBehind() {
  const std::string lib = STEADYFLAKE_LIBFAKETIME;
  if (lib.empty()) return {};
  std::string asan = "verify_asan_link_order=0";  // libfaketime is preloaded before ASan
  if (const char* old = std::getenv("ASAN_OPTIONS")) asan = std::string(old) + ":" + asan;
  return {"LD_PRELOAD=" + lib, "FAKETIME=-1h", "FAKETIME_DONT_FAKE_MONOTONIC=1",
          "ASAN_OPTIONS=" + asan};
}

TEST_F(ServerTest, RestartWithTheClockSetBackResumesAboveTheLargestId) {
  const std::vector<std::string> behind = HourBehind();
  if (behind.empty()) GTEST_SKIP() << "libfaketime not found";
  Issued largest;
  {
    ServerProcess server;
    const uint16_t port = server.Start(Args(106, "f.db", "state"), Log("f1"));
    ASSERT_NE(port, 0);
    largest = RunAndIssue(port, "f");
    ASSERT_EQ(server.Stop(), 0);
  }
  // The test has teeth: an hour behind, on a fresh database and state folder, IDs are smaller.
  {
    ServerProcess server;
    const uint16_t port = server.Start(Args(106, "fresh.db", "fresh-state"), Log("f0"), behind);
    ASSERT_NE(port, 0);
    const Id id = SmallestNewId(port, "x");
    ASSERT_EQ(server.Stop(), 0);
    if (id >= largest.stored) GTEST_SKIP() << "libfaketime did not set the clock back";
  }
  // The state file alone would do; here a fresh state folder leaves only the database.
  {
    ServerProcess server;
    const uint16_t port = server.Start(Args(106, "f.db", "state2"), Log("f2"), behind);
    ASSERT_NE(port, 0) << ReadFile(Log("f2"));
    const Id id = SmallestNewId(port, "db-only");
    // Above every stored ID; /ids from run 1 are in no table, so this run may reuse their
    // ticks: that is what the state file is for (docs/server.md).
    EXPECT_GT(id, largest.stored) << "resumed from the database";
    largest = RunAndIssue(port, "g");
    ASSERT_EQ(server.Stop(), 0);
  }
  // And with the state file too (which also covers IDs from /ids, in no table).
  ServerProcess server;
  const uint16_t port = server.Start(Args(106, "f.db", "state2"), Log("f3"), behind);
  ASSERT_NE(port, 0) << ReadFile(Log("f3"));
  HttpClient client(port);
  const Reply r = client.Get("/ids?count=1");
  ASSERT_EQ(r.status, 200);
  EXPECT_GT(IdOf(r.Json()["ids"][0]), largest.any);
  EXPECT_EQ(server.Stop(), 0);
}

TEST_F(ServerTest, RefusesRemoteAddressAndBadOptions) {
  ServerProcess remote;
  std::vector<std::string> args = {"--server-id",         "1",        "--db",
                                   dir_.path() + "/r.db", "--listen", "0.0.0.0:0"};
  EXPECT_EQ(remote.StartExpectingFailure(args, Log("r")), 2);
  EXPECT_NE(ReadFile(Log("r")).find("not a loopback address"), std::string::npos);
}

}  // namespace
}  // namespace steadyflake::server
