// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// KeyCursor: the first field of an index's records in the index's order, from any key on, a
// leaf's worth at a time (Source::WithKeyCursors). The merge in index order of a one-column text
// key (in_place_merge.h) splits the key range into parts and gives each thread a cursor on each
// input, so that each thread reads both inputs' records of its parts where they lie and nothing
// passes between threads but the parts' results.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_KEY_CURSOR_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_KEY_CURSOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

namespace steadyflake::mergecheck {

// A record's first field as the index holds it: a NULL, a number (which a text key's merge does
// not order: it gives up), a text or a blob, and for the last two its bytes.
struct KeyRef {
  enum class Type : uint8_t { kNull, kNumber, kText, kBlob };
  const char* data = nullptr;
  uint32_t size = 0;
  Type type = Type::kNull;
  std::string_view bytes() const { return {data, size}; }
};

class KeyCursor {
 public:
  // Past the last record (Position).
  static constexpr uint64_t kEnd = UINT64_MAX;

  virtual ~KeyCursor() = default;

  // Places the cursor at the first record of the index (`below` empty), or at the first whose
  // key `below` is false for, as a search of a sorted index finds it (`below` true for the keys
  // under a bound, false from it on). Throws Error (the input named) for a damaged page.
  virtual void Seek(const std::function<bool(const KeyRef&)>& below) = 0;

  // The keys of the records from the cursor's place on that lie together (the rest of a leaf
  // page, or an interior cell's), in index order, valid until the next call; the cursor moves
  // past them. Empty at the end. Throws Error (the input named) for a damaged page.
  virtual std::span<const KeyRef> Next() = 0;

  // Where record `i` of the last Next lies in the index (its page and cell), the same however
  // the cursor came to it: two cursors that meet at the same record give the same position.
  virtual uint64_t Position(std::size_t i) const = 0;
};

// Makes a cursor: each thread its own. Any thread may call it while it is given.
using KeyCursors = std::function<std::unique_ptr<KeyCursor>()>;

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_KEY_CURSOR_H_
