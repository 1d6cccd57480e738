// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/pass_plan.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "steadyflake/mergecheck/text.h"

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

std::vector<int> KeyedColumns(const Table& table, const std::vector<Structure>& structures,
                              const std::vector<std::string>& columns,
                              const std::vector<std::string>& collations) {
  std::vector<int> found;
  for (const std::string& column : columns) {
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      if (EqualsIgnoreCase(table.columns[i].name, column)) found.push_back(static_cast<int>(i));
    }
  }
  const auto collated = [&](const Structure& st, std::size_t field) {
    const auto at = std::find(found.begin(), found.end(), st.fields[field]);
    const auto i = static_cast<std::size_t>(at - found.begin());
    if (i >= collations.size() || collations[i].empty()) return true;
    return field < st.collations.size() && EqualsIgnoreCase(st.collations[field], collations[i]);
  };
  const bool keyed = std::any_of(structures.begin(), structures.end(), [&](const Structure& st) {
    if (st.fields.size() < found.size()) return false;
    if (!std::is_permutation(found.begin(), found.end(), st.fields.begin())) return false;
    for (std::size_t f = 0; f < found.size(); ++f) {
      if (!collated(st, f)) return false;
    }
    return true;
  });
  if (found.size() != columns.size() || !keyed) return {};
  return found;
}

const Structure* OrderingIndex(const std::vector<Structure>& structures,
                               const std::vector<int>& columns,
                               const std::vector<std::string>& collations) {
  if (columns.empty() || collations.size() != columns.size()) return nullptr;
  for (const Structure& st : structures) {
    if (st.rowids || st.fields.size() < columns.size() || st.collations.size() < columns.size() ||
        st.descending.size() < columns.size()) {
      continue;
    }
    bool ordered = true;
    for (std::size_t f = 0; f < columns.size() && ordered; ++f) {
      ordered = st.fields[f] == columns[f] && !st.descending[f] &&
                EqualsIgnoreCase(st.collations[f], collations[f]);
    }
    if (ordered) return &st;
  }
  return nullptr;
}

std::vector<uint32_t> WalkedIndexes(const Table& table, const std::vector<Structure>& structures,
                                    const std::vector<Pass>& passes,
                                    const std::vector<std::vector<int>>& groups) {
  std::vector<uint32_t> roots;
  for (const Pass& pass : passes) {
    if (!pass.structure->rowids) roots.push_back(pass.structure->root);
  }
  if (groups.empty()) return roots;  // every column in every row: nothing left to such a walk
  for (const Key& key : table.keys) {
    const Structure* index =
        key.in_index_order ? OrderingIndex(structures, key.columns, key.collations) : nullptr;
    if (index != nullptr && !Grouped(key, groups) && !ReadInParts(table, key)) {
      roots.push_back(index->root);
    }
  }
  return roots;
}

bool ReadInParts(const Table& table, const Key& key) {
  return key.columns.size() == 1 &&
         table.columns[static_cast<std::size_t>(key.columns[0])].affinity == Affinity::kText;
}

bool Grouped(const Key& key, const std::vector<std::vector<int>>& groups) {
  return std::any_of(groups.begin(), groups.end(), [&](const auto& group) {
    return std::all_of(key.columns.begin(), key.columns.end(), [&](int column) {
      return std::find(group.begin(), group.end(), column) != group.end();
    });
  });
}

}  // namespace steadyflake::mergecheck
