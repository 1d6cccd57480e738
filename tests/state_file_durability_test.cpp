// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The state file's durability (invariant 2 across power loss), on a fake file system
// (tests/fake_env.h) under the engine's Env seam: the order of the calls a write makes, a
// failure at each of them, and a power loss at any point. A real disk cannot show any of this:
// a dropped fsync passes every test that never loses power.

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fake_env.h"
#include "state_file.h"
#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using testing::FakeEnv;
using testing::kJune2026;
using testing::kMs;

const std::string kDir = "/var/lib/game/state";
const std::string kState = kDir + "/server-7.state";
const std::string kTemp = kState + ".tmp";

Generator::Options OnFakeDisk(FakeEnv* env, SimulatedClock* clock) {
  Generator::Options options;
  options.server_id = 7;
  options.clock = clock;
  options.state_dir = kDir;
  options.ticker = Generator::Ticker::kManual;
  options.env = env;
  // Each write done when refresh() returns; the background writer has its own tests
  // (reservation_store_test.cpp, BackgroundWriter*).
  options.write_in_background = false;
  return options;
}

// The calls one state-file write makes, in order.
std::vector<std::string> WriteCalls() {
  return {
      "NewWritableFile " + kTemp,           "Append " + kTemp, "Sync " + kTemp, "Close " + kTemp,
      "RenameFile " + kTemp + " " + kState, "SyncDir " + kDir};
}

std::string Render(const Layout& layout, uint64_t reserved_until) {
  return internal::StateFile::Render(layout, 7, reserved_until);
}

TEST(StateFileDurabilityTest, EveryWriteIsTempFileSyncRenameThenFolderSync) {
  FakeEnv env;
  SimulatedClock clock(kJune2026);
  Generator generator(OnFakeDisk(&env, &clock));
  const Layout& game = generator.layout();
  const uint64_t start = game.TickAt(kJune2026 / kMs);

  std::vector<std::string> expected = {"CreateDirs " + kDir, "LockFile " + kDir + "/server-7.lock",
                                       "ReadFile " + kState};
  for (const std::string& call : WriteCalls()) expected.push_back(call);
  EXPECT_EQ(env.calls(), expected);
  EXPECT_EQ(env.Contents(kState), Render(game, start + 300));

  // An extension (0.6 s on: less than 2.5 s of the 3 s reservation left) is the same sequence.
  env.ClearCalls();
  clock.Advance(600 * kMs);
  generator.refresh();
  EXPECT_EQ(env.calls(), WriteCalls());
  EXPECT_EQ(env.Contents(kState), Render(game, start + 60 + 300));
  EXPECT_EQ(env.Files(), std::set<std::string>{kState}) << "a temporary file was left behind";
}

// A failure at any step of the first write: the generator refuses to start (Error kState
// naming the step), having issued nothing, and leaves no temporary file. After a failed folder
// sync the new file may be in place; it holds a reservation no ID was issued under.
TEST(StateFileDurabilityTest, AFailureAtAnyStepOfTheFirstWriteRefusesToStart) {
  for (std::size_t step = 0; step < WriteCalls().size(); ++step) {
    SCOPED_TRACE("failing call: " + WriteCalls()[step]);
    FakeEnv env;
    SimulatedClock clock(kJune2026);
    env.FailCall(3 + step, ENOSPC);  // after CreateDirs, LockFile and ReadFile
    EXPECT_STEADYFLAKE_ERROR(Generator{OnFakeDisk(&env, &clock)}, Error::Code::kState,
                             "cannot write state file " + kState);
    ASSERT_GT(env.calls().size(), 3 + step);
    EXPECT_EQ(env.calls()[3 + step], WriteCalls()[step]);
    const std::set<std::string> files = env.Files();
    EXPECT_EQ(files.count(kTemp), 0u) << "a temporary file was left behind";
    // The lock went with the generator that never started: the next one starts.
    EXPECT_NO_THROW(Generator{OnFakeDisk(&env, &clock)});
  }
}

// A failure at any step of an extension: the error names the step, the file keeps the old
// reservation (byte for byte, but for a failed folder sync, where the new file is in place and
// not yet durable), and the generator issues up to the old reservation and no further. Once the
// disk answers again, the next refresh extends and the error clears.
TEST(StateFileDurabilityTest, AFailureAtAnyStepKeepsTheOldReservation) {
  const std::vector<std::string> step_names = {"(open " + kTemp + ")",
                                               "(write " + kTemp + ")",
                                               "(write " + kTemp + ")",
                                               "(write " + kTemp + ")",
                                               "(rename)",
                                               "(fsync folder)"};
  for (std::size_t step = 0; step < WriteCalls().size(); ++step) {
    SCOPED_TRACE("failing call: " + WriteCalls()[step]);
    FakeEnv env;
    SimulatedClock clock(kJune2026);
    Generator generator(OnFakeDisk(&env, &clock));
    const Layout& game = generator.layout();
    const uint64_t start = game.TickAt(kJune2026 / kMs);
    const std::string before = *env.Contents(kState);

    clock.Advance(600 * kMs);
    env.ClearCalls();
    env.FailFrom(step, EIO);
    generator.refresh();
    ASSERT_GE(env.calls().size(), step + 1);
    EXPECT_EQ(env.calls()[step], WriteCalls()[step]);
    const std::string error = generator.state_error();
    EXPECT_NE(error.find("cannot write state file " + kState + " " + step_names[step]),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("Input/output error"), std::string::npos) << error;
    if (step + 1 < WriteCalls().size()) {
      EXPECT_EQ(env.Contents(kState), before) << "a failed write changed the state file";
    } else {
      EXPECT_EQ(env.Contents(kState), Render(game, start + 60 + 300));
    }

    // Every later write fails too: IDs up to the old reservation, never past it.
    uint64_t largest_tick = 0;
    for (int i = 0; i < 300; ++i) {
      clock.Advance(10 * kMs);
      generator.refresh();
      while (const auto id = generator.try_next()) largest_tick = game.Decode(*id).tick;
    }
    EXPECT_EQ(largest_tick, start + 300) << "issued past the reservation, or stopped short of it";
    EXPECT_FALSE(generator.state_error().empty());

    env.Heal();
    generator.refresh();
    EXPECT_EQ(generator.state_error(), "");
    const auto id = generator.try_next();
    ASSERT_TRUE(id.has_value()) << "no ID after the disk came back";
    EXPECT_GT(game.Decode(*id).tick, start + 300);
    EXPECT_EQ(env.Contents(kState), Render(game, start + 360 + 300));
    EXPECT_EQ(env.Files(), std::set<std::string>{kState}) << "a temporary file was left behind";
  }
}

// Power goes at a random point: between writes, or after any call of one. The generator
// restarted on what survived (with the wall clock up to 2 s behind or ahead) issues only IDs
// above every ID issued before the loss. Seeded: STEADYFLAKE_TEST_SEED replays a run.
TEST(StateFileDurabilityTest, PowerLossNeverLosesAReservationAnIdWasIssuedUnder) {
  auto random = testing::SeededRandom();
  FakeEnv env;
  SimulatedClock clock(kJune2026);
  Id largest = 0;
  int writes_lost = 0;
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::optional<Generator> generator;
    ASSERT_NO_THROW(generator.emplace(OnFakeDisk(&env, &clock)));
    const Id first = generator->next();
    ASSERT_GT(first, largest) << "a restart after a power loss issued an ID issued before it";
    largest = first;

    // The machine dies at the n-th file-system call from now: mid-write or between writes.
    env.FailFrom(random() % 40, EIO);
    const int steps = static_cast<int>(random() % 300);
    for (int i = 0; i < steps; ++i) {
      clock.Advance(static_cast<int64_t>(random() % 30) * kMs);
      generator->refresh();
      for (int n = static_cast<int>(random() % 400); n > 0; --n) {
        const auto id = generator->try_next();
        if (!id) break;
        largest = std::max(largest, *id);
      }
    }
    generator.reset();  // its clean-stop write fails as well: the machine is dead
    const std::optional<std::string> visible = env.Contents(kState);
    env.PowerLoss();
    env.Heal();
    if (env.Contents(kState) != visible) ++writes_lost;
    clock.SetWall(clock.WallNanos() + (static_cast<int64_t>(random() % 4001) - 2000) * kMs);
  }
  // Not a vacuous pass: some losses did take back a write that had seemed to succeed.
  EXPECT_GT(writes_lost, 0);
}

}  // namespace
}  // namespace steadyflake
