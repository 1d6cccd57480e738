// Copyright 2026 The steadyflake Authors.
//
// Internal functions that may change between releases.
//
// A database's tables and keys as the merge checker sees them, whichever reader built them.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SCHEMA_H_
#define STEADYFLAKE_MERGECHECK_SRC_SCHEMA_H_

#include <string>
#include <string_view>
#include <vector>

namespace steadyflake::mergecheck {

// How a column's declared type makes the database compare values, per SQLite's affinity rules
// (https://www.sqlite.org/datatype3.html 3.1), which also fit MySQL's types: INT -> kInteger,
// CHAR/CLOB/TEXT (and MySQL's ENUM/SET/...) -> kText, BLOB/BINARY or none -> kBlob,
// REAL/FLOA/DOUB -> kReal, anything else (DECIMAL, NUMERIC, DATE...) -> kNumeric.
enum class Affinity { kInteger, kText, kBlob, kReal, kNumeric };

struct Column {
  std::string name;           // unquoted: "my ""weird"" col" is stored as my "weird" col
  std::string declared_type;  // as written, e.g. "BIGINT UNSIGNED", "varchar(32)"
  Affinity affinity = Affinity::kBlob;
};

struct Key {
  enum class Kind { kPrimary, kUnique };
  Kind kind = Kind::kPrimary;
  std::string name;          // constraint or index name; may be empty
  std::vector<int> columns;  // indexes into Table::columns, in key order
};

struct Table {
  std::string name;  // unquoted
  std::vector<Column> columns;
  std::vector<Key> keys;  // PRIMARY KEY first when there is one; no duplicates
};

// The affinity of a declared type (case-insensitive), per the rules above.
Affinity AffinityOf(std::string_view declared_type);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SCHEMA_H_
