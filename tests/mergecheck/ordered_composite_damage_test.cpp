// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The merge in index order of composite and text keys over damaged indexes (issue 30): a record
// out of order, at a batch's edge or past a batch, must have the merge give up and the report
// be the hashed path's, byte for byte (ordered_composite_test_util.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ordered_composite_test_util.h"

namespace steadyflake::mergecheck::ordered_composite_test {
namespace {

// The offset in `bytes` (the file at `path`) of the record (its header size) of cell `cell` of
// the first leaf of t's autoindex.
void FirstLeafRecord(const std::string& path, const std::string& bytes, int cell,
                     std::size_t& record) {
  const std::size_t page_size = testing::PageSize(bytes);
  const std::vector<uint32_t> leaves = testing::PagesOfType(path, "leaf", "sqlite_autoindex_t_1");
  ASSERT_FALSE(leaves.empty());
  const std::size_t page = (leaves[0] - 1) * page_size;
  const std::size_t pointer = page + 8 + 2 * static_cast<std::size_t>(cell);
  record = page +
           (static_cast<std::size_t>(static_cast<unsigned char>(bytes[pointer])) << 8 |
            static_cast<unsigned char>(bytes[pointer + 1])) +
           1;  // after the payload's size
}

// Sets byte `field` (0: k, 1: s, each a one-byte integer, serial type 1) of record `cell` of
// the first leaf of t's primary key index in the file at `path` from `was` to `value`.
void SetKeyByte(const std::string& path, int cell, int field, int was, int value) {
  std::string bytes = testing::ReadFile(path);
  std::size_t record = 0;
  ASSERT_NO_FATAL_FAILURE(FirstLeafRecord(path, bytes, cell, record));
  ASSERT_EQ(bytes[record + 1], 1);  // k's serial type
  ASSERT_EQ(bytes[record + 2], 1);  // s's
  const std::size_t at =
      record + static_cast<std::size_t>(bytes[record]) + static_cast<std::size_t>(field);
  ASSERT_EQ(bytes[at], was);
  bytes[at] = static_cast<char>(value);
  testing::WriteFile(path, bytes);
}

// What the damage of the two tests below gives: the merge tried, and given up when a record is
// out of order, and the report of the hashed path either way.
void ExpectDamagedIndexesReport(const std::string& a, const std::string& b, bool out_of_order) {
  const std::vector<std::string> merged =
      out_of_order ? std::vector<std::string>{} : std::vector<std::string>{"t"};
  const CheckRun run = ExpectSameReport(a, b, merged, out_of_order);
  EXPECT_EQ(run.ordered_a, 1);  // the merge was tried
  ASSERT_EQ(run.report.keys.size(), 1u);
  EXPECT_GT(run.report.keys[0].overlap, 100u);
}

// Damage no page check sees (the records are not decoded): an index whose records are out of
// order (in its first column or only in its last) cannot be merged, the stream is checked as it
// goes and the key goes the hashed way; an index holding a key twice is merged, counting the
// key's rows as the hashed path does and its value once.
TEST(OrderedCompositeTest, DamagedIndexesGiveTheHashedPathsReport) {
  enum class Damage { kFirstColumnOutOfOrder, kLastColumnOutOfOrder, kKeyTwice };
  for (const Damage damage :
       {Damage::kFirstColumnOutOfOrder, Damage::kLastColumnOutOfOrder, Damage::kKeyTwice}) {
    const bool out_of_order = damage != Damage::kKeyTwice;
    SCOPED_TRACE(damage == Damage::kFirstColumnOutOfOrder  ? "a record out of order"
                 : damage == Damage::kLastColumnOutOfOrder ? "a record out of order in s"
                                                           : "a key twice");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema =
          "CREATE TABLE t(k INTEGER, s INTEGER, v INTEGER, PRIMARY KEY(k, s));";
      Db da(a, 1024, schema);
      Db db(b, 1024, schema);
      for (int k = 2; k < 100; ++k) {
        for (int s = 2; s < 12; ++s) {
          da.Insert("t", {Int(k), Int(s), Int(k * s)});
          db.Insert("t", (k + s) % 3 == 0
                             ? std::vector<V>{Int(k), Int(s), Int(k % 2 == 0 ? k * s : 0)}
                             : std::vector<V>{Int(k + 200), Int(s), Int(0)});
        }
      }
    }
    // Out of order: the fourth record of A's first leaf of the key's index, (2, 5), gets a k
    // above every other; or its third, (2, 4), becomes (2, 1), below the (2, 3) before it. A
    // key twice: A's fourth becomes its third, (2, 4), and B's second, (2, 7), its first,
    // (2, 4) too (so a merge that kept both would count it twice).
    if (damage == Damage::kFirstColumnOutOfOrder) {
      SetKeyByte(a, 3, 0, 2, 120);
    } else if (damage == Damage::kLastColumnOutOfOrder) {
      SetKeyByte(a, 2, 1, 4, 1);
    } else {
      SetKeyByte(a, 3, 1, 5, 4);
      SetKeyByte(b, 1, 1, 7, 4);
    }
    ExpectDamagedIndexesReport(a, b, out_of_order);
  }
}

// Sets byte `at` of the text of record `cell` (k, a text of five bytes, serial type 23) of the
// first leaf of t's UNIQUE index in the file at `path` from `was` to `value`.
void SetTextByte(const std::string& path, int cell, int at, char was, char value) {
  std::string bytes = testing::ReadFile(path);
  std::size_t record = 0;
  ASSERT_NO_FATAL_FAILURE(FirstLeafRecord(path, bytes, cell, record));
  ASSERT_EQ(bytes[record + 1], 23);  // k's serial type: a text of five bytes
  const std::size_t text = record + static_cast<std::size_t>(bytes[record]);
  ASSERT_EQ(bytes[text + static_cast<std::size_t>(at)], was);
  bytes[text + static_cast<std::size_t>(at)] = value;
  testing::WriteFile(path, bytes);
}

// The same damage to the index of a key of one text column, which the merge appends by a path
// of its own (AppendText).
TEST(OrderedCompositeTest, DamagedTextIndexesGiveTheHashedPathsReport) {
  for (const bool out_of_order : {true, false}) {
    SCOPED_TRACE(out_of_order ? "a record out of order" : "a key twice");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema = "CREATE TABLE t(k TEXT UNIQUE, v INTEGER);";
      Db da(a, 1024, schema);
      Db db(b, 1024, schema);
      const auto name = [](int i) {
        char text[8];
        std::snprintf(text, sizeof text, "n%04d", i);
        return std::string(text);
      };
      for (int i = 2; i < 1000; ++i) {
        da.Insert("t", {Text(name(i)), Int(i)});
        db.Insert("t", {Text(name(i % 3 == 0 ? i : i + 2000)), Int(i % 2 == 0 ? i : 0)});
      }
    }
    // A's first records are n0002, n0003, n0004, n0005; B's n0003, n0006. Out of order: A's
    // fourth becomes z0005, above every other. A key twice, in both: A's third becomes n0003,
    // its second, and B's second n0003, its first (so a merge that kept both would count it
    // twice).
    if (out_of_order) {
      SetTextByte(a, 3, 0, 'n', 'z');
    } else {
      SetTextByte(a, 2, 4, '4', '3');
      SetTextByte(b, 1, 4, '6', '3');
    }
    ExpectDamagedIndexesReport(a, b, out_of_order);
  }
}

// A value out of order just where one batch of a stream ends and the next begins is checked
// against the last of the batch held back: A's index sorts under NOCASE but its schema says
// BINARY, and the one upper-case value, N04096, is the first of the second batch (below the
// n04095 before it as bytes). The merge is given up, as anywhere else in the stream.
TEST(OrderedCompositeTest, AValueOutOfOrderAtABatchsEdgeGivesTheHashedPathsReport) {
  testing::TempDir dir;
  const std::string a = dir.File("a.db");
  const std::string b = dir.File("b.db");
  const auto name = [](std::size_t i) {
    char text[16];
    std::snprintf(text, sizeof text, "%c%05zu", i == kOrderedMergeBatch ? 'N' : 'n', i);
    return std::string(text);
  };
  {
    Db da(a, 4096,
          "CREATE TABLE t(k TEXT, v INTEGER); CREATE UNIQUE INDEX t_k ON t(k COLLATE NOCASE);");
    Db db(b, 4096, "CREATE TABLE t(k TEXT, v INTEGER); CREATE UNIQUE INDEX t_k ON t(k);");
    for (std::size_t i = 0; i < 2 * kOrderedMergeBatch; ++i) {
      da.Insert("t", {Text(name(i)), Int(static_cast<int64_t>(i))});
      if (i % 7 == 0 || i == kOrderedMergeBatch) db.Insert("t", {Text(name(i)), Int(0)});
    }
  }
  testing::ExecSql(a,
                   "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE UNIQUE "
                   "INDEX t_k ON t(k)' WHERE name = 't_k';");
  const CheckRun run = ExpectSameReport(a, b, {}, true);
  EXPECT_EQ(run.ordered_a, 1);  // the merge was tried
  ASSERT_EQ(run.report.keys.size(), 1u);
  EXPECT_GT(run.report.keys[0].overlap, 1000u);
}

// Keys of integer columns longer than a batch, which AppendIntegers hands over as it fills them:
// three columns (its general width), then two with damage at the first tuple of the second
// batch, compared with the copy of the tuple before: that tuple's key (k, s) = (104096, 7),
// record (k, s, rowid 4097) found by its bytes in A's index, becomes (104094, 7), out of order,
// or (104095, 7), the tuple before, which B holds too (a merge that kept both would count it
// twice).
TEST(OrderedCompositeTest, IntegerKeysLongerThanABatchGiveTheHashedPathsReport) {
  const int64_t rows = 2 * static_cast<int64_t>(kOrderedMergeBatch) + 100;
  {
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema =
          "CREATE TABLE t(k INTEGER, s INTEGER, u INTEGER, v INTEGER, PRIMARY KEY(k, s, u));";
      Db da(a, 4096, schema);
      Db db(b, 4096, schema);
      for (int64_t i = 0; i < rows; ++i) {
        da.Insert("t", {Int(i / 100), Int(i % 100 / 10), Int(i % 10), Int(i)});
        db.Insert("t",
                  {Int(i / 100 + (i % 5 == 0 ? 0 : 1000)), Int(i % 100 / 10), Int(i % 10), Int(i)});
      }
    }
    const CheckRun run = ExpectSameReport(a, b, {"t"});
    ASSERT_EQ(run.report.keys.size(), 1u);
    EXPECT_GT(run.report.keys[0].overlap, 1000u);
  }
  for (const bool out_of_order : {true, false}) {
    SCOPED_TRACE(out_of_order ? "a record out of order" : "a key twice");
    testing::TempDir dir;
    const std::string a = dir.File("a.db");
    const std::string b = dir.File("b.db");
    {
      const std::string schema = "CREATE TABLE t(k INTEGER, s INTEGER, v, PRIMARY KEY(k, s));";
      Db da(a, 4096, schema);
      Db db(b, 4096, schema);
      for (int64_t i = 0; i < rows; ++i) {
        da.Insert("t", {Int(100000 + i), Int(7), Int(0)});
        db.Insert("t", {Int(100000 + i + (i % 3 == 0 ? 0 : 500000)), Int(7), Int(0)});
      }
    }
    ASSERT_EQ(100000 + static_cast<int64_t>(kOrderedMergeBatch), 104096);  // the bytes below
    std::string bytes = testing::ReadFile(a);
    const std::string record("\x04\x03\x01\x02\x01\x96\xa0\x07\x10\x01", 10);
    const std::size_t at = bytes.find(record);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(bytes.find(record, at + 1), std::string::npos);
    bytes[at + 6] = out_of_order ? '\x9e' : '\x9f';
    testing::WriteFile(a, bytes);
    ExpectDamagedIndexesReport(a, b, out_of_order);
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::ordered_composite_test
