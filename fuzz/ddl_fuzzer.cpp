// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the dump reader's schema parser (mergecheck/src/dump/ddl.h). The input is split
// at every ';' into statements (at most 64), and each statement goes, in both dialects, to
// every parser in turn, as if the statements were one dump's schema: ParseCreateTable (its
// table becomes the current one), ParseCreateIndex and ParseAlterTable (their keys are added
// to the current table with AddKey), ParseInsertHeader (its columns resolved against the
// current table with ResolveInsertColumns). Each either returns or throws SyntaxError with an
// offset inside the statement; anything else (another exception, a crash, a hang, undefined
// behaviour) aborts.
//
// What a parse returns must hold:
//   - every Table passes CheckTable (schema_check.h); a SQLite rowid alias is the INTEGER
//     column of a one-column primary key; MySQL has none;
//   - AddKey changes nothing when it returns false or throws;
//   - ResolveInsertColumns gives one index per name, each the column of that name, or -1
//     only for SQLite's hidden rowid.
// Each statement is copied into a buffer of its own size, so ASan sees a read past its end.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dump/ddl.h"
#include "dump/sql_text.h"
#include "schema_check.h"
#include "source/schema.h"
#include "steadyflake/mergecheck/text.h"

namespace steadyflake::fuzz {
namespace {

using mergecheck::EqualsIgnoreCase;
using mergecheck::Key;
using mergecheck::Table;
using mergecheck::dump::Dialect;
using mergecheck::dump::SyntaxError;

bool SameKeys(const std::vector<Key>& a, const std::vector<Key>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || a[i].name != b[i].name || a[i].columns != b[i].columns) {
      return false;
    }
  }
  return true;
}

bool IsRowidName(std::string_view name) {
  return EqualsIgnoreCase(name, "rowid") || EqualsIgnoreCase(name, "_rowid_") ||
         EqualsIgnoreCase(name, "oid");
}

// The schema read so far: the last table created.
struct Schema {
  std::optional<Table> table;
  int rowid_alias = -1;
};

void CheckCreateTable(const mergecheck::dump::CreateTable& created, Dialect dialect) {
  CheckTable(created.table);
  for (const mergecheck::Column& column : created.table.columns) {
    Check(column.affinity == mergecheck::AffinityOf(column.declared_type));
  }
  if (created.rowid_alias < 0) {
    Check(created.rowid_alias == -1);
    return;
  }
  const Table& t = created.table;
  Check(dialect == Dialect::kSqlite);
  Check(!t.keys.empty() && t.keys[0].kind == Key::Kind::kPrimary && t.keys[0].columns.size() == 1);
  Check(t.keys[0].columns[0] == created.rowid_alias);
  Check(EqualsIgnoreCase(t.columns[static_cast<size_t>(created.rowid_alias)].declared_type,
                         "INTEGER"));
}

// AddKey on the current table, holding its contract.
void AddKeyChecked(Schema& schema, const mergecheck::dump::KeySpec& spec, size_t size) {
  Check(spec.offset <= size);
  if (!schema.table) return;
  const std::vector<Key> before = schema.table->keys;
  bool added = false;
  try {
    added = mergecheck::dump::AddKey(*schema.table, spec);
  } catch (const SyntaxError& e) {
    Check(e.offset <= size);
  }
  if (!added) Check(SameKeys(before, schema.table->keys));
  CheckTable(*schema.table);
}

void ParseStatement(std::string_view statement, Dialect dialect, Schema& schema) {
  namespace dump = mergecheck::dump;
  const size_t size = statement.size();
  try {
    if (std::optional<dump::CreateTable> created = dump::ParseCreateTable(statement, dialect)) {
      CheckCreateTable(*created, dialect);
      schema.table = std::move(created->table);
      schema.rowid_alias = created->rowid_alias;
    }
  } catch (const SyntaxError& e) {
    Check(e.offset <= size);
  }
  try {
    if (const std::optional<dump::IndexKey> index = dump::ParseCreateIndex(statement, dialect)) {
      Check(index->key.kind == Key::Kind::kUnique && !index->key.columns.empty());
      AddKeyChecked(schema, index->key, size);
    }
  } catch (const SyntaxError& e) {
    Check(e.offset <= size);
  }
  try {
    const dump::AlterKeys alter = dump::ParseAlterTable(statement, dialect);
    for (const dump::KeySpec& key : alter.keys) AddKeyChecked(schema, key, size);
  } catch (const SyntaxError& e) {
    Check(e.offset <= size);
  }
  try {
    const dump::InsertHeader header = dump::ParseInsertHeader(statement, dialect);
    Check(header.table_offset <= size);
    Check(header.has_columns || header.columns.empty());
    if (header.has_columns && schema.table) {
      const Table& table = *schema.table;
      const std::vector<int> columns =
          dump::ResolveInsertColumns(header.columns, table, schema.rowid_alias, dialect);
      Check(columns.size() == header.columns.size());
      for (size_t i = 0; i < columns.size(); ++i) {
        const std::string& name = header.columns[i];
        if (columns[i] < 0) {
          Check(columns[i] == -1 && dialect == Dialect::kSqlite && schema.rowid_alias == -1 &&
                IsRowidName(name));
          continue;
        }
        Check(static_cast<size_t>(columns[i]) < table.columns.size());
        Check(EqualsIgnoreCase(table.columns[static_cast<size_t>(columns[i])].name, name) ||
              (columns[i] == schema.rowid_alias && IsRowidName(name)));
      }
    }
  } catch (const SyntaxError& e) {
    Check(e.offset <= size);
  }
}

}  // namespace
}  // namespace steadyflake::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using steadyflake::mergecheck::dump::Dialect;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const Dialect dialect : {Dialect::kSqlite, Dialect::kMysql}) {
    steadyflake::fuzz::Schema schema;
    size_t start = 0;
    for (int n = 0; n < 64 && start <= input.size(); ++n) {
      size_t stop = input.find(';', start);
      if (stop == std::string_view::npos) stop = input.size();
      const std::string_view part = input.substr(start, stop - start);
      start = stop + 1;
      const std::unique_ptr<char[]> copy(new char[part.size()]);
      part.copy(copy.get(), part.size());
      steadyflake::fuzz::ParseStatement(std::string_view(copy.get(), part.size()), dialect, schema);
    }
  }
  return 0;
}
