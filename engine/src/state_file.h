// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The state file `<dir>/server-<id>.state` records how far ahead a generator has reserved
// (the last tick it may issue), so that a restart starts past every ID already issued. It is a
// short text file:
//
//   steadyflake-state 1
//   layout 37/16/10@10ms
//   epoch_ms 1704067200000
//   server_id 7
//   reserved_until 123456789
//   checksum 9f0c3a5d1e2b4c6a
//
// where checksum is the FNV-1a 64 hash of the lines above it. Writes replace it atomically
// (temporary file, fsync, rename, fsync of the folder), through an Env (env.h) that tests fake. A
// lock file `<dir>/server-<id>.lock`, flock()ed for the life of the StateFile and holding the
// holder's pid, keeps a second generator (in this or another process) from using the same server id
// and folder; the lock is on a separate file because rename() replaces the state file's inode.
//
// Not thread-safe: the Generator serializes calls under its mutex.

#ifndef STEADYFLAKE_ENGINE_SRC_STATE_FILE_H_
#define STEADYFLAKE_ENGINE_SRC_STATE_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "env.h"
#include "steadyflake/layout.h"
#include "steadyflake/reservation_store.h"

namespace steadyflake::internal {

class StateFile {
 public:
  // Creates `dir` if missing, takes the lock and reads the file if there is one, all through
  // `env` (not owned; nullptr: Env::Default()). Throws Error: kLocked naming the holder's pid;
  // kState for a corrupt file or one of another layout, epoch or server id (never replaced),
  // or for a folder or file that cannot be created or read.
  StateFile(Env* env, const std::string& dir, const Layout& layout, uint64_t server_id);
  ~StateFile();

  StateFile(const StateFile&) = delete;
  StateFile& operator=(const StateFile&) = delete;

  // The reserved-until tick read at open; nullopt when there was no state file yet.
  std::optional<uint64_t> reserved_until() const { return reserved_until_; }

  // Durably records `reserved_until`. Throws Error(kState) with the path and the failed step;
  // then reserved_until() is unchanged and the file on disk is the old one, or (the folder
  // sync failed) the new one, not yet durable.
  void Write(uint64_t reserved_until);

  const std::string& path() const { return path_; }

  // The file's text for the given values (exposed for tests that forge files).
  static std::string Render(const Layout& layout, uint64_t server_id, uint64_t reserved_until);
  // The reserved-until tick of a state file's `text`, read from `path` (named in errors) for
  // `layout` and `server_id`. Throws Error(kState) like the constructor for a corrupt or
  // mismatched file. A pure function of its arguments: the fuzz target's entry point.
  static uint64_t Parse(std::string_view text, const std::string& path, const Layout& layout,
                        uint64_t server_id);
  // `body` followed by its checksum line: a file that passes the checksum whatever its body
  // says (exposed for tests that forge malformed files).
  static std::string Seal(std::string body);

 private:
  void Read();

  Env* const env_;
  const Layout layout_;
  const uint64_t server_id_;
  const std::string dir_;
  const std::string path_;
  const std::string lock_path_;
  std::unique_ptr<FileLock> lock_;
  std::optional<uint64_t> reserved_until_;
};

// The state file as the generator's ReservationStore (Generator::Options::state_dir).
class StateFileStore : public ReservationStore {
 public:
  // `env` not owned; nullptr: Env::Default(). Nothing is touched before Open.
  StateFileStore(Env* env, std::string dir) : env_(env), dir_(std::move(dir)) {}

  std::optional<uint64_t> Open(const Layout& layout, uint64_t server_id) override;
  void Extend(uint64_t tick) override;
  void Close(std::optional<uint64_t> last_used) noexcept override;
  std::string Describe() const override;

 private:
  Env* const env_;
  const std::string dir_;
  std::unique_ptr<StateFile> file_;
  uint64_t reserved_until_ = 0;  // the last tick written
};

}  // namespace steadyflake::internal

#endif  // STEADYFLAKE_ENGINE_SRC_STATE_FILE_H_
