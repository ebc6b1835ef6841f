/*
 * The link pass: binds clips to skeletons and checks every clip bone against its skeleton.
 *
 * Resolution, per clip marked unlinked (a new or changed clip, or one whose candidate skeleton
 * was added, changed or removed):
 *   1. the name the file states or its naming convention gives (W3D hierarchy name; EaW
 *      MODEL_TYPE_NN.ALA -> MODEL);
 *   2. animation sets that name the clip (Metroid Prime ANCS): every skeleton that plays it is
 *      checked, the clip is bound to the first indexed one;
 *   3. for Alamo clips, the longest model name that prefixes the clip name at a '_' (covers
 *      names outside the convention, such as VSF_Tie_Aggressor_Hyperspace_In.ala);
 *   among skeletons of one name, the one whose directory shares the longest tail with the
 *   clip's directory (same directory first, then the same directory tree), then the same root,
 *   then the first by path (so the choice never depends on the order files were indexed).
 * MechWarrior 3 definitions are not bound: their anim root is a world node, not a skeleton.
 * Models built on a named skeleton (W3D HLODs, HMODELs) are resolved the same way as clips: the
 * skeleton must be indexed and hold every bone the model uses.
 * Bone check: every track must name the skeleton's bone at its index (case-insensitive; names
 * repeat within skeletons, so never by name alone); tracks that carry only an id (Metroid Prime)
 * must name a bone id of the skeleton, and so must the clip's root bone: BONE_INDEX_MISMATCH when the name sits at
 * another index, BONE_NOT_IN_SKELETON when it is nowhere. Findings of this pass have origin
 * 'link' and are recomputed without re-decoding the clip.
 */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bone { int64_t idx; char *name, *key; } bone;

typedef struct linker {
    amx_db *db;
    sqlite3_stmt *files_todo, *clips_of_file, *sets_of_clip, *candidates, *bones, *tracks,
        *update_clip, *del_link_findings, *ins_finding, *refs_of_file, *update_ref;
    char *err;
    size_t errlen;
} linker;

static const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : NULL;
}

/* Number of trailing '/'-separated directory components two directory keys share. */
static int common_tail(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int parts = 0;
    while (la && lb) {
        size_t sa = la, sb = lb;
        while (sa && a[sa - 1] != '/')
            sa--;
        while (sb && b[sb - 1] != '/')
            sb--;
        if (la - sa != lb - sb || memcmp(a + sa, b + sb, la - sa) != 0)
            break;
        parts++;
        la = sa ? sa - 1 : 0;
        lb = sb ? sb - 1 : 0;
        if (!sa || !sb)
            break;
    }
    return parts;
}

typedef struct pick { int64_t id, bone_count; char name[256]; } pick;

/* Finds the best skeleton named `key` for a clip in `dir_key` under root `root_id`. */
static int find_skeleton(linker *l, const char *key, const char *dir_key, int64_t root_id, pick *out)
{
    sqlite3_stmt *s = l->candidates;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    int best = -1, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int score = common_tail(col_text(s, 2) ? col_text(s, 2) : "", dir_key) * 2 +
                    (sqlite3_column_int64(s, 3) == root_id);
        if (score > best) {
            best = score;
            out->id = sqlite3_column_int64(s, 0);
            snprintf(out->name, sizeof out->name, "%s", col_text(s, 1) ? col_text(s, 1) : "");
            out->bone_count = sqlite3_column_int64(s, 4);
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    return best >= 0;
}

static int add_finding(linker *l, int64_t file_id, amx_code code, int64_t offset, const char *ctx,
                       const char *msg)
{
    sqlite3_stmt *s = l->ins_finding;
    const amx_code_info *ci = amx_code_get(code);
    sqlite3_bind_int64(s, 1, file_id);
    sqlite3_bind_text(s, 2, ci->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, amx_severity_name(ci->severity), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, msg, -1, SQLITE_TRANSIENT);
    if (offset >= 0)
        sqlite3_bind_int64(s, 5, offset);
    else
        sqlite3_bind_null(s, 5);
    sqlite3_bind_text(s, 6, ctx, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void free_bones(bone *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(b[i].name);
        free(b[i].key);
    }
    free(b);
}

static int load_bones(linker *l, int64_t skel_id, bone **out, size_t *count)
{
    sqlite3_stmt *s = l->bones;
    sqlite3_bind_int64(s, 1, skel_id);
    bone *b = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            bone *g = realloc(b, cap * sizeof *g);
            if (!g) {
                rc = SQLITE_NOMEM;
                break;
            }
            b = g;
        }
        b[n].idx = sqlite3_column_int64(s, 0);
        b[n].name = strdup(col_text(s, 1) ? col_text(s, 1) : "");
        b[n].key = strdup(col_text(s, 2) ? col_text(s, 2) : "");
        n++;
        if (!b[n - 1].name || !b[n - 1].key) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        free_bones(b, n);
        return -1;
    }
    *out = b;
    *count = n;
    return 0;
}

/* Checks the clip's tracks against the skeleton; returns the number of bad bones, -1 on error. */
static int64_t check_bones(linker *l, int64_t file_id, int64_t clip_id, int64_t skel_id,
                           const char *skel_name, int64_t root_bone)
{
    bone *bones = NULL;
    size_t nb = 0;
    if (load_bones(l, skel_id, &bones, &nb))
        return -1;
    int64_t missing_root = 0;
    if (root_bone >= 0) {
        bool found = false;
        for (size_t i = 0; i < nb && !found; i++)
            found = bones[i].idx == root_bone;
        if (!found) {
            char msg[256];
            snprintf(msg, sizeof msg, "the clip's root bone id %lld is not in skeleton '%s'",
                     (long long)root_bone, skel_name);
            missing_root = 1;
            if (add_finding(l, file_id, AMX_C_BONE_NOT_IN_SKELETON, -1, "root bone", msg)) {
                free_bones(bones, nb);
                return -1;
            }
        }
    }
    sqlite3_stmt *s = l->tracks;
    sqlite3_bind_int64(s, 1, clip_id);
    int64_t bad = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = col_text(s, 0);
        int64_t idx = sqlite3_column_int64(s, 1);
        int64_t off = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 2);
        char ctx[48], msg[512];
        snprintf(ctx, sizeof ctx, "bone %lld", (long long)idx);
        const bone *at = NULL;
        for (size_t i = 0; i < nb; i++)
            if (bones[i].idx == idx)
                at = &bones[i];
        if (!name) {
            if (at)
                continue;
            snprintf(msg, sizeof msg, "bone id %lld is not in skeleton '%s'", (long long)idx, skel_name);
            bad++;
            if (add_finding(l, file_id, AMX_C_BONE_NOT_IN_SKELETON, off, ctx, msg))
                rc = SQLITE_ERROR;
            continue;
        }
        char *key = amx__upper(name);
        if (!key) {
            rc = SQLITE_NOMEM;
            break;
        }
        if (at && strcmp(at->key, key) == 0) {
            free(key);
            continue;
        }
        const bone *elsewhere = NULL;
        for (size_t i = 0; i < nb && !elsewhere; i++)
            if (strcmp(bones[i].key, key) == 0)
                elsewhere = &bones[i];
        free(key);
        bad++;
        amx_code code;
        if (elsewhere) {
            code = AMX_C_BONE_INDEX_MISMATCH;
            if (at)
                snprintf(msg, sizeof msg, "bone %lld '%s' is bone %lld in skeleton '%s', where index %lld is '%s'",
                         (long long)idx, name, (long long)elsewhere->idx, skel_name, (long long)idx, at->name);
            else
                snprintf(msg, sizeof msg, "bone %lld '%s' is bone %lld in skeleton '%s', which has %zu bones",
                         (long long)idx, name, (long long)elsewhere->idx, skel_name, nb);
        } else {
            code = AMX_C_BONE_NOT_IN_SKELETON;
            if (at)
                snprintf(msg, sizeof msg, "bone %lld '%s' is '%s' in skeleton '%s'", (long long)idx, name,
                         at->name, skel_name);
            else
                snprintf(msg, sizeof msg, "bone %lld '%s' is not in skeleton '%s' (%zu bones)", (long long)idx,
                         name, skel_name, nb);
        }
        if (add_finding(l, file_id, code, off, ctx, msg))
            rc = SQLITE_ERROR;
    }
    sqlite3_reset(s);
    free_bones(bones, nb);
    return rc == SQLITE_DONE ? bad + missing_root : -1;
}

/* Records a clip's binding: the skeleton found (p), or none (then the clip is listed under its
 * stated skeleton name, `hint`, upper-cased, when it has one), and its count of bad bones. */
static int store_binding(linker *l, int64_t clip_id, const pick *p, const char *hint, int64_t bad)
{
    sqlite3_stmt *u = l->update_clip;
    sqlite3_bind_int64(u, 1, clip_id);
    if (p) {
        char *key = amx__upper(p->name);
        if (!key)
            return -1;
        sqlite3_bind_int64(u, 2, p->id);
        sqlite3_bind_text(u, 3, p->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(u, 4, key, -1, SQLITE_TRANSIENT);
        free(key);
    } else {
        sqlite3_bind_null(u, 2);
        sqlite3_bind_null(u, 3);
        if (hint[0])
            sqlite3_bind_text(u, 4, hint, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(u, 4);
    }
    sqlite3_bind_int64(u, 5, bad);
    int rc = sqlite3_step(u);
    sqlite3_reset(u);
    sqlite3_clear_bindings(u);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Binds a clip through the animation sets that name it. Returns 1 when sets name it (the clip
 * is then bound or reported), 0 when none does, -1 on a database error. */
static int bind_by_sets(linker *l, int64_t file_id, int64_t clip_id, const char *clip_key,
                        const char *clip_name, const char *dir_key, int64_t root_id,
                        int64_t root_bone)
{
    char keys[16][256];
    int nkeys = 0, rc;
    sqlite3_stmt *s = l->sets_of_clip;
    sqlite3_bind_text(s, 1, clip_key, -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && nkeys < 16)
        snprintf(keys[nkeys++], sizeof keys[0], "%s", col_text(s, 0) ? col_text(s, 0) : "");
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    if (nkeys == 0)
        return 0;
    pick first = { 0 };
    bool any = false;
    int64_t bad = 0;
    for (int i = 0; i < nkeys; i++) {
        pick p = { 0 };
        int found = find_skeleton(l, keys[i], dir_key, root_id, &p);
        if (found < 0)
            return -1;
        char msg[512];
        if (!found) {
            snprintf(msg, sizeof msg, "clip '%.200s' is played by skeleton '%.200s' (a character set says "
                     "so), which is not in the index", clip_name, keys[i]);
            if (add_finding(l, file_id, AMX_C_SKELETON_NOT_FOUND, -1, "skeleton", msg))
                return -1;
            continue;
        }
        int64_t b = check_bones(l, file_id, clip_id, p.id, p.name, root_bone);
        if (b < 0)
            return -1;
        bad += b;
        if (!any)
            first = p;
        any = true;
    }
    return store_binding(l, clip_id, any ? &first : NULL, "", bad) ? -1 : 1;
}

static int link_clip(linker *l, int64_t file_id, sqlite3_stmt *c)
{
    int64_t clip_id = sqlite3_column_int64(c, 0);
    const char *name_key = col_text(c, 1);
    const char *hint = col_text(c, 2);
    const char *format = col_text(c, 3);
    const char *dir_key = col_text(c, 4) ? col_text(c, 4) : "";
    int64_t root_id = sqlite3_column_int64(c, 5);
    const char *clip_name = col_text(c, 6);
    int64_t root_bone = sqlite3_column_type(c, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(c, 7);
    char hint_copy[256] = "", name_copy[256] = "", clip_copy[256] = "", dir_copy[1024] = "";
    snprintf(hint_copy, sizeof hint_copy, "%s", hint ? hint : "");
    snprintf(name_copy, sizeof name_copy, "%s", name_key ? name_key : "");
    snprintf(clip_copy, sizeof clip_copy, "%s", clip_name ? clip_name : "");
    snprintf(dir_copy, sizeof dir_copy, "%s", dir_key);
    bool alamo = format && strcmp(format, "alamo-ala") == 0;
    /* MechWarrior 3 definitions animate world nodes named by their anim root: there is no
     * skeleton file to bind to. `clips --skeleton ROOT` finds them by the stated root. */
    amx_format fmt = AMX_FMT_UNKNOWN;
    amx_format_parse(format ? format : "", &fmt);
    bool unbound_by_design = !amx_format_clips_bind(fmt);

    pick p = { 0 };
    int found = 0;
    if (unbound_by_design)
        return store_binding(l, clip_id, NULL, hint_copy, 0);
    if (hint_copy[0])
        found = find_skeleton(l, hint_copy, dir_copy, root_id, &p);
    if (!found && !hint_copy[0]) {
        /* Animation sets (Metroid Prime ANCS): every skeleton that plays the clip. The clip is
         * bound to the first that is indexed, and checked against each of them. */
        int rc = bind_by_sets(l, file_id, clip_id, name_copy, clip_copy, dir_copy, root_id,
                              root_bone);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
    }
    if (!found && alamo) {
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%s", name_copy);
        for (size_t i = strlen(prefix); found == 0 && i > 0; i--) {
            if (prefix[i - 1] != '_')
                continue;
            prefix[i - 1] = '\0';
            if (prefix[0])
                found = find_skeleton(l, prefix, dir_copy, root_id, &p);
        }
    }
    if (found < 0)
        return -1;
    int64_t bad = 0;
    if (found) {
        bad = check_bones(l, file_id, clip_id, p.id, p.name, root_bone);
        if (bad < 0)
            return -1;
    } else {
        char msg[512];
        if (hint_copy[0])
            snprintf(msg, sizeof msg, "clip '%s' targets skeleton '%s', which is not in the index%s",
                     clip_copy, hint_copy,
                     alamo ? " (no model of that name, nor one whose name prefixes the clip's)" : "");
        else if (alamo)
            snprintf(msg, sizeof msg,
                     "clip '%s' names no skeleton and no indexed model's name prefixes it", clip_copy);
        else
            snprintf(msg, sizeof msg,
                     "clip '%s' names no skeleton, and no character set in the index plays it",
                     clip_copy);
        if (add_finding(l, file_id, AMX_C_SKELETON_NOT_FOUND, -1, "skeleton", msg))
            return -1;
    }
    return store_binding(l, clip_id, found ? &p : NULL, hint_copy, bad);
}

/* A model built on a named skeleton (W3D HLOD/HMODEL): the skeleton must be indexed and have
 * every bone the model uses. */
static int link_ref(linker *l, int64_t file_id, sqlite3_stmt *r)
{
    int64_t ref_id = sqlite3_column_int64(r, 0);
    char what[256], key[256], dir[1024];
    snprintf(what, sizeof what, "%s", col_text(r, 1) ? col_text(r, 1) : "");
    snprintf(key, sizeof key, "%s", col_text(r, 2) ? col_text(r, 2) : "");
    int64_t used = sqlite3_column_int64(r, 3);
    int64_t off = sqlite3_column_type(r, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(r, 4);
    snprintf(dir, sizeof dir, "%s", col_text(r, 5) ? col_text(r, 5) : "");
    int64_t root_id = sqlite3_column_int64(r, 6);
    pick p = { 0 };
    int found = find_skeleton(l, key, dir, root_id, &p);
    if (found < 0)
        return -1;
    char msg[600];
    if (!found) {
        snprintf(msg, sizeof msg, "%.200s is built on skeleton '%.200s', which is not in the index",
                 what, key);
        if (add_finding(l, file_id, AMX_C_SKELETON_NOT_FOUND, off, what, msg))
            return -1;
    } else if (used > p.bone_count) {
        snprintf(msg, sizeof msg, "%.200s uses bone %lld, but skeleton '%.200s' has %lld bones",
                 what, (long long)used - 1, p.name, (long long)p.bone_count);
        if (add_finding(l, file_id, AMX_C_INDEX_OUT_OF_RANGE, off, what, msg))
            return -1;
    }
    sqlite3_stmt *u = l->update_ref;
    sqlite3_bind_int64(u, 1, ref_id);
    if (found)
        sqlite3_bind_int64(u, 2, p.id);
    else
        sqlite3_bind_null(u, 2);
    int rc = sqlite3_step(u);
    sqlite3_reset(u);
    sqlite3_clear_bindings(u);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int link_file(linker *l, int64_t file_id, uint64_t *linked)
{
    sqlite3_bind_int64(l->del_link_findings, 1, file_id);
    int rc = sqlite3_step(l->del_link_findings);
    sqlite3_reset(l->del_link_findings);
    if (rc != SQLITE_DONE)
        return -1;
    /* Every clip of the file is relinked: link findings are kept per file. */
    sqlite3_stmt *c = l->clips_of_file;
    sqlite3_bind_int64(c, 1, file_id);
    while ((rc = sqlite3_step(c)) == SQLITE_ROW) {
        if (link_clip(l, file_id, c)) {
            rc = SQLITE_ERROR;
            break;
        }
        (*linked)++;
    }
    sqlite3_reset(c);
    if (rc != SQLITE_DONE)
        return -1;
    sqlite3_stmt *r = l->refs_of_file;
    sqlite3_bind_int64(r, 1, file_id);
    while ((rc = sqlite3_step(r)) == SQLITE_ROW) {
        if (link_ref(l, file_id, r)) {
            rc = SQLITE_ERROR;
            break;
        }
    }
    sqlite3_reset(r);
    return rc == SQLITE_DONE ? 0 : -1;
}

amx_status amx_link(amx_db *db, uint64_t *linked, char *err, size_t errlen)
{
    uint64_t local = 0;
    if (!linked)
        linked = &local;
    *linked = 0;
    linker l = { .db = db, .err = err, .errlen = errlen };
    static const char *const sql[] = {
        "SELECT file_id FROM clips WHERE linked = 0 UNION "
        "SELECT file_id FROM skeleton_refs WHERE linked = 0 LIMIT 256",
        "SELECT c.id, c.name_key, c.skeleton_hint, f.format, f.dir_key, f.root_id, c.name, "
        "c.root_bone FROM clips c JOIN files f ON f.id = c.file_id WHERE c.file_id = ?1",
        "SELECT DISTINCT skeleton_key FROM anim_sets WHERE clip_key = ?1 ORDER BY skeleton_key",
        "SELECT s.id, s.name, f.dir_key, f.root_id, s.bone_count FROM skeletons s "
        "JOIN files f ON f.id = s.file_id WHERE s.name_key = ?1 ORDER BY f.path, s.id",
        /* a bone is known by its id where the format has ids (Metroid Prime), else its index */
        "SELECT coalesce(bone_id, idx), name, name_key FROM bones WHERE skeleton_id = ?1 ORDER BY idx",
        "SELECT bone_name, bone_index, offset FROM tracks WHERE clip_id = ?1 ORDER BY idx",
        "UPDATE clips SET skeleton_id = ?2, skeleton_name = ?3, skeleton_key = ?4, "
        "bones_missing = ?5, linked = 1 WHERE id = ?1",
        "DELETE FROM findings WHERE file_id = ?1 AND origin = 'link'",
        "INSERT INTO findings(file_id, origin, code, severity, message, offset, context) "
        "VALUES (?1, 'link', ?2, ?3, ?4, ?5, ?6)",
        "SELECT r.id, r.what, r.skeleton_key, r.bones_used, r.offset, f.dir_key, f.root_id "
        "FROM skeleton_refs r JOIN files f ON f.id = r.file_id WHERE r.file_id = ?1",
        "UPDATE skeleton_refs SET skeleton_id = ?2, linked = 1 WHERE id = ?1",
    };
    sqlite3_stmt **slots[] = { &l.files_todo, &l.clips_of_file, &l.sets_of_clip, &l.candidates,
                               &l.bones, &l.tracks, &l.update_clip, &l.del_link_findings,
                               &l.ins_finding, &l.refs_of_file, &l.update_ref };
    amx_status st = AMX_OK;
    for (size_t i = 0; i < sizeof sql / sizeof sql[0] && !st; i++)
        if (sqlite3_prepare_v2(db->db, sql[i], -1, slots[i], NULL) != SQLITE_OK)
            st = amx__db_error(db, "index: preparing the link pass", err, errlen);
    int64_t batch[256];
    while (!st) {
        size_t n = 0;
        int rc;
        while ((rc = sqlite3_step(l.files_todo)) == SQLITE_ROW && n < 256)
            batch[n++] = sqlite3_column_int64(l.files_todo, 0);
        sqlite3_reset(l.files_todo);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
            st = amx__db_error(db, "index: link pass", err, errlen);
            break;
        }
        if (n == 0)
            break;
        if ((st = amx__db_begin(db, err, errlen)))
            break;
        for (size_t i = 0; i < n && !st; i++)
            if (link_file(&l, batch[i], linked))
                st = amx__db_error(db, "index: link pass", err, errlen);
        if (!st)
            st = amx__db_commit(db, err, errlen);
        else
            amx__db_rollback(db);
    }
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        sqlite3_finalize(*slots[i]);
    return st;
}
