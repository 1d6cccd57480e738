// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal: may change between releases.
//
// etcd v3 through its HTTP/JSON gateway (grpc-gateway): POST /v3/<service>/<method> with the
// request as JSON. Keys and values are base64; 64-bit numbers are strings; fields equal to zero
// or false are left out of answers (a failed txn has no "succeeded"). Several endpoints (the
// members of a cluster) are tried in turn: the one that last answered first. With a user, every
// call carries the token etcd's /v3/auth/authenticate gave for the user and password; a call
// that etcd refuses for its token (expired, or etcd restarted and forgot it) authenticates again
// once and is sent again.

#ifndef STEADYFLAKE_REGISTRY_SRC_ETCD_H_
#define STEADYFLAKE_REGISTRY_SRC_ETCD_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "http_client.h"
#include "steadyflake/registry/registry.h"

namespace steadyflake::registry::internal {

// etcd answered, with an error (bad request, lease not found, permission denied, wrong
// password).
class EtcdError : public std::runtime_error {
 public:
  EtcdError(int code, const std::string& message, std::string fix = std::string())
      : std::runtime_error(message), code_(code), fix_(std::move(fix)) {}
  // The gRPC status code etcd gave (5: not found, 7: permission denied, ...).
  int code() const { return code_; }
  // What to change when the configuration is at fault (the user or password), else empty.
  const std::string& fix() const { return fix_; }

 private:
  int code_;
  std::string fix_;
};

class Etcd {
 public:
  // Uses options.endpoints, timeout, the TLS files, user and password. Throws
  // std::invalid_argument for an endpoint that is not http(s)://HOST:PORT or none at all, or a
  // TLS file that cannot be loaded.
  explicit Etcd(const Options& options);

  // POSTs `body` to `path` ("/v3/kv/txn"), failing over between the endpoints, authenticated
  // when there is a user. Throws TransportError naming every endpoint's failure when none
  // answered, EtcdError when etcd answered with an error (with a fix() when it refused the user
  // or password).
  nlohmann::json Call(const std::string& path, const nlohmann::json& body);

  // The endpoint that answered last (for messages).
  const std::string& current() const { return endpoints_[current_].url; }

  static std::string Base64(std::string_view bytes);
  // Throws std::runtime_error on text that is not base64.
  static std::string Unbase64(std::string_view text);
  // A 64-bit field of an answer: a string, a number, or absent (0).
  static int64_t Int(const nlohmann::json& object, const char* field);
  // The range end that selects every key starting with `prefix`.
  static std::string PrefixEnd(std::string prefix);

 private:
  // One POST with the failover, carrying `token` unless it is empty.
  nlohmann::json Send(const std::string& path, const std::string& text, const std::string& token);
  // Gets a new token_ for user_. Throws EtcdError with a fix() when etcd refuses.
  void Authenticate();

  std::vector<Endpoint> endpoints_;
  std::size_t current_ = 0;
  HttpClient http_;
  const std::string user_;                  // empty: no auth
  const std::string password_;              // never in a message
  std::string token_;                       // empty until authenticated
  std::shared_ptr<const TestHooks> hooks_;  // a test's (test_hooks.h), else null
};

}  // namespace steadyflake::registry::internal

#endif  // STEADYFLAKE_REGISTRY_SRC_ETCD_H_
