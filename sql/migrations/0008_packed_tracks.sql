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

