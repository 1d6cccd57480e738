// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The re-read of input A. The first pass keeps a composite, text, real or blob key only as the
// hash of its canonical encoding, which is enough to count the overlap but not to name the
// conflicting values. So, when such hashes are in both inputs, input A is scanned a second
// time, only the tables with such keys, and each row's key is hashed again exactly as the
// Collector hashed it (KeyOf, the same columns matched by name); a row whose hash is one of
// the common ones gives its values, converted with the column's affinity. The cost is one more
// read of those tables; memory stays bounded by the report's limit, since the values found are
// cut down to the first `limit` distinct ones whenever they pile up.

#include "check/reread.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>

namespace steadyflake::mergecheck {

namespace {

// The values of `key` in the row `cells`, after affinity.
std::vector<OwnedValue> KeyValues(const KeyState& key, std::span<const Cell> cells) {
  std::vector<OwnedValue> values;
  ValueBuffer buffer;
  for (std::size_t i = 0; i < key.cell.size(); ++i) {
    values.push_back(
        Own(ApplyAffinity(cells[static_cast<std::size_t>(key.cell[i])], key.affinity[i], buffer)));
  }
  return values;
}

// Collects the values behind the common hashes while input A is read again.
class Recoverer : public SourceVisitor {
 public:
  Recoverer(const Collector& a, RereadTargets& targets) : a_(a), targets_(targets) {}

  std::vector<int> OnTable(const Table& table) override {
    pass_keys_.Reset();
    const TableState* t = a_.Find(table.name);
    if (t == nullptr || targets_.count(table.name) == 0) return wanted_ = {};
    return wanted_ = MapWanted(*t, table);
  }

  // Only the targets' keys: the source may read just their indexes.
  std::vector<std::vector<int>> Groups(const Table& table) override {
    std::vector<std::vector<int>> groups;
    const auto it = targets_.find(table.name);
    if (it == targets_.end()) return groups;
    for (const RereadTarget& target : it->second) {
      if (target.done) continue;  // its values are known
      std::vector<int>& group = groups.emplace_back();
      for (const int cell : target.key->cell)
        group.push_back(wanted_.at(static_cast<std::size_t>(cell)));
    }
    return groups;
  }

  void OnPass(const Table& table, std::span<const int> present, bool /*first*/) override {
    const auto it = targets_.find(table.name);
    if (it == targets_.end()) return;
    pass_keys_.Start(it->second.size(), present,
                     [&](std::size_t i) { return std::span(it->second[i].key->cell); });
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    const auto it = targets_.find(table.name);
    if (it == targets_.end()) return;
    int64_t integer = 0;
    IntegerPair pair;
    Hash128 hash;
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      if (!pass_keys_.Computes(i)) continue;  // another pass gives this key
      RereadTarget& target = it->second[i];
      if (target.done) continue;
      if (KeyOf(*target.key, cells, scratch_, integer, pair, hash) != KeyKind::kHash) continue;
      if (!std::binary_search(target.hashes.begin(), target.hashes.end(), hash)) continue;
      target.found.push_back(KeyValues(*target.key, cells));
      if (target.limit != 0 && target.found.size() > 2 * target.limit + 1024) {
        SortDistinct(target.found, target.limit);
      }
    }
  }

 private:
  const Collector& a_;
  RereadTargets& targets_;
  std::vector<int> wanted_;  // what OnTable returned
  PassKeys pass_keys_;       // which targets' keys the current pass computes (source.h)
  KeyScratch scratch_;
};

}  // namespace

namespace {

// Looks up the rows of every target of `list` by its `look_up` values; false (some may have been
// looked up) when one cannot be.
bool LookUpAll(Source& a, const std::string& table, std::vector<RereadTarget>& list,
               Recoverer& recoverer) {
  for (const RereadTarget& target : list) {
    std::vector<std::string> collations;
    if (target.done) continue;
    if (target.look_up == nullptr || !LookUpCollations(*target.key, collations)) return false;
  }
  for (const RereadTarget& target : list) {
    if (target.done) continue;
    std::vector<std::string> collations;
    LookUpCollations(*target.key, collations);
    std::vector<std::vector<Cell>> tuples;
    for (const std::vector<OwnedValue>& values : *target.look_up) {
      std::vector<Cell>& tuple = tuples.emplace_back();
      for (const OwnedValue& v : values) {
        if (v.tag == Value::Tag::kNull || v.tag == Value::Tag::kBigInteger) return false;
        tuple.push_back(CellOf(v));
      }
    }
    if (!a.LookUpValues(recoverer, table, target.key->names, collations, tuples)) return false;
  }
  return true;
}

// Reads the rows whose keys may hash to the targets' hashes by their positions, where `a` kept
// them (a plain dump); false, having read nothing, when it did not.
bool ReadByPosition(Source& a, const Collector& collected_a, const std::string& table,
                    const std::vector<RereadTarget>& list, Recoverer& recoverer) {
  const TableState* t = collected_a.Find(table);
  const RowDirectory* directory = FullDirectory(t);
  if (directory == nullptr) return false;
  std::vector<RowDirectory::Wanted> wanted;
  for (const RereadTarget& target : list) {
    if (target.done) continue;
    RowDirectory::Wanted& w = wanted.emplace_back();
    w.key = KeyIndex(*t, *target.key);
    for (const Hash128& hash : target.hashes) w.fingerprints.push_back(HashFingerprint(hash));
  }
  return a.ReadRowsAt(recoverer, table, directory->Select(wanted));
}

}  // namespace

void Reread(Source& a, const Collector& collected_a, RereadTargets& targets) {
  if (targets.empty()) return;
  std::vector<std::string> only;
  Recoverer recoverer(collected_a, targets);
  for (auto& [name, list] : targets) {
    if (LookUpAll(a, name, list, recoverer)) continue;
    if (!ReadByPosition(a, collected_a, name, list, recoverer)) only.push_back(name);
  }
  if (!only.empty()) a.Scan(recoverer, only);
}

}  // namespace steadyflake::mergecheck
