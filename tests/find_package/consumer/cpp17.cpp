// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// A game server built as C++17 (CXX_STANDARD 17, no extensions, -Wall -Wextra -Wpedantic
// -Werror) against the installed headers: every public header compiles, and the engine's API
// works without C++20 (options set by member, not by designated initializers). Exit status 0
// when all is well, 1 otherwise.

#if __cplusplus != 201703L
#error "this consumer must be compiled as C++17"
#endif

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "steadyflake/mergecheck/mergecheck.h"
#include "steadyflake/mergecheck/plan.h"
#include "steadyflake/steadyflake.h"
#ifdef STEADYFLAKE_CONSUMER_CAPI
#include "steadyflake/c.h"
#endif

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "consumer17: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main() {
  try {
    steadyflake::Generator::Options options;
    options.server_id = 8;
    options.ticker = steadyflake::Generator::Ticker::kManual;
    steadyflake::Generator ids(options);
    const steadyflake::Id first = ids.next();
    if (ids.next_batch(0).size() != 0) return Fail("next_batch(0) is not empty");
    uint64_t count = 0;
    steadyflake::Id last = first;
    bool increasing = true;
    ids.next_batch_into(1000, [&](const steadyflake::IdRange& range) {
      for (const steadyflake::Id id : range) {
        increasing = increasing && id > last;
        last = id;
        ++count;
      }
    });
    if (count != 1000 || !increasing) return Fail("next_batch_into(1000) gave wrong IDs");
    const std::string text = steadyflake::ToString(last);
    if (steadyflake::ParseId(text) != last) return Fail("ParseId(ToString(id)) != id: " + text);
    if (ids.stats().issued != 1001) {
      return Fail("stats().issued is " + std::to_string(ids.stats().issued) + ", not 1001");
    }
    if (ids.layout() != steadyflake::Layout::Game() || ids.layout().Decode(last).server_id != 8) {
      return Fail("the layout or the server id is wrong");
    }
    steadyflake::mergecheck::Options check;
    check.limit = 10;
    (void)check;
    std::printf("consumer17: steadyflake %s as C++17: %s\n", STEADYFLAKE_VERSION, text.c_str());
    return 0;
  } catch (const steadyflake::Error& e) {
    return Fail(e.what());
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
}
