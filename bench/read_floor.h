// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the merge checker's benchmarks set their figures against: read(2) of the input files
// into one buffer, page cache warm, what `cat A B > /dev/null` costs (the least any check of
// them can cost); and the wall time of a piece of work.

#ifndef STEADYFLAKE_BENCH_READ_FLOOR_H_
#define STEADYFLAKE_BENCH_READ_FLOOR_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

namespace steadyflake::bench {

// read(2) of every file of `paths` into one buffer; returns the bytes read. The buffer starts on
// a page, as cat's does: on AMD Zen the kernel's copy into a destination 16 bytes past a 64-byte
// line (where malloc puts a std::vector of 1 MiB) took 2.5 times as long, 4 to 15 bytes past 6
// times (docs/merge-check-performance.md, the fourteenth session), and such a floor flattered
// every ratio.
inline uint64_t ReadFloor(std::initializer_list<std::string> paths) {
  alignas(4096) static char buffer[1 << 20];
  uint64_t total = 0;
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
    }
    ::close(fd);
  }
  return total;
}

// Makes the page cache hold every file of `paths` as it would after reading them from disk: their
// cached pages written back and dropped (posix_fadvise DONTNEED), then read again. Read back,
// a file lies in the cache in large folios; just written (a benchmark's files, the first run),
// in 4 KiB pages, and read(2) of the same 195 MB then took 10 ms against 5.4 (Linux 6.18, ext4):
// the floor, and every read of a check, would depend on whether the files were new.
inline void Recache(std::initializer_list<std::string> paths) {
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
  ReadFloor(paths);
}

// Milliseconds per MiB to write memory the process has not touched before: 16 MiB mapped, one
// byte written in each 4 KiB page; in 2 MiB pages where the kernel gives them (MADV_HUGEPAGE, as
// the checker's large arrays ask). Not part of any target: beside a check, it says what the
// machine charges for the fresh memory a check's key arrays fill, which the read floor (one
// reused buffer) never pays. On a VM that hands freed memory back to its host (free page
// reporting) it swings from about 0.05 to 4 ms a MiB between runs, and the checks with it. The
// memory stays mapped until the process ends, so that no later check runs in pages this
// measurement made present. NaN when the memory cannot be mapped.
inline double FreshMemoryMsPerMib() {
  constexpr std::size_t kMib = 16;
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t bytes = kMib << 20;
  void* mapped =
      ::mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return std::numeric_limits<double>::quiet_NaN();
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  auto* p = reinterpret_cast<volatile char*>((start + kHuge - 1) & ~(kHuge - 1));
#ifdef MADV_HUGEPAGE
  ::madvise(const_cast<char*>(p), bytes, MADV_HUGEPAGE);
#endif
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - t0;
  return took.count() / static_cast<double>(kMib);
}

template <typename Work>
double Seconds(Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace steadyflake::bench

#endif  // STEADYFLAKE_BENCH_READ_FLOOR_H_
