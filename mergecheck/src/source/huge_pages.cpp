// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ReserveHugeRegion, GrowPopulated and their releases: anonymous mappings (mmap(2), mremap(2),
// madvise(2)).

#include "source/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace steadyflake::mergecheck {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
std::size_t RoundUp(std::size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
std::size_t RoundUpToPage(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) & ~(page - 1);
}
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

void* GrowPopulated(void* old, std::size_t old_bytes, std::size_t bytes) {
  old_bytes = RoundUpToPage(old_bytes);
  bytes = RoundUpToPage(bytes);
  void* at = old == nullptr ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                            : ::mremap(old, old_bytes, bytes, MREMAP_MAYMOVE);
  if (at == MAP_FAILED) return nullptr;
#ifdef MADV_POPULATE_WRITE
  // Advice only: a kernel without it (before 5.14) faults the pages in as they are written.
  if (bytes > old_bytes) {
    ::madvise(static_cast<char*>(at) + old_bytes, bytes - old_bytes, MADV_POPULATE_WRITE);
  }
#endif
  return at;
}

void ReleasePopulated(void* at, std::size_t bytes) {
  if (at != nullptr) ::munmap(at, RoundUpToPage(bytes));
}

}  // namespace steadyflake::mergecheck
