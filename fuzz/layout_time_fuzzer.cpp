// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: layout and time parsing (Layout::Parse, ParseTime) and the formatters they feed
// (FormatIso8601, FormatDecoded). Bad text is Error(kInvalidArgument); what parses must hold the
// layout's arithmetic (compose/decode round trip) and print within its buffers.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "steadyflake/error.h"
#include "steadyflake/id_format.h"
#include "steadyflake/layout.h"
#include "steadyflake/time_format.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Any int64 formats, within the buffer.
  if (size >= 8) {
    int64_t ms = 0;
    std::memcpy(&ms, data, sizeof ms);
    Check(steadyflake::FormatIso8601(ms).size() <= steadyflake::kIso8601MaxLength);
  }
  try {
    const steadyflake::Layout layout = steadyflake::Layout::Parse(text);
    Check(layout.time_bits() + layout.server_bits() + layout.sequence_bits() <=
          steadyflake::Layout::kIdBits);
    // An ID from the input's last bytes, within the layout: decode and compose agree.
    uint64_t raw = 0;
    std::memcpy(&raw, data + (size >= 8 ? size - 8 : 0), size >= 8 ? 8 : 0);
    const steadyflake::Id id = static_cast<steadyflake::Id>(raw) & layout.max_id();
    const steadyflake::DecodedId d = layout.Decode(id);
    Check(layout.Compose(d.tick, d.server_id, d.sequence) == id);
    Check(steadyflake::FormatDecoded(id, d, steadyflake::DecodedFormat::kJson).size() <=
          steadyflake::kDecodedMaxLength);
  } catch (const steadyflake::Error& e) {
    Check(e.code() == steadyflake::Error::Code::kInvalidArgument);
  }
  try {
    const int64_t ms = steadyflake::ParseTime(text);
    // A time that prints as ISO-8601 parses back to itself, to the millisecond.
    if (ms >= 0 && ms < steadyflake::Layout::kMaxUnixMs) {
      Check(steadyflake::ParseTime(steadyflake::FormatIso8601(ms)) == ms);
    }
  } catch (const steadyflake::Error& e) {
    Check(e.code() == steadyflake::Error::Code::kInvalidArgument);
  }
  return 0;
}
