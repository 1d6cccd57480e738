// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/pass_plan.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace steadyflake::mergecheck {

std::vector<Pass> PlanPasses(const std::vector<int>& wanted, std::vector<std::vector<int>> groups,
                             const std::vector<Structure>& structures) {
  if (groups.empty()) groups.push_back(wanted);
  const auto holds = [](const Structure& st, int column) {
    return std::find(st.fields.begin(), st.fields.end(), column) != st.fields.end();
  };
  std::vector<const Structure*> chosen;
  for (const std::vector<int>& group : groups) {
    const Structure* best = nullptr;
    for (const Structure& st : structures) {
      const bool all =
          std::all_of(group.begin(), group.end(), [&](int column) { return holds(st, column); });
      if (all && (best == nullptr || st.fields.size() < best->fields.size())) best = &st;
    }
    if (best == nullptr) return {};
    if (std::find(chosen.begin(), chosen.end(), best) == chosen.end()) chosen.push_back(best);
  }
  std::vector<Pass> passes;
  for (const Structure* st : chosen) {
    Pass pass;
    pass.structure = st;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      const auto field = std::find(st->fields.begin(), st->fields.end(), wanted[i]);
      if (field == st->fields.end()) continue;
      pass.present.push_back(static_cast<int>(i));
      pass.fields.push_back(static_cast<int>(field - st->fields.begin()));
    }
    passes.push_back(std::move(pass));
  }
  return passes;
}

}  // namespace steadyflake::mergecheck
