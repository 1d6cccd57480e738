// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0

#include "dump/ddl.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>
#include <utility>

#include "dump/ddl_tokens.h"
#include "source/schema.h"

namespace steadyflake::mergecheck::dump {
namespace {

using Token = Lexer::Token;
using Kind = Token::Kind;

// `(a, b COLLATE x DESC, `c`(10))`: fills spec.columns and returns true when every part is a
// plain column (MySQL's prefix length and SQLite's COLLATE / ASC / DESC allowed); false for a
// key over expressions.
bool ParseKeyColumns(Lexer& lx, Dialect dialect, KeySpec& spec) {
  ExpectPunct(lx, '(');
  bool plain = true;
  for (;;) {
    if (lx.Peek().IsPunct('(')) {
      SkipParenthesized(lx);  // MySQL 8's functional key part: ((expr))
      plain = false;
    } else {
      Token name = lx.Next();
      if (IsNameToken(name, dialect)) {
        spec.columns.push_back(std::move(name.value));
        spec.collations.emplace_back();
        spec.prefixes.push_back(0);
      } else {
        plain = false;
      }
    }
    // What may follow a plain column.
    for (;;) {
      const Token& t = lx.Peek();
      if (t.IsPunct(',') || t.IsPunct(')') || t.kind == Kind::kEnd) break;
      if (t.IsPunct('(') && dialect == Dialect::kMysql && plain) {
        // A prefix length: `name`(10).
        lx.Next();
        const Token length = lx.Next();
        int prefix = 0;
        if (length.kind == Kind::kNumber) {
          const auto [end, ec] =
              std::from_chars(length.raw.data(), length.raw.data() + length.raw.size(), prefix);
          if (ec != std::errc() || end != length.raw.data() + length.raw.size()) prefix = 0;
        }
        if (!lx.Peek().IsPunct(')') || prefix <= 0) {
          throw SyntaxError{length.offset, "expected a prefix length, a whole number, in a key"};
        }
        lx.Next();
        if (!spec.prefixes.empty()) spec.prefixes.back() = prefix;
      } else if (t.IsWord("COLLATE")) {
        lx.Next();
        Token collation = lx.Next();
        if (plain && !spec.collations.empty()) spec.collations.back() = collation.value;
      } else if (t.IsWord("ASC") || t.IsWord("DESC")) {
        lx.Next();
      } else {
        plain = false;
        SkipToSeparator(lx);
      }
    }
    const Token sep = lx.Next();
    if (sep.IsPunct(')')) break;
    if (!sep.IsPunct(',')) throw SyntaxError{sep.offset, "expected ',' or ')' in a key's columns"};
  }
  return plain;
}

// After PRIMARY KEY / UNIQUE [KEY|INDEX] in a table constraint: `[name] [USING x] (cols)`.
// Returns false for a key over expressions.
bool ParseTableKey(Lexer& lx, Dialect dialect, KeySpec& spec) {
  if (lx.Peek().IsName() && !lx.Peek().IsWord("USING")) spec.name = lx.Next().value;
  if (AcceptWord(lx, "USING")) lx.Next();
  return ParseKeyColumns(lx, dialect, spec);
}

bool IsTableConstraintStart(const Token& t, Dialect dialect) {
  if (t.kind != Kind::kWord) return false;
  if (t.IsWord("CONSTRAINT") || t.IsWord("PRIMARY") || t.IsWord("UNIQUE") || t.IsWord("CHECK") ||
      t.IsWord("FOREIGN")) {
    return true;
  }
  // MySQL quotes every column name it dumps, so these words start index definitions there; in
  // SQLite they are ordinary column names (`key TEXT`).
  return dialect == Dialect::kMysql &&
         (t.IsWord("KEY") || t.IsWord("INDEX") || t.IsWord("FULLTEXT") || t.IsWord("SPATIAL") ||
          t.IsWord("PERIOD"));
}

// Words that end a column's type name and start its constraints.
bool EndsTypeName(const Token& t, Dialect dialect) {
  static constexpr std::string_view kStop[] = {"CONSTRAINT",
                                               "PRIMARY",
                                               "NOT",
                                               "NULL",
                                               "UNIQUE",
                                               "CHECK",
                                               "DEFAULT",
                                               "COLLATE",
                                               "REFERENCES",
                                               "GENERATED",
                                               "AS",
                                               "AUTO_INCREMENT",
                                               "COMMENT",
                                               "AUTOINCREMENT",
                                               "ON",
                                               "INVISIBLE",
                                               "VISIBLE",
                                               "KEY",
                                               "STORED",
                                               "VIRTUAL",
                                               "COLUMN_FORMAT",
                                               "STORAGE",
                                               "SRID",
                                               "PERSISTENT",
                                               "WITHOUT",
                                               "INVISIBLE",
                                               "ENGINE_ATTRIBUTE"};
  for (std::string_view w : kStop) {
    if (t.IsWord(w)) return true;
  }
  return dialect == Dialect::kMysql && (t.IsWord("CHARACTER") || t.IsWord("CHARSET"));
}

// `(a, b)`, the '(' being next: the column names of a FOREIGN KEY or of what it references.
// What may follow a name before its ',' or ')' (MySQL's prefix length, ASC / DESC) is skipped.
std::vector<std::string> ParseColumnNames(Lexer& lx, Dialect dialect) {
  ExpectPunct(lx, '(');
  std::vector<std::string> names;
  for (;;) {
    names.push_back(ExpectName(lx, dialect, "a column name"));
    SkipToSeparator(lx);
    const Token sep = lx.Next();
    if (sep.IsPunct(')')) break;
    if (!sep.IsPunct(',')) {
      throw SyntaxError{sep.offset, "expected ',' or ')' in a foreign key's columns"};
    }
  }
  return names;
}

// After the REFERENCES at `references_offset`: `[schema.]table [(columns)]`, into fk.ref_table
// (the table's name without its schema) and fk.ref_columns. What may follow (ON DELETE ...,
// MATCH ..., DEFERRABLE ...) is left to the caller. Throws SyntaxError when the columns named are
// not as many as fk.columns: SQLite and MySQL refuse such a foreign key.
void ParseReferences(Lexer& lx, Dialect dialect, size_t references_offset, ForeignKeySpec& fk) {
  fk.ref_table = ExpectQualifiedName(lx, dialect, "the referenced table's name");
  if (lx.Peek().IsPunct('(')) fk.ref_columns = ParseColumnNames(lx, dialect);
  if (!fk.ref_columns.empty() && fk.ref_columns.size() != fk.columns.size()) {
    throw SyntaxError{references_offset, "a foreign key of " + std::to_string(fk.columns.size()) +
                                             " column(s) references " +
                                             std::to_string(fk.ref_columns.size()) +
                                             " column(s) of table '" + fk.ref_table + "'"};
  }
}

// Parses a table constraint into `keys` (PRIMARY KEY / UNIQUE) or `foreign_keys` (FOREIGN
// KEY), or skips it.
void ParseTableConstraint(Lexer& lx, Dialect dialect, std::vector<KeySpec>& keys,
                          std::vector<ForeignKeySpec>& foreign_keys) {
  std::string constraint_name;
  if (AcceptWord(lx, "CONSTRAINT")) {
    if (IsNameToken(lx.Peek(), dialect) && !lx.Peek().IsWord("PRIMARY") &&
        !lx.Peek().IsWord("UNIQUE") && !lx.Peek().IsWord("CHECK") && !lx.Peek().IsWord("FOREIGN")) {
      constraint_name = lx.Next().value;
    }
  }
  KeySpec spec;
  spec.offset = lx.offset();
  spec.name = constraint_name;
  if (AcceptWord(lx, "PRIMARY")) {
    Expect(lx, "KEY");
    spec.kind = Key::Kind::kPrimary;
    if (ParseTableKey(lx, dialect, spec)) keys.push_back(std::move(spec));
  } else if (AcceptWord(lx, "UNIQUE")) {
    if (!AcceptWord(lx, "KEY")) AcceptWord(lx, "INDEX");
    spec.kind = Key::Kind::kUnique;
    if (ParseTableKey(lx, dialect, spec)) {
      if (spec.name.empty()) spec.name = constraint_name;
      keys.push_back(std::move(spec));
    }
  } else if (AcceptWord(lx, "FOREIGN")) {
    Expect(lx, "KEY");
    ForeignKeySpec fk;
    fk.offset = spec.offset;
    // MariaDB's `IF NOT EXISTS` (ALTER TABLE ... ADD FOREIGN KEY), then MySQL's index name.
    if (AcceptWord(lx, "IF")) {
      Expect(lx, "NOT");
      Expect(lx, "EXISTS");
    }
    if (!lx.Peek().IsPunct('(')) ExpectName(lx, dialect, "'(' or an index name");
    fk.columns = ParseColumnNames(lx, dialect);
    const size_t references_offset = lx.offset();
    Expect(lx, "REFERENCES");
    ParseReferences(lx, dialect, references_offset, fk);
    foreign_keys.push_back(std::move(fk));
  }
  SkipToSeparator(lx);
}

// The index in table.columns of the column named `name` (case-insensitively), or -1.
int ColumnIndex(const Table& table, std::string_view name) {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (EqualsIgnoreCase(table.columns[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

bool SameColumnSet(std::vector<int> a, std::vector<int> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

bool IsSqliteInternalTable(std::string_view name) {
  return name.size() >= 7 && EqualsIgnoreCase(name.substr(0, 7), "sqlite_");
}

bool AddKey(Table& table, const KeySpec& spec) {
  Key key;
  key.kind = spec.kind;
  key.name = spec.name;
  for (const std::string& column : spec.columns) {
    const int found = ColumnIndex(table, column);
    if (found < 0) {
      throw SyntaxError{
          spec.offset, "key column '" + column + "' is not a column of table '" + table.name + "'"};
    }
    if (std::find(key.columns.begin(), key.columns.end(), found) == key.columns.end()) {
      key.columns.push_back(found);
      const std::size_t i = key.columns.size() - 1;
      key.collations.push_back(i < spec.collations.size() ? spec.collations[i] : std::string());
      key.prefixes.push_back(i < spec.prefixes.size() ? spec.prefixes[i] : 0);
    }
  }
  if (key.columns.empty()) return false;
  if (std::all_of(key.collations.begin(), key.collations.end(),
                  [](const std::string& c) { return c.empty(); })) {
    key.collations.clear();  // the columns' own
  }
  if (std::all_of(key.prefixes.begin(), key.prefixes.end(), [](int p) { return p == 0; })) {
    key.prefixes.clear();  // whole values
  }
  const bool has_primary = !table.keys.empty() && table.keys.front().kind == Key::Kind::kPrimary;
  for (size_t i = 0; i < table.keys.size(); ++i) {
    if (!SameColumnSet(table.keys[i].columns, key.columns)) continue;
    if (key.kind == Key::Kind::kPrimary && table.keys[i].kind == Key::Kind::kUnique &&
        !has_primary) {
      table.keys.erase(table.keys.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
    return false;
  }
  if (key.kind == Key::Kind::kPrimary) {
    if (has_primary) return false;  // a second primary key: the database would refuse it
    table.keys.insert(table.keys.begin(), std::move(key));
  } else {
    table.keys.push_back(std::move(key));
  }
  return true;
}

void AddForeignKey(Table& table, const ForeignKeySpec& spec) {
  ForeignKey fk;
  for (const std::string& column : spec.columns) {
    const int found = ColumnIndex(table, column);
    if (found < 0) {
      throw SyntaxError{spec.offset, "foreign key column '" + column +
                                         "' is not a column of table '" + table.name + "'"};
    }
    fk.columns.push_back(found);
  }
  fk.ref_table = spec.ref_table;
  fk.ref_columns = spec.ref_columns;
  table.foreign_keys.push_back(std::move(fk));
}

namespace {

// What a CREATE TABLE's body declares besides its columns, gathered as it is read.
struct TableBody {
  std::vector<KeySpec> keys;
  std::vector<ForeignKeySpec> foreign_keys;  // in the order written
  bool primary_desc = false;  // a column's `PRIMARY KEY DESC`, which does not alias the rowid
  // Per column: its COLLATE and (MySQL) CHARACTER SET, resolved once the table's are known.
  std::vector<std::string> column_collate, column_charset;
  // Table options: WITHOUT ROWID (SQLite), the default character set and collation (MySQL).
  bool without_rowid = false;
  std::string table_collate, table_charset;
};

// A column's declared type: words, each maybe with (n[,m]) after it, as written.
std::string ParseColumnType(Lexer& lx, std::string_view statement, Dialect dialect) {
  size_t type_begin = std::string_view::npos, type_end = 0;
  while (lx.Peek().kind == Kind::kWord && !EndsTypeName(lx.Peek(), dialect)) {
    const Token t = lx.Next();
    if (type_begin == std::string_view::npos) type_begin = t.offset;
    type_end = t.offset + t.raw.size();
    if (lx.Peek().IsPunct('(')) {
      SkipParenthesized(lx);
      type_end = lx.offset();
      // lx.offset() is the next token's start; trim the white space before it.
      while (type_end > type_begin && static_cast<unsigned char>(statement[type_end - 1]) <= ' ') {
        --type_end;
      }
    }
  }
  if (type_begin == std::string_view::npos) return "";
  return std::string(statement.substr(type_begin, type_end - type_begin));
}

// The constraints after a column's type, up to the ',' or ')' that ends the column.
void ParseColumnConstraints(Lexer& lx, Dialect dialect, size_t name_offset, Column& column,
                            TableBody& body) {
  int depth = 0;
  std::string constraint_name;
  std::string collate, charset;
  for (;;) {
    const Token& peek = lx.Peek();
    if (peek.kind == Kind::kEnd) break;
    if (depth == 0 && (peek.IsPunct(',') || peek.IsPunct(')'))) break;
    Token t = lx.Next();
    if (t.IsPunct('(')) {
      ++depth;
    } else if (t.IsPunct(')')) {
      --depth;
    } else if (depth > 0) {
      continue;
    } else if (t.IsWord("CONSTRAINT") && IsNameToken(lx.Peek(), dialect)) {
      constraint_name = lx.Next().value;
    } else if (t.IsWord("COLLATE") && lx.Peek().kind != Kind::kEnd) {
      collate = lx.Next().value;
    } else if (t.IsWord("GENERATED") || t.IsWord("AS")) {
      column.generated = true;
    } else if (dialect == Dialect::kMysql &&
               (t.IsWord("CHARSET") || (t.IsWord("CHARACTER") && lx.Peek().IsWord("SET")))) {
      if (t.IsWord("CHARACTER")) lx.Next();
      if (lx.Peek().kind != Kind::kEnd) charset = lx.Next().value;
    } else if (t.IsWord("PRIMARY") || (t.IsWord("KEY") && dialect == Dialect::kMysql)) {
      if (t.IsWord("PRIMARY")) Expect(lx, "KEY");
      const bool first_primary =
          std::none_of(body.keys.begin(), body.keys.end(),
                       [](const KeySpec& k) { return k.kind == Key::Kind::kPrimary; });
      if (first_primary) body.primary_desc = lx.Peek().IsWord("DESC");
      body.keys.push_back(
          KeySpec{Key::Kind::kPrimary, constraint_name, {column.name}, {}, {}, name_offset});
    } else if (t.IsWord("UNIQUE")) {
      if (!AcceptWord(lx, "KEY")) AcceptWord(lx, "INDEX");
      body.keys.push_back(
          KeySpec{Key::Kind::kUnique, constraint_name, {column.name}, {}, {}, name_offset});
    } else if (t.IsWord("REFERENCES") && dialect == Dialect::kSqlite) {
      // SQLite's column constraint: a foreign key of this one column. MySQL parses it and
      // creates nothing, so there it is skipped like any other word.
      ForeignKeySpec fk;
      fk.columns = {column.name};
      fk.offset = name_offset;
      ParseReferences(lx, dialect, t.offset, fk);
      body.foreign_keys.push_back(std::move(fk));
    }
  }
  body.column_collate.push_back(std::move(collate));
  body.column_charset.push_back(std::move(charset));
}

// One column definition: its name, type and constraints.
Column ParseColumn(Lexer& lx, std::string_view statement, Dialect dialect, TableBody& body) {
  Column column;
  const size_t name_offset = lx.offset();
  column.name = ExpectName(lx, dialect, "a column name");
  column.declared_type = ParseColumnType(lx, statement, dialect);
  column.affinity = AffinityOf(column.declared_type);
  ParseColumnConstraints(lx, dialect, name_offset, column, body);
  return column;
}

// The table options after the closing ')': WITHOUT ROWID (SQLite), and the default character
// set and collation (MySQL: `DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
// `CHARACTER SET x`).
void ParseTableOptions(Lexer& lx, Dialect dialect, TableBody& body) {
  while (lx.Peek().kind != Kind::kEnd) {
    const Token t = lx.Next();
    if (t.IsWord("WITHOUT") && lx.Peek().IsWord("ROWID")) {
      body.without_rowid = true;
    } else if (dialect == Dialect::kMysql && (t.IsWord("CHARSET") || t.IsWord("COLLATE") ||
                                              (t.IsWord("CHARACTER") && lx.Peek().IsWord("SET")))) {
      const bool is_collate = t.IsWord("COLLATE");
      if (t.IsWord("CHARACTER")) lx.Next();
      if (lx.Peek().IsPunct('=')) lx.Next();
      if (lx.Peek().kind != Kind::kEnd)
        (is_collate ? body.table_collate : body.table_charset) = lx.Next().value;
    }
  }
}

// Each column's collation: its own COLLATE, else (MySQL) its character set's default, the
// table's COLLATE, the table's character set's default, or the server's default.
void ResolveCollations(Dialect dialect, const TableBody& body, Table& table) {
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    std::string& collation = table.columns[i].collation;
    if (dialect == Dialect::kSqlite) {
      collation = body.column_collate[i].empty() ? "BINARY" : body.column_collate[i];
    } else if (table.columns[i].affinity != Affinity::kText) {
      // Numbers, dates and binary strings have no collation in MySQL.
    } else if (!body.column_collate[i].empty()) {
      collation = body.column_collate[i];
    } else if (!body.column_charset[i].empty()) {
      collation = DefaultCollationOf(body.column_charset[i]);
    } else if (!body.table_collate.empty()) {
      collation = body.table_collate;
    } else if (!body.table_charset.empty()) {
      collation = DefaultCollationOf(body.table_charset);
    }
    if (dialect == Dialect::kMysql && table.columns[i].affinity == Affinity::kText &&
        collation.empty()) {
      collation = kServerDefaultCollation;
    }
  }
}

// The keys and foreign keys of `body` into `result.table`, primary key first, and SQLite's
// rowid alias.
void AddKeys(Dialect dialect, const TableBody& body, CreateTable& result) {
  // Primary keys first: AddKey puts the first primary key at the front.
  for (const KeySpec& spec : body.keys) {
    if (spec.kind == Key::Kind::kPrimary) {
      AddKey(result.table, spec);
      break;
    }
  }
  for (const KeySpec& spec : body.keys) {
    if (spec.kind == Key::Kind::kUnique) AddKey(result.table, spec);
  }
  for (const ForeignKeySpec& spec : body.foreign_keys) AddForeignKey(result.table, spec);
  if (dialect == Dialect::kSqlite && !body.without_rowid && !result.table.keys.empty() &&
      result.table.keys.front().kind == Key::Kind::kPrimary &&
      result.table.keys.front().columns.size() == 1) {
    // SQLite: a single-column primary key declared exactly INTEGER is the rowid
    // (https://www.sqlite.org/lang_createtable.html#rowid), except `INTEGER PRIMARY KEY DESC`.
    const int column = result.table.keys.front().columns[0];
    if (!body.primary_desc &&
        EqualsIgnoreCase(result.table.columns[static_cast<size_t>(column)].declared_type,
                         "INTEGER")) {
      result.rowid_alias = column;
    }
  }
}

}  // namespace

std::optional<CreateTable> ParseCreateTable(std::string_view statement, Dialect dialect) {
  Lexer lx(statement, dialect);
  Expect(lx, "CREATE");
  if (!AcceptWord(lx, "TEMP")) AcceptWord(lx, "TEMPORARY");
  Expect(lx, "TABLE");
  if (AcceptWord(lx, "IF")) {
    Expect(lx, "NOT");
    Expect(lx, "EXISTS");
  }
  CreateTable result;
  result.table.name = ExpectQualifiedName(lx, dialect, "a table name");
  if (lx.Peek().IsWord("AS") || lx.Peek().IsWord("LIKE")) return std::nullopt;
  ExpectPunct(lx, '(');
  TableBody body;
  for (;;) {
    if (IsTableConstraintStart(lx.Peek(), dialect)) {
      ParseTableConstraint(lx, dialect, body.keys, body.foreign_keys);
    } else {
      result.table.columns.push_back(ParseColumn(lx, statement, dialect, body));
    }
    const Token sep = lx.Next();
    if (sep.IsPunct(')')) break;
    if (!sep.IsPunct(',')) {
      throw SyntaxError{sep.offset, "expected ',' or ')' in CREATE TABLE, found '" +
                                        (sep.kind == Kind::kEnd ? std::string("end of statement")
                                                                : std::string(sep.raw)) +
                                        "'"};
    }
  }
  ParseTableOptions(lx, dialect, body);
  ResolveCollations(dialect, body, result.table);
  AddKeys(dialect, body, result);
  return result;
}

std::optional<IndexKey> ParseCreateIndex(std::string_view statement, Dialect dialect) {
  Lexer lx(statement, dialect);
  Expect(lx, "CREATE");
  const bool unique = AcceptWord(lx, "UNIQUE");
  Expect(lx, "INDEX");
  if (!unique) return std::nullopt;
  if (AcceptWord(lx, "IF")) {
    Expect(lx, "NOT");
    Expect(lx, "EXISTS");
  }
  IndexKey result;
  result.key.kind = Key::Kind::kUnique;
  result.key.offset = lx.offset();
  result.key.name = ExpectQualifiedName(lx, dialect, "an index name");
  if (AcceptWord(lx, "USING")) lx.Next();
  Expect(lx, "ON");
  result.table = ExpectQualifiedName(lx, dialect, "a table name");
  if (!ParseKeyColumns(lx, dialect, result.key)) return std::nullopt;
  // A partial index (WHERE ...) only makes some rows unique.
  while (lx.Peek().kind != Kind::kEnd) {
    if (lx.Next().IsWord("WHERE")) return std::nullopt;
  }
  return result;
}

AlterKeys ParseAlterTable(std::string_view statement, Dialect dialect) {
  Lexer lx(statement, dialect);
  Expect(lx, "ALTER");
  while (!lx.Peek().IsWord("TABLE") && lx.Peek().kind == Kind::kWord) lx.Next();  // ONLINE...
  Expect(lx, "TABLE");
  if (AcceptWord(lx, "IF")) Expect(lx, "EXISTS");
  AlterKeys result;
  result.table = ExpectQualifiedName(lx, dialect, "a table name");
  for (;;) {
    if (AcceptWord(lx, "ADD")) {
      if (IsTableConstraintStart(lx.Peek(), dialect)) {
        ParseTableConstraint(lx, dialect, result.keys, result.foreign_keys);
      }
    }
    SkipToSeparator(lx);
    const Token t = lx.Next();
    if (t.kind == Kind::kEnd) break;
    if (!t.IsPunct(',')) throw SyntaxError{t.offset, "unexpected ')' in ALTER TABLE"};
  }
  return result;
}

}  // namespace steadyflake::mergecheck::dump
