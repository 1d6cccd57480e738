CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, email TEXT);
CREATE UNIQUE INDEX player_email ON player(email);
CREATE TABLE item(id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, name TEXT);
CREATE TABLE inventory(owner INTEGER NOT NULL, slot INTEGER NOT NULL, item_id INTEGER,
                       PRIMARY KEY(owner, slot));
CREATE TABLE guild_member(guild_id INTEGER NOT NULL, player_id INTEGER NOT NULL, rank TEXT,
                          PRIMARY KEY(guild_id, player_id)) WITHOUT ROWID;
CREATE TABLE account(login TEXT PRIMARY KEY, token BLOB UNIQUE, created TEXT);
CREATE TABLE event(id INTEGER PRIMARY KEY, kind TEXT, ref INTEGER);
CREATE UNIQUE INDEX event_open ON event(ref) WHERE kind = 'open';
CREATE UNIQUE INDEX event_kind ON event(lower(kind), ref);
CREATE TABLE chat_log(at INTEGER, message TEXT)