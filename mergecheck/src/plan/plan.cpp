// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// MakePlan (plan.h): the check with every conflict listed, then one decision per conflicting
// value, in phases: (1) each key's conflicts split into differing and identical rows; (2) an
// identical row that refers to a remapped value moves to the differing ones, until nothing
// changes (one scan of B's tables concerned per round); (3) integer keys get their new values;
// (4) text keys their new names; (5) every other key follows a remap or is unresolved. Phases
// 2, 3 and 4 have files of their own (drops, remaps, renames); plan_work.h holds what the
// phases hand each other.
// The check's collections give what the report does not say: each integer key's largest value
// in A and B (for an offset), B's server ids by count (the rename's {server}), the columns'
// declared types (widths and lengths) and B's foreign keys. Renames need every value of their
// column in both inputs under A's collation, read by one more scan of each input.

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "check/checker.h"
#include "check/collect.h"
#include "check/key_set.h"
#include "plan/aside.h"
#include "plan/drops.h"
#include "plan/plan_work.h"
#include "plan/policies.h"
#include "plan/remaps.h"
#include "plan/renames.h"
#include "source/source.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/plan.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

// `v` as an int64, or nullopt (not an integer, or above INT64_MAX).
std::optional<int64_t> Int64Of(const ReportValue& v) {
  if (v.type != ReportValue::Type::kInteger) return std::nullopt;
  int64_t out = 0;
  const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), out);
  if (ec != std::errc() || ptr != v.text.data() + v.text.size()) return std::nullopt;
  return out;
}

std::string KeyName(const KeyReport& k) {
  std::string out = k.table + " (";
  for (std::size_t i = 0; i < k.columns.size(); ++i) out += (i ? ", " : "") + k.columns[i];
  return out + ")";
}

bool Confirmed(const ReferenceReport& r) {
  return r.also.empty() &&
         (r.found == "foreign key" || r.found == "--refs" || r.found == "profile");
}

Remapped RemappedValues(const Report& report, const Work& work, bool held) {
  Remapped out;
  for (const auto& [i, w] : work) {
    if (w.kind != KeyWork::kRemap || (w.held() && !held)) continue;
    std::vector<int64_t>& olds = out[i];
    for (const std::size_t c : w.differing) {
      if (const std::optional<int64_t> v = Int64Of(report.keys[i].conflicts[c][0])) {
        olds.push_back(*v);
      }
    }
    std::sort(olds.begin(), olds.end());
  }
  return out;
}

bool IsGlobal(const PlanOptions& options, const std::string& table, const std::string& column) {
  return std::any_of(options.global.begin(), options.global.end(), [&](const Options::Column& g) {
    return g.table == table && EqualsIgnoreCase(g.column, column);
  });
}

namespace {

std::string IsoNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

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

// True when the column of key `child` has a reference (any) onto key `parent`: then their
// relationship is known, and neither is a candidate child of the other.
bool RefersTo(const Report& report, std::size_t child, std::size_t parent) {
  const KeyReport& c = report.keys[child];
  for (const ReferenceReport& r : report.keys[parent].references) {
    if (r.table == c.table && EqualsIgnoreCase(r.column, c.columns[0])) return true;
  }
  return false;
}

// A key inside another is evidence only with this many values in B: small auto-increment
// tables (ids 1-20) all lie inside each other by chance (check/references.h's kMinDistinct).
constexpr std::size_t kMinInside = 100;

// PlanFacts::inside: for each overlapping single-column integer key of B (`keys`: its index
// into Report::keys and its sorted values), the others of another table whose values hold all
// of its at least kMinInside values.
void FindKeysInsideKeys(const Report& report,
                        const std::vector<std::pair<std::size_t, std::span<const int64_t>>>& keys,
                        const PlanOptions& options, PlanFacts& facts) {
  // A key the profile calls a key of its own, or whose column a confirmed reference says what
  // it refers to, is nobody's candidate child.
  std::set<std::pair<std::string, std::string>> known;
  for (const Options::Column& c : options.own_keys) known.insert({c.table, AsciiLower(c.column)});
  for (const KeyReport& k : report.keys) {
    for (const ReferenceReport& r : k.references) {
      if (Confirmed(r)) known.insert({r.table, AsciiLower(r.column)});
    }
  }
  for (const auto& [child, values] : keys) {
    const KeyReport& own = report.keys[child];
    if (values.empty() || known.count({own.table, AsciiLower(own.columns[0])}) != 0) continue;
    for (const auto& [parent, outer] : keys) {
      const KeyReport& c = report.keys[child];
      const KeyReport& p = report.keys[parent];
      if (p.table == c.table || outer.size() < values.size() || values.front() < outer.front() ||
          values.back() > outer.back()) {
        continue;
      }
      const bool enough = values.size() >= kMinInside;
      if (!enough || RefersTo(report, child, parent) || RefersTo(report, parent, child)) continue;
      if (std::includes(outer.begin(), outer.end(), values.begin(), values.end())) {
        facts.inside[child].push_back(p.table + "." + p.columns[0]);
        ReferenceReport r{c.table, c.columns[0], "values inside", values.size()};
        r.distinct = values.size();
        r.key_values = outer.size();
        facts.children[parent].push_back(std::move(r));
      }
    }
  }
}

std::string Squeezed(const std::string& name) {
  std::string out = AsciiLower(name);
  out.erase(std::remove(out.begin(), out.end(), '_'), out.end());
  return out;
}

// Throws unless every global column and own key of the profile is a column of B.
void CheckGlobalColumns(const Collector& cb, const PlanOptions& options) {
  for (const auto& [what, columns] :
       {std::pair{"global ", &options.global}, {"own_keys ", &options.own_keys}}) {
    for (const Options::Column& g : *columns) {
      const TableState* t = cb.Find(g.table);
      if (t == nullptr || FindColumn(t->table, AsciiLower(g.column)) < 0) {
        throw Error(Error::Code::kInvalidArgument,
                    what + g.table + "." + g.column + ": input B has no column " + g.table + "." +
                        g.column + "; check the name (table names are case-sensitive)");
      }
    }
  }
}

// The entity a key's column is named for when its table extends that entity but B has no table
// of it (`account_tutorial(accountId PRIMARY KEY)` and no `account` table -> "account"): the
// entity lives elsewhere, in a login database's tables. Else "" (`guild.guildid`, its own id;
// `character_equipmentsets.setguid`, a table not named for the set).
std::string ForeignName(const KeyReport& k, const PlanFacts& facts) {
  const std::string column = Squeezed(k.columns[0]);
  std::string prefix;
  for (const std::string_view suffix : {"guid", "id"}) {
    if (column.size() > suffix.size() && column.ends_with(suffix)) {
      prefix = column.substr(0, column.size() - suffix.size());
      break;
    }
  }
  const std::string own = Squeezed(k.table);
  if (prefix.empty() || prefix == own || !own.starts_with(prefix)) return "";
  const bool here =
      std::find(facts.b_tables.begin(), facts.b_tables.end(), prefix) != facts.b_tables.end();
  return here ? "" : prefix;
}

// What the check's collections say beyond the report: each single-column key's largest values
// and declared types, B's server ids by count, B's single-column FOREIGN KEYs.
void CollectPlanFacts(const Collector& ca, const Collector& cb, const Report& report,
                      const PlanOptions& options, const Options& check, int64_t cutoff_ms,
                      PlanFacts& facts) {
  const IdBounds bounds = IdBoundsOf(check.layout, cutoff_ms);
  std::vector<std::pair<std::size_t, std::span<const int64_t>>> integer_keys;
  for (const TableState& t : cb.tables()) {
    facts.b_tables.push_back(Squeezed(t.table.name));
    if (!t.table.keys.empty() && t.table.keys[0].kind == Key::Kind::kPrimary &&
        t.table.keys[0].columns.size() == 1) {
      facts.b_primary[AsciiLower(t.table.name)] =
          AsciiLower(t.table.columns[static_cast<std::size_t>(t.table.keys[0].columns[0])].name);
    }
    for (const ForeignKey& fk : t.table.foreign_keys) {
      if (fk.columns.size() != 1) continue;
      facts.b_foreign_keys.push_back(
          {t.table.name, t.table.columns[static_cast<std::size_t>(fk.columns[0])].name,
           AsciiLower(fk.ref_table),
           fk.ref_columns.empty() ? std::string() : AsciiLower(fk.ref_columns[0])});
    }
  }
  for (std::size_t i = 0; i < report.keys.size(); ++i) {
    const KeyReport& k = report.keys[i];
    if (k.columns.size() != 1) continue;
    const std::string lower = AsciiLower(k.columns[0]);
    const TableState* ta = ca.Find(k.table);
    const TableState* tb = cb.Find(k.table);
    KeyFacts& f = facts.keys[i];
    f.type_a = DeclaredType(ta, lower);
    f.type_b = DeclaredType(tb, lower);
    const KeyState* ka = FindKey(ta, lower);
    const KeyState* kb = FindKey(tb, lower);
    if (ka != nullptr && !ka->set.integers().empty()) f.max_a = ka->set.integers().back();
    if (kb != nullptr && !kb->set.integers().empty()) f.max_b = kb->set.integers().back();
    if (kb != nullptr && k.overlap > 0) integer_keys.push_back({i, kb->set.integers()});
    if (k.id_use == KeyReport::IdUse::kAnalysed && kb != nullptr) {
      const int q = check.layout.sequence_bits();
      for (const int64_t id : kb->set.integers()) {
        if (!bounds.Holds(id)) continue;
        ++facts.b_servers[(static_cast<uint64_t>(id) >> q) & check.layout.max_server_id()];
      }
    }
  }
  FindKeysInsideKeys(report, integer_keys, options, facts);
}

// Fresh IDs under a server id either shard issued could repeat its IDs: refused.
void CheckServerId(const Report& report, uint64_t server_id) {
  for (const auto& [servers, where] :
       {std::pair{&report.servers_a, "A"}, {&report.servers_b, "B"}}) {
    if (!std::binary_search(servers->begin(), servers->end(), server_id)) continue;
    const uint64_t highest = std::max(report.servers_a.empty() ? 0 : report.servers_a.back(),
                                      report.servers_b.empty() ? 0 : report.servers_b.back());
    throw Error(Error::Code::kInvalidArgument,
                "--server-id " + std::to_string(server_id) + " issued IDs in shard " + where +
                    ", so fresh IDs under it could repeat theirs; pass a server id " +
                    "neither shard holds, e.g. " + std::to_string(highest + 1));
  }
}

// B's server id: the one most of its IDs carry (the rename's {server}), if any.
std::optional<uint64_t> MostCommonServer(const std::map<uint64_t, uint64_t>& servers) {
  std::optional<uint64_t> most;
  uint64_t best = 0;
  for (const auto& [server, count] : servers) {
    if (count > best) {
      best = count;
      most = server;
    }
  }
  return most;
}

// The referring columns of every integer key (by lowercase table and column): a key that is
// itself such a column follows the key it refers to, never remapped alone. (It follows only
// through a confirmed one: a key with an unconfirmed one onto it is held, never remapped.)
Refers ReferringColumns(const Report& report) {
  auto referring =
      std::make_shared<std::map<std::pair<std::string, std::string>, std::vector<std::size_t>>>();
  for (std::size_t i = 0; i < report.keys.size(); ++i) {
    for (const ReferenceReport& r : report.keys[i].references) {
      if (!r.also.empty()) continue;
      (*referring)[{AsciiLower(r.table), AsciiLower(r.column)}].push_back(i);
    }
  }
  return [referring](const std::string& table, const std::string& column) {
    const auto it = referring->find({AsciiLower(table), AsciiLower(column)});
    return it == referring->end() ? std::vector<std::size_t>() : it->second;
  };
}

// 1. Which conflicts of each key differ and which are identical rows (drop candidates), and
// what kind of key it is.
Work ClassifyConflicts(const Report& report, const Refers& refers, const PlanFacts& facts,
                       const PlanOptions& options) {
  Work work;
  for (std::size_t i = 0; i < report.keys.size(); ++i) {
    const KeyReport& k = report.keys[i];
    if (k.overlap == 0) continue;
    KeyWork& w = work[i];
    const auto inside = facts.inside.find(i);
    if (k.columns.size() == 1 && IsGlobal(options, k.table, k.columns[0])) {
      w.global = true;  // kOther: never remapped
    } else if (k.columns.size() == 1 && k.decoded && refers(k.table, k.columns[0]).empty()) {
      if (inside != facts.inside.end()) {
        w.inside = inside->second;  // kOther: a candidate reference
      } else {
        w.kind = KeyWork::kRemap;
        w.foreign_name = ForeignName(k, facts);
        for (const ReferenceReport& r : k.references) {
          if (!Confirmed(r) && !IsGlobal(options, r.table, r.column)) w.proposals.push_back(&r);
        }
        if (const auto c = facts.children.find(i); c != facts.children.end()) {
          for (const ReferenceReport& r : c->second) w.proposals.push_back(&r);
        }
      }
    } else if (k.columns.size() == 1 && !k.decoded && !k.conflicts.empty() &&
               k.conflicts[0][0].type == ReportValue::Type::kText) {
      w.kind = KeyWork::kRename;
    }
    for (std::size_t c = 0; c < k.conflicts.size(); ++c) {
      const bool same = c < k.conflicts_identical.size() && k.conflicts_identical[c];
      (same ? w.identical : w.differing).push_back(c);
    }
  }
  return work;
}

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

// Why a differing conflict of a key that follows no remap is unresolved, and what to do.
std::string NoFollowReason(const KeyReport& k, const KeyWork& w) {
  if (w.global) {
    return "a global key (the profile): the same value is the same entity in every shard, so it "
           "is never remapped; B's row differs from A's: edit or delete it in B, or decide "
           "which shard's row stays";
  }
  if (w.inside.empty()) {
    return "differs from A's row, and no remap or rename changes it; edit or delete the row in "
           "B, or declare the key's references (--refs) if a column refers to a remapped key";
  }
  std::string keys;
  for (const std::string& p : w.inside) keys += (keys.empty() ? "" : ", ") + p;
  return "its values in B all lie among those of " + keys +
         " (a child keyed by its id, or an extension of its table), so it is never remapped on "
         "its own; if it refers to that key, confirm it with a --refs line '" +
         k.table + "." + k.columns[0] + " -> " + w.inside.front() + "' and plan again";
}

// 5. Every other key: a differing conflict follows a remap when a referring column of the key
// holds a remapped value; else it is unresolved.
void PlanFollows(const Report& report, const Work& work, const Remapped& remapped,
                 const Refers& refers, Plan& plan) {
  const Remapped held = RemappedValues(report, work, /*held=*/true);
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
      const std::string waits = RemappedVia(report, k, k.conflicts[c], held, refers);
      plan.unresolved.push_back(
          {k.table, k.columns, k.conflicts[c],
           waits.empty() ? NoFollowReason(k, w)
                         : "would follow the remap of " + waits +
                               ", which is held until the references onto it are confirmed "
                               "(listed above)"});
    }
    for (const auto& [name, count] : via) plan.follows.push_back({k.table, k.columns, count, name});
  }
}

// The plan's name: its inputs, time and every change, hashed.
std::string PlanId(const Plan& plan, const std::string& path_a, const std::string& path_b) {
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
  return id;
}

}  // namespace

Plan MakePlan(const std::string& path_a, const std::string& path_b, const PlanOptions& options) {
  if (options.rename.find("{name}") == std::string::npos) {
    throw Error(Error::Code::kInvalidArgument,
                "--rename '" + options.rename +
                    "' has no {name}; the template must keep the name, e.g. '{name}.s{server}'");
  }
  RefuseSameFile(path_a, path_b);
  Plan plan;
  plan.fingerprints[0] = FingerprintInput(path_a);
  plan.fingerprints[1] = FingerprintInput(path_b);
  const std::unique_ptr<Source> a = OpenSource(path_a);
  const std::unique_ptr<Source> b = OpenSource(path_b);
  Options check = options.check;
  check.limit = 0;
  const int64_t cutoff_ms = CutoffOf(check);

  PlanFacts facts;
  plan.check = CheckSources(path_a, *a, path_b, *b, check, cutoff_ms,
                            [&](const Collector& ca, const Collector& cb, Report& report) {
                              CheckGlobalColumns(cb, options);
                              CheckOnConflict(cb, options);
                              CheckNameRules(cb, options);
                              CollectPlanFacts(ca, cb, report, options, check, cutoff_ms, facts);
                            });
  const Report& report = plan.check;
  plan.server_id = options.server_id;
  plan.made_at = options.made_at.empty() ? IsoNow() : options.made_at;
  plan.dialect =
      report.inputs[1].format.rfind("mysql", 0) == 0 ? std::string("mysql") : std::string("sqlite");
  CheckServerId(report, options.server_id);
  plan.b_server = MostCommonServer(facts.b_servers);

  const Refers refers = ReferringColumns(report);
  Work work = ClassifyConflicts(report, refers, facts, options);  // 1.
  SettleDrops(*b, report, facts, work, plan);                     // 2.
  ApplyPolicies(*a, *b, report, options, work, plan);  // the profile's, over a remap or rename
  Remapped remapped = RemappedValues(report, work);
  PlanRemaps(report, work, facts, plan.dialect == "mysql", options, remapped, plan);  // 3.
  PlanRenames(*a, *b, report, work, facts, options, plan);                            // 4.
  PlanFollows(report, work, remapped, refers, plan);                                  // 5.
  SetRowsAside(*b, report, facts, options, plan);  // 6. what is unresolved stays out of the merge
  plan.id = PlanId(plan, path_a, path_b);
  return plan;
}

}  // namespace steadyflake::mergecheck
