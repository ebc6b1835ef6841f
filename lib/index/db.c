/*
 * The SQLite index: opening, migrations (sql/migrations, embedded at build time and applied in
 * order inside BEGIN IMMEDIATE, tracked by PRAGMA user_version), prepared statements (prepared
 * once, bound/stepped/reset per use), and the per-file write path used by the scanner.
 */
#include "db_internal.h"
#include "resolve/resolve.h"

#include "animidx/json.h"
#include "animidx/w3d.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "animidx/os.h"

amx_status amx__db_error(amx_db *db, const char *what, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", what, db && db->db ? sqlite3_errmsg(db->db) : "no database");
    return AMX_E_DB;
}

amx_status amx__db_exec(amx_db *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (err && errlen)
            snprintf(err, errlen, "index: %s", msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return AMX_E_DB;
    }
    return AMX_OK;
}

amx_status amx__db_begin(amx_db *db, char *err, size_t errlen)
{
    amx_status st = amx__db_exec(db, "BEGIN IMMEDIATE", err, errlen);
    if (st == AMX_OK)
        db->in_tx = true;
    db->linked_state = -1;
    return st;
}

amx_status amx__db_commit(amx_db *db, char *err, size_t errlen)
{
    amx_status st = amx__db_exec(db, "COMMIT", err, errlen);
    if (st == AMX_OK)
        db->in_tx = false;
    db->linked_state = -1;
    return st;
}

void amx__db_rollback(amx_db *db)
{
    if (db->in_tx)
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    db->in_tx = false;
    db->linked_state = -1;
}

/* Whether any row may be marked linked: whether a link pass has ever linked rows
 * (link_state, set by amx_link). Every UPDATE ... SET linked = 0 that marks what a change may
 * affect is a no-op until then, and is not run: an index built from scratch links only at the
 * end of its first scan. Read once per write transaction. */
static bool anything_linked(amx_db *db)
{
    if (db->linked_state >= 0 && db->in_tx)
        return db->linked_state != 0;
    sqlite3_stmt *s = NULL;
    int v = 1; /* when in doubt, mark */
    if (sqlite3_prepare_v2(db->db, "SELECT linked_once FROM link_state", -1, &s, NULL) ==
            SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    db->linked_state = db->in_tx ? v : -1;
    return v != 0;
}

void amx__db_forget_linked(amx_db *db)
{
    db->linked_state = -1;
}

char *amx__upper(const char *s)
{
    size_t n = strlen(s);
    char *u = malloc(n + 1);
    if (!u)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        u[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32) : s[i];
    return u;
}

int amx__ascii_casecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        x = x >= 'a' && x <= 'z' ? x - 32 : x;
        y = y >= 'a' && y <= 'z' ? y - 32 : y;
        if (x != y || !x)
            return x - y;
    }
}

/* The migrations applied to the database: amx_migrations lists them; a database from before
 * that table has every migration up to its user_version (they were numbered without gaps). */
static bool applied(amx_db *db, int current, int version)
{
    sqlite3_stmt *s = NULL;
    bool known = false, yes = false;
    if (sqlite3_prepare_v2(db->db, "SELECT EXISTS (SELECT 1 FROM amx_migrations WHERE version = ?1)",
                           -1, &s, NULL) == SQLITE_OK) {
        known = true;
        sqlite3_bind_int(s, 1, version);
        yes = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0);
    }
    sqlite3_finalize(s);
    return known ? yes : version <= current;
}

static int pending_count(amx_db *db, int current)
{
    int n = 0;
    for (int i = 0; i < amx__migration_count; i++)
        n += !applied(db, current, amx__migrations[i].version);
    return n;
}

/* No table yet: a database file just created. */
static bool is_empty(amx_db *db)
{
    sqlite3_stmt *s = NULL;
    bool empty = false;
    if (sqlite3_prepare_v2(db->db, "SELECT NOT EXISTS (SELECT 1 FROM sqlite_schema)", -1, &s,
                           NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        empty = sqlite3_column_int(s, 0) != 0;
    sqlite3_finalize(s);
    return empty;
}

static amx_status migrate(amx_db *db, char *err, size_t errlen)
{
    int latest = amx__migrations[amx__migration_count - 1].version;
    int current = amx_db_schema_version(db);
    if (current > latest) {
        snprintf(err, errlen,
                 "index: the database has schema %d, newer than this animidx (schema %d); "
                 "upgrade animidx or scan into a new database",
                 current, latest);
        return AMX_E_DB;
    }
    if (pending_count(db, current) == 0)
        return AMX_OK;
    if (db->readonly) {
        snprintf(err, errlen,
                 "index: the database has schema %d and this animidx needs %d; run a scan "
                 "(it upgrades the database) and retry",
                 current, latest);
        return AMX_E_DB;
    }
    /* A new, empty index is written without waiting for the disk (a lost power leaves no
     * index worth keeping; a killed process still rolls back): creating one costs a few
     * milliseconds, not the fsyncs of every migration. */
    if (current == 0 && is_empty(db))
        sqlite3_exec(db->db, "PRAGMA synchronous = OFF", NULL, NULL, NULL);
    amx_status st = amx__db_begin(db, err, errlen);
    if (st)
        return st;
    /* Re-read under the write lock: another process may have migrated meanwhile. */
    current = amx_db_schema_version(db);
    bool had_table = false;
    {
        sqlite3_stmt *t = NULL;
        if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM sqlite_schema WHERE name = 'amx_migrations'",
                               -1, &t, NULL) == SQLITE_OK)
            had_table = sqlite3_step(t) == SQLITE_ROW;
        sqlite3_finalize(t);
    }
    bool done[256] = { false };
    for (int i = 0; i < amx__migration_count && i < 256; i++)
        done[i] = had_table ? applied(db, current, amx__migrations[i].version)
                            : amx__migrations[i].version <= current;
    if ((st = amx__db_exec(db, "CREATE TABLE IF NOT EXISTS amx_migrations (version INTEGER "
                               "PRIMARY KEY, name TEXT NOT NULL) STRICT",
                           err, errlen))) {
        amx__db_rollback(db);
        return st;
    }
    int top = current;
    for (int i = 0; i < amx__migration_count; i++) {
        const amx__migration *m = &amx__migrations[i];
        if (!done[i]) {
            char *msg = NULL;
            if (sqlite3_exec(db->db, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
                snprintf(err, errlen, "index: %s failed: %s", m->name, msg ? msg : "?");
                sqlite3_free(msg);
                amx__db_rollback(db);
                return AMX_E_DB;
            }
        }
        char rec[256];
        snprintf(rec, sizeof rec, "INSERT OR IGNORE INTO amx_migrations(version, name) "
                                  "VALUES (%d, '%s')", m->version, m->name);
        if ((st = amx__db_exec(db, rec, err, errlen))) {
            amx__db_rollback(db);
            return st;
        }
        if (m->version > top)
            top = m->version;
    }
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", top);
    if ((st = amx__db_exec(db, pragma, err, errlen))) {
        amx__db_rollback(db);
        return st;
    }
    return amx__db_commit(db, err, errlen);
}

static int prepare(amx_db *db, sqlite3_stmt **stmt, const char *sql)
{
    return sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL);
}

/* The write statements. Those a scan needs to find what changed are prepared when the index is
 * opened; the others (what a change writes) on the first change (amx__db_writes): a rescan
 * that finds nothing changed, or a query, never parses them. */
/* the rows of ins_refs_batch: REF_BATCH times REF_COLUMNS parameters, numbered in order */
enum { REF_COLUMNS = 11, REF_BATCH = 16 };
#define REF_ROW "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define REF_ROWS_4 REF_ROW ", " REF_ROW ", " REF_ROW ", " REF_ROW
#define REF_ROWS_16 REF_ROWS_4 ", " REF_ROWS_4 ", " REF_ROWS_4 ", " REF_ROWS_4

/* the rows of ins_object and ins_objects_batch: their parameters in this order, the variant
 * twice (its key is its upper case) */
enum { OBJECT_COLUMNS = 8, OBJECT_BATCH = 16 };
#define OBJECT_INSERT_COLUMNS "id, file_id, type, name, name_key, variant, variant_key, line"
#define OBJECT_ROW "(?, ?, ?, ?, ?, ?, upper(?), ?)"
#define OBJECT_ROWS_4 OBJECT_ROW ", " OBJECT_ROW ", " OBJECT_ROW ", " OBJECT_ROW
#define OBJECT_ROWS_16 OBJECT_ROWS_4 ", " OBJECT_ROWS_4 ", " OBJECT_ROWS_4 ", " OBJECT_ROWS_4

/* the rows of ins_state and ins_states_batch: their parameters in this order, the model twice
 * (its key is its upper case) */
enum { STATE_COLUMNS = 9, STATE_BATCH = 16 };
#define STATE_INSERT_COLUMNS "id, file_id, object_id, module, kind, flags, model, model_key, line"
#define STATE_ROW "(?, ?, ?, ?, ?, ?, ?, upper(?), ?)"
#define STATE_ROWS_4 STATE_ROW ", " STATE_ROW ", " STATE_ROW ", " STATE_ROW
#define STATE_ROWS_16 STATE_ROWS_4 ", " STATE_ROWS_4 ", " STATE_ROWS_4 ", " STATE_ROWS_4

static const struct { size_t off; bool core; const char *sql; } write_stmts[] = {
#define S(field, sql) { offsetof(amx_db, field), false, sql }
#define CORE(field, sql) { offsetof(amx_db, field), true, sql }
        CORE(root_get, "SELECT id FROM roots WHERE path = ?1"),
        CORE(root_add, "INSERT INTO roots(path, role, lkey_prefix) VALUES (?1, ?2, ?3)"),
        /* one file: the (root_id, path) key of the table (a whole directory of a scan is read
         * through files_dir instead) */
        CORE(file_lookup, "SELECT id, size, mtime_ns, hash, decoder_version, format FROM files "
                       "WHERE root_id = ?1 AND path = ?2"),
        /* dir_path (?14): the loose file's directory, for the scanner's per-directory reads */
        /* lkey: the path the game looks the file up by (the root's prefix and the loose
         * path, or the member's name after "ARCHIVE#") */
        S(file_insert, "INSERT INTO files(root_id, parent_id, path, dir_key, stem_key, size, "
                       "mtime_ns, hash, format, version, decoder_version, status, indexed_at, "
                       "dir_path, lkey, name_crc) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                       "?11, ?12, ?13, CASE WHEN ?2 IS NULL THEN rtrim(?3, replace(?3, '/', '')) END, "
                       "CASE WHEN ?2 IS NULL THEN (SELECT lkey_prefix FROM roots WHERE id = ?1) || "
                       "upper(?3) ELSE upper(substr(?3, (SELECT length(path) FROM files a "
                       "WHERE a.id = ?2) + 2)) END, ?14)"),
        S(file_update, "UPDATE files SET parent_id = ?2, dir_key = ?4, stem_key = ?5, size = ?6, "
                       "mtime_ns = ?7, hash = ?8, format = ?9, version = ?10, decoder_version = ?11, "
                       "status = ?12, indexed_at = ?13, name_crc = ?14, "
                       "dir_path = CASE WHEN ?2 IS NULL THEN rtrim(?3, replace(?3, '/', '')) END, "
                       "lkey = CASE WHEN ?2 IS NULL THEN (SELECT lkey_prefix FROM roots r WHERE "
                       "r.id = files.root_id) || upper(?3) ELSE upper(substr(?3, (SELECT "
                       "length(path) FROM files a WHERE a.id = ?2) + 2)) END WHERE id = ?1"),
        /* The names references may know file ?1 (and its members) by: their stems, and the
         * sets of its clips (an animation override is satisfied by its set's clips). The
         * marking statements are each one seek: an OR, a UNION or an IN (SELECT ...) would
         * build a temporary table per file, 25 us each (a burst of new files in the daemon). */
        S(names_of_file, "SELECT stem_key FROM files WHERE id = ?1 UNION ALL "
                         "SELECT stem_key FROM files WHERE parent_id = ?1 UNION ALL "
                         "SELECT skeleton_key FROM clips WHERE file_id = ?1 AND "
                         "skeleton_key IS NOT NULL"),
        S(mark_refs_keyed, "UPDATE refs SET linked = 0 WHERE linked = 1 AND key = ?1"),
        /* Clips numbered like file ?1 once underscores are left out ([?1 || '0', ?1 || ':')):
         * the engine's numbering reaches them, or names the file as a misspelling, through it */
        S(mark_clips_squashed, "UPDATE clips SET linked = 0 WHERE linked = 1 AND "
                               "replace(name_key, '_', '') >= ?1 || '0' AND "
                               "replace(name_key, '_', '') < ?1 || ':'"),
        /* Clips no model loads whose bones may fit skeleton ?1 (their first track's bone and
         * index is one of its bones): their message names the skeletons they fit */
        S(mark_clips_fitting, "UPDATE clips SET linked = 0 WHERE linked = 1 AND fit_key IN "
                              "(SELECT name_key || ':' || idx FROM bones WHERE skeleton_id = ?1)"),
        /* ... and those of every skeleton of file ?1 (and its members), which goes */
        S(mark_clips_fitting_file, "UPDATE clips SET linked = 0 WHERE linked = 1 AND fit_key IN "
                                   "(SELECT b.name_key || ':' || b.idx FROM bones b JOIN "
                                   "skeletons s ON s.id = b.skeleton_id WHERE s.file_id = ?1 OR "
                                   "s.file_id IN (SELECT id FROM files WHERE parent_id = ?1))"),
        S(mark_asset_refs_of_file, "UPDATE refs SET linked = 0 WHERE file_id = ?1 OR file_id IN "
                                   "(SELECT id FROM files WHERE parent_id = ?1)"),
        CORE(dir_rows, "SELECT path, id, size, mtime_ns, hash, decoder_version, format FROM files "
                    "INDEXED BY files_dir WHERE root_id = ?1 AND dir_path = ?2 AND "
                    "parent_id IS NULL ORDER BY path"),
        CORE(file_touch, "UPDATE files SET size = ?2, mtime_ns = ?3 WHERE id = ?1"),
        S(file_skeleton_names, "SELECT name_key FROM skeletons WHERE file_id = ?1 UNION "
                               "SELECT s.name_key FROM skeletons s JOIN files m ON m.id = s.file_id "
                               "WHERE m.parent_id = ?1"),
        /* Clips that may bind to a skeleton of this name: listed under it, stating it, by the
         * EaW naming convention (every clip named KEY_..., mark_clips_prefix) or through a
         * character set (sets_of_skeleton, then mark_clips_named). */
        S(mark_clips_keyed, "UPDATE clips SET linked = 0 WHERE linked = 1 AND skeleton_key = ?1"),
        S(mark_clips_hinted, "UPDATE clips SET linked = 0 WHERE linked = 1 AND skeleton_hint = ?1"),
        S(sets_of_skeleton, "SELECT clip_key FROM anim_sets WHERE skeleton_key = ?1"),
        S(mark_clips_named, "UPDATE clips SET linked = 0 WHERE linked = 1 AND name_key = ?1"),
        /* Clips named KEY_... (a model's animations by the naming convention). */
        S(mark_clips_prefix, "UPDATE clips SET linked = 0 WHERE linked = 1 AND "
                             "name_key > ?1 || '_' AND name_key < ?1 || '`'"),
        /* The animation overrides of the XML objects whose file also names a model KEY: the
         * clips they name may bind to it (objects inherit across files rarely; a full scan
         * binds those). */
        /* (CROSS JOIN: m first, by its key, whatever the statistics say; no DISTINCT, which
         * builds a temporary table per call: a key twice marks its clips twice) */
        S(overrides_for_model, "SELECT o.key FROM refs m CROSS JOIN refs o ON "
                               "o.file_id = m.file_id AND o.kind = 'anim-override' AND o.key <> '' "
                               "WHERE m.key = ?1 AND m.kind IN ('model', 'model-or-particle')"),
        /* Skeletons of this name: their DUPLICATE_NAME findings are looked at again. */
        S(mark_skeletons_named, "UPDATE skeletons SET linked = 0 WHERE name_key = ?1 AND linked = 1"),
        /* Clips bound to the skeletons of file ?1 (and its members), by any rule. */
        S(mark_clips_bound_to_file, "UPDATE clips SET linked = 0 WHERE linked = 1 AND id IN ("
                                    "SELECT b.clip_id FROM clip_bindings b JOIN skeletons s ON "
                                    "s.id = b.skeleton_id WHERE s.file_id = ?1 OR s.file_id IN "
                                    "(SELECT id FROM files WHERE parent_id = ?1))"),
        /* The animation overrides of file ?1 (and its members). */
        S(overrides_of_file, "SELECT DISTINCT key FROM refs WHERE kind = 'anim-override' AND "
                             "key <> '' AND (file_id = ?1 OR file_id IN "
                             "(SELECT id FROM files WHERE parent_id = ?1))"),
        /* a game object, or OBJECT_BATCH at once, as the draw states below */
        S(ins_object, "INSERT INTO game_objects(" OBJECT_INSERT_COLUMNS ") VALUES " OBJECT_ROW),
        S(ins_objects_batch, "INSERT INTO game_objects(" OBJECT_INSERT_COLUMNS ") VALUES "
                             OBJECT_ROWS_16),
        S(next_object_id, "SELECT max(id) FROM game_objects"),
        S(del_objects, "DELETE FROM game_objects WHERE file_id = ?1"),
        S(ins_ref, "INSERT INTO refs(file_id, object_id, kind, tag, name, key, line, offset, "
                   "state_id, model, model_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                   "?11)"),
        /* REF_BATCH references at once: a statement opens and closes a cursor on the table and
         * on each of its nine indexes, which cost as much as writing the row (a SAGE INI file
         * names thousands) */
        S(ins_refs_batch, "INSERT INTO refs(file_id, object_id, kind, tag, name, key, line, "
                          "offset, state_id, model, model_key) VALUES " REF_ROWS_16),
        /* SAGE INI draw states, and the render objects of W3D files (docs/formats/sage-ini.md) */
        /* a state, or STATE_BATCH states at once (a Zero Hour mod's INI files write 13,516:
         * a statement each cost more than the rows); the id NULL, or the one SQLite would
         * give the row (the largest + 1: next_state_id) */
        S(ins_state, "INSERT INTO object_states(" STATE_INSERT_COLUMNS ") VALUES " STATE_ROW),
        S(ins_states_batch, "INSERT INTO object_states(" STATE_INSERT_COLUMNS ") VALUES "
                            STATE_ROWS_16),
        S(next_state_id, "SELECT max(id) FROM object_states"),
        S(del_states, "DELETE FROM object_states WHERE file_id = ?1"),
        S(ins_w3d_object, "INSERT INTO w3d_objects(file_id, kind, name, name_key, hierarchy_key, "
                          "sub_objects) VALUES (?1, ?2, ?3, upper(?3), upper(?4), upper(?5))"),
        S(del_w3d_objects, "DELETE FROM w3d_objects WHERE file_id = ?1"),
        /* INI animations played on a model of this file stem (its bones, whose key is that
         * stem, are marked by mark_refs_keyed: refs_model_key holds animations only, 0016, and
         * this WHERE says its WHERE); INI references checked with a hierarchy of this name */
        S(mark_refs_model_keyed, "UPDATE refs SET linked = 0 WHERE linked = 1 AND model_key = ?1 "
                                 "AND kind = 'w3d-animation'"),
        S(mark_refs_via_keyed, "UPDATE refs SET linked = 0 WHERE linked = 1 AND via_key = ?1"),
        /* the game objects of file ?1: an ObjectReskin or ChildObject elsewhere may copy them */
        S(objects_of_file, "SELECT name_key FROM game_objects WHERE file_id = ?1"),

        S(del_refs, "DELETE FROM refs WHERE file_id = ?1"),
        /* an INI file's references until the link pass inserts them (ini_refs_pending.c) */
        S(ins_pending_refs, "INSERT INTO ini_refs_pending(file_id, refs) VALUES (?1, ?2)"),
        S(del_pending_refs, "DELETE FROM ini_refs_pending WHERE file_id = ?1"),
        /* Clips named by the animation sets of file ?1 (and its members): their binding follows
         * the sets. */
        S(mark_clips_of_sets, "UPDATE clips SET linked = 0 WHERE linked = 1 AND name_key IN ("
                              "SELECT clip_key FROM anim_sets WHERE file_id = ?1 OR file_id IN "
                              "(SELECT id FROM files WHERE parent_id = ?1))"),
        S(ins_anim_set, "INSERT INTO anim_sets(file_id, name, skeleton_key, clip_key) "
                        "VALUES (?1, ?2, ?3, ?4)"),
        S(del_anim_sets, "DELETE FROM anim_sets WHERE file_id = ?1"),
        S(ins_skeleton_ref, "INSERT INTO skeleton_refs(file_id, what, skeleton_key, bones_used, "
                            "offset) VALUES (?1, ?2, ?3, ?4, ?5)"),
        S(del_skeleton_refs, "DELETE FROM skeleton_refs WHERE file_id = ?1"),
        S(mark_refs_for_skeleton, "UPDATE skeleton_refs SET linked = 0 WHERE linked = 1 AND "
                                  "skeleton_key = ?1"),
        S(mark_refs_of_file, "UPDATE skeleton_refs SET linked = 0 WHERE file_id = ?1"),
        S(del_skeletons, "DELETE FROM skeletons WHERE file_id = ?1"),
        S(del_clips, "DELETE FROM clips WHERE file_id = ?1"),
        S(del_models, "DELETE FROM models WHERE file_id = ?1"),
        S(del_meshes, "DELETE FROM meshes WHERE file_id = ?1"),
        S(del_findings, "DELETE FROM findings WHERE file_id = ?1"),
        S(del_members, "DELETE FROM files WHERE parent_id = ?1"),
        S(del_file, "DELETE FROM files WHERE id = ?1"),
        /* the XML list check runs again (bind_alamo.c, XML_NOT_LISTED): an XML file was written,
         * or file ?1 that goes is one or an archive holding one */
        S(mark_xml_lists, "UPDATE link_state SET xml_lists = 1 WHERE xml_lists = 0"),
        S(mark_xml_lists_of, "UPDATE link_state SET xml_lists = 1 WHERE xml_lists = 0 AND "
                             "EXISTS (SELECT 1 FROM files WHERE (id = ?1 OR parent_id = ?1) AND "
                             "format = 'alamo-xml')"),
        S(ins_skeleton, "INSERT INTO skeletons(file_id, name, name_key, bone_count, root_id, "
                        "dir_key) SELECT ?1, ?2, ?3, ?4, root_id, dir_key FROM files "
                        "WHERE id = ?1"),
        S(ins_bone, "INSERT INTO bones(skeleton_id, idx, name, name_key, parent, bone_id) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
        S(ins_clip, "INSERT INTO clips(file_id, name, name_key, skeleton_hint, skeleton_key, "
                    "frames, fps, duration, track_count, details, root_bone) "
                    "VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
        S(ins_tracks, "INSERT INTO clip_tracks(clip_id, data) VALUES (?1, ?2)"),
        S(ins_model, "INSERT INTO models(file_id, kind, name, mesh_count, submesh_count, "
                     "vertex_count, triangle_count, light_count, proxy_count, dazzle_count, "
                     "emitter_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"),
        S(ins_mesh, "INSERT INTO meshes(file_id, idx, name, materials, vertices, triangles, "
                    "shaders, hidden, collision) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
        S(ins_finding, "INSERT INTO findings(file_id, origin, code, severity, message, offset, "
                       "context) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
#undef S
#undef CORE
};

static int prepare_writes(amx_db *db, bool core)
{
    for (size_t i = 0; i < sizeof write_stmts / sizeof write_stmts[0]; i++) {
        if (write_stmts[i].core != core)
            continue;
        sqlite3_stmt **slot = (sqlite3_stmt **)(void *)((char *)db + write_stmts[i].off);
        int rc = prepare(db, slot, write_stmts[i].sql);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

int amx__db_writes(amx_db *db)
{
    if (db->writes_ready)
        return SQLITE_OK;
    int rc = prepare_writes(db, false);
    db->writes_ready = rc == SQLITE_OK;
    return rc;
}

/* ---- whose database: the application_id, and read-only indexes (issue 16) ---- */

#define AMX_STR_(x) #x
#define AMX_STR(x) AMX_STR_(x)

/* Tells whether the database is an animidx index before anything is written to it: its
 * application_id is AMX_DB_APPLICATION_ID; or it is 0 and the database is empty (a new index)
 * or holds the tables of an index made by an earlier animidx (user_version 1 or more, with
 * roots, files and findings), which then gets the id. Anything else is another program's
 * database: refused, untouched (the journal mode is changed only after this). */
static amx_status check_identity(amx_db *db, const char *path, bool *set_id, char *err,
                                 size_t errlen)
{
    *set_id = false;
    sqlite3_stmt *q = NULL;
    int64_t app = 0, version = 0, objects = 0, ours = 0;
    int rc = sqlite3_prepare_v2(db->db,
                                "SELECT (SELECT application_id FROM pragma_application_id), "
                                "(SELECT user_version FROM pragma_user_version), "
                                "(SELECT count(*) FROM sqlite_schema), "
                                "(SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                                "name IN ('roots', 'files', 'findings'))",
                                -1, &q, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        app = sqlite3_column_int64(q, 0);
        version = sqlite3_column_int64(q, 1);
        objects = sqlite3_column_int64(q, 2);
        ours = sqlite3_column_int64(q, 3);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_OK) {
        int ext = sqlite3_extended_errcode(db->db);
        if (ext == SQLITE_NOTADB)
            snprintf(err, errlen, "%s: not an animidx index (not an SQLite database at all)", path);
        else
            snprintf(err, errlen, "%s: cannot read the index: %s", path, sqlite3_errmsg(db->db));
        return AMX_E_DB;
    }
    if (app == AMX_DB_APPLICATION_ID)
        return AMX_OK;
    bool fresh = app == 0 && objects == 0 && version == 0;
    bool earlier = app == 0 && version >= 1 && ours == 3;
    if (!fresh && !earlier) {
        char what[96];
        if (app)
            snprintf(what, sizeof what, "application_id 0x%08llX", (unsigned long long)(uint32_t)app);
        else
            snprintf(what, sizeof what, "%lld schema objects, user_version %lld",
                     (long long)objects, (long long)version);
        snprintf(err, errlen, "%s: not an animidx index: an SQLite database of another program "
                 "(%s); it was not changed. Give --db (or [index] database) a new file or an "
                 "animidx index", path, what);
        return AMX_E_DB;
    }
    /* the id is set once the migrations went through (read-only: by the next scan) */
    *set_id = !db->readonly;
    return AMX_OK;
}

/* "file:PATH?immutable=1" (the path percent-encoded as a URI needs). */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + 32);
    if (!u)
        return NULL;
    size_t o = (size_t)sprintf(u, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x21 || *p >= 0x7F)
            o += (size_t)sprintf(u + o, "%%%02X", *p);
        else
            u[o++] = (char)*p;
    }
    strcpy(u + o, "?immutable=1");
    return u;
}

/* A read-only open of an index in WAL mode whose directory the user cannot write (no -shm can
 * be made): when there is no WAL content to miss, the file is opened as immutable instead. */
static bool reopen_immutable(amx_db *db, const char *path)
{
    char wal[4200];
    amx_os_stat st;
    if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int)sizeof wal ||
        (amx_os_path_stat(wal, &st) == 0 && st.size > 0) || !amx_os_can_read(path))
        return false;
    char *uri = immutable_uri(path);
    sqlite3 *h = NULL;
    bool ok = uri && sqlite3_open_v2(uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                                                 SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK;
    free(uri);
    if (!ok) {
        sqlite3_close(h);
        return false;
    }
    sqlite3_close(db->db);
    db->db = h;
    sqlite3_busy_timeout(db->db, 10000);
    return true;
}

/* Process-wide SQLite settings, once, before SQLite initialises itself (sqlite3_config is
 * refused afterwards, harmlessly, if the host program initialised SQLite first):
 * - no memory statistics: SQLite then takes a global mutex on every allocation and free, 5%
 *   of the writer's time in an index build (perf on bench/real_shape_bench.sh's tree); the
 *   statistics are never read here;
 * - statement journals kept in memory up to STMT_JOURNAL_SPILL bytes, not SQLite's 64 KiB:
 *   a statement that writes several rows and may fail (the references inserted 16 at a time,
 *   into nine indexes) keeps the pages it changes, to undo itself, and past the threshold
 *   writes them to a temporary file, two pwrite calls a page. Generals_Rebalanced's first
 *   scan made 48,000 of them (of 70,600 in all) and 0.1 s of system time; a larger statement
 *   (a file of a million references deleted) still spills, so memory stays bounded. */
enum { STMT_JOURNAL_SPILL = 4 << 20 };

static void configure_sqlite(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, (int)STMT_JOURNAL_SPILL);
}

/* amx_ref_file(kind, name, format): the one file a reference stands for (amx__ref_file), so
 * that its spellings are grouped: refs --missing and a file's reference findings. */
static void ref_file_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *kind = (const char *)sqlite3_value_text(argv[0]);
    const char *name = (const char *)sqlite3_value_text(argv[1]);
    const char *format = (const char *)sqlite3_value_text(argv[2]);
    amx_ref_kind k = AMX_REF_MODEL;
    if (kind)
        amx_ref_kind_parse(kind, &k);
    char out[AMX_LKEY_MAX];
    /* a SAGE INI reference names no one file by its kind alone (amx__ref_file), a tree's
     * TextureName neither (ART/TERRAIN/ or ART/TEXTURES/, not a W3D texture's paths) */
    size_t n = format && strcmp(format, "sage-ini") == 0
                   ? (out[0] = '\0', 0)
                   : amx__ref_file(k, name ? name : "", format && strcmp(format, "w3d") == 0,
                                   out, sizeof out);
    sqlite3_result_text(ctx, out, (int)n, SQLITE_TRANSIENT);
}

int amx__db_register(sqlite3 *h)
{
    int rc = amx__tracks_register(h);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(h, "amx_ref_file", 3,
                                        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                        NULL, ref_file_fn, NULL, NULL, NULL);
    return rc;
}

amx_status amx_db_open(const char *path, int flags, amx_db **out, char *err, size_t errlen)
{
    static pthread_once_t configured = PTHREAD_ONCE_INIT;
    pthread_once(&configured, configure_sqlite);
    *out = NULL;
    bool ro = (flags & AMX_DB_READONLY) != 0;
    if (ro && !amx_os_exists(path)) {
        snprintf(err, errlen, "%s: no index there yet; run 'animidx scan DIR --db %s' first", path,
                 path);
        return AMX_E_DB;
    }
    if (!ro) {
        int rc = amx_mkdir_parents(path, 0777);
        if (rc) {
            snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-rc));
            return AMX_E_IO;
        }
    }
    amx_db *db = calloc(1, sizeof *db);
    if (!db)
        return AMX_E_NOMEM;
    db->readonly = ro;
    db->linked_state = -1;
    int oflags = ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &db->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open the index: %s", path,
                 db->db ? sqlite3_errmsg(db->db) : "out of memory");
        amx_db_close(db);
        return AMX_E_DB;
    }
    sqlite3_busy_timeout(db->db, 10000);
    amx_status st = amx__db_exec(db, "PRAGMA foreign_keys = ON", err, errlen);
    /* Whose database it is, before anything changes it (a file that is not a database, or
     * another program's, is refused here); the journal mode only after the schema is ours. */
    bool set_id = false;
    if (!st && (st = check_identity(db, path, &set_id, err, errlen)) && ro &&
        (sqlite3_errcode(db->db) == SQLITE_CANTOPEN || sqlite3_errcode(db->db) == SQLITE_READONLY) &&
        reopen_immutable(db, path))
        st = check_identity(db, path, &set_id, err, errlen);
    if (!st && amx__db_register(db->db) != SQLITE_OK)
        st = amx__db_error(db, "index: registering functions", err, errlen);
    if (!st)
        st = migrate(db, err, errlen);
    if (!st && set_id)
        st = amx__db_exec(db, "PRAGMA application_id = " AMX_STR(AMX_DB_APPLICATION_ID), err,
                          errlen);
    /* The settings, measured on bench/real_shape_bench.sh's tree (docs in bench/README.md):
     * - WAL, so that queries and the daemon's readers never wait for a scan; synchronous =
     *   NORMAL: a commit is durable at the next checkpoint, and a crash still leaves a
     *   consistent index (the last batches are scanned again);
     * - the default page size (4096); a 16 MiB page cache for the writer (SQLite's default
     *   is 2 MiB): on a 3,400-file Alamo build 16 and 32 MiB changed nothing measurable, but
     *   a SAGE mod's INI references enter eight indexes at random places, and with 2 MiB the
     *   writer read the same pages back 7,500 times (Generals_Rebalanced's first scan,
     *   --jobs 1: CPU 0.575 -> 0.535 s, median of 8; peak RSS +7 MB). The cache grows only
     *   as pages are used, and readers keep SQLite's default;
     * - no checkpoint when the connection closes: amx_db_close folds the log in itself, and
     *   only after changes, so a no-change rescan costs no fsync;
     * - the log's checkpoints on a thread of their own (checkpoint.c): the writer no longer
     *   waits for their copies and fsyncs (a real-shape build at --jobs 2: 0.193 -> 0.182 s). */
    if (!st && !ro)
        st = amx__db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
                          "PRAGMA cache_size = -16384", err, errlen);
    if (!st && !ro)
        sqlite3_db_config(db->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    if (!st && !ro)
        db->checkpointer = amx__checkpointer_start(db->db, sqlite3_db_filename(db->db, "main"));
    if (!st && !ro && prepare_writes(db, true) != SQLITE_OK)
        st = amx__db_error(db, "index: preparing a statement", err, errlen);
    if (st) {
        amx_db_close(db);
        return st;
    }
    *out = db;
    return AMX_OK;
}

void amx_db_close(amx_db *db)
{
    if (!db)
        return;
    amx__checkpointer_stop(db->checkpointer, db->db);
    sqlite3_stmt *s;
    while ((s = sqlite3_next_stmt(db->db, NULL)) != NULL)
        sqlite3_finalize(s);
    /* Keep the planner's statistics fresh, and fold the write-ahead log into the database,
     * but only after changes: a no-change rescan should cost no more than its stat walk (its
     * scan record stays in the log until the next change or checkpoint). */
    if (db->db && !db->readonly && db->dirty) {
        /* analysis_limit: statistics from a sample of each index, as SQLite advises. The
         * statistics of a table of fewer than 1000 rows are dropped: planned on them, a scan
         * costs as little as a seek, and an index that grows (a mod's first files, then the
         * rest; a daemon's burst) would look rows up by scanning whole tables (a burst of
         * 2000 models: 0.40 s where 0.27 s without them). Without statistics SQLite assumes
         * large tables and seeks. */
        sqlite3_exec(db->db, "PRAGMA analysis_limit = 400; PRAGMA optimize", NULL, NULL, NULL);
        sqlite3_exec(db->db, "DELETE FROM sqlite_stat1 WHERE CAST(stat AS INTEGER) < 1000",
                     NULL, NULL, NULL); /* (no such table before a first ANALYZE: nothing to do) */
        /* TRUNCATE waits (the busy timeout, 10 s) for readers to leave the log: while one
         * reads (a query, the daemon's reader), it is a PASSIVE checkpoint instead, which
         * copies what no reader needs and never waits; the next close truncates. */
        sqlite3_busy_timeout(db->db, 0);
        sqlite3_wal_checkpoint_v2(db->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    }
    sqlite3_close(db->db);
    amx__byte_buf_free(&db->packed);
    amx__byte_buf_free(&db->pending);
    free(db);
}

int amx_db_schema_version(amx_db *db)
{
    sqlite3_stmt *s = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db->db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return v;
}

struct sqlite3 *amx_db_handle(amx_db *db) { return db->db; }

int amx__db_run(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

amx_status amx__db_root_id(amx_db *db, const char *abs_root, const char *role, int64_t *id,
                           char *err, size_t errlen)
{
    sqlite3_bind_text(db->root_get, 1, abs_root, -1, SQLITE_STATIC);
    int rc = sqlite3_step(db->root_get);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(db->root_get, 0);
        sqlite3_reset(db->root_get);
        return AMX_OK;
    }
    sqlite3_reset(db->root_get);
    if (rc != SQLITE_DONE)
        return amx__db_error(db, "index: looking up the root", err, errlen);
    /* A root inside a game's or mod's Data directory (Mods/X/Data, .../Data/Art/Models): its
     * files are looked up from there (files.lkey "DATA/ART/MODELS/X.ALO") */
    char prefix[AMX_PATH_MAX] = "";
    amx__root_lkey_prefix(abs_root, prefix, sizeof prefix);
    sqlite3_bind_text(db->root_add, 1, abs_root, -1, SQLITE_STATIC);
    sqlite3_bind_text(db->root_add, 2, role, -1, SQLITE_STATIC);
    sqlite3_bind_text(db->root_add, 3, prefix, -1, SQLITE_TRANSIENT);
    if (amx__db_run(db->root_add) != SQLITE_OK)
        return amx__db_error(db, "index: adding the root", err, errlen);
    *id = sqlite3_last_insert_rowid(db->db);
    return AMX_OK;
}

amx_status amx__db_lookup(amx_db *db, int64_t root_id, const char *path, amx__file_row *row,
                          char *err, size_t errlen)
{
    *row = (amx__file_row){ 0 };
    sqlite3_stmt *s = db->file_lookup;
    sqlite3_bind_int64(s, 1, root_id);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        row->id = sqlite3_column_int64(s, 0);
        row->size = sqlite3_column_int64(s, 1);
        row->mtime_ns = sqlite3_column_int64(s, 2);
        row->has_hash = sqlite3_column_type(s, 3) != SQLITE_NULL;
        row->hash = sqlite3_column_int64(s, 3);
        row->decoder_version = sqlite3_column_int64(s, 4);
        const unsigned char *f = sqlite3_column_text(s, 5);
        snprintf(row->format, sizeof row->format, "%s", f ? (const char *)f : "");
        rc = SQLITE_DONE;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? AMX_OK : amx__db_error(db, "index: looking up a file", err, errlen);
}

/* Runs `mark` (?1 = a key) for each key the select `keys` returns (its parameters bound by
 * the caller). */
static int mark_each(amx_db *db, sqlite3_stmt *keys, sqlite3_stmt *mark)
{
    int rc;
    while ((rc = sqlite3_step(keys)) == SQLITE_ROW) {
        sqlite3_bind_text(mark, 1, (const char *)sqlite3_column_text(keys, 0), -1,
                          SQLITE_TRANSIENT);
        if ((rc = amx__db_run(mark)) != SQLITE_OK)
            break;
    }
    sqlite3_reset(keys);
    sqlite3_clear_bindings(keys);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Marks the references that may name file `id` (or its members) as unlinked: by each name of
 * names_of_file, cut at the last '.' (stem_key) and at the first (how a model name is
 * retried). */
static int mark_refs_of_names(amx_db *db, int64_t id)
{
    sqlite3_stmt *names = db->names_of_file, *mark = db->mark_refs_keyed;
    sqlite3_bind_int64(names, 1, id);
    int rc;
    while ((rc = sqlite3_step(names)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(names, 0);
        if (!key)
            continue;
        size_t whole = strlen(key), cut = strcspn(key, ".");
        sqlite3_bind_text(mark, 1, key, (int)whole, SQLITE_TRANSIENT);
        if ((rc = amx__db_run(mark)) != SQLITE_OK)
            break;
        sqlite3_bind_text(db->mark_refs_model_keyed, 1, key, (int)whole, SQLITE_TRANSIENT);
        if ((rc = amx__db_run(db->mark_refs_model_keyed)) != SQLITE_OK)
            break;
        if (cut < whole) {
            sqlite3_bind_text(mark, 1, key, (int)cut, SQLITE_TRANSIENT);
            if ((rc = amx__db_run(mark)) != SQLITE_OK)
                break;
        }
        /* a numbered name (an animation of the engine's numbering, or a misspelling of one):
         * the clips of its model and type are reached, or not, through it */
        if (whole && key[whole - 1] >= '0' && key[whole - 1] <= '9') {
            char squashed[1024];
            size_t k = 0, end = whole;
            while (end && key[end - 1] >= '0' && key[end - 1] <= '9')
                end--;
            for (size_t i = 0; i < end && k + 1 < sizeof squashed; i++)
                if (key[i] != '_')
                    squashed[k++] = key[i];
            sqlite3_bind_text(db->mark_clips_squashed, 1, squashed, (int)k, SQLITE_TRANSIENT);
            if ((rc = amx__db_run(db->mark_clips_squashed)) != SQLITE_OK)
                break;
        }
    }
    sqlite3_reset(names);
    sqlite3_clear_bindings(names);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Marks what might bind to a skeleton of this (upper-cased) name as unlinked: clips (by name,
 * by character set, by an XML override of an object using a model of this name), models built
 * on it, and the skeletons of the same name (DUPLICATE_NAME). */
static int mark_for_skeleton(amx_db *db, const char *key)
{
    if (!anything_linked(db))
        return SQLITE_OK;
    sqlite3_stmt *by_key[] = { db->mark_clips_keyed, db->mark_clips_hinted, db->mark_clips_prefix,
                               db->mark_refs_for_skeleton, db->mark_skeletons_named,
                               db->mark_refs_via_keyed };
    int rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_key / sizeof by_key[0]; i++) {
        sqlite3_bind_text(by_key[i], 1, key, -1, SQLITE_TRANSIENT);
        rc = amx__db_run(by_key[i]);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(db->sets_of_skeleton, 1, key, -1, SQLITE_TRANSIENT);
        rc = mark_each(db, db->sets_of_skeleton, db->mark_clips_named);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(db->overrides_for_model, 1, key, -1, SQLITE_TRANSIENT);
        rc = mark_each(db, db->overrides_for_model, db->mark_clips_prefix); /* clips KEY_... */
    }
    return rc;
}

int amx__db_unlink_dependents(amx_db *db, int64_t id)
{
    int w = amx__db_writes(db);
    if (w != SQLITE_OK)
        return w;
    if (!anything_linked(db))
        return SQLITE_OK;
    sqlite3_stmt *s = db->file_skeleton_names;
    sqlite3_bind_int64(s, 1, id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        rc = mark_for_skeleton(db, (const char *)sqlite3_column_text(s, 0));
        if (rc != SQLITE_OK)
            break;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *by_file[] = { db->mark_clips_of_sets, db->mark_clips_bound_to_file,
                                db->mark_clips_fitting_file };
    rc = SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof by_file / sizeof by_file[0]; i++) {
        sqlite3_bind_int64(by_file[i], 1, id);
        rc = amx__db_run(by_file[i]);
    }
    if (rc == SQLITE_OK)
        rc = mark_refs_of_names(db, id);
    if (rc == SQLITE_OK) { /* an XML file: the clips its overrides name */
        sqlite3_bind_int64(db->overrides_of_file, 1, id);
        rc = mark_each(db, db->overrides_of_file, db->mark_clips_prefix);
    }
    if (rc == SQLITE_OK) { /* an INI file: the reskins and child objects of its objects */
        sqlite3_bind_int64(db->objects_of_file, 1, id);
        rc = mark_each(db, db->objects_of_file, db->mark_refs_keyed);
    }
    return rc;
}

static int clear_file(amx_db *db, int64_t id)
{
    int rc = amx__db_unlink_dependents(db, id);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(db->mark_xml_lists_of, 1, id);
        rc = amx__db_run(db->mark_xml_lists_of);
    }
    sqlite3_stmt *dels[] = { db->del_members, db->del_skeletons, db->del_clips, db->del_models,
                             db->del_meshes, db->del_findings, db->del_anim_sets,
                             db->del_skeleton_refs, db->del_refs, db->del_pending_refs,
                             db->del_states,
                             db->del_objects, db->del_w3d_objects };
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof dels / sizeof dels[0]; i++) {
        sqlite3_bind_int64(dels[i], 1, id);
        rc = amx__db_run(dels[i]);
    }
    return rc;
}

amx_status amx__db_remove(amx_db *db, int64_t id, char *err, size_t errlen)
{
    db->dirty = true;
    int rc = amx__db_writes(db);
    if (rc == SQLITE_OK)
        rc = clear_file(db, id);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(db->del_file, 1, id);
        rc = amx__db_run(db->del_file);
    }
    return rc == SQLITE_OK ? AMX_OK : amx__db_error(db, "index: removing a file", err, errlen);
}

amx_status amx__db_touch(amx_db *db, int64_t id, int64_t size, int64_t mtime_ns, char *err,
                         size_t errlen)
{
    db->dirty = true;
    sqlite3_bind_int64(db->file_touch, 1, id);
    sqlite3_bind_int64(db->file_touch, 2, size);
    sqlite3_bind_int64(db->file_touch, 3, mtime_ns);
    return amx__db_run(db->file_touch) == SQLITE_OK ? AMX_OK
                                            : amx__db_error(db, "index: updating a file", err, errlen);
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

void amx__db_path_keys(const char *path, size_t member_at, char **dir_key, char **stem_key)
{
    /* a member's logical path is its name in the archive; a loose file's '#' is a character */
    const char *logical = member_at ? path + member_at + 1 : path;
    const char *slash = strrchr(logical, '/');
    size_t dlen = slash ? (size_t)(slash - logical) : 0;
    char *dir = malloc(dlen + 1);
    if (dir) {
        memcpy(dir, logical, dlen);
        dir[dlen] = '\0';
        for (size_t i = 0; i < dlen; i++)
            dir[i] = (char)toupper((unsigned char)dir[i]);
    }
    char stem[1024];
    amx_path_stem(logical, stem, sizeof stem);
    *dir_key = dir;
    *stem_key = amx__upper(stem);
}

static int put_finding(amx_db *db, int64_t file_id, const char *origin, const char *code,
                       const char *severity, const char *message, int64_t offset, const char *context)
{
    sqlite3_stmt *s = db->ins_finding;
    sqlite3_bind_int64(s, 1, file_id);
    sqlite3_bind_text(s, 2, origin, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, code, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, severity, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, message, -1, SQLITE_TRANSIENT);
    if (offset >= 0)
        sqlite3_bind_int64(s, 6, offset);
    else
        sqlite3_bind_null(s, 6);
    sqlite3_bind_text(s, 7, context ? context : "", -1, SQLITE_TRANSIENT);
    return amx__db_run(s);
}

/* The names of sub-objects, upper-cased by the statement, one per line (at most 64 KiB). */
static char *sub_object_names(const amx_w3d_lod *const *sets, const uint32_t *counts, size_t n)
{
    char *out = malloc(65536);
    if (!out)
        return NULL;
    size_t at = 0;
    out[0] = '\0';
    for (size_t k = 0; k < n; k++)
        for (uint32_t i = 0; sets[k] && i < counts[k]; i++)
            for (uint32_t o = 0; o < sets[k][i].object_count; o++) {
                const char *nm = sets[k][i].objects[o].name;
                size_t l = strlen(nm);
                if (at + l + 2 >= 65536)
                    return out;
                memcpy(out + at, nm, l);
                at += l;
                out[at++] = '\n';
                out[at] = '\0';
            }
    return out;
}

static int put_w3d_object(amx_db *db, int64_t file_id, const char *kind, const char *name,
                          const char *hierarchy, const char *subs)
{
    sqlite3_stmt *s = db->ins_w3d_object;
    sqlite3_bind_int64(s, 1, file_id);
    sqlite3_bind_text(s, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, hierarchy ? hierarchy : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 5, subs ? subs : "", -1, SQLITE_TRANSIENT);
    return amx__db_run(s);
}

/* The render objects of a W3D file, by the names INI models find them by. */
static int put_w3d_objects(amx_db *db, int64_t file_id, const amx_w3d_info *w)
{
    int rc = SQLITE_OK;
    for (uint32_t i = 0; rc == SQLITE_OK && i < w->hlod_count; i++) {
        const amx_w3d_hlod *h = &w->hlods[i];
        const amx_w3d_lod *sets[3] = { h->lods, h->aggregates, h->proxies };
        uint32_t counts[3] = { h->lod_count, h->aggregates ? 1 : 0, h->proxies ? 1 : 0 };
        char *subs = sub_object_names(sets, counts, 3);
        if (!subs)
            return SQLITE_NOMEM;
        rc = put_w3d_object(db, file_id, "hlod", h->name, h->hierarchy, subs);
        free(subs);
    }
    for (uint32_t i = 0; rc == SQLITE_OK && i < w->mesh_count; i++) {
        const amx_w3d_mesh *m = &w->meshes[i];
        if (!m->name[0])
            continue;
        char name[80];
        snprintf(name, sizeof name, "%s%s%s", m->container, m->container[0] ? "." : "", m->name);
        rc = put_w3d_object(db, file_id, "mesh", name, "", "");
    }
    for (uint32_t i = 0; rc == SQLITE_OK && i < w->hmodel_count; i++) {
        const amx_w3d_hmodel *h = &w->hmodels[i];
        amx_w3d_lod nodes = { .objects = h->nodes, .object_count = h->node_count };
        const amx_w3d_lod *sets[1] = { &nodes };
        uint32_t counts[1] = { 1 };
        char *subs = sub_object_names(sets, counts, 1);
        if (!subs)
            return SQLITE_NOMEM;
        rc = put_w3d_object(db, file_id, "hmodel", h->name, h->hierarchy, subs);
        free(subs);
    }
    return rc;
}

/* The keys of a reference (AMX_REF_KEY_MAX bytes each): the name the lookup uses, and for an
 * INI animation or bone the stem of its model's file (else ""). A bone's key is that stem. */
static void ref_keys(const amx_ref *r, char *key, char *model_key)
{
    model_key[0] = '\0';
    if (r->model)
        amx__ref_key(AMX_REF_W3D_MODEL, r->model, model_key, AMX_REF_KEY_MAX);
    if (r->model && (r->kind == AMX_REF_BONE || r->kind == AMX_REF_SUB_OBJECT ||
                     r->kind == AMX_REF_PARTICLE_BONE))
        snprintf(key, AMX_REF_KEY_MAX, "%s", model_key);
    else
        amx__ref_key(r->kind, r->name, key, AMX_REF_KEY_MAX);
}

/* The id SQLite would give the next row of a table, in *next: its largest id (`max_id`) + 1,
 * when `count` more ids fit above it (0 else: SQLite then picks each). The writer's transaction
 * is the only one writing, so the rows written next get this id and the following ones. */
static int next_id(sqlite3_stmt *max_id, uint32_t count, int64_t *next)
{
    *next = 0;
    int rc = sqlite3_step(max_id);
    if (rc == SQLITE_ROW) {
        int64_t top = sqlite3_column_int64(max_id, 0); /* NULL (no row): 0 */
        if (top >= 0 && top < INT64_MAX - (int64_t)count)
            *next = top + 1;
        rc = SQLITE_OK;
    }
    sqlite3_reset(max_id);
    return rc;
}

/* Writes the game objects of `a` and puts each one's row id in ids, OBJECT_BATCH to a
 * statement as put_states does. (The asset's texts are bound without a copy, SQLITE_STATIC:
 * they outlive every statement run here, and amx__db_run clears the bindings.) */
static int put_objects(amx_db *db, int64_t file_id, const amx_asset *a, int64_t *ids)
{
    int64_t next;
    int rc = next_id(db->next_object_id, a->object_count, &next);
    amx__row_batch rows;
    amx__row_batch_begin(&rows, db->ins_object, next ? db->ins_objects_batch : NULL,
                         OBJECT_BATCH, OBJECT_COLUMNS, a->object_count);
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->object_count; i++) {
        const amx_game_object *o = &a->objects[i];
        char *key = amx__upper(o->name);
        if (!key)
            return SQLITE_NOMEM;
        int at;
        sqlite3_stmt *s = amx__row_batch_row(&rows, &at);
        const char *variant = o->variant_of && o->variant_of[0] ? o->variant_of : NULL;
        if (next) {
            ids[i] = next++;
            sqlite3_bind_int64(s, at + 1, ids[i]);
        } else {
            sqlite3_bind_null(s, at + 1);
        }
        sqlite3_bind_int64(s, at + 2, file_id);
        sqlite3_bind_text(s, at + 3, o->type, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 4, o->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 5, key, -1, SQLITE_TRANSIENT);
        bind_text_or_null(s, at + 6, variant);
        bind_text_or_null(s, at + 7, variant);
        sqlite3_bind_int64(s, at + 8, o->line);
        free(key);
        rc = amx__row_batch_done(&rows);
        if (!next)
            ids[i] = sqlite3_last_insert_rowid(db->db);
    }
    return rc;
}

/* Writes the draw states of `a` marked in ids (nonzero: a reference names it) and puts each
 * one's row id there (their texts bound without a copy, as put_objects binds them). They go STATE_BATCH to a statement with the ids SQLite would give them
 * one by one (the largest id + 1, then on: the writer's transaction is the only one writing),
 * the rest one statement each; with no such id left, SQLite picks each. */
static int put_states(amx_db *db, int64_t file_id, const amx_asset *a, const int64_t *object_ids,
                      int64_t *ids)
{
    uint32_t todo = 0;
    for (uint32_t i = 0; i < a->state_count; i++)
        todo += ids[i] != 0;
    if (!todo)
        return SQLITE_OK;
    int64_t next;
    int rc = next_id(db->next_state_id, todo, &next);
    amx__row_batch rows;
    amx__row_batch_begin(&rows, db->ins_state, next ? db->ins_states_batch : NULL, STATE_BATCH,
                         STATE_COLUMNS, todo);
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->state_count; i++) {
        const amx_ini_state *st = &a->states[i];
        if (!ids[i])
            continue;
        int at;
        sqlite3_stmt *s = amx__row_batch_row(&rows, &at);
        if (next) {
            ids[i] = next++;
            sqlite3_bind_int64(s, at + 1, ids[i]);
        } else {
            sqlite3_bind_null(s, at + 1);
        }
        sqlite3_bind_int64(s, at + 2, file_id);
        if (st->object >= 0 && (uint32_t)st->object < a->object_count)
            sqlite3_bind_int64(s, at + 3, object_ids[st->object]);
        else
            sqlite3_bind_null(s, at + 3);
        sqlite3_bind_text(s, at + 4, st->module, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 5, st->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 6, st->flags, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 7, st->model, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 8, st->model, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, at + 9, st->line);
        rc = amx__row_batch_done(&rows);
        if (!next)
            ids[i] = sqlite3_last_insert_rowid(db->db);
    }
    return rc;
}

static int put_asset(amx_db *db, int64_t file_id, const amx_asset *a,
                     const amx__byte_buf *packed)
{
    int rc = a->format == AMX_FMT_ALAMO_XML ? amx__db_run(db->mark_xml_lists) : SQLITE_OK;
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->skeleton_count; i++) {
        const amx_skeleton *sk = &a->skeletons[i];
        char *key = amx__upper(sk->name);
        if (!key)
            return SQLITE_NOMEM;
        sqlite3_stmt *s = db->ins_skeleton;
        sqlite3_bind_int64(s, 1, file_id);
        sqlite3_bind_text(s, 2, sk->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 4, sk->bone_count);
        rc = amx__db_run(s);
        int64_t skel_id = sqlite3_last_insert_rowid(db->db);
        /* A new skeleton may be what unbound clips and models were waiting for. */
        if (rc == SQLITE_OK)
            rc = mark_for_skeleton(db, key);
        free(key);
        for (uint32_t b = 0; rc == SQLITE_OK && b < sk->bone_count; b++) {
            char *bkey = amx__upper(sk->bones[b].name);
            if (!bkey)
                return SQLITE_NOMEM;
            s = db->ins_bone;
            sqlite3_bind_int64(s, 1, skel_id);
            sqlite3_bind_int64(s, 2, b);
            sqlite3_bind_text(s, 3, sk->bones[b].name, -1, SQLITE_STATIC);
            sqlite3_bind_text(s, 4, bkey, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 5, sk->bones[b].parent);
            if (sk->has_bone_ids)
                sqlite3_bind_int64(s, 6, sk->bones[b].id);
            else
                sqlite3_bind_null(s, 6);
            rc = amx__db_run(s);
            free(bkey);
        }
        /* ... and what clips no model loads it fits */
        if (rc == SQLITE_OK && anything_linked(db)) {
            sqlite3_bind_int64(db->mark_clips_fitting, 1, skel_id);
            rc = amx__db_run(db->mark_clips_fitting);
        }
    }
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->clip_count; i++) {
        const amx_clip *c = &a->clips[i];
        char *key = amx__upper(c->name);
        char *hint = c->skeleton ? amx__upper(c->skeleton) : NULL;
        if (!key || (c->skeleton && !hint)) {
            free(key);
            free(hint);
            return SQLITE_NOMEM;
        }
        sqlite3_stmt *s = db->ins_clip;
        sqlite3_bind_int64(s, 1, file_id);
        sqlite3_bind_text(s, 2, c->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, key, -1, SQLITE_TRANSIENT);
        bind_text_or_null(s, 4, hint);
        if (c->has_frames)
            sqlite3_bind_int64(s, 5, c->frames);
        else
            sqlite3_bind_null(s, 5);
        sqlite3_bind_double(s, 6, c->fps);
        sqlite3_bind_double(s, 7, c->duration);
        sqlite3_bind_int64(s, 8, c->track_count);
        char *details = amx_clip_details_string(a, c);
        bind_text_or_null(s, 9, details);
        if (c->has_root_bone)
            sqlite3_bind_int64(s, 10, c->root_bone);
        else
            sqlite3_bind_null(s, 10);
        rc = amx__db_run(s);
        free(details);
        free(key);
        free(hint);
        int64_t clip_id = sqlite3_last_insert_rowid(db->db);
        if (rc == SQLITE_OK && c->track_count) {
            const amx__byte_buf *t = packed && packed[i].len ? &packed[i] : &db->packed;
            if (t == &db->packed && amx__tracks_pack(c->tracks, c->track_count, &db->packed))
                return SQLITE_NOMEM;
            s = db->ins_tracks;
            sqlite3_bind_int64(s, 1, clip_id);
            sqlite3_bind_blob(s, 2, t->data, (int)t->len, SQLITE_STATIC);
            rc = amx__db_run(s);
        }
    }
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->anim_set_count; i++) {
        const amx_anim_set *set = &a->anim_sets[i];
        char *skel = amx__upper(set->skeleton);
        if (!skel)
            return SQLITE_NOMEM;
        for (uint32_t k = 0; rc == SQLITE_OK && k < set->clip_count; k++) {
            char *clip = amx__upper(set->clips[k]);
            if (!clip) {
                rc = SQLITE_NOMEM;
                break;
            }
            sqlite3_stmt *s = db->ins_anim_set;
            sqlite3_bind_int64(s, 1, file_id);
            sqlite3_bind_text(s, 2, set->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(s, 3, skel, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 4, clip, -1, SQLITE_TRANSIENT);
            rc = amx__db_run(s);
            free(clip);
        }
        free(skel);
    }
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->skeleton_ref_count; i++) {
        const amx_skeleton_ref *r = &a->skeleton_refs[i];
        char *key = amx__upper(r->skeleton);
        if (!key)
            return SQLITE_NOMEM;
        sqlite3_stmt *s = db->ins_skeleton_ref;
        sqlite3_bind_int64(s, 1, file_id);
        sqlite3_bind_text(s, 2, r->what, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 4, r->bones_used);
        if (r->offset >= 0)
            sqlite3_bind_int64(s, 5, r->offset);
        else
            sqlite3_bind_null(s, 5);
        rc = amx__db_run(s);
        free(key);
    }
    /* XML game objects and what files name: ids of the objects for their refs. */
    int64_t *object_ids = NULL;
    if (rc == SQLITE_OK && a->object_count &&
        !(object_ids = calloc(a->object_count, sizeof *object_ids)))
        return SQLITE_NOMEM;
    if (rc == SQLITE_OK && a->object_count)
        rc = put_objects(db, file_id, a, object_ids);
    /* INI draw states (ids for their refs). A state is read only through the references it
     * makes (their context: the object's state; clips --model): a state that makes none (its
     * names are the default state's, recorded once per name and model) is not written. */
    int64_t *state_ids = NULL;
    if (rc == SQLITE_OK && a->state_count &&
        !(state_ids = calloc(a->state_count, sizeof *state_ids)))
        rc = SQLITE_NOMEM;
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->ref_count; i++)
        if (a->refs[i].state >= 0 && (uint32_t)a->refs[i].state < a->state_count)
            state_ids[a->refs[i].state] = 1;
    if (rc == SQLITE_OK && a->state_count)
        rc = put_states(db, file_id, a, object_ids, state_ids);
    /* a new game object may be what an ObjectReskin or ChildObject elsewhere waits for */
    for (uint32_t i = 0; rc == SQLITE_OK && a->state_count + a->object_count && i < a->object_count &&
                         anything_linked(db); i++) {
        char key[AMX_REF_KEY_MAX];
        amx__ref_key(AMX_REF_INI_OBJECT, a->objects[i].name, key, sizeof key);
        sqlite3_bind_text(db->mark_refs_keyed, 1, key, -1, SQLITE_TRANSIENT);
        rc = amx__db_run(db->mark_refs_keyed);
    }
    /* A SAGE INI file's references wait in one blob for the link pass, which inserts them
     * resolved (ini_refs_pending.c); the others go to refs now, REF_BATCH to a statement while
     * that many are left, then one by one. */
    bool pending = a->format == AMX_FMT_SAGE_INI && a->ref_count;
    if (pending)
        amx__pending_refs_begin(&db->pending);
    for (uint32_t i = 0; rc == SQLITE_OK && pending && i < a->ref_count; i++) {
        const amx_ref *r = &a->refs[i];
        char key[AMX_REF_KEY_MAX], model_key[AMX_REF_KEY_MAX] = "";
        ref_keys(r, key, model_key);
        amx__pending_ref p = {
            .kind = r->kind, .line = r->line, .offset = r->offset < 0 ? -1 : r->offset,
            .object_id = r->object >= 0 && (uint32_t)r->object < a->object_count
                             ? object_ids[r->object] : -1,
            .state_id = r->state >= 0 && (uint32_t)r->state < a->state_count
                            ? state_ids[r->state] : -1,
            .tag = r->tag, .name = r->name, .key = key, .model = r->model,
            .model_key = r->model ? model_key : NULL, .slot = r->slot };
        if (amx__pending_refs_add(&db->pending, &p))
            rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK && pending && db->pending.len > INT32_MAX)
        rc = SQLITE_TOOBIG;
    if (rc == SQLITE_OK && pending) {
        sqlite3_bind_int64(db->ins_pending_refs, 1, file_id);
        sqlite3_bind_blob(db->ins_pending_refs, 2, db->pending.data, (int)db->pending.len,
                          SQLITE_STATIC);
        rc = amx__db_run(db->ins_pending_refs);
    }
    amx__row_batch rows;
    amx__row_batch_begin(&rows, db->ins_ref, db->ins_refs_batch, REF_BATCH, REF_COLUMNS,
                         a->ref_count);
    for (uint32_t i = 0; rc == SQLITE_OK && !pending && i < a->ref_count; i++) {
        const amx_ref *r = &a->refs[i];
        int at;
        sqlite3_stmt *s = amx__row_batch_row(&rows, &at);
        char key[AMX_REF_KEY_MAX], model_key[AMX_REF_KEY_MAX] = "";
        ref_keys(r, key, model_key);
        sqlite3_bind_int64(s, at + 1, file_id);
        if (r->object >= 0 && (uint32_t)r->object < a->object_count)
            sqlite3_bind_int64(s, at + 2, object_ids[r->object]);
        else
            sqlite3_bind_null(s, at + 2);
        sqlite3_bind_text(s, at + 3, amx_ref_kind_name(r->kind), -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 4, r->tag, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 5, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, at + 6, key, -1, SQLITE_TRANSIENT);
        if (r->line)
            sqlite3_bind_int64(s, at + 7, r->line);
        else
            sqlite3_bind_null(s, at + 7);
        if (r->offset >= 0)
            sqlite3_bind_int64(s, at + 8, r->offset);
        else
            sqlite3_bind_null(s, at + 8);
        if (r->state >= 0 && (uint32_t)r->state < a->state_count)
            sqlite3_bind_int64(s, at + 9, state_ids[r->state]);
        else
            sqlite3_bind_null(s, at + 9);
        bind_text_or_null(s, at + 10, r->model);
        bind_text_or_null(s, at + 11, r->model ? model_key : NULL);
        rc = amx__row_batch_done(&rows);
        /* an override names a model's animation set: its clips bind anew */
        if (rc == SQLITE_OK && r->kind == AMX_REF_ANIM_OVERRIDE && key[0]) {
            sqlite3_bind_text(db->mark_clips_prefix, 1, key, -1, SQLITE_TRANSIENT);
            rc = amx__db_run(db->mark_clips_prefix);
        }
    }
    free(object_ids);
    free(state_ids);
    if (rc == SQLITE_OK && a->w3d)
        rc = put_w3d_objects(db, file_id, a->w3d);
    /* The clips these sets name are bound anew. */
    if (rc == SQLITE_OK && a->anim_set_count) {
        sqlite3_bind_int64(db->mark_clips_of_sets, 1, file_id);
        rc = amx__db_run(db->mark_clips_of_sets);
    }
    if (rc == SQLITE_OK && (a->model || a->particle)) {
        sqlite3_stmt *s = db->ins_model;
        sqlite3_bind_int64(s, 1, file_id);
        for (int k = 4; k <= 11; k++)
            sqlite3_bind_int64(s, k, 0);
        if (a->particle) {
            sqlite3_bind_text(s, 2, "particle", -1, SQLITE_STATIC);
            sqlite3_bind_text(s, 3, a->particle->name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 11, a->particle->emitter_count);
        } else {
            const amx_model *m = a->model;
            uint64_t submeshes = 0;
            for (uint32_t i = 0; i < m->mesh_count; i++)
                submeshes += m->meshes[i].submesh_count;
            sqlite3_bind_text(s, 2, "model", -1, SQLITE_STATIC);
            sqlite3_bind_text(s, 3, a->skeleton_count ? a->skeletons[0].name : "", -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 4, m->mesh_count);
            sqlite3_bind_int64(s, 5, (int64_t)submeshes);
            sqlite3_bind_int64(s, 6, m->total_vertices);
            sqlite3_bind_int64(s, 7, m->total_triangles);
            sqlite3_bind_int64(s, 8, m->light_count);
            sqlite3_bind_int64(s, 9, m->proxy_count);
            sqlite3_bind_int64(s, 10, m->dazzle_count);
        }
        rc = amx__db_run(s);
        for (uint32_t i = 0; rc == SQLITE_OK && a->model && i < a->model->mesh_count; i++) {
            const amx_mesh *me = &a->model->meshes[i];
            uint64_t verts = 0, tris = 0;
            char shaders[512] = "";
            size_t len = 0;
            for (uint32_t k = 0; k < me->submesh_count; k++) {
                verts += me->submeshes[k].vertices;
                tris += me->submeshes[k].triangles;
                int w = snprintf(shaders + len, sizeof shaders - len, "%s%s", k ? "," : "",
                                 me->submeshes[k].shader);
                if (w > 0 && (size_t)w < sizeof shaders - len)
                    len += (size_t)w;
            }
            s = db->ins_mesh;
            sqlite3_bind_int64(s, 1, file_id);
            sqlite3_bind_int64(s, 2, i);
            sqlite3_bind_text(s, 3, me->name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 4, me->material_count);
            sqlite3_bind_int64(s, 5, (int64_t)verts);
            sqlite3_bind_int64(s, 6, (int64_t)tris);
            sqlite3_bind_text(s, 7, shaders, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(s, 8, me->hidden);
            sqlite3_bind_int(s, 9, me->collision);
            rc = amx__db_run(s);
        }
    }
    for (uint32_t i = 0; rc == SQLITE_OK && i < a->finding_count; i++) {
        const amx_finding *f = &a->findings[i];
        rc = put_finding(db, file_id, "decode", amx_code_get(f->code)->name,
                         amx_severity_name(f->severity), f->message, f->offset, f->context);
    }
    if (rc == SQLITE_OK && a->findings_dropped) {
        /* One summary, as severe as the worst finding it stands for (the cap kept the most
         * severe ones), so a gate on severity still sees the file. */
        char msg[256];
        amx_findings_dropped_message(a, msg, sizeof msg);
        rc = put_finding(db, file_id, "decode", "LIMIT_EXCEEDED",
                         amx_severity_name(amx_findings_dropped_severity(a)), msg, -1, "");
    }
    return rc;
}

/* The archive row a row is a member of (0: a file of its own). */
static int64_t parent_of(amx_db *db, int64_t id)
{
    sqlite3_stmt *s = NULL;
    int64_t p = 0;
    if (sqlite3_prepare_v2(db->db, "SELECT coalesce(parent_id, 0) FROM files WHERE id = ?1", -1, &s,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, id);
        if (sqlite3_step(s) == SQLITE_ROW)
            p = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return p;
}

/* A loose file named ARCHIVE#MEMBER beside an archive with that member: one path for two files.
 * The loose file keeps the row (it is what the directory shows); the archive says which
 * member is not indexed. */
static int shadowed(amx_db *db, int64_t archive_id, const char *path, size_t member_at)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "member '%s' is not indexed: the loose file '%s' beside the archive "
                              "has the same path in the index",
             member_at ? path + member_at + 1 : path, path);
    return put_finding(db, archive_id, "decode", "MEMBER_SHADOWED", "warning", msg, -1,
                       member_at ? path + member_at + 1 : "");
}

amx_status amx__db_put(amx_db *db, const amx__file_meta *m, const amx_asset *asset,
                       const amx__failure *failure, int64_t *file_id, char *err, size_t errlen)
{
    amx__file_row old;
    amx_status st = amx__db_lookup(db, m->root_id, m->path, &old, err, errlen);
    if (st)
        return st;
    if (amx__db_writes(db) != SQLITE_OK)
        return amx__db_error(db, "index: preparing a statement", err, errlen);
    if (old.id) {
        int64_t old_parent = parent_of(db, old.id);
        if (m->parent_id && !old_parent) { /* a member, where a loose file is */
            *file_id = 0;
            return shadowed(db, m->parent_id, m->path, m->member_at) == SQLITE_OK
                       ? AMX_OK : amx__db_error(db, "index: writing a file", err, errlen);
        }
        if (!m->parent_id && old_parent) { /* a loose file, where a member was */
            size_t at = strlen(m->path);
            sqlite3_stmt *q = NULL;
            if (sqlite3_prepare_v2(db->db, "SELECT length(path) FROM files WHERE id = ?1", -1, &q,
                                   NULL) == SQLITE_OK) {
                sqlite3_bind_int64(q, 1, old_parent);
                if (sqlite3_step(q) == SQLITE_ROW)
                    at = (size_t)sqlite3_column_int64(q, 0);
            }
            sqlite3_finalize(q);
            if (shadowed(db, old_parent, m->path, at < strlen(m->path) ? at : 0) != SQLITE_OK)
                return amx__db_error(db, "index: writing a file", err, errlen);
        }
    }
    db->dirty = true;
    char *dir_key = NULL, *stem_key = NULL;
    amx__db_path_keys(m->path, m->member_at, &dir_key, &stem_key);
    if (!dir_key || !stem_key) {
        free(dir_key);
        free(stem_key);
        return AMX_E_NOMEM;
    }
    int rc = old.id ? clear_file(db, old.id) : SQLITE_OK;
    amx_format fmt = asset ? asset->format : AMX_FMT_UNKNOWN;
    const char *status = asset ? amx_asset_status_name(asset->status) : failure ? "error" : "ignored";
    sqlite3_stmt *s = old.id ? db->file_update : db->file_insert;
    if (rc == SQLITE_OK) {
        if (old.id)
            sqlite3_bind_int64(s, 1, old.id);
        else
            sqlite3_bind_int64(s, 1, m->root_id);
        if (m->parent_id)
            sqlite3_bind_int64(s, 2, m->parent_id);
        else
            sqlite3_bind_null(s, 2);
        sqlite3_bind_text(s, 3, m->path, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, dir_key, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 5, stem_key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 6, m->size);
        sqlite3_bind_int64(s, 7, m->mtime_ns);
        if (m->has_hash)
            sqlite3_bind_int64(s, 8, (int64_t)m->hash);
        else
            sqlite3_bind_null(s, 8);
        sqlite3_bind_text(s, 9, amx_format_name(fmt), -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 10, asset ? asset->version : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 11, amx_format_decoder_version(fmt));
        sqlite3_bind_text(s, 12, status, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 13, (int64_t)time(NULL));
        if (m->member_name) /* the key a MEG finds it by */
            sqlite3_bind_int64(s, 14, amx__name_crc(m->member_name));
        else
            sqlite3_bind_null(s, 14);
        rc = amx__db_run(s);
    }
    free(dir_key);
    free(stem_key);
    int64_t id = old.id ? old.id : sqlite3_last_insert_rowid(db->db);
    if (rc == SQLITE_OK && asset)
        rc = put_asset(db, id, asset, m->packed);
    /* references that name this file look again (its old name was marked by clear_file) */
    if (rc == SQLITE_OK && anything_linked(db))
        rc = mark_refs_of_names(db, id);
    if (rc == SQLITE_OK && failure)
        rc = put_finding(db, id, "decode", amx_code_get(failure->code)->name,
                         amx_severity_name(amx_code_get(failure->code)->severity),
                         failure->message, -1, "");
    if (rc != SQLITE_OK)
        return amx__db_error(db, "index: writing a file", err, errlen);
    *file_id = id;
    return AMX_OK;
}

/* ---- renames ---- */
