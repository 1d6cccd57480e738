// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// RequestHandler turns one HTTP request into one response: routing, validation, ID issuing,
// the calls to Storage and JSON. It counts every answer for /metrics, whose text metrics.h
// renders. It does no I/O of its own (no sockets, no files), so it is unit-tested with a fake
// Storage and a generator on a simulated clock (tests/server/request_handler_test.cpp).
// docs/server.md lists the routes.
//
// Thread-safety: Handle() and Reject() may be called from any number of threads at once.

#ifndef STEADYFLAKE_SAMPLE_SERVER_REQUEST_HANDLER_H_
#define STEADYFLAKE_SAMPLE_SERVER_REQUEST_HANDLER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics.h"
#include "steadyflake/generator.h"
#include "storage.h"

namespace steadyflake::server {

// What the handler needs of a request: the connection has parsed the HTTP around it.
struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, e.g. "/ids?count=5"
  std::string body;
};

struct Response {
  int status = 200;
  // A constant: every Content-Type the handler answers with is a string literal.
  std::string_view content_type = "application/json";
  std::string body;
  std::string allow;  // the Allow header of a 405, else empty
};

class RequestHandler {
 public:
  // Largest body a connection reads; a larger one gets 413 via Reject().
  static constexpr std::size_t kMaxBodyBytes = std::size_t{1} << 20;
  static constexpr uint64_t kMaxIdsPerRequest = 10000;    // GET /ids?count=N
  static constexpr std::size_t kMaxItemsPerGrant = 1000;  // POST /players/{id}/items
  static constexpr std::size_t kMaxNameBytes = 64;
  static constexpr std::size_t kMaxSubjectBytes = 200;
  static constexpr std::size_t kMaxMailBodyBytes = 64 * 1024;
  // Mails one POST /mail/broadcast writes at most (a page); the client asks for the next page
  // with the body's ID. With the body stored once, a request writes at most about
  // kMaxMailBodyBytes + kMaxMailsPerRequest * 40 bytes, however many players there are.
  static constexpr uint64_t kMaxMailsPerRequest = 10000;

  struct Options {
    // Appends more Prometheus text to /metrics (e.g. the storage's counters). May be empty.
    std::function<void(std::string*)> extra_metrics;
    // Told about server-side failures (a failed database write) in one line. May be empty.
    std::function<void(const std::string&)> log_error;
    // A broadcast's page: mails one request writes at most. Default kMaxMailsPerRequest; tests
    // lower it. At least 1.
    uint64_t max_mails_per_request = kMaxMailsPerRequest;
  };

  // `generator` and `storage` are not owned and must outlive the handler.
  RequestHandler(Generator& generator, Storage& storage, Options options);
  RequestHandler(Generator& generator, Storage& storage)
      : RequestHandler(generator, storage, Options{}) {}

  using Respond = std::function<void(Response)>;

  // Handles `request` and calls `respond` exactly once with the response: before Handle
  // returns for requests that need no storage (on the calling thread, with no copy of `respond`
  // kept), else later from the storage's thread. `respond` must not block. Never throws (a
  // failure becomes a 500 response).
  void Handle(const Request& request, Respond respond);

  // The response to a request the connection could not read (status 400, or 413 for a body over
  // kMaxBodyBytes), counted in /metrics under route "other".
  Response Reject(int status, std::string_view message);

  // A JSON error response {"error": message}.
  static Response Error(int status, std::string_view message);

  // GET /metrics's body: RenderMetrics() of this handler's counts and generator, then
  // Options::extra_metrics.
  std::string MetricsText() const;

 private:
  // Where a request's target leads: the route, the method it takes, the ID in its path (for
  // /players/{id}/items and /ids/{id}) and the query (after '?'). Views into the target.
  struct Routing {
    Route route = Route::kOther;
    const char* allowed = "GET";
    std::string_view path_id;
    std::string_view query;
  };
  static Routing RouteOf(std::string_view target);
  // The routes that write (POST /players, /players/{id}/items, /mail/broadcast, with their
  // method): `respond` is called exactly once, here for a bad request, else later from the
  // storage's thread.
  void HandleWrite(const Request& request, const Routing& routing, Respond respond);
  // Every other request's answer, computed here. May throw (std::bad_alloc).
  Response AnswerNow(const Request& request, const Routing& routing);
  void CreatePlayer(const Request& request, Respond respond);
  void GrantItems(Id owner, const Request& request, Respond respond);
  void Broadcast(const Request& request, Respond respond);
  // The IDs a broadcast's storage takes, one per mail.
  IdSource MailIds();
  // The `done` of a broadcast's page: 200 {"sent":N,"body_id":"…","done":bool}.
  StorageDone AnswerBroadcast(Respond respond, Id body_id);
  Response Ids(std::string_view query);
  Response DecodeId(std::string_view text) const;
  // `n` IDs from the generator (next_batch_into: reservations of at most max_batch()).
  std::vector<Id> Issue(uint64_t n);
  Response StorageFailure(const StorageResult& result);
  // The `done` of a write that creates rows: 201 with `created` once they are durable;
  // `refused_status` with `refused_message` when the storage answers `refusal` (the client's
  // mistake; nothing was written); StorageFailure() for anything else. `refused_message` must be
  // a string literal.
  StorageDone AnswerCreated(Respond respond, std::string created, StorageResult::Status refusal,
                            int refused_status, const char* refused_message);

  Generator& generator_;
  Storage& storage_;
  const Options options_;

  RequestCounts requests_;
};

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_REQUEST_HANDLER_H_
