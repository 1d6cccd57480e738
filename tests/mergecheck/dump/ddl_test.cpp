// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// The dump reader's schema statements (CREATE TABLE, CREATE UNIQUE INDEX, ALTER TABLE) and INSERT
// headers, on the forms the fixtures do not show.

#include "dump/ddl.h"

#include <gtest/gtest.h>

namespace steadyflake::mergecheck::dump {
namespace {

std::vector<std::string> Keys(const Table& table) {
  std::vector<std::string> out;
  for (const Key& k : table.keys) {
    std::string s = k.kind == Key::Kind::kPrimary ? "P(" : "U(";
    for (size_t i = 0; i < k.columns.size(); ++i) {
      if (i) s += ",";
      s += table.columns[static_cast<size_t>(k.columns[i])].name;
    }
    out.push_back(s + ")");
  }
  return out;
}

// Each foreign key as "local,columns->table(ref,columns)", "->table" when it names none.
std::vector<std::string> ForeignKeys(const Table& table) {
  std::vector<std::string> out;
  for (const ForeignKey& fk : table.foreign_keys) {
    std::string s;
    for (size_t i = 0; i < fk.columns.size(); ++i) {
      if (i) s += ",";
      s += table.columns.at(static_cast<size_t>(fk.columns[i])).name;
    }
    s += "->" + fk.ref_table;
    for (size_t i = 0; i < fk.ref_columns.size(); ++i) s += (i ? "," : "(") + fk.ref_columns[i];
    out.push_back(fk.ref_columns.empty() ? s : s + ")");
  }
  return out;
}

CreateTable Parse(std::string_view sql, Dialect dialect) {
  std::optional<CreateTable> t = ParseCreateTable(sql, dialect);
  EXPECT_TRUE(t.has_value()) << sql;
  return t.value_or(CreateTable{});
}

TEST(Ddl, SqliteRowidAliasOnlyForExactlyIntegerPrimaryKey) {
  EXPECT_EQ(Parse("CREATE TABLE t(id INTEGER PRIMARY KEY, v)", Dialect::kSqlite).rowid_alias, 0);
  EXPECT_EQ(Parse("CREATE TABLE t(v, id integer, PRIMARY KEY(id))", Dialect::kSqlite).rowid_alias,
            1);
  EXPECT_EQ(Parse("CREATE TABLE t(id INT PRIMARY KEY)", Dialect::kSqlite).rowid_alias, -1);
  EXPECT_EQ(Parse("CREATE TABLE t(id INTEGER PRIMARY KEY DESC)", Dialect::kSqlite).rowid_alias, -1);
  EXPECT_EQ(
      Parse("CREATE TABLE t(id INTEGER PRIMARY KEY) WITHOUT ROWID", Dialect::kSqlite).rowid_alias,
      -1);
  EXPECT_EQ(
      Parse("CREATE TABLE t(a INTEGER, b INTEGER, PRIMARY KEY(a,b))", Dialect::kSqlite).rowid_alias,
      -1);
}

// Issue 11: each column's collation, resolved as MySQL resolves it, and a key's own COLLATE.
TEST(Ddl, CollationsResolvedAsTheDatabaseDoes) {
  const Table m = Parse(
                      "CREATE TABLE `t` (`a` varchar(8) COLLATE utf8mb4_bin, "
                      "`b` varchar(8) CHARACTER SET latin1, `c` text, `d` int(11), "
                      "`e` varbinary(8), `f` char(2) CHARSET utf8 COLLATE utf8_general_ci, "
                      "UNIQUE KEY `u` (`c`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 "
                      "COLLATE=utf8mb4_unicode_ci",
                      Dialect::kMysql)
                      .table;
  ASSERT_EQ(m.columns.size(), 6u);
  EXPECT_EQ(m.columns[0].collation, "utf8mb4_bin");
  EXPECT_EQ(m.columns[1].collation, "latin1_swedish_ci");   // the character set's default
  EXPECT_EQ(m.columns[2].collation, "utf8mb4_unicode_ci");  // the table's
  EXPECT_EQ(m.columns[3].collation, "");                    // a number has none
  EXPECT_EQ(m.columns[4].collation, "");                    // nor does a binary string
  EXPECT_EQ(m.columns[5].collation, "utf8_general_ci");
  EXPECT_EQ(KeyCollation(m, m.keys[0], 0), "utf8mb4_unicode_ci");
  EXPECT_EQ(Parse("CREATE TABLE `t` (`a` text) DEFAULT CHARSET=utf8", Dialect::kMysql)
                .table.columns[0]
                .collation,
            "utf8mb3_general_ci");
  EXPECT_EQ(Parse("CREATE TABLE `t` (`a` text)", Dialect::kMysql).table.columns[0].collation,
            "the server's default");

  const Table s = Parse(
                      "CREATE TABLE t(a TEXT COLLATE NOCASE, b TEXT, c TEXT, "
                      "UNIQUE (b COLLATE RTRIM), UNIQUE (a), UNIQUE (c))",
                      Dialect::kSqlite)
                      .table;
  EXPECT_EQ(s.columns[0].collation, "NOCASE");
  EXPECT_EQ(s.columns[1].collation, "BINARY");
  ASSERT_EQ(s.keys.size(), 3u);
  EXPECT_EQ(KeyCollation(s, s.keys[0], 0), "RTRIM");   // the key's own
  EXPECT_EQ(KeyCollation(s, s.keys[1], 0), "NOCASE");  // the column's
  EXPECT_EQ(KeyCollation(s, s.keys[2], 0), "BINARY");
  const Table prefixed =
      Parse("CREATE TABLE `t` (`a` int, `b` text, UNIQUE KEY `u` (`a`, `b`(10)))", Dialect::kMysql)
          .table;
  ASSERT_EQ(prefixed.keys.size(), 1u);
  EXPECT_EQ(prefixed.keys[0].prefixes, (std::vector<int>{0, 10}));
  EXPECT_TRUE(Parse("CREATE TABLE `t` (`b` text, UNIQUE KEY `u` (`b`))", Dialect::kMysql)
                  .table.keys[0]
                  .prefixes.empty());
  EXPECT_THROW(
      ParseCreateTable("CREATE TABLE `t` (`b` text, UNIQUE KEY `u` (`b`(x)))", Dialect::kMysql),
      SyntaxError);
  const std::optional<IndexKey> index =
      ParseCreateIndex("CREATE UNIQUE INDEX i ON t(pair, v COLLATE nocase)", Dialect::kSqlite);
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->key.collations, (std::vector<std::string>{"", "nocase"}));
}

TEST(Ddl, DeclaredTypesAsWritten) {
  const Table t = Parse(
                      "CREATE TABLE t(a DOUBLE PRECISION NOT NULL, b VARCHAR ( 10 ) DEFAULT 'x', "
                      "c DECIMAL(10,2), d, e CHARACTER VARYING(5) COLLATE NOCASE)",
                      Dialect::kSqlite)
                      .table;
  ASSERT_EQ(t.columns.size(), 5u);
  EXPECT_EQ(t.columns[0].declared_type, "DOUBLE PRECISION");
  EXPECT_EQ(t.columns[1].declared_type, "VARCHAR ( 10 )");
  EXPECT_EQ(t.columns[2].declared_type, "DECIMAL(10,2)");
  EXPECT_EQ(t.columns[3].declared_type, "");
  EXPECT_EQ(t.columns[4].declared_type, "CHARACTER VARYING(5)");
  const Table m = Parse(
                      "CREATE TABLE `t` (`a` varchar(8) CHARACTER SET utf8mb4 NOT NULL, "
                      "`b` enum('x','y') DEFAULT 'x', `c` int(10) unsigned zerofill)",
                      Dialect::kMysql)
                      .table;
  EXPECT_EQ(m.columns[0].declared_type, "varchar(8)");
  EXPECT_EQ(m.columns[1].declared_type, "enum('x','y')");
  EXPECT_EQ(m.columns[2].declared_type, "int(10) unsigned zerofill");
}

TEST(Ddl, MysqlColumnKeysAndIndexes) {
  const Table t = Parse(
                      "CREATE TABLE `t` (`id` int NOT NULL AUTO_INCREMENT KEY, "
                      "`e` varchar(64) UNIQUE KEY, `n` varchar(64), `x` json, "
                      "KEY `n` (`n`(10)), UNIQUE KEY `nx` (`n`(10)), FULLTEXT KEY `f` (`n`), "
                      "UNIQUE KEY `fx` ((cast(`x` as char(8)))), "
                      "CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `o` (`id`) ON DELETE CASCADE)",
                      Dialect::kMysql)
                      .table;
  EXPECT_EQ(Keys(t), (std::vector<std::string>{"P(id)", "U(e)", "U(n)"}));
  EXPECT_EQ(t.keys[2].name, "nx");
}

TEST(Ddl, DuplicateKeysAreDropped) {
  const Table t = Parse(
                      "CREATE TABLE t(a UNIQUE, b, UNIQUE(a), UNIQUE(b,a), UNIQUE(a,b), "
                      "PRIMARY KEY(a))",
                      Dialect::kSqlite)
                      .table;
  EXPECT_EQ(Keys(t), (std::vector<std::string>{"P(a)", "U(b,a)"}));
}

TEST(Ddl, CreateTableAsSelectHasNoColumns) {
  EXPECT_FALSE(ParseCreateTable("CREATE TABLE t AS SELECT 1", Dialect::kSqlite).has_value());
}

TEST(Ddl, UniqueIndexes) {
  std::optional<IndexKey> k = ParseCreateIndex(
      "CREATE UNIQUE INDEX IF NOT EXISTS \"i\" ON [t](a COLLATE NOCASE, b DESC)", Dialect::kSqlite);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->table, "t");
  EXPECT_EQ(k->key.name, "i");
  EXPECT_EQ(k->key.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(ParseCreateIndex("CREATE INDEX i ON t(a)", Dialect::kSqlite).has_value());
  EXPECT_FALSE(
      ParseCreateIndex("CREATE UNIQUE INDEX i ON t(a) WHERE a > 0", Dialect::kSqlite).has_value());
  EXPECT_FALSE(
      ParseCreateIndex("CREATE UNIQUE INDEX i ON t(lower(a))", Dialect::kSqlite).has_value());
}

TEST(Ddl, AlterTableAddsKeys) {
  const AlterKeys a = ParseAlterTable(
      "ALTER TABLE `t` ADD PRIMARY KEY (`a`,`b`), ADD UNIQUE KEY `u` (`c`), ADD KEY `k` (`d`), "
      "MODIFY `a` int(11) NOT NULL AUTO_INCREMENT, ADD CONSTRAINT `v` UNIQUE (`d`)",
      Dialect::kMysql);
  EXPECT_EQ(a.table, "t");
  ASSERT_EQ(a.keys.size(), 3u);
  EXPECT_EQ(a.keys[0].kind, Key::Kind::kPrimary);
  EXPECT_EQ(a.keys[0].columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.keys[1].name, "u");
  EXPECT_EQ(a.keys[2].name, "v");
}

TEST(Ddl, KeyOverAMissingColumnIsAnError) {
  EXPECT_THROW(ParseCreateTable("CREATE TABLE t(a, PRIMARY KEY(b))", Dialect::kSqlite),
               SyntaxError);
}

TEST(Ddl, ForeignKeyTableConstraints) {
  // Both dialects: with or without a name, with the clauses after REFERENCES, composite, and
  // beside the keys (which are as before).
  const Table s = Parse(
                      "CREATE TABLE c(a, b, \"C\", CONSTRAINT fk FOREIGN KEY (B, a) REFERENCES "
                      "p (x, \"y\") ON DELETE CASCADE ON UPDATE SET NULL MATCH SIMPLE DEFERRABLE "
                      "INITIALLY DEFERRED, UNIQUE (c), FOREIGN KEY (c) REFERENCES [q])",
                      Dialect::kSqlite)
                      .table;
  ASSERT_EQ(ForeignKeys(s), (std::vector<std::string>{"b,a->p(x,y)", "C->q"}));
  EXPECT_EQ(s.foreign_keys[0].columns, (std::vector<int>{1, 0}));
  EXPECT_EQ(Keys(s), (std::vector<std::string>{"U(C)"}));

  // mysqldump's form, and a table named with its schema (kept without it).
  const Table m = Parse(
                      "CREATE TABLE `item` (\n"
                      "  `id` bigint NOT NULL,\n"
                      "  `owner_id` bigint NOT NULL,\n"
                      "  `realm` int NOT NULL,\n"
                      "  PRIMARY KEY (`id`),\n"
                      "  KEY `fk_item_owner` (`owner_id`),\n"
                      "  CONSTRAINT `fk_item_owner` FOREIGN KEY (`owner_id`) REFERENCES `player` "
                      "(`id`) ON DELETE CASCADE,\n"
                      "  CONSTRAINT `fk_item_realm` FOREIGN KEY (`realm`, `owner_id`) REFERENCES "
                      "`game`.`account` (`realm`, `id`) ON DELETE NO ACTION ON UPDATE CASCADE\n"
                      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
                      Dialect::kMysql)
                      .table;
  ASSERT_EQ(ForeignKeys(m), (std::vector<std::string>{"owner_id->player(id)",
                                                      "realm,owner_id->account(realm,id)"}));
  EXPECT_EQ(m.foreign_keys[1].columns, (std::vector<int>{2, 1}));
  EXPECT_EQ(Keys(m), (std::vector<std::string>{"P(id)"}));
  // MySQL's `FOREIGN KEY index_name (...)`.
  EXPECT_EQ(ForeignKeys(Parse("CREATE TABLE `t` (`a` int, FOREIGN KEY `i` (`a`) REFERENCES `p` "
                              "(`x`))",
                              Dialect::kMysql)
                            .table),
            (std::vector<std::string>{"a->p(x)"}));
}

TEST(Ddl, SqliteColumnReferencesAreForeignKeysInDeclarationOrder) {
  constexpr std::string_view kSql =
      "CREATE TABLE m(guild INTEGER NOT NULL REFERENCES guild ON DELETE CASCADE, "
      "player INT CONSTRAINT fk REFERENCES \"player\"(id) DEFERRABLE INITIALLY DEFERRED UNIQUE, "
      "note TEXT DEFAULT 'REFERENCES x(y)' CHECK (note <> 'REFERENCES'), "
      "FOREIGN KEY (note) REFERENCES notes(body))";
  const Table s = Parse(kSql, Dialect::kSqlite).table;
  ASSERT_EQ(ForeignKeys(s),
            (std::vector<std::string>{"guild->guild", "player->player(id)", "note->notes(body)"}));
  EXPECT_TRUE(s.foreign_keys[0].ref_columns.empty());  // the referenced table's PRIMARY KEY
  EXPECT_EQ(Keys(s), (std::vector<std::string>{"U(player)"}));
  EXPECT_EQ(s.columns[1].declared_type, "INT");
  // MySQL parses a column's REFERENCES and creates no foreign key for it.
  const Table m = Parse(
                      "CREATE TABLE `m` (`guild` int REFERENCES `guild` (`id`), `player` int, "
                      "FOREIGN KEY (`player`) REFERENCES `player` (`id`))",
                      Dialect::kMysql)
                      .table;
  EXPECT_EQ(ForeignKeys(m), (std::vector<std::string>{"player->player(id)"}));
}

TEST(Ddl, AlterTableAddsForeignKeys) {
  const AlterKeys a = ParseAlterTable(
      "ALTER TABLE `item` ADD CONSTRAINT `fk_item_owner` FOREIGN KEY (`owner_id`) REFERENCES "
      "`player` (`id`) ON DELETE CASCADE, ADD UNIQUE KEY `u` (`code`), ADD CONSTRAINT FOREIGN KEY "
      "(`realm`, `owner_id`) REFERENCES `game`.`account` (`realm`, `id`), ADD FOREIGN KEY IF NOT "
      "EXISTS (`guild`) REFERENCES `guild`",
      Dialect::kMysql);
  EXPECT_EQ(a.table, "item");
  ASSERT_EQ(a.keys.size(), 1u);
  EXPECT_EQ(a.keys[0].name, "u");
  ASSERT_EQ(a.foreign_keys.size(), 3u);
  EXPECT_EQ(a.foreign_keys[0].columns, (std::vector<std::string>{"owner_id"}));
  EXPECT_EQ(a.foreign_keys[0].ref_table, "player");
  EXPECT_EQ(a.foreign_keys[0].ref_columns, (std::vector<std::string>{"id"}));
  EXPECT_EQ(a.foreign_keys[1].columns, (std::vector<std::string>{"realm", "owner_id"}));
  EXPECT_EQ(a.foreign_keys[1].ref_table, "account");
  EXPECT_EQ(a.foreign_keys[1].ref_columns, (std::vector<std::string>{"realm", "id"}));
  EXPECT_EQ(a.foreign_keys[2].ref_table, "guild");
  EXPECT_TRUE(a.foreign_keys[2].ref_columns.empty());

  // Resolved against the table like a key's columns: case-insensitively, appended.
  Table item = Parse(
                   "CREATE TABLE `item` (`id` int, `Owner_ID` int, `realm` int, `guild` int, "
                   "CONSTRAINT `f0` FOREIGN KEY (`guild`) REFERENCES `guild` (`id`))",
                   Dialect::kMysql)
                   .table;
  for (const ForeignKeySpec& fk : a.foreign_keys) AddForeignKey(item, fk);
  EXPECT_EQ(ForeignKeys(item),
            (std::vector<std::string>{"guild->guild(id)", "Owner_ID->player(id)",
                                      "realm,Owner_ID->account(realm,id)", "guild->guild"}));
  try {
    AddForeignKey(item, ForeignKeySpec{{"id", "nope"}, "p", {}, 7});
    ADD_FAILURE() << "no error";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.offset, 7u);
    EXPECT_EQ(e.problem, "foreign key column 'nope' is not a column of table 'item'");
  }
  EXPECT_EQ(item.foreign_keys.size(), 4u);  // unchanged
}

TEST(Ddl, ForeignKeyOverAMissingColumnOrMismatchedColumnsIsAnError) {
  EXPECT_THROW(
      ParseCreateTable("CREATE TABLE t(a, FOREIGN KEY (b) REFERENCES p(x))", Dialect::kSqlite),
      SyntaxError);
  EXPECT_THROW(ParseCreateTable("CREATE TABLE `t` (`a` int, CONSTRAINT `f` FOREIGN KEY (`b`) "
                                "REFERENCES `p` (`x`))",
                                Dialect::kMysql),
               SyntaxError);
  // SQLite and MySQL refuse a REFERENCES naming another number of columns.
  EXPECT_THROW(ParseCreateTable("CREATE TABLE t(a, b, FOREIGN KEY (a, b) REFERENCES p(x))",
                                Dialect::kSqlite),
               SyntaxError);
  EXPECT_THROW(ParseCreateTable("CREATE TABLE t(a REFERENCES p(x, y))", Dialect::kSqlite),
               SyntaxError);
}

TEST(Ddl, InsertHeaders) {
  const InsertHeader h =
      ParseInsertHeader("INSERT OR IGNORE INTO \"main\".\"t\"(\"a\", b) VALUES", Dialect::kSqlite);
  EXPECT_EQ(h.table, "t");
  EXPECT_EQ(h.table_offset, 29u);
  EXPECT_TRUE(h.has_columns);
  EXPECT_EQ(h.columns, (std::vector<std::string>{"a", "b"}));

  const InsertHeader m =
      ParseInsertHeader("INSERT LOW_PRIORITY IGNORE INTO `db`.`t` VALUES", Dialect::kMysql);
  EXPECT_EQ(m.table, "t");
  EXPECT_FALSE(m.has_columns);
  EXPECT_EQ(ParseInsertHeader("REPLACE INTO 't' VALUES", Dialect::kSqlite).table, "t");
  EXPECT_THROW(ParseInsertHeader("REPLACE INTO 't' VALUES", Dialect::kMysql), SyntaxError);
  EXPECT_THROW(ParseInsertHeader("INSERT INTO t (a, 1) VALUES", Dialect::kSqlite), SyntaxError);
}

TEST(Ddl, InsertColumnsResolveCaseInsensitivelyAndToTheRowid) {
  const CreateTable aliased = Parse("CREATE TABLE t(id INTEGER PRIMARY KEY, v)", Dialect::kSqlite);
  EXPECT_EQ(
      ResolveInsertColumns({"V", "ROWID"}, aliased.table, aliased.rowid_alias, Dialect::kSqlite),
      (std::vector<int>{1, 0}));
  const CreateTable hidden = Parse("CREATE TABLE t(a, b)", Dialect::kSqlite);
  EXPECT_EQ(ResolveInsertColumns({"oid", "b", "_rowid_"}, hidden.table, hidden.rowid_alias,
                                 Dialect::kSqlite),
            (std::vector<int>{-1, 1, -1}));
  // MySQL has no rowid.
  try {
    ResolveInsertColumns({"a", "rowid"}, hidden.table, -1, Dialect::kMysql);
    ADD_FAILURE() << "no error";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.problem, "INSERT names column 'rowid', which table 't' does not have");
  }
}

}  // namespace
}  // namespace steadyflake::mergecheck::dump
