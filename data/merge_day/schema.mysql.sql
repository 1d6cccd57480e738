-- Merge-day fixture: the same schema as MariaDB holds it (see README.md). utf8mb4_bin so text
-- compares by bytes, as the checker and SQLite do.
CREATE TABLE player (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(64) NOT NULL,
  UNIQUE KEY name (name)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE item (id BIGINT NOT NULL PRIMARY KEY, owner_id BIGINT NOT NULL,
  template INT NOT NULL) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE mail (id BIGINT NOT NULL PRIMARY KEY, to_player BIGINT NOT NULL,
  subject TEXT NOT NULL, body BLOB) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE account (login VARCHAR(64) NOT NULL PRIMARY KEY, token VARBINARY(32),
  UNIQUE KEY token (token)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE inventory (owner BIGINT NOT NULL, slot INT NOT NULL, item_id BIGINT,
  PRIMARY KEY (owner, slot)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
