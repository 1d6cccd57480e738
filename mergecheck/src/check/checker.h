// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The checker over two already opened Sources, so tests can feed it sources of their own.

#ifndef STEADYFLAKE_MERGECHECK_SRC_CHECK_CHECKER_H_
#define STEADYFLAKE_MERGECHECK_SRC_CHECK_CHECKER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "source/source.h"
#include "steadyflake/mergecheck/mergecheck.h"

namespace steadyflake::mergecheck {

class Collector;

// Throws Error(kInvalidArgument) when `path_a` and `path_b` are one file (by another name, a
// link or a hard link): it overlaps itself entirely, which says nothing about a merge.
void RefuseSameFile(const std::string& path_a, const std::string& path_b);

// The time after which an ID is legacy: Options::now_ms (default: the wall clock now) plus one
// day, for clock skew between machines.
int64_t CutoffOf(const Options& options);

// What Check() does after opening: scans `a` and `b` on one thread each (rereading a table
// whose keys were declared after some of its rows), compares, and rereads `a` for the values of
// conflicting hashed keys. IDs whose time is after `cutoff_ms` are legacy. Throws
// steadyflake::Error from either source (input A's first) or for an --key / --table that names
// what neither input has. `inspect`, if set, is called last with the two inputs' collections
// (the key sets and schemas), which live only until CheckSources returns (the merge plan reads
// them).
Report CheckSources(const std::string& path_a, Source& a, const std::string& path_b, Source& b,
                    const Options& options, int64_t cutoff_ms,
                    const std::function<void(const Collector& a, const Collector& b,
                                             Report& report)>& inspect = {});

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_CHECK_CHECKER_H_
