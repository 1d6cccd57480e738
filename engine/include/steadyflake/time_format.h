// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ISO-8601 UTC formatting and parsing of Unix-millisecond times, shared by the CLI, the sample
// server and the merge checker so that every tool prints a time the same way.

#ifndef STEADYFLAKE_TIME_FORMAT_H_
#define STEADYFLAKE_TIME_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace steadyflake {

// Longest text FormatIso8601 writes: "10000-01-01T00:00:00.000Z", the end of the last layout
// steadyflake accepts.
inline constexpr std::size_t kIso8601MaxLength = 25;

// Writes `unix_ms` as "YYYY-MM-DDTHH:MM:SS.mmmZ" (with_millis) or "YYYY-MM-DDTHH:MM:SSZ" to
// `out`, which must hold kIso8601MaxLength chars, and returns one past the last char written.
// Times from 1970-01-01 up to and including 10000-01-01T00:00:00Z (Layout::kMaxUnixMs, where a
// layout may end) are written as ISO-8601; any other value, which no layout holds (e.g. a wall
// clock far off), as its decimal Unix milliseconds, so every int64 has a text.
char* FormatIso8601(int64_t unix_ms, bool with_millis, char* out);
std::string FormatIso8601(int64_t unix_ms, bool with_millis = true);

// Parses "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[.fff]" followed by "Z" or "+00:00" (a space may
// stand for the T), or a plain integer of Unix milliseconds. Throws Error(kInvalidArgument)
// naming the text and the accepted forms.
int64_t ParseTime(std::string_view text);

}  // namespace steadyflake

#endif  // STEADYFLAKE_TIME_FORMAT_H_
