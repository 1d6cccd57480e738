// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// MakePlan (plan.h): the check with every conflict listed, then one decision per conflicting
// value, in phases: (1) each key's conflicts split into differing and identical rows; (2) an
// identical row that refers to a remapped value moves to the differing ones, until nothing
// changes (one scan of B's tables concerned per round); (3) integer keys get their new values;
// (4) text keys their new names; (5) every other key follows a remap or is unresolved.
// The check's collections give what the report does not say: each integer key's largest value
// in A and B (for an offset), B's server ids by count (the rename's {server}), the columns'
// declared types (widths and lengths) and B's foreign keys. Renames need every value of their
// column in both inputs under A's collation, read by one more scan of each input.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "checker.h"
#include "collation.h"
#include "collect.h"
#include "key_set.h"
#include "source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/plan.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

std::string IsoNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// What the plan needs of one single-column key beyond its KeyReport.
struct KeyFacts {
  int64_t max_a = std::numeric_limits<int64_t>::min();  // largest integer value in A
  int64_t max_b = std::numeric_limits<int64_t>::min();
  std::string type_a;  // the column's declared type in A
  std::string type_b;
};

const KeyState* FindKey(const TableState* t, const std::string& lower_column) {
  if (t == nullptr) return nullptr;
  for (const KeyState& k : t->keys) {
    if (k.lower.size() == 1 && k.lower[0] == lower_column) return &k;
  }
  return nullptr;
}

std::string DeclaredType(const TableState* t, const std::string& lower_column) {
  const int c = t == nullptr ? -1 : FindColumn(t->table, lower_column);
  return c < 0 ? std::string() : t->table.columns[static_cast<std::size_t>(c)].declared_type;
}

// The largest value a MySQL integer column of `declared` type holds (SQLite's hold int64).
int64_t IntegerTypeMax(const std::string& declared, bool mysql) {
  if (!mysql) return std::numeric_limits<int64_t>::max();
  const std::string t = AsciiLower(declared);
  const bool is_unsigned = t.find("unsigned") != std::string::npos;
  int bits = 32;
  if (t.find("bigint") != std::string::npos) return std::numeric_limits<int64_t>::max();
  if (t.find("mediumint") != std::string::npos) {
    bits = 24;
  } else if (t.find("smallint") != std::string::npos) {
    bits = 16;
  } else if (t.find("tinyint") != std::string::npos) {
    bits = 8;
  }
  return is_unsigned ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
}

// The characters a text column of `declared` type holds (`VARCHAR(12)`, `char(8)`), 0: no
// declared length.
int DeclaredLength(const std::string& declared) {
  const std::string t = AsciiLower(declared);
  if (t.find("char") == std::string::npos) return 0;
  const std::size_t open = t.find('(');
  if (open == std::string::npos) return 0;
  int n = 0;
  for (std::size_t i = open + 1; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    n = n * 10 + (t[i] - '0');
    if (n > 1000000) return 0;
  }
  return n;
}

// Characters (UTF-8 code points) of `text`.
std::size_t Characters(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// The first `n` characters of `text`: what a MySQL prefix key holds (KeyPrefix).
std::string_view FirstCharacters(std::string_view text, std::size_t n) {
  Value v;
  v.tag = Value::Tag::kText;
  v.bytes = text;
  return KeyPrefix(v, static_cast<int>(n));
}

// The equality keys of every value of some text columns, under some collations each, hashed:
// what a rename must not equal.
class TakenValues : public SourceVisitor {
 public:
  struct Column {
    std::string table;
    std::string lower_column;
    std::vector<const Collation*> collations;  // nullptr: the bytes
    std::unordered_set<uint64_t> taken = {};
  };
  explicit TakenValues(std::vector<Column>& columns) : columns_(columns) {}

  std::vector<int> OnTable(const Table& table) override {
    active_.clear();
    std::vector<int> wanted;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].table != table.name) continue;
      const int c = FindColumn(table, columns_[i].lower_column);
      if (c < 0) continue;
      active_.emplace_back(i, static_cast<int>(wanted.size()));
      wanted.push_back(c);
    }
    return wanted;
  }

  void OnRow(const Table& /*table*/, std::span<const Cell> cells, uint64_t /*position*/) override {
    for (const auto& [column, cell] : active_) {
      const Value v =
          ApplyAffinity(cells[static_cast<std::size_t>(cell)], Affinity::kText, buffer_);
      if (v.tag != Value::Tag::kText && v.tag != Value::Tag::kBlob) continue;
      Add(columns_[column], v.bytes);
    }
  }

  // Adds the keys of `text` to `column`.
  static void Add(Column& column, std::string_view text) {
    for (std::size_t i = 0; i < column.collations.size(); ++i) {
      column.taken.insert(KeyHash(column, i, text));
    }
  }
  // True when none of the keys of `text` is taken.
  static bool Free(const Column& column, std::string_view text) {
    for (std::size_t i = 0; i < column.collations.size(); ++i) {
      if (column.taken.count(KeyHash(column, i, text)) != 0) return false;
    }
    return true;
  }

 private:
  // The hash of the equality key of `text` under the i-th collation of `column` (0 bytes).
  static uint64_t KeyHash(const Column& column, std::size_t i, std::string_view text) {
    std::string key(1, static_cast<char>(i));
    if (column.collations[i] == nullptr) {
      key.append(text);
    } else {
      column.collations[i]->AppendKey(text, key);
    }
    return HashBytes(key).lo;
  }

  std::vector<Column>& columns_;
  std::vector<std::pair<std::size_t, int>> active_;  // (column, cell)
  ValueBuffer buffer_;
};

bool Contains(const std::vector<uint64_t>& sorted, uint64_t value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

std::string KeyName(const KeyReport& k) {
  std::string out = k.table + " (";
  for (std::size_t i = 0; i < k.columns.size(); ++i) out += (i ? ", " : "") + k.columns[i];
  return out + ")";
}

// The template's parts around {name}, with {server} filled in.
struct Template {
  std::string prefix;
  std::string suffix;
};

Template SplitTemplate(const std::string& text, const std::optional<uint64_t>& server) {
  std::string filled;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 8, "{server}") == 0) {
      filled += std::to_string(*server);
      i += 8;
    } else {
      filled += text[i++];
    }
  }
  const std::size_t at = filled.find("{name}");
  return {filled.substr(0, at), filled.substr(at + 6)};
}

// The conflicts of one overlapping key, by what the plan does with them.
struct KeyWork {
  enum Kind { kRemap, kRename, kOther };
  Kind kind = kOther;  // a single-column integer key that refers to none, a text key, the rest
  std::vector<std::size_t> differing;  // indexes into KeyReport::conflicts
  std::vector<std::size_t> identical;  // rows identical in A and B: dropped from B
};

// `v` as an int64, or nullopt (not an integer, or above INT64_MAX).
std::optional<int64_t> Int64Of(const ReportValue& v) {
  if (v.type != ReportValue::Type::kInteger) return std::nullopt;
  int64_t out = 0;
  const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), out);
  if (ec != std::errc() || ptr != v.text.data() + v.text.size()) return std::nullopt;
  return out;
}

using Refers = std::function<std::vector<std::size_t>(const std::string&, const std::string&)>;
using Remapped = std::map<std::size_t, std::vector<int64_t>>;

// The remapped key ("player.id") one of whose values the conflict `row` of `k` holds in a
// column that refers to it, or "".
std::string RemappedVia(const Report& report, const KeyReport& k,
                        const std::vector<ReportValue>& row, const Remapped& remapped,
                        const Refers& refers) {
  for (std::size_t j = 0; j < k.columns.size(); ++j) {
    const std::optional<int64_t> value = Int64Of(row[j]);
    if (!value) continue;
    for (const std::size_t target : refers(k.table, k.columns[j])) {
      const auto it = remapped.find(target);
      if (it != remapped.end() &&
          std::binary_search(it->second.begin(), it->second.end(), *value)) {
        return report.keys[target].table + "." + report.keys[target].columns[0];
      }
    }
  }
  return "";
}

// A value as text that tells values apart, the same for a ReportValue and for the cell it came
// from: the type, then the digits or bytes.
std::string Encode(const ReportValue& v) {
  static constexpr char kTag[] = {'n', 'i', 'r', 't', 'b'};
  return kTag[static_cast<int>(v.type)] + v.text;
}
std::string Encode(const Value& v) {
  switch (v.tag) {
    case Value::Tag::kNull:
      return "n";
    case Value::Tag::kInteger:
      return "i" + std::to_string(v.integer);
    case Value::Tag::kBigInteger:
      return "i" + std::string(v.bytes);
    case Value::Tag::kReal: {
      std::array<char, 32> text;
      return "r" + std::string(RealLiteral(v.real, text));
    }
    case Value::Tag::kText:
      return "t" + std::string(v.bytes);
    case Value::Tag::kBlob:
      return "b" + std::string(v.bytes);
  }
  return "n";
}

struct UnsafeDrop {
  std::size_t key = 0;       // index into Report::keys
  std::size_t conflict = 0;  // index into its conflicts
};

// Reads the tables of B that have identical rows to drop and columns that refer to remapped
// keys, and returns the drops whose row holds a remapped value in such a column.
class DropCheck : public SourceVisitor {
 public:
  struct Probe {
    std::size_t key = 0;
    std::vector<std::string> lower_columns;
    std::vector<Affinity> affinity = {};
    std::vector<int> cells = {};
    std::map<std::string, std::size_t> identical = {};  // encoded key -> conflict
  };
  struct Ref {
    std::string lower_column;
    const std::vector<int64_t>* values = nullptr;  // remapped, ascending
    int cell = -1;
  };
  struct TablePlan {
    std::vector<Probe> probes;
    std::vector<Ref> refs;
  };
  explicit DropCheck(std::map<std::string, TablePlan>& tables) : tables_(tables) {}

  std::vector<int> OnTable(const Table& table) override {
    current_ = nullptr;
    const auto it = tables_.find(table.name);
    if (it == tables_.end()) return {};
    current_ = &it->second;
    std::vector<int> wanted;
    auto cell_of = [&](const std::string& lower, Affinity* affinity) {
      const int c = FindColumn(table, lower);
      if (c < 0) return -1;
      if (affinity != nullptr) *affinity = table.columns[static_cast<std::size_t>(c)].affinity;
      wanted.push_back(c);
      return static_cast<int>(wanted.size() - 1);
    };
    for (Probe& p : current_->probes) {
      p.cells.clear();
      p.affinity.assign(p.lower_columns.size(), Affinity::kBlob);
      for (std::size_t j = 0; j < p.lower_columns.size(); ++j) {
        p.cells.push_back(cell_of(p.lower_columns[j], &p.affinity[j]));
      }
    }
    for (Ref& r : current_->refs) r.cell = cell_of(r.lower_column, nullptr);
    return wanted;
  }

  void OnRow(const Table& /*table*/, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (current_ == nullptr) return;
    bool refers = false;
    for (const Ref& r : current_->refs) {
      if (r.cell < 0) continue;
      const Value v =
          ApplyAffinity(cells[static_cast<std::size_t>(r.cell)], Affinity::kInteger, buffer_);
      refers = refers || (v.tag == Value::Tag::kInteger &&
                          std::binary_search(r.values->begin(), r.values->end(), v.integer));
    }
    if (!refers) return;
    for (const Probe& p : current_->probes) {
      std::string key;
      bool complete = true;
      for (std::size_t j = 0; j < p.cells.size() && complete; ++j) {
        complete = p.cells[j] >= 0;
        if (!complete) break;
        const Value v =
            ApplyAffinity(cells[static_cast<std::size_t>(p.cells[j])], p.affinity[j], buffer_);
        key += Encode(v);
        key += '\0';
      }
      if (!complete) continue;
      const auto it = p.identical.find(key);
      if (it != p.identical.end()) unsafe.push_back({p.key, it->second});
    }
  }

  std::vector<UnsafeDrop> unsafe;

 private:
  std::map<std::string, TablePlan>& tables_;
  TablePlan* current_ = nullptr;
  ValueBuffer buffer_;
};

std::vector<UnsafeDrop> FindUnsafeDrops(Source& b, const Report& report,
                                        const std::map<std::size_t, KeyWork>& work,
                                        const Remapped& remapped) {
  std::map<std::string, DropCheck::TablePlan> tables;
  for (const auto& [i, w] : work) {
    if (w.identical.empty()) continue;
    const KeyReport& k = report.keys[i];
    DropCheck::Probe probe;
    probe.key = i;
    for (const std::string& c : k.columns) probe.lower_columns.push_back(AsciiLower(c));
    for (const std::size_t c : w.identical) {
      std::string key;
      for (const ReportValue& v : k.conflicts[c]) key += Encode(v) + '\0';
      probe.identical.emplace(std::move(key), c);
    }
    tables[k.table].probes.push_back(std::move(probe));
  }
  // The columns of those tables that refer to a remapped key.
  for (const auto& [i, values] : remapped) {
    for (const ReferenceReport& r : report.keys[i].references) {
      const auto t = tables.find(r.table);
      if (t == tables.end() || !r.also.empty()) continue;
      t->second.refs.push_back({AsciiLower(r.column), &values});
    }
  }
  std::vector<std::string> only;
  for (auto it = tables.begin(); it != tables.end();) {
    if (it->second.refs.empty()) {
      it = tables.erase(it);
    } else {
      only.push_back(it->first);
      ++it;
    }
  }
  if (tables.empty()) return {};
  DropCheck check(tables);
  b.Scan(check, only);
  return std::move(check.unsafe);
}

}  // namespace

Plan MakePlan(const std::string& path_a, const std::string& path_b, const PlanOptions& options) {
  if (options.rename.find("{name}") == std::string::npos) {
    throw Error(Error::Code::kInvalidArgument,
                "--rename '" + options.rename +
                    "' has no {name}; the template must keep the name, e.g. '{name}.s{server}'");
  }
  RefuseSameFile(path_a, path_b);
  const std::unique_ptr<Source> a = OpenSource(path_a);
  const std::unique_ptr<Source> b = OpenSource(path_b);
  Options check = options.check;
  check.limit = 0;
  const int64_t cutoff_ms = CutoffOf(check);

  std::map<std::size_t, KeyFacts> facts;   // by index into Report::keys
  std::map<uint64_t, uint64_t> b_servers;  // B's server ids by count of IDs
  // B's single-column FOREIGN KEYs: (table, column) -> (referenced table, column), lowercase
  // names; an empty column is the referenced table's primary key.
  std::vector<std::pair<std::pair<std::string, std::string>, std::pair<std::string, std::string>>>
      b_foreign_keys;
  Plan plan;
  plan.check = CheckSources(
      path_a, *a, path_b, *b, check, cutoff_ms,
      [&](const Collector& ca, const Collector& cb, Report& report) {
        const IdBounds bounds = IdBoundsOf(check.layout, cutoff_ms);
        for (const TableState& t : cb.tables()) {
          for (const ForeignKey& fk : t.table.foreign_keys) {
            if (fk.columns.size() != 1) continue;
            b_foreign_keys.push_back(
                {{t.table.name, t.table.columns[static_cast<std::size_t>(fk.columns[0])].name},
                 {AsciiLower(fk.ref_table),
                  fk.ref_columns.empty() ? std::string() : AsciiLower(fk.ref_columns[0])}});
          }
        }
        for (std::size_t i = 0; i < report.keys.size(); ++i) {
          const KeyReport& k = report.keys[i];
          if (k.columns.size() != 1) continue;
          const std::string lower = AsciiLower(k.columns[0]);
          const TableState* ta = ca.Find(k.table);
          const TableState* tb = cb.Find(k.table);
          KeyFacts& f = facts[i];
          f.type_a = DeclaredType(ta, lower);
          f.type_b = DeclaredType(tb, lower);
          const KeyState* ka = FindKey(ta, lower);
          const KeyState* kb = FindKey(tb, lower);
          if (ka != nullptr && !ka->set.integers().empty()) f.max_a = ka->set.integers().back();
          if (kb != nullptr && !kb->set.integers().empty()) f.max_b = kb->set.integers().back();
          if (k.id_use == KeyReport::IdUse::kAnalysed && kb != nullptr) {
            const int q = check.layout.sequence_bits();
            for (const int64_t id : kb->set.integers()) {
              if (!bounds.Holds(id)) continue;
              ++b_servers[(static_cast<uint64_t>(id) >> q) & check.layout.max_server_id()];
            }
          }
        }
      });
  Report& report = plan.check;
  plan.server_id = options.server_id;
  plan.made_at = options.made_at.empty() ? IsoNow() : options.made_at;
  plan.dialect =
      report.inputs[1].format.rfind("mysql", 0) == 0 ? std::string("mysql") : std::string("sqlite");
  const bool mysql = plan.dialect == "mysql";

  for (const auto& [servers, where] :
       {std::pair{&report.servers_a, "A"}, {&report.servers_b, "B"}}) {
    if (Contains(*servers, options.server_id)) {
      const uint64_t highest = std::max(report.servers_a.empty() ? 0 : report.servers_a.back(),
                                        report.servers_b.empty() ? 0 : report.servers_b.back());
      throw Error(Error::Code::kInvalidArgument,
                  "--server-id " + std::to_string(options.server_id) + " issued IDs in shard " +
                      where + ", so fresh IDs under it could repeat theirs; pass a server id " +
                      "neither shard holds, e.g. " + std::to_string(highest + 1));
    }
  }
  uint64_t best = 0;
  for (const auto& [server, count] : b_servers) {
    if (count > best) {
      best = count;
      plan.b_server = server;
    }
  }

  // The referring columns of every integer key (by lowercase table and column), and which keys
  // are themselves such a column: those follow the key they refer to, never remapped alone.
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> referring;
  for (std::size_t i = 0; i < report.keys.size(); ++i) {
    for (const ReferenceReport& r : report.keys[i].references) {
      if (!r.also.empty()) continue;
      referring[{AsciiLower(r.table), AsciiLower(r.column)}].push_back(i);
    }
  }
  const Refers refers = [&](const std::string& table, const std::string& column) {
    const auto it = referring.find({AsciiLower(table), AsciiLower(column)});
    return it == referring.end() ? std::vector<std::size_t>() : it->second;
  };

  // 1. Which conflicts of each key differ and which are identical rows (drop candidates), and
  // what kind of key it is.
  std::map<std::size_t, KeyWork> work;
  for (std::size_t i = 0; i < report.keys.size(); ++i) {
    const KeyReport& k = report.keys[i];
    if (k.overlap == 0) continue;
    KeyWork& w = work[i];
    if (k.columns.size() == 1 && k.decoded && refers(k.table, k.columns[0]).empty()) {
      w.kind = KeyWork::kRemap;
    } else if (k.columns.size() == 1 && !k.decoded && !k.conflicts.empty() &&
               k.conflicts[0][0].type == ReportValue::Type::kText) {
      w.kind = KeyWork::kRename;
    }
    for (std::size_t c = 0; c < k.conflicts.size(); ++c) {
      const bool same = c < k.conflicts_identical.size() && k.conflicts_identical[c];
      (same ? w.identical : w.differing).push_back(c);
    }
  }
  // The old values of each remapped key, ascending (integers a remap can give).
  auto remapped_values = [&]() {
    std::map<std::size_t, std::vector<int64_t>> out;
    for (const auto& [i, w] : work) {
      if (w.kind != KeyWork::kRemap) continue;
      std::vector<int64_t>& olds = out[i];
      for (const std::size_t c : w.differing) {
        if (const std::optional<int64_t> v = Int64Of(report.keys[i].conflicts[c][0])) {
          olds.push_back(*v);
        }
      }
      std::sort(olds.begin(), olds.end());
    }
    return out;
  };
  std::map<std::size_t, std::vector<int64_t>> remapped = remapped_values();

  // 2. An identical row that refers to a remapped value is not the same row as A's: its
  // reference points at another row of B than A's does at A's. It differs after all; then the
  // rows that refer to it may too, so until nothing changes.
  for (int round = 0; round < 8; ++round) {
    const std::vector<UnsafeDrop> unsafe = FindUnsafeDrops(*b, report, work, remapped);
    if (unsafe.empty()) break;
    for (const UnsafeDrop& u : unsafe) {
      KeyWork& w = work[u.key];
      w.identical.erase(std::remove(w.identical.begin(), w.identical.end(), u.conflict),
                        w.identical.end());
      w.differing.push_back(u.conflict);
      std::sort(w.differing.begin(), w.differing.end());
    }
    remapped = remapped_values();
  }
  for (const auto& [i, w] : work) {
    if (w.identical.empty()) continue;
    const KeyReport& k = report.keys[i];
    Plan::Drop drop{k.table, k.columns, {}};
    for (const std::size_t c : w.identical) drop.keys.push_back(k.conflicts[c]);
    plan.drops.push_back(std::move(drop));
  }

  // 3. Integer keys: B's differing values get new ones.
  std::set<std::pair<std::string, std::string>> ambiguous;  // inferred columns listed once
  for (const auto& [i, w] : work) {
    if (w.kind != KeyWork::kRemap || w.differing.empty()) continue;
    const KeyReport& k = report.keys[i];
    Plan::Remap remap;
    remap.table = k.table;
    remap.column = k.columns[0];
    for (const std::size_t c : w.differing) {
      if (!Int64Of(k.conflicts[c][0])) {
        plan.unresolved.push_back(
            {k.table, k.columns, k.conflicts[c], "not an integer a remap can give"});
      }
    }
    const std::vector<int64_t>& olds = remapped[i];
    if (olds.empty()) continue;
    const KeyFacts& f = facts[i];
    const int64_t type_max =
        std::min(IntegerTypeMax(f.type_a, mysql), IntegerTypeMax(f.type_b, mysql));
    const bool ids = k.ids_b > 0 && k.ids_b >= k.legacy_b;
    if (type_max == std::numeric_limits<int64_t>::max() && ids) {
      if (!options.next_id) {
        throw Error(Error::Code::kInvalidArgument,
                    KeyName(k) + " needs fresh IDs, and no generator was given");
      }
      remap.method = "fresh IDs";
      remap.reason = "steadyflake IDs (" + GroupThousands(k.ids_b) + " of " +
                     GroupThousands(k.ids_b + k.legacy_b) + " values of B): fresh IDs of server " +
                     std::to_string(options.server_id);
      for (const int64_t old : olds) remap.values.emplace_back(old, options.next_id());
    } else {
      const int64_t top = std::max(f.max_a, f.max_b);
      int64_t offset = 0;
      int64_t last = 0;
      const bool overflow = __builtin_sub_overflow(top, olds.front(), &offset) ||
                            __builtin_add_overflow(offset, 1, &offset) ||
                            __builtin_add_overflow(olds.back(), offset, &last);
      const std::string type = f.type_b.empty() ? std::string("its type") : f.type_b;
      remap.method = "offset";
      remap.reason =
          std::string(ids ? "IDs in a narrow column (" + type + ")" : "legacy values in " + type) +
          ": moved above the largest value of A and B, " + std::to_string(top);
      if (overflow || last > type_max) {
        plan.unresolved.push_back({k.table,
                                   k.columns,
                                   {},
                                   "an offset above the largest value (" + std::to_string(top) +
                                       ") takes " + std::to_string(olds.size()) + " values past " +
                                       type + "'s largest, " + std::to_string(type_max) +
                                       "; widen the column in both shards first"});
        remapped.erase(i);
        continue;
      }
      remap.offset = offset;
      for (const int64_t old : olds) remap.values.emplace_back(old, old + remap.offset);
    }
    for (const ReferenceReport& r : k.references) {
      if (r.also.empty()) {
        remap.references.push_back(r);
      } else if (ambiguous.insert({r.table, r.column}).second) {  // once per column
        std::string keys = k.table + "." + k.columns[0];
        for (const std::string& other : r.also) keys += ", " + other;
        plan.unresolved.push_back({r.table,
                                   {r.column},
                                   {},
                                   "its values all lie among those of several remapped keys (" +
                                       keys +
                                       "), so it is not rewritten; name the one it refers "
                                       "to with a --refs line '" +
                                       r.table + "." + r.column + " -> TABLE.COLUMN'"});
      }
    }
    plan.remaps.push_back(std::move(remap));
  }

  // 4. Text keys: B's differing values get new names.
  std::optional<Template> parts;
  std::vector<TakenValues::Column> taken;
  std::vector<std::size_t> rename_keys;
  for (const auto& [i, w] : work) {
    if (w.kind != KeyWork::kRename || w.differing.empty()) continue;
    const KeyReport& k = report.keys[i];
    if (!parts) {
      if (options.rename.find("{server}") != std::string::npos && !plan.b_server) {
        throw Error(Error::Code::kInvalidArgument,
                    "--rename '" + options.rename + "' names {server}, and shard B has no " +
                        "steadyflake IDs to take its server id from; pass a template without " +
                        "it, e.g. --rename '{name}.b'");
      }
      parts = SplitTemplate(options.rename, plan.b_server);
    }
    TakenValues::Column column{k.table, AsciiLower(k.columns[0]), {}};
    const std::string collation = k.collations.empty() ? std::string() : k.collations[0];
    if (collation.empty()) {
      column.collations.push_back(nullptr);
    } else if (const Collation* c = Collation::Find(collation); c != nullptr) {
      column.collations.push_back(c);
    } else {
      // Unknown: unique as bytes and under the two commonest case-insensitive collations.
      column.collations = {nullptr, Collation::Find("utf8mb4_general_ci"),
                           Collation::Find("utf8mb4_unicode_ci")};
    }
    taken.push_back(std::move(column));
    rename_keys.push_back(i);
  }
  if (!taken.empty()) {
    std::vector<std::string> only;
    for (const TakenValues::Column& c : taken) only.push_back(c.table);
    TakenValues visitor(taken);
    a->Scan(visitor, only);
    b->Scan(visitor, only);
  }
  for (std::size_t n = 0; n < rename_keys.size(); ++n) {
    const KeyReport& k = report.keys[rename_keys[n]];
    const KeyFacts& f = facts[rename_keys[n]];
    Plan::Rename rename;
    rename.table = k.table;
    rename.column = k.columns[0];
    rename.collation = k.collations.empty() ? std::string("the bytes") : k.collations[0];
    const int la = DeclaredLength(f.type_a);
    const int lb = DeclaredLength(f.type_b);
    rename.max_length = la == 0 ? lb : (lb == 0 ? la : std::min(la, lb));
    for (const std::size_t c : work[rename_keys[n]].differing) {
      const bool own = c < k.conflicts_b.size() && !k.conflicts_b[c].empty();
      const ReportValue& old = own ? k.conflicts_b[c][0] : k.conflicts[c][0];
      std::string chosen;
      for (int attempt = 1; attempt <= 100 && chosen.empty(); ++attempt) {
        // Another suffix after the first: "-2", "-3", ...; the name part is shortened to fit.
        const std::string suffix =
            parts->suffix + (attempt == 1 ? std::string() : "-" + std::to_string(attempt));
        const std::size_t fixed = Characters(parts->prefix) + Characters(suffix);
        std::size_t keep = Characters(old.text);
        if (rename.max_length != 0) {
          const auto room = static_cast<std::size_t>(rename.max_length);
          if (room <= fixed) break;  // no room left for the name
          keep = std::min(keep, room - fixed);
        }
        const std::string name =
            parts->prefix + std::string(FirstCharacters(old.text, keep)) + suffix;
        if (TakenValues::Free(taken[n], name)) chosen = name;
      }
      if (chosen.empty()) {
        plan.unresolved.push_back(
            {k.table,
             k.columns,
             {old},
             "no rename by '" + options.rename + "' is unique under " + rename.collation +
                 (rename.max_length ? " within " + std::to_string(rename.max_length) + " characters"
                                    : std::string()) +
                 "; rename it by hand or pass another --rename"});
        continue;
      }
      TakenValues::Add(taken[n], chosen);
      rename.values.emplace_back(old.text, chosen);
    }
    if (rename.values.empty()) continue;
    // A column that refers to the renamed one would keep the old names: not followed yet.
    for (const auto& [from, to] : b_foreign_keys) {
      if (to.first == AsciiLower(k.table) &&
          (to.second == AsciiLower(k.columns[0]) ||
           (to.second.empty() && k.kind == KeyReport::Kind::kPrimary))) {
        plan.unresolved.push_back(
            {from.first,
             {from.second},
             {},
             "a FOREIGN KEY onto " + k.table + "." + k.columns[0] +
                 ", whose values this plan renames: renames are not followed into referring "
                 "columns; update them by hand in the same transaction (plan.json lists the "
                 "renames)"});
      }
    }
    plan.renames.push_back(std::move(rename));
  }

  // 5. Every other key: a differing conflict follows a remap when a referring column of the key
  // holds a remapped value; else it is unresolved.
  for (const auto& [i, w] : work) {
    if (w.kind != KeyWork::kOther) continue;
    const KeyReport& k = report.keys[i];
    std::map<std::string, uint64_t> via;
    for (const std::size_t c : w.differing) {
      const std::string by = RemappedVia(report, k, k.conflicts[c], remapped, refers);
      if (!by.empty()) {
        ++via[by];
        continue;
      }
      plan.unresolved.push_back(
          {k.table, k.columns, k.conflicts[c],
           "differs from A's row, and no remap or rename changes it; edit or delete the row "
           "in B, or declare the key's references (--refs) if a column refers to a remapped "
           "key"});
    }
    for (const auto& [name, count] : via) plan.follows.push_back({k.table, k.columns, count, name});
  }

  // The plan's name: its inputs, time and every change, hashed.
  std::string identity = path_a + '\n' + path_b + '\n' + plan.made_at + '\n';
  for (const Plan::Remap& r : plan.remaps) {
    for (const auto& [from, to] : r.values) {
      identity += std::to_string(from) + ">" + std::to_string(to) + ",";
    }
  }
  for (const Plan::Rename& r : plan.renames) {
    for (const auto& [from, to] : r.values) identity += from + ">" + to + ",";
  }
  const Hash128 h = HashBytes(identity);
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(h.lo));
  plan.id = id;
  return plan;
}

}  // namespace steadyflake::mergecheck
