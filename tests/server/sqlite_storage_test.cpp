// Copyright 2026 The steadyflake Authors.
//
// SqliteStorage on a real database file: the schema, WAL, each operation's outcome and its
// all-or-nothing rule, group commit under concurrent callers, Close(), and LargestIdOf.

#include "sqlite_storage.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "../test_util.h"
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
  EXPECT_EQ(QueryText(path_, "SELECT sql FROM sqlite_schema WHERE name='mail'"),
            "CREATE TABLE mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, subject TEXT "
            "NOT NULL, body BLOB)");
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

TEST_F(SqliteStorageTest, BroadcastOneMailPerPlayerInBatches) {
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(Create(i + 1, "p" + std::to_string(i)).status, StorageResult::Status::kOk);
  std::vector<uint64_t> batches;
  IdSource ids;
  ids.max_batch = 4;
  // IDs from a generator, asked for in batches of at most max_batch.
  SimulatedClock clock(steadyflake::testing::kJune2026);
  Generator::Options options;
  options.server_id = 3;
  options.clock = &clock;
  options.ticker = Generator::Ticker::kManual;
  Generator generator(options);
  ids.next_batch = [&](uint64_t n) {
    batches.push_back(n);
    return generator.next_batch(n);
  };
  const StorageResult r =
      Wait([&](StorageDone done) { storage_.Broadcast("hello", "", ids, std::move(done)); });
  EXPECT_EQ(r.status, StorageResult::Status::kOk);
  EXPECT_EQ(r.count, 10u);
  EXPECT_EQ(batches, (std::vector<uint64_t>{4, 4, 2}));
  EXPECT_EQ(Query(path_, "SELECT count(DISTINCT to_player) FROM mail"), 10);
  EXPECT_EQ(Query(path_, "SELECT count(*) FROM mail WHERE body IS NULL AND subject='hello'"), 10);
  // A body is kept as a BLOB, byte for byte.
  const std::string body("a\0b", 3);
  EXPECT_EQ(Wait([&](StorageDone done) {
              storage_.Broadcast("again", body, ids, std::move(done));
            }).count,
            10u);
  EXPECT_EQ(Query(path_,
                  "SELECT count(*) FROM mail WHERE subject='again' AND typeof(body)='blob' AND "
                  "body=x'610062'"),
            10);
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
