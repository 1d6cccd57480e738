// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/time_format.h"

#include <charconv>
#include <chrono>
#include <string>

#include "steadyflake/error.h"

namespace steadyflake {
namespace {

char* Put2(unsigned v, char* out) {
  out[0] = static_cast<char>('0' + v / 10);
  out[1] = static_cast<char>('0' + v % 10);
  return out + 2;
}

[[noreturn]] void BadTime(std::string_view text) {
  throw Error(Error::Code::kInvalidArgument,
              "cannot read time '" + std::string(text) +
                  "'; use ISO-8601 UTC such as 2024-01-01T00:00:00Z, 2024-01-01 or Unix "
                  "milliseconds");
}

// Reads exactly `digits` decimal digits at text[pos].
bool ReadFixed(std::string_view text, std::size_t pos, std::size_t digits, int* value) {
  if (pos + digits > text.size()) return false;
  const char* first = text.data() + pos;
  auto [ptr, ec] = std::from_chars(first, first + digits, *value);
  return ec == std::errc() && ptr == first + digits;
}

}  // namespace

char* FormatIso8601(int64_t unix_ms, bool with_millis, char* out) {
  // 10000-01-01T00:00:00Z (Layout::kMaxUnixMs), the end of the latest layout.
  constexpr int64_t kYear10000Ms = 253402300800000;
  if (unix_ms < 0 || unix_ms > kYear10000Ms) return std::to_chars(out, out + 20, unix_ms).ptr;
  using namespace std::chrono;
  const int64_t days = unix_ms / 86'400'000;
  int64_t ms_of_day = unix_ms % 86'400'000;
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  unsigned year = static_cast<unsigned>(static_cast<int>(ymd.year()));
  if (year == 10000) {  // a five-digit year, only for 10000-01-01T00:00:00Z
    *out++ = '1';
    year = 0;
  }
  out = Put2(year / 100, out);
  out = Put2(year % 100, out);
  *out++ = '-';
  out = Put2(static_cast<unsigned>(ymd.month()), out);
  *out++ = '-';
  out = Put2(static_cast<unsigned>(ymd.day()), out);
  *out++ = 'T';
  out = Put2(static_cast<unsigned>(ms_of_day / 3'600'000), out);
  ms_of_day %= 3'600'000;
  *out++ = ':';
  out = Put2(static_cast<unsigned>(ms_of_day / 60'000), out);
  ms_of_day %= 60'000;
  *out++ = ':';
  out = Put2(static_cast<unsigned>(ms_of_day / 1000), out);
  if (with_millis) {
    const unsigned ms = static_cast<unsigned>(ms_of_day % 1000);
    *out++ = '.';
    *out++ = static_cast<char>('0' + ms / 100);
    out = Put2(ms % 100, out);
  }
  *out++ = 'Z';
  return out;
}

std::string FormatIso8601(int64_t unix_ms, bool with_millis) {
  char buffer[kIso8601MaxLength];
  char* end = FormatIso8601(unix_ms, with_millis, buffer);
  return std::string(buffer, end);
}

int64_t ParseTime(std::string_view text) {
  if (text.empty()) BadTime(text);
  if (text.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t ms = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc() || ptr != text.data() + text.size()) BadTime(text);
    return ms;
  }
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
  if (!ReadFixed(text, 0, 4, &year) || text.size() < 10 || text[4] != '-' ||
      !ReadFixed(text, 5, 2, &month) || text[7] != '-' || !ReadFixed(text, 8, 2, &day)) {
    BadTime(text);
  }
  std::size_t pos = 10;
  if (pos < text.size()) {
    if ((text[pos] != 'T' && text[pos] != ' ') || !ReadFixed(text, pos + 1, 2, &hour) ||
        pos + 3 >= text.size() || text[pos + 3] != ':' || !ReadFixed(text, pos + 4, 2, &minute) ||
        pos + 6 >= text.size() || text[pos + 6] != ':' || !ReadFixed(text, pos + 7, 2, &second)) {
      BadTime(text);
    }
    pos += 9;
    if (pos < text.size() && text[pos] == '.') {
      std::size_t digits = 0;
      int scale = 100;
      for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
        millis += (text[pos] - '0') * scale;  // digits past the millisecond are dropped
        scale /= 10;
      }
      if (digits == 0) BadTime(text);
    }
    const std::string_view zone = text.substr(pos);
    if (zone != "Z" && zone != "+00:00" && zone != "+0000") BadTime(text);
  }
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year{year},
                           std::chrono::month{static_cast<unsigned>(month)},
                           std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 60 || year < 1970) BadTime(text);
  const int64_t days = sys_days{ymd}.time_since_epoch().count();
  return ((days * 24 + hour) * 60 + minute) * 60'000 + int64_t{second} * 1000 + millis;
}

}  // namespace steadyflake
