// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The whole-row comparison. Each input is read once more, only the tables with overlapping
// keys, every column: by an indexed lookup of each common value where the values are known
// (integers, pairs, or input A's values of the hashes) and the input is a SQLite file with an
// index under the key's collations, else by a scan. A row whose key (computed as the
// Collector computed it, KeyOf) is one of the common values gives a 64-bit hash of the whole row:
// its values after affinity (generated columns left out: a dump may not hold them), in the
// order of the columns' lowercase names, so two inputs that
// declare the columns in another order still agree. A common value is identical when A's rows and
// B's rows under it hash alike.

#include "check/rows.h"

#include <algorithm>
#include <utility>

#include "check/both_inputs.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// A common value and the hash of a row that has it.
using Found = std::pair<KeyId, uint64_t>;

class RowHasher : public SourceVisitor {
 public:
  RowHasher(int input, RowTargets& targets) : input_(input), targets_(targets) {}

  std::vector<int> OnTable(const Table& table) override {
    row_table_ = &table;
    current_ = nullptr;
    const auto it = targets_.find(table.name);
    if (it == targets_.end()) return {};
    // A dump may create every table before the rows of any: each table keeps its own state.
    current_ = &tables_[table.name];
    Prepare(table, it->second, *current_);
    current_->found = &found_[table.name];  // a map's elements stay where they are
    current_->found->resize(it->second.size());
    std::vector<int> all;
    for (std::size_t i = 0; i < table.columns.size(); ++i) all.push_back(static_cast<int>(i));
    return all;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (&table != row_table_) {  // another table's rows (OnTable was called for it before)
      row_table_ = &table;
      const auto it = tables_.find(table.name);
      current_ = it == tables_.end() ? nullptr : &it->second;
    }
    if (current_ == nullptr) return;
    std::vector<std::vector<Found>>& found = *current_->found;
    bool hashed = false;
    uint64_t row = 0;
    for (std::size_t t = 0; t < current_->keys.size(); ++t) {
      if (!current_->usable[t]) continue;
      int64_t integer = 0;
      IntegerPair pair;
      Hash128 hash;
      KeyId id;
      switch (KeyOf(current_->keys[t], cells, scratch_, integer, pair, hash)) {
        case KeyKind::kNull:
          continue;
        case KeyKind::kInteger:
          id = IdOfInteger(integer);
          break;
        case KeyKind::kPair:
          id = IdOfPair(pair);
          break;
        case KeyKind::kHash:
          id = IdOfHash(hash);
          break;
      }
      const std::vector<KeyId>& common = (*current_->targets)[t].common;
      if (!std::binary_search(common.begin(), common.end(), id)) continue;
      if (!hashed) {
        row = RowHash(cells);
        hashed = true;
      }
      found[t].emplace_back(id, row);
    }
  }

  // By table, per target: the common values found and their rows' hashes.
  std::map<std::string, std::vector<std::vector<Found>>>& found() { return found_; }
  // The common values of target `t` of `table` whose rows were found so far, sorted.
  std::vector<KeyId> FoundSoFar(const std::string& table, std::size_t t) const {
    std::vector<KeyId> ids;
    const auto it = found_.find(table);
    if (it == found_.end() || t >= it->second.size()) return ids;
    for (const Found& f : it->second[t]) ids.push_back(f.first);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

 private:
  // What the rows of one table need, from its latest definition (OnTable).
  struct TableHashing {
    const std::vector<RowTarget>* targets = nullptr;
    std::vector<std::vector<Found>>* found = nullptr;  // found_'s entry for the table
    std::vector<KeyState> keys;  // per target: its key, cells pointing at its columns (by name)
    std::vector<bool> usable;    // per target: all its columns are in the table
    std::vector<int> by_name;    // the columns hashed, by lowercase name
    std::vector<Affinity> affinity;
  };

  void Prepare(const Table& table, const std::vector<RowTarget>& targets, TableHashing& state) {
    state.targets = &targets;
    state.by_name.clear();
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      if (!table.columns[i].generated) state.by_name.push_back(static_cast<int>(i));
    }
    std::sort(state.by_name.begin(), state.by_name.end(), [&](int x, int y) {
      return AsciiLower(table.columns[static_cast<std::size_t>(x)].name) <
             AsciiLower(table.columns[static_cast<std::size_t>(y)].name);
    });
    state.keys.clear();
    state.usable.clear();
    for (const RowTarget& target : targets) {
      // What KeyOf reads of the key, without its (large) set.
      const KeyState& collected = *target.key[input_];
      KeyState key;
      key.lower = collected.lower;
      key.affinity = collected.affinity;
      key.collation = collected.collation;
      key.prefix = collected.prefix;
      key.cell.resize(key.lower.size());
      bool usable = true;
      for (std::size_t j = 0; j < key.lower.size(); ++j) {
        int found = -1;
        for (std::size_t i = 0; i < table.columns.size() && found < 0; ++i) {
          if (AsciiLower(table.columns[i].name) == key.lower[j]) found = static_cast<int>(i);
        }
        usable = usable && found >= 0;
        key.cell[j] = found;
      }
      state.keys.push_back(std::move(key));
      state.usable.push_back(usable);
    }
    state.affinity.clear();
    for (const Column& c : table.columns) state.affinity.push_back(c.affinity);
  }

  uint64_t RowHash(std::span<const Cell> cells) {
    scratch_.encoding.clear();
    for (const int c : current_->by_name) {
      const auto i = static_cast<std::size_t>(c);
      AppendEncoding(ApplyAffinity(cells[i], current_->affinity[i], scratch_.buffer),
                     scratch_.encoding);
    }
    return HashBytes(scratch_.encoding).lo;
  }

  const int input_;
  RowTargets& targets_;
  std::map<std::string, TableHashing> tables_;
  TableHashing* current_ = nullptr;   // the state of the table of the rows being given
  const Table* row_table_ = nullptr;  // the Table those rows come with
  KeyScratch scratch_;
  std::map<std::string, std::vector<std::vector<Found>>> found_;
};

// The values of `common` whose rows in `a` and `b` are the same rows.
std::vector<KeyId> Identical(std::vector<Found>& a, std::vector<Found>& b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  std::vector<KeyId> identical;
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (i->first < j->first) {
      ++i;
    } else if (j->first < i->first) {
      ++j;
    } else {
      // The rows under one value on each side (one, unless the key was not unique there).
      const KeyId id = i->first;
      bool same = true;
      for (; i != a.end() && j != b.end() && i->first == id && j->first == id; ++i, ++j) {
        same = same && i->second == j->second;
      }
      same = same && (i == a.end() || i->first != id) && (j == b.end() || j->first != id);
      while (i != a.end() && i->first == id) ++i;
      while (j != b.end() && j->first == id) ++j;
      if (same) identical.push_back(id);
    }
  }
  return identical;
}

// Whether no two rows of one input share a value of `key` there: its rows are as many as its
// distinct values. (A set that kept fingerprints in place of hashes cannot tell: false.)
bool ValuesUnique(const KeyState& key) {
  if (key.merged.has_value()) return key.merged->repeats == 0;
  const KeySet& set = key.set;
  return set.elided() == 0 &&
         set.rows() == set.integers().size() + set.pairs().size() + set.hashes().size();
}

// The tuples that find the rows of `target` in input `input` by lookup, in `ids` the value each
// is (KeyId), and in `collations` the collations they compare under; false when some common
// value is not known as values (a hash A did not give again) or the key's values cannot be
// looked up (LookUpCollations).
bool LookUpTuples(const RowTarget& target, int input, std::vector<std::vector<Cell>>& tuples,
                  std::vector<KeyId>& ids, std::vector<std::string>& collations) {
  const KeyState& key = *target.key[input];
  bool hashes = false;
  for (const KeyId& id : target.common) {
    const auto lo = static_cast<int64_t>(id.bits.lo);
    if (id.kind == KeyId::Kind::kHash) {
      hashes = true;
      continue;
    }
    ids.push_back(id);
    std::vector<Cell>& tuple = tuples.emplace_back(id.kind == KeyId::Kind::kInteger ? 1 : 2);
    for (Cell& cell : tuple) cell.type = Cell::Type::kInteger;
    tuple.front().integer =
        id.kind == KeyId::Kind::kInteger ? lo : static_cast<int64_t>(id.bits.hi);
    tuple.back().integer = lo;
  }
  collations.clear();
  if (!hashes) return true;  // integers: the key's own collations
  if (target.values == nullptr || !LookUpCollations(key, collations)) return false;
  for (const std::vector<OwnedValue>& values : *target.values) {
    std::vector<Cell>& tuple = tuples.emplace_back();
    for (const OwnedValue& v : values) {
      if (v.tag == Value::Tag::kNull || v.tag == Value::Tag::kBigInteger) return false;
      tuple.push_back(CellOf(v));
    }
    ids.push_back(IdOfValues(key, values));
  }
  return true;
}

// Drops from `tuples` (and `ids`) the values whose rows an earlier lookup of the table found
// already (`found`, sorted): a row looked up by one key gives its values of every key. Only for
// a key no two rows share in this input: else another row may hold the value too.
void DropFound(const KeyState& key, const std::vector<KeyId>& found,
               std::vector<std::vector<Cell>>& tuples, std::vector<KeyId>& ids) {
  if (found.empty() || !ValuesUnique(key)) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    if (std::binary_search(found.begin(), found.end(), ids[i])) continue;
    tuples[kept] = std::move(tuples[i]);
    ids[kept] = ids[i];
    ++kept;
  }
  tuples.resize(kept);
  ids.resize(kept);
}

// The fingerprints of `list`'s common values, by key, in table `t` of input `input`.
std::vector<RowDirectory::Wanted> WantedOf(int input, const TableState& t,
                                           const std::vector<RowTarget>& list) {
  std::vector<RowDirectory::Wanted> wanted;
  for (const RowTarget& target : list) {
    RowDirectory::Wanted& w = wanted.emplace_back();
    w.key = KeyIndex(t, *target.key[input]);
    for (const KeyId& id : target.common) {
      w.fingerprints.push_back(id.kind == KeyId::Kind::kHash ? HashFingerprint(id.bits)
                                                             : Fingerprint(id.bits));
      if (id.kind == KeyId::Kind::kInteger) w.integers.push_back(static_cast<int64_t>(id.bits.lo));
    }
    if (w.integers.size() != w.fingerprints.size()) w.integers.clear();  // not all integers
  }
  return wanted;
}

// Reads the rows of `list`'s common values in table `table` of input `input` by their positions,
// where the input kept them (a plain dump); false, having read nothing, when it did not.
bool ReadByPosition(int input, Source& source, const Collector& collected, RowHasher& hasher,
                    const std::string& table, const std::vector<RowTarget>& list) {
  const TableState* t = collected.Find(table);
  const RowDirectory* directory = FullDirectory(t);
  if (directory == nullptr) return false;
  return source.ReadRowsAt(hasher, table, directory->Select(WantedOf(input, *t, list)));
}

// PrepareDirectories for input `input` (0: A) of the Collector that read it.
void PrepareDirectory(int input, const Collector& collected, const RowTargets& targets) {
  for (const auto& [table, list] : targets) {
    const TableState* t = collected.Find(table);
    const RowDirectory* directory = FullDirectory(t);
    if (directory != nullptr) directory->Prepare(WantedOf(input, *t, list));
  }
}

// Fills `hasher` from input `input`: a table whose common values are all known by an indexed
// lookup of each value, when the source can look rows up (a SQLite file: the cost is that of
// the overlap, not of the table); by the positions of the rows that may have them, where the
// input kept those (a plain dump); any other table by a scan.
void Gather(int input, Source& source, const Collector& collected, RowHasher& hasher,
            const RowTargets& targets) {
  std::vector<std::string> scan;
  for (const auto& [name, list] : targets) {
    std::vector<std::vector<std::vector<Cell>>> tuples(list.size());
    std::vector<std::vector<KeyId>> ids(list.size());
    std::vector<std::vector<std::string>> collations(list.size());
    bool looked_up = true;
    for (std::size_t t = 0; looked_up && t < list.size(); ++t) {
      looked_up = LookUpTuples(list[t], input, tuples[t], ids[t], collations[t]);
    }
    for (std::size_t t = 0; looked_up && t < list.size(); ++t) {
      const KeyState& key = *list[t].key[input];
      if (t > 0) DropFound(key, hasher.FoundSoFar(name, t), tuples[t], ids[t]);
      looked_up = tuples[t].empty() ||
                  source.LookUpValues(hasher, name, key.names, collations[t], tuples[t]);
    }
    if (!looked_up && !ReadByPosition(input, source, collected, hasher, name, list)) {
      scan.push_back(name);
    }
  }
  if (!scan.empty()) source.Scan(hasher, scan);
}

}  // namespace

KeyId IdOfInteger(int64_t value) {
  return KeyId{KeyId::Kind::kInteger, Hash128{0, static_cast<uint64_t>(value)}};
}

KeyId IdOfPair(const IntegerPair& pair) {
  return KeyId{KeyId::Kind::kPair,
               Hash128{static_cast<uint64_t>(pair.first), static_cast<uint64_t>(pair.second)}};
}

KeyId IdOfHash(const Hash128& hash) { return KeyId{KeyId::Kind::kHash, hash}; }

KeyId IdOfValues(const KeyState& key, const std::vector<OwnedValue>& tuple) {
  const auto integer = [](const OwnedValue& v) { return v.tag == Value::Tag::kInteger; };
  if (tuple.size() == 1 && integer(tuple[0])) return IdOfInteger(tuple[0].integer);
  if (tuple.size() == 2 && integer(tuple[0]) && integer(tuple[1])) {
    return IdOfPair(IntegerPair{tuple[0].integer, tuple[1].integer});
  }
  return IdOfHash(HashOfValues(key, tuple));
}

void PrepareDirectories(const Collector& ca, const Collector& cb, const RowTargets& targets) {
  if (targets.empty()) return;
  OnBothInputs([&] { PrepareDirectory(0, ca, targets); },
               [&] { PrepareDirectory(1, cb, targets); });
}

void CompareRows(Source& a, const Collector& ca, Source& b, const Collector& cb,
                 RowTargets& targets) {
  if (targets.empty()) return;
  RowHasher hashers[2] = {RowHasher(0, targets), RowHasher(1, targets)};
  OnBothInputs([&] { Gather(0, a, ca, hashers[0], targets); },
               [&] { Gather(1, b, cb, hashers[1], targets); });
  for (auto& [name, list] : targets) {
    auto& in_a = hashers[0].found()[name];
    auto& in_b = hashers[1].found()[name];
    in_a.resize(list.size());
    in_b.resize(list.size());
    for (std::size_t t = 0; t < list.size(); ++t) list[t].identical = Identical(in_a[t], in_b[t]);
  }
}

}  // namespace steadyflake::mergecheck
