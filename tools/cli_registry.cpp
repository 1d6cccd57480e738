// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// `steadyflake registry list`: the server ids on etcd (gen's --registry options are in
// registry_flags.cpp, shared with steadyflake-server).

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"
#include "registry_flags.h"
#include "steadyflake/error.h"
#include "steadyflake/registry/registry.h"
#include "steadyflake/time_format.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

int RunRegistry(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "list") {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      std::printf(
          "Usage: steadyflake registry list --registry URL[,URL...] [--registry-prefix P] "
          "[--json]\n\nLists the server ids held or reserved on etcd under the prefix.\n");
      return kExitOk;
    }
    throw CliError(
        args.empty() ? "missing registry command" : "unknown registry command " + Quote(args[0]),
        "run 'steadyflake registry list --registry http://HOST:PORT'");
  }
  po::options_description options("Options");
  options.add_options()("registry", po::value<std::string>(),
                        "required: etcd client URLs, http(s)://HOST:PORT[,...]")(
      "registry-prefix", po::value<std::string>()->default_value("/steadyflake/default"),
      "etcd key prefix")("json", "print JSON")("help,h", "print this help");
  AddRegistrySecurityOptions(options);
  po::variables_map vm;
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  ParseArgs("steadyflake", "registry list", rest, options, nullptr, vm);
  if (vm.count("help") != 0) {
    PrintHelp(
        "steadyflake registry list --registry URL[,URL...] [--registry-prefix P] [--json]\n"
        "                          [--registry-ca FILE] [--registry-cert FILE --registry-key "
        "FILE]\n"
        "                          [--registry-user NAME [--registry-password-file FILE]]",
        "Lists the server ids held or reserved on etcd under the prefix: id, holder,\n"
        "reserved-until (ISO-8601) and whether the holder's lease is alive. The password\n"
        "comes from --registry-password-file or STEADYFLAKE_REGISTRY_PASSWORD, never the\n"
        "command line (docs/fleet.md, \"Securing etcd\").",
        options);
    return kExitOk;
  }
  if (vm.count("registry") == 0) {
    throw CliError("missing --registry",
                   "pass etcd's client URL, e.g. --registry "
                   "http://127.0.0.1:2379");
  }
  registry::Options registry_options;
  registry_options.endpoints = SplitEndpoints(vm["registry"].as<std::string>());
  registry_options.prefix = vm["registry-prefix"].as<std::string>();
  ReadRegistrySecurityOptions(vm, registry_options);
  std::vector<registry::Entry> entries;
  try {
    entries = registry::List(registry_options);
  } catch (const Error& e) {
    ThrowRegistryError(e, "steadyflake registry list");
  }
  const auto reserved = [](const registry::Entry& e) {
    return e.reserved_until_ms ? FormatIso8601(*e.reserved_until_ms) : std::string("-");
  };
  const auto lease = [](const registry::Entry& e) {
    return !e.owned ? std::string("none") : e.lease_ttl_s > 0 ? "alive" : "expired";
  };
  if (vm.count("json") != 0) {
    nlohmann::json out = nlohmann::json::array();
    for (const registry::Entry& e : entries) {
      nlohmann::json row = {{"server_id", e.server_id},
                            {"lease", lease(e)},
                            {"layout", e.layout},
                            {"reserved_until", reserved(e)}};
      if (e.owned) {
        row["holder"] = {{"host", e.host},
                         {"pid", e.pid},
                         {"since", FormatIso8601(e.since_ms, false)},
                         {"token", e.token},
                         {"lease_ttl_s", e.lease_ttl_s}};
      } else {
        row["holder"] = nullptr;
      }
      out.push_back(std::move(row));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-9s %-40s %-26s %s\n", "server_id", "holder", "reserved_until", "lease");
  for (const registry::Entry& e : entries) {
    const std::string holder = e.owned ? e.host + " pid " + std::to_string(e.pid) + " since " +
                                             FormatIso8601(e.since_ms, false)
                                       : "-";
    std::printf("%-9llu %-40s %-26s %s\n", static_cast<unsigned long long>(e.server_id),
                holder.c_str(), reserved(e).c_str(), lease(e).c_str());
  }
  return kExitOk;
}

}  // namespace steadyflake::cli
