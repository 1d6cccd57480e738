// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "sqlite/direct_reads.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

namespace {

// Runs `walk` (a pass's walk of its b-tree; returns the pages it visited), turning a damaged
// page into the error that names it and the b-tree's owner.
template <typename Walk>
uint64_t Walking(const Pass& pass, const SqliteFile& file, Walk&& walk) {
  try {
    return walk();
  } catch (const DamagedPage& corrupt) {
    file.ThrowDamaged(BtreeDamage{corrupt.page(), corrupt.what(), pass.structure->owner});
  }
}

// A REAL column stores an integral value as an integer; SQLite gives it back as a REAL, its
// literal (Cell::bytes) written into `text`.
void AsReal(Cell& cell, std::array<char, 32>& text) {
  if (cell.type != Cell::Type::kInteger) return;
  cell.type = Cell::Type::kReal;
  cell.real = static_cast<double>(cell.integer);
  cell.bytes = RealLiteral(cell.real, text);
}

}  // namespace

void ReadRowids(RowidReader& direct, const Pass& pass, const DirectPassTarget& to,
                BtreeChecker* check) {
  // The rowids go to the visitor in runs (SourceVisitor::OnRowids) of whole leaves: one call
  // per run, not per row, and published as progress per run.
  std::vector<int64_t> run;
  run.reserve(ScanProgress::kBatch);
  uint64_t unpublished = 0;
  const uint64_t start = direct.bytes_read();
  const auto flush = [&] {
    to.visitor.OnRowids(to.table, pass.present, to.width, run);
    to.progress.CountRows(unpublished, run.size(), direct, start);
    run.clear();
  };
  const uint64_t pages = Walking(pass, to.file, [&] {
    return direct.Walk(
        pass.structure->root,
        [&](std::span<const int64_t> rowids) {  // a leaf's
          run.insert(run.end(), rowids.begin(), rowids.end());
          if (run.size() >= ScanProgress::kBatch) flush();
        },
        check);
  });
  flush();
  to.progress.FinishPass(unpublished, pages, direct.page_size());
}

void ReadRecords(IndexReader& direct, const Pass& pass, const DirectPassTarget& to,
                 BtreeChecker* check) {
  std::vector<Cell> cells(to.width);
  // A REAL column stores an integral value as an integer; SQLite gives it back as a REAL.
  std::vector<bool> real(pass.fields.size());
  for (std::size_t i = 0; i < real.size(); ++i) {
    const int column = pass.structure->fields[static_cast<std::size_t>(pass.fields[i])];
    real[i] = to.table.columns[static_cast<std::size_t>(column)].affinity == Affinity::kReal;
  }
  std::vector<std::array<char, 32>> real_text(real.size());
  uint64_t unpublished = 0;
  uint64_t ordinal = 0;
  const uint64_t start = direct.bytes_read();
  // A pass of one field that is not REAL gives its integers in runs (SourceVisitor::OnIntegers),
  // as ReadRowids gives rowids; any other value ends a run and goes on its own.
  const bool runs = pass.fields.size() == 1 && !real[0];
  std::vector<int64_t> run;
  if (runs) run.reserve(ScanProgress::kBatch);
  const auto flush = [&] {
    if (run.empty()) return;
    to.visitor.OnIntegers(to.table, pass.present, to.width, run, ordinal - run.size());
    to.progress.CountRows(unpublished, run.size(), direct, start);
    run.clear();
  };
  const auto integer = [&](int64_t value) {
    run.push_back(value);
    ++ordinal;
    if (run.size() == ScanProgress::kBatch) flush();
  };
  const auto each_record = [&](std::span<const Cell> record) {
    if (runs && record[0].type == Cell::Type::kInteger) return integer(record[0].integer);
    flush();
    for (std::size_t i = 0; i < record.size(); ++i) {
      Cell& cell = cells[static_cast<std::size_t>(pass.present[i])];
      cell = record[i];
      if (real[i]) AsReal(cell, real_text[i]);
    }
    to.visitor.OnRow(to.table, cells, ordinal++);
    to.progress.CountRow(unpublished, direct, start);
  };
  // The walk decodes a record of one small integer straight into `value` (no Cell) when the
  // pass gives runs and reads the records' first field (IndexReader::Walk).
  struct Records {
    const decltype(each_record)& each;
    const decltype(integer)& take;
    const bool integers;
    int64_t value = 0;
    int64_t* IntegerTuple() { return integers ? &value : nullptr; }
    void TakeIntegerTuple() { take(value); }
    void operator()(std::span<const Cell> cells) const { each(cells); }
  };
  Records records{each_record, integer, runs && pass.fields[0] == 0};
  const uint64_t pages = Walking(pass, to.file, [&] {
    return direct.Walk(pass.structure->root, pass.fields, records, check);
  });
  flush();
  to.progress.FinishPass(unpublished, pages, direct.page_size());
}

std::vector<int64_t> LookUpRowids(TableReader& direct, uint32_t root, int alias,
                                  std::span<const int64_t> rowids, const std::vector<int>& wanted,
                                  const DirectPassTarget& to) {
  std::vector<Cell> cells(to.width);
  std::vector<bool> real(wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    real[i] = to.table.columns[static_cast<std::size_t>(wanted[i])].affinity == Affinity::kReal;
  }
  std::vector<std::array<char, 32>> real_text(wanted.size());
  std::vector<int64_t> lacking;
  uint64_t given = 0;
  try {
    direct.Seek(root, rowids, wanted,
                [&](int64_t rowid, std::span<const Cell> record, bool lacked) {
                  if (lacked) return lacking.push_back(rowid);
                  for (std::size_t i = 0; i < record.size(); ++i) {
                    Cell& cell = cells[i];
                    cell = record[i];
                    if (wanted[i] == alias) {  // its field holds NULL: the value is the rowid
                      cell.type = Cell::Type::kInteger;
                      cell.integer = rowid;
                    } else if (real[i]) {
                      AsReal(cell, real_text[i]);
                    }
                  }
                  to.visitor.OnRow(to.table, cells, static_cast<uint64_t>(rowid));
                  ++given;
                });
  } catch (const DamagedPage& corrupt) {
    to.file.ThrowDamaged(BtreeDamage{corrupt.page(), corrupt.what(), "table " + to.table.name});
  }
  to.progress.Publish(given);
  return lacking;
}

}  // namespace steadyflake::mergecheck
