// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// steadyflake-server: a sample game server that links the engine (docs/server.md).
// main() wires the parts together: options, SQLite storage, one generator that resumes after
// the database's largest ID of its server id and honours its state file, the request handler,
// and the acceptor on a pool of I/O threads, one io_context each (io_context_pool.h).
// SIGINT/SIGTERM stop accepting, answer what is in flight, commit, release the state file and exit
// 0 (a second signal, or 10 s, cuts the drain short). Exit status: 0 stopped by a signal; 1 could
// not start; 2 bad command line; 3 the server id was lost (--registry).

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "io_context_pool.h"
#include "metrics.h"
#include "options.h"
#include "registry_flags.h"
#include "request_handler.h"
#include "server.h"
#include "sqlite_storage.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"

namespace steadyflake::server {
namespace {

namespace net = boost::asio;

// How long a graceful stop waits for requests in flight before closing their connections.
constexpr std::chrono::seconds kDrainTimeout{10};

void Log(const std::string& line) {
  std::fprintf(stderr, "steadyflake-server: %s\n", line.c_str());
}

std::string GeneratorFix(const Error& e) {
  switch (e.code()) {
    case Error::Code::kLocked:
      return "another server with this --server-id uses this state folder; stop it first, "
             "never run two servers with one server id";
    case Error::Code::kState:
      return "the state file is never replaced automatically: start with the --layout and "
             "--server-id it was written with, or fix its permissions";
    case Error::Code::kClock:
      return "check the system clock, --layout and the IDs in --db";
    case Error::Code::kLost:
      return "another server owns this --server-id now; start again with a free one";
    case Error::Code::kInvalidArgument:
      break;
  }
  return "run 'steadyflake-server --help' for the options";
}

int Run(const ServerOptions& options) {
  // --registry: claim the server id on etcd before anything else, so a refused server never
  // touched its database or issued an ID.
  uint64_t server_id = options.server_id;
  std::shared_ptr<registry::EtcdStore> fleet;
  if (options.registry) {
    try {
      fleet = cli::ClaimServerId(*options.registry, options.layout, options.server_id_text,
                                 options.server_range, "steadyflake-server");
    } catch (const cli::CliError& e) {
      Log(std::string("cannot claim the server id on etcd: ") + e.what());
      return kExitStartFailed;
    }
    server_id = fleet->server_id();
  }

  std::unique_ptr<SqliteStorage> storage;
  Id resume_after = 0;
  try {
    storage = std::make_unique<SqliteStorage>(options.db);
    resume_after = storage->LargestIdOf(options.layout, server_id);
  } catch (const StorageError& e) {
    Log(e.what());
    return kExitStartFailed;
  }

  Generator::Options generator_options;
  generator_options.layout = options.layout;
  generator_options.server_id = server_id;
  generator_options.state_dir = options.state_dir;  // empty with --registry
  generator_options.reservation_store = fleet;
  generator_options.resume_after = resume_after;
  std::unique_ptr<Generator> generator;
  try {
    generator = std::make_unique<Generator>(generator_options);
  } catch (const Error& e) {
    Log(std::string("cannot start the ID generator: ") + e.what() + "; " + GeneratorFix(e));
    return kExitStartFailed;
  }

  RequestHandler::Options handler_options;
  SqliteStorage* const db = storage.get();
  const registry::EtcdStore* const etcd = fleet.get();
  handler_options.extra_metrics = [db, etcd](std::string* out) {
    AppendMetric(*out, "steadyflake_db_transactions_total", MetricType::kCounter,
                 "SQLite transactions committed.", std::to_string(db->transactions()));
    AppendMetric(*out, "steadyflake_db_operations_total", MetricType::kCounter,
                 "Writes committed in those transactions.", std::to_string(db->operations()));
    if (etcd != nullptr) {
      AppendMetric(*out, "steadyflake_registry_errors_total", MetricType::kCounter,
                   "Failed calls to etcd (keep-alives and reservation extensions).",
                   std::to_string(etcd->errors()));
    }
  };
  handler_options.log_error = [](const std::string& line) { Log(line); };
  RequestHandler handler(*generator, *storage, handler_options);

  {
    IoContextPool pool(options.threads);
    std::optional<Server> server;
    const net::ip::tcp::endpoint endpoint(net::ip::make_address(options.host), options.port);
    try {
      server.emplace(pool, endpoint, handler);
    } catch (const boost::system::system_error& e) {
      Log("cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " +
          e.code().message() + "; choose another port, or port 0 for any free one");
      return kExitStartFailed;
    }

    // The signal set, the drain timer and the work guards live on context 0, whose one thread
    // (this one, in pool.Run()) serializes them.
    net::io_context& control = pool.at(0);
    net::signal_set signals(control, SIGINT, SIGTERM);
    net::steady_timer drain_deadline(control);
    net::steady_timer lost_check(control);
    const auto finish = [&] {
      lost_check.cancel();
      drain_deadline.cancel();
      signals.cancel();
      pool.ReleaseWork();
    };
    signals.async_wait([&](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      Log("signal " + std::to_string(signal) + ": stopped accepting; answering requests in flight");
      server->Shutdown([&] { net::post(control, finish); });
      drain_deadline.expires_after(kDrainTimeout);
      drain_deadline.async_wait([&](const boost::system::error_code& wait_ec) {
        if (wait_ec) return;
        Log("requests still in flight after " + std::to_string(kDrainTimeout.count()) +
            " s; closing their connections");
        server->Abort();
        finish();
      });
      // A second signal cuts the drain short.
      signals.async_wait([&](const boost::system::error_code& again_ec, int) {
        if (again_ec) return;
        Log("second signal: closing every connection");
        server->Abort();
        finish();
      });
    });
    // --registry: once the server id is lost (its lease expired and another process may own
    // it), stop at once. The generator issues nothing past its reservation, so requests would
    // wait for good; exiting names the cause and lets the supervisor restart with a free id.
    std::function<void()> watch_lost = [&] {
      lost_check.expires_after(std::chrono::milliseconds(500));
      lost_check.async_wait([&](const boost::system::error_code& ec) {
        if (ec) return;
        if (generator->lost()) {
          Log("lost server id " + std::to_string(server_id) + ": " + generator->state_error() +
              "; exiting with status " + std::to_string(kExitLost) +
              " (restart with --server-id auto, or once the id is free)");
          std::fflush(stderr);
          std::_Exit(kExitLost);
        }
        watch_lost();
      });
    };
    if (fleet) watch_lost();
    server->Start();

    const auto bound = server->local_endpoint();
    const std::string host = bound.address().is_v6() ? "[" + bound.address().to_string() + "]"
                                                     : bound.address().to_string();
    std::printf("listening on %s:%u\n", host.c_str(), static_cast<unsigned>(bound.port()));
    std::fflush(stdout);

    pool.Run();
    // Every connection is closed; commit whatever is queued, then close the database.
    storage->Close();
  }
  const uint64_t issued = generator->stats().issued;
  // Releases the state file, recording the last tick used.
  generator.reset();
  Log("stopped after issuing " + std::to_string(issued) + " IDs");
  return kExitOk;
}

}  // namespace
}  // namespace steadyflake::server

int main(int argc, char** argv) {
  using namespace steadyflake::server;
  const std::vector<std::string> args(argv + 1, argv + argc);
  ServerOptions options;
  try {
    options = ParseServerOptions(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "steadyflake-server: %s\n", e.what());
    return kExitUsage;
  }
  if (options.help) {
    std::fputs(ServerUsage().c_str(), stdout);
    return kExitOk;
  }
  try {
    return Run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "steadyflake-server: %s\n", e.what());
    return kExitStartFailed;
  }
}
