// Copyright 2026 The steadyflake Authors.

#include "state_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "steadyflake/error.h"

namespace steadyflake::internal {
namespace {

constexpr std::string_view kMagic = "steadyflake-state 1";

uint64_t Fnv1a64(std::string_view data) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string Hex64(uint64_t value) {
  char buffer[16];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, 16);
  std::string text(buffer, end);
  return std::string(16 - text.size(), '0') + text;
}

std::string Errno(int error) { return std::strerror(error); }

[[noreturn]] void StateError(const std::string& message) {
  throw Error(Error::Code::kState, message);
}

// Writes all of `data` to `fd`, retrying short writes. Returns 0 or an errno value.
int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// Reads a whole small file. Returns 0 or an errno value.
int ReadAll(int fd, std::string* out) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    out->append(buffer, static_cast<std::size_t>(n));
    if (out->size() > (1 << 16)) return EFBIG;  // a state file is under 200 bytes
  }
}

}  // namespace

StateFile::StateFile(const std::string& dir, const Layout& layout, uint64_t server_id)
    : layout_(layout),
      server_id_(server_id),
      dir_(dir),
      path_(dir + "/server-" + std::to_string(server_id) + ".state"),
      lock_path_(dir + "/server-" + std::to_string(server_id) + ".lock") {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    StateError("cannot create state folder " + dir + ": " + ec.message() +
               "; choose a writable state folder");
  }
  dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    StateError("cannot open state folder " + dir + ": " + Errno(errno) +
               "; choose a readable state folder");
  }
  lock_fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) {
    const int error = errno;
    ::close(dir_fd_);
    StateError("cannot open lock file " + lock_path_ + ": " + Errno(error) +
               "; choose a writable state folder");
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::string holder;
    ReadAll(lock_fd_, &holder);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    ::close(lock_fd_);
    ::close(dir_fd_);
    if (error == EWOULDBLOCK) {
      throw Error(Error::Code::kLocked, "state file " + path_ +
                                            " is in use by another generator (pid " +
                                            (holder.empty() ? std::string("unknown") : holder) +
                                            "); stop that process first: two generators with one "
                                            "server id would issue the same IDs");
    }
    StateError("cannot lock " + lock_path_ + ": " + Errno(error));
  }
  // We hold the lock: record who we are for the next process that finds it taken.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    // Not fatal: the lock itself holds; only the holder's pid would be missing from errors.
  }
  try {
    Read();
  } catch (...) {
    ::close(lock_fd_);
    ::close(dir_fd_);
    throw;
  }
}

StateFile::~StateFile() {
  // Closing the descriptor releases the flock.
  ::close(lock_fd_);
  ::close(dir_fd_);
}

std::string StateFile::Render(const Layout& layout, uint64_t server_id, uint64_t reserved_until) {
  std::string text = std::string(kMagic) + "\n";
  text += "layout " + layout.ToString() + "\n";
  text += "epoch_ms " + std::to_string(layout.epoch_ms()) + "\n";
  text += "server_id " + std::to_string(server_id) + "\n";
  text += "reserved_until " + std::to_string(reserved_until) + "\n";
  return Seal(std::move(text));
}

std::string StateFile::Seal(std::string body) {
  body += "checksum " + Hex64(Fnv1a64(body)) + "\n";
  return body;
}

void StateFile::Read() {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return;  // first start with this folder
    StateError("cannot read state file " + path_ + ": " + Errno(errno));
  }
  std::string text;
  const int error = ReadAll(fd, &text);
  ::close(fd);
  if (error != 0) StateError("cannot read state file " + path_ + ": " + Errno(error));
  reserved_until_ = Parse(text, path_, layout_, server_id_);
}

uint64_t StateFile::Parse(std::string_view text, const std::string& path, const Layout& layout,
                          uint64_t server_id) {
  const auto corrupt = [&](const std::string& why) {
    StateError("state file " + path + " is corrupt (" + why +
               "); restore it from a backup, or move it aside and start with resume_after "
               "(steadyflake gen --resume-after ID) set to the largest ID this server issued");
  };
  // Split into "key value" lines; the last one is the checksum of all before it.
  const std::size_t checksum_at = text.rfind("checksum ");
  if (text.empty()) corrupt("empty file");
  if (checksum_at == std::string::npos || text.back() != '\n') corrupt("no checksum line");
  const std::string_view body(text.data(), checksum_at);
  const std::string_view stored(text.data() + checksum_at + 9, text.size() - checksum_at - 10);
  if (stored != Hex64(Fnv1a64(body))) corrupt("checksum mismatch");
  if (body.substr(0, kMagic.size() + 1) != std::string(kMagic) + "\n") {
    corrupt("unknown format");
  }
  std::string layout_text;
  std::optional<int64_t> epoch;
  std::optional<uint64_t> server, reserved;
  std::size_t pos = kMagic.size() + 1;
  while (pos < body.size()) {
    const std::size_t eol = body.find('\n', pos);
    // Regression: a last line without its newline once made `pos = eol + 1` wrap to 0, and the
    // constructor looped forever.
    if (eol == std::string_view::npos) corrupt("a line before the checksum has no line end");
    const std::string_view line = body.substr(pos, eol - pos);
    pos = eol + 1;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) corrupt("malformed line");
    const std::string_view key = line.substr(0, space), value = line.substr(space + 1);
    const auto number = [&](auto* out) {
      typename std::remove_reference_t<decltype(*out)>::value_type v{};
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || ptr != value.data() + value.size())
        corrupt("bad " + std::string(key));
      *out = v;
    };
    if (key == "layout") {
      layout_text = value;
    } else if (key == "epoch_ms") {
      number(&epoch);
    } else if (key == "server_id") {
      number(&server);
    } else if (key == "reserved_until") {
      number(&reserved);
    }
  }
  if (layout_text.empty() || !epoch || !server || !reserved) corrupt("a field is missing");
  if (layout_text != layout.ToString() || *epoch != layout.epoch_ms()) {
    StateError("state file " + path + " was written for layout " + layout_text + " epoch_ms " +
               std::to_string(*epoch) + ", not " + layout.ToString() + " epoch_ms " +
               std::to_string(layout.epoch_ms()) +
               "; use the layout it was written for, or another state folder");
  }
  if (*server != server_id) {
    StateError("state file " + path + " was written for server id " + std::to_string(*server) +
               ", not " + std::to_string(server_id) +
               "; files must not be copied between servers: use another state folder");
  }
  // A tick the layout cannot hold is no reservation this engine wrote (and reserved + 1, the
  // first tick after it, would wrap): refuse it, file untouched.
  if (*reserved > layout.max_tick()) {
    corrupt("reserved_until " + std::to_string(*reserved) + " is beyond the layout's last tick " +
            std::to_string(layout.max_tick()));
  }
  return *reserved;
}

void StateFile::Write(uint64_t reserved_until) {
  const std::string text = Render(layout_, server_id_, reserved_until);
  const std::string temp = path_ + ".tmp";
  const auto fail = [&](const std::string& step, int error) {
    StateError("cannot write state file " + path_ + " (" + step + "): " + Errno(error));
  };
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("open " + temp, errno);
  int error = WriteAll(fd, text);
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    fail("write " + temp, error);
  }
  if (::rename(temp.c_str(), path_.c_str()) != 0) {
    error = errno;
    ::unlink(temp.c_str());
    fail("rename", error);
  }
  if (::fsync(dir_fd_) != 0) fail("fsync folder", errno);
  reserved_until_ = reserved_until;
}

}  // namespace steadyflake::internal
