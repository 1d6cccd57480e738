// Copyright 2026 The steadyflake Authors.
//
// The registry on the command line: gen's --registry options, and `steadyflake registry list`.

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"
#include "steadyflake/error.h"
#include "steadyflake/registry/registry.h"
#include "steadyflake/time_format.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
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

// The registry's Error as a CliError with the fix in the CLI's terms.
[[noreturn]] void RegistryFailed(const Error& e) {
  std::string fix;
  switch (e.code()) {
    case Error::Code::kLocked:
      fix = "stop that process, or use --server-id auto [--server-range LO-HI] for a free id";
      break;
    case Error::Code::kInvalidArgument:
      fix = "run 'steadyflake gen --help' for the registry options";
      break;
    default:
      fix = "check --registry and that etcd is running";
      break;
  }
  throw FromEngine("", e, fix);
}

}  // namespace

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

std::optional<registry::Options> ReadRegistryOptions(const po::variables_map& vm) {
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
  options.endpoints = SplitCommas(vm["registry"].as<std::string>());
  options.prefix = vm["registry-prefix"].as<std::string>();
  if (vm.count("lease-ttl-ms") != 0) {
    options.lease_ttl = std::chrono::milliseconds(
        ParseUnsignedOption("--lease-ttl-ms", vm["lease-ttl-ms"].as<std::string>(), 0, INT64_MAX));
  }
  try {
    registry::Validate(options);
  } catch (const Error& e) {
    RegistryFailed(e);
  }
  return options;
}

std::shared_ptr<registry::EtcdStore> ClaimServerId(const registry::Options& options,
                                                   const Layout& layout,
                                                   const po::variables_map& vm) {
  const std::string id = vm["server-id"].as<std::string>();
  const std::string max = std::to_string(layout.max_server_id());
  registry::IdRange range;
  if (id == "auto") {
    range = {0, layout.max_server_id()};
    if (vm.count("server-range") != 0) {
      const std::string text = vm["server-range"].as<std::string>();
      const std::size_t dash = text.find('-');
      if (dash == std::string::npos) {
        throw CliError("bad --server-range " + Quote(text) + ": not LO-HI",
                       "write it as LO-HI, e.g. --server-range 100-199");
      }
      range.lo =
          ParseUnsignedOption("--server-range", text.substr(0, dash), 0, layout.max_server_id());
      range.hi =
          ParseUnsignedOption("--server-range", text.substr(dash + 1), 0, layout.max_server_id());
    }
  } else {
    if (vm.count("server-range") != 0) {
      throw CliError("--server-range needs --server-id auto",
                     "pass --server-id auto, or drop --server-range");
    }
    const uint64_t n = ParseUnsignedOption("--server-id", id, 0, layout.max_server_id());
    range = {n, n};
  }
  try {
    auto store = registry::EtcdStore::Claim(options, layout, range);
    if (id == "auto")
      std::fprintf(stderr, "claimed server id %llu\n",
                   static_cast<unsigned long long>(store->server_id()));
    return store;
  } catch (const Error& e) {
    RegistryFailed(e);
  }
}

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
                        "required: etcd client URLs, http://HOST:PORT[,...]")(
      "registry-prefix", po::value<std::string>()->default_value("/steadyflake/default"),
      "etcd key prefix")("json", "print JSON")("help,h", "print this help");
  po::variables_map vm;
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  ParseArgs("steadyflake", "registry list", rest, options, nullptr, vm);
  if (vm.count("help") != 0) {
    PrintHelp("steadyflake registry list --registry URL[,URL...] [--registry-prefix P] [--json]",
              "Lists the server ids held or reserved on etcd under the prefix: id, holder,\n"
              "reserved-until (ISO-8601) and whether the holder's lease is alive.",
              options);
    return kExitOk;
  }
  if (vm.count("registry") == 0) {
    throw CliError("missing --registry",
                   "pass etcd's client URL, e.g. --registry "
                   "http://127.0.0.1:2379");
  }
  registry::Options registry_options;
  registry_options.endpoints = SplitCommas(vm["registry"].as<std::string>());
  registry_options.prefix = vm["registry-prefix"].as<std::string>();
  std::vector<registry::Entry> entries;
  try {
    entries = registry::List(registry_options);
  } catch (const Error& e) {
    RegistryFailed(e);
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
