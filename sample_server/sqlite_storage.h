// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// SqliteStorage: Storage on one SQLite database in WAL mode, written by one thread with group
// commit. Requests from every connection go into one queue; the writer thread takes everything
// queued (up to kMaxGroup operations), runs each inside its own SAVEPOINT within one
// transaction, commits once, and only then calls each `done`. So N concurrent player creations
// cost one fsync, not N, and a failed operation (a taken name) is rolled back alone without
// touching the others in its group.
//
// Schema (created if missing):
//   player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, level INTEGER NOT NULL)
//   item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, template INTEGER NOT NULL,
//        count INTEGER NOT NULL)
//   mail_body(id INTEGER PRIMARY KEY, subject TEXT NOT NULL, body BLOB, last_player INTEGER)
//   mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, body_id INTEGER NOT NULL)
// A broadcast's text is one mail_body row; each recipient gets a mail row of three integers
// naming it. mail_body.last_player is the largest player id the broadcast has reached (NULL
// before its first page), where ContinueBroadcast resumes.
//
// A database of an older server, whose mail rows each held their own subject and body, is
// converted when opened, in one transaction: one mail_body row per distinct (subject, body),
// and every mail row keeps its id and player and names its body.
//
// Durability: synchronous=FULL, so a `done` with kOk means the rows survive a power loss.
//
// Thread-safety: every public member is safe to call from any thread. The connection is used
// by the writer thread and, under `db_mu_`, by LargestIdOf.

#ifndef STEADYFLAKE_SAMPLE_SERVER_SQLITE_STORAGE_H_
#define STEADYFLAKE_SAMPLE_SERVER_SQLITE_STORAGE_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "storage.h"

struct sqlite3;
struct sqlite3_stmt;

namespace steadyflake::server {

// A database that cannot be opened, created or read. what() is one line naming the file, what
// SQLite said, and what to do.
class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SqliteStorage : public Storage {
 public:
  // Most operations committed in one transaction. Bounds the latency one group adds to the
  // requests queued behind it.
  static constexpr std::size_t kMaxGroup = 1024;

  // Opens `path` (created if missing, with its tables), switches it to WAL and starts the
  // writer thread. Throws StorageError.
  explicit SqliteStorage(const std::string& path);
  // Close(), then frees everything.
  ~SqliteStorage() override;

  SqliteStorage(const SqliteStorage&) = delete;
  SqliteStorage& operator=(const SqliteStorage&) = delete;

  void CreatePlayer(Id id, std::string name, int64_t level, StorageDone done) override;
  void GrantItems(Id owner, std::vector<ItemGrant> items, StorageDone done) override;
  void Broadcast(MailBody body, uint64_t max_mails, IdSource ids, StorageDone done) override;
  void ContinueBroadcast(Id body_id, uint64_t max_mails, IdSource ids, StorageDone done) override;

  // The largest ID in player, item, mail_body or mail whose server-id field, under `layout`, is
  // `server_id`; 0 if there is none (always for a server id over layout.max_server_id()). IDs
  // of other server ids (rows merged in from another shard) and negative IDs are ignored. Each
  // table is scanned down from the largest ID `server_id` can have, and the scan stops at the
  // first match, so on a server's own database it reads a few rows. Throws StorageError.
  Id LargestIdOf(const Layout& layout, uint64_t server_id);

  // Stops taking operations (later ones get kUnavailable at once), writes and commits every
  // operation already queued, calls their `done`, stops the writer thread and closes the
  // database (checkpointing the WAL). Idempotent.
  void Close();

  // Transactions committed and operations in them, since the start.
  uint64_t transactions() const { return transactions_.load(std::memory_order_relaxed); }
  uint64_t operations() const { return operations_.load(std::memory_order_relaxed); }

 private:
  struct Task;
  struct Statements;

  void Enqueue(std::function<StorageResult()> work, StorageDone done);
  void RunWriter();
  void RunGroup(std::vector<Task>& group);
  StorageResult DoCreatePlayer(Id id, const std::string& name, int64_t level);
  StorageResult DoGrantItems(Id owner, const std::vector<ItemGrant>& items);
  // Writes `body` if given (a new broadcast), else resumes broadcast `body_id`; then one page.
  StorageResult DoBroadcast(Id body_id, const MailBody* body, uint64_t max_mails,
                            const IdSource& ids);
  StorageResult Failed(const std::string& what) const;  // REQUIRES: db_mu_ held
  // The outcome of an INSERT `s` whose sqlite3_step returned `rc`: kOk for SQLITE_DONE, else
  // Failed(what), with `s` reset. REQUIRES: db_mu_ held.
  StorageResult Inserted(sqlite3_stmt* s, int rc, const char* what) const;

  const std::string path_;

  std::mutex close_mu_;  // serializes Close()

  std::mutex db_mu_;                  // guards the connection and the statements
  sqlite3* db_ = nullptr;             // GUARDED_BY(db_mu_)
  std::unique_ptr<Statements> stmt_;  // GUARDED_BY(db_mu_)

  std::mutex queue_mu_;  // guards the fields below
  std::condition_variable queue_cv_;
  std::deque<Task> queue_;  // GUARDED_BY(queue_mu_)
  bool closing_ = false;    // GUARDED_BY(queue_mu_)

  // Memory ordering: relaxed; statistics for /metrics, nothing is published through them.
  std::atomic<uint64_t> transactions_{0};
  std::atomic<uint64_t> operations_{0};

  std::thread writer_;
};

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_SQLITE_STORAGE_H_
