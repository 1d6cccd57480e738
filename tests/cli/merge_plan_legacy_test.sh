#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# merge-plan on the legacy fixture data/legacy/ (issue 28): planned without a profile, with its
# committed profile and with the draft edited round by round, each plan applied and merged with
# a uid check of every row of B; the same on a private MariaDB.
#
#   merge_plan_legacy_test.sh <path to steadyflake> <case>
#
# As merge_plan_test.sh (merge_plan_lib.sh): exit 0 pass, 1 fail, 77 skipped naming the Debian
# package that is missing.

# shellcheck source=tests/cli/merge_plan_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/merge_plan_lib.sh"

# --- The legacy fixture (data/legacy/): issue 28's done-when 1-3 -------------------------------

LEGACY_TABLES="characters character_homebind item_instance mail mail_items account_data
  account_tutorial realm_log"
# Who each row refers to, by uid: "kind|row|referent". A character's account is its id itself:
# account ids are the same accounts in every realm and must not change.
LEGACY_OWNERS="SELECT 'account', c.uid, c.account FROM characters c
UNION ALL SELECT 'home', h.uid, c.uid FROM character_homebind h LEFT JOIN characters c ON c.guid = h.guid
UNION ALL SELECT 'item', i.uid, c.uid FROM item_instance i LEFT JOIN characters c ON c.guid = i.owner_guid
UNION ALL SELECT 'receiver', m.uid, c.uid FROM mail m LEFT JOIN characters c ON c.guid = m.receiver
UNION ALL SELECT 'sender', m.uid, CASE m.messageType WHEN 0 THEN c.uid ELSE 'creature-' || m.sender END
  FROM mail m LEFT JOIN characters c ON c.guid = m.sender
UNION ALL SELECT 'mail_item', x.uid, i.uid || '/' || m.uid || '/' || c.uid FROM mail_items x
  LEFT JOIN item_instance i ON i.guid = x.item_guid LEFT JOIN mail m ON m.id = x.mail_id
  LEFT JOIN characters c ON c.guid = x.receiver
ORDER BY 1, 2;"
b_lines() { sqlite3 "$1" "$LEGACY_OWNERS" | awk -F'|' '$2 ~ /^b-/' | LC_ALL=C sort; }

# legacy_merge PLAN NAME: `steadyflake merge` of A and B by PLAN into NAME.db: merged and
# verified (exit 0). Rows held back land in NAME.db's steadyflake_unmerged_<table>.
legacy_merge() {
  run merge "$T/a.db" "$T/b.db" --plan "$1" --out "$T/$2.db"
  [[ $RC == 0 ]] || fail "merge $1: exit $RC: $(grep -A3 'verification failed' "$T/out" | head -4)"
  grep -q "^merged and verified" "$T/out" || fail "merge $1: not verified"
}

# With the game's rules: every B entity keeps all its rows, on its own account; names unique
# under the game's rule, the renamed ones flagged; the keyless table's shared row once;
# account_data's newer row of each account.
legacy_check_merged() {
  b_lines "$T/$1.db" >"$T/$1.lines"
  diff "$T/before" "$T/$1.lines" >"$T/diff" || fail "$1: a row of B moved or is missing: $(head -5 "$T/diff")"
  [[ $(sqlite3 "$T/$1.db" "SELECT count(*) - count(DISTINCT lower(name)) FROM characters") == 0 ]] ||
    fail "$1: names not unique case-insensitively"
  [[ $(sqlite3 "$T/$1.db" "SELECT count(*) FROM characters WHERE uid LIKE 'b-%' AND
    name LIKE '%.b' AND at_login & 1") == 5 ]] || fail "$1: not 5 renamed characters flagged"
  [[ $(sqlite3 "$T/$1.db" "SELECT count(*) FROM realm_log") == 3 ]] ||
    fail "$1: realm_log: $(sqlite3 "$T/$1.db" 'SELECT * FROM realm_log')"
  [[ $(sqlite3 "$T/$1.db" "SELECT count(*) FROM account_data WHERE uid =
    (CASE accountId % 2 WHEN 1 THEN 'b' ELSE 'a' END) || '-ad' || accountId || '.' || type") == 100 ]] ||
    fail "$1: account_data does not hold the newer row of each account"
}

# The legacy fixture on MariaDB (issue 28's done-when 1 and 2): the SQLite fixture loaded into
# a private server (text in utf8mb4_bin: the game compares names without case, the column does
# not), dumped with mariadb-dump, planned from the dumps, rewritten and merged on the server by
# `steadyflake merge`'s merge.sql; every row of B by uid as in test_merge_plan_legacy.
legacy_owners() {
  sql -N "$1" -e "SET SESSION sql_mode = 'PIPES_AS_CONCAT'; $LEGACY_OWNERS" | tr '\t' '|' |
    awk -F'|' '$2 ~ /^b-/' | LC_ALL=C sort
}

# legacy_mariadb_merge PLAN NAME: A into database NAME_a, B' (B, then PLAN's rewrite) into
# NAME_b, merge.sql run, verify.sql empty.
legacy_mariadb_merge() {
  local db
  for db in "$2_a" "$2_b"; do sql -e "CREATE DATABASE $db" || fail "create $db"; done
  sql "$2_a" <"$T/a.sql" || fail "load A into $2_a"
  sql "$2_b" <"$T/b.sql" || fail "load B into $2_b"
  sql "$2_b" <"$1/rewrite-b.sql" >"$T/apply.out" 2>&1 || fail "rewrite $1: $(head -c 300 "$T/apply.out")"
  run merge "$T/a.sql" "$T/b.sql" --plan "$1" --out "$T/$2" --a-db "$2_a" --b-db "$2_b"
  expect_rc 0
  sql <"$T/$2/merge.sql" >"$T/merge.out" 2>&1 || fail "$2: merge.sql: $(tail -c 400 "$T/merge.out")"
  sql <"$T/$2/verify.sql" >"$T/verify.out" 2>&1 || fail "$2: verify.sql: $(cat "$T/verify.out")"
  [[ ! -s "$T/verify.out" ]] || fail "$2: verify.sql lists failing checks: $(head -5 "$T/verify.out")"
}

test_merge_plan_legacy_mariadb() {
  need python3 python3
  start_mariadb
  local L s
  L=$(cd "$DATA/../legacy" && pwd)
  for s in a b; do
    sql -e "CREATE DATABASE l$s CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" || fail "create l$s"
    cat "$L/schema.sqlite.sql" "$L/$s.sql" | sql "l$s" || fail "load $s"
    mariadb-dump --no-defaults -S "$T/my.sock" -uroot --skip-dump-date "l$s" >"$T/$s.sql" ||
      fail "mariadb-dump l$s"
  done
  legacy_owners lb >"$T/before"

  # 1. No profile: exit 4; what merges keeps its owners, the rest is held back, nothing lost.
  run merge-plan "$T/a.sql" "$T/b.sql" --out "$T/plan0" --server-id 103 --state-dir "$T/state"
  expect_rc 4
  legacy_mariadb_merge "$T/plan0" m0
  legacy_owners m0_a >"$T/m0.lines"
  [[ -z $(LC_ALL=C comm -13 "$T/before" "$T/m0.lines") ]] ||
    fail "without a profile, rows of B merged onto other entities: $(LC_ALL=C comm -13 "$T/before" "$T/m0.lines" | head -3)"
  for t in $LEGACY_TABLES; do
    local lost
    local held="SELECT NULL FROM DUAL WHERE FALSE"
    [[ -n $(sql -N m0_a -e "SHOW TABLES LIKE 'steadyflake\_unmerged\_$t'") ]] &&
      held="SELECT uid FROM steadyflake_unmerged_$t"
    lost=$(sql -N m0_a -e "SELECT COUNT(*) FROM lb.$t o WHERE o.uid LIKE 'b-%'
      AND o.uid NOT IN (SELECT uid FROM $t) AND o.uid NOT IN (SELECT uid FROM la.$t)
      AND o.uid NOT IN ($held)")
    [[ $lost == 0 ]] || fail "without a profile, $lost rows of B's $t are neither merged nor held"
  done

  # 2. The committed profile: exit 0; every B entity keeps its rows, accounts unchanged, names
  # unique without case and the renamed ones flagged, realm_log's shared row once, the newer
  # account_data row of each account.
  run merge-plan "$T/a.sql" "$T/b.sql" --out "$T/plan1" --state-dir "$T/state" \
    --profile "$L/profile.toml"
  expect_rc 0
  legacy_mariadb_merge "$T/plan1" m1
  legacy_owners m1_a >"$T/m1.lines"
  diff "$T/before" "$T/m1.lines" >"$T/diff" || fail "a row of B moved or is missing: $(head -5 "$T/diff")"
  [[ $(sql -N m1_a -e "SELECT COUNT(*) - COUNT(DISTINCT LOWER(name)) FROM characters") == 0 ]] ||
    fail "names not unique case-insensitively"
  [[ $(sql -N m1_a -e "SELECT COUNT(*) FROM characters WHERE uid LIKE 'b-%' AND name LIKE '%.b'
    AND at_login & 1") == 5 ]] || fail "not 5 renamed characters flagged"
  [[ $(sql -N m1_a -e "SELECT COUNT(*) FROM realm_log") == 3 ]] || fail "realm_log not deduplicated"
  [[ $(sql -N m1_a -e "SET SESSION sql_mode = 'PIPES_AS_CONCAT'; SELECT COUNT(*) FROM account_data
    WHERE uid = (CASE accountId % 2 WHEN 1 THEN 'b' ELSE 'a' END) || '-ad' || accountId || '.' || type") == 100 ]] ||
    fail "account_data does not hold the newer row of each account"
}

test_merge_plan_legacy() {
  need sqlite3 sqlite3
  need python3 python3
  local L s
  L=$(cd "$DATA/../legacy" && pwd)
  for s in a b; do
    cat "$L/schema.sqlite.sql" "$L/$s.sql" | sqlite3 "$T/$s.db" || fail "load $s"
  done
  b_lines "$T/b.db" >"$T/before"

  # 1. No profile: exit 4; the rewrite holds back what it cannot resolve, every table merges,
  # and no row of B that merged refers to another entity than in B. A row of B is in the merge,
  # held back in B', or dropped as identical to A's (the same uid in A).
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan0" --server-id 103 --state-dir "$T/state" \
    --draft-profile "$T/draft.toml"
  expect_rc 4
  legacy_merge "$T/plan0" m0
  b_lines "$T/m0.db" >"$T/m0.lines"
  [[ -z $(LC_ALL=C comm -13 "$T/before" "$T/m0.lines") ]] ||
    fail "without a profile, rows of B merged onto other entities: $(LC_ALL=C comm -13 "$T/before" "$T/m0.lines" | head -3)"
  for t in $LEGACY_TABLES; do
    local held="SELECT NULL WHERE 0"
    [[ -n $(sqlite3 "$T/m0.db" "SELECT name FROM sqlite_master WHERE name = 'steadyflake_unmerged_$t'") ]] &&
      held="SELECT uid FROM main.steadyflake_unmerged_$t"
    [[ $(sqlite3 "$T/m0.db" "ATTACH '$T/b.db' AS o; ATTACH '$T/a.db' AS a;
      SELECT count(*) FROM o.$t WHERE uid LIKE 'b-%' AND uid NOT IN (SELECT uid FROM main.$t)
      AND uid NOT IN ($held) AND uid NOT IN (SELECT uid FROM a.$t)") == 0 ]] ||
      fail "without a profile, rows of B's $t are lost"
  done

  # A rewrite that changes a row it holds back (the count stays) fails the merge's check of
  # steadyflake_unmerged_mail, and nothing is written.
  cp -r "$T/plan0" "$T/plan0x"
  sed -i 's/^COMMIT;$/UPDATE steadyflake_unmerged_mail SET uid = uid || '"'"'x'"'"' WHERE rowid = (SELECT min(rowid) FROM steadyflake_unmerged_mail);\nCOMMIT;/' \
    "$T/plan0x/rewrite-b.sql"
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan0x" --out "$T/m0x.db"
  expect_rc 1
  grep -q "steadyflake_unmerged_mail: holds 120 row(s); .* and they differ" "$T/out" ||
    fail "a changed held row: $(grep -A2 'verification failed' "$T/out")"
  [[ ! -e "$T/m0x.db" ]] || fail "a failed merge wrote its output"

  # 2. The committed profile: exit 0, and the merge keeps every entity's rows.
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan1" --state-dir "$T/state" --profile "$L/profile.toml"
  expect_rc 0
  legacy_merge "$T/plan1" m1
  legacy_check_merged m1

  # 3. The draft, edited as docs/merging.md says (the operator's answers from the game's code,
  # below), planned again with a new draft until exit 0: the same merge.
  for round in 1 2 3; do
    python3 - "$T/draft.toml" <<'EOF'
import re, sys
path = sys.argv[1]
refers = {"item_instance.owner_guid": '"characters.guid"', "mail.receiver": '"characters.guid"',
          "mail_items.receiver": '"characters.guid"', "mail_items.item_guid": '"item_instance.guid"',
          "character_homebind.guid": '"characters.guid"', "mail_items.mail_id": '"mail.id"',
          "mail.sender": '{ to = "characters.guid", where = "messageType = 0" }'}
shared = ["account_tutorial.accountId", "characters.account", "account_data.accountId"]
own = ["characters.guid", "mail.id"]
policies = {"realm_log": '"dedupe"', "account_tutorial": '"keep_a"',
            "account_data": '{ newest = "time" }'}
text = open(path).read()
out, section, names = [], "", 0
for line in text.splitlines():
    entry = re.match(r'^ *# ("([^"]+)")(,| = )', line)
    if line.startswith(("global = [", "own_keys = [", "[references]", "[on_conflict]")):
        section = line.split()[0]
    if line.startswith("global = ["):
        line += "".join('\n  "%s",' % g for g in shared
                    if '  "%s",' % g not in text and '  # "%s",' % g not in text)
    elif entry and section == "global" or entry and section == "own_keys":
        if entry.group(2) in shared or entry.group(2) in own:
            line = '  %s,' % entry.group(1)
    elif entry and section == "[references]" and entry.group(2) in refers:
        line = "%s = %s" % (entry.group(1), refers[entry.group(2)])
    elif entry and section == "[on_conflict]" and entry.group(2) in policies:
        line = "%s = %s" % (entry.group(1), policies[entry.group(2)])
    elif line == '# [names."characters.name"]':
        names = 4
    if names:
        line, names = line[2:], names - 1
    out.append(line)
open(path, "w").write("\n".join(out) + "\n")
EOF
    run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan2" --state-dir "$T/state" \
      --profile "$T/draft.toml" --draft-profile "$T/draft-next.toml"
    [[ $RC == 0 ]] && break
    expect_rc 4
    mv "$T/draft-next.toml" "$T/draft.toml"
  done
  expect_rc 0
  legacy_merge "$T/plan2" m2
  legacy_check_merged m2
}

"test_$CASE"
