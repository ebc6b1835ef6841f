-- Skeletons whose tracks name bones by id (Metroid Prime CINF), clips that name a root bone, and
-- animation sets: which clips a skeleton plays, when a file says so (Metroid Prime ANCS).
ALTER TABLE bones ADD COLUMN bone_id INTEGER;   -- NULL: the bone is known by its index
ALTER TABLE clips ADD COLUMN root_bone INTEGER; -- NULL: the clip names none
CREATE TABLE anim_sets (
    file_id         INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,              -- e.g. the character
    skeleton_key    TEXT NOT NULL,              -- upper-cased skeleton name
    clip_key        TEXT NOT NULL               -- upper-cased clip name
) STRICT;
CREATE INDEX anim_sets_clip ON anim_sets(clip_key);
CREATE INDEX anim_sets_skeleton ON anim_sets(skeleton_key);
CREATE INDEX anim_sets_file ON anim_sets(file_id);
