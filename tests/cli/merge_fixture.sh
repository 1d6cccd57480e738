#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# The merge_plan fixture's truth, sourced by merge_plan_test.sh and merge_test.sh: the references
# it declares no FOREIGN KEY for, its tables in dependency order, and the SQL that lists every
# reference by the rows' stable `uid` columns (the identity the tools are told nothing about).
# Needs $DIALECT (sqlite or mysql) set before snapshot_sql is called, and the caller's $T, need,
# fail and MARIADB_PID (its EXIT trap stops the server start_mariadb starts).

# The references the fixture declares no FOREIGN KEY for: found by name or inferred, each is a
# proposal merge-plan never applies until the operator confirms it here.
write_refs() {
  cat >"$1" <<'REFS'
# the owner column is not named after the player table
item.owner_id -> player.id
guild_member.player_id -> player.id
mail.to_player -> player.id
player_slot.player_id -> player.id
player_slot.item_id -> item.id
item.template_id -> item_template.id
REFS
}

# The tables in an order that satisfies the declared FOREIGN KEYs.
TABLES="player guild guild_member item_template item mail player_slot"

# cat_sql A B...: the SQL that concatenates A, B, ... in $DIALECT (sqlite or mysql).
cat_sql() {
  if [[ $DIALECT == mysql ]]; then
    local IFS=,
    echo "CONCAT($*)"
  else
    local out=$1
    shift
    for part in "$@"; do out+=" || $part"; done
    echo "$out"
  fi
}

# Every reference of the fixture, by the stable `uid` columns: one line per row, "kind, the
# referring row, what it refers to", tab-separated.
snapshot_sql() {
  cat <<EOF
SELECT 'guild', g.uid, p.uid FROM guild g LEFT JOIN player p ON p.id = g.leader_id
UNION ALL SELECT 'member', $(cat_sql g.uid "'#'" m.joined), p.uid
  FROM guild_member m LEFT JOIN guild g ON g.id = m.guild_id LEFT JOIN player p ON p.id = m.player_id
UNION ALL SELECT 'item', i.uid, p.uid FROM item i LEFT JOIN player p ON p.id = i.owner_id
UNION ALL SELECT 'template', i.uid, $(cat_sql t.name "'/'" t.power)
  FROM item i LEFT JOIN item_template t ON t.id = i.template_id
UNION ALL SELECT 'mail', m.uid, p.uid FROM mail m LEFT JOIN player p ON p.id = m.to_player
UNION ALL SELECT 'slot', $(cat_sql p.uid "'#'" s.slot), i.uid
  FROM player_slot s LEFT JOIN player p ON p.id = s.player_id LEFT JOIN item i ON i.id = s.item_id
UNION ALL SELECT 'name', p.uid, p.name FROM player p
ORDER BY 1, 2, 3;
EOF
}
# The owners of the item both shards hold as an identical row: one each after the merge.
TWIN_OWNERS="SELECT p.uid FROM item i JOIN player p ON p.id = i.owner_id
  WHERE i.uid = 'x-item-twin' ORDER BY 1"

# A line per reference of B's rows only (their uid starts with "b-"), "NULL" for a lost one.
only_b() { grep -E $'^[a-z]+\tb-' | sort; }

# A private mariadbd for the caller's case: its data and unix socket in $T (no network).
start_mariadb() {
  need mariadbd mariadb-server
  need mariadb-dump mariadb-client
  mariadb-install-db --no-defaults --datadir="$T/mysql" --user="$(id -un)" \
    --auth-root-authentication-method=normal >"$T/install.log" 2>&1 ||
    fail "mariadb-install-db: $(tail -5 "$T/install.log")"
  mariadbd --no-defaults --datadir="$T/mysql" --socket="$T/my.sock" --skip-networking \
    --user="$(id -un)" --pid-file="$T/my.pid" --log-error="$T/my.err" 2>>"$T/my.err" &
  MARIADB_PID=$!
  # mariadb-admin --wait retries the connection itself until the server answers.
  mariadb-admin --no-defaults -S "$T/my.sock" -uroot --wait=60 --connect-timeout=2 ping \
    >/dev/null 2>&1 || fail "mariadbd did not start: $(tail -5 "$T/my.err")"
}
sql() { mariadb --no-defaults -S "$T/my.sock" -uroot --default-character-set=utf8mb4 "$@"; }
