// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/direct_lookup.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "source/text_order.h"
#include "sqlite/index_seek.h"
#include "sqlite/table_reader.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

using text_order::Order;

// Whether SQLite compares `value` with a column of `affinity` as the value it is: a text with a
// TEXT or BLOB column, a number with any but a TEXT one (which would make it text first).
bool AsItIs(const Cell& value, Affinity affinity) {
  switch (value.type) {
    case Cell::Type::kText:
      return affinity == Affinity::kText || affinity == Affinity::kBlob;
    case Cell::Type::kInteger:
      return affinity != Affinity::kText;
    default:
      return false;
  }
}

// Whether a PRIMARY KEY or UNIQUE key of `table` is on exactly the columns `index` holds first
// (its `k` key fields), each under the index's collation: its values are then one entry each.
bool Unique(const Table& table, const Structure& index, std::size_t k) {
  return std::any_of(table.keys.begin(), table.keys.end(), [&](const Key& key) {
    if (key.columns.size() != k) return false;
    for (std::size_t i = 0; i < k; ++i) {
      const auto f = std::find(index.fields.begin(), index.fields.begin() + k, key.columns[i]);
      if (f == index.fields.begin() + k) return false;
      const auto field = static_cast<std::size_t>(f - index.fields.begin());
      if (!EqualsIgnoreCase(KeyCollation(table, key, i), index.collations[field])) return false;
    }
    return true;
  });
}

// An index of `structures` over exactly `lookup`'s columns, ascending, under their collations
// (each BINARY, NOCASE or RTRIM), whose values are unique; nullptr if none. In `at`, per key
// field of the index, the tuple's position holding it; in `orders`, its text order.
const Structure* SeekableIndex(const Table& table, const std::vector<Structure>& structures,
                               const Lookup& lookup, std::vector<std::size_t>& at,
                               std::vector<Order>& orders) {
  const std::size_t k = lookup.columns.size();
  for (const Structure& st : structures) {
    if (st.rowids || st.fields.size() != k + 1 || st.collations.size() < k) continue;
    at.clear();
    orders.clear();
    for (std::size_t f = 0; f < k; ++f) {
      const auto j = std::find(lookup.columns.begin(), lookup.columns.end(), st.fields[f]);
      const std::string& collation = st.collations[f];
      const bool known = EqualsIgnoreCase(collation, "BINARY") ||
                         EqualsIgnoreCase(collation, "NOCASE") ||
                         EqualsIgnoreCase(collation, "RTRIM");
      if (j == lookup.columns.end() || !known || (f < st.descending.size() && st.descending[f])) {
        break;
      }
      const auto i = static_cast<std::size_t>(j - lookup.columns.begin());
      if (i < lookup.collations.size() && !lookup.collations[i].empty() &&
          !EqualsIgnoreCase(lookup.collations[i], collation)) {
        break;
      }
      at.push_back(i);
      orders.push_back(text_order::TextOrder(collation));
    }
    if (at.size() == k && Unique(table, st, k)) return &st;
  }
  return nullptr;
}

}  // namespace

bool LookUpFromPages(const PageFile& pages, const TableRef& ref, const Table& table,
                     const std::vector<Structure>& structures, const Lookup& lookup,
                     const std::vector<int>& wanted, const DirectPassTarget& to,
                     std::vector<std::vector<Cell>>& rest) {
  if (ref.without_rowid || ref.root == 0 || lookup.columns.empty()) return false;
  int shadowed = 0;  // SelectRows gives the ordinal as the position when all three are
  for (const Column& c : table.columns) {
    if (c.generated) return false;
    for (const char* name : {"rowid", "_rowid_", "oid"}) shadowed += EqualsIgnoreCase(c.name, name);
  }
  if (shadowed == 3) return false;
  const auto by_rowid = std::find_if(structures.begin(), structures.end(),
                                     [](const Structure& st) { return st.rowids; });
  const int alias =
      by_rowid != structures.end() && by_rowid->fields.size() == 1 ? by_rowid->fields[0] : -1;
  const std::size_t k = lookup.columns.size();
  const bool by_alias = k == 1 && alias >= 0 && lookup.columns[0] == alias;
  std::vector<std::size_t> at{0};
  std::vector<Order> orders;
  const Structure* index =
      by_alias ? nullptr : SeekableIndex(table, structures, lookup, at, orders);
  if (!by_alias && index == nullptr) return false;
  std::optional<IndexSeeker> seeker;
  if (index != nullptr) seeker.emplace(pages);
  std::vector<std::pair<int64_t, std::size_t>> found;  // rowid, tuple
  std::vector<Cell> key(k);
  const std::vector<std::vector<Cell>>& tuples = *lookup.tuples;
  for (std::size_t t = 0; t < tuples.size(); ++t) {
    bool as_it_is = tuples[t].size() == k;
    for (std::size_t f = 0; as_it_is && f < k; ++f) {
      key[f] = tuples[t][at[f]];
      const int column = index != nullptr ? index->fields[f] : alias;
      // The rowid's alias is an INTEGER column: only an integer is sought in it.
      as_it_is = AsItIs(key[f], table.columns[static_cast<std::size_t>(column)].affinity);
    }
    if (!as_it_is) {
      rest.push_back(tuples[t]);
    } else if (index == nullptr) {
      found.emplace_back(key[0].integer, t);
    } else {
      try {
        const std::optional<int64_t> rowid =
            seeker->Find(index->root, key, orders, static_cast<int>(k));
        if (rowid.has_value()) found.emplace_back(*rowid, t);
      } catch (const DamagedPage& corrupt) {
        to.file.ThrowDamaged(BtreeDamage{corrupt.page(), corrupt.what(), index->owner});
      }
    }
  }
  std::sort(found.begin(), found.end());  // a value sought twice is given twice, as SQL does
  std::vector<int64_t> rowids;
  for (const auto& [rowid, tuple] : found) rowids.push_back(rowid);
  TableReader reader(pages, /*read_ahead=*/false);
  std::vector<int64_t> lacking = LookUpRowids(reader, ref.root, alias, rowids, wanted, to);
  lacking.erase(std::unique(lacking.begin(), lacking.end()), lacking.end());
  for (const int64_t rowid : lacking) {
    const auto first =
        std::lower_bound(found.begin(), found.end(), std::pair(rowid, std::size_t{0}));
    for (auto it = first; it != found.end() && it->first == rowid; ++it) {
      rest.push_back(tuples[it->second]);
    }
  }
  return true;
}

}  // namespace steadyflake::mergecheck
