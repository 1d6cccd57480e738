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
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "source/source.h"
#include "sqlite/page_file.h"

namespace steadyflake::mergecheck {

namespace record_decoder_internal {

inline constexpr uint8_t kFieldSizes[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};

// The bytes a field of serial type `type` takes in the record body.
constexpr uint64_t FieldSize(uint64_t type) {
  return type < 12 ? kFieldSizes[type] : (type - 12) / 2;
}

// The two's-complement big-endian integer of `size` bytes at p (serial types 1-6).
inline int64_t BigEndian(const unsigned char* p, uint64_t size) {
  if (size == 8) {  // the commonest in a table of 64-bit IDs: one load and a byte swap
    uint64_t bits = 0;
    std::memcpy(&bits, p, 8);
    if constexpr (std::endian::native == std::endian::little) bits = __builtin_bswap64(bits);
    return static_cast<int64_t>(bits);
  }
  // Sign-extend from the first byte, then shift the rest in.
  auto v = static_cast<int64_t>(static_cast<int8_t>(p[0]));
  for (uint64_t i = 1; i < size; ++i) {
    v = static_cast<int64_t>(static_cast<uint64_t>(v) << 8 | p[i]);
  }
  return v;
}

// What DecodePrefix makes of a one-byte serial type: its bytes in the body, and the Cell it
// gives. kRefuse: a type the general path must judge (a real, 10 and 11, a varint of two bytes
// or more, where the byte is one of them).
enum class Kind : uint8_t { kRefuse, kNull, kInteger, kConstant, kText, kBlob };
struct PrefixType {
  uint8_t bytes = 0;
  Kind kind = Kind::kRefuse;
};

constexpr std::array<PrefixType, 256> PrefixTypes() {
  std::array<PrefixType, 256> types{};
  const auto size = [](int t) { return static_cast<uint8_t>(FieldSize(static_cast<uint64_t>(t))); };
  types[0] = PrefixType{0, Kind::kNull};
  for (int t = 1; t <= 6; ++t) types[t] = PrefixType{size(t), Kind::kInteger};
  types[8] = types[9] = PrefixType{0, Kind::kConstant};
  for (int t = 12; t < 0x80; ++t)
    types[t] = PrefixType{size(t), t % 2 == 0 ? Kind::kBlob : Kind::kText};
  return types;
}

inline constexpr std::array<PrefixType, 256> kPrefixTypes = PrefixTypes();

}  // namespace record_decoder_internal

// The first `width` fields of the record of `size` bytes at `record` (all on its page) as
// integers into out[0..width): true when the header is one byte long and so is each of those
// fields' serial types, each an integer (1-6, 8, 9), all within the record. False, writing part
// of `out` perhaps, for any other record (a NULL, a text, fewer fields, damage): the general
// path (RecordDecoder) then decodes or judges it. For readers that want integer keys only.
// Inline: the index walk calls it for every record of an integer key (a call was a fifth of
// its cost).
inline bool DecodeIntegerPrefix(const unsigned char* record, uint64_t size, std::size_t width,
                                int64_t* out) {
  if (size == 0) return false;
  const uint64_t header_size = record[0];
  if (header_size >= 0x80 || header_size > size || header_size < width + 1) return false;
  uint64_t offset = header_size;
  for (std::size_t i = 0; i < width; ++i) {
    const record_decoder_internal::PrefixType t =
        record_decoder_internal::kPrefixTypes[record[1 + i]];
    if (t.bytes > size - offset) return false;
    if (t.kind == record_decoder_internal::Kind::kInteger) {
      out[i] = record_decoder_internal::BigEndian(record + offset, t.bytes);
    } else if (t.kind == record_decoder_internal::Kind::kConstant) {
      out[i] = record[1 + i] - 8;
    } else {
      return false;
    }
    offset += t.bytes;
  }
  return true;
}

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
