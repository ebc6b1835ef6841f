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
    sqlite3_stmt *lists, *entries, *types, *candidates;
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

static int judge_root(lists_ctx *c, int64_t root)
{
    size_t eff[MAX_LIST_FILES], n_eff;
    clear_root(c);
    if (root_lists(c, root, eff, &n_eff))
        return -1;
    if (!n_eff)
        return 0;
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
                    .candidates = st[3] };
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
