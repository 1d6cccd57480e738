// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// ResolveFingerprints (resolve.h): the keys of tables in both inputs whose hashes either input
// kept as fingerprints, each input's distinct fingerprints of them (two threads), their
// intersection, then the rows of the fingerprints in both read again and hashed (two threads).

#include "check/resolve.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "check/both_inputs.h"
#include "check/row_directory.h"

namespace steadyflake::mergecheck {

namespace {

// One key of a table in both inputs whose hashes either kept as fingerprints.
struct KeyPair {
  std::string table;
  std::size_t key[2] = {};  // its index among the table's keys, in A and in B
  // Each input's fingerprints, as a filter, then those of them that pass the other input's
  // filter (distinct, ascending), and the fingerprints in both.
  std::optional<FingerprintFilter> filter[2];
  ValueArray<uint32_t> candidates[2];  // in huge pages once large, as a key set's values
  std::vector<uint32_t> common;
};

// Bits a fingerprint in a KeyPair's filters: a fingerprint of the other input's that is not
// among this input's passes about one time in twenty (two bits a value, row_directory.h), so the
// candidates a side sorts are about a twentieth of its rows (an eighth with one bit: 226,000
// of 2M, sorted in 2.3 ms). At 2M rows a 2 MB bitmap, which the cache holds better than larger.
constexpr std::size_t kFilterBits = 8;

// Calls `f` with each fingerprint of key `key` of `t`: from the row directory when the first
// pass kept the key's hashes there, else of the hashes in its set.
template <typename F>
void ForEachFingerprint(const TableState& t, std::size_t key, F&& f) {
  const KeySet& set = t.keys[key].set;
  if (set.elided() != 0) {
    t.directory.ForEachFingerprint(key, f);
    return;
  }
  for (const Hash128& hash : set.hashes()) f(HashFingerprint(hash));
}

std::vector<KeyPair> PairsToResolve(const Collector& ca, const Collector& cb) {
  std::vector<KeyPair> pairs;
  for (const TableState& ta : ca.tables()) {
    const TableState* tb = cb.Find(ta.table.name);
    if (tb == nullptr || !ta.selected || !tb->selected) continue;
    // compare.cpp pairs keys by their columns' lowercase names; every such pair here, so that
    // a key it pairs with any of several alike finds the hashes it shares with each.
    for (std::size_t i = 0; i < ta.keys.size(); ++i) {
      for (std::size_t j = 0; j < tb->keys.size(); ++j) {
        const KeyState& ka = ta.keys[i];
        const KeyState& kb = tb->keys[j];
        if (kb.lower != ka.lower || (ka.set.elided() == 0 && kb.set.elided() == 0)) continue;
        KeyPair& pair = pairs.emplace_back();
        pair.table = ta.table.name;
        pair.key[0] = i;
        pair.key[1] = j;
      }
    }
  }
  return pairs;
}

// Adds to the sets of the keys it is given the hashes of the rows it reads: every hash, or
// those whose fingerprints are among the key's candidates.
class HashFinder : public SourceVisitor {
 public:
  explicit HashFinder(Collector& collector) : collector_(collector) {}

  // Key `key` of `table`; `candidates` (ascending; it must outlive the finder) or every hash
  // when nullptr.
  void Want(const std::string& table, std::size_t key, const std::vector<uint32_t>* candidates) {
    wants_[table].push_back(Wanted{key, candidates});
  }
  // The tables of the keys wanted.
  std::vector<std::string> Tables() const {
    std::vector<std::string> tables;
    for (const auto& [name, list] : wants_) tables.push_back(name);
    return tables;
  }
  // Finishes every wanted key's set (KeySet::FinishFound).
  void Finish() {
    for (auto& [name, list] : wants_) {
      for (const Wanted& w : list) collector_.Find(name)->keys[w.key].set.FinishFound();
    }
  }

  std::vector<int> OnTable(const Table& table) override {
    last_given_ = nullptr;  // another table's rows may come with a Table at the same address
    const TableState* t = collector_.Find(table.name);
    if (t == nullptr || wants_.count(table.name) == 0) return {};
    return MapWanted(*t, table);
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (&table != last_given_) {  // one Table object from OnTable to OnTable (source.h)
      const auto it = wants_.find(table.name);
      last_ = it == wants_.end() ? nullptr : &it->second;
      state_ = collector_.Find(table.name);
      last_given_ = &table;
    }
    if (last_ == nullptr || state_ == nullptr) return;
    int64_t integer = 0;
    IntegerPair pair;
    Hash128 hash;
    for (const Wanted& w : *last_) {
      KeyState& k = state_->keys[w.key];
      if (KeyOf(k, cells, scratch_, integer, pair, hash) != KeyKind::kHash) continue;
      if (w.candidates != nullptr &&
          !std::binary_search(w.candidates->begin(), w.candidates->end(), HashFingerprint(hash))) {
        continue;
      }
      k.set.AddFoundHash(hash);
    }
  }

 private:
  struct Wanted {
    std::size_t key;
    const std::vector<uint32_t>* candidates;
  };
  Collector& collector_;
  std::map<std::string, std::vector<Wanted>> wants_;
  const Table* last_given_ = nullptr;  // the Table the last row came with
  std::vector<Wanted>* last_ = nullptr;
  TableState* state_ = nullptr;
  KeyScratch scratch_;
};

// Fills each pair's filter of input `side`'s fingerprints. A key whose hashes the first pass
// kept as fingerprints, in a table the row directory does not hold in full, gets every hash by
// a scan first.
void FilterFingerprints(int side, Source& source, Collector& collector,
                        std::vector<KeyPair>& pairs) {
  HashFinder every(collector);
  for (const KeyPair& p : pairs) {
    const TableState* t = collector.Find(p.table);
    if (t->keys[p.key[side]].set.elided() != 0 && FullDirectory(t) == nullptr) {
      every.Want(p.table, p.key[side], nullptr);
    }
  }
  const std::vector<std::string> scan = every.Tables();
  if (!scan.empty()) {
    source.Scan(every, scan);
    every.Finish();
  }
  for (KeyPair& p : pairs) {
    const TableState* t = collector.Find(p.table);
    const KeySet& set = t->keys[p.key[side]].set;
    FingerprintFilter& filter =
        p.filter[side].emplace(set.elided() != 0 ? set.rows() : set.hashes().size(), kFilterBits);
    ForEachFingerprint(*t, p.key[side], [&](uint32_t fingerprint) { filter.Add(fingerprint); });
  }
}

// Fills each pair's candidates of input `side`: its fingerprints that pass the other input's
// filter, distinct, ascending.
void FindCandidates(int side, const Collector& collector, std::vector<KeyPair>& pairs) {
  for (KeyPair& p : pairs) {
    const FingerprintFilter& other = *p.filter[1 - side];
    ValueArray<uint32_t>& candidates = p.candidates[side];
    ForEachFingerprint(*collector.Find(p.table), p.key[side], [&](uint32_t fingerprint) {
      if (other.MayHold(fingerprint)) candidates.push_back(fingerprint);
    });
    SortUniform(candidates.begin(), candidates.size());
    candidates.Truncate(static_cast<std::size_t>(std::unique(candidates.begin(), candidates.end()) -
                                                 candidates.begin()));
  }
}

// Adds to input `side`'s sets kept as fingerprints the hashes of the rows whose fingerprints
// are in both inputs (KeyPair::common), read by position where the input can, else by a scan.
void FindHashes(int side, Source& source, Collector& collector, const std::vector<KeyPair>& pairs) {
  HashFinder finder(collector);
  std::map<std::string, std::vector<RowDirectory::Wanted>> wanted;
  for (const KeyPair& p : pairs) {
    if (collector.Find(p.table)->keys[p.key[side]].set.elided() == 0) continue;
    finder.Want(p.table, p.key[side], &p.common);
    std::vector<RowDirectory::Wanted>& list = wanted[p.table];
    if (!p.common.empty()) list.push_back(RowDirectory::Wanted{p.key[side], p.common, {}});
  }
  std::vector<std::string> scan;
  for (const auto& [table, list] : wanted) {
    if (list.empty()) continue;  // no fingerprint in both: no hash is wanted
    // Prepared: the rows of the values in both inputs that the passes after the comparison
    // want are among these (rows.cpp, PrepareDirectories).
    const RowDirectory* directory = FullDirectory(collector.Find(table));
    directory->Prepare(list);
    if (!source.ReadRowsAt(finder, table, directory->Select(list))) scan.push_back(table);
  }
  if (!scan.empty()) source.Scan(finder, scan);
  finder.Finish();
}

}  // namespace

void ResolveFingerprints(Source& a, Collector& ca, Source& b, Collector& cb) {
  std::vector<KeyPair> pairs = PairsToResolve(ca, cb);
  if (pairs.empty()) return;
  // Each thread writes only its own input's members of the pairs.
  OnBothInputs([&] { FilterFingerprints(0, a, ca, pairs); },
               [&] { FilterFingerprints(1, b, cb, pairs); });
  OnBothInputs([&] { FindCandidates(0, ca, pairs); }, [&] { FindCandidates(1, cb, pairs); });
  for (KeyPair& p : pairs) {
    p.filter[0].reset();
    p.filter[1].reset();
    Intersect<uint32_t>(p.candidates[0].span(), p.candidates[1].span(), 0, p.common);
    p.candidates[0] = {};
    p.candidates[1] = {};
  }
  OnBothInputs([&] { FindHashes(0, a, ca, pairs); }, [&] { FindHashes(1, b, cb, pairs); });
}

}  // namespace steadyflake::mergecheck
