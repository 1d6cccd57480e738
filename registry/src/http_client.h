// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal: may change between releases.
//
// A small blocking HTTP/1.1 client for etcd's JSON gateway, over Boost.Beast: POST a body, get
// the status and body back, on one kept-alive connection per endpoint, with a deadline on every
// call (connect, TLS handshake, write and read together). Beast's stream timeouts apply to
// asynchronous operations only, so each call runs its asynchronous chain on a private
// io_context until it completes. https:// endpoints go over TLS (OpenSSL): the server's
// certificate is verified against a CA file (or the system's CAs) and must name the host or IP
// connected to; a client certificate is presented when given. Not thread-safe: one client per
// thread.

#ifndef STEADYFLAKE_REGISTRY_SRC_HTTP_CLIENT_H_
#define STEADYFLAKE_REGISTRY_SRC_HTTP_CLIENT_H_

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace steadyflake::registry::internal {

// "http://127.0.0.1:2379" or "https://etcd-a.example:2379" split up. Throws
// std::invalid_argument naming the URL otherwise.
struct Endpoint {
  std::string scheme;  // "http" or "https"
  std::string host;
  std::string port;
  std::string url;  // as given, for messages

  bool tls() const { return scheme == "https"; }

  static Endpoint Parse(const std::string& url);
};

// What https:// endpoints need. Paths of PEM files; every one may be empty.
struct TlsFiles {
  std::string ca_file;    // CAs that may sign the server's certificate; empty: the system's
  std::string cert_file;  // this client's certificate (chain), with key_file
  std::string key_file;
};

// The endpoint did not answer: refused, reset, unresolvable, past the deadline, or the TLS
// handshake failed. Worth trying another endpoint. fix() says what to change when the failure
// is the configuration's (an untrusted certificate, a wrong scheme), else it is empty.
class TransportError : public std::runtime_error {
 public:
  explicit TransportError(const std::string& message, std::string fix = std::string())
      : std::runtime_error(message), fix_(std::move(fix)) {}
  const std::string& fix() const { return fix_; }

 private:
  std::string fix_;
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

// Loads `files` as an https:// connection would. Throws std::invalid_argument naming the file,
// why and the fix when one cannot be read or used (not PEM, a key not of the certificate).
void CheckTlsFiles(const TlsFiles& files);

class HttpClient {
 public:
  // `tls` is used for https:// endpoints; without it they are refused. Throws
  // std::invalid_argument naming the file when a file of `tls` cannot be loaded.
  HttpClient(std::chrono::milliseconds timeout, const std::optional<TlsFiles>& tls);
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
