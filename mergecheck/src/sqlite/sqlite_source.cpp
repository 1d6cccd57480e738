// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The SQLite reader: schema from the database itself (sqlite_schema.h), rows straight from the
// b-tree pages where it can (pass_plan.h, direct_reads.h), else by one SELECT of the wanted
// columns per table (select_reader.h). This file holds the Source itself: transactions,
// snapshots and the structure check.
//
// Trust (docs/merging.md "What a SQLite input is"): the file is opened as sqlite_file.h says.
// Each scan runs in one read transaction, so it sees one consistent snapshot, and the check as
// a whole must see one content: the file's identity (SqliteFile::Observe) is the same after
// every scan as at the start of the first, or the scan fails with "changed during the check".
// The first scan also checks the structure of every b-tree page in the file (btree_check.h), each
// b-tree once, as structure_check.h says: a b-tree a pass walks (rowids or records) on the pages
// it reads anyway, as it reads them; the index of each key the visitor reads later in index order
// (every key of a table it needs no rows of, a key marked Key::in_index_order that its Groups
// leave out) on ReadInIndexOrder's walk of it, in a later transaction, and what no such walk read
// at FinishStructureCheck; the other index b-trees of a table beside a walk of another of its
// b-trees (a pass, or the merge's walk of a table the scan skips), in page order, from that
// walk's runs; the rest and the freelist on a thread beside the scan;
// the table b-trees no pass walked after the scan. An exception out of a transaction that carried
// part of the check leaves it unfinished: it begins again (Unfinished).
//
// Speed: when the file alone holds the snapshot (SqliteFile::FileHoldsSnapshot), a table is
// read straight from the file's b-tree pages, key by key (source.h, OnPass): each group of
// columns the visitor needs together (a key) from the smallest b-tree that holds all of it, the
// rowid table's own for the INTEGER PRIMARY KEY (RowidReader), else an index or a WITHOUT ROWID
// table's own b-tree (IndexReader, UTF-8 databases only). A table with a group no b-tree holds
// (a --key on columns no index covers), or a whole-row read, is one SELECT of its wanted
// columns. A table the visitor needs no row of (SourceVisitor::NeedsNoRows: it reads every key
// of it in index order afterwards, ReadInIndexOrder) is not read at all.

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "source/source.h"
#include "sqlite/btree_check.h"
#include "sqlite/direct_lookup.h"
#include "sqlite/direct_reads.h"
#include "sqlite/index_cursor.h"
#include "sqlite/index_reader.h"
#include "sqlite/page_file.h"
#include "sqlite/pass_plan.h"
#include "sqlite/rowid_reader.h"
#include "sqlite/scan_progress.h"
#include "sqlite/select_reader.h"
#include "sqlite/sqlite_file.h"
#include "sqlite/sqlite_schema.h"
#include "sqlite/structure_check.h"
#include "steadyflake/error.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::mergecheck {

namespace {

// Integer records ReadInIndexOrder hands over at once (IntegersInOrder).
constexpr std::size_t kIntegerRun = 1024;

// Stops a reader's walks calling the checks beside them (FollowedBy), however the walk ended.
template <typename Reader>
struct Unfollow {
  Reader& reader;
  ~Unfollow() { reader.FollowedBy({}); }
};

// What one scan reads a table with: the pages (when the file alone holds the snapshot) and the
// direct readers over them, made on first use.
struct DirectReaders {
  std::optional<PageFile> pages;
  std::optional<RowidReader> rowids;
  std::optional<IndexReader> records;
  bool utf8 = false;  // index records hold text as the database encodes it: UTF-8 only
};

class SqliteSource final : public Source {
 public:
  explicit SqliteSource(const std::string& path)
      : path_(path), file_(path), schema_(file_), progress_(file_) {}

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

  bool LookUpValues(SourceVisitor& visitor, const std::string& name,
                    const std::vector<std::string>& columns,
                    const std::vector<std::string>& collations,
                    const std::vector<std::vector<Cell>>& tuples) override {
    for (const std::string& collation : collations) {
      if (!collation.empty() && !EqualsIgnoreCase(collation, "BINARY") &&
          !EqualsIgnoreCase(collation, "NOCASE") && !EqualsIgnoreCase(collation, "RTRIM")) {
        return false;  // not one SQLite compares by itself
      }
    }
    return InTableTransaction(name, [&](const TableRef& ref, const Table& table,
                                        const std::vector<Structure>& structures) {
      Lookup lookup{KeyedColumns(table, structures, columns, collations), collations, &tuples};
      if (lookup.columns.empty()) return false;
      const std::vector<int> wanted = visitor.OnTable(table);
      std::vector<std::vector<Cell>> rest;  // what the pages cannot give
      if (LookUpDirect(ref, table, structures, lookup, wanted, visitor, rest)) {
        lookup.tuples = &rest;
      }
      if (!lookup.tuples->empty()) SelectRows(file_, progress_, table, wanted, visitor, &lookup);
      return true;
    });
  }

  bool ReadInIndexOrder(const std::string& name, const std::vector<std::string>& columns,
                        const std::vector<std::string>& collations, const RecordsInOrder& on_record,
                        const IntegersInOrder& on_integers) override {
    return WithOrderingIndex(name, columns, collations,
                             [&](DirectReaders& direct, const Structure& index, std::size_t width) {
                               // What on_record threw, rethrown once the walk finished the
                               // structure check it carried.
                               const std::exception_ptr stopped = WalkInIndexOrder(
                                   direct, name, index, width, on_record, on_integers);
                               if (stopped) std::rethrow_exception(stopped);
                             });
  }

  bool WithKeyCursors(const std::string& name, const std::string& column,
                      const std::string& collation,
                      const std::function<void(const KeyCursors&)>& use) override {
    bool given = false;
    WithOrderingIndex(
        name, {column}, {collation},
        [&](DirectReaders& direct, const Structure& index, std::size_t) {
          if (structure_.Waits(index.root)) return;  // ReadInIndexOrder checks it
          const PageFile& pages = *direct.pages;
          const std::string owner = index.owner;
          std::atomic<uint64_t> walked{0};  // the tree's pages, as a walk's
          given = true;
          use([&]() -> std::unique_ptr<KeyCursor> {
            return std::make_unique<IndexCursor>(
                pages, index.root,
                [this, owner](const DamagedPage& damage) {
                  file_.ThrowDamaged(BtreeDamage{damage.page(), damage.what(), owner});
                },
                &walked);
          });
          progress_.FinishPass(0, walked.load(), pages.page_size());
        });
    return given;
  }

  std::size_t SplitsInIndexOrder(const std::string& name, const std::vector<std::string>& columns,
                                 const std::vector<std::string>& collations, std::size_t most,
                                 const RecordsInOrder& on_record) override {
    std::size_t given = 0;
    WithOrderingIndex(name, columns, collations,
                      [&](DirectReaders& direct, const Structure& index, std::size_t width) {
                        std::vector<int> fields(width);
                        for (std::size_t f = 0; f < width; ++f) fields[f] = static_cast<int>(f);
                        try {
                          IndexReader(*direct.pages)
                              .Splits(index.root, fields,
                                      static_cast<uint32_t>(std::min<std::size_t>(most, 1 << 16)),
                                      [&](std::span<const Cell> record) {
                                        on_record(record);
                                        ++given;
                                      });
                        } catch (const DamagedPage&) {
                          // A hint only: the walk that reads the index names the damage.
                        }
                      });
    return given;
  }

  void FinishStructureCheck() override {
    if (structure_checked_ && !structure_.left()) return;
    try {
      InTransaction([&] {
        std::vector<Btree> trees;
        schema_.ReadSchema(trees);
        ObserveFirst();
        const DirectReaders direct = OpenPages();
        std::optional<BtreeDamage> damage;
        if (!direct.pages.has_value()) {
          file_.QuickCheck(trees);  // the log holds part of the snapshot: SQLite checks it all
          structure_.Reset();
        } else if (!structure_checked_) {
          const std::atomic<bool> never{false};  // no Scan began the check, or one failed
          damage = CheckBtrees(*direct.pages, trees, never);
        } else {
          damage = structure_.CheckLeft();
        }
        structure_checked_ = true;
        if (damage.has_value()) file_.ThrowDamaged(*damage);
      });
    } catch (...) {
      Unfinished();  // CheckLeft stopped at the damage: a second call checks it all again
      throw;
    }
  }

  uint64_t bytes_read() const override { return progress_.bytes(); }
  uint64_t rows_read() const override { return progress_.rows(); }
  // The pages read are the progress through the file; each b-tree's pages are read once per
  // pass, so a check reads about the file's size, plus the second pass over overlaps.
  uint64_t file_read() const override { return bytes_read(); }
  uint64_t file_size() const override {
    struct stat st;
    return ::fstat(file_.fd(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }

  void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) override {
    progress_.Start();
    tables_direct_ = tables_sql_ = 0;
    const bool first = !structure_checked_;
    const uint64_t lent = structure_.lent();
    try {
      InTransaction([&] { ScanInTransaction(visitor, only); });
    } catch (...) {
      // The scan that does the structure check, or a walk that carried part of it, may have
      // stopped midway. A later scan that carried none (a visitor that stops once it knows
      // enough, references.cpp) leaves the check as it is.
      if (first || structure_.lent() != lent) Unfinished();
      throw;
    }
  }

 private:
  // Under the read lock: the file's identity, which must be the first transaction's.
  void ObserveFirst() {
    const FileState state = file_.Observe();
    if (!first_state_.has_value()) {
      first_state_ = state;
    } else if (state != *first_state_) {
      file_.ThrowChanged();
    }
  }

  // Calls read(ref, table, structures) for table `name` in a read transaction; returns what it
  // returned (false when the schema has no such table).
  template <typename Read>
  bool InTableTransaction(const std::string& name, Read&& read) {
    bool done = false;
    InTransaction([&] {
      std::vector<Btree> trees;
      for (const TableRef& ref : schema_.ReadSchema(trees)) {
        if (ref.name != name) continue;
        std::vector<Structure> structures;
        const Table table = schema_.ReadTable(ref, structures);
        done = read(ref, table, structures);
        break;
      }
    });
    return done;
  }

  // Calls read(direct, index, width) in a read transaction with the pages of the file and the
  // index (or WITHOUT ROWID table) of table `name` whose leading `width` fields are `columns`
  // under `collations`, as ReadInIndexOrder reads it; returns whether it was called (not when
  // there is no such index, or its pages cannot be read directly now).
  template <typename Read>
  bool WithOrderingIndex(const std::string& name, const std::vector<std::string>& columns,
                         const std::vector<std::string>& collations, Read&& read) {
    return InTableTransaction(
        name, [&](const TableRef&, const Table& table, const std::vector<Structure>& structures) {
          std::vector<int> key;
          for (const std::string& column : columns) {
            for (std::size_t c = 0; c < table.columns.size(); ++c) {
              if (EqualsIgnoreCase(table.columns[c].name, column)) {
                key.push_back(static_cast<int>(c));
                break;
              }
            }
          }
          const Structure* index =
              key.size() == columns.size() ? OrderingIndex(structures, key, collations) : nullptr;
          DirectReaders direct = OpenPages();
          if (index == nullptr || !direct.utf8) return false;
          read(direct, *index, key.size());
          return true;
        });
  }

  // Runs `read` in one read transaction. One content from the first scan's start to the end of
  // this transaction, or no verdict: a file that changed is the error then, whatever `read`
  // threw; the visitor's own exceptions pass through.
  template <typename Read>
  void InTransaction(Read&& read) {
    file_.Exec("BEGIN");
    std::exception_ptr failure;
    try {
      read();
    } catch (const Error&) {
      failure = std::current_exception();  // unless the file changed: that is the news then
    } catch (...) {
      sqlite3_exec(file_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
      throw;  // the visitor's own
    }
    sqlite3_exec(file_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
    if (first_state_.has_value() && file_.Observe() != *first_state_) file_.ThrowChanged();
    if (failure) std::rethrow_exception(failure);
  }

  // Marks the keys of `table` that ReadInIndexOrder can give.
  static void MarkIndexOrder(Table& table, const std::vector<Structure>& structures) {
    for (Key& key : table.keys) {
      key.in_index_order = OrderingIndex(structures, key.columns, key.collations) != nullptr;
    }
  }

  void ScanInTransaction(SourceVisitor& visitor, const std::vector<std::string>& only) {
    // A deferred BEGIN takes SQLite's read lock at its first read: the schema, here. From then
    // on no writer changes what this connection reads, nor the file itself unless it is a WAL
    // database with frames in its log.
    std::vector<Btree> trees;
    const std::vector<TableRef> refs = schema_.ReadSchema(trees);
    ObserveFirst();
    const bool check_structure = !structure_checked_;
    structure_checked_ = true;
    DirectReaders direct = OpenPages();
    if (check_structure && direct.pages.has_value()) structure_.Begin(*direct.pages, trees);
    for (const TableRef& ref : refs) {
      std::vector<Structure> structures;
      Table table = schema_.ReadTable(ref, structures);
      if (direct.utf8) MarkIndexOrder(table, structures);
      const std::vector<int> wanted = visitor.OnTable(table);
      bool selected = only.empty();
      for (const std::string& o : only) selected = selected || o == ref.name;
      if (selected && direct.utf8 && visitor.NeedsNoRows(table)) {
        ++tables_direct_;  // its keys are read from their indexes (ReadInIndexOrder)
        LeaveToIndexOrder(table, structures, {});
      } else if (selected) {
        std::vector<std::vector<int>> groups;
        if (direct.pages.has_value() && !wanted.empty()) groups = visitor.Groups(table);
        ReadTable(table, wanted, groups, structures, direct, visitor);
        if (!groups.empty()) LeaveToIndexOrder(table, structures, groups);
      }
      structure_.Hand(ref.name);  // no later pass of this scan reads its trees
    }
    if (!check_structure) return;
    if (structure_.scanning()) {
      if (const std::optional<BtreeDamage> damage = structure_.EndScan()) {
        file_.ThrowDamaged(*damage);
      }
    } else {
      file_.QuickCheck(trees);
    }
  }

  // The first scan leaves the structure check of the index each key of `table` is read from in
  // index order to that walk (ReadInIndexOrder, later): every such key when the scan skips the
  // table (`groups` empty), else those no group of the visitor's `groups` holds, which the
  // visitor reads so (SourceVisitor::Groups, Key::in_index_order).
  void LeaveToIndexOrder(const Table& table, const std::vector<Structure>& structures,
                         const std::vector<std::vector<int>>& groups) {
    bool left = false;  // an index of the table left to a later walk
    for (const Key& key : table.keys) {
      const Structure* index =
          key.in_index_order ? OrderingIndex(structures, key.columns, key.collations) : nullptr;
      if (index == nullptr) continue;
      if (!Grouped(key, groups)) {
        structure_.Leave(Btree{index->root, true, index->owner, table.name});
        left = true;
      }
    }
    // A table the scan skips is checked beside the later walk of one of its indexes, from that
    // walk's runs (StructureCheck::Accompany), and so are its other indexes, in page order
    // (StructureCheck::AccompanyIndexes).
    if (groups.empty() && left) {
      structure_.LeaveTable(table.name);
      structure_.LeaveIndexes(table.name);
    }
  }

  // ReadInIndexOrder's walk of `index`, whose first `width` fields are the key, in its
  // transaction. When the first scan left the index's structure check to it, the walk does it
  // too; then a walk on_record stops (the merge abandons the stream) still walks the rest of the
  // tree for the check, and returns what on_record threw, for the caller to rethrow once the
  // check is done. Else throws what on_record throws. With on_integers, the records of small
  // integers go to it in runs of up to kIntegerRun (IndexReader::Walk decodes them).
  std::exception_ptr WalkInIndexOrder(DirectReaders& direct, const std::string& table,
                                      const Structure& index, std::size_t width,
                                      const RecordsInOrder& on_record,
                                      const IntegersInOrder& on_integers) {
    BtreeChecker* const check = structure_.Walk(index.root);
    IndexReader reader(*direct.pages);
    if (check != nullptr) CheckBeside(reader, table, /*with_table=*/true, {});  // those left
    std::vector<int> fields(width);
    for (std::size_t f = 0; f < fields.size(); ++f) fields[f] = static_cast<int>(f);
    std::exception_ptr stopped;
    const auto guarded = [&](const auto& call) {
      if (stopped) return;
      try {
        call();
      } catch (...) {
        if (check == nullptr) throw;
        stopped = std::current_exception();
      }
    };
    const auto give = [&](std::span<const Cell> record) { guarded([&] { on_record(record); }); };
    const auto give_run = [&](std::span<const int64_t> run) { guarded([&] { on_integers(run); }); };
    // The run of integer records being filled, handed over before any other record.
    struct Runs {
      std::vector<int64_t> values;
      std::size_t width;
      const decltype(give)& record;
      const decltype(give_run)& run;
      std::size_t used = 0;
      int64_t* IntegerTuple() { return values.empty() ? nullptr : values.data() + used; }
      void TakeIntegerTuple() {
        used += width;
        if (used == values.size()) Flush();
      }
      void operator()(std::span<const Cell> cells) {
        Flush();
        record(cells);
      }
      void Flush() {
        if (used == 0) return;
        const std::span<const int64_t> full(values.data(), used);
        used = 0;
        run(full);
      }
    };
    // No run without on_integers: the walk then decodes every record into Cells.
    Runs runs{std::vector<int64_t>(on_integers ? kIntegerRun * width : 0), width, give, give_run};
    try {
      // Counted as part of the scan before it: the index a pass would have read.
      const uint64_t pages = reader.Walk(index.root, fields, runs, check);
      runs.Flush();
      progress_.FinishPass(0, pages, reader.page_size());
    } catch (const DamagedPage& corrupt) {
      if (check != nullptr) Unfinished();
      file_.ThrowDamaged(BtreeDamage{corrupt.page(), corrupt.what(), index.owner});
    } catch (...) {
      if (check != nullptr) Unfinished();
      throw;
    }
    FinishAccompanying();
    return stopped;
  }

  // The checks beside `reader`'s walk of one of `table`'s b-trees, from the walk's runs: with
  // `with_table`, the table's own b-tree, when no walk reads it (StructureCheck::Accompany);
  // and its index b-trees no walk reads, but for those rooted at `taken`, in page order
  // (StructureCheck::AccompanyIndexes). REQUIRES: the walk carries the structure check (an
  // exception from it then resets the check: Unfinished); FinishAccompanying after it.
  template <typename Reader>
  void CheckBeside(Reader& reader, const std::string& table, bool with_table,
                   const std::vector<uint32_t>& taken) {
    if (with_table) structure_.Accompany(table);
    structure_.AccompanyIndexes(table, taken);
    reader.FollowedBy([this](const PageReader& pages) { structure_.Follow(pages); });
  }
  // After that walk: the rest of the table's check, its damage thrown.
  void FinishAccompanying() {
    if (const std::optional<BtreeDamage> damage = structure_.FinishCompanion()) {
      Unfinished();
      file_.ThrowDamaged(*damage);
    }
  }

  // A walk that carried part of the structure check stopped midway: the check begins again.
  void Unfinished() {
    structure_.Reset();
    structure_checked_ = false;
  }

  // The pages, when the file alone holds this transaction's snapshot.
  DirectReaders OpenPages() {
    DirectReaders direct;
    pages_usable_ = file_.FileHoldsSnapshot();
    if (pages_usable_) {
      try {
        direct.pages.emplace(file_.fd());
      } catch (const DamagedPage&) {
        // SQLite read the header a moment ago: leave the error to it.
      }
    }
    direct.utf8 = direct.pages.has_value() && direct.pages->text_encoding() == 1;
    return direct;
  }

  // LookUpValues from the file's pages where they can serve it (direct_lookup.h), in this
  // transaction: false, having read nothing, elsewhere; else true, with in `rest` the tuples
  // left to SelectRows.
  bool LookUpDirect(const TableRef& ref, const Table& table,
                    const std::vector<Structure>& structures, const Lookup& lookup,
                    const std::vector<int>& wanted, SourceVisitor& visitor,
                    std::vector<std::vector<Cell>>& rest) {
    DirectReaders direct = OpenPages();
    if (!direct.utf8) return false;
    const DirectPassTarget to{visitor, table, wanted.size(), progress_, file_};
    return LookUpFromPages(*direct.pages, ref, table, structures, lookup, wanted, to, rest);
  }

  // The rows of one table: in passes over its b-trees where they hold every group the visitor
  // needs, else by SELECT.
  void ReadTable(const Table& table, const std::vector<int>& wanted,
                 const std::vector<std::vector<int>>& groups, std::vector<Structure>& structures,
                 DirectReaders& direct, SourceVisitor& visitor) {
    std::vector<Pass> passes;
    if (direct.pages.has_value() && !wanted.empty()) {
      if (!direct.utf8) std::erase_if(structures, [](const Structure& st) { return !st.rowids; });
      passes = PlanPasses(wanted, groups, structures);
    }
    if (passes.empty()) {
      SelectRows(file_, progress_, table, wanted, visitor);
      ++tables_sql_;
      return;
    }
    const DirectPassTarget to{visitor, table, wanted.size(), progress_, file_};
    // The table's own b-tree, when no pass reads it: checked beside an index pass that carries
    // the check, from that walk's pages (StructureCheck::Accompany).
    const bool table_read = std::any_of(passes.begin(), passes.end(),
                                        [](const Pass& p) { return p.structure->rowids; });
    for (std::size_t i = 0; i < passes.size(); ++i) {
      const Pass& pass = passes[i];
      visitor.OnPass(table, pass.present, i == 0);
      if (pass.structure->rowids) {
        if (!direct.rowids.has_value()) direct.rowids.emplace(*direct.pages);
        BtreeChecker* const check = structure_.Walk(pass.structure->root);
        const Unfollow<RowidReader> unfollow{*direct.rowids};
        if (check != nullptr) {
          CheckBeside(*direct.rowids, table.name, /*with_table=*/false,
                      WalkedIndexes(table, structures, passes, groups));
        }
        ReadRowids(*direct.rowids, pass, to, check);
        FinishAccompanying();
      } else {
        if (!direct.records.has_value()) direct.records.emplace(*direct.pages);
        BtreeChecker* const check = structure_.Walk(pass.structure->root);
        const Unfollow<IndexReader> unfollow{*direct.records};
        if (check != nullptr) {
          CheckBeside(*direct.records, table.name, /*with_table=*/!table_read,
                      WalkedIndexes(table, structures, passes, groups));
        }
        ReadRecords(*direct.records, pass, to, check);
        FinishAccompanying();
      }
    }
    ++tables_direct_;
  }

  const std::string path_;  // as given, for messages
  SqliteFile file_;
  SchemaReader schema_;
  ScanProgress progress_;
  std::optional<FileState> first_state_;  // at the start of the first scan
  // Whether a Scan began the structure check (then it is done but for what structure_ left to
  // later walks), or FinishStructureCheck did it. From the first scan on, structure_ records the
  // pages seen across transactions: the file is the same in each (InTransaction), so what it
  // records stays true.
  bool structure_checked_ = false;
  StructureCheck structure_;
  // What the last scan read, for reader(): tables read from the pages and by SELECT, and
  // whether the file alone held the snapshot (no -wal frames), which the pages need.
  int tables_direct_ = 0;
  int tables_sql_ = 0;
  bool pages_usable_ = true;
};

}  // namespace

std::unique_ptr<Source> OpenSqliteSource(const std::string& path) {
  return std::make_unique<SqliteSource>(path);
}

}  // namespace steadyflake::mergecheck
