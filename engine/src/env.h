// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal: may change between releases.
//
// The file-system calls the state file makes, behind a seam. leveldb's Env is the model: the
// engine talks to an Env, Env::Default() is the real (POSIX) file system, and tests put a fake
// one underneath (tests/fake_env.h) that records the calls, fails any one of them, and
// simulates a power loss by keeping only what was made durable. Those tests are what hold the
// state file's durability: a dropped fsync passes every test that runs on a real disk.
//
// Every call returns 0 or an errno value; none throws. What is durable after a power loss is
// exactly what the calls below promise, no more: a file's data after WritableFile::Sync, a
// folder's entries (a file created, a rename) after Env::SyncDir on that folder.

#ifndef STEADYFLAKE_ENGINE_SRC_ENV_H_
#define STEADYFLAKE_ENGINE_SRC_ENV_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace steadyflake::internal {

// A file open for writing. Destroying it closes it (errors ignored: call Close to see them).
class WritableFile {
 public:
  virtual ~WritableFile() = default;

  // Writes all of `data` at the end of the file.
  virtual int Append(std::string_view data) = 0;
  // Makes the data written so far durable (fsync).
  virtual int Sync() = 0;
  virtual int Close() = 0;
};

// An exclusive lock on a file, held until this object is destroyed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

class Env {
 public:
  virtual ~Env() = default;

  // The real file system. Never destroyed; safe to use from any thread.
  static Env* Default();

  // Creates `dir` and any missing parents; 0 if it exists already.
  virtual int CreateDirs(const std::string& dir) = 0;
  // Creates `path`, or truncates it, for writing (mode 0644 less the umask).
  virtual int NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) = 0;
  // Reads the whole of `path` into *out. ENOENT when there is no such file; EFBIG when it is
  // longer than `limit` bytes.
  virtual int ReadFile(const std::string& path, std::size_t limit, std::string* out) = 0;
  // Replaces `to` with `from` atomically (rename(2)).
  virtual int RenameFile(const std::string& from, const std::string& to) = 0;
  virtual int RemoveFile(const std::string& path) = 0;
  // Makes the folder's entries durable: files created in it, renames into it (fsync of the
  // folder).
  virtual int SyncDir(const std::string& dir) = 0;
  // Takes an exclusive lock on `path` (created if missing) and records this process's pid in
  // it. EWOULDBLOCK when someone else holds it: then *holder is what that holder recorded
  // (empty if nothing). Another Env call on the same path from the holder's process does not
  // release it.
  virtual int LockFile(const std::string& path, std::unique_ptr<FileLock>* lock,
                       std::string* holder) = 0;
};

}  // namespace steadyflake::internal

#endif  // STEADYFLAKE_ENGINE_SRC_ENV_H_
