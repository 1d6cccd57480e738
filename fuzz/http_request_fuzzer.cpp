// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the sample server's request path, bytes to response. The input is what a client
// sends on one keep-alive connection: Boost.Beast's request parser reads requests from it the
// way Connection does (body limit 1 MiB, Beast's 8 KiB header limit), each request goes to
// RequestHandler::Handle, and a request Beast refuses goes to RequestHandler::Reject (400, or
// 413 for a body over the limit) and ends the input, as it ends the connection. Up to
// kMaxRequests requests are read; reading also stops after a response that closes the
// connection.
//
// Every input runs twice, against a fresh server each time: on the `game` layout, and on
// 30/5/4@1000ms, 39 bits with second-long ticks, where an ID above the layout's largest would
// overflow its tick's start (issue 9.10). The generator reads a simulated clock and the storage
// is in memory and answers at once, so a run is deterministic and fast.
//
// What must hold, else abort:
//   1. Handle answers exactly once, before it returns (the storage answers at once).
//   2. The status is in [200, 599]; a JSON response parses; an error is {"error": string}; a
//      405 carries Allow.
//   3. A 2xx GET /ids returns `count` IDs (1 by default), as decimal strings, increasing.
//   4. A 2xx GET /ids/{id} decodes that ID, with a server id and sequence the layout holds.
//   5. No ID is ever issued twice: every ID in a response or handed to the storage is new.
//   6. A broadcast page mails at most max_mails_per_request players, and `sent` says how many.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "request_handler.h"
#include "steadyflake/clock.h"
#include "steadyflake/generator.h"
#include "steadyflake/layout.h"

// Boost.Beast before 1.86 asserts `n >= 5` in basic_parser::parse_chunk_header where as few as
// 3 bytes are valid input: a last chunk `0\r\n` followed by less than its closing CRLF (Beast
// pull request #2861, fixed upstream in Boost 1.86; Debian 12 ships 1.74). The code after the
// assertion answers need_more, as it should, so a release build is right; only a build with
// assertions (this one, and the server's Debug builds) stops there. This target's assertion
// handler (BOOST_ENABLE_ASSERT_HANDLER, set for it in fuzz/CMakeLists.txt) lets that one
// assertion pass and aborts on every other, as assert() would. The input that found it is in
// the corpus (data/fuzz/http_request/chunk-header-short), so the replay test holds it.
namespace boost {

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file,
                          long line) {
  const std::string_view path(file);
  if (std::string_view(expr) == "n >= 5" && path.ends_with("http/impl/basic_parser.ipp")) return;
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed%s%s\n", file, line, function, expr,
               msg != nullptr ? ": " : ".", msg != nullptr ? msg : "");
  std::abort();
}

void assertion_failed(char const* expr, char const* function, char const* file, long line) {
  assertion_failed_msg(expr, nullptr, function, file, line);
}

}  // namespace boost

namespace {

namespace http = boost::beast::http;
using json = nlohmann::json;
using steadyflake::Generator;
using steadyflake::Id;
using steadyflake::Layout;
using steadyflake::server::IdSource;
using steadyflake::server::ItemGrant;
using steadyflake::server::MailBody;
using steadyflake::server::Request;
using steadyflake::server::RequestHandler;
using steadyflake::server::Response;
using steadyflake::server::Storage;
using steadyflake::server::StorageDone;
using steadyflake::server::StorageResult;

constexpr int kMaxRequests = 16;
constexpr uint64_t kMailsPerPage = 3;  // small, so broadcasts take several pages
constexpr int64_t kJune2026 = 1780272000000 * int64_t{1'000'000};  // ns

[[noreturn]] void Fail() { std::abort(); }

// Every ID seen in one run: invariant 5.
class IdLedger {
 public:
  void Add(Id id) {
    if (id < 0 || !seen_.insert(id).second) Fail();
  }

 private:
  std::set<Id> seen_;
};

// The Storage contract in memory, answering before the call returns. Checks that no row reuses
// an ID.
class MemoryStorage : public Storage {
 public:
  explicit MemoryStorage(IdLedger& ledger) : ledger_(ledger) {}

  void CreatePlayer(Id id, std::string name, int64_t, StorageDone done) override {
    if (!names_.insert(name).second) return done(Result(StorageResult::Status::kNameTaken));
    ledger_.Add(id);
    players_.insert(id);
    done(Result(StorageResult::Status::kOk));
  }
  void GrantItems(Id owner, std::vector<ItemGrant> items, StorageDone done) override {
    if (players_.count(owner) == 0) return done(Result(StorageResult::Status::kNoSuchPlayer));
    for (const ItemGrant& item : items) ledger_.Add(item.id);
    done(Result(StorageResult::Status::kOk));
  }
  void Broadcast(MailBody body, uint64_t max_mails, IdSource ids, StorageDone done) override {
    ledger_.Add(body.id);
    bodies_[body.id] = std::nullopt;
    done(Page(body.id, max_mails, ids));
  }
  void ContinueBroadcast(Id body_id, uint64_t max_mails, IdSource ids, StorageDone done) override {
    if (bodies_.count(body_id) == 0) return done(Result(StorageResult::Status::kNoSuchBroadcast));
    done(Page(body_id, max_mails, ids));
  }

 private:
  static StorageResult Result(StorageResult::Status status) {
    StorageResult r;
    r.status = status;
    return r;
  }
  StorageResult Page(Id body_id, uint64_t max_mails, const IdSource& ids) {
    std::optional<Id>& last = bodies_[body_id];
    auto player = last ? players_.upper_bound(*last) : players_.begin();
    StorageResult r = Result(StorageResult::Status::kOk);
    while (player != players_.end() && r.count < max_mails) {
      for (const Id id : ids.next_batch(1)) ledger_.Add(id);
      last = *player++;
      ++r.count;
    }
    r.more = player != players_.end();
    return r;
  }

  IdLedger& ledger_;
  std::set<std::string> names_;
  std::set<Id> players_;
  std::map<Id, std::optional<Id>> bodies_;  // body -> last player mailed
};

// An ID in JSON: a decimal string. Adds it to the ledger.
Id IdOf(const json& value, IdLedger* ledger) {
  if (!value.is_string()) Fail();
  const std::string& text = value.get_ref<const std::string&>();
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != text.npos) {
    Fail();
  }
  const Id id = std::stoll(text);
  if (ledger != nullptr) ledger->Add(id);
  return id;
}

// Invariants 2 to 6 for one response to `request` (a null request: a Reject).
void Check(const Request* request, const Response& r, const Layout& layout, IdLedger& ledger) {
  if (r.status < 200 || r.status > 599) Fail();
  if (r.status == 405 && r.allow.empty()) Fail();
  std::string_view path = request != nullptr ? std::string_view(request->target) : "";
  std::string_view query;
  if (const auto q = path.find('?'); q != path.npos) {
    query = path.substr(q + 1);
    path = path.substr(0, q);
  }
  if (r.content_type != "application/json") {
    if (r.status != 200 || path != "/metrics") Fail();
    return;
  }
  const json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) Fail();
  if (r.status >= 400) {
    if (!body.contains("error") || !body["error"].is_string()) Fail();
    return;
  }
  if (request == nullptr) Fail();  // a Reject is never a success
  if (path == "/ids") {
    uint64_t count = 1;  // a 2xx means the query was exactly "" or "count=N" (maybe with &s)
    for (std::size_t start = 0; start <= query.size();) {
      const std::size_t end = std::min(query.find('&', start), query.size());
      const std::string_view param = query.substr(start, end - start);
      if (param.starts_with("count=")) count = std::stoull(std::string(param.substr(6)));
      start = end + 1;
    }
    const json& ids = body.at("ids");
    if (!ids.is_array() || ids.size() != count) Fail();
    Id previous = -1;
    for (const json& id : ids) {
      const Id value = IdOf(id, &ledger);
      if (value <= previous) Fail();
      previous = value;
    }
  } else if (path.starts_with("/ids/")) {
    // The path's digits may carry leading zeros; the answer names the same number.
    const Id id = IdOf(body.at("id"), nullptr);
    uint64_t asked = 0;
    const std::string_view digits = path.substr(5);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), asked);
    if (ec != std::errc() || end != digits.data() + digits.size() ||
        asked != static_cast<uint64_t>(id) || id > layout.max_id()) {
      Fail();
    }
    const json& server_id = body.at("server_id");
    const json& sequence = body.at("sequence");
    if (!server_id.is_number_unsigned() || server_id.get<uint64_t>() > layout.max_server_id() ||
        !sequence.is_number_unsigned() || sequence.get<uint64_t>() > layout.max_sequence() ||
        !body.at("time").is_string()) {
      Fail();
    }
  } else if (path == "/players") {
    if (r.status != 201) Fail();
    IdOf(body.at("id"), nullptr);  // the storage's ledger has it already
  } else if (path.starts_with("/players/")) {
    if (r.status != 201 || !body.at("ids").is_array() || body["ids"].empty()) Fail();
  } else if (path == "/mail/broadcast") {
    const json& sent = body.at("sent");
    if (!sent.is_number_unsigned() || sent.get<uint64_t>() > kMailsPerPage ||
        !body.at("done").is_boolean()) {
      Fail();
    }
    IdOf(body.at("body_id"), nullptr);
  } else if (path != "/healthz") {
    Fail();  // a 2xx for a route that does not exist
  }
}

// Feeds `bytes` to one server on `layout`, request after request, as one connection would.
void RunConnection(std::string_view bytes, const Layout& layout) {
  steadyflake::SimulatedClock clock(kJune2026);
  Generator::Options generator_options;
  generator_options.server_id = 7;
  generator_options.layout = layout;
  generator_options.clock = &clock;
  generator_options.ticker = Generator::Ticker::kManual;
  Generator generator(generator_options);
  IdLedger ledger;
  MemoryStorage storage(ledger);
  RequestHandler::Options handler_options;
  handler_options.max_mails_per_request = kMailsPerPage;
  RequestHandler handler(generator, storage, handler_options);

  for (int n = 0; n < kMaxRequests && !bytes.empty(); ++n) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(RequestHandler::kMaxBodyBytes);
    parser.eager(true);
    boost::beast::error_code ec;
    while (!parser.is_done()) {
      if (bytes.empty()) {
        // The input ends here: the client closed the connection.
        parser.put_eof(ec);
        if (!ec && !parser.is_done()) Fail();
        break;
      }
      const std::size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
      bytes.remove_prefix(used);
      if (ec == http::error::need_more) {
        ec = {};
        if (used == 0) bytes = {};  // what is left is not enough: as if the client closed
        continue;
      }
      if (ec) break;
      if (used == 0 && !parser.is_done()) Fail();  // no progress and no error: a parser hang
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return;
    if (ec) {
      // Connection::OnHeader/OnBody: 413 for the body limit, else 400; then it closes.
      const int status = ec == http::error::body_limit ? 413 : 400;
      Check(nullptr, handler.Reject(status, "malformed HTTP request"), layout, ledger);
      return;
    }
    auto& message = parser.get();
    const Request request{std::string(message.method_string()), std::string(message.target()),
                          std::move(message.body())};
    int answers = 0;
    Response response;
    handler.Handle(request, [&](Response r) {
      ++answers;
      response = std::move(r);
    });
    if (answers != 1) Fail();
    Check(&request, response, layout, ledger);
    if (!message.keep_alive()) return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Layout kGame = Layout::Game();
  static const Layout kLongTicks = Layout::Parse("30/5/4@1000ms");
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  RunConnection(bytes, kGame);
  RunConnection(bytes, kLongTicks);
  return 0;
}
