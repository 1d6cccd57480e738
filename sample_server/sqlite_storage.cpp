// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite_storage.h"

#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

namespace steadyflake::server {

namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
    "level INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, "
    "template INTEGER NOT NULL, count INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS mail_body(id INTEGER PRIMARY KEY, subject TEXT NOT NULL, "
    "body BLOB, last_player INTEGER);"
    "CREATE TABLE IF NOT EXISTS mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, "
    "body_id INTEGER NOT NULL);";

// An older server's mail table held each mail's subject and body in its own row. Whether the
// database has one: it is converted, in one transaction, before the server uses it:
// kSetAsideMailBeforeBodies, kSchema (which creates mail_body and the new mail), then
// kConvertMailBeforeBodies.
constexpr const char* kHasMailBeforeBodies =
    "SELECT 1 FROM pragma_table_info('mail') WHERE name = 'subject'";
constexpr const char* kSetAsideMailBeforeBodies =
    "BEGIN IMMEDIATE; ALTER TABLE mail RENAME TO mail_before_bodies;";
// A body per distinct (subject, body), whose id is the smallest of its mails' (an ID of the
// server that sent it, in no other row) and whose last_player is the largest player it reached;
// then each mail keeps its id and player and names its body. `IS` matches NULL to NULL.
constexpr const char* kConvertMailBeforeBodies =
    "INSERT INTO mail_body(id, subject, body, last_player)"
    " SELECT min(id), subject, body, max(to_player) FROM mail_before_bodies"
    " GROUP BY subject, body;"
    "INSERT INTO mail(id, to_player, body_id)"
    " SELECT m.id, m.to_player, b.id FROM mail_before_bodies m"
    " JOIN mail_body b ON b.subject = m.subject AND b.body IS m.body;"
    "DROP TABLE mail_before_bodies;"
    "COMMIT;";

// A BLOB parameter of Statement::Bind; empty binds NULL.
struct Blob {
  std::string_view bytes;
};

// A prepared statement, finalized with the object.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      throw StorageError(std::string("cannot prepare '") + sql + "': " + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  sqlite3_stmt* get() { return stmt_; }
  // Resets and clears bindings, ready for the next use.
  sqlite3_stmt* fresh() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    return stmt_;
  }
  // fresh(), then binds `params` to ?1, ?2, ...: integers as INTEGER (an empty optional as
  // NULL), string_views as TEXT, Blobs as BLOB. The bytes are not copied: they must outlive the
  // statement's next step.
  template <typename... Params>
  sqlite3_stmt* Bind(const Params&... params) {
    sqlite3_stmt* s = fresh();
    int i = 0;
    (BindOne(s, ++i, params), ...);
    return s;
  }

 private:
  static void BindOne(sqlite3_stmt* s, int i, int64_t value) { sqlite3_bind_int64(s, i, value); }
  static void BindOne(sqlite3_stmt* s, int i, std::string_view text) {
    sqlite3_bind_text(s, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  static void BindOne(sqlite3_stmt* s, int i, std::optional<int64_t> value) {
    if (value) sqlite3_bind_int64(s, i, *value);  // else fresh() left it NULL
  }
  static void BindOne(sqlite3_stmt* s, int i, Blob blob) {
    if (blob.bytes.empty()) return;  // fresh() left it NULL
    sqlite3_bind_blob(s, i, blob.bytes.data(), static_cast<int>(blob.bytes.size()), SQLITE_STATIC);
  }

  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

struct SqliteStorage::Statements {
  explicit Statements(sqlite3* db)
      : begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        rollback(db, "ROLLBACK"),
        savepoint(db, "SAVEPOINT op"),
        release(db, "RELEASE op"),
        rollback_to(db, "ROLLBACK TO op"),
        insert_player(db, "INSERT INTO player(id, name, level) VALUES(?1, ?2, ?3)"),
        player_exists(db, "SELECT 1 FROM player WHERE id = ?1"),
        insert_item(db, "INSERT INTO item(id, owner_id, template, count) VALUES(?1, ?2, ?3, ?4)"),
        insert_body(db,
                    "INSERT INTO mail_body(id, subject, body, last_player) VALUES(?1, ?2, ?3, ?4)"),
        body_progress(db, "SELECT last_player FROM mail_body WHERE id = ?1"),
        set_progress(db, "UPDATE mail_body SET last_player = ?2 WHERE id = ?1"),
        first_players(db, "SELECT id FROM player ORDER BY id LIMIT ?1"),
        players_after(db, "SELECT id FROM player WHERE id > ?1 ORDER BY id LIMIT ?2"),
        insert_mail(db, "INSERT INTO mail(id, to_player, body_id) VALUES(?1, ?2, ?3)") {}

  Statement begin, commit, rollback, savepoint, release, rollback_to;
  Statement insert_player, player_exists, insert_item;
  Statement insert_body, body_progress, set_progress, first_players, players_after, insert_mail;
};

struct SqliteStorage::Task {
  std::function<StorageResult()> work;  // runs on the writer thread with db_mu_ held
  StorageDone done;
};

SqliteStorage::SqliteStorage(const std::string& path) : path_(path) {
  const auto fail = [&](const std::string& what) {
    std::string message = "database " + path + ": " + what;
    if (db_ != nullptr) message += std::string(": ") + sqlite3_errmsg(db_);
    sqlite3_close(db_);
    db_ = nullptr;
    throw StorageError(message + "; check that --db names a writable SQLite file");
  };
  // NOMUTEX: the connection is only ever used with db_mu_ held.
  if (sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    fail("cannot open");
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
  // journal_mode answers with the mode in force: "wal" unless the file cannot do WAL.
  sqlite3_stmt* mode = nullptr;
  if (sqlite3_prepare_v2(db_, "PRAGMA journal_mode=WAL", -1, &mode, nullptr) != SQLITE_OK) {
    fail("cannot set WAL mode");
  }
  std::string got;
  if (sqlite3_step(mode) == SQLITE_ROW) {
    got = reinterpret_cast<const char*>(sqlite3_column_text(mode, 0));
  }
  sqlite3_finalize(mode);
  if (got != "wal") fail("cannot switch to WAL mode (journal mode is '" + got + "')");
  if (sqlite3_exec(db_, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail("cannot set synchronous=FULL");
  }
  bool old_mail = false;
  const auto found = [](void* flag, int, char**, char**) {
    *static_cast<bool*>(flag) = true;
    return 0;
  };
  if (sqlite3_exec(db_, kHasMailBeforeBodies, found, &old_mail, nullptr) != SQLITE_OK) {
    fail("cannot read the schema");
  }
  if (old_mail &&
      (sqlite3_exec(db_, kSetAsideMailBeforeBodies, nullptr, nullptr, nullptr) != SQLITE_OK ||
       sqlite3_exec(db_, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK ||
       sqlite3_exec(db_, kConvertMailBeforeBodies, nullptr, nullptr, nullptr) != SQLITE_OK)) {
    // Closing rolls the transaction back: nothing is converted.
    fail("cannot convert the older mail table to mail_body and mail");
  }
  if (sqlite3_exec(db_, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail("cannot create the tables");
  }
  try {
    stmt_ = std::make_unique<Statements>(db_);
  } catch (const StorageError& e) {
    fail(e.what());
  }
  writer_ = std::thread([this] { RunWriter(); });
}

SqliteStorage::~SqliteStorage() { Close(); }

void SqliteStorage::Close() {
  std::lock_guard close_lock(close_mu_);
  {
    std::lock_guard lock(queue_mu_);
    closing_ = true;
  }
  queue_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  std::lock_guard lock(db_mu_);
  if (db_ != nullptr) {
    stmt_.reset();
    sqlite3_close(db_);  // the last connection: checkpoints and removes the WAL
    db_ = nullptr;
  }
}

void SqliteStorage::Enqueue(std::function<StorageResult()> work, StorageDone done) {
  {
    std::lock_guard lock(queue_mu_);
    if (!closing_) {
      queue_.push_back(Task{std::move(work), std::move(done)});
      queue_cv_.notify_one();
      return;
    }
  }
  done(StorageResult{StorageResult::Status::kUnavailable, 0, "the server is shutting down"});
}

void SqliteStorage::RunWriter() {
  std::vector<Task> group;
  for (;;) {
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;  // closing, and everything queued is written
      const std::size_t n = std::min(queue_.size(), kMaxGroup);
      for (std::size_t i = 0; i < n; ++i) {
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    RunGroup(group);
    group.clear();
  }
}

StorageResult SqliteStorage::Failed(const std::string& what) const {
  return StorageResult{StorageResult::Status::kFailed, 0,
                       "database " + path_ + ": " + what + ": " + sqlite3_errmsg(db_)};
}

void SqliteStorage::RunGroup(std::vector<Task>& group) {
  std::vector<StorageResult> results(group.size());
  {
    std::lock_guard lock(db_mu_);
    const auto step = [](Statement& s) { return sqlite3_step(s.fresh()); };
    if (step(stmt_->begin) != SQLITE_DONE) {
      const StorageResult failed = Failed("cannot begin a transaction");
      std::fill(results.begin(), results.end(), failed);
    } else {
      for (std::size_t i = 0; i < group.size(); ++i) {
        if (step(stmt_->savepoint) != SQLITE_DONE) {
          results[i] = Failed("cannot open a savepoint");
          continue;
        }
        try {
          results[i] = group[i].work();
        } catch (const std::exception& e) {  // std::bad_alloc, or an IdSource that threw
          results[i] = StorageResult{StorageResult::Status::kFailed, 0, e.what()};
        }
        // A failed operation leaves nothing: everything it wrote is rolled back.
        if (results[i].status != StorageResult::Status::kOk) step(stmt_->rollback_to);
        step(stmt_->release);
      }
      if (step(stmt_->commit) == SQLITE_DONE) {
        transactions_.fetch_add(1, std::memory_order_relaxed);
        operations_.fetch_add(group.size(), std::memory_order_relaxed);
      } else {
        const StorageResult failed = Failed("cannot commit");
        step(stmt_->rollback);
        for (StorageResult& r : results) {
          if (r.status == StorageResult::Status::kOk) r = failed;
        }
      }
    }
    sqlite3_reset(stmt_->begin.get());
    sqlite3_reset(stmt_->commit.get());
  }
  // Outside the lock: a `done` may take its time posting a response.
  for (std::size_t i = 0; i < group.size(); ++i) group[i].done(std::move(results[i]));
}

void SqliteStorage::CreatePlayer(Id id, std::string name, int64_t level, StorageDone done) {
  Enqueue([this, id, name = std::move(name), level] { return DoCreatePlayer(id, name, level); },
          std::move(done));
}

void SqliteStorage::GrantItems(Id owner, std::vector<ItemGrant> items, StorageDone done) {
  Enqueue([this, owner, items = std::move(items)] { return DoGrantItems(owner, items); },
          std::move(done));
}

void SqliteStorage::Broadcast(MailBody body, uint64_t max_mails, IdSource ids, StorageDone done) {
  Enqueue([this, body = std::move(body), max_mails,
           ids = std::move(ids)] { return DoBroadcast(body.id, &body, max_mails, ids); },
          std::move(done));
}

void SqliteStorage::ContinueBroadcast(Id body_id, uint64_t max_mails, IdSource ids,
                                      StorageDone done) {
  Enqueue([this, body_id, max_mails,
           ids = std::move(ids)] { return DoBroadcast(body_id, nullptr, max_mails, ids); },
          std::move(done));
}

StorageResult SqliteStorage::Inserted(sqlite3_stmt* s, int rc, const char* what) const {
  if (rc == SQLITE_DONE) return {};
  StorageResult failed = Failed(what);  // reads the error before the reset
  sqlite3_reset(s);
  return failed;
}

StorageResult SqliteStorage::DoCreatePlayer(Id id, const std::string& name, int64_t level) {
  sqlite3_stmt* s = stmt_->insert_player.Bind(id, std::string_view(name), level);
  const int rc = sqlite3_step(s);
  if (rc == SQLITE_CONSTRAINT_UNIQUE) {
    sqlite3_reset(s);
    return StorageResult{StorageResult::Status::kNameTaken, 0, "name taken"};
  }
  return Inserted(s, rc, "cannot insert a player");
}

StorageResult SqliteStorage::DoGrantItems(Id owner, const std::vector<ItemGrant>& items) {
  sqlite3_stmt* exists = stmt_->player_exists.Bind(owner);
  const int rc = sqlite3_step(exists);
  sqlite3_reset(exists);
  if (rc == SQLITE_DONE) {
    return StorageResult{StorageResult::Status::kNoSuchPlayer, 0, "no such player"};
  }
  if (rc != SQLITE_ROW) return Failed("cannot look up a player");
  for (const ItemGrant& item : items) {
    sqlite3_stmt* s = stmt_->insert_item.Bind(item.id, owner, item.template_id, item.count);
    StorageResult inserted = Inserted(s, sqlite3_step(s), "cannot insert an item");
    if (inserted.status != StorageResult::Status::kOk) return inserted;
  }
  sqlite3_reset(stmt_->insert_item.get());
  return StorageResult{StorageResult::Status::kOk, items.size(), ""};
}

StorageResult SqliteStorage::DoBroadcast(Id body_id, const MailBody* body, uint64_t max_mails,
                                         const IdSource& ids) {
  // Where this page starts: after the last player the broadcast reached, if any.
  std::optional<Id> after;
  if (body == nullptr) {
    sqlite3_stmt* s = stmt_->body_progress.Bind(body_id);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
      sqlite3_reset(s);
      return StorageResult{StorageResult::Status::kNoSuchBroadcast, 0, "no such broadcast"};
    }
    if (rc != SQLITE_ROW) {
      StorageResult failed = Failed("cannot read a mail body");
      sqlite3_reset(s);
      return failed;
    }
    if (sqlite3_column_type(s, 0) != SQLITE_NULL) after = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
  }

  // The page's players, and one more to learn whether any remain after it.
  const auto limit = static_cast<int64_t>(std::min<uint64_t>(max_mails, INT64_MAX - 1) + 1);
  sqlite3_stmt* list =
      after ? stmt_->players_after.Bind(*after, limit) : stmt_->first_players.Bind(limit);
  std::vector<Id> players;
  int rc;
  while ((rc = sqlite3_step(list)) == SQLITE_ROW) players.push_back(sqlite3_column_int64(list, 0));
  if (rc != SQLITE_DONE) {
    StorageResult failed = Failed("cannot list the players");
    sqlite3_reset(list);
    return failed;
  }
  sqlite3_reset(list);
  const bool more = players.size() > max_mails;
  if (more) players.pop_back();
  std::optional<Id> last_player = after;
  if (!players.empty()) last_player = players.back();

  // The body is written with its page's progress, so a broadcast of one page writes its row
  // once. A later page updates last_player; SQLite then rewrites the row's first page in place
  // when the value keeps its size (an ID of a layout like `game` does), else the whole row.
  sqlite3_stmt* s = body != nullptr
                        ? stmt_->insert_body.Bind(body_id, std::string_view(body->subject),
                                                  Blob{body->body}, last_player)
                        : stmt_->set_progress.Bind(body_id, last_player);
  if (body != nullptr || last_player != after) {
    StorageResult written = Inserted(s, sqlite3_step(s), "cannot write a mail body");
    if (written.status != StorageResult::Status::kOk) return written;
  }
  sqlite3_reset(s);

  std::size_t next = 0;
  while (next < players.size()) {
    const uint64_t n = std::min<uint64_t>(players.size() - next, ids.max_batch);
    for (const Id id : ids.next_batch(n)) {
      sqlite3_stmt* mail = stmt_->insert_mail.Bind(id, players[next++], body_id);
      StorageResult inserted = Inserted(mail, sqlite3_step(mail), "cannot insert a mail");
      if (inserted.status != StorageResult::Status::kOk) return inserted;
    }
  }
  sqlite3_reset(stmt_->insert_mail.get());
  StorageResult result{StorageResult::Status::kOk, players.size(), ""};
  result.more = more;
  return result;
}

Id SqliteStorage::LargestIdOf(const Layout& layout, uint64_t server_id) {
  std::lock_guard lock(db_mu_);
  if (db_ == nullptr) throw StorageError("database " + path_ + " is closed");
  if (server_id > layout.max_server_id()) return 0;  // no ID can carry it
  // The layout owns the bit arithmetic. Every ID of `server_id` lies in [first, last], its
  // smallest and largest possible; the range holds other server ids' IDs too (each tick in
  // between has them all), so a row counts only where its server-id field, the bits of `field`,
  // holds `server_id`: where `id & field` is `first` (tick 0 and sequence 0: the field alone).
  const Id first = layout.Compose(0, server_id, 0);
  const Id last = layout.Compose(layout.max_tick(), server_id, layout.max_sequence());
  const Id field = layout.Compose(0, layout.max_server_id(), 0);
  Id largest = 0;
  for (const char* table : {"player", "item", "mail_body", "mail"}) {
    const auto cannot_read = [&](const std::string& fix) {
      return StorageError("database " + path_ + ": cannot read table " + table + ": " +
                          sqlite3_errmsg(db_) + fix);
    };
    // The table's b-tree is keyed by id, so the range is a seek, ORDER BY id DESC walks it from
    // its end with no sort, and LIMIT 1 stops at the first row of this server id.
    const std::string sql = std::string("SELECT id FROM ") + table +
                            " WHERE id BETWEEN ?1 AND ?2 AND (id & ?3) = ?1"
                            " ORDER BY id DESC LIMIT 1";
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      throw cannot_read("; check that --db names this server's database");
    }
    sqlite3_bind_int64(s, 1, first);
    sqlite3_bind_int64(s, 2, last);
    sqlite3_bind_int64(s, 3, field);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) largest = std::max(largest, Id{sqlite3_column_int64(s, 0)});
    sqlite3_finalize(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) throw cannot_read("");
  }
  return largest;
}

}  // namespace steadyflake::server
