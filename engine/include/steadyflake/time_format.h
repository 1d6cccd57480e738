// Copyright 2026 The steadyflake Authors.
//
// ISO-8601 UTC formatting and parsing of Unix-millisecond times, shared by the CLI, the sample
// server and the merge checker so that every tool prints a time the same way.

#ifndef STEADYFLAKE_TIME_FORMAT_H_
#define STEADYFLAKE_TIME_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace steadyflake {

// Longest text FormatIso8601 writes: "-292275055-05-16T16:47:04.192Z" is the extreme, but
// the layouts steadyflake accepts stay within years 1970..9999: "9999-12-31T23:59:59.999Z".
inline constexpr std::size_t kIso8601MaxLength = 24;

// Writes `unix_ms` as "YYYY-MM-DDTHH:MM:SS.mmmZ" (with_millis) or "YYYY-MM-DDTHH:MM:SSZ" to
// `out`, which must hold kIso8601MaxLength chars, and returns one past the last char written.
// REQUIRES: 0 <= unix_ms < 253402300800000 (year 10000).
char* FormatIso8601(int64_t unix_ms, bool with_millis, char* out);
std::string FormatIso8601(int64_t unix_ms, bool with_millis = true);

// Parses "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[.fff]" followed by "Z" or "+00:00" (a space may
// stand for the T), or a plain integer of Unix milliseconds. Throws Error(kInvalidArgument)
// naming the text and the accepted forms.
int64_t ParseTime(std::string_view text);

}  // namespace steadyflake

#endif  // STEADYFLAKE_TIME_FORMAT_H_
