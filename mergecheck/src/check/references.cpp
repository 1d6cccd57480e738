// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// References (references.h): which columns of B refer to the overlapping integer keys.

#include "check/references.h"

#include <algorithm>
#include <bit>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "check/key_set.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// Inference thresholds (design section 6b, issue 12): enough distinct values that a column
// of small numbers (a level, a slot) does not fit by chance.
constexpr uint64_t kMinDistinct = 100;
constexpr uint64_t kMinPercent = 90;

// One key whose references are sought.
struct Target {
  std::size_t report_index = 0;
  std::string table;  // as B names it
  std::string lower_table;
  std::string lower_column;
  std::string squeezed_table;  // lowercase, without underscores: "arenateam"
  bool primary = false;
  std::span<const int64_t> values;   // B's, sorted and distinct
  std::span<const int64_t> overlap;  // in both inputs, sorted
};

// A column of a table checked against one target.
struct Candidate {
  std::string column;  // as declared
  std::size_t target = 0;
  std::string found;  // how (references.h 1-3); empty: an inference candidate
  Affinity affinity = Affinity::kInteger;
  int cell = -1;                    // position in OnRow's cells, set by OnTable
  int column_index = -1;            // in the Table OnTable was given
  bool all_in = true;               // inference: every value so far is one of the key's
  std::vector<uint64_t> seen = {};  // inference: one bit per key value
  uint64_t rows = 0;
  // A conditional reference (Options::Reference::where_column): only rows whose where column
  // holds where_value refer, and only they are counted.
  std::string where_column = {};
  int64_t where_value = 0;
  int where_cell = -1;
  int where_index = -1;
};

std::string WithoutUnderscores(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  return text;
}

bool IsSingleColumnKey(const Table& table, int column) {
  return std::any_of(table.keys.begin(), table.keys.end(),
                     [&](const Key& k) { return k.columns.size() == 1 && k.columns[0] == column; });
}

// Thrown by RefScan when no candidate of the table it reads is left (every one was only an
// inference candidate, and each met a value outside its key): the rest of the table can say
// nothing, so a SQLite file's scan of it stops there.
struct TableDone {};

// Thrown by RefScan when no candidate of any table is left: the rest of the input can say
// nothing (a dump, read start to end, then stops early too).
struct AllDone {};

class RefScan : public SourceVisitor {
 public:
  // `live`: the candidates of the tables that have rows (the others can learn nothing).
  RefScan(std::vector<Target>& targets, std::map<std::string, std::vector<Candidate>>& tables,
          std::size_t live)
      : targets_(targets), tables_(tables), live_(live) {}

  // Each candidate column alone: a SQLite file may read it from an index over it.
  std::vector<std::vector<int>> Groups(const Table& /*table*/) override {
    std::vector<std::vector<int>> groups;
    if (current_ == nullptr) return groups;
    for (const Candidate& c : *current_) {
      if (c.cell < 0) continue;
      groups.push_back({c.column_index});
      if (c.where_index >= 0) groups.back().push_back(c.where_index);
    }
    return groups;
  }

  void OnPass(const Table& /*table*/, std::span<const int> present, bool /*first*/) override {
    if (current_ == nullptr) return;
    in_pass_.assign(current_->size(), 0);
    for (std::size_t i = 0; i < current_->size(); ++i) {
      const int cell = (*current_)[i].cell;
      in_pass_[i] = std::find(present.begin(), present.end(), cell) != present.end() ? 1 : 0;
    }
  }

  std::vector<int> OnTable(const Table& table) override {
    current_ = nullptr;
    row_table_ = &table;
    in_pass_.clear();
    const auto it = tables_.find(table.name);
    if (it == tables_.end()) return {};
    current_ = &it->second;
    std::vector<int> wanted;
    for (Candidate& c : *current_) {
      const int column = FindColumn(table, AsciiLower(c.column));
      c.cell = -1;
      c.column_index = column;
      if (column < 0) continue;
      c.cell = Want(wanted, column);
      c.where_index = -1;
      c.where_cell = -1;
      if (!c.where_column.empty()) {
        c.where_index = FindColumn(table, AsciiLower(c.where_column));
        if (c.where_index >= 0) c.where_cell = Want(wanted, c.where_index);
      }
    }
    return wanted;
  }

  void OnRow(const Table& table, std::span<const Cell> cells, uint64_t /*position*/) override {
    if (&table != row_table_) {  // a dump may create every table before the rows of any
      row_table_ = &table;
      const auto it = tables_.find(table.name);
      current_ = it == tables_.end() ? nullptr : &it->second;
    }
    if (current_ == nullptr) return;
    bool live = false;
    for (std::size_t i = 0; i < current_->size(); ++i) {
      Candidate& c = (*current_)[i];
      if (c.cell < 0 || (c.found.empty() && !c.all_in)) continue;
      live = true;
      if (!in_pass_.empty() && in_pass_[i] == 0) continue;
      if (c.where_cell >= 0 && !Holds(c, cells)) continue;
      const Value v = ApplyAffinity(cells[static_cast<std::size_t>(c.cell)], c.affinity, buffer_);
      if (v.tag == Value::Tag::kNull) continue;
      if (v.tag != Value::Tag::kInteger) {
        Rule(c);
        continue;
      }
      const Target& t = targets_[c.target];
      if (std::binary_search(t.overlap.begin(), t.overlap.end(), v.integer)) ++c.rows;
      if (!c.found.empty() || !c.all_in) continue;
      const auto at = std::lower_bound(t.values.begin(), t.values.end(), v.integer);
      if (at == t.values.end() || *at != v.integer) {
        Rule(c);
        continue;
      }
      const auto at_index = static_cast<std::size_t>(at - t.values.begin());
      c.seen[at_index / 64] |= uint64_t{1} << (at_index % 64);
    }
    if (live_ == 0) throw AllDone{};
    if (!live && stoppable_) throw TableDone{};
  }

  // Whether OnRow may stop the scan (TableDone) once nothing is left to learn from a table.
  void set_stoppable(bool stoppable) { stoppable_ = stoppable; }

 private:
  // The position of `column` in `wanted`, added if missing.
  static int Want(std::vector<int>& wanted, int column) {
    const auto pos = std::find(wanted.begin(), wanted.end(), column);
    const int cell = static_cast<int>(pos - wanted.begin());
    if (pos == wanted.end()) wanted.push_back(column);
    return cell;
  }
  // `c` met a value that is not one of its key's: an inference candidate no more.
  void Rule(Candidate& c) {
    if (c.all_in && c.found.empty()) --live_;
    c.all_in = false;
  }
  // True when the row's where column holds the candidate's value (a conditional reference).
  bool Holds(const Candidate& c, std::span<const Cell> cells) {
    const Value w =
        ApplyAffinity(cells[static_cast<std::size_t>(c.where_cell)], Affinity::kInteger, buffer_);
    return w.tag == Value::Tag::kInteger && w.integer == c.where_value;
  }

  std::vector<Target>& targets_;
  std::map<std::string, std::vector<Candidate>>& tables_;
  std::vector<Candidate>* current_ = nullptr;
  const Table* row_table_ = nullptr;  // the table of the last row, whose candidates are current_
  std::vector<char> in_pass_;         // per candidate: its column is in the current pass
  bool stoppable_ = false;
  std::size_t live_ = 0;  // candidates of every table that still count or may be inferred
  ValueBuffer buffer_;
};

// The entry of Options::references that names column `lower_column` of `table` as referring to
// `t`, or null.
const Options::Reference* NamedByOption(const Options& options, const std::string& table,
                                        const std::string& lower_column, const Target& t) {
  for (const Options::Reference& r : options.references) {
    if (r.table == table && AsciiLower(r.column) == lower_column &&
        AsciiLower(r.ref_table) == t.lower_table && AsciiLower(r.ref_column) == t.lower_column) {
      return &r;
    }
  }
  return nullptr;
}

// Throws unless every --refs entry names a column of B and a single-column key of B.
void CheckOptionReferences(const Collector& cb, const Options& options) {
  for (const Options::Reference& r : options.references) {
    const std::string text = r.table + "." + r.column + " -> " + r.ref_table + "." + r.ref_column;
    const TableState* from = cb.Find(r.table);
    if (from == nullptr || FindColumn(from->table, AsciiLower(r.column)) < 0) {
      throw Error(Error::Code::kInvalidArgument,
                  "reference " + text + ": input B has no column " + r.table + "." + r.column +
                      "; check the name (table names are case-sensitive)");
    }
    if (!r.where_column.empty() && FindColumn(from->table, AsciiLower(r.where_column)) < 0) {
      throw Error(Error::Code::kInvalidArgument,
                  "reference " + text + " where " + r.where_column + " = " +
                      std::to_string(r.where_value) + ": input B has no column " + r.table + "." +
                      r.where_column +
                      "; name the integer column that says what the row refers to");
    }
    const TableState* to = cb.Find(r.ref_table);
    const int key_column = to == nullptr ? -1 : FindColumn(to->table, AsciiLower(r.ref_column));
    if (key_column < 0 || !IsSingleColumnKey(to->table, key_column)) {
      throw Error(Error::Code::kInvalidArgument,
                  "reference " + text + ": " + r.ref_table + "." + r.ref_column +
                      " is not a single-column PRIMARY KEY or UNIQUE key of input B; name the "
                      "key the column refers to");
    }
  }
}

// The candidates of table `ts` for every target (references.h 1-4).
std::vector<Candidate> CandidatesOf(const TableState& ts, const std::vector<Target>& targets,
                                    const Options& options) {
  std::vector<Candidate> out;
  const Table& table = ts.table;
  const std::string lower_table = AsciiLower(table.name);
  for (std::size_t ci = 0; ci < table.columns.size(); ++ci) {
    const Column& col = table.columns[ci];
    if (col.generated) continue;
    const std::string lower = AsciiLower(col.name);
    const std::string squeezed = WithoutUnderscores(lower);
    bool fixed = false;
    for (std::size_t ti = 0; ti < targets.size(); ++ti) {
      const Target& t = targets[ti];
      if (lower_table == t.lower_table && lower == t.lower_column) continue;
      std::string found;
      for (const ForeignKey& fk : table.foreign_keys) {
        if (fk.columns.size() != 1 || fk.columns[0] != static_cast<int>(ci) ||
            AsciiLower(fk.ref_table) != t.lower_table) {
          continue;
        }
        if (fk.ref_columns.empty()
                ? t.primary
                : fk.ref_columns.size() == 1 && AsciiLower(fk.ref_columns[0]) == t.lower_column) {
          found = "foreign key";
        }
      }
      const Options::Reference* named = nullptr;
      if (found.empty()) {
        named = NamedByOption(options, table.name, lower, t);
        if (named != nullptr) found = named->source;
      }
      // In the key's own table such a name is the table's own id (petition.petitionguid
      // beside the primary key ownerguid), not a reference to its key.
      if (found.empty() && t.primary && col.affinity == Affinity::kInteger &&
          lower_table != t.lower_table &&
          (squeezed == t.squeezed_table + "id" || squeezed == t.squeezed_table + "guid")) {
        found = "name";
      }
      if (found.empty()) continue;
      fixed = true;
      out.push_back(Candidate{col.name, ti, found, col.affinity});
      if (named != nullptr) {
        out.back().where_column = named->where_column;
        out.back().where_value = named->where_value;
      }
    }
    if (fixed || col.affinity != Affinity::kInteger ||
        IsSingleColumnKey(table, static_cast<int>(ci))) {
      continue;
    }
    for (std::size_t ti = 0; ti < targets.size(); ++ti) {
      const Target& t = targets[ti];
      if (lower_table == t.lower_table && lower == t.lower_column) continue;
      Candidate c{col.name, ti, "", col.affinity};
      c.seen.assign((t.values.size() + 63) / 64, 0);
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

void FindReferences(Source& b, const Collector& cb, const Comparison& comparison,
                    const Options& options, Report& report) {
  CheckOptionReferences(cb, options);
  std::vector<Target> targets;
  for (const Comparison::Pending& p : comparison.pending) {
    const KeyReport& kr = report.keys[p.report_index];
    if (p.key_b == nullptr || p.integers.empty() || p.key_b->names.size() != 1 ||
        p.key_b->affinity[0] != Affinity::kInteger) {
      continue;
    }
    Target t;
    t.report_index = p.report_index;
    t.table = p.table;
    t.lower_table = AsciiLower(p.table);
    t.lower_column = p.key_b->lower[0];
    t.squeezed_table = WithoutUnderscores(t.lower_table);
    t.primary = kr.kind == KeyReport::Kind::kPrimary;
    t.values = p.key_b->set.integers();
    t.overlap = p.integers;
    targets.push_back(std::move(t));
  }
  if (targets.empty()) return;

  std::map<std::string, std::vector<Candidate>> tables;
  std::vector<std::string> only;
  std::size_t live = 0;
  for (const TableState& ts : cb.tables()) {
    std::vector<Candidate> candidates = CandidatesOf(ts, targets, options);
    if (candidates.empty()) continue;
    if (ts.rows > 0 || ts.uncounted) {
      only.push_back(ts.table.name);
      live += candidates.size();
    }
    tables.emplace(ts.table.name, std::move(candidates));
  }
  if (tables.empty()) return;
  // A SQLite file is read table by table, each as far as it says anything: most integer columns
  // (levels, counts, times) meet a value outside every key at their first rows. A dump is read
  // once, start to end, as it must be, but only until no candidate of any table is left.
  RefScan scan(targets, tables, live);
  try {
    if (b.format() == "sqlite") {
      scan.set_stoppable(true);
      for (const std::string& table : only) {
        try {
          b.Scan(scan, {table});
        } catch (const TableDone&) {
        }
      }
    } else if (!only.empty()) {  // empty `only` would read every table
      b.Scan(scan, only);
    }
  } catch (const AllDone&) {
    // Every candidate met a value outside its key: nothing more to learn.
  }

  // Decide the inferences, then file every reference under its key, by table and column.
  std::map<std::pair<std::string, std::string>, std::vector<const Candidate*>> inferred;
  std::vector<std::vector<ReferenceReport>> found(targets.size());
  for (const auto& [table, candidates] : tables) {
    for (const Candidate& c : candidates) {
      const Target& t = targets[c.target];
      if (!c.found.empty()) {
        found[c.target].push_back(ReferenceReport{table, c.column, c.found, c.rows});
        found[c.target].back().where_column = c.where_column;
        found[c.target].back().where_value = c.where_value;
        continue;
      }
      uint64_t distinct = 0;
      for (const uint64_t word : c.seen) distinct += static_cast<uint64_t>(std::popcount(word));
      if (!c.all_in || distinct == 0) continue;
      if (distinct >= kMinDistinct || distinct * 100 >= t.values.size() * kMinPercent) {
        inferred[{table, c.column}].push_back(&c);
      }
    }
  }
  for (const auto& [column, fits] : inferred) {
    for (const Candidate* c : fits) {
      const Target& t = targets[c->target];
      ReferenceReport r{column.first, column.second, "inferred", c->rows};
      for (const uint64_t word : c->seen) r.distinct += static_cast<uint64_t>(std::popcount(word));
      r.key_values = t.values.size();
      for (const Candidate* other : fits) {
        if (other == c) continue;
        const KeyReport& okr = report.keys[targets[other->target].report_index];
        r.also.push_back(okr.table + "." + okr.columns[0]);
      }
      found[c->target].push_back(std::move(r));
    }
  }
  for (std::size_t i = 0; i < targets.size(); ++i) {
    std::vector<ReferenceReport>& list = found[i];
    std::sort(list.begin(), list.end(), [](const ReferenceReport& x, const ReferenceReport& y) {
      return std::tie(x.table, x.column) < std::tie(y.table, y.column);
    });
    report.keys[targets[i].report_index].references = std::move(list);
  }
}

}  // namespace steadyflake::mergecheck
