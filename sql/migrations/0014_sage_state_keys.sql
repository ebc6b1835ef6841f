-- The deletes of a changed or vanished SAGE INI file seek instead of scanning whole tables.
-- Deleting a file's draw states and game objects makes SQLite look, for each deleted row, for
-- the rows whose foreign key names it (refs.state_id, object_states.object_id: ON DELETE
-- CASCADE); without an index each is a scan of the whole table (a Zero Hour mod: 32,000
-- references scanned for each of a file's 1,400 states, 12 s to rescan one changed INI file).
CREATE INDEX refs_state ON refs(state_id) WHERE state_id IS NOT NULL;
CREATE INDEX object_states_object ON object_states(object_id) WHERE object_id IS NOT NULL;
-- No query reads the draw states by model (show and clips --model find a model's users through
-- refs.model_key): an index every state entered for nothing.
DROP INDEX object_states_model;
