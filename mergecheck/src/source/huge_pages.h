// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Address space for an array that grows large, backed by huge pages where the kernel gives them.
// A key set of 2M integers is 16 MB written once; in 4 KiB pages that is 4,096 page faults, and
// on a virtual machine whose faults cost ~11 us each (measured on the 2-core CI machine,
// docs/merging.md) they were a quarter of a rowid check's processor time. In 2 MiB pages it is
// 8. realloc cannot give that: it grows a large block by 1.25x through mremap, and each step
// adds too little for a whole 2 MiB page that nothing has touched yet. So the region is
// reserved once, far larger than it will likely need (address space, not memory: a page is
// memory only once written), and the array grows within it without moving.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_HUGE_PAGES_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_HUGE_PAGES_H_

#include <cstddef>

namespace steadyflake::mergecheck {

// Arrays smaller than this stay in malloc's memory.
inline constexpr std::size_t kHugeRegionFrom = std::size_t{1} << 20;

// `bytes` of address space (rounded up to 2 MiB), aligned to 2 MiB, readable and writable,
// uncommitted until written (MAP_NORESERVE) and advised to huge pages (MADV_HUGEPAGE); nullptr if
// the kernel refuses (a limit on address space, say): the caller then uses malloc's memory as
// before.
void* ReserveHugeRegion(std::size_t bytes);

// Returns a region of ReserveHugeRegion(bytes) to the kernel.
void ReleaseHugeRegion(void* region, std::size_t bytes);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_HUGE_PAGES_H_
