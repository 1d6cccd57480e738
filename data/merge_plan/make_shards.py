#!/usr/bin/env python3
"""Writes the merge-plan fixture: two game shards whose merge needs every kind of rewrite.

  make_shards.py OUT_DIR   writes schema.sqlite.sql, schema.mysql.sql, a.data.sql, b.data.sql

The data is SQL both databases read alike (load it into MariaDB with sql_mode
NO_BACKSLASH_ESCAPES). Deterministic (fixed seed). What collides between A and B:
  - player.id, guild.id: legacy auto-increment ids (1..300 and 1..260; 1..20 and 1..15);
  - item.id: 10 of B's items carry IDs A's server 101 issued (B ran as 101 for a while), and
    one row is identical in both but belongs to player 7, who is another player in each
    (uid 'x-item-twin': it must be moved with its owner, not dropped);
  - item_template.id: 20 seeded rows identical in both, 5 that differ;
  - player_slot (player_id, slot) and guild_member (guild_id, player_id): composite keys over
    the legacy player ids, which follow the player remap;
  - player.name (VARCHAR(12), case-insensitive: NOCASE / utf8mb4_general_ci): 'alice', 'Bob'
    against 'bob', a 12-character name (the rename must shorten it), 'Dave' against A's
    'dave' and 'DAVE.s102' (the first rename is taken), 'eve' against A's 'eve' and
    'Ève.s102' (taken under utf8mb4_general_ci, free under SQLite's NOCASE);
  - guild.name (VARCHAR(16)): two names.
References to the players: guild.leader_id (declared FOREIGN KEY), guild_member.player_id and
player_slot.player_id (by name), item.owner_id (named in a --refs file by the tests, and also
inferable), mail.to_player (found only by inference). Every table has a `uid` column, unique
across both shards and never rewritten, so a test can check that every reference still points
at the same row after the rewrite.
"""
import os
import random
import sys

BASE_ID = 299767242424423424  # game layout: 2025-06-01T00:00:00Z, server 101, sequence 0


def steadyflake_id(tick, server, seq):
    return BASE_ID + (tick << 26) - (101 << 10) + (server << 10) + seq


SCHEMA_SQLITE = """\
-- Merge-plan fixture (make_shards.py): the game shard's schema as SQLite holds it.
CREATE TABLE player(id INTEGER PRIMARY KEY, name VARCHAR(12) NOT NULL UNIQUE COLLATE NOCASE,
                    uid VARCHAR(20) NOT NULL, level INTEGER NOT NULL);
CREATE TABLE guild(id INTEGER PRIMARY KEY, name VARCHAR(16) NOT NULL UNIQUE COLLATE NOCASE,
                   leader_id INTEGER NOT NULL REFERENCES player(id), uid VARCHAR(20) NOT NULL);
CREATE TABLE guild_member(guild_id INTEGER NOT NULL REFERENCES guild(id),
                          player_id INTEGER NOT NULL, joined INTEGER NOT NULL,
                          PRIMARY KEY(guild_id, player_id));
CREATE TABLE item_template(id INTEGER PRIMARY KEY, name VARCHAR(32) NOT NULL,
                           power INTEGER NOT NULL);
CREATE TABLE item(id BIGINT PRIMARY KEY, owner_id INTEGER NOT NULL,
                  template_id INTEGER NOT NULL, uid VARCHAR(20) NOT NULL);
CREATE TABLE mail(id BIGINT PRIMARY KEY, to_player INTEGER NOT NULL, subject TEXT NOT NULL,
                  uid VARCHAR(20) NOT NULL);
CREATE TABLE player_slot(player_id INTEGER NOT NULL, slot INTEGER NOT NULL, item_id BIGINT,
                         PRIMARY KEY(player_id, slot));
"""

SCHEMA_MYSQL = """\
-- Merge-plan fixture (make_shards.py): the game shard's schema as MariaDB holds it.
CREATE TABLE player (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
                     name VARCHAR(12) NOT NULL UNIQUE, uid VARCHAR(20) NOT NULL,
                     level INT NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE guild (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
                    name VARCHAR(16) NOT NULL UNIQUE, leader_id INT NOT NULL,
                    uid VARCHAR(20) NOT NULL,
                    CONSTRAINT fk_guild_leader FOREIGN KEY (leader_id) REFERENCES player (id))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE guild_member (guild_id INT NOT NULL, player_id INT NOT NULL, joined BIGINT NOT NULL,
                           PRIMARY KEY (guild_id, player_id),
                           CONSTRAINT fk_member_guild FOREIGN KEY (guild_id) REFERENCES guild (id))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE item_template (id INT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL,
                            power INT NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE item (id BIGINT NOT NULL PRIMARY KEY, owner_id INT NOT NULL,
                   template_id INT NOT NULL, uid VARCHAR(20) NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE mail (id BIGINT NOT NULL PRIMARY KEY, to_player INT NOT NULL,
                   subject VARCHAR(100) NOT NULL, uid VARCHAR(20) NOT NULL)
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE player_slot (player_id INT NOT NULL, slot INT NOT NULL, item_id BIGINT,
                          PRIMARY KEY (player_id, slot))
  ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
"""


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def shard(name, rng):
    """The rows of shard `name` ('a' or 'b'), as INSERT statements."""
    a = name == "a"
    out = []
    players = 300 if a else 260
    special = {  # player id -> name: the collisions the header lists
        "a": {1: "alice", 2: "bob", 3: "abcdefghijkl", 4: "dave", 5: "DAVE.s102", 6: "eve",
              7: "Ève.s102"},
        "b": {11: "alice", 12: "Bob", 13: "abcdefghijkl", 14: "Dave", 15: "eve"},
    }[name]
    for pid in range(1, players + 1):
        pname = special.get(pid, "p%s%04d" % (name, pid))
        out.append("INSERT INTO player VALUES(%d, %s, %s, %d);" %
                   (pid, quote(pname), quote("%s-player-%d" % (name, pid)), rng.randint(1, 60)))
    guilds = 20 if a else 15
    for gid in range(1, guilds + 1):
        gname = {1: "Knights", 2: "Dragons"}.get(gid, "guild-%s-%d" % (name, gid))
        out.append("INSERT INTO guild VALUES(%d, %s, %d, %s);" %
                   (gid, quote(gname), rng.randint(1, players), quote("%s-guild-%d" % (name, gid))))
    for gid in range(1, guilds + 1):
        for pid in range(gid * 6, gid * 6 + 6):
            out.append("INSERT INTO guild_member VALUES(%d, %d, %d);" %
                       (gid, pid, 1748736000000 + rng.randint(0, 10**9)))
    for tid in range(1000, 1025):
        power = tid - 990 if (a or tid < 1020) else tid - 900  # 1020..1024 differ in B
        out.append("INSERT INTO item_template VALUES(%d, %s, %d);" %
                   (tid, quote("template %d" % tid), power))
    server = 101 if a else 102
    items = []
    for n in range(400 if a else 360):
        items.append(steadyflake_id(1000 + n // 4, server, n % 4))
    if not a:  # B ran as server 101 for a while and issued 10 of A's item IDs again
        items[:10] = [steadyflake_id(1000 + n // 4, 101, n % 4) for n in range(0, 40, 4)]
    for n, iid in enumerate(items):
        out.append("INSERT INTO item VALUES(%d, %d, %d, %s);" %
                   (iid, rng.randint(1, players), rng.randint(1000, 1024),
                    quote("%s-item-%d" % (name, n))))
    # The same item row in both (id, owner 7, template, uid): identical, but B's owner 7 is
    # another player than A's, so the plan must move it, not drop it as a copy of A's.
    out.append("INSERT INTO item VALUES(%d, 7, 1000, 'x-item-twin');" % steadyflake_id(3000, 101, 0))
    for n in range(500 if a else 420):
        mid = steadyflake_id(5000 + n, server, 0)
        out.append("INSERT INTO mail VALUES(%d, %d, %s, %s);" %
                   (mid, rng.randint(1, players), quote("hello %d" % n),
                    quote("%s-mail-%d" % (name, n))))
    for pid in range(1, players + 1, 2):
        for slot in range(1, 4):
            item = items[(pid * 3 + slot) % len(items)]
            out.append("INSERT INTO player_slot VALUES(%d, %d, %d);" % (pid, slot, item))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_shards.py OUT_DIR")
    out_dir = sys.argv[1]
    with open(os.path.join(out_dir, "schema.sqlite.sql"), "w") as f:
        f.write(SCHEMA_SQLITE)
    with open(os.path.join(out_dir, "schema.mysql.sql"), "w") as f:
        f.write(SCHEMA_MYSQL)
    for name, seed in (("a", 7), ("b", 8)):
        rng = random.Random(seed)
        with open(os.path.join(out_dir, name + ".data.sql"), "w", encoding="utf-8") as f:
            f.write("-- Merge-plan fixture (make_shards.py): shard %s.\n" % name.upper())
            f.write("\n".join(shard(name, rng)) + "\n")


main()
