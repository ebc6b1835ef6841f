-- animidx index, schema 1.
-- Applied by lib/index/db.c inside one BEGIN IMMEDIATE transaction, which then sets PRAGMA user_version.
-- Names: *_key columns hold the upper-cased form used for case-insensitive lookups.

CREATE TABLE roots (
    id      INTEGER PRIMARY KEY,
    path    TEXT NOT NULL UNIQUE          -- absolute, as scanned
) STRICT;

-- One row per indexed file; archive members have parent_id = the archive's row and a path
-- "dir/Archive.meg#DATA/ART/MODELS/X.ALO".
CREATE TABLE files (
    id              INTEGER PRIMARY KEY,
    root_id         INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    parent_id       INTEGER REFERENCES files(id) ON DELETE CASCADE,
    path            TEXT NOT NULL,        -- relative to the root, '/' separators
    dir_key         TEXT NOT NULL,        -- upper-cased logical directory (inside archives: the member's)
    stem_key        TEXT NOT NULL,        -- upper-cased file name without extension
    size            INTEGER NOT NULL,
    mtime_ns        INTEGER NOT NULL,
    hash            INTEGER,              -- XXH3-64 of the content (as a signed 64-bit integer)
    format          TEXT NOT NULL,        -- amx_format_name(); 'unknown' for files that are not ours
    version         TEXT NOT NULL DEFAULT '',
    decoder_version INTEGER NOT NULL,
    status          TEXT NOT NULL,        -- ok | partial | error | ignored
    indexed_at      INTEGER NOT NULL,     -- unix seconds
    UNIQUE (root_id, path)
) STRICT;
CREATE INDEX files_parent ON files(parent_id);
CREATE INDEX files_format ON files(format, status);
-- Covers the scanner's per-file lookup, so a no-change rescan costs one index seek per file.
CREATE INDEX files_lookup ON files(root_id, path, size, mtime_ns, decoder_version, format, hash);

CREATE TABLE skeletons (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    bone_count  INTEGER NOT NULL
) STRICT;
CREATE INDEX skeletons_name ON skeletons(name_key);
CREATE INDEX skeletons_file ON skeletons(file_id);

CREATE TABLE bones (
    skeleton_id INTEGER NOT NULL REFERENCES skeletons(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    parent      INTEGER NOT NULL,
    PRIMARY KEY (skeleton_id, idx)
) STRICT, WITHOUT ROWID;

-- skeleton_hint: what the file states or its naming convention gives (may be NULL);
-- skeleton_id / skeleton_name: what the link pass resolved it to (NULL when not found).
CREATE TABLE clips (
    id              INTEGER PRIMARY KEY,
    file_id         INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    name_key        TEXT NOT NULL,
    skeleton_hint   TEXT,
    skeleton_id     INTEGER REFERENCES skeletons(id) ON DELETE SET NULL,
    skeleton_name   TEXT,
    skeleton_key    TEXT,                 -- upper(skeleton_name, else skeleton_hint)
    frames          INTEGER,              -- NULL when the format has no frame count
    fps             REAL NOT NULL,
    duration        REAL NOT NULL,
    track_count     INTEGER NOT NULL,
    bones_missing   INTEGER NOT NULL DEFAULT 0,
    linked          INTEGER NOT NULL DEFAULT 0  -- 1 once the link pass has seen this clip
) STRICT;
CREATE INDEX clips_file ON clips(file_id);
CREATE INDEX clips_skeleton_key ON clips(skeleton_key);
CREATE INDEX clips_name ON clips(name_key);
CREATE INDEX clips_hint ON clips(skeleton_hint);
CREATE INDEX clips_skeleton_id ON clips(skeleton_id);
CREATE INDEX clips_unlinked ON clips(linked) WHERE linked = 0;

CREATE TABLE tracks (
    clip_id     INTEGER NOT NULL REFERENCES clips(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    bone_name   TEXT,
    bone_index  INTEGER NOT NULL,
    channels    TEXT NOT NULL,            -- e.g. "rotation,translation,visibility"
    offset      INTEGER,                  -- byte offset of the track's record in the file
    PRIMARY KEY (clip_id, idx)
) STRICT, WITHOUT ROWID;

-- Models (ALO meshes) and particle systems: one summary row per file.
CREATE TABLE models (
    file_id         INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,        -- model | particle
    name            TEXT NOT NULL,
    mesh_count      INTEGER NOT NULL DEFAULT 0,
    submesh_count   INTEGER NOT NULL DEFAULT 0,
    vertex_count    INTEGER NOT NULL DEFAULT 0,
    triangle_count  INTEGER NOT NULL DEFAULT 0,
    light_count     INTEGER NOT NULL DEFAULT 0,
    proxy_count     INTEGER NOT NULL DEFAULT 0,
    dazzle_count    INTEGER NOT NULL DEFAULT 0,
    emitter_count   INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX models_kind ON models(kind);

CREATE TABLE meshes (
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    materials   INTEGER NOT NULL,
    vertices    INTEGER NOT NULL,
    triangles   INTEGER NOT NULL,
    shaders     TEXT NOT NULL,            -- shader files of the sub-meshes, comma-separated
    hidden      INTEGER NOT NULL,
    collision   INTEGER NOT NULL,
    PRIMARY KEY (file_id, idx)
) STRICT, WITHOUT ROWID;

-- origin 'decode': found while decoding the file; 'link': found by the link pass (skeleton
-- binding), recomputed without re-decoding.
CREATE TABLE findings (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    origin      TEXT NOT NULL,
    code        TEXT NOT NULL,
    severity    TEXT NOT NULL,            -- the decoder's severity; config overrides apply on output
    message     TEXT NOT NULL,
    offset      INTEGER,
    context     TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX findings_file ON findings(file_id, origin);
CREATE INDEX findings_code ON findings(code, severity);

CREATE TABLE scans (
    id              INTEGER PRIMARY KEY,
    root_id         INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    started_at      INTEGER NOT NULL,
    finished_at     INTEGER,              -- NULL: interrupted
    files_seen      INTEGER NOT NULL DEFAULT 0,
    files_decoded   INTEGER NOT NULL DEFAULT 0,
    files_removed   INTEGER NOT NULL DEFAULT 0
) STRICT;
