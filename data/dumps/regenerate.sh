#!/usr/bin/env bash
# Regenerates the dump fixtures that real tools write (the hand-made ones, *.handmade.sql, are
# edited by hand and left alone). Run from anywhere:
#   data/dumps/regenerate.sh            # sqlite3 fixtures and, when mariadbd is installed,
#                                       # the mariadb-dump fixtures (a private server on a unix
#                                       # socket in a temp dir, stopped at the end)
# Needs sqlite3 and python3; mariadb-dump fixtures need mariadb-server (apt-get install -y
# mariadb-server). The output is committed as text; tests never run this script.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- sqlite3 .dump ----------------------------------------------------------------------------
sqlite_dump() {  # name, SQL to build the database, [dump options]
  local name=$1 sql=$2
  shift 2
  rm -f "$tmp/$name.db"
  sqlite3 "$tmp/$name.db" "$sql"
  sqlite3 "$tmp/$name.db" ".dump $*" > "$name.sql"
}

sqlite_dump sqlite_wrapper "
CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT);
INSERT INTO item VALUES(1, 10, 'sword'), (2, 10, 'shield'), (3, 11, 'bow');"

sqlite_dump sqlite_quotes "
CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO player VALUES(1, 'O''Brien'), (2, ''''), (3, 'back\\slash'), (4, '\"dq\"'), (5, '');"

sqlite_dump sqlite_newlines "
CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
INSERT INTO note VALUES(1, 'a' || char(10) || 'b');
INSERT INTO note VALUES(2, 'a' || char(13) || char(10) || 'b');
INSERT INTO note VALUES(3, 'has \\n literal' || char(10) || 'x');
INSERT INTO note VALUES(4, 'has \\n and \\012' || char(10));
INSERT INTO note VALUES(5, 'cr \\r and \\015' || char(13) || 'lf \\n \\012 (\\n0)' || char(10));
INSERT INTO note VALUES(6, char(10) || 'O''Brien' || char(13));"

sqlite_dump sqlite_blobs "
CREATE TABLE asset(id INTEGER PRIMARY KEY, data BLOB, note TEXT);
INSERT INTO asset VALUES(1, X'00ff', 'two bytes'), (2, X'', 'empty'), (3, NULL, NULL),
  (4, X'0a0d27', NULL);"

sqlite_dump sqlite_identifiers '
CREATE TABLE "my ""weird"" table"([x] INTEGER PRIMARY KEY, `y z` TEXT UNIQUE, "select" INT);
INSERT INTO "my ""weird"" table" VALUES(1, '"'"'a'"'"', 7);
CREATE TABLE [order]("id" TEXT PRIMARY KEY, `key` BLOB);
INSERT INTO [order] VALUES('"'"'k1'"'"', X'"'"'01'"'"');'

sqlite_dump sqlite_sql_in_strings "
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO item VALUES(1, 'x); INSERT INTO item VALUES(999); --');
INSERT INTO item VALUES(2, '/* not a comment */');
INSERT INTO item VALUES(3, ';');"

sqlite_dump sqlite_comments_in_create "
CREATE TABLE item( -- the items
  id INTEGER /* the id */ PRIMARY KEY, -- rowid alias
  /* a comment, (with parens */ owner INTEGER NOT NULL,
  code TEXT, -- UNIQUE in a comment is not a key
  CONSTRAINT code_unique UNIQUE (code /* inline */)
);
INSERT INTO item VALUES(1, 2, 'a');"

sqlite_dump sqlite_rowid "
CREATE TABLE loose(a, b);
INSERT INTO loose VALUES(1, 'x'), (2, 'y'), (3, 'z');
DELETE FROM loose WHERE a = 1;
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO item VALUES(5, 'five');" --preserve-rowids

sqlite_dump sqlite_internal "
CREATE TABLE item(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
INSERT INTO item(name) VALUES('a'), ('b');
CREATE INDEX item_name ON item(name);
ANALYZE;"

sqlite_dump sqlite_keys "
CREATE TABLE pair(a INT, b TEXT, c BLOB, PRIMARY KEY(a, b), UNIQUE(c));
INSERT INTO pair VALUES(1, 'x', X'01');
CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT, shard INT, slot INT);
INSERT INTO account VALUES(1, 'a@example.com', 1, 1);
CREATE UNIQUE INDEX account_email ON account(email);
CREATE UNIQUE INDEX account_slot ON account(shard, slot DESC);
CREATE INDEX account_shard ON account(shard);
CREATE UNIQUE INDEX account_lower ON account(lower(email));
CREATE UNIQUE INDEX account_partial ON account(slot) WHERE slot > 0;
CREATE TABLE kv(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
INSERT INTO kv VALUES('k', 1);"

sqlite_dump sqlite_numbers "
CREATE TABLE num(id INTEGER PRIMARY KEY, v);
INSERT INTO num VALUES(1, -5), (2, 1.5), (3, 1e10), (4, -0.0), (5, 9223372036854775807),
  (6, -9223372036854775808), (7, 1e999), (8, -1e999), (9, 0.1), (10, -2.5e-300);"

sqlite_dump sqlite_trigger_view "
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE log(n INTEGER);
CREATE TRIGGER item_ai AFTER INSERT ON item BEGIN
  UPDATE log SET n = CASE WHEN n > 0 THEN n ELSE 0 END;
  INSERT INTO log VALUES(new.id);
END;
INSERT INTO item VALUES(1, 'a;b');
CREATE VIEW v AS SELECT id FROM item WHERE name <> ';';
CREATE VIRTUAL TABLE docs USING fts5(body);
INSERT INTO docs VALUES('hello; world');"

# A database whose pages are damaged: sqlite3 .dump says CORRUPTION ERROR and ROLLBACK.
rm -f "$tmp/corrupt.db"
python3 - "$tmp/corrupt.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA page_size=512")
db.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER, name TEXT)")
db.executemany("INSERT INTO item VALUES(?,?,?)", [(i, i % 7, "n%03d" % i) for i in range(200)])
db.commit()
db.close()
with open(sys.argv[1], "r+b") as f:  # overwrite the middle of the table's b-tree
    f.seek(512 * 4 + 100)
    f.write(b"\xff" * 300)
PY
sqlite3 "$tmp/corrupt.db" .dump > sqlite_corrupt.sql || true

# ---- mariadb-dump ----------------------------------------------------------------------------
if ! command -v mariadbd > /dev/null; then
  echo "mariadbd not installed: kept the mysql_*.sql fixtures" >&2
  exit 0
fi
source ../private_mariadb.sh
start_private_mariadb "$tmp"
sql() { mariadb --no-defaults -S "$sock" -uroot "$@"; }
dump() {  # name, [options...] -- tables...: mariadb-dump of those tables of database fixture
  local name=$1 opts=()
  shift
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  mariadb-dump --no-defaults -S "$sock" -uroot --skip-dump-date "${opts[@]}" fixture "$@" \
    > "$name.sql"
}

sql <<'SQL'
CREATE DATABASE fixture;
USE fixture;
CREATE TABLE item (id BIGINT NOT NULL, owner INT NOT NULL, name VARCHAR(32) NOT NULL,
  PRIMARY KEY (id), UNIQUE KEY owner_name (owner, name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO item VALUES (1, 10, 'sword'), (2, 10, 'shield'), (-3, 11, 'bow');
CREATE TABLE `we``ird` (`a``b` INT NOT NULL PRIMARY KEY, `select` TEXT);
INSERT INTO `we``ird` VALUES (1, 'x');
CREATE TABLE esc (id INT PRIMARY KEY, s TEXT);
INSERT INTO esc VALUES (1, 'it''s'), (2, 'back\\slash'), (3, CONCAT('nul', CHAR(0), 'byte')),
  (4, CONCAT('ctrl-z', CHAR(26))), (5, 'new\nline'), (6, 'car\rriage'), (7, 'tab\there'),
  (8, 'back\bspace'), (9, 'dq"dq'), (10, '%_ \\% \\_'), (11, '');
CREATE TABLE bin (id INT PRIMARY KEY, b VARBINARY(16), blb BLOB);
INSERT INTO bin VALUES (1, 0xA5FF00, 0xC3), (2, 0x275C0A0D1A, ''), (3, NULL, 0x80818283);
CREATE TABLE big (id BIGINT UNSIGNED PRIMARY KEY, d DECIMAL(30, 2), f DOUBLE);
INSERT INTO big VALUES (18446744073709551615, 12.5, 1.5e10), (9223372036854775808, -0.01, -2),
  (0, NULL, 0.1);
CREATE TABLE pair (a INT NOT NULL, b VARCHAR(8) NOT NULL, PRIMARY KEY (a, b));
INSERT INTO pair VALUES (1, 'x'), (1, 'y');
CREATE TABLE audit (n INT);
DELIMITER ;;
CREATE TRIGGER item_ai AFTER INSERT ON item FOR EACH ROW BEGIN INSERT INTO audit VALUES (1); END;;
DELIMITER ;
SQL
dump mysql_extended -- item pair
dump mysql_escapes -- esc
dump mysql_binary_raw -- bin
dump mysql_hex_blob --hex-blob -- bin
dump mysql_complete_insert --complete-insert --skip-extended-insert -- item
dump mysql_insert_ignore --insert-ignore -- item
dump mysql_replace --replace -- item
dump mysql_identifiers -- 'we`ird'
dump mysql_unsigned -- big
dump mysql_trigger -- item audit
dump mysql_skip_comments --skip-comments -- pair

# Many rows with a small net buffer: the extended INSERT is split across several statements.
sql fixture -e "CREATE TABLE many (id INT PRIMARY KEY, s VARCHAR(40));
  INSERT INTO many SELECT seq, CONCAT('row ', seq, ' with some text') FROM seq_1_to_300;"
dump mysql_split --net-buffer-length=4096 -- many
