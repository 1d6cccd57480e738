PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE IF NOT EXISTS "my ""weird"" table"([x] INTEGER PRIMARY KEY, `y z` TEXT UNIQUE, "select" INT);
INSERT INTO "my ""weird"" table" VALUES(1,'a',7);
CREATE TABLE [order]("id" TEXT PRIMARY KEY, `key` BLOB);
INSERT INTO "order" VALUES('k1',X'01');
COMMIT;
