// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "merge/merge_sql.h"

#include <string>

#include "steadyflake/error.h"

namespace steadyflake::mergecheck::merge {

void WriteMysqlMerge(const std::string& /*path_a*/, const PlanFile& /*plan*/,
                     const MergeOptions& /*options*/, MergeReport& /*report*/) {
  throw Error(
      Error::Code::kInvalidArgument,
      "merging a MySQL plan is not built yet; merge on the server by hand (docs/merging.md)");
}

}  // namespace steadyflake::mergecheck::merge
