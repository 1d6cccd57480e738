CREATE TABLE pair(a INT, b TEXT, c BLOB, PRIMARY KEY(a, b), UNIQUE(c));
CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT, shard INT, slot INT);
CREATE TABLE kv(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE UNIQUE INDEX account_email ON account(email);
CREATE UNIQUE INDEX account_slot ON account(shard, slot DESC);
CREATE INDEX account_shard ON account(shard);
CREATE UNIQUE INDEX account_lower ON account(lower(email));
CREATE UNIQUE INDEX account_partial ON account(slot) WHERE slot > 0;
INSERT INTO pair VALUES;
INSERT INTO account VALUES