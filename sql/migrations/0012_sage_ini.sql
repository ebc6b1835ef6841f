-- SAGE INI (docs/formats/sage-ini.md): the states of the game objects' draw modules, what an INI
-- reference is checked against, and the render objects of W3D files that INI models name.

-- A state of a draw module (ConditionState, DefaultConditionState, TransitionState; BFME
-- ModelConditionState, AnimationState, ...): the model it draws after the default state's copy.
CREATE TABLE object_states (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    object_id   INTEGER REFERENCES game_objects(id) ON DELETE CASCADE,
    module      TEXT NOT NULL,              -- "W3DModelDraw ModuleTag_01"
    kind        TEXT NOT NULL,              -- the state's keyword
    flags       TEXT NOT NULL,              -- condition flags (or transition states) as written
    model       TEXT NOT NULL,              -- '' draws none
    model_key   TEXT NOT NULL,              -- upper-cased model
    line        INTEGER NOT NULL
) STRICT;
CREATE INDEX object_states_file ON object_states(file_id);
CREATE INDEX object_states_model ON object_states(model_key) WHERE model_key <> '';

-- An INI reference's state, the model its animation or bone is checked against and that model's
-- file stem (a change of that file re-resolves it), and the hierarchy the link pass used (a
-- change of that skeleton re-resolves it).
ALTER TABLE refs ADD COLUMN state_id INTEGER REFERENCES object_states(id) ON DELETE CASCADE;
ALTER TABLE refs ADD COLUMN model TEXT;
ALTER TABLE refs ADD COLUMN model_key TEXT;
ALTER TABLE refs ADD COLUMN via_key TEXT;
CREATE INDEX refs_model_key ON refs(model_key) WHERE model_key IS NOT NULL;
CREATE INDEX refs_via_key ON refs(via_key) WHERE via_key IS NOT NULL;

-- The render objects of a W3D file (HLODs, meshes as CONTAINER.MESH, HMODELs): what an INI
-- Model = X must find, its hierarchy, and its sub-objects (upper-cased, one per line) for
-- Show/HideSubObject and bones that are sub-objects.
CREATE TABLE w3d_objects (
    file_id         INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,          -- hlod | mesh | hmodel
    name            TEXT NOT NULL,
    name_key        TEXT NOT NULL,
    hierarchy_key   TEXT NOT NULL,          -- '' none
    sub_objects     TEXT NOT NULL
) STRICT;
CREATE INDEX w3d_objects_file ON w3d_objects(file_id, name_key);
