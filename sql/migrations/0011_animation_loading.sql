-- Animations loaded exactly as the engine loads them (issue 22): the table of animation types of
-- each root's game, the numbering that stops at the first missing number, and what a clip no
-- model loads fits.

-- The game a root is of ([root PATH] game = eaw | foc): whose table of animation types names
-- its clips. NULL: Forces of Corruption's (the default).
ALTER TABLE roots ADD COLUMN game TEXT;

-- A clip's name without its underscores, upper-cased: the file a missing animation number is
-- probably misspelt as (W_PEDISTALFACTION_10_IDLE_00 for W_PEDISTAL_FACTION_10_IDLE_00) is an
-- index seek, and so are the clips a new or removed file of such a name may affect.
CREATE INDEX clips_squashed ON clips(replace(name_key, '_', ''));

-- For a clip no model loads by name: its first track's bone and index ("BONE:3"), which every
-- skeleton its bones fit has. A skeleton that appears or goes marks the clips it may fit, so the
-- fits its CLIP_NOT_LOADED_BY_NAME names are those of a fresh scan.
ALTER TABLE clips ADD COLUMN fit_key TEXT;
CREATE INDEX clips_fit ON clips(fit_key) WHERE fit_key IS NOT NULL;

-- Every Alamo clip is bound again under these rules.
UPDATE clips SET linked = 0 WHERE file_id IN (SELECT id FROM files WHERE format = 'alamo-ala');
