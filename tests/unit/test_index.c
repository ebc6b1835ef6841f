/* The index through the library API: migrations, incremental scans, decoder-version bumps,
 * recovery of an interrupted archive, and the link pass following models as they come and go. */
#include "test.h"
#include "animidx/os.h"

#include "ala_writer.h"
#include "alo_writer.h"
#include "buf.h"
#include "meg_writer.h"

#include "animidx/config.h"
#include "animidx/index.h"

#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[256], dbpath[300];

static void make_tree(void)
{
    snprintf(root, sizeof root, "/tmp/amx_index_test_%d", (int)amx_os_pid());
    snprintf(dbpath, sizeof dbpath, "%s.db", root);
    test_remove_index(root, dbpath);
}

static void put(const char *rel, amxw_buf *b)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    CHECK_EQ(amxw_write_file(b, path), 0);
    amxw_buf_free(b);
}

static const char *const bones[] = { "Root", "Hull", "Turret" };
static const uint32_t idx[] = { 0, 1, 2 };

static void write_model(const char *rel)
{
    amxw_buf b = { 0 };
    amxw_alo_simple(&b, 3, bones, 1, 12, 1);
    put(rel, &b);
}

static void write_clip(const char *rel)
{
    amxw_buf b = { 0 };
    amxw_ala_simple(&b, 2, 10, 30.0f, 3, bones, idx, 2);
    put(rel, &b);
}

static int64_t q_int(amx_db *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    else
        printf("# query failed: %s: %s\n", sql, sqlite3_errmsg(amx_db_handle(db)));
    sqlite3_finalize(s);
    return v;
}

/* Opens the test's index (flags: 0 or AMX_DB_READONLY); the open must succeed. */
static amx_db *open_index(int flags)
{
    amx_db *db = NULL;
    char err[512] = "";
    CHECK_EQ(amx_db_open(dbpath, flags, &db, err, sizeof err), AMX_OK);
    if (!db)
        printf("# %s\n", err);
    return db;
}

/* A scan of `root` that must succeed: the whole root, or a scope (shallow: its files only). */
static amx_scan_stats scan_with(amx_db *db, const char *scope, bool shallow)
{
    amx_scan_stats st = { 0 };
    char err[512] = "";
    amx_scan_opts o = { .root = root, .jobs = 2, .scope = scope, .shallow = shallow };
    amx_status s = amx_scan(db, &o, &st, err, sizeof err);
    if (s != AMX_OK)
        printf("# scan of %s failed: %s\n", scope ? scope : "the root", err);
    CHECK_EQ(s, AMX_OK);
    return st;
}

static amx_scan_stats scan(amx_db *db)
{
    return scan_with(db, NULL, false);
}

/* Deleting a row makes SQLite look for the rows whose foreign key names it (ON DELETE CASCADE,
 * SET NULL): without an index on that column, a scan of the whole child table for each deleted
 * row (rescanning one changed INI file of a Zero Hour mod scanned 32,000 references for each of
 * its 1,400 draw states: 14 s). Every such column is the first of an index or the primary key,
 * but those whose parent rows are roots (a handful) and skeleton_refs.skeleton_id (a file's few
 * skeletons, deleted with their file). */
static void test_foreign_keys_indexed(void)
{
    make_tree();
    amx_db *db = NULL;
    char err[512] = "";
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    sqlite3 *h = amx_db_handle(db);
    sqlite3_stmt *s = NULL;
    CHECK(sqlite3_prepare_v2(h,
        "SELECT t.name || '.' || k.\"from\" FROM sqlite_schema t, pragma_foreign_key_list(t.name) k "
        "WHERE t.type = 'table' AND k.\"table\" <> 'roots' AND NOT EXISTS (SELECT 1 FROM "
        "pragma_index_list(t.name) i, pragma_index_info(i.name) c WHERE c.seqno = 0 AND "
        "c.name = k.\"from\") AND NOT EXISTS (SELECT 1 FROM pragma_table_info(t.name) c WHERE "
        "c.pk = 1 AND c.name = k.\"from\") ORDER BY 1", -1, &s, NULL) == SQLITE_OK);
    char unindexed[512] = "";
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        size_t at = strlen(unindexed);
        snprintf(unindexed + at, sizeof unindexed - at, "%s%s", at ? " " : "",
                 (const char *)sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    CHECK_STR(unindexed, "skeleton_refs.skeleton_id");
    amx_db_close(db);
}

static void test_migrations(void)
{
    make_tree();
    amx_db *db = NULL;
    char err[512] = "";
    /* read-only on a missing database: a clear message */
    CHECK_EQ(amx_db_open(dbpath, AMX_DB_READONLY, &db, err, sizeof err), AMX_E_DB);
    CHECK(strstr(err, "run 'animidx scan") != NULL);
    CHECK(db == NULL);
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    int v = amx_db_schema_version(db);
    CHECK(v >= 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'clips'"), 1);
    amx_db_close(db);
    /* reopening applies nothing twice */
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    CHECK_EQ(amx_db_schema_version(db), v);
    sqlite3_stmt *jm = NULL;
    CHECK(sqlite3_prepare_v2(amx_db_handle(db), "PRAGMA journal_mode", -1, &jm, NULL) == SQLITE_OK);
    CHECK(jm && sqlite3_step(jm) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(jm, 0), "wal");
    sqlite3_finalize(jm);
    /* a database from a newer animidx is refused, not damaged */
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
    sqlite3_exec(amx_db_handle(db), pragma, NULL, NULL, NULL);
    amx_db_close(db);
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_E_DB);
    CHECK(strstr(err, "newer than this animidx") != NULL);
    /* a file that is not a database */
    FILE *f = fopen(dbpath, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("this is not a database, it is a text file that is long enough to look like one....", f);
        fclose(f);
    }
    char wal[1400], shm[1400];
    snprintf(wal, sizeof wal, "%s-wal", dbpath);
    snprintf(shm, sizeof shm, "%s-shm", dbpath);
    amx_os_remove(wal);
    amx_os_remove(shm);
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_E_DB);
    CHECK(db == NULL);
}

/* A text whose first 4 KiB (the prefix a scan probes) cannot tell its format: an INI file
 * whose first block follows a long comment header (BFME 2's attributemodifier.ini, 4 KiB of
 * "//" lines) is read further and decoded; a text of another kind is still skipped, without a
 * finding. */
static void test_long_text_header(void)
{
    make_tree();
    amxw_buf ini = { 0 }, txt = { 0 };
    static const char comment[] = "// a comment line of the file's long header, as EA writes\n",
                      note[] = "; notes on the mod, one line of many, none of it game data.\n";
    for (int i = 0; i < 120; i++) {
        amxw_bytes(&ini, comment, sizeof comment - 1);
        amxw_bytes(&txt, note, sizeof note - 1);
    }
    static const char block[] = "ModifierList StandardDebuff\n  Category = DEBUFF\nEnd\n"
                                "Object A\nEnd\n";
    amxw_bytes(&ini, block, sizeof block - 1);
    amxw_bytes(&txt, "Fire at will.\n", 14);
    CHECK(ini.len > 4096 + 64 && txt.len > 4096 + 64);
    put("Data/INI/AttributeModifier.ini", &ini);
    put("Data/Notes.ini", &txt);
    amx_db *db = open_index(0);
    amx_scan_stats st = scan(db);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'Data/INI/AttributeModifier.ini' "
                       "AND format = 'sage-ini' AND status = 'ok'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM game_objects"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'Data/Notes.ini' AND "
                       "format = 'sage-ini'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings"), 0);
    /* unchanged: neither is read again */
    st = scan(db);
    CHECK_EQ(st.files_decoded, 0);
    amx_db_close(db);
}

static void test_decoder_version_bump(void)
{
    make_tree();
    write_model("Data/Art/Models/UM_X.ALO");
    write_clip("Data/Art/Models/UM_X_IDLE_00.ALA");
    amx_db *db = open_index(0);
    amx_scan_stats st = scan(db);
    CHECK_EQ(st.files_decoded, 2);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 0);
    CHECK_EQ(st.files_unchanged, 2);
    /* As if the files had been indexed by an older ALA decoder: only they are decoded again. */
    sqlite3_exec(amx_db_handle(db), "UPDATE files SET decoder_version = 0 WHERE format = 'alamo-ala'",
                 NULL, NULL, NULL);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(st.files_unchanged, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE decoder_version = 0"), 0);
    /* A file of no known format is skipped under the registry's probe version; when formats
     * are added (the version changes) it is looked at again. */
    amxw_buf x = { 0 };
    amxw_bytes(&x, "notes!", 6);
    put("Data/Text/a.txt", &x);
    st = scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE format = 'unknown' AND status = 'ignored'"), 1);
    st = scan(db);
    CHECK_EQ(st.files_unchanged, 3);
    sqlite3_exec(amx_db_handle(db), "UPDATE files SET decoder_version = 1 WHERE format = 'unknown'",
                 NULL, NULL, NULL);
    st = scan(db);
    CHECK_EQ(st.files_unchanged, 2);
    CHECK_EQ(st.bytes_read, 6);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE format = 'unknown' AND decoder_version = 1"), 0);
    /* Same content, new mtime: re-hashed, not re-decoded. */
    char path[1400];
    snprintf(path, sizeof path, "%s/Data/Art/Models/UM_X.ALO", root);
    CHECK_EQ(amx_os_set_mtime(path, 1000000000LL * 1000000000LL), 0);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 0);
    CHECK_EQ(st.files_rehashed, 1);
    CHECK_EQ(st.files_unchanged, 2);
    CHECK_EQ(q_int(db, "SELECT mtime_ns FROM files WHERE path = 'Data/Art/Models/UM_X.ALO'"),
             1000000000LL * 1000000000LL);
    amx_db_close(db);
}

static void test_interrupted_archive(void)
{
    make_tree();
    amxw_buf m = { 0 }, c = { 0 }, meg = { 0 };
    amxw_alo_simple(&m, 3, bones, 1, 12, 1);
    amxw_ala_simple(&c, 2, 10, 30.0f, 3, bones, idx, 2);
    amxw_meg_file files[] = {
        { "DATA\\ART\\MODELS\\UM_A.ALO", m.data, m.len },
        { "DATA\\ART\\MODELS\\UM_A_MOVE_00.ALA", c.data, c.len },
    };
    amxw_meg(&meg, 2, files, 2);
    amxw_buf_free(&m);
    amxw_buf_free(&c);
    put("Data/Models.meg", &meg);
    amx_db *db = open_index(0);
    amx_scan_stats st = scan(db);
    CHECK_EQ(st.files_decoded, 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id IS NOT NULL"), 2);
    /* loose files know their directory (the scanner reads a directory's rows at once);
     * members do not have one */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'Data/Models.meg' AND dir_path = 'Data/'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id IS NOT NULL AND dir_path IS NULL"), 2);
    CHECK_EQ(q_int(db, "SELECT rtrim('top.ALO', replace('top.ALO', '/', '')) = ''"), 1);
    CHECK_EQ(q_int(db, "SELECT bones_missing FROM clips"), 0);
    CHECK_EQ(q_int(db, "SELECT skeleton_id IS NOT NULL FROM clips"), 1);
    /* A scan killed after the archive row but before its last member left mtime -1 and lost a
     * member: the next scan must redo the archive. */
    sqlite3_exec(amx_db_handle(db),
                 "UPDATE files SET mtime_ns = -1 WHERE path = 'Data/Models.meg';"
                 "DELETE FROM files WHERE path LIKE '%UM_A_MOVE_00.ALA'",
                 NULL, NULL, NULL);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id IS NOT NULL"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE mtime_ns < 0"), 0);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 0);
    amx_db_close(db);
}

/* The engine's naming convention: <MODEL>_<TYPE>_<NN>.ALA in the model's directory, nothing
 * else; bindings follow the model as it goes and comes back. */
static void test_link_follows_models(void)
{
    make_tree();
    write_model("Data/Art/Models/UM_B.ALO");
    write_clip("Data/Art/Models/UM_B_IDLE_00.ALA");
    write_clip("Data/Art/Models/UM_B_TURNL_BEGIN_00.ALA"); /* a multi-word type of the engine */
    write_clip("Data/Art/Models/UM_B_ATTACK_IDLE_00.ALA"); /* UM_B_ATTACK + IDLE, never UM_B */
    write_clip("Data/Art/Models/UM_B_SPECIAL_MOVE.ALA");   /* no number: no model loads it */
    amx_db *db = open_index(0);
    scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_name = 'UM_B' AND bones_missing = 0"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings WHERE how = 'name'"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name = 'UM_B_TURNL_BEGIN_00' AND b.via = 'type TURNL_BEGIN'"), 1);
    /* the near miss says what the engine would load */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings f JOIN files x ON x.id = f.file_id WHERE "
                       "x.path LIKE '%UM_B_ATTACK_IDLE_00.ALA' AND f.code = 'SKELETON_NOT_FOUND' AND "
                       "f.message LIKE '%model ''UM_B_ATTACK'' (type IDLE)%' AND "
                       "f.message LIKE '%name it UM_B_ATTACKIDLE_NN%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'CLIP_NOT_LOADED_BY_NAME' AND "
                       "severity = 'info' AND message LIKE '%fit skeleton ''UM_B''%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code LIKE 'BONE%'"), 0);
    /* The model goes: its clips lose the binding and say so. */
    char path[1400];
    snprintf(path, sizeof path, "%s/Data/Art/Models/UM_B.ALO", root);
    CHECK(unlink(path) == 0);
    amx_scan_stats st = scan(db);
    CHECK_EQ(st.files_removed, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_id IS NULL"), 4);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'SKELETON_NOT_FOUND'"), 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 0);
    /* A model of that name in another directory is not the one the engine loads. */
    write_model("Data/Art/Other/UM_B.ALO");
    scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_id IS NOT NULL"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'SKELETON_NOT_FOUND'"), 3);
    /* It comes back beside its clips: bound again, the findings gone. */
    write_model("Data/Art/Models/UM_B.ALO");
    scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips c JOIN skeletons s ON s.id = c.skeleton_id "
                       "JOIN files f ON f.id = s.file_id WHERE f.path = 'Data/Art/Models/UM_B.ALO'"),
             2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'SKELETON_NOT_FOUND'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE linked = 0"), 0);
    amx_db_close(db);
}

static amx_scan_stats scan_scope(amx_db *db, const char *scope)
{
    return scan_with(db, scope, false);
}

static amx_scan_stats scan_shallow(amx_db *db, const char *scope)
{
    return scan_with(db, scope, true);
}

/* A shallow scan (the daemon's for a burst of changes in one directory) reads and sweeps the
 * directory's own files, never its subdirectories. */
static void test_shallow_scan(void)
{
    make_tree();
    write_model("A/UM_S.ALO");
    write_clip("A/UM_S_IDLE_00.ALA");
    write_model("A/Sub/UM_T.ALO");
    write_model("AB/UM_U.ALO");
    write_model("UM_TOP.ALO");
    amx_db *db = open_index(0);
    scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 5);
    int64_t scans = q_int(db, "SELECT count(*) FROM scans");
    char path[1400];
    snprintf(path, sizeof path, "%s/A/UM_S_IDLE_00.ALA", root);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/A/Sub/UM_T.ALO", root);
    CHECK(unlink(path) == 0);
    write_clip("A/UM_S_MOVE_00.ALA");
    write_clip("A/Sub/UM_T_MOVE_00.ALA");
    amx_scan_stats st = scan_shallow(db, "A");
    CHECK_EQ(st.files_seen, 2);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(st.files_removed, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'A/UM_S_MOVE_00.ALA'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'A/UM_S_IDLE_00.ALA'"), 0);
    /* the subdirectory: its gone file is kept, its new one not read, until it is scanned */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'A/Sub/UM_T.ALO'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'A/Sub/UM_T_MOVE_00.ALA'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'AB/UM_U.ALO'"), 1);
    /* the root, shallow: only UM_TOP.ALO */
    snprintf(path, sizeof path, "%s/AB/UM_U.ALO", root);
    CHECK(unlink(path) == 0);
    st = scan_shallow(db, NULL);
    CHECK_EQ(st.files_seen, 1);
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM scans"), scans); /* not a whole-root scan */
    /* a full scan settles the rest */
    st = scan(db);
    CHECK_EQ(st.files_removed, 2);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 4);
    amx_db_close(db);
}

/* A scoped scan (what the daemon runs on a change) touches only its file or subtree. */
static void test_scoped_scan(void)
{
    make_tree();
    write_model("A/UM_C.ALO");
    write_clip("A/UM_C_IDLE_00.ALA");
    write_model("B/UM_D.ALO");
    amx_db *db = open_index(0);
    char err[512] = "";
    scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 3);
    char path[1400];
    snprintf(path, sizeof path, "%s/B/UM_D.ALO", root);
    CHECK(unlink(path) == 0);
    write_clip("A/UM_C_MOVE_00.ALA");
    /* scope A: the new clip is indexed, B's vanished file is left alone */
    amx_scan_stats st = scan_scope(db, "./A/");
    CHECK_EQ(st.files_seen, 3);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'B/UM_D.ALO'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_name = 'UM_C'"), 2);
    /* scope of a single file that is gone: its row goes, nothing else */
    st = scan_scope(db, "B/UM_D.ALO");
    CHECK_EQ(st.files_removed, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 3);
    /* scope of one file that changed */
    write_clip("A/UM_C_IDLE_00.ALA");
    st = scan_scope(db, "A/UM_C_IDLE_00.ALA");
    CHECK_EQ(st.files_seen, 1);
    /* a scope that leaves the root is refused */
    amx_scan_opts o = { .root = root, .scope = "A/../../etc" };
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_E_INVALID_ARG);
    /* "A" must not match the sibling "AB" */
    write_model("AB/UM_E.ALO");
    scan(db);
    snprintf(path, sizeof path, "%s/AB/UM_E.ALO", root);
    CHECK(unlink(path) == 0);
    st = scan_scope(db, "A");
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'AB/UM_E.ALO'"), 1);
    amx_db_close(db);
}

/* A scope through a symbolic link out of the root (what the daemon scans when told of a path
 * there) is not read unless links are followed: the link is LINK_NOT_FOLLOWED, as in a walk of
 * the whole root, and the rows a following scan left under it go (issue 21, defect 6). */
static void test_scope_through_link(void)
{
    make_tree();
    write_model("A/UM_C.ALO");
    char outside[400], path[1400];
    snprintf(outside, sizeof outside, "%s.outside", root);
    test_remove_tree(outside);
    snprintf(path, sizeof path, "%s/sub", outside);
    CHECK_EQ(test_mkdir(path), 0);
    amxw_buf b = { 0 };
    amxw_ala_simple(&b, 2, 10, 30.0f, 3, bones, idx, 2);
    snprintf(path, sizeof path, "%s/sub/UM_C_IDLE_00.ALA", outside);
    CHECK_EQ(amxw_write_file(&b, path), 0);
    amxw_buf_free(&b);
    snprintf(path, sizeof path, "%s/A/out", root);
    CHECK_EQ(amx_os_symlink(outside, path), 0);
    amx_db *db = open_index(0);
    char err[512] = "";
    amx_scan_stats st = { 0 };
    /* followed: the files are indexed under the link's path */
    amx_scan_opts o = { .root = root, .jobs = 1, .scope = "A/out/sub", .follow_links = true };
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'A/out/sub/UM_C_IDLE_00.ALA'"), 1);
    /* not followed: nothing under the link is read, its rows go, the link is a finding */
    o.follow_links = false;
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(st.files_seen, 0);
    CHECK_EQ(st.files_failed, 0); /* an info finding, not an unreadable file */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path LIKE 'A/out/%'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings fi JOIN files f ON f.id = fi.file_id "
                       "WHERE f.path = 'A/out' AND fi.code = 'LINK_NOT_FOLLOWED'"), 1);
    /* a scope that is the file itself, through the link */
    o.scope = "A/out/sub/UM_C_IDLE_00.ALA";
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(st.files_seen, 0);
    amx_db_close(db);
    test_remove_tree(outside);
}

static void move(const char *from, const char *to)
{
    char a[1400], b[1400];
    snprintf(a, sizeof a, "%s/%s", root, from);
    snprintf(b, sizeof b, "%s/%s", root, to);
    CHECK_EQ(test_move(a, b), 0);
}

static int64_t id_of(amx_db *db, const char *path)
{
    char sql[1200];
    snprintf(sql, sizeof sql, "SELECT coalesce((SELECT id FROM files WHERE path = '%s'), 0)", path);
    return q_int(db, sql);
}

static amx_status rename_rel(amx_db *db, const char *from, const char *to, uint64_t *moved)
{
    char real[AMX_PATH_MAX], err[512] = "";
    CHECK_EQ(amx_os_canonical(root, real, sizeof real), 0);
    amx_status st = amx_index_rename(db, real, from, to, moved, err, sizeof err);
    if (st)
        printf("# rename failed: %s\n", err);
    return st;
}

/* A rename keeps the file's row, its id and (when only its directory changes) its decode. */
static void test_rename(void)
{
    make_tree();
    write_model("Data/A/UM_R.ALO");
    write_clip("Data/A/UM_R_IDLE_00.ALA");
    write_clip("Data/A/UM_R_MOVE_00.ALA");
    amx_db *db = open_index(0);
    scan(db);
    int64_t clip_id = id_of(db, "Data/A/UM_R_IDLE_00.ALA");
    int64_t model_id = id_of(db, "Data/A/UM_R.ALO");
    CHECK(clip_id > 0 && model_id > 0);

    /* a file moved to another directory: same row, nothing decoded again */
    uint64_t moved = 0;
    move("Data/A/UM_R_IDLE_00.ALA", "Data/B/UM_R_IDLE_00.ALA");
    CHECK_EQ(rename_rel(db, "Data/A/UM_R_IDLE_00.ALA", "Data/B/UM_R_IDLE_00.ALA", &moved), AMX_OK);
    CHECK_EQ(moved, 1);
    CHECK_EQ(id_of(db, "Data/B/UM_R_IDLE_00.ALA"), clip_id);
    CHECK_EQ(id_of(db, "Data/A/UM_R_IDLE_00.ALA"), 0);
    amx_scan_stats st = scan(db);
    CHECK_EQ(st.files_decoded, 0);
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(id_of(db, "Data/B/UM_R_IDLE_00.ALA"), clip_id);
    /* away from its model's directory the engine does not load it for UM_R: rebound */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_name = 'UM_R'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips c JOIN files f ON f.id = c.file_id WHERE "
                       "f.path = 'Data/B/UM_R_IDLE_00.ALA' AND c.skeleton_id IS NULL AND "
                       "c.skeleton_key = 'UM_R'"), 1);

    /* a model renamed: same row, re-decoded in place (its skeleton is named after the file) */
    move("Data/A/UM_R.ALO", "Data/A/UM_Q.ALO");
    CHECK_EQ(rename_rel(db, "Data/A/UM_R.ALO", "Data/A/UM_Q.ALO", &moved), AMX_OK);
    CHECK_EQ(moved, 1);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(id_of(db, "Data/A/UM_Q.ALO"), model_id);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM skeletons WHERE name = 'UM_Q'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'SKELETON_NOT_FOUND'"), 2);

    /* a directory renamed: every row below keeps its id */
    int64_t move_id = id_of(db, "Data/A/UM_R_MOVE_00.ALA");
    move("Data/A", "Data/C");
    CHECK_EQ(rename_rel(db, "Data/A", "Data/C", &moved), AMX_OK);
    CHECK_EQ(moved, 2);
    CHECK_EQ(id_of(db, "Data/C/UM_R_MOVE_00.ALA"), move_id);
    CHECK_EQ(id_of(db, "Data/C/UM_Q.ALO"), model_id);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 0);
    CHECK_EQ(st.files_removed, 0);
    /* "Data/C" must not catch "Data/CC" */
    CHECK_EQ(rename_rel(db, "Data/C", "Data/C/inside", &moved), AMX_E_INVALID_ARG);

    /* an editor's save: a new file renamed over an indexed one replaces it */
    write_clip("Data/B/UM_R_IDLE_00.ALA.tmp");
    move("Data/B/UM_R_IDLE_00.ALA.tmp", "Data/B/UM_R_IDLE_00.ALA");
    CHECK_EQ(rename_rel(db, "Data/B/UM_R_IDLE_00.ALA.tmp", "Data/B/UM_R_IDLE_00.ALA", &moved), AMX_OK);
    CHECK_EQ(moved, 0);
    CHECK_EQ(id_of(db, "Data/B/UM_R_IDLE_00.ALA"), 0);
    st = scan(db);
    CHECK_EQ(st.files_decoded, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path LIKE '%.tmp'"), 0);
    amx_db_close(db);
}

/* amx_query_file_stats: the files at a path or below it, as the last scan saw them. */
typedef struct stat_rows {
    char paths[8][64];
    int64_t size[8], mtime_ns[8];
    int n, stop_after;
} stat_rows;

static bool stat_row(const char *path, int64_t size, int64_t mtime_ns, void *user)
{
    stat_rows *r = user;
    if (r->n < 8) {
        snprintf(r->paths[r->n], sizeof r->paths[r->n], "%s", path);
        r->size[r->n] = size;
        r->mtime_ns[r->n] = mtime_ns;
    }
    return ++r->n == r->stop_after;
}

static stat_rows file_stats(amx_db *db, const char *path, int stop_after)
{
    char real[AMX_PATH_MAX], err[512] = "";
    stat_rows r = { .stop_after = stop_after };
    CHECK_EQ(amx_os_canonical(root, real, sizeof real), 0);
    amx_status st = amx_query_file_stats(db, real, path, stat_row, &r, err, sizeof err);
    if (st)
        printf("# amx_query_file_stats failed: %s\n", err);
    CHECK_EQ(st, AMX_OK);
    return r;
}

static void test_file_stats(void)
{
    make_tree();
    write_clip("Data/M/A.ALA");
    write_clip("Data/M/A.ALA#b_IDLE_00.ALA");
    write_model("Data/M/Sub/B.ALO");
    write_clip("Data/MM/C.ALA");
    {
        amxw_buf c = { 0 }, meg = { 0 };
        amxw_ala_simple(&c, 2, 10, 30.0f, 3, bones, idx, 2);
        amxw_meg_file files[] = { { "DATA\\ART\\W_IDLE_00.ALA", c.data, c.len } };
        amxw_meg(&meg, 1, files, 1);
        put("Data/M/Sub/Models.meg", &meg);
        amxw_buf_free(&c);
    }
    amx_db *db = open_index(0);
    scan(db);

    /* a directory: its files and its subdirectories' (not an archive's members, not the
     * directory whose name it begins), in path order, as on disk */
    stat_rows r = file_stats(db, "Data/M", 0);
    CHECK_EQ(r.n, 4);
    CHECK_STR(r.paths[0], "Data/M/A.ALA");
    CHECK_STR(r.paths[1], "Data/M/A.ALA#b_IDLE_00.ALA");
    CHECK_STR(r.paths[2], "Data/M/Sub/B.ALO");
    CHECK_STR(r.paths[3], "Data/M/Sub/Models.meg");
    for (int i = 0; i < 4 && i < r.n; i++) {
        char path[1400];
        amx_os_stat st;
        snprintf(path, sizeof path, "%s/%s", root, r.paths[i]);
        CHECK_EQ(amx_os_path_stat(path, &st), 0);
        CHECK_EQ(r.size[i], st.size);
        CHECK_EQ(r.mtime_ns[i], st.mtime_ns);
    }
    /* a file: that file alone ('#' sorts before '/': not A.ALA#...) */
    r = file_stats(db, "Data/M/A.ALA", 0);
    CHECK_EQ(r.n, 1);
    CHECK_STR(r.paths[0], "Data/M/A.ALA");
    /* the callback stops it; a path not indexed has none */
    CHECK_EQ(file_stats(db, "Data/M", 2).n, 2);
    CHECK_EQ(file_stats(db, "Data/N", 0).n, 0);
    CHECK_EQ(file_stats(db, "Data/M/A", 0).n, 0);
    amx_db_close(db);
}

/* '#' in a loose file's name: only an archive's members are ARCHIVE#MEMBER. The file keeps
 * its whole name as its stem and directory, and a rename of a file whose path is the part
 * before its '#' leaves it alone (issue 16 item 5), in both orders. */
static void test_hash_names(void)
{
    make_tree();
    write_model("Data/M/A.ALO");
    write_clip("Data/M/A.ALA");
    write_clip("Data/M/A.ALA#b_IDLE_00.ALA");
    write_clip("Data/M/Z.ALA");
    write_clip("Data/M/Y.ALA");
    {
        amxw_buf m = { 0 }, c = { 0 }, meg = { 0 };
        amxw_alo_simple(&m, 3, bones, 1, 12, 1);
        amxw_ala_simple(&c, 2, 10, 30.0f, 3, bones, idx, 2);
        amxw_meg_file files[] = { { "DATA\\ART\\MODELS\\W.ALO", m.data, m.len },
                                  { "DATA\\ART\\MODELS\\W_IDLE_00.ALA", c.data, c.len } };
        amxw_meg(&meg, 1, files, 2);
        put("Data/Models.meg", &meg);
        amxw_buf_free(&m);
        amxw_buf_free(&c);
    }
    amx_db *db = open_index(0);
    scan(db);
    int64_t hash_id = id_of(db, "Data/M/A.ALA#b_IDLE_00.ALA");
    CHECK(hash_id > 0);
    /* a file of its own: no parent, its own stem and directory */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'Data/M/A.ALA#b_IDLE_00.ALA' AND "
                       "parent_id IS NULL AND stem_key = 'A.ALA#B_IDLE_00' AND dir_key = 'DATA/M'"), 1);
    /* the clip is named after the whole stem, and does not bind to A */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE name = 'A.ALA#b_IDLE_00'"), 1);
    /* members still are members, with their own stems */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id IS NOT NULL AND "
                       "stem_key IN ('W', 'W_IDLE_00') AND dir_key = 'DATA/ART/MODELS'"), 2);

    /* mv Z.ALA A.ALA: A.ALA is replaced; A.ALA#b_IDLE_00.ALA is untouched */
    uint64_t moved = 0;
    int64_t z_id = id_of(db, "Data/M/Z.ALA");
    move("Data/M/Z.ALA", "Data/M/A.ALA");
    CHECK_EQ(rename_rel(db, "Data/M/Z.ALA", "Data/M/A.ALA", &moved), AMX_OK);
    CHECK_EQ(moved, 1);
    CHECK_EQ(id_of(db, "Data/M/A.ALA"), z_id);
    CHECK_EQ(id_of(db, "Data/M/A.ALA#b_IDLE_00.ALA"), hash_id);
    amx_scan_stats st = scan(db);
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(id_of(db, "Data/M/A.ALA#b_IDLE_00.ALA"), hash_id);

    /* the other order: mv Y.ALA A.ALA#b_IDLE_00.ALA replaces the '#' file, A.ALA stays */
    int64_t y_id = id_of(db, "Data/M/Y.ALA");
    move("Data/M/Y.ALA", "Data/M/A.ALA#b_IDLE_00.ALA");
    CHECK_EQ(rename_rel(db, "Data/M/Y.ALA", "Data/M/A.ALA#b_IDLE_00.ALA", &moved), AMX_OK);
    CHECK_EQ(moved, 1);
    CHECK_EQ(id_of(db, "Data/M/A.ALA#b_IDLE_00.ALA"), y_id);
    CHECK_EQ(id_of(db, "Data/M/A.ALA"), z_id);
    /* and renaming A.ALA away does not take the '#' file with it */
    move("Data/M/A.ALA", "Data/M/Q.ALA");
    CHECK_EQ(rename_rel(db, "Data/M/A.ALA", "Data/M/Q.ALA", &moved), AMX_OK);
    CHECK_EQ(moved, 1);
    CHECK_EQ(id_of(db, "Data/M/A.ALA#b_IDLE_00.ALA"), y_id);
    st = scan(db);
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path LIKE 'Data/M/%'"), 3);

    /* an archive renamed takes its members along, with their names */
    int64_t meg_id = id_of(db, "Data/Models.meg");
    move("Data/Models.meg", "Data/Other.meg");
    CHECK_EQ(rename_rel(db, "Data/Models.meg", "Data/Other.meg", &moved), AMX_OK);
    CHECK_EQ(moved, 3);
    CHECK_EQ(id_of(db, "Data/Other.meg"), meg_id);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path LIKE 'Data/Other.meg#%' AND "
                       "stem_key IN ('W', 'W_IDLE_00') AND dir_key = 'DATA/ART/MODELS'"), 2);
    st = scan(db); /* its name changed: decoded again (members included), nothing removed */
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id = (SELECT id FROM files "
                       "WHERE path = 'Data/Other.meg')"), 2);
    amx_db_close(db);
}

static int polls_left;

static bool cancel_after(void *user)
{
    (void)user;
    return polls_left-- <= 0;
}

/* A cancelled scan keeps what it wrote and removes nothing; the next scan completes the index. */
static void test_cancelled_scan(void)
{
    make_tree();
    char rel[64];
    for (int i = 0; i < 40; i++) {
        snprintf(rel, sizeof rel, "D%d/UM_X%02d.ALO", i % 4, i);
        write_model(rel);
    }
    amx_db *db = open_index(0);
    char err[512] = "";
    scan(db);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 40);
    /* one file gone, ten new: a scan stopped after a few files must not sweep the gone one
     * (nor any file it never reached) */
    char path[1400];
    snprintf(path, sizeof path, "%s/D0/UM_X00.ALO", root);
    CHECK(unlink(path) == 0);
    for (int i = 0; i < 10; i++) {
        snprintf(rel, sizeof rel, "E/UM_Y%02d.ALO", i);
        write_model(rel);
    }
    polls_left = 3;
    amx_scan_stats st = { 0 };
    amx_scan_opts o = { .root = root, .jobs = 2, .cancelled = cancel_after };
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_E_CANCELLED);
    CHECK(strstr(err, "cancelled") != NULL);
    CHECK(st.files_seen < 49);
    CHECK_EQ(st.files_removed, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path = 'D0/UM_X00.ALO'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path LIKE 'D_/%'"), 40);
    int64_t indexed = q_int(db, "SELECT count(*) FROM files");
    CHECK(indexed >= 40 && indexed < 50);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
    /* a callback that stops at once: nothing read, nothing written */
    polls_left = 0;
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_E_CANCELLED);
    CHECK_EQ(st.files_decoded, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), indexed);
    /* the next full scan completes the index */
    st = scan(db);
    CHECK_EQ(st.files_removed, 1);
    CHECK_EQ(st.files_decoded, (uint64_t)(50 - indexed));
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 49);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE path LIKE 'E/%'"), 10);
    amx_db_close(db);
}

/* With a memory budget smaller than any archive, the workers take turns (each file is read
 * when nothing else is held): the same index, no deadlock, with more threads than files. */
static void test_memory_budget(void)
{
    make_tree();
    write_model("A/UM_P.ALO");
    write_clip("A/UM_P_IDLE_00.ALA");
    amxw_buf model = { 0 }, clip = { 0 };
    amxw_alo_simple(&model, 3, bones, 1, 30000, 1);
    amxw_ala_simple(&clip, 2, 10, 30.0f, 3, bones, idx, 2);
    for (int k = 0; k < 6; k++) {
        char name[64], m1[64], m2[64];
        snprintf(m1, sizeof m1, "DATA\\ART\\MODELS\\UM_Q%d.ALO", k);
        snprintf(m2, sizeof m2, "DATA\\ART\\MODELS\\UM_Q%d_WALK_00.ALA", k);
        amxw_meg_file files[] = { { m1, model.data, model.len }, { m2, clip.data, clip.len } };
        amxw_buf meg = { 0 };
        amxw_meg(&meg, 2, files, 2);
        CHECK(meg.len > (1u << 20)); /* each archive alone exceeds the budget */
        snprintf(name, sizeof name, "M/Pack%d.meg", k);
        put(name, &meg);
    }
    amxw_buf_free(&model);
    amxw_buf_free(&clip);
    amx_config cfg;
    CHECK_EQ(amx_config_init(&cfg), 0);
    cfg.memory_mb = 1;
    amx_db *db = open_index(0);
    char err[512] = "";
    amx_scan_stats st = { 0 };
    amx_scan_opts o = { .root = root, .jobs = 8, .config = &cfg };
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(st.files_decoded, 2 + 6 * 3); /* archives count with their members */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files"), 2 + 6 * 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_name IS NOT NULL "
                       "AND skeleton_name LIKE 'UM_Q_'"), 6);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code NOT LIKE 'REFERENCE%'"), 0);
    amx_db_close(db);
    amx_config_finish(&cfg);
}

static int64_t size_of(const char *path)
{
    amx_os_stat st;
    return amx_os_path_stat(path, &st) == 0 ? st.size : 0;
}

/* The write-ahead log is checkpointed while the writer goes on (lib/index/checkpoint.c), and it
 * stays bounded: 24 MiB written in 384 commits of 64 KiB each never leave more than the 16 MiB
 * of log after which the writer finishes the copy itself, plus one commit. */
static void test_log_checkpoints(void)
{
    make_tree();
    amx_db *db = open_index(0);
    sqlite3 *h = amx_db_handle(db);
    CHECK_EQ(sqlite3_exec(h, "CREATE TABLE scratch(data BLOB)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *ins = NULL;
    CHECK_EQ(sqlite3_prepare_v2(h, "INSERT INTO scratch VALUES (zeroblob(65536))", -1, &ins,
                                NULL), SQLITE_OK);
    char wal[320];
    snprintf(wal, sizeof wal, "%s-wal", dbpath);
    int64_t most = 0;
    for (int i = 0; i < 384; i++) {
        CHECK_EQ(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
        CHECK_EQ(sqlite3_step(ins), SQLITE_DONE);
        sqlite3_reset(ins);
        CHECK_EQ(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
        int64_t w = size_of(wal);
        if (w > most)
            most = w;
    }
    sqlite3_finalize(ins);
    CHECK(most <= (int64_t)(4000 + 40) * (4096 + 24));
    CHECK(size_of(dbpath) > 8 << 20); /* the log was copied into the database as it went */
    amx_db_close(db);
    db = open_index(AMX_DB_READONLY);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM scratch WHERE length(data) = 65536"), 384);
    amx_db_close(db);
}

/* Findings, bindings and reference resolutions of the index, by path: a digest to compare. */
static uint64_t link_digest(amx_db *db, int64_t *rows)
{
    static const char *const sql[] = {
        "SELECT f.path, x.origin, x.code, x.severity, x.message, x.context, "
        "coalesce(x.offset, -1) FROM findings x JOIN files f ON f.id = x.file_id "
        "ORDER BY 1, 2, 3, 4, 5, 6, 7",
        "SELECT f.path, c.name, coalesce(s.name, ''), coalesce(b.how, ''), coalesce(b.via, ''), "
        "coalesce(b.bones_bad, -1), coalesce(c.skeleton_key, ''), c.bones_missing, c.linked "
        "FROM clips c JOIN files f ON f.id = c.file_id LEFT JOIN clip_bindings b ON "
        "b.clip_id = c.id LEFT JOIN skeletons s ON s.id = b.skeleton_id ORDER BY 1, 2, 3, 4",
        "SELECT f.path, r.kind, r.name, coalesce(t.path, ''), r.resolution, r.linked FROM refs r "
        "JOIN files f ON f.id = r.file_id LEFT JOIN files t ON t.id = r.target_id "
        "ORDER BY 1, 2, 3, 4",
    };
    uint64_t h = 1469598103934665603ULL;
    *rows = 0;
    for (size_t q = 0; q < sizeof sql / sizeof sql[0]; q++) {
        sqlite3_stmt *s = NULL;
        CHECK_EQ(sqlite3_prepare_v2(amx_db_handle(db), sql[q], -1, &s, NULL), SQLITE_OK);
        while (s && sqlite3_step(s) == SQLITE_ROW) {
            (*rows)++;
            for (int c = 0; c < sqlite3_column_count(s); c++) {
                const unsigned char *t = sqlite3_column_text(s, c);
                for (; t && *t; t++)
                    h = (h ^ *t) * 1099511628211ULL;
                h = (h ^ 0xFF) * 1099511628211ULL;
            }
        }
        sqlite3_finalize(s);
    }
    return h;
}

/* The link pass with helper threads (a batch of 256 files or more, --jobs > 1) writes what the
 * writer alone writes: 40 models with 8 clips each, every fifth model with its bones in
 * another order than its clips (bone findings), scanned with one thread and with four. */
static void test_link_helpers(void)
{
    make_tree();
    static const char *const reordered[] = { "Root", "Turret", "Hull" };
    static const char *const types[] = { "IDLE", "MOVE", "DIE", "ATTACK", "TURNL", "TURNR",
                                         "SPINMOVE", "LAND" };
    for (int m = 0; m < 40; m++) {
        char rel[128];
        amxw_buf b = { 0 };
        amxw_alo_simple(&b, 3, m % 5 == 0 ? reordered : bones, 1, 12, (uint32_t)m);
        snprintf(rel, sizeof rel, "Data/Art/Models/UNIT_%02d.ALO", m);
        put(rel, &b);
        for (int c = 0; c < 8; c++) {
            amxw_ala_simple(&b, 2, 10, 30.0f, 3, bones, idx, (uint32_t)(m * 8 + c));
            snprintf(rel, sizeof rel, "Data/Art/Models/UNIT_%02d_%s_00.ALA", m, types[c]);
            put(rel, &b);
        }
    }
    uint64_t digest[2];
    int64_t rows[2];
    for (int run = 0; run < 2; run++) {
        test_remove_index(NULL, dbpath);
        amx_db *db = open_index(0);
        char err[512] = "";
        amx_scan_stats st = { 0 };
        amx_scan_opts o = { .root = root, .jobs = run ? 4 : 1 };
        CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
        CHECK_EQ(st.clips_linked, 320);
        CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 320);
        CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'BONE_INDEX_MISMATCH'"),
                 8 * 8 * 2); /* Hull and Turret swapped in 8 models of 8 clips */
        digest[run] = link_digest(db, &rows[run]);
        amx_db_close(db);
    }
    CHECK(rows[0] >= 320 + 128); /* the clips, the bone findings and the models' references */
    CHECK_EQ(rows[1], rows[0]);
    CHECK(digest[1] == digest[0]);
}

/* A small index keeps no planner statistics (lib/index/db.c, amx_db_close): planned on a few
 * rows, lookups would scan whole tables once the index grows. */
static void test_no_small_statistics(void)
{
    make_tree();
    write_model("Data/Art/Models/UM_Q.ALO");
    write_clip("Data/Art/Models/UM_Q_IDLE_00.ALA");
    amx_db *db = open_index(0);
    scan(db);
    amx_db_close(db);
    db = open_index(AMX_DB_READONLY);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_stat1 WHERE CAST(stat AS INTEGER) < 1000"), 0);
    amx_db_close(db);
}

int main(void)
{
    RUN(test_migrations);
    RUN(test_foreign_keys_indexed);
    RUN(test_decoder_version_bump);
    RUN(test_long_text_header);
    RUN(test_interrupted_archive);
    RUN(test_link_follows_models);
    RUN(test_scoped_scan);
    char why[300];
    bool links = test_links_work(why, sizeof why);
    RUN_IF(links, test_scope_through_link, why);
    RUN(test_shallow_scan);
    RUN(test_rename);
    RUN(test_hash_names);
    RUN(test_file_stats);
    RUN(test_cancelled_scan);
    RUN(test_memory_budget);
    RUN(test_log_checkpoints);
    RUN(test_link_helpers);
    RUN(test_no_small_statistics);
    make_tree(); /* removes the last test's tree and index */
    return test_done();
}
