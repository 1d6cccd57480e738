DPRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
INSERT INTO note VALUES(1,'a'||char(10)||'b');
INSERT INTO note VALUES(2,unistr('a\000ab\u000d\\'));
INSERT INTO note VALUES(3,char(233,8364,128512));
INSERT INTO note VALUES(4,replace('x','',char(10)));
COMMIT;
