// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// RecordDecoder (sqlite/record_decoder.h): records built here byte by byte (file format 2.1)
// decode to the same cells whichever path reads them, the one for a key's first fields (an
// index walk's, with one-byte serial types) or the general one, and a record with fewer fields
// than asked for gives NULL for the rest.

#include "sqlite/record_decoder.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "mergecheck_test_util.h"
#include "sqlite/page_file.h"
#include "test_util.h"

namespace steadyflake::mergecheck {
namespace {

using testing::TempDir;

// A SQLite file to give the decoder its page size (it reads no page of it here).
class DecoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = dir_.File("pages.db");
    testing::ExecSql(path, "PRAGMA page_size = 4096; CREATE TABLE t(a); INSERT INTO t VALUES(1);");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
    file_ = std::make_unique<PageFile>(fd_);
  }
  void TearDown() override {
    file_.reset();
    if (fd_ >= 0) ::close(fd_);
  }

  TempDir dir_;
  int fd_ = -1;
  std::unique_ptr<PageFile> file_;
};

// A record of the serial types `types`, each field's bytes drawn from `rng`.
std::vector<unsigned char> Record(const std::vector<uint64_t>& types, std::mt19937_64& rng) {
  static constexpr uint8_t kSizes[10] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  std::vector<unsigned char> header;
  std::vector<unsigned char> body;
  for (const uint64_t type : types) {
    testing::AppendVarint(type, header);
    const uint64_t size = type < 10 ? kSizes[type] : (type - 12) / 2;
    for (uint64_t i = 0; i < size; ++i) {
      body.push_back(static_cast<unsigned char>(type >= 12 ? 'a' + rng() % 26 : rng()));
    }
  }
  // The header's size counts its own varint.
  std::vector<unsigned char> record;
  const uint64_t size = header.size() + (header.size() + 1 < 0x80 ? 1 : 2);
  testing::AppendVarint(size, record);
  record.insert(record.end(), header.begin(), header.end());
  record.insert(record.end(), body.begin(), body.end());
  return record;
}

std::string Describe(const Cell& c) {
  switch (c.type) {
    case Cell::Type::kNull:
      return "NULL";
    case Cell::Type::kInteger:
      return "int " + std::to_string(c.integer);
    case Cell::Type::kReal: {
      uint64_t bits = 0;
      std::memcpy(&bits, &c.real, sizeof bits);
      return "real " + std::to_string(bits) + " " + std::string(c.bytes);
    }
    case Cell::Type::kText:
      return "text " + std::string(c.bytes);
    case Cell::Type::kBlob:
      return "blob " + std::string(c.bytes);
    case Cell::Type::kBigInteger:
      return "big " + std::string(c.bytes);
  }
  return "?";
}

std::vector<std::string> Decoded(RecordDecoder& decoder, const std::vector<unsigned char>& record,
                                 std::size_t count) {
  // The page runs on past the record, as a cell's page does.
  std::vector<unsigned char> page(record);
  page.resize(record.size() + 64, 0x08);
  const std::span<const Cell> cells =
      decoder.Decode(2, record.size(), page.data(), page.data() + page.size(), true);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(Describe(cells[i]));
  return out;
}

// Varints of every length (1 to 9 bytes, the 9th a whole byte), read with 9 bytes or more before
// the end (the path that loads 8 at once) and with fewer (a byte at a time), or cut off: the same
// value and length as SQLite's format gives them.
TEST(VarintTest, EveryLengthReadsAsWritten) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  for (int round = 0; round < 200000; ++round) {
    const int bits = 1 + static_cast<int>(rng() % 64);
    const uint64_t value = bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
    std::vector<unsigned char> bytes;
    testing::AppendVarint(value, bytes);
    const std::size_t length = bytes.size();
    for (int i = 0; i < 12; ++i) bytes.push_back(static_cast<unsigned char>(rng()));
    for (std::size_t room = 0; room <= length + 10; ++room) {
      uint64_t got = ~value;
      const int n = page_file_internal::GetVarint(bytes.data(), bytes.data() + room, got);
      if (room < length) {
        ASSERT_EQ(n, 0) << value << " cut off at " << room;
      } else {
        ASSERT_EQ(n, static_cast<int>(length)) << value << " with " << room << " bytes";
        ASSERT_EQ(got, value) << "with " << room << " bytes";
      }
    }
  }
}

// The two ways of joining the 7-bit groups of eight bytes (GetVarint's path with 9 bytes before
// the end): by masks and shifts, and by PEXT where the processor has BMI2 (GetVarint takes it
// where PEXT is fast, kFastBitGather), each against the groups joined a byte at a time.
TEST(VarintTest, BothWaysOfJoiningEightBytesJoinThemAsBytesDo) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  const bool pext = __builtin_cpu_supports("bmi2");
#else
  const bool pext = false;
#endif
  if (!pext) std::cout << "this processor has no BMI2: PEXT's way not tried\n";
  for (int round = 0; round < 200000; ++round) {
    const uint64_t x = rng();
    uint64_t bytewise = 0;
    for (int i = 0; i < 8; ++i) bytewise = bytewise << 7 | ((x >> (56 - 8 * i)) & 0x7f);
    ASSERT_EQ(page_file_internal::SevenBitGroups<false>(x), bytewise) << std::hex << x;
    if (pext) {
      ASSERT_EQ(page_file_internal::SevenBitGroups<true>(x), bytewise) << std::hex << x;
    }
  }
}

// Random records of every serial type (long text has a two-byte serial type; a header of 130
// fields has a two-byte size), read for their first k fields, k past the record's last field too:
// the path for the first fields gives what the general path gives for the same fields asked
// for in another list.
TEST_F(DecoderTest, FirstFieldsDecodeAsTheGeneralPathDecodesThem) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  RecordDecoder prefix(*file_);
  RecordDecoder general(*file_);
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint64_t> types(1 + rng() % 8);
    for (uint64_t& type : types) {
      const uint64_t pick = rng() % 12;
      type = pick < 10 ? pick : (rng() % 2 == 0 ? 12 : 13) + 2 * (rng() % (pick == 10 ? 58 : 80));
    }
    if (round % 50 == 0) types.assign(130, round % 100 == 0 ? 1 : 13);  // a 2-byte header size
    const std::vector<unsigned char> record = Record(types, rng);
    const std::size_t k = 1 + rng() % (types.size() + 2);
    std::vector<int> fields;
    for (std::size_t i = 0; i < k; ++i) fields.push_back(static_cast<int>(i));
    prefix.Want(fields);
    fields.push_back(0);  // not the first fields in order: the general path
    general.Want(fields);
    ASSERT_EQ(Decoded(prefix, record, k), Decoded(general, record, k))
        << "round " << round << ", " << types.size() << " fields, " << k << " asked for";
  }
}

// DecodeIntegerPrefix (an integer key's path, no Cells) on random records of every serial type:
// it takes a record exactly when its first k fields are integers and its header's size is one
// byte, giving the general path's values; it refuses any other (a NULL, a real, a text, a
// record of fewer fields, where the bytes after the header look like serial types; a header
// whose size takes two bytes) and any damaged one. Each record lies in a buffer of its own size, so
// ASan sees a byte read past it.
TEST_F(DecoderTest, IntegerPrefixTakesWhatTheGeneralPathCallsIntegers) {
  std::mt19937_64 rng = ::steadyflake::testing::SeededRandom();
  RecordDecoder general(*file_);
  int taken = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint64_t> types(1 + rng() % 4);
    for (uint64_t& type : types) {
      const uint64_t pick = rng() % 16;  // integers most often, NULL, real, 10, text and blob
      type = pick < 10 ? pick : (pick < 13 ? 1 + rng() % 6 : 12 + rng() % 20);
    }
    if (round % 50 == 0) types.assign(130, 1 + rng() % 2);  // a header size of two bytes
    std::vector<unsigned char> record = Record(types, rng);
    if (round % 7 == 0) record.resize(rng() % record.size());  // cut off: damaged, or fewer
    if (round % 11 == 0 && !record.empty()) record[0] = 1 + rng() % 4;  // fewer fields (or more)
    const std::size_t k = 1 + rng() % 3;
    std::vector<int> fields;
    for (std::size_t i = 0; i < k; ++i) fields.push_back(static_cast<int>(i));
    fields.push_back(0);  // the general path
    general.Want(fields);
    std::vector<int64_t> want;
    bool damaged = false;
    try {
      std::vector<unsigned char> page(record);
      page.resize(record.size() + 64, 0x08);
      const std::span<const Cell> cells =
          general.Decode(2, record.size(), page.data(), page.data() + page.size(), true);
      for (std::size_t i = 0; i < k && cells[i].type == Cell::Type::kInteger; ++i) {
        want.push_back(cells[i].integer);
      }
    } catch (const DamagedPage&) {
      damaged = true;
    }
    const bool integers = !damaged && want.size() == k && !record.empty() && record[0] < 0x80;
    const std::unique_ptr<unsigned char[]> exact(
        new unsigned char[std::max<std::size_t>(record.size(), 1)]);
    std::memcpy(exact.get(), record.data(), record.size());
    std::vector<int64_t> got(k, -1);
    const bool took = DecodeIntegerPrefix(exact.get(), record.size(), k, got.data());
    ASSERT_EQ(took, integers) << "round " << round << ", " << types.size() << " fields, " << k
                              << " asked for, " << record.size() << " bytes";
    if (took) {
      ASSERT_EQ(got, want) << "round " << round;
      ++taken;
    }
  }
  EXPECT_GT(taken, 2000);  // the common case was tried, not only refusals
}

// A record written before ALTER TABLE ADD COLUMN has fewer fields: the rest are NULL, even
// where the bytes after the header look like serial types (8 is one: the integer 0).
// Integers of each serial type (1 to 6: 1, 2, 3, 4, 6 and 8 bytes, big-endian two's
// complement) read as the values written, the least and the greatest the size holds, on the
// one-pass path (fields 0 and 1) and on the general one (field 1, then 0). Both paths share the
// sizes of the serial types, so only known values catch a wrong one.
TEST_F(DecoderTest, IntegersOfEverySizeReadAsWritten) {
  static constexpr int kBytes[7] = {0, 1, 2, 3, 4, 6, 8};
  for (uint64_t type = 1; type <= 6; ++type) {
    const int bytes = kBytes[type];
    const int64_t least = bytes == 8 ? INT64_MIN : -(int64_t{1} << (8 * bytes - 1));
    const int64_t greatest = bytes == 8 ? INT64_MAX : (int64_t{1} << (8 * bytes - 1)) - 1;
    std::vector<unsigned char> record = {3, static_cast<unsigned char>(type),
                                         static_cast<unsigned char>(type)};
    for (const int64_t value : {least, greatest}) {
      for (int i = bytes - 1; i >= 0; --i) {
        record.push_back(static_cast<unsigned char>(static_cast<uint64_t>(value) >> (8 * i)));
      }
    }
    const std::vector<std::string> want = {"int " + std::to_string(least),
                                           "int " + std::to_string(greatest)};
    RecordDecoder prefix(*file_);
    const int in_order[] = {0, 1};
    prefix.Want(in_order);
    EXPECT_EQ(Decoded(prefix, record, 2), want) << "serial type " << type;
    RecordDecoder general(*file_);
    const int reversed[] = {1, 0};
    general.Want(reversed);
    EXPECT_EQ(Decoded(general, record, 2), (std::vector<std::string>{want[1], want[0]}))
        << "serial type " << type;
  }
}

TEST_F(DecoderTest, FieldsPastTheRecordsLastAreNull) {
  const std::vector<unsigned char> record = {2, 1, 8};  // one field: the 1-byte integer 8
  for (const bool prefix : {true, false}) {
    RecordDecoder decoder(*file_);
    std::vector<int> fields = {0, 1, 2};
    if (!prefix) fields.push_back(0);
    decoder.Want(fields);
    EXPECT_EQ(Decoded(decoder, record, 3), (std::vector<std::string>{"int 8", "NULL", "NULL"}))
        << (prefix ? "first fields" : "general");
  }
}

// A damaged record is damage on either path, named alike: a field that runs past the payload,
// a reserved serial type (10, 11).
TEST_F(DecoderTest, DamagedRecordsAreDamageOnEitherPath) {
  const std::vector<std::vector<unsigned char>> damaged = {
      {3, 1, 13 + 2 * 20, 5, 'a', 'b', 'c'},  // text of 20 bytes, 3 there
      {3, 6, 1, 1, 2, 3},                     // an 8-byte integer in 4 bytes
      {3, 1, 10, 7},                          // serial type 10
      {2, 11},                                // serial type 11
  };
  for (const std::vector<unsigned char>& record : damaged) {
    std::vector<std::string> messages;
    for (const bool prefix : {true, false}) {
      RecordDecoder decoder(*file_);
      std::vector<int> fields = {0, 1};
      if (!prefix) fields.push_back(0);
      decoder.Want(fields);
      try {
        Decoded(decoder, record, 2);
        ADD_FAILURE() << "no damage found in a record of " << record.size() << " bytes";
      } catch (const DamagedPage& damage) {
        messages.emplace_back(damage.what());
      }
    }
    ASSERT_EQ(messages.size(), 2u);
    EXPECT_EQ(messages[0], messages[1]);
  }
}

// A cell whose payload is empty, at the very end of the page: damage on either path, and no
// byte read past the payload (the ASan build says), not even the header's size.
TEST_F(DecoderTest, AnEmptyPayloadIsDamageAndNothingPastItIsRead) {
  for (const bool prefix : {true, false}) {
    RecordDecoder decoder(*file_);
    std::vector<int> fields = {0};
    if (!prefix) fields.push_back(0);
    decoder.Want(fields);
    const std::vector<unsigned char> page(16, 0x01);  // the cell's payload starts at its end
    const unsigned char* const end = page.data() + page.size();
    EXPECT_THROW(decoder.Decode(2, 0, end, end, true), DamagedPage)
        << (prefix ? "first fields" : "general");
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck
