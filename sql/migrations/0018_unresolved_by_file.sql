-- refs_unresolved keyed by the file, not by (resolution, kind, key). Its only reader,
-- refs --missing (lib/index/query.c amx_query_missing), reads every row of it and sorts them
-- itself; keyed by text, each unresolved reference written went into it at a random place (a
-- Zero Hour mod without its game: 23,000 of 32,375 references, 162 M instructions of a first
-- scan's 2,219 M), keyed by its file in the order the rows are written (43 M). The query names
-- the index (INDEXED BY) and reads it first (CROSS JOIN): with statistics, the planner would
-- otherwise seek it once per file of the roots.
DROP INDEX refs_unresolved;
CREATE INDEX refs_unresolved ON refs(file_id)
    WHERE resolution = 'missing' OR resolution = 'wrong-kind' OR resolution = 'unusable';
