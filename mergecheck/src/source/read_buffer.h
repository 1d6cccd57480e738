// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Buffers that read(2) and pread(2) fill. The kernel copies a file's cached pages into them
// with `rep movsb`, and on AMD Zen processors that copy slows sharply when the destination lies
// a few bytes past a 64-byte boundary while the source (a page of the page cache) lies on one:
// reading 98 MB from the page cache took 4.5 ms into a buffer on a boundary or 32 to 63 bytes
// past it, 11 ms at 16 to 31 bytes past, 30 ms at 4 to 15 bytes past
// (docs/merge-check-performance.md, the fourteenth session). A `std::vector<char>` of 1 MiB lies 16
// bytes past a page (malloc's header on its own mapping), so every read into it paid 2.5x. These
// buffers start on a page, and a reader that keeps some bytes ahead of the next read places them so
// that the read lands on a boundary (AlignedReadShift).

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_READ_BUFFER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_READ_BUFFER_H_

#include <cstddef>
#include <memory>
#include <new>

namespace steadyflake::mergecheck {

// Where a read buffer starts: a page, so that a whole page read into it stays on one.
inline constexpr std::size_t kReadBufferAlignment = 4096;

// The boundary a read's destination should lie on: a line of the cache.
inline constexpr std::size_t kReadDestinationAlignment = 64;

struct ReadBufferDelete {
  void operator()(unsigned char* buffer) const noexcept {
    ::operator delete[](buffer, std::align_val_t{kReadBufferAlignment});
  }
};

// A buffer of bytes not zeroed, its first byte on a page (kReadBufferAlignment).
using ReadBuffer = std::unique_ptr<unsigned char[], ReadBufferDelete>;

inline ReadBuffer NewReadBuffer(std::size_t bytes) {
  return ReadBuffer(
      static_cast<unsigned char*>(::operator new[](bytes, std::align_val_t{kReadBufferAlignment})));
}

// How far past a boundary (kReadDestinationAlignment) to place `kept` bytes that the next read
// is to follow, so that the read's destination lies on the next boundary: 0 to 63.
constexpr std::size_t AlignedReadShift(std::size_t kept) {
  return (kReadDestinationAlignment - kept % kReadDestinationAlignment) % kReadDestinationAlignment;
}

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_READ_BUFFER_H_
