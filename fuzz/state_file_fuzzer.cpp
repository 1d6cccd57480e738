// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the state-file parser (engine/src/state_file). Any bytes give either a
// reserved-until tick the layout holds or Error(kState); never a hang, a crash or a wrap.
// Inputs whose checksum is wrong stop early, so half the runs seal the bytes with a valid
// checksum first (first byte odd) to reach the line parser.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "state_file.h"
#include "steadyflake/error.h"
#include "steadyflake/layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const steadyflake::Layout kGame = steadyflake::Layout::Game();
  std::string text(reinterpret_cast<const char*>(data), size);
  if (size > 0 && (data[0] & 1) != 0) {
    text = steadyflake::internal::StateFile::Seal(text.substr(1));
  }
  try {
    const uint64_t reserved = steadyflake::internal::StateFile::Parse(text, "fuzz", kGame, 7);
    if (reserved > kGame.max_tick()) std::abort();  // accepted a tick the layout cannot hold
  } catch (const steadyflake::Error& e) {
    if (e.code() != steadyflake::Error::Code::kState) std::abort();
  }
  return 0;
}
