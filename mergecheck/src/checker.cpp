// Copyright 2026 The steadyflake Authors.
//
// Check(): reads both inputs in parallel into key sets (collect.cpp), intersects them, decodes
// integer IDs into server ids, and rereads input A for the values of conflicting hashed keys.

#include "checker.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collect.h"
#include "key_set.h"
#include "reread.h"
#include "steadyflake/error.h"

namespace steadyflake::mergecheck {

namespace {

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

}  // namespace

Report CheckSources(const std::string& path_a, Source& a, const std::string& path_b, Source& b,
                    const Options& options, int64_t cutoff_ms) {
  Collector ca(options, 0, a);
  Collector cb(options, 1, b);
  CollectBoth(ca, cb, options.layout, cutoff_ms);

  Report report;
  report.inputs[0] = DescribeInput(path_a, a, ca);
  report.inputs[1] = DescribeInput(path_b, b, cb);

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
  RereadTargets targets;
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
        list.push_back(RereadTarget{ka, std::move(common), options.limit, {}});
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
  Reread(a, ca, targets);
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
      RereadTarget& target = targets[kr.table][target_index];
      for (auto& tuple : target.found) values.push_back(std::move(tuple));
    }
    SortDistinct(values, options.limit);
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
