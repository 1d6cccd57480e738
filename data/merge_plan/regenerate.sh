#!/usr/bin/env bash
# Writes the merge-plan fixture, committed beside this script:
#   schema.{sqlite,mysql}.sql, {a,b}.data.sql   make_shards.py (deterministic)
#   {a,b}.mariadb.sql                          mariadb-dump of the two shards loaded into MariaDB
# The MariaDB exports come from a private mariadbd on a unix socket in a temp folder (no
# network), stopped at the end. Needs python3 and mariadb-server.
set -euo pipefail
cd "$(dirname "$0")"
source ../private_mariadb.sh
python3 make_shards.py .
tmp=$(mktemp -d)
start_private_mariadb "$tmp"
sql() { mariadb --no-defaults -S "$sock" -uroot "$@"; }
for shard in a b; do
  {
    echo "CREATE DATABASE shard_$shard; USE shard_$shard; SET sql_mode = 'NO_BACKSLASH_ESCAPES';"
    cat schema.mysql.sql "$shard.data.sql"
  } | sql --default-character-set=utf8mb4
  mariadb-dump --no-defaults -S "$sock" -uroot --skip-dump-date shard_$shard >"$shard.mariadb.sql"
done
