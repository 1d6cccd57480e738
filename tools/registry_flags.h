// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to the steadyflake binaries; may change between releases.
//
// The registry's command-line flags, shared by `steadyflake gen` and `steadyflake-server` so
// both read and word them alike (docs/fleet.md): --registry, --registry-prefix, --server-range
// and --lease-ttl-ms, and the claim of --server-id N|auto on etcd.

#ifndef STEADYFLAKE_TOOLS_REGISTRY_FLAGS_H_
#define STEADYFLAKE_TOOLS_REGISTRY_FLAGS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "steadyflake/error.h"
#include "steadyflake/layout.h"
#include "steadyflake/registry/registry.h"

namespace steadyflake::cli {

// Adds --registry, --registry-prefix, --server-range and --lease-ttl-ms to `options`.
void AddRegistryOptions(boost::program_options::options_description& options);

// What the registry options say: nullopt without --registry (the other registry options are
// then refused). `help` names the command whose --help lists them, e.g. "steadyflake gen".
// Throws CliError.
std::optional<registry::Options> ReadRegistryOptions(
    const boost::program_options::variables_map& vm, std::string_view help);

// Claims `server_id` (a number, or "auto" for the lowest free id in `server_range`, "LO-HI",
// default the layout's whole range) on etcd, before any ID exists; for `auto` prints "claimed
// server id N" to stderr. Throws CliError naming the holder when the id is taken, or etcd's
// failure.
std::shared_ptr<registry::EtcdStore> ClaimServerId(const registry::Options& options,
                                                   const Layout& layout,
                                                   const std::string& server_id,
                                                   const std::optional<std::string>& server_range,
                                                   std::string_view help);

// "URL1,URL2,..." as a list, empty parts dropped.
std::vector<std::string> SplitEndpoints(const std::string& text);

// Throws a registry Error as a CliError, with a fix in the command line's terms unless the
// message carries one: `help` names the command whose --help lists the options.
[[noreturn]] void ThrowRegistryError(const Error& e, std::string_view help);

}  // namespace steadyflake::cli

#endif  // STEADYFLAKE_TOOLS_REGISTRY_FLAGS_H_
