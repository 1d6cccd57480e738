// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "etcd.h"

#include <openssl/evp.h>

#include <string>
#include <vector>

namespace steadyflake::registry::internal {
namespace {

// gRPC status codes etcd gives while it cannot serve (no leader, leader changed, stopping):
// another member may.
constexpr int kUnavailable = 14;
constexpr int kDeadlineExceeded = 4;

}  // namespace

Etcd::Etcd(const std::vector<std::string>& endpoints, std::chrono::milliseconds timeout)
    : http_(timeout) {
  for (const std::string& url : endpoints) endpoints_.push_back(Endpoint::Parse(url));
  if (endpoints_.empty()) {
    throw std::invalid_argument("no registry endpoint; give --registry http://HOST:PORT[,...]");
  }
}

nlohmann::json Etcd::Call(const std::string& path, const nlohmann::json& body) {
  const std::string text = body.dump();
  std::string failures;
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    const std::size_t index = (current_ + i) % endpoints_.size();
    const Endpoint& endpoint = endpoints_[index];
    HttpResponse response;
    try {
      response = http_.Post(endpoint, path, text);
    } catch (const TransportError& e) {
      failures += std::string(failures.empty() ? "" : "; ") + e.what();
      continue;
    }
    nlohmann::json answer =
        nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
    if (answer.is_discarded() || !answer.is_object()) {
      failures += std::string(failures.empty() ? "" : "; ") + "etcd at " + endpoint.url + ": " +
                  path + " answered HTTP " + std::to_string(response.status) + " without JSON";
      http_.Close();
      continue;
    }
    if (response.status != 200 || answer.contains("error")) {
      const int code = answer.value("code", 0);
      const std::string message = answer.value("message", answer.value("error", std::string()));
      if (code == kUnavailable || code == kDeadlineExceeded) {
        failures +=
            std::string(failures.empty() ? "" : "; ") + "etcd at " + endpoint.url + ": " + message;
        http_.Close();
        continue;
      }
      current_ = index;
      throw EtcdError(code, "etcd at " + endpoint.url + ": " + path + ": " + message);
    }
    current_ = index;
    return answer;
  }
  throw TransportError(failures);
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
