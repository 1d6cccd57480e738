// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to the steadyflake binaries; may change between releases.
//
// The registry's command-line flags, shared by `steadyflake gen` and `steadyflake-server` so
// both read and word them alike (docs/fleet.md): --registry, --registry-prefix, --server-range
// and --lease-ttl-ms, the claim of --server-id N|auto on etcd, and how to reach a secured etcd
// (also for `steadyflake registry list`): --registry-ca, --registry-cert, --registry-key,
// --registry-user and the password from --registry-password-file or the environment variable
// STEADYFLAKE_REGISTRY_PASSWORD, never from the command line (`ps` shows it).

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

// The environment variable that may hold the etcd user's password.
inline constexpr char kRegistryPasswordVariable[] = "STEADYFLAKE_REGISTRY_PASSWORD";

// Adds --registry, --registry-prefix, --server-range, --lease-ttl-ms and the options of
// AddRegistrySecurityOptions to `options`.
void AddRegistryOptions(boost::program_options::options_description& options);

// Adds --registry-ca, --registry-cert, --registry-key, --registry-user and
// --registry-password-file to `options` (and --registry-password, which is refused: a secret on
// the command line shows in `ps`).
void AddRegistrySecurityOptions(boost::program_options::options_description& options);

// What the registry options say: nullopt without --registry (the other registry options are
// then refused). `help` names the command whose --help lists them, e.g. "steadyflake gen".
// Throws CliError.
std::optional<registry::Options> ReadRegistryOptions(
    const boost::program_options::variables_map& vm, std::string_view help);

// Reads the options of AddRegistrySecurityOptions, and the password from its file or
// STEADYFLAKE_REGISTRY_PASSWORD, into `options`. Throws CliError for a combination that cannot
// work (a certificate without its key, a password without a user or a user without one, a
// password file that cannot be read), naming the fix. Does not Validate.
void ReadRegistrySecurityOptions(const boost::program_options::variables_map& vm,
                                 registry::Options& options);

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
