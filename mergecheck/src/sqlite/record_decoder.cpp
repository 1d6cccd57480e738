// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// RecordDecoder (file format 2.1): a header of serial types, then the fields.

#include "sqlite/record_decoder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace steadyflake::mergecheck {

namespace {

using page_file_internal::Get32;
using page_file_internal::GetVarint;
using record_decoder_internal::BigEndian;
using record_decoder_internal::FieldSize;
using record_decoder_internal::Kind;
using record_decoder_internal::kPrefixTypes;
using record_decoder_internal::PrefixType;

}  // namespace

void RecordDecoder::Want(std::span<const int> fields) {
  fields_.assign(fields.begin(), fields.end());
  cells_.resize(fields.size());
  reals_.resize(fields.size());
  last_field_ = 0;
  prefix_ = true;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    last_field_ = std::max(last_field_, static_cast<std::size_t>(fields[i]));
    prefix_ = prefix_ && fields[i] == static_cast<int>(i);
  }
}

const unsigned char* RecordDecoder::Assemble(uint32_t page, const unsigned char* start,
                                             uint64_t local, uint64_t size, uint32_t first) {
  const uint32_t usable = overflow_.file().usable();
  if (size > uint64_t{overflow_.file().pages()} * usable) {
    Fail(page, "a cell's payload is larger than the file");
  }
  // Grown page by page, so a crafted size costs no more memory than the chain really holds.
  payload_.assign(start, start + local);
  uint32_t next = first;
  uint64_t chain = 0;
  while (payload_.size() < size) {
    if (next == 0) Fail(page, "a cell's overflow chain ends before its payload");
    if (++chain > overflow_.file().pages()) Fail(page, "a cell's payload is larger than the file");
    const unsigned char* data = overflow_.Page(next);
    const uint64_t n = std::min<uint64_t>(size - payload_.size(), usable - 4);
    payload_.insert(payload_.end(), data + 4, data + 4 + n);
    next = Get32(data);
  }
  return payload_.data();
}

void RecordDecoder::ReadHeader(uint32_t page, const unsigned char* record, uint64_t size) {
  const unsigned char* const record_end = record + size;
  // The header: its size, then one serial type per field; read up to the last field wanted.
  uint64_t header_size = 0;
  int m = GetVarint(record, record_end, header_size);
  if (m == 0 || header_size > size || header_size < static_cast<uint64_t>(m)) {
    Fail(page, "a record's header is larger than its payload");
  }
  record_.clear();
  uint64_t offset = header_size;
  const unsigned char* const header_end = record + header_size;
  for (const unsigned char* p = record + m; p < header_end && record_.size() <= last_field_;) {
    uint64_t type = *p;
    if (type < 0x80) {
      ++p;  // a one-byte varint: every serial type but long text and blobs
    } else {
      m = GetVarint(p, header_end, type);
      if (m == 0) Fail(page, "a record's header is damaged");
      p += m;
    }
    if (type == 10 || type == 11) Fail(page, "a record's header is damaged");
    // Checked field by field: a sum checked once could wrap around 2^64.
    if (FieldSize(type) > size - offset) Fail(page, "a record's fields run past its payload");
    record_.push_back(Field{type, offset});
    offset += FieldSize(type);
  }
}

bool RecordDecoder::DecodePrefix(const unsigned char* record, uint64_t size) {
  if (size == 0) return false;  // no header: the general path names the damage
  const uint64_t header_size = record[0];
  if (header_size == 0 || header_size >= 0x80 || header_size > size) return false;
  // One byte a serial type (a byte of a longer varint is refused below): the header holds the
  // types of its first header_size - 1 fields; those past them are NULL.
  const std::size_t present = std::min<std::size_t>(header_size - 1, cells_.size());
  uint64_t offset = header_size;
  for (std::size_t i = 0; i < present; ++i) {
    Cell& out = cells_[i];
    const uint8_t type = record[1 + i];
    const PrefixType t = kPrefixTypes[type];
    if (t.kind == Kind::kRefuse || t.bytes > size - offset) return false;
    const unsigned char* const at = record + offset;
    offset += t.bytes;
    switch (t.kind) {
      case Kind::kNull:
        out.type = Cell::Type::kNull;
        break;
      case Kind::kInteger:
        out.type = Cell::Type::kInteger;
        out.integer = BigEndian(at, t.bytes);
        break;
      case Kind::kConstant:
        out.type = Cell::Type::kInteger;
        out.integer = type - 8;
        break;
      case Kind::kText:
      case Kind::kBlob:
        out.type = t.kind == Kind::kText ? Cell::Type::kText : Cell::Type::kBlob;
        out.bytes = std::string_view(reinterpret_cast<const char*>(at), t.bytes);
        break;
      case Kind::kRefuse:
        return false;
    }
  }
  for (std::size_t i = present; i < cells_.size(); ++i) cells_[i].type = Cell::Type::kNull;
  lacked_ = present < cells_.size();
  return true;
}

std::span<const Cell> RecordDecoder::Decode(uint32_t page, uint64_t size,
                                            const unsigned char* start, const unsigned char* end,
                                            bool index) {
  // The commonest record: all on its page (file format 1.6), its first fields in one pass.
  if (prefix_ && size <= (index ? max_local_index_ : max_local_table_) &&
      size <= static_cast<uint64_t>(end - start) && DecodePrefix(start, size)) {
    return cells_;
  }
  const uint64_t local = page_file_internal::LocalPayload(size, index, overflow_.file().usable());
  if (local > static_cast<uint64_t>(end - start) ||
      (local < size && local + 4 > static_cast<uint64_t>(end - start))) {
    Fail(page, "a cell lies outside the page");
  }
  const unsigned char* record =
      local == size ? start : Assemble(page, start, local, size, Get32(start + local));
  if (prefix_ && local != size && DecodePrefix(record, size)) return cells_;
  ReadHeader(page, record, size);
  lacked_ = false;
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    Cell& out = cells_[i];
    const auto at = static_cast<std::size_t>(fields_[i]);
    if (at >= record_.size()) {
      out.type = Cell::Type::kNull;
      lacked_ = true;
      continue;
    }
    const Field& field = record_[at];
    const unsigned char* p = record + field.offset;
    switch (field.type) {
      case 0:
        out.type = Cell::Type::kNull;
        break;
      case 7: {
        uint64_t bits = static_cast<uint64_t>(BigEndian(p, 8));
        std::memcpy(&out.real, &bits, sizeof bits);
        out.type = Cell::Type::kReal;
        out.bytes = RealLiteral(out.real, reals_[i]);
        break;
      }
      case 8:
      case 9:
        out.type = Cell::Type::kInteger;
        out.integer = static_cast<int64_t>(field.type - 8);
        break;
      default:
        if (field.type < 7) {
          out.type = Cell::Type::kInteger;
          out.integer = BigEndian(p, FieldSize(field.type));
        } else {
          out.type = field.type % 2 == 0 ? Cell::Type::kBlob : Cell::Type::kText;
          out.bytes = std::string_view(reinterpret_cast<const char*>(p), FieldSize(field.type));
        }
        break;
    }
  }
  return cells_;
}

}  // namespace steadyflake::mergecheck
