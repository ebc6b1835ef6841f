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
 *
 * The game objects that play an override set are walked once a pass for each set and root
 * (set_targets, kept in the linker's memos), whatever the number of clips of the set: each
 * object name's variants are asked once and each object's inherited model is worked out once,
 * so the walk is linear in the objects. A limit that cuts it is a LIMIT_EXCEEDED on the clip.
 */
#include "link_internal.h"
#include "resolve/resolve.h"

#include "common/grow.h"
#include "animidx/text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A key for the pass's memos, formatted (malloc'd: names from files have any length). */
static char *memo_key(const char *fmt, ...) AMX_PRINTF(1, 2);
static char *memo_key(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *k = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (k) {
        va_start(ap, fmt);
        vsnprintf(k, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return k;
}

/* The model file an XML value names, found from root `root` (the path it was found at in
 * lkey, as the engine tries them: DATA/ART/MODELS/<value>, then the .ALO retry). 1 found with
 * a skeleton, 0 none, -1 error. */
static int find_xml_model(linker *l, const char *value, int64_t root, char *lkey, size_t n)
{
    char keys[2][AMX_LKEY_MAX];
    size_t nk = amx__model_lkeys(value, keys);
    for (size_t i = 0; i < nk; i++) {
        pick p;
        int found = link_find_by_lkey(l, keys[i], root, &p, NULL);
        if (found < 0)
            return -1;
        if (found) {
            snprintf(lkey, n, "%s", keys[i]);
            return 1;
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

/* The object named `key` the root's stack sees first (0: none; -1 error), asked once a pass. */
static int64_t first_object_named(linker *l, const char *key, int64_t root)
{
    char *mk = memo_key("N|%lld|%s", (long long)root, key);
    if (!mk)
        return -1;
    size_t len;
    const void *v = link_memo_get(l->answers, mk, &len);
    int64_t id;
    if (v && len == sizeof id) {
        memcpy(&id, v, sizeof id);
    } else {
        sqlite3_bind_text(l->objects_named, 1, key, -1, SQLITE_TRANSIENT);
        id = link_first_in_lookup_order(l, l->objects_named, root);
        if (id >= 0 && link_memo_put(l->answers, mk, &id, sizeof id))
            id = -1;
    }
    free(mk);
    return id;
}

enum { MODEL_NONE, MODEL_FOUND, MODEL_CUT };

/* The model game object `id` uses for `model_tag`: its own tag, else its variant parent's (the
 * object of that name the stack sees first), and so on up the Variant_Of_Existing_Type chain.
 * Each object's answer is kept for the pass, so a chain is walked once however many objects
 * and clips ask. Returns MODEL_FOUND with the value in *value (malloc'd), MODEL_NONE (no
 * model, an empty tag or a cycle), MODEL_CUT (the chain is deeper than MAX_VARIANT_DEPTH), or
 * -1 on an error. */
static int object_model(linker *l, int64_t id, const char *model_tag, int64_t root, char **value)
{
    *value = NULL;
    int64_t *path = malloc(MAX_VARIANT_DEPTH * sizeof *path);
    if (!path)
        return -1;
    size_t n = 0;
    int state = MODEL_NONE;
    char *found = NULL;
    int64_t cur = id;
    while (cur > 0) {
        char *mk = memo_key("M|%lld|%s|%lld", (long long)root, model_tag, (long long)cur);
        if (!mk) {
            state = -1;
            break;
        }
        size_t len;
        const char *v = link_memo_get(l->answers, mk, &len);
        free(mk);
        if (v && len >= 1) {
            state = v[0];
            if (state == MODEL_FOUND && !(found = strdup(v + 1)))
                state = -1;
            break;
        }
        bool cycle = false;
        for (size_t i = 0; i < n && !cycle; i++)
            cycle = path[i] == cur;
        if (cycle)
            break;
        if (n == MAX_VARIANT_DEPTH) {
            state = MODEL_CUT;
            break;
        }
        path[n++] = cur;
        sqlite3_stmt *s = l->object_model;
        sqlite3_bind_int64(s, 1, cur);
        sqlite3_bind_text(s, 2, model_tag, -1, SQLITE_STATIC);
        int rc = sqlite3_step(s);
        char *variant = NULL;
        bool own = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL;
        if (own && !(found = strdup(col_or(s, 0, ""))))
            rc = SQLITE_NOMEM;
        if (rc == SQLITE_ROW && !own && col_text(s, 1) && !(variant = strdup(col_text(s, 1))))
            rc = SQLITE_NOMEM;
        sqlite3_reset(s);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            free(variant);
            state = -1;
            break;
        }
        if (own) { /* an empty tag clears what the object would inherit */
            state = found[0] ? MODEL_FOUND : MODEL_NONE;
            break;
        }
        cur = variant && variant[0] ? first_object_named(l, variant, root) : 0;
        free(variant);
        if (cur < 0)
            state = -1;
    }
    /* every object of the walk has the same answer */
    size_t vlen = found ? strlen(found) : 0;
    char *blob = state >= 0 ? malloc(vlen + 2) : NULL;
    if (state >= 0 && !blob)
        state = -1;
    if (blob) {
        blob[0] = (char)state;
        memcpy(blob + 1, found ? found : "", vlen + 1);
    }
    for (size_t i = 0; i < n && state >= 0; i++) {
        char *mk = memo_key("M|%lld|%s|%lld", (long long)root, model_tag, (long long)path[i]);
        if (!mk || link_memo_put(l->answers, mk, blob, vlen + 2))
            state = -1;
        free(mk);
    }
    free(blob);
    free(path);
    if (state == MODEL_FOUND)
        *value = found;
    else
        free(found);
    return state;
}

/* A game object waiting in the walk of an override set. */
typedef struct walk_item {
    int64_t id;
    char *name, *key;
    size_t owner;             /* the override that reaches it (an index into the overrides) */
} walk_item;

typedef struct override_row {
    int64_t object_id;
    char *tag, *object, *key, *where;
} override_row;

/* Adds target (model at lkey, reached `via`) under the directory of lkey, once per model. */
static int add_target(linker *l, link_memo *seen, const char *set, int64_t root, const char *lkey,
                      const char *via)
{
    if (link_memo_get(seen, lkey, NULL))
        return 0;
    char dir[AMX_LKEY_MAX];
    link_lkey_dir(lkey, dir, sizeof dir);
    char *mk = memo_key("T|%lld|%s|%s", (long long)root, set, dir);
    int rc = !mk || link_memo_put(seen, lkey, "", 0) ||
             link_memo_append(l->answers, mk, lkey, strlen(lkey) + 1) ||
             link_memo_append(l->answers, mk, via, strlen(via) + 1) ? -1 : 0;
    free(mk);
    return rc;
}

/* Works out, once a pass for each set and root, the models of the game objects that play
 * override set `set` (its own Land_/Space_Model_Anim_Override_Name, or inherited by a variant
 * that does not set one): each model is kept under its directory ("T|root|set|dir": pairs of
 * its path and how it is reached), and "S|root|set" holds what cut the walk ("" when
 * nothing). Each object name's variants are asked once, so the walk is linear in the objects. */
static int set_targets(linker *l, const char *set, int64_t root, const char *skey)
{
    override_row *rows = NULL;
    size_t nrows = 0, rcap = 0;
    walk_item *q = NULL;
    size_t qn = 0, qcap = 0, head = 0, visited = 0;
    link_memo *expanded = link_memo_new(), *seen = link_memo_new();
    char cut[600] = "";
    int rc = expanded && seen ? 0 : -1;
    sqlite3_stmt *s = l->overrides;
    sqlite3_bind_text(s, 1, set, -1, SQLITE_TRANSIENT);
    int step;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (link_layer_of(l, root, sqlite3_column_int64(s, 3)) < 0 ||
            !amx__override_model_tag(col_or(s, 1, "")))
            continue;
        int w = is_winner(l, sqlite3_column_int64(s, 2), col_or(s, 5, ""), root);
        if (w <= 0) { /* a file of a higher layer replaces this XML file */
            rc = w;
            continue;
        }
        if (!amx__grow((void **)&rows, &rcap, nrows, sizeof *rows)) {
            rc = -1;
            break;
        }
        override_row *o = &rows[nrows];
        *o = (override_row){ .object_id = sqlite3_column_int64(s, 0),
                             .tag = strdup(col_or(s, 1, "")), .object = strdup(col_or(s, 7, "")),
                             .key = strdup(col_or(s, 8, "")),
                             .where = memo_key("%.1000s:%lld", col_or(s, 4, ""),
                                               (long long)sqlite3_column_int64(s, 6)) };
        nrows++;
        if (!o->tag || !o->object || !o->key || !o->where)
            rc = -1;
    }
    if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
        rc = -1;
    sqlite3_reset(s);
    for (size_t r = 0; !rc && r < nrows; r++) {
        const char *model_tag = amx__override_model_tag(rows[r].tag);
        if (!amx__grow((void **)&q, &qcap, qn, sizeof *q) ||
            !(q[qn].name = strdup(rows[r].object)) || !(q[qn].key = strdup(rows[r].key))) {
            rc = -1;
            break;
        }
        q[qn].id = rows[r].object_id;
        q[qn++].owner = r;
        for (; !rc && head < qn; head++) {
            walk_item *x = &q[head];
            const override_row *o = &rows[x->owner];
            if (visited++ == MAX_OBJECT_WALK) {
                snprintf(cut, sizeof cut, "more than %d game objects play animation set "
                         "'%.200s' (through Variant_Of_Existing_Type); the rest were not "
                         "looked at", MAX_OBJECT_WALK, set);
                head = qn;
                break;
            }
            char *value = NULL;
            int m = object_model(l, x->id, model_tag, root, &value);
            if (m < 0) {
                rc = -1;
                break;
            }
            if (m == MODEL_CUT && !cut[0])
                snprintf(cut, sizeof cut, "the Variant_Of_Existing_Type chain of game object "
                         "'%.200s' is deeper than %d objects: the model it inherits was not "
                         "looked for", x->name, MAX_VARIANT_DEPTH);
            char lkey[AMX_LKEY_MAX];
            int f = m == MODEL_FOUND ? find_xml_model(l, value, root, lkey, sizeof lkey) : 0;
            free(value);
            if (f > 0) {
                char via[800];
                if (strcmp(o->object, x->name) == 0)
                    snprintf(via, sizeof via, "%.300s (%s of '%.100s')", o->where, o->tag,
                             o->object);
                else
                    snprintf(via, sizeof via, "%.250s (%s of '%.80s', inherited by '%.80s')",
                             o->where, o->tag, o->object, x->name);
                f = add_target(l, seen, set, root, lkey, via);
            }
            if (f < 0) {
                rc = -1;
                break;
            }
            /* the variants of this name that do not set the override themselves inherit it;
             * a name is followed once */
            char *ek = memo_key("%s|%s", o->tag, x->key);
            if (!ek) {
                rc = -1;
                break;
            }
            bool again = link_memo_get(expanded, ek, NULL) != NULL;
            if (!again && link_memo_put(expanded, ek, "", 0))
                rc = -1;
            free(ek);
            if (again || rc)
                continue;
            sqlite3_stmt *v = l->variants_of;
            sqlite3_bind_text(v, 1, x->key, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(v, 2, o->tag, -1, SQLITE_TRANSIENT);
            size_t owner = x->owner; /* x moves when q grows */
            while ((step = sqlite3_step(v)) == SQLITE_ROW) {
                if (link_layer_of(l, root, sqlite3_column_int64(v, 3)) < 0)
                    continue;
                if (!amx__grow((void **)&q, &qcap, qn, sizeof *q)) {
                    rc = -1;
                    break;
                }
                q[qn] = (walk_item){ .id = sqlite3_column_int64(v, 0),
                                     .name = strdup(col_or(v, 1, "")),
                                     .key = strdup(col_or(v, 2, "")), .owner = owner };
                if (!q[qn].name || !q[qn].key) {
                    free(q[qn].name);
                    free(q[qn].key);
                    rc = -1;
                    break;
                }
                qn++;
            }
            sqlite3_reset(v);
            if (!rc && step != SQLITE_DONE)
                rc = -1;
        }
    }
    if (!rc && link_memo_put(l->answers, skey, cut, strlen(cut) + 1))
        rc = -1;
    for (size_t i = 0; i < qn; i++) {
        free(q[i].name);
        free(q[i].key);
    }
    free(q);
    for (size_t i = 0; i < nrows; i++) {
        free(rows[i].tag);
        free(rows[i].object);
        free(rows[i].key);
        free(rows[i].where);
    }
    free(rows);
    link_memo_free(expanded);
    link_memo_free(seen);
    return rc;
}

/* Binds the clip to the models of the game objects that play set `set` and sit in the clip's
 * directory (the engine loads the animations from the model's directory). *cut: a limit cut
 * the walk (said by a LIMIT_EXCEEDED on the clip). */
static int bind_overrides(linker *l, const clip_ctx *c, const char *set, bindings *b, bool *cut)
{
    char *skey = memo_key("S|%lld|%s", (long long)c->root_id, set);
    if (!skey)
        return -1;
    const char *why = link_memo_get(l->answers, skey, NULL);
    if (!why && (set_targets(l, set, c->root_id, skey) ||
                 !(why = link_memo_get(l->answers, skey, NULL)))) {
        free(skey);
        return -1;
    }
    free(skey);
    if (why[0]) {
        *cut = true;
        if (link_add_finding(l, c->file_id, "link", AMX_C_LIMIT_EXCEEDED, -1, "xml-override", why))
            return -1;
    }
    char *tkey = memo_key("T|%lld|%s|%s", (long long)c->root_id, set, c->dir_key);
    if (!tkey)
        return -1;
    size_t len = 0;
    const char *t = link_memo_get(l->answers, tkey, &len);
    free(tkey);
    for (size_t at = 0; t && at < len;) {
        const char *lkey = t + at, *via = lkey + strlen(lkey) + 1;
        at = (size_t)(via - t) + strlen(via) + 1;
        pick p;
        int found = link_find_by_lkey(l, lkey, c->root_id, &p, NULL);
        if (found < 0)
            return -1;
        if (found)
            link_add_binding(b, &p, "xml-override", via);
    }
    return 0;
}

/* ---- names no model loads ---- */

/* The type of the game's table `rest` (len bytes) is closest to: the same once underscores are
 * left out, else one edit away. NULL: none. */
static const char *closest_type(amx_alamo_game game, const char *rest, size_t len)
{
    const char *const *types;
    size_t n = amx_alamo_anim_types(game, &types);
    char squashed[64];
    size_t k = 0;
    for (size_t i = 0; i < len && k < sizeof squashed - 1; i++)
        if (rest[i] != '_')
            squashed[k++] = rest[i];
    for (size_t i = 0; i < n; i++)
        if (strlen(types[i]) == k && strncasecmp(types[i], squashed, k) == 0)
            return types[i];
    for (size_t i = 0; i < n; i++)
        if (amx_text_one_edit(rest, len, types[i], strlen(types[i])))
            return types[i];
    return NULL;
}

/* Whether DIR/<model>.ALO is a model the root's stack has (1), 0 not, -1 error. */
static int model_here(linker *l, const clip_ctx *c, const char *model, size_t len)
{
    char lkey[AMX_LKEY_MAX];
    int w = snprintf(lkey, sizeof lkey, "%s%s%.*s.ALO", c->dir_key, c->dir_key[0] ? "/" : "",
                     (int)len, model);
    if (w < 0 || (size_t)w >= sizeof lkey)
        return 0;
    for (char *p = lkey; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    pick p;
    return link_find_by_lkey(l, lkey, c->root_id, &p, NULL);
}

/* The readings of a name no model loads that would load: a model of the clip's directory that
 * prefixes the name, with the type of the table its remainder is closest to (or the word that
 * is no type), and the name itself as a model of its own. Appends them to out. */
static int closest_readings(linker *l, const clip_ctx *c, amx_alamo_game game, char *out,
                            size_t n)
{
    const char *name = c->name;
    size_t len = strlen(name), digits = 0;
    while (digits < len && isdigit((unsigned char)name[len - 1 - digits]))
        digits++;
    size_t base = digits && digits < len && name[len - 1 - digits] == '_' ? len - digits - 1 : len;
    const char *nn = base < len ? name + base + 1 : "00";
    size_t at = strlen(out);
    int notes = 0, tries = 0;
    for (size_t i = 1; i + 1 < base && notes < 2 && tries < 16; i++) {
        if (name[i] != '_')
            continue;
        tries++;
        int m = model_here(l, c, name, i);
        if (m < 0)
            return -1;
        if (!m)
            continue;
        const char *rest = name + i + 1;
        size_t rlen = base - i - 1;
        const char *t = closest_type(game, rest, rlen);
        if (t)
            at += (size_t)snprintf(out + at, at < n ? n - at : 0, "; '%.*s' is a model here: did "
                                   "you mean %.*s_%s_%s (type %s)?", (int)i, name, (int)i, name,
                                   t, nn, t);
        else
            at += (size_t)snprintf(out + at, at < n ? n - at : 0, "; '%.*s' is a model here, "
                                   "and %.*s is no type of %s", (int)i, name, (int)rlen, rest,
                                   amx_alamo_game_title(game));
        notes++;
    }
    int m = base ? model_here(l, c, name, base) : 0;
    if (m < 0)
        return -1;
    if (m && base < len)
        snprintf(out + at, at < n ? n - at : 0, "; '%.*s' is a model of its own: its "
                 "animations are %.*s_<TYPE>_<NN>.ALA", (int)base, name, (int)base, name);
    return 0;
}

/* CLIP_NOT_LOADED_BY_NAME, with the readings that would load and the skeletons (of the stack)
 * that fit all the clip's bones. The clip's fit key (its first track's bone and index, into
 * fit_key) is kept, so that a skeleton that appears or goes has the message worked out again. */
static int not_loaded(linker *l, const clip_ctx *c, amx_alamo_game game, char *fit_key,
                      size_t fit_len)
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
        snprintf(fit_key, fit_len, "%s:%lld", t[0].key, (long long)t[0].idx);
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
    char msg[2000];
    snprintf(msg, sizeof msg, "no model loads clip '%.250s' by name: %s loads "
             "<MODEL>_<TYPE>_<NN>.ALA for the %zu types of its table and nothing else", c->name,
             amx_alamo_game_title(game), amx_alamo_anim_types(game, NULL));
    if (closest_readings(l, c, game, msg, sizeof msg))
        return -1;
    size_t m = strlen(msg);
    if (nfit)
        snprintf(msg + m, sizeof msg - m, "; its %zu bones fit skeleton%s %s by index and name "
                 "(rename it <MODEL>_<TYPE>_00 to play it there)", nt, nfit > 1 ? "s" : "", fits);
    else if (nt)
        snprintf(msg + m, sizeof msg - m, "; no indexed skeleton fits all its bones");
    return link_add_finding(l, c->file_id, "link", AMX_C_CLIP_NOT_LOADED_BY_NAME, -1, "clip", msg);
}

/* ---- the engine's numbering ---- */

/* How far the engine gets through a model's animations of a type: memo "R|root|dir|MODEL_TYPE"
 * holds how many numbers were looked at and the first that does not load (-1 none yet), so
 * that the clips of one model and type cost one look-up per number however many there are. */
typedef struct reach {
    uint32_t checked;
    int32_t stop;             /* the first number that does not load; -1 none below checked */
    bool exists;              /* that file exists but is not an animation that loads */
} reach;

/* The logical path of number k: DIR/MODEL_TYPE_kk.ALA (upper-cased). */
static void numbered_lkey(const clip_ctx *c, const amx_alamo_anim_name *n, uint32_t k, char *out,
                          size_t size)
{
    int w = snprintf(out, size, "%.1000s%s%.250s_%.60s_%02u.ALA", c->dir_key,
                     c->dir_key[0] ? "/" : "", n->model, n->type, (unsigned)k);
    if (w < 0)
        out[0] = '\0';
    for (char *p = out; *p; p++)
        *p = (char)toupper((unsigned char)*p);
}

/* Whether the engine reaches number `want` of reading n: 1 reached, 0 not (the first number
 * that does not load in *stop, *exists when that file is there but does not load as an
 * animation), -1 error. */
static int reaches(linker *l, const clip_ctx *c, const amx_alamo_anim_name *n, uint32_t want,
                   uint32_t *stop, bool *exists)
{
    char *mk = memo_key("R|%lld|%s|%s_%s", (long long)c->root_id, c->dir_key, n->model, n->type);
    if (!mk)
        return -1;
    for (char *p = mk; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    reach r = { .stop = -1 };
    size_t len;
    const void *v = link_memo_get(l->answers, mk, &len);
    if (v && len == sizeof r)
        memcpy(&r, v, sizeof r);
    while (r.stop < 0 && r.checked < want) {
        char lkey[AMX_LKEY_MAX];
        numbered_lkey(c, n, r.checked, lkey, sizeof lkey);
        file_hit h;
        int f = link_file_at(l, lkey, c->root_id, &h);
        if (f < 0) {
            free(mk);
            return -1;
        }
        if (f && strcmp(h.format, "alamo-ala") == 0 && strcmp(h.status, "error") != 0) {
            r.checked++;
            continue;
        }
        r.stop = (int32_t)r.checked;
        r.exists = f != 0;
    }
    int rc = link_memo_put(l->answers, mk, &r, sizeof r) ? -1 : 0;
    free(mk);
    if (rc)
        return -1;
    if (r.stop >= 0 && (uint32_t)r.stop < want) {
        *stop = (uint32_t)r.stop;
        *exists = r.exists;
        return 0;
    }
    return 1;
}

/* ANIMATION_NOT_REACHED for reading n, which has a model to play it for: the number the engine
 * stops at (and the file in the directory that differs from it only by underscores or case),
 * or the number spelt otherwise than the engine spells it. */
static int not_reached(linker *l, const clip_ctx *c, const amx_alamo_anim_name *n, uint32_t stop,
                       bool exists)
{
    char msg[2500];
    if (!n->number_loaded) {
        char want[600];
        snprintf(want, sizeof want, "%s_%s_%02u", n->model, n->type, n->number);
        snprintf(msg, sizeof msg, "clip '%.250s' is never loaded: the engine numbers the "
                 "animations of model '%.250s' and type %s 00, 01, ... (two digits, then 100 and "
                 "up) and never tries this spelling: name it %.500s", c->name, n->model, n->type,
                 want);
        return link_add_finding(l, c->file_id, "link", AMX_C_ANIMATION_NOT_REACHED, -1, "clip",
                                msg);
    }
    char lkey[AMX_LKEY_MAX];
    numbered_lkey(c, n, stop, lkey, sizeof lkey);
    int w = snprintf(msg, sizeof msg, "clip '%.250s' is never loaded: the engine loads the "
                     "animations of model '%.250s' and type %s numbered 00, 01, ... and stops "
                     "at the first that does not load, and %.600s %s", c->name, n->model,
                     n->type, lkey, exists ? "does not load as an animation" : "is missing");
    /* did you mean: a clip of this directory whose name is the missing one's but for its
     * underscores or case */
    char want[600], squashed[600];
    snprintf(want, sizeof want, "%s_%s_%02u", n->model, n->type, stop);
    size_t k = 0;
    for (const char *p = want; *p && k + 1 < sizeof squashed; p++)
        if (*p != '_')
            squashed[k++] = (char)toupper((unsigned char)*p);
    squashed[k] = '\0';
    sqlite3_stmt *s = l->clips_squashed;
    sqlite3_bind_text(s, 1, squashed, -1, SQLITE_TRANSIENT);
    int rc, best = -1;
    char found[1300] = "";
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int layer = link_layer_of(l, c->root_id, sqlite3_column_int64(s, 1));
        char dir[AMX_LKEY_MAX];
        link_lkey_dir(col_or(s, 3, ""), dir, sizeof dir);
        if (layer < 0 || strcmp(dir, c->dir_key) != 0 || strcasecmp(col_or(s, 4, ""), want) == 0)
            continue;
        int rank = amx__lookup_rank((size_t)layer, sqlite3_column_int(s, 2) != 0);
        if (best >= 0 && rank >= best)
            continue;
        best = rank;
        const root_info *r = link_root_of(l, sqlite3_column_int64(s, 1));
        snprintf(found, sizeof found, "%.700s%s%.500s", col_or(s, 0, ""),
                 sqlite3_column_int64(s, 1) != c->root_id ? " in base layer " : "",
                 sqlite3_column_int64(s, 1) != c->root_id && r ? r->path : "");
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    if (found[0] && w > 0 && (size_t)w < sizeof msg)
        snprintf(msg + w, sizeof msg - (size_t)w, " (did you mean %s?)", found);
    return link_add_finding(l, c->file_id, "link", AMX_C_ANIMATION_NOT_REACHED, -1, "clip", msg);
}

/* The models that play reading n (by name, and the objects whose override set is its model
 * part), added to b. */
static int targets_of(linker *l, const clip_ctx *c, const amx_alamo_anim_name *n, bindings *b,
                      bool *cut)
{
    char *mkey = amx__upper(n->model);
    char lkey[AMX_LKEY_MAX + 300];
    if (!mkey)
        return -1;
    snprintf(lkey, sizeof lkey, "%s%s%s.ALO", c->dir_key, c->dir_key[0] ? "/" : "", mkey);
    pick p;
    int rc = 0, found = link_find_by_lkey(l, lkey, c->root_id, &p, NULL);
    if (found < 0)
        rc = -1;
    else if (found) {
        char via[96];
        snprintf(via, sizeof via, "type %s", n->type);
        link_add_binding(b, &p, "name", via);
    }
    if (!rc && bind_overrides(l, c, mkey, b, cut))
        rc = -1;
    free(mkey);
    return rc;
}

int bind_alamo_clip(linker *l, const clip_ctx *c)
{
    amx_alamo_game game = link_game_of(l, c->root_id);
    amx_alamo_anim_name names[MAX_NAMES];
    size_t nn = amx_alamo_anim_names(c->name, game, names, MAX_NAMES);
    bindings *b = link_new_bindings();
    if (!b)
        return -1;
    int rc = 0;
    if (nn == 0) {
        char fit_key[300] = "";
        rc = not_loaded(l, c, game, fit_key, sizeof fit_key);
        if (!rc)
            rc = link_store_bindings(l, c->file_id, c->id, c->root_id, c->root_bone, b, "", c->cur_key);
        if (!rc && fit_key[0]) /* after the clip's row is written, which clears it */
            rc = link_record(l, W_CLIP_FIT, "it", c->id, fit_key);
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
    /* each reading: its models, and whether the engine's numbering reaches the clip */
    bindings *rb = link_new_bindings();
    bool cut = false, unreached = false;
    if (!rb)
        rc = -1;
    for (size_t i = 0; i < nn && !rc; i++) {
        rb->n = rb->dropped = 0;
        if (targets_of(l, c, &names[i], rb, &cut)) {
            rc = -1;
            break;
        }
        if (rb->n == 0)
            continue;
        uint32_t stop = 0;
        bool exists = false;
        int r = names[i].number_loaded
                    ? reaches(l, c, &names[i], names[i].number, &stop, &exists)
                    : 0;
        if (r < 0) {
            rc = -1;
        } else if (r == 0) {
            unreached = true;
            rc = not_reached(l, c, &names[i], stop, exists);
        } else {
            for (size_t k = 0; k < rb->n; k++)
                link_add_binding(b, &rb->p[k], rb->p[k].how, rb->p[k].via);
            b->dropped += rb->dropped;
        }
    }
    free(rb);
    if (!rc && b->n == 0 && !cut && !unreached) { /* a cut walk is said by its LIMIT_EXCEEDED */
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
        if (w > 0 && (size_t)w < sizeof msg && amx_alamo_anim_near_miss(c->name, game, &miss)) {
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
