-- refs without the foreign keys of object_id and state_id, and without refs_state. A
-- reference's object and state are rows of its own file (lib/index/db.c writes them with the
-- file, and the link pass inserts an INI file's references with the ids its scan gave), and a
-- file's references, states and objects are deleted together (clear_file, and each's
-- ON DELETE CASCADE from files): the two cascades deleted nothing the file's did not, yet every
-- reference inserted looked its object and its state up (SQLite checks a child's parent on
-- each INSERT), and every state entered refs_state, an index that served only the cascade
-- (Generals_Rebalanced's first scan: 32,375 references, 2,119 M instructions; without them
-- fewer, bench/README.md "Results (fourth round)"). refs_object stays: queries read a game
-- object's references by it. SQLite cannot drop a foreign key, so the table is rebuilt with
-- the same columns in the same order and the same ids; nothing refers to refs.
CREATE TABLE refs_new (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    object_id   INTEGER,                    -- a game object of the same file
    kind        TEXT NOT NULL,              -- model | anim-override | w3d-model | ...
    tag         TEXT NOT NULL,              -- where: Land_Model_Name, ...
    name        TEXT NOT NULL,              -- as written
    key         TEXT NOT NULL,              -- upper-cased name the lookup uses (a model's stem)
    line        INTEGER,
    offset      INTEGER,
    target_id   INTEGER REFERENCES files(id) ON DELETE SET NULL,
    resolution  TEXT,
    linked      INTEGER NOT NULL DEFAULT 0,
    state_id    INTEGER,                    -- a draw state of the same file
    model       TEXT,
    model_key   TEXT,
    via_key     TEXT
) STRICT;
INSERT INTO refs_new(id, file_id, object_id, kind, tag, name, key, line, offset, target_id,
                     resolution, linked, state_id, model, model_key, via_key)
    SELECT id, file_id, object_id, kind, tag, name, key, line, offset, target_id, resolution,
           linked, state_id, model, model_key, via_key FROM refs ORDER BY id;
DROP TABLE refs;
ALTER TABLE refs_new RENAME TO refs;
CREATE INDEX refs_file ON refs(file_id);
CREATE INDEX refs_key ON refs(key, kind);
CREATE INDEX refs_object ON refs(object_id);
CREATE INDEX refs_target ON refs(target_id) WHERE target_id IS NOT NULL;
CREATE INDEX refs_unlinked ON refs(file_id) WHERE linked = 0;
CREATE INDEX refs_via_key ON refs(via_key) WHERE via_key IS NOT NULL;
CREATE INDEX refs_model_key ON refs(model_key) WHERE model_key IS NOT NULL AND kind = 'w3d-animation';
CREATE INDEX refs_unresolved ON refs(file_id)
    WHERE resolution = 'missing' OR resolution = 'wrong-kind' OR resolution = 'unusable';
