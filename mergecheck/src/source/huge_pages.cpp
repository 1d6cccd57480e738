// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ReserveHugeRegion, ReservePopulated and their releases: anonymous mappings (mmap(2),
// madvise(2)).

#include "source/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace steadyflake::mergecheck {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
std::size_t RoundUp(std::size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
std::size_t SmallPage() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }
}  // namespace

void* ReserveHugeRegion(std::size_t bytes) {
  if (bytes == 0 || bytes > (std::size_t{1} << 46)) return nullptr;
  bytes = RoundUp(bytes);
  // Mapped 2 MiB longer, then trimmed to a 2 MiB boundary: a huge page needs an aligned one.
  const std::size_t mapped = bytes + kHugePage;
  void* at = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(at);
  const std::uintptr_t aligned = (start + kHugePage - 1) & ~std::uintptr_t{kHugePage - 1};
  if (aligned > start) ::munmap(at, aligned - start);
  const std::size_t tail = mapped - (aligned - start) - bytes;
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
#ifdef MADV_HUGEPAGE
  // Advice only: where the kernel has no huge pages for it, the pages are small as before.
  ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

void ReleaseHugeRegion(void* region, std::size_t bytes) {
  if (region != nullptr) ::munmap(region, RoundUp(bytes));
}

void* ReservePopulated() {
  void* at = ::mmap(nullptr, kHugeRegionFrom, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) return nullptr;
#ifdef MADV_NOHUGEPAGE
  // Advice only. A range this small holds no aligned 2 MiB, but merged with a neighbouring
  // mapping it might, and a huge page would cost the array twice its room.
  ::madvise(at, kHugeRegionFrom, MADV_NOHUGEPAGE);
#endif
  return at;
}

void Populate(void* range, std::size_t from, std::size_t to) {
#ifdef MADV_POPULATE_WRITE
  const std::size_t page = SmallPage();
  from &= ~(page - 1);
  to = std::min((to + page - 1) & ~(page - 1), kHugeRegionFrom);
  if (to > from) ::madvise(static_cast<char*>(range) + from, to - from, MADV_POPULATE_WRITE);
#else
  (void)range, (void)from, (void)to;
#endif
}

void ReleasePopulated(void* range) {
  if (range != nullptr) ::munmap(range, kHugeRegionFrom);
}

}  // namespace steadyflake::mergecheck
