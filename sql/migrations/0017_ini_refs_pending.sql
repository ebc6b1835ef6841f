-- The references of a SAGE INI file between its scan and the link pass that resolves them, one
-- blob per file (layout: lib/index/ini_refs_pending.c). Written to refs at the scan, each
-- reference was inserted unresolved and then rewritten by the link pass (its resolution, target
-- and hierarchy moved it in three more indexes: a quarter of a Zero Hour mod's first scan); the
-- link pass now inserts each row once, resolved, and deletes the blob in the same transaction.
-- A file's rows and blob go with the file.
CREATE TABLE ini_refs_pending (
    file_id     INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    refs        BLOB NOT NULL
) STRICT;
