-- Merge-day fixture: the game shard's schema as SQLite holds it (see README.md).
CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE item(id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, template INTEGER NOT NULL);
CREATE TABLE mail(id INTEGER PRIMARY KEY, to_player INTEGER NOT NULL, subject TEXT NOT NULL,
                  body BLOB);
CREATE TABLE account(login TEXT PRIMARY KEY, token BLOB UNIQUE);
CREATE TABLE inventory(owner INTEGER NOT NULL, slot INTEGER NOT NULL, item_id INTEGER,
                       PRIMARY KEY(owner, slot));
