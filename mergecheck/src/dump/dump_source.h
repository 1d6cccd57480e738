// Copyright 2026 The steadyflake Authors.
//
// Internal functions that may change between releases.
//
// Test hooks of the dump reader (OpenDumpSource itself is declared in source.h).

#ifndef STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_SOURCE_H_
#define STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_SOURCE_H_

#include <cstddef>
#include <memory>
#include <string>

#include "source.h"

namespace steadyflake::mergecheck {

// How many bytes OpenDumpSource reads (or inflates) at a time.
inline constexpr size_t kDumpChunkSize = 4 << 20;

// OpenDumpSource reading `chunk_size` (>= 1) bytes at a time, so tests can put every token of
// a dump across a chunk boundary.
std::unique_ptr<Source> OpenDumpSourceForTest(const std::string& path, bool gzip,
                                              size_t chunk_size);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_DUMP_DUMP_SOURCE_H_
