/*
 * Empire at War / Forces of Corruption: the XML files the game loads (docs/formats/alamo.md 8a).
 *
 * The game loads the game object files GameObjectFiles.xml lists, the hardpoint files
 * HardPointDataFiles.xml lists, and so on: each list file's <File> entries, DATA/XML/<entry>
 * (ModVerify, GameObjectTypeGameManager.Initialization.cs). A file no list names is never read,
 * however right its objects: the classic mistake of a new unit file not added to
 * GameObjectFiles.xml, or a leftover copy (HardPoints_Old.xml). XML_NOT_LISTED says so for an
 * XML file of a root that holds game objects of an element type that the files of one of its
 * stack's list files hold (SpaceUnit, HardPoint, ...) and that no list file of the stack names.
 * Files of other kinds (Factions.xml, GameConstants.xml: read by their fixed names) share no
 * element type with listed files and are not judged; a stack without list files (a submod whose
 * parent is not a base layer) is not judged either.
 *
 * A list file counts when it is the one the game finds at its path from the root (the top
 * layer's). The check is computed for every root at once whenever an XML file was written or
 * removed, or a root's layers changed (link_state.xml_lists, set by the write path), so that the
 * index is what a fresh scan makes; its findings have origin 'lists'.
 */
#include "link_internal.h"
#include "resolve/resolve.h"

#include "common/grow.h"
#include "common/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds (a tree may be hostile): a stack with more list files than this is not judged; element
 * types past MAX_TYPES are not counted (a file of those only is then not judged). */
enum { MAX_LIST_FILES = 64, MAX_TYPES = 4096, TYPE_SLOTS = 2 * MAX_TYPES, MAX_TYPES_SAID = 4 };

typedef struct list_file {
    int64_t id, root_id;
    char lkey[AMX_LKEY_MAX];
    char path[512];
} list_file;

/* An element type of the objects of the files a root's list files name: how many files each
 * list names hold it. */
typedef struct listed_type {
    char *type;
    int64_t files[MAX_LIST_FILES]; /* by the root's list (its index in eff) */
} listed_type;

typedef struct lists_ctx {
    linker *l;
    sqlite3_stmt *lists, *entries, *types, *candidates, *entry_lines, *objects;
    list_file *all;           /* every list file of the index */
    size_t n_all, cap_all;
    char **listed;            /* the lkeys the root's lists name, sorted */
    size_t n_listed, cap_listed;
    listed_type *types_of;    /* the element types of the listed files */
    size_t n_types, cap_types;
    uint16_t *type_slot;      /* TYPE_SLOTS: 1 + the index of a type in types_of, by hash */
} lists_ctx;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void clear_root(lists_ctx *c)
{
    for (size_t i = 0; i < c->n_listed; i++)
        free(c->listed[i]);
    c->n_listed = 0;
    for (size_t i = 0; i < c->n_types; i++)
        free(c->types_of[i].type);
    c->n_types = 0;
    if (c->type_slot)
        memset(c->type_slot, 0, TYPE_SLOTS * sizeof *c->type_slot);
}

/* The type's entry, or NULL; *slot: where it is or would go. */
static listed_type *type_named(lists_ctx *c, const char *type, size_t *slot)
{
    size_t h = (size_t)amx_hash(type, strlen(type)) & (TYPE_SLOTS - 1);
    for (; c->type_slot[h]; h = (h + 1) & (TYPE_SLOTS - 1))
        if (strcmp(c->types_of[c->type_slot[h] - 1].type, type) == 0)
            break;
    if (slot)
        *slot = h;
    return c->type_slot[h] ? &c->types_of[c->type_slot[h] - 1] : NULL;
}

/* The element types of the objects of file_id, counted for the root's list `li`. */
static int add_types(lists_ctx *c, int64_t file_id, size_t li)
{
    sqlite3_stmt *s = c->types;
    sqlite3_bind_int64(s, 1, file_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *type = col_or(s, 0, "");
        size_t slot;
        listed_type *t = type_named(c, type, &slot);
        if (!t && c->n_types == MAX_TYPES)
            continue;
        if (!t) {
            if (!amx__grow((void **)&c->types_of, &c->cap_types, c->n_types,
                           sizeof *c->types_of)) {
                rc = SQLITE_NOMEM;
                break;
            }
            t = &c->types_of[c->n_types];
            memset(t, 0, sizeof *t);
            if (!(t->type = strdup(type))) {
                rc = SQLITE_NOMEM;
                break;
            }
            c->type_slot[slot] = (uint16_t)++c->n_types;
        }
        t->files[li]++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The lists of root `root` (those the game finds from it) into c->listed, their files' types
 * into c->types_of; *n_eff their number, eff[] their indexes into c->all. */
static int root_lists(lists_ctx *c, int64_t root, size_t *eff, size_t *n_eff)
{
    *n_eff = 0;
    for (size_t i = 0; i < c->n_all; i++) {
        const list_file *L = &c->all[i];
        if (link_layer_of(c->l, root, L->root_id) < 0)
            continue;
        file_hit h;
        int f = link_file_at(c->l, L->lkey, root, &h);
        if (f < 0)
            return -1;
        if (f && h.id == L->id) {
            if (*n_eff == MAX_LIST_FILES) { /* not a game's tree: not judged */
                *n_eff = 0;
                return 0;
            }
            eff[(*n_eff)++] = i;
        }
    }
    for (size_t e = 0; e < *n_eff; e++) {
        const list_file *L = &c->all[eff[e]];
        sqlite3_stmt *s = c->entries;
        sqlite3_bind_int64(s, 1, L->id);
        int rc;
        size_t first = c->n_listed;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            char lkey[AMX_LKEY_MAX];
            if (!amx__xml_file_lkey(col_or(s, 0, ""), lkey))
                continue;
            if (!amx__grow((void **)&c->listed, &c->cap_listed, c->n_listed, sizeof *c->listed) ||
                !(c->listed[c->n_listed] = strdup(lkey))) {
                rc = SQLITE_NOMEM;
                break;
            }
            c->n_listed++;
        }
        sqlite3_reset(s);
        if (rc != SQLITE_DONE)
            return -1;
        for (size_t k = first; k < c->n_listed; k++) {
            file_hit h;
            int f = link_file_at(c->l, c->listed[k], root, &h);
            if (f < 0)
                return -1;
            if (f && add_types(c, h.id, e))
                return -1;
        }
    }
    if (c->n_listed)
        qsort(c->listed, c->n_listed, sizeof *c->listed, cmp_str);
    return 0;
}

/* The part of a file's path after DATA/XML/, as a list entry writes it ('\'). */
static void entry_of(const char *path, const char *lkey, char *out, size_t n)
{
    size_t pl = strlen(path), kl = strlen(lkey), skip = strlen("DATA/XML/");
    const char *tail = kl > skip && pl >= kl - skip ? path + pl - (kl - skip) : path;
    snprintf(out, n, "%s", tail);
    for (char *p = out; *p; p++)
        if (*p == '/')
            *p = '\\';
}

/* XML_NOT_LISTED for file F (candidate row of c->candidates) when its objects' element types
 * meet those of the root's listed files. */
static int judge(lists_ctx *c, const size_t *eff, size_t n_eff, int64_t file_id,
                 const char *lkey, const char *path)
{
    char *key = (char *)lkey;
    if (bsearch(&key, c->listed, c->n_listed, sizeof *c->listed, cmp_str))
        return 0;
    sqlite3_stmt *s = c->types;
    sqlite3_bind_int64(s, 1, file_id);
    char said[600] = "";
    size_t at = 0, shown = 0, objects = 0, best_list = 0;
    int64_t best = -1;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t count = sqlite3_column_int64(s, 1);
        objects += (size_t)count;
        const listed_type *t = type_named(c, col_or(s, 0, ""), NULL);
        if (!t)
            continue;
        for (size_t e = 0; e < n_eff; e++)
            if (t->files[e] > best) {
                best = t->files[e];
                best_list = e;
            }
        if (shown++ < MAX_TYPES_SAID && at < sizeof said)
            at += (size_t)snprintf(said + at, sizeof said - at, "%s%lld %.100s", at ? ", " : "",
                                   (long long)count, t->type);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    if (best < 0) /* no type of a listed file: a file of another kind */
        return 0;
    if (shown > MAX_TYPES_SAID && at < sizeof said)
        snprintf(said + at, sizeof said - at, ", ...");
    const list_file *L = &c->all[eff[best_list]];
    char entry[600], msg[2500];
    entry_of(path, lkey, entry, sizeof entry);
    snprintf(msg, sizeof msg, "no list file names this file, so the game never loads its %zu "
             "object%s (%s); %.500s names %lld file%s holding such objects: add "
             "<File>%.400s</File> there, or delete the file if it is a leftover",
             objects, objects == 1 ? "" : "s", said, L->path, (long long)best,
             best == 1 ? "" : "s", entry);
    return link_add_finding(c->l, file_id, "lists", AMX_C_XML_NOT_LISTED, -1, "file", msg);
}

/* ---- the game object files: each object once, each path short enough ---- */

/* Where a game object name is first defined among the files GameObjectFiles.xml loads. */
typedef struct first_def {
    char *key;                /* the name, upper-cased (game_objects.name_key); NULL: empty */
    int64_t file_id, root_id, line;
    char *where;              /* "PATH:LINE" */
} first_def;

typedef struct def_table {
    first_def *e;
    size_t cap, n;            /* cap: 0 or a power of two, at least twice n */
} def_table;

static void def_table_free(def_table *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->e[i].key);
        free(t->e[i].where);
    }
    free(t->e);
    *t = (def_table){ 0 };
}

/* The entry of `key`, or where it goes (its key NULL); NULL out of memory. */
static first_def *def_slot(def_table *t, const char *key)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        first_def *e = calloc(cap, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->e[i].key)
                continue;
            size_t h = (size_t)amx_hash(t->e[i].key, strlen(t->e[i].key)) & (cap - 1);
            while (e[h].key)
                h = (h + 1) & (cap - 1);
            e[h] = t->e[i];
        }
        free(t->e);
        t->e = e;
        t->cap = cap;
    }
    size_t h = (size_t)amx_hash(key, strlen(key)) & (t->cap - 1);
    while (t->e[h].key && strcmp(t->e[h].key, key) != 0)
        h = (h + 1) & (t->cap - 1);
    return &t->e[h];
}

/* One object of a loaded file against the names defined before it: DUPLICATE_OBJECT on the
 * definition that is the root's (the later one when both are). */
static int one_object(lists_ctx *c, def_table *t, int64_t root, const file_hit *g,
                      const char *list_path)
{
    sqlite3_stmt *s = c->objects;
    const char *name = col_or(s, 0, ""), *key = col_or(s, 1, ""), *type = col_or(s, 2, "");
    int64_t line = sqlite3_column_int64(s, 3);
    first_def *d = def_slot(t, key);
    if (!d)
        return -1;
    char where[1100];
    snprintf(where, sizeof where, "%.1000s:%lld", g->path, (long long)line);
    if (!d->key) {
        if (!(d->key = strdup(key)) || !(d->where = strdup(where)))
            return -1;
        d->file_id = g->id;
        d->root_id = g->root_id;
        d->line = line;
        t->n++;
        return 0;
    }
    char ctx[400], msg[3000];
    snprintf(ctx, sizeof ctx, "%.100s '%.250s', line %lld", type, name, (long long)line);
    if (g->root_id == root) {
        snprintf(msg, sizeof msg, "game object '%.250s' is defined again: first at %.1000s, in a "
                 "file %.300s loads before this one. The engine asserts (\"defined multiple "
                 "times\") and uses one of the two: rename one, or remove the copy", name,
                 d->where, list_path);
        return link_add_finding(c->l, g->id, "lists", AMX_C_DUPLICATE_OBJECT, -1, ctx, msg);
    }
    if (d->root_id == root) {
        snprintf(ctx, sizeof ctx, "%.100s '%.250s', line %lld", type, name, (long long)d->line);
        snprintf(msg, sizeof msg, "game object '%.250s' is defined again at %.1000s, in a file "
                 "%.300s loads after this one. The engine asserts (\"defined multiple times\") "
                 "and uses one of the two: rename one, or remove the copy", name, where,
                 list_path);
        return link_add_finding(c->l, d->file_id, "lists", AMX_C_DUPLICATE_OBJECT, -1, ctx, msg);
    }
    return 0;
}

/* GameObjectFiles.xml of the root's stack, as the game reads it (ModVerify,
 * GameObjectTypeGameManager.Initialization.cs): an entry whose path .\DATA\XML\<entry> is longer
 * than 127 characters crashes the game at start (REFERENCE_PATH_TOO_LONG); a file listed twice,
 * and a game object name defined twice in the files it loads, are the engine's "defined multiple
 * times" assertion (DUPLICATE_OBJECT). */
static int object_files(lists_ctx *c, int64_t root, const size_t *eff, size_t n_eff)
{
    static const char prefix[] = ".\\DATA\\XML\\"; /* what the game opens: 11 characters */
    enum { MAX_PATH_CHARS = 127 };
    const list_file *L = NULL;
    for (size_t e = 0; e < n_eff && !L; e++)
        if (strcmp(c->all[eff[e]].lkey, "DATA/XML/GAMEOBJECTFILES.XML") == 0)
            L = &c->all[eff[e]];
    if (!L)
        return 0;
    bool list_here = L->root_id == root;
    /* the entries, in order, read first (the checks run other statements) */
    typedef struct entry { char *name; int64_t line; } entry;
    entry *es = NULL;
    size_t n = 0, cap = 0;
    int err = 0, rc;
    sqlite3_stmt *s = c->entry_lines;
    sqlite3_bind_int64(s, 1, L->id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (!amx__grow((void **)&es, &cap, n, sizeof *es) ||
            !(es[n].name = strdup(col_or(s, 0, "")))) {
            err = 1;
            break;
        }
        es[n++].line = sqlite3_column_int64(s, 1);
    }
    sqlite3_reset(s);
    if (!err && rc != SQLITE_DONE)
        err = 1;
    def_table defs = { 0 };
    def_table files = { 0 }; /* the files loaded so far, by id: "ID" -> the entry's line */
    for (size_t i = 0; i < n && !err; i++) {
        char ctx[300], msg[1500], lkey[AMX_LKEY_MAX];
        size_t chars = sizeof prefix - 1 + strlen(es[i].name);
        if (chars > MAX_PATH_CHARS) {
            if (list_here) {
                snprintf(ctx, sizeof ctx, "File, line %lld", (long long)es[i].line);
                snprintf(msg, sizeof msg, "the game opens %s%.400s, %zu characters, and accepts "
                         "at most %d for a game object file: it crashes at start (the engine's "
                         "assertion, a crash in a release build)", prefix, es[i].name, chars,
                         MAX_PATH_CHARS);
                err = link_add_finding(c->l, L->id, "lists", AMX_C_REFERENCE_PATH_TOO_LONG, -1,
                                       ctx, msg) != 0;
            }
            continue;
        }
        file_hit g;
        int f = amx__xml_file_lkey(es[i].name, lkey) ? link_file_at(c->l, lkey, root, &g) : 0;
        if (f < 0) {
            err = 1;
            break;
        }
        if (!f)
            continue;
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)g.id);
        first_def *seen = def_slot(&files, id);
        if (!seen) {
            err = 1;
            break;
        }
        if (seen->key) {
            if (list_here) {
                snprintf(ctx, sizeof ctx, "File, line %lld", (long long)es[i].line);
                snprintf(msg, sizeof msg, "%.400s is listed again (first at line %lld): every "
                         "game object of it is defined twice, which the engine asserts "
                         "(\"defined multiple times\"); remove one of the lines", es[i].name,
                         (long long)seen->line);
                err = link_add_finding(c->l, L->id, "lists", AMX_C_DUPLICATE_OBJECT, -1, ctx,
                                       msg) != 0;
            }
            continue;
        }
        if (!(seen->key = strdup(id))) {
            err = 1;
            break;
        }
        seen->line = es[i].line;
        files.n++;
        s = c->objects;
        sqlite3_bind_int64(s, 1, g.id);
        /* the file's objects are read through while the table is written: one_object runs no
         * statement but the plan's */
        while (!err && (rc = sqlite3_step(s)) == SQLITE_ROW)
            err = one_object(c, &defs, root, &g, L->path) != 0;
        sqlite3_reset(s);
        if (!err && rc != SQLITE_DONE)
            err = 1;
    }
    def_table_free(&defs);
    def_table_free(&files);
    for (size_t i = 0; i < n; i++)
        free(es[i].name);
    free(es);
    return err ? -1 : 0;
}

static int judge_root(lists_ctx *c, int64_t root)
{
    size_t eff[MAX_LIST_FILES], n_eff;
    clear_root(c);
    if (root_lists(c, root, eff, &n_eff))
        return -1;
    if (!n_eff)
        return 0;
    if (object_files(c, root, eff, n_eff))
        return -1;
    /* the root's XML files with game objects, lists left out (read first: judging runs other
     * statements of this connection) */
    typedef struct cand { int64_t id; char *lkey, *path; } cand;
    cand *cs = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *s = c->candidates;
    sqlite3_bind_int64(s, 1, root);
    int rc, err = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (!amx__grow((void **)&cs, &cap, n, sizeof *cs)) {
            err = 1;
            break;
        }
        cs[n] = (cand){ sqlite3_column_int64(s, 0), strdup(col_or(s, 1, "")),
                        strdup(col_or(s, 2, "")) };
        if (!cs[n].lkey || !cs[n].path) {
            free(cs[n].lkey);
            free(cs[n].path);
            err = 1;
            break;
        }
        n++;
    }
    sqlite3_reset(s);
    if (!err && rc != SQLITE_DONE)
        err = 1;
    for (size_t i = 0; i < n && !err; i++)
        err = judge(c, eff, n_eff, cs[i].id, cs[i].lkey, cs[i].path) != 0;
    for (size_t i = 0; i < n; i++) {
        free(cs[i].lkey);
        free(cs[i].path);
    }
    free(cs);
    return err ? -1 : 0;
}

static const char *const lists_sql[] = {
    /* every list file of the index: an XML file with <File> entries */
    "SELECT f.id, f.root_id, f.lkey, f.path FROM files f WHERE f.format = 'alamo-xml' AND "
    "EXISTS (SELECT 1 FROM refs r WHERE r.file_id = f.id AND r.kind = 'xml-file') ORDER BY f.id",
    "SELECT name FROM refs WHERE file_id = ?1 AND kind = 'xml-file' ORDER BY id",
    "SELECT type, count(*) FROM game_objects WHERE file_id = ?1 GROUP BY type ORDER BY type",
    /* a root's XML files under DATA/XML/ with game objects, list files left out */
    "SELECT f.id, f.lkey, f.path FROM files f WHERE f.root_id = ?1 AND f.format = 'alamo-xml' "
    "AND f.lkey LIKE 'DATA/XML/%' AND EXISTS (SELECT 1 FROM game_objects o WHERE o.file_id = "
    "f.id) AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.file_id = f.id AND r.kind = 'xml-file') "
    "ORDER BY f.path",
    "SELECT xml_lists FROM link_state",
    "DELETE FROM findings WHERE origin = 'lists'",
    "UPDATE link_state SET xml_lists = 0",
    "SELECT name, coalesce(line, 0) FROM refs WHERE file_id = ?1 AND kind = 'xml-file' "
    "ORDER BY id",
    "SELECT name, name_key, type, line FROM game_objects WHERE file_id = ?1 ORDER BY line, id",
};

int bind_xml_lists(linker *l)
{
    enum { N = sizeof lists_sql / sizeof lists_sql[0] };
    sqlite3_stmt *st[N] = { 0 };
    int err = 0;
    for (size_t i = 0; i < N && !err; i++)
        err = sqlite3_prepare_v2(l->h, lists_sql[i], -1, &st[i], NULL) != SQLITE_OK;
    bool dirty = !err && sqlite3_step(st[4]) == SQLITE_ROW && sqlite3_column_int(st[4], 0);
    if (!err)
        sqlite3_reset(st[4]);
    lists_ctx c = { .l = l, .lists = st[0], .entries = st[1], .types = st[2],
                    .candidates = st[3], .entry_lines = st[7], .objects = st[8] };
    if (!err && dirty && !(c.type_slot = calloc(TYPE_SLOTS, sizeof *c.type_slot)))
        err = 1;
    if (!err && dirty)
        err = amx__db_run(st[5]) != SQLITE_OK;
    int rc = SQLITE_DONE;
    while (!err && dirty && (rc = sqlite3_step(c.lists)) == SQLITE_ROW) {
        if (!amx__grow((void **)&c.all, &c.cap_all, c.n_all, sizeof *c.all)) {
            err = 1;
            break;
        }
        list_file *L = &c.all[c.n_all++];
        L->id = sqlite3_column_int64(c.lists, 0);
        L->root_id = sqlite3_column_int64(c.lists, 1);
        snprintf(L->lkey, sizeof L->lkey, "%s", col_or(c.lists, 2, ""));
        snprintf(L->path, sizeof L->path, "%s", col_or(c.lists, 3, ""));
    }
    if (c.lists)
        sqlite3_reset(c.lists);
    if (!err && rc != SQLITE_DONE)
        err = 1;
    for (size_t i = 0; i < l->root_count && !err && dirty && c.n_all; i++)
        err = judge_root(&c, l->roots[i].id) != 0;
    if (!err && dirty)
        err = amx__db_run(st[6]) != SQLITE_OK;
    clear_root(&c);
    free(c.type_slot);
    free(c.listed);
    free(c.types_of);
    free(c.all);
    for (size_t i = 0; i < N; i++)
        sqlite3_finalize(st[i]);
    return err ? -1 : 0;
}
