// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal to steadyflake-server; may change between releases.
//
// Storage is what the request handler asks to write: players, items and mails. It is an
// interface so the handler is tested against an in-memory fake (tests/server/) and the server
// runs on SQLite (sqlite_storage.h).
//
// Every operation is asynchronous: it returns at once and calls `done` exactly once, with the
// outcome, after the write is durable (or has failed and left nothing behind). `done` may run
// on any thread, possibly before the call returns (the fake does that); it must not block.
// Each operation is all-or-nothing: no half-written row or half-granted list of items.
//
// What one operation may write is bounded by its arguments, never by the size of the database:
// a broadcast stores its body once and mails the players a page (at most `max_mails`) at a time.
//
// Thread-safety: implementations are safe to call from any number of threads at once.

#ifndef STEADYFLAKE_SAMPLE_SERVER_STORAGE_H_
#define STEADYFLAKE_SAMPLE_SERVER_STORAGE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "steadyflake/generator.h"
#include "steadyflake/layout.h"

namespace steadyflake::server {

// One row of `item`: a stack of `count` items of `template_id`.
struct ItemGrant {
  Id id = 0;
  int64_t template_id = 0;
  int64_t count = 0;
};

// A broadcast mail's text, stored once however many players it goes to.
struct MailBody {
  Id id = 0;
  std::string subject;
  std::string body;  // empty: NULL
};

struct StorageResult {
  enum class Status {
    kOk,
    kNameTaken,        // CreatePlayer: another player has that name (nothing written)
    kNoSuchPlayer,     // GrantItems: the owner does not exist (nothing written)
    kNoSuchBroadcast,  // ContinueBroadcast: no mail body has that id (nothing written)
    kUnavailable,      // the storage is closing or closed (nothing written)
    kFailed,           // the database failed (nothing written); `message` says how
  };
  Status status = Status::kOk;
  uint64_t count = 0;   // Broadcast, ContinueBroadcast: mails written by this call
  std::string message;  // kFailed: one line naming the problem
  bool more = false;    // Broadcast, ContinueBroadcast: players remain after this page
};

using StorageDone = std::function<void(StorageResult)>;

// Hands out `n` IDs for a broadcast, 1 <= n <= max; called by the storage while it writes.
struct IdSource {
  std::function<IdRange(uint64_t n)> next_batch;
  uint64_t max_batch = 1;
};

class Storage {
 public:
  virtual ~Storage() = default;

  // Inserts player(id, name, level). kNameTaken if the name is used.
  virtual void CreatePlayer(Id id, std::string name, int64_t level, StorageDone done) = 0;

  // Inserts one item row per grant, all owned by `owner`. kNoSuchPlayer if there is no such
  // player.
  virtual void GrantItems(Id owner, std::vector<ItemGrant> items, StorageDone done) = 0;

  // Starts a broadcast: writes `body` once, then one mail per player, each naming the body, to
  // the first `max_mails` players in id order, with IDs from `ids`, in one transaction. The
  // result's count is the number of mails; `more` says players remain, for ContinueBroadcast.
  // REQUIRES: max_mails >= 1.
  virtual void Broadcast(MailBody body, uint64_t max_mails, IdSource ids, StorageDone done) = 0;

  // The next page of broadcast `body_id`: one mail to each of the next `max_mails` players in id
  // order after the last one the broadcast reached (so a player created since, with a larger
  // id, gets it too; a page already written is never written again). kNoSuchBroadcast if there
  // is no such body. Count and `more` as for Broadcast. REQUIRES: max_mails >= 1.
  virtual void ContinueBroadcast(Id body_id, uint64_t max_mails, IdSource ids,
                                 StorageDone done) = 0;
};

}  // namespace steadyflake::server

#endif  // STEADYFLAKE_SAMPLE_SERVER_STORAGE_H_
