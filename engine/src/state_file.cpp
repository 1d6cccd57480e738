// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "state_file.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

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

}  // namespace

StateFile::StateFile(Env* env, const std::string& dir, const Layout& layout, uint64_t server_id)
    : env_(env != nullptr ? env : Env::Default()),
      layout_(layout),
      server_id_(server_id),
      dir_(dir),
      path_(dir + "/server-" + std::to_string(server_id) + ".state"),
      lock_path_(dir + "/server-" + std::to_string(server_id) + ".lock") {
  if (const int error = env_->CreateDirs(dir); error != 0) {
    StateError("cannot create state folder " + dir + ": " + Errno(error) +
               "; choose a writable state folder");
  }
  std::string holder;
  if (const int error = env_->LockFile(lock_path_, &lock_, &holder); error != 0) {
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    if (error == EWOULDBLOCK) {
      throw Error(Error::Code::kLocked, "state file " + path_ +
                                            " is in use by another generator (pid " +
                                            (holder.empty() ? std::string("unknown") : holder) +
                                            "); stop that process first: two generators with one "
                                            "server id would issue the same IDs");
    }
    StateError("cannot lock " + lock_path_ + ": " + Errno(error) +
               "; choose a writable state folder");
  }
  Read();  // on a throw, lock_'s destructor releases the lock
}

StateFile::~StateFile() = default;

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
  std::string text;
  // A state file is under 200 bytes: anything much longer is no state file.
  const int error = env_->ReadFile(path_, 1 << 16, &text);
  if (error == ENOENT) return;  // first start with this folder
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

// Temporary file, its data synced, renamed over the old one, the folder synced: at every step
// of the way a power loss leaves either the old file or the new one, whole. Any failure leaves
// the old file as it was, but for one: a failed folder sync after the rename, where the new
// file is in place but may not survive a power loss. Either covers every ID issued, because
// reserved_until_ (and so the generator's limit) moves only after the whole sequence succeeded.
void StateFile::Write(uint64_t reserved_until) {
  const std::string text = Render(layout_, server_id_, reserved_until);
  const std::string temp = path_ + ".tmp";
  const auto fail = [&](const std::string& step, int error) {
    StateError("cannot write state file " + path_ + " (" + step + "): " + Errno(error));
  };
  std::unique_ptr<WritableFile> file;
  if (const int error = env_->NewWritableFile(temp, &file); error != 0) {
    fail("open " + temp, error);
  }
  int error = file->Append(text);
  if (error == 0) error = file->Sync();
  if (const int close_error = file->Close(); error == 0) error = close_error;
  if (error != 0) {
    env_->RemoveFile(temp);
    fail("write " + temp, error);
  }
  if (error = env_->RenameFile(temp, path_); error != 0) {
    env_->RemoveFile(temp);
    fail("rename", error);
  }
  if (error = env_->SyncDir(dir_); error != 0) fail("fsync folder", error);
  reserved_until_ = reserved_until;
}

std::optional<uint64_t> StateFileStore::Open(const Layout& layout, uint64_t server_id) {
  file_ = std::make_unique<StateFile>(env_, dir_, layout, server_id);
  return file_->reserved_until();
}

void StateFileStore::Extend(uint64_t tick) {
  file_->Write(tick);
  reserved_until_ = tick;
}

void StateFileStore::Close(std::optional<uint64_t> last_used) noexcept {
  // A clean stop records the last tick really used instead of the reservation, so a prompt
  // restart does not start ahead of the wall clock. If this write fails, the larger reservation
  // on disk still covers everything.
  if (file_ && last_used && *last_used < reserved_until_) {
    try {
      file_->Write(*last_used);
    } catch (const Error&) {
    }
  }
  file_.reset();
}

std::string StateFileStore::Describe() const {
  return "state file " + (file_ ? file_->path() : dir_);
}

}  // namespace steadyflake::internal
