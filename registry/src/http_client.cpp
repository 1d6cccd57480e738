// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "http_client.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

namespace steadyflake::registry::internal {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

// An etcd range over every owner of a large fleet stays far below this.
constexpr std::size_t kMaxBody = 16 * 1024 * 1024;

// The OpenSSL reason of a TLS error (0 for any other error).
int TlsReason(const beast::error_code& error) {
  if (error.category() != net::error::get_ssl_category()) return 0;
  return ERR_GET_REASON(static_cast<unsigned long>(error.value()));
}

// Throws std::invalid_argument naming the file, what it is for, the flag and the fix.
[[noreturn]] void BadFile(const std::string& what, const std::string& path, const char* flag,
                          const std::string& why, const std::string& fix) {
  throw std::invalid_argument("registry " + what + " " + path + " (" + flag + ") " + why + "; " +
                              fix);
}

// OpenSSL's reason for a failed load, or errno's when the file could not even be opened.
std::string LoadFailure(const std::string& path, const beast::error_code& error) {
  if (!std::ifstream(path).is_open()) return std::string("cannot be read: ") + std::strerror(errno);
  return "cannot be loaded: " + error.message();
}

// TLS 1.2 or later, the server verified against `files.ca_file` (or the system's CAs), this
// client's certificate presented when given.
std::unique_ptr<ssl::context> MakeTlsContext(const TlsFiles& files) {
  auto context = std::make_unique<ssl::context>(ssl::context::tls_client);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  context->set_verify_mode(ssl::verify_peer);
  beast::error_code error;
  if (files.ca_file.empty()) {
    context->set_default_verify_paths(error);
    if (error) {
      throw std::invalid_argument("registry: the system's CA certificates cannot be loaded (" +
                                  error.message() + "); give etcd's CA with --registry-ca FILE");
    }
  } else {
    context->load_verify_file(files.ca_file, error);
    if (error) {
      BadFile("CA file", files.ca_file, "--registry-ca", LoadFailure(files.ca_file, error),
              "give the PEM file of the CA that signed etcd's certificate");
    }
  }
  if (!files.cert_file.empty() || !files.key_file.empty()) {
    context->use_certificate_chain_file(files.cert_file, error);
    if (error) {
      BadFile("client certificate", files.cert_file, "--registry-cert",
              LoadFailure(files.cert_file, error),
              "give this client's certificate as PEM, signed by a CA etcd trusts");
    }
    context->use_private_key_file(files.key_file, ssl::context::pem, error);
    if (TlsReason(error) == X509_R_KEY_VALUES_MISMATCH) {
      BadFile("client key", files.key_file, "--registry-key",
              "is not the key of the certificate " + files.cert_file,
              "give the key that belongs to --registry-cert");
    }
    if (error) {
      BadFile("client key", files.key_file, "--registry-key", LoadFailure(files.key_file, error),
              "give the PEM private key of --registry-cert, unencrypted");
    }
    if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
      ERR_clear_error();
      BadFile("client key", files.key_file, "--registry-key",
              "is not the key of the certificate " + files.cert_file,
              "give the key that belongs to --registry-cert");
    }
  }
  return context;
}

}  // namespace

void CheckTlsFiles(const TlsFiles& files) { MakeTlsContext(files); }

Endpoint Endpoint::Parse(const std::string& url) {
  Endpoint endpoint;
  endpoint.url = url;
  const std::size_t colon_slashes = url.find("://");
  if (colon_slashes == std::string::npos) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' has no scheme; write it as http://HOST:PORT");
  }
  endpoint.scheme = url.substr(0, colon_slashes);
  if (endpoint.scheme != "http" && endpoint.scheme != "https") {
    throw std::invalid_argument("registry endpoint '" + url + "': scheme '" + endpoint.scheme +
                                "' is not supported; use http://HOST:PORT or https://HOST:PORT");
  }
  std::string rest = url.substr(colon_slashes + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' has a path; give only http://HOST:PORT");
  }
  std::size_t port_colon = rest.rfind(':');
  if (!rest.empty() && rest.front() == '[') {  // [::1]:2379
    const std::size_t close = rest.find(']');
    if (close == std::string::npos) {
      throw std::invalid_argument("registry endpoint '" + url + "' has an unclosed '['");
    }
    endpoint.host = rest.substr(1, close - 1);
    port_colon = rest.find(':', close);
  } else if (port_colon != std::string::npos) {
    endpoint.host = rest.substr(0, port_colon);
  }
  if (port_colon == std::string::npos || port_colon + 1 >= rest.size()) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' has no port; write it as http://HOST:PORT (etcd: 2379)");
  }
  endpoint.port = rest.substr(port_colon + 1);
  if (endpoint.host.empty() || endpoint.port.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument("registry endpoint '" + url +
                                "' is not http://HOST:PORT with a numeric port");
  }
  return endpoint;
}

struct HttpClient::Impl {
  Impl(std::chrono::milliseconds t, const std::optional<TlsFiles>& tls)
      : timeout(t), tls_files(tls) {
    if (tls) tls_context = MakeTlsContext(*tls);
  }

  std::chrono::milliseconds timeout;
  std::optional<TlsFiles> tls_files;
  std::unique_ptr<ssl::context> tls_context;  // with tls_files
  net::io_context ioc;
  // The connection: one of the two, or neither.
  std::optional<beast::tcp_stream> stream;                         // http://
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_stream;  // https://
  std::string connected_url;
  beast::flat_buffer buffer;

  bool connected() const { return stream.has_value() || tls_stream.has_value(); }

  beast::tcp_stream& tcp() { return tls_stream ? beast::get_lowest_layer(*tls_stream) : *stream; }

  void Drop() {
    stream.reset();
    tls_stream.reset();
    connected_url.clear();
  }

  // Runs the queued asynchronous operations to completion; `error` is what they reported.
  void Run() {
    ioc.restart();
    ioc.run();
  }

  [[noreturn]] void Fail(const Endpoint& endpoint, const std::string& step,
                         const beast::error_code& error) {
    Drop();
    const std::string why = error == beast::error::timeout
                                ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                : error.message();
    // etcd (--client-cert-auth) refusing this client's certificate, or its lack of one: an
    // alert, at the handshake or, in TLS 1.3, at the first read.
    std::string fix;
    switch (TlsReason(error)) {
      case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
      case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
      case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
      case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
        fix = tls_files && !tls_files->cert_file.empty()
                  ? "etcd refused this client's certificate: give --registry-cert and "
                    "--registry-key signed by a CA etcd trusts (its --trusted-ca-file)"
                  : "etcd asks for a client certificate: give --registry-cert and "
                    "--registry-key";
        break;
      default:
        break;
    }
    // etcd serving TLS drops a connection that speaks plain HTTP.
    if (!endpoint.tls() && error == http::error::end_of_stream) {
      fix =
          "etcd closed the connection without an answer: if it serves TLS (started with "
          "--cert-file), write the endpoint as https://" +
          endpoint.host + ":" + endpoint.port + " and give its CA with --registry-ca";
    }
    throw TransportError("etcd at " + endpoint.url + ": " + step + " failed: " + why, fix);
  }

  // The TLS handshake failed: says why, the certificate check first.
  [[noreturn]] void FailHandshake(const Endpoint& endpoint, const beast::error_code& error) {
    const long verify = SSL_get_verify_result(tls_stream->native_handle());  // NOLINT(runtime/int)
    if (error == beast::error::timeout || verify == X509_V_OK) {
      if (TlsReason(error) == SSL_R_WRONG_VERSION_NUMBER ||
          TlsReason(error) == SSL_R_PACKET_LENGTH_TOO_LONG) {
        Drop();
        throw TransportError(
            "etcd at " + endpoint.url + ": TLS handshake failed: " + error.message(),
            "the endpoint does not speak TLS: write it as http://" + endpoint.host + ":" +
                endpoint.port + ", or start etcd with --cert-file and --key-file");
      }
      Fail(endpoint, "TLS handshake", error);
    }
    Drop();
    const std::string why = X509_verify_cert_error_string(verify);
    std::string fix;
    if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH) {
      fix = "etcd's certificate does not name " + endpoint.host +
            ": use a host name or IP address its subjectAltName lists";
    } else if (tls_files->ca_file.empty()) {
      fix = "no CA of this system signed etcd's certificate: give its CA with --registry-ca FILE";
    } else {
      fix = "the CA file " + tls_files->ca_file +
            " (--registry-ca) did not sign etcd's certificate: give the CA that did";
    }
    throw TransportError(
        "etcd at " + endpoint.url + ": TLS certificate verification failed: " + why, fix);
  }

  void Connect(const Endpoint& endpoint) {
    if (connected() && connected_url == endpoint.url) return;
    Drop();
    buffer.clear();
    if (endpoint.tls() && !tls_context) {
      throw TransportError("etcd at " + endpoint.url + ": https:// without TLS settings");
    }
    beast::error_code error;
    tcp::resolver resolver(ioc);
    tcp::resolver::results_type results;
    resolver.async_resolve(endpoint.host, endpoint.port,
                           [&](const beast::error_code& e, tcp::resolver::results_type r) {
                             error = e;
                             results = std::move(r);
                           });
    Run();
    if (error) Fail(endpoint, "resolving " + endpoint.host, error);
    if (endpoint.tls()) {
      tls_stream.emplace(ioc, *tls_context);
      SSL* const handle = tls_stream->native_handle();
      // The certificate must name what was connected to: its IP address SAN for an address (as
      // 127.0.0.1), else the host name, which also goes out as SNI. What Asio's
      // host_name_verification checks, here set on OpenSSL itself so that a failure says which.
      beast::error_code not_address;
      net::ip::make_address(endpoint.host, not_address);
      if (not_address) {
        if (SSL_set_tlsext_host_name(handle, const_cast<char*>(endpoint.host.c_str())) != 1 ||
            SSL_set1_host(handle, endpoint.host.c_str()) != 1) {
          Fail(
              endpoint, "setting up TLS for " + endpoint.host,
              beast::error_code(static_cast<int>(ERR_get_error()), net::error::get_ssl_category()));
        }
      } else if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(handle), endpoint.host.c_str()) !=
                 1) {
        Fail(endpoint, "setting up TLS for " + endpoint.host,
             beast::error_code(static_cast<int>(ERR_get_error()), net::error::get_ssl_category()));
      }
    } else {
      stream.emplace(ioc);
    }
    tcp().expires_after(timeout);
    tcp().async_connect(results,
                        [&](const beast::error_code& e, const tcp::endpoint&) { error = e; });
    Run();
    if (error) Fail(endpoint, "connecting", error);
    tcp().socket().set_option(tcp::no_delay(true));
    if (tls_stream) {
      tcp().expires_after(timeout);
      tls_stream->async_handshake(ssl::stream_base::client,
                                  [&](const beast::error_code& e) { error = e; });
      Run();
      if (error) FailHandshake(endpoint, error);
    }
    connected_url = endpoint.url;
  }

  // One request and its answer on the connection; `error` is what failed.
  template <typename Stream>
  std::optional<HttpResponse> Exchange(Stream& s, const http::request<http::string_body>& request,
                                       beast::error_code& error) {
    tcp().expires_after(timeout);
    http::async_write(s, request, [&](const beast::error_code& e, std::size_t) { error = e; });
    Run();
    if (error) return std::nullopt;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxBody);
    http::async_read(s, buffer, parser,
                     [&](const beast::error_code& e, std::size_t) { error = e; });
    Run();
    if (error) return std::nullopt;
    auto response = parser.release();
    HttpResponse out;
    out.status = static_cast<int>(response.result_int());
    out.body = std::move(response.body());
    if (!response.keep_alive()) Drop();
    return out;
  }
};

HttpClient::HttpClient(std::chrono::milliseconds timeout, const std::optional<TlsFiles>& tls)
    : impl_(std::make_unique<Impl>(timeout, tls)) {}

HttpClient::~HttpClient() = default;

void HttpClient::Close() { impl_->Drop(); }

HttpResponse HttpClient::Post(const Endpoint& endpoint, const std::string& target,
                              const std::string& body,
                              const std::vector<std::pair<std::string, std::string>>& headers) {
  Impl& d = *impl_;
  // A kept-alive connection the server has closed meanwhile fails on first use: then one fresh
  // connection is tried before giving up.
  for (int attempt = 0;; ++attempt) {
    const bool reused = d.connected() && d.connected_url == endpoint.url;
    d.Connect(endpoint);
    http::request<http::string_body> request{http::verb::post, target, 11};
    request.set(http::field::host, endpoint.host + ":" + endpoint.port);
    request.set(http::field::content_type, "application/json");
    for (const auto& [name, value] : headers) request.set(name, value);
    request.body() = body;
    request.prepare_payload();
    request.keep_alive(true);

    beast::error_code error;
    std::optional<HttpResponse> response = d.tls_stream ? d.Exchange(*d.tls_stream, request, error)
                                                        : d.Exchange(*d.stream, request, error);
    if (response) return std::move(*response);
    if (reused && attempt == 0 && error != beast::error::timeout) {
      Close();
      continue;
    }
    d.Fail(endpoint, "POST " + target, error);
  }
}

}  // namespace steadyflake::registry::internal
