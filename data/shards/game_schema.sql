-- The schema of a game shard, for the merge checker's tests (tests/mergecheck/): one table per
-- kind of key the checker reads from a SQLite database. The tests build databases from it with
-- the SQLite C API (and the sqlite3 shell in the CLI tests); game_a.sql and game_b.sql fill
-- them.
-- INTEGER PRIMARY KEY (a rowid alias), a UNIQUE constraint and a unique index on text.
CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, email TEXT);
CREATE UNIQUE INDEX player_email ON player(email);
-- A rowid alias and no other key.
CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, name TEXT);
-- A composite primary key on a rowid table.
CREATE TABLE inventory(owner INTEGER NOT NULL, slot INTEGER NOT NULL, item_id INTEGER,
                       PRIMARY KEY(owner, slot));
-- A composite primary key on a WITHOUT ROWID table.
CREATE TABLE guild_member(guild_id INTEGER NOT NULL, player_id INTEGER NOT NULL, rank TEXT,
                          PRIMARY KEY(guild_id, player_id)) WITHOUT ROWID;
-- A text primary key and a UNIQUE blob.
CREATE TABLE account(login TEXT PRIMARY KEY, token BLOB UNIQUE, created TEXT);
-- A partial unique index and one on an expression: neither is checked (docs/merging.md).
CREATE TABLE event(id INTEGER PRIMARY KEY, kind TEXT, ref INTEGER);
CREATE UNIQUE INDEX event_open ON event(ref) WHERE kind = 'open';
CREATE UNIQUE INDEX event_kind ON event(lower(kind), ref);
-- No key at all.
CREATE TABLE chat_log(at INTEGER, message TEXT);
