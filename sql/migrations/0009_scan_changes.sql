-- What each scan added, changed (new content) and removed, for `animidx changes`: one row per
-- file of its own (archive members follow their archive). A whole-root scan's rows get its
-- scans.id when it finishes; the daemon's scoped rescans leave scan_id NULL (listed by time).
-- Numbered 0009 (0007 and 0008 were taken on other branches at the time); migrations apply by number
-- and each is recorded in amx_migrations, so one merged later is still applied.
CREATE TABLE scan_changes (
    id          INTEGER PRIMARY KEY,
    scan_id     INTEGER REFERENCES scans(id) ON DELETE CASCADE,
    root_id     INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,           -- unix seconds
    path        TEXT NOT NULL,
    change      TEXT NOT NULL,              -- added | changed | removed
    format      TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX scan_changes_scan ON scan_changes(scan_id);
CREATE INDEX scan_changes_pending ON scan_changes(root_id) WHERE scan_id IS NULL;
