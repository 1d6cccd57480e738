// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "registry_flags.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "command_line.h"
#include "steadyflake/error.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

std::vector<std::string> SplitEndpoints(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) parts.push_back(std::move(part));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

void ThrowRegistryError(const Error& e, std::string_view help) {
  std::string fix;
  switch (e.code()) {
    case Error::Code::kLocked:
      fix = "stop that process, or use --server-id auto [--server-range LO-HI] for a free id";
      break;
    case Error::Code::kInvalidArgument:
      fix = "run '" + std::string(help) + " --help' for the registry options";
      break;
    default:
      fix = "check --registry and that etcd is running";
      break;
  }
  const std::string message = e.what();
  throw CliError(message, message.find("; ") != std::string::npos ? std::string() : fix);
}

void AddRegistryOptions(po::options_description& options) {
  options.add_options()("registry", po::value<std::string>(),
                        "etcd client URLs, http://HOST:PORT[,...]: claim the server id there "
                        "with a lease and keep the reserved time there instead of a state file "
                        "(docs/fleet.md)")(
      "registry-prefix", po::value<std::string>()->default_value("/steadyflake/default"),
      "etcd key prefix: one per game and region")(
      "server-range", po::value<std::string>(),
      "with --server-id auto: claim the lowest free id in LO-HI (default: the layout's whole "
      "range)")("lease-ttl-ms", po::value<std::string>(),
                "the server id's etcd lease (default 10000): a holder that stops answering "
                "loses its id this long after");
}

std::optional<registry::Options> ReadRegistryOptions(const po::variables_map& vm,
                                                     std::string_view help) {
  if (vm.count("registry") == 0) {
    for (const char* name : {"server-range", "lease-ttl-ms"}) {
      if (vm.count(name) != 0) {
        throw CliError(std::string("--") + name + " needs --registry",
                       "pass --registry http://HOST:PORT, or drop --" + std::string(name));
      }
    }
    if (!vm["registry-prefix"].defaulted()) {
      throw CliError("--registry-prefix needs --registry",
                     "pass --registry http://HOST:PORT, or drop --registry-prefix");
    }
    return std::nullopt;
  }
  registry::Options options;
  options.endpoints = SplitEndpoints(vm["registry"].as<std::string>());
  options.prefix = vm["registry-prefix"].as<std::string>();
  if (vm.count("lease-ttl-ms") != 0) {
    options.lease_ttl = std::chrono::milliseconds(
        ParseUnsignedOption("--lease-ttl-ms", vm["lease-ttl-ms"].as<std::string>(), 0, INT64_MAX));
  }
  try {
    registry::Validate(options);
  } catch (const Error& e) {
    ThrowRegistryError(e, help);
  }
  return options;
}

std::shared_ptr<registry::EtcdStore> ClaimServerId(const registry::Options& options,
                                                   const Layout& layout,
                                                   const std::string& server_id,
                                                   const std::optional<std::string>& server_range,
                                                   std::string_view help) {
  registry::IdRange range;
  if (server_id == "auto") {
    range = {0, layout.max_server_id()};
    if (server_range) {
      const std::size_t dash = server_range->find('-');
      if (dash == std::string::npos) {
        throw CliError("bad --server-range " + QuoteArgument(*server_range) + ": not LO-HI",
                       "write it as LO-HI, e.g. --server-range 100-199");
      }
      range.lo =
          ParseUnsignedOption("--server-range", std::string_view(*server_range).substr(0, dash), 0,
                              layout.max_server_id());
      range.hi =
          ParseUnsignedOption("--server-range", std::string_view(*server_range).substr(dash + 1), 0,
                              layout.max_server_id());
    }
  } else {
    if (server_range) {
      throw CliError("--server-range needs --server-id auto",
                     "pass --server-id auto, or drop --server-range");
    }
    const uint64_t n = ParseUnsignedOption("--server-id", server_id, 0, layout.max_server_id());
    range = {n, n};
  }
  try {
    auto store = registry::EtcdStore::Claim(options, layout, range);
    if (server_id == "auto") {
      std::fprintf(stderr, "claimed server id %llu\n",
                   static_cast<unsigned long long>(store->server_id()));
    }
    return store;
  } catch (const Error& e) {
    ThrowRegistryError(e, help);
  }
}

}  // namespace steadyflake::cli
