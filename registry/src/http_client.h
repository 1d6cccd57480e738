// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal: may change between releases.
//
// A small blocking HTTP/1.1 client for etcd's JSON gateway, over Boost.Beast: POST a body, get
// the status and body back, on one kept-alive connection per endpoint, with a deadline on every
// call (connect, write and read together). Beast's stream timeouts apply to asynchronous
// operations only, so each call runs its asynchronous chain on a private io_context until it
// completes. Not thread-safe: one client per thread.

#ifndef STEADYFLAKE_REGISTRY_SRC_HTTP_CLIENT_H_
#define STEADYFLAKE_REGISTRY_SRC_HTTP_CLIENT_H_

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace steadyflake::registry::internal {

// "http://127.0.0.1:2379" split up. Throws std::invalid_argument naming the URL otherwise.
struct Endpoint {
  std::string scheme;  // "http"
  std::string host;
  std::string port;
  std::string url;  // as given, for messages

  static Endpoint Parse(const std::string& url);
};

// The endpoint did not answer: refused, reset, unresolvable or past the deadline. Worth trying
// another endpoint.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpClient {
 public:
  explicit HttpClient(std::chrono::milliseconds timeout);
  ~HttpClient();

  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // POSTs `body` (JSON) to `target` on `endpoint` with the extra `headers`. Throws
  // TransportError; any HTTP status is returned, not thrown.
  HttpResponse Post(const Endpoint& endpoint, const std::string& target, const std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& headers = {});

  // Drops the connection (the next call reconnects).
  void Close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace steadyflake::registry::internal

#endif  // STEADYFLAKE_REGISTRY_SRC_HTTP_CLIENT_H_
