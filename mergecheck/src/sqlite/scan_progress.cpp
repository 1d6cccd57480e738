// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/scan_progress.h"

#include <sqlite3.h>

namespace steadyflake::mergecheck {

void ScanProgress::Start() {
  rows_.store(0, std::memory_order_relaxed);
  bytes_.store(0, std::memory_order_relaxed);
  misses_at_start_ = CacheMisses();
  direct_bytes_ = 0;
}

void ScanProgress::Publish(uint64_t rows) { PublishDirect(rows, 0); }

void ScanProgress::PublishDirect(uint64_t rows, uint64_t pass_bytes) {
  rows_.fetch_add(rows, std::memory_order_relaxed);
  bytes_.store(direct_bytes_ + pass_bytes + (CacheMisses() - misses_at_start_) * PageSize(),
               std::memory_order_relaxed);
}

void ScanProgress::FinishPass(uint64_t unpublished, uint64_t pages, uint32_t page_size) {
  direct_bytes_ += pages * page_size;
  PublishDirect(unpublished, 0);
}

uint64_t ScanProgress::CacheMisses() {
  int current = 0;
  int high = 0;
  sqlite3_db_status(file_.db(), SQLITE_DBSTATUS_CACHE_MISS, &current, &high, 0);
  return static_cast<uint64_t>(current);
}

uint64_t ScanProgress::PageSize() {
  if (page_size_ == 0) {
    Statement stmt;
    file_.Prepare("PRAGMA page_size", stmt);
    const bool read = file_.Step(stmt, "cannot read the page size");
    page_size_ = read ? static_cast<uint64_t>(sqlite3_column_int(stmt.get(), 0)) : 4096;
  }
  return page_size_;
}

}  // namespace steadyflake::mergecheck
