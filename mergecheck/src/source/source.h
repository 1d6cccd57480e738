// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// The source readers' contract: a Source streams a database's tables and rows to a
// SourceVisitor, in the order it reads them. SQLite files and SQL dumps implement it; the
// checker consumes it. Values arrive as Cells that point into the reader's buffers, valid only
// for the duration of the call, so nothing is copied that is not a key.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_SOURCE_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_SOURCE_H_

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "source/key_cursor.h"
#include "source/schema.h"

namespace steadyflake::mergecheck {

// One value as the source stored it, before any column affinity is applied.
struct Cell {
  enum class Type : uint8_t {
    kNull,
    kInteger,     // `integer` holds it
    kBigInteger,  // a non-negative integer above INT64_MAX (BIGINT UNSIGNED): `bytes` holds
                  // its decimal digits, no sign, no leading zeros
    kReal,        // `real` holds it; `bytes` holds the literal as written
    kText,        // `bytes` holds the decoded text (escapes resolved)
    kBlob,        // `bytes` holds the decoded bytes (X'..', 0x.., _binary '..', raw bytes)
  };
  Type type = Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string_view bytes;
};

// Writes `real` into `text` as the shortest literal that reads back as it, and returns that
// literal: the Cell::bytes of a REAL a reader got as a double.
inline std::string_view RealLiteral(double real, std::array<char, 32>& text) {
  const auto r = std::to_chars(text.data(), text.data() + text.size(), real);
  return {text.data(), static_cast<std::size_t>(r.ptr - text.data())};
}

class SourceVisitor {
 public:
  virtual ~SourceVisitor() = default;

  // A table's definition was read, or changed (a later CREATE INDEX / ALTER TABLE added a key;
  // then it is called again with the same name and the whole updated Table). Returns the
  // indexes into table.columns whose values OnRow must receive for rows that follow; the
  // source may skip decoding the others.
  virtual std::vector<int> OnTable(const Table& table) = 0;

  // One row of `table` (the last Table passed to OnTable under that name). `cells[i]` is the
  // value of column `wanted[i]`, where `wanted` is what OnTable returned; a column the row does
  // not give (an INSERT with a column list that leaves it out) arrives as kNull.
  // `position` locates the row for a second read (SQLite: rowid, or the row's ordinal in a
  // WITHOUT ROWID table; dumps: the byte offset of the row's '(' in the uncompressed input, which
  // Source::ReadRowsAt reads it again by).
  virtual void OnRow(const Table& table, std::span<const Cell> cells, uint64_t position) = 0;

  // Rows of `table` at once, in the order read: the i-th is what OnRow(table, cells.subspan(i *
  // width, width), positions[i]) gives. The default calls OnRow so, row by row; the Collector
  // computes each key over the rows at once (collect_rows.cpp). A dump's rows come so
  // (dump/row_reader.h), a few hundred at a time.
  virtual void OnRows(const Table& table, std::span<const Cell> cells, std::size_t width,
                      std::span<const uint64_t> positions);

  // Reading by key (SQLite files). Called after OnTable: the sets of wanted columns (indexes
  // into table.columns) that the visitor needs within one row, one per key it computes. Empty
  // (the default): it needs every wanted column in every row. A source that knows a structure
  // holding each set in full (an index) may then read the table in passes instead of rows.
  virtual std::vector<std::vector<int>> Groups(const Table& /*table*/) { return {}; }

  // The OnRow calls that follow, up to the next OnPass or OnTable, are one pass over every row
  // of `table` that gives only the wanted columns at `present` (positions in `cells`,
  // ascending: whole groups of Groups()); the other cells are kNull and say nothing. `first` is
  // true for a table's first pass, the one whose rows to count. Without OnPass, every row gives
  // every wanted column.
  virtual void OnPass(const Table& /*table*/, std::span<const int> /*present*/, bool /*first*/) {}

  // A run of rows of a pass over a rowid table's rowids (OnPass): for each of `rowids`
  // (ascending), what OnRow(table, cells, rowid) gives, `cells` being `width` cells that hold
  // the rowid at `present` and are kNull elsewhere. The default calls OnRow so, row by row; a
  // visitor may take the run at once (the Collector appends an integer key's values in bulk).
  virtual void OnRowids(const Table& table, std::span<const int> present, std::size_t width,
                        std::span<const int64_t> rowids);

  // A run of rows of a pass that gives one field (OnPass), each of them an integer: for the
  // i-th of `values`, what OnRow(table, cells, first + i) gives, `cells` being `width` cells that
  // hold the value at `present` and are kNull elsewhere. The default calls OnRow so, row by row;
  // the Collector appends an integer key's values in bulk, as for OnRowids.
  virtual void OnIntegers(const Table& table, std::span<const int> present, std::size_t width,
                          std::span<const int64_t> values, uint64_t first);

  // After OnTable: true when the visitor needs no row of `table` from this scan, having other
  // ways to every key of it (Source::ReadInIndexOrder, which also gives its rows' count). A
  // source may then skip the table; one that reads it anyway calls OnRow as usual. A visitor
  // that says true, or whose Groups leave out a key the source marked Key::in_index_order,
  // reads that key later by ReadInIndexOrder, and then calls Source::FinishStructureCheck: the
  // SQLite source checks such a key's index on that walk, and what no walk read at the call.
  virtual bool NeedsNoRows(const Table& /*table*/) { return false; }
};

// True when every one of `needed` (positions in a row's cells) is in `present` (ascending):
// a visitor's test of whether a pass gives what a key needs.
bool Covers(std::span<const int> present, std::span<const int> needed);

// A visitor's account of which of its keys the rows of the current pass compute (OnPass): each
// key is computed by the first pass of its table that gives all its columns; without passes,
// by every row.
class PassKeys {
 public:
  // A table begins (OnTable).
  void Reset() {
    active_.clear();
    done_.clear();
  }
  // A pass of a table with `keys` keys gives the cells `present`; needed(i) is key i's cells.
  template <typename Needed>
  void Start(std::size_t keys, std::span<const int> present, Needed&& needed) {
    done_.resize(keys, 0);
    active_.assign(keys, 0);
    for (std::size_t i = 0; i < keys; ++i) {
      if (done_[i] == 0 && Covers(present, needed(i))) active_[i] = done_[i] = 1;
    }
  }
  // Whether the rows of the current pass compute key `i`.
  bool Computes(std::size_t i) const { return active_.empty() || active_[i] != 0; }

 private:
  std::vector<char> active_;  // empty: no pass (every row gives every column)
  std::vector<char> done_;
};

// Source::ReadInIndexOrder's callbacks: one record's Cells; a run of integer records.
using RecordsInOrder = std::function<void(std::span<const Cell>)>;
using IntegersInOrder = std::function<void(std::span<const int64_t>)>;

class Source {
 public:
  virtual ~Source() = default;

  // "sqlite", "sqlite-dump" or "mysql-dump", with "+gzip" when compressed.
  virtual std::string format() const = 0;

  // How the last Scan read the rows (InputReport::reader).
  virtual std::string reader() const = 0;

  // Reads the whole input once, calling `visitor` as it goes; only tables named in `only`
  // (all when empty) get OnRow calls. May be called again (the checker rereads when a key was
  // declared after rows of its table, e.g. ALTER TABLE ... ADD PRIMARY KEY at the end of a
  // mysqldump). Throws Error(kInvalidArgument) naming the file and line (dumps) or what SQLite
  // said (files) for input that cannot be read: truncated, corrupt, unrecognised.
  virtual void Scan(SourceVisitor& visitor, const std::vector<std::string>& only) = 0;

  // Reads the rows of table `table` whose `columns` (matched without regard to ASCII case)
  // hold one of `tuples` (one Cell per column: an integer, a real, text or a blob; never NULL),
  // by one indexed lookup each: OnTable for the table, then OnRow for each row found (a row may
  // come once per tuple it matches). `collations` (one per column, or empty) names the collation
  // a text value compares under ("BINARY", "NOCASE", "RTRIM"; "" for the column's own): a row
  // is found when its value equals the tuple's under it, as the database compares them. Within
  // one read transaction, and like Scan fails when the input changed since the first Scan.
  // Returns false, having called nothing, when this source cannot look rows up (a dump: it can
  // only be read from start to end; a SQLite table with no index keyed by those columns under
  // those collations, where each lookup would read the whole table; a collation the database
  // does not know); then Scan instead.
  virtual bool LookUpValues(SourceVisitor& /*visitor*/, const std::string& /*table*/,
                            const std::vector<std::string>& /*columns*/,
                            const std::vector<std::string>& /*collations*/,
                            const std::vector<std::vector<Cell>>& /*tuples*/) {
    return false;
  }

  // LookUpValues of integer tuples (one per column), under the columns' own collations.
  bool LookUp(SourceVisitor& visitor, const std::string& table,
              const std::vector<std::string>& columns,
              const std::vector<std::vector<int64_t>>& tuples) {
    std::vector<std::vector<Cell>> cells;
    cells.reserve(tuples.size());
    for (const std::vector<int64_t>& tuple : tuples) {
      std::vector<Cell>& row = cells.emplace_back(tuple.size());
      for (std::size_t i = 0; i < tuple.size(); ++i) {
        row[i].type = Cell::Type::kInteger;
        row[i].integer = tuple[i];
      }
    }
    return LookUpValues(visitor, table, columns, {}, cells);
  }

  // Calls on_record once for every row of `table` with the values of its key over `columns`
  // (matched without regard to ASCII case), one Cell per column in that order, in the order of
  // an index whose leading fields are those columns, ascending, each sorted under its collation
  // of `collations` (a key the schema marked Key::in_index_order): as the index holds them,
  // NULLs included. The Cells are valid during the call; what on_record throws passes through.
  // Within one read transaction, and like Scan fails when the input changed since the first
  // Scan. Returns false, having called nothing, when this source cannot (a dump; no such index;
  // the index cannot be read directly now).
  //
  // With on_integers (may be empty): records whose every value is an integer may instead be
  // given to it in runs, `columns.size()` values a record, one record after another, in their
  // place among the records given to on_record. So an integer key costs no Cell a value.
  virtual bool ReadInIndexOrder(const std::string& /*table*/,
                                const std::vector<std::string>& /*columns*/,
                                const std::vector<std::string>& /*collations*/,
                                const RecordsInOrder& /*on_record*/,
                                const IntegersInOrder& /*on_integers*/) {
    return false;
  }

  // Calls on_record with up to `most` records spread evenly over what ReadInIndexOrder would
  // give for the same arguments, in its order (their key columns' Cells, valid during the call),
  // and returns how many: a hint where to split the key range into parts of about equal size,
  // read in a transaction of its own and checked no further than it needs. Returns 0, having
  // called nothing, when there are none (an index of one page) or this source cannot say.
  virtual std::size_t SplitsInIndexOrder(const std::string& /*table*/,
                                         const std::vector<std::string>& /*columns*/,
                                         const std::vector<std::string>& /*collations*/,
                                         std::size_t /*most*/,
                                         const RecordsInOrder& /*on_record*/) {
    return 0;
  }

  // Calls `use` with a maker of cursors over the first field of the index ReadInIndexOrder reads
  // for `table`'s key `column` under `collation` (KeyCursor), within one read transaction, for a
  // merge of that key split among threads: the cursors are made and used on any thread during
  // the call. What `use` throws passes through. Returns false, having called nothing, when this
  // source cannot (as ReadInIndexOrder), or when it could not check the index's structure
  // without a walk of the whole of it (ReadInIndexOrder's walk then checks it).
  virtual bool WithKeyCursors(const std::string& /*table*/, const std::string& /*column*/,
                              const std::string& /*collation*/,
                              const std::function<void(const KeyCursors&)>& /*use*/) {
    return false;
  }

  // Whether ReadRowsAt can read rows again by the positions Scan gave them (a plain dump): a
  // visitor that will want a few rows later need keep only their positions. Fixed for a source.
  virtual bool ReadsRowsAt() const { return false; }

  // Reads again the rows of table `table` at `positions` (ascending, distinct; positions the last
  // Scan that gave rows of `table` gave them at): OnTable for the table as that Scan left it,
  // then OnRow for each row. Returns false, having called nothing, when this source cannot (see
  // ReadsRowsAt; no Scan gave rows of `table`; the dump created the table twice); then Scan
  // instead. Throws Error(kInvalidArgument) when the input changed since it was opened.
  virtual bool ReadRowsAt(SourceVisitor& /*visitor*/, const std::string& /*table*/,
                          std::span<const uint64_t> /*positions*/) {
    return false;
  }

  // Finishes the structure check of the input (SQLite files: btree_check.h) that the first Scan
  // began: checks the b-trees it left to a later walk in index order (SourceVisitor::NeedsNoRows,
  // Groups) that no ReadInIndexOrder has read since; the whole file when no Scan began the check
  // or one that carried it failed. Every b-tree is then checked once. Call it after the last
  // ReadInIndexOrder, before trusting that the input is undamaged; until then an index the merge
  // never read may hold damage no one saw. Within one read transaction; throws Error like Scan
  // (a damaged page, named with its owner; the input changed). A dump: nothing to do.
  virtual void FinishStructureCheck() {}

  // Bytes and rows read so far by the current Scan (for progress; any thread may call it).
  virtual uint64_t bytes_read() const = 0;
  virtual uint64_t rows_read() const = 0;
  // How far into the input file the reading has come, and the file's size (Options::Progress);
  // 0 and 0 when the source does not know (any thread may call them).
  virtual uint64_t file_read() const { return 0; }
  virtual uint64_t file_size() const { return 0; }
};

// Opens `path` read-only and picks the reader by content: the SQLite header
// ("SQLite format 3\0"), gzip's magic bytes (then looks inside), or SQL text. Throws
// Error(kInvalidArgument) naming the path for a missing or unreadable file or one that is
// neither.
std::unique_ptr<Source> OpenSource(const std::string& path);

// The two readers (src/sqlite_source.cpp, src/dump_source.cpp). OpenDumpSource handles plain
// and gzip-compressed text.
std::unique_ptr<Source> OpenSqliteSource(const std::string& path);
std::unique_ptr<Source> OpenDumpSource(const std::string& path, bool gzip);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_SOURCE_H_
