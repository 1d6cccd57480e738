// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ReserveHugeRegion and ReleaseHugeRegion: anonymous mappings (mmap(2), madvise(2)).

#include "source/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace steadyflake::mergecheck {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
std::size_t RoundUp(std::size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
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

}  // namespace steadyflake::mergecheck
