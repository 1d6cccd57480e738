// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// RequestHandler without sockets: every route, every class of bad request, and what reaches
// /metrics, with an in-memory Storage and a generator on a simulated clock. The /metrics text
// itself is tested in metrics_test.cpp.

#include "request_handler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../test_util.h"
#include "manual_generator.h"
#include "steadyflake/clock.h"
#include "steadyflake/generator.h"
#include "steadyflake/layout.h"

namespace steadyflake::server {
namespace {

using nlohmann::json;
using steadyflake::testing::kJune2026;

// Storage in memory. Answers at once, or holds answers back (`defer`) until Flush(), the way
// the SQLite storage answers later from its own thread.
class FakeStorage : public Storage {
 public:
  void CreatePlayer(Id id, std::string name, int64_t level, StorageDone done) override {
    Answer(std::move(done), [=, this] {
      if (names.count(name) != 0) return Result(StorageResult::Status::kNameTaken);
      names.insert(name);
      players[id] = level;
      return Result(StorageResult::Status::kOk);
    });
  }
  void GrantItems(Id owner, std::vector<ItemGrant> grants, StorageDone done) override {
    Answer(std::move(done), [=, this] {
      if (players.count(owner) == 0) return Result(StorageResult::Status::kNoSuchPlayer);
      for (const ItemGrant& g : grants) items.push_back(g);
      return Result(StorageResult::Status::kOk);
    });
  }
  void Broadcast(MailBody body, uint64_t max_mails, IdSource ids, StorageDone done) override {
    Answer(std::move(done), [=, this] {
      if (bodies.count(body.id) != 0) return Result(StorageResult::Status::kFailed);
      bodies[body.id] = Body{body.subject, body.body, std::nullopt};
      return Page(body.id, max_mails, ids);
    });
  }
  void ContinueBroadcast(Id body_id, uint64_t max_mails, IdSource ids, StorageDone done) override {
    Answer(std::move(done), [=, this] {
      if (bodies.count(body_id) == 0) return Result(StorageResult::Status::kNoSuchBroadcast);
      return Page(body_id, max_mails, ids);
    });
  }
  void Flush() {
    auto pending = std::move(deferred);
    deferred.clear();
    for (auto& answer : pending) answer();
  }

  std::optional<StorageResult::Status> force;  // answer every call with this status
  bool defer = false;
  std::set<std::string> names;
  std::map<Id, int64_t> players;
  std::vector<ItemGrant> items;
  struct Body {
    std::string subject, body;
    std::optional<Id> last_player;
  };
  std::map<Id, Body> bodies;
  struct Mail {
    Id player = 0;
    Id body = 0;
  };
  std::map<Id, Mail> mails;

 private:
  static StorageResult Result(StorageResult::Status status) {
    StorageResult r;
    r.status = status;
    if (status == StorageResult::Status::kFailed) r.message = "disk full";
    return r;
  }
  // The next `max_mails` players after the body's last one, in id order, as the contract says.
  StorageResult Page(Id body_id, uint64_t max_mails, const IdSource& ids) {
    Body& body = bodies[body_id];
    auto player = body.last_player ? players.upper_bound(*body.last_player) : players.begin();
    const auto remaining = static_cast<uint64_t>(std::distance(player, players.end()));
    StorageResult r = Result(StorageResult::Status::kOk);
    r.count = std::min(remaining, max_mails);
    r.more = remaining > max_mails;
    for (uint64_t sent = 0; sent < r.count;) {
      const uint64_t n = std::min<uint64_t>(r.count - sent, ids.max_batch);
      for (const Id id : ids.next_batch(n)) {
        mails[id] = Mail{player->first, body_id};
        body.last_player = player->first;
        ++player;
        ++sent;
      }
    }
    return r;
  }
  template <typename F>
  void Answer(StorageDone done, F work) {
    auto run = [this, done = std::move(done), work] { done(force ? Result(*force) : work()); };
    if (defer) {
      deferred.push_back(run);
    } else {
      run();
    }
  }
  std::vector<std::function<void()>> deferred;
};

class RequestHandlerTest : public ::testing::Test {
 protected:
  RequestHandlerTest()
      : clock_(kJune2026),
        generator_(server_test::ManualGeneratorOptions(&clock_, 7)),
        handler_(generator_, storage_, HandlerOptions()) {}

  RequestHandler::Options HandlerOptions() {
    RequestHandler::Options options;
    options.log_error = [this](const std::string& line) { logged_.push_back(line); };
    return options;
  }

  // The response to one request; fails the test if the handler answers other than once.
  Response Call(const std::string& method, const std::string& target,
                const std::string& body = "") {
    int answers = 0;
    Response out;
    handler_.Handle(Request{method, target, body}, [&](Response r) {
      ++answers;
      out = std::move(r);
    });
    storage_.Flush();
    EXPECT_EQ(answers, 1) << method << " " << target;
    return out;
  }

  // The JSON body of a response with the given status.
  json Expect(int status, const Response& r) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.content_type, "application/json");
    const json body = json::parse(r.body, nullptr, false);
    EXPECT_FALSE(body.is_discarded()) << r.body;
    if (status >= 400) {
      EXPECT_TRUE(body.contains("error") && body["error"].is_string()) << r.body;
    }
    return body;
  }

  Id CreatePlayer(const std::string& name) {
    const json body = Expect(201, Call("POST", "/players", json{{"name", name}}.dump()));
    return std::stoll(body["id"].get<std::string>());
  }

  SimulatedClock clock_;
  Generator generator_;
  FakeStorage storage_;
  std::vector<std::string> logged_;
  RequestHandler handler_;
};

TEST_F(RequestHandlerTest, CreatePlayerReturnsIdAsStringAndLevelOne) {
  const Response r = Call("POST", "/players", R"({"name":"alice"})");
  const json body = Expect(201, r);
  ASSERT_TRUE(body["id"].is_string());
  EXPECT_EQ(body["name"], "alice");
  EXPECT_EQ(body["level"], 1);
  // The documented key order.
  EXPECT_EQ(r.body.find("\"id\""), 1u);
  const Id id = std::stoll(body["id"].get<std::string>());
  EXPECT_EQ(generator_.layout().Decode(id).server_id, 7u);
  EXPECT_EQ(storage_.players.count(id), 1u);
}

TEST_F(RequestHandlerTest, TakenNameIs409) {
  CreatePlayer("bob");
  Expect(409, Call("POST", "/players", R"({"name":"bob"})"));
  EXPECT_EQ(storage_.players.size(), 1u);
}

TEST_F(RequestHandlerTest, AnswersLaterWhenStorageAnswersLater) {
  storage_.defer = true;
  int answers = 0;
  handler_.Handle(Request{"POST", "/players", R"({"name":"late"})"}, [&](Response r) {
    EXPECT_EQ(r.status, 201);
    ++answers;
  });
  EXPECT_EQ(answers, 0);
  storage_.Flush();
  EXPECT_EQ(answers, 1);
  EXPECT_NE(handler_.MetricsText().find(
                R"(steadyflake_http_requests_total{route="/players",status="201"} 1)"),
            std::string::npos);
}

TEST_F(RequestHandlerTest, GrantItemsOneOrAList) {
  const Id player = CreatePlayer("carol");
  const std::string base = "/players/" + std::to_string(player) + "/items";
  json one = Expect(201, Call("POST", base, R"({"template":5,"count":3})"));
  ASSERT_EQ(one["ids"].size(), 1u);
  EXPECT_TRUE(one["ids"][0].is_string());
  json many =
      Expect(201, Call("POST", base, R"([{"template":1,"count":1},{"template":2,"count":9}])"));
  ASSERT_EQ(many["ids"].size(), 2u);
  ASSERT_EQ(storage_.items.size(), 3u);
  EXPECT_EQ(storage_.items[0].template_id, 5);
  EXPECT_EQ(storage_.items[0].count, 3);
  EXPECT_EQ(storage_.items[2].count, 9);
  EXPECT_EQ(std::to_string(storage_.items[2].id), many["ids"][1].get<std::string>());
  // Increasing IDs, in the order of the request.
  EXPECT_LT(storage_.items[0].id, storage_.items[1].id);
  EXPECT_LT(storage_.items[1].id, storage_.items[2].id);
}

TEST_F(RequestHandlerTest, GrantItemsToUnknownPlayerIs404) {
  Expect(404, Call("POST", "/players/12345/items", R"({"template":5,"count":3})"));
  EXPECT_TRUE(storage_.items.empty());
}

TEST_F(RequestHandlerTest, BroadcastMailsEveryPlayerWithFreshIds) {
  for (int i = 0; i < 5; ++i) CreatePlayer(std::string("p").append(std::to_string(i)));
  const Response r = Call("POST", "/mail/broadcast", R"({"subject":"hi","body":"x"})");
  const json body = Expect(200, r);
  EXPECT_EQ(body["sent"], 5);
  EXPECT_EQ(body["done"], true);
  // The documented key order.
  EXPECT_EQ(r.body.rfind("{\"sent\":5,\"body_id\":\"", 0), 0u) << r.body;
  ASSERT_TRUE(body["body_id"].is_string());
  const Id body_id = std::stoll(body["body_id"].get<std::string>());
  ASSERT_EQ(storage_.bodies.size(), 1u);
  EXPECT_EQ(storage_.bodies[body_id].subject, "hi");
  EXPECT_EQ(storage_.bodies[body_id].body, "x");
  ASSERT_EQ(storage_.mails.size(), 5u);
  std::set<Id> to;
  for (const auto& [mail, m] : storage_.mails) {
    EXPECT_EQ(storage_.players.count(mail), 0u);
    EXPECT_GT(mail, body_id);
    EXPECT_EQ(m.body, body_id);
    to.insert(m.player);
  }
  EXPECT_EQ(to.size(), 5u);
  EXPECT_EQ(generator_.stats().issued, 5u + 1 + 5);  // players, the body, mails
}

TEST_F(RequestHandlerTest, BroadcastLargerThanOneBatch) {
  const uint64_t players = generator_.max_batch() + 3;
  for (uint64_t i = 0; i < players; ++i) storage_.players[static_cast<Id>(i)] = 1;
  RequestHandler::Options options;
  options.max_mails_per_request = players;  // one page, so the storage asks for two batches
  RequestHandler handler(generator_, storage_, options);
  Response r;
  handler.Handle(Request{"POST", "/mail/broadcast", R"({"subject":"spike"})"},
                 [&](Response answer) { r = std::move(answer); });
  const json body = Expect(200, r);
  EXPECT_EQ(body["sent"], players);
  EXPECT_EQ(body["done"], true);
  EXPECT_EQ(storage_.mails.size(), players);
}

// Issue 9.11: one request wrote a mail to every player, however many; it writes one page of
// at most max_mails_per_request, and the client asks for the next with the body's ID.
TEST(RequestHandlerBroadcastTest, OneRequestMailsAtMostOnePage) {
  SimulatedClock clock(kJune2026);
  Generator::Options options;
  options.server_id = 7;
  options.clock = &clock;
  options.ticker = Generator::Ticker::kManual;
  Generator generator(options);
  FakeStorage storage;
  for (Id player = 1; player <= 10; ++player) storage.players[player] = 1;
  RequestHandler::Options handler_options;
  handler_options.max_mails_per_request = 4;
  RequestHandler handler(generator, storage, handler_options);
  const auto post = [&](const json& body) {
    Response out;
    handler.Handle(Request{"POST", "/mail/broadcast", body.dump()},
                   [&](Response r) { out = std::move(r); });
    EXPECT_EQ(out.status, 200) << out.body;
    return json::parse(out.body);
  };
  const json first = post({{"subject", "Season 2"}});
  EXPECT_EQ(first["sent"], 4);
  EXPECT_EQ(first["done"], false);
  const json page = {{"body_id", first["body_id"]}};
  const json second = post(page);
  EXPECT_EQ(second["sent"], 4);
  EXPECT_EQ(second["done"], false);
  EXPECT_EQ(second["body_id"], first["body_id"]);
  const json third = post(page);
  EXPECT_EQ(third["sent"], 2);
  EXPECT_EQ(third["done"], true);
  // Every player got it once; asking again mails only players created since.
  std::set<Id> to;
  for (const auto& [mail, m] : storage.mails) EXPECT_TRUE(to.insert(m.player).second);
  EXPECT_EQ(to.size(), 10u);
  EXPECT_EQ(post(page)["sent"], 0);
  storage.players[11] = 1;
  const json late = post(page);
  EXPECT_EQ(late["sent"], 1);
  EXPECT_EQ(late["done"], true);
  EXPECT_EQ(storage.bodies.size(), 1u);
}

TEST_F(RequestHandlerTest, BroadcastNextPageErrors) {
  CreatePlayer("frank");
  EXPECT_EQ(Expect(404, Call("POST", "/mail/broadcast", R"({"body_id":"12345"})"))["error"],
            "no such broadcast; start one with {\"subject\":...}");
  for (const char* body : {R"({"body_id":12345})", R"({"body_id":"-1"})", R"({"body_id":"x"})",
                           R"({"body_id":null})", R"({"body_id":"9223372036854775808"})"}) {
    EXPECT_NE(Expect(400, Call("POST", "/mail/broadcast", body))["error"].get<std::string>().find(
                  "\"body_id\" must be an ID as a decimal string"),
              std::string::npos)
        << body;
  }
  for (const char* body : {R"({"body_id":"1","subject":"s"})", R"({"body_id":"1","body":"b"})"}) {
    Expect(400, Call("POST", "/mail/broadcast", body));
  }
  EXPECT_TRUE(storage_.mails.empty());
}

TEST_F(RequestHandlerTest, IdsCountAndDefault) {
  json body = Expect(200, Call("GET", "/ids?count=3"));
  ASSERT_EQ(body["ids"].size(), 3u);
  Id previous = 0;
  for (const json& id : body["ids"]) {
    ASSERT_TRUE(id.is_string());
    const Id value = std::stoll(id.get<std::string>());
    EXPECT_GT(value, previous);
    previous = value;
  }
  EXPECT_EQ(Expect(200, Call("GET", "/ids"))["ids"].size(), 1u);
  EXPECT_EQ(Expect(200, Call("GET", "/ids?count=10000"))["ids"].size(), 10000u);
  EXPECT_EQ(generator_.stats().issued, 3u + 1 + 10000);
}

TEST_F(RequestHandlerTest, IdsBadCountIs400) {
  for (const char* target :
       {"/ids?count=0", "/ids?count=10001", "/ids?count=abc", "/ids?count=", "/ids?count=-1",
        "/ids?count=1.5", "/ids?count=99999999999999999999", "/ids?cnt=3"}) {
    Expect(400, Call("GET", target));
  }
  EXPECT_EQ(generator_.stats().issued, 0u);
}

// Issue 9.12: `GET /ids?count=1&count=2` was answered with 2 IDs (the last count won).
TEST_F(RequestHandlerTest, RepeatedQueryParameterIs400) {
  for (const char* target : {"/ids?count=1&count=2", "/ids?count=3&count=3",
                             "/ids?count=1&&count=2", "/ids?count=1&count=abc"}) {
    const json body = Expect(400, Call("GET", target));
    EXPECT_EQ(body.value("error", ""),
              "query parameter \"count\" given more than once; pass it once")
        << target;
  }
  EXPECT_EQ(generator_.stats().issued, 0u);
}

TEST_F(RequestHandlerTest, DecodeId) {
  const Id id = generator_.layout().Compose(1000, 42, 5);
  const json body = Expect(200, Call("GET", "/ids/" + std::to_string(id)));
  EXPECT_EQ(body["id"], std::to_string(id));
  EXPECT_EQ(body["server_id"], 42);
  EXPECT_EQ(body["sequence"], 5);
  EXPECT_EQ(body["time"], "2024-01-01T00:00:10.000Z");
}

// Issue 9.10: the path's ID was checked only against [0, 2^63). With day-long ticks an ID above
// the layout's largest has a tick whose start overflows int64 (UBSan aborted; otherwise the
// answer was a garbage time). It is a 400 naming the layout's range, as `steadyflake decode`.
TEST(RequestHandlerLayoutTest, DecodeIdAboveTheLayoutsLargestIs400) {
  SimulatedClock clock(kJune2026);
  Generator::Options options;
  options.server_id = 7;
  options.clock = &clock;
  options.ticker = Generator::Ticker::kManual;
  options.layout = Layout::Parse("20/10/10@86400000ms");
  Generator generator(options);
  FakeStorage storage;
  RequestHandler handler(generator, storage);
  const auto decode = [&](Id id) {
    Response out;
    handler.Handle(Request{"GET", std::string("/ids/").append(std::to_string(id)), ""},
                   [&](Response r) { out = std::move(r); });
    return out;
  };
  const Id largest = generator.layout().max_id();
  ASSERT_EQ(largest, (Id{1} << 40) - 1);
  const Response ok = decode(largest);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(json::parse(ok.body)["server_id"], 1023);
  for (const Id id : {largest + 1, Id{1} << 62, Id{INT64_MAX}}) {
    const Response r = decode(id);
    EXPECT_EQ(r.status, 400) << id << ": " << r.body;
    EXPECT_EQ(json::parse(r.body, nullptr, false).value("error", ""),
              "bad ID: must be a decimal integer in [0, 1099511627775], the IDs layout "
              "20/10/10@86400000ms holds")
        << id;
  }
}

TEST_F(RequestHandlerTest, BadIdIs400) {
  for (const char* id : {"abc", "-1", "+1", "1x", "9223372036854775808", "1.0", "%31"}) {
    Expect(400, Call("GET", std::string("/ids/") + id));
    Expect(400,
           Call("POST", std::string("/players/") + id + "/items", R"({"template":1,"count":1})"));
  }
}

TEST_F(RequestHandlerTest, UnknownRouteIs404) {
  for (const char* target : {"/", "/player", "/players/", "/players/1", "/players/1/items/2",
                             "/ids/1/2", "/metricsx", "/healthz/", "/mail"}) {
    Expect(404, Call("GET", target));
  }
}

TEST_F(RequestHandlerTest, WrongMethodIs405WithAllow) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"GET", "/players"}, {"PUT", "/players/1/items"}, {"GET", "/mail/broadcast"},
      {"POST", "/ids"},    {"DELETE", "/ids/1"},        {"POST", "/metrics"},
      {"POST", "/healthz"}};
  for (const auto& [method, target] : cases) {
    const Response r = Call(method, target);
    Expect(405, r);
    EXPECT_FALSE(r.allow.empty()) << method << " " << target;
  }
}

TEST_F(RequestHandlerTest, MalformedJsonIs400) {
  for (const char* body : {"", "{", "{\"name\":", "nul", "{\"name\":\"a\"} x", "\xff\xfe",
                           "{\"name\":\"\xc3\x28\"}"}) {
    Expect(400, Call("POST", "/players", body));
    Expect(400, Call("POST", "/players/1/items", body));
    Expect(400, Call("POST", "/mail/broadcast", body));
  }
  EXPECT_TRUE(storage_.players.empty());
}

TEST_F(RequestHandlerTest, DeeplyNestedJsonIs400NotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Expect(400, Call("POST", "/players", deep));
  Expect(400, Call("POST", "/players", std::string(500000, '[')));
}

TEST_F(RequestHandlerTest, WrongTypesAre400) {
  for (const char* body :
       {"[]", "\"alice\"", "{}", R"({"name":5})", R"({"name":null})", R"({"name":""})",
        R"({"name":["a"]})", R"({"name":"a\nb"})",
        R"({"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})"}) {
    Expect(400, Call("POST", "/players", body));
  }
  const Id player = CreatePlayer("dave");
  const std::string items = "/players/" + std::to_string(player) + "/items";
  for (const char* body :
       {"[]", "5", R"({"template":1})", R"({"count":1})", R"({"template":"1","count":1})",
        R"({"template":1,"count":1.5})", R"({"template":1,"count":0})",
        R"({"template":-1,"count":1})", R"({"template":1,"count":true})",
        R"({"template":18446744073709551615,"count":1})", R"([{"template":1,"count":1},5])",
        R"({"template":1,"count":2147483648})"}) {
    Expect(400, Call("POST", items, body));
  }
  std::string too_many = "[";
  for (std::size_t i = 0; i <= RequestHandler::kMaxItemsPerGrant; ++i) {
    too_many += std::string(i ? "," : "") + R"({"template":1,"count":1})";
  }
  Expect(400, Call("POST", items, too_many + "]"));
  for (const char* body :
       {"{}", R"({"subject":1})", R"({"subject":""})", R"({"subject":"s","body":5})"}) {
    Expect(400, Call("POST", "/mail/broadcast", body));
  }
  EXPECT_TRUE(storage_.items.empty());
  EXPECT_TRUE(storage_.mails.empty());
}

TEST_F(RequestHandlerTest, StorageFailureIs500AndLogged) {
  storage_.force = StorageResult::Status::kFailed;
  Expect(500, Call("POST", "/players", R"({"name":"erin"})"));
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_EQ(logged_[0], "disk full");
}

TEST_F(RequestHandlerTest, ShuttingDownIs503) {
  storage_.force = StorageResult::Status::kUnavailable;
  Expect(503, Call("POST", "/players", R"({"name":"erin"})"));
  Expect(503, Call("POST", "/mail/broadcast", R"({"subject":"s"})"));
}

TEST_F(RequestHandlerTest, RejectCountsUnderOther) {
  const Response r = handler_.Reject(413, "request body over 1 MiB");
  Expect(413, r);
  EXPECT_NE(handler_.MetricsText().find(
                R"(steadyflake_http_requests_total{route="other",status="413"} 1)"),
            std::string::npos);
}

TEST_F(RequestHandlerTest, HealthzAndMetrics) {
  Expect(200, Call("GET", "/healthz"));
  Call("GET", "/ids?count=4");
  Call("GET", "/nope");
  const Response r = Call("GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type.rfind("text/plain; version=0.0.4", 0), 0u);
  for (const char* line :
       {"steadyflake_ids_issued_total 4\n", "steadyflake_clock_skew_seconds ",
        "steadyflake_lead_seconds ", "# TYPE steadyflake_ids_issued_total counter\n",
        R"(steadyflake_http_requests_total{route="/healthz",status="200"} 1)",
        R"(steadyflake_http_requests_total{route="/ids",status="200"} 1)",
        R"(steadyflake_http_requests_total{route="other",status="404"} 1)",
        R"(steadyflake_server_info{layout="37/16/10@10ms",server_id="7"} 1)"}) {
    EXPECT_NE(r.body.find(line), std::string::npos) << line << "\n" << r.body;
  }
  // The text itself, line by line, is metrics_test's.
}

// GET /ids writes its JSON from the generator's reservations: one count split over several
// (max_batch() is 4 IDs here: 2 sequence bits, max_lead 0) still gives one well-formed list.
TEST(RequestHandlerIds, ACountOverSeveralReservationsIsOneIncreasingList) {
  SimulatedClock clock(kJune2026);
  Generator::Options options;
  options.layout = Layout::Parse("41/10/2@1ms");
  options.server_id = 3;
  options.clock = &clock;
  options.ticker = Generator::Ticker::kManual;
  options.max_lead = std::chrono::milliseconds(0);
  Generator generator(options);
  ASSERT_EQ(generator.max_batch(), 4u);
  FakeStorage storage;
  RequestHandler handler(generator, storage);
  for (const int count : {1, 4, 5, 11}) {
    Response out;
    handler.Handle(Request{"GET", "/ids?count=" + std::to_string(count), ""},
                   [&](Response r) { out = std::move(r); });
    ASSERT_EQ(out.status, 200) << out.body;
    const json body = json::parse(out.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << out.body;
    ASSERT_EQ(body["ids"].size(), static_cast<std::size_t>(count)) << out.body;
    for (std::size_t i = 1; i < body["ids"].size(); ++i) {
      EXPECT_LT(std::stoll(body["ids"][i - 1].get<std::string>()),
                std::stoll(body["ids"][i].get<std::string>()));
    }
  }
}

// Handle never throws, even when the connection cannot take the answer: it is logged.
TEST_F(RequestHandlerTest, ARespondThatThrowsIsLoggedNotThrown) {
  for (const char* target : {"/healthz", "/ids?count=2", "/nowhere"}) {
    logged_.clear();
    EXPECT_NO_THROW(handler_.Handle(Request{"GET", target, ""}, [](Response) {
      throw std::runtime_error("no memory");
    })) << target;
    ASSERT_EQ(logged_.size(), 1u) << target;
    EXPECT_EQ(logged_[0], "request failed: no memory");
  }
}

TEST_F(RequestHandlerTest, LeadShowsInMetricsDuringASpike) {
  // 3 ticks' worth of IDs at once: the generator borrows 2 future ticks.
  Expect(200, Call("GET", "/ids?count=3072"));
  const std::string text = handler_.MetricsText();
  EXPECT_EQ(text.find("steadyflake_lead_seconds 0.000000000"), std::string::npos) << text;
}

}  // namespace
}  // namespace steadyflake::server
