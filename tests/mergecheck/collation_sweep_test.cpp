// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// SQLite's collations swept, not sampled (issue 31, item 3): every pair of ASCII characters, each
// also with one and two trailing spaces, is equal under the checker's key exactly when SQLite
// itself says `a = b COLLATE X`. A fold table off by one at the edge of the alphabet ('Z', 'z',
// '@', '[', '`', '{') or a trailing-space rule off by one cannot hide between golden pairs here.

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "check/collation.h"

namespace steadyflake::mergecheck {
namespace {

// Every printable and control ASCII character but NUL, alone and followed by one and two
// spaces.
std::vector<std::string> AsciiStrings() {
  std::vector<std::string> out;
  for (int c = 1; c < 128; ++c) {
    const std::string s(1, static_cast<char>(c));
    out.push_back(s);
    out.push_back(s + " ");
    out.push_back(s + "  ");
  }
  return out;
}

TEST(CollationSweep, SqliteCollationsAgreeWithSqliteOnEveryAsciiPair) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  const std::vector<std::string> strings = AsciiStrings();
  for (const std::string name : {"NOCASE", "RTRIM", "BINARY"}) {
    const Collation* collation = Collation::Find(name);
    ASSERT_NE(collation, nullptr) << name;
    std::vector<std::string> keys;
    for (const std::string& s : strings) {
      std::string key;
      collation->AppendKey(s, key);
      keys.push_back(std::move(key));
    }
    sqlite3_stmt* stmt = nullptr;
    const std::string sql = "SELECT ?1 = ?2 COLLATE " + name;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
    int disagreements = 0;
    for (std::size_t i = 0; i < strings.size(); ++i) {
      for (std::size_t j = i + 1; j < strings.size(); ++j) {
        sqlite3_reset(stmt);
        sqlite3_bind_text(stmt, 1, strings[i].data(), static_cast<int>(strings[i].size()),
                          SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, strings[j].data(), static_cast<int>(strings[j].size()),
                          SQLITE_STATIC);
        ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
        const bool sqlite_equal = sqlite3_column_int(stmt, 0) != 0;
        if (sqlite_equal != (keys[i] == keys[j]) && ++disagreements <= 5) {
          ADD_FAILURE() << name << ": '" << strings[i] << "' (0x" << std::hex
                        << static_cast<int>(strings[i][0]) << ") and '" << strings[j] << "' (0x"
                        << static_cast<int>(strings[j][0]) << std::dec << "): SQLite says "
                        << (sqlite_equal ? "equal" : "different");
        }
      }
    }
    EXPECT_EQ(disagreements, 0) << name;
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
}

}  // namespace
}  // namespace steadyflake::mergecheck
