-- Legacy fixture (make_legacy.py): a game's characters database as SQLite holds it.
CREATE TABLE characters(guid INTEGER PRIMARY KEY, account INTEGER NOT NULL,
                        name TEXT NOT NULL UNIQUE, at_login INTEGER NOT NULL DEFAULT 0,
                        uid TEXT NOT NULL);
CREATE TABLE character_homebind(guid INTEGER PRIMARY KEY, map INTEGER NOT NULL,
                                uid TEXT NOT NULL);
CREATE TABLE item_instance(guid INTEGER PRIMARY KEY, owner_guid INTEGER NOT NULL,
                           itemEntry INTEGER NOT NULL, uid TEXT NOT NULL);
CREATE TABLE mail(id INTEGER PRIMARY KEY, messageType INTEGER NOT NULL, sender INTEGER NOT NULL,
                  receiver INTEGER NOT NULL, uid TEXT NOT NULL);
CREATE TABLE mail_items(item_guid INTEGER PRIMARY KEY, mail_id INTEGER NOT NULL,
                        receiver INTEGER NOT NULL, uid TEXT NOT NULL);
CREATE TABLE account_data(accountId INTEGER NOT NULL, type INTEGER NOT NULL,
                          time INTEGER NOT NULL, data TEXT NOT NULL, uid TEXT NOT NULL,
                          PRIMARY KEY(accountId, type));
CREATE TABLE account_tutorial(accountId INTEGER PRIMARY KEY, tut0 INTEGER NOT NULL,
                              uid TEXT NOT NULL);
CREATE TABLE realm_log(event TEXT NOT NULL, time INTEGER NOT NULL, uid TEXT NOT NULL);
