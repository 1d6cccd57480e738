@PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE item(id integer primary key, owner integer, name text);
INSERT INTO item VALUES(0,0,'name00000');
/****** CORRUPTION ERROR *******/
/****** database disk image is malformed ******/
/****** ERROR: database disk image is malformed ******/
/**** ERROR: (11) database disk image is malformed *****/
INSERT INTO item VALUES(7919,1,'name00001');
ROLLBACK; -- due to errors
