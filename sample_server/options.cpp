// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "options.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include <boost/asio/ip/address.hpp>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "registry_flags.h"
#include "steadyflake/error.h"

namespace steadyflake::server {

namespace po = boost::program_options;

namespace {

constexpr unsigned kMaxThreads = 256;

std::optional<uint64_t> ParseUnsigned(std::string_view text, uint64_t max) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > max) {
    return std::nullopt;
  }
  return value;
}

po::options_description Describe() {
  po::options_description options("Options");
  options.add_options()("server-id", po::value<std::string>(),
                        "required: this server's (shard's) id; unique among servers that may "
                        "ever be merged")("db", po::value<std::string>(),
                                          "required: the SQLite database (created if missing)")(
      "listen", po::value<std::string>(),
      "required: HOST:PORT to listen on, e.g. 127.0.0.1:8080; PORT 0 picks a free port")(
      "state-dir", po::value<std::string>(),
      "folder of the generator's state file (default: the database's folder)")(
      "layout", po::value<std::string>()->default_value("game"),
      "ID layout: game, snowflake or T/S/Q@<n>ms")(
      "threads", po::value<std::string>(),
      "I/O threads (default: the number of cores, at most 256)")(
      "allow-remote", "allow a HOST that is not a loopback address")("help,h", "print this help");
  cli::AddRegistryOptions(options);
  return options;
}

}  // namespace

std::string ServerUsage() {
  std::ostringstream out;
  out << "Usage: steadyflake-server --server-id N --db PATH --listen HOST:PORT\n"
         "                          [--state-dir D] [--layout L] [--threads K] [--allow-remote]\n"
         "       steadyflake-server --registry URL[,URL...] [--registry-prefix P]\n"
         "                          --server-id N|auto [--server-range LO-HI] [--lease-ttl-ms T]\n"
         "                          --db PATH --listen HOST:PORT [--layout L] ...\n"
         "\n"
         "A sample game server: HTTP/1.1 + JSON over SQLite, IDs from one steadyflake\n"
         "generator. Prints 'listening on HOST:PORT' when ready; SIGINT/SIGTERM drain and stop.\n"
         "With --registry the server id is claimed on etcd at start (refused, naming the\n"
         "holder, when another process has it) and the reserved time lives there.\n"
         "Exit status: 0 stopped by a signal; 1 could not start; 2 bad command line;\n"
         "3 the server id was lost (--registry).\n\n"
      << Describe();
  return out.str();
}

ServerOptions ParseServerOptions(const std::vector<std::string>& args) {
  const po::options_description options = Describe();
  po::variables_map vm;
  try {
    cli::ParseArgs("steadyflake-server", "", args, options, nullptr, vm);
  } catch (const cli::CliError& e) {
    throw UsageError(e.what());
  }
  ServerOptions out;
  if (vm.count("help") != 0) {
    out.help = true;
    return out;
  }
  for (const char* required : {"server-id", "db", "listen"}) {
    if (vm.count(required) == 0) {
      throw UsageError(std::string("missing --") + required +
                       "; run 'steadyflake-server --help' for the usage");
    }
  }

  try {
    out.layout = Layout::Parse(vm["layout"].as<std::string>());
  } catch (const Error& e) {
    throw UsageError(std::string("bad --layout: ") + e.what());
  }
  try {
    out.registry = cli::ReadRegistryOptions(vm, "steadyflake-server");
  } catch (const cli::CliError& e) {
    throw UsageError(e.what());
  }
  const std::string& id_text = vm["server-id"].as<std::string>();
  out.server_id_text = id_text;
  if (vm.count("server-range") != 0) out.server_range = vm["server-range"].as<std::string>();
  if (out.registry && vm.count("state-dir") != 0) {
    throw UsageError(
        "--registry and --state-dir contradict each other; with --registry the reserved time "
        "lives on etcd: drop --state-dir");
  }
  if (!out.registry && id_text == "auto") {
    throw UsageError(
        "--server-id auto needs --registry; pass --registry http://HOST:PORT, or a "
        "server id in [0, " +
        std::to_string(out.layout.max_server_id()) + "]");
  }
  // The layout owns the server-id rule; this only reads the number and passes on its message.
  // `auto` (with --registry) is resolved by the claim at start.
  if (id_text != "auto") {
    const auto id = ParseUnsigned(id_text, UINT64_MAX);
    const std::string range = "[0, " + std::to_string(out.layout.max_server_id()) + "]";
    if (!id) {
      throw UsageError("bad --server-id '" + id_text + "': not an integer in " + range +
                       "; pass the id operations assigned to this server");
    }
    try {
      out.layout.CheckServerId(*id);
    } catch (const Error& e) {
      throw UsageError(std::string("bad --server-id: ") + e.what());
    }
    out.server_id = *id;
  }

  out.db = vm["db"].as<std::string>();
  if (out.db.empty()) throw UsageError("empty --db; pass the path of the SQLite database");
  if (out.registry) {
    // No state file: the reservation lives on etcd.
  } else if (vm.count("state-dir") != 0) {
    out.state_dir = vm["state-dir"].as<std::string>();
  } else {
    const std::filesystem::path parent = std::filesystem::path(out.db).parent_path();
    out.state_dir = parent.empty() ? "." : parent.string();
  }

  const std::string& listen = vm["listen"].as<std::string>();
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) {
    throw UsageError("bad --listen '" + listen + "': expected HOST:PORT, e.g. 127.0.0.1:8080");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  if (ec) {
    throw UsageError("bad --listen '" + listen +
                     "': HOST must be an IP address, e.g. 127.0.0.1 or [::1]");
  }
  const auto port = ParseUnsigned(std::string_view(listen).substr(colon + 1), 65535);
  if (!port) {
    throw UsageError("bad --listen '" + listen + "': PORT must be an integer in [0, 65535]");
  }
  out.allow_remote = vm.count("allow-remote") != 0;
  if (!address.is_loopback() && !out.allow_remote) {
    throw UsageError("refusing to listen on " + host +
                     ", which is not a loopback address: the server has no authentication; "
                     "pass --allow-remote if it is behind a firewall you trust");
  }
  out.host = address.to_string();
  out.port = static_cast<uint16_t>(*port);

  out.threads = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
  if (vm.count("threads") != 0) {
    const std::string& text = vm["threads"].as<std::string>();
    const auto threads = ParseUnsigned(text, kMaxThreads);
    if (!threads || *threads == 0) {
      throw UsageError("bad --threads '" + text + "': must be an integer in [1, " +
                       std::to_string(kMaxThreads) + "]");
    }
    out.threads = static_cast<unsigned>(*threads);
  }
  return out;
}

}  // namespace steadyflake::server
