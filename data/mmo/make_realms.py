#!/usr/bin/env python3
"""Writes the schema and two realms' data of an MMO `characters` database, in MySQL SQL.

The shape of a real open-source MMO server's character database (one table per kind of
player state), small enough to commit: 42 tables, auto-increment guids whose counters overlap
between realms, reference tables every realm seeds with the same rows, keyless log and state
tables, and text keys under utf8mb4_bin and utf8mb4_unicode_ci. Deterministic (fixed seeds).

  make_realms.py OUT_DIR   writes schema.sql, realm_a.sql, realm_b.sql, realm_c.sql
  make_realms.py --sqlite OUT_DIR
                           writes the same as SQLite SQL: schema.sqlite.sql (MySQL types kept
                           but `unsigned`, enum as TEXT; utf8mb4_bin columns COLLATE BINARY, the
                           case-insensitive ones COLLATE NOCASE) and realm_{a,b,c}.sqlite.sql
  make_realms.py --truth-sqlite
                           prints the SQL that asks SQLite the same as --truth, for database A
                           as main and B attached as `b` (compared as bytes: CAST AS BLOB)
  make_realms.py --truth A B
                           prints the SQL that asks the server, for databases A and B, per key
                           how many values are in both (joined under the columns' collations,
                           as INSERT ... SELECT would collide) and how many of those rows are
                           identical in every column (compared as bytes, NULL-safe), and per
                           keyless table its rows and the distinct rows in both: one line each,
                           tab-separated (the test reads them as truth.tsv)

Realm C is the negative control: guids from counters that never met A's, no seeded row in
common, no name in common: it shares no key with A.
"""
import os
import random
import sys

# (table, columns, keys); a column is (name, type); keys are ("PRIMARY KEY" | "UNIQUE KEY",
# [columns]). No keys: a keyless table.
GUID = "int(10) unsigned NOT NULL"
TABLES = [
    ("characters", [("guid", GUID), ("account", GUID), ("name", "varchar(12) NOT NULL"),
                    ("race", "tinyint(3) unsigned NOT NULL"), ("level", "tinyint(3) unsigned NOT NULL"),
                    ("money", GUID)],
     [("PRIMARY KEY", ["guid"]), ("UNIQUE KEY", ["name"])]),
    ("item_instance", [("guid", GUID), ("itemEntry", GUID), ("owner_guid", GUID), ("count", GUID)],
     [("PRIMARY KEY", ["guid"])]),
    ("character_inventory", [("guid", GUID), ("bag", GUID), ("slot", "tinyint(3) unsigned NOT NULL"),
                             ("item", GUID)],
     [("PRIMARY KEY", ["item"]), ("UNIQUE KEY", ["guid", "bag", "slot"])]),
    ("mail", [("id", GUID), ("sender", GUID), ("receiver", GUID), ("subject", "varchar(200) DEFAULT NULL")],
     [("PRIMARY KEY", ["id"])]),
    ("mail_items", [("mail_id", GUID), ("item_guid", GUID), ("receiver", GUID)],
     [("PRIMARY KEY", ["item_guid"])]),
    ("guild", [("guildid", GUID), ("name", "varchar(24) NOT NULL"), ("leaderguid", GUID)],
     [("PRIMARY KEY", ["guildid"]), ("UNIQUE KEY", ["name"])]),
    ("guild_member", [("guildid", GUID), ("guid", GUID), ("rank", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid"])]),
    ("guild_rank", [("guildid", GUID), ("rid", "tinyint(3) unsigned NOT NULL"), ("rname", "varchar(20) NOT NULL")],
     [("PRIMARY KEY", ["guildid", "rid"])]),
    ("character_spell", [("guid", GUID), ("spell", GUID), ("active", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid", "spell"])]),
    ("character_achievement", [("guid", GUID), ("achievement", "smallint(5) unsigned NOT NULL"), ("date", GUID)],
     [("PRIMARY KEY", ["guid", "achievement"])]),
    ("character_queststatus", [("guid", GUID), ("quest", GUID), ("status", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid", "quest"])]),
    ("character_reputation", [("guid", GUID), ("faction", "smallint(5) unsigned NOT NULL"), ("standing", "int(11) NOT NULL")],
     [("PRIMARY KEY", ["guid", "faction"])]),
    ("character_skills", [("guid", GUID), ("skill", "smallint(5) unsigned NOT NULL"), ("value", "smallint(5) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid", "skill"])]),
    ("character_action", [("guid", GUID), ("spec", "tinyint(3) unsigned NOT NULL"), ("button", "tinyint(3) unsigned NOT NULL"),
                          ("action", GUID)],
     [("PRIMARY KEY", ["guid", "spec", "button"])]),
    ("character_homebind", [("guid", GUID), ("mapId", "smallint(5) unsigned NOT NULL"), ("zoneId", "smallint(5) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid"])]),
    ("character_pet", [("id", GUID), ("owner", GUID), ("name", "varchar(21) DEFAULT NULL")],
     [("PRIMARY KEY", ["id"])]),
    ("pet_spell", [("guid", GUID), ("spell", GUID), ("active", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid", "spell"])]),
    ("groups", [("guid", GUID), ("leaderGuid", GUID), ("lootMethod", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid"])]),
    ("group_member", [("guid", GUID), ("memberGuid", GUID), ("memberFlags", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["memberGuid"])]),
    ("arena_team", [("arenaTeamId", GUID), ("name", "varchar(24) NOT NULL"), ("captainGuid", GUID)],
     [("PRIMARY KEY", ["arenaTeamId"]), ("UNIQUE KEY", ["name"])]),
    ("arena_team_member", [("arenaTeamId", GUID), ("guid", GUID), ("personalRating", "smallint(5) NOT NULL")],
     [("PRIMARY KEY", ["arenaTeamId", "guid"])]),
    ("auctionhouse", [("id", GUID), ("itemguid", GUID), ("itemowner", GUID), ("buyoutprice", GUID)],
     [("PRIMARY KEY", ["id"]), ("UNIQUE KEY", ["itemguid"])]),
    ("account_data", [("accountId", GUID), ("type", "tinyint(3) unsigned NOT NULL"), ("data", "blob NOT NULL")],
     [("PRIMARY KEY", ["accountId", "type"])]),
    ("character_account_data", [("guid", GUID), ("type", "tinyint(3) unsigned NOT NULL"), ("data", "blob NOT NULL")],
     [("PRIMARY KEY", ["guid", "type"])]),
    ("channels", [("name", "varchar(128) NOT NULL"), ("team", GUID), ("announce", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["name", "team"])]),
    ("corpse", [("guid", GUID), ("posX", "float NOT NULL"), ("mapId", "smallint(5) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid"])]),
    ("gm_ticket", [("id", GUID), ("playerGuid", GUID), ("description", "text NOT NULL")],
     [("PRIMARY KEY", ["id"])]),
    ("petition", [("ownerguid", GUID), ("petitionguid", GUID), ("name", "varchar(24) NOT NULL")],
     [("PRIMARY KEY", ["ownerguid"]), ("UNIQUE KEY", ["petitionguid"])]),
    ("petition_sign", [("petitionguid", GUID), ("playerguid", GUID), ("player_account", GUID)],
     [("PRIMARY KEY", ["petitionguid", "playerguid"])]),
    ("calendar_events", [("id", "bigint(20) unsigned NOT NULL"), ("creator", GUID), ("title", "varchar(255) NOT NULL")],
     [("PRIMARY KEY", ["id"])]),
    ("character_social", [("guid", GUID), ("friend", GUID), ("flags", "tinyint(3) unsigned NOT NULL")],
     [("PRIMARY KEY", ["guid", "friend"])]),
    ("character_equipmentsets", [("guid", GUID), ("setguid", "bigint(20) NOT NULL"), ("setindex", "tinyint(3) unsigned NOT NULL"),
                                 ("name", "varchar(31) NOT NULL")],
     [("PRIMARY KEY", ["setguid"]), ("UNIQUE KEY", ["guid", "setindex"])]),
    # Reference tables every realm seeds with the same rows; some rows change as a realm runs.
    ("worldstates", [("entry", GUID), ("value", GUID), ("comment", "tinytext")],
     [("PRIMARY KEY", ["entry"])]),
    ("updates", [("name", "varchar(200) NOT NULL"), ("hash", "char(40) DEFAULT ''"),
                 ("state", "enum('RELEASED','ARCHIVED') NOT NULL DEFAULT 'RELEASED'")],
     [("PRIMARY KEY", ["name"])]),
    ("updates_include", [("path", "varchar(200) NOT NULL"), ("state", "enum('RELEASED','ARCHIVED') NOT NULL DEFAULT 'RELEASED'")],
     [("PRIMARY KEY", ["path"])]),
    ("instance_reset", [("mapid", "smallint(5) unsigned NOT NULL"), ("difficulty", "tinyint(3) unsigned NOT NULL"),
                        ("resettime", GUID)],
     [("PRIMARY KEY", ["mapid", "difficulty"])]),
    ("game_event_save", [("eventEntry", "tinyint(3) unsigned NOT NULL"), ("state", "tinyint(3) unsigned NOT NULL"),
                         ("next_start", GUID)],
     [("PRIMARY KEY", ["eventEntry"])]),
    ("pool_quest_save", [("pool_id", GUID), ("quest_id", GUID)],
     [("PRIMARY KEY", ["pool_id", "quest_id"])]),
    ("warden_action", [("wardenId", "smallint(5) unsigned NOT NULL"), ("action", "tinyint(3) unsigned DEFAULT NULL")],
     [("PRIMARY KEY", ["wardenId"])]),
    # Keyless: logs and one-row state tables.
    ("log_money", [("sender_guid", GUID), ("receiver_guid", GUID), ("money", GUID), ("topic", "varchar(255) NOT NULL")], []),
    ("log_arena_fights", [("fight_id", GUID), ("winner", GUID), ("loser", GUID)], []),
    ("saved_variables", [("NextArenaPointDistributionTime", GUID), ("NextDailyQuestResetTime", GUID)], []),
]

# Text keys under utf8mb4_bin (case and accents differ) and utf8mb4_unicode_ci (they do not);
# the rest take the table default, utf8mb4_unicode_ci.
BIN = {("updates", "name"), ("updates_include", "path"), ("channels", "name")}


TEXT_TYPES = ("varchar", "char", "text", "tinytext", "enum")


def sqlite_ddl():
    out = []
    for table, columns, keys in TABLES:
        lines = []
        for name, type_ in columns:
            if type_.startswith("enum"):
                type_ = "TEXT" + type_[type_.index(")") + 1:]
            type_ = type_.replace(" unsigned", "")  # SQLite takes no word after "(n)"
            if type_.split("(")[0].split()[0] in TEXT_TYPES:
                type_ += " COLLATE " + ("BINARY" if (table, name) in BIN else "NOCASE")
            lines.append(f"  `{name}` {type_}")
        for kind, cols in keys:
            quoted = ", ".join(f"`{c}`" for c in cols)
            lines.append(f"  {'PRIMARY KEY' if kind == 'PRIMARY KEY' else 'UNIQUE'} ({quoted})")
        out.append(f"CREATE TABLE `{table}` (\n" + ",\n".join(lines) + "\n);")
    return "\n".join(out) + "\n"


def ddl():
    out = ["SET NAMES utf8mb4;"]
    for table, columns, keys in TABLES:
        lines = []
        for name, type_ in columns:
            collate = " COLLATE utf8mb4_bin" if (table, name) in BIN else ""
            lines.append(f"  `{name}` {type_}{collate}")
        for kind, cols in keys:
            quoted = ", ".join(f"`{c}`" for c in cols)
            lines.append(f"  {kind} ({quoted})" if kind == "PRIMARY KEY"
                         else f"  UNIQUE KEY `uk_{'_'.join(cols)}` ({quoted})")
        out.append(f"CREATE TABLE `{table}` (\n" + ",\n".join(lines) +
                   "\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;")
    return "\n".join(out) + "\n"


def literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("\\", "\\\\").replace("'", "''") + "'"


def realm(tag, seed, first_guid, names, seeded_changes, negative=False):
    """The rows of one realm: {table: [tuple, ...]}. `tag` marks its players' own text."""
    rng = random.Random(seed)
    rows = {t: [] for t, _, _ in TABLES}
    guid = first_guid
    item = first_guid * 10
    n_chars = 60
    chars = []
    for i in range(n_chars):
        g = guid + i
        chars.append(g)
        rows["characters"].append((g, 1000 + g, names[i], rng.randint(1, 11), rng.randint(1, 80),
                                   rng.randint(0, 10**6)))
        rows["character_homebind"].append((g, rng.randint(0, 600), rng.randint(1, 4000)))
        for s in rng.sample(range(100, 160), 5):
            rows["character_spell"].append((g, s, 1))
        for a in rng.sample(range(1, 40), 3):
            rows["character_achievement"].append((g, a, 1700000000 + a))
        for q in rng.sample(range(1, 50), 3):
            rows["character_queststatus"].append((g, q, rng.randint(0, 6)))
        for f in rng.sample(range(20, 40), 2):
            rows["character_reputation"].append((g, f, rng.randint(-42000, 42000)))
        for s in rng.sample(range(160, 180), 2):
            rows["character_skills"].append((g, s, rng.randint(1, 450)))
        for b in range(3):
            rows["character_action"].append((g, 0, b, rng.randint(1, 60000)))
        for t in range(2):
            rows["character_account_data"].append((g, t, b"\x00cfg" + tag.encode() + bytes([t, i % 256])))
        for slot in range(2):
            rows["item_instance"].append((item, rng.randint(1, 50000), g, 1))
            rows["character_inventory"].append((g, 0, slot, item))
            item += 1
    for i in range(20):
        rows["character_pet"].append((guid + i, chars[i], f"pet{tag}{i}"))
        rows["pet_spell"].append((guid + i, 2000 + i, 1))
        rows["mail"].append((guid + i, chars[i], chars[i + 1], f"hello from {tag} {i}"))
        rows["mail_items"].append((guid + i, item, chars[i + 1]))
        rows["item_instance"].append((item, 999, chars[i + 1], 1))
        item += 1
        rows["gm_ticket"].append((guid + i, chars[i], f"stuck in {tag} {i}"))
        rows["corpse"].append((chars[i], float(i) + 0.5, 1))
        rows["character_social"].append((chars[i], chars[i + 2], 1))
        rows["calendar_events"].append((guid + i, chars[i], f"raid {tag}{i}"))
        rows["character_equipmentsets"].append((chars[i], guid * 100 + i, 0, f"set {tag}{i}"))
        rows["auctionhouse"].append((guid + i, item, chars[i], 100 * i))
        item += 1
        rows["petition"].append((chars[i], guid + 500 + i, names[i] + " club"))
        rows["petition_sign"].append((guid + 500 + i, chars[i + 3], 1000 + chars[i + 3]))
    guild_names = names[n_chars:n_chars + 8]
    for i in range(8):
        gid = guid + i
        rows["guild"].append((gid, guild_names[i], chars[i]))
        for r in range(3):
            rows["guild_rank"].append((gid, r, "rank %d" % r))
        for m in range(5):
            rows["guild_member"].append((gid, chars[i * 5 + m], m % 3))
        rows["arena_team"].append((gid, guild_names[i] + " 2v2", chars[i]))
        rows["arena_team_member"].append((gid, chars[i], 1500))
        rows["groups"].append((gid, chars[i], rng.randint(0, 4)))
        rows["group_member"].append((gid, chars[i + 40], 0))
        rows["channels"].append((guild_names[i] + "Chat", 67, 1))
        rows["account_data"].append((1000 + chars[i], 0, b"acct" + tag.encode() + bytes([i])))
    # Seeded reference rows: every realm holds them, most unchanged.
    offset = 100000 if negative else 0
    for e in range(1, 31):
        value = seeded_changes.get(("worldstates", e), 0)
        rows["worldstates"].append((e + offset, value, "state %d" % e))
    for u in range(1, 26):
        rows["updates"].append(("2024_%02d_00_world%s.sql" % (u, "_c" if negative else ""),
                                "%040x" % u, "ARCHIVED" if u < 20 else "RELEASED"))
    rows["updates"].append(("2024_%02d_00_world.SQL" % 30, "%040x" % 30, "RELEASED")) if not negative else None
    for p in ("$/sql/updates/characters", "$/sql/custom/characters"):
        rows["updates_include"].append((p + ("_c" if negative else ""), "RELEASED"))
    for m in range(10):
        rows["instance_reset"].append((m + offset // 1000, 0, seeded_changes.get(("instance_reset", m), 1700000000)))
    for e in range(1, 11):
        rows["game_event_save"].append((e + (100 if negative else 0), 0, seeded_changes.get(("game_event_save", e), 0)))
    for p in range(5):
        rows["pool_quest_save"].append((p + offset, 300 + p))
    for w in range(12):
        rows["warden_action"].append((w + (1000 if negative else 0), None if w % 4 == 0 else w % 3))
    # Keyless.
    for i in range(15):
        rows["log_money"].append((chars[i], chars[i + 1], 10 * i, "mail" if i < 5 else f"trade {tag}"))
    rows["log_money"].append((chars[0], chars[1], 0, "mail"))  # a copy of row 0
    for i in range(10):
        rows["log_arena_fights"].append((i + 1, chars[i], chars[i + 1]))
    rows["saved_variables"].append((1700000000, 1700086400 + (7 if negative else 0)))
    return rows


def inserts(rows, mysql=True):
    out = ["SET NAMES utf8mb4;"] if mysql else []
    for table, columns, _ in TABLES:
        for r in rows[table]:
            values = []
            for v in r:
                if isinstance(v, bytes):
                    values.append("X'" + v.hex() + "'")
                else:
                    values.append(literal(v))
            out.append(f"INSERT INTO `{table}` VALUES ({', '.join(values)});")
    return "\n".join(out) + "\n"


def truth_queries(a, b, same, line):
    """One query a line: `same(c)` compares column c of rows x and y as bytes, `line(parts)`
    joins SQL expressions into one tab-separated text."""
    out = []
    for table, columns, keys in TABLES:
        same_row = " AND ".join(same(c) for c, _ in columns)
        if not keys:
            out.append("SELECT " + line([
                "'keyless'", f"'{table}'", f"(SELECT COUNT(*) FROM {a}.`{table}`)",
                f"(SELECT COUNT(*) FROM {b}.`{table}`)",
                f"(SELECT COUNT(*) FROM (SELECT DISTINCT * FROM {a}.`{table}`) x "
                f"WHERE EXISTS (SELECT 1 FROM {b}.`{table}` y WHERE {same_row}))"]) + ";")
            continue
        for _, cols in keys:
            on = " AND ".join(f"x.`{c}` = y.`{c}`" for c in cols)
            join = f"FROM {a}.`{table}` x JOIN {b}.`{table}` y ON {on}"
            out.append("SELECT " + line([
                "'key'", f"'{table}'", f"'{','.join(cols)}'", f"(SELECT COUNT(*) {join})",
                f"(SELECT COUNT(*) {join} AND {same_row})"]) + ";")
    return "\n".join(out) + "\n"


def truth_sql(a, b):
    return truth_queries(a, b, lambda c: f"BINARY x.`{c}` <=> BINARY y.`{c}`",
                         lambda parts: "CONCAT_WS('\\t', " + ", ".join(parts) + ")")


def truth_sqlite_sql():
    return truth_queries("main", "b", lambda c: f"CAST(x.`{c}` AS BLOB) IS CAST(y.`{c}` AS BLOB)",
                         lambda parts: " || char(9) || ".join(parts))


def main():
    if sys.argv[1] == "--truth":
        sys.stdout.write(truth_sql(sys.argv[2], sys.argv[3]))
        return
    if sys.argv[1] == "--truth-sqlite":
        sys.stdout.write(truth_sqlite_sql())
        return
    sqlite = sys.argv[1] == "--sqlite"
    out_dir = sys.argv[2] if sqlite else sys.argv[1]
    rng = random.Random(17)
    base = ["Arthas", "Jaina", "Thrall", "Sylvanas", "Varian", "Anduin", "Garrosh", "Tyrande",
            "Malfurion", "Illidan", "Uther", "Muradin", "Baine", "Vol'jin", "Rexxar", "Velen"]
    pool = [f"{b}{n}" for n in range(10) for b in base]
    rng.shuffle(pool)
    names_a = pool[:68]
    # B: the same counters (guids from 1), some names the same or the same but for case and
    # accents (one key under utf8mb4_unicode_ci), the rest its own.
    names_b = pool[68:136]
    names_b[0] = names_a[0]                      # the same name
    names_b[1] = names_a[1].upper()              # case only: equal under unicode_ci
    names_b[2] = names_a[2].replace("a", "\u00e1", 1) if "a" in names_a[2] else names_a[2] + "\u00e1"
    names_b[60] = names_a[60]                    # a guild name in both
    names_b[61] = names_a[61].lower()
    names_c = [n + "C" for n in pool[136:160]] + [f"Cc{i}" for i in range(60)]
    changes_b = {("worldstates", 3): 7, ("worldstates", 9): 1, ("instance_reset", 2): 1700604800,
                 ("game_event_save", 5): 1700000000}
    realms = {
        "realm_a": realm("a", 1, 1, names_a, {}),
        "realm_b": realm("b", 2, 1, names_b, changes_b),
        "realm_c": realm("c", 3, 50000, names_c, {}, negative=True),
    }
    suffix = ".sqlite.sql" if sqlite else ".sql"
    with open(os.path.join(out_dir, "schema" + suffix), "w") as f:
        f.write(sqlite_ddl() if sqlite else ddl())
    for name, rows in realms.items():
        with open(os.path.join(out_dir, name + suffix), "w", encoding="utf-8") as f:
            f.write(inserts(rows, mysql=not sqlite))


if __name__ == "__main__":
    main()
