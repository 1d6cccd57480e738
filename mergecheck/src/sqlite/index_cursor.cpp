// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// IndexCursor (index_cursor.h). The keys of a run are decoded as the cursor reaches their page:
// a record of under 128 bytes on its page whose header and first serial type are a byte each (a
// name, an email: nearly every key) by a few loads here, any other by the RecordDecoder.

#include "sqlite/index_cursor.h"

#include <utility>

namespace steadyflake::mergecheck {

namespace {

using page_file_internal::Get16;
using page_file_internal::Get32;

constexpr int kFirstField[] = {0};

}  // namespace

IndexCursor::IndexCursor(const PageFile& file, uint32_t root,
                         std::function<void(const DamagedPage&)> damaged,
                         std::atomic<uint64_t>* given)
    : file_(file),
      root_(root),
      damaged_(std::move(damaged)),
      usable_(file.usable()),
      max_local_(page_file_internal::MaxLocal(true, file.usable())),
      given_(given),
      decoder_(file),
      pages_(file) {
  decoder_.Want(kFirstField);
}

void IndexCursor::Seek(const std::function<bool(const KeyRef&)>& below) {
  try {
    SeekInside(below ? &below : nullptr);
  } catch (const DamagedPage& damage) {
    damaged_(damage);
    throw;  // damaged_ throws; never reached
  }
}

std::span<const KeyRef> IndexCursor::Next() {
  try {
    NextInside();
  } catch (const DamagedPage& damage) {
    damaged_(damage);
    throw;
  }
  return run_;
}

void IndexCursor::SeekInside(const std::function<bool(const KeyRef&)>* below) {
  depth_ = 0;
  // The run a search lands in is the one the cursor of the part before stopped in, which
  // counted its page if that run began it.
  uncounted_ = below != nullptr;
  pages_read_ = 0;  // a loop is a walk from here reading more pages than the file has
  uint32_t page = root_;
  for (;;) {
    if (depth_ == kMaxDepth) Fail(page, "the b-tree is too deep (a loop?)");
    Frame& frame = Load(depth_++, page);
    if (frame.cells == 0 && depth_ == 1 && below == nullptr && given_ != nullptr) {
      given_->fetch_add(1);  // an empty tree: its root
    }
    uint32_t low = 0;
    if (below != nullptr) {  // the first cell whose key is not below the bound
      uint32_t high = frame.cells;
      while (low < high) {
        const uint32_t mid = low + (high - low) / 2;
        arena_.clear();
        in_arena_.clear();
        KeyRef key = KeyAt(frame, mid);
        if (!in_arena_.empty()) key.data = arena_.data();
        if ((*below)(key)) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
    }
    frame.at = low;
    if (frame.leaf) return;
    page = ChildOf(frame, low);
  }
}

void IndexCursor::NextInside() {
  run_.clear();
  arena_.clear();
  in_arena_.clear();
  // Frames whose cells are all given (a leaf) or whose right-most child is done.
  while (depth_ > 0 && frames_[static_cast<std::size_t>(depth_ - 1)].at >=
                           frames_[static_cast<std::size_t>(depth_ - 1)].cells) {
    --depth_;
  }
  if (depth_ == 0) return;
  Frame& frame = frames_[static_cast<std::size_t>(depth_ - 1)];
  run_page_ = frame.page;
  run_first_ = frame.at;
  if (frame.leaf) {
    for (uint32_t i = frame.at; i < frame.cells; ++i) run_.push_back(KeyAt(frame, i));
    frame.at = frame.cells;
  } else {
    // Child `at`'s subtree is done: its cell's record comes next, then child at + 1's subtree.
    run_.push_back(KeyAt(frame, frame.at));
    ++frame.at;
    if (depth_ == kMaxDepth) Fail(frame.page, "the b-tree is too deep (a loop?)");
    Load(depth_++, ChildOf(frame, frame.at));
    DescendLeftmost(depth_ - 1);
  }
  if (run_first_ == 0 && !uncounted_ && given_ != nullptr) {
    given_->fetch_add(1, std::memory_order_relaxed);
  }
  uncounted_ = false;
  for (const std::size_t i : in_arena_) {
    run_[i].data = arena_.data() + reinterpret_cast<std::uintptr_t>(run_[i].data);
  }
}

IndexCursor::Frame& IndexCursor::Load(int depth, uint32_t page) {
  if (frames_.size() <= static_cast<std::size_t>(depth)) frames_.resize(depth + 1);
  Frame& frame = frames_[static_cast<std::size_t>(depth)];
  if (++pages_read_ > 2 * uint64_t{file_.pages()} + 2) {
    Fail(page, "the b-tree visits a page twice (a loop?)");
  }
  const unsigned char* const read = pages_.Page(page);
  const unsigned char* const header = read + (page == 1 ? 100 : 0);
  frame.leaf = header[0] == 0x0a;
  if (!frame.leaf && header[0] != 0x02) Fail(page, "it is not an index b-tree page");
  frame.base = read;
  if (!frame.leaf) {  // kept while the leaves below it are read
    frame.bytes.assign(read, read + file_.page_size());
    frame.base = frame.bytes.data();
  }
  frame.page = page;
  frame.cells = Get16(header + 3);
  frame.at = 0;
  const std::size_t pointers = (page == 1 ? 100 : 0) + (frame.leaf ? 8 : 12);
  if (pointers + 2 * std::size_t{frame.cells} > usable_) {
    Fail(page, "its cell count is too large");
  }
  // The leaves' parents' children are the pages read next. The first leaf tells how deep the
  // leaves lie (a b-tree's leaves all lie at one depth; where they do not, only the batches
  // differ); its parent, loaded before that was known, is told then.
  if (frame.leaf && depth > 0 && leaf_depth_ != depth) {
    leaf_depth_ = depth;
    ExpectChildren(frames_[static_cast<std::size_t>(depth - 1)]);
  } else if (!frame.leaf && depth + 1 == leaf_depth_) {
    ExpectChildren(frame);
  }
  return frame;
}

void IndexCursor::ExpectChildren(const Frame& frame) {
  page_file_internal::InteriorChildren(frame.base, frame.page, frame.at, usable_, children_);
  pages_.Expect(children_);
}

void IndexCursor::DescendLeftmost(int depth) {
  for (;;) {
    Frame& frame = frames_[static_cast<std::size_t>(depth)];
    if (frame.leaf) return;
    if (depth_ == kMaxDepth) Fail(frame.page, "the b-tree is too deep (a loop?)");
    Load(depth_++, ChildOf(frame, 0));
    ++depth;
  }
}

uint32_t IndexCursor::ChildOf(const Frame& frame, uint32_t i) const {
  const unsigned char* const base = frame.base;
  const unsigned char* const header = base + (frame.page == 1 ? 100 : 0);
  if (i >= frame.cells) return Get32(header + 8);
  const uint32_t offset = Get16(header + 12 + 2 * i);
  if (offset < 12 || offset + 4 >= usable_) Fail(frame.page, "a cell lies outside the page");
  return Get32(base + offset);
}

KeyRef IndexCursor::KeyAt(const Frame& frame, uint32_t i) {
  const unsigned char* const base = frame.base;
  const unsigned char* const header = base + (frame.page == 1 ? 100 : 0);
  const uint32_t offset = Get16(header + (frame.leaf ? 8 : 12) + 2 * i);
  if (offset < (frame.leaf ? 8u : 12u) || offset + (frame.leaf ? 0u : 4u) >= usable_) {
    Fail(frame.page, "a cell lies outside the page");
  }
  const unsigned char* const cell = base + offset + (frame.leaf ? 0 : 4);
  const unsigned char* const end = base + usable_;
  // A payload of under 128 bytes (one byte of size), all on the page, whose header size and
  // first serial type are one byte each.
  const uint32_t payload = cell[0];
  if (payload >= 0x80 || payload > max_local_ || payload < 2 || end - (cell + 1) < payload) {
    return DecodeSlowly(frame.page, cell, end);
  }
  const unsigned char* const record = cell + 1;
  const uint32_t header_size = record[0];
  const uint32_t type = record[1];
  if (header_size >= 0x80 || header_size < 2 || header_size > payload || type >= 0x80) {
    return DecodeSlowly(frame.page, cell, end);
  }
  KeyRef key;
  if (type == 0) return key;  // NULL
  if (type < 12) {
    if (type == 10 || type == 11) return DecodeSlowly(frame.page, cell, end);  // reserved
    key.type = KeyRef::Type::kNumber;
    return key;
  }
  const uint32_t size = (type - 12) / 2;
  if (header_size + size > payload) return DecodeSlowly(frame.page, cell, end);
  key.type = type % 2 == 0 ? KeyRef::Type::kBlob : KeyRef::Type::kText;
  key.data = reinterpret_cast<const char*>(record + header_size);
  key.size = size;
  return key;
}

KeyRef IndexCursor::DecodeSlowly(uint32_t page, const unsigned char* cell,
                                 const unsigned char* end) {
  uint64_t size = 0;
  const int n = page_file_internal::GetVarint(cell, end, size);
  if (n == 0) Fail(page, "a cell is cut off");
  const Cell first = decoder_.Decode(page, size, cell + n, end, true)[0];
  KeyRef key;
  switch (first.type) {
    case Cell::Type::kNull:
      return key;
    case Cell::Type::kText:
    case Cell::Type::kBlob:
      break;
    default:
      key.type = KeyRef::Type::kNumber;
      return key;
  }
  key.type = first.type == Cell::Type::kText ? KeyRef::Type::kText : KeyRef::Type::kBlob;
  if (first.bytes.size() >= (std::size_t{1} << 31)) Fail(page, "a record is larger than SQLite's");
  key.size = static_cast<uint32_t>(first.bytes.size());
  // An offset until the run is complete: arena_ may move as it grows.
  key.data = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(arena_.size()));
  arena_.append(first.bytes);
  in_arena_.push_back(run_.size());
  return key;
}

}  // namespace steadyflake::mergecheck
