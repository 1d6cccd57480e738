`PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE loose(a, b);
INSERT INTO loose(rowid,a,b) VALUES(2,2,'y');
INSERT INTO loose(rowid,a,b) VALUES(3,3,'z');
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO item VALUES(5,'five');
COMMIT;
