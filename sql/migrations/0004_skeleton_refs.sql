-- Models built on a skeleton they name (W3D HLODs and HMODELs name their hierarchy, which may be
-- in another file). The link pass resolves each like a clip's skeleton: SKELETON_NOT_FOUND when
-- it is missing, INDEX_OUT_OF_RANGE when the model uses more bones than the skeleton has.
CREATE TABLE skeleton_refs (
    id              INTEGER PRIMARY KEY,
    file_id         INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    what            TEXT NOT NULL,              -- e.g. "HLOD 'AUELLADAN'"
    skeleton_key    TEXT NOT NULL,              -- upper-cased skeleton name
    bones_used      INTEGER NOT NULL,           -- 1 + the highest bone index used; 0 none
    offset          INTEGER,
    skeleton_id     INTEGER REFERENCES skeletons(id) ON DELETE SET NULL,
    linked          INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX skeleton_refs_file ON skeleton_refs(file_id);
CREATE INDEX skeleton_refs_key ON skeleton_refs(skeleton_key);
CREATE INDEX skeleton_refs_unlinked ON skeleton_refs(linked) WHERE linked = 0;
