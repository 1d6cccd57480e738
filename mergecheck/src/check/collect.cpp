// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Collection: a Collector is the SourceVisitor that turns one input's rows into key sets. For
// each table it builds the keys to check (the declared PRIMARY KEY and UNIQUE keys plus --key
// extras) and asks the source for just their columns; each row's key becomes an integer or a
// hash (KeyOf) appended to that key's KeySet. A dump may declare a key after some of its table's
// rows (ALTER TABLE ... ADD PRIMARY KEY at the end of a mysqldump): such a table is marked stale,
// its sets are dropped, and it is read again once the whole input is known. At the end each set
// is sorted, the IDs of integer single-column keys are decoded into server ids (before
// duplicates are dropped, so legacy counts rows), and the sets are deduplicated, ready for the
// comparison (compare.cpp).

#include "check/collect.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <exception>
#include <span>
#include <string_view>
#include <thread>
#include <utility>

#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

std::string_view KeyPrefix(const Value& v, int length) {
  const auto limit = static_cast<std::size_t>(length);
  if (v.tag == Value::Tag::kBlob) return v.bytes.substr(0, limit);
  if (v.tag != Value::Tag::kText) return v.bytes;
  const auto* s = reinterpret_cast<const uint8_t*>(v.bytes.data());
  int32_t end = 0;
  U8_FWD_N(s, end, static_cast<int32_t>(v.bytes.size()), static_cast<int32_t>(limit));
  return v.bytes.substr(0, static_cast<std::size_t>(end));
}

Hash128 HashOfValues(const KeyState& key, const std::vector<OwnedValue>& values) {
  KeyScratch scratch;
  for (std::size_t i = 0; i < values.size() && i < key.cell.size(); ++i) {
    const OwnedValue& o = values[i];
    Value v;
    v.tag = o.tag;
    v.integer = o.integer;
    v.real = o.real;
    v.bytes = o.bytes;
    AppendKeyValue(key, i, v, scratch);
  }
  return KeyHash(scratch.encoding);
}

bool Collated(const KeyState& key) {
  for (const Collation* c : key.collation) {
    if (c != nullptr && !c->bytewise()) return true;
  }
  return false;
}

bool LookUpCollations(const KeyState& key, std::vector<std::string>& collations) {
  collations.clear();
  for (std::size_t i = 0; i < key.affinity.size(); ++i) {
    const Affinity affinity = key.affinity[i];
    if (affinity != Affinity::kInteger && affinity != Affinity::kReal &&
        affinity != Affinity::kText) {
      return false;
    }
    if (i < key.prefix.size() && key.prefix[i] > 0) return false;
    if (affinity != Affinity::kText) {
      collations.emplace_back();
      continue;
    }
    const std::string& name = key.collation_names[i];
    if (name.empty()) {
      collations.emplace_back("BINARY");
    } else if (EqualsIgnoreCase(name, "BINARY") || EqualsIgnoreCase(name, "NOCASE") ||
               EqualsIgnoreCase(name, "RTRIM")) {
      collations.push_back(name);
    } else {
      return false;
    }
  }
  return true;
}

namespace {

// Whether `key` (built as `k`) is read in index order (KeyState::deferred): its index sorts it
// as KeyOf compares it, in an order the merge knows. One TEXT column, or several, each INTEGER
// or TEXT; text under its index's collation, BINARY, NOCASE or RTRIM. A single INTEGER column
// keeps its set: its IDs are decoded from it, and the plan reads its values.
bool Deferrable(const Key& key, const KeyState& k) {
  if (!key.in_index_order || key.collations.size() != k.cell.size()) return false;
  for (std::size_t i = 0; i < k.cell.size(); ++i) {
    if (k.prefix[i] != 0) return false;
    if (k.affinity[i] == Affinity::kInteger && k.cell.size() > 1) continue;
    if (k.affinity[i] != Affinity::kText) return false;
    const std::string& name = k.collation_names[i];
    if (!EqualsIgnoreCase(name, key.collations[i])) return false;  // a --key rule over the index's
    if (!EqualsIgnoreCase(name, "BINARY") && !EqualsIgnoreCase(name, "NOCASE") &&
        !EqualsIgnoreCase(name, "RTRIM")) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool Selected(const Options& options, const std::string& table) {
  return options.tables.empty() ||
         std::find(options.tables.begin(), options.tables.end(), table) != options.tables.end();
}

std::vector<int> MapWanted(const TableState& final_state, const Table& now) {
  std::vector<int> wanted;
  for (const int column : final_state.wanted) {
    const std::string name =
        AsciiLower(final_state.table.columns[static_cast<std::size_t>(column)].name);
    int found = -1;
    for (std::size_t i = 0; i < now.columns.size() && found < 0; ++i) {
      if (AsciiLower(now.columns[i].name) == name) found = static_cast<int>(i);
    }
    wanted.push_back(found >= 0 ? found : column);
  }
  return wanted;
}

void Collector::Run(const Layout& layout, int64_t cutoff_ms, const std::atomic<bool>& cancelled) {
  cancelled_ = &cancelled;
  source_.Scan(*this, options_.tables);
  Finish(layout, cutoff_ms);
  cancelled_ = nullptr;
}

void Collector::Recollate(const std::vector<Recollation>& changes, const Layout& layout,
                          int64_t cutoff_ms) {
  for (const Recollation& change : changes) {
    const auto it = index_.find(change.table);
    if (it == index_.end()) continue;
    TableState& t = tables_[it->second];
    for (KeyState& k : t.keys) {
      if (k.lower != change.lower) continue;
      k.collation_names = change.collation_names;
      for (std::size_t i = 0; i < k.collation.size(); ++i) {
        const std::string& name = k.collation_names[i];
        k.collation[i] = name.empty() ? nullptr : Collation::Find(name);
      }
      t.stale = true;
    }
  }
  Finish(layout, cutoff_ms);
}

void Collector::CountRows(const std::string& table, uint64_t rows) {
  const auto it = index_.find(table);
  if (it == index_.end() || !tables_[it->second].uncounted) return;
  tables_[it->second].rows += rows;
  tables_[it->second].uncounted = false;
  rows_ += rows;
}

void Collector::Undefer(const std::vector<std::pair<std::string, std::vector<std::string>>>& keys,
                        const Layout& layout, int64_t cutoff_ms) {
  for (const auto& [table, lower] : keys) {
    KeyState* k = FindKey(table, lower);
    if (k == nullptr || !k->deferred) continue;
    k->deferred = false;
    k->merged.reset();
    tables_[index_.at(table)].stale = true;
  }
  Finish(layout, cutoff_ms);
}

KeyState* Collector::FindKey(const std::string& table, const std::vector<std::string>& lower) {
  const auto it = index_.find(table);
  if (it == index_.end()) return nullptr;
  for (KeyState& k : tables_[it->second].keys) {
    if (k.lower == lower) return &k;
  }
  return nullptr;
}

void Collector::Finish(const Layout& layout, int64_t cutoff_ms) {
  std::vector<std::string> stale;
  for (TableState& t : tables_) {
    if (!t.stale) continue;
    stale.push_back(t.table.name);
    for (KeyState& k : t.keys) {
      k.set.Clear();
      k.legacy = 0;
      k.ids = 0;
    }
    ResetDirectory(t);  // after the sets are cleared (in row order from the first row)
    t.whole_rows.Clear();
  }
  if (!stale.empty()) {
    rereading_ = true;
    source_.Scan(*this, stale);
    rereading_ = false;
    for (TableState& t : tables_) t.uncounted = t.uncounted && !t.stale;  // counted (OnRow)
  }
  for (TableState& t : tables_) {
    // Sorting and deduping again is harmless but for its cost: only the tables just read.
    if (sorted_ && !t.stale) continue;
    t.stale = false;
    t.whole_rows.Sort();
    t.whole_rows.Dedupe();
    for (std::size_t i = 0; i < t.keys.size(); ++i) {
      KeyState& k = t.keys[i];
      // Integers the directory reads in row order stay so only if sorting and deduping leave
      // them as they are (a dump of a clustered table gives its primary key ascending).
      if (t.directory.Implicit(i) && !k.set.integers_ascending()) {
        t.directory.Materialize(i, k.set.integers());
      }
      k.set.Sort();
      if (k.decoded) {
        DecodeIds(k.set.integers(), layout, cutoff_ms, k.ids, k.legacy, k.servers);
      }
      k.set.Dedupe();
      t.directory.Attach(i, k.set.integers(), k.set.integers_ascending());
    }
  }
  sorted_ = true;
}

std::vector<int> Collector::OnTable(const Table& table) {
  auto [it, inserted] = index_.try_emplace(table.name, tables_.size());
  if (inserted) tables_.emplace_back();
  TableState& t = tables_[it->second];
  last_ = nullptr;
  last_given_ = nullptr;
  counting_ = true;
  pass_keys_.Reset();
  if (rereading_) {
    // Keep the final definition from the first read.
    return wanted_ = t.stale ? MapWanted(t, table) : std::vector<int>();
  }
  t.selected = Selected(options_, table.name);
  const bool had_rows = t.rows > 0;
  std::vector<std::vector<std::string>> before;
  for (const KeyState& k : t.keys) before.push_back(k.lower);
  t.table = table;
  BuildKeys(t);
  std::vector<std::vector<std::string>> after;
  for (const KeyState& k : t.keys) after.push_back(k.lower);
  if (had_rows && before != after) t.stale = true;
  if (!had_rows) ResetDirectory(t);
  if (!t.selected || t.stale) return wanted_ = {};
  return wanted_ = t.wanted;
}

std::vector<std::vector<int>> Collector::Groups(const Table& table) {
  std::vector<std::vector<int>> groups;
  const auto it = index_.find(table.name);
  if (it == index_.end()) return groups;
  if (wanted_.empty()) return groups;
  for (const KeyState& k : tables_[it->second].keys) {
    if (k.deferred) continue;  // read in index order later (MergeInIndexOrder)
    std::vector<int>& group = groups.emplace_back();
    for (const int cell : k.cell) group.push_back(wanted_.at(static_cast<std::size_t>(cell)));
  }
  return groups;
}

bool Collector::NeedsNoRows(const Table& table) {
  const auto it = index_.find(table.name);
  if (it == index_.end() || rereading_) return false;
  TableState& t = tables_[it->second];
  if (!t.selected || t.stale || t.keys.empty()) return false;
  t.uncounted =
      std::all_of(t.keys.begin(), t.keys.end(), [](const KeyState& k) { return k.deferred; });
  return t.uncounted;
}

void Collector::OnPass(const Table& table, std::span<const int> present, bool first) {
  TableState& t = tables_[index_.at(table.name)];
  t.directory.Drop();  // a pass gives no position
  counting_ = first;
  pass_keys_.Start(t.keys.size(), present,
                   [&](std::size_t i) { return std::span(t.keys[i].cell); });
}

TableState& Collector::TableOf(const Table& table) {
  // The Table a source gives its rows with is one object from OnTable to OnTable (source.h):
  // its name is compared only when another object comes.
  if (&table != last_given_) {
    if (last_ == nullptr || last_->table.name != table.name) {
      last_ = &tables_[index_.at(table.name)];
    }
    last_given_ = &table;
  }
  return *last_;
}

void Collector::OnRowids(const Table& table, std::span<const int> present, std::size_t width,
                         std::span<const int64_t> rowids) {
  if (!AddIntegerRun(table, present, rowids)) {
    SourceVisitor::OnRowids(table, present, width, rowids);
  }
}

void Collector::OnIntegers(const Table& table, std::span<const int> present, std::size_t width,
                           std::span<const int64_t> values, uint64_t first) {
  if (!AddIntegerRun(table, present, values)) {
    SourceVisitor::OnIntegers(table, present, width, values, first);
  }
}

bool Collector::AddIntegerRun(const Table& table, std::span<const int> present,
                              std::span<const int64_t> values) {
  TableState& t = TableOf(table);
  // Bulk only where each key the pass gives is one INTEGER column, whose value KeyOf takes as
  // it is; a key with a column the pass does not give is NULL in every row (KeyOf): no key.
  bool bulk = !t.keyless;
  for (std::size_t i = 0; bulk && i < t.keys.size(); ++i) {
    const KeyState& k = t.keys[i];
    if (!pass_keys_.Computes(i) || k.deferred || !Covers(present, k.cell)) continue;
    bulk = k.cell.size() == 1 && k.affinity[0] == Affinity::kInteger;
  }
  if (!bulk) return false;
  t.directory.Drop();  // no positions in a file
  if (counting_ && (!rereading_ || t.uncounted)) {
    t.rows += values.size();
    rows_ += values.size();
  }
  const uint64_t before = since_progress_;
  since_progress_ += values.size();
  if ((before >> 16) != (since_progress_ >> 16)) Tick();  // as OnRow's every 65,536 rows
  if (!t.selected || (t.stale && !rereading_)) return true;
  for (std::size_t i = 0; i < t.keys.size(); ++i) {
    KeyState& k = t.keys[i];
    if (!pass_keys_.Computes(i) || k.deferred || !Covers(present, k.cell)) continue;
    k.set.AddIntegers(values);
  }
  return true;
}

void Collector::OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) {
  TableState& t = TableOf(table);
  if (counting_ && (!rereading_ || t.uncounted)) {
    ++t.rows;
    ++rows_;
  }
  if ((++since_progress_ & 0xffff) == 0) Tick();
  if (!t.selected || (t.stale && !rereading_)) return;
  if (t.keyless) {
    scratch_.encoding.clear();
    for (const int cell : t.by_name) {
      const auto p = static_cast<std::size_t>(cell);
      const auto column = static_cast<std::size_t>(t.wanted[p]);
      AppendEncoding(ApplyAffinity(cells[p], t.table.columns[column].affinity, scratch_.buffer),
                     scratch_.encoding);
    }
    t.whole_rows.AddInteger(static_cast<int64_t>(HashBytes(scratch_.encoding).lo));
    return;
  }
  int64_t integer = 0;
  IntegerPair pair;
  Hash128 hash;
  RowDirectory& directory = t.directory;
  const bool keep = directory.on();
  if (keep) directory.Row(position);
  const std::size_t keys = t.keys.size();  // once: the sets' appends may alias t.keys
  for (std::size_t i = 0; i < keys; ++i) {
    KeyState& k = t.keys[i];
    const bool computed = pass_keys_.Computes(i) && !k.deferred;
    const KeyKind kind = computed ? KeyOf(k, cells, scratch_, integer, pair, hash) : KeyKind::kNull;
    if (keep && directory.Implicit(i)) {
      if (kind == KeyKind::kInteger) {  // its fingerprint is its integer's, in row order
        k.set.AddInteger(integer);
        continue;
      }
      directory.Materialize(i, k.set.integers());
    }
    AddKey(k, kind, integer, pair, hash, keep,
           [&](uint32_t fingerprint) { directory.Key(fingerprint); });
  }
}

void Collector::ResetDirectory(TableState& t) {
  // A key of one INTEGER column keeps its integers in row order as it reads them (the sets are
  // empty now): the directory need not keep their fingerprints too while they stay so.
  std::vector<bool> in_row_order;
  for (const KeyState& k : t.keys) {
    in_row_order.push_back(k.cell.size() == 1 && k.affinity[0] == Affinity::kInteger &&
                           k.set.rows() == 0);
  }
  t.directory.Reset(t.keys.size(), source_.ReadsRowsAt() && t.selected && !t.keyless, in_row_order);
}

void Collector::Tick() {
  if (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed)) throw Cancelled();
  if (options_.progress) {
    Options::Progress progress;
    progress.input = input_;
    progress.bytes = source_.bytes_read();
    progress.rows = source_.rows_read();
    progress.file_read = source_.file_read();
    progress.file_size = source_.file_size();
    options_.progress(progress);
  }
}

// The keys of t.table plus the --key extras for it; t.wanted and the cell indexes to match.
void Collector::BuildKeys(TableState& t) {
  const Table& table = t.table;
  std::vector<Key> keys = table.keys;
  for (const Options::ExtraKey& extra : options_.extra_keys) {
    if (extra.table != table.name) continue;
    Key key;
    key.kind = Key::Kind::kUnique;
    key.name = "--key";
    for (const std::string& name : extra.columns) {
      int found = -1;
      for (std::size_t i = 0; i < table.columns.size() && found < 0; ++i) {
        if (AsciiLower(table.columns[i].name) == AsciiLower(name)) found = static_cast<int>(i);
      }
      if (found < 0) {
        throw Error(Error::Code::kInvalidArgument, "--key " + extra.table + ": table " +
                                                       table.name + " has no column " + name +
                                                       "; name columns the table has");
      }
      key.columns.push_back(found);
    }
    if (!extra.collations.empty() && extra.collations.size() != key.columns.size()) {
      throw Error(Error::Code::kInvalidArgument,
                  "--key " + extra.table + ": one collation per column, or none");
    }
    for (const std::string& name : extra.collations) {
      if (!name.empty() && Collation::Find(name) == nullptr) {
        throw Error(Error::Code::kInvalidArgument,
                    "compare_as " + extra.table + ": collation '" + name +
                        "' is not one this checker evaluates; name one it does, such as "
                        "utf8mb4_general_ci or NOCASE");
      }
    }
    key.collations = extra.collations;
    bool duplicate = false;
    for (Key& k : keys) {
      if (k.columns != key.columns) continue;
      duplicate = true;
      if (!extra.collations.empty()) {
        k.collations = extra.collations;  // the game's rule, not the index's order
        k.in_index_order = false;
      }
    }
    if (!duplicate) keys.push_back(std::move(key));
  }
  t.keys.clear();
  t.wanted.clear();
  t.by_name.clear();
  t.keyless = keys.empty();
  for (const Key& key : keys) {
    for (const int c : key.columns) t.wanted.push_back(c);
  }
  if (t.keyless) {
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      t.wanted.push_back(static_cast<int>(i));
      if (!table.columns[i].generated) t.by_name.push_back(static_cast<int>(i));
    }
    std::sort(t.by_name.begin(), t.by_name.end(), [&](int x, int y) {
      return AsciiLower(table.columns[static_cast<std::size_t>(x)].name) <
             AsciiLower(table.columns[static_cast<std::size_t>(y)].name);
    });
  }
  std::sort(t.wanted.begin(), t.wanted.end());
  t.wanted.erase(std::unique(t.wanted.begin(), t.wanted.end()), t.wanted.end());
  for (const Key& key : keys) {
    KeyState k;
    k.key = key;
    for (std::size_t i = 0; i < key.columns.size(); ++i) {
      const int c = key.columns[i];
      const Column& column = table.columns.at(static_cast<std::size_t>(c));
      k.names.push_back(column.name);
      k.lower.push_back(AsciiLower(column.name));
      k.affinity.push_back(column.affinity);
      k.cell.push_back(static_cast<int>(std::lower_bound(t.wanted.begin(), t.wanted.end(), c) -
                                        t.wanted.begin()));
      const std::string& name = KeyCollation(table, key, i);
      const Collation* collation = name.empty() ? nullptr : Collation::Find(name);
      k.collation_names.push_back(name);
      k.collation.push_back(collation);
      k.prefix.push_back(i < key.prefixes.size() ? key.prefixes[i] : 0);
      if (name.empty() ||
          (column.affinity != Affinity::kText && column.affinity != Affinity::kBlob)) {
        continue;
      }
      if (std::find(k.collations.begin(), k.collations.end(), name) == k.collations.end()) {
        k.collations.push_back(name);
      }
      if (collation == nullptr &&
          std::find(k.unknown.begin(), k.unknown.end(), name) == k.unknown.end()) {
        k.unknown.push_back(name);
      }
    }
    k.decoded = key.columns.size() == 1 && k.affinity[0] == Affinity::kInteger;
    k.deferred = Deferrable(key, k);
    t.keys.push_back(std::move(k));
  }
}

void CollectBoth(Collector& a, Collector& b, const Layout& layout, int64_t cutoff_ms) {
  std::atomic<bool> cancelled{false};
  Collector* collectors[2] = {&a, &b};
  std::exception_ptr errors[2];
  auto run = [&](int i) {
    try {
      collectors[i]->Run(layout, cutoff_ms, cancelled);
    } catch (const Collector::Cancelled&) {
      // The other input failed; its error is reported.
    } catch (...) {
      errors[i] = std::current_exception();
      // Relaxed: the flag only asks the other thread to stop early; join() orders the rest.
      cancelled.store(true, std::memory_order_relaxed);
    }
  };
  std::thread thread_b(run, 1);
  run(0);
  thread_b.join();
  if (errors[0]) std::rethrow_exception(errors[0]);
  if (errors[1]) std::rethrow_exception(errors[1]);
}

InputReport DescribeInput(const std::string& path, const Source& source,
                          const Collector& collector) {
  InputReport in;
  in.path = path;
  in.format = source.format();
  in.reader = source.reader();
  in.tables = collector.tables().size();
  in.rows = collector.rows();
  in.bytes = source.bytes_read();
  for (const TableState& t : collector.tables()) {
    for (const KeyState& k : t.keys) {
      in.keys_held += k.set.rows();
      in.key_bytes += k.set.bytes_held();
    }
    in.keys_held += t.whole_rows.rows();
    in.key_bytes += t.whole_rows.bytes_held();
  }
  return in;
}

}  // namespace steadyflake::mergecheck
