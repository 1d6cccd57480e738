// Copyright 2026 The steadyflake Authors.
//
// Check(): reads both inputs in parallel into key sets, intersects them, decodes integer IDs
// into server ids, and rereads input A for the values of conflicting hashed keys.
//
// Threads: CheckSources starts one thread per input. Each thread owns its Collector (and the
// key sets in it) until it is joined; the only state the threads share is `cancelled` (set by
// the thread whose input failed, so the other stops early) and the Options (read-only, except
// the progress callback, which must be thread-safe).

#include "checker.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <exception>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "key_set.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck {

namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Thrown inside a scan when the other input has failed; never escapes CheckSources.
struct Cancelled {};

struct KeyState {
  Key key;
  std::vector<std::string> names;  // column names as declared
  std::vector<std::string> lower;  // the same, lowercase, for matching across inputs
  std::vector<int> cell;           // per key column: its index into OnRow's cells
  std::vector<Affinity> affinity;  // per key column
  bool decoded = false;            // a single column of INTEGER affinity: IDs
  KeySet set;
  uint64_t legacy = 0;            // decoded: rows whose value cannot be an ID of the layout
  std::vector<uint64_t> servers;  // decoded: distinct server ids, ascending
};

struct TableState {
  Table table;              // the last definition seen
  std::vector<int> wanted;  // columns OnRow receives, ascending
  std::vector<KeyState> keys;
  bool selected = true;  // by --table
  bool stale = false;    // keys changed after rows were read: reread the table
  uint64_t rows = 0;
};

// What one row's key is: NULL (not counted), an integer of a single-column key, or a hash.
enum class KeyKind { kNull, kInteger, kHash };

struct KeyScratch {
  std::string encoding;
  ValueBuffer buffer;
};

KeyKind KeyOf(const KeyState& key, std::span<const Cell> cells, KeyScratch& scratch,
              int64_t& integer, Hash128& hash) {
  scratch.encoding.clear();
  for (std::size_t i = 0; i < key.cell.size(); ++i) {
    const Value v = ApplyAffinity(cells[static_cast<std::size_t>(key.cell[i])], key.affinity[i],
                                  scratch.buffer);
    if (v.tag == Value::Tag::kNull) return KeyKind::kNull;  // NULLs never collide
    if (key.cell.size() == 1 && v.tag == Value::Tag::kInteger) {
      integer = v.integer;
      return KeyKind::kInteger;
    }
    AppendEncoding(v, scratch.encoding);
  }
  hash = HashBytes(scratch.encoding);
  return KeyKind::kHash;
}

std::vector<OwnedValue> KeyValues(const KeyState& key, std::span<const Cell> cells) {
  std::vector<OwnedValue> values;
  ValueBuffer buffer;
  for (std::size_t i = 0; i < key.cell.size(); ++i) {
    values.push_back(
        Own(ApplyAffinity(cells[static_cast<std::size_t>(key.cell[i])], key.affinity[i], buffer)));
  }
  return values;
}

// The columns of `now` (a table's definition as the source gives it during a reread) that hold
// what `final`'s wanted columns hold, matched by name.
std::vector<int> MapWanted(const TableState& final_state, const Table& now) {
  std::vector<int> wanted;
  for (const int column : final_state.wanted) {
    const std::string name =
        Lower(final_state.table.columns[static_cast<std::size_t>(column)].name);
    int found = -1;
    for (std::size_t i = 0; i < now.columns.size() && found < 0; ++i) {
      if (Lower(now.columns[i].name) == name) found = static_cast<int>(i);
    }
    wanted.push_back(found >= 0 ? found : column);
  }
  return wanted;
}

// The legacy count and distinct server ids of a decoded key. REQUIRES: ids sorted.
void DecodeIds(const std::vector<int64_t>& ids, const Layout& layout, int64_t cutoff_ms,
               uint64_t& legacy, std::vector<uint64_t>& servers) {
  const int q = layout.sequence_bits();
  const int s = layout.server_bits();
  const int shift = q + s;
  const int64_t max_id = static_cast<int64_t>((uint64_t{1} << (layout.time_bits() + shift)) - 1);
  // The last tick whose start is not after the cutoff; -1: every ID is after it.
  const int64_t last_tick =
      cutoff_ms < layout.epoch_ms()
          ? -1
          : static_cast<int64_t>(std::min<uint64_t>(layout.TickAt(cutoff_ms), layout.max_tick()));
  const uint64_t mask = layout.max_server_id();
  const bool bitmap = s <= 24;
  std::vector<uint64_t> bits(bitmap ? ((uint64_t{1} << s) + 63) / 64 : 0);
  std::vector<uint64_t> list;
  for (const int64_t id : ids) {
    if (id < 0 || id > max_id || (id >> shift) > last_tick) {
      ++legacy;
      continue;
    }
    const uint64_t server = (static_cast<uint64_t>(id) >> q) & mask;
    if (bitmap) {
      bits[server >> 6] |= uint64_t{1} << (server & 63);
    } else {
      list.push_back(server);
    }
  }
  servers.clear();
  if (bitmap) {
    for (std::size_t w = 0; w < bits.size(); ++w) {
      for (uint64_t word = bits[w]; word != 0; word &= word - 1) {
        servers.push_back(w * 64 + static_cast<uint64_t>(__builtin_ctzll(word)));
      }
    }
  } else {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    servers = std::move(list);
  }
}

// Reads one input into key sets. Lives on its input's thread until joined.
class Collector : public SourceVisitor {
 public:
  Collector(const Options& options, int input, Source& source, std::atomic<bool>& cancelled)
      : options_(options), input_(input), source_(source), cancelled_(cancelled) {}

  // Reads the input, rereads stale tables, then sorts the sets and decodes IDs.
  void Run(const Layout& layout, int64_t cutoff_ms) {
    source_.Scan(*this, options_.tables);
    std::vector<std::string> stale;
    for (TableState& t : tables_) {
      if (!t.stale) continue;
      stale.push_back(t.table.name);
      for (KeyState& k : t.keys) {
        k.set.Clear();
        k.legacy = 0;
      }
    }
    if (!stale.empty()) {
      rereading_ = true;
      source_.Scan(*this, stale);
      rereading_ = false;
    }
    for (TableState& t : tables_) {
      for (KeyState& k : t.keys) {
        k.set.Sort();
        if (k.decoded) DecodeIds(k.set.integers(), layout, cutoff_ms, k.legacy, k.servers);
        k.set.Dedupe();
      }
    }
  }

  std::vector<int> OnTable(const Table& table) override {
    auto [it, inserted] = index_.try_emplace(table.name, tables_.size());
    if (inserted) tables_.emplace_back();
    TableState& t = tables_[it->second];
    last_ = nullptr;
    if (rereading_) {
      // Keep the final definition from the first read.
      return t.stale ? MapWanted(t, table) : std::vector<int>();
    }
    t.selected = options_.tables.empty() ||
                 std::find(options_.tables.begin(), options_.tables.end(), table.name) !=
                     options_.tables.end();
    const bool had_rows = t.rows > 0;
    std::vector<std::vector<std::string>> before;
    for (const KeyState& k : t.keys) before.push_back(k.lower);
    t.table = table;
    BuildKeys(t);
    std::vector<std::vector<std::string>> after;
    for (const KeyState& k : t.keys) after.push_back(k.lower);
    if (had_rows && before != after) t.stale = true;
    if (!t.selected || t.stale) return {};
    return t.wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (last_ == nullptr || last_->table.name != table.name) {
      last_ = &tables_[index_.at(table.name)];
    }
    TableState& t = *last_;
    if (!rereading_) {
      ++t.rows;
      ++rows_;
    }
    if ((++since_progress_ & 0xffff) == 0) Tick();
    if (!t.selected || (t.stale && !rereading_)) return;
    int64_t integer = 0;
    Hash128 hash;
    for (KeyState& k : t.keys) {
      switch (KeyOf(k, cells, scratch_, integer, hash)) {
        case KeyKind::kNull:
          break;
        case KeyKind::kInteger:
          k.set.AddInteger(integer);
          break;
        case KeyKind::kHash:
          if (k.decoded) ++k.legacy;  // text, a real or a big integer: no ID
          k.set.AddHash(hash);
          break;
      }
    }
  }

  std::vector<TableState>& tables() { return tables_; }
  const TableState* Find(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tables_[it->second];
  }
  uint64_t rows() const { return rows_; }

 private:
  void Tick() {
    if (cancelled_.load(std::memory_order_relaxed)) throw Cancelled();
    if (options_.progress) options_.progress(input_, source_.bytes_read(), source_.rows_read());
  }

  // The keys of t.table plus the --key extras for it; t.wanted and the cell indexes to match.
  void BuildKeys(TableState& t) {
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
          if (Lower(table.columns[i].name) == Lower(name)) found = static_cast<int>(i);
        }
        if (found < 0) {
          throw Error(Error::Code::kInvalidArgument, "--key " + extra.table + ": table " +
                                                         table.name + " has no column " + name +
                                                         "; name columns the table has");
        }
        key.columns.push_back(found);
      }
      bool duplicate = false;
      for (const Key& k : keys) duplicate = duplicate || k.columns == key.columns;
      if (!duplicate) keys.push_back(std::move(key));
    }
    t.keys.clear();
    t.wanted.clear();
    for (const Key& key : keys) {
      for (const int c : key.columns) t.wanted.push_back(c);
    }
    std::sort(t.wanted.begin(), t.wanted.end());
    t.wanted.erase(std::unique(t.wanted.begin(), t.wanted.end()), t.wanted.end());
    for (const Key& key : keys) {
      KeyState k;
      k.key = key;
      for (const int c : key.columns) {
        const Column& column = table.columns.at(static_cast<std::size_t>(c));
        k.names.push_back(column.name);
        k.lower.push_back(Lower(column.name));
        k.affinity.push_back(column.affinity);
        k.cell.push_back(static_cast<int>(std::lower_bound(t.wanted.begin(), t.wanted.end(), c) -
                                          t.wanted.begin()));
      }
      k.decoded = key.columns.size() == 1 && k.affinity[0] == Affinity::kInteger;
      t.keys.push_back(std::move(k));
    }
  }

  const Options& options_;
  const int input_;
  Source& source_;
  std::atomic<bool>& cancelled_;
  std::vector<TableState> tables_;  // in the order the source defined them
  std::unordered_map<std::string, std::size_t> index_;
  TableState* last_ = nullptr;  // the table of the previous row
  bool rereading_ = false;
  uint64_t rows_ = 0;
  uint64_t since_progress_ = 0;
  KeyScratch scratch_;
};

// Rereads input A for the values of keys whose hashes are in both inputs.
class Recoverer : public SourceVisitor {
 public:
  struct Target {
    const KeyState* key;
    std::vector<Hash128> hashes;  // sorted
    uint64_t limit;               // 0: all
    std::vector<std::vector<OwnedValue>> found;
  };

  Recoverer(Collector& a, std::map<std::string, std::vector<Target>>& targets)
      : a_(a), targets_(targets) {}

  std::vector<int> OnTable(const Table& table) override {
    const TableState* t = a_.Find(table.name);
    if (t == nullptr || targets_.count(table.name) == 0) return {};
    return MapWanted(*t, table);
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    const auto it = targets_.find(table.name);
    if (it == targets_.end()) return;
    int64_t integer = 0;
    Hash128 hash;
    for (Target& target : it->second) {
      if (KeyOf(*target.key, cells, scratch_, integer, hash) != KeyKind::kHash) continue;
      if (!std::binary_search(target.hashes.begin(), target.hashes.end(), hash)) continue;
      target.found.push_back(KeyValues(*target.key, cells));
      if (target.limit != 0 && target.found.size() > 2 * target.limit + 1024) Trim(target);
    }
  }

  // Keeps the first `limit` distinct values, ascending.
  static void Trim(Target& target) {
    std::sort(target.found.begin(), target.found.end(), TupleLess);
    target.found.erase(std::unique(target.found.begin(), target.found.end(), TupleEqual),
                       target.found.end());
    if (target.limit != 0 && target.found.size() > target.limit) target.found.resize(target.limit);
  }

 private:
  Collector& a_;
  std::map<std::string, std::vector<Target>>& targets_;
  KeyScratch scratch_;
};

// `value` as the report shows it.
ReportValue ToReportValue(const OwnedValue& value) {
  ReportValue r;
  switch (value.tag) {
    case Value::Tag::kNull:
      r.type = ReportValue::Type::kNull;
      break;
    case Value::Tag::kInteger:
      r.type = ReportValue::Type::kInteger;
      r.text = std::to_string(value.integer);
      break;
    case Value::Tag::kBigInteger:
      r.type = ReportValue::Type::kInteger;
      r.text = value.bytes;
      break;
    case Value::Tag::kReal: {
      char buffer[40];
      const auto res = std::to_chars(buffer, buffer + sizeof buffer, value.real);
      r.type = ReportValue::Type::kReal;
      r.text.assign(buffer, res.ptr);
      break;
    }
    case Value::Tag::kText:
      r.type = ReportValue::Type::kText;
      r.text = value.bytes;
      break;
    case Value::Tag::kBlob:
      r.type = ReportValue::Type::kBlob;
      r.text = value.bytes;
      break;
  }
  return r;
}

KeyReport::Kind KindOf(Key::Kind kind) {
  return kind == Key::Kind::kPrimary ? KeyReport::Kind::kPrimary : KeyReport::Kind::kUnique;
}

void Union(std::vector<uint64_t>& into, const std::vector<uint64_t>& more) {
  std::vector<uint64_t> merged;
  std::set_union(into.begin(), into.end(), more.begin(), more.end(), std::back_inserter(merged));
  into = std::move(merged);
}

bool Selected(const Options& options, const std::string& table) {
  return options.tables.empty() ||
         std::find(options.tables.begin(), options.tables.end(), table) != options.tables.end();
}

}  // namespace

Report CheckSources(const std::string& path_a, Source& a, const std::string& path_b, Source& b,
                    const Options& options, int64_t cutoff_ms) {
  std::atomic<bool> cancelled{false};
  Collector collectors[2] = {Collector(options, 0, a, cancelled),
                             Collector(options, 1, b, cancelled)};
  std::exception_ptr errors[2];
  {
    auto run = [&](int i) {
      try {
        collectors[i].Run(options.layout, cutoff_ms);
      } catch (const Cancelled&) {
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
  }
  if (errors[0]) std::rethrow_exception(errors[0]);
  if (errors[1]) std::rethrow_exception(errors[1]);
  Collector& ca = collectors[0];
  Collector& cb = collectors[1];

  Report report;
  Source* sources[2] = {&a, &b};
  const std::string* paths[2] = {&path_a, &path_b};
  for (int i = 0; i < 2; ++i) {
    InputReport& in = report.inputs[i];
    in.path = *paths[i];
    in.format = sources[i]->format();
    in.tables = collectors[i].tables().size();
    in.rows = collectors[i].rows();
    in.bytes = sources[i]->bytes_read();
    for (const TableState& t : collectors[i].tables()) {
      for (const KeyState& k : t.keys) {
        in.keys_held += k.set.rows();
        in.key_bytes += k.set.bytes_held();
      }
    }
  }

  // --table and --key must name tables the inputs have.
  for (const std::string& name : options.tables) {
    if (ca.Find(name) == nullptr && cb.Find(name) == nullptr) {
      throw Error(Error::Code::kInvalidArgument, "--table " + name +
                                                     ": neither input has a table " + name +
                                                     "; check the name (it is case-sensitive)");
    }
  }
  for (const Options::ExtraKey& extra : options.extra_keys) {
    if (ca.Find(extra.table) == nullptr && cb.Find(extra.table) == nullptr) {
      throw Error(Error::Code::kInvalidArgument, "--key " + extra.table +
                                                     ": neither input has a table " + extra.table +
                                                     "; check the name (it is case-sensitive)");
    }
  }

  // Tables by name, keys primary first then by columns: the same report whatever order the
  // inputs define them in.
  std::vector<std::string> names;
  for (const TableState& t : ca.tables()) names.push_back(t.table.name);
  for (const TableState& t : cb.tables()) {
    if (ca.Find(t.table.name) == nullptr) names.push_back(t.table.name);
  }
  std::sort(names.begin(), names.end());

  struct Pending {
    std::size_t report_index;
    std::vector<int64_t> integers;  // the first common integers
  };
  std::map<std::string, std::vector<Recoverer::Target>> targets;
  std::vector<std::pair<std::size_t, std::size_t>> target_of_report;  // (report, target index)
  std::vector<Pending> pending;

  for (const std::string& name : names) {
    if (!Selected(options, name)) continue;
    const TableState* ta = ca.Find(name);
    const TableState* tb = cb.Find(name);
    if (ta == nullptr || tb == nullptr) {
      report.drift.push_back(Drift{name, {}, ta != nullptr ? "a" : "b"});
      continue;
    }
    std::vector<const KeyState*> keys_a;
    for (const KeyState& k : ta->keys) keys_a.push_back(&k);
    std::sort(keys_a.begin(), keys_a.end(), [](const KeyState* x, const KeyState* y) {
      const bool px = x->key.kind == Key::Kind::kPrimary;
      const bool py = y->key.kind == Key::Kind::kPrimary;
      if (px != py) return px;
      return x->lower < y->lower;
    });
    std::vector<bool> matched_b(tb->keys.size(), false);
    for (const KeyState* ka : keys_a) {
      const KeyState* kb = nullptr;
      for (std::size_t j = 0; j < tb->keys.size() && kb == nullptr; ++j) {
        if (!matched_b[j] && tb->keys[j].lower == ka->lower) {
          kb = &tb->keys[j];
          matched_b[j] = true;
        }
      }
      if (kb == nullptr) {
        report.drift.push_back(Drift{name, ka->names, "a"});
        continue;
      }
      KeyReport kr;
      kr.table = name;
      kr.columns = ka->names;
      kr.kind = KindOf(ka->key.kind);
      if (kb->key.kind == Key::Kind::kPrimary) kr.kind = KeyReport::Kind::kPrimary;
      kr.rows_a = ka->set.rows();
      kr.rows_b = kb->set.rows();
      Pending p;
      p.report_index = report.keys.size();
      kr.overlap = Intersect(ka->set.integers(), kb->set.integers(), options.limit, p.integers);
      std::vector<Hash128> common;
      kr.overlap += Intersect(ka->set.hashes(), kb->set.hashes(), 0, common);
      if (!common.empty()) {
        auto& list = targets[name];
        target_of_report.emplace_back(report.keys.size(), list.size());
        list.push_back(Recoverer::Target{ka, std::move(common), options.limit, {}});
      }
      kr.decoded = ka->decoded && kb->decoded;
      if (kr.decoded) {
        kr.legacy_a = ka->legacy;
        kr.legacy_b = kb->legacy;
        Union(report.servers_a, ka->servers);
        Union(report.servers_b, kb->servers);
      }
      pending.push_back(std::move(p));
      report.keys.push_back(std::move(kr));
    }
    for (std::size_t j = 0; j < tb->keys.size(); ++j) {
      if (!matched_b[j]) report.drift.push_back(Drift{name, tb->keys[j].names, "b"});
    }
  }

  // The values of conflicting hashed keys: a second read of input A, only those tables.
  if (!targets.empty()) {
    std::vector<std::string> only;
    for (const auto& [name, list] : targets) only.push_back(name);
    Recoverer recoverer(ca, targets);
    a.Scan(recoverer, only);
  }
  for (Pending& p : pending) {
    KeyReport& kr = report.keys[p.report_index];
    std::vector<std::vector<OwnedValue>> values;
    for (const int64_t v : p.integers) {
      OwnedValue o;
      o.tag = Value::Tag::kInteger;
      o.integer = v;
      values.push_back({std::move(o)});
    }
    for (const auto& [report_index, target_index] : target_of_report) {
      if (report_index != p.report_index) continue;
      Recoverer::Target& target = targets[kr.table][target_index];
      for (auto& tuple : target.found) values.push_back(std::move(tuple));
    }
    std::sort(values.begin(), values.end(), TupleLess);
    values.erase(std::unique(values.begin(), values.end(), TupleEqual), values.end());
    if (options.limit != 0 && values.size() > options.limit) values.resize(options.limit);
    for (const auto& tuple : values) {
      std::vector<ReportValue> row;
      for (const OwnedValue& v : tuple) row.push_back(ToReportValue(v));
      kr.conflicts.push_back(std::move(row));
    }
  }

  std::set_intersection(report.servers_a.begin(), report.servers_a.end(), report.servers_b.begin(),
                        report.servers_b.end(), std::back_inserter(report.servers_shared));
  std::sort(report.drift.begin(), report.drift.end(), [](const Drift& x, const Drift& y) {
    return std::tie(x.table, x.columns, x.only_in) < std::tie(y.table, y.columns, y.only_in);
  });
  uint64_t overlap = 0;
  for (const KeyReport& k : report.keys) overlap += k.overlap;
  report.verdict = overlap > 0                      ? Report::Verdict::kConflict
                   : !report.servers_shared.empty() ? Report::Verdict::kRisk
                                                    : Report::Verdict::kSafe;
  return report;
}

Report Check(const std::string& path_a, const std::string& path_b, const Options& options) {
  const std::unique_ptr<Source> a = OpenSource(path_a);
  const std::unique_ptr<Source> b = OpenSource(path_b);
  constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;
  const int64_t now_ms =
      options.now_ms.value_or(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  const int64_t cutoff_ms = now_ms + kDayMs;
  return CheckSources(path_a, *a, path_b, *b, options, cutoff_ms);
}

}  // namespace steadyflake::mergecheck
