// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// An in-memory file system under the engine's Env seam (engine/src/env.h), for tests of the
// state file's durability. It records every call, fails the calls it is told to, and simulates
// a power loss by keeping only what the calls made durable:
//   - a file's data survives as of its last WritableFile::Sync;
//   - a folder's entries (a file created, renamed or removed) survive as of the last
//     Env::SyncDir on that folder;
//   - truncating a file (NewWritableFile on an existing name) is durable at once, as a real
//     file system may make it (the zero-length file after a crash).
// Folders themselves are created durably. The pessimistic reading of POSIX: whatever a real
// disk may lose, this one loses.

#ifndef STEADYFLAKE_TESTS_FAKE_ENV_H_
#define STEADYFLAKE_TESTS_FAKE_ENV_H_

#include <cerrno>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "env.h"

namespace steadyflake::testing {

class FakeEnv final : public internal::Env {
 public:
  // Every call so far, in order, as "Name path" ("RenameFile from to"), failed ones included.
  std::vector<std::string> calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  void ClearCalls() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.clear();
  }

  // The n-th call from now (0: the next one) fails with `error` and has no effect.
  void FailCall(std::size_t n, int error = EIO) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_at_ = calls_.size() + n;
    fail_from_ = kNever;
    error_ = error;
  }
  // The n-th call from now and every one after it fail: the disk, or the machine, is gone.
  void FailFrom(std::size_t n, int error = EIO) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_at_ = kNever;
    fail_from_ = calls_.size() + n;
    error_ = error;
  }
  void Heal() {
    std::lock_guard<std::mutex> lock(mu_);
    fail_at_ = fail_from_ = kNever;
  }

  // The power goes: everything not durable is lost, and every lock is released (the process
  // that held it is gone). The FileLock objects still alive release nothing afterwards.
  void PowerLoss() {
    std::lock_guard<std::mutex> lock(mu_);
    files_ = durable_;
    for (auto& [path, inode] : files_) inode->data = inode->synced;
    locks_.clear();
    ++boot_;
  }

  // The file's content as a reader would see it now; nullopt if there is no such file.
  std::optional<std::string> Contents(const std::string& path) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second->data;
  }
  // Every file name a reader would see now.
  std::set<std::string> Files() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::set<std::string> names;
    for (const auto& [path, inode] : files_) names.insert(path);
    return names;
  }

  int CreateDirs(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("CreateDirs " + dir)) return error;
    for (std::string d = dir; !d.empty() && d != "/"; d = Parent(d)) dirs_.insert(d);
    return 0;
  }

  int NewWritableFile(const std::string& path,
                      std::unique_ptr<internal::WritableFile>* file) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("NewWritableFile " + path)) return error;
    if (dirs_.count(Parent(path)) == 0) return ENOENT;
    auto& inode = files_[path];
    if (inode) {
      inode->data.clear();
      inode->synced.clear();  // truncation may reach the disk before anything else
    } else {
      inode = std::make_shared<Inode>();
    }
    *file = std::make_unique<File>(this, path, inode);
    return 0;
  }

  int ReadFile(const std::string& path, std::size_t limit, std::string* out) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("ReadFile " + path)) return error;
    const auto it = files_.find(path);
    if (it == files_.end()) return ENOENT;
    if (it->second->data.size() > limit) return EFBIG;
    *out = it->second->data;
    return 0;
  }

  int RenameFile(const std::string& from, const std::string& to) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("RenameFile " + from + " " + to)) return error;
    const auto it = files_.find(from);
    if (it == files_.end()) return ENOENT;
    if (dirs_.count(Parent(to)) == 0) return ENOENT;
    auto inode = it->second;
    files_.erase(it);
    files_[to] = std::move(inode);
    return 0;
  }

  int RemoveFile(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("RemoveFile " + path)) return error;
    return files_.erase(path) == 1 ? 0 : ENOENT;
  }

  int SyncDir(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("SyncDir " + dir)) return error;
    if (dirs_.count(dir) == 0) return ENOENT;
    for (auto it = durable_.begin(); it != durable_.end();) {
      it = Parent(it->first) == dir ? durable_.erase(it) : std::next(it);
    }
    for (const auto& [path, inode] : files_) {
      if (Parent(path) == dir) durable_[path] = inode;
    }
    return 0;
  }

  int LockFile(const std::string& path, std::unique_ptr<internal::FileLock>* file_lock,
               std::string* holder) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (const int error = Begin("LockFile " + path)) return error;
    if (!locks_.insert(path).second) {
      *holder = "4242";  // what the holder recorded: a pid
      return EWOULDBLOCK;
    }
    *file_lock = std::make_unique<Lock>(this, path, boot_);
    return 0;
  }

 private:
  static constexpr std::size_t kNever = ~std::size_t{0};

  struct Inode {
    std::string data;    // what a reader sees
    std::string synced;  // what survives a power loss
  };

  class File final : public internal::WritableFile {
   public:
    File(FakeEnv* env, std::string path, std::shared_ptr<Inode> inode)
        : env_(env), path_(std::move(path)), inode_(std::move(inode)) {}
    int Append(std::string_view data) override {
      std::lock_guard<std::mutex> lock(env_->mu_);
      if (const int error = env_->Begin("Append " + path_)) return error;
      inode_->data.append(data);
      return 0;
    }
    int Sync() override {
      std::lock_guard<std::mutex> lock(env_->mu_);
      if (const int error = env_->Begin("Sync " + path_)) return error;
      inode_->synced = inode_->data;
      return 0;
    }
    int Close() override {
      std::lock_guard<std::mutex> lock(env_->mu_);
      return env_->Begin("Close " + path_);
    }

   private:
    FakeEnv* const env_;
    const std::string path_;
    const std::shared_ptr<Inode> inode_;
  };

  class Lock final : public internal::FileLock {
   public:
    Lock(FakeEnv* env, std::string path, int boot)
        : env_(env), path_(std::move(path)), boot_(boot) {}
    ~Lock() override {
      std::lock_guard<std::mutex> lock(env_->mu_);
      if (env_->boot_ == boot_) env_->locks_.erase(path_);
    }

   private:
    FakeEnv* const env_;
    const std::string path_;
    const int boot_;
  };

  static std::string Parent(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  }

  // Records a call; returns the error it is to fail with, or 0. REQUIRES: mu_ held.
  int Begin(std::string call) {
    const std::size_t index = calls_.size();
    calls_.push_back(std::move(call));
    return index == fail_at_ || index >= fail_from_ ? error_ : 0;
  }

  mutable std::mutex mu_;
  std::vector<std::string> calls_;
  std::size_t fail_at_ = kNever;
  std::size_t fail_from_ = kNever;
  int error_ = EIO;
  std::set<std::string> dirs_;
  std::map<std::string, std::shared_ptr<Inode>> files_;    // what a reader sees
  std::map<std::string, std::shared_ptr<Inode>> durable_;  // what survives a power loss
  std::set<std::string> locks_;
  int boot_ = 0;
};

}  // namespace steadyflake::testing

#endif  // STEADYFLAKE_TESTS_FAKE_ENV_H_
