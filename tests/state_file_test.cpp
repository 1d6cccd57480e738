// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Restart safety (invariant 2): the state file, its lock, and what happens when it is corrupt,
// mismatched or held. Crashes are real: a forked child issues IDs and is killed (SIGKILL) without
// running any destructor.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "state_file.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using testing::kJune2026;
using testing::kMs;
using testing::kSecond;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
using Code = Error::Code;

Generator::Options WithState(SimulatedClock* clock, const std::string& dir,
                             uint64_t server_id = 7) {
  Generator::Options options;
  options.server_id = server_id;
  options.clock = clock;
  options.state_dir = dir;
  options.ticker = Generator::Ticker::kManual;
  // Each write done when refresh() returns; the background writer has its own tests
  // (reservation_store_test.cpp, BackgroundWriter*).
  options.write_in_background = false;
  return options;
}

std::string StatePath(const TempDir& dir, uint64_t server_id = 7) {
  return dir.path() + "/server-" + std::to_string(server_id) + ".state";
}

// Runs `body(report)` in a forked child, which issues IDs and passes some of them to `report`
// (written to a pipe); once `reports` of them have arrived the parent kills the child with
// SIGKILL, mid-issue: no destructor, no final state write, a real crash. Returns the largest ID
// the child reported. `body` should not return; the child _exit()s if it does.
template <typename Body>
Id LargestIdReportedBeforeKill(Body body, int reports) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    try {
      body([fd = fds[1]](Id id) {
        if (::write(fd, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) ::_exit(3);
      });
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(1);  // ran out of work before it was killed
  }
  ::close(fds[1]);
  Id largest = -1;
  int got = 0;
  Id id = 0;
  // IDs are 8 bytes, below PIPE_BUF: each write arrives whole or not at all.
  while (::read(fds[0], &id, sizeof id) == static_cast<ssize_t>(sizeof id)) {
    largest = std::max(largest, id);
    if (++got == reports) ::kill(pid, SIGKILL);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child was not killed mid-issue (status " << status << ")";
  EXPECT_GE(got, reports) << "the child reported too few IDs";
  EXPECT_GT(largest, 0) << "the child failed to issue IDs";
  return largest;
}

TEST(StateFileTest, FirstStartWritesAReservationAhead) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  Generator generator(WithState(&clock, dir.path()));
  const Layout& game = generator.layout();
  const uint64_t start = game.TickAt(kJune2026 / kMs);
  EXPECT_EQ(ReadFile(StatePath(dir)), internal::StateFile::Render(game, 7, start + 300));
  EXPECT_GT(generator.next(), 0);
}

TEST(StateFileTest, ReservationIsExtendedBeforeIssuingPastIt) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  Generator generator(WithState(&clock, dir.path()));
  const Layout& game = generator.layout();
  // 10 s of simulated time at full demand: every ID must lie inside what the file reserves.
  for (int step = 0; step < 1000; ++step) {
    clock.Advance(10 * kMs);
    generator.refresh();
    const IdRange batch = generator.next_batch(1024);
    const std::string text = ReadFile(StatePath(dir));
    const std::size_t at = text.find("reserved_until ") + 15;
    const uint64_t reserved = std::stoull(text.substr(at, text.find('\n', at) - at));
    ASSERT_LE(game.Decode(batch.back()).tick, reserved) << "issued past the reservation";
  }
  EXPECT_TRUE(generator.state_error().empty());
}

// The reserved-until tick the state file in `dir` holds now.
uint64_t ReservedUntil(const TempDir& dir) {
  const std::string text = ReadFile(StatePath(dir));
  const std::size_t at = text.find("reserved_until ") + 15;
  return std::stoull(text.substr(at, text.find('\n', at) - at));
}

// reserve_ahead is the engine's: left unset it is max(3 s, max_lead + 1 s), so a caller that
// raises max_lead needs no arithmetic of its own (design section 10).
TEST(StateFileTest, DefaultReservationIsThreeSecondsOrMaxLeadPlusOne) {
  const uint64_t now_tick = Layout::Game().TickAt(kJune2026 / kMs);
  for (const auto& [lead_ms, reserve_ms] : {std::pair{2000, 3000}, std::pair{10000, 11000}}) {
    TempDir dir;
    SimulatedClock clock(kJune2026);
    Generator::Options options = WithState(&clock, dir.path());
    options.max_lead = std::chrono::milliseconds(lead_ms);
    Generator generator(options);
    EXPECT_EQ(ReservedUntil(dir), now_tick + reserve_ms / 10) << "max_lead " << lead_ms << " ms";
  }
}

// Issue 9.8: try_next() promises not to wait, but refreshed through refresh(), which may fsync
// the state file. It now never writes: the reservation is the ticker's (or the owner's) to
// extend.
TEST(StateFileTest, TryNextNeverWritesTheStateFile) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  Generator generator(WithState(&clock, dir.path()));
  const uint64_t reserved = ReservedUntil(dir);
  generator.next_batch(generator.max_batch());    // the whole max_lead window: the limit is hit
  clock.Advance(2500 * kMs);                      // an extension is now due
  EXPECT_TRUE(generator.try_next().has_value());  // still inside the reservation
  EXPECT_EQ(ReservedUntil(dir), reserved) << "try_next() wrote the state file";
  generator.refresh();
  EXPECT_GT(ReservedUntil(dir), reserved) << "refresh() did not extend the reservation";
}

TEST(StateFileTest, RestartAfterCrashWithWallClockSetBackNeverRepeats) {
  TempDir dir;
  // Killed after 300 reports: 3 s of demand at capacity, across several reservations.
  const Id largest = LargestIdReportedBeforeKill(
      [&](auto report) {
        SimulatedClock clock(kJune2026);
        Generator generator(WithState(&clock, dir.path()));
        for (int i = 0; i < 100000; ++i) {
          clock.Advance(10 * kMs);
          generator.refresh();
          report(generator.next_batch(1024).back());
        }
      },
      300);
  SimulatedClock clock(kJune2026 - 3600 * kSecond);  // restarted with the clock an hour back
  Generator generator(WithState(&clock, dir.path()));
  EXPECT_GT(generator.next(), largest);
  EXPECT_GT(generator.skew(), std::chrono::minutes(59));
}

// Regression: the renewal test once computed reserved_until - now in unsigned arithmetic, so a
// pause longer than the reservation wrapped around and the generator never renewed (hung).
TEST(StateFileTest, PauseLongerThanTheReservationRenewsIt) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  Generator generator(WithState(&clock, dir.path()));
  const Id before = generator.next();
  clock.Advance(60 * kSecond);  // the process was stopped for a minute
  generator.refresh();          // the ticker's first run after it
  ASSERT_TRUE(generator.try_next().has_value()) << generator.state_error();
  const Id after = generator.next();
  EXPECT_GT(after, before);
  EXPECT_EQ(generator.layout().Decode(after).unix_ms, kJune2026 / kMs + 60'000);
}

// A simulated clock whose SleepFor, once frozen, never returns: a generator waiting for a tick
// then waits until it is killed. (SimulatedClock's SleepFor moves the clock on and returns at
// once, so a child that was to be killed waiting could instead issue the next ID and exit first
// when the parent was slow to kill it, as on a loaded CI machine.)
class FrozenClock : public SimulatedClock {
 public:
  using SimulatedClock::SimulatedClock;
  void SleepFor(int64_t nanos) override {
    if (!frozen) {
      SimulatedClock::SleepFor(nanos);
      return;
    }
    for (;;) ::pause();  // until SIGKILL
  }
  bool frozen = false;
};

TEST(StateFileTest, CrashRightAfterStartStillCoversEverything) {
  TempDir dir;
  const Id largest = LargestIdReportedBeforeKill(
      [&](auto report) {
        FrozenClock clock(kJune2026);
        Generator generator(WithState(&clock, dir.path()));
        report(generator.next_batch(generator.max_batch()).back());  // max_lead used up
        clock.frozen = true;
        report(generator.next());  // waits for a tick that never comes: killed in there
      },
      1);
  SimulatedClock clock(kJune2026);  // same wall time: only the file knows
  Generator generator(WithState(&clock, dir.path()));
  EXPECT_GT(generator.next(), largest);
}

// A state folder, or a state file, this process may not write: the generator refuses to start
// (it could not keep its reservation) with an error naming the path, and leaves the file as it
// was. Run as nobody, so it runs as root too (root writes anything).
TEST(StateFileTest, StateThisProcessMayNotWriteIsRefused) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);  // nobody may enter but not write
  {
    SimulatedClock clock(kJune2026);
    Generator generator(WithState(&clock, dir.path(), 8));  // server 8's file, as root
  }
  const std::string text = ReadFile(StatePath(dir, 8));
  ASSERT_FALSE(text.empty());
  testing::RunUnprivileged([&]() -> std::string {
    for (const uint64_t server_id : {7, 8}) {  // no file yet: the folder; then the file
      try {
        SimulatedClock clock(kJune2026);
        Generator generator(WithState(&clock, dir.path(), server_id));
        return "server " + std::to_string(server_id) + ": started without a writable state";
      } catch (const Error& e) {
        const std::string message = e.what();
        if (e.code() != Code::kState || message.find(dir.path()) == std::string::npos) {
          return "server " + std::to_string(server_id) + ": " + message;
        }
      }
    }
    return ReadFile(StatePath(dir, 8)) == text ? "" : "the state file was modified";
  });
}

// Writes `text` as server 7's state file, starts a generator on it, and expects Error(kState)
// whose message holds `message`, with the file left byte for byte as it was.
void ExpectRefusedAndUntouched(const std::string& text, const std::string& message) {
  SCOPED_TRACE("state file text: " + text);
  TempDir dir;
  WriteFile(StatePath(dir), text);
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithState(&clock, dir.path())}, Code::kState, message);
  EXPECT_EQ(ReadFile(StatePath(dir)), text) << "a refused state file was modified";
}

// Issue 9.6: a state file whose last line before the checksum lacked its newline made the
// parser loop forever; the constructor never returned.
TEST(StateFileTest, LastLineWithoutItsNewlineIsCorruptNotAHang) {
  const Layout game = Layout::Game();
  std::string body = internal::StateFile::Render(game, 7, game.TickAt(kJune2026 / kMs));
  body = body.substr(0, body.find("checksum "));
  body.pop_back();  // "reserved_until N" without its '\n'
  ExpectRefusedAndUntouched(internal::StateFile::Seal(body), "has no line end");
}

// Issue 9.7: reserved_until = 2^64 - 1 with a valid checksum was accepted; reserved + 1 wrapped
// to 0, the start came from the wall clock, and the file was rewritten.
TEST(StateFileTest, ReservationBeyondTheLayoutIsCorruptAndLeftAlone) {
  const Layout game = Layout::Game();
  for (const uint64_t reserved : {UINT64_MAX, game.max_tick() + 1}) {
    ExpectRefusedAndUntouched(internal::StateFile::Render(game, 7, reserved),
                              "is beyond the layout's last tick");
  }
}

TEST(StateFileTest, CleanStopRecordsTheLastTickSoARestartHasNoLead) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  Id last = 0;
  {
    Generator generator(WithState(&clock, dir.path()));
    last = generator.next();
  }
  Generator generator(WithState(&clock, dir.path()));
  const Id id = generator.next();
  EXPECT_GT(id, last);
  EXPECT_EQ(generator.layout().Decode(id).tick, generator.layout().Decode(last).tick + 1);
  EXPECT_LE(generator.skew(), std::chrono::milliseconds(10));
}

TEST(StateFileTest, CorruptFilesAreErrorsAndLeftAlone) {
  const Layout game = Layout::Game();
  const uint64_t tick = game.TickAt(kJune2026 / kMs);
  std::string flipped = internal::StateFile::Render(game, 7, tick);
  flipped[flipped.find("reserved_until ") + 15] ^= 1;  // one digit changed
  const std::string good = internal::StateFile::Render(game, 7, tick);
  for (const std::string& text :
       {std::string(), std::string("garbage\n"), good.substr(0, good.size() / 2), flipped,
        std::string("steadyflake-state 1\nchecksum 0000000000000000\n")}) {
    ExpectRefusedAndUntouched(text, "is corrupt");
  }
}

TEST(StateFileTest, FileOfAnotherLayoutIsRefused) {
  TempDir dir;
  const Layout snowflake = Layout::Snowflake();
  const std::string text = internal::StateFile::Render(snowflake, 7, 123);
  WriteFile(StatePath(dir), text);
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithState(&clock, dir.path())}, Code::kState,
                           "was written for layout 41/10/12@1ms");
  EXPECT_EQ(ReadFile(StatePath(dir)), text);
}

TEST(StateFileTest, FileOfAnotherEpochIsRefused) {
  TempDir dir;
  const Layout moved = Layout::Game().WithEpoch(1700000000000);
  WriteFile(StatePath(dir), internal::StateFile::Render(moved, 7, 123));
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithState(&clock, dir.path())}, Code::kState,
                           "epoch_ms 1700000000000");
}

TEST(StateFileTest, FileOfAnotherServerIsRefused) {
  TempDir dir;
  const std::string text = internal::StateFile::Render(Layout::Game(), 8, 123);
  WriteFile(StatePath(dir), text);
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithState(&clock, dir.path())}, Code::kState,
                           "written for server id 8, not 7");
  EXPECT_EQ(ReadFile(StatePath(dir)), text);
}

TEST(StateFileTest, SecondHolderIsRefusedNamingThePid) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  // Without the host guard (host_guard_test.cpp), which would refuse the second generator first:
  // this is the state file's own lock.
  Generator::Options options = WithState(&clock, dir.path());
  options.host_guard = false;
  Generator first(options);
  EXPECT_STEADYFLAKE_ERROR(Generator{options}, Code::kLocked,
                           "in use by another generator (pid " + std::to_string(::getpid()) + ")");
  // Another server id in the same folder is fine.
  Generator other(WithState(&clock, dir.path(), 8));
  EXPECT_NE(first.next(), other.next());
}

TEST(StateFileTest, LockIsReleasedWithTheGenerator) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  { Generator first(WithState(&clock, dir.path())); }
  Generator second(WithState(&clock, dir.path()));
  EXPECT_GT(second.next(), 0);
}

TEST(StateFileTest, ReservationFarAheadOfTheWallClockIsRefused) {
  TempDir dir;
  const Layout game = Layout::Game();
  const uint64_t two_days_ahead = game.TickAt(kJune2026 / kMs) + 2 * 8'640'000;
  WriteFile(StatePath(dir), internal::StateFile::Render(game, 7, two_days_ahead));
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{WithState(&clock, dir.path())}, Code::kClock,
                           "172800 s ahead of the wall clock");
}

TEST(StateFileTest, FailedWritesStopIssuingAtTheReservation) {
  TempDir dir;
  SimulatedClock clock(kJune2026);
  Generator generator(WithState(&clock, dir.path()));
  const Layout& game = generator.layout();
  // Pull the folder away: every later write fails.
  std::filesystem::remove_all(dir.path());
  uint64_t largest_tick = 0;
  for (int i = 0; i < 1000; ++i) {
    clock.Advance(10 * kMs);
    generator.refresh();  // the manual ticker: try_next() itself never writes the file
    while (const auto id = generator.try_next()) largest_tick = game.Decode(*id).tick;
  }
  EXPECT_NE(generator.state_error().find("cannot write state file"), std::string::npos)
      << generator.state_error();
  EXPECT_EQ(largest_tick, game.TickAt(kJune2026 / kMs) + 300) << "issued past the reservation";
}

}  // namespace
}  // namespace steadyflake
