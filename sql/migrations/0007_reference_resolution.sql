-- Asset references resolved in the index (README "Asset references"): what each reference found
-- through the root's layers, and the CRC-32 by which the game finds a MEG member.
ALTER TABLE refs ADD COLUMN target_id INTEGER REFERENCES files(id) ON DELETE SET NULL;
-- found | builtin (an engine shader) | skipped (the engine ignores it: a texture named None) |
-- missing | wrong-kind | empty | too-long; NULL until the link pass has looked
ALTER TABLE refs ADD COLUMN resolution TEXT;
ALTER TABLE refs ADD COLUMN linked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX refs_target ON refs(target_id) WHERE target_id IS NOT NULL;
CREATE INDEX refs_unlinked ON refs(linked) WHERE linked = 0;
CREATE INDEX refs_unresolved ON refs(resolution, kind, key) WHERE resolution IN ('missing', 'wrong-kind');

-- An archive member's name as the game hashes it: CRC-32 of the upper-cased name with '\'.
ALTER TABLE files ADD COLUMN name_crc INTEGER;
CREATE INDEX files_name_crc ON files(name_crc) WHERE name_crc IS NOT NULL;
