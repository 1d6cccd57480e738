// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// ScatteredReads: many reads of one size at scattered offsets of a file in one system call,
// through an io_uring (liburing): the reads queued, then one io_uring_enter(2) submits them and
// waits for their ends. On a file in the page cache the kernel does each read inside that call,
// as pread(2) would, and the batch costs the system call's entry and exit once. For the leaves
// of an index written in random order, which lie scattered through the file, that was 2.6 us a
// page read alone and 1.0-1.2 us a page 32 to 64 at a time (a 116 MB file on the 2-core VM,
// docs/merge-check-performance.md). Linux's older AIO (io_submit) batches as well, but a process
// that made a context waits for an RCU grace period to end it: 20-40 ms at exit on that VM.
//
// Where the kernel gives no ring (no io_uring in it, a seccomp filter, kernel.io_uring_disabled)
// Read returns false and the caller reads with pread.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_SCATTERED_READS_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_SCATTERED_READS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace steadyflake::mergecheck {

class ScatteredReads {
 public:
  // Reads in one batch at most.
  static constexpr std::size_t kMaxBatch = 64;

  // Reads `size` bytes at each of `offsets` (at most kMaxBatch) of `fd` into out + i * size, and
  // the bytes each read got (fewer at the end of the file) into got[i]. False when the kernel
  // gives no ring or took not every read (the caller reads them all again alone). Throws
  // std::system_error for a read that failed.
  bool Read(int fd, std::span<const uint64_t> offsets, std::size_t size, unsigned char* out,
            std::span<std::size_t> got);

 private:
  struct Ring;
  struct EndRing {
    void operator()(Ring* ring) const noexcept;  // io_uring_queue_exit, then delete
  };
  std::unique_ptr<Ring, EndRing> ring_;  // made at the first Read; moves with a PageReader
  // No ring could be made, or it refused a batch: never tried again.
  bool unavailable_ = false;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_SCATTERED_READS_H_
