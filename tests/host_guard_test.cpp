// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The host guard (engine/src/host_guard.h): one generator per layout, epoch and server id on a
// host, whatever the state folders, in this process or another.

#include "host_guard.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "steadyflake/error.h"
#include "steadyflake/generator.h"
#include "test_util.h"

namespace steadyflake {
namespace {

using testing::kJune2026;
using testing::TempDir;
using Code = Error::Code;

Generator::Options Options(SimulatedClock* clock, uint64_t server_id = 7,
                           std::string state_dir = "") {
  Generator::Options options;
  options.server_id = server_id;
  options.clock = clock;
  options.state_dir = std::move(state_dir);
  options.ticker = Generator::Ticker::kManual;
  return options;
}

// Sets the namespace variable for the life of the object, then puts the old value back.
class ScopedNamespace {
 public:
  explicit ScopedNamespace(const std::string& value) {
    if (const char* old = std::getenv(internal::HostGuard::kNamespaceVariable)) old_ = old;
    ::setenv(internal::HostGuard::kNamespaceVariable, value.c_str(), 1);
  }
  ~ScopedNamespace() {
    if (old_) {
      ::setenv(internal::HostGuard::kNamespaceVariable, old_->c_str(), 1);
    } else {
      ::unsetenv(internal::HostGuard::kNamespaceVariable);
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(HostGuardTest, SecondGeneratorWithoutStateIsRefusedNamingThisProcess) {
  SimulatedClock clock(kJune2026);
  Generator first(Options(&clock));
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock)}, Code::kLocked,
                           "in use on this host by pid " + std::to_string(::getpid()) + " (");
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock)}, Code::kLocked, "host_guard_test");
}

// The case that issued 298,976 identical IDs: `gen` with its state under the user's home and
// the server with its state beside the database, one server id.
TEST(HostGuardTest, DifferentStateFoldersDoNotMakeTwoHolders) {
  TempDir home, server;
  SimulatedClock clock(kJune2026);
  Generator first(Options(&clock, 7, home.path()));
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock, 7, server.path())}, Code::kLocked,
                           "whatever its state folder");
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock, 7)}, Code::kLocked, "in use on this host");
}

TEST(HostGuardTest, KeyedByServerIdLayoutAndEpoch) {
  SimulatedClock clock(kJune2026);
  Generator first(Options(&clock, 7));
  Generator other_id(Options(&clock, 8));
  Generator::Options snowflake = Options(&clock, 7);
  snowflake.layout = Layout::Snowflake();
  Generator other_layout(snowflake);
  Generator::Options moved = Options(&clock, 7);
  moved.layout = Layout::Game().WithEpoch(1700000000000);
  Generator other_epoch(moved);
  EXPECT_NE(first.next(), other_id.next());
}

TEST(HostGuardTest, ReleasedWithTheGenerator) {
  SimulatedClock clock(kJune2026);
  { Generator first(Options(&clock)); }
  Generator second(Options(&clock));
  EXPECT_GT(second.next(), 0);
}

TEST(HostGuardTest, ANamespaceOfItsOwnDoesNotCollide) {
  SimulatedClock clock(kJune2026);
  Generator first(Options(&clock));
  ScopedNamespace other("host-guard-test-other-" + std::to_string(::getpid()));
  Generator second(Options(&clock));
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock)}, Code::kLocked, "in use on this host");
}

TEST(HostGuardTest, ALongNamespaceIsHashedIntoTheSocketName) {
  ScopedNamespace long_one(std::string(300, 'n') + std::to_string(::getpid()));
  const std::string name = internal::HostGuard::Name(Layout::Game(), 7);
  EXPECT_LE(name.size(), 107u);
  EXPECT_EQ(name.find("nnnn"), std::string::npos) << name;
  SimulatedClock clock(kJune2026);
  Generator first(Options(&clock));
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock)}, Code::kLocked, "in use on this host");
}

TEST(HostGuardTest, TurnedOffItAllowsASharedServerId) {
  SimulatedClock clock(kJune2026);
  Generator::Options options = Options(&clock);
  options.host_guard = false;
  Generator first(options);
  Generator second(options);
  EXPECT_GT(second.next(), 0);
}

// Another process holds the id: the refusal names its pid. The child is forked before this
// process starts any thread, and uses Ticker::kManual, so it starts no thread itself.
TEST(HostGuardTest, AnotherProcessIsNamedByItsPid) {
  int ready[2], stop[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(stop), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(stop[1]);
    SimulatedClock clock(kJune2026);
    Generator held(Options(&clock, 17));
    const char byte = 'r';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(3);
    char ignored;
    (void)!::read(stop[0], &ignored, 1);  // until the parent closes its end
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(stop[0]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "the child could not take the guard";
  SimulatedClock clock(kJune2026);
  EXPECT_STEADYFLAKE_ERROR(Generator{Options(&clock, 17)}, Code::kLocked,
                           "in use on this host by pid " + std::to_string(child) + " (");
  ::close(stop[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::close(ready[0]);
  // The child has exited: the kernel released its guard.
  Generator after(Options(&clock, 17));
  EXPECT_GT(after.next(), 0);
}

}  // namespace
}  // namespace steadyflake
