// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The dump reader's input: a file read front to back in caller-sized pieces, plain or
// gzip-compressed, so a dump of any size is read with a bounded amount of memory.

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_BYTE_STREAM_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_BYTE_STREAM_H_

#include <cstddef>
#include <memory>
#include <string>

namespace steadyflake::mergecheck::dump {

// A sequential reader of a file's (uncompressed) bytes. Not thread-safe: one reader per scan.
class ByteStream {
 public:
  virtual ~ByteStream() = default;

  // Copies up to `n` (> 0) next bytes into `dst` and returns how many; 0 only at the end of
  // the stream. Throws Error(kInvalidArgument) naming the path when the file cannot be read or
  // its compressed data is corrupt or cut short.
  virtual size_t Read(char* dst, size_t n) = 0;
  // Bytes of the file consumed so far: what Read returned for a plain file, the compressed
  // bytes inflated for a gzip one (for progress: their share of the file's size).
  virtual uint64_t consumed() const = 0;
};

// Opens `path` read-only (O_RDONLY) at its first byte. With `gzip`, the bytes returned are the
// inflated content of every gzip member in the file, one after the other. Throws
// Error(kInvalidArgument) naming the path when it cannot be opened.
std::unique_ptr<ByteStream> OpenByteStream(const std::string& path, bool gzip);

}  // namespace steadyflake::mergecheck::dump

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_BYTE_STREAM_H_
