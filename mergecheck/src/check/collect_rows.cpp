// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Collector::OnRows: the keys of a run of rows (a dump gives a few hundred at once), computed
// key by key. Each row gets what OnRow would give it, in the same order per key set and in the
// same places of the row directory; the loops are swapped. Per row, OnRow paid for the virtual
// call, finding the table and the key's kind, and waited on each key's hash before the next
// key; over a run, the checks are made once and a row's hash overlaps the next row's.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "check/collect.h"

namespace steadyflake::mergecheck {

bool Collector::KeysAtOnce(const TableState& t, std::span<const Cell> cells,
                           std::size_t width) const {
  for (std::size_t i = 0; i < t.keys.size(); ++i) {
    const KeyState& k = t.keys[i];
    if (!pass_keys_.Computes(i) || k.deferred) return false;
    if (!t.directory.on() || !t.directory.Implicit(i)) continue;
    // An Implicit key is one INTEGER column (Collector::ResetDirectory): an integer cell is
    // its value as it is (ApplyAffinity).
    const auto cell = static_cast<std::size_t>(k.cell[0]);
    for (std::size_t at = cell; at < cells.size(); at += width) {
      if (cells[at].type != Cell::Type::kInteger) return false;
    }
  }
  return true;
}

void Collector::OnRows(const Table& table, std::span<const Cell> cells, std::size_t width,
                       std::span<const uint64_t> positions) {
  TableState& t = TableOf(table);
  if (!t.selected || t.keyless || (t.stale && !rereading_) || !KeysAtOnce(t, cells, width)) {
    SourceVisitor::OnRows(table, cells, width, positions);  // OnRow, row by row
    return;
  }
  const std::size_t rows = positions.size();
  if (counting_ && (!rereading_ || t.uncounted)) {
    t.rows += rows;
    rows_ += rows;
  }
  const uint64_t before = since_progress_;
  since_progress_ += rows;
  if ((before >> 16) != (since_progress_ >> 16)) Tick();  // as OnRow's every 65,536 rows
  const std::size_t first = t.directory.on() ? t.directory.Rows(positions) : 0;
  const std::size_t keys = t.keys.size();  // once: the sets' appends may alias t.keys
  for (std::size_t i = 0; i < keys; ++i) KeyOverRows(t, i, cells, width, rows, first);
}

void Collector::KeyOverRows(TableState& t, std::size_t i, std::span<const Cell> cells,
                            std::size_t width, std::size_t rows, std::size_t first) {
  KeyState& k = t.keys[i];
  RowDirectory& directory = t.directory;
  const bool keep = directory.on();
  if (keep && directory.Implicit(i)) {  // integers (KeysAtOnce), in row order
    run_.resize(rows);
    const auto cell = static_cast<std::size_t>(k.cell[0]);
    for (std::size_t row = 0; row < rows; ++row) run_[row] = cells[row * width + cell].integer;
    k.set.AddIntegers(run_);
    return;
  }
  if (k.cell.size() == 1 && k.affinity[0] == Affinity::kText && k.prefix[0] == 0) {
    TextKeyOverRows(t, i, cells, width, rows, first);
    return;
  }
  int64_t integer = 0;
  IntegerPair pair;
  Hash128 hash;
  for (std::size_t row = 0; row < rows; ++row) {
    const KeyKind kind = KeyOf(k, cells.subspan(row * width, width), scratch_, integer, pair, hash);
    AddKey(k, kind, integer, pair, hash, keep,
           [&](uint32_t kept) { directory.KeyAt(first + row, i, kept); });  // 0: NULL
  }
}

// A key of one TEXT column (a name): its text cells hashed as KeyOf hashes them, without
// KeyOf's tests per row; where the directory keeps the key's fingerprints, only those
// (FingerprintOfEncoding), which is all AddKey then reads of the hash. In blocks: a block's
// values are encoded first (EncodeOneText), then hashed. The hash loads the encoding by words,
// and a load that spans several narrower stores still in flight (the tag, the length, the
// collation's key) cannot take its bytes from them: it waits for them to reach the cache. Row
// by row, that wait was 38% of this loop's processor samples on two dumps of 2M names.
void Collector::TextKeyOverRows(TableState& t, std::size_t i, std::span<const Cell> cells,
                                std::size_t width, std::size_t rows, std::size_t first) {
  constexpr std::size_t kBlock = 32;
  KeyState& k = t.keys[i];
  RowDirectory& directory = t.directory;
  const bool keep = directory.on();
  const auto text_cell = static_cast<std::size_t>(k.cell[0]);
  char texts[kBlock * kOneTextRoom];  // the block's encodings, one room each
  std::size_t sizes[kBlock];
  int64_t integer = 0;
  IntegerPair pair;
  Hash128 hash;
  for (std::size_t from = 0; from < rows; from += kBlock) {
    const std::size_t block = std::min(kBlock, rows - from);
    for (std::size_t r = 0; r < block; ++r) {
      const Cell& cell = cells[(from + r) * width + text_cell];
      sizes[r] = cell.type == Cell::Type::kText
                     ? EncodeOneText(k.collation[0], cell.bytes, texts + r * kOneTextRoom)
                     : 0;  // not text, or not so encoded: KeyOf
    }
    for (std::size_t r = 0; r < block; ++r) {
      const std::size_t row = from + r;
      const std::string_view encoding(texts + r * kOneTextRoom, sizes[r]);
      KeyKind kind = KeyKind::kHash;
      if (sizes[r] == 0) {
        kind = KeyOf(k, cells.subspan(row * width, width), scratch_, integer, pair, hash);
      } else if (keep) {
        hash = Hash128{0, FingerprintOfEncoding(encoding)};  // HashFingerprint(hash) == it
      } else {
        hash = KeyHash(encoding);
      }
      AddKey(k, kind, integer, pair, hash, keep,
             [&](uint32_t kept) { directory.KeyAt(first + row, i, kept); });  // 0: NULL
    }
  }
}

}  // namespace steadyflake::mergecheck
