// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SqliteStorage on a real database file: the schema, WAL, each operation's outcome and its
// all-or-nothing rule, group commit under concurrent callers, Close(), and LargestIdOf.

#include "sqlite_storage.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../test_util.h"
#include "manual_generator.h"
#include "request_handler.h"
#include "steadyflake/clock.h"
#include "steadyflake/generator.h"
#include "steadyflake/layout.h"

namespace steadyflake::server {
namespace {

using steadyflake::testing::TempDir;

// Runs one operation and waits for its result.
template <typename F>
StorageResult Wait(F start) {
  std::promise<StorageResult> promise;
  auto future = promise.get_future();
  start([&promise](StorageResult r) { promise.set_value(std::move(r)); });
  return future.get();
}

// One integer from a query on a separate read-only connection.
int64_t Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
  int64_t value = -1;
  if (sqlite3_step(s) == SQLITE_ROW) value = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return value;
}

std::string QueryText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
  std::string value;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != nullptr) {
    value = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return value;
}

class SqliteStorageTest : public ::testing::Test {
 protected:
  SqliteStorageTest() : path_(dir_.path() + "/game.db"), storage_(path_) {}

  StorageResult Create(Id id, const std::string& name) {
    return Wait([&](StorageDone done) { storage_.CreatePlayer(id, name, 1, std::move(done)); });
  }

  TempDir dir_;
  std::string path_;
  SqliteStorage storage_;
};

TEST_F(SqliteStorageTest, SchemaAndWal) {
  EXPECT_EQ(QueryText(path_, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(QueryText(path_, "SELECT sql FROM sqlite_schema WHERE name='player'"),
            "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, level "
            "INTEGER NOT NULL)");
  EXPECT_EQ(QueryText(path_, "SELECT sql FROM sqlite_schema WHERE name='item'"),
            "CREATE TABLE item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, template "
            "INTEGER NOT NULL, count INTEGER NOT NULL)");
  EXPECT_EQ(QueryText(path_, "SELECT sql FROM sqlite_schema WHERE name='mail_body'"),
            "CREATE TABLE mail_body(id INTEGER PRIMARY KEY, subject TEXT NOT NULL, body BLOB, "
            "last_player INTEGER)");
  EXPECT_EQ(QueryText(path_, "SELECT sql FROM sqlite_schema WHERE name='mail'"),
            "CREATE TABLE mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, body_id "
            "INTEGER NOT NULL)");
}

TEST_F(SqliteStorageTest, CreatePlayerAndTakenName) {
  EXPECT_EQ(Create(10, "alice").status, StorageResult::Status::kOk);
  EXPECT_EQ(Create(11, "alice").status, StorageResult::Status::kNameTaken);
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM player"), 1);
  EXPECT_EQ(Query(path_, "SELECT level FROM player WHERE id=10"), 1);
}

TEST_F(SqliteStorageTest, GrantItemsAllOrNothing) {
  ASSERT_EQ(Create(10, "alice").status, StorageResult::Status::kOk);
  auto grant = [&](Id owner, std::vector<ItemGrant> items) {
    return Wait([&](StorageDone done) { storage_.GrantItems(owner, items, std::move(done)); });
  };
  EXPECT_EQ(grant(10, {{100, 5, 3}, {101, 6, 1}}).status, StorageResult::Status::kOk);
  EXPECT_EQ(grant(99, {{102, 5, 3}}).status, StorageResult::Status::kNoSuchPlayer);
  // The second row reuses ID 100: the whole grant fails and the first row is rolled back.
  const StorageResult dup = grant(10, {{103, 1, 1}, {100, 1, 1}});
  EXPECT_EQ(dup.status, StorageResult::Status::kFailed);
  EXPECT_NE(dup.message.find("UNIQUE"), std::string::npos) << dup.message;
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM item"), 2);
  EXPECT_EQ(Query(path_, "SELECT count FROM item WHERE id=100"), 3);
  EXPECT_EQ(Query(path_, "SELECT template FROM item WHERE id=101"), 6);
}

// IDs for a broadcast from a generator, in batches of at most max_batch, each batch's size
// recorded.
class BatchRecorder {
 public:
  explicit BatchRecorder(uint64_t max_batch) : clock_(steadyflake::testing::kJune2026) {
    generator_.emplace(server_test::ManualGeneratorOptions(&clock_, 3));
    ids_.max_batch = max_batch;
    ids_.next_batch = [this](uint64_t n) {
      batches.push_back(n);
      return generator_->next_batch(n);
    };
  }
  const IdSource& ids() const { return ids_; }
  Id next() { return generator_->next(); }

  std::vector<uint64_t> batches;

 private:
  SimulatedClock clock_;
  std::optional<Generator> generator_;
  IdSource ids_;
};

TEST_F(SqliteStorageTest, BroadcastOneMailPerPlayerInBatches) {
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(Create(i + 1, "p" + std::to_string(i)).status, StorageResult::Status::kOk);
  BatchRecorder source(4);
  const Id hello = source.next();
  const StorageResult r = Wait([&](StorageDone done) {
    storage_.Broadcast(MailBody{hello, "hello", ""}, 100, source.ids(), std::move(done));
  });
  EXPECT_EQ(r.status, StorageResult::Status::kOk);
  EXPECT_EQ(r.count, 10u);
  EXPECT_FALSE(r.more);
  EXPECT_EQ(source.batches, (std::vector<uint64_t>{4, 4, 2}));
  EXPECT_EQ(Query(path_, "SELECT count(DISTINCT to_player) FROM mail"), 10);
  EXPECT_EQ(
      Query(path_,
            std::string("SELECT count(*) FROM mail WHERE body_id=").append(std::to_string(hello))),
      10);
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM mail_body WHERE body IS NULL AND subject='hello'"),
            1);
  EXPECT_EQ(Query(path_, "SELECT last_player FROM mail_body"), 10);
  // A body is kept as a BLOB, byte for byte, once.
  const std::string body("a\0b", 3);
  const Id again = source.next();
  EXPECT_EQ(
      Wait([&](StorageDone done) {
        storage_.Broadcast(MailBody{again, "again", body}, 100, source.ids(), std::move(done));
      }).count,
      10u);
  EXPECT_EQ(Query(path_,
                  "SELECT count(*) FROM mail_body WHERE subject='again' AND typeof(body)='blob' "
                  "AND body=x'610062'"),
            1);
  EXPECT_EQ(
      Query(path_,
            std::string("SELECT count(*) FROM mail WHERE body_id=").append(std::to_string(again))),
      10);
}

TEST_F(SqliteStorageTest, BroadcastWritesOnePageACall) {
  // Player ids below zero and at the top of the range are players like any other.
  const std::vector<Id> players = {-7, 1, 2, 3, 4, 5, 6, INT64_MAX};
  for (const Id id : players) {
    ASSERT_EQ(Create(id, std::string("p").append(std::to_string(id))).status,
              StorageResult::Status::kOk);
  }
  BatchRecorder source(2);
  const Id body_id = source.next();
  const auto page = [&](bool first) {
    return Wait([&](StorageDone done) {
      if (first) {
        storage_.Broadcast(MailBody{body_id, "s", "b"}, 3, source.ids(), std::move(done));
      } else {
        storage_.ContinueBroadcast(body_id, 3, source.ids(), std::move(done));
      }
    });
  };
  StorageResult r = page(true);
  EXPECT_EQ(r.status, StorageResult::Status::kOk);
  EXPECT_EQ(r.count, 3u);
  EXPECT_TRUE(r.more);
  EXPECT_EQ(Query(path_, "SELECT last_player FROM mail_body"), 2);
  r = page(false);
  EXPECT_EQ(r.count, 3u);
  EXPECT_TRUE(r.more);
  r = page(false);
  EXPECT_EQ(r.count, 2u);
  EXPECT_FALSE(r.more);
  EXPECT_EQ(page(false).count, 0u);
  // Each player once, in id order, under the one body.
  EXPECT_EQ(QueryText(path_,
                      "SELECT group_concat(to_player) FROM (SELECT to_player FROM mail "
                      "ORDER BY id)"),
            "-7,1,2,3,4,5,6,9223372036854775807");
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM mail_body"), 1);
  EXPECT_EQ(Query(path_, "SELECT count(DISTINCT body_id) FROM mail"), 1);

  const StorageResult unknown = Wait([&](StorageDone done) {
    storage_.ContinueBroadcast(body_id + 1, 3, source.ids(), std::move(done));
  });
  EXPECT_EQ(unknown.status, StorageResult::Status::kNoSuchBroadcast);
  // A body ID used twice fails the whole broadcast: no mail is written.
  const StorageResult twice = Wait([&](StorageDone done) {
    storage_.Broadcast(MailBody{body_id, "t", ""}, 3, source.ids(), std::move(done));
  });
  EXPECT_EQ(twice.status, StorageResult::Status::kFailed);
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM mail"), 8);
}

// Issue 9.11: a broadcast wrote its subject and body into every recipient's row. One 64 KiB
// POST /mail/broadcast to 28,782 players grew the database from 6.4 MB to 3.8 GB. The body is
// stored once; each recipient costs one small row. Measured as the database's growth in pages,
// through the handler and the real storage.
TEST_F(SqliteStorageTest, BroadcastOf64KiBWritesTheBodyOnce) {
  constexpr int kPlayers = 500;
  std::vector<std::future<StorageResult>> created;
  for (int i = 1; i <= kPlayers; ++i) {
    auto promise = std::make_shared<std::promise<StorageResult>>();
    created.push_back(promise->get_future());
    storage_.CreatePlayer(i, std::string("p").append(std::to_string(i)), 1,
                          [promise](StorageResult r) { promise->set_value(std::move(r)); });
  }
  for (auto& f : created) ASSERT_EQ(f.get().status, StorageResult::Status::kOk);
  const int64_t page_size = Query(path_, "PRAGMA page_size");
  const int64_t pages_before = Query(path_, "PRAGMA page_count");

  SimulatedClock clock(steadyflake::testing::kJune2026);
  Generator generator(server_test::ManualGeneratorOptions(&clock, 3));
  RequestHandler handler(generator, storage_);
  const std::string body(RequestHandler::kMaxMailBodyBytes, 'x');
  std::promise<Response> answered;
  handler.Handle(
      Request{"POST", "/mail/broadcast",
              std::string(R"({"subject":"Season 2","body":")").append(body).append("\"}")},
      [&](Response r) { answered.set_value(std::move(r)); });
  const Response r = answered.get_future().get();
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["sent"], kPlayers);
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM mail"), kPlayers);

  // The body once, plus at most 64 bytes per recipient (a mail row is three integers, about
  // 25 bytes, plus the b-tree's own), plus a few pages of slack for interior pages.
  const int64_t grown = (Query(path_, "PRAGMA page_count") - pages_before) * page_size;
  EXPECT_LT(grown, int64_t{RequestHandler::kMaxMailBodyBytes} + kPlayers * 64 + 4 * page_size)
      << "the database grew by " << grown << " bytes for one broadcast to " << kPlayers
      << " players";
}

TEST_F(SqliteStorageTest, ConcurrentWritesAreGroupedIntoFewerTransactions) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread keeps many operations in flight, as many connections would.
      std::vector<std::future<StorageResult>> pending;
      std::vector<std::shared_ptr<std::promise<StorageResult>>> promises;
      for (int i = 0; i < kPerThread; ++i) {
        auto p = std::make_shared<std::promise<StorageResult>>();
        pending.push_back(p->get_future());
        const Id id = t * kPerThread + i + 1;
        storage_.CreatePlayer(id, std::string("n").append(std::to_string(id)), 1,
                              [p](StorageResult r) { p->set_value(std::move(r)); });
        promises.push_back(p);
      }
      for (auto& f : pending) {
        if (f.get().status == StorageResult::Status::kOk) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kThreads * kPerThread);
  EXPECT_EQ(storage_.operations(), uint64_t{kThreads * kPerThread});
  EXPECT_LT(storage_.transactions(), storage_.operations() / 4)
      << "writes were not grouped: " << storage_.transactions() << " transactions";
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM player"), kThreads * kPerThread);
}

TEST_F(SqliteStorageTest, CloseWritesWhatIsQueuedThenRefuses) {
  std::atomic<int> ok{0};
  for (int i = 1; i <= 50; ++i) {
    storage_.CreatePlayer(i, std::string("q").append(std::to_string(i)), 1, [&](StorageResult r) {
      if (r.status == StorageResult::Status::kOk) ++ok;
    });
  }
  storage_.Close();
  EXPECT_EQ(ok.load(), 50);
  EXPECT_EQ(Create(99, "late").status, StorageResult::Status::kUnavailable);
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM player"), 50);
  storage_.Close();  // idempotent
}

TEST_F(SqliteStorageTest, LargestIdOfIgnoresOtherServerIds) {
  const Layout layout = Layout::Game();
  EXPECT_EQ(storage_.LargestIdOf(layout, 7), 0);
  const Id mine_old = layout.Compose(1000, 7, 3);
  const Id mine_new = layout.Compose(2000, 7, 0);
  const Id theirs_newer = layout.Compose(3000, 8, 0);  // merged in from server 8
  ASSERT_EQ(Create(mine_old, "a").status, StorageResult::Status::kOk);
  ASSERT_EQ(Create(theirs_newer, "b").status, StorageResult::Status::kOk);
  EXPECT_EQ(storage_.LargestIdOf(layout, 7), mine_old);
  ASSERT_EQ(Wait([&](StorageDone done) {
              storage_.GrantItems(mine_old, {{mine_new, 1, 1}}, std::move(done));
            }).status,
            StorageResult::Status::kOk);
  EXPECT_EQ(storage_.LargestIdOf(layout, 7), mine_new);
  EXPECT_EQ(storage_.LargestIdOf(layout, 8), theirs_newer);
  EXPECT_EQ(storage_.LargestIdOf(layout, 9), 0);
  // A mail body's ID counts too (its mails' IDs here are server 3's).
  const Id body = layout.Compose(2500, 7, 0);
  BatchRecorder source(10);
  ASSERT_EQ(Wait([&](StorageDone done) {
              storage_.Broadcast(MailBody{body, "s", ""}, 10, source.ids(), std::move(done));
            }).status,
            StorageResult::Status::kOk);
  EXPECT_EQ(storage_.LargestIdOf(layout, 7), body);
}

TEST_F(SqliteStorageTest, LargestIdOfAtTheEdgesOfTheLayout) {
  const Layout layout = Layout::Snowflake();  // 41/10/12: other widths than the default
  const uint64_t top = layout.max_server_id();
  // -1 has every bit set, so its server-id field reads as `top`; negative IDs do not count.
  ASSERT_EQ(Create(-1, "negative").status, StorageResult::Status::kOk);
  EXPECT_EQ(storage_.LargestIdOf(layout, top), 0);
  const Id largest = layout.Compose(layout.max_tick(), top, layout.max_sequence());
  ASSERT_EQ(largest, INT64_MAX);
  const Id below_top = layout.Compose(layout.max_tick(), top - 1, layout.max_sequence());
  const Id zero = layout.Compose(5, 0, 1);
  const Id one = layout.Compose(layout.max_tick(), 1, 0);
  int n = 0;
  for (const Id id : {largest, below_top, zero, one}) {
    ASSERT_EQ(Create(id, "p" + std::to_string(n++)).status, StorageResult::Status::kOk);
  }
  EXPECT_EQ(storage_.LargestIdOf(layout, top), largest);
  EXPECT_EQ(storage_.LargestIdOf(layout, top - 1), below_top);
  EXPECT_EQ(storage_.LargestIdOf(layout, 0), zero);
  EXPECT_EQ(storage_.LargestIdOf(layout, 1), one);
  EXPECT_EQ(storage_.LargestIdOf(layout, 2), 0);
  // A server id the layout cannot hold has no IDs.
  EXPECT_EQ(storage_.LargestIdOf(layout, top + 1), 0);
  EXPECT_EQ(storage_.LargestIdOf(layout, UINT64_MAX), 0);
}

TEST(SqliteStorageOpenTest, UnwritablePathIsOneLineError) {
  try {
    SqliteStorage storage("/nonexistent-folder/x/game.db");
    FAIL() << "opened";
  } catch (const StorageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/nonexistent-folder/x/game.db"), std::string::npos) << what;
    EXPECT_NE(what.find("--db"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// A database of the server before issue 9.11, whose mail rows held their own subject and body,
// is converted when opened: a body per distinct text, each mail keeping its id and player.
TEST(SqliteStorageOpenTest, ConvertsMailsThatHeldTheirOwnBody) {
  TempDir dir;
  const std::string path = dir.path() + "/old.db";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL "
                           "UNIQUE, level INTEGER NOT NULL);"
                           "CREATE TABLE mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, "
                           "subject TEXT NOT NULL, body BLOB);"
                           "INSERT INTO player VALUES(1, 'a', 1), (2, 'b', 1), (3, 'c', 1);"
                           "INSERT INTO mail VALUES(100, 1, 'hi', x'78'), (101, 2, 'hi', x'78'),"
                           " (102, 1, 'bye', NULL), (103, 3, 'hi', x'78'), (104, 2, 'bye', NULL),"
                           " (105, 3, 'hi', x'79');",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  SqliteStorage storage(path);
  EXPECT_EQ(QueryText(path, "SELECT sql FROM sqlite_schema WHERE name='mail'"),
            "CREATE TABLE mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, body_id "
            "INTEGER NOT NULL)");
  EXPECT_EQ(Query(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'mail_before%'"), 0);
  EXPECT_EQ(QueryText(path,
                      "SELECT group_concat(b, ' ') FROM (SELECT id || ':' || subject || ':' || "
                      "quote(body) || ':' || last_player AS b FROM mail_body "
                      "ORDER BY id)"),
            "100:hi:X'78':3 102:bye:NULL:2 105:hi:X'79':3");
  EXPECT_EQ(QueryText(path,
                      "SELECT group_concat(m, ' ') FROM (SELECT id || ':' || to_player || ':' || "
                      "body_id AS m FROM mail ORDER BY id)"),
            "100:1:100 101:2:100 102:1:102 103:3:100 104:2:102 105:3:105");
  EXPECT_EQ(storage.LargestIdOf(Layout::Game(), 0), 105);
  // A converted broadcast goes on where it stopped: only a player created since gets it.
  ASSERT_EQ(
      Wait([&](StorageDone done) { storage.CreatePlayer(4, "d", 1, std::move(done)); }).status,
      StorageResult::Status::kOk);
  BatchRecorder source(10);
  const StorageResult r = Wait(
      [&](StorageDone done) { storage.ContinueBroadcast(100, 10, source.ids(), std::move(done)); });
  EXPECT_EQ(r.status, StorageResult::Status::kOk);
  EXPECT_EQ(r.count, 1u);
  EXPECT_EQ(Query(path, "SELECT to_player FROM mail WHERE id > 105 AND body_id = 100"), 4);
}

TEST(SqliteStorageOpenTest, ReopenKeepsData) {
  TempDir dir;
  const std::string path = dir.path() + "/g.db";
  {
    SqliteStorage storage(path);
    ASSERT_EQ(
        Wait([&](StorageDone done) { storage.CreatePlayer(5, "x", 1, std::move(done)); }).status,
        StorageResult::Status::kOk);
  }
  SqliteStorage storage(path);
  EXPECT_EQ(storage.LargestIdOf(Layout::Game(), 0), 5);
}

}  // namespace
}  // namespace steadyflake::server
