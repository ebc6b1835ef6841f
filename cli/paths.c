/* Paths as people type them (show, issues, clips): relative to the current directory or to a
 * scanned root, absolute, "./"-prefixed, with a trailing slash for a directory, or just the
 * end of a path (a file name); case-insensitive for the formats of engines whose file systems
 * are (Alamo, W3D: their archives too), and for every file where the system's are (Windows).
 * Each step is an indexed look-up (amx_query_path_*), so a path resolves as fast in an index of
 * a million files as in one of ten. Nothing matched: the closest indexed paths are suggested
 * (that pass reads every path). */
#include "cli.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct root_list {
    char **v;
    size_t n;
    bool oom;
} root_list;

static void add_root(const amx_root_row *r, void *user)
{
    root_list *a = user;
    char **v = realloc(a->v, (a->n + 1) * sizeof *v);
    if (!v || !(v[a->n] = strdup(r->path))) {
        a->oom = true;
        if (v)
            a->v = v;
        return;
    }
    a->v = v;
    a->n++;
}

static void roots_free(root_list *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

/* Whether a file of this format is found by a path typed in another case: always where file
 * names compare without case (Windows: 'mw3\ANIM.ZBD' opens mw3/anim.zbd there, so it names
 * it), else for the engines whose file systems ignore case: Petroglyph Alamo and Westwood/EA
 * (W3D, BIG, and the SAGE games' INI files, which the same file system reads). */
static bool case_blind(const char *format)
{
    return amx_os_names_fold_case() || strncmp(format, "alamo-", 6) == 0 ||
           strcmp(format, "meg") == 0 || strcmp(format, "w3d") == 0 ||
           strcmp(format, "big") == 0 || strcmp(format, "sage-ini") == 0;
}

/* Normalises an absolute path in place: "//", "/./" and "/x/../" go. */
static void normalise(char *p)
{
    size_t root = amx_os_path_root_len(p); /* "/", "C:/": kept, without its '/' */
    if (root)
        root--;
    char *start = p + root, *out = start;
    const char *s = start;
    while (*s) {
        while (*s == '/')
            s++;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0)
            break;
        if (n == 1 && s[0] == '.') {
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (out > start && *--out != '/') {
            }
        } else {
            *out++ = '/';
            memmove(out, s, n);
            out += n;
        }
        s += n;
    }
    if (out == start)
        *out++ = '/';
    *out = '\0';
}

typedef struct cand {
    const char *root;
    char rel[AMX_PATH_MAX];
    int group;                  /* 0: from the working directory or absolute; 1: root-relative */
} cand;

static bool path_eq(const char *a, const char *b, bool fold)
{
    return fold ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

/* The end of a path: "X.ALA" ends "Art/Models/X.ALA" and a member "A.meg#DATA/ART/X.ALA". */
static bool ends_with(const amx_path_row *f, const char *tail, bool fold)
{
    size_t n = strlen(f->path), t = strlen(tail);
    if (t >= n)
        return false;
    const char *end = f->path + n - t;
    if (!path_eq(end, tail, fold))
        return false;
    return end[-1] == '/' || (f->member_at && end == f->path + f->member_at + 1);
}

static int add_match(cli_paths *out, const char *root, const char *path, bool dir)
{
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i].root, root) == 0 && strcmp(out->v[i].path, path) == 0)
            return 0;
    cli_path *v = realloc(out->v, (out->n + 1) * sizeof *v);
    if (!v)
        return -1;
    out->v = v;
    v[out->n] = (cli_path){ strdup(root), strdup(path), dir };
    if (!v[out->n].root || !v[out->n].path)
        return -1;
    out->n++;
    return 0;
}

void cli_paths_free(cli_paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].root), free(p->v[i].path);
    free(p->v);
    *p = (cli_paths){ 0 };
}

size_t cli_name_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 255 || m > 255)
        return (size_t)-1;
    size_t prev[256], cur[256];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (m + 1) * sizeof *prev);
    }
    return prev[m];
}

static const char *base_name(const char *p)
{
    const char *b = p;
    for (const char *s = p; *s; s++)
        if (*s == '/' || *s == '#')
            b = s + 1;
    return b;
}

/* "nothing indexed at ...; the closest indexed paths: ..." (reads every indexed path once).
 * For a file, the indexed files whose names are closest to its name; for a directory (typed
 * with a trailing slash), the indexed directories whose last parts are closest to it, so that
 * 'Art/Models/' typed in a root whose files are under Data/ suggests Data/Art/Models/. */
typedef struct nearest {
    const char *want, *root;
    bool dir;
    char *best[5], *best_root[5];
    size_t dist[5], n;
    bool oom;
} nearest;

static void consider(nearest *c, const char *name, size_t len, size_t d)
{
    if (d > strlen(c->want) / 3 + 2 || c->oom)
        return;
    for (size_t k = 0; k < c->n; k++) /* a directory comes once per file in it */
        if (strcmp(c->best_root[k], c->root) == 0 && strlen(c->best[k]) == len &&
            strncmp(c->best[k], name, len) == 0)
            return;
    size_t k = c->n < 5 ? c->n++ : 5;
    if (k == 5) {
        if (d >= c->dist[4])
            return;
        k = 4;
        free(c->best[4]), free(c->best_root[4]);
    }
    while (k > 0 && c->dist[k - 1] > d) {
        c->best[k] = c->best[k - 1];
        c->best_root[k] = c->best_root[k - 1];
        c->dist[k] = c->dist[k - 1];
        k--;
    }
    c->best[k] = amx_strndup(name, len);
    c->best_root[k] = strdup(c->root);
    c->dist[k] = d;
    c->oom |= !c->best[k] || !c->best_root[k];
}

/* The last n parts of the first len bytes of p ("Data/Art/Models", 2: "Art/Models"). */
static const char *last_parts(const char *p, size_t len, size_t n)
{
    size_t at = len;
    while (at > 0) {
        if (p[at - 1] == '/' && --n == 0)
            break;
        at--;
    }
    return p + at;
}

static void near_file(const char *path, const char *format, void *user)
{
    nearest *c = user;
    (void)format;
    if (!c->dir) {
        consider(c, path, strlen(path), cli_name_distance(base_name(path), c->want));
        return;
    }
    /* each directory of the path (not inside an archive: a member is no directory) */
    size_t parts = 1;
    for (const char *w = c->want; *w; w++)
        parts += *w == '/';
    char tail[AMX_PATH_MAX];
    for (const char *s = path; *s && *s != '#'; s++) {
        if (*s != '/')
            continue;
        size_t len = (size_t)(s - path);
        const char *t = last_parts(path, len, parts);
        snprintf(tail, sizeof tail, "%.*s", (int)(path + len - t), t);
        /* the directory with its slash, as it is typed */
        consider(c, path, len + 1, cli_name_distance(tail, c->want));
    }
}

static void suggest(amx_db *db, const root_list *roots, const char *cmd, const char *typed,
                    const char *tail, bool dir, bool allow_dir)
{
    nearest c = { .want = dir ? tail : base_name(tail), .dir = dir };
    char err[1024];
    for (size_t r = 0; r < roots->n && !c.oom && c.want[0]; r++) {
        c.root = roots->v[r];
        if (amx_query_files(db, roots->v[r], near_file, &c, err, sizeof err) != AMX_OK)
            break; /* the suggestions are a courtesy: what was found so far is shown */
    }
    if (dir && !allow_dir && c.n && c.dist[0] == 0) {
        /* an indexed directory, given to a command that takes a file */
        cli_error("%s: '%s' is a directory; %s takes a file ('animidx issues %s' lists the "
                  "findings under it)", cmd, typed, cmd, c.best[0]);
        for (size_t k = 0; k < c.n; k++)
            free(c.best[k]), free(c.best_root[k]);
        return;
    }
    cli_error("%s: nothing indexed at '%s' (looked relative to the current directory, to each "
              "scanned root%s)%s", cmd, typed, dir ? "" : " and as the end of an indexed path",
              c.n ? "; the closest indexed paths:" : "; 'animidx issues' and 'animidx skeletons' "
                                                    "list indexed paths");
    for (size_t k = 0; k < c.n; k++) {
        if (c.best[k] && c.best_root[k])
            cli_fprintf(stderr, "  %s%s%s%s\n", c.best[k], roots->n > 1 ? "  (root " : "",
                        roots->n > 1 ? c.best_root[k] : "", roots->n > 1 ? ")" : "");
        free(c.best[k]), free(c.best_root[k]);
    }
}

/* The state of one look-up step, for the amx_query_path_* callbacks. */
typedef struct step_ctx {
    cli_paths *out;
    const char *rel;            /* the candidate path (a directory for under) */
    const char *tail;           /* the end of a path, for named */
    bool fold, oom;
} step_ctx;

static bool on_file(const amx_path_row *f, void *user)
{
    step_ctx *c = user;
    if (!c->fold || case_blind(f->format))
        c->oom |= add_match(c->out, f->root, f->path, false) != 0;
    return c->oom;
}

static bool on_under(const amx_path_row *f, void *user)
{
    step_ctx *c = user;
    if (f->member_at || (c->fold && !case_blind(f->format)))
        return false;
    /* the directory as indexed (its case may differ from what was typed) */
    char dir[AMX_PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", (int)strlen(c->rel), f->path);
    c->oom |= add_match(c->out, f->root, dir, true) != 0;
    return true; /* one file shows the directory is there */
}

static bool on_named(const amx_path_row *f, void *user)
{
    step_ctx *c = user;
    if ((!c->fold || case_blind(f->format)) && ends_with(f, c->tail, c->fold))
        c->oom |= add_match(c->out, f->root, f->path, false) != 0;
    return c->oom;
}

int cli_resolve_path(amx_db *db, const char *cmd, const char *typed, unsigned allow,
                     cli_paths *out)
{
    bool allow_dir = allow & CLI_PATH_DIR;
    *out = (cli_paths){ 0 };
    root_list a = { 0 };
    char err[1024];
    if (amx_query_roots(db, add_root, &a, err, sizeof err) != AMX_OK || a.oom) {
        cli_error("%s", a.oom ? "out of memory" : err);
        roots_free(&a);
        return EXIT_IO;
    }
    /* What was typed, without "./" and trailing slashes (a trailing slash: a directory); on
     * Windows '\' is '/' ("Art\Models\X.ALO", "C:\Games\...", ".\Data"). */
    char typed_n[AMX_PATH_MAX], norm[AMX_PATH_MAX];
    snprintf(typed_n, sizeof typed_n, "%s", typed);
    amx_os_path_normalize(typed_n);
    bool absolute = amx_os_path_is_absolute(typed_n);
    const char *t = typed_n;
    while (t[0] == '.' && t[1] == '/')
        for (t += 2; *t == '/'; t++) {
        }
    snprintf(norm, sizeof norm, "%s", t);
    size_t len = strlen(norm);
    bool want_dir = len > 0 && norm[len - 1] == '/';
    while (len > 1 && norm[len - 1] == '/')
        norm[--len] = '\0';
    if (strcmp(norm, ".") == 0)
        norm[0] = '\0', want_dir = true;

    /* Where it may be: each root it lies under (absolute, or relative to the working
     * directory), and each root it may be relative to. */
    cand *c = calloc(2 * a.n + 1, sizeof *c);
    size_t nc = 0;
    if (!c) {
        roots_free(&a);
        return EXIT_IO;
    }
    char abs[AMX_PATH_MAX * 2], cwd[AMX_PATH_MAX];
    if (absolute)
        snprintf(abs, sizeof abs, "%s", typed_n);
    else if (amx_os_getcwd(cwd, sizeof cwd) != 0 || amx_os_path_join(cwd, norm, abs, sizeof abs))
        abs[0] = '\0';
    char real_abs[AMX_PATH_MAX];
    for (int pass = 0; pass < 2 && abs[0]; pass++) {
        /* the path as written, then with symbolic links resolved */
        const char *p = abs;
        if (pass == 1) {
            if (amx_os_canonical(abs, real_abs, sizeof real_abs) != 0)
                break;
            p = real_abs;
        } else {
            normalise(abs);
        }
        for (size_t r = 0; r < a.n; r++) {
            size_t rl = strlen(a.v[r]);
            /* (a root in any case where names compare so: Windows) */
            bool fold = amx_os_names_fold_case();
            if (fold ? strcasecmp(p, a.v[r]) == 0 : strcmp(p, a.v[r]) == 0)
                c[nc++] = (cand){ a.v[r], "", 0 };
            else if ((fold ? strncasecmp(p, a.v[r], rl) : strncmp(p, a.v[r], rl)) == 0 &&
                     p[rl] == '/')
                snprintf(c[nc].rel, sizeof c[nc].rel, "%s", p + rl + 1), c[nc++].root = a.v[r];
            if (nc == 2 * a.n)
                break;
        }
        if (nc)
            break;
    }
    if (!absolute)
        for (size_t r = 0; r < a.n && nc < 2 * a.n; r++) {
            snprintf(c[nc].rel, sizeof c[nc].rel, "%s", norm);
            c[nc].group = 1;
            c[nc++].root = a.v[r];
        }

    /* From the working directory first, then from each root; exact matches first, then, for
     * the case-blind engines, without regard to case; then the end of a path. The first step
     * that matches decides. */
    step_ctx sc = { .out = out, .tail = norm };
    amx_status st = AMX_OK;
    for (int step = 0; step < 6 && out->n == 0 && !sc.oom && !st; step++) {
        sc.fold = step % 2 == 1;
        int group = step / 2;
        if (step < 4) {
            for (size_t k = 0; k < nc && !sc.oom && !st; k++) {
                if (c[k].group != group)
                    continue;
                if (allow_dir && c[k].rel[0] == '\0') {
                    sc.oom = add_match(out, c[k].root, "", true) != 0;
                    continue;
                }
                sc.rel = c[k].rel;
                if (!want_dir)
                    st = amx_query_path_at(db, c[k].root, c[k].rel, sc.fold, on_file, &sc, err,
                                           sizeof err);
                if (!st && allow_dir)
                    st = amx_query_path_under(db, c[k].root, c[k].rel, sc.fold, on_under, &sc,
                                              err, sizeof err);
            }
        } else if (!want_dir && norm[0] && !absolute) {
            /* by the name's stem: the last part of the path ("X#old.ALA" is a loose file's
             * name), and after a '#' (an archive member's name) */
            const char *slash = strrchr(norm, '/');
            const char *name = slash ? slash + 1 : norm;
            st = amx_query_path_named(db, name, on_named, &sc, err, sizeof err);
            if (!st && strchr(name, '#'))
                st = amx_query_path_named(db, base_name(norm), on_named, &sc, err, sizeof err);
        }
    }
    int rc = EXIT_OK;
    if (st) {
        cli_error("%s", err);
        rc = EXIT_IO;
    } else if (sc.oom) {
        cli_error("out of memory");
        rc = EXIT_IO;
    } else if (out->n == 0) {
        /* a file the scan saw and skipped (show lists such archive members) */
        bool skipped = false;
        char found[AMX_PATH_MAX];
        size_t k = 0;
        for (; k < nc && !want_dir && c[k].rel[0]; k++)
            if (amx_query_path_skipped(db, c[k].root, c[k].rel, true, &skipped, found,
                                       sizeof found, err, sizeof err) != AMX_OK ||
                skipped)
                break; /* an error: a courtesy, the suggestions follow */
        if (skipped && (allow & CLI_PATH_SKIPPED)) {
            if (add_match(out, c[k].root, found, false) != 0) {
                cli_error("out of memory");
                rc = EXIT_IO;
            }
        } else if (skipped) {
            cli_error("%s: '%s' is a file of a kind animidx does not read: the scan counts it "
                      "and skips it, so the index holds nothing about it but what names it "
                      "('animidx refs %s')", cmd, typed, typed);
            rc = EXIT_FINDINGS;
        } else {
            suggest(db, &a, cmd, typed, norm, want_dir, allow_dir);
            rc = EXIT_FINDINGS;
        }
    } else if (out->n > 1) {
        cli_error("%s: '%s' matches %zu indexed %s; give more of the path:", cmd, typed, out->n,
                  out->v[0].dir ? "directories or files" : "files");
        for (size_t i = 0; i < out->n; i++)
            cli_fprintf(stderr, "  %s%s%s%s%s\n", out->v[i].path[0] ? out->v[i].path : ".",
                        out->v[i].dir ? "/" : "", a.n > 1 ? "  (root " : "",
                        a.n > 1 ? out->v[i].root : "", a.n > 1 ? ")" : "");
        rc = EXIT_FINDINGS;
    }
    if (rc != EXIT_OK && rc != EXIT_FINDINGS)
        cli_paths_free(out);
    free(c);
    roots_free(&a);
    return rc;
}

/* Whether directory `dir` has a subdirectory `name` (any case), written to `out`. */
static bool child_dir(const char *dir, const char *name, char *out, size_t n)
{
    amx_os_stat st;
    return amx_os_path_join_nocase(dir, name, strlen(name), out, n, &st) == 0 &&
           st.kind == AMX_OS_DIR;
}

/* A SAGE game's or mod's directory (Generals, Zero Hour, BFME): it holds Data/INI, and the game
 * looks both its INI files and its Art/W3D models up from it (docs/formats/sage-ini.md). */
static bool is_sage_game_dir(const char *dir)
{
    char data[AMX_PATH_MAX], ini[AMX_PATH_MAX];
    return child_dir(dir, "Data", data, sizeof data) && child_dir(data, "INI", ini, sizeof ini);
}

/* Whether `p` starts with the path component `name` (any case). */
static bool starts_with_component(const char *p, const char *name)
{
    size_t k = strlen(name);
    return strncasecmp(p, name, k) == 0 && (p[k] == '/' || p[k] == '\0');
}

size_t cli_sage_game_root(const char *real, bool is_dir)
{
    size_t n = strlen(real);
    if (is_dir && is_sage_game_dir(real))
        return n;
    char dir[AMX_PATH_MAX];
    size_t root = amx_os_path_root_len(real);
    for (size_t at = n; at > root + 1; at--) { /* real[at - 1] is the '/' after the directory */
        const char *below = real + at;
        if (real[at - 1] != '/' || at > sizeof dir ||
            !(starts_with_component(below, "Data") || starts_with_component(below, "Art")))
            continue;
        memcpy(dir, real, at - 1);
        dir[at - 1] = '\0';
        if (is_sage_game_dir(dir))
            return at - 1;
    }
    return 0;
}
