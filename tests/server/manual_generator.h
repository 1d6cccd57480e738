// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The generator the server's tests run on: its time from `clock` alone (Ticker::kManual), so a
// test decides when ticks pass, and no state folder.

#ifndef STEADYFLAKE_TESTS_SERVER_MANUAL_GENERATOR_H_
#define STEADYFLAKE_TESTS_SERVER_MANUAL_GENERATOR_H_

#include <cstdint>

#include "steadyflake/clock.h"
#include "steadyflake/generator.h"

namespace steadyflake::server_test {

inline Generator::Options ManualGeneratorOptions(Clock* clock, uint64_t server_id) {
  Generator::Options options;
  options.server_id = server_id;
  options.clock = clock;
  options.ticker = Generator::Ticker::kManual;
  return options;
}

}  // namespace steadyflake::server_test

#endif  // STEADYFLAKE_TESTS_SERVER_MANUAL_GENERATOR_H_
