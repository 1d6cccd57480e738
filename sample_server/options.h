// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// The command line of steadyflake-server (docs/server.md):
//   steadyflake-server --server-id N --db PATH --listen HOST:PORT [--state-dir D] [--layout L]
//                      [--threads K] [--allow-remote]
//   steadyflake-server --registry URL[,URL...] [--registry-prefix P] --server-id N|auto
//                      [--server-range LO-HI] [--lease-ttl-ms T] --db PATH --listen HOST:PORT ...

#ifndef STEADYFLAKE_SAMPLE_SERVER_OPTIONS_H_
#define STEADYFLAKE_SAMPLE_SERVER_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.h"
#include "steadyflake/layout.h"
#include "steadyflake/registry/registry.h"

namespace steadyflake::server {

// Exit statuses, documented in docs/server.md.
inline constexpr int kExitOk = 0;           // stopped by SIGINT/SIGTERM after draining
inline constexpr int kExitStartFailed = 1;  // database, state file, or listen address
inline constexpr int kExitUsage = 2;        // bad command line
inline constexpr int kExitLost = 3;         // --registry: the server id was lost while running

// A bad command line. what() is one line: "<problem>; <fix>". The same type as the CLI's, so
// both binaries word a mistake alike (cli_support/command_line.h).
class UsageError : public cli::CliError {
 public:
  explicit UsageError(const std::string& problem_and_fix) : CliError(problem_and_fix, "") {}
};

struct ServerOptions {
  bool help = false;       // --help: print the usage and exit 0; nothing else is set
  uint64_t server_id = 0;  // without --registry; with it, claimed at start
  std::string db;
  std::string host;       // an IP address literal; loopback unless allow_remote
  uint16_t port = 0;      // 0: any free port
  std::string state_dir;  // --state-dir, else the database's folder
  Layout layout = Layout::Game();
  unsigned threads = 1;  // I/O threads
  bool allow_remote = false;
  // --registry: the server id is claimed on etcd at start (docs/fleet.md) and the reservation
  // lives there; state_dir is then empty.
  std::optional<registry::Options> registry;
  std::string server_id_text;               // --server-id as given: a number, or "auto"
  std::optional<std::string> server_range;  // --server-range LO-HI, with --server-id auto
};

// Parses argv without the program name. Throws UsageError. Checks that the server id fits the
// layout, and that HOST is a loopback address unless --allow-remote is given.
ServerOptions ParseServerOptions(const std::vector<std::string>& args);

// The --help text.
std::string ServerUsage();

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_OPTIONS_H_
