-- refs_model_key holds the INI animations only. A bone, particle bone or sub-object is checked
-- against its model, and its key is that model's file stem, the same value as its model_key: it
-- entered refs_key and refs_model_key with one value (a Zero Hour mod: 12,338 of 32,375
-- references, each index entry written, and rewritten by the link pass, twice). The marking
-- statement that reads this index says the same WHERE (lib/index/db.c mark_refs_model_keyed);
-- the bones of a model's file are marked through refs_key by the same name (mark_refs_keyed),
-- and clips --model reads animations only (lib/index/query.c).
DROP INDEX refs_model_key;
CREATE INDEX refs_model_key ON refs(model_key) WHERE model_key IS NOT NULL AND kind = 'w3d-animation';
