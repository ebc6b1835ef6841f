/*
 * The link pass: binds clips (and models built on a named skeleton) to skeletons the way the
 * engines do, records how each binding was made, and checks every bone of a clip against each
 * skeleton it is bound to.
 *
 * Where a skeleton may come from: the clip's own root and the base layers it declares (a mod on
 * its parent mod and games; resolve.h amx__layer_stack), never an unrelated root. Within that
 * stack a file is found the way the game finds it: loose files of every layer before archive
 * contents, each in layer order (amx__lookup_rank).
 *
 * Per clip marked unlinked (new or changed, or a candidate skeleton, XML override or layer list
 * changed), each engine's rules in a file of their own:
 *   bind_alamo.c: Empire at War / Forces of Corruption, by the engine's naming convention and the
 *     game objects' XML animation overrides ('name', 'xml-override').
 *   bind_w3d.c: W3D (and any clip that names its skeleton): the hierarchy of that name in its
 *     own file, then its directory, its tree, the base layers ('w3d-header'); models built on a
 *     hierarchy (HLOD, HMODEL) likewise; DUPLICATE_NAME.
 *   bind_mp.c: Metroid Prime: the CINF of every character of an ANCS that plays the clip ('ancs').
 *   MechWarrior 3: not bound (its anim root is a world node).
 * link_refs.c resolves the asset references of a file (textures, shaders, proxies, XML tags).
 * Bone check, per binding: every track must name the skeleton's bone at its index
 * (case-insensitive; names repeat within skeletons, so never by name alone); tracks that carry
 * only an id (Metroid Prime) must name a bone id of the skeleton, and so must the clip's root
 * bone: BONE_INDEX_MISMATCH when the name sits at another index, BONE_NOT_IN_SKELETON when it is
 * nowhere. The message names the skeleton's file. Findings of this pass have origin 'link' (and
 * 'names' for DUPLICATE_NAME) and are recomputed without decoding the files again.
 *
 * Linking a file reads the index and records what to write (a plan); the writer applies the
 * plans in file order. With more than one thread, helpers link the files of a large batch ahead
 * of the writer, each through a read-only connection of its own.
 */
#include "link_internal.h"
#include "common/grow.h"
#include "common/hash.h"
#include "resolve/resolve.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "animidx/os.h"

/* ---- memos ---- */

typedef struct memo_entry {
    char *key;                /* NULL: the slot is empty */
    void *blob;
    size_t len, cap;
} memo_entry;

struct link_memo {
    memo_entry *slots;
    size_t cap, used;         /* cap: a power of two */
};

static uint64_t memo_hash(const char *key) /* seeded (common/hash.h): keys come from files */
{
    return amx_hash(key, strlen(key));
}

link_memo *link_memo_new(void)
{
    link_memo *m = calloc(1, sizeof *m);
    if (m && !(m->slots = calloc(m->cap = 64, sizeof *m->slots))) {
        free(m);
        return NULL;
    }
    return m;
}

void link_memo_free(link_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++) {
        free(m->slots[i].key);
        free(m->slots[i].blob);
    }
    free(m->slots);
    free(m);
}

static memo_entry *memo_slot(const link_memo *m, const char *key)
{
    size_t i = (size_t)memo_hash(key) & (m->cap - 1);
    while (m->slots[i].key && strcmp(m->slots[i].key, key) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

const void *link_memo_get(const link_memo *m, const char *key, size_t *len)
{
    const memo_entry *e = m ? memo_slot(m, key) : NULL;
    if (!e || !e->key)
        return NULL;
    if (len)
        *len = e->len;
    return e->blob ? e->blob : "";
}

/* The entry of key, made when absent (the table doubles past three quarters full). */
static memo_entry *memo_entry_of(link_memo *m, const char *key)
{
    if (!m)
        return NULL;
    if ((m->used + 1) * 4 > m->cap * 3) {
        memo_entry *old = m->slots;
        size_t old_cap = m->cap;
        memo_entry *grown = calloc(old_cap * 2, sizeof *grown);
        if (!grown)
            return NULL;
        m->slots = grown;
        m->cap = old_cap * 2;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].key)
                *memo_slot(m, old[i].key) = old[i];
        free(old);
    }
    memo_entry *e = memo_slot(m, key);
    if (!e->key) {
        if (!(e->key = strdup(key)))
            return NULL;
        m->used++;
    }
    return e;
}

int link_memo_append(link_memo *m, const char *key, const void *blob, size_t len)
{
    memo_entry *e = memo_entry_of(m, key);
    if (!e)
        return -1;
    if (e->len + len > e->cap) {
        size_t cap = e->cap ? e->cap : 32;
        while (cap < e->len + len)
            cap *= 2;
        void *g = realloc(e->blob, cap);
        if (!g)
            return -1;
        e->blob = g;
        e->cap = cap;
    }
    if (len)
        memcpy((char *)e->blob + e->len, blob, len);
    e->len += len;
    return 0;
}

int link_memo_put(link_memo *m, const char *key, const void *blob, size_t len)
{
    memo_entry *e = memo_entry_of(m, key);
    if (!e)
        return -1;
    e->len = 0;
    return link_memo_append(m, key, blob, len);
}

/* ---- roots and their stacks ---- */

static void free_roots(linker *l)
{
    for (size_t i = 0; i < l->root_count; i++) {
        free(l->roots[i].path);
        free(l->roots[i].bases);
    }
    free(l->roots);
    l->roots = NULL;
    l->root_count = 0;
}

static int load_roots(linker *l)
{
    sqlite3_stmt *s = NULL, *b = NULL;
    int rc = sqlite3_prepare_v2(l->h, "SELECT id, path, game FROM roots ORDER BY id", -1, &s,
                                NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(l->h, "SELECT base_id FROM root_layers WHERE root_id = ?1 "
                                "ORDER BY rank", -1, &b, NULL);
    size_t cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (l->root_count == cap) {
            cap = cap ? cap * 2 : 8;
            root_info *g = realloc(l->roots, cap * sizeof *g);
            if (!g) {
                rc = SQLITE_NOMEM;
                break;
            }
            l->roots = g;
        }
        root_info *r = &l->roots[l->root_count++];
        *r = (root_info){ .id = sqlite3_column_int64(s, 0), .path = strdup(col_or(s, 1, "")) };
        if (!amx_alamo_game_parse(col_text(s, 2), &r->game))
            r->game = AMX_ALAMO_FOC;
        r->generals = col_text(s, 2) && strcmp(col_text(s, 2), "generals") == 0;
        if (!r->path) {
            rc = SQLITE_NOMEM;
            break;
        }
        sqlite3_bind_int64(b, 1, r->id);
        size_t bcap = 0;
        while ((rc = sqlite3_step(b)) == SQLITE_ROW) {
            if (r->base_count == bcap) {
                bcap = bcap ? bcap * 2 : 4;
                int64_t *g = realloc(r->bases, bcap * sizeof *g);
                if (!g) {
                    rc = SQLITE_NOMEM;
                    break;
                }
                r->bases = g;
            }
            r->bases[r->base_count++] = sqlite3_column_int64(b, 0);
        }
        sqlite3_reset(b);
        if (rc != SQLITE_DONE)
            break;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(s);
    sqlite3_finalize(b);
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        return -1;
    amx__root_layers *view = calloc(l->root_count ? l->root_count : 1, sizeof *view);
    if (!view)
        return -1;
    for (size_t i = 0; i < l->root_count; i++)
        view[i] = (amx__root_layers){ l->roots[i].id, l->roots[i].bases, l->roots[i].base_count };
    for (size_t i = 0; i < l->root_count; i++)
        l->roots[i].stack_len = amx__layer_stack(view, l->root_count, l->roots[i].id,
                                                 l->roots[i].stack, MAX_STACK);
    free(view);
    return 0;
}

/* SAGE's language directories (resolve.h, amx__languages): every DATA/<X>/ of the index that
 * holds ART/W3D/ or ART/TEXTURES/, in name order. One seek on files_lkey per directory under
 * DATA/ (each the first key past the directory before), and two to look inside it: a game's dozen
 * directories cost a few dozen seeks. A tree with more than LANGUAGE_DIRS of them is looked at no
 * further. 0, or -1 with the error on l->h. */
enum { LANGUAGE_DIRS = 4096 };

static int load_languages(linker *l)
{
    l->languages.count = 0;
    sqlite3_stmt *next = l->data_lkey_from, *under = l->lkey_between;
    int rc = SQLITE_OK;
    char from[AMX_LKEY_MAX] = "DATA/";
    for (size_t dirs = 0; rc == SQLITE_OK && dirs < LANGUAGE_DIRS &&
                          l->languages.count < AMX_MAX_LANGUAGES; dirs++) {
        sqlite3_bind_text(next, 1, from, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(next);
        if (rc != SQLITE_ROW)
            break;
        const char *key = col_text(next, 0);
        if (!key || strncmp(key, "DATA/", 5) != 0)
            break; /* not in the range asked for */
        const char *dir = key + 5, *slash = strchr(dir, '/');
        size_t len = slash ? (size_t)(slash - dir) : strlen(dir);
        char name[AMX_LANGUAGE_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : 0), dir);
        /* past this directory (every key under DATA/X/ is below DATA/X0), or past this file */
        snprintf(from, sizeof from, "DATA/%.*s%s", (int)len, dir, slash ? "0" : "\x01");
        sqlite3_reset(next);
        rc = SQLITE_OK;
        if (!slash || len == 0 || len >= AMX_LANGUAGE_MAX)
            continue;
        bool holds = false;
        for (int sub = 0; sub < 2 && !holds && rc == SQLITE_OK; sub++) {
            char lo[AMX_LKEY_MAX], hi[AMX_LKEY_MAX];
            const char *art = sub ? "TEXTURES" : "W3D";
            snprintf(lo, sizeof lo, "DATA/%s/ART/%s/", name, art);
            snprintf(hi, sizeof hi, "DATA/%s/ART/%s0", name, art);
            sqlite3_bind_text(under, 1, lo, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(under, 2, hi, -1, SQLITE_TRANSIENT);
            rc = sqlite3_step(under);
            holds = rc == SQLITE_ROW;
            sqlite3_reset(under);
            rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
        }
        if (holds)
            snprintf(l->languages.prefix[l->languages.count++], sizeof l->languages.prefix[0],
                     "DATA/%s/", name);
    }
    sqlite3_reset(next);
    return rc == SQLITE_OK || rc == SQLITE_DONE ? 0 : -1;
}

amx_alamo_game link_game_of(const linker *l, int64_t root)
{
    const root_info *r = link_root_of(l, root);
    return r ? r->game : AMX_ALAMO_FOC;
}

const amx__languages *sage_languages(const linker *l, int64_t root, bool w3d_file,
                                     amx__languages *tmp)
{
    const root_info *r = link_root_of(l, root);
    if (!r || !r->generals)
        return &l->languages;
    *tmp = l->languages;
    if (w3d_file)
        tmp->count = 0;
    else
        tmp->last = true;
    return tmp;
}

const root_info *link_root_of(const linker *l, int64_t id)
{
    for (size_t i = 0; i < l->root_count; i++)
        if (l->roots[i].id == id)
            return &l->roots[i];
    return NULL;
}

/* The position of root `id` in the lookup stack of `from`, or -1 when unrelated. */
int link_layer_of(const linker *l, int64_t from, int64_t id)
{
    const root_info *r = link_root_of(l, from);
    for (size_t i = 0; r && i < r->stack_len; i++)
        if (r->stack[i] == id)
            return (int)i;
    return -1;
}

/* "this tree" or "its base layers A, B" for messages. */
void link_describe_stack(const linker *l, int64_t root, char *out, size_t n)
{
    const root_info *r = link_root_of(l, root);
    if (!r || r->stack_len <= 1) { /* how to declare base layers is said once, by the command */
        snprintf(out, n, "this tree");
        return;
    }
    size_t at = (size_t)snprintf(out, n, "this tree and its base layers");
    for (size_t i = 1; i < r->stack_len && at < n; i++) {
        const root_info *b = link_root_of(l, r->stack[i]);
        at += (size_t)snprintf(out + at, n - at, "%s %s", i == 1 ? "" : ",", b ? b->path : "?");
    }
}

/* ---- the pass's writes ---- */

/* An INI reference inserted resolved (W_SAGE_REF_INSERT's parameters, in this order), one row
 * or WRITE_BATCH rows to a statement (each statement opens a cursor on refs and on each of
 * its indexes). */
#define SAGE_REF_INSERT_COLUMNS "file_id, object_id, kind, tag, name, key, line, offset, " \
    "state_id, model, model_key, slot, target_id, resolution, via_key, linked"
#define SAGE_REF_ROW "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)"
#define SAGE_REF_ROWS_4 SAGE_REF_ROW ", " SAGE_REF_ROW ", " SAGE_REF_ROW ", " SAGE_REF_ROW
#define SAGE_REF_ROWS_16 SAGE_REF_ROWS_4 ", " SAGE_REF_ROWS_4 ", " SAGE_REF_ROWS_4 ", " \
    SAGE_REF_ROWS_4
enum { SAGE_REF_PARAMS = 15, WRITE_BATCH = 16 };
_Static_assert((int)SAGE_REF_PARAMS <= (int)MAX_WRITE_PARAMS, "a write op holds a row");

/* A finding (W_FINDING's parameters, in this order), likewise: a file's come together (its
 * held findings, written when it is linked: up to MAX_FILE_FINDINGS per origin) */
#define FINDING_INSERT "INSERT INTO findings(file_id, origin, code, severity, message, offset, " \
    "context) VALUES "
#define FINDING_ROW "(?, ?, ?, ?, ?, ?, ?)"
#define FINDING_ROWS_4 FINDING_ROW ", " FINDING_ROW ", " FINDING_ROW ", " FINDING_ROW
#define FINDING_ROWS_16 FINDING_ROWS_4 ", " FINDING_ROWS_4 ", " FINDING_ROWS_4 ", " \
    FINDING_ROWS_4
enum { FINDING_PARAMS = 7 };

/* The writes apply() batches: the statement of WRITE_BATCH rows and the parameters of a row
 * (0: not batched) */
static const struct { uint8_t batch, params; } batched[W_KINDS] = {
    [W_SAGE_REF_INSERT] = { W_SAGE_REF_INSERT_BATCH, SAGE_REF_PARAMS },
    [W_FINDING] = { W_FINDING_BATCH, FINDING_PARAMS },
};

/* Records a write of `kind` with its parameters ?1, ?2, ... described by `types`: 'i' an
 * int64_t, 'o' an int64_t that is NULL when negative, 't' a string (NULL: NULL). Returns 0, or
 * -1 out of memory (the plan is then marked failed). */
int link_record(linker *l, write_kind kind, const char *types, ...)
{
    plan *p = &l->out;
    if (!amx__grow((void **)&p->ops, &p->cap, p->n, sizeof *p->ops)) {
        p->failed = true;
        return -1;
    }
    write_op *op = &p->ops[p->n];
    op->kind = (uint8_t)kind;
    op->n = 0;
    va_list ap;
    va_start(ap, types);
    for (; *types && op->n < MAX_WRITE_PARAMS; types++, op->n++) {
        if (*types != 't') {
            int64_t v = va_arg(ap, int64_t);
            bool null = *types == 'o' && v < 0;
            op->type[op->n] = null ? SQLITE_NULL : SQLITE_INTEGER;
            op->value[op->n] = v;
            continue;
        }
        const char *t = va_arg(ap, const char *);
        if (!t) {
            op->type[op->n] = SQLITE_NULL;
            continue;
        }
        size_t at;
        if (!amx__byte_buf_put_text(&p->text, t, &at)) {
            va_end(ap);
            p->failed = true;
            return -1;
        }
        op->type[op->n] = SQLITE_TEXT;
        op->value[op->n] = (int64_t)at;
    }
    va_end(ap);
    p->n++;
    return 0;
}

static void plan_clear(plan *p)
{
    p->n = p->text.len = 0;
    p->clips = 0;
    p->failed = false;
}

static void plan_free(plan *p)
{
    free(p->ops);
    amx__byte_buf_free(&p->text);
    *p = (plan){ 0 };
}

/* Binds a recorded write's parameters to s's parameters at + 1, at + 2, ... */
static void bind_op(sqlite3_stmt *s, int at, const write_op *op, const char *text)
{
    for (int k = 0; k < op->n; k++) {
        if (op->type[k] == SQLITE_INTEGER)
            sqlite3_bind_int64(s, at + k + 1, op->value[k]);
        else if (op->type[k] == SQLITE_TEXT)
            sqlite3_bind_text(s, at + k + 1, text + op->value[k], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(s, at + k + 1);
    }
}

/* Writes what `p` recorded through the writer's statements `w` (one per write_kind). */
static int apply(sqlite3_stmt *const *w, const plan *p)
{
    if (p->failed)
        return -1;
    for (size_t i = 0; i < p->n;) {
        /* inserts of INI references, or of findings, in a row: WRITE_BATCH to a statement */
        uint8_t kind = p->ops[i].kind;
        size_t n = 1;
        while (batched[kind].params && i + n < p->n && p->ops[i + n].kind == kind)
            n++;
        amx__row_batch rows;
        amx__row_batch_begin(&rows, w[kind], batched[kind].params ? w[batched[kind].batch] : NULL,
                             WRITE_BATCH, batched[kind].params, n);
        for (size_t end = i + n; i < end; i++) {
            int at;
            sqlite3_stmt *s = amx__row_batch_row(&rows, &at);
            bind_op(s, at, &p->ops[i], (const char *)p->text.data);
            if (amx__row_batch_done(&rows) != SQLITE_OK)
                return -1;
        }
    }
    return 0;
}

/* ---- findings ---- */

static void held_clear(held_findings *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->f[i].ctx);
        free(h->f[i].msg);
    }
    h->n = h->dropped_total = 0;
    memset(h->kept, 0, sizeof h->kept);
    memset(h->dropped, 0, sizeof h->dropped);
}

/* Holds a finding of the file being linked: past MAX_FILE_FINDINGS, a less severe one makes
 * room for it (the last of the least severe), else it is counted only. 0, or -1 out of
 * memory. */
static int hold(held_findings *h, amx_code code, amx_severity sev, int64_t offset,
                const char *ctx, const char *msg)
{
    if (sev > AMX_SEV_ERROR)
        sev = AMX_SEV_ERROR;
    if (!h->f && !(h->f = malloc(MAX_FILE_FINDINGS * sizeof *h->f)))
        return -1;
    size_t slot = h->n;
    if (h->n == MAX_FILE_FINDINGS) {
        int lowest = AMX_SEV_INFO;
        while (lowest <= AMX_SEV_ERROR && !h->kept[lowest])
            lowest++;
        if (lowest >= (int)sev) {
            h->dropped[sev]++;
            h->dropped_total++;
            return 0;
        }
        for (slot = h->n; slot-- > 0 && (int)h->f[slot].sev != lowest;)
            ;
        held_finding *gone = &h->f[slot];
        h->kept[gone->sev]--;
        h->dropped[gone->sev]++;
        h->dropped_total++;
        free(gone->ctx);
        free(gone->msg);
        h->n--;
    }
    char *c = strdup(ctx ? ctx : ""), *m = strdup(msg);
    if (!c || !m) {
        free(c);
        free(m);
        return -1;
    }
    h->f[slot] = (held_finding){ .code = code, .sev = sev, .offset = offset, .ctx = c, .msg = m };
    h->kept[sev]++;
    h->n++;
    return 0;
}

static const char *const held_origin[2] = { "link", "refs" };

/* Starts holding the findings of a file. */
static void hold_begin(linker *l)
{
    for (size_t i = 0; i < 2; i++)
        held_clear(&l->held[i]);
    l->holding = true;
}

/* Writes the findings held for file `file_id`, and one LIMIT_EXCEEDED (as severe as the worst
 * it stands for) per origin that had more than MAX_FILE_FINDINGS. */
static int hold_end(linker *l, int64_t file_id)
{
    l->holding = false;
    int rc = 0;
    for (size_t k = 0; k < 2 && !rc; k++) {
        held_findings *h = &l->held[k];
        for (size_t i = 0; i < h->n && !rc; i++)
            rc = link_add_finding_sev(l, file_id, held_origin[k], h->f[i].code, h->f[i].sev,
                                      h->f[i].offset, h->f[i].ctx, h->f[i].msg);
        if (!rc && h->dropped_total) {
            char msg[300];
            amx_findings_dropped_text(h->dropped_total, h->dropped, msg, sizeof msg);
            amx_severity worst = h->dropped[AMX_SEV_ERROR]     ? AMX_SEV_ERROR
                                 : h->dropped[AMX_SEV_WARNING] ? AMX_SEV_WARNING
                                                               : AMX_SEV_INFO;
            rc = link_add_finding_sev(l, file_id, held_origin[k], AMX_C_LIMIT_EXCEEDED, worst,
                                      -1, k ? "references" : "links", msg);
        }
        held_clear(h);
    }
    return rc;
}

bool link_finding_dropped(linker *l, const char *origin, amx_severity sev)
{
    for (size_t k = 0; l->holding && k < 2; k++) {
        if (strcmp(origin, held_origin[k]) != 0)
            continue;
        held_findings *h = &l->held[k];
        if (sev > AMX_SEV_ERROR)
            sev = AMX_SEV_ERROR;
        if (h->n < MAX_FILE_FINDINGS)
            return false;
        int lowest = AMX_SEV_INFO; /* as hold() decides */
        while (lowest <= AMX_SEV_ERROR && !h->kept[lowest])
            lowest++;
        if (lowest < (int)sev)
            return false;
        h->dropped[sev]++;
        h->dropped_total++;
        return true;
    }
    return false;
}

int link_add_finding_sev(linker *l, int64_t file_id, const char *origin, amx_code code,
                           amx_severity sev, int64_t offset, const char *ctx, const char *msg)
{
    for (size_t k = 0; l->holding && k < 2; k++)
        if (strcmp(origin, held_origin[k]) == 0) {
            if (hold(&l->held[k], code, sev, offset, ctx, msg)) {
                l->out.failed = true;
                return -1;
            }
            return 0;
        }
    return link_record(l, W_FINDING, "ittttot", file_id, origin,
                  amx_code_get(code)->name, amx_severity_name(sev), msg, offset, ctx);
}

int link_add_finding(linker *l, int64_t file_id, const char *origin, amx_code code,
                       int64_t offset, const char *ctx, const char *msg)
{
    return link_add_finding_sev(l, file_id, origin, code, amx_code_get(code)->severity, offset, ctx,
                           msg);
}

/* ---- skeletons and bones ---- */


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
        b[n].name = strdup(col_or(s, 1, ""));
        b[n].key = strdup(col_or(s, 2, ""));
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

/* A bone's index or id, and a name compared without case: seeded (common/hash.h), since both
 * come from files. */
static size_t hash_idx(int64_t idx)
{
    return (size_t)amx_hash(&idx, sizeof idx);
}

static size_t hash_key(const char *key)
{
    return (size_t)amx__hash_upper(key, strlen(key));
}

static void forget_skeleton(skeleton_bones *k)
{
    free_bones(k->bones, k->n);
    free(k->by_idx);
    free(k->by_key);
    *k = (skeleton_bones){ 0 };
}

/* The bones of skeleton `id`, from the cache or the index; NULL on an error. */
const skeleton_bones *link_skeleton_of(linker *l, int64_t id)
{
    for (size_t i = 0; i < SKELETON_CACHE; i++)
        if (l->cache[i].id == id)
            return &l->cache[i];
    skeleton_bones *k = &l->cache[l->cache_next++ % SKELETON_CACHE];
    forget_skeleton(k);
    if (load_bones(l, id, &k->bones, &k->n))
        return NULL;
    size_t slots = 16;
    while (slots < 2 * k->n)
        slots *= 2;
    k->mask = slots - 1;
    k->by_idx = malloc(slots * sizeof *k->by_idx);
    k->by_key = malloc(slots * sizeof *k->by_key);
    if (!k->by_idx || !k->by_key) {
        forget_skeleton(k);
        return NULL;
    }
    memset(k->by_idx, 0xFF, slots * sizeof *k->by_idx);
    memset(k->by_key, 0xFF, slots * sizeof *k->by_key);
    for (size_t b = 0; b < k->n; b++) {
        /* a repeated index: the last bone wins; a repeated name: the first */
        size_t h = hash_idx(k->bones[b].idx) & k->mask;
        while (k->by_idx[h] >= 0 && k->bones[k->by_idx[h]].idx != k->bones[b].idx)
            h = (h + 1) & k->mask;
        k->by_idx[h] = (int32_t)b;
        h = hash_key(k->bones[b].key) & k->mask;
        while (k->by_key[h] >= 0 && strcmp(k->bones[k->by_key[h]].key, k->bones[b].key) != 0)
            h = (h + 1) & k->mask;
        if (k->by_key[h] < 0)
            k->by_key[h] = (int32_t)b;
    }
    k->id = id;
    return k;
}

const bone *link_bone_at(const skeleton_bones *k, int64_t idx)
{
    for (size_t h = hash_idx(idx) & k->mask; k->by_idx[h] >= 0; h = (h + 1) & k->mask)
        if (k->bones[k->by_idx[h]].idx == idx)
            return &k->bones[k->by_idx[h]];
    return NULL;
}

/* The first bone named `name` (compared upper-cased). */
const bone *link_bone_named(const skeleton_bones *k, const char *name)
{
    for (size_t h = hash_key(name) & k->mask; k->by_key[h] >= 0; h = (h + 1) & k->mask)
        if (amx__ascii_casecmp(k->bones[k->by_key[h]].key, name) == 0)
            return &k->bones[k->by_key[h]];
    return NULL;
}

/* A clip's packed tracks (clip_tracks.data): begins `it` on them. The statement stays active
 * until tracks_done. */
bool link_tracks_of(linker *l, int64_t clip_id, amx__tracks_iter *it)
{
    sqlite3_stmt *s = l->tracks;
    sqlite3_bind_int64(s, 1, clip_id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        return amx__tracks_begin(it, sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0));
    amx__tracks_begin(it, NULL, 0);
    it->bad = rc != SQLITE_DONE;
    return !it->bad;
}

void link_tracks_done(linker *l, amx__tracks_iter *it)
{
    amx__tracks_end(it);
    sqlite3_reset(l->tracks);
}

/* "'kalani' (Data/Art/Models/kalani.ALO)" */
void link_skeleton_label(const pick *p, const linker *l, int64_t clip_root, char *out, size_t n)
{
    const root_info *r = link_root_of(l, p->root_id);
    if (p->root_id == clip_root || !r)
        snprintf(out, n, "'%.200s' (%.500s)", p->name, p->path);
    else
        snprintf(out, n, "'%.200s' (%.500s in base layer %.300s)", p->name, p->path, r->path);
}

/* Checks the clip's tracks against the skeleton; returns the number of bad bones, -1 on a
 * database error. `via` goes into each finding's context when the binding is not the clip's
 * own name (an XML override). */
static int64_t check_bones(linker *l, int64_t file_id, int64_t clip_id, const pick *p,
                           int64_t clip_root, int64_t root_bone, bool ctx_via)
{
    const skeleton_bones *k = link_skeleton_of(l, p->id);
    if (!k)
        return -1;
    size_t nb = k->n;
    char label[1200] = "";
    int64_t bad = 0;
    char ctx[600], msg[2048];
    if (root_bone >= 0 && !link_bone_at(k, root_bone)) {
        link_skeleton_label(p, l, clip_root, label, sizeof label);
        snprintf(msg, sizeof msg, "the clip's root bone id %lld is not in skeleton %s",
                 (long long)root_bone, label);
        snprintf(ctx, sizeof ctx, "root bone%s%.500s", ctx_via ? " via " : "",
                 ctx_via ? p->via : "");
        bad++;
        if (link_add_finding(l, file_id, "link", AMX_C_BONE_NOT_IN_SKELETON, -1, ctx, msg))
            return -1;
    }
    amx__tracks_iter it;
    amx__track_row t;
    bool failed = !link_tracks_of(l, clip_id, &it);
    while (!failed && amx__tracks_next(&it, &t)) {
        const bone *at = link_bone_at(k, t.bone_index);
        if (t.bone ? at && amx__ascii_casecmp(at->key, t.bone) == 0 : at != NULL)
            continue; /* the common case: no formatting, no allocation */
        bad++;
        if (!label[0])
            link_skeleton_label(p, l, clip_root, label, sizeof label);
        snprintf(ctx, sizeof ctx, "bone %lld%s%.500s", (long long)t.bone_index,
                 ctx_via ? " via " : "", ctx_via ? p->via : "");
        long long idx = t.bone_index;
        amx_code code = AMX_C_BONE_NOT_IN_SKELETON;
        const bone *elsewhere = t.bone ? link_bone_named(k, t.bone) : NULL;
        if (!t.bone)
            snprintf(msg, sizeof msg, "bone id %lld is not in skeleton %s", idx, label);
        else if (elsewhere && at)
            snprintf(msg, sizeof msg, "bone %lld '%s' is bone %lld in skeleton %s, where index "
                     "%lld is '%s'", idx, t.bone, (long long)elsewhere->idx, label, idx, at->name);
        else if (elsewhere)
            snprintf(msg, sizeof msg, "bone %lld '%s' is bone %lld in skeleton %s, which has %zu "
                     "bones", idx, t.bone, (long long)elsewhere->idx, label, nb);
        else if (at)
            snprintf(msg, sizeof msg, "bone %lld '%s' is '%s' in skeleton %s", idx, t.bone,
                     at->name, label);
        else
            snprintf(msg, sizeof msg, "bone %lld '%s' is not in skeleton %s (%zu bones)", idx,
                     t.bone, label, nb);
        if (elsewhere)
            code = AMX_C_BONE_INDEX_MISMATCH;
        if (link_add_finding(l, file_id, "link", code, t.offset, ctx, msg))
            failed = true;
    }
    failed |= it.bad;
    link_tracks_done(l, &it);
    return failed ? -1 : bad;
}

/* ---- files ---- */

/* Of the files of one rank, the first by path is taken here: the statement reads them in its
 * index's order, as a sort by path (a temporary b-tree) cost more than the seek itself, at
 * every call. (A path longer than h->path's 1,023 bytes compares by those.) */
int link_file_at(linker *l, const char *lkey, int64_t root, file_hit *h)
{
    sqlite3_stmt *s = l->files_at;
    sqlite3_bind_text(s, 1, lkey, -1, SQLITE_TRANSIENT);
    int best = -1, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int layer = link_layer_of(l, root, sqlite3_column_int64(s, 1));
        if (layer < 0)
            continue;
        bool in_archive = sqlite3_column_int(s, 2) != 0;
        int rank = amx__lookup_rank((size_t)layer, in_archive);
        if (best >= 0 && (rank > best || (rank == best && strcmp(col_or(s, 4, ""), h->path) >= 0)))
            continue;
        best = rank;
        *h = (file_hit){ .id = sqlite3_column_int64(s, 0), .root_id = sqlite3_column_int64(s, 1),
                         .in_archive = in_archive,
                         .meg_member = strcmp(col_or(s, 5, ""), "meg") == 0,
                         .has_crc = sqlite3_column_type(s, 6) != SQLITE_NULL,
                         .name_crc = sqlite3_column_int64(s, 6) };
        snprintf(h->format, sizeof h->format, "%s", col_or(s, 3, ""));
        snprintf(h->status, sizeof h->status, "%s", col_or(s, 7, ""));
        snprintf(h->path, sizeof h->path, "%s", col_or(s, 4, ""));
        snprintf(h->lkey, sizeof h->lkey, "%s", lkey);
    }
    sqlite3_reset(s);
    return rc != SQLITE_DONE ? -1 : best >= 0;
}

/* ---- finding skeletons ---- */

/* Reads a candidate row (s.id, s.name, s.bone_count, f.id, f.root_id, in_archive, f.path,
 * f.dir_key) into p. */
static void read_candidate(sqlite3_stmt *s, pick *p)
{
    *p = (pick){ .id = sqlite3_column_int64(s, 0), .bone_count = sqlite3_column_int64(s, 2),
                 .file_id = sqlite3_column_int64(s, 3), .root_id = sqlite3_column_int64(s, 4) };
    snprintf(p->name, sizeof p->name, "%s", col_or(s, 1, ""));
    snprintf(p->path, sizeof p->path, "%s", col_or(s, 6, ""));
}

/* The file the game finds at logical path `lkey` from root `root`: the best-ranked file of its
 * stack (loose before archived, then layer order, then path). Fills p with its skeleton when it
 * is an Alamo model. Returns 1 found with a skeleton, 0 none (or no model there), -1 error. */
static int find_by_lkey_uncached(linker *l, const char *lkey, int64_t root, pick *p,
                                 bool *shadowed_other)
{
    sqlite3_stmt *s = l->by_lkey;
    sqlite3_bind_text(s, 1, lkey, -1, SQLITE_TRANSIENT);
    int best = -1, rc;
    bool has_skel = false;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int layer = link_layer_of(l, root, sqlite3_column_int64(s, 4));
        if (layer < 0)
            continue;
        int rank = amx__lookup_rank((size_t)layer, sqlite3_column_int(s, 5) != 0);
        if (best >= 0 && rank > best)
            continue;
        if (best >= 0 && rank == best) { /* the first by path, then skeleton (no sort in SQL) */
            int c = strcmp(col_or(s, 6, ""), p->path);
            if (c > 0 || (c == 0 && sqlite3_column_int64(s, 0) >= p->id))
                continue;
        }
        best = rank;
        read_candidate(s, p);
        p->rank = rank;
        /* only an Alamo model's skeleton is animated (a particle system is not) */
        has_skel = sqlite3_column_type(s, 0) != SQLITE_NULL &&
                   strcmp(col_or(s, 7, ""), "alamo-alo") == 0;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    if (shadowed_other)
        *shadowed_other = best >= 0 && !has_skel;
    return best >= 0 && has_skel;
}

typedef struct lookup_memo {
    int64_t root;             /* 0: the slot is empty */
    char lkey[AMX_LKEY_MAX];
    int best;                 /* rank of the file found, -1 none */
    bool has_skel;
    pick p;
} lookup_memo;

/* find_by_lkey_uncached through the memo. */
int link_find_by_lkey(linker *l, const char *lkey, int64_t root, pick *p, bool *shadowed_other)
{
    lookup_memo *m = NULL;
    if (l->memo && strlen(lkey) < AMX_LKEY_MAX) {
        size_t h = hash_key(lkey) ^ (size_t)root;
        m = &l->memo[h % LOOKUP_MEMO];
        if (m->root == root && strcmp(m->lkey, lkey) == 0) {
            if (m->best >= 0)
                *p = m->p;
            if (shadowed_other)
                *shadowed_other = m->best >= 0 && !m->has_skel;
            return m->best >= 0 && m->has_skel;
        }
    }
    bool shadowed = false;
    int found = find_by_lkey_uncached(l, lkey, root, p, &shadowed);
    if (found >= 0 && m) {
        m->root = root;
        snprintf(m->lkey, sizeof m->lkey, "%s", lkey);
        m->best = found || shadowed ? p->rank : -1;
        m->has_skel = found == 1;
        if (m->best >= 0)
            m->p = *p;
    }
    if (shadowed_other)
        *shadowed_other = shadowed;
    return found;
}

/* One candidate query of find_named: binds, steps once, fills `out` when a row comes. */
static int named_step(sqlite3_stmt *s, pick *out)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        read_candidate(s, out);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The skeleton named `key` for a file in directory `dir_key` of root `root`: in its own file
 * `file_id`, then its directory, then its tree (loose files before archive members), then the
 * base layers (loose files of every layer, in layer order, before their archives); the first
 * by path where one place holds several. Each step is a seek on skeletons(name_key, root_id,
 * dir_key), so many directories holding a hierarchy of one name cost no more than one.
 * Returns 1 found, 0 none, -1 error. */
int link_find_named(linker *l, const char *key, int64_t file_id, const char *dir_key,
                      int64_t root, pick *out)
{
    sqlite3_stmt *s = l->named_own;
    sqlite3_bind_int64(s, 1, file_id);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
    int found = named_step(s, out);
    const char *how = "own file";
    if (!found) {
        s = l->named_dir;
        sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, root);
        sqlite3_bind_text(s, 3, dir_key, -1, SQLITE_TRANSIENT);
        found = named_step(s, out);
        how = "same directory";
    }
    const root_info *ri = link_root_of(l, root);
    int64_t self[1] = { root };
    const int64_t *stack = ri ? ri->stack : self;
    size_t layers = ri ? ri->stack_len : 1;
    /* the tree (loose files, then archives), then the base layers: loose files of every
     * layer, in layer order, before their archives */
    static const struct { bool base, archived; } steps[] = {
        { false, false }, { false, true }, { true, false }, { true, true },
    };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0] && !found; k++)
        for (size_t layer = steps[k].base ? 1 : 0; layer < (steps[k].base ? layers : 1) && !found;
             layer++) {
            bool archived = steps[k].archived;
            s = l->named_in_root;
            sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 2, stack[layer]);
            sqlite3_bind_int(s, 3, archived);
            found = named_step(s, out);
            how = layer ? "base layer" : "same tree";
        }
    if (found == 1)
        snprintf(out->via, sizeof out->via, "%s", how);
    return found;
}

/* ---- bindings ---- */


/* An empty list: only n is set (the picks are written as they are added). */
bindings *link_new_bindings(void)
{
    bindings *b = malloc(sizeof *b);
    if (b)
        b->n = b->dropped = 0;
    return b;
}

void link_add_binding(bindings *b, const pick *p, const char *how, const char *via)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->p[i].id == p->id)
            return; /* checked once, under the first reason found */
    if (b->n == MAX_BINDINGS) {
        b->dropped++;
        return;
    }
    b->p[b->n] = *p;
    snprintf(b->p[b->n].how, sizeof b->p[b->n].how, "%s", how);
    snprintf(b->p[b->n].via, sizeof b->p[b->n].via, "%.500s", via); /* a detail, cut if it must be */
    b->n++;
}

/* Checks every binding and stores them; the first is the clip's primary skeleton. When there is
 * none, the clip is listed under `unbound_key` (upper-cased; may be ""). */
/* `cur_key`: the clip's skeleton_key as it is; when the new one is the same, the column (and
 * its index) is left alone. */
int link_store_bindings(linker *l, int64_t file_id, int64_t clip_id, int64_t clip_root,
                          int64_t root_bone, const bindings *b, const char *unbound_key,
                          const char *cur_key)
{
    int64_t bad_total = 0;
    if (b->dropped) {
        char msg[300];
        snprintf(msg, sizeof msg, "the clip is played by more than %d skeletons; %zu more were "
                 "not checked", MAX_BINDINGS, b->dropped);
        if (link_add_finding(l, file_id, "link", AMX_C_LIMIT_EXCEEDED, -1, "bindings", msg))
            return -1;
    }
    for (size_t i = 0; i < b->n; i++) {
        const pick *p = &b->p[i];
        int64_t bad = check_bones(l, file_id, clip_id, p, clip_root, root_bone,
                                  strcmp(p->how, "xml-override") == 0);
        if (bad < 0)
            return -1;
        bad_total += bad;
        if (link_record(l, W_BINDING, "iitti", clip_id, p->id, p->how, p->via, bad))
            return -1;
    }
    char *key = b->n ? amx__upper(b->p[0].name) : NULL;
    if (b->n && !key)
        return -1;
    const char *new_key = b->n ? key : unbound_key && unbound_key[0] ? unbound_key : NULL;
    bool same = new_key && cur_key && strcmp(new_key, cur_key) == 0;
    int rc = link_record(l, same ? W_CLIP_SAME_KEY : W_CLIP, "iotti", clip_id,
                    b->n ? b->p[0].id : -1, b->n ? b->p[0].name : NULL, same ? NULL : new_key,
                    bad_total);
    free(key);
    return rc;
}

/* ---- Alamo: names and XML overrides ---- */


/* The directory part of a logical key ("DATA/ART/MODELS/X.ALA" -> "DATA/ART/MODELS"). */
void link_lkey_dir(const char *lkey, char *out, size_t n)
{
    const char *slash = strrchr(lkey, '/');
    size_t len = slash ? (size_t)(slash - lkey) : 0;
    snprintf(out, n, "%.*s", (int)len, lkey);
}

/* Steps `s` (bound; rows of id, root id, in-archive) and returns the id of the row the game
 * reads first from root `root` (0 when none is in its layers), or -1 on error. Resets `s`. */
int64_t link_first_in_lookup_order(linker *l, sqlite3_stmt *s, int64_t root)
{
    int best = -1, rc;
    int64_t best_id = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int layer = link_layer_of(l, root, sqlite3_column_int64(s, 1));
        if (layer < 0)
            continue;
        int rank = amx__lookup_rank((size_t)layer, sqlite3_column_int(s, 2) != 0);
        if (best < 0 || rank < best) {
            best = rank;
            best_id = sqlite3_column_int64(s, 0);
        }
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? best_id : -1;
}

/* ---- the clips and skeleton references of a file ---- */

static int link_clip(linker *l, int64_t file_id, sqlite3_stmt *q)
{
    clip_ctx c = { .id = sqlite3_column_int64(q, 0), .file_id = file_id,
                   .root_id = sqlite3_column_int64(q, 5),
                   .root_bone = sqlite3_column_type(q, 7) == SQLITE_NULL
                                    ? -1 : sqlite3_column_int64(q, 7) };
    snprintf(c.key, sizeof c.key, "%s", col_or(q, 1, ""));
    snprintf(c.hint, sizeof c.hint, "%s", col_or(q, 2, ""));
    snprintf(c.format, sizeof c.format, "%s", col_or(q, 3, ""));
    snprintf(c.name, sizeof c.name, "%s", col_or(q, 6, ""));
    link_lkey_dir(col_or(q, 8, ""), c.dir_key, sizeof c.dir_key);
    c.lkey_len = strlen(col_or(q, 8, ""));
    snprintf(c.cur_key, sizeof c.cur_key, "%s", col_or(q, 10, ""));
    snprintf(c.path, sizeof c.path, "%s", col_or(q, 9, ""));

    amx_format fmt = AMX_FMT_UNKNOWN;
    amx_format_parse(c.format, &fmt);
    static const bindings none = { .n = 0 }; /* static: 120 KB, zeroed once */
    /* MechWarrior 3 definitions animate world nodes named by their anim root: there is no
     * skeleton file to bind to. `clips --skeleton ROOT` finds them by the stated root. */
    if (!amx_format_clips_bind(fmt))
        return link_store_bindings(l, file_id, c.id, c.root_id, -1, &none, c.hint, c.cur_key);
    if (fmt == AMX_FMT_ALAMO_ALA)
        return bind_alamo_clip(l, &c);
    if (c.hint[0])
        return bind_named_clip(l, &c);
    int rc = bind_by_sets(l, &c);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    char msg[600];
    snprintf(msg, sizeof msg, "clip '%s' names no skeleton, and no character set of this tree "
             "or its base layers plays it", c.name);
    if (link_add_finding(l, file_id, "link", AMX_C_SKELETON_NOT_FOUND, -1, "skeleton", msg))
        return -1;
    return link_store_bindings(l, file_id, c.id, c.root_id, -1, &none, "", c.cur_key);
}


/* What of a file the pass links: its clips, its skeleton references, its asset references. A
 * file is linked for what has unlinked rows: rows still linked have not changed. */
enum { LINK_CLIPS = 1, LINK_REFS = 2, LINK_SKELETON_REFS = 4, LINK_PENDING_REFS = 8 };

static int link_file_held(linker *l, int64_t file_id, int what)
{
    /* Clips and skeleton references share the file's "link" findings, replaced together; in
     * the first pass there are none to replace, and each is linked for itself. */
    if (!l->first_pass && (what & (LINK_CLIPS | LINK_SKELETON_REFS))) {
        what |= LINK_CLIPS | LINK_SKELETON_REFS;
        if (link_record(l, W_DEL_LINK_FINDINGS, "i", file_id) ||
            link_record(l, W_DEL_BINDINGS, "i", file_id))
            return -1;
    }
    int rc;
    sqlite3_stmt *c = l->clips_of_file;
    sqlite3_bind_int64(c, 1, file_id);
    while ((what & LINK_CLIPS) && (rc = sqlite3_step(c)) == SQLITE_ROW) {
        if (link_clip(l, file_id, c)) {
            rc = SQLITE_ERROR;
            break;
        }
        l->out.clips++;
    }
    sqlite3_reset(c);
    if ((what & LINK_CLIPS) && rc != SQLITE_DONE)
        return -1;
    sqlite3_stmt *r = l->refs_of_file;
    sqlite3_bind_int64(r, 1, file_id);
    while ((what & LINK_SKELETON_REFS) && (rc = sqlite3_step(r)) == SQLITE_ROW) {
        if (bind_skeleton_ref(l, file_id, r)) {
            rc = SQLITE_ERROR;
            break;
        }
    }
    sqlite3_reset(r);
    if ((what & LINK_SKELETON_REFS) && rc != SQLITE_DONE)
        return -1;
    return what & (LINK_REFS | LINK_PENDING_REFS)
               ? link_asset_refs(l, file_id, (what & LINK_PENDING_REFS) != 0) : 0;
}

/* Links a file; its findings are capped per origin (hold_end). */
static int link_file(linker *l, int64_t file_id, int what)
{
    hold_begin(l);
    int rc = link_file_held(l, file_id, what);
    int rc2 = hold_end(l, file_id);
    return rc ? rc : rc2;
}


/* ---- the pass ---- */

static const char *const link_sql[] = {
    /* the next files with unlinked rows, and what of them (LINK_CLIPS | LINK_REFS |
     * LINK_SKELETON_REFS | LINK_PENDING_REFS; distinct bits): three short ranges of the
     * partial indexes and one of the pending INI references */
    "SELECT file_id, sum(what) FROM (SELECT file_id, 1 AS what FROM (SELECT DISTINCT "
    "file_id FROM clips WHERE linked = 0 ORDER BY file_id LIMIT 2048) UNION ALL "
    "SELECT file_id, 4 FROM (SELECT DISTINCT file_id FROM skeleton_refs WHERE linked = 0 "
    "ORDER BY file_id LIMIT 2048) UNION ALL "
    "SELECT file_id, 2 FROM (SELECT DISTINCT file_id FROM refs WHERE linked = 0 "
    "ORDER BY file_id LIMIT 2048) UNION ALL "
    "SELECT file_id, 8 FROM (SELECT file_id FROM ini_refs_pending ORDER BY file_id "
    "LIMIT 2048)) GROUP BY file_id",
    "SELECT c.id, c.name_key, c.skeleton_hint, f.format, f.dir_key, f.root_id, c.name, "
    "c.root_bone, f.lkey, f.path, c.skeleton_key FROM clips c JOIN files f ON "
    "f.id = c.file_id WHERE c.file_id = ?1",
    "SELECT DISTINCT a.skeleton_key, a.name, f.path, f.root_id FROM anim_sets a "
    "JOIN files f ON f.id = a.file_id WHERE a.clip_key = ?1 ORDER BY a.skeleton_key, f.path",
    /* candidates by skeleton name: s.id, s.name, s.bone_count, f.id, f.root_id,
     * in_archive, f.path, f.dir_key */
    "SELECT s.id, s.name, s.bone_count, f.id, f.root_id, f.parent_id IS NOT NULL, f.path, "
    "f.dir_key FROM skeletons s JOIN files f ON f.id = s.file_id WHERE s.file_id = ?1 AND "
    "s.name_key = ?2 ORDER BY s.id LIMIT 1",
    "SELECT s.id, s.name, s.bone_count, f.id, f.root_id, f.parent_id IS NOT NULL, f.path, "
    "f.dir_key FROM skeletons s JOIN files f ON f.id = s.file_id WHERE s.name_key = ?1 AND "
    "s.root_id = ?2 AND s.dir_key = ?3 ORDER BY f.path, s.id LIMIT 1",
    "SELECT s.id, s.name, s.bone_count, f.id, f.root_id, f.parent_id IS NOT NULL, f.path, "
    "f.dir_key FROM skeletons s JOIN files f ON f.id = s.file_id WHERE s.name_key = ?1 AND "
    "s.root_id = ?2 AND (f.parent_id IS NOT NULL) = ?3 ORDER BY f.path, s.id LIMIT 1",
    /* the files at a logical path, with their first skeleton (NULL: none) */
    "SELECT s.id, s.name, s.bone_count, f.id, f.root_id, f.parent_id IS NOT NULL, f.path, "
    "f.format FROM files f LEFT JOIN skeletons s ON s.file_id = f.id WHERE f.lkey = ?1",
    /* a bone is known by its id where the format has ids (Metroid Prime), else its index */
    "SELECT coalesce(bone_id, idx), name, name_key FROM bones WHERE skeleton_id = ?1 ORDER BY idx",
    "SELECT data FROM clip_tracks WHERE clip_id = ?1",
    "UPDATE clips SET skeleton_id = ?2, skeleton_name = ?3, skeleton_key = ?4, "
    "bones_missing = ?5, fit_key = NULL, linked = 1 WHERE id = ?1",
    /* the same without skeleton_key: an indexed column written only when it changes */
    "UPDATE clips SET skeleton_id = ?2, skeleton_name = ?3, bones_missing = ?5, fit_key = NULL, "
    "linked = 1 WHERE id = ?1",
    "DELETE FROM findings WHERE file_id = ?1 AND origin = 'link'",
    FINDING_INSERT FINDING_ROW,
    "SELECT r.id, r.what, r.skeleton_key, r.bones_used, r.offset, f.dir_key, f.root_id "
    "FROM skeleton_refs r JOIN files f ON f.id = r.file_id WHERE r.file_id = ?1",
    "UPDATE skeleton_refs SET skeleton_id = ?2, how = ?3, linked = 1 WHERE id = ?1",
    "DELETE FROM clip_bindings WHERE clip_id IN (SELECT id FROM clips WHERE file_id = ?1)",
    "INSERT INTO clip_bindings(clip_id, skeleton_id, how, via, bones_bad) "
    "VALUES (?1, ?2, ?3, ?4, ?5)",
    /* overrides naming a set: object, tag, file, root, path, lkey, line, object name, key */
    "SELECT r.object_id, r.tag, f.id, f.root_id, f.path, f.lkey, coalesce(r.line, 0), "
    "o.name, o.name_key FROM refs r JOIN files f ON f.id = r.file_id "
    "JOIN game_objects o ON o.id = r.object_id WHERE r.key = ?1 AND r.kind = 'anim-override' "
    "ORDER BY f.path, r.line",
    /* an object's own model tag (NULL when it has none) and its variant parent */
    "SELECT (SELECT name FROM refs WHERE object_id = o.id AND tag = ?2 AND kind IN "
    "('model', 'model-or-particle') "
    "ORDER BY id LIMIT 1), variant_key FROM game_objects o WHERE o.id = ?1",
    /* objects of a name: id, root, in_archive */
    "SELECT o.id, f.root_id, f.parent_id IS NOT NULL FROM game_objects o "
    "JOIN files f ON f.id = o.file_id WHERE o.name_key = ?1 ORDER BY f.path, o.id",
    /* variants of an object that do not set the override themselves */
    "SELECT o.id, o.name, o.name_key, f.root_id FROM game_objects o "
    "JOIN files f ON f.id = o.file_id WHERE o.variant_key = ?1 AND NOT EXISTS "
    "(SELECT 1 FROM refs r WHERE r.object_id = o.id AND r.tag = ?2) ORDER BY f.path, o.id",
    /* skeletons with bone ?1 at index ?2 */
    "SELECT s.id, s.name, f.root_id FROM bones b JOIN skeletons s ON s.id = b.skeleton_id "
    "JOIN files f ON f.id = s.file_id WHERE b.name_key = ?1 AND b.idx = ?2 "
    "ORDER BY f.path LIMIT 256",
    /* W3D files with skeletons to look at for DUPLICATE_NAME */
    "SELECT DISTINCT s.file_id FROM skeletons s JOIN files f ON f.id = s.file_id "
    "WHERE s.linked = 0 AND f.format = 'w3d'",
    /* the hierarchies of file ?1 */
    "SELECT DISTINCT name, name_key, root_id FROM skeletons WHERE file_id = ?1 "
    "ORDER BY name_key",
    /* other W3D files of root ?2 that define name ?1 (index order; a few are enough) */
    "SELECT DISTINCT o.path FROM skeletons t JOIN files o ON o.id = t.file_id "
    "WHERE t.name_key = ?1 AND t.root_id = ?2 AND t.file_id <> ?3 AND o.format = 'w3d' "
    "LIMIT 9",
    "DELETE FROM findings WHERE file_id = ?1 AND origin = 'names'",
    "UPDATE skeletons SET linked = 1 WHERE linked = 0",
    /* every file at a logical path: id, root, in_archive */
    "SELECT id, root_id, parent_id IS NOT NULL FROM files WHERE lkey = ?1",
    "SELECT root_id, format FROM files WHERE id = ?1",
    /* a file's references, grouped by kind and name */
    "SELECT r.id, r.kind, r.tag, r.name, r.key, coalesce(r.line, 0), r.offset, o.name, "
    "upper(trim(r.name)) AS g, amx_ref_file(r.kind, r.name, ?2) AS w FROM refs r "
    "LEFT JOIN game_objects o ON o.id = r.object_id WHERE r.file_id = ?1 "
    "ORDER BY w, r.kind, g, r.id",
    "DELETE FROM findings WHERE file_id = ?1 AND origin = 'refs'",
    "UPDATE refs SET target_id = ?2, resolution = ?3, linked = 1 WHERE id = ?1",
    /* the files at a logical path: id, root, in_archive, format, path, archive's format,
     * name CRC */
    "SELECT f.id, f.root_id, f.parent_id IS NOT NULL, f.format, f.path, p.format, f.name_crc, "
    "f.status FROM files f LEFT JOIN files p ON p.id = f.parent_id WHERE f.lkey = ?1",
    /* MEG members with the same name CRC as ?1, other than file ?2 */
    "SELECT f.path, f.root_id, f.lkey FROM files f JOIN files p ON p.id = f.parent_id AND "
    "p.format = 'meg' WHERE f.name_crc = ?1 AND f.id <> ?2 ORDER BY f.path LIMIT 64",
    /* the roots of clips named KEY_... */
    "SELECT f.root_id FROM clips c JOIN files f ON f.id = c.file_id WHERE "
    "c.name_key > ?1 || '_' AND c.name_key < ?1 || '`' LIMIT 256",
    /* what a clip no model loads fits (the first track's bone and index) */
    "UPDATE clips SET fit_key = ?2 WHERE id = ?1",
    /* the files whose name's stem is ?1: path, root, in_archive, lkey */
    "SELECT path, root_id, parent_id IS NOT NULL, lkey FROM files WHERE stem_key = ?1 "
    "ORDER BY path LIMIT 256",
    /* clips named ?1 once their underscores are left out: path, root, in_archive, lkey, name */
    "SELECT f.path, f.root_id, f.parent_id IS NOT NULL, f.lkey, c.name FROM clips c "
    "JOIN files f ON f.id = c.file_id WHERE replace(c.name_key, '_', '') = ?1 "
    "ORDER BY f.path LIMIT 64",
    "UPDATE refs SET target_id = ?2, resolution = ?3, via_key = ?4, linked = 1 WHERE id = ?1",
    /* an INI reference that waited in ini_refs_pending, resolved: written once */
    "INSERT INTO refs(" SAGE_REF_INSERT_COLUMNS ") VALUES " SAGE_REF_ROW,
    "INSERT INTO refs(" SAGE_REF_INSERT_COLUMNS ") VALUES " SAGE_REF_ROWS_16,
    "DELETE FROM ini_refs_pending WHERE file_id = ?1",
    "SELECT refs FROM ini_refs_pending WHERE file_id = ?1",
    /* a file the next scan decodes again, as after a decoder's version changed */
    "UPDATE files SET decoder_version = 0 WHERE id = ?1",
    FINDING_INSERT FINDING_ROWS_16,
    /* the first logical path from ?1 in DATA/ (load_languages) */
    "SELECT lkey FROM files WHERE lkey >= ?1 AND lkey < 'DATA0' ORDER BY lkey LIMIT 1",
    /* whether a file's logical path lies between ?1 and ?2 */
    "SELECT 1 FROM files WHERE lkey > ?1 AND lkey < ?2 LIMIT 1",
};

enum { LINK_STATEMENTS = sizeof link_sql / sizeof link_sql[0] };

/* The linker's statement slots, in link_sql's order. */
static void linker_slots(linker *l, sqlite3_stmt **slots[LINK_STATEMENTS])
{
    sqlite3_stmt **all[] = {
        &l->files_todo, &l->clips_of_file, &l->sets_of_clip, &l->named_own, &l->named_dir,
        &l->named_in_root, &l->by_lkey, &l->bones, &l->tracks, &l->update_clip,
        &l->update_clip_same_key, &l->del_link_findings, &l->ins_finding, &l->refs_of_file,
        &l->update_ref, &l->del_bindings, &l->ins_binding, &l->overrides, &l->object_model,
        &l->objects_named, &l->variants_of, &l->fit_candidates, &l->skeletons_todo,
        &l->names_of_file, &l->same_name_in_root, &l->del_name_findings, &l->skeletons_done,
        &l->winner_check, &l->file_info, &l->asset_refs, &l->del_ref_findings,
        &l->update_asset_ref, &l->files_at, &l->crc_twins, &l->clips_named,
        &l->update_clip_fit, &l->files_of_stem, &l->clips_squashed,
        &l->update_sage_ref, &l->ins_sage_ref, &l->ins_sage_refs_batch, &l->del_pending_refs,
        &l->pending_refs_of_file, &l->decode_again, &l->ins_findings_batch, &l->data_lkey_from,
        &l->lkey_between,
    };
    _Static_assert(sizeof all / sizeof all[0] == LINK_STATEMENTS, "one statement per slot");
    memcpy(slots, all, sizeof all);
}

/* Prepares the pass's statements on connection `h` and reads the roots' layers. 0, or -1 with
 * the error on h. */
static int linker_open(linker *l, sqlite3 *h)
{
    l->h = h;
    sqlite3_stmt **slots[LINK_STATEMENTS];
    linker_slots(l, slots);
    for (size_t i = 0; i < LINK_STATEMENTS; i++)
        if (sqlite3_prepare_v2(h, link_sql[i], -1, slots[i], NULL) != SQLITE_OK)
            return -1;
    if (load_roots(l) || load_languages(l))
        return -1;
    l->memo = calloc(LOOKUP_MEMO, sizeof *l->memo); /* optional: without it every lookup queries */
    return (l->answers = link_memo_new()) ? 0 : -1;
}

static void linker_close(linker *l)
{
    sqlite3_stmt **slots[LINK_STATEMENTS];
    linker_slots(l, slots);
    for (size_t i = 0; i < LINK_STATEMENTS; i++)
        sqlite3_finalize(*slots[i]);
    bind_sage_close(l);
    free(l->memo);
    for (size_t i = 0; i < 2; i++) {
        held_clear(&l->held[i]);
        free(l->held[i].f);
    }
    link_memo_free(l->answers);
    l->answers = NULL;
    free_roots(l);
    plan_free(&l->out);
    for (size_t i = 0; i < SKELETON_CACHE; i++)
        forget_skeleton(&l->cache[i]);
}

typedef struct link_todo { int64_t file_id; int what; } link_todo;

/* Helper threads link the files of a batch ahead of the writer, each through a read-only
 * connection of its own, in chunks of CHUNK_FILES files' work taken in turn (helper k links
 * chunks k, k + n, ...); the writer applies the chunks in order as they come. The lookups,
 * bone checks and message formatting then run on the other cores while the writer writes.
 * A file's work is its weight: an INI file's pending references (thousands of look-ups in a
 * mod's file) weigh a whole chunk, anything else 1; a batch of HELPER_MIN_FILES of weight or
 * more is worth the threads. */
enum { MAX_HELPERS = 2, RING = 8, CHUNK_FILES = 32, HELPER_MIN_FILES = 256 };

static size_t link_weight(const link_todo *t)
{
    return t->what & LINK_PENDING_REFS ? CHUNK_FILES : 1;
}

typedef struct helpers helpers;

typedef struct helper {
    linker l;
    pthread_t thread;
    size_t index;
    helpers *g;
} helper;

struct helpers {
    helper h[MAX_HELPERS];
    size_t count;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const link_todo *files;       /* the batch */
    size_t n, chunks;
    size_t *chunk_at;             /* chunk c: files chunk_at[c] to chunk_at[c + 1] - 1 */
    plan ring[RING];              /* chunk c in ring[c % RING], ready when filled */
    bool ready[RING];
    size_t applied;               /* chunks applied by the writer */
    bool failed, stop;
    char error[300];
};

static void *helper_main(void *arg)
{
    helper *x = arg;
    helpers *g = x->g;
    linker *l = &x->l;
    for (size_t c = x->index; c < g->chunks; c += g->count) {
        plan_clear(&l->out);
        bool failed = false;
        for (size_t i = g->chunk_at[c]; i < g->chunk_at[c + 1] && !failed; i++)
            failed = link_file(l, g->files[i].file_id, g->files[i].what) != 0;
        pthread_mutex_lock(&g->mu);
        if (failed) {
            if (!g->failed)
                snprintf(g->error, sizeof g->error, "%s",
                         l->out.failed ? "out of memory" : sqlite3_errmsg(l->h));
            g->failed = true;
            pthread_cond_broadcast(&g->cv);
        }
        while (!g->stop && !g->failed && c >= g->applied + RING) /* its slot is still in use */
            pthread_cond_wait(&g->cv, &g->mu);
        bool quit = g->stop || g->failed;
        if (!quit) {
            plan t = g->ring[c % RING]; /* swap buffers: both keep their memory */
            g->ring[c % RING] = l->out;
            l->out = t;
            g->ready[c % RING] = true;
            pthread_cond_broadcast(&g->cv);
        }
        pthread_mutex_unlock(&g->mu);
        if (quit)
            break;
    }
    return NULL;
}

/* Links a batch with the helpers and applies their chunks in order. 0; -1 with err filled; 1
 * when a thread could not be started (nothing was written: the writer links the batch alone). */
static int link_with_helpers(helpers *g, sqlite3_stmt *const *w, const link_todo *files,
                             size_t n, uint64_t *linked, amx_db *db, char *err, size_t errlen)
{
    if (!(g->chunk_at = malloc((n + 1) * sizeof *g->chunk_at)))
        return 1; /* as if no thread started: the writer links the batch */
    g->files = files;
    g->n = n;
    g->chunks = 0;
    for (size_t i = 0, weight = 0; i < n; i++) { /* the chunks: CHUNK_FILES of weight each */
        if (weight == 0)
            g->chunk_at[g->chunks++] = i;
        weight += link_weight(&files[i]);
        if (weight >= CHUNK_FILES)
            weight = 0;
    }
    g->chunk_at[g->chunks] = n;
    g->applied = 0;
    g->failed = g->stop = false;
    for (size_t i = 0; i < RING; i++)
        g->ready[i] = false;
    size_t started = 0;
    for (; started < g->count; started++)
        if (pthread_create(&g->h[started].thread, NULL, helper_main, &g->h[started]) != 0)
            break;
    int rc = 0;
    bool failed = false, not_started = started < g->count;
    pthread_mutex_lock(&g->mu);
    if (not_started) { /* the chunks of the helper that did not start would never come */
        failed = true;
        g->stop = true;
        pthread_cond_broadcast(&g->cv);
    }
    while (!failed && g->applied < g->chunks) {
        size_t slot = g->applied % RING;
        while (!g->ready[slot] && !g->failed)
            pthread_cond_wait(&g->cv, &g->mu);
        if (!g->ready[slot]) {
            snprintf(err, errlen, "index: link pass: %s", g->error);
            failed = true;
            break;
        }
        pthread_mutex_unlock(&g->mu);
        rc = apply(w, &g->ring[slot]);
        *linked += g->ring[slot].clips;
        plan_clear(&g->ring[slot]);
        pthread_mutex_lock(&g->mu);
        g->ready[slot] = false;
        g->applied++;
        if (rc) {
            amx__db_error(db, "index: link pass", err, errlen);
            failed = true;
            g->stop = true;
        }
        pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
    for (size_t i = 0; i < started; i++)
        pthread_join(g->h[i].thread, NULL);
    free(g->chunk_at);
    g->chunk_at = NULL;
    return not_started ? 1 : failed ? -1 : 0;
}

/* Helpers (threads - 1, at most MAX_HELPERS) for batches of HELPER_MIN_FILES of weight or more,
 * when the index is a file (a second connection needs one). NULL: the writer links alone. */
static helpers *helpers_start(amx_db *db, int threads, bool first_pass)
{
    const char *path = sqlite3_db_filename(db->db, "main");
    if (threads < 2 || !path || !path[0])
        return NULL;
    helpers *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    size_t want = (size_t)threads - 1 < MAX_HELPERS ? (size_t)threads - 1 : MAX_HELPERS;
    while (g->count < want) {
        helper *x = &g->h[g->count];
        sqlite3 *h = NULL;
        if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK) {
            sqlite3_close(h);
            break;
        }
        sqlite3_busy_timeout(h, 10000);
        if (amx__db_register(h) != SQLITE_OK || linker_open(&x->l, h)) {
            linker_close(&x->l);
            sqlite3_close(h);
            break;
        }
        x->l.first_pass = first_pass;
        x->index = g->count;
        x->g = g;
        g->count++;
    }
    if (g->count == 0) {
        free(g);
        return NULL;
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    return g;
}

static void helpers_free(helpers *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->count; i++) {
        sqlite3 *h = g->h[i].l.h;
        linker_close(&g->h[i].l);
        sqlite3_close(h);
    }
    for (size_t i = 0; i < RING; i++)
        plan_free(&g->ring[i]);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

/* Whether this is the first pass of an index: no batch has committed (link_state), and no
 * binding and no finding of the pass is there (an index of 0009 or older upgraded with every row
 * marked unlinked could have some: then the deletes run as in any pass). 0, or -1. */
static int first_pass_of(sqlite3 *h, bool *first)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(h,
                    "SELECT CASE WHEN linked_once THEN 0 ELSE NOT EXISTS (SELECT 1 FROM "
                    "clip_bindings) AND NOT EXISTS (SELECT 1 FROM findings WHERE origin IN "
                    "('link', 'refs')) END FROM link_state", -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *first = sqlite3_column_int(s, 0) != 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

amx_status amx__link(amx_db *db, int threads, uint64_t *linked, char *err, size_t errlen)
{
    uint64_t local = 0;
    if (!linked)
        linked = &local;
    *linked = 0;
    amx__db_forget_linked(db); /* rows become linked here */
    /* Nothing to do (a rescan that changed nothing): return before preparing the pass's
     * statements. Each test is a seek on a partial index of the unlinked rows. */
    sqlite3_stmt *todo = NULL;
    int todo_rc = sqlite3_prepare_v2(db->db,
        "SELECT EXISTS (SELECT 1 FROM clips WHERE linked = 0) OR "
        "EXISTS (SELECT 1 FROM skeleton_refs WHERE linked = 0) OR "
        "EXISTS (SELECT 1 FROM refs WHERE linked = 0) OR "
        "EXISTS (SELECT 1 FROM ini_refs_pending) OR "
        "EXISTS (SELECT 1 FROM skeletons WHERE linked = 0) OR "
        "(SELECT xml_lists FROM link_state)", -1, &todo, NULL);
    if (todo_rc == SQLITE_OK)
        todo_rc = sqlite3_step(todo);
    bool nothing = todo_rc == SQLITE_ROW && sqlite3_column_int(todo, 0) == 0;
    sqlite3_finalize(todo);
    if (todo_rc != SQLITE_ROW)
        return amx__db_error(db, "index: link pass", err, errlen);
    if (nothing)
        return AMX_OK;
    linker l = { 0 };
    helpers *x = NULL;
    amx_status st = AMX_OK;
    if (linker_open(&l, db->db))
        st = amx__db_error(db, "index: preparing the link pass", err, errlen);
    /* the writer's statements, by write_kind */
    sqlite3_stmt *const w[W_KINDS] = {
        [W_FINDING] = l.ins_finding, [W_BINDING] = l.ins_binding, [W_CLIP] = l.update_clip,
        [W_CLIP_SAME_KEY] = l.update_clip_same_key, [W_SKELETON_REF] = l.update_ref,
        [W_ASSET_REF] = l.update_asset_ref, [W_DEL_LINK_FINDINGS] = l.del_link_findings,
        [W_DEL_BINDINGS] = l.del_bindings, [W_DEL_REF_FINDINGS] = l.del_ref_findings,
        [W_CLIP_FIT] = l.update_clip_fit,
        [W_SAGE_REF] = l.update_sage_ref, [W_SAGE_REF_INSERT] = l.ins_sage_ref,
        [W_SAGE_REF_INSERT_BATCH] = l.ins_sage_refs_batch,
        [W_DEL_PENDING_REFS] = l.del_pending_refs, [W_DECODE_AGAIN] = l.decode_again,
        [W_FINDING_BATCH] = l.ins_findings_batch,
    };
    /* a transaction per batch of files: 2048 of each kind, so that a batch's commit is not
     * paid per few files (each rewrites the pages the batch touched into the log) */
    enum { LINK_BATCH = 3 * 2048 };
    link_todo *batch = st ? NULL : malloc(LINK_BATCH * sizeof *batch);
    if (!st && !batch) {
        snprintf(err, errlen, "index: link pass: out of memory");
        st = AMX_E_NOMEM;
    }
    bool first_decided = false;
    while (!st) {
        /* The files to link are read, and the first pass decided, inside the batch's write
         * transaction: a link pass of another process (a scan of another root) that committed
         * while this one waited for the lock has linked its files, and they are not linked
         * (their bindings inserted) a second time. */
        if ((st = amx__db_begin(db, err, errlen)))
            break;
        if (!first_decided) {
            first_decided = true;
            if (first_pass_of(db->db, &l.first_pass))
                st = amx__db_error(db, "index: link pass", err, errlen);
        }
        size_t n = 0;
        int rc = SQLITE_DONE;
        while (!st && (rc = sqlite3_step(l.files_todo)) == SQLITE_ROW && n < LINK_BATCH)
            batch[n++] = (link_todo){ sqlite3_column_int64(l.files_todo, 0),
                                      sqlite3_column_int(l.files_todo, 1) };
        sqlite3_reset(l.files_todo);
        if (!st && rc != SQLITE_DONE && rc != SQLITE_ROW)
            st = amx__db_error(db, "index: link pass", err, errlen);
        if (st || n == 0) {
            amx__db_rollback(db); /* nothing was written */
            break;
        }
        /* from now on the write path marks what a change affects (db.c, anything_linked) */
        if (amx__db_exec(db, "UPDATE link_state SET linked_once = 1 WHERE linked_once = 0", err,
                         errlen))
            st = AMX_E_DB;
        size_t weight = 0;
        for (size_t i = 0; i < n; i++)
            weight += link_weight(&batch[i]);
        if (!st && weight >= HELPER_MIN_FILES && !x)
            x = helpers_start(db, threads, l.first_pass);
        int helped = -2; /* not tried */
        if (!st && weight >= HELPER_MIN_FILES && x) {
            helped = link_with_helpers(x, w, batch, n, linked, db, err, errlen);
            if (helped < 0)
                st = AMX_E_DB;
            if (helped == 1) { /* no thread: the rest of the pass is the writer's */
                helpers_free(x);
                x = NULL;
            }
        }
        if (!st && helped != 0) {
            for (size_t i = 0; i < n && !st; i++) {
                plan_clear(&l.out);
                if (link_file(&l, batch[i].file_id, batch[i].what) || apply(w, &l.out))
                    st = amx__db_error(db, "index: link pass", err, errlen);
                *linked += l.out.clips;
            }
        }
        if (!st)
            st = amx__db_commit(db, err, errlen);
        else
            amx__db_rollback(db);
    }
    if (!st && !(st = amx__db_begin(db, err, errlen))) {
        if (amx__db_exec(db, "UPDATE link_state SET linked_once = 1 WHERE linked_once = 0", err,
                         errlen))
            st = AMX_E_DB;
        else if ((plan_clear(&l.out), bind_names(&l)) || apply(w, &l.out))
            st = amx__db_error(db, "index: link pass (names)", err, errlen);
        else if ((plan_clear(&l.out), bind_xml_lists(&l)) || apply(w, &l.out))
            st = amx__db_error(db, "index: link pass (XML lists)", err, errlen);
        if (!st)
            st = amx__db_commit(db, err, errlen);
        else
            amx__db_rollback(db);
    }
    free(batch);
    helpers_free(x);
    linker_close(&l);
    return st;
}

static int cores(void)
{
    return amx_os_cpu_count();
}

amx_status amx_link(amx_db *db, uint64_t *linked, char *err, size_t errlen)
{
    return amx__link(db, cores(), linked, err, errlen);
}
