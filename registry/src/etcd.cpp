// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "etcd.h"

#include "test_hooks.h"

#include <openssl/evp.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steadyflake::registry::internal {
namespace {

// gRPC status codes etcd gives while it cannot serve (no leader, leader changed, stopping):
// another member may.
constexpr int kUnavailable = 14;
constexpr int kDeadlineExceeded = 4;
// etcd refused the call's token: expired, or etcd restarted (simple tokens live in its memory).
constexpr int kUnauthenticated = 16;
constexpr int kHttpUnauthorized = 401;
constexpr int kPermissionDenied = 7;

// Thrown by Send when etcd refused the token: Call authenticates again.
class TokenRefused : public EtcdError {
 public:
  using EtcdError::EtcdError;
};

std::string Join(const std::string& failures, const std::string& more) {
  return failures.empty() ? more : failures + "; " + more;
}

// ": <the start of `body`>" when it is text, for a message: one line, printable ASCII.
std::string Excerpt(const std::string& body) {
  constexpr std::size_t kMaxShown = 120;
  std::string text;
  for (const char c : body) {
    if (text.size() == kMaxShown) return ": " + text + "...";
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      if (byte != '\n' && byte != '\r' && byte != '\t') return std::string();
      if (!text.empty() && text.back() != ' ') text += ' ';
      continue;
    }
    text += c;
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.empty() ? std::string() : ": " + text;
}

// The fix for what a secured etcd answers in plain text, or "".
std::string FixForText(const Endpoint& endpoint, const std::string& body) {
  // Go's TLS server, asked in plain HTTP.
  if (!endpoint.tls() && body.find("HTTP request to an HTTPS server") != std::string::npos) {
    return "that etcd speaks TLS: write the endpoint as https://" + endpoint.host + ":" +
           endpoint.port + " and give its CA with --registry-ca";
  }
  // etcd 3.4 with --client-cert-auth: its gateway refuses a client certificate with a CN (it
  // would be taken for a user name).
  if (body.find("CommonName of client") != std::string::npos) {
    return "etcd's gateway refuses a client certificate with a CommonName: issue --registry-cert "
           "without CN (subject e.g. /O=game-servers)";
  }
  return std::string();
}

std::optional<TlsFiles> TlsOf(const Options& options) {
  for (const std::string& url : options.endpoints) {
    if (url.compare(0, 8, "https://") == 0) {
      return TlsFiles{options.ca_file, options.cert_file, options.key_file};
    }
  }
  return std::nullopt;
}

}  // namespace

Etcd::Etcd(const Options& options)
    : http_(options.timeout, TlsOf(options)),
      user_(options.user),
      password_(options.password),
      hooks_(options.test_hooks) {
  for (const std::string& url : options.endpoints) endpoints_.push_back(Endpoint::Parse(url));
  if (endpoints_.empty()) {
    throw std::invalid_argument("no registry endpoint; give --registry http://HOST:PORT[,...]");
  }
}

nlohmann::json Etcd::Call(const std::string& path, const nlohmann::json& body) {
  const std::string text = body.dump();
  if (hooks_ && hooks_->answer && !hooks_->answer(path)) {
    throw TransportError("etcd at " + current() + ": " + path + ": no answer (a test's hook)");
  }
  if (user_.empty()) return Send(path, text, std::string());
  if (token_.empty()) Authenticate();
  try {
    return Send(path, text, token_);
  } catch (const TokenRefused&) {
    // Expired, or etcd forgot it: once more with a new token.
  }
  token_.clear();
  Authenticate();
  return Send(path, text, token_);
}

void Etcd::Authenticate() {
  const std::string fix =
      "check --registry-user and its password (--registry-password-file FILE or "
      "STEADYFLAKE_REGISTRY_PASSWORD)";
  nlohmann::json answer;
  try {
    answer = Send("/v3/auth/authenticate",
                  nlohmann::json{{"name", user_}, {"password", password_}}.dump(), std::string());
  } catch (const EtcdError& e) {
    const std::string what = e.what();
    throw EtcdError(e.code(), "authentication as user '" + user_ + "' failed: " + what,
                    what.find("not enabled") != std::string::npos
                        ? "etcd has no auth enabled: drop --registry-user, or enable auth on etcd"
                        : fix);
  }
  token_ = answer.value("token", std::string());
  if (token_.empty()) {
    throw EtcdError(
        0, "authentication as user '" + user_ + "' at etcd " + current() + " gave no token", fix);
  }
}

nlohmann::json Etcd::Send(const std::string& path, const std::string& text,
                          const std::string& token) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!token.empty()) headers.emplace_back("Authorization", token);
  std::string failures;
  std::string fix;
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    const std::size_t index = (current_ + i) % endpoints_.size();
    const Endpoint& endpoint = endpoints_[index];
    HttpResponse response;
    try {
      response = http_.Post(endpoint, path, text, headers);
    } catch (const TransportError& e) {
      failures = Join(failures, e.what());
      if (fix.empty()) fix = e.fix();
      continue;
    }
    nlohmann::json answer =
        nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
    if (answer.is_discarded() || !answer.is_object()) {
      failures = Join(failures, "etcd at " + endpoint.url + ": " + path + " answered HTTP " +
                                    std::to_string(response.status) + " without JSON" +
                                    Excerpt(response.body));
      if (fix.empty()) fix = FixForText(endpoint, response.body);
      http_.Close();
      continue;
    }
    // {"error": "...", "code": N, "message": "..."}, or from a streaming method (keep-alive)
    // {"error": {"grpc_code": N, "message": "..."}}.
    const auto error = answer.find("error");
    if (response.status != 200 || error != answer.end()) {
      int code = 0;
      std::string message;
      if (error != answer.end() && error->is_object()) {
        code = error->value("grpc_code", 0);
        message = error->value("message", std::string());
      } else {
        code = answer.value("code", 0);
        message = answer.value("message", std::string());
        if (message.empty() && error != answer.end() && error->is_string()) {
          message = error->get<std::string>();
        }
      }
      if (code == kUnavailable || code == kDeadlineExceeded) {
        failures = Join(failures, "etcd at " + endpoint.url + ": " + message);
        http_.Close();
        continue;
      }
      current_ = index;
      const std::string what = "etcd at " + endpoint.url + ": " + path + ": " + message;
      if (!token.empty() && (code == kUnauthenticated || response.status == kHttpUnauthorized ||
                             message.find("invalid auth token") != std::string::npos ||
                             message.find("revision of auth store is old") != std::string::npos)) {
        throw TokenRefused(code, what);
      }
      if (code == kPermissionDenied || message.find("permission denied") != std::string::npos ||
          message.find("user name is empty") != std::string::npos) {
        throw EtcdError(code, what,
                        user_.empty() ? "etcd has auth enabled: give --registry-user NAME and its "
                                        "password (--registry-password-file FILE or "
                                        "STEADYFLAKE_REGISTRY_PASSWORD)"
                                      : "etcd user '" + user_ +
                                            "' may not do this: grant it a role with readwrite "
                                            "permission on the registry prefix");
      }
      throw EtcdError(code, what);
    }
    current_ = index;
    return answer;
  }
  throw TransportError(failures, fix);
}

std::string Etcd::Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string Etcd::Unbase64(std::string_view text) {
  if (text.size() % 4 != 0) throw std::runtime_error("etcd sent a value that is not base64");
  std::string out(3 * text.size() / 4 + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) throw std::runtime_error("etcd sent a value that is not base64");
  // EVP_DecodeBlock counts the padding's zero bytes: take them off.
  std::size_t size = static_cast<std::size_t>(n);
  if (!text.empty() && text.back() == '=') --size;
  if (text.size() >= 2 && text[text.size() - 2] == '=') --size;
  out.resize(size);
  return out;
}

int64_t Etcd::Int(const nlohmann::json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end() || it->is_null()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) return std::stoll(it->get<std::string>());
  throw std::runtime_error(std::string("etcd sent field ") + field +
                           " as neither string nor number");
}

std::string Etcd::PrefixEnd(std::string prefix) {
  // The key after every key that starts with prefix: its last byte below 0xff, plus one.
  while (!prefix.empty()) {
    unsigned char& last = reinterpret_cast<unsigned char&>(prefix.back());
    if (last < 0xff) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');  // every key
}

}  // namespace steadyflake::registry::internal
