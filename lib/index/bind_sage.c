/*
 * SAGE INI (Generals, Zero Hour, BFME): every model, animation, bone, sub-object, #include and
 * copied object an INI file names, checked the way the engine finds it (docs/formats/sage-ini.md):
 *
 *   Model = X          ART/W3D/<X up to its first '.'>.W3D (first in DATA/<language>/ART/W3D/;
 *                      BFME also ART/W3D/<2 letters>/...) must hold a render object X (an HLOD,
 *                      or the mesh CONTAINER.MESH)
 *   Animation = H.A    ART/W3D/A.W3D must hold animation A of hierarchy H, and H should be the
 *                      model's hierarchy (ANIMATION_HIERARCHY_MISMATCH: error when the pivots
 *                      differ, info when only the name does)
 *   bones              the model's hierarchy (pivot 0 never counts) and its sub-objects, by the
 *                      engine's rules for weapon bones, turrets, particle bones and sub-objects
 *   ModelName = X      (Zero Hour W3DTreeDraw, W3DPropDraw; BFME W3DFloorDraw) as Model = X
 *   TextureName = F    (a Zero Hour tree) ART/TERRAIN/F, then ART/TEXTURES/F, as written
 *   #include "P"       P relative to the file, inside the layer; a cycle is INI_MALFORMED
 *   ObjectReskin N O   O defined before N (same file above it, or a file loaded earlier)
 *
 * Each reference is one finding at most (the decoder records one per name and model), with the
 * field, the object, the state and the INI line in its context. Origin 'refs', like the other
 * asset references, so that they are replaced together when the file is linked again.
 */
#include "link_internal.h"
#include "common/grow.h"
#include "common/hash.h"
#include "resolve/resolve.h"

#include "animidx/os.h" /* AMX_PRINTF */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MODEL_MEMO 8
#define MAX_INCLUDE_DEPTH 16
#define MAX_INCLUDE_VISITS 256

/* A model's sub-object names for look-ups (a model may have thousands, and a file may name
 * thousands): slots hold 1 + the offset of a name's line in the model's `subs`, by the whole
 * name and by the part after its first '.' (Get_Sub_Object_By_Name compares both). */
typedef struct sub_index {
    uint32_t *whole, *tail;
    size_t mask;
    size_t count;             /* sub-objects */
    bool built, failed;       /* failed (out of memory, or a text past 4 GB): read linearly */
} sub_index;

typedef struct model_info {
    int64_t root;             /* 0: the slot is empty */
    char key[256];            /* the model's name, upper-cased */
    int state;                /* 0 no file, 1 a file without that render object, 2 found */
    file_hit file;
    char hierarchy[64];       /* upper-cased; "" none */
    char *subs;               /* sub-object names, upper-cased, one per line */
    sub_index sub_by;         /* their look-up tables, built at the first look-up */
    char holds[300];          /* what the file holds instead (state 1) */
    bool has_skeleton;
    pick skel;
} model_info;

struct sage_stmts {
    sqlite3_stmt *refs_of_file, *render_object, *render_objects, *clips_of, *includes_of,
        *objects_named, *file_lkey, *objects_of_file, *states_of_file;
    model_info memo[MODEL_MEMO];
    unsigned memo_next;
};

static const char *const sage_sql[] = {
    "SELECT r.id, r.kind, r.tag, r.name, coalesce(r.line, 0), o.name, r.model, s.kind, s.flags, "
    "o.type, r.slot FROM refs r LEFT JOIN game_objects o ON o.id = r.object_id "
    "LEFT JOIN object_states s ON s.id = r.state_id WHERE r.file_id = ?1 ORDER BY r.id",
    "SELECT kind, hierarchy_key, sub_objects FROM w3d_objects WHERE file_id = ?1 AND "
    "name_key = ?2 LIMIT 1",
    "SELECT kind, name FROM w3d_objects WHERE file_id = ?1 ORDER BY kind = 'mesh', rowid LIMIT 4",
    "SELECT name, coalesce(skeleton_hint, '') FROM clips WHERE file_id = ?1 ORDER BY id LIMIT 4",
    "SELECT name FROM refs WHERE file_id = ?1 AND kind = 'include' ORDER BY id LIMIT 64",
    "SELECT o.line, f.id, f.root_id, f.path FROM game_objects o JOIN files f ON f.id = o.file_id "
    "WHERE o.name_key = ?1 AND f.format = 'sage-ini' ORDER BY f.path, o.line LIMIT 64",
    "SELECT lkey, path FROM files WHERE id = ?1",
    /* the game objects and draw states of a file, for the context of its pending references */
    "SELECT id, name, type FROM game_objects WHERE file_id = ?1 ORDER BY id",
    "SELECT id, kind, flags FROM object_states WHERE file_id = ?1 ORDER BY id",
};

enum { SAGE_STATEMENTS = sizeof sage_sql / sizeof sage_sql[0] };

static sqlite3_stmt **sage_slot(struct sage_stmts *g, size_t i)
{
    sqlite3_stmt **all[] = { &g->refs_of_file, &g->render_object, &g->render_objects,
                             &g->clips_of, &g->includes_of, &g->objects_named, &g->file_lkey,
                             &g->objects_of_file, &g->states_of_file };
    _Static_assert(sizeof all / sizeof all[0] == SAGE_STATEMENTS, "one statement per slot");
    return all[i];
}

static void forget_model(model_info *m)
{
    free(m->subs);
    free(m->sub_by.whole);
    free(m->sub_by.tail);
    memset(m, 0, sizeof *m);
}

void bind_sage_close(linker *l)
{
    struct sage_stmts *g = l->sage;
    if (!g)
        return;
    for (size_t i = 0; i < SAGE_STATEMENTS; i++)
        sqlite3_finalize(*sage_slot(g, i));
    for (size_t i = 0; i < MODEL_MEMO; i++)
        forget_model(&g->memo[i]);
    free(g);
    l->sage = NULL;
}

static struct sage_stmts *stmts(linker *l)
{
    if (l->sage)
        return l->sage;
    struct sage_stmts *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    l->sage = g;
    for (size_t i = 0; i < SAGE_STATEMENTS; i++)
        if (sqlite3_prepare_v2(l->h, sage_sql[i], -1, sage_slot(g, i), NULL) != SQLITE_OK) {
            bind_sage_close(l);
            return NULL;
        }
    return g;
}

/* src into out, cut to what fits (as snprintf "%s" would, without its cost: a pass copies a
 * few columns of every reference). */
static void copy_text(char *out, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(out, src, len);
    out[len] = '\0';
}

/* Appends len bytes of src to out (n bytes, *at of them used), cut to what fits; out stays a
 * string. The pass builds the texts of every reference this way, not with snprintf (a third of
 * the SAGE binding's instructions). */
static void append(char *out, size_t n, size_t *at, const char *src, size_t len)
{
    if (*at >= n)
        return;
    if (len > n - 1 - *at)
        len = n - 1 - *at;
    memcpy(out + *at, src, len);
    *at += len;
    out[*at] = '\0';
}

static void append_str(char *out, size_t n, size_t *at, const char *src)
{
    append(out, n, at, src, strlen(src));
}

/* "NOUN 'NAME'", the name cut to 200 bytes. */
static void quoted(char *out, size_t n, const char *noun, const char *name)
{
    size_t at = 0;
    out[0] = '\0';
    append_str(out, n, &at, noun);
    append_str(out, n, &at, " '");
    append(out, n, &at, name, strnlen(name, 200));
    append_str(out, n, &at, "'");
}

static void upper(char *out, size_t n, const char *in)
{
    size_t i = 0;
    for (; in && in[i] && i + 1 < n; i++)
        out[i] = (char)toupper((unsigned char)in[i]);
    out[i] = '\0';
}

/* The logical paths a W3D file of stem `stem` is looked for at, in order: in each language
 * directory, DATA/<language>/ART/W3D/<stem>.W3D (W3DFileSystem.cpp; resolve.h,
 * amx__languages; none in a Generals root: sage_languages), then ART/W3D/<stem>.W3D, then
 * ART/W3D/<first two letters>/<stem>.W3D, the directory BFME's archives use. */
enum { W3D_LKEYS = AMX_MAX_LANGUAGES + 2 };

static size_t w3d_lkeys(const amx__languages *languages, const char *stem,
                        char out[W3D_LKEYS][AMX_LKEY_MAX])
{
    char u[256];
    upper(u, sizeof u, stem);
    size_t len = strlen(u), n = 0;
    for (size_t i = 0; i <= languages->count + (len >= 2); i++, n++) {
        bool bfme = i > languages->count;
        size_t at = 0;
        out[n][0] = '\0';
        append_str(out[n], AMX_LKEY_MAX, &at, amx__language_prefix(languages, i));
        append_str(out[n], AMX_LKEY_MAX, &at, "ART/W3D/");
        if (bfme) {
            append(out[n], AMX_LKEY_MAX, &at, u, 2);
            append_str(out[n], AMX_LKEY_MAX, &at, "/");
        }
        append(out[n], AMX_LKEY_MAX, &at, u, len);
        append_str(out[n], AMX_LKEY_MAX, &at, ".W3D");
    }
    return n;
}

/* Finds a W3D file by stem: 1 found, 0 none (tried: the paths looked at), -1 error. A stem no
 * layer holds is remembered for the pass (l->answers; the pass writes no file row): a mod
 * without its game names thousands of base-game models and animations, most of them again and
 * again. */
static int find_w3d(linker *l, const char *stem, int64_t root, file_hit *h, char *tried, size_t n)
{
    char keys[W3D_LKEYS][AMX_LKEY_MAX], mk[AMX_LKEY_MAX + 32];
    amx__languages tmp;
    size_t k = w3d_lkeys(sage_languages(l, root, true, &tmp), stem, keys);
    tried[0] = '\0';
    for (size_t i = 0, at = 0; i < k && at + 2 < n; i++) {
        if (at) {
            memcpy(tried + at, ", ", 2);
            at += 2;
        }
        copy_text(tried + at, n - at, keys[i]);
        at += strlen(tried + at);
    }
    /* the memo's key: "W|<root>|<first path>" */
    char digits[24];
    size_t nd = 0, mk_at = 0;
    for (uint64_t v = root < 0 ? 0 : (uint64_t)root; nd == 0 || v; v /= 10)
        digits[sizeof digits - ++nd] = (char)('0' + v % 10);
    mk[0] = '\0';
    append_str(mk, sizeof mk, &mk_at, "W|");
    append(mk, sizeof mk, &mk_at, digits + sizeof digits - nd, nd);
    append_str(mk, sizeof mk, &mk_at, "|");
    append_str(mk, sizeof mk, &mk_at, keys[0]);
    if (link_memo_get(l->answers, mk, NULL))
        return 0;
    for (size_t i = 0; i < k; i++) {
        int f = link_file_at(l, keys[i], root, h);
        if (f)
            return f;
    }
    return link_memo_put(l->answers, mk, NULL, 0) ? -1 : 0;
}

/* What the game finds for a model name (memoised: the states of a file come in runs). */
static model_info *model_of(linker *l, struct sage_stmts *g, const char *name, int64_t root)
{
    char key[256];
    upper(key, sizeof key, name);
    for (size_t i = 0; i < MODEL_MEMO; i++)
        if (g->memo[i].root == root && strcmp(g->memo[i].key, key) == 0)
            return &g->memo[i];
    model_info *m = &g->memo[g->memo_next++ % MODEL_MEMO];
    forget_model(m);
    char stem[256], tried[600];
    size_t stem_len = 0;
    stem[0] = '\0';
    append(stem, sizeof stem, &stem_len, key, strcspn(key, "."));
    int f = find_w3d(l, stem, root, &m->file, tried, sizeof tried);
    if (f < 0)
        return NULL;
    m->root = root;
    copy_text(m->key, sizeof m->key, key);
    if (!f)
        return m;
    sqlite3_stmt *s = g->render_object;
    sqlite3_bind_int64(s, 1, m->file.id);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        m->state = 2;
        snprintf(m->hierarchy, sizeof m->hierarchy, "%s", col_or(s, 1, ""));
        m->subs = strdup(col_or(s, 2, ""));
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        m->root = 0;
        return NULL;
    }
    if (rc == SQLITE_DONE) {
        m->state = 1;
        s = g->render_objects;
        sqlite3_bind_int64(s, 1, m->file.id);
        size_t at = 0;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW && at < sizeof m->holds)
            at += (size_t)snprintf(m->holds + at, sizeof m->holds - at, "%s%s '%.60s'",
                                   at ? ", " : "", col_or(s, 0, ""), col_or(s, 1, ""));
        sqlite3_reset(s);
        if (!at)
            snprintf(m->holds, sizeof m->holds, "no render object");
        return m;
    }
    if (m->hierarchy[0]) {
        char dir[1024];
        link_lkey_dir(m->file.lkey, dir, sizeof dir);
        int sk = link_find_named(l, m->hierarchy, m->file.id, dir, m->file.root_id, &m->skel);
        if (sk < 0) {
            m->root = 0;
            return NULL;
        }
        m->has_skeleton = sk == 1;
    }
    return m;
}

/* A pivot of the model's hierarchy named `name`, the root (pivot 0) excepted. */
static bool has_bone(const skeleton_bones *k, const char *name)
{
    if (!k)
        return false;
    const bone *b = link_bone_named(k, name); /* the first pivot of that name */
    if (!b || b->idx != 0)
        return b != NULL;
    for (size_t i = 0; i < k->n; i++) /* names repeat: the root's name on another pivot */
        if (k->bones[i].idx != 0 && amx__ascii_casecmp(k->bones[i].key, name) == 0)
            return true;
    return false;
}

static size_t hash_bytes(const char *p, size_t n) /* seeded (common/hash.h) */
{
    return (size_t)amx_hash(p, n);
}

/* The line of `subs` at offset `at`: its length, and the part after its first '.' (NULL none). */
static size_t sub_line(const char *subs, size_t at, const char **tail, size_t *tail_n)
{
    const char *p = subs + at;
    size_t n = strcspn(p, "\n");
    const char *dot = memchr(p, '.', n);
    *tail = dot ? dot + 1 : NULL;
    *tail_n = dot ? (size_t)(p + n - dot - 1) : 0;
    return n;
}

static void sub_index_put(uint32_t *table, size_t mask, const char *subs, uint32_t at,
                          const char *key, size_t n, bool by_tail)
{
    size_t h = hash_bytes(key, n) & mask;
    for (; table[h]; h = (h + 1) & mask) {
        const char *tail;
        size_t tail_n, len = sub_line(subs, table[h] - 1, &tail, &tail_n);
        const char *k = by_tail ? tail : subs + table[h] - 1;
        if ((by_tail ? tail_n : len) == n && memcmp(k, key, n) == 0)
            return; /* the name is there already: the first one holds */
    }
    table[h] = at + 1;
}

static void sub_index_build(model_info *m)
{
    sub_index *x = &m->sub_by;
    x->built = true;
    size_t len = m->subs ? strlen(m->subs) : 0;
    for (size_t i = 0; i < len; i++)
        x->count += m->subs[i] == '\n';
    if (len >= UINT32_MAX) {
        x->failed = true;
        return;
    }
    size_t slots = 16;
    while (slots < 2 * x->count)
        slots *= 2;
    x->mask = slots - 1;
    x->whole = calloc(slots, sizeof *x->whole);
    x->tail = calloc(slots, sizeof *x->tail);
    if (!x->whole || !x->tail) {
        x->failed = true;
        return;
    }
    for (size_t at = 0; at < len;) {
        const char *tail;
        size_t tail_n, n = sub_line(m->subs, at, &tail, &tail_n);
        sub_index_put(x->whole, x->mask, m->subs, (uint32_t)at, m->subs + at, n, false);
        if (tail)
            sub_index_put(x->tail, x->mask, m->subs, (uint32_t)at, tail, tail_n, true);
        at += n + 1;
    }
}

static bool sub_index_has(const model_info *m, const uint32_t *table, const char *want,
                          size_t wn, bool by_tail)
{
    for (size_t h = hash_bytes(want, wn) & m->sub_by.mask; table[h];
         h = (h + 1) & m->sub_by.mask) {
        const char *tail;
        size_t tail_n, len = sub_line(m->subs, table[h] - 1, &tail, &tail_n);
        const char *k = by_tail ? tail : m->subs + table[h] - 1;
        if ((by_tail ? tail_n : len) == wn && memcmp(k, want, wn) == 0)
            return true;
    }
    return false;
}

/* A sub-object named `name`, or whose name after its first '.' is (Get_Sub_Object_By_Name). */
static bool has_sub_object(model_info *m, const char *name)
{
    char want[256];
    upper(want, sizeof want, name);
    size_t wn = strlen(want);
    if (!m->sub_by.built)
        sub_index_build(m);
    if (!m->sub_by.failed)
        return sub_index_has(m, m->sub_by.whole, want, wn, false) ||
               sub_index_has(m, m->sub_by.tail, want, wn, true);
    for (const char *p = m->subs; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *dot = memchr(p, '.', n);
        if ((n == wn && memcmp(p, want, n) == 0) ||
            (dot && (size_t)(p + n - dot - 1) == wn && memcmp(dot + 1, want, wn) == 0))
            return true;
        p = e ? e + 1 : p + n;
    }
    return false;
}

/* NAME (cut to 200 bytes, like the engine's 256-byte buffer allows) followed by %02d of i. */
static void numbered(char *out, size_t n, const char *name, size_t len, int i)
{
    snprintf(out, n, "%.*s%02d", (int)(len < 200 ? len : 200), name, i);
}

/* What the engine's bone map holds of a weapon bone name (W3DModelDraw.cpp, doSingleBoneName,
 * for each public bone: every weapon bone name of the state is one): the bone NAME, and the bones
 * NAME01, NAME02, ... up to the first missing; only when neither NAME nor NAME01 is a bone, the
 * sub-objects NAME, NAME01, ... likewise. `plain`: NAME is there; the result: how many numbered
 * forms are (0-99). */
static int name_forms(const skeleton_bones *k, model_info *subs, const char *name, size_t len,
                      bool *plain)
{
    char b[256], whole[256];
    snprintf(whole, sizeof whole, "%.*s", (int)(len < 200 ? len : 200), name);
    int run = 0;
    for (; run < 99; run++) {
        numbered(b, sizeof b, name, len, run + 1);
        if (!has_bone(k, b))
            break;
    }
    *plain = has_bone(k, whole);
    if (run || *plain)
        return run;
    for (; run < 99; run++) {
        numbered(b, sizeof b, name, len, run + 1);
        if (!has_sub_object(subs, b))
            break;
    }
    *plain = has_sub_object(subs, whole);
    return run;
}

/* A weapon barrel bone of slot text `slot` ("SLOT NAME...": the slot's WeaponFireFXBone,
 * WeaponRecoilBone, WeaponMuzzleFlash and WeaponLaunchBone names in the state), as Zero Hour's
 * validateWeaponBarrelInfo finds it (W3DModelDraw.cpp): barrel i = 1, 2, ... takes each name's
 * NAMEi from the bone map (name_forms), the barrels ending at the first i none of the names
 * has; only when there is no barrel 1 are the plain names taken. So once a bone of the slot is
 * numbered, a plain name is never used. *numbered_by: the NAME01 that made the slot's barrels
 * numbered ("" when none did). */
static bool barrel_found(const char *name, const char *slot, const skeleton_bones *k,
                         model_info *subs, char *numbered_by, size_t nb)
{
    numbered_by[0] = '\0';
    for (const char *p = strchr(slot, ' '); p && !numbered_by[0];) {
        p++;
        size_t len = strcspn(p, " ");
        bool plain;
        if (len && name_forms(k, subs, p, len, &plain) > 0) {
            char b[256];
            numbered(b, sizeof b, p, len, 1);
            snprintf(numbered_by, nb, "%s", b);
        }
        p = p[len] ? p + len : NULL;
    }
    bool plain;
    int run = name_forms(k, subs, name, strlen(name), &plain);
    return numbered_by[0] ? run > 0 : plain;
}

/* Whether the engine finds bone or sub-object `name` of field `tag` on the model (`slot`: a
 * weapon barrel bone's slot text, else NULL). For a barrel bone whose slot is numbered,
 * *numbered_by says by which bone (barrel_found). */
static bool bone_found(amx_ref_kind kind, const char *tag, const char *name, const char *slot,
                       const skeleton_bones *k, model_info *subs, char *numbered_by, size_t nb)
{
    char n01[256]; /* NAME01: the name cut to 200 bytes, then "01" */
    numbered(n01, sizeof n01, name, strlen(name), 1);
    numbered_by[0] = '\0';
    if (kind == AMX_REF_SUB_OBJECT)
        return has_sub_object(subs, name);
    if (kind == AMX_REF_PARTICLE_BONE)
        return has_bone(k, name) || has_sub_object(subs, name);
    if (slot)
        return barrel_found(name, slot, k, subs, numbered_by, nb);
    if (strncmp(tag, "Weapon", 6) == 0) { /* WeaponHideShowBone, or a row written before 0021 */
        bool plain;
        return name_forms(k, subs, name, strlen(name), &plain) > 0 || plain;
    }
    return has_bone(k, name) || (!has_bone(k, n01) && has_sub_object(subs, name));
}

/* The rule bone_found applied, for the message of a bone it did not find. */
static void bone_rule(amx_ref_kind kind, const char *tag, const char *name, const char *slot,
                      const char *numbered_by, char *rule, size_t n)
{
    if (kind == AMX_REF_SUB_OBJECT)
        snprintf(rule, n, "a sub-object of that name");
    else if (kind == AMX_REF_PARTICLE_BONE)
        snprintf(rule, n, "a bone of that name");
    else if (slot && numbered_by[0])
        snprintf(rule, n, "the %.*s weapon's barrel bones are numbered (the model has %.100s), "
                 "so the engine tries only %.100s01, %.100s02, ... as bones, then as "
                 "sub-objects, and never a plain %.100s", (int)strcspn(slot, " "), slot,
                 numbered_by, name, name, name);
    else if (strncmp(tag, "Weapon", 6) == 0)
        snprintf(rule, n, "the engine tries %.100s01, %.100s02, ..., then %.100s, as bones, then "
                 "as sub-objects", name, name, name);
    else
        snprintf(rule, n, "a bone of that name, or a sub-object when no bone %.100s or %.100s01 "
                 "exists", name, name);
}

/* The texts of a file's reference rows, in blocks that never move (the rows point into them):
 * a file names up to AMX_MAX_REFS references, so a row holds no text of its own. */
typedef struct text_blocks {
    char **block;
    size_t n, cap, used, size;  /* used of the last block's size bytes */
    bool failed;                /* out of memory: the texts kept since are "" */
} text_blocks;

/* s, cut to `max` bytes, kept in t. */
static const char *keep(text_blocks *t, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    if (t->failed)
        return "";
    if (!t->n || len + 1 > t->size - t->used) {
        if (!amx__grow((void **)&t->block, &t->cap, t->n, sizeof *t->block)) {
            t->failed = true;
            return "";
        }
        size_t size = len + 1 > 65536 ? len + 1 : 65536;
        if (!(t->block[t->n] = malloc(size))) {
            t->failed = true;
            return "";
        }
        t->n++;
        t->used = 0;
        t->size = size;
    }
    char *out = t->block[t->n - 1] + t->used;
    memcpy(out, s, len);
    out[len] = '\0';
    t->used += len + 1;
    return out;
}

static void text_blocks_free(text_blocks *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->block[i]);
    free(t->block);
    *t = (text_blocks){ 0 };
}

typedef struct ref_row {
    int64_t id, file_id, line;  /* id: the row of refs (0 for a pending reference) */
    amx_ref_kind kind;
    /* cut to 63, 511, 255, 31, 255 and 299 bytes (what the checks and messages read) */
    const char *tag, *name, *object, *object_type, *model, *state;
    const char *slot;           /* a weapon barrel bone's "SLOT NAME..." (cut to 1199), or NULL */
    /* a reference that waits in ini_refs_pending (its row is inserted, whole, when resolved);
     * NULL: a row of refs (updated) */
    const amx__pending_ref *pending;
} ref_row;

/* The reference's state for messages: "KIND FLAGS" (the flags cut to 200 bytes). */
static void state_text(ref_row *r, text_blocks *t, const char *kind, const char *flags)
{
    char state[300] = "";
    size_t at = 0;
    append_str(state, sizeof state, &at, kind);
    if (flags[0])
        append_str(state, sizeof state, &at, " ");
    append(state, sizeof state, &at, flags, strnlen(flags, 200));
    r->state = keep(t, state, sizeof state - 1);
}

static void context(const ref_row *r, char *out, size_t n)
{
    if (r->object[0] && r->state[0])
        snprintf(out, n, "%s of '%.200s' (%.250s), line %lld", r->tag, r->object, r->state,
                 (long long)r->line);
    else if (r->object[0])
        snprintf(out, n, "%s of '%.200s', line %lld", r->tag, r->object, (long long)r->line);
    else
        snprintf(out, n, "%s, line %lld", r->tag, (long long)r->line);
}

static int finding(linker *l, int64_t file_id, amx_code code, amx_severity sev, const ref_row *r,
                   const char *fmt, ...) AMX_PRINTF(6, 7);
/* A finding of the reference, past link_finding_dropped (the caller asked it). */
static int finding_kept(linker *l, int64_t file_id, amx_code code, amx_severity sev,
                        const ref_row *r, const char *fmt, ...) AMX_PRINTF(6, 7);

static int vfinding(linker *l, int64_t file_id, amx_code code, amx_severity sev,
                    const ref_row *r, const char *fmt, va_list ap) AMX_PRINTF(6, 0);
static int vfinding(linker *l, int64_t file_id, amx_code code, amx_severity sev,
                    const ref_row *r, const char *fmt, va_list ap)
{
    char ctx[700], msg[3000];
    int w = snprintf(msg, sizeof msg, "line %lld: ", (long long)r->line);
    vsnprintf(msg + w, sizeof msg - (size_t)w, fmt, ap);
    context(r, ctx, sizeof ctx);
    return link_add_finding_sev(l, file_id, "refs", code, sev, -1, ctx, msg);
}

/* A finding of the reference (formatted only when the file's cap keeps it). */
static int finding(linker *l, int64_t file_id, amx_code code, amx_severity sev, const ref_row *r,
                   const char *fmt, ...)
{
    if (link_finding_dropped(l, "refs", sev))
        return 0;
    va_list ap;
    va_start(ap, fmt);
    int rc = vfinding(l, file_id, code, sev, r, fmt, ap);
    va_end(ap);
    return rc;
}

static int finding_kept(linker *l, int64_t file_id, amx_code code, amx_severity sev,
                        const ref_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfinding(l, file_id, code, sev, r, fmt, ap);
    va_end(ap);
    return rc;
}

static amx_severity missing_sev(const linker *l, int64_t root)
{
    const root_info *ri = link_root_of(l, root);
    return ri && ri->stack_len > 1 ? AMX_SEV_ERROR : AMX_SEV_INFO;
}

/* The reference's resolution: its row updated, or, for a pending one, inserted with it (in the
 * order of link.c's SAGE_REF_INSERT_COLUMNS). */
static int done(linker *l, const ref_row *r, int64_t target, const char *resolution,
                const char *via)
{
    const amx__pending_ref *p = r->pending;
    if (!p)
        return link_record(l, W_SAGE_REF, "iott", r->id, target, resolution, via);
    return link_record(l, W_SAGE_REF_INSERT, "iottttoootttott", r->file_id, p->object_id,
                       amx_ref_kind_name(p->kind), p->tag, p->name, p->key,
                       p->line > 0 ? p->line : -1, p->offset, p->state_id, p->model, p->model_key,
                       p->slot, target, resolution, via);
}

/* REFERENCE_NOT_FOUND: `what` is in no layer (info without a base layer, error with one). */
static int not_found(linker *l, int64_t file_id, int64_t root, const ref_row *r,
                     const char *what, const char *tried)
{
    amx_severity sev = missing_sev(l, root);
    if (!link_finding_dropped(l, "refs", sev)) {
        char where[2048];
        link_describe_stack(l, root, where, sizeof where);
        if (finding_kept(l, file_id, AMX_C_REFERENCE_NOT_FOUND, sev, r,
                         "%.300s is in no file of %.1500s; looked for %.600s", what, where, tried))
            return -1;
    }
    return done(l, r, -1, "missing", NULL);
}

static int check_model(linker *l, struct sage_stmts *g, int64_t file_id, int64_t root,
                       const ref_row *r)
{
    model_info *m = model_of(l, g, r->name, root);
    if (!m)
        return -1;
    if (m->state == 0) {
        char stem[256] = "", keys[W3D_LKEYS][AMX_LKEY_MAX], what[300], tried[600] = "";
        size_t at = 0;
        append(stem, sizeof stem, &at, r->name, strcspn(r->name, "."));
        amx__languages tmp;
        size_t k = w3d_lkeys(sage_languages(l, root, true, &tmp), stem, keys);
        quoted(what, sizeof what, "model", r->name);
        at = 0;
        for (size_t i = 0; i < k; i++) {
            if (i)
                append_str(tried, sizeof tried, &at, ", ");
            append(tried, sizeof tried, &at, keys[i], strnlen(keys[i], 290));
        }
        return not_found(l, file_id, root, r, what, tried);
    }
    if (m->state == 1) {
        if (finding(l, file_id, AMX_C_REFERENCE_WRONG_KIND, AMX_SEV_ERROR, r,
                    "model '%.200s' finds %.500s, which holds %.300s but no render object named "
                    "%.200s (an HLOD, or a mesh CONTAINER.MESH)", r->name, m->file.path, m->holds,
                    m->key))
            return -1;
        return done(l, r, m->file.id, "wrong-kind", NULL);
    }
    return done(l, r, m->file.id, "found", m->hierarchy[0] ? m->hierarchy : NULL);
}

/* A tree's TextureName (the only texture a SAGE INI file names): the file itself, at
 * ART/TERRAIN/<name> or ART/TEXTURES/<name> (amx__tree_texture_lkeys). A missing one is a
 * "Could not find texture" debug assertion; the game as sold draws the tree with no tiles of
 * its own. */
static int check_tree_texture(linker *l, int64_t file_id, int64_t root, const ref_row *r)
{
    char keys[AMX_TREE_TEXTURE_LKEYS][AMX_LKEY_MAX], what[300], tried[600] = "";
    size_t k = amx__tree_texture_lkeys(r->name, keys), at = 0;
    for (size_t i = 0; i < k; i++) {
        file_hit h;
        int f = link_file_at(l, keys[i], root, &h);
        if (f < 0)
            return -1;
        if (f)
            return done(l, r, h.id, "found", NULL);
        if (i)
            append_str(tried, sizeof tried, &at, ", ");
        append(tried, sizeof tried, &at, keys[i], strnlen(keys[i], 290));
    }
    if (!k)
        return done(l, r, -1, "skipped", NULL);
    quoted(what, sizeof what, "texture", r->name);
    return not_found(l, file_id, root, r, what, tried);
}

/* Whether two skeletons have the same pivots (count and names, in order). */
static int same_pivots(linker *l, int64_t a, int64_t b)
{
    const skeleton_bones *x = link_skeleton_of(l, a);
    if (!x)
        return -1;
    size_t n = x->n;
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return -1;
    /* copied: loading b may evict a from the cache */
    for (size_t i = 0; i < n; i++)
        if (!(names[i] = strdup(x->bones[i].key ? x->bones[i].key : ""))) {
            for (size_t k = 0; k < i; k++)
                free(names[k]);
            free(names);
            return -1;
        }
    const skeleton_bones *y = link_skeleton_of(l, b);
    int same = y ? (y->n == n) : -1;
    for (size_t i = 0; y && same == 1 && i < n; i++)
        if (strcmp(names[i], y->bones[i].key) != 0)
            same = 0;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return same;
}

static int check_animation(linker *l, struct sage_stmts *g, int64_t file_id, int64_t root,
                           const ref_row *r)
{
    const char *dot = strchr(r->name, '.');
    char hier[256] = "", anim[256] = "", tried[600];
    size_t hn = 0, an = 0;
    append(hier, sizeof hier, &hn, r->name, dot ? (size_t)(dot - r->name) : 0);
    append_str(anim, sizeof anim, &an, dot ? dot + 1 : r->name);
    file_hit h;
    int f = find_w3d(l, anim, root, &h, tried, sizeof tried);
    if (f < 0)
        return -1;
    if (!f) {
        char what[300];
        quoted(what, sizeof what, "animation", r->name);
        return not_found(l, file_id, root, r, what, tried);
    }
    /* the file must hold animation ANIM of hierarchy HIER; a BFME name without '.' (the file
     * NAME.w3d) names the animation alone, whatever hierarchy its header gives */
    sqlite3_stmt *s = g->clips_of;
    sqlite3_bind_int64(s, 1, h.id);
    char holds[400] = "";
    size_t at = 0, clips = 0;
    bool match = false;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *cn = col_or(s, 0, ""), *ch = col_or(s, 1, "");
        clips++;
        if (!match && amx__ascii_casecmp(cn, anim) == 0) {
            if (!dot) { /* its hierarchy is the header's */
                hn = 0;
                append_str(hier, sizeof hier, &hn, ch);
            }
            match = !dot || amx__ascii_casecmp(ch, hier) == 0;
        }
        if (at < sizeof holds)
            at += (size_t)snprintf(holds + at, sizeof holds - at, "%s'%.60s.%.60s'",
                                   at ? ", " : "", ch, cn);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    if (!match) {
        if (finding(l, file_id, AMX_C_REFERENCE_WRONG_KIND, AMX_SEV_ERROR, r,
                    "animation '%.200s' finds %.500s, which holds %s%s: %s", r->name, h.path,
                    clips ? "the animation " : "no animation", clips ? holds : "",
                    dot ? "the engine registers an animation as HIERARCHY.NAME from its header"
                        : "a name without its hierarchy plays the animation of that name in "
                          "the file of that name"))
            return -1;
        return done(l, r, h.id, "wrong-kind", NULL);
    }
    /* the hierarchy of the model it plays on */
    if (!r->model[0])
        return done(l, r, h.id, "found", NULL);
    model_info *m = model_of(l, g, r->model, root);
    if (!m)
        return -1;
    if (m->state != 2 || !m->hierarchy[0] || amx__ascii_casecmp(m->hierarchy, hier) == 0)
        return done(l, r, h.id, "found", m->state == 2 && m->hierarchy[0] ? m->hierarchy : NULL);
    char hier_key[256], dir[1024];
    upper(hier_key, sizeof hier_key, hier);
    link_lkey_dir(h.lkey, dir, sizeof dir);
    pick anim_skel;
    int fa = link_find_named(l, hier_key, h.id, dir, h.root_id, &anim_skel);
    if (fa < 0)
        return -1;
    if (fa == 0 || !m->has_skeleton) /* a skeleton not found: the W3D side reports it */
        return done(l, r, h.id, "found", m->hierarchy);
    int same = same_pivots(l, anim_skel.id, m->skel.id);
    if (same < 0)
        return -1;
    if (finding(l, file_id, AMX_C_ANIMATION_HIERARCHY_MISMATCH, same ? AMX_SEV_INFO : AMX_SEV_ERROR,
                r, "animation '%.200s' is made for hierarchy %s (%.300s, %lld pivots), but model "
                "'%.200s' is built on %s (%.300s, %lld pivots): %s", r->name, anim_skel.name,
                anim_skel.path, (long long)anim_skel.bone_count, r->model, m->skel.name,
                m->skel.path, (long long)m->skel.bone_count,
                same ? "the pivots are the same, only the name differs"
                     : "the engine moves the model's pivots by index and the model is distorted"))
        return -1;
    return done(l, r, h.id, "found", m->hierarchy);
}

static int check_bone(linker *l, struct sage_stmts *g, int64_t file_id, int64_t root,
                      const ref_row *r)
{
    if (!r->model[0])
        return done(l, r, -1, "skipped", NULL);
    model_info *m = model_of(l, g, r->model, root);
    if (!m)
        return -1;
    if (m->state != 2) /* the model's own reference says why */
        return done(l, r, -1, "skipped", NULL);
    const skeleton_bones *k = NULL;
    if (m->has_skeleton && !(k = link_skeleton_of(l, m->skel.id)))
        return -1;
    if (!k && r->kind != AMX_REF_SUB_OBJECT && m->hierarchy[0]) /* no hierarchy to look in */
        return done(l, r, m->file.id, "skipped", m->hierarchy);
    char numbered_by[256];
    if (bone_found(r->kind, r->tag, r->name, r->slot, k, m, numbered_by, sizeof numbered_by))
        return done(l, r, m->file.id, "found", m->hierarchy[0] ? m->hierarchy : NULL);
    char rule[700];
    bone_rule(r->kind, r->tag, r->name, r->slot, numbered_by, rule, sizeof rule);
    const char *what = r->kind == AMX_REF_SUB_OBJECT ? "sub-object"
                       : r->kind == AMX_REF_PARTICLE_BONE ? "particle bone" : "bone";
    if (!m->sub_by.built)
        sub_index_build(m);
    size_t subs = m->sub_by.count;
    char hier[600];
    if (k)
        snprintf(hier, sizeof hier, "hierarchy %s in %.300s, %zu pivots", m->skel.name,
                 m->skel.path, k->n);
    else
        snprintf(hier, sizeof hier, "no hierarchy");
    if (finding(l, file_id, AMX_C_MODEL_BONE_NOT_FOUND, AMX_SEV_WARNING, r,
                "%s '%.200s' is not in model '%.200s' (%.500s; %zu sub-objects; %.400s): %.600s",
                what, r->name, r->model, m->file.path, subs, hier, rule))
        return -1;
    return done(l, r, m->file.id, "missing", m->hierarchy[0] ? m->hierarchy : NULL);
}

/* The logical path of `rel` (written with '\' or '/', "..\" climbing) relative to the directory
 * of `from` (an lkey). False when it climbs out of the layer. */
static bool include_lkey(const char *from, const char *rel, char *out, size_t n)
{
    char dir[AMX_LKEY_MAX];
    link_lkey_dir(from, dir, sizeof dir);
    size_t at = (size_t)snprintf(out, n, "%s", dir);
    while (*rel == '\\' || *rel == '/')
        rel++;
    while (*rel) {
        size_t len = strcspn(rel, "\\/");
        if (len == 2 && rel[0] == '.' && rel[1] == '.') {
            if (!at)
                return false;
            char *slash = strrchr(out, '/');
            at = slash ? (size_t)(slash - out) : 0;
            out[at] = '\0';
        } else if (!(len == 1 && rel[0] == '.') && len) {
            if (at + len + 2 >= n)
                return false;
            if (at)
                out[at++] = '/';
            for (size_t i = 0; i < len; i++)
                out[at++] = (char)toupper((unsigned char)rel[i]);
            out[at] = '\0';
        }
        rel += len;
        while (*rel == '\\' || *rel == '/')
            rel++;
    }
    return at > 0;
}

/* Whether the includes of file `at` lead back to `target` (bounded depth and visits). */
static int includes_reach(linker *l, struct sage_stmts *g, int64_t at, int64_t target,
                          int64_t root, int depth, size_t *visits)
{
    if (depth > MAX_INCLUDE_DEPTH || ++*visits > MAX_INCLUDE_VISITS)
        return 0;
    sqlite3_stmt *s = g->file_lkey;
    sqlite3_bind_int64(s, 1, at);
    char from[AMX_LKEY_MAX] = "";
    if (sqlite3_step(s) == SQLITE_ROW)
        snprintf(from, sizeof from, "%s", col_or(s, 0, ""));
    sqlite3_reset(s);
    /* the includes of `at`, read before recursing (the statement is shared) */
    char names[64][256];
    size_t n = 0;
    s = g->includes_of;
    sqlite3_bind_int64(s, 1, at);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && n < 64)
        snprintf(names[n++], sizeof names[0], "%s", col_or(s, 0, ""));
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    /* ... or, when it is not linked yet, of its pending references */
    s = l->pending_refs_of_file;
    sqlite3_bind_int64(s, 1, at);
    rc = sqlite3_step(s);
    amx__pending_refs pend = { 0 };
    /* a damaged blob names nothing (its file is decoded again: bind_sage_refs) */
    if (rc == SQLITE_ROW && amx__pending_refs_read(sqlite3_column_blob(s, 0),
                                                   (size_t)sqlite3_column_bytes(s, 0), &pend) == 0)
        for (size_t i = 0; i < pend.n && n < 64; i++)
            if (pend.refs[i].kind == AMX_REF_INCLUDE)
                snprintf(names[n++], sizeof names[0], "%s", pend.refs[i].name);
    sqlite3_reset(s);
    amx__pending_refs_free(&pend);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char lkey[AMX_LKEY_MAX];
        file_hit h;
        if (!include_lkey(from, names[i], lkey, sizeof lkey))
            continue;
        int f = link_file_at(l, lkey, root, &h);
        if (f < 0)
            return -1;
        if (!f)
            continue;
        if (h.id == target)
            return 1;
        int r = includes_reach(l, g, h.id, target, root, depth + 1, visits);
        if (r)
            return r;
    }
    return 0;
}

static int check_include(linker *l, struct sage_stmts *g, int64_t file_id, int64_t root,
                         const char *file_lkey, const ref_row *r)
{
    char lkey[AMX_LKEY_MAX];
    if (!include_lkey(file_lkey, r->name, lkey, sizeof lkey)) {
        if (finding(l, file_id, AMX_C_REFERENCE_NOT_FOUND, AMX_SEV_ERROR, r,
                    "#include \"%.300s\" climbs out of the layer the file is in: animidx looks "
                    "nothing up outside the scanned trees", r->name))
            return -1;
        return done(l, r, -1, "missing", NULL);
    }
    file_hit h;
    int f = link_file_at(l, lkey, root, &h);
    if (f < 0)
        return -1;
    if (!f) {
        char what[320];
        snprintf(what, sizeof what, "#include \"%.300s\"", r->name);
        return not_found(l, file_id, root, r, what, lkey);
    }
    size_t visits = 0;
    int cyc = h.id == file_id ? 1 : includes_reach(l, g, h.id, file_id, root, 1, &visits);
    if (cyc < 0)
        return -1;
    if (cyc && finding(l, file_id, AMX_C_INI_MALFORMED, AMX_SEV_ERROR, r,
                       "#include \"%.300s\" (%.500s) includes this file again: an endless "
                       "#include cycle", r->name, h.path))
        return -1;
    return done(l, r, h.id, "found", NULL);
}

/* The engine's load order of object INIs (INI::loadDirectory): Default/Object.ini, then the
 * files of Object/, then those of its subdirectories, each group in the order of the engine's
 * FilenameList: a std::set of the paths under rts::less_than_nocase<AsciiString>, that is
 * AsciiString::compareNoCase, _stricmp, which compares lower-case letters ('_' sorts before
 * every letter) and the paths' '\' separators (after the digits); other files after. `sort` is
 * the path so: lower case, '\' for '/', compared with strcmp. */
static int load_rank(const char *path, char *sort, size_t n)
{
    char u[1024];
    upper(u, sizeof u, path);
    const char *obj = strstr(u, "INI/OBJECT/");
    size_t i = 0;
    for (; n && path[i] && i + 1 < n; i++) {
        char c = path[i];
        sort[i] = c == '/' ? '\\' : c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
    }
    if (n)
        sort[i] = '\0';
    if (strstr(u, "INI/DEFAULT/OBJECT.INI"))
        return 0;
    if (obj)
        return strchr(obj + 11, '/') ? 2 : 1;
    return 3;
}

static int check_object(linker *l, struct sage_stmts *g, int64_t file_id, int64_t root,
                        const char *file_path, int64_t object_line, const ref_row *r)
{
    char key[256];
    upper(key, sizeof key, r->name);
    sqlite3_stmt *s = g->objects_named;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    char my_sort[1024], later[600] = "";
    int my_rank = load_rank(file_path, my_sort, sizeof my_sort);
    bool before = false;
    int rc;
    int64_t target = -1;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && !before) {
        int64_t line = sqlite3_column_int64(s, 0), fid = sqlite3_column_int64(s, 1),
                froot = sqlite3_column_int64(s, 2);
        int layer = link_layer_of(l, root, froot);
        if (layer < 0)
            continue;
        char sort[1024];
        int rank = load_rank(col_or(s, 3, ""), sort, sizeof sort);
        if (layer > 0 || (fid == file_id && line < object_line) ||
            (fid != file_id && (rank < my_rank || (rank == my_rank && strcmp(sort, my_sort) < 0)))) {
            before = true;
            target = fid;
        } else if (!later[0]) {
            snprintf(later, sizeof later, "%.400s line %lld", col_or(s, 3, ""), (long long)line);
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    if (before)
        return done(l, r, target, "found", NULL);
    if (later[0]) {
        if (finding(l, file_id, AMX_C_INI_MALFORMED, AMX_SEV_ERROR, r,
                    "%s '%.200s' copies '%.200s', which is defined only after it (%s): the game "
                    "stops at load (\"%s must come after the original Object\")",
                    r->object_type, r->object, r->name, later, r->object_type))
            return -1;
        return done(l, r, -1, "missing", NULL);
    }
    amx_severity sev = missing_sev(l, root);
    if (!link_finding_dropped(l, "refs", sev)) {
        char where[2048];
        link_describe_stack(l, root, where, sizeof where);
        if (finding_kept(l, file_id, AMX_C_INI_MALFORMED, sev, r,
                         "%s '%.200s' copies '%.200s', which no INI file of %.1500s defines: the "
                         "game stops at load unless the game itself defines it", r->object_type,
                         r->object, r->name, where))
            return -1;
    }
    return done(l, r, -1, "missing", NULL);
}

/* The two texts of each game object (name, type) or draw state (kind, flags) of a file, by row
 * id: the context of its pending references, read once per file. */
typedef struct row_texts {
    struct { int64_t id; size_t a, b; } *rows; /* in id order; a, b: offsets in text */
    size_t n, cap;
    amx__byte_buf text;
} row_texts;

static void row_texts_free(row_texts *t)
{
    free(t->rows);
    amx__byte_buf_free(&t->text);
    *t = (row_texts){ 0 };
}

/* Reads statement s (id, text, text; ordered by id) for file_id into t. 0, or -1. */
static int load_row_texts(sqlite3_stmt *s, int64_t file_id, row_texts *t)
{
    sqlite3_bind_int64(s, 1, file_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (!amx__grow((void **)&t->rows, &t->cap, t->n, sizeof *t->rows))
            break;
        t->rows[t->n].id = sqlite3_column_int64(s, 0);
        if (!amx__byte_buf_put_text(&t->text, col_or(s, 1, ""), &t->rows[t->n].a) ||
            !amx__byte_buf_put_text(&t->text, col_or(s, 2, ""), &t->rows[t->n].b))
            break;
        t->n++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The first text of row `id` (its second in *second), or NULL when the file has no such row. */
static const char *row_text(const row_texts *t, int64_t id, const char **second)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->n || t->rows[lo].id != id)
        return NULL;
    *second = (const char *)t->text.data + t->rows[lo].b;
    return (const char *)t->text.data + t->rows[lo].a;
}

/* A slot at the end of the list (grown as needed), or NULL out of memory. */
static ref_row *new_row(ref_row **rows, size_t *n, size_t *cap)
{
    if (!amx__grow((void **)rows, cap, *n, sizeof **rows))
        return NULL;
    ref_row *r = &(*rows)[(*n)++];
    *r = (ref_row){ .tag = "", .name = "", .object = "", .object_type = "", .model = "",
                    .state = "" };
    return r;
}

/* The references of file_id that wait in ini_refs_pending, after those of refs in *rows (as the
 * refs query gives them: object, state and model texts for the checks and their context). 1 the
 * file has such references (pend holds them: the rows point into it), 0 none, 2 its blob is
 * damaged (nothing added), -1 error. */
static int pending_rows(linker *l, struct sage_stmts *g, int64_t file_id, amx__pending_refs *pend,
                        ref_row **rows, size_t *n, size_t *cap, text_blocks *texts)
{
    sqlite3_stmt *s = l->pending_refs_of_file;
    sqlite3_bind_int64(s, 1, file_id);
    int rc = sqlite3_step(s);
    int bad = rc == SQLITE_ROW
                  ? amx__pending_refs_read(sqlite3_column_blob(s, 0),
                                           (size_t)sqlite3_column_bytes(s, 0), pend)
                  : 0;
    sqlite3_reset(s);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? 0 : -1;
    if (bad)
        return 2;
    row_texts objects = { 0 }, states = { 0 };
    int err = load_row_texts(g->objects_of_file, file_id, &objects) ||
              load_row_texts(g->states_of_file, file_id, &states);
    for (size_t i = 0; i < pend->n && !err; i++) {
        const amx__pending_ref *p = &pend->refs[i];
        ref_row *r = new_row(rows, n, cap);
        if (!r) {
            err = 1;
            break;
        }
        r->id = 0;
        r->file_id = file_id;
        r->pending = p;
        r->kind = p->kind;
        r->line = p->line;
        r->tag = keep(texts, p->tag, 63);
        r->name = keep(texts, p->name, 511);
        r->model = keep(texts, p->model ? p->model : "", 255);
        r->slot = p->slot ? keep(texts, p->slot, 1199) : NULL;
        const char *type = "", *object = p->object_id >= 0 ? row_text(&objects, p->object_id,
                                                                       &type) : NULL;
        r->object = keep(texts, object ? object : "", 255);
        r->object_type = keep(texts, object ? type : "", 31);
        const char *flags = "", *kind = p->state_id >= 0 ? row_text(&states, p->state_id, &flags)
                                                         : NULL;
        if (kind)
            state_text(r, texts, kind, flags);
    }
    row_texts_free(&objects);
    row_texts_free(&states);
    return err || texts->failed ? -1 : 1;
}

int bind_sage_refs(linker *l, int64_t file_id, int64_t root)
{
    struct sage_stmts *g = stmts(l);
    if (!g)
        return -1;
    char file_lkey[AMX_LKEY_MAX] = "", file_path[1024] = "";
    sqlite3_stmt *s = g->file_lkey;
    sqlite3_bind_int64(s, 1, file_id);
    if (sqlite3_step(s) == SQLITE_ROW) {
        snprintf(file_lkey, sizeof file_lkey, "%s", col_or(s, 0, ""));
        snprintf(file_path, sizeof file_path, "%s", col_or(s, 1, ""));
    }
    sqlite3_reset(s);
    s = g->refs_of_file;
    sqlite3_bind_int64(s, 1, file_id);
    int rc, err = 0;
    /* rows are read into a list first: the checks run other statements of this connection */
    ref_row *rows = NULL;
    size_t n = 0, cap = 0;
    text_blocks texts = { 0 };
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        ref_row *r = new_row(&rows, &n, &cap);
        if (!r) {
            err = 1;
            break;
        }
        r->id = sqlite3_column_int64(s, 0);
        r->file_id = file_id;
        r->kind = AMX_REF_MODEL;
        amx_ref_kind_parse(col_or(s, 1, ""), &r->kind);
        r->tag = keep(&texts, col_or(s, 2, ""), 63);
        r->name = keep(&texts, col_or(s, 3, ""), 511);
        r->line = sqlite3_column_int64(s, 4);
        r->object = keep(&texts, col_or(s, 5, ""), 255);
        r->model = keep(&texts, col_or(s, 6, ""), 255);
        const char *sk = col_text(s, 7), *sf = col_text(s, 8);
        if (sk)
            state_text(r, &texts, sk, sf ? sf : "");
        r->object_type = keep(&texts, col_or(s, 9, ""), 31);
        const char *slot = col_text(s, 10);
        r->slot = slot ? keep(&texts, slot, 1199) : NULL;
    }
    sqlite3_reset(s);
    amx__pending_refs pend = { 0 };
    int pending = err || texts.failed || (rc != SQLITE_DONE && rc != SQLITE_ROW)
                      ? -1 : pending_rows(l, g, file_id, &pend, &rows, &n, &cap, &texts);
    err = pending < 0;
    /* a damaged blob (only a damaged index has one): the file is decoded again by the next
     * scan, which writes its references anew */
    if (!err && pending == 2)
        err = link_record(l, W_DECODE_AGAIN, "i", file_id);
    /* no references: no reference findings to replace either (they change only when the file
     * is written again, with its findings) */
    if (!err && n && !l->first_pass)
        err = link_record(l, W_DEL_REF_FINDINGS, "i", file_id);
    for (size_t i = 0; i < n && !err; i++) {
        const ref_row *r = &rows[i];
        switch (r->kind) {
        case AMX_REF_W3D_MODEL: err = check_model(l, g, file_id, root, r); break;
        case AMX_REF_W3D_ANIMATION: err = check_animation(l, g, file_id, root, r); break;
        case AMX_REF_TEXTURE: err = check_tree_texture(l, file_id, root, r); break;
        case AMX_REF_BONE:
        case AMX_REF_SUB_OBJECT:
        case AMX_REF_PARTICLE_BONE: err = check_bone(l, g, file_id, root, r); break;
        case AMX_REF_INCLUDE: err = check_include(l, g, file_id, root, file_lkey, r); break;
        case AMX_REF_INI_OBJECT:
            err = check_object(l, g, file_id, root, file_path, r->line, r);
            break;
        default: err = done(l, r, -1, "skipped", NULL); break;
        }
    }
    /* the blob goes after the rows it held are written (in the same transaction) */
    if (!err && pending > 0)
        err = link_record(l, W_DEL_PENDING_REFS, "i", file_id);
    free(rows);
    text_blocks_free(&texts);
    amx__pending_refs_free(&pend);
    return err ? -1 : 0;
}
