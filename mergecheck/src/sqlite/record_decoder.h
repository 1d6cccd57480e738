// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal classes that may change between releases.
//
// RecordDecoder: the fields of one SQLite record (https://www.sqlite.org/fileformat.html 2.1),
// each as the Cell SQLite would return for it, its payload assembled from the overflow chain
// when it spills off its page. IndexReader (index b-trees) and TableReader (table b-trees)
// share it; they differ only in how a cell holds the record.
//
// Invariants it checks, throwing DamagedPage naming the page: the part of the payload kept on
// the page lies within the page; an overflow chain is as long as its payload says and no longer
// than the file; the header's serial types are valid and its fields lie within the payload.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SQLITE_RECORD_DECODER_H_
#define STEADYFLAKE_MERGECHECK_SRC_SQLITE_RECORD_DECODER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "source/source.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

// The first `width` fields of the record of `size` bytes at `record` (all on its page) as
// integers into out[0..width): true when the header is one byte long and so is each of those
// fields' serial types, each an integer (1-6, 8, 9), all within the record. False, writing part
// of `out` perhaps, for any other record (a NULL, a text, fewer fields, damage): the general
// path (RecordDecoder) then decodes or judges it. For readers that want integer keys only.
bool DecodeIntegerPrefix(const unsigned char* record, uint64_t size, std::size_t width,
                         int64_t* out);

class RecordDecoder {
 public:
  explicit RecordDecoder(const PageFile& file)
      : overflow_(file),
        max_local_index_(page_file_internal::MaxLocal(true, file.usable())),
        max_local_table_(page_file_internal::MaxLocal(false, file.usable())) {}

  // The records decoded from now on give fields `fields`: cells()[i] is field fields[i] of the
  // record (kNull when the record has fewer fields).
  void Want(std::span<const int> fields);

  // Decodes the record of `size` bytes whose payload starts at `start` on page `page`, whose
  // usable bytes end at `end`; `index` says whether the page is an index b-tree's (it keeps
  // another share of a large payload than a table's). Text and blobs point into the page or
  // the decoder's buffers, valid until the next call. Throws DamagedPage.
  std::span<const Cell> Decode(uint32_t page, uint64_t size, const unsigned char* start,
                               const unsigned char* end, bool index);

  // Whether the record Decode decoded last lacked a field wanted (given as kNull): a row written
  // before ALTER TABLE ADD COLUMN, for which SQLite reads the column's DEFAULT.
  bool lacked_fields() const { return lacked_; }

  // Bytes of overflow pages read so far, for progress.
  uint64_t bytes_read() const { return overflow_.bytes_read(); }

 private:
  struct Field {
    uint64_t type;    // the serial type
    uint64_t offset;  // of its bytes, from the start of the record
  };

  [[noreturn]] static void Fail(uint32_t page, const char* what) { throw DamagedPage{page, what}; }

  // The payload of `size` bytes whose first `local` are at `start` and the rest in the overflow
  // chain from page `first`, assembled in payload_.
  const unsigned char* Assemble(uint32_t page, const unsigned char* start, uint64_t local,
                                uint64_t size, uint32_t first);
  // Reads the header of the record at `record` into record_, up to the last field wanted.
  void ReadHeader(uint32_t page, const unsigned char* record, uint64_t size);
  // Decodes the first fields of `record` into cells_, when fields_ are 0, 1, ... and every
  // serial type up to them is a one-byte varint of an integer, a NULL, or a text or blob of
  // under 58 bytes (an index's key, commonly); false, with cells_ to be rewritten, otherwise,
  // and for anything the general path must judge (a damaged header).
  bool DecodePrefix(const unsigned char* record, uint64_t size);

  PageReader overflow_;  // overflow pages, so they do not break the runs of b-tree pages
  // The largest payload a cell keeps whole on an index's page, on a table's (LocalPayload).
  const uint64_t max_local_index_;
  const uint64_t max_local_table_;
  std::vector<int> fields_;
  std::vector<unsigned char> payload_;
  std::vector<Field> record_;   // the fields of the record, up to last_field_
  std::size_t last_field_ = 0;  // the last of the fields wanted
  bool prefix_ = false;         // fields_ are 0, 1, ..., in order
  bool lacked_ = false;         // lacked_fields()
  std::vector<Cell> cells_;
  std::vector<std::array<char, 32>> reals_;  // a REAL's text (Cell::bytes), per field
};

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SQLITE_RECORD_DECODER_H_
