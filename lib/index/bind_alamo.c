/*
 * Empire at War / Forces of Corruption: which models play a clip (docs/formats/alamo.md).
 *
 * The engine loads <MODEL>_<TYPE>_<NN>.ALA from the directory of the model it draws, for each
 * animation type of its table (amx_alamo_anim_names): the clip binds to the model file at <its
 * directory>/<MODEL>.ALO for every MODEL its name gives ('name'), and to the model of every game
 * object whose Land_/Space_Model_Anim_Override_Name names MODEL, own or inherited through
 * Variant_Of_Existing_Type, when that model sits in the clip's directory ('xml-override'). No
 * model: one SKELETON_NOT_FOUND naming the models and where they were looked for. A name no
 * model loads: CLIP_NOT_LOADED_BY_NAME (info), with the skeletons that fit all its bones.
 */
#include "link_internal.h"
#include "resolve/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A model an XML value names, found from root `root`; its directory must be `dir_key` (the
 * engine loads the animations from the model's directory). */
static int find_xml_model(linker *l, const char *value, int64_t root, const char *dir_key,
                          pick *p)
{
    char keys[2][AMX_LKEY_MAX];
    size_t n = amx__model_lkeys(value, keys);
    for (size_t i = 0; i < n; i++) {
        int found = link_find_by_lkey(l, keys[i], root, p, NULL);
        if (found < 0)
            return -1;
        if (found) {
            char dir[AMX_LKEY_MAX];
            link_lkey_dir(keys[i], dir, sizeof dir);
            return strcmp(dir, dir_key) == 0;
        }
    }
    return 0;
}

/* True when file `file_id` (logical key `lkey`) is the one the game reads from root `root`: no
 * better-ranked file has its path. */
static int is_winner(linker *l, int64_t file_id, const char *lkey, int64_t root)
{
    sqlite3_bind_text(l->winner_check, 1, lkey, -1, SQLITE_TRANSIENT);
    int64_t best_id = link_first_in_lookup_order(l, l->winner_check, root);
    return best_id < 0 ? -1 : best_id == file_id;
}

/* The model game object `o` uses for `model_tag`: its own tag, else its variant parents'.
 * Fills value; returns 1 found, 0 none, -1 error. */
static int object_model(linker *l, int64_t object_id, const char *model_tag, int64_t root,
                        char *value, size_t n)
{
    int64_t cur = object_id;
    for (int depth = 0; depth < MAX_VARIANT_DEPTH && cur; depth++) {
        sqlite3_stmt *s = l->object_model;
        sqlite3_bind_int64(s, 1, cur);
        sqlite3_bind_text(s, 2, model_tag, -1, SQLITE_STATIC);
        int rc = sqlite3_step(s);
        char variant[256] = "";
        if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
            snprintf(value, n, "%s", col_or(s, 0, ""));
            sqlite3_reset(s);
            return value[0] != '\0';
        }
        if (rc == SQLITE_ROW)
            snprintf(variant, sizeof variant, "%s", col_or(s, 1, ""));
        sqlite3_reset(s);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return -1;
        if (!variant[0])
            return 0;
        /* the parent: the object of that name the root's stack sees first */
        sqlite3_bind_text(l->objects_named, 1, variant, -1, SQLITE_TRANSIENT);
        if ((cur = link_first_in_lookup_order(l, l->objects_named, root)) < 0)
            return -1;
    }
    return 0;
}

/* Binds the clip to the model of object `object_id` (and of its variants that inherit the
 * override). `owner` is the object whose tag at `where` sets the override. */
static int bind_override_object(linker *l, const clip_ctx *c, int64_t object_id,
                                const char *object_name, const char *object_key,
                                const char *model_tag, const char *override_tag,
                                const char *where, const char *owner, bindings *b, int *visited)
{
    if ((*visited)++ >= MAX_OBJECT_WALK)
        return 0;
    char value[512];
    int found = object_model(l, object_id, model_tag, c->root_id, value, sizeof value);
    if (found < 0)
        return -1;
    if (found) {
        pick p;
        int m = find_xml_model(l, value, c->root_id, c->dir_key, &p);
        if (m < 0)
            return -1;
        if (m) {
            char via[512];
            if (strcmp(owner, object_name) == 0)
                snprintf(via, sizeof via, "%.300s (%s of '%.100s')", where, override_tag, owner);
            else
                snprintf(via, sizeof via, "%.250s (%s of '%.80s', inherited by '%.80s')", where,
                         override_tag, owner, object_name);
            link_add_binding(b, &p, "xml-override", via);
        }
    }
    /* variants that do not set the override themselves inherit it */
    sqlite3_stmt *s = l->variants_of;
    sqlite3_bind_text(s, 1, object_key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, override_tag, -1, SQLITE_STATIC);
    typedef struct child { int64_t id; char name[256], key[256]; } child;
    child kids[16];
    size_t nk = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && nk < 16) {
        if (link_layer_of(l, c->root_id, sqlite3_column_int64(s, 3)) < 0)
            continue;
        kids[nk].id = sqlite3_column_int64(s, 0);
        snprintf(kids[nk].name, sizeof kids[nk].name, "%s", col_or(s, 1, ""));
        snprintf(kids[nk].key, sizeof kids[nk].key, "%s", col_or(s, 2, ""));
        nk++;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    for (size_t i = 0; i < nk; i++)
        if (bind_override_object(l, c, kids[i].id, kids[i].name, kids[i].key, model_tag,
                                 override_tag, where, owner, b, visited))
            return -1;
    return 0;
}

/* Game objects whose animation override is `set` (own, in an XML file the stack reads). */
static int bind_overrides(linker *l, const clip_ctx *c, const char *set, bindings *b)
{
    typedef struct ov {
        int64_t object_id, file_id, line;
        char tag[64], object[256], object_key[256], file[1024], lkey[1024];
    } ov;
    ov found[32];
    size_t n = 0, rows = 0;
    if (strcmp(set, l->no_overrides) == 0)
        return 0;
    sqlite3_stmt *s = l->overrides;
    sqlite3_bind_text(s, 1, set, -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && n < 32) {
        rows++;
        if (link_layer_of(l, c->root_id, sqlite3_column_int64(s, 3)) < 0)
            continue;
        ov *o = &found[n++];
        o->object_id = sqlite3_column_int64(s, 0);
        o->file_id = sqlite3_column_int64(s, 2);
        o->line = sqlite3_column_int64(s, 6);
        snprintf(o->tag, sizeof o->tag, "%s", col_or(s, 1, ""));
        snprintf(o->file, sizeof o->file, "%s", col_or(s, 4, ""));
        snprintf(o->lkey, sizeof o->lkey, "%s", col_or(s, 5, ""));
        snprintf(o->object, sizeof o->object, "%s", col_or(s, 7, ""));
        snprintf(o->object_key, sizeof o->object_key, "%s", col_or(s, 8, ""));
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    if (rows == 0 && strlen(set) < sizeof l->no_overrides)
        memcpy(l->no_overrides, set, strlen(set) + 1); /* the query reads nothing the pass writes */
    int visited = 0;
    for (size_t i = 0; i < n; i++) {
        const char *model_tag = amx__override_model_tag(found[i].tag);
        if (!model_tag)
            continue;
        int w = is_winner(l, found[i].file_id, found[i].lkey, c->root_id);
        if (w < 0)
            return -1;
        if (!w)
            continue; /* a file of a higher layer replaces this XML file */
        char where[1100];
        snprintf(where, sizeof where, "%.1000s:%lld", found[i].file, (long long)found[i].line);
        if (bind_override_object(l, c, found[i].object_id, found[i].object, found[i].object_key,
                                 model_tag, found[i].tag, where, found[i].object, b, &visited))
            return -1;
    }
    return 0;
}

/* CLIP_NOT_LOADED_BY_NAME, with the skeletons (of the stack) that fit all the clip's bones. */
static int not_loaded(linker *l, const clip_ctx *c)
{
    /* the clip's tracks */
    typedef struct tr { int64_t idx; char key[256]; } tr;
    tr *t = NULL;
    size_t nt = 0, cap = 0;
    amx__tracks_iter it;
    amx__track_row row;
    bool failed = !link_tracks_of(l, c->id, &it);
    while (!failed && amx__tracks_next(&it, &row)) {
        if (!row.bone)
            continue;
        if (nt == cap) {
            cap = cap ? cap * 2 : 64;
            tr *g = realloc(t, cap * sizeof *g);
            if (!g) {
                failed = true;
                break;
            }
            t = g;
        }
        t[nt].idx = row.bone_index;
        size_t k = 0;
        for (; row.bone[k] && k + 1 < sizeof t[nt].key; k++) {
            char ch = row.bone[k];
            t[nt].key[k] = ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch;
        }
        t[nt].key[k] = '\0';
        nt++;
    }
    failed |= it.bad;
    link_tracks_done(l, &it);
    if (failed) {
        free(t);
        return -1;
    }
    sqlite3_stmt *s;
    int rc;
    char fits[600] = "";
    size_t nfit = 0, at = 0;
    if (nt) {
        /* skeletons with the first track's bone at its index, then every other track checked */
        s = l->fit_candidates;
        sqlite3_bind_text(s, 1, t[0].key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, t[0].idx);
        int64_t cand[64];
        char names[64][256];
        size_t nc = 0;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW && nc < 64) {
            if (link_layer_of(l, c->root_id, sqlite3_column_int64(s, 2)) < 0)
                continue;
            cand[nc] = sqlite3_column_int64(s, 0);
            snprintf(names[nc], sizeof names[nc], "%s", col_or(s, 1, ""));
            nc++;
        }
        sqlite3_reset(s);
        for (size_t i = 0; i < nc && nfit < 3; i++) {
            const skeleton_bones *k = link_skeleton_of(l, cand[i]);
            if (!k) {
                free(t);
                return -1;
            }
            bool all = true;
            for (size_t j = 0; j < nt && all; j++) {
                const bone *b = link_bone_at(k, t[j].idx);
                all = b && strcmp(b->key, t[j].key) == 0;
            }
            if (all && at < sizeof fits)
                at += (size_t)snprintf(fits + at, sizeof fits - at, "%s'%s'", nfit++ ? ", " : "",
                                       names[i]);
        }
    }
    free(t);
    char msg[1200];
    if (nfit)
        snprintf(msg, sizeof msg, "no model loads clip '%s' by name: the engine loads "
                 "<MODEL>_<TYPE>_<NN>.ALA and nothing else; its %zu bones fit skeleton%s %s by "
                 "index and name (rename it <MODEL>_<TYPE>_00 to play it there)",
                 c->name, nt, nfit > 1 ? "s" : "", fits);
    else
        snprintf(msg, sizeof msg, "no model loads clip '%s' by name: the engine loads "
                 "<MODEL>_<TYPE>_<NN>.ALA and nothing else%s", c->name,
                 nt ? "; no indexed skeleton fits all its bones" : "");
    return link_add_finding(l, c->file_id, "link", AMX_C_CLIP_NOT_LOADED_BY_NAME, -1, "clip", msg);
}

int bind_alamo_clip(linker *l, const clip_ctx *c)
{
    amx_alamo_anim_name names[MAX_NAMES];
    size_t nn = amx_alamo_anim_names(c->name, names, MAX_NAMES);
    bindings *b = link_new_bindings();
    if (!b)
        return -1;
    int rc = 0;
    if (nn == 0) {
        rc = not_loaded(l, c);
        if (!rc)
            rc = link_store_bindings(l, c->file_id, c->id, c->root_id, c->root_bone, b, "", c->cur_key);
        free(b);
        return rc;
    }
    if (c->lkey_len > AMX_MAX_ANIM_PATH) {
        /* the engine's animation paths hold 255 characters (PGConstants): it never loads this */
        char msg[600];
        snprintf(msg, sizeof msg, "clip '%.250s' is loaded as a path of %zu characters; the "
                 "engine accepts at most %d for animations and will not load it", c->name,
                 c->lkey_len, AMX_MAX_ANIM_PATH);
        if (link_add_finding(l, c->file_id, "link", AMX_C_REFERENCE_PATH_TOO_LONG, -1, "clip path",
                        msg)) {
            free(b);
            return -1;
        }
    }
    for (size_t i = 0; i < nn && !rc; i++) {
        char *mkey = amx__upper(names[i].model);
        char lkey[AMX_LKEY_MAX + 300];
        if (!mkey) {
            rc = -1;
            break;
        }
        snprintf(lkey, sizeof lkey, "%s%s%s.ALO", c->dir_key, c->dir_key[0] ? "/" : "", mkey);
        pick p;
        int found = link_find_by_lkey(l, lkey, c->root_id, &p, NULL);
        if (found < 0)
            rc = -1;
        else if (found) {
            char via[96];
            snprintf(via, sizeof via, "type %s", names[i].type);
            link_add_binding(b, &p, "name", via);
        }
        if (!rc && bind_overrides(l, c, mkey, b))
            rc = -1;
        free(mkey);
    }
    if (!rc && b->n == 0) {
        char where[2048], models[800] = "", msg[4096];
        link_describe_stack(l, c->root_id, where, sizeof where);
        size_t at = 0;
        for (size_t i = 0; i < nn && at < sizeof models; i++)
            at += (size_t)snprintf(models + at, sizeof models - at, "%s'%s' (type %s)",
                                   i ? " or " : "", names[i].model, names[i].type);
        int w = snprintf(msg, sizeof msg, "clip '%s' is loaded for model %s, which is not in "
                         "%s of %s", c->name, models, c->dir_key[0] ? c->dir_key : "the top directory",
                         where);
        amx_alamo_anim_name miss;
        if (w > 0 && (size_t)w < sizeof msg && amx_alamo_anim_near_miss(c->name, &miss)) {
            /* MODEL_Attack_Idle_00: the type is ATTACKIDLE */
            snprintf(msg + w, sizeof msg - (size_t)w, "; if it is meant for '%s', the engine's "
                     "type is %s: name it %s_%s_NN", miss.model, miss.type, miss.model, miss.type);
        }
        if (link_add_finding(l, c->file_id, "link", AMX_C_SKELETON_NOT_FOUND, -1, "skeleton", msg))
            rc = -1;
    }
    if (!rc) {
        char *unbound = amx__upper(names[0].model);
        rc = unbound ? link_store_bindings(l, c->file_id, c->id, c->root_id, c->root_bone, b,
                                      unbound, c->cur_key)
                     : -1;
        free(unbound);
    }
    free(b);
    return rc;
}
