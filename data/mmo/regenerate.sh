#!/usr/bin/env bash
# Writes the MMO-shaped fixture committed beside this script (issue 17): three realms of a
# `characters` database (make_realms.py: 42 tables, auto-increment guids, seeded reference
# tables, keyless tables, text keys under utf8mb4_bin and utf8mb4_unicode_ci), loaded into a
# private mariadbd (unix socket in a temp folder, no network, stopped at the end) and exported:
#   {a,b,c}.mariadb.sql.gz   mariadb-dump defaults (extended inserts), gzip
#   truth_ab.tsv, truth_ac.tsv
#                            what the server says of merging B (or C) into A: per key the
#                            values in both and how many of those rows are identical, per
#                            keyless table its rows and the rows in both (make_realms.py
#                            --truth); each table's INSERT ... SELECT (rolled back) must fail
#                            with a duplicate key exactly when some key of it overlaps.
#   schema.sqlite.sql, realm_{a,b,c}.sqlite.sql, truth.sqlite.sql
#                            the same realms as SQLite SQL, and the queries that ask SQLite the
#                            same questions (tests/mergecheck/mmo_test.cpp builds the files and
#                            asks SQLite at test time)
# Needs mariadb-server and python3 (apt-get install mariadb-server python3).
set -euo pipefail
cd "$(dirname "$0")"
source ../private_mariadb.sh
tmp=$(mktemp -d)
start_private_mariadb "$tmp"
sql() { mariadb --no-defaults -S "$sock" -uroot --default-character-set=utf8mb4 "$@"; }
python3 make_realms.py "$tmp"
for realm in a b c; do
  { echo "CREATE DATABASE realm_$realm; USE realm_$realm;"; cat "$tmp/schema.sql" "$tmp/realm_$realm.sql"; } | sql
  mariadb-dump --no-defaults -S "$sock" -uroot --skip-dump-date "realm_$realm" |
    gzip -9n > "$realm.mariadb.sql.gz"
done
tables=$(python3 -c 'import make_realms; print(" ".join(t for t, _, k in make_realms.TABLES if k))')
for other in b c; do
  python3 make_realms.py --truth realm_a "realm_$other" | sql -N -B -r > "truth_a$other.tsv"
  # The truth's own check: a plain INSERT ... SELECT fails exactly where a key overlaps.
  for table in $tables; do
    overlap=$(awk -F'\t' -v t="$table" '$1 == "key" && $2 == t && $4 > 0' "truth_a$other.tsv")
    if sql -e "START TRANSACTION; INSERT INTO realm_a.\`$table\` SELECT * FROM realm_$other.\`$table\`; ROLLBACK;" 2>"$tmp/err"; then
      [[ -z $overlap ]] || { echo "$table: truth says a key overlaps, the INSERT went through" >&2; exit 1; }
    else
      grep -q 'ERROR 1062' "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
      [[ -n $overlap ]] || { echo "$table: the INSERT failed, truth says no key overlaps" >&2; exit 1; }
    fi
  done
done
python3 make_realms.py --sqlite .
python3 make_realms.py --truth-sqlite > truth.sqlite.sql
echo "wrote {a,b,c}.mariadb.sql.gz, truth_ab.tsv, truth_ac.tsv and the SQLite forms"
