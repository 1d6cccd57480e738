#!/usr/bin/env python3
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
"""Writes two realms of a legacy game `characters` database as SQLite SQL (issue 28).

The traits that make a merge rewire rows silently when nobody says what the schema means:
  - no FOREIGN KEY anywhere; auto-increment guids that overlap between the realms;
  - account ids shared by both realms (one login database), with account-wide rows that differ
    (account_data keyed by (accountId, type), account_tutorial keyed by accountId);
  - extension tables keyed by the parent's id (character_homebind.guid is a character's guid);
  - a child keyed by an item id (mail_items.item_guid);
  - a polymorphic sender (mail.sender: a character when messageType is 0, a creature's entry,
    in the same range of numbers, when it is 3);
  - names the game keeps unique case-insensitively in a BINARY column (A's 'Hero1', B's
    'hero1'), and an at_login column whose bit 1 makes the game ask for a new name;
  - a keyless table (realm_log) holding one row that is in both realms.
Every row carries a `uid` that says which entity it is, which the tool is told nothing about:
the tests check after the rewrite and merge that each row of B still refers to the same
entities (tests/cli/merge_plan_test.sh, case merge_plan_legacy). Deterministic.

  make_legacy.py OUT_DIR   writes schema.sqlite.sql, a.sql, b.sql
"""
import os
import sys

SCHEMA = """\
-- Legacy fixture (make_legacy.py): a game's characters database as SQLite holds it.
CREATE TABLE characters(guid INTEGER PRIMARY KEY, account INTEGER NOT NULL,
                        name TEXT NOT NULL UNIQUE, at_login INTEGER NOT NULL DEFAULT 0,
                        uid TEXT NOT NULL);
CREATE TABLE character_homebind(guid INTEGER PRIMARY KEY, map INTEGER NOT NULL,
                                uid TEXT NOT NULL);
CREATE TABLE item_instance(guid INTEGER PRIMARY KEY, owner_guid INTEGER NOT NULL,
                           itemEntry INTEGER NOT NULL, uid TEXT NOT NULL);
CREATE TABLE mail(id INTEGER PRIMARY KEY, messageType INTEGER NOT NULL, sender INTEGER NOT NULL,
                  receiver INTEGER NOT NULL, uid TEXT NOT NULL);
CREATE TABLE mail_items(item_guid INTEGER PRIMARY KEY, mail_id INTEGER NOT NULL,
                        receiver INTEGER NOT NULL, uid TEXT NOT NULL);
CREATE TABLE account_data(accountId INTEGER NOT NULL, type INTEGER NOT NULL,
                          time INTEGER NOT NULL, data TEXT NOT NULL, uid TEXT NOT NULL,
                          PRIMARY KEY(accountId, type));
CREATE TABLE account_tutorial(accountId INTEGER PRIMARY KEY, tut0 INTEGER NOT NULL,
                              uid TEXT NOT NULL);
CREATE TABLE realm_log(event TEXT NOT NULL, time INTEGER NOT NULL, uid TEXT NOT NULL);
"""

ACCOUNTS = 50


def realm(s, characters, mails):
    rows = []
    add = lambda table, *values: rows.append(
        "INSERT INTO %s VALUES(%s);" % (table, ", ".join(
            "'%s'" % v if isinstance(v, str) else str(v) for v in values)))
    for g in range(1, characters + 1):
        name = ("Hero%d" if s == "a" else "hero%d") % g if g <= 5 else "%s%d" % (s, g)
        add("characters", g, g % ACCOUNTS + 1, name, 0, "%s-c%d" % (s, g))
        add("character_homebind", g, 1000 + g if s == "a" else 2000 + g, "%s-h%d" % (s, g))
        for k in (0, 1):
            item = 2 * g - 1 + k
            add("item_instance", item, g, 100 + k, "%s-i%d" % (s, item))
    for m in range(1, mails + 1):
        receiver = (m * 3) % characters + 1
        kind = 0 if m % 2 else 3
        add("mail", m, kind, (m * 7) % 150 + 1, receiver, "%s-m%d" % (s, m))
        if m <= mails - 10:  # an item of the receiver's, each item once
            add("mail_items", 2 * receiver - (m // characters) % 2, m, receiver,
                "%s-mi%d" % (s, m))
    for a in range(1, ACCOUNTS + 1):
        for t in (0, 1):
            time = 1000 + 10 * a + t + (0 if s == "a" else (5 if a % 2 else -5))
            add("account_data", a, t, time, "%s-data%d.%d" % (s, a, t), "%s-ad%d.%d" % (s, a, t))
        add("account_tutorial", a, 1 if s == "a" else 2, "%s-at%d" % (s, a))
    add("realm_log", "boot", 1 if s == "a" else 2, "%s-log1" % s)
    add("realm_log", "patch 3.3.5", 5, "log-shared")  # the same row in both realms
    return "-- Legacy fixture (make_legacy.py): realm %s.\n%s\n" % (s.upper(), "\n".join(rows))


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "schema.sqlite.sql"), "w") as f:
        f.write(SCHEMA)
    with open(os.path.join(out, "a.sql"), "w") as f:
        f.write(realm("a", 200, 130))
    with open(os.path.join(out, "b.sql"), "w") as f:
        f.write(realm("b", 260, 120))


if __name__ == "__main__":
    main()
