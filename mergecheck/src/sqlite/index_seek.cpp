// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/index_seek.h"

#include <cstring>

namespace steadyflake::mergecheck {

namespace {

using page_file_internal::Get16;
using page_file_internal::Get32;
using page_file_internal::GetVarint;

// Interior pages kept at most: 16 MiB of 4 KiB pages, far more than the interior pages of any
// index a lookup walks (one in ~100 of its pages).
constexpr std::size_t kMaxKept = 4096;

// SQLite's classes of values in a record's order: NULL, numbers, text, blobs.
int ClassOf(const Cell& c) {
  switch (c.type) {
    case Cell::Type::kNull:
      return 0;
    case Cell::Type::kInteger:
    case Cell::Type::kReal:
    case Cell::Type::kBigInteger:
      return 1;
    case Cell::Type::kText:
      return 2;
    case Cell::Type::kBlob:
      return 3;
  }
  return 3;
}

// An integer against a real by value, as SQLite's sqlite3IntFloatCompare: exact where the
// real is beyond int64_t's range or the integer beyond a double's 53 bits.
int CompareIntReal(int64_t i, double r) {
  if (r < -9223372036854775808.0) return 1;
  if (r >= 9223372036854775808.0) return -1;
  const auto y = static_cast<int64_t>(r);
  if (i < y) return -1;
  if (i > y) return 1;
  const auto s = static_cast<double>(i);
  return s < r ? -1 : (s > r ? 1 : 0);
}

}  // namespace

int CompareInIndex(const Cell& a, const Cell& b, text_order::Order order) {
  const int ca = ClassOf(a);
  const int cb = ClassOf(b);
  if (ca != cb) return ca < cb ? -1 : 1;
  switch (ca) {
    case 0:
      return 0;
    case 1:
      if (a.type == Cell::Type::kInteger && b.type == Cell::Type::kInteger) {
        return a.integer < b.integer ? -1 : (a.integer > b.integer ? 1 : 0);
      }
      if (a.type == Cell::Type::kInteger) return CompareIntReal(a.integer, b.real);
      if (b.type == Cell::Type::kInteger) return -CompareIntReal(b.integer, a.real);
      return a.real < b.real ? -1 : (a.real > b.real ? 1 : 0);
    case 2:
      return text_order::CompareText(order, a.bytes, b.bytes);
    default:
      return text_order::CompareBytes(a.bytes, b.bytes);
  }
}

const unsigned char* IndexSeeker::Page(uint32_t page) {
  const auto kept = interior_.find(page);
  if (kept != interior_.end()) return kept->second.data();
  const unsigned char* base = pages_.Page(page);
  const unsigned char* header = base + (page == 1 ? 100 : 0);
  if (header[0] != 0x02 || interior_.size() >= kMaxKept) return base;
  std::vector<unsigned char>& copy = interior_[page];
  copy.assign(base, base + pages_.file().page_size());
  return copy.data();
}

std::span<const Cell> IndexSeeker::Entry(uint32_t page, const unsigned char* base, bool leaf,
                                         uint32_t i, uint32_t& child) {
  const unsigned char* const header = base + (page == 1 ? 100 : 0);
  const unsigned char* const end = base + pages_.file().usable();
  const uint32_t offset = Get16(header + (leaf ? 8 : 12) + 2 * i);
  const unsigned char* cell = base + offset;
  if (offset < 8 || cell + (leaf ? 1 : 5) > end) Fail(page, "a cell lies outside the page");
  if (!leaf) {
    child = Get32(cell);
    cell += 4;
  }
  uint64_t size = 0;
  const int n = GetVarint(cell, end, size);
  if (n == 0) Fail(page, "a cell is cut off");
  return decoder_.Decode(page, size, cell + n, end, true);
}

std::optional<int64_t> IndexSeeker::Find(uint32_t root, std::span<const Cell> key,
                                         std::span<const text_order::Order> orders,
                                         int rowid_field) {
  fields_.clear();
  for (std::size_t f = 0; f < key.size(); ++f) fields_.push_back(static_cast<int>(f));
  fields_.push_back(rowid_field);
  decoder_.Want(fields_);
  // <0, 0, >0: the key against an entry's first fields.
  const auto compare = [&](std::span<const Cell> entry) {
    for (std::size_t f = 0; f < key.size(); ++f) {
      const int c = CompareInIndex(key[f], entry[f], orders[f]);
      if (c != 0) return c;
    }
    return 0;
  };
  const auto rowid_of = [&](uint32_t page, std::span<const Cell> entry) -> std::optional<int64_t> {
    if (entry.back().type != Cell::Type::kInteger) Fail(page, "an index entry holds no rowid");
    return entry.back().integer;
  };
  uint32_t page = root;
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    const unsigned char* const base = Page(page);
    const unsigned char* const header = base + (page == 1 ? 100 : 0);
    const bool leaf = header[0] == 0x0a;
    if (!leaf && header[0] != 0x02) Fail(page, "it is not an index b-tree page");
    const uint32_t cells = Get16(header + 3);
    if (header + (leaf ? 8 : 12) + 2 * cells > base + pages_.file().usable()) {
      Fail(page, "its cell count is too large");
    }
    // The first entry not below the key: the one sought if equal; else, on an interior page,
    // the child left of it holds the entries between it and the one before.
    uint32_t low = 0;
    uint32_t high = cells;
    uint32_t child = 0;  // Entry's, unused: the child is read below
    while (low < high) {
      const uint32_t mid = low + (high - low) / 2;
      const std::span<const Cell> entry = Entry(page, base, leaf, mid, child);
      const int c = compare(entry);
      if (c == 0) return rowid_of(page, entry);
      if (c > 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    if (leaf) return std::nullopt;
    if (low < cells) {
      const uint32_t offset = Get16(header + 12 + 2 * low);
      if (offset < 8 || offset + 4 > pages_.file().usable()) {
        Fail(page, "a cell lies outside the page");
      }
      page = Get32(base + offset);
    } else {
      page = Get32(header + 8);
    }
  }
  Fail(page, "the b-tree is too deep (a loop?)");
}

}  // namespace steadyflake::mergecheck
