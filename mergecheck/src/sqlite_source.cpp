// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The SQLite reader: schema from the database itself (sqlite_master and the table_info,
// index_list, index_info and foreign_key_list pragmas), rows by one SELECT of the wanted columns
// per table.
//
// Trust (docs/merging.md "What a SQLite input is"): the file is opened as sqlite_file.h says.
// Each scan runs in one read transaction, so it sees one consistent snapshot, and the check as
// a whole must see one content: the file's identity (SqliteFile::Observe) is the same after
// every scan as at the start of the first, or the scan fails with "changed during the check".
// The first scan also checks the structure of every b-tree page in the file (CheckBtrees, on a
// thread beside the key scan), so damage in a page no key is read from is still found.
//
// Speed: when the file alone holds the snapshot (SqliteFile::FileHoldsSnapshot), a table is
// read straight from the file's b-tree pages, key by key (source.h, OnPass): each group of
// columns the visitor needs together (a key) from the smallest b-tree that holds all of it, the
// rowid table's own for the INTEGER PRIMARY KEY (RowidReader), else an index or a WITHOUT ROWID
// table's own b-tree (IndexReader, UTF-8 databases only). A table with a group no b-tree holds
// (a --key on columns no index covers), or a whole-row read, is one SELECT of its wanted
// columns.

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "btree_check.h"
#include "index_reader.h"
#include "page_file.h"
#include "rowid_reader.h"
#include "source.h"
#include "sqlite_file.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

bool AllBinary(const std::vector<std::string>& collations) {
  for (const std::string& c : collations) {
    if (!EqualsIgnoreCase(c, "BINARY")) return false;
  }
  return true;
}

// The b-tree checker's thread: started beside the key scan, stopped and joined however the
// scan ends.
class BtreeCheckThread {
 public:
  BtreeCheckThread() = default;
  BtreeCheckThread(const BtreeCheckThread&) = delete;
  BtreeCheckThread& operator=(const BtreeCheckThread&) = delete;
  ~BtreeCheckThread() {
    stop_.store(true, std::memory_order_relaxed);
    if (thread_.joinable()) thread_.join();
  }

  void Start(const PageFile& file, const std::vector<Btree>& trees) {
    thread_ = std::thread([this, &file, &trees] {
      try {
        damage_ = CheckBtrees(file, trees, stop_);
      } catch (...) {
        failure_ = std::current_exception();  // std::bad_alloc
      }
    });
  }

  // Waits for the check; the damage it found, if any.
  std::optional<BtreeDamage> Finish() {
    if (thread_.joinable()) thread_.join();
    if (failure_) std::rethrow_exception(failure_);
    return damage_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::optional<BtreeDamage> damage_;
  std::exception_ptr failure_;
  std::thread thread_;
};

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// Column `i` of the current row as a Cell. A REAL's literal (Cell::bytes) is written into
// `real_text`; text and blobs point into SQLite's buffers, valid until the statement steps
// again.
void ReadCell(sqlite3_stmt* stmt, int i, std::array<char, 32>& real_text, Cell& cell) {
  const int type = sqlite3_column_type(stmt, i);
  switch (type) {
    case SQLITE_INTEGER:
      cell.type = Cell::Type::kInteger;
      cell.integer = sqlite3_column_int64(stmt, i);
      break;
    case SQLITE_FLOAT: {
      cell.type = Cell::Type::kReal;
      cell.real = sqlite3_column_double(stmt, i);
      cell.bytes = RealLiteral(cell.real, real_text);
      break;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      cell.type = type == SQLITE_TEXT ? Cell::Type::kText : Cell::Type::kBlob;
      cell.bytes = ColumnBytes(stmt, i, type == SQLITE_TEXT);
      break;
    default:
      cell.type = Cell::Type::kNull;
      cell.bytes = {};
      break;
  }
}

class SqliteSource final : public Source {
 public:
  explicit SqliteSource(const std::string& path) : path_(path), file_(path) {}

  std::string format() const override { return "sqlite"; }

  std::string reader() const override {
    if (!pages_usable_) return "SQLite: its -wal log holds rows the database file does not";
    if (tables_sql_ == 0 && tables_direct_ > 0) return "b-tree pages";
    if (tables_direct_ == 0) return "SQLite";
    std::string text = "b-tree pages (";
    text.append(std::to_string(tables_direct_))
        .append(tables_direct_ == 1 ? " table) and SQLite (" : " tables) and SQLite (")
        .append(std::to_string(tables_sql_))
        .append(tables_sql_ == 1 ? " table)" : " tables)");
    return text;
  }

  bool LookUp(SourceVisitor& visitor, const std::string& name,
              const std::vector<std::string>& columns,
              const std::vector<std::vector<int64_t>>& tuples) override {
    file_.Exec("BEGIN");
    std::exception_ptr failure;
    bool looked_up = false;
    try {
      std::vector<Btree> trees;
      for (const TableRef& ref : ReadSchema(trees)) {
        if (ref.name != name) continue;
        std::vector<Structure> structures;
        const Table table = ReadTable(ref, structures);
        Lookup lookup{{}, &tuples};
        for (const std::string& column : columns) {
          for (std::size_t i = 0; i < table.columns.size(); ++i) {
            if (EqualsIgnoreCase(table.columns[i].name, column)) {
              lookup.columns.push_back(static_cast<int>(i));
            }
          }
        }
        // Only where a b-tree is keyed by those columns: a lookup elsewhere is a whole scan
        // per value.
        const bool keyed =
            std::any_of(structures.begin(), structures.end(), [&](const Structure& st) {
              if (st.fields.size() < lookup.columns.size()) return false;
              return std::is_permutation(lookup.columns.begin(), lookup.columns.end(),
                                         st.fields.begin());
            });
        if (lookup.columns.size() != columns.size() || !keyed) break;
        ReadRows(table, visitor.OnTable(table), visitor, &lookup);
        looked_up = true;
      }
    } catch (const Error&) {
      failure = std::current_exception();
    } catch (...) {
      sqlite3_exec(file_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    sqlite3_exec(file_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
    if (first_state_.has_value() && file_.Observe() != *first_state_) file_.ThrowChanged();
    if (failure) std::rethrow_exception(failure);
    return looked_up;
  }

  uint64_t bytes_read() const override { return bytes_.load(std::memory_order_relaxed); }
  uint64_t rows_read() const override { return rows_.load(std::memory_order_relaxed); }
  // The pages read are the progress through the file; each b-tree's pages are read once per
  // pass, so a check reads about the file's size, plus the second pass over overlaps.
  uint64_t file_read() const override { return bytes_read(); }
  uint64_t file_size() const override {
    struct stat st;
    return ::fstat(file_.fd(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }

  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    // Progress counters are for display only, so relaxed order is enough for them.
    rows_.store(0, std::memory_order_relaxed);
    bytes_.store(0, std::memory_order_relaxed);
    misses_at_start_ = CacheMisses();
    direct_bytes_ = 0;
    tables_direct_ = tables_sql_ = 0;
    file_.Exec("BEGIN");
    std::exception_ptr failure;
    try {
      ScanInTransaction(visitor, only);
    } catch (const Error&) {
      failure = std::current_exception();  // unless the file changed: that is the news then
    } catch (...) {
      sqlite3_exec(file_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
      throw;  // the visitor's own
    }
    sqlite3_exec(file_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
    // One content from the first scan's start to the end of this one, or no verdict.
    if (first_state_.has_value() && file_.Observe() != *first_state_) file_.ThrowChanged();
    if (failure) std::rethrow_exception(failure);
  }

 private:
  struct TableRef {
    std::string name;
    uint32_t root = 0;           // the table b-tree's root page
    bool without_rowid = false;  // the table b-tree is an index b-tree keyed by the primary key
  };

  // A b-tree holding some columns of every row of a table, which the pages can give without
  // SQLite: the rowid table b-tree (its rowids: the INTEGER PRIMARY KEY), an index, or a
  // WITHOUT ROWID table's own b-tree.
  struct Structure {
    uint32_t root = 0;
    bool rowids = false;      // a table b-tree, read for its rowids only
    std::vector<int> fields;  // per record field, the table column it holds (-1: none usable)
    std::string owner;        // for messages: "index i of table t"
  };

  // A pass over one Structure: the wanted columns it gives (positions in OnRow's cells) and
  // the record field each comes from.
  struct Pass {
    const Structure* structure = nullptr;
    std::vector<int> present;
    std::vector<int> fields;
  };

  void ScanInTransaction(SourceVisitor& visitor, const std::vector<std::string>& only) {
    // A deferred BEGIN takes SQLite's read lock at its first read: the schema, here. From then
    // on no writer changes what this connection reads, nor the file itself unless it is a WAL
    // database with frames in its log.
    std::vector<Btree> trees;
    const std::vector<TableRef> refs = ReadSchema(trees);
    const FileState state = file_.Observe();
    if (!first_state_.has_value()) {
      first_state_ = state;
    } else if (state != *first_state_) {
      file_.ThrowChanged();
    }
    const bool check_structure = !structure_checked_;
    structure_checked_ = true;
    std::optional<PageFile> pages;
    pages_usable_ = file_.FileHoldsSnapshot();
    if (pages_usable_) {
      try {
        pages.emplace(file_.fd());
      } catch (const DamagedPage&) {
        // SQLite read the header a moment ago: leave the error to it.
      }
    }
    BtreeCheckThread structure;
    if (check_structure && pages.has_value()) structure.Start(*pages, trees);
    std::optional<RowidReader> rowids;
    std::optional<IndexReader> records;
    // Index records hold text as the database encodes it: the pages give UTF-8 only.
    const bool utf8 = pages.has_value() && pages->text_encoding() == 1;
    for (const TableRef& ref : refs) {
      std::vector<Structure> structures;
      const Table table = ReadTable(ref, structures);
      const std::vector<int> wanted = visitor.OnTable(table);
      bool selected = only.empty();
      for (const std::string& o : only) selected = selected || o == ref.name;
      if (!selected) continue;
      std::vector<Pass> passes;
      if (pages.has_value() && !wanted.empty()) {
        if (!utf8) {
          std::erase_if(structures, [](const Structure& st) { return !st.rowids; });
        }
        passes = Plan(wanted, visitor.Groups(table), structures);
      }
      if (passes.empty()) {
        ReadRows(table, wanted, visitor);
        ++tables_sql_;
        continue;
      }
      for (std::size_t i = 0; i < passes.size(); ++i) {
        const Pass& pass = passes[i];
        visitor.OnPass(table, pass.present, i == 0);
        if (pass.structure->rowids) {
          if (!rowids.has_value()) rowids.emplace(*pages);
          ReadRowids(*rowids, pass, table, wanted.size(), visitor);
        } else {
          if (!records.has_value()) records.emplace(*pages);
          ReadRecords(*records, pass, table, wanted.size(), visitor);
        }
      }
      ++tables_direct_;
    }
    if (!check_structure) return;
    if (pages.has_value()) {
      if (const std::optional<BtreeDamage> damage = structure.Finish()) file_.ThrowDamaged(*damage);
    } else {
      file_.QuickCheck(trees);
    }
  }

  // Ordinary tables in creation order (not sqlite_% internals, not virtual tables); and in
  // `trees` every b-tree of the file, for CheckBtrees: the schema's own (page 1), each table's
  // (a WITHOUT ROWID table is an index b-tree) and each index's.
  std::vector<TableRef> ReadSchema(std::vector<Btree>& trees) {
    Statement stmt;
    file_.Prepare(
        "SELECT m.type, m.name, m.tbl_name, m.rootpage, coalesce(t.wr, 0), "
        "m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND coalesce(m.sql, '') NOT LIKE "
        "'CREATE VIRTUAL%' FROM sqlite_master AS m LEFT JOIN pragma_table_list AS t "
        "ON t.schema = 'main' AND t.name = m.name AND m.type = 'table' "
        "WHERE m.type IN ('table', 'index') ORDER BY m.rowid",
        stmt);
    std::vector<TableRef> refs;
    trees.clear();
    index_roots_.clear();
    trees.push_back(Btree{1, false, "the schema table sqlite_master"});
    while (file_.Step(stmt, "cannot read the schema")) {
      const std::string_view type = ColumnText(stmt.get(), 0);
      const std::string name(ColumnText(stmt.get(), 1));
      const int64_t root = sqlite3_column_int64(stmt.get(), 3);
      const uint32_t page = root > 0 && root <= UINT32_MAX ? static_cast<uint32_t>(root) : 0;
      if (type == "table") {
        const bool without_rowid = sqlite3_column_int(stmt.get(), 4) != 0;
        if (sqlite3_column_int(stmt.get(), 5) != 0) {
          refs.push_back(TableRef{name, page, without_rowid});
        }
        if (page != 0) {
          trees.push_back(Btree{page, without_rowid, "table " + name});
        }
      } else if (page != 0) {
        index_roots_[name] = page;
        trees.push_back(Btree{
            page, true, "index " + name + " of table " + std::string(ColumnText(stmt.get(), 2))});
      }
    }
    return refs;
  }

  // The table's columns and keys, and in `structures` the b-trees that hold its columns: the
  // rowid table's own (when it has an INTEGER PRIMARY KEY), its indexes but partial ones, and a
  // WITHOUT ROWID table's own.
  Table ReadTable(const TableRef& ref, std::vector<Structure>& structures) {
    const std::string& name = ref.name;
    const std::string what = "cannot read the schema of table " + name;
    Table table;
    table.name = name;
    std::vector<std::pair<int, int>> pk;  // (position in the primary key, column)
    {
      // table_xinfo, not table_info: its column numbers are the ones index_xinfo gives, also
      // when generated columns come before others.
      Statement stmt;
      file_.Prepare(
          "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1) WHERE hidden != 1 ORDER BY "
          "cid",
          stmt);
      SqliteFile::Bind(stmt, name);
      while (file_.Step(stmt, what)) {
        Column column;
        column.name = ColumnText(stmt.get(), 0);
        column.declared_type = ColumnText(stmt.get(), 1);
        column.affinity = AffinityOf(column.declared_type);
        column.collation = "BINARY";  // a key's own index says otherwise (below)
        column.generated = sqlite3_column_int(stmt.get(), 3) >= 2;  // 2 virtual, 3 stored
        const int position = sqlite3_column_int(stmt.get(), 2);
        if (position > 0) pk.emplace_back(position, static_cast<int>(table.columns.size()));
        table.columns.push_back(std::move(column));
      }
    }
    // Foreign keys: one row per column (seq) of each (id), `to` NULL when the REFERENCES names
    // no columns (the referenced table's PRIMARY KEY). The ids count from the last declared
    // (0) to the first, as SQLite keeps them newest first.
    {
      Statement stmt;
      file_.Prepare(
          "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER "
          "BY id, seq",
          stmt);
      SqliteFile::Bind(stmt, name);
      int id = -1;
      while (file_.Step(stmt, what)) {
        const int row_id = sqlite3_column_int(stmt.get(), 0);
        if (table.foreign_keys.empty() || row_id != id) {
          id = row_id;
          table.foreign_keys.emplace_back().ref_table = ColumnText(stmt.get(), 2);
        }
        ForeignKey& fk = table.foreign_keys.back();
        const std::string_view from = ColumnText(stmt.get(), 3);
        const auto column =
            std::find_if(table.columns.begin(), table.columns.end(),
                         [&](const Column& c) { return EqualsIgnoreCase(c.name, from); });
        fk.columns.push_back(
            column == table.columns.end() ? -1 : static_cast<int>(column - table.columns.begin()));
        if (sqlite3_column_type(stmt.get(), 4) != SQLITE_NULL) {
          fk.ref_columns.emplace_back(ColumnText(stmt.get(), 4));
        }
      }
      // SQLite resolves a foreign key's columns when it creates it, so each names a column of
      // the table; a key over any other (a hidden column) is left out.
      std::erase_if(table.foreign_keys, [](const ForeignKey& fk) {
        return std::find(fk.columns.begin(), fk.columns.end(), -1) != fk.columns.end();
      });
      std::reverse(table.foreign_keys.begin(), table.foreign_keys.end());  // declaration order
    }
    if (!pk.empty()) {
      std::sort(pk.begin(), pk.end());
      Key key;
      key.kind = Key::Kind::kPrimary;
      for (const auto& [position, column] : pk) key.columns.push_back(column);
      table.keys.push_back(std::move(key));
    }
    // Every index but partial ones (WHERE), which hold only some rows. Unique ones are keys:
    // UNIQUE constraints (origin 'u') and CREATE UNIQUE INDEX (origin 'c'); the primary key's
    // own index (origin 'pk') is the key above.
    struct IndexRow {
      std::string name;
      bool unique;
      bool primary;
    };
    std::vector<IndexRow> indexes;
    {
      Statement stmt;
      file_.Prepare("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", stmt);
      SqliteFile::Bind(stmt, name);
      while (file_.Step(stmt, what)) {
        if (sqlite3_column_int(stmt.get(), 3) != 0) continue;
        indexes.push_back({std::string(ColumnText(stmt.get(), 0)),
                           sqlite3_column_int(stmt.get(), 1) != 0,
                           ColumnText(stmt.get(), 2) == "pk"});
      }
    }
    // The primary key is the rowid when it is one INTEGER column and has no index of its own.
    int alias = -1;
    const bool pk_indexed =
        std::any_of(indexes.begin(), indexes.end(), [](const IndexRow& i) { return i.primary; });
    if (pk.size() == 1 && !pk_indexed && !ref.without_rowid &&
        EqualsIgnoreCase(table.columns[static_cast<std::size_t>(pk[0].second)].declared_type,
                         "INTEGER")) {
      alias = pk[0].second;
    }
    structures.clear();
    if (alias >= 0 && ref.root > 0) {
      structures.push_back(Structure{ref.root, true, {alias}, "table " + name});
    }
    // An index's record: one field per index_xinfo row, in order: the key columns (key = 1,
    // each with the collation it compares under), then the rowid (cid -1) or, in a WITHOUT ROWID
    // table, the primary key columns it lacks; an expression is cid -2.
    const auto read_index = [&](const IndexRow& index, Key& key) -> bool {
      Statement stmt;
      file_.Prepare("SELECT cid, coll, key FROM pragma_index_xinfo(?1) ORDER BY seqno", stmt);
      SqliteFile::Bind(stmt, index.name);
      Structure structure;
      structure.owner = "index " + index.name + " of table " + name;
      bool usable = true;
      while (file_.Step(stmt, what)) {
        const int cid = sqlite3_column_int(stmt.get(), 0);
        const bool in_key = sqlite3_column_int(stmt.get(), 2) != 0;
        const bool column = cid >= 0 && cid < static_cast<int>(table.columns.size());
        // A WITHOUT ROWID table's own record holds its other columns too, but a record
        // written before an ALTER TABLE ADD COLUMN lacks the new one (SQLite gives its
        // DEFAULT): only the primary key is read from it.
        const bool table_tail = index.primary && ref.without_rowid && !in_key;
        structure.fields.push_back(table_tail ? -1 : column ? cid : cid == -1 ? alias : -1);
        if (!in_key) continue;
        if (!column) {
          usable = false;  // an expression (-2) or the rowid (-1): not a key of columns
        } else {
          key.columns.push_back(cid);
          key.collations.emplace_back(ColumnText(stmt.get(), 1));
        }
      }
      // A WITHOUT ROWID table's primary key index is the table's own b-tree.
      const auto root = index_roots_.find(index.name);
      if (index.primary && ref.without_rowid) {
        structure.root = ref.root;
        structure.owner = "table " + name;
      } else if (root != index_roots_.end()) {
        structure.root = root->second;
      }
      if (structure.root > 0) structures.push_back(std::move(structure));
      return usable;
    };
    std::vector<Key> unique;
    for (const IndexRow& index : indexes) {
      Key key;
      const bool usable = read_index(index, key);
      if (index.primary) {
        if (usable && !table.keys.empty() && key.columns == table.keys.front().columns) {
          table.keys.front().collations = std::move(key.collations);
        }
      } else if (index.unique && usable && !key.columns.empty()) {
        key.kind = Key::Kind::kUnique;
        key.name = index.name;
        unique.push_back(std::move(key));
      }
    }
    // pragma_index_list lists the newest index first; keys go in creation order.
    for (auto it = unique.rbegin(); it != unique.rend(); ++it) {
      bool duplicate = false;
      for (Key& other : table.keys) {
        if (other.columns != it->columns) continue;
        duplicate = true;
        // Two constraints over the same columns: the one under a collation that equates more
        // (NOCASE rather than BINARY) is the one a merge trips over.
        if (other.collations != it->collations && AllBinary(other.collations)) {
          other.collations = it->collations;
        }
      }
      if (!duplicate) table.keys.push_back(std::move(*it));
    }
    return table;
  }

  // The passes that give every group of `groups` (every wanted column at once when it is
  // empty) from `structures`: for each group the structure with the fewest fields that holds
  // all of it. Empty when some group has none: the table is read by SELECT.
  static std::vector<Pass> Plan(const std::vector<int>& wanted,
                                std::vector<std::vector<int>> groups,
                                const std::vector<Structure>& structures) {
    if (groups.empty()) groups.push_back(wanted);
    const auto holds = [](const Structure& st, int column) {
      return std::find(st.fields.begin(), st.fields.end(), column) != st.fields.end();
    };
    std::vector<const Structure*> chosen;
    for (const std::vector<int>& group : groups) {
      const Structure* best = nullptr;
      for (const Structure& st : structures) {
        const bool all =
            std::all_of(group.begin(), group.end(), [&](int column) { return holds(st, column); });
        if (all && (best == nullptr || st.fields.size() < best->fields.size())) best = &st;
      }
      if (best == nullptr) return {};
      if (std::find(chosen.begin(), chosen.end(), best) == chosen.end()) chosen.push_back(best);
    }
    std::vector<Pass> passes;
    for (const Structure* st : chosen) {
      Pass pass;
      pass.structure = st;
      for (std::size_t i = 0; i < wanted.size(); ++i) {
        const auto field = std::find(st->fields.begin(), st->fields.end(), wanted[i]);
        if (field == st->fields.end()) continue;
        pass.present.push_back(static_cast<int>(i));
        pass.fields.push_back(static_cast<int>(field - st->fields.begin()));
      }
      passes.push_back(std::move(pass));
    }
    return passes;
  }

  // The name that selects the rowid of `table`, or "" when it has none (WITHOUT ROWID) or
  // columns shadow all three names.
  std::string RowidName(const Table& table) {
    for (const char* candidate : {"rowid", "_rowid_", "oid"}) {
      bool shadowed = false;
      for (const Column& c : table.columns)
        shadowed = shadowed || EqualsIgnoreCase(c.name, candidate);
      if (shadowed) continue;
      Statement stmt;
      const std::string sql =
          std::string("SELECT ") + candidate + " FROM " + QuoteIdentifier(table.name) + " LIMIT 0";
      if (sqlite3_prepare_v2(file_.db(), sql.c_str(), -1, stmt.out(), nullptr) == SQLITE_OK) {
        return candidate;
      }
      return "";
    }
    return "";
  }

  // The rows of `table`, all of them, or with a `lookup` those whose columns lookup->columns
  // hold one of lookup->tuples (one indexed query per tuple).
  struct Lookup {
    std::vector<int> columns;
    const std::vector<std::vector<int64_t>>* tuples;
  };
  void ReadRows(const Table& table, const std::vector<int>& wanted, SourceVisitor& visitor,
                const Lookup* lookup = nullptr) {
    const std::string rowid = RowidName(table);
    std::string sql = "SELECT ";
    sql += rowid.empty() ? "0" : rowid;
    // A column named in a rowid alias (INTEGER PRIMARY KEY) is read straight from the rowid.
    for (const int column : wanted) {
      sql += ", ";
      sql += QuoteIdentifier(table.columns.at(static_cast<std::size_t>(column)).name);
    }
    sql += " FROM " + QuoteIdentifier(table.name);
    if (lookup != nullptr) {
      for (std::size_t i = 0; i < lookup->columns.size(); ++i) {
        sql += i == 0 ? " WHERE " : " AND ";
        sql += QuoteIdentifier(table.columns.at(static_cast<std::size_t>(lookup->columns[i])).name);
        sql += " = ?" + std::to_string(i + 1);
      }
    }
    const std::string what = "cannot read table " + table.name;
    Statement stmt;
    {
      const int rc = sqlite3_prepare_v2(file_.db(), sql.c_str(), static_cast<int>(sql.size()),
                                        stmt.out(), nullptr);
      if (rc != SQLITE_OK) file_.Fail(what, rc);
    }
    sqlite3_stmt* const s = stmt.get();
    std::vector<Cell> cells(wanted.size());
    // Text of REAL values (Cell::bytes "the literal as written"), one buffer per column.
    std::vector<std::array<char, 32>> reals(wanted.size());
    uint64_t ordinal = 0;
    uint64_t unpublished = 0;
    const auto step_all = [&] {
      for (;;) {
        const int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) file_.Fail(what, rc);
        for (std::size_t i = 0; i < cells.size(); ++i) {
          ReadCell(s, static_cast<int>(i) + 1, reals[i], cells[i]);
        }
        const uint64_t position =
            rowid.empty() ? ordinal : static_cast<uint64_t>(sqlite3_column_int64(s, 0));
        ++ordinal;
        visitor.OnRow(table, cells, position);
        if (++unpublished == 4096) {
          Publish(unpublished);
          unpublished = 0;
        }
      }
    };
    if (lookup == nullptr) {
      step_all();
    } else {
      for (const std::vector<int64_t>& tuple : *lookup->tuples) {
        sqlite3_reset(s);
        for (std::size_t i = 0; i < tuple.size(); ++i) {
          sqlite3_bind_int64(s, static_cast<int>(i) + 1, tuple[i]);
        }
        step_all();
      }
    }
    Publish(unpublished);
  }

  // A pass over the rowids of a rowid table (its INTEGER PRIMARY KEY), from RowidReader.
  void ReadRowids(RowidReader& direct, const Pass& pass, const Table& table, std::size_t width,
                  SourceVisitor& visitor) {
    std::vector<Cell> cells(width);
    for (const int i : pass.present) cells[static_cast<std::size_t>(i)].type = Cell::Type::kInteger;
    uint64_t unpublished = 0;
    const uint64_t start = direct.bytes_read();
    const uint64_t pages = Walking(pass, [&] {
      return direct.Walk(pass.structure->root, [&](int64_t rowid) {
        for (const int i : pass.present) cells[static_cast<std::size_t>(i)].integer = rowid;
        visitor.OnRow(table, cells, static_cast<uint64_t>(rowid));
        CountRow(unpublished, direct, start);
      });
    });
    FinishPass(unpublished, pages, direct.page_size());
  }

  // A pass over the records of an index b-tree, from IndexReader.
  void ReadRecords(IndexReader& direct, const Pass& pass, const Table& table, std::size_t width,
                   SourceVisitor& visitor) {
    std::vector<Cell> cells(width);
    // A REAL column stores an integral value as an integer; SQLite gives it back as a REAL.
    std::vector<bool> real(pass.fields.size());
    for (std::size_t i = 0; i < real.size(); ++i) {
      const int column = pass.structure->fields[static_cast<std::size_t>(pass.fields[i])];
      real[i] = table.columns[static_cast<std::size_t>(column)].affinity == Affinity::kReal;
    }
    std::vector<std::array<char, 32>> real_text(real.size());
    uint64_t unpublished = 0;
    uint64_t ordinal = 0;
    const uint64_t start = direct.bytes_read();
    const uint64_t pages = Walking(pass, [&] {
      return direct.Walk(pass.structure->root, pass.fields, [&](std::span<const Cell> record) {
        for (std::size_t i = 0; i < record.size(); ++i) {
          Cell& cell = cells[static_cast<std::size_t>(pass.present[i])];
          cell = record[i];
          if (real[i] && cell.type == Cell::Type::kInteger) {
            cell.type = Cell::Type::kReal;
            cell.real = static_cast<double>(cell.integer);
            cell.bytes = RealLiteral(cell.real, real_text[i]);
          }
        }
        visitor.OnRow(table, cells, ordinal++);
        CountRow(unpublished, direct, start);
      });
    });
    FinishPass(unpublished, pages, direct.page_size());
  }

  // Runs `walk` (a pass's walk of its b-tree; returns the pages it visited), turning a damaged
  // page into the error that names it and the b-tree's owner.
  template <typename Walk>
  uint64_t Walking(const Pass& pass, Walk&& walk) {
    try {
      return walk();
    } catch (const DamagedPage& corrupt) {
      file_.ThrowDamaged(BtreeDamage{corrupt.page(), corrupt.what(), pass.structure->owner});
    }
  }

  // Counts a row of a pass for progress, published every 4,096 with the bytes read so far:
  // the passes before, what `direct` read in this one since `start`, and what SQLite read.
  template <typename Reader>
  void CountRow(uint64_t& unpublished, const Reader& direct, uint64_t start) {
    if (++unpublished == 4096) {
      rows_.fetch_add(unpublished, std::memory_order_relaxed);
      unpublished = 0;
      bytes_.store(direct_bytes_ + (direct.bytes_read() - start) +
                       (CacheMisses() - misses_at_start_) * PageSize(),
                   std::memory_order_relaxed);
    }
  }

  void FinishPass(uint64_t unpublished, uint64_t pages, uint32_t page_size) {
    rows_.fetch_add(unpublished, std::memory_order_relaxed);
    direct_bytes_ += pages * page_size;
    bytes_.store(direct_bytes_ + (CacheMisses() - misses_at_start_) * PageSize(),
                 std::memory_order_relaxed);
  }

  // Adds `rows` to the progress counters, with the bytes SQLite has read so far.
  void Publish(uint64_t rows) {
    const auto page_size = static_cast<uint64_t>(PageSize());
    rows_.fetch_add(rows, std::memory_order_relaxed);
    bytes_.store(direct_bytes_ + (CacheMisses() - misses_at_start_) * page_size,
                 std::memory_order_relaxed);
  }

  // Pages SQLite has read from the file on this connection.
  uint64_t CacheMisses() {
    int current = 0;
    int high = 0;
    sqlite3_db_status(file_.db(), SQLITE_DBSTATUS_CACHE_MISS, &current, &high, 0);
    return static_cast<uint64_t>(current);
  }

  int PageSize() {
    if (page_size_ == 0) {
      Statement stmt;
      file_.Prepare("PRAGMA page_size", stmt);
      page_size_ =
          file_.Step(stmt, "cannot read the page size") ? sqlite3_column_int(stmt.get(), 0) : 4096;
    }
    return page_size_;
  }

  const std::string path_;  // as given, for messages
  SqliteFile file_;
  std::optional<FileState> first_state_;                   // at the start of the first scan
  std::unordered_map<std::string, uint32_t> index_roots_;  // by index name, from ReadSchema
  bool structure_checked_ = false;
  int page_size_ = 0;
  uint64_t misses_at_start_ = 0;
  uint64_t direct_bytes_ = 0;  // bytes RowidReader has read in this scan
  // What the last scan read, for reader(): tables read by RowidReader and by SELECT, and
  // whether the file alone held the snapshot (no -wal frames), which RowidReader needs.
  int tables_direct_ = 0;
  int tables_sql_ = 0;
  bool pages_usable_ = true;
  std::atomic<uint64_t> rows_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace

std::unique_ptr<Source> OpenSqliteSource(const std::string& path) {
  return std::make_unique<SqliteSource>(path);
}

}  // namespace steadyflake::mergecheck
