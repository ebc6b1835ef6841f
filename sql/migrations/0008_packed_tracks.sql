-- A clip's tracks in one packed row instead of a row per track (layout: lib/index/tracks.c).
-- Tracks are read a clip at a time; real clips have dozens (median 73), and a row each made
-- the track table most of the index and of the time a scan spends writing.
CREATE TABLE clip_tracks (
    clip_id     INTEGER PRIMARY KEY REFERENCES clips(id) ON DELETE CASCADE,
    data        BLOB NOT NULL
) STRICT;

-- amx_pack_track() is the C aggregate registered on every connection (tracks.c).
INSERT INTO clip_tracks(clip_id, data)
    SELECT clip_id, amx_pack_track(idx, bone_name, bone_index, channels, offset)
    FROM tracks GROUP BY clip_id;

DROP TABLE tracks;


-- The link pass takes the files with unlinked rows in batches, in file order: the partial
-- indexes of unlinked rows hold the file id, so each batch is a short range of an index (it
-- was a look-up of every unlinked row in its table, each batch: quadratic on a big index).
DROP INDEX clips_unlinked;
CREATE INDEX clips_unlinked ON clips(file_id) WHERE linked = 0;
DROP INDEX skeleton_refs_unlinked;
CREATE INDEX skeleton_refs_unlinked ON skeleton_refs(file_id) WHERE linked = 0;
DROP INDEX refs_unlinked;
CREATE INDEX refs_unlinked ON refs(file_id) WHERE linked = 0;

-- A skeleton's place (its file's root and logical directory) beside its name, so that finding
-- the skeleton a file names (own file, then directory, then tree, then base layers) is an index
-- seek, not a walk over every skeleton of that name (quadratic when many directories hold a
-- hierarchy of one name). A trigger keeps the copy equal to the file's row.
ALTER TABLE skeletons ADD COLUMN root_id INTEGER;
ALTER TABLE skeletons ADD COLUMN dir_key TEXT;
UPDATE skeletons SET root_id = (SELECT root_id FROM files f WHERE f.id = skeletons.file_id),
                     dir_key = (SELECT dir_key FROM files f WHERE f.id = skeletons.file_id);
DROP INDEX skeletons_name;
CREATE INDEX skeletons_name ON skeletons(name_key, root_id, dir_key);
CREATE TRIGGER skeletons_follow_file AFTER UPDATE OF root_id, dir_key ON files
BEGIN
    UPDATE skeletons SET root_id = new.root_id, dir_key = new.dir_key WHERE file_id = new.id;
END;
