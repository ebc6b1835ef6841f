/*
 * Read-only queries on the index. Every query is one prepared statement on indexed columns;
 * configured severity overrides are applied to findings as they are read (the index stores the
 * decoder's severity, so changing the config never needs a rescan).
 */
#include "common/grow.h"
#include "db_internal.h"
#include "resolve/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *col(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : NULL;
}

static const char *col_or(sqlite3_stmt *s, int i, const char *dflt)
{
    const char *t = col(s, i);
    return t ? t : dflt;
}

static amx_status prep(amx_db *db, const char *sql, sqlite3_stmt **s, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(db->db, sql, -1, s, NULL) != SQLITE_OK)
        return amx__db_error(db, "index: query", err, errlen);
    return AMX_OK;
}

static amx_status finish(amx_db *db, sqlite3_stmt *s, int rc, char *err, size_t errlen)
{
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? AMX_OK : amx__db_error(db, "index: query", err, errlen);
}

/* The severity a finding is reported with: the config's override for its code, else as stored. */
static amx_severity effective(const amx_config *cfg, const char *code, const char *stored)
{
    amx_code c;
    if (cfg && amx_code_parse(code, &c) && cfg->severity_set[c])
        return cfg->severity[c];
    amx_severity sev = AMX_SEV_ERROR;
    amx_severity_parse(stored, &sev);
    return sev;
}

/* The findings of roots scanned only as base layers are left out unless asked. */
#define TARGETS_ONLY "f.root_id IN (SELECT id FROM roots WHERE role = 'target')"

/* True when every root is a scan target (no base layers): then leaving base layers out is a
 * no-op, and the counts need no join with files. */
static bool all_targets(amx_db *db)
{
    sqlite3_stmt *s = NULL;
    bool yes = false;
    if (sqlite3_prepare_v2(amx_db_handle(db), "SELECT NOT EXISTS (SELECT 1 FROM roots WHERE "
                           "role <> 'target')", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        yes = sqlite3_column_int(s, 0) != 0;
    sqlite3_finalize(s);
    return yes;
}

amx_status amx_query_summary(amx_db *db, const amx_config *cfg, bool include_base,
                             amx_summary *out, char *err, size_t errlen)
{
    *out = (amx_summary){ 0 };
    if (!include_base && all_targets(db))
        include_base = true; /* the same counts, without the joins */
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, "SELECT format, status, count(*) FROM files GROUP BY format, status", &s,
                         err, errlen);
    if (st)
        return st;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_format f = AMX_FMT_UNKNOWN;
        amx_format_parse(col_or(s, 0, ""), &f);
        uint64_t n = (uint64_t)sqlite3_column_int64(s, 2);
        if (f == AMX_FMT_UNKNOWN && strcmp(col_or(s, 1, ""), "ignored") == 0) {
            out->other_files += n;
            continue;
        }
        out->files += n;
        out->by_format[f] += n;
    }
    if ((st = finish(db, s, rc, err, errlen)))
        return st;
    char sql[2000];
    snprintf(sql, sizeof sql,
             "SELECT (SELECT count(*) FROM clips), (SELECT count(*) FROM skeletons), "
             "(SELECT count(*) FROM models WHERE kind = 'model'), "
             "(SELECT count(*) FROM models WHERE kind = 'particle'), "
             /* clips that should have a skeleton and have none (MW3 definitions have none by
              * design and get no such finding; a clip's finding has the context 'skeleton', a
              * W3D HLOD's or HMODEL's names the model), and clips no model loads by name */
             "(SELECT count(*) FROM findings i %s WHERE i.code = 'SKELETON_NOT_FOUND' "
             "AND i.context = 'skeleton' %s), "
             "(SELECT count(*) FROM findings i %s WHERE i.code = 'CLIP_NOT_LOADED_BY_NAME' %s), "
             "(SELECT count(*) FROM findings i %s WHERE i.code = 'ANIMATION_NOT_REACHED' %s)",
             include_base ? "" : "JOIN files f ON f.id = i.file_id",
             include_base ? "" : "AND " TARGETS_ONLY,
             include_base ? "" : "JOIN files f ON f.id = i.file_id",
             include_base ? "" : "AND " TARGETS_ONLY,
             include_base ? "" : "JOIN files f ON f.id = i.file_id",
             include_base ? "" : "AND " TARGETS_ONLY);
    if ((st = prep(db, sql, &s, err, errlen)))
        return st;
    if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        out->clips = (uint64_t)sqlite3_column_int64(s, 0);
        out->skeletons = (uint64_t)sqlite3_column_int64(s, 1);
        out->models = (uint64_t)sqlite3_column_int64(s, 2);
        out->particles = (uint64_t)sqlite3_column_int64(s, 3);
        out->clips_unbound = (uint64_t)sqlite3_column_int64(s, 4);
        out->clips_not_loaded = (uint64_t)sqlite3_column_int64(s, 5);
        out->clips_not_reached = (uint64_t)sqlite3_column_int64(s, 6);
        rc = SQLITE_DONE;
    }
    if ((st = finish(db, s, rc, err, errlen)))
        return st;
    /* what a base layer might have had: the findings that count (a code turned off in the
     * config does not) */
    snprintf(sql, sizeof sql,
             "SELECT i.code, i.severity, count(*) FROM findings i JOIN files f ON f.id = i.file_id "
             "WHERE i.code IN ('REFERENCE_NOT_FOUND', 'SKELETON_NOT_FOUND') AND NOT EXISTS "
             "(SELECT 1 FROM root_layers l WHERE l.root_id = f.root_id) %s "
             "GROUP BY i.code, i.severity",
             include_base ? "" : "AND " TARGETS_ONLY);
    if ((st = prep(db, sql, &s, err, errlen)))
        return st;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (effective(cfg, col_or(s, 0, ""), col_or(s, 1, "")) <= AMX_SEV_ERROR)
            out->not_found_without_bases += (uint64_t)sqlite3_column_int64(s, 2);
    if ((st = finish(db, s, rc, err, errlen)))
        return st;
    snprintf(sql, sizeof sql,
             "SELECT i.code, i.severity, count(*) FROM findings i %s GROUP BY i.code, i.severity",
             include_base ? "" : "JOIN files f ON f.id = i.file_id WHERE " TARGETS_ONLY);
    if ((st = prep(db, sql, &s, err, errlen)))
        return st;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_severity sev = effective(cfg, col_or(s, 0, ""), col_or(s, 1, ""));
        if (sev <= AMX_SEV_ERROR)
            out->findings[sev] += (uint64_t)sqlite3_column_int64(s, 2);
    }
    return finish(db, s, rc, err, errlen);
}

#define CLIP_COLUMNS \
    "r.path, f.path, c.name, coalesce(c.skeleton_name, c.skeleton_hint), f.format, c.frames, " \
    "c.fps, c.duration, c.bones_missing, c.track_count, c.skeleton_id IS NOT NULL, c.details"

static void read_clip(sqlite3_stmt *s, int base, amx_clip_row *r)
{
    *r = (amx_clip_row){
        .root = col_or(s, base, ""),
        .path = col_or(s, base + 1, ""),
        .clip = col_or(s, base + 2, ""),
        .skeleton = col(s, base + 3),
        .format = col_or(s, base + 4, ""),
        .frames = sqlite3_column_type(s, base + 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, base + 5),
        .fps = sqlite3_column_double(s, base + 6),
        .duration = sqlite3_column_double(s, base + 7),
        .bones_missing = sqlite3_column_int64(s, base + 8),
        .tracks = sqlite3_column_int64(s, base + 9),
        .bound = sqlite3_column_int(s, base + 10) != 0,
        .details = col(s, base + 11),
    };
}

/* Every skeleton a clip is checked against. */
static amx_status show_bindings(amx_db *db, int64_t clip_id, const amx_show_callbacks *cb,
                                void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "SELECT b.how, b.via, k.name, sr.path, sf.path, b.bones_bad, "
                         "sf.root_id <> cf.root_id FROM clip_bindings b "
                         "JOIN skeletons k ON k.id = b.skeleton_id JOIN files sf ON sf.id = k.file_id "
                         "JOIN roots sr ON sr.id = sf.root_id JOIN clips c ON c.id = b.clip_id "
                         "JOIN files cf ON cf.id = c.file_id WHERE b.clip_id = ?1 ORDER BY b.rowid",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_int64(s, 1, clip_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_binding_row b = { .how = col_or(s, 0, ""), .via = col_or(s, 1, ""),
                              .skeleton = col_or(s, 2, ""), .root = col_or(s, 3, ""),
                              .path = col_or(s, 4, ""), .bones_bad = sqlite3_column_int64(s, 5),
                              .base_layer = sqlite3_column_int(s, 6) != 0 };
        cb->binding(&b, user);
    }
    return finish(db, s, rc, err, errlen);
}

static void read_object(sqlite3_stmt *s, amx_object_row *o)
{
    *o = (amx_object_row){ .type = col_or(s, 0, ""), .name = col_or(s, 1, ""),
                           .variant_of = col(s, 2), .root = col_or(s, 3, ""),
                           .path = col_or(s, 4, ""), .line = sqlite3_column_int64(s, 5),
                           .tag = col(s, 6), .value = col(s, 7) };
}

/* Runs `sql` (one parameter: `id`, columns as read_object reads them) and hands each row to
 * `fn`. */
static amx_status each_object(amx_db *db, const char *sql, int64_t id,
                              void (*fn)(const amx_object_row *o, void *user), void *user,
                              char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, sql, &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_int64(s, 1, id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_object_row o;
        read_object(s, &o);
        fn(&o, user);
    }
    return finish(db, s, rc, err, errlen);
}

/* An XML file's game objects, each with the files it names. */
static amx_status show_objects(amx_db *db, int64_t file_id, const amx_show_callbacks *cb,
                               void *user, char *err, size_t errlen)
{
    return each_object(db,
                       "SELECT o.type, o.name, o.variant, r.path, f.path, coalesce(x.line, o.line), "
                       "x.tag, x.name FROM game_objects o JOIN files f ON f.id = o.file_id "
                       "JOIN roots r ON r.id = f.root_id LEFT JOIN refs x ON x.object_id = o.id "
                       "WHERE o.file_id = ?1 ORDER BY o.id, x.id",
                       file_id, cb->object, user, err, errlen);
}

/* The game objects whose model tags name this model: the tag's value found at the model's
 * logical path, in the model's root or a root that sits on it; and the SAGE INI objects whose
 * states draw this W3D file (their Model reference found it). */
static amx_status show_used_by(amx_db *db, int64_t file_id, const amx_show_callbacks *cb,
                               void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "WITH RECURSIVE m AS (SELECT stem_key, lkey, root_id FROM files "
                         "WHERE id = ?1 AND format IN ('alamo-alo', 'alamo-particle')), "
                         "dep(id) AS (SELECT root_id FROM m UNION SELECT l.root_id FROM "
                         "root_layers l JOIN dep ON l.base_id = dep.id) "
                         "SELECT o.type, o.name, o.variant, r.path, f.path, x.line, x.tag, x.name, "
                         "(SELECT lkey FROM m) FROM refs x JOIN game_objects o ON o.id = x.object_id "
                         "JOIN files f ON f.id = x.file_id JOIN roots r ON r.id = f.root_id "
                         "WHERE x.kind IN ('model', 'model-or-particle') AND x.key = (SELECT stem_key FROM m) AND "
                         "f.root_id IN dep ORDER BY r.path, f.path, x.line",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_int64(s, 1, file_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_object_row o;
        read_object(s, &o);
        char keys[2][AMX_LKEY_MAX];
        size_t n = amx__model_lkeys(o.value, keys);
        const char *lkey = col_or(s, 8, "");
        bool hit = false;
        for (size_t i = 0; i < n && !hit; i++)
            hit = strcmp(keys[i], lkey) == 0;
        if (hit)
            cb->used_by(&o, user);
    }
    st = finish(db, s, rc, err, errlen);
    if (st)
        return st;
    /* SAGE INI: the objects whose draw states' Model finds this W3D file */
    st = each_object(db,
              "SELECT o.type, o.name, o.variant, r.path, f.path, x.line, x.tag, x.name FROM refs x "
              "JOIN game_objects o ON o.id = x.object_id JOIN files f ON f.id = x.file_id "
              "JOIN roots r ON r.id = f.root_id WHERE x.target_id = ?1 AND x.kind = 'w3d-model' "
              "AND x.resolution = 'found' ORDER BY r.path, f.path, x.line",
              file_id, cb->used_by, user, err, errlen);
    if (st)
        return st;
    /* and the ObjectReskin / ChildObject copies of those that draw nothing of their own */
    st = each_object(db,
              "WITH RECURSIVE d(id, depth) AS (SELECT DISTINCT object_id, 0 FROM refs WHERE "
              "target_id = ?1 AND kind = 'w3d-model' AND resolution = 'found' AND object_id IS NOT "
              "NULL UNION SELECT c.id, d.depth + 1 FROM d JOIN game_objects p ON p.id = d.id "
              "JOIN game_objects c ON c.variant_key = p.name_key WHERE d.depth < 16 AND NOT "
              "EXISTS (SELECT 1 FROM refs y WHERE y.object_id = c.id AND y.kind = 'w3d-model')) "
              "SELECT o.type, o.name, o.variant, r.path, f.path, o.line, o.type, o.variant FROM d "
              "JOIN game_objects o ON o.id = d.id JOIN files f ON f.id = o.file_id JOIN roots r ON "
              "r.id = f.root_id WHERE d.depth > 0 ORDER BY r.path, f.path, o.line LIMIT 10000",
              file_id, cb->used_by, user, err, errlen);
    return st;
}

/* The text lines of a clip's details (rendered when the clip was indexed). */
static amx_status show_details(amx_db *db, int64_t clip_id, const amx_show_callbacks *cb,
                               void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "SELECT json_extract(l.value, '$[0]'), json_extract(l.value, '$[1]') "
                         "FROM clips c, json_each(c.details, '$.lines') l WHERE c.id = ?1 "
                         "ORDER BY l.key",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_int64(s, 1, clip_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        cb->detail(col_or(s, 0, ""), col_or(s, 1, ""), user);
    return finish(db, s, rc, err, errlen);
}

/* Steps a statement of CLIP_COLUMNS and the binding's skeleton root, path, how and via, one
 * row each (`bound`: every row is a binding), and finishes it. */
static amx_status binding_rows(amx_db *db, sqlite3_stmt *s, bool bound,
                               void (*row)(const amx_clip_row *r, void *user), void *user,
                               char *err, size_t errlen)
{
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_clip_row r;
        read_clip(s, 0, &r);
        r.bound |= bound;
        r.skeleton_root = col(s, 12);
        r.skeleton_path = col(s, 13);
        r.how = col(s, 14);
        r.via = col(s, 15);
        row(&r, user);
    }
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_clips(amx_db *db, const char *skeleton,
                           void (*row)(const amx_clip_row *r, void *user), void *user, char *err,
                           size_t errlen)
{
    char *key = amx__upper(skeleton);
    if (!key)
        return AMX_E_NOMEM;
    sqlite3_stmt *s = NULL;
    /* bound: one row per binding to a skeleton of this name; unbound: the clips targeting it */
    amx_status st = prep(db,
                         "SELECT r.path, f.path, c.name, k.name, f.format, c.frames, c.fps, "
                         "c.duration, b.bones_bad, c.track_count, 1, c.details, sr.path, sf.path, "
                         "b.how, b.via FROM skeletons k "
                         "JOIN clip_bindings b ON b.skeleton_id = k.id "
                         "JOIN clips c ON c.id = b.clip_id JOIN files f ON f.id = c.file_id "
                         "JOIN roots r ON r.id = f.root_id JOIN files sf ON sf.id = k.file_id "
                         "JOIN roots sr ON sr.id = sf.root_id WHERE k.name_key = ?1 "
                         "UNION ALL "
                         "SELECT " CLIP_COLUMNS ", NULL, NULL, NULL, NULL FROM clips c "
                         "JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "
                         "WHERE c.skeleton_key = ?1 AND c.skeleton_id IS NULL "
                         "ORDER BY 1, 2, 14",
                         &s, err, errlen);
    if (st) {
        free(key);
        return st;
    }
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    free(key);
    return binding_rows(db, s, false, row, user, err, errlen);
}

amx_status amx_query_clips_for_model(amx_db *db, const char *model,
                                     void (*row)(const amx_clip_row *r, void *user), void *user,
                                     char *err, size_t errlen)
{
    char *key = amx__upper(model);
    if (!key)
        return AMX_E_NOMEM;
    char stem[AMX_REF_KEY_MAX];
    amx__ref_key(AMX_REF_W3D_MODEL, model, stem, sizeof stem);
    sqlite3_stmt *s = NULL;
    /* bound skeletons: of an Alamo model file of that stem, of the hierarchy of a W3D render
     * object of that name, or of that name (Metroid Prime characters); then the INI references
     * that play an animation on a model of that name */
    amx_status st = prep(db,
        "WITH k(id) AS (SELECT s.id FROM files mf JOIN skeletons s ON s.file_id = mf.id "
        "WHERE mf.stem_key = ?1 AND mf.format = 'alamo-alo' "
        "UNION SELECT s.id FROM w3d_objects o JOIN skeletons s ON s.name_key = o.hierarchy_key "
        "WHERE o.name_key = ?1 AND o.hierarchy_key <> '' "
        "UNION SELECT s.id FROM skeletons s JOIN files sf ON sf.id = s.file_id WHERE "
        "s.name_key = ?1 AND sf.format = 'mp-cinf') "
        "SELECT r.path, f.path, c.name, sk.name, f.format, c.frames, c.fps, c.duration, "
        "b.bones_bad, c.track_count, 1, c.details, sr.path, sf.path, b.how, b.via FROM k "
        "JOIN skeletons sk ON sk.id = k.id JOIN clip_bindings b ON b.skeleton_id = k.id "
        "JOIN clips c ON c.id = b.clip_id JOIN files f ON f.id = c.file_id "
        "JOIN roots r ON r.id = f.root_id JOIN files sf ON sf.id = sk.file_id "
        "JOIN roots sr ON sr.id = sf.root_id "
        "UNION ALL "
        "SELECT " CLIP_COLUMNS ", (SELECT kr.path FROM skeletons k2 JOIN files f2 ON "
        "f2.id = k2.file_id JOIN roots kr ON kr.id = f2.root_id WHERE k2.id = c.skeleton_id), "
        "(SELECT f2.path FROM skeletons k2 JOIN files f2 ON f2.id = k2.file_id WHERE "
        "k2.id = c.skeleton_id), 'ini', "
        "printf('object ''%s''%s, %s:%d', coalesce(o.name, '?'), coalesce(' (' || st.kind || "
        "CASE WHEN st.flags <> '' THEN ' ' || st.flags ELSE '' END || ')', ''), xf.path, x.line) "
        "FROM refs x JOIN files xf ON xf.id = x.file_id "
        "LEFT JOIN game_objects o ON o.id = x.object_id "
        "LEFT JOIN object_states st ON st.id = x.state_id "
        "JOIN clips c ON c.file_id = x.target_id AND c.name_key = x.key "
        "JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "
        "WHERE x.model_key = ?2 AND upper(x.model) = ?1 AND x.kind = 'w3d-animation' AND "
        "x.resolution = 'found' ORDER BY 1, 2, 3",
        &s, err, errlen);
    if (st) {
        free(key);
        return st;
    }
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, stem, -1, SQLITE_TRANSIENT);
    free(key);
    return binding_rows(db, s, true, row, user, err, errlen);
}

/* Every clip with the skeleton it is bound to (binding_rows' columns), before a WHERE clause */
#define CLIPS_BOUND_TO                                                                          \
    "SELECT " CLIP_COLUMNS ", sr.path, sf.path, "                                               \
    "(SELECT how FROM clip_bindings b WHERE b.clip_id = c.id AND "                              \
    "b.skeleton_id = c.skeleton_id), (SELECT via FROM clip_bindings b WHERE "                   \
    "b.clip_id = c.id AND b.skeleton_id = c.skeleton_id) FROM clips c "                         \
    "JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "                        \
    "LEFT JOIN skeletons k ON k.id = c.skeleton_id "                                            \
    "LEFT JOIN files sf ON sf.id = k.file_id "                                                  \
    "LEFT JOIN roots sr ON sr.id = sf.root_id "

amx_status amx_query_all_clips(amx_db *db, void (*row)(const amx_clip_row *r, void *user),
                               void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    /* a row per binding (the first skeleton's is among them), then the clips bound to none */
    amx_status st = prep(db,
                         "SELECT r.path, f.path, c.name, k.name, f.format, c.frames, c.fps, "
                         "c.duration, b.bones_bad, c.track_count, 1, c.details, sr.path, sf.path, "
                         "b.how, b.via FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                         "JOIN skeletons k ON k.id = b.skeleton_id "
                         "JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "
                         "JOIN files sf ON sf.id = k.file_id JOIN roots sr ON sr.id = sf.root_id "
                         "UNION ALL "
                         "SELECT " CLIP_COLUMNS ", NULL, NULL, NULL, NULL FROM clips c "
                         "JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "
                         "WHERE c.skeleton_id IS NULL "
                         "ORDER BY 1, 2, 3, 13, 14",
                         &s, err, errlen);
    if (st)
        return st;
    return binding_rows(db, s, false, row, user, err, errlen);
}

amx_status amx_query_file_summary(amx_db *db, const amx_config *cfg, const char *root,
                                  const char *path, amx_file_summary *out, bool *found, char *err,
                                  size_t errlen)
{
    *out = (amx_file_summary){ .format = "?", .status = "?" };
    *found = false;
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "SELECT f.format, f.status, i.code, i.severity FROM files f "
                         "JOIN roots r ON r.id = f.root_id LEFT JOIN findings i ON i.file_id = f.id "
                         "WHERE r.path = ?1 AND f.path = ?2",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        *found = true;
        snprintf(out->format, sizeof out->format, "%s", col_or(s, 0, "?"));
        snprintf(out->status, sizeof out->status, "%s", col_or(s, 1, "?"));
        const char *code = col(s, 2);
        if (!code)
            continue;
        amx_severity sev = effective(cfg, code, col_or(s, 3, ""));
        if (sev > AMX_SEV_ERROR)
            continue; /* off */
        out->findings[sev]++;
        size_t n = strlen(out->codes);
        if (!strstr(out->codes, code) && n + strlen(code) + 3 < sizeof out->codes)
            snprintf(out->codes + n, sizeof out->codes - n, "%s%s", n ? ", " : "", code);
    }
    return finish(db, s, rc, err, errlen);
}

/* ---- paths as typed ---- */

#define PATH_COLUMNS "r.path, f.path, f.format, coalesce(length(a.path), 0) "
#define PATH_FROM                                                                             \
    "FROM files f JOIN roots r ON r.id = f.root_id LEFT JOIN files a ON a.id = f.parent_id "

static amx_status path_rows(amx_db *db, sqlite3_stmt *s, amx_path_cb row, void *user, char *err,
                            size_t errlen)
{
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_path_row r = { .root = col_or(s, 0, ""), .path = col_or(s, 1, ""),
                           .format = col_or(s, 2, ""),
                           .member_at = (size_t)sqlite3_column_int64(s, 3) };
        if (row(&r, user)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    return finish(db, s, rc, err, errlen);
}

/* A path in any case goes through lkey, the upper-cased path the games look files up by: the
 * root's prefix and the path for a loose file, the name in its archive for a member. */
#define ROOT_OF "(SELECT id FROM roots WHERE path = ?1)"
#define PREFIX_OF "(SELECT lkey_prefix FROM roots WHERE path = ?1)"

amx_status amx_query_path_at(amx_db *db, const char *root, const char *path, bool fold,
                             amx_path_cb row, void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, fold
        ? "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.lkey = " PREFIX_OF " || upper(?2) AND "
          "f.root_id = " ROOT_OF " AND f.parent_id IS NULL AND f.status <> 'ignored' UNION ALL "
          /* ARCHIVE#MEMBER: the member of the archive found the same way */
          "SELECT " PATH_COLUMNS PATH_FROM "WHERE instr(?2, '#') > 0 AND f.lkey = "
          "upper(substr(?2, instr(?2, '#') + 1)) AND f.parent_id IN (SELECT x.id FROM files x "
          "WHERE x.lkey = " PREFIX_OF " || upper(substr(?2, 1, instr(?2, '#') - 1)) AND "
          "x.root_id = " ROOT_OF " AND x.parent_id IS NULL) AND f.status <> 'ignored' "
          "ORDER BY 2"
        : "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.root_id = " ROOT_OF " AND f.path = ?2 AND "
          "f.status <> 'ignored'", &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    return path_rows(db, s, row, user, err, errlen);
}

amx_status amx_query_path_skipped(amx_db *db, const char *root, const char *path, bool fold,
                                  bool *skipped, char *found, size_t found_cap, char *err,
                                  size_t errlen)
{
    *skipped = false;
    sqlite3_stmt *s = NULL;
    /* the path as typed first, then the first in any case */
    amx_status st = prep(db, fold
        ? "SELECT f.path FROM files f WHERE f.root_id = " ROOT_OF " AND f.status = 'ignored' AND "
          "(f.path = ?2 OR (f.parent_id IS NULL AND f.lkey = " PREFIX_OF " || upper(?2))) "
          "ORDER BY f.path <> ?2, f.path LIMIT 1"
        : "SELECT f.path FROM files f WHERE f.root_id = " ROOT_OF " AND f.status = 'ignored' AND "
          "f.path = ?2 LIMIT 1", &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *skipped = true;
        if (found)
            snprintf(found, found_cap, "%s", col_or(s, 0, ""));
        rc = SQLITE_DONE;
    }
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_path_under(amx_db *db, const char *root, const char *dir, bool fold,
                                amx_path_cb row, void *user, char *err, size_t errlen)
{
    /* "dir/" < path < "dir0": '0' follows '/' in byte order (in any case: upper-cased, as lkey) */
    static const char *const sql[2][2] = {
        { "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.root_id = " ROOT_OF " AND f.parent_id IS "
          "NULL AND f.status <> 'ignored' ORDER BY f.path",
          "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.root_id = " ROOT_OF " AND f.path > ?2 AND "
          "f.path < ?3 AND f.parent_id IS NULL AND f.status <> 'ignored' ORDER BY f.path" },
        { "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.root_id = " ROOT_OF " AND f.parent_id IS "
          "NULL AND f.status <> 'ignored' ORDER BY f.path",
          "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.lkey > " PREFIX_OF " || upper(?2) AND "
          "f.lkey < " PREFIX_OF " || upper(?3) AND f.root_id = " ROOT_OF " AND "
          "f.parent_id IS NULL AND f.status <> 'ignored' ORDER BY f.lkey" },
    };
    size_t n = strlen(dir);
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, sql[fold][n > 0], &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    if (n) {
        char *lo = malloc(n + 2);
        if (!lo) {
            sqlite3_finalize(s);
            snprintf(err, errlen, "out of memory");
            return AMX_E_NOMEM;
        }
        memcpy(lo, dir, n);
        lo[n] = '/';
        lo[n + 1] = '\0';
        sqlite3_bind_text(s, 2, lo, -1, SQLITE_TRANSIENT);
        lo[n] = '0';
        sqlite3_bind_text(s, 3, lo, -1, SQLITE_TRANSIENT);
        free(lo);
    }
    return path_rows(db, s, row, user, err, errlen);
}

amx_status amx_query_path_named(amx_db *db, const char *name, amx_path_cb row, void *user,
                                char *err, size_t errlen)
{
    char stem[1024];
    amx_path_stem(name, stem, sizeof stem);
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, "SELECT " PATH_COLUMNS PATH_FROM "WHERE f.stem_key = upper(?1) AND "
                             "f.status <> 'ignored' ORDER BY r.path, f.path", &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, stem, -1, SQLITE_TRANSIENT);
    return path_rows(db, s, row, user, err, errlen);
}

amx_status amx_query_skeleton_exists(amx_db *db, const char *name, bool *exists, char *err,
                                     size_t errlen)
{
    sqlite3_stmt *s = NULL;
    *exists = false;
    amx_status st = prep(db, "SELECT EXISTS (SELECT 1 FROM skeletons WHERE name_key = upper(?1))",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *exists = sqlite3_column_int(s, 0) != 0;
        rc = SQLITE_DONE;
    }
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_dependents(amx_db *db, const char *root, const char *path,
                                void (*row)(const char *root, const char *path, void *user),
                                void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(
        db,
        "WITH given(id) AS ("
        "  SELECT f.id FROM files f JOIN roots r ON r.id = f.root_id"
        "  WHERE r.path = ?1 AND f.path = ?2"
        "  UNION ALL SELECT m.id FROM files f JOIN roots r ON r.id = f.root_id"
        "  JOIN files m ON m.parent_id = f.id WHERE r.path = ?1 AND f.path = ?2),"
        " dependent(id) AS ("
        "  SELECT c.file_id FROM given g JOIN skeletons k ON k.file_id = g.id"
        "  JOIN clip_bindings b ON b.skeleton_id = k.id JOIN clips c ON c.id = b.clip_id"
        "  UNION SELECT x.file_id FROM given g JOIN refs x ON x.target_id = g.id)"
        "SELECT r.path, f.path FROM dependent d JOIN files f ON f.id = d.id"
        " JOIN roots r ON r.id = f.root_id ORDER BY r.path, f.path",
        &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        row(col_or(s, 0, ""), col_or(s, 1, ""), user);
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_files(amx_db *db, const char *root,
                           void (*row)(const char *path, const char *format, void *user),
                           void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "SELECT f.path, f.format FROM files f JOIN roots r ON r.id = f.root_id "
                         "WHERE r.path = ?1 AND f.status <> 'ignored' ORDER BY f.path",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        row(col_or(s, 0, ""), col_or(s, 1, ""), user);
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_file_stats(amx_db *db, const char *root, const char *path,
                                bool (*row)(const char *path, int64_t size, int64_t mtime_ns,
                                            void *user),
                                void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    /* '/' sorts right before '0': one range of the (root_id, path) index from path to what is
     * below it; the names that merely begin with path ("A.ALA#x", "A.ALA.bak") are left out */
    amx_status st = prep(db,
                         "SELECT f.path, f.size, f.mtime_ns FROM files f JOIN roots r "
                         "ON r.id = f.root_id WHERE r.path = ?1 AND f.path >= ?2 AND "
                         "f.path < ?2 || '0' AND (f.path = ?2 OR f.path > ?2 || '/') AND "
                         "f.parent_id IS NULL ORDER BY f.path",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (row(col_or(s, 0, ""), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2), user)) {
            rc = SQLITE_DONE;
            break;
        }
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_scans(amx_db *db,
                           void (*row)(const char *root, int64_t finished_at, int64_t files_seen,
                                       void *user),
                           void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    /* SQLite takes the bare columns of a max() aggregate from the row with the maximum. */
    amx_status st = prep(db,
                         "SELECT r.path, max(s.finished_at), s.files_seen FROM scans s "
                         "JOIN roots r ON r.id = s.root_id WHERE s.finished_at IS NOT NULL "
                         "GROUP BY s.root_id ORDER BY r.path",
                         &s, err, errlen);
    if (st)
        return st;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        row(col_or(s, 0, ""), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2), user);
    return finish(db, s, rc, err, errlen);
}

static amx_status skeletons_where(amx_db *db, const char *bone,
                                  void (*row)(const amx_skeleton_row *r, void *user), void *user,
                                  char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    char sql[700];
    snprintf(sql, sizeof sql,
             "SELECT r.path, f.path, s.name, f.format, s.bone_count, "
             /* every clip checked against it (clips --skeleton lists them): the clips
              * bound to it first and those an XML override also binds to it */
             "(SELECT count(DISTINCT b.clip_id) FROM clip_bindings b WHERE b.skeleton_id = s.id) "
             "FROM skeletons s JOIN files f ON f.id = s.file_id "
             "JOIN roots r ON r.id = f.root_id %s ORDER BY s.name_key, f.path",
             bone ? "WHERE EXISTS (SELECT 1 FROM bones b WHERE b.skeleton_id = s.id AND "
                    "b.name_key = upper(?1))" : "");
    amx_status st = prep(db, sql, &s, err, errlen);
    if (st)
        return st;
    if (bone)
        sqlite3_bind_text(s, 1, bone, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_skeleton_row r = {
            .root = col_or(s, 0, ""), .path = col_or(s, 1, ""), .skeleton = col_or(s, 2, ""),
            .format = col_or(s, 3, ""), .bones = sqlite3_column_int64(s, 4),
            .clips = sqlite3_column_int64(s, 5),
        };
        row(&r, user);
    }
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_skeletons(amx_db *db, void (*row)(const amx_skeleton_row *r, void *user),
                               void *user, char *err, size_t errlen)
{
    return skeletons_where(db, NULL, row, user, err, errlen);
}

amx_status amx_query_skeletons_with_bone(amx_db *db, const char *bone,
                                         void (*row)(const amx_skeleton_row *r, void *user),
                                         void *user, char *err, size_t errlen)
{
    return skeletons_where(db, bone, row, user, err, errlen);
}

amx_status amx_query_clips_with_bone(amx_db *db, const char *bone,
                                     void (*row)(const amx_clip_row *r, void *user), void *user,
                                     char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         CLIPS_BOUND_TO "WHERE EXISTS (SELECT 1 FROM clip_tracks t WHERE "
                         "t.clip_id = c.id AND amx_tracks_have_bone(t.data, ?1)) "
                         "ORDER BY r.path, f.path, c.id",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, bone, -1, SQLITE_TRANSIENT);
    return binding_rows(db, s, false, row, user, err, errlen);
}

static void read_issue(sqlite3_stmt *s, int base, const amx_config *cfg, amx_issue_row *r)
{
    *r = (amx_issue_row){
        .root = col_or(s, base, ""),
        .path = col_or(s, base + 1, ""),
        .code = col_or(s, base + 2, ""),
        .message = col_or(s, base + 4, ""),
        .offset = sqlite3_column_type(s, base + 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, base + 5),
        .context = col_or(s, base + 6, ""),
        .format = col_or(s, base + 7, ""),
        .container = col(s, base + 8),
    };
    r->severity = effective(cfg, r->code, col_or(s, base + 3, ""));
}

#define ISSUE_COLUMNS "r.path, f.path, i.code, i.severity, i.message, i.offset, i.context, f.format, " \
                      "(SELECT a.path FROM files a WHERE a.id = f.parent_id)"

/* The WHERE clause of a filter (?1 code, ?2 path prefix) and whether it needs the roots. */
static void issue_where(amx_db *db, const amx_issue_filter *f, char *out, size_t n)
{
    bool base = f->include_base || all_targets(db);
    snprintf(out, n, "%s %s %s %s", base ? "" : "AND r.role = 'target'",
             f->code ? "AND i.code = ?1" : "",
             f->path_prefix ? "AND (f.path = ?2 OR (f.path > ?2 || '/' AND f.path < ?2 || '0'))"
                            : "",
             f->root ? "AND r.path = ?3" : "");
}

static amx_status bind_issue_filter(sqlite3_stmt *s, const amx_issue_filter *f)
{
    if (f->code) {
        char *code = amx__upper(f->code);
        if (!code)
            return AMX_E_NOMEM;
        sqlite3_bind_text(s, 1, code, -1, SQLITE_TRANSIENT);
        free(code);
    }
    if (f->path_prefix)
        sqlite3_bind_text(s, 2, f->path_prefix, -1, SQLITE_TRANSIENT);
    if (f->root)
        sqlite3_bind_text(s, 3, f->root, -1, SQLITE_TRANSIENT);
    return AMX_OK;
}

/* Prepares `sql` with the filter's parameters bound (*s NULL after an error). */
static amx_status prep_issues(amx_db *db, const char *sql, const amx_issue_filter *f,
                              sqlite3_stmt **s, char *err, size_t errlen)
{
    amx_status st = prep(db, sql, s, err, errlen);
    if (!st && (st = bind_issue_filter(*s, f))) {
        sqlite3_finalize(*s);
        *s = NULL;
    }
    return st;
}

/* Above this many findings of a code, the first `limit` by path are read in path order from
 * the files (streaming, stopping early) rather than sorted from the findings of the code. */
#define ISSUES_SORT_MAX 20000

amx_status amx_query_issues(amx_db *db, const amx_config *cfg, const amx_issue_filter *filter,
                            void (*row)(const amx_issue_row *r, void *user), void *user, char *err,
                            size_t errlen)
{
    amx_issue_filter none = { 0 };
    if (!filter)
        filter = &none;
    /* Only the filters given go into the WHERE clause, so each can use its index. */
    char where[512], sql[2048];
    issue_where(db, filter, where, sizeof where);
    bool stream = filter->limit > 0 || filter->stop;
    if (stream && filter->code) {
        /* a rare code: its findings sorted are cheaper than walking the files */
        sqlite3_stmt *c = NULL;
        amx_status st = prep_issues(db, "SELECT count(*) FROM findings WHERE code = ?1", filter,
                                    &c, err, errlen);
        if (st)
            return st;
        int rc = sqlite3_step(c);
        stream = rc == SQLITE_ROW && sqlite3_column_int64(c, 0) > ISSUES_SORT_MAX;
        if ((st = finish(db, c, rc == SQLITE_ROW ? SQLITE_DONE : rc, err, errlen)))
            return st;
    }
    if (stream) /* roots, then files in path order (the table's (root_id, path) key, in byte
                 * order, not the case-blind index), then each file's findings */
        snprintf(sql, sizeof sql,
                 "SELECT " ISSUE_COLUMNS " FROM roots r CROSS JOIN files f INDEXED BY "
                 "sqlite_autoindex_files_1 CROSS JOIN findings i "
                 "WHERE f.root_id = r.id AND i.file_id = f.id %s "
                 "ORDER BY r.path, f.path, coalesce(i.offset, -1), i.id", where);
    else
        snprintf(sql, sizeof sql,
                 "SELECT " ISSUE_COLUMNS " FROM findings i JOIN files f ON f.id = i.file_id "
                 "JOIN roots r ON r.id = f.root_id WHERE 1 %s "
                 "ORDER BY r.path, f.path, coalesce(i.offset, -1), i.id", where);
    sqlite3_stmt *s = NULL;
    amx_status st = prep_issues(db, sql, filter, &s, err, errlen);
    if (st)
        return st;
    int rc;
    size_t given = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_issue_row r;
        read_issue(s, 0, cfg, &r);
        if (r.severity == AMX_SEV_OFF)
            continue;
        if (filter->has_min_severity && r.severity < filter->min_severity)
            continue;
        row(&r, user);
        if ((filter->limit && ++given >= filter->limit) || (filter->stop && *filter->stop)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    return finish(db, s, rc, err, errlen);
}

/* One group of findings the filters count: a code with one stored severity. */
typedef struct count_group {
    char *code;
    amx_severity severity; /* as reported (the configuration applied) */
    uint64_t findings, files;
} count_group;

static void free_groups(count_group *g, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free(g[k].code);
    free(g);
}

/* Runs `sql` (the filter bound) and gives *out its one integer. */
static amx_status count_one(amx_db *db, const char *sql, const amx_issue_filter *f, uint64_t *out,
                            char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep_issues(db, sql, f, &s, err, errlen);
    if (st)
        return st;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *out = (uint64_t)sqlite3_column_int64(s, 0);
        rc = SQLITE_DONE;
    }
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_issue_counts(amx_db *db, const amx_config *cfg,
                                  const amx_issue_filter *filter,
                                  void (*row)(const amx_issue_count *c, void *user), void *user,
                                  uint64_t *files_total, char *err, size_t errlen)
{
    amx_issue_filter none = { 0 };
    if (!filter)
        filter = &none;
    char where[512], from[1024], sql[2048];
    issue_where(db, filter, where, sizeof where);
    bool join = strstr(where, "f.") != NULL;
    bool roots = strstr(where, "r.") != NULL;
    /* with no filter on files or roots, the findings_code index holds all it needs */
    snprintf(from, sizeof from, "FROM findings i %s %s WHERE 1 %s",
             join || roots ? "JOIN files f ON f.id = i.file_id" : "",
             roots ? "JOIN roots r ON r.id = f.root_id" : "", where);
    /* Counted per code and stored severity, as the configuration and --severity judge each
     * stored severity; the groups that count are kept, in code order. */
    snprintf(sql, sizeof sql,
             "SELECT i.code, i.severity, count(*), count(DISTINCT i.file_id) %s "
             "GROUP BY i.code, i.severity ORDER BY i.code", from);
    sqlite3_stmt *s = NULL;
    amx_status st = prep_issues(db, sql, filter, &s, err, errlen);
    if (st)
        return st;
    count_group *g = NULL;
    size_t n = 0, cap = 0;
    bool left_out = false; /* a group the filters or the configuration leave out */
    bool split = false;    /* a code counted with two severities: its files are counted again */
    sqlite3_str *pairs = sqlite3_str_new(db->db); /* the groups counted, as SQL values */
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *code = col_or(s, 0, ""), *stored = col_or(s, 1, "");
        amx_severity sev = effective(cfg, code, stored);
        if (sev == AMX_SEV_OFF || (filter->has_min_severity && sev < filter->min_severity)) {
            left_out = true;
            continue;
        }
        if (!amx__grow((void **)&g, &cap, n, sizeof *g) || !(g[n].code = strdup(code))) {
            sqlite3_finalize(s);
            sqlite3_free(sqlite3_str_finish(pairs));
            free_groups(g, n);
            return AMX_E_NOMEM;
        }
        g[n].severity = sev;
        g[n].findings = (uint64_t)sqlite3_column_int64(s, 2);
        g[n].files = (uint64_t)sqlite3_column_int64(s, 3);
        split |= n && strcmp(g[n - 1].code, code) == 0;
        sqlite3_str_appendf(pairs, "%s(%Q, %Q)", n ? ", " : "", code, stored);
        n++;
    }
    char *values = sqlite3_str_finish(pairs);
    st = finish(db, s, rc, err, errlen);
    if (!st && n && !values)
        st = AMX_E_NOMEM;
    /* the SQL of the groups counted, where some are left out */
    char *only = st || !n ? NULL
               : sqlite3_mprintf(" AND (i.code, i.severity) IN (VALUES %s)", values);
    if (!st && n && !only)
        st = AMX_E_NOMEM;
    /* a file with findings of one code at two severities is one file of the code */
    uint64_t *code_files = st || !split ? NULL : calloc(n, sizeof *code_files);
    if (!st && split && !code_files)
        st = AMX_E_NOMEM;
    if (!st && split) {
        char *q = sqlite3_mprintf("SELECT i.code, count(DISTINCT i.file_id) %s%s GROUP BY i.code "
                                  "ORDER BY i.code", from, only);
        if (!q)
            st = AMX_E_NOMEM;
        else if (!(st = prep_issues(db, q, filter, &s, err, errlen))) {
            size_t k = 0;
            while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                const char *code = col_or(s, 0, "");
                while (k < n && strcmp(g[k].code, code) < 0)
                    k++;
                for (; k < n && strcmp(g[k].code, code) == 0; k++)
                    code_files[k] = (uint64_t)sqlite3_column_int64(s, 1);
            }
            st = finish(db, s, rc, err, errlen);
        }
        sqlite3_free(q);
    }
    /* a line per code: its findings by severity, the most severe, its files */
    for (size_t k = 0; !st && k < n;) {
        amx_issue_count c = { .code = g[k].code, .severity = g[k].severity,
                              .files = code_files ? code_files[k] : g[k].files };
        for (size_t first = k; k < n && strcmp(g[k].code, g[first].code) == 0; k++) {
            c.findings += g[k].findings;
            if (g[k].severity <= AMX_SEV_ERROR)
                c.by_severity[g[k].severity] += g[k].findings;
            if (g[k].severity > c.severity)
                c.severity = g[k].severity;
        }
        row(&c, user);
    }
    /* the files with any finding counted */
    if (!st && files_total) {
        *files_total = 0;
        if (n) {
            char *q = sqlite3_mprintf("SELECT count(DISTINCT i.file_id) %s%s", from,
                                      left_out ? only : "");
            st = q ? count_one(db, q, filter, files_total, err, errlen) : AMX_E_NOMEM;
            sqlite3_free(q);
        }
    }
    sqlite3_free(only);
    sqlite3_free(values);
    free(code_files);
    free_groups(g, n);
    return st;
}

static amx_status show_one(amx_db *db, const amx_config *cfg, int64_t id,
                           const amx_show_callbacks *cb, void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "SELECT f.id, r.path, f.path, f.format, f.version, f.status, p.path, f.size, "
                         "f.mtime_ns, f.hash, f.decoder_version FROM files f "
                         "JOIN roots r ON r.id = f.root_id LEFT JOIN files p ON p.id = f.parent_id "
                         "WHERE f.id = ?1",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_int64(s, 1, id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && cb->file) {
        amx_show_file f = {
            .id = id, .root = col_or(s, 1, ""), .path = col_or(s, 2, ""), .format = col_or(s, 3, ""),
            .version = col_or(s, 4, ""), .status = col_or(s, 5, ""), .container = col(s, 6),
            .size = sqlite3_column_int64(s, 7), .mtime_ns = sqlite3_column_int64(s, 8),
            .hash = (uint64_t)sqlite3_column_int64(s, 9), .decoder_version = sqlite3_column_int64(s, 10),
        };
        cb->file(&f, user);
    }
    if ((st = finish(db, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, err, errlen)))
        return st;

    /* skeletons and bones */
    if ((st = prep(db,
                   "SELECT s.id, s.name, s.bone_count, b.idx, b.name, b.parent FROM skeletons s "
                   "LEFT JOIN bones b ON b.skeleton_id = s.id WHERE s.file_id = ?1 ORDER BY s.id, b.idx",
                   &s, err, errlen)))
        return st;
    sqlite3_bind_int64(s, 1, id);
    int64_t last = -1;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (sqlite3_column_int64(s, 0) != last) {
            last = sqlite3_column_int64(s, 0);
            if (cb->skeleton)
                cb->skeleton(col_or(s, 1, ""), sqlite3_column_int64(s, 2), user);
        }
        if (sqlite3_column_type(s, 3) != SQLITE_NULL && cb->bone)
            cb->bone(sqlite3_column_int64(s, 3), col_or(s, 4, ""), sqlite3_column_int64(s, 5), user);
    }
    if ((st = finish(db, s, rc, err, errlen)))
        return st;

    /* clips and tracks */
    if ((st = prep(db,
                   "SELECT c.id, " CLIP_COLUMNS ", t.data "
                   "FROM clips c JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "
                   "LEFT JOIN clip_tracks t ON t.clip_id = c.id WHERE c.file_id = ?1 ORDER BY c.id",
                   &s, err, errlen)))
        return st;
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t clip_id = sqlite3_column_int64(s, 0);
        amx_clip_row c;
        read_clip(s, 1, &c);
        if (cb->clip)
            cb->clip(&c, user);
        if (cb->binding && (st = show_bindings(db, clip_id, cb, user, err, errlen))) {
            sqlite3_finalize(s);
            return st;
        }
        if (c.details && cb->detail && (st = show_details(db, clip_id, cb, user, err, errlen))) {
            sqlite3_finalize(s);
            return st;
        }
        if (!cb->track)
            continue;
        amx__tracks_iter it;
        amx__track_row t;
        char channels[64];
        amx__tracks_begin(&it, sqlite3_column_blob(s, 13), (size_t)sqlite3_column_bytes(s, 13));
        while (amx__tracks_next(&it, &t))
            cb->track(t.idx, t.bone, t.bone_index,
                      amx__channel_list(t.channels, channels, sizeof channels), user);
        bool bad = it.bad;
        amx__tracks_end(&it);
        if (bad) {
            sqlite3_finalize(s);
            snprintf(err, errlen, "index: the tracks of clip %lld are damaged; delete the index and "
                     "scan again to rebuild it", (long long)clip_id);
            return AMX_E_DB;
        }
    }
    if ((st = finish(db, s, rc, err, errlen)))
        return st;

    /* model summary and meshes */
    if ((st = prep(db,
                   "SELECT kind, name, mesh_count, submesh_count, vertex_count, triangle_count, "
                   "light_count, proxy_count, dazzle_count, emitter_count FROM models WHERE file_id = ?1",
                   &s, err, errlen)))
        return st;
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_model_row m = {
            .kind = col_or(s, 0, ""), .name = col_or(s, 1, ""),
            .meshes = sqlite3_column_int64(s, 2), .submeshes = sqlite3_column_int64(s, 3),
            .vertices = sqlite3_column_int64(s, 4), .triangles = sqlite3_column_int64(s, 5),
            .lights = sqlite3_column_int64(s, 6), .proxies = sqlite3_column_int64(s, 7),
            .dazzles = sqlite3_column_int64(s, 8), .emitters = sqlite3_column_int64(s, 9),
        };
        if (cb->model)
            cb->model(&m, user);
    }
    if ((st = finish(db, s, rc, err, errlen)))
        return st;
    if ((st = prep(db,
                   "SELECT name, materials, vertices, triangles, shaders, hidden, collision "
                   "FROM meshes WHERE file_id = ?1 ORDER BY idx",
                   &s, err, errlen)))
        return st;
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (cb->mesh)
            cb->mesh(col_or(s, 0, ""), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
                     sqlite3_column_int64(s, 3), col_or(s, 4, ""), sqlite3_column_int(s, 5) != 0,
                     sqlite3_column_int(s, 6) != 0, user);
    if ((st = finish(db, s, rc, err, errlen)))
        return st;

    /* game objects: of this XML file, or those that use this model */
    if (cb->object && (st = show_objects(db, id, cb, user, err, errlen)))
        return st;
    if (cb->used_by && (st = show_used_by(db, id, cb, user, err, errlen)))
        return st;

    /* archive members */
    if ((st = prep(db, "SELECT path, format, status FROM files WHERE parent_id = ?1 ORDER BY path",
                   &s, err, errlen)))
        return st;
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (cb->member)
            cb->member(col_or(s, 0, ""), col_or(s, 1, ""), col_or(s, 2, ""), user);
    if ((st = finish(db, s, rc, err, errlen)))
        return st;

    /* findings */
    if ((st = prep(db,
                   "SELECT " ISSUE_COLUMNS " FROM findings i JOIN files f ON f.id = i.file_id "
                   "JOIN roots r ON r.id = f.root_id WHERE i.file_id = ?1 "
                   "ORDER BY coalesce(i.offset, -1), i.id",
                   &s, err, errlen)))
        return st;
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_issue_row r;
        read_issue(s, 0, cfg, &r);
        if (r.severity != AMX_SEV_OFF && cb->issue)
            cb->issue(&r, user);
    }
    if ((st = finish(db, s, rc, err, errlen)))
        return st;
    if (cb->end)
        cb->end(user);
    return AMX_OK;
}

/* ---- asset references ---- */

#define REF_COLUMNS                                                                              \
    "r.kind, r.tag, r.name, o.name, coalesce(r.line, 0), coalesce(r.offset, -1), r.resolution, " \
    "tr.path, t.path, t.root_id <> f.root_id"

/* The referring file's root and path, then REF_COLUMNS (the target t and its root tr are
 * joined after this) */
#define REFS_FROM                                                                                \
    "SELECT fr.path, f.path, " REF_COLUMNS " FROM refs r "                                       \
    "JOIN files f ON f.id = r.file_id JOIN roots fr ON fr.id = f.root_id "                      \
    "LEFT JOIN game_objects o ON o.id = r.object_id "

static void read_ref(sqlite3_stmt *s, int base, amx_ref_row *r)
{
    *r = (amx_ref_row){
        .kind = col_or(s, base, ""), .tag = col_or(s, base + 1, ""),
        .name = col_or(s, base + 2, ""), .object = col(s, base + 3),
        .line = sqlite3_column_int64(s, base + 4), .offset = sqlite3_column_int64(s, base + 5),
        .resolution = col(s, base + 6), .target_root = col(s, base + 7),
        .target_path = col(s, base + 8), .target_base = sqlite3_column_int(s, base + 9) != 0,
    };
}

amx_status amx_query_refs(amx_db *db, const char *root, const char *path,
                          void (*file)(const char *root, const char *path, void *user),
                          void (*out)(const amx_ref_row *r, void *user),
                          void (*in)(const amx_ref_row *r, void *user), void *user, int *found,
                          char *err, size_t errlen)
{
    *found = 0;
    sqlite3_stmt *s = NULL, *o = NULL, *i = NULL;
    amx_status st = prep(db,
                         "SELECT f.id, r.path, f.path FROM files f JOIN roots r ON r.id = f.root_id "
                         "WHERE r.path = ?1 AND f.path = ?2",
                         &s, err, errlen);
    /* what the file names (found or not), and what names it */
    if (!st)
        st = prep(db,
                  REFS_FROM "LEFT JOIN files t ON t.id = r.target_id "
                  "LEFT JOIN roots tr ON tr.id = t.root_id WHERE r.file_id = ?1 ORDER BY r.id",
                  &o, err, errlen);
    if (!st)
        st = prep(db,
                  REFS_FROM "JOIN files t ON t.id = r.target_id JOIN roots tr ON tr.id = t.root_id "
                  "WHERE r.target_id = ?1 ORDER BY fr.path, f.path, r.id",
                  &i, err, errlen);
    if (st) {
        sqlite3_finalize(s);
        sqlite3_finalize(o);
        return st;
    }
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        (*found)++;
        int64_t id = sqlite3_column_int64(s, 0);
        if (file)
            file(col_or(s, 1, ""), col_or(s, 2, ""), user);
        sqlite3_stmt *q[2] = { o, i };
        void (*cb[2])(const amx_ref_row *, void *) = { out, in };
        for (int k = 0; k < 2 && rc == SQLITE_ROW; k++) {
            sqlite3_bind_int64(q[k], 1, id);
            int qr;
            while ((qr = sqlite3_step(q[k])) == SQLITE_ROW) {
                amx_ref_row r;
                read_ref(q[k], 2, &r);
                r.root = col_or(q[k], 0, "");
                r.path = col_or(q[k], 1, "");
                if (cb[k])
                    cb[k](&r, user);
            }
            sqlite3_reset(q[k]);
            if (qr != SQLITE_DONE)
                rc = qr;
        }
    }
    sqlite3_finalize(o);
    sqlite3_finalize(i);
    return finish(db, s, rc, err, errlen);
}

#define MAX_REFERRERS 20
#define MAX_SPELLINGS 32

typedef struct missing_group {
    char kind[32], file[1100], name[512], resolution[16]; /* name: the first spelling */
    amx_severity severity;
    int64_t references, files;
    int64_t last_file;
    amx_ref_row rows[MAX_REFERRERS];
    char *owned[MAX_REFERRERS][6];  /* the strings of rows[] */
    size_t n;
    amx_missing_spelling spellings[MAX_SPELLINGS];
    char *spelling_text[MAX_SPELLINGS][2];
    size_t nspellings;
} missing_group;

static void group_clear(missing_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        for (int k = 0; k < 6; k++)
            free(g->owned[i][k]);
    for (size_t i = 0; i < g->nspellings; i++)
        for (int k = 0; k < 2; k++)
            free(g->spelling_text[i][k]);
    memset(g, 0, sizeof *g);
    g->last_file = -1;
}

/* Counts a reference to its spelling (kind and name as written). */
static void group_spelling(missing_group *g, const char *kind, const char *name)
{
    for (size_t i = 0; i < g->nspellings; i++)
        if (strcmp(g->spellings[i].name, name) == 0 && strcmp(g->spellings[i].kind, kind) == 0) {
            g->spellings[i].references++;
            return;
        }
    if (g->nspellings == MAX_SPELLINGS)
        return;
    char **t = g->spelling_text[g->nspellings];
    t[0] = strdup(kind);
    t[1] = strdup(name);
    if (!t[0] || !t[1]) {
        free(t[0]);
        free(t[1]);
        t[0] = t[1] = NULL;
        return;
    }
    g->spellings[g->nspellings++] = (amx_missing_spelling){ .kind = t[0], .name = t[1],
                                                            .references = 1 };
}

static int by_use(const void *a, const void *b)
{
    const amx_missing_spelling *x = a, *y = b;
    if (x->references != y->references)
        return x->references > y->references ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->kind, y->kind);
}

static void group_emit(missing_group *g, void (*row)(const amx_missing_row *r, void *user),
                       void *user)
{
    if (!g->references)
        return;
    qsort(g->spellings, g->nspellings, sizeof *g->spellings, by_use);
    const amx_missing_spelling *first = g->nspellings ? &g->spellings[0] : NULL;
    amx_missing_row r = { .kind = first ? first->kind : g->kind,
                          .name = first ? first->name : g->name,
                          .file = g->file[0] == '|' ? NULL : g->file,
                          .resolution = g->resolution, .severity = g->severity,
                          .references = g->references, .files = g->files,
                          .spellings = g->spellings, .spelling_count = g->nspellings,
                          .referrers = g->rows, .referrer_count = g->n };
    row(&r, user);
}

amx_status amx_query_missing(amx_db *db, const amx_config *cfg, bool include_base,
                             void (*row)(const amx_missing_row *r, void *user), void *user,
                             char *err, size_t errlen)
{
    /* grouped in C over rows in (file, resolution) order; groups sorted by size by a CTE */
    char sql[2600];
    snprintf(sql, sizeof sql,
             "WITH m AS (SELECT r.id, r.file_id, r.kind, r.resolution, "
             /* a SAGE INI reference names no one file: grouped by kind and name */
             "coalesce(nullif(amx_ref_file(r.kind, r.name, f.format), ''), "
             "'|' || r.kind || '|' || upper(trim(r.name))) AS w "
             /* the unresolved references first, whatever the statistics say (0018) */
             "FROM refs r INDEXED BY refs_unresolved CROSS JOIN files f ON f.id = r.file_id "
             "CROSS JOIN roots rt ON rt.id = f.root_id "
             /* the partial index refs_unresolved's WHERE, as written there (0015, 0018) */
             "WHERE (r.resolution = 'missing' OR r.resolution = 'wrong-kind' OR "
             "r.resolution = 'unusable') %s), "
             "n AS (SELECT w, resolution, count(*) AS c FROM m GROUP BY w, resolution) "
             "SELECT m.kind, m.w, m.resolution, rt.path, f.path, r.tag, r.name, o.name, "
             "coalesce(r.line, 0), coalesce(r.offset, -1), f.id, "
             "EXISTS (SELECT 1 FROM root_layers l WHERE l.root_id = f.root_id) "
             "FROM m JOIN n ON n.w = m.w AND n.resolution = m.resolution JOIN refs r ON r.id = m.id "
             "JOIN files f ON f.id = m.file_id JOIN roots rt ON rt.id = f.root_id "
             "LEFT JOIN game_objects o ON o.id = r.object_id "
             "ORDER BY n.c DESC, m.w, m.resolution, rt.path, f.path, r.id",
             include_base ? "" : "AND rt.role = 'target'");
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, sql, &s, err, errlen);
    if (st)
        return st;
    missing_group *g = calloc(1, sizeof *g);
    if (!g) {
        sqlite3_finalize(s);
        return AMX_E_NOMEM;
    }
    group_clear(g);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *kind = col_or(s, 0, ""), *file = col_or(s, 1, ""), *res = col_or(s, 2, "");
        if (strcmp(file, g->file) != 0 || strcmp(res, g->resolution) != 0 || !g->references) {
            group_emit(g, row, user);
            group_clear(g);
            snprintf(g->kind, sizeof g->kind, "%s", kind);
            snprintf(g->file, sizeof g->file, "%s", file);
            snprintf(g->name, sizeof g->name, "%s", col_or(s, 6, file));
            snprintf(g->resolution, sizeof g->resolution, "%s", res);
            g->severity = AMX_SEV_INFO;
        }
        /* REFERENCE_NOT_FOUND is an error where the tree declares base layers */
        bool missing = strcmp(res, "missing") == 0;
        amx_severity sev = effective(cfg, strcmp(res, "unusable") == 0 ? "REFERENCE_UNUSABLE"
                                          : missing ? "REFERENCE_NOT_FOUND"
                                                    : "REFERENCE_WRONG_KIND",
                                     !missing || sqlite3_column_int(s, 11) ? "error" : "info");
        if (sev == AMX_SEV_OFF)
            continue; /* a code turned off in the config: not a missing file to list */
        if (sev > g->severity)
            g->severity = sev;
        g->references++;
        group_spelling(g, kind, col_or(s, 6, ""));
        int64_t fid = sqlite3_column_int64(s, 10);
        if (fid != g->last_file)
            g->files++;
        g->last_file = fid;
        if (g->n < MAX_REFERRERS) {
            char **own = g->owned[g->n];
            const int cols[6] = { 3, 4, 5, 6, 7, 0 };
            for (int k = 0; k < 6; k++)
                own[k] = col(s, cols[k]) ? strdup(col(s, cols[k])) : NULL;
            g->rows[g->n] = (amx_ref_row){
                .root = own[0] ? own[0] : "", .path = own[1] ? own[1] : "",
                .tag = own[2] ? own[2] : "", .name = own[3] ? own[3] : "", .object = own[4],
                .kind = own[5] ? own[5] : g->kind, .resolution = g->resolution,
                .line = sqlite3_column_int64(s, 8), .offset = sqlite3_column_int64(s, 9) };
            g->n++;
        }
    }
    if (rc == SQLITE_DONE)
        group_emit(g, row, user);
    group_clear(g);
    free(g);
    return finish(db, s, rc, err, errlen);
}

amx_status amx_query_show_file(amx_db *db, const amx_config *cfg, const char *root,
                               const char *path, const amx_show_callbacks *cb, void *user,
                               int *found, char *err, size_t errlen)
{
    *found = 0;
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db,
                         "SELECT f.id FROM files f JOIN roots r ON r.id = f.root_id "
                         "WHERE r.path = ?1 AND f.path = ?2",
                         &s, err, errlen);
    if (st)
        return st;
    sqlite3_bind_text(s, 1, root, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, path, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    if ((st = finish(db, s, rc == SQLITE_ROW ? SQLITE_DONE : rc, err, errlen)))
        return st;
    if (!id)
        return AMX_OK;
    *found = 1;
    return show_one(db, cfg, id, cb, user, err, errlen);
}

amx_status amx_query_changes(amx_db *db, int64_t since_scan, int64_t since_time,
                             void (*row)(const amx_change_row *r, void *user), void *user,
                             char *err, size_t errlen)
{
    const char *which = since_scan >= 0   ? "(c.scan_id > ?1 OR c.scan_id IS NULL)"
                        : since_time >= 0 ? "c.at >= ?2"
                                          : "(c.scan_id IS NULL OR c.scan_id = (SELECT max(id) FROM "
                                            "scans s WHERE s.root_id = c.root_id AND "
                                            "s.finished_at IS NOT NULL))";
    char sql[800];
    snprintf(sql, sizeof sql,
             "SELECT coalesce(c.scan_id, -1), c.at, r.path, c.path, c.change, c.format "
             "FROM scan_changes c JOIN roots r ON r.id = c.root_id WHERE %s "
             "ORDER BY r.path, coalesce(c.scan_id, 9223372036854775807), c.path, c.id",
             which);
    sqlite3_stmt *s = NULL;
    amx_status st = prep(db, sql, &s, err, errlen);
    if (st)
        return st;
    if (since_scan >= 0)
        sqlite3_bind_int64(s, 1, since_scan);
    if (since_time >= 0)
        sqlite3_bind_int64(s, 2, since_time);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_change_row r = { .scan_id = sqlite3_column_int64(s, 0), .at = sqlite3_column_int64(s, 1),
                             .root = col_or(s, 2, ""), .path = col_or(s, 3, ""),
                             .change = col_or(s, 4, ""), .format = col_or(s, 5, "") };
        row(&r, user);
    }
    return finish(db, s, rc, err, errlen);
}
