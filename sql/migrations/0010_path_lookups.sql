-- Paths as people type them, answered by index seeks on an index of a million files
-- (cli/paths.c through amx_query_path_*): a bare file name by its stem (a path in any case goes
-- through files_lkey, the upper-cased path the games look files up by). files_lookup, a
-- covering index for the per-file look-up of the scan, goes: the scan reads each directory's
-- rows through files_dir, and a single file's look-up takes the (root_id, path) key of the
-- table's unique constraint.
CREATE INDEX files_stem ON files(stem_key);
DROP INDEX files_lookup;

-- An archive's members, in path order. A partial index: on files_parent, where nearly every
-- row is NULL, the planner's statistics made "the members of X" a scan of every file.
CREATE INDEX files_members ON files(parent_id, path) WHERE parent_id IS NOT NULL;
DROP INDEX files_parent;

-- Findings counted per code (issues, lint, the summary) from the index alone, files included.
DROP INDEX findings_code;
CREATE INDEX findings_code ON findings(code, severity, file_id);

-- Whether a link pass has ever marked rows linked. Until one has (an index being built for the
-- first time), the write path's "mark what this change affects" statements cannot change
-- anything and are skipped; asking the tables instead was a scan of every clip per batch.
CREATE TABLE link_state (linked_once INTEGER NOT NULL) STRICT;
INSERT INTO link_state VALUES ((SELECT EXISTS (SELECT 1 FROM clips WHERE linked = 1) OR
                                       EXISTS (SELECT 1 FROM refs WHERE linked = 1) OR
                                       EXISTS (SELECT 1 FROM skeleton_refs WHERE linked = 1) OR
                                       EXISTS (SELECT 1 FROM skeletons WHERE linked = 1)));
