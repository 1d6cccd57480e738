// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "registry_flags.h"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "command_line.h"
#include "steadyflake/error.h"

namespace steadyflake::cli {
namespace po = boost::program_options;

namespace {

// The security options; each needs --registry.
constexpr const char* kSecurityOptions[] = {"registry-ca", "registry-cert", "registry-key",
                                            "registry-user", "registry-password-file"};

// The password in `path`, without its trailing newline (CR LF too). Never echoed.
std::string ReadPasswordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    throw CliError(
        "cannot read --registry-password-file " + QuoteArgument(path) + ": " + std::strerror(errno),
        "give a readable file that holds the etcd user's password");
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    throw CliError("cannot read --registry-password-file " + QuoteArgument(path),
                   "give a readable file that holds the etcd user's password");
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty()) {
    throw CliError("--registry-password-file " + QuoteArgument(path) + " is empty",
                   "write the etcd user's password in it");
  }
  return text;
}

// --registry-password exists only to be refused (else Boost would take it for an abbreviation
// of --registry-password-file, and name the secret as a file that cannot be read).
void RefusePasswordOption(const po::variables_map& vm) {
  if (vm.count("registry-password") != 0) {
    // Its value is not repeated: it may be the secret.
    throw CliError("--registry-password is refused: a password on the command line shows in ps",
                   "put it in a file and pass --registry-password-file FILE, or set " +
                       std::string(kRegistryPasswordVariable));
  }
}

}  // namespace

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
                        "etcd client URLs, http://HOST:PORT[,...] or https://HOST:PORT[,...]: "
                        "claim the server id there with a lease and keep the reserved time there "
                        "instead of a state file (docs/fleet.md)")(
      "registry-prefix", po::value<std::string>()->default_value("/steadyflake/default"),
      "etcd key prefix: one per game and region")(
      "server-range", po::value<std::string>(),
      "with --server-id auto: claim the lowest free id in LO-HI (default: the layout's whole "
      "range)")("lease-ttl-ms", po::value<std::string>(),
                "the server id's etcd lease (default 10000): a holder that stops answering "
                "loses its id this long after");
  AddRegistrySecurityOptions(options);
}

void AddRegistrySecurityOptions(po::options_description& options) {
  options.add_options()("registry-ca", po::value<std::string>(),
                        "with https:// URLs: PEM file of the CA that signed etcd's certificate "
                        "(default: the system's CAs)")(
      "registry-cert", po::value<std::string>(),
      "with https:// URLs: this client's PEM certificate, for an etcd started with "
      "--client-cert-auth (with --registry-key)")(
      "registry-key", po::value<std::string>(),
      "the unencrypted PEM private key of --registry-cert")(
      "registry-user", po::value<std::string>(),
      "etcd user (etcd auth enabled); its password comes from --registry-password-file or the "
      "environment variable STEADYFLAKE_REGISTRY_PASSWORD, never from the command line")(
      "registry-password-file", po::value<std::string>(),
      "file holding the --registry-user's password (a trailing newline is dropped)")(
      "registry-password", po::value<std::string>(),
      "refused: a password on the command line shows in `ps`; use --registry-password-file or "
      "STEADYFLAKE_REGISTRY_PASSWORD");
}

void ReadRegistrySecurityOptions(const po::variables_map& vm, registry::Options& options) {
  RefusePasswordOption(vm);
  const auto text = [&vm](const char* name) {
    return vm.count(name) != 0 ? vm[name].as<std::string>() : std::string();
  };
  options.ca_file = text("registry-ca");
  options.cert_file = text("registry-cert");
  options.key_file = text("registry-key");
  options.user = text("registry-user");
  if (options.cert_file.empty() != options.key_file.empty()) {
    throw CliError(options.cert_file.empty() ? "--registry-key needs --registry-cert"
                                             : "--registry-cert needs --registry-key",
                   "give the client certificate and its private key together, or neither");
  }
  for (const char* name : {"registry-ca", "registry-cert", "registry-key", "registry-user"}) {
    if (vm.count(name) != 0 && vm[name].as<std::string>().empty()) {
      throw CliError(std::string("--") + name + " is empty", "give a value, or drop it");
    }
  }
  const char* const variable = std::getenv(kRegistryPasswordVariable);
  const bool from_variable = variable != nullptr && *variable != '\0';
  const bool from_file = vm.count("registry-password-file") != 0;
  if (from_file && from_variable) {
    throw CliError(std::string("both --registry-password-file and ") + kRegistryPasswordVariable +
                       " give a password",
                   std::string("keep one: drop the option, or unset ") + kRegistryPasswordVariable);
  }
  if (options.user.empty()) {
    if (from_file) {
      throw CliError("--registry-password-file needs --registry-user",
                     "pass the etcd user with --registry-user NAME, or drop the password file");
    }
    if (from_variable) {
      throw CliError(std::string(kRegistryPasswordVariable) + " is set without --registry-user",
                     "pass the etcd user with --registry-user NAME, or unset " +
                         std::string(kRegistryPasswordVariable));
    }
    return;
  }
  if (from_file) {
    options.password = ReadPasswordFile(vm["registry-password-file"].as<std::string>());
  } else if (from_variable) {
    options.password = variable;
  } else {
    throw CliError("--registry-user " + QuoteArgument(options.user) + " has no password",
                   "put it in a file and pass --registry-password-file FILE, or set " +
                       std::string(kRegistryPasswordVariable));
  }
}

std::optional<registry::Options> ReadRegistryOptions(const po::variables_map& vm,
                                                     std::string_view help) {
  RefusePasswordOption(vm);
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
    for (const char* name : kSecurityOptions) {
      if (vm.count(name) != 0) {
        throw CliError(std::string("--") + name + " needs --registry",
                       "pass --registry https://HOST:PORT, or drop --" + std::string(name));
      }
    }
    return std::nullopt;
  }
  registry::Options options;
  options.endpoints = SplitEndpoints(vm["registry"].as<std::string>());
  options.prefix = vm["registry-prefix"].as<std::string>();
  ReadRegistrySecurityOptions(vm, options);
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
