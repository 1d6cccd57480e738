// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/byte_stream.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "source/read_buffer.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck::dump {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& problem,
                       const std::string& fix) {
  throw Error(Error::Code::kInvalidArgument, path + ": " + problem + "; " + fix);
}

// Owns a read-only file descriptor.
class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      Fail(path, std::string("cannot open: ") + std::strerror(errno),
           "check the path and that it is readable");
    }
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() { ::close(fd_); }

  // Like read(2), retrying on EINTR; throws on an I/O error.
  size_t Read(char* dst, size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd_, dst, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      Fail(path_, std::string("cannot read: ") + std::strerror(errno),
           "check that the file is readable and not a directory");
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

class PlainStream final : public ByteStream {
 public:
  explicit PlainStream(const std::string& path) : file_(path) {}
  size_t Read(char* dst, size_t n) override {
    const size_t got = file_.Read(dst, n);
    consumed_ += got;
    return got;
  }
  uint64_t consumed() const override { return consumed_; }

 private:
  File file_;
  uint64_t consumed_ = 0;
};

// Inflates every gzip member of the file in turn (gzip allows concatenated members, as
// `cat a.gz b.gz` produces).
class GzipStream final : public ByteStream {
 public:
  explicit GzipStream(const std::string& path)
      : path_(path), file_(path), in_(NewReadBuffer(kInputSize)) {
    std::memset(&z_, 0, sizeof(z_));
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
      Fail(path_, "cannot start zlib", "this is out of memory; free some and retry");
    }
  }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;
  ~GzipStream() override { inflateEnd(&z_); }

  size_t Read(char* dst, size_t n) override {
    if (done_) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(n > kMaxOut ? kMaxOut : n);
    const uInt wanted = z_.avail_out;
    while (z_.avail_out == wanted) {
      if (z_.avail_in == 0) {
        const size_t got = file_.Read(reinterpret_cast<char*>(in_.get()), kInputSize);
        file_read_ += got;
        if (got == 0) {
          if (member_started_) {
            Fail(path_, "the gzip stream is cut short",
                 "the file is truncated; copy or compress it again");
          }
          done_ = true;
          break;
        }
        z_.next_in = in_.get();
        z_.avail_in = static_cast<uInt>(got);
      }
      member_started_ = true;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // The next member, if any, starts with a fresh header.
        member_started_ = false;
        if (inflateReset(&z_) != Z_OK) Fail(path_, "cannot reset zlib", "retry");
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        Fail(path_,
             std::string("the gzip data is corrupt (zlib: ") + (z_.msg ? z_.msg : "error") + ")",
             "the file is damaged; copy or compress it again");
      }
    }
    return wanted - z_.avail_out;
  }
  uint64_t consumed() const override { return file_read_ - z_.avail_in; }

 private:
  static constexpr size_t kInputSize = 1 << 20;
  static constexpr size_t kMaxOut = 1u << 30;

  std::string path_;
  File file_;
  ReadBuffer in_;  // on a page: read_buffer.h
  z_stream z_;
  bool member_started_ = false;
  bool done_ = false;
  uint64_t file_read_ = 0;  // bytes read from the file, z_.avail_in of them not yet inflated
};

}  // namespace

std::unique_ptr<ByteStream> OpenByteStream(const std::string& path, bool gzip) {
  if (gzip) return std::make_unique<GzipStream>(path);
  return std::make_unique<PlainStream>(path);
}

}  // namespace steadyflake::mergecheck::dump
