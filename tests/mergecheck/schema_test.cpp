// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "source/schema.h"

#include <gtest/gtest.h>

namespace steadyflake::mergecheck {
namespace {

TEST(AffinityOfTest, SqliteRulesInOrder) {
  // Rule 1: contains "INT".
  EXPECT_EQ(AffinityOf("INTEGER"), Affinity::kInteger);
  EXPECT_EQ(AffinityOf("int"), Affinity::kInteger);
  EXPECT_EQ(AffinityOf("BIGINT UNSIGNED"), Affinity::kInteger);
  EXPECT_EQ(AffinityOf("tinyint(1)"), Affinity::kInteger);
  EXPECT_EQ(AffinityOf("UNSIGNED BIG INT"), Affinity::kInteger);
  // SQLite's documented quirk: "FLOATING POINT" contains "INT".
  EXPECT_EQ(AffinityOf("FLOATING POINT"), Affinity::kInteger);
  // Rule 2: CHAR, CLOB, TEXT.
  EXPECT_EQ(AffinityOf("TEXT"), Affinity::kText);
  EXPECT_EQ(AffinityOf("varchar(32)"), Affinity::kText);
  EXPECT_EQ(AffinityOf("NATIVE CHARACTER(70)"), Affinity::kText);
  EXPECT_EQ(AffinityOf("CLOB"), Affinity::kText);
  EXPECT_EQ(AffinityOf("mediumtext"), Affinity::kText);
  // Rule 3: BLOB, or no type.
  EXPECT_EQ(AffinityOf("BLOB"), Affinity::kBlob);
  EXPECT_EQ(AffinityOf("longblob"), Affinity::kBlob);
  EXPECT_EQ(AffinityOf(""), Affinity::kBlob);
  EXPECT_EQ(AffinityOf("  "), Affinity::kBlob);
  // Rule 4: REAL, FLOA, DOUB.
  EXPECT_EQ(AffinityOf("REAL"), Affinity::kReal);
  EXPECT_EQ(AffinityOf("double precision"), Affinity::kReal);
  EXPECT_EQ(AffinityOf("FLOAT"), Affinity::kReal);
  // Rule 5: anything else.
  EXPECT_EQ(AffinityOf("NUMERIC"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("DECIMAL(10,5)"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("BOOLEAN"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("DATE"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("datetime"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("TIME"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("STRING"), Affinity::kNumeric);  // SQLite's own example
}

TEST(AffinityOfTest, MysqlTypesMapNaturally) {
  EXPECT_EQ(AffinityOf("binary(16)"), Affinity::kBlob);
  EXPECT_EQ(AffinityOf("VARBINARY(255)"), Affinity::kBlob);
  EXPECT_EQ(AffinityOf("enum('point','line')"), Affinity::kText);  // not "INT" in 'point'
  EXPECT_EQ(AffinityOf("set('a','b')"), Affinity::kText);
  EXPECT_EQ(AffinityOf("json"), Affinity::kText);
  EXPECT_EQ(AffinityOf("varchar(10) CHARACTER SET utf8mb4"), Affinity::kText);
  EXPECT_EQ(AffinityOf("timestamp"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("year"), Affinity::kNumeric);
  EXPECT_EQ(AffinityOf("bit(1)"), Affinity::kNumeric);
}

}  // namespace
}  // namespace steadyflake::mergecheck
