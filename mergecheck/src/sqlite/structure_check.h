// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// StructureCheck: which walk checks which b-tree of one SQLite file (btree_check.h), across the
// read transactions of its source, so that every b-tree is checked exactly once and none is
// left out:
// 1. The first scan begins the check (Begin): a checker its walks share, and a thread beside it
//    that checks the freelist first, then the trees handed to it.
// 2. A walk of the first scan checks the tree it reads, as it reads it, when no walk before it
//    did (Walk); a tree a later walk in index order will read is left to it (Leave); the index
//    b-trees of a table no walk reads are checked beside a pass over another of its b-trees, in
//    the order of their pages, from that walk's runs (AccompanyIndexes, Follow,
//    FinishCompanion); once the scan is past a table, the thread gets that table's index
//    b-trees no walk checked nor was left (Hand); a table b-tree no walk reads is checked beside
//    the walk of one of its indexes, from that walk's runs, and its rest right after that walk
//    (Accompany, Follow, FinishCompanion), and so are such a table's other index b-trees, in
//    page order, when the scan skips it (LeaveIndexes); at the scan's end, the table b-trees no
//    walk checked are walked for the check alone, and the thread is joined (EndScan). Trees are
//    claimed by their root page, so a root two schema entries give (a table on an index's root,
//    which SQLite allows) is damage.
// 3. A later walk of a tree left to it checks it (Walk); what no later walk read is checked by
//    CheckLeft (Source::FinishStructureCheck).
// One record of the pages seen (PageUse) serves every walk, the thread and CheckLeft, from the
// first scan on, so a page two trees claim is found whichever comes first; a tree checked twice
// would claim its own pages again, so that too would be reported, as damage, never passed over.
// A walk that carried the check and ended early (an exception) leaves it unfinished: the source
// then Resets it, and the next scan (or Source::FinishStructureCheck) checks the whole file.
//
// One thread at a time calls it (the calls of a Source come one after the other); the thread of
// step 1 shares only the PageUse and the queue of BtreeCheckThread.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_STRUCTURE_CHECK_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_STRUCTURE_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sqlite/btree_check.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

class StructureCheck {
 public:
  // Whether the first scan began the check, and is still under way.
  bool begun() const { return checker_.has_value(); }
  bool scanning() const { return thread_.has_value(); }
  // Trees left to a later walk that none has read yet.
  bool left() const { return !left_.empty() || !beside_.empty(); }
  // Whether the check of the b-tree rooted at `root` waits for a later walk of it or beside it
  // (Leave, LeaveTable, LeaveIndexes), which a read of only parts of it would not be.
  bool Waits(uint32_t root) const;
  // How many walks Walk has given the checker so far: a transaction that ends in an exception
  // after it gave one may have stopped that walk midway.
  uint64_t lent() const { return lent_; }

  // The first scan begins, in its read transaction, on the file `pages` reads, whose b-trees
  // are `trees` (SchemaReader::ReadSchema).
  void Begin(const PageFile& pages, const std::vector<Btree>& trees);

  // The checker a walk of the b-tree rooted at `root` is to show its pages, or null: in the
  // first scan, the first walk of a tree not left to a later one; after it, a walk of a tree
  // left to it (then no longer left). A walk given a checker reads the whole tree, or throws.
  BtreeChecker* Walk(uint32_t root);

  // A walk of an index b-tree of `table`, given the checker, is about to begin, and no walk
  // reads the table's own b-tree: in the first scan when no walk checked the table either, in a
  // later walk when the table was left to it (Leave), the table is checked beside the index
  // walk from the pages of the walk's runs (BtreeChecker::Follow, called by Follow below as the
  // walk reads), so that the pages of the two trees, which lie interleaved when they were
  // written together, are copied once. FinishCompanion, after the walk, checks the rest of it.
  void Accompany(const std::string& table);
  // The accompanying check goes on over the pages `pages` (the index walk's reader) holds.
  // Damage it finds is kept for FinishCompanion, never thrown into the index walk.
  void Follow(const PageReader& pages);
  // After a walk Accompany (or AccompanyIndexes) went with: checks the rest of the trees; the
  // first damage found.
  std::optional<BtreeDamage> FinishCompanion();

  // A walk of one of `table`'s b-trees (its rowids, a WITHOUT ROWID table's own, an index a
  // pass reads), given the checker, is about to begin. In the first scan its index b-trees that
  // no walk checked nor was left, but for those rooted at `taken` (a later pass of the scan, or
  // a later walk in index order, reads them), and in a later walk those LeaveIndexes left, are
  // checked beside it in page order, from the pages of the walk's runs
  // (BtreeChecker::StartInPageOrder; Follow as the walk reads), and their rest after the walk
  // (FinishCompanion). Else the thread would walk each in key order, one read of a page alone
  // for each leaf of an index whose leaves lie all over the file, the pages the walk copied
  // already.
  void AccompanyIndexes(const std::string& table, const std::vector<uint32_t>& taken);

  // First scan: the table b-tree of `table`, which the scan skips, is checked beside the walk a
  // later read transaction makes of one of its indexes (Accompany), unless a walk of this scan
  // checked it already; CheckLeft checks it if no such walk comes.
  void LeaveTable(const std::string& table);

  // First scan: the index b-trees of `table`, which the scan skips, that no walk checked nor
  // was left are checked beside the walk a later read transaction makes of another of its
  // b-trees, in page order, from that walk's runs (AccompanyIndexes then), rather than by the
  // thread in key order; CheckLeft checks them if no such walk comes.
  void LeaveIndexes(const std::string& table);

  // First scan: `tree` (an index b-tree) is checked by the walk that a later read transaction
  // makes of it (ReadInIndexOrder), unless a walk of this scan checked it already.
  void Leave(const Btree& tree);

  // First scan: the scan is past table `table`: hands the thread its index b-trees that no walk
  // checked and none was left to.
  void Hand(const std::string& table);

  // First scan's end: hands the thread every index b-tree not yet handed, walks the table
  // b-trees no walk checked, and waits for the thread. The first damage found, or nullopt; a
  // root two b-trees share (a crafted schema) is damage too.
  std::optional<BtreeDamage> EndScan();

  // Checks the trees left to later walks that none read. The first damage found, or nullopt.
  std::optional<BtreeDamage> CheckLeft();

  // Forgets the check (the thread stopped and joined): begun() is false again.
  void Reset();

 private:
  void ForgetCompanion();

  // Members in this order: the thread, which uses pages_ and use_, is joined first.
  std::optional<PageFile> pages_;
  std::optional<PageUse> use_;
  std::optional<BtreeChecker> checker_;
  // The checks of b-trees beside another tree's walk (Accompany: a table's beside an index
  // walk; AccompanyIndexes: indexes beside their table's walk), each with its tree and the
  // damage it found (then it stopped).
  struct Companion {
    Companion(const PageFile& pages, PageUse& use, const Btree& checked)
        : checker(pages, nullptr, &use), tree(checked) {}
    BtreeChecker checker;
    Btree tree;
    std::optional<BtreeDamage> damage;
  };
  std::vector<std::unique_ptr<Companion>> companions_;
  std::optional<BtreeCheckThread> thread_;  // the first scan's
  // First scan: the file's b-trees, the positions in trees_ of each table's index b-trees, and
  // the roots of the trees that a walk checked, the thread was handed, or were left.
  std::vector<Btree> trees_;
  std::unordered_map<std::string, std::vector<std::size_t>> indexes_;
  std::unordered_set<uint32_t> claimed_;
  std::vector<Btree> left_;    // left to a later walk (Leave), not read yet
  std::vector<Btree> beside_;  // left to be checked beside a later walk (LeaveIndexes)
  uint64_t lent_ = 0;
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_STRUCTURE_CHECK_H_
