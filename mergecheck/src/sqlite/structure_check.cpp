// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/structure_check.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace steadyflake::mergecheck {

namespace {

// Two trees of `trees` on one root page (SQLite refuses two indexes so, not a table and an
// index): each tree is claimed once, by its root, so the pages the two share would never be seen
// twice. SQLite's quick_check calls it a second reference to the page.
std::optional<BtreeDamage> SharedRoot(const std::vector<Btree>& trees) {
  std::unordered_map<uint32_t, const Btree*> roots;
  for (const Btree& tree : trees) {
    const auto [it, first] = roots.emplace(tree.root, &tree);
    if (!first) {
      return BtreeDamage{tree.root, "it is used twice (the root of " + it->second->owner + " too)",
                         tree.owner};
    }
  }
  return std::nullopt;
}

}  // namespace

void StructureCheck::Begin(const PageFile& pages, const std::vector<Btree>& trees) {
  Reset();
  trees_ = trees;
  for (std::size_t i = 0; i < trees_.size(); ++i) {
    if (trees_[i].index) indexes_[trees_[i].table].push_back(i);
  }
  pages_.emplace(pages);
  use_.emplace(pages_->pages());
  checker_.emplace(*pages_, nullptr, &*use_);
  thread_.emplace(*pages_, *use_);
}

BtreeChecker* StructureCheck::Walk(uint32_t root) {
  if (!begun()) return nullptr;
  if (scanning()) {
    if (!claimed_.insert(root).second) return nullptr;
  } else {
    const auto it = std::find_if(left_.begin(), left_.end(),
                                 [&](const Btree& tree) { return tree.root == root; });
    if (it == left_.end()) return nullptr;
    left_.erase(it);
  }
  ++lent_;
  return &*checker_;
}

bool StructureCheck::Waits(uint32_t root) const {
  const auto is_root = [&](const Btree& tree) { return tree.root == root; };
  return std::any_of(left_.begin(), left_.end(), is_root) ||
         std::any_of(beside_.begin(), beside_.end(), is_root);
}

void StructureCheck::Accompany(const std::string& table) {
  const bool table_companion = std::any_of(companions_.begin(), companions_.end(),
                                           [](const auto& c) { return !c->tree.index; });
  if (!begun() || table_companion) return;
  const auto is_table = [&](const Btree& tree) { return !tree.index && tree.table == table; };
  std::optional<Btree> tree;
  if (scanning()) {
    const auto it = std::find_if(trees_.begin(), trees_.end(), is_table);
    if (it == trees_.end() || !claimed_.insert(it->root).second) return;
    tree = *it;
  } else {  // a later walk: the table left to it (Leave)
    const auto it = std::find_if(left_.begin(), left_.end(), is_table);
    if (it == left_.end()) return;
    tree = *it;
    left_.erase(it);
  }
  companions_.push_back(std::make_unique<Companion>(*pages_, *use_, *tree));
  companions_.back()->checker.Start(tree->root, false);
}

void StructureCheck::AccompanyIndexes(const std::string& table,
                                      const std::vector<uint32_t>& taken) {
  if (!begun()) return;
  std::vector<Btree> trees;
  if (scanning()) {
    const auto it = indexes_.find(table);
    if (it == indexes_.end()) return;
    for (const std::size_t i : it->second) {
      const Btree& tree = trees_[i];
      if (std::find(taken.begin(), taken.end(), tree.root) != taken.end()) continue;
      if (claimed_.insert(tree.root).second) trees.push_back(tree);
    }
  } else {  // a later walk: the indexes left beside it (LeaveIndexes)
    const auto of_table = [&](const Btree& tree) { return tree.table == table; };
    std::copy_if(beside_.begin(), beside_.end(), std::back_inserter(trees), of_table);
    std::erase_if(beside_, of_table);
  }
  for (const Btree& tree : trees) {
    companions_.push_back(std::make_unique<Companion>(*pages_, *use_, tree));
    Companion& c = *companions_.back();
    try {
      c.checker.StartInPageOrder(tree.root);
    } catch (const DamagedPage& page) {
      c.damage = BtreeDamage{page.page(), page.what(), tree.owner};
    }
  }
}

void StructureCheck::LeaveIndexes(const std::string& table) {
  if (!scanning()) return;
  const auto it = indexes_.find(table);
  if (it == indexes_.end()) return;
  for (const std::size_t i : it->second) {
    if (claimed_.insert(trees_[i].root).second) beside_.push_back(trees_[i]);
  }
}

std::optional<BtreeDamage> StructureCheck::FinishCompanion() {
  std::optional<BtreeDamage> damage;
  for (const std::unique_ptr<Companion>& c : companions_) {
    if (damage.has_value()) break;
    damage = c->damage;
    try {
      if (!damage.has_value()) c->checker.Finish();
    } catch (const DamagedPage& page) {
      damage = BtreeDamage{page.page(), page.what(), c->tree.owner};
    }
  }
  ForgetCompanion();
  return damage;
}

void StructureCheck::Follow(const PageReader& pages) {
  for (const std::unique_ptr<Companion>& c : companions_) {
    if (c->damage.has_value()) continue;
    try {
      c->checker.Follow(pages);
    } catch (const DamagedPage& page) {
      c->damage = BtreeDamage{page.page(), page.what(), c->tree.owner};
    }
  }
}

void StructureCheck::LeaveTable(const std::string& table) {
  const auto it = std::find_if(trees_.begin(), trees_.end(), [&](const Btree& tree) {
    return !tree.index && tree.table == table;
  });
  if (it != trees_.end()) Leave(*it);
}

void StructureCheck::Leave(const Btree& tree) {
  if (scanning() && claimed_.insert(tree.root).second) left_.push_back(tree);
}

void StructureCheck::Hand(const std::string& table) {
  if (!scanning()) return;
  const auto it = indexes_.find(table);
  if (it == indexes_.end()) return;
  for (const std::size_t i : it->second) {
    if (claimed_.insert(trees_[i].root).second) thread_->Hand(trees_[i]);
  }
}

std::optional<BtreeDamage> StructureCheck::EndScan() {
  for (const Btree& tree : trees_) {
    if (tree.index && claimed_.insert(tree.root).second) thread_->Hand(tree);
  }
  std::optional<BtreeDamage> damage = SharedRoot(trees_);
  for (const Btree& tree : trees_) {
    if (damage.has_value()) break;
    if (tree.index || !claimed_.insert(tree.root).second) continue;
    try {
      checker_->Tree(tree.root, false);
    } catch (const DamagedPage& page) {
      damage = BtreeDamage{page.page(), page.what(), tree.owner};
    }
  }
  // The thread's damage counts when the walks found none: either is the file's. Stopped
  // (reset) rather than waited for when they did.
  if (!damage.has_value()) damage = thread_->Finish();
  thread_.reset();
  claimed_.clear();
  indexes_.clear();
  trees_.clear();
  return damage;
}

std::optional<BtreeDamage> StructureCheck::CheckLeft() {
  left_.insert(left_.end(), beside_.begin(), beside_.end());
  beside_.clear();
  while (!left_.empty()) {
    const Btree tree = left_.front();
    left_.erase(left_.begin());
    try {
      checker_->Tree(tree.root, tree.index);
    } catch (const DamagedPage& page) {
      return BtreeDamage{page.page(), page.what(), tree.owner};
    }
  }
  return std::nullopt;
}

void StructureCheck::ForgetCompanion() { companions_.clear(); }

void StructureCheck::Reset() {
  thread_.reset();
  ForgetCompanion();
  checker_.reset();
  use_.reset();
  pages_.reset();
  claimed_.clear();
  indexes_.clear();
  trees_.clear();
  left_.clear();
  beside_.clear();
}

}  // namespace steadyflake::mergecheck
