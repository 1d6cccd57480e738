// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// The SQLite reader's progress counters (Source::rows_read, bytes_read): rows and bytes read by
// the current scan, through SQLite (its page cache misses) and by the direct readers (the pages
// they walked). Written by the scanning thread; read by any thread for display only, so relaxed
// order is enough for every access.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_SCAN_PROGRESS_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_SCAN_PROGRESS_H_

#include <atomic>
#include <cstdint>

#include "sqlite/sqlite_file.h"

namespace steadyflake::mergecheck {

class ScanProgress {
 public:
  // Rows are published in batches of this many, to keep the atomics off the row loop.
  static constexpr uint64_t kBatch = 4096;

  explicit ScanProgress(SqliteFile& file) : file_(file) {}

  // A scan begins: both counters to zero.
  void Start();

  // Adds `rows` read through SQLite, with the bytes read so far.
  void Publish(uint64_t rows);

  // Counts a row of a direct pass, published every kBatch with the bytes read so far: the
  // passes before, what `direct` read in this one since `start`, and what SQLite read.
  template <typename Reader>
  void CountRow(uint64_t& unpublished, const Reader& direct, uint64_t start) {
    if (++unpublished == kBatch) {
      PublishDirect(unpublished, direct.bytes_read() - start);
      unpublished = 0;
    }
  }

  // Counts `rows` rows of a direct pass at once, as CountRow does each.
  template <typename Reader>
  void CountRows(uint64_t& unpublished, uint64_t rows, const Reader& direct, uint64_t start) {
    unpublished += rows;
    if (unpublished >= kBatch) {
      PublishDirect(unpublished, direct.bytes_read() - start);
      unpublished = 0;
    }
  }

  // A direct pass ended: its last rows, and the `pages` of `page_size` bytes it walked.
  void FinishPass(uint64_t unpublished, uint64_t pages, uint32_t page_size);

  uint64_t rows() const { return rows_.load(std::memory_order_relaxed); }
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  void PublishDirect(uint64_t rows, uint64_t pass_bytes);
  // Pages SQLite has read from the file on this connection.
  uint64_t CacheMisses();
  uint64_t PageSize();

  SqliteFile& file_;
  uint64_t page_size_ = 0;
  uint64_t misses_at_start_ = 0;
  uint64_t direct_bytes_ = 0;  // bytes the direct readers read in this scan's finished passes
  std::atomic<uint64_t> rows_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_SCAN_PROGRESS_H_
