/* Paths as people type them (show, issues, clips): relative to the current directory or to a
 * scanned root, absolute, "./"-prefixed, with a trailing slash for a directory, or just the
 * end of a path (a file name); case-insensitive for the formats of engines whose file systems
 * are (Alamo, W3D: their archives too). Nothing matched: the closest indexed paths are
 * suggested. */
#include "cli.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef struct indexed {
    char *root, *path, *format;
    size_t member_at;           /* an archive member: the length of its archive's path */
} indexed;

typedef struct all_files {
    indexed *v;
    size_t n, cap;
    char **roots;
    size_t nroots;
    const char *cur_root;
    bool oom;
} all_files;

static void add_root(const amx_root_row *r, void *user)
{
    all_files *a = user;
    char **v = realloc(a->roots, (a->nroots + 1) * sizeof *v);
    if (!v || !(v[a->nroots] = strdup(r->path))) {
        a->oom = true;
        if (v)
            a->roots = v;
        return;
    }
    a->roots = v;
    a->nroots++;
}

static void add_file(const char *path, const char *format, void *user)
{
    all_files *a = user;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 256;
        indexed *v = realloc(a->v, cap * sizeof *v);
        if (!v) {
            a->oom = true;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    indexed f = { strdup(a->cur_root), strdup(path), strdup(format), 0 };
    if (!f.root || !f.path || !f.format) {
        free(f.root), free(f.path), free(f.format);
        a->oom = true;
        return;
    }
    a->v[a->n++] = f;
}

static void files_free(all_files *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i].root), free(a->v[i].path), free(a->v[i].format);
    for (size_t i = 0; i < a->nroots; i++)
        free(a->roots[i]);
    free(a->v);
    free(a->roots);
}

static bool is_archive(const char *format)
{
    amx_format f;
    return amx_format_parse(format, &f) && amx_format_is_archive(f);
}

/* The engines whose file systems ignore case: Petroglyph Alamo and Westwood (W3D, BIG). */
static bool case_blind(const char *format)
{
    return strncmp(format, "alamo-", 6) == 0 || strcmp(format, "meg") == 0 ||
           strcmp(format, "w3d") == 0 || strcmp(format, "big") == 0;
}

static int load(amx_db *db, all_files *a)
{
    char err[1024];
    if (amx_query_roots(db, add_root, a, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    for (size_t r = 0; r < a->nroots && !a->oom; r++) {
        a->cur_root = a->roots[r];
        size_t first = a->n;
        if (amx_query_files(db, a->roots[r], add_file, a, err, sizeof err) != AMX_OK) {
            cli_error("%s", err);
            return EXIT_IO;
        }
        /* Members: a path that is an archive's, '#' and more (files come in path order, so
         * the archive precedes its members). */
        const indexed *arch = NULL;
        for (size_t i = first; i < a->n; i++) {
            indexed *f = &a->v[i];
            size_t al = arch ? strlen(arch->path) : 0;
            if (arch && strncmp(f->path, arch->path, al) == 0 && f->path[al] == '#')
                f->member_at = al;
            else if (is_archive(f->format))
                arch = f;
        }
    }
    if (a->oom) {
        cli_error("out of memory");
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* Normalises an absolute path in place: "//", "/./" and "/x/../" go. */
static void normalise(char *p)
{
    char *out = p;
    const char *s = p;
    while (*s) {
        while (*s == '/')
            s++;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0)
            break;
        if (n == 1 && s[0] == '.') {
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (out > p && *--out != '/') {
            }
        } else {
            *out++ = '/';
            memmove(out, s, n);
            out += n;
        }
        s += n;
    }
    if (out == p)
        *out++ = '/';
    *out = '\0';
}

typedef struct cand {
    const char *root;
    char rel[PATH_MAX];
    int group;                  /* 0: from the working directory or absolute; 1: root-relative */
} cand;

static bool path_eq(const char *a, const char *b, bool fold)
{
    return fold ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

static bool under_dir(const char *path, const char *dir, bool fold)
{
    size_t n = strlen(dir);
    if (n == 0)
        return true;
    return (fold ? strncasecmp(path, dir, n) == 0 : strncmp(path, dir, n) == 0) && path[n] == '/';
}

/* The end of a path: "X.ALA" ends "Art/Models/X.ALA" and a member "A.meg#DATA/ART/X.ALA". */
static bool ends_with(const indexed *f, const char *tail, bool fold)
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

/* Levenshtein distance, case-insensitive, capped work for long names. */
static size_t distance(const char *a, const char *b)
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

/* "nothing indexed at ...; the closest indexed paths: ..." */
static void suggest(const all_files *a, const char *cmd, const char *typed, const char *tail)
{
    enum { SHOW = 5 };
    size_t best[SHOW], bestd[SHOW], nb = 0;
    const char *want = base_name(tail);
    for (size_t i = 0; i < a->n; i++) {
        size_t d = distance(base_name(a->v[i].path), want);
        size_t lim = strlen(want) / 3 + 2;
        if (d > lim)
            continue;
        size_t k = nb < SHOW ? nb++ : SHOW;
        if (k == SHOW && d >= bestd[SHOW - 1])
            continue;
        if (k == SHOW)
            k = SHOW - 1;
        while (k > 0 && bestd[k - 1] > d) {
            best[k] = best[k - 1];
            bestd[k] = bestd[k - 1];
            k--;
        }
        best[k] = i;
        bestd[k] = d;
    }
    cli_error("%s: nothing indexed at '%s' (looked relative to the current directory, to each "
              "scanned root and as the end of an indexed path)%s", cmd, typed,
              nb ? "; the closest indexed paths:" : "; 'animidx issues' and 'animidx skeletons' "
                                                    "list indexed paths");
    for (size_t k = 0; k < nb; k++)
        fprintf(stderr, "  %s%s%s%s\n", a->v[best[k]].path, a->nroots > 1 ? "  (root " : "",
                a->nroots > 1 ? a->v[best[k]].root : "", a->nroots > 1 ? ")" : "");
}

int cli_resolve_path(amx_db *db, const char *cmd, const char *typed, bool allow_dir,
                     cli_paths *out)
{
    *out = (cli_paths){ 0 };
    all_files a = { 0 };
    int rc = load(db, &a);
    if (rc != EXIT_OK) {
        files_free(&a);
        return rc;
    }
    /* What was typed, without "./" and trailing slashes (a trailing slash: a directory). */
    char norm[PATH_MAX];
    const char *t = typed;
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
    cand *c = calloc(2 * a.nroots + 1, sizeof *c);
    size_t nc = 0;
    if (!c) {
        files_free(&a);
        return EXIT_IO;
    }
    char abs[PATH_MAX * 2], cwd[PATH_MAX];
    if (typed[0] == '/')
        snprintf(abs, sizeof abs, "%s", typed);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(abs, sizeof abs, "%s/%s", cwd, norm);
    else
        abs[0] = '\0';
    char real_abs[PATH_MAX];
    for (int pass = 0; pass < 2 && abs[0]; pass++) {
        /* the path as written, then with symbolic links resolved */
        const char *p = abs;
        if (pass == 1) {
            if (!realpath(abs, real_abs))
                break;
            p = real_abs;
        } else {
            normalise(abs);
        }
        for (size_t r = 0; r < a.nroots; r++) {
            size_t rl = strlen(a.roots[r]);
            if (strcmp(p, a.roots[r]) == 0)
                c[nc++] = (cand){ a.roots[r], "", 0 };
            else if (strncmp(p, a.roots[r], rl) == 0 && p[rl] == '/')
                snprintf(c[nc].rel, sizeof c[nc].rel, "%s", p + rl + 1), c[nc++].root = a.roots[r];
            if (nc == 2 * a.nroots)
                break;
        }
        if (nc)
            break;
    }
    if (typed[0] != '/')
        for (size_t r = 0; r < a.nroots && nc < 2 * a.nroots; r++) {
            snprintf(c[nc].rel, sizeof c[nc].rel, "%s", norm);
            c[nc].group = 1;
            c[nc++].root = a.roots[r];
        }

    /* From the working directory first, then from each root; exact matches first, then, for
     * the case-blind engines, without regard to case; then the end of a path. The first step
     * that matches decides. */
    bool oom = false;
    for (int step = 0; step < 6 && out->n == 0 && !oom; step++) {
        bool fold = step % 2 == 1;
        int group = step / 2;
        if (step < 4) {
            for (size_t k = 0; k < nc && !oom; k++) {
                if (c[k].group != group)
                    continue;
                if (allow_dir && c[k].rel[0] == '\0') {
                    oom = add_match(out, c[k].root, "", true) != 0;
                    continue;
                }
                for (size_t i = 0; i < a.n && !oom; i++) {
                    const indexed *f = &a.v[i];
                    if (strcmp(f->root, c[k].root) != 0 || (fold && !case_blind(f->format)))
                        continue;
                    if (!want_dir && path_eq(f->path, c[k].rel, fold))
                        oom = add_match(out, f->root, f->path, false) != 0;
                    else if (allow_dir && under_dir(f->path, c[k].rel, fold) && !f->member_at) {
                        /* the directory as indexed (its case may differ from what was typed) */
                        char dir[PATH_MAX];
                        snprintf(dir, sizeof dir, "%.*s", (int)strlen(c[k].rel), f->path);
                        oom = add_match(out, f->root, dir, true) != 0;
                    }
                }
            }
        } else if (!want_dir && norm[0] && typed[0] != '/') {
            for (size_t i = 0; i < a.n && !oom; i++)
                if ((!fold || case_blind(a.v[i].format)) && ends_with(&a.v[i], norm, fold))
                    oom = add_match(out, a.v[i].root, a.v[i].path, false) != 0;
        }
    }
    rc = EXIT_OK;
    if (oom) {
        cli_error("out of memory");
        rc = EXIT_IO;
    } else if (out->n == 0) {
        suggest(&a, cmd, typed, norm);
        rc = EXIT_FINDINGS;
    } else if (out->n > 1) {
        cli_error("%s: '%s' matches %zu indexed %s; give more of the path:", cmd, typed, out->n,
                  out->v[0].dir ? "directories or files" : "files");
        for (size_t i = 0; i < out->n; i++)
            fprintf(stderr, "  %s%s%s%s%s\n", out->v[i].path[0] ? out->v[i].path : ".",
                    out->v[i].dir ? "/" : "", a.nroots > 1 ? "  (root " : "",
                    a.nroots > 1 ? out->v[i].root : "", a.nroots > 1 ? ")" : "");
        rc = EXIT_FINDINGS;
    }
    if (rc != EXIT_OK && rc != EXIT_FINDINGS)
        cli_paths_free(out);
    free(c);
    files_free(&a);
    return rc;
}
