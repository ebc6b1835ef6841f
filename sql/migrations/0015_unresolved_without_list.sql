-- The partial index of unresolved references without an IN list. SQLite codes a WHERE of
-- `x IN (three or more constants)` with a temporary b-tree built each time it is evaluated, and a
-- partial index's WHERE is evaluated on every INSERT, UPDATE and DELETE of the table: every
-- reference written, resolved or removed built and freed one (a Zero Hour mod's 32,000 INI
-- references: about 65,000 of them, an eighth of a first scan's instructions). The same rows,
-- as comparisons; the queries that read it say the same (lib/index/query.c).
DROP INDEX refs_unresolved;
CREATE INDEX refs_unresolved ON refs(resolution, kind, key)
    WHERE resolution = 'missing' OR resolution = 'wrong-kind' OR resolution = 'unusable';
