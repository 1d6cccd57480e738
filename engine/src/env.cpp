// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace steadyflake::internal {
namespace {

// Reads from `fd` until the end, at most `limit` bytes. Returns 0 or an errno value.
int ReadAll(int fd, std::size_t limit, std::string* out) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    out->append(buffer, static_cast<std::size_t>(n));
    if (out->size() > limit) return EFBIG;
  }
}

class PosixWritableFile final : public WritableFile {
 public:
  explicit PosixWritableFile(int fd) : fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  int Append(std::string_view data) override {
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
  }

  int Sync() override { return ::fsync(fd_) == 0 ? 0 : errno; }

  int Close() override {
    const int fd = fd_;
    fd_ = -1;
    // Not retried on EINTR: Linux has released the descriptor whatever close() returns.
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  // Closing the descriptor releases the flock.
  ~PosixFileLock() override { ::close(fd_); }

 private:
  const int fd_;
};

class PosixEnv final : public Env {
 public:
  int CreateDirs(const std::string& dir) override {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return ec.value();
  }

  int NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* file) override {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    *file = std::make_unique<PosixWritableFile>(fd);
    return 0;
  }

  int ReadFile(const std::string& path, std::size_t limit, std::string* out) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    const int error = ReadAll(fd, limit, out);
    ::close(fd);
    return error;
  }

  int RenameFile(const std::string& from, const std::string& to) override {
    return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
  }

  int RemoveFile(const std::string& path) override {
    return ::unlink(path.c_str()) == 0 ? 0 : errno;
  }

  int SyncDir(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    const int error = ::fsync(fd) == 0 ? 0 : errno;
    ::close(fd);
    return error;
  }

  // flock, not fcntl locks: an fcntl lock is released when the process closes any descriptor
  // of the file, and the lock file is read by others, in this process too (tests).
  int LockFile(const std::string& path, std::unique_ptr<FileLock>* lock,
               std::string* holder) override {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ReadAll(fd, 4096, holder);
      ::close(fd);
      return error;
    }
    // Not checked: the lock holds without it; only the holder's pid would be missing from the
    // next process's error.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) {
      [[maybe_unused]] const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
    }
    *lock = std::make_unique<PosixFileLock>(fd);
    return 0;
  }
};

}  // namespace

Env* Env::Default() {
  // Leaked on purpose: generators may outlive static destruction order (leveldb does the same).
  static Env* const env = new PosixEnv;
  return env;
}

}  // namespace steadyflake::internal
