// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "steadyflake/id_format.h"

#include <charconv>
#include <cstring>

#include "steadyflake/error.h"
#include "steadyflake/time_format.h"

namespace steadyflake {
namespace {

template <std::size_t N>
char* Put(char* p, const char (&text)[N]) {
  std::memcpy(p, text, N - 1);
  return p + (N - 1);
}

char* PutNumber(char* p, uint64_t value) { return std::to_chars(p, p + 20, value).ptr; }

// Why `text` is not an ID, or nullptr if it is one (then stored in `id`).
const char* ReadId(std::string_view text, Id& id) {
  if (text.empty()) return "empty";
  // from_chars takes a leading '-' (but no '+', space or "0x"); the rest must be digits to the
  // end.
  if (text[0] == '-') return "negative";
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec == std::errc::result_out_of_range) return "larger than the largest ID";
  if (ec != std::errc() || ptr != text.data() + text.size()) return "not a decimal integer";
  return nullptr;
}

}  // namespace

std::string ToString(Id id) {
  char text[20];
  return std::string(text, std::to_chars(text, text + sizeof(text), id).ptr);
}

Id ParseId(std::string_view text) {
  Id id = 0;
  if (const char* why = ReadId(text, id)) {
    throw Error(Error::Code::kInvalidArgument,
                "cannot read ID '" + std::string(text) + "': " + why +
                    "; IDs are decimal integers in [0, 9223372036854775807]");
  }
  return id;
}

std::optional<Id> TryParseId(std::string_view text) {
  Id id = 0;
  if (ReadId(text, id) != nullptr) return std::nullopt;
  return id;
}

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
