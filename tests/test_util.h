// Copyright 2026 The steadyflake Authors.
//
// Helpers shared by the engine tests.

#ifndef STEADYFLAKE_TESTS_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
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

// A random engine whose seed is printed, so a failure can be replayed with
// STEADYFLAKE_TEST_SEED=<seed>.
inline std::mt19937_64 SeededRandom() {
  uint64_t seed = std::random_device{}();
  if (const char* env = std::getenv("STEADYFLAKE_TEST_SEED")) seed = std::stoull(env);
  std::cout << "[ seed     ] STEADYFLAKE_TEST_SEED=" << seed << std::endl;
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return std::mt19937_64(seed);
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
