#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# merge-plan on merge day, end to end (issue 12, docs/merging.md "Merge day"): plan the rewrite
# of shard B, apply rewrite-b.sql to a copy of B with the database's own client, check again,
# merge every table into A, and prove nothing was lost or repointed.
#
#   merge_plan_test.sh <path to steadyflake> <case>
#
# Exit status: 0 pass, 1 fail (with the reason on stderr), 77 skipped (the database's client
# or server is not installed; the message names the Debian package). The shards are the
# committed fixture data/merge_plan/ (make_shards.py says what collides). Every case runs in a
# fresh `mktemp -d` folder that the EXIT trap removes; the MariaDB case starts a private
# mariadbd on a unix socket in that folder (no network) and stops it.

# shellcheck source=tests/cli/merge_plan_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/merge_plan_lib.sh"

# --- SQLite: the shards as files, the rewrite applied with the sqlite3 shell ---------------

test_merge_plan_sqlite() {
  DIALECT=sqlite
  need sqlite3 sqlite3
  need python3 python3
  for s in a b; do
    cat "$DATA/schema.sqlite.sql" "$DATA/$s.data.sql" | sqlite3 "$T/$s.db" || fail "load $s"
  done
  sqlite3 "$T/b.db" -separator $'\t' "$(snapshot_sql)" | only_b \
    >"$T/before"
  local sum_a sum_b
  sum_a=$(sha256sum <"$T/a.db")
  sum_b=$(sha256sum <"$T/b.db")
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --refs "$T/refs" \
    --state-dir "$T/state"
  expect_rc 0
  [[ $(sha256sum <"$T/a.db") == "$sum_a" && $(sha256sum <"$T/b.db") == "$sum_b" ]] ||
    fail "merge-plan modified an input"
  grep -q "^follows player_slot (player_id, slot): 390 values" "$T/out" ||
    fail "summary: player_slot does not follow the player remap"
  check_plan_json
  # Under SQLite's NOCASE 'Ève.s102' and 'eve.s102' differ: the first suffix is free there.
  [[ $(plan_json "dict(v for r in p['renames'] if r['table']=='player' for v in r['values'])['eve']") == \
     eve.s102 ]] || fail "plan.json: 'eve' not renamed 'eve.s102' under NOCASE"

  cp "$T/b.db" "$T/b2.db"
  sqlite3 "$T/b2.db" <"$T/plan/rewrite-b.sql" >"$T/apply.out" 2>&1 || fail "rewrite-b.sql failed: $(head -c 500 "$T/apply.out")"
  sqlite3 "$T/b2.db" -separator $'\t' "$(snapshot_sql)" | only_b \
    >"$T/after"
  compare_rewritten

  run merge-check "$T/a.db" "$T/b2.db"
  [[ "$RC" == 0 || "$RC" == 3 ]] || fail "merge-check A B' exit $RC: $(grep -E 'overlap [1-9]|verdict' "$T/out")"
  ! grep -qE "overlap [1-9]" "$T/out" || fail "merge-check A B' still finds overlaps"

  # The merge: every table of B' into a copy of A, in one transaction.
  cp "$T/a.db" "$T/m.db"
  local merge="ATTACH '$T/b2.db' AS b; BEGIN;"
  for t in $TABLES; do merge+=" INSERT INTO main.$t SELECT * FROM b.$t;"; done
  sqlite3 "$T/m.db" "$merge COMMIT;" >"$T/merge.out" 2>&1 || fail "merge: $(head -c 500 "$T/merge.out")"
  for t in $TABLES; do
    local na nb nm n0
    na=$(sqlite3 "$T/a.db" "SELECT count(*) FROM $t")
    nb=$(sqlite3 "$T/b2.db" "SELECT count(*) FROM $t")
    n0=$(sqlite3 "$T/b.db" "SELECT count(*) FROM $t")
    nm=$(sqlite3 "$T/m.db" "SELECT count(*) FROM $t")
    [[ $nm == $((na + nb)) ]] || fail "$t: merged $nm rows, A $na + B' $nb"
    local dropped=0
    [[ $t == item_template ]] && dropped=20
    [[ $nb == $((n0 - dropped)) ]] || fail "$t: B' has $nb rows, B had $n0, $dropped dropped"
  done
  sqlite3 "$T/m.db" -separator $'\t' "$(snapshot_sql)" | only_b \
    >"$T/merged"
  [[ $(sqlite3 "$T/m.db" "$TWIN_OWNERS" | tr '\n' ' ') == "a-player-7 b-player-7 " ]] ||
    fail "the twin item's owners after the merge: $(sqlite3 "$T/m.db" "$TWIN_OWNERS")"
  compare_merged

  # A second run is refused and changes nothing.
  local sum
  sum=$(sqlite3 "$T/b2.db" .dump | sha256sum)
  if sqlite3 "$T/b2.db" <"$T/plan/rewrite-b.sql" >"$T/again.out" 2>&1; then
    fail "rewrite-b.sql ran twice"
  fi
  grep -q "steadyflake_merge_plan" "$T/again.out" || fail "second run: $(head -c 300 "$T/again.out")"
  [[ $(sqlite3 "$T/b2.db" .dump | sha256sum) == "$sum" ]] || fail "the second run changed B'"
}

# --- MariaDB: the shards as mariadb-dump files, a private server (start_mariadb) ------------

test_merge_plan_mariadb() {
  DIALECT=mysql
  need python3 python3
  start_mariadb
  for db in a b b2; do sql -e "CREATE DATABASE $db" || fail "create $db"; done
  sql a <"$DATA/a.mariadb.sql" || fail "load A"
  sql b <"$DATA/b.mariadb.sql" || fail "load B"
  sql b2 <"$DATA/b.mariadb.sql" || fail "load B'"
  local snap
  snap=$(snapshot_sql)
  sql -N b -e "$snap" | only_b >"$T/before"

  run merge-plan "$DATA/a.mariadb.sql" "$DATA/b.mariadb.sql" --out "$T/plan" --server-id 103 \
    --refs "$T/refs" --state-dir "$T/state"
  expect_rc 0
  check_plan_json
  # Under utf8mb4_general_ci 'Ève.s102' equals 'eve.s102': the rename takes another suffix.
  [[ $(plan_json "dict(v for r in p['renames'] if r['table']=='player' for v in r['values'])['eve']") == \
     eve.s102-2 ]] || fail "plan.json: 'eve' not renamed 'eve.s102-2' under utf8mb4_general_ci"

  sql b2 <"$T/plan/rewrite-b.sql" >"$T/apply.out" 2>&1 || fail "rewrite-b.sql: $(head -c 500 "$T/apply.out")"
  sql -N b2 -e "$snap" | only_b >"$T/after"
  compare_rewritten

  mariadb-dump --no-defaults -S "$T/my.sock" -uroot --skip-dump-date b2 >"$T/b2.sql" ||
    fail "mariadb-dump b2"
  run merge-check "$DATA/a.mariadb.sql" "$T/b2.sql"
  [[ "$RC" == 0 || "$RC" == 3 ]] || fail "merge-check A B' exit $RC: $(grep -E 'overlap [1-9]|verdict' "$T/out")"
  ! grep -qE "overlap [1-9]" "$T/out" || fail "merge-check A B' still finds overlaps"

  # The merge, with the foreign keys checked: every table of B' into A.
  local merge="START TRANSACTION;"
  for t in $TABLES; do merge+=" INSERT INTO a.$t SELECT * FROM b2.$t;"; done
  for t in $TABLES; do
    eval "na_$t=$(sql -N a -e "SELECT count(*) FROM $t")"
  done
  sql -e "$merge COMMIT;" >"$T/merge.out" 2>&1 || fail "merge: $(head -c 500 "$T/merge.out")"
  for t in $TABLES; do
    local na nb nm n0
    na=$(eval "echo \$na_$t")
    nb=$(sql -N b2 -e "SELECT count(*) FROM $t")
    n0=$(sql -N b -e "SELECT count(*) FROM $t")
    nm=$(sql -N a -e "SELECT count(*) FROM $t")
    [[ $nm == $((na + nb)) ]] || fail "$t: merged $nm rows, A $na + B' $nb"
    local dropped=0
    [[ $t == item_template ]] && dropped=20
    [[ $nb == $((n0 - dropped)) ]] || fail "$t: B' has $nb rows, B had $n0, $dropped dropped"
  done
  sql -N a -e "$snap" | only_b >"$T/merged"
  [[ $(sql -N a -e "$TWIN_OWNERS" | tr '\n' ' ') == "a-player-7 b-player-7 " ]] ||
    fail "the twin item's owners after the merge: $(sql -N a -e "$TWIN_OWNERS")"
  compare_merged

  # A second run is refused and changes nothing.
  local sum
  sum=$(sql -N b2 -e "CHECKSUM TABLE $(echo $TABLES | tr ' ' ',')")
  if sql b2 <"$T/plan/rewrite-b.sql" >"$T/again.out" 2>&1; then fail "rewrite-b.sql ran twice"; fi
  grep -q "Duplicate entry" "$T/again.out" || fail "second run: $(head -c 300 "$T/again.out")"
  [[ $(sql -N b2 -e "CHECKSUM TABLE $(echo $TABLES | tr ' ' ',')") == "$sum" ]] ||
    fail "the second run changed B'"
}

# --- A real game's schema: the MMO realms of data/mmo/ (42 tables, guids, no FOREIGN KEYs) --

# With the references an operator writes (data/mmo/refs.txt), the rewrite applied on MariaDB
# leaves no overlap: what the plan resolves is resolved, and the rows of what it could not
# resolve are held back in steadyflake_unmerged_<table>, exactly as many as plan.json's
# `unmerged` says, every unresolved value's rows among them. Then every table of B' merges into
# A with INSERT ... SELECT: one unresolved value no longer sinks its table.
test_merge_plan_mmo_mariadb() {
  need python3 python3
  start_mariadb
  local mmo t merge
  mmo=$(cd "$DATA/../mmo" && pwd)
  sql -e "CREATE DATABASE b2; CREATE DATABASE a" || fail "create b2"
  gzip -dc "$mmo/b.mariadb.sql.gz" | sql b2 || fail "load B"
  gzip -dc "$mmo/a.mariadb.sql.gz" | sql a || fail "load A"
  run merge-plan "$mmo/a.mariadb.sql.gz" "$mmo/b.mariadb.sql.gz" --out "$T/plan" \
    --server-id 103 --no-state --rename '{name}.b' --refs "$mmo/refs.txt"
  expect_rc 4
  sql b2 <"$T/plan/rewrite-b.sql" >"$T/apply.out" 2>&1 || fail "rewrite-b.sql: $(head -c 500 "$T/apply.out")"
  mariadb-dump --no-defaults -S "$T/my.sock" -uroot --skip-dump-date b2 >"$T/b2.sql" ||
    fail "mariadb-dump b2"
  run merge-check "$mmo/a.mariadb.sql.gz" "$T/b2.sql" --json --limit 0
  for t in $(sql -N -e "SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'b2' AND table_name LIKE 'steadyflake\_unmerged\_%'"); do
    echo "$t $(sql -N b2 -e "SELECT count(*) FROM \`$t\`")"
  done >"$T/held"
  python3 - "$T/out" "$T/plan/plan.json" "$T/held" <<'EOF' || fail "the rewrite left overlaps, or held back other rows than plan.json's unmerged"
import json, sys
report = json.load(open(sys.argv[1]))
plan = json.load(open(sys.argv[2]))
held = {l.split()[0][len("steadyflake_unmerged_"):]: int(l.split()[1]) for l in open(sys.argv[3])}
left = {(k["table"], tuple(k["columns"])): k["overlap"] for k in report["keys"] if k["overlap"]}
listed = {}
for u in plan["unmerged"]:
    listed[u["table"]] = listed.get(u["table"], 0) + u["rows"]
unresolved = {u["table"] for u in plan["unresolved"] if u["value"] is not None}
print("left:", left, "held:", held, "unresolved tables:", unresolved)
sys.exit(0 if not left and held == listed and unresolved <= set(held) and held else 1)
EOF
  # Every table of B' (its unresolved rows held back) merges into A in one transaction.
  merge="SET FOREIGN_KEY_CHECKS = 0; START TRANSACTION;"
  for t in $(sql -N -e "SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'b2' AND table_name NOT LIKE 'steadyflake\_%'"); do
    merge+=" INSERT INTO a.\`$t\` SELECT * FROM b2.\`$t\`;"
  done
  sql -e "$merge COMMIT;" >"$T/merge.out" 2>&1 || fail "merge: $(head -c 500 "$T/merge.out")"
}

# --- What merge-plan refuses, and what it leaves unresolved --------------------------------

test_merge_plan_errors() {
  need sqlite3 sqlite3
  for s in a b; do
    cat "$DATA/schema.sqlite.sql" "$DATA/$s.data.sql" | sqlite3 "$T/$s.db" || fail "load $s"
  done
  # A server id that issued IDs in a shard: its fresh IDs could repeat theirs.
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 101 --state-dir "$T/state"
  expect_rc 2
  grep -q "server-id 101 issued IDs in shard A.*neither shard holds, e.g. 103" "$T/err" ||
    fail "server id 101: $(cat "$T/err")"
  [[ ! -e "$T/plan" ]] || fail "a refused plan wrote its folder"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 102 --state-dir "$T/state"
  expect_rc 2
  grep -q "server-id 102 issued IDs in shard B" "$T/err" || fail "server id 102: $(cat "$T/err")"
  # A template without the name, a bad --refs line, a --refs naming a missing column.
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --rename 'x{server}'
  expect_rc 2
  grep -q "has no {name}" "$T/err" || fail "template: $(cat "$T/err")"
  printf 'item.owner_id player.id\n' >"$T/bad-refs"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --refs "$T/bad-refs"
  expect_rc 2
  grep -q "bad-refs:1: .* is not TABLE.COLUMN -> TABLE.COLUMN" "$T/err" || fail "refs: $(cat "$T/err")"
  printf 'item.owner -> player.id\n' >"$T/bad-refs"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --refs "$T/bad-refs"
  expect_rc 2
  grep -q "input B has no column item.owner" "$T/err" || fail "refs column: $(cat "$T/err")"
  run merge-plan "$T/a.db" "$T/b.db" --server-id 103
  expect_rc 2
  grep -q "missing --out" "$T/err" || fail "no --out: $(cat "$T/err")"
  run merge-plan "$T/a.db" --out "$T/plan" --server-id 103
  expect_rc 2
  grep -q "merge-plan needs two inputs, got 1; run 'steadyflake merge-plan A B" "$T/err" ||
    fail "one input: $(cat "$T/err")"
  [[ ! -e "$T/plan" ]] || fail "a refused plan wrote its folder"

  # Nothing to do: B against itself under another name is refused; B against an empty shard
  # needs nothing.
  sqlite3 "$T/empty.db" <"$DATA/schema.sqlite.sql"
  run merge-plan "$T/empty.db" "$T/b.db" --out "$T/plan" --server-id 103 --state-dir "$T/state"
  expect_rc 0
  grep -q "nothing to rewrite" "$T/out" || fail "empty A: $(cat "$T/out")"

  # Unresolved (exit 4): an offset above both shards' largest INT would pass INT's largest.
  for s in a b; do
    printf 'CREATE TABLE `ticket` (\n  `id` int(11) NOT NULL,\n  `note` varchar(10),\n  PRIMARY KEY (`id`)\n);\nINSERT INTO `ticket` VALUES (1,%s),(2147483000,%s);\n' \
      "'$s'" "'$s'" >"$T/$s.mysql.sql"
  done
  run merge-plan "$T/a.mysql.sql" "$T/b.mysql.sql" --out "$T/plan" --server-id 103 --no-state
  expect_rc 4
  grep -q "^UNRESOLVED ticket (id): an offset above the largest value (2147483000) takes 2 values past int(11)'s largest, 2147483647; widen the column" "$T/out" ||
    fail "INT offset: $(grep UNRESOLVED "$T/out")"
  # The same key in a BIGINT column fits.
  sed -i 's/`id` int(11)/`id` bigint(20)/' "$T/a.mysql.sql" "$T/b.mysql.sql"
  run merge-plan "$T/a.mysql.sql" "$T/b.mysql.sql" --out "$T/plan" --server-id 103 --no-state
  expect_rc 0
  grep -q "^remap ticket (id): 2 values, offset +2147483000" "$T/out" || fail "BIGINT offset: $(cat "$T/out")"

  # A text key renamed under a declared FOREIGN KEY: the referring column is listed, not
  # silently left with the old names. Without steadyflake IDs in B, {server} has no value.
  for s in a b; do
    sqlite3 "$T/t$s.db" "CREATE TABLE account(login TEXT PRIMARY KEY, n INTEGER);
      CREATE TABLE note(who TEXT REFERENCES account(login));
      INSERT INTO account VALUES('x', '$s'); INSERT INTO note VALUES('x');"
  done
  run merge-plan "$T/ta.db" "$T/tb.db" --out "$T/plan" --server-id 103
  expect_rc 2
  grep -q "names {server}, and shard B has no steadyflake IDs.*--rename '{name}.b'" "$T/err" ||
    fail "{server} without IDs: $(cat "$T/err")"
  run merge-plan "$T/ta.db" "$T/tb.db" --out "$T/plan" --server-id 103 --rename '{name}.b'
  expect_rc 4
  grep -q "^rename account (login): 1 values" "$T/out" || fail "text rename: $(cat "$T/out")"
  grep -q "^UNRESOLVED note (who): a FOREIGN KEY onto account.login" "$T/out" ||
    fail "text foreign key: $(grep UNRESOLVED "$T/out")"

  # Unresolved (exit 4): a player_slot row of B whose player is not remapped (an orphan slot
  # whose player id only A has) and differs from A's row.
  cp "$T/b.db" "$T/b3.db"
  sqlite3 "$T/b3.db" "INSERT INTO player_slot VALUES(299, 1, NULL);"
  run merge-plan "$T/a.db" "$T/b3.db" --out "$T/plan" --server-id 103 --state-dir "$T/state" \
    --refs "$T/refs"
  expect_rc 4
  grep -q "^UNRESOLVED player_slot (player_id, slot) = (299, 1): differs from A's row" "$T/out" ||
    fail "unresolved slot: $(grep UNRESOLVED "$T/out")"
  [[ -s "$T/plan/plan.json" && -s "$T/plan/rewrite-b.sql" ]] || fail "exit 4 wrote no plan"

  # Unresolved (exit 4): without --refs, a reference found by name or inferred is a proposal:
  # the player key it may refer to is held, not remapped, and the line that confirms it named.
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --state-dir "$T/state"
  expect_rc 4
  plan_json "'\\n'.join(u['table'] + '.' + ','.join(u['columns']) + ': ' + u['reason'] \
    for u in p['unresolved'])" >"$T/unresolved"
  grep -q "^mail.to_player: may refer to player.id (found by inference .*--refs line 'mail.to_player -> player.id'" "$T/unresolved" ||
    fail "proposal: $(head -5 "$T/unresolved")"
  [[ $(grep -c "^player.id: not remapped while 4 unconfirmed references" "$T/unresolved") == 260 ]] ||
    fail "held key: $(grep "^player.id" "$T/unresolved" | head -3)"
  ! grep -q "^remap player " "$T/out" || fail "a key with unconfirmed references was remapped"
}

# --- The merge profile: drafted, edited as docs/merging.md says, and planned with --------------

test_merge_plan_profile() {
  need sqlite3 sqlite3
  for s in a b; do
    cat "$DATA/schema.sqlite.sql" "$DATA/$s.data.sql" | sqlite3 "$T/$s.db" || fail "load $s"
  done
  # The first plan knows no reference the schema does not declare: exit 4, and a draft.
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --state-dir "$T/state" \
    --draft-profile "$T/draft.toml"
  expect_rc 4
  grep -q '^# "mail.to_player" = "player.id"  # inferred: ' "$T/draft.toml" ||
    fail "draft: $(cat "$T/draft.toml")"
  grep -q '^server_id = 103$' "$T/draft.toml" || fail "draft has no server_id"
  # The operator's edit (docs/merging.md): uncomment the references checked against the game.
  sed 's/^# \("[a-z_.]*" = "[a-z_.]*"\)  #.*/\1/' "$T/draft.toml" >"$T/profile.toml"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan2" --state-dir "$T/state" \
    --profile "$T/profile.toml"
  expect_rc 0
  grep -q "^remap player (id): 260 values" "$T/out" || fail "profile plan: $(head -5 "$T/out")"
  [[ $(python3 -c "import json; p=json.load(open('$T/plan2/plan.json')); print([x['found'] \
    for r in p['remaps'] if r['table']=='player' for x in r['references'] \
    if x['table']=='mail'][0])") == profile ]] || fail "plan.json: mail.to_player not from the profile"
  # The same plan as with the references on the command line.
  plan_refs() { python3 -c "import json; p=json.load(open('$1')); \
    print(sorted((r['table'], x['table'], x['column']) for r in p['remaps'] for x in r['references']))"; }
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan3" --server-id 103 --state-dir "$T/state" \
    --refs "$T/refs"
  expect_rc 0
  [[ $(plan_refs "$T/plan2/plan.json") == "$(plan_refs "$T/plan3/plan.json")" ]] ||
    fail "the profile's plan rewrites other columns than --refs's"
  # A flag beside the profile wins, and the summary says so.
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan2" --state-dir "$T/state" \
    --profile "$T/profile.toml" --server-id 104
  expect_rc 0
  grep -q "^note: --server-id from the command line overrides the profile's server_id" "$T/out" ||
    fail "no override note: $(head -3 "$T/out")"
  # Errors name the file and line; nothing is written.
  printf 'server_id = 103\nrefs = 1\n' >"$T/bad.toml"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan4" --profile "$T/bad.toml"
  expect_rc 2
  grep -q "bad.toml:2: unknown key 'refs'" "$T/err" || fail "unknown key: $(cat "$T/err")"
  printf 'server_id = 103\n[on_conflict]\n"player" = "keep_c"\n' >"$T/bad.toml"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan4" --profile "$T/bad.toml"
  expect_rc 2
  grep -q "bad.toml:3: on_conflict of player is not \"keep_a\", \"keep_b\", { newest" "$T/err" ||
    fail "on_conflict: $(cat "$T/err")"
  printf 'server_id = 103\n[on_conflict]\n"player" = { newest = "nope" }\n' >"$T/bad.toml"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan4" --profile "$T/bad.toml"
  expect_rc 2
  grep -q "on_conflict player = { newest = \"nope\" }: input B has no column player.nope" "$T/err" ||
    fail "newest column: $(cat "$T/err")"
  printf 'server_id = 103\n[on_conflict]\n"player" = "dedupe"\n' >"$T/bad.toml"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan4" --profile "$T/bad.toml"
  expect_rc 2
  grep -q "on_conflict player = 'dedupe': the table has a key" "$T/err" ||
    fail "dedupe with a key: $(cat "$T/err")"
  printf 'server_id = 103\nglobal = ["player.nope"]\n' >"$T/bad.toml"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan4" --profile "$T/bad.toml"
  expect_rc 2
  grep -q "global player.nope: input B has no column player.nope" "$T/err" ||
    fail "unknown column: $(cat "$T/err")"
  [[ ! -e "$T/plan4" ]] || fail "a refused plan wrote its folder"

  # Game-level names: 'Alice' and 'alice' are one name to a game that compares them
  # case-insensitively, though the column is BINARY; the renamed row gets the login flag.
  for s in a b; do
    sqlite3 "$T/n$s.db" "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT UNIQUE,
      at_login INTEGER NOT NULL DEFAULT 0)"
  done
  sqlite3 "$T/na.db" "INSERT INTO player VALUES(1, 'Alice', 0), (2, 'bob', 0)"
  sqlite3 "$T/nb.db" "INSERT INTO player VALUES(11, 'alice', 0), (12, 'carol', 0)"
  cat >"$T/names.toml" <<'TOML'
server_id = 103
[names."player.name"]
compare_as = "NOCASE"
rename = "{name}.b"
set = { at_login = "at_login | 1" }
TOML
  run merge-plan "$T/na.db" "$T/nb.db" --out "$T/plan5" --state-dir "$T/state" \
    --profile "$T/names.toml"
  expect_rc 0
  cp "$T/nb.db" "$T/nb2.db"
  sqlite3 "$T/nb2.db" <"$T/plan5/rewrite-b.sql" || fail "names rewrite"
  [[ $(sqlite3 "$T/nb2.db" "SELECT group_concat(name || ':' || at_login, ' ') FROM player
    ORDER BY id") == "alice.b:1 carol:0" ]] || fail "names: $(sqlite3 "$T/nb2.db" 'SELECT * FROM player')"
  printf '[names."player.name"]\nlower = true\n' >"$T/bad.toml"
  run merge-plan "$T/na.db" "$T/nb.db" --out "$T/plan6" --server-id 103 --profile "$T/bad.toml"
  expect_rc 2
  grep -q "bad.toml:2: unknown key 'lower' under names.player.name" "$T/err" ||
    fail "names key: $(cat "$T/err")"

  # A conditional reference: mail.sender is a character only where messageType = 0 (a creature's
  # entry otherwise). Only those rows follow the remap; the draft writes the same form back.
  for s in a b; do
    sqlite3 "$T/m$s.db" "CREATE TABLE characters(guid INTEGER PRIMARY KEY, uid TEXT);
      CREATE TABLE mail(id INTEGER PRIMARY KEY, messageType INTEGER, sender INTEGER, uid TEXT);
      INSERT INTO characters VALUES(1, '$s-1'), (2, '$s-2');"
  done
  sqlite3 "$T/mb.db" "INSERT INTO mail VALUES(10, 0, 2, 'to-b-2'), (11, 3, 2, 'creature-2')"
  cat >"$T/mail.toml" <<'TOML'
server_id = 103
[references]
"mail.sender" = { to = "characters.guid", where = "messageType = 0" }
TOML
  run merge-plan "$T/ma.db" "$T/mb.db" --out "$T/plan7" --state-dir "$T/state" \
    --profile "$T/mail.toml" --draft-profile "$T/mail-draft.toml"
  expect_rc 0
  grep -q "^  and mail.sender (profile, where messageType = 0): 1 row$" "$T/out" ||
    fail "conditional reference: $(cat "$T/out")"
  [[ $(python3 -c "import json; p=json.load(open('$T/plan7/plan.json')); \
    print(p['remaps'][0]['references'][0]['where'])") == "messageType = 0" ]] ||
    fail "plan.json: the reference has no where"
  grep -qx '"mail.sender" = { to = "characters.guid", where = "messageType = 0" }' \
    "$T/mail-draft.toml" || fail "draft: $(grep mail "$T/mail-draft.toml")"
  cp "$T/mb.db" "$T/mb2.db"
  sqlite3 "$T/mb2.db" <"$T/plan7/rewrite-b.sql" || fail "conditional rewrite"
  [[ $(sqlite3 "$T/mb2.db" "SELECT group_concat(sender, ' ') FROM (SELECT sender FROM mail
    ORDER BY id)") == "4 2" ]] || fail "senders: $(sqlite3 "$T/mb2.db" 'SELECT * FROM mail')"
  run merge-plan "$T/ma.db" "$T/mb.db" --out "$T/plan8" --state-dir "$T/state" \
    --profile "$T/mail-draft.toml"
  expect_rc 0
  printf '[references]\n"mail.sender" = { to = "characters.guid", where = "messageType == 0" }\n' \
    >"$T/bad.toml"
  run merge-plan "$T/ma.db" "$T/mb.db" --out "$T/plan6" --server-id 103 --profile "$T/bad.toml"
  expect_rc 2
  grep -q "bad.toml:2: where 'messageType == 0' of mail.sender is not COLUMN = INTEGER" "$T/err" ||
    fail "where: $(cat "$T/err")"
  printf '[references]\n"mail.sender" = { to = "characters.guid" }\n' >"$T/bad.toml"
  run merge-plan "$T/ma.db" "$T/mb.db" --out "$T/plan6" --server-id 103 --profile "$T/bad.toml"
  expect_rc 2
  grep -q "bad.toml:2: the reference of mail.sender is a table without where" "$T/err" ||
    fail "no where: $(cat "$T/err")"
  printf '[references]\n"mail.sender" = { to = "characters.guid", where = "kind = 0" }\n' \
    >"$T/bad.toml"
  run merge-plan "$T/ma.db" "$T/mb.db" --out "$T/plan6" --server-id 103 --profile "$T/bad.toml"
  expect_rc 2
  grep -q "where kind = 0: input B has no column mail.kind" "$T/err" ||
    fail "where column: $(cat "$T/err")"
}

"test_$CASE"
