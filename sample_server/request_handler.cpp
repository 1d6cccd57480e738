// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "request_handler.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <exception>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "steadyflake/id_format.h"

namespace steadyflake::server {

namespace {

using json = nlohmann::json;

// Parses a whole decimal integer in [min, max]; nullopt for anything else (sign, spaces, junk).
std::optional<uint64_t> ParseDecimal(std::string_view text, uint64_t min, uint64_t max) {
  uint64_t value = 0;
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

// The body as a JSON value of the expected kind, or the 400 to answer with.
std::optional<Response> ParseBody(const std::string& body, json& out) {
  out = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return RequestHandler::Error(400, "malformed JSON body");
  return std::nullopt;
}

// `value[key]` as an integer in [min, max], or an error message naming the field.
std::optional<std::string> GetInt(const json& object, const char* key, int64_t min, int64_t max,
                                  int64_t& out) {
  const auto it = object.find(key);
  const std::string range = " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (it == object.end()) return std::string("missing \"") + key + "\": an integer" + range;
  if (it->is_number_integer() && !it->is_number_unsigned()) {
    out = it->get<int64_t>();
  } else if (it->is_number_unsigned() && it->get<uint64_t>() <= static_cast<uint64_t>(max)) {
    out = static_cast<int64_t>(it->get<uint64_t>());
  } else if (it->is_number_unsigned()) {
    out = max;
    return std::string("\"") + key + "\" out of range: must be an integer" + range;
  } else {
    return std::string("\"") + key + "\" must be an integer" + range;
  }
  if (out < min || out > max) {
    return std::string("\"") + key + "\" out of range: must be an integer" + range;
  }
  return std::nullopt;
}

// `object[key]` as a string of min..max bytes without control characters.
std::optional<std::string> GetString(const json& object, const char* key, std::size_t min,
                                     std::size_t max, bool required, std::string& out) {
  const auto it = object.find(key);
  const std::string rule =
      "a string of " + std::to_string(min) + " to " + std::to_string(max) + " bytes";
  if (it == object.end()) {
    if (!required) return std::nullopt;
    return std::string("missing \"") + key + "\": " + rule;
  }
  if (!it->is_string()) return std::string("\"") + key + "\" must be " + rule;
  out = it->get<std::string>();
  if (out.size() < min || out.size() > max) {
    return std::string("\"") + key + "\" must be " + rule;
  }
  if (std::any_of(out.begin(), out.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return std::string("\"") + key + "\" must not contain control characters";
  }
  return std::nullopt;
}

void AppendId(std::string& out, Id id) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), id).ptr;
  out.push_back('"');
  out.append(digits, end);
  out.push_back('"');
}

// {"ids":["1","2"]}: IDs as strings, since JavaScript and Lua 5.1 lose precision above 2^53.
std::string IdsJson(const std::vector<Id>& ids) {
  std::string out = "{\"ids\":[";
  out.reserve(10 + ids.size() * 22);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendId(out, ids[i]);
  }
  out += "]}";
  return out;
}

Response Ok(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response MethodNotAllowed(const char* allow) {
  Response r = RequestHandler::Error(405, std::string("method not allowed; use ") + allow);
  r.allow = allow;
  return r;
}

}  // namespace

RequestHandler::Routing RequestHandler::RouteOf(std::string_view target) {
  Routing routing;
  if (const auto q = target.find('?'); q != std::string_view::npos) {
    routing.query = target.substr(q + 1);
    target = target.substr(0, q);
  }
  constexpr std::string_view kPlayers = "/players/";
  constexpr std::string_view kItems = "/items";
  constexpr std::string_view kIdsPrefix = "/ids/";

  // Which route the path names, the method it takes, and the ID in it, if any.
  if (target == "/players") {
    routing.route = Route::kCreatePlayer;
    routing.allowed = "POST";
  } else if (target.size() > kPlayers.size() + kItems.size() && target.starts_with(kPlayers) &&
             target.ends_with(kItems) &&
             target.substr(kPlayers.size(), target.size() - kPlayers.size() - kItems.size())
                     .find('/') == std::string_view::npos) {
    routing.route = Route::kGrantItems;
    routing.allowed = "POST";
    routing.path_id =
        target.substr(kPlayers.size(), target.size() - kPlayers.size() - kItems.size());
  } else if (target == "/mail/broadcast") {
    routing.route = Route::kBroadcast;
    routing.allowed = "POST";
  } else if (target == "/ids") {
    routing.route = Route::kIds;
  } else if (target.size() > kIdsPrefix.size() && target.starts_with(kIdsPrefix) &&
             target.find('/', kIdsPrefix.size()) == std::string_view::npos) {
    routing.route = Route::kDecodeId;
    routing.path_id = target.substr(kIdsPrefix.size());
  } else if (target == "/metrics") {
    routing.route = Route::kMetrics;
  } else if (target == "/healthz") {
    routing.route = Route::kHealthz;
  }
  return routing;
}

RequestHandler::RequestHandler(Generator& generator, Storage& storage, Options options)
    : generator_(generator), storage_(storage), options_(std::move(options)) {
  assert(options_.max_mails_per_request >= 1 && "a broadcast page must hold a mail");
}

Response RequestHandler::Error(int status, std::string_view message) {
  Response r;
  r.status = status;
  // replace: a message never carries invalid UTF-8 into the response.
  r.body = json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

Response RequestHandler::Reject(int status, std::string_view message) {
  requests_.Count(Route::kOther, status);
  return Error(status, message);
}

void RequestHandler::Handle(const Request& request, Respond respond) {
  const Routing routing = RouteOf(request.target);
  const bool writes = routing.route == Route::kCreatePlayer ||
                      routing.route == Route::kGrantItems || routing.route == Route::kBroadcast;
  if (writes && request.method == routing.allowed) {
    return HandleWrite(request, routing, std::move(respond));
  }
  // Everything else is answered here, before Handle returns: no copy of `respond` is kept, so
  // it is called exactly once without the guard a storage write needs (GET /ids is the load
  // test's route: no allocation or atomic beyond the answer itself).
  Route counted = routing.route;
  Response response;
  try {
    response = AnswerNow(request, routing);
  } catch (const std::exception& e) {  // std::bad_alloc, or a bug: never a crash
    if (options_.log_error) options_.log_error(std::string("request failed: ") + e.what());
    counted = Route::kOther;
    response = Error(500, "internal error");
  }
  requests_.Count(counted, response.status);
  try {
    respond(std::move(response));
  } catch (const std::exception& e) {  // the connection could not take it (std::bad_alloc)
    if (options_.log_error) options_.log_error(std::string("request failed: ") + e.what());
  }
}

void RequestHandler::HandleWrite(const Request& request, const Routing& routing, Respond respond) {
  // `once` forwards the first response only: if something throws after the storage took a
  // copy, the 500 below and a later storage callback cannot both answer.
  struct Once {
    std::atomic<bool> done{false};
    Respond respond;
  };
  auto once = std::make_shared<Once>();
  once->respond = std::move(respond);
  // Counted under the route by value: the response comes later, from the storage's thread.
  Respond forward = [this, once, route = routing.route](Response r) {
    if (once->done.exchange(true, std::memory_order_acq_rel)) return;
    requests_.Count(route, r.status);
    once->respond(std::move(r));
  };
  try {
    switch (routing.route) {
      case Route::kCreatePlayer:
        return CreatePlayer(request, std::move(forward));
      case Route::kGrantItems: {
        const auto owner = TryParseId(routing.path_id);
        if (!owner) {
          return forward(Error(400, "bad player ID: must be a decimal integer in [0, 2^63)"));
        }
        return GrantItems(*owner, request, std::move(forward));
      }
      case Route::kBroadcast:
        return Broadcast(request, std::move(forward));
      default:
        assert(false && "HandleWrite is only for the routes that write");
        return forward(Error(500, "internal error"));
    }
  } catch (const std::exception& e) {  // std::bad_alloc, or a bug: never a crash
    if (options_.log_error) options_.log_error(std::string("request failed: ") + e.what());
    if (!once->done.exchange(true, std::memory_order_acq_rel)) {
      requests_.Count(Route::kOther, 500);
      once->respond(Error(500, "internal error"));
    }
  }
}

Response RequestHandler::AnswerNow(const Request& request, const Routing& routing) {
  if (routing.route == Route::kOther) {
    return Error(404, "no such route; see docs/server.md for the routes");
  }
  if (request.method != routing.allowed) return MethodNotAllowed(routing.allowed);
  switch (routing.route) {
    case Route::kIds:
      return Ids(routing.query);
    case Route::kDecodeId:
      return DecodeId(routing.path_id);
    case Route::kMetrics: {
      Response r = Ok(200, MetricsText());
      r.content_type = kMetricsContentType;
      return r;
    }
    case Route::kHealthz:
      return Ok(200, "{\"status\":\"ok\"}");
    default:
      assert(false && "the routes that write go through HandleWrite");
      return Error(500, "internal error");
  }
}

std::vector<Id> RequestHandler::Issue(uint64_t n) {
  std::vector<Id> ids;
  ids.reserve(n);
  generator_.next_batch_into(
      n, [&ids](const IdRange& range) { ids.insert(ids.end(), range.begin(), range.end()); });
  return ids;
}

Response RequestHandler::StorageFailure(const StorageResult& result) {
  if (result.status == StorageResult::Status::kUnavailable) {
    return Error(503, "the server is shutting down; retry on another server");
  }
  if (options_.log_error) options_.log_error(result.message);
  return Error(500, "database write failed; nothing was written");
}

StorageDone RequestHandler::AnswerCreated(Respond respond, std::string created,
                                          StorageResult::Status refusal, int refused_status,
                                          const char* refused_message) {
  return [this, respond = std::move(respond), created = std::move(created), refusal, refused_status,
          refused_message](StorageResult result) {
    if (result.status == StorageResult::Status::kOk) return respond(Ok(201, created));
    if (result.status == refusal) return respond(Error(refused_status, refused_message));
    respond(StorageFailure(result));
  };
}

void RequestHandler::CreatePlayer(const Request& request, Respond respond) {
  json body;
  if (auto bad = ParseBody(request.body, body)) return respond(std::move(*bad));
  if (!body.is_object()) return respond(Error(400, "body must be a JSON object {\"name\":...}"));
  std::string name;
  if (auto bad = GetString(body, "name", 1, kMaxNameBytes, true, name)) {
    return respond(Error(400, *bad));
  }
  const Id id = Issue(1).front();
  constexpr int64_t kLevel = 1;
  // The response is built before the write, from values the storage does not change.
  // ordered_json keeps the documented key order: id, name, level.
  std::string created =
      nlohmann::ordered_json{{"id", std::to_string(id)}, {"name", name}, {"level", kLevel}}.dump();
  storage_.CreatePlayer(
      id, std::move(name), kLevel,
      AnswerCreated(std::move(respond), std::move(created), StorageResult::Status::kNameTaken, 409,
                    "name taken; choose another name"));
}

void RequestHandler::GrantItems(Id owner, const Request& request, Respond respond) {
  json body;
  if (auto bad = ParseBody(request.body, body)) return respond(std::move(*bad));
  // One grant {"template":T,"count":C} or a list of them; each becomes one item row.
  std::vector<const json*> grants;
  if (body.is_object()) {
    grants.push_back(&body);
  } else if (body.is_array() && !body.empty() && body.size() <= kMaxItemsPerGrant) {
    for (const json& g : body) {
      if (!g.is_object()) {
        return respond(Error(400, "each grant must be an object {\"template\":int,\"count\":int}"));
      }
      grants.push_back(&g);
    }
  } else {
    return respond(Error(400, "body must be {\"template\":int,\"count\":int} or a list of 1 to " +
                                  std::to_string(kMaxItemsPerGrant) + " of them"));
  }
  std::vector<ItemGrant> items(grants.size());
  for (std::size_t i = 0; i < grants.size(); ++i) {
    if (auto bad = GetInt(*grants[i], "template", 0, INT64_MAX, items[i].template_id)) {
      return respond(Error(400, *bad));
    }
    if (auto bad = GetInt(*grants[i], "count", 1, INT32_MAX, items[i].count)) {
      return respond(Error(400, *bad));
    }
  }
  const std::vector<Id> ids = Issue(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) items[i].id = ids[i];
  storage_.GrantItems(owner, std::move(items),
                      AnswerCreated(std::move(respond), IdsJson(ids),
                                    StorageResult::Status::kNoSuchPlayer, 404, "no such player"));
}

void RequestHandler::Broadcast(const Request& request, Respond respond) {
  json body;
  if (auto bad = ParseBody(request.body, body)) return respond(std::move(*bad));
  if (!body.is_object()) {
    return respond(Error(400, "body must be a JSON object {\"subject\":...}"));
  }
  // {"body_id":"…"} alone: the next page of a broadcast begun before.
  if (const auto it = body.find("body_id"); it != body.end()) {
    if (body.contains("subject") || body.contains("body")) {
      return respond(Error(400,
                           "give \"subject\" (and \"body\") to start a broadcast, or only "
                           "\"body_id\" to send its next page, not both"));
    }
    const std::optional<Id> body_id =
        it->is_string() ? TryParseId(it->get_ref<const std::string&>()) : std::nullopt;
    if (!body_id) {
      return respond(Error(400,
                           "\"body_id\" must be an ID as a decimal string, as the broadcast's "
                           "first answer gave it"));
    }
    return storage_.ContinueBroadcast(*body_id, options_.max_mails_per_request, MailIds(),
                                      AnswerBroadcast(std::move(respond), *body_id));
  }
  MailBody mail;
  if (auto bad = GetString(body, "subject", 1, kMaxSubjectBytes, true, mail.subject)) {
    return respond(Error(400, *bad));
  }
  if (const auto it = body.find("body"); it != body.end()) {
    if (!it->is_string() || it->get_ref<const std::string&>().size() > kMaxMailBodyBytes) {
      return respond(Error(400, "\"body\" must be a string of at most " +
                                    std::to_string(kMaxMailBodyBytes) + " bytes"));
    }
    mail.body = it->get<std::string>();
  }
  mail.id = Issue(1).front();
  const Id body_id = mail.id;
  storage_.Broadcast(std::move(mail), options_.max_mails_per_request, MailIds(),
                     AnswerBroadcast(std::move(respond), body_id));
}

IdSource RequestHandler::MailIds() {
  IdSource ids;
  ids.max_batch = generator_.max_batch();
  ids.next_batch = [this](uint64_t n) { return generator_.next_batch(n); };
  return ids;
}

StorageDone RequestHandler::AnswerBroadcast(Respond respond, Id body_id) {
  return [this, respond = std::move(respond), body_id](StorageResult result) {
    if (result.status == StorageResult::Status::kNoSuchBroadcast) {
      return respond(Error(404, "no such broadcast; start one with {\"subject\":...}"));
    }
    if (result.status != StorageResult::Status::kOk) return respond(StorageFailure(result));
    std::string out = "{\"sent\":";
    out.append(std::to_string(result.count)).append(",\"body_id\":");
    AppendId(out, body_id);
    out.append(",\"done\":").append(result.more ? "false" : "true").append("}");
    respond(Ok(200, std::move(out)));
  };
}

Response RequestHandler::Ids(std::string_view query) {
  uint64_t count = 1;
  bool count_seen = false;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.starts_with("count=")) {
      // Which of two values the client meant is a guess: refuse rather than pick one.
      if (count_seen) {
        return Error(400, "query parameter \"count\" given more than once; pass it once");
      }
      count_seen = true;
      const auto n = ParseDecimal(param.substr(6), 1, kMaxIdsPerRequest);
      if (!n) {
        return Error(
            400, "bad count: must be an integer in [1, " + std::to_string(kMaxIdsPerRequest) + "]");
      }
      count = *n;
    } else if (!param.empty()) {
      return Error(400, "unknown query parameter; GET /ids takes only count=N");
    }
  }
  // The IDs go straight into the JSON, with no vector between (see IdsJson).
  std::string out;
  out.reserve(12 + count * 22);
  out = "{\"ids\":[";
  generator_.next_batch_into(count, [&out](const IdRange& range) {
    for (const Id id : range) {
      AppendId(out, id);
      out.push_back(',');
    }
  });
  out.back() = ']';  // over the last ',' (count >= 1)
  out.push_back('}');
  return Ok(200, std::move(out));
}

Response RequestHandler::DecodeId(std::string_view text) const {
  // The layout owns the range (Layout::max_id(), as for `steadyflake decode`): above it an ID
  // has a tick the layout cannot hold, whose start time may not even fit in an int64.
  const Layout& layout = generator_.layout();
  const auto id = ParseDecimal(text, 0, static_cast<uint64_t>(layout.max_id()));
  if (!id) {
    std::string message = "bad ID: must be a decimal integer in [0, ";
    message.append(std::to_string(layout.max_id()))
        .append("], the IDs layout ")
        .append(layout.ToString())
        .append(" holds");
    return Error(400, message);
  }
  const Id value = static_cast<Id>(*id);
  return Ok(200, FormatDecoded(value, layout.Decode(value), DecodedFormat::kJson));
}

std::string RequestHandler::MetricsText() const {
  MetricsSnapshot snapshot;
  snapshot.stats = generator_.stats();
  snapshot.layout = generator_.layout().ToString();
  snapshot.server_id = generator_.server_id();
  std::string out = RenderMetrics(snapshot, requests_);
  if (options_.extra_metrics) options_.extra_metrics(&out);
  return out;
}

}  // namespace steadyflake::server
