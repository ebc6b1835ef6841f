-- object_states without the foreign key of object_id, and without object_states_object. A
-- draw state's object is a row of its own file (lib/index/db.c writes both with the file), and
-- a file's states and objects are deleted together (clear_file, and each's ON DELETE CASCADE
-- from files): the cascade deleted nothing the file's did not, yet SQLite looked each state's
-- object up on every INSERT, and every state entered object_states_object, an index that
-- served only the cascade (0014; no query reads the states by object). The same step as 0019
-- for refs: the table is rebuilt with the same columns in the same order and the same ids;
-- nothing refers to object_states since 0019.
CREATE TABLE object_states_new (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    object_id   INTEGER,                    -- a game object of the same file
    module      TEXT NOT NULL,              -- "W3DModelDraw ModuleTag_01"
    kind        TEXT NOT NULL,              -- the state's keyword
    flags       TEXT NOT NULL,              -- condition flags (or transition states) as written
    model       TEXT NOT NULL,              -- '' draws none
    model_key   TEXT NOT NULL,              -- upper-cased model
    line        INTEGER NOT NULL
) STRICT;
INSERT INTO object_states_new(id, file_id, object_id, module, kind, flags, model, model_key, line)
    SELECT id, file_id, object_id, module, kind, flags, model, model_key, line FROM object_states
    ORDER BY id;
DROP TABLE object_states;
ALTER TABLE object_states_new RENAME TO object_states;
CREATE INDEX object_states_file ON object_states(file_id);
