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
#include "common/str_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds (a tree may be hostile): a stack with more list files than this is not judged; element
 * types past MAX_TYPES are not counted (a file of those only is then not judged). */
enum { MAX_LIST_FILES = 64, MAX_TYPES = 4096, MAX_TYPES_SAID = 4 };

typedef struct list_file {
    int64_t id, root_id;
    char lkey[AMX_LKEY_MAX];
    char path[512];
} list_file;

/* An element type of the objects of the files a root's list files name (the value of its entry
 * in lists_ctx.type_counts): how many files each list names hold it. */
typedef struct listed_type {
    int64_t files[MAX_LIST_FILES]; /* by the root's list (its index in eff) */
} listed_type;

typedef struct lists_ctx {
    linker *l;
    sqlite3_stmt *lists, *entries, *types, *candidates, *objects;
    list_file *all;           /* every list file of the index */
    size_t n_all, cap_all;
    amx__str_table listed;    /* the lkeys the root's lists name */
    amx__str_table type_counts; /* element type -> listed_type */
} lists_ctx;

/* The type's counts, or NULL. */
static const listed_type *type_named(const lists_ctx *c, const char *type)
{
    size_t i = amx__str_table_find(&c->type_counts, type, strlen(type));
    return i == SIZE_MAX ? NULL : c->type_counts.e[i].value;
}

/* The element types of the objects of file_id, counted for the root's list `li`. */
static int add_types(lists_ctx *c, int64_t file_id, size_t li)
{
    sqlite3_stmt *s = c->types;
    sqlite3_bind_int64(s, 1, file_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *type = col_or(s, 0, "");
        size_t i = amx__str_table_find(&c->type_counts, type, strlen(type));
        if (i == SIZE_MAX) {
            if (c->type_counts.n == MAX_TYPES)
                continue;
            listed_type *t = calloc(1, sizeof *t);
            bool added;
            if (!t || (i = amx__str_table_add(&c->type_counts, type, strlen(type), t, &added)) ==
                          SIZE_MAX) {
                free(t);
                rc = SQLITE_NOMEM;
                break;
            }
        }
        ((listed_type *)c->type_counts.e[i].value)->files[li]++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The lists of root `root` (those the game finds from it): the lkeys they name into c->listed,
 * their files' types into c->type_counts; *n_eff their number, eff[] their indexes into c->all. */
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
        /* the list's entries, read first (their files' types are read with another
         * statement) */
        char **mine = NULL;
        size_t n = 0, cap = 0;
        sqlite3_stmt *s = c->entries;
        sqlite3_bind_int64(s, 1, c->all[eff[e]].id);
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            char lkey[AMX_LKEY_MAX];
            bool added;
            size_t len = amx__xml_file_lkey(col_or(s, 0, ""), lkey);
            if (!len)
                continue;
            if (amx__str_table_add(&c->listed, lkey, len, NULL, &added) == SIZE_MAX ||
                !amx__grow((void **)&mine, &cap, n, sizeof *mine) ||
                !(mine[n] = amx_strndup(lkey, len))) {
                rc = SQLITE_NOMEM;
                break;
            }
            n++;
        }
        sqlite3_reset(s);
        for (size_t k = 0; k < n && rc == SQLITE_DONE; k++) {
            file_hit h;
            int f = link_file_at(c->l, mine[k], root, &h);
            if (f < 0 || (f && add_types(c, h.id, e)))
                rc = SQLITE_ERROR;
        }
        for (size_t k = 0; k < n; k++)
            free(mine[k]);
        free(mine);
        if (rc != SQLITE_DONE)
            return -1;
    }
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
    if (amx__str_table_find(&c->listed, lkey, strlen(lkey)) != SIZE_MAX)
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
        const char *type = col_or(s, 0, "");
        const listed_type *t = type_named(c, type);
        if (!t)
            continue;
        for (size_t e = 0; e < n_eff; e++)
            if (t->files[e] > best) {
                best = t->files[e];
                best_list = e;
            }
        if (shown++ < MAX_TYPES_SAID && at < sizeof said)
            at += (size_t)snprintf(said + at, sizeof said - at, "%s%lld %.100s", at ? ", " : "",
                                   (long long)count, type);
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

/* Where a game object name is first defined among the files GameObjectFiles.xml loads (the
 * value of its name's entry). */
typedef struct first_def {
    int64_t file_id, root_id, line;
    char where[];             /* "PATH:LINE" */
} first_def;

/* One object of a loaded file against the names defined before it: DUPLICATE_OBJECT on the
 * definition that is the root's (the later one when both are). */
static int one_object(lists_ctx *c, amx__str_table *defs, int64_t root, const file_hit *g,
                      const char *list_path)
{
    sqlite3_stmt *s = c->objects;
    const char *name = col_or(s, 0, ""), *key = col_or(s, 1, ""), *type = col_or(s, 2, "");
    int64_t line = sqlite3_column_int64(s, 3);
    char where[1100];
    int wn = snprintf(where, sizeof where, "%.1000s:%lld", g->path, (long long)line);
    first_def *mine = malloc(sizeof *mine + (size_t)wn + 1);
    if (!mine)
        return -1;
    *mine = (first_def){ .file_id = g->id, .root_id = g->root_id, .line = line };
    memcpy(mine->where, where, (size_t)wn + 1);
    bool added;
    size_t i = amx__str_table_add(defs, key, strlen(key), mine, &added);
    if (!added)
        free(mine);
    if (i == SIZE_MAX)
        return -1;
    if (added)
        return 0;
    const first_def *d = defs->e[i].value;
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
    sqlite3_stmt *s = c->entries;
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
    amx__str_table defs = { 0 };  /* name_key -> first_def */
    amx__str_table files = { 0 }; /* the files loaded so far: "ID" -> the entry's line */
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
        int idn = snprintf(id, sizeof id, "%lld", (long long)g.id);
        int64_t *first_line = malloc(sizeof *first_line);
        bool added;
        size_t at = first_line ? amx__str_table_add(&files, id, (size_t)idn, first_line, &added)
                               : SIZE_MAX;
        if (at == SIZE_MAX || !added)
            free(first_line);
        if (at == SIZE_MAX) {
            err = 1;
            break;
        }
        if (!added) {
            if (list_here) {
                snprintf(ctx, sizeof ctx, "File, line %lld", (long long)es[i].line);
                snprintf(msg, sizeof msg, "%.400s is listed again (first at line %lld): every "
                         "game object of it is defined twice, which the engine asserts "
                         "(\"defined multiple times\"); remove one of the lines", es[i].name,
                         (long long)*(int64_t *)files.e[at].value);
                err = link_add_finding(c->l, L->id, "lists", AMX_C_DUPLICATE_OBJECT, -1, ctx,
                                       msg) != 0;
            }
            continue;
        }
        *first_line = es[i].line;
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
    amx__str_table_free(&defs);
    amx__str_table_free(&files);
    for (size_t i = 0; i < n; i++)
        free(es[i].name);
    free(es);
    return err ? -1 : 0;
}

static int judge_root(lists_ctx *c, int64_t root)
{
    size_t eff[MAX_LIST_FILES], n_eff;
    amx__str_table_clear(&c->listed);
    amx__str_table_clear(&c->type_counts);
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

/* The pass's statements, prepared only when the check is to run (lists_sql's order). */
enum { Q_LISTS, Q_ENTRIES, Q_TYPES, Q_CANDIDATES, Q_OBJECTS, Q_FORGET, Q_DONE, Q_COUNT };

static const char *const lists_sql[Q_COUNT] = {
    /* every list file of the index: an XML file with <File> entries */
    [Q_LISTS] = "SELECT f.id, f.root_id, f.lkey, f.path FROM files f WHERE f.format = "
                "'alamo-xml' AND EXISTS (SELECT 1 FROM refs r WHERE r.file_id = f.id AND "
                "r.kind = 'xml-file') ORDER BY f.id",
    /* a list's entries, in its order */
    [Q_ENTRIES] = "SELECT name, coalesce(line, 0) FROM refs WHERE file_id = ?1 AND kind = "
                  "'xml-file' ORDER BY id",
    [Q_TYPES] = "SELECT type, count(*) FROM game_objects WHERE file_id = ?1 GROUP BY type "
                "ORDER BY type",
    /* a root's XML files under DATA/XML/ with game objects, list files left out */
    [Q_CANDIDATES] = "SELECT f.id, f.lkey, f.path FROM files f WHERE f.root_id = ?1 AND "
                     "f.format = 'alamo-xml' AND f.lkey LIKE 'DATA/XML/%' AND EXISTS (SELECT 1 "
                     "FROM game_objects o WHERE o.file_id = f.id) AND NOT EXISTS (SELECT 1 FROM "
                     "refs r WHERE r.file_id = f.id AND r.kind = 'xml-file') ORDER BY f.path",
    [Q_OBJECTS] = "SELECT name, name_key, type, line FROM game_objects WHERE file_id = ?1 "
                  "ORDER BY line, id",
    [Q_FORGET] = "DELETE FROM findings WHERE origin = 'lists'",
    [Q_DONE] = "UPDATE link_state SET xml_lists = 0",
};

/* Whether the check is to run (link_state.xml_lists): 1, 0, or -1 on an error. */
static int lists_dirty(sqlite3 *h)
{
    sqlite3_stmt *s = NULL;
    int dirty = -1;
    if (sqlite3_prepare_v2(h, "SELECT xml_lists FROM link_state", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        dirty = sqlite3_column_int(s, 0) != 0;
    sqlite3_finalize(s);
    return dirty;
}

int bind_xml_lists(linker *l)
{
    int dirty = lists_dirty(l->h);
    if (dirty <= 0)
        return dirty;
    sqlite3_stmt *st[Q_COUNT] = { 0 };
    int err = 0;
    for (size_t i = 0; i < Q_COUNT && !err; i++)
        err = sqlite3_prepare_v2(l->h, lists_sql[i], -1, &st[i], NULL) != SQLITE_OK;
    lists_ctx c = { .l = l, .lists = st[Q_LISTS], .entries = st[Q_ENTRIES],
                    .types = st[Q_TYPES], .candidates = st[Q_CANDIDATES],
                    .objects = st[Q_OBJECTS] };
    if (!err)
        err = amx__db_run(st[Q_FORGET]) != SQLITE_OK;
    int rc = SQLITE_DONE;
    while (!err && (rc = sqlite3_step(c.lists)) == SQLITE_ROW) {
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
    for (size_t i = 0; i < l->root_count && !err && c.n_all; i++)
        err = judge_root(&c, l->roots[i].id) != 0;
    if (!err)
        err = amx__db_run(st[Q_DONE]) != SQLITE_OK;
    amx__str_table_free(&c.listed);
    amx__str_table_free(&c.type_counts);
    free(c.all);
    for (size_t i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(st[i]);
    return err ? -1 : 0;
}
