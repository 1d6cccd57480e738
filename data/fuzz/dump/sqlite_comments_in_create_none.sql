PPRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE item( -- the items
  id INTEGER /* the id */ PRIMARY KEY, -- rowid alias
  /* a comment, (with parens */ owner INTEGER NOT NULL,
  code TEXT, -- UNIQUE in a comment is not a key
  CONSTRAINT code_unique UNIQUE (code /* inline */)
);
INSERT INTO item VALUES(1,2,'a');
COMMIT;
