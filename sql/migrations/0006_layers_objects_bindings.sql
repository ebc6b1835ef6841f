-- Engine-faithful binding (docs/architecture.md, README "How clips find their skeleton"):
-- the layers a root sits on, the logical path the game looks a file up by, the game objects and
-- references of XML files, and every binding of a clip with how it was made.

-- A root is a game or a mod of its own. 'base': scanned only as a base layer of another root
-- (its findings are not reported unless asked); 'target': scanned for itself.
ALTER TABLE roots ADD COLUMN role TEXT NOT NULL DEFAULT 'target';
-- Loose files of a root named Data (a scan of Mods/X/Data) are looked up as DATA/...
ALTER TABLE roots ADD COLUMN lkey_prefix TEXT NOT NULL DEFAULT '';
UPDATE roots SET lkey_prefix = 'DATA/'
    WHERE upper(replace(path, rtrim(path, replace(path, '/', '')), '')) = 'DATA';

-- The base layers of a root, in lookup order (rank 1 first): a mod on its parent mod and games.
CREATE TABLE root_layers (
    root_id     INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    rank        INTEGER NOT NULL,
    base_id     INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    PRIMARY KEY (root_id, rank)
) STRICT, WITHOUT ROWID;

-- The upper-cased path the game looks the file up by: the root's prefix and the loose file's
-- path, or an archive member's own name ("DATA/ART/MODELS/X.ALO").
ALTER TABLE files ADD COLUMN lkey TEXT;
UPDATE files SET lkey = (SELECT lkey_prefix FROM roots r WHERE r.id = files.root_id) || upper(path)
    WHERE parent_id IS NULL;
UPDATE files SET lkey = upper(substr(path, (SELECT length(a.path) FROM files a
                                            WHERE a.id = files.parent_id) + 2))
    WHERE parent_id IS NOT NULL;
CREATE INDEX files_lkey ON files(lkey);

-- Game objects of XML files (<SpaceUnit Name="X">), with the type they are a variant of.
CREATE TABLE game_objects (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    type        TEXT NOT NULL,              -- the element: SpaceUnit, GroundInfantry, HardPoint
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    variant     TEXT,                       -- Variant_Of_Existing_Type, as written
    variant_key TEXT,                       -- upper-cased
    line        INTEGER NOT NULL
) STRICT;
CREATE INDEX game_objects_file ON game_objects(file_id);
CREATE INDEX game_objects_name ON game_objects(name_key);
CREATE INDEX game_objects_variant ON game_objects(variant_key) WHERE variant_key IS NOT NULL;

-- What a file names of other files: XML model tags and animation overrides.
CREATE TABLE refs (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    object_id   INTEGER REFERENCES game_objects(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,              -- model | anim-override
    tag         TEXT NOT NULL,              -- where: Land_Model_Name, ...
    name        TEXT NOT NULL,              -- as written
    key         TEXT NOT NULL,              -- upper-cased name the lookup uses (a model's stem)
    line        INTEGER,
    offset      INTEGER
) STRICT;
CREATE INDEX refs_file ON refs(file_id);
CREATE INDEX refs_key ON refs(key, kind);
CREATE INDEX refs_object ON refs(object_id);

-- Every skeleton a clip is checked against, and why: 'name' (the engine's file-name convention),
-- 'xml-override' (a game object's *_Model_Anim_Override_Name), 'w3d-header' (the hierarchy the
-- file names), 'ancs' (a Metroid Prime character set). via: the XML file:line, the animation
-- type, the character.
CREATE TABLE clip_bindings (
    clip_id     INTEGER NOT NULL REFERENCES clips(id) ON DELETE CASCADE,
    skeleton_id INTEGER NOT NULL REFERENCES skeletons(id) ON DELETE CASCADE,
    how         TEXT NOT NULL,
    via         TEXT NOT NULL DEFAULT '',
    bones_bad   INTEGER NOT NULL
) STRICT;
CREATE INDEX clip_bindings_clip ON clip_bindings(clip_id);
CREATE INDEX clip_bindings_skeleton ON clip_bindings(skeleton_id);

-- How a W3D model found its hierarchy (own file, same directory, same tree, base layer).
ALTER TABLE skeleton_refs ADD COLUMN how TEXT;
-- Skeletons whose name-level findings (DUPLICATE_NAME) need a look from the link pass.
ALTER TABLE skeletons ADD COLUMN linked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX skeletons_unlinked ON skeletons(linked) WHERE linked = 0;

-- Everything is bound again under the new rules.
UPDATE clips SET linked = 0;
UPDATE skeleton_refs SET linked = 0;
DELETE FROM findings WHERE origin = 'link';
