// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the engine tests.

#ifndef STEADYFLAKE_TESTS_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>

#include "steadyflake/error.h"

namespace steadyflake::testing {

inline constexpr int64_t kMs = 1'000'000;  // nanoseconds
inline constexpr int64_t kSecond = 1000 * kMs;
// 2026-06-01T00:00:00Z, well inside the `game` layout.
inline constexpr int64_t kJune2026 = 1780272000000 * kMs;

// A fresh folder under the test temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "steadyflake-test-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// The seed of a randomised test: STEADYFLAKE_TEST_SEED if set (to replay a failure), else a
// fresh one. Printed, and recorded in the test's XML output, either way: the one way every
// randomised test in this repository is seeded (docs/testing.md).
inline uint64_t TestSeed() {
  uint64_t seed = std::random_device{}();
  if (const char* env = std::getenv("STEADYFLAKE_TEST_SEED")) seed = std::stoull(env);
  std::cout << "[ seed     ] STEADYFLAKE_TEST_SEED=" << seed << std::endl;
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

// A random engine seeded by TestSeed().
inline std::mt19937_64 SeededRandom() { return std::mt19937_64(TestSeed()); }

// Runs `check` as a user without privileges, so permission checks hold even when the tests run
// as root (CI does; root reads and writes anything): as root in a forked child that drops to
// nobody (setresgid/setresuid 65534) first, else in this process. `check` returns "" when all
// is as expected, else what is wrong, which becomes a test failure here.
inline void RunUnprivileged(const std::function<std::string()>& check) {
  if (::geteuid() != 0) {
    const std::string wrong = check();
    EXPECT_EQ(wrong, "");
    return;
  }
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string wrong;
    if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) {
      wrong = "cannot drop to uid/gid 65534 (nobody)";
    } else {
      try {
        wrong = check();
      } catch (const std::exception& e) {
        wrong = std::string("unexpected exception: ") + e.what();
      }
    }
    (void)!::write(fds[1], wrong.data(), wrong.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string wrong;
  char buffer[512];
  ssize_t n = 0;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) wrong.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the unprivileged child died";
  EXPECT_EQ(wrong, "");
}

// Runs `statement`, expecting steadyflake::Error of `code` whose message contains `needle`.
#define EXPECT_STEADYFLAKE_ERROR(statement, expected_code, needle)                 \
  do {                                                                             \
    try {                                                                          \
      statement;                                                                   \
      ADD_FAILURE() << "expected steadyflake::Error from " #statement;             \
    } catch (const ::steadyflake::Error& error) {                                  \
      EXPECT_EQ(error.code(), expected_code) << error.what();                      \
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos)         \
          << "message: " << error.what() << "\nexpected to contain: " << (needle); \
    }                                                                              \
  } while (0)

}  // namespace steadyflake::testing

#endif  // STEADYFLAKE_TESTS_TEST_UTIL_H_
