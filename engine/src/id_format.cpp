// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/id_format.h"

#include <charconv>
#include <cstring>

#include "steadyflake/time_format.h"

namespace steadyflake {
namespace {

template <std::size_t N>
char* Put(char* p, const char (&text)[N]) {
  std::memcpy(p, text, N - 1);
  return p + (N - 1);
}

char* PutNumber(char* p, uint64_t value) { return std::to_chars(p, p + 20, value).ptr; }

}  // namespace

char* FormatDecoded(Id id, const DecodedId& d, DecodedFormat format, char* out) {
  char* p = out;
  switch (format) {
    case DecodedFormat::kLine:
      p = std::to_chars(p, p + 20, id).ptr;
      *p++ = ' ';
      [[fallthrough]];
    case DecodedFormat::kFields:
      p = FormatIso8601(d.unix_ms, true, p);
      p = Put(p, " server=");
      p = PutNumber(p, d.server_id);
      p = Put(p, " seq=");
      return PutNumber(p, d.sequence);
    case DecodedFormat::kJson:
      p = Put(p, "{\"id\":\"");
      p = std::to_chars(p, p + 20, id).ptr;
      p = Put(p, "\",\"time\":\"");
      p = FormatIso8601(d.unix_ms, true, p);
      p = Put(p, "\",\"server_id\":");
      p = PutNumber(p, d.server_id);
      p = Put(p, ",\"sequence\":");
      p = PutNumber(p, d.sequence);
      *p++ = '}';
      return p;
  }
  return p;
}

std::string FormatDecoded(Id id, const DecodedId& decoded, DecodedFormat format) {
  char buffer[kDecodedMaxLength];
  return std::string(buffer, FormatDecoded(id, decoded, format, buffer));
}

}  // namespace steadyflake
