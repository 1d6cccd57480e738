#!/usr/bin/env bash
# Writes the MariaDB exports of the merge-day shards, committed beside this script:
#   {a,b}.mariadb.sql      mariadb-dump defaults: extended inserts, binary columns as raw bytes
#   {a,b}.mariadb-hex.sql  mariadb-dump --hex-blob --skip-extended-insert
# from schema.mysql.sql + {a,b}.data.sql, through a private mariadbd on a unix socket in a temp
# folder (no network), stopped at the end. Needs mariadb-server (apt-get install mariadb-server).
# The SQLite file and `sqlite3 .dump` exports are made by the tests themselves.
set -euo pipefail
cd "$(dirname "$0")"
source ../private_mariadb.sh
tmp=$(mktemp -d)
start_private_mariadb "$tmp"
sql() { mariadb --no-defaults -S "$sock" -uroot "$@"; }
for shard in a b; do
  {
    echo "CREATE DATABASE shard_$shard; USE shard_$shard; SET sql_mode = 'NO_BACKSLASH_ESCAPES';"
    cat schema.mysql.sql "$shard.data.sql"
  } | sql --default-character-set=utf8mb4
  mariadb-dump --no-defaults -S "$sock" -uroot --skip-dump-date shard_$shard >"$shard.mariadb.sql"
  mariadb-dump --no-defaults -S "$sock" -uroot --skip-dump-date --hex-blob \
    --skip-extended-insert shard_$shard >"$shard.mariadb-hex.sql"
done
