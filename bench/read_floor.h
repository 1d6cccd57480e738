// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// What the merge checker's benchmarks set their figures against: read(2) of the input files
// into one buffer, page cache warm, what `cat A B > /dev/null` costs (the least any check of
// them can cost); and the wall time of a piece of work.

#ifndef STEADYFLAKE_BENCH_READ_FLOOR_H_
#define STEADYFLAKE_BENCH_READ_FLOOR_H_

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace steadyflake::bench {

// read(2) of every file of `paths` into one buffer; returns the bytes read.
inline uint64_t ReadFloor(std::initializer_list<std::string> paths) {
  static std::vector<char> buffer(1 << 20);
  uint64_t total = 0;
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    for (;;) {
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
    }
    ::close(fd);
  }
  return total;
}

template <typename Work>
double Seconds(Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace steadyflake::bench

#endif  // STEADYFLAKE_BENCH_READ_FLOOR_H_
