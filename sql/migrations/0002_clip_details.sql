-- Format-specific details of a clip as a JSON object (MechWarrior 3: the "mw3" object with
-- sequences and their event timelines), written by lib/format/asset_json.c and printed by `show`.
ALTER TABLE clips ADD COLUMN details TEXT;
