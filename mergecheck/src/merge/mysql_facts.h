// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// MysqlFacts: what merge.sql must find on the server, counted from A's and B's dumps with the
// plan applied in memory, so that every check in merge.sql and verify.sql compares the server's
// count with a number the tool computed on its own: rows per table (A, B, the plan's drops),
// per remapped value the rows of B that carry it after the rewrite (and of A, which should carry
// none), the references that resolve to nothing after the merge, the rows renamed.

#ifndef STEADYFLAKE_MERGECHECK_SRC_MERGE_MYSQL_FACTS_H_
#define STEADYFLAKE_MERGECHECK_SRC_MERGE_MYSQL_FACTS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "merge/plan_file.h"

namespace steadyflake::mergecheck::merge {

struct MysqlFacts {
  struct Table {
    std::vector<std::string>
        columns{};                    // B's (A's when B lacks the table), generated ones left out
    std::set<std::string> parents{};  // tables it refers to (declared FOREIGN KEYs)
    bool in_a = false;
    bool in_b = false;
    uint64_t rows_a = 0;
    uint64_t rows_b = 0;
    uint64_t dropped = 0;   // rows of B the plan drops
    uint64_t held = 0;      // rows of B the plan holds back (steadyflake_unmerged_<table>)
    uint64_t replaced = 0;  // rows of A the merge deletes first (plan.json's replaces)
    uint64_t b_after() const { return rows_b - dropped - held; }
    uint64_t merged() const { return rows_a - replaced + b_after(); }
  };
  std::map<std::string, Table> tables{};
  // Per remap of the plan, per column (0: the key, then its references in plan order).
  struct Column {
    std::map<int64_t, uint64_t> b_new{};  // new value -> rows of B' that carry it
    std::map<int64_t, uint64_t> a_new{};  // new value -> rows of A that carry it (expected none)
    uint64_t dangling = 0;  // rows of the merged table that refer to no row of the key
    // Who refers to what, in one number: over the merged table's rows that carry a value, the
    // sum of CRC-32 of "<primary key>:<value>" (a table keyed by one integer column), else of
    // "<value>:<rows carrying it>". A row moved to another entity changes it.
    std::string pk{};  // the primary key column, or empty
    uint64_t checksum = 0;
    std::map<int64_t, uint64_t> histogram{};  // without a pk: value -> rows (A's and B''s)
  };
  std::vector<std::vector<Column>> remaps{};
  std::vector<uint64_t> renamed{};  // per rename: rows of B renamed
};

// Reads both dumps once. Throws Error(kInvalidArgument) as the dump reader does.
MysqlFacts GatherMysqlFacts(const std::string& path_a, const std::string& path_b,
                            const PlanFile& plan);

}  // namespace steadyflake::mergecheck::merge

#endif  // STEADYFLAKE_MERGECHECK_SRC_MERGE_MYSQL_FACTS_H_
