-- References grouped by the file they stand for, and the files that do not decode (issue 22).
-- A reference that finds a file of its name that does not decode as its kind is 'unusable'
-- (REFERENCE_UNUSABLE), listed by refs --missing with the missing and the wrong-kind ones.
DROP INDEX refs_unresolved;
CREATE INDEX refs_unresolved ON refs(resolution, kind, key)
    WHERE resolution IN ('missing', 'wrong-kind', 'unusable');

-- Every reference is resolved again: one finding per file looked for, whatever its spellings.
UPDATE refs SET linked = 0;
