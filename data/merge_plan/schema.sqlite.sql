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
