// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The C ABI (steadyflake/c.h) over the engine. Every function that calls into code that may
// throw runs it inside Guard(), which turns any exception (steadyflake::Error, std::bad_alloc,
// anything else) into an errptr message and a failure value, so none crosses into C.
//
// How the fork rule stays off the fast path. glibc's getpid() is a system call (it stopped
// caching the pid in 2.25), which would cost several times a whole next(). Instead a
// pthread_atfork() child handler bumps a process-wide fork generation, and each generator
// remembers the generation it was opened in: next() compares two integers. In the parent the
// generation never changes; in a child it differs for every generator inherited from before
// the fork, which is then unusable.

#include "steadyflake/c.h"

#include <pthread.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "steadyflake/id_format.h"
#include "steadyflake/layout.h"
#include "steadyflake/time_format.h"
#include "steadyflake/version.h"

namespace {

using steadyflake::Error;
using steadyflake::Generator;
using steadyflake::Id;
using steadyflake::Layout;

// Incremented in every child created by fork() (OnForkChild). Memory ordering: relaxed is
// enough. The only writer runs in the child before fork() returns there, when the child has
// one thread, and the same thread's later reads are ordered after it by program order; in the
// parent it is never written.
std::atomic<uint64_t> fork_generation{0};

extern "C" void OnForkChild() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

// Registers OnForkChild once per process, before the first generator exists. glibc removes the
// handler if the library is unloaded (dlclose), so a binding that unloads it is safe.
void RegisterForkHandler() {
  static const int registered = pthread_atfork(nullptr, nullptr, &OnForkChild);
  if (registered != 0) {
    // Without the handler a child could repeat its parent's IDs: refuse to open rather.
    throw Error(Error::Code::kState, "pthread_atfork failed (" +
                                         std::generic_category().message(registered) +
                                         "); cannot guard generators against fork()");
  }
}

// The message when even the copy of a message cannot be allocated. steadyflake_free knows it
// and does not free it.
char kOutOfMemory[] = "out of memory";

void SetError(char** errptr, const char* message) {
  if (errptr == nullptr) return;
  const std::size_t size = std::strlen(message) + 1;
  char* copy = static_cast<char*>(std::malloc(size));
  if (copy == nullptr) {
    *errptr = kOutOfMemory;
    return;
  }
  std::memcpy(copy, message, size);
  *errptr = copy;
}

void ClearError(char** errptr) {
  if (errptr != nullptr) *errptr = nullptr;
}

// Runs `body` and returns its result with *errptr cleared, or `failure` with *errptr set to
// the message of whatever it threw.
template <typename T, typename Body>
T Guard(char** errptr, T failure, Body&& body) noexcept {
  try {
    T result = body();
    ClearError(errptr);
    return result;
  } catch (const std::bad_alloc&) {
    SetError(errptr, kOutOfMemory);
  } catch (const std::exception& e) {
    SetError(errptr, e.what());
  } catch (...) {
    SetError(errptr, "unknown error");
  }
  return failure;
}

[[noreturn]] void Invalid(const std::string& message) {
  throw Error(Error::Code::kInvalidArgument, message);
}

Layout ParseLayout(const char* layout) {
  return Layout::Parse(layout != nullptr ? std::string_view(layout) : std::string_view("game"));
}

// The message for a generator used in a child after fork() (c.h, "Fork").
constexpr const char kForked[] =
    "this steadyflake generator was opened before fork(): a child must open its own (with its "
    "own server id), or it would issue its parent's IDs";

}  // namespace

struct steadyflake_options {
  mutable std::mutex mu;
  Generator::Options options;  // GUARDED_BY(mu)
};

struct steadyflake_generator {
  // Set in steadyflake_generator_open, never changed after: read by all threads without
  // locking.
  std::unique_ptr<Generator> engine;
  uint64_t fork_generation = 0;  // fork_generation when opened

  bool Usable() const {
    // Memory ordering: see fork_generation.
    return fork_generation == ::fork_generation.load(std::memory_order_relaxed);
  }
};

extern "C" {

steadyflake_options* steadyflake_options_create(void) {
  return new (std::nothrow) steadyflake_options;
}

void steadyflake_options_destroy(steadyflake_options* options) { delete options; }

void steadyflake_options_set_layout(steadyflake_options* options, const char* layout,
                                    char** errptr) {
  Guard(errptr, false, [&] {
    const Layout parsed = ParseLayout(layout);
    std::lock_guard<std::mutex> lock(options->mu);
    options->options.layout = parsed;
    return true;
  });
}

void steadyflake_options_set_server_id(steadyflake_options* options, uint64_t server_id) {
  std::lock_guard<std::mutex> lock(options->mu);
  options->options.server_id = server_id;
}

void steadyflake_options_set_state_dir(steadyflake_options* options, const char* dir) {
  // Copied outside the lock: only the allocation can fail, and it must not throw out of here.
  // On std::bad_alloc the folder is left as it was, and open then runs with the old one;
  // a process out of memory fails at open anyway.
  try {
    std::string copy = dir != nullptr ? dir : "";
    std::lock_guard<std::mutex> lock(options->mu);
    options->options.state_dir.swap(copy);
  } catch (...) {
  }
}

void steadyflake_options_set_max_lead_ms(steadyflake_options* options, int64_t ms) {
  std::lock_guard<std::mutex> lock(options->mu);
  options->options.max_lead = std::chrono::milliseconds(ms);
}

steadyflake_generator* steadyflake_generator_open(const steadyflake_options* options,
                                                  char** errptr) {
  return Guard(errptr, static_cast<steadyflake_generator*>(nullptr), [&] {
    if (options == nullptr) Invalid("steadyflake_generator_open: options is NULL");
    RegisterForkHandler();
    Generator::Options copy;
    {
      std::lock_guard<std::mutex> lock(options->mu);
      copy = options->options;
    }
    auto generator = std::make_unique<steadyflake_generator>();
    generator->fork_generation = fork_generation.load(std::memory_order_relaxed);
    generator->engine = std::make_unique<Generator>(std::move(copy));
    return generator.release();
  });
}

void steadyflake_generator_close(steadyflake_generator* generator) {
  if (generator == nullptr) return;
  if (!generator->Usable()) {
    // In a child after fork(): the engine's ticker and writer threads do not exist here (joining
    // them is undefined) and its destructor would write the parent's state file. Leak it on
    // purpose.
    [[maybe_unused]] Generator* leaked = generator->engine.release();
  }
  delete generator;
}

int64_t steadyflake_next(steadyflake_generator* generator) {
  if (generator == nullptr || !generator->Usable()) [[unlikely]] {
    return -1;
  }
  return generator->engine->next();
}

int steadyflake_try_next(steadyflake_generator* generator, int64_t* id) {
  if (generator == nullptr || id == nullptr || !generator->Usable()) [[unlikely]] {
    return -1;
  }
  const std::optional<Id> issued = generator->engine->try_next();
  if (!issued) return 0;
  *id = *issued;
  return 1;
}

size_t steadyflake_next_batch(steadyflake_generator* generator, int64_t* ids, size_t n,
                              char** errptr) {
  return Guard(errptr, size_t{0}, [&]() -> size_t {
    if (generator == nullptr) Invalid("steadyflake_next_batch: generator is NULL");
    if (!generator->Usable()) throw Error(Error::Code::kState, kForked);
    if (n == 0) return 0;
    if (ids == nullptr) Invalid("steadyflake_next_batch: ids is NULL");
    // Any n: above max_batch() in reservations of at most that many (c.h).
    int64_t* out = ids;
    generator->engine->next_batch_into(n, [&out](const steadyflake::IdRange& range) {
      for (const steadyflake::Id id : range) *out++ = id;
    });
    return n;
  });
}

void steadyflake_generator_stats(steadyflake_generator* generator, steadyflake_stats* out,
                                 char** errptr) {
  Guard(errptr, false, [&] {
    if (generator == nullptr) Invalid("steadyflake_generator_stats: generator is NULL");
    if (out == nullptr) Invalid("steadyflake_generator_stats: out is NULL");
    if (!generator->Usable()) throw Error(Error::Code::kState, kForked);
    const Generator::Stats stats = generator->engine->stats();
    out->issued = stats.issued;
    out->waits = stats.waits;
    out->would_wait = stats.would_wait;
    out->lead_ns = stats.lead.count();
    out->max_lead_seen_ns = stats.max_lead_seen.count();
    out->skew_ns = stats.skew.count();
    out->reservation_headroom_ns = stats.reservation_headroom.count();
    out->state_errors = stats.state_errors;
    out->lost = stats.lost ? 1 : 0;
    return true;
  });
}

char* steadyflake_generator_state_error(steadyflake_generator* generator) {
  if (generator == nullptr || !generator->Usable()) return nullptr;
  char* message = nullptr;
  Guard(static_cast<char**>(nullptr), false, [&] {
    const std::string text = generator->engine->state_error();
    if (!text.empty()) SetError(&message, text.c_str());
    return true;
  });
  // SetError's fallback is the static kOutOfMemory, which the caller would not be able to tell
  // from a real message; steadyflake_free knows it, so returning it is safe.
  return message;
}

void steadyflake_decode(const char* layout, int64_t id, steadyflake_parts* out, char** errptr) {
  Guard(errptr, false, [&] {
    const Layout parsed = ParseLayout(layout);
    if (out == nullptr) Invalid("steadyflake_decode: out is NULL");
    if (id < 0) Invalid("ID " + std::to_string(id) + " is negative; IDs are never negative");
    if (id > parsed.max_id()) {
      Invalid("ID " + std::to_string(id) + " is larger than layout " + parsed.ToString() +
              " holds (its largest ID is " + std::to_string(parsed.max_id()) + ")");
    }
    const steadyflake::DecodedId decoded = parsed.Decode(id);
    out->unix_ms = decoded.unix_ms;
    out->server_id = decoded.server_id;
    out->sequence = decoded.sequence;
    return true;
  });
}

int64_t steadyflake_compose(const char* layout, int64_t unix_ms, uint64_t server_id,
                            uint64_t sequence, char** errptr) {
  return Guard(errptr, int64_t{-1}, [&]() -> int64_t {
    const Layout parsed = ParseLayout(layout);
    if (unix_ms < parsed.epoch_ms() || unix_ms >= parsed.end_ms()) {
      Invalid("unix_ms " + std::to_string(unix_ms) + " (" + steadyflake::FormatIso8601(unix_ms) +
              ") is outside layout " + parsed.ToString() + "'s lifetime " +
              steadyflake::FormatIso8601(parsed.epoch_ms()) + " .. " +
              steadyflake::FormatIso8601(parsed.end_ms()) + " (end excluded)");
    }
    // Throws Error(kInvalidArgument) naming a server id or sequence out of range.
    return parsed.Compose(parsed.TickAt(unix_ms), server_id, sequence);
  });
}

size_t steadyflake_format(int64_t id, char* buf, size_t len) {
  char text[STEADYFLAKE_FORMAT_BUFFER_SIZE];
  const std::to_chars_result result = std::to_chars(text, text + sizeof(text), id);
  const auto length = static_cast<std::size_t>(result.ptr - text);
  if (buf == nullptr) return length;
  if (length >= len) {
    if (len > 0) buf[0] = '\0';
    return length;
  }
  std::memcpy(buf, text, length);
  buf[length] = '\0';
  return length;
}

int64_t steadyflake_parse(const char* text, char** errptr) {
  return Guard(errptr, int64_t{-1}, [&]() -> int64_t {
    if (text == nullptr) Invalid("steadyflake_parse: text is NULL");
    return steadyflake::ParseId(text);
  });
}

void steadyflake_free(void* ptr) {
  if (ptr != kOutOfMemory) std::free(ptr);
}

const char* steadyflake_version(void) { return STEADYFLAKE_VERSION; }

}  // extern "C"
