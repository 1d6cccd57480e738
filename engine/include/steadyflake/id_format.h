// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// IDs as text. ToString and ParseId: the ID itself as a decimal string, for JSON and Lua
// clients, whose numbers lose digits above 2^53. FormatDecoded: the one text form of a decoded
// ID, shared by `steadyflake decode`, the merge checker's report and the sample server's
// GET /ids/{id}, so every tool shows an ID the same way.

#ifndef STEADYFLAKE_ID_FORMAT_H_
#define STEADYFLAKE_ID_FORMAT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "steadyflake/layout.h"

namespace steadyflake {

// `id` in decimal: "6710893571". For an ID in JSON, write this string, not the number.
std::string ToString(Id id);

// Reads a decimal ID in [0, 2^63 - 1], digits only: no sign, spaces or "0x". Throws
// Error(kInvalidArgument) naming the text and what is wrong (empty, negative, not a decimal
// integer, larger than the largest ID). Any layout's IDs are in range; whether `id` is one of a
// given layout is Layout::max_id()'s to say.
Id ParseId(std::string_view text);
// The same, without the exception: nullopt for anything ParseId rejects.
std::optional<Id> TryParseId(std::string_view text);

enum class DecodedFormat {
  // "2024-01-01T00:00:01.000Z server=7 seq=3": the fields, after an ID shown elsewhere.
  kFields,
  // "6710893571 2024-01-01T00:00:01.000Z server=7 seq=3": the ID, then its fields.
  kLine,
  // {"id":"6710893571","time":"2024-01-01T00:00:01.000Z","server_id":7,"sequence":3}: the ID
  // is a string, because JavaScript and Lua 5.1 lose digits above 2^53.
  kJson,
};

// Longest text FormatDecoded writes (the JSON form of the largest values is 108 chars).
inline constexpr std::size_t kDecodedMaxLength = 128;

// Writes `id`, whose fields are `decoded` (Layout::Decode(id)), in `format` to `out`, which must
// hold kDecodedMaxLength chars, and returns one past the last char written. No newline.
// REQUIRES: decoded.unix_ms is a time FormatIso8601 accepts (every layout's IDs are).
char* FormatDecoded(Id id, const DecodedId& decoded, DecodedFormat format, char* out);
std::string FormatDecoded(Id id, const DecodedId& decoded, DecodedFormat format);

}  // namespace steadyflake

#endif  // STEADYFLAKE_ID_FORMAT_H_
