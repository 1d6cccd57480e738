// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Internal functions that may change between releases.
//
// A database's tables and keys as the merge checker sees them, whichever reader built them.

#ifndef STEADYFLAKE_MERGECHECK_SRC_SOURCE_SCHEMA_H_
#define STEADYFLAKE_MERGECHECK_SRC_SOURCE_SCHEMA_H_

#include <cstddef>
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
  // The collation its text compares under, as the database names it ("NOCASE",
  // "utf8mb4_general_ci"): SQLite, the column's COLLATE or BINARY; MySQL, resolved from the
  // column's COLLATE or CHARACTER SET, else the table's defaults (dump/ddl.h). Empty: none
  // (MySQL's numbers, dates and binary strings), or a reader that does not say (the bytes).
  std::string collation = {};
  // A generated column (GENERATED ALWAYS AS / AS (...)): its value is computed, and a dump
  // may leave it out, so whole rows are compared without it.
  bool generated = false;
};

struct Key {
  enum class Kind { kPrimary, kUnique };
  Kind kind = Kind::kPrimary;
  std::string name;          // constraint or index name; may be empty
  std::vector<int> columns;  // indexes into Table::columns, in key order
  // Per key column: the collation the key compares it under, when the key names its own (SQLite:
  // `UNIQUE (name COLLATE NOCASE)`); empty: the column's. Same size as `columns`, or empty.
  std::vector<std::string> collations = {};
  // Per key column: MySQL's prefix length (`UNIQUE KEY (name(10))`: the key holds, and compares,
  // the first 10 characters of a text, 10 bytes of a binary string); 0 for the whole value.
  // Same size as `columns`, or empty.
  std::vector<int> prefixes = {};
  // The source can give this key's values sorted in the order of an index over its columns, in
  // key order, ascending, under `collations`, straight from the index (Source::ReadInIndexOrder).
  bool in_index_order = false;
};

// A declared FOREIGN KEY: `columns` of this table refer to `ref_columns` of `ref_table`.
struct ForeignKey {
  std::vector<int> columns;              // indexes into Table::columns, in declaration order
  std::string ref_table;                 // unquoted, as declared
  std::vector<std::string> ref_columns;  // unquoted; empty: the referenced table's PRIMARY KEY
};

struct Table {
  std::string name;  // unquoted
  std::vector<Column> columns;
  std::vector<Key> keys;                      // PRIMARY KEY first when there is one; no duplicates
  std::vector<ForeignKey> foreign_keys = {};  // in declaration order
};

// The affinity of a declared type (case-insensitive), per the rules above.
Affinity AffinityOf(std::string_view declared_type);

// The index in table.columns of the column whose name, lowercase, is `lower`; -1 when none is.
int FindColumn(const Table& table, std::string_view lower);

// The collation key `key` compares its `i`-th column under: the key's own, else the column's;
// empty when neither is known.
const std::string& KeyCollation(const Table& table, const Key& key, std::size_t i);

// The collation of a MySQL text column whose dump declares none, neither for the column nor for
// its table: the server's default, which the dump does not say. Never a known collation.
inline constexpr char kServerDefaultCollation[] = "the server's default";

// The collation MySQL/MariaDB gives a column of `charset` that names no collation of its own
// (MariaDB 10.11 and MySQL 5.7 defaults; `utf8` is utf8mb3), lowercase; "" for a character set
// not listed.
std::string DefaultCollationOf(std::string_view charset);

}  // namespace steadyflake::mergecheck

#endif  // STEADYFLAKE_MERGECHECK_SRC_SOURCE_SCHEMA_H_
