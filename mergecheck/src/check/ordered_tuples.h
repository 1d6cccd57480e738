// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The tuples of the merge in index order (ordered_merge.cpp): how each key column's values
// sort in its index, a tuple's values packed in a batch, and their comparison, column by column
// as the indexes sort them. In a header, inline: the merge compares tuples for every row.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_ORDERED_TUPLES_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_ORDERED_TUPLES_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "check/collect.h"
#include "check/ordered_merge.h"
#include "source/text_order.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck::ordered_merge_internal {

constexpr std::size_t kBatch = kOrderedMergeBatch;  // tuples per batch

using text_order::CompareBytes;
using text_order::CompareText;
using text_order::Order;
using text_order::TextOrder;

// The order of each column of `key`, which Deferrable (collect.cpp) made an integer column or
// a text one under BINARY, NOCASE or RTRIM.
inline std::vector<Order> OrdersOf(const KeyState& key) {
  std::vector<Order> orders;
  for (std::size_t i = 0; i < key.affinity.size(); ++i) {
    orders.push_back(key.affinity[i] == Affinity::kInteger ? Order::kInteger
                                                           : TextOrder(key.collation_names[i]));
  }
  return orders;
}

// One value of a tuple in a batch, in 64 bits: an integer column's integer as it is; a text
// column's value as the offset of its bytes in the batch's buffer (bits 0-31), their size (bits
// 32-62) and whether it is a blob (bit 63). A batch's buffer stays under 4 GiB (kBatchBytes plus
// one value, at most 2 GiB in SQLite).
using Field = uint64_t;
constexpr std::size_t kBatchBytes = std::size_t{64} << 20;
constexpr Field kBlobBit = Field{1} << 63;

inline Field TextField(std::size_t offset, std::size_t size, bool blob) {
  return offset | (Field{size} << 32) | (blob ? kBlobBit : 0);
}
inline std::string_view BytesOf(Field f, const char* bytes) {
  return {bytes + (f & 0xffffffffu), static_cast<std::size_t>((f & ~kBlobBit) >> 32)};
}

// A tuple: one Field per key column, the bytes of its text in `bytes`.
struct TupleRef {
  const Field* fields = nullptr;
  const char* bytes = nullptr;
};

inline int CompareField(Order order, Field x, const char* xb, Field y, const char* yb) {
  if (order == Order::kInteger) {
    const auto a = static_cast<int64_t>(x);
    const auto b = static_cast<int64_t>(y);
    return a < b ? -1 : (a > b ? 1 : 0);
  }
  const bool blob = (x & kBlobBit) != 0;
  if (blob != ((y & kBlobBit) != 0)) return blob ? 1 : -1;  // SQLite: text, then blobs
  const std::string_view a = BytesOf(x, xb);
  const std::string_view b = BytesOf(y, yb);
  return blob ? CompareBytes(a, b) : CompareText(order, a, b);
}

// <0, 0, >0 as the indexes sort the tuples: column by column, in key order.
inline int CompareTuples(std::span<const Order> orders, TupleRef a, TupleRef b) {
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const int c = CompareField(orders[i], a.fields[i], a.bytes, b.fields[i], b.bytes);
    if (c != 0) return c;
  }
  return 0;
}

// CompareTuples for a key whose every column is an integer one.
inline int CompareIntegerTuples(std::size_t width, const Field* a, const Field* b) {
  for (std::size_t i = 0; i < width; ++i) {
    const auto x = static_cast<int64_t>(a[i]);
    const auto y = static_cast<int64_t>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// The first 64-byte boundary in `store` (of at least `width` + 16 values), so that the
// `width` values from there lie on cache lines within `store`.
inline int64_t* OnLines(std::vector<int64_t>& store, std::size_t width) {
  void* at = store.data();
  std::size_t space = store.size() * sizeof(int64_t);
  return static_cast<int64_t*>(std::align(64, (width + 8) * sizeof(int64_t), at, space));
}

inline bool AllIntegers(std::span<const Order> orders) {
  return std::all_of(orders.begin(), orders.end(), [](Order o) { return o == Order::kInteger; });
}

inline std::vector<OwnedValue> OwnTuple(std::span<const Order> orders, TupleRef tuple) {
  std::vector<OwnedValue> values(orders.size());
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const Field f = tuple.fields[i];
    if (orders[i] == Order::kInteger) {
      values[i].tag = Value::Tag::kInteger;
      values[i].integer = static_cast<int64_t>(f);
    } else {
      values[i].tag = (f & kBlobBit) != 0 ? Value::Tag::kBlob : Value::Tag::kText;
      values[i].bytes.assign(BytesOf(f, tuple.bytes));
    }
  }
  return values;
}

struct Batch {
  std::string bytes;
  std::vector<Field> fields;  // a tuple's fields after another's
  uint32_t part = 0;          // the part of the key range its tuples lie in (ordered_merge.cpp)
};

// Appends `cell` to `batch` as a value of a column ordered `order`: an integer column's integer,
// a text column's text or blob; false, appending nothing, for a value the merge does not order
// there (a text or a real in an integer column, a number in a text column, more text than
// SQLite holds).
inline bool AppendField(Order order, const Cell& cell, Batch& batch) {
  if (order == Order::kInteger) {
    if (cell.type != Cell::Type::kInteger) return false;
    batch.fields.push_back(static_cast<Field>(cell.integer));
    return true;
  }
  if (cell.type != Cell::Type::kText && cell.type != Cell::Type::kBlob) return false;
  if (cell.bytes.size() >= (std::size_t{1} << 31)) return false;
  batch.fields.push_back(
      TextField(batch.bytes.size(), cell.bytes.size(), cell.type == Cell::Type::kBlob));
  batch.bytes.append(cell.bytes);
  return true;
}

// What `batch` holds: its fields and its text.
inline std::size_t BytesHeld(const Batch& batch) {
  return batch.fields.size() * sizeof(Field) + batch.bytes.size();
}

// An empty batch with room for kBatch tuples of `width` fields.
inline Batch EmptyBatch(std::size_t width) {
  Batch batch;
  batch.fields.reserve(kBatch * width);
  return batch;
}

// An empty batch with room for kBatch tuples of `width` fields: the last of `spares` (cleared,
// its memory kept), else a new one. A batch allocated afresh each time faulted its pages in
// again once malloc had returned them.
inline Batch TakeSpare(std::vector<Batch>& spares, std::size_t width) {
  if (spares.empty()) return EmptyBatch(width);
  Batch batch = std::move(spares.back());
  spares.pop_back();
  batch.bytes.clear();
  batch.fields.clear();
  return batch;
}

}  // namespace steadyflake::mergecheck::ordered_merge_internal

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_ORDERED_TUPLES_H_
