// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the tests of Check() share (checker_test.cpp, checker_inputs_test.cpp): the fixtures'
// IDs and clock, and a report's keys and conflicts looked up by name.

#ifndef STEADYFLAKE_TESTS_MERGECHECK_CHECKER_TEST_UTIL_H_
#define STEADYFLAKE_TESTS_MERGECHECK_CHECKER_TEST_UTIL_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck::checker_test {

// The fixtures' IDs: layout game, tick T0 = 2025-06-01T00:00:00Z.
constexpr int64_t kT0 = 4466880000;
inline int64_t Gid(int64_t tick, int64_t server, int64_t seq) {
  return tick << 26 | server << 10 | seq;
}
// "Now" for every check: 2026-01-01T00:00:00Z.
constexpr int64_t kNowMs = 1767225600000;

inline Options Opts() {
  Options options;
  options.now_ms = kNowMs;
  return options;
}

inline const KeyReport& KeyOf(const Report& report, const std::string& table,
                              const std::vector<std::string>& columns) {
  for (const KeyReport& k : report.keys) {
    if (k.table == table && k.columns == columns) return k;
  }
  throw std::runtime_error("no key " + table);
}

inline std::vector<std::string> Texts(const std::vector<std::vector<ReportValue>>& conflicts) {
  std::vector<std::string> out;
  for (const auto& row : conflicts) {
    std::string line;
    for (const ReportValue& v : row) line += (line.empty() ? "" : "|") + v.text;
    out.push_back(line);
  }
  return out;
}

}  // namespace steadyflake::mergecheck::checker_test

#endif  // STEADYFLAKE_TESTS_MERGECHECK_CHECKER_TEST_UTIL_H_
