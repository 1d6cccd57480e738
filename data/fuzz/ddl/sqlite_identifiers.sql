CREATE TABLE IF NOT EXISTS "my ""weird"" table"([x] INTEGER PRIMARY KEY, `y z` TEXT UNIQUE, "select" INT);
CREATE TABLE [order]("id" TEXT PRIMARY KEY, `key` BLOB);
INSERT INTO "my ""weird"" table" VALUES;
INSERT INTO "order" VALUES