// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// Address space for an array that grows large, backed by huge pages where the kernel gives them.
// A key set of 2M integers is 16 MB written once; in 4 KiB pages that is 4,096 page faults, and
// on a virtual machine whose faults cost ~11 us each (measured on the 2-core CI machine,
// docs/merge-check-performance.md) they were a quarter of a rowid check's processor time. In
// 2 MiB pages it is 8. realloc cannot give that: it grows a large block by 1.25x through mremap,
// and each step adds too little for a whole 2 MiB page that nothing has touched yet. So the region
// is reserved once, far larger than it will likely need (address space, not memory: a page is
// memory only once written), and the array grows within it without moving.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_HUGE_PAGES_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_HUGE_PAGES_H_

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace steadyflake::mergecheck {

// Arrays smaller than this stay in malloc's memory. Not less: a region's first write takes a
// whole 2 MiB page, and a database of many tables of some 50,000 rows then held 3.6 times the
// memory (40 tables of 60,000 rows a side: 49 -> 177 MB at 256 KiB) for no less time.
inline constexpr std::size_t kHugeRegionFrom = std::size_t{1} << 20;

// `bytes` of address space (rounded up to 2 MiB), aligned to 2 MiB, readable and writable,
// uncommitted until written (MAP_NORESERVE) and advised to huge pages (MADV_HUGEPAGE); nullptr if
// the kernel refuses (a limit on address space, say): the caller then uses malloc's memory as
// before.
void* ReserveHugeRegion(std::size_t bytes);

// Returns a region of ReserveHugeRegion(bytes) to the kernel.
void ReleaseHugeRegion(void* region, std::size_t bytes);

// Arrays from this size up to kHugeRegionFrom lie in a range of their own whose pages are made
// present as the array grows, one system call a growth (ReservePopulated, Populate); smaller
// ones in malloc's memory. A database of many tables of tens of thousands of rows keeps most of
// its keys in such arrays, and in malloc's memory each of their pages took a fault on its
// first write (~14 us on the 2-core CI machine, against ~7 us a page made present at once).
inline constexpr std::size_t kPopulatedFrom = std::size_t{128} << 10;

// kHugeRegionFrom bytes of address space, readable and writable, uncommitted until written or
// populated, in small pages (MADV_NOHUGEPAGE); nullptr if the kernel refuses. Reserved whole at
// once so that the array never moves within it: no mremap(2), which ThreadSanitizer does not
// intercept (it then takes the moved pages for their addresses' earlier use and reports races).
void* ReservePopulated();

// Makes bytes [from, to) of a range of ReservePopulated present and writable at once
// (MADV_POPULATE_WRITE; rounded out to whole pages). Advice only: where the kernel lacks it
// (before 5.14) the pages are faulted in as they are written, as in malloc's memory.
void Populate(void* range, std::size_t from, std::size_t to);

// Returns a range of ReservePopulated to the kernel.
void ReleasePopulated(void* range);

// `size` values of T, all zero bits, that never move: from kHugeRegionFrom bytes in a region of
// huge pages (the kernel's zeroed pages: no memset, which would fault in every 4 KiB page, and a
// fault per 2 MiB as the values are first written), else calloc's memory. For bitmaps written at
// random. Move-only.
template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(std::size_t size) : size_(size) {
    const std::size_t bytes = size * sizeof(T);
    if (bytes >= kHugeRegionFrom && (data_ = static_cast<T*>(ReserveHugeRegion(bytes)))) {
      region_ = bytes;
      return;
    }
    data_ = static_cast<T*>(std::calloc(size == 0 ? 1 : size, sizeof(T)));
    if (data_ == nullptr) throw std::bad_alloc();
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ZeroedArray(ZeroedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        region_(std::exchange(other.region_, 0)) {}
  ZeroedArray& operator=(ZeroedArray&& other) noexcept {
    ZeroedArray gone(std::move(other));
    std::swap(data_, gone.data_);
    std::swap(size_, gone.size_);
    std::swap(region_, gone.region_);
    return *this;
  }
  ~ZeroedArray() {
    if (region_ != 0) {
      ReleaseHugeRegion(data_, region_);
    } else {
      std::free(data_);
    }
  }

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t region_ = 0;  // bytes of the region data_ lies in; 0: data_ is calloc's
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_HUGE_PAGES_H_
