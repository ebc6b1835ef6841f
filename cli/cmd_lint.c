/* animidx lint: scan (incrementally) and report findings for CI, with a severity gate, a
 * baseline, suppressions and four output formats (text, json, sarif, junit). docs/lint.md. */
#include "lint.h"

#include "animidx/json.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Findings of one code shown per file before the rest are collapsed into "... and N more". */
enum { SHOWN_PER_CODE = 3 };

bool lint_counts(const cli_finding *f)
{
    return !f->suppressed && !f->baselined;
}

size_t lint_root_of(const lint_run *r, const cli_finding *f)
{
    for (size_t i = 0; i < r->nroots; i++)
        if (strcmp(r->roots[i], f->root) == 0)
            return i;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct unlayered {
    char **roots;             /* the roots that declare no base layer */
    size_t n;
    bool oom;
} unlayered;

static void unlayered_row(const amx_root_row *r, void *user)
{
    unlayered *u = user;
    if (r->base_count || u->oom)
        return;
    char **g = realloc(u->roots, (u->n + 1) * sizeof *g);
    if (!g || !(g[u->n] = strdup(r->path))) {
        if (g)
            u->roots = g;
        u->oom = true;
        return;
    }
    u->roots = g;
    u->n++;
}

/* The findings that say a file was not found in a tree that declares no base layer: what
 * lint's closing lines say once how to declare them for (the messages do not). */
static size_t not_found_without_bases(const lint_run *r)
{
    unlayered u = { 0 };
    char err[512];
    size_t n = 0;
    if (amx_query_roots(r->db, unlayered_row, &u, err, sizeof err) == AMX_OK && !u.oom)
        for (size_t i = 0; i < r->findings.n; i++) {
            const cli_finding *f = &r->findings.v[i];
            if (!lint_counts(f) || (strcmp(f->code, "REFERENCE_NOT_FOUND") != 0 &&
                                    strcmp(f->code, "SKELETON_NOT_FOUND") != 0))
                continue;
            for (size_t k = 0; k < u.n; k++)
                if (strcmp(u.roots[k], f->root) == 0) {
                    n++;
                    break;
                }
        }
    for (size_t k = 0; k < u.n; k++)
        free(u.roots[k]);
    free(u.roots);
    return n;
}

/* lint keeps its own index per set of roots (unless --db is given), so linting one tree never
 * binds its clips to another tree's models: CACHE/animidx/lint-HASH.db (amx_os_cache_dir; the
 * temporary directory when there is none). */
static char *own_db_path(char **roots, size_t n)
{
    char **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return NULL;
    memcpy(sorted, roots, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_str);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        for (const unsigned char *p = (const unsigned char *)sorted[i];; p++) {
            h = (h ^ *p) * 0x100000001b3ull;
            if (!*p)
                break;
        }
    free(sorted);
    char cache[AMX_PATH_MAX], dir[AMX_PATH_MAX + 16];
    if (amx_os_cache_dir(cache, sizeof cache) != 0 && amx_os_temp_dir(cache, sizeof cache) != 0)
        snprintf(cache, sizeof cache, "%s", ".");
    snprintf(dir, sizeof dir, "%s/animidx", cache);
    size_t len = strlen(dir) + 32;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s/lint-%016llx.db", dir, (unsigned long long)h);
    return path;
}

char *lint_uri_prefix(const char *root)
{
    char cwd[AMX_PATH_MAX];
    if (amx_os_canonical(".", cwd, sizeof cwd) != 0)
        return NULL;
    size_t n = strlen(cwd);
    if (strcmp(root, cwd) == 0)
        return strdup("");
    if (n && cwd[n - 1] == '/') /* a file system's root: "/", "C:/" */
        n--;
    if (strncmp(root, cwd, n) != 0 || root[n] != '/')
        return NULL;
    size_t len = strlen(root + n + 1) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s/", root + n + 1);
    return p;
}

static void free_names(char **names)
{
    for (size_t k = 0; names && names[k]; k++)
        free(names[k]);
    free(names);
}

static void lint_free(lint_run *r)
{
    for (size_t i = 0; i < r->nroots; i++) {
        free(r->roots[i]);
        free(r->uri_prefix[i]);
        if (r->files)
            free_names(r->files[i]);
    }
    free(r->roots);
    free(r->uri_prefix);
    free(r->files);
    cli_findings_free(&r->findings);
    cli_suppressions_free(&r->supp);
    amx_db_close(r->db);
}

/* ---- text ---- */

static void text_finding(const cli_finding *f)
{
    cli_printf("  %s%-7s%s %s", cli_sev_on(f->severity), amx_severity_name(f->severity),
               cli_color_off(), f->code);
    if (f->offset >= 0 && f->context[0])
        cli_printf(" (offset %lld, %s)", (long long)f->offset, f->context);
    else if (f->offset >= 0)
        cli_printf(" (offset %lld)", (long long)f->offset);
    else if (f->context[0])
        cli_printf(" (%s)", f->context);
    cli_printf(": %s\n", f->message);
}

/* Prints the findings of the file that starts at index `first`; returns the index after it. */
static size_t text_file(const cli_findings *l, size_t first)
{
    const cli_finding *head = &l->v[first];
    size_t end = first;
    while (end < l->n && strcmp(l->v[end].path, head->path) == 0 &&
           strcmp(l->v[end].root, head->root) == 0)
        end++;
    size_t seen[AMX_CODE_COUNT + 1][3] = { { 0 } }; /* by code and severity */
    bool printed = false;
    for (size_t i = first; i < end; i++) {
        const cli_finding *f = &l->v[i];
        if (!lint_counts(f))
            continue;
        amx_code c;
        size_t slot = amx_code_parse(f->code, &c) ? (size_t)c : AMX_CODE_COUNT;
        if (!printed)
            cli_printf("%s\n", head->path);
        printed = true;
        if (++seen[slot][cli_sev_slot(f->severity)] <= SHOWN_PER_CODE)
            text_finding(f); /* an error is never collapsed behind infos of its code */
    }
    for (size_t s = 0; s <= AMX_CODE_COUNT; s++)
        cli_collapsed(seen[s], SHOWN_PER_CODE,
                      s < AMX_CODE_COUNT ? amx_code_get((amx_code)s)->name : "findings");
    return end;
}

static void write_text(const lint_run *r)
{
    for (size_t i = 0; i < r->findings.n;)
        i = text_file(&r->findings, i);
    for (size_t k = 0; k < r->supp.n; k++)
        if (!r->supp.v[k].used)
            cli_printf("unused suppression: %s %s (%s); remove it\n", r->supp.v[k].code,
                       r->supp.v[k].path, r->supp.v[k].reason);
}

/* One line per code and severity that count, the most severe first: how many findings in how
 * many files, and whether they fail the gate (a code whose findings have two severities, such
 * as REFERENCE_NOT_FOUND in and out of a base layer, has a line for each). */
typedef struct code_count {
    const char *code;
    amx_severity sev;
    size_t findings, files;
    size_t last_file; /* 1 + the number of the file its last finding was in */
} code_count;

static int cmp_count(const void *a, const void *b)
{
    const code_count *x = a, *y = b;
    if (x->sev != y->sev)
        return x->sev > y->sev ? -1 : 1;
    if (x->findings != y->findings)
        return x->findings > y->findings ? -1 : 1;
    return strcmp(x->code, y->code);
}

/* Counts the findings that count per code and severity (at most `max` lines); returns how
 * many lines. */
static size_t count_codes(const lint_run *r, code_count *out, size_t max)
{
    size_t n = 0, file = 0;
    for (size_t i = 0; i < r->findings.n; i++) {
        const cli_finding *f = &r->findings.v[i];
        /* findings come grouped by file: a new file when the previous finding was elsewhere */
        const cli_finding *prev = i ? &r->findings.v[i - 1] : NULL;
        if (!prev || strcmp(prev->path, f->path) || strcmp(prev->root, f->root))
            file++;
        if (!lint_counts(f) || f->severity > AMX_SEV_ERROR)
            continue;
        size_t k = 0;
        while (k < n && (out[k].sev != f->severity || strcmp(out[k].code, f->code) != 0))
            k++;
        if (k == n) {
            if (n == max)
                continue;
            out[n++] = (code_count){ f->code, f->severity, 0, 0, 0 };
        }
        out[k].findings++;
        out[k].files += out[k].last_file != file;
        out[k].last_file = file;
    }
    qsort(out, n, sizeof *out, cmp_count);
    return n;
}

static void write_code_summary(FILE *say, const lint_run *r)
{
    code_count counts[3 * AMX_CODE_COUNT + 8];
    size_t n = count_codes(r, counts, sizeof counts / sizeof counts[0]);
    for (size_t k = 0; k < n; k++)
        cli_fprintf(say, "%s%-24s %-7s%s %6zu finding%s in %zu file%s%s\n",
                    cli_sev_on(counts[k].sev), counts[k].code, amx_severity_name(counts[k].sev),
                    cli_color_off(), counts[k].findings, counts[k].findings == 1 ? " " : "s",
                    counts[k].files, counts[k].files == 1 ? "" : "s",
                    counts[k].sev >= r->gate ? "  (fails --fail-on)" : "");
}

/* "5 findings at or above error: 3 BONE_NOT_IN_SKELETON, 2 TRUNCATED" */
static void write_fail_reason(FILE *say, const lint_run *r)
{
    code_count counts[3 * AMX_CODE_COUNT + 8];
    size_t n = count_codes(r, counts, sizeof counts / sizeof counts[0]), total = 0;
    for (size_t k = 0; k < n; k++)
        total += counts[k].sev >= r->gate ? counts[k].findings : 0;
    cli_fprintf(say, ": %zu finding%s at or above %s (", total, total == 1 ? "" : "s",
                amx_severity_name(r->gate));
    const char *sep = "";
    for (size_t k = 0, shown = 0; k < n; k++) {
        if (counts[k].sev < r->gate)
            continue;
        size_t of_code = 0; /* a code at two severities over the gate is said once */
        bool said = false;
        for (size_t m = 0; m < n; m++)
            if (counts[m].sev >= r->gate && strcmp(counts[m].code, counts[k].code) == 0) {
                said |= m < k;
                of_code += counts[m].findings;
            }
        if (said)
            continue;
        if (shown++ == 4) {
            cli_fprintf(say, ", ...");
            break;
        }
        cli_fprintf(say, "%s%zu %s", sep, of_code, counts[k].code);
        sep = ", ";
    }
    fputc(')', say);
}

/* ---- json ---- */

static void write_json(const lint_run *r, const amx_config *cfg, bool passed,
                       const uint64_t totals[3], size_t baselined, size_t suppressed)
{
    amx_json j;
    amx_json_init(&j, stdout, true);
    amx_json_begin_object(&j);
    amx_json_kint(&j, "schema", AMX_JSON_SCHEMA);
    amx_json_kstring(&j, "tool_version", AMX_VERSION_STRING);
    amx_json_kstring(&j, "config", cfg->source); /* null: the built-in defaults */
    amx_json_kstring(&j, "gate", amx_severity_name(r->gate));
    amx_json_kbool(&j, "passed", passed);
    amx_json_key(&j, "roots");
    amx_json_begin_array(&j);
    for (size_t i = 0; i < r->nroots; i++)
        amx_json_string(&j, r->roots[i]);
    amx_json_end_array(&j);
    amx_json_key(&j, "totals");
    amx_json_begin_object(&j);
    amx_json_kint(&j, "error", (int64_t)totals[AMX_SEV_ERROR]);
    amx_json_kint(&j, "warning", (int64_t)totals[AMX_SEV_WARNING]);
    amx_json_kint(&j, "info", (int64_t)totals[AMX_SEV_INFO]);
    amx_json_end_object(&j);
    amx_json_kint(&j, "baselined", (int64_t)baselined);
    amx_json_kint(&j, "suppressed", (int64_t)suppressed);
    cli_scan_stats_json(&j, &r->scanned); /* a restored index in CI: files_decoded 0 */
    amx_json_key(&j, "findings");
    amx_json_begin_array(&j);
    for (size_t i = 0; i < r->findings.n; i++)
        if (lint_counts(&r->findings.v[i]))
            cli_finding_json(&j, &r->findings.v[i], NULL);
    amx_json_end_array(&j);
    amx_json_key(&j, "unused_suppressions");
    amx_json_begin_array(&j);
    for (size_t k = 0; k < r->supp.n; k++) {
        if (r->supp.v[k].used)
            continue;
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "code", r->supp.v[k].code);
        amx_json_kstring(&j, "path", r->supp.v[k].path);
        amx_json_kstring(&j, "reason", r->supp.v[k].reason);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    fputc('\n', stdout);
}

/* ---- the command ---- */

typedef enum { FMT_TEXT, FMT_JSON, FMT_SARIF, FMT_JUNIT } out_format;

static int parse_options(const cli_opts *o, amx_severity *gate, out_format *fmt)
{
    *gate = AMX_SEV_ERROR;
    if (o->fail_on && (!amx_severity_parse(o->fail_on, gate) || *gate == AMX_SEV_OFF)) {
        cli_error("--fail-on: expected error, warning or info, got '%s'", o->fail_on);
        return EXIT_USAGE;
    }
    static const char *const names[] = { "text", "json", "sarif", "junit" };
    *fmt = o->json ? FMT_JSON : FMT_TEXT;
    if (o->format) {
        size_t k = 0;
        while (k < 4 && strcmp(o->format, names[k]) != 0)
            k++;
        if (k == 4) {
            cli_error("--format: expected text, json, sarif or junit, got '%s'", o->format);
            return EXIT_USAGE;
        }
        *fmt = (out_format)k;
        if (o->json && *fmt != FMT_JSON) {
            cli_error("lint: --json is --format json; it does not go with --format %s (give one "
                      "of them)", o->format);
            return EXIT_USAGE;
        }
    }
    if ((o->max_results >= 0 || o->group_by) && *fmt != FMT_SARIF) {
        cli_error("lint: --%s shapes the SARIF output; use it with --format sarif",
                  o->group_by ? "group-by" : "max-results");
        return EXIT_USAGE;
    }
    if (o->group_by && strcmp(o->group_by, "file") != 0 && strcmp(o->group_by, "code") != 0) {
        cli_error("--group-by: expected file or code, got '%s'", o->group_by);
        return EXIT_USAGE;
    }
    if (o->baseline && o->write_baseline) {
        cli_error("lint: --baseline and --write-baseline do not go together; write the baseline "
                  "first, then lint with it");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

bool lint_path_given(const lint_run *r, size_t root, const char *path)
{
    if (!r->files[root])
        return true;
    for (char **f = r->files[root]; *f; f++) {
        size_t n = strlen(*f);
        /* "NAME#" (an archive given) matches its members "NAME#DATA/ART/...", "DIR/" (a
         * directory given) everything below it */
        char last = n ? (*f)[n - 1] : 0;
        if (last == '#' || last == '/' ? strncmp(path, *f, n) == 0 : strcmp(path, *f) == 0)
            return true;
    }
    return false;
}

/* The findings lint reports: those under a directory given, and those of a file given. */
static bool wanted_finding(const char *root, const char *path, void *user)
{
    const lint_run *r = user;
    for (size_t i = 0; i < r->nroots; i++)
        if (strcmp(root, r->roots[i]) == 0)
            return lint_path_given(r, i, path);
    return false;
}

/* Adds a root (an absolute directory), or, with `file`, what to report in it: a file, an
 * archive's members ("NAME#") or a directory below it ("DIR/"). */
static int add_root(lint_run *r, size_t cap, const char *dir, const char *file)
{
    size_t i = 0;
    while (i < r->nroots && strcmp(r->roots[i], dir) != 0)
        i++;
    if (i == r->nroots) {
        if (i == cap)
            return EXIT_IO;
        r->roots[i] = strdup(dir);
        r->uri_prefix[i] = lint_uri_prefix(dir);
        r->nroots++;
        if (!r->roots[i])
            return EXIT_IO;
        if (!file)
            return EXIT_OK;
        r->files[i] = calloc(1, sizeof *r->files[i]);
        if (!r->files[i])
            return EXIT_IO;
    }
    if (!file) {
        free_names(r->files[i]);
        r->files[i] = NULL;
        return EXIT_OK;
    }
    if (!r->files[i])
        return EXIT_OK; /* the whole directory is linted already */
    size_t n = 0;
    while (r->files[i][n] && strcmp(r->files[i][n], file) != 0)
        n++;
    if (r->files[i][n])
        return EXIT_OK; /* given twice */
    char **grown = realloc(r->files[i], (n + 2) * sizeof *grown);
    if (!grown)
        return EXIT_IO;
    r->files[i] = grown;
    grown[n] = strdup(file);
    grown[n + 1] = NULL;
    return grown[n] ? EXIT_OK : EXIT_IO;
}

/* The root a PATH given to lint is scanned in, so that its clips bind to the models and its
 * references resolve through the whole tree the game looks them up in: a SAGE game's or mod's
 * directory (Data/INI and Art/ side by side) the PATH is in or is; else the game's or mod's Data
 * directory the PATH is in (or is); else the PATH itself (a directory) or its directory (a
 * file). Cuts `real` to the root and returns what to report in it: NULL for all of it,
 * "sub/dir/" for a directory below it, "sub/file" for a file. */
static const char *lint_root(char *real, bool is_dir)
{
    size_t n = strlen(real);
    size_t sage = cli_sage_game_root(real, is_dir);
    if (sage == n)
        return NULL;
    if (sage) {
        real[sage] = '\0';
        char *rel = real + sage + 1;
        if (is_dir) { /* the buffer has room: AMX_PATH_MAX */
            size_t k = strlen(rel);
            rel[k] = '/';
            rel[k + 1] = '\0';
        }
        return rel;
    }
    char *data = NULL;
    for (char *p = real + n; p > real; p--)
        if (p[-1] == '/' && strncasecmp(p, "Data", 4) == 0 && (p[4] == '/' || p[4] == '\0')) {
            data = p + 4; /* the end of the nearest Data component */
            break;
        }
    if (data) {
        if (*data == '\0')
            return NULL; /* the Data directory itself */
        *data = '\0';
        char *rel = data + 1;
        if (is_dir) { /* "Art/Models" -> "Art/Models/" (the buffer has room: AMX_PATH_MAX) */
            size_t k = strlen(rel);
            rel[k] = '/';
            rel[k + 1] = '\0';
        }
        return rel;
    }
    if (is_dir)
        return NULL;
    char *slash = strrchr(real, '/');
    *slash = '\0';
    return slash + 1;
}

/* Each PATH is scanned in its root (lint_root) and only what is under it is reported: every
 * finding under a directory given, those of a file given. A directory given as well as a
 * file in it wins. */
static int resolve_paths(lint_run *r, const char *const *given, size_t n)
{
    r->roots = calloc(n, sizeof *r->roots);
    r->uri_prefix = calloc(n, sizeof *r->uri_prefix);
    r->files = calloc(n, sizeof *r->files);
    if (!r->roots || !r->uri_prefix || !r->files)
        return EXIT_IO;
    for (size_t i = 0; i < n; i++) {
        char real[AMX_PATH_MAX];
        amx_os_stat st;
        int orc = amx_os_canonical(given[i], real, sizeof real);
        if (orc == 0)
            orc = amx_os_path_stat(real, &st);
        if (orc != 0) {
            cli_error("lint: %s: %s", given[i], strerror(-orc));
            return EXIT_IO;
        }
        int rc;
        char drive_root[8];
        if (st.kind == AMX_OS_DIR || st.kind == AMX_OS_FILE) {
            if (strlen(real) + 2 >= sizeof real) {
                cli_error("lint: %s: the path is too long", given[i]);
                return EXIT_USAGE;
            }
            const char *rel = lint_root(real, st.kind == AMX_OS_DIR);
            char *stored = rel ? amx_path_encode(rel) : NULL; /* as the index spells it */
            /* a file at the top of a file system: its root is "/" or the drive's "C:/" */
            snprintf(drive_root, sizeof drive_root, "%.2s/", real);
            rc = rel && !stored ? EXIT_IO
                 : add_root(r, n, !real[0] ? "/" : !amx_os_path_root_len(real) ? drive_root
                                                                               : real, stored);
            free(stored);
        } else {
            cli_error("lint: %s: not a file or directory", given[i]);
            return EXIT_USAGE;
        }
        if (rc != EXIT_OK) {
            cli_error("out of memory");
            return rc;
        }
    }
    return EXIT_OK;
}

typedef struct count_arg { const char *prefix; uint64_t n; } count_arg;

static void count_under(const char *path, const char *format, void *user)
{
    count_arg *a = user;
    (void)format;
    if (strncmp(path, a->prefix, strlen(a->prefix)) == 0)
        a->n++;
}

static void count_dependent(const char *root, const char *path, void *user)
{
    (void)root;
    (void)path;
    ++*(uint64_t *)user;
}

/* What lint says of a file given that it does not decode: nothing to check, or the files that
 * name it (checked with --dependents). */
static void say_not_decoded(const char *root, const char *name, uint64_t named_by, bool dependents)
{
    unsigned long long n = named_by;
    bool one = n == 1;
    if (!n)
        cli_fprintf(stderr, "animidx: lint: %s/%s is not a file animidx reads (or the config "
                            "ignores it); nothing to check\n", root, name);
    else if (!dependents)
        cli_fprintf(stderr, "animidx: lint: %s/%s is not decoded on its own; nothing to check "
                            "(%llu file%s name%s it: --dependents checks %s)\n", root, name, n,
                    one ? "" : "s", one ? "s" : "", one ? "it" : "them");
    else
        cli_fprintf(stderr, "animidx: lint: %s/%s is not decoded on its own; the %llu file%s "
                            "that name%s it %s checked (--dependents)\n", root, name, n,
                    one ? "" : "s", one ? "s" : "", one ? "is" : "are");
}

/* Resolves the paths and opens the index; scans every root. `checked` counts the files
 * linted: every file seen under a directory given, plus each file given. */
static int scan_roots(lint_run *r, const char *const *given, size_t n, const cli_opts *o,
                      amx_config *cfg, uint64_t *checked)
{
    int rc = resolve_paths(r, given, n);
    if (rc == EXIT_OK)
        rc = cli_check_bases((const char *const *)r->roots, r->nroots, o, cfg);
    if (rc != EXIT_OK)
        return rc;
    char *own = o->db ? NULL : own_db_path(r->roots, r->nroots);
    if (!o->db && !own)
        return EXIT_IO;
    char err[1024];
    amx_status st = amx_db_open(own ? own : cfg->db_path, 0, &r->db, err, sizeof err);
    free(own);
    if (st != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    bool tty = !o->quiet && amx_os_console_colour(stderr); /* progress: "\r\033[K" */
    for (size_t i = 0; i < r->nroots; i++) {
        amx_scan_opts so = { .root = r->roots[i], .jobs = cfg->jobs, .config = cfg,
                             .follow_links = cfg->follow_links,
                             .progress = tty ? cli_scan_progress : NULL,
                             .bases = o->bases, .base_count = (size_t)o->nbases,
                             .set_bases = o->set_bases };
        amx_scan_stats stats;
        st = amx_scan(r->db, &so, &stats, err, sizeof err);
        if (tty)
            fputs("\r\033[K", stderr);
        if (st != AMX_OK) {
            cli_error("%s", err);
            return st == AMX_E_INVALID_ARG ? EXIT_USAGE : EXIT_IO;
        }
        amx_scan_stats_add(&r->scanned, &stats);
        if (!r->files[i]) {
            *checked += stats.files_seen;
            continue;
        }
        size_t nfiles = 0;
        while (r->files[i][nfiles])
            nfiles++;
        for (size_t k = 0; k < nfiles; k++) { /* the list grows by the archives' "NAME#" */
            const char *name = r->files[i][k];
            size_t nlen = strlen(name);
            if (nlen && name[nlen - 1] == '/') { /* a directory: the files below it */
                count_arg ca = { .prefix = name, .n = 0 };
                if (amx_query_files(r->db, r->roots[i], count_under, &ca, err, sizeof err) != AMX_OK) {
                    cli_error("%s", err);
                    return EXIT_IO;
                }
                *checked += ca.n;
                continue;
            }
            amx_file_summary sum;
            bool found = false;
            amx_format fmt;
            if (amx_query_file_summary(r->db, cfg, r->roots[i], name, &sum, &found, err,
                                       sizeof err) != AMX_OK) {
                cli_error("%s", err);
                return EXIT_IO;
            }
            if (!found || strcmp(sum.format, "unknown") == 0 || strcmp(sum.status, "ignored") == 0) {
                /* a BFME #include fragment, a texture: not decoded, but what names it is */
                uint64_t named_by = 0;
                if (found && amx_query_dependents(r->db, r->roots[i], name, count_dependent,
                                                  &named_by, err, sizeof err) != AMX_OK) {
                    cli_error("%s", err);
                    return EXIT_IO;
                }
                if (!o->quiet)
                    say_not_decoded(r->roots[i], name, named_by, o->dependents);
                continue;
            }
            ++*checked;
            if (amx_format_parse(sum.format, &fmt) && amx_format_is_archive(fmt)) {
                char members[AMX_PATH_MAX];
                snprintf(members, sizeof members, "%s#", name);
                if (add_root(r, n, r->roots[i], members) != EXIT_OK) {
                    cli_error("out of memory");
                    return EXIT_IO;
                }
            }
        }
    }
    return EXIT_OK;
}

/* Marks the findings the baseline (read before the scan) holds. */
typedef struct dependents_arg {
    lint_run *r;
    size_t cap;                   /* the size of r->roots */
    uint64_t added;
    int rc;
} dependents_arg;

static void add_dependent(const char *root, const char *path, void *user)
{
    dependents_arg *a = user;
    size_t i = 0;
    while (i < a->r->nroots && strcmp(a->r->roots[i], root) != 0)
        i++;
    if (i == a->r->nroots || !a->r->files[i] || lint_path_given(a->r, i, path))
        return; /* in a tree lint was not asked about, or reported already */
    if (add_root(a->r, a->cap, root, path) != EXIT_OK)
        a->rc = EXIT_IO;
    else
        a->added++;
}

/* --dependents: the files given gain the files whose findings depend on them (the clips that
 * play on a model given, the files with a reference to one), so that a pre-commit hook given
 * a re-rigged model reports the clips it broke. */
static int add_dependents(lint_run *r, size_t cap, uint64_t *checked)
{
    char err[1024];
    dependents_arg a = { .r = r, .cap = cap, .rc = EXIT_OK };
    for (size_t i = 0; i < r->nroots; i++) {
        size_t given = 0;
        while (r->files[i] && r->files[i][given])
            given++;
        for (size_t k = 0; k < given; k++) { /* the list grows by the dependents */
            const char *name = r->files[i][k];
            char last = name[0] ? name[strlen(name) - 1] : '/';
            if (last == '/' || last == '#')
                continue; /* a directory's files are all reported; an archive is given too */
            if (amx_query_dependents(r->db, r->roots[i], name, add_dependent, &a, err,
                                     sizeof err) != AMX_OK) {
                cli_error("%s", err);
                return EXIT_IO;
            }
            if (a.rc != EXIT_OK) {
                cli_error("out of memory");
                return a.rc;
            }
        }
    }
    *checked += a.added;
    return EXIT_OK;
}

static int apply_baseline(lint_run *r, const cli_findings *base)
{
    if (cli_findings_mark_baselined(&r->findings, base) != 0)
        return EXIT_IO;
    r->have_baseline = true;
    return EXIT_OK;
}

int cmd_lint(cli_opts *o, amx_config *cfg)
{
    amx_severity gate;
    out_format fmt;
    int rc = parse_options(o, &gate, &fmt);
    if (rc != EXIT_OK)
        return rc;
    const char *const *given = o->args;
    size_t ngiven = (size_t)o->nargs;
    if (ngiven == 0) {
        given = (const char *const *)cfg->roots;
        ngiven = cfg->root_count;
    }
    if (ngiven == 0) {
        cli_error("lint: give the directory to check (e.g. 'animidx lint %s') or set "
                  "[scan] roots in the config", amx_os_pick("./Data", ".\\Data"));
        return EXIT_USAGE;
    }
    lint_run r = { .gate = gate };
    char err[1024];
    /* the side files first: a wrong one fails before the scan */
    if (o->suppressions &&
        (rc = cli_suppressions_load(o->suppressions, &r.supp, err, sizeof err)) != EXIT_OK) {
        cli_error("--suppressions: %s", err);
        lint_free(&r);
        return rc;
    }
    cli_findings base = { 0 };
    if (o->baseline && (rc = cli_findings_load(o->baseline, &base, err, sizeof err)) != EXIT_OK) {
        cli_error("--baseline: %s", err);
        cli_findings_free(&base);
        lint_free(&r);
        return rc;
    }
    uint64_t files_seen = 0;
    rc = scan_roots(&r, given, ngiven, o, cfg, &files_seen);
    if (rc == EXIT_OK && o->dependents)
        rc = add_dependents(&r, ngiven, &files_seen);
    if (rc == EXIT_OK)
        rc = cli_findings_from_index(r.db, cfg, o->include_base, wanted_finding, &r, &r.findings);
    if (rc == EXIT_OK)
        cli_suppressions_apply(&r.supp, &r.findings);
    if (rc == EXIT_OK && o->baseline)
        rc = apply_baseline(&r, &base);
    cli_findings_free(&base);
    if (rc != EXIT_OK) {
        lint_free(&r);
        return rc;
    }

    size_t baselined = 0, suppressed = 0;
    for (size_t i = 0; i < r.findings.n; i++) {
        suppressed += r.findings.v[i].suppressed;
        baselined += !r.findings.v[i].suppressed && r.findings.v[i].baselined;
    }
    if (o->write_baseline) {
        rc = cli_baseline_write(o->write_baseline, &r.findings, err, sizeof err);
        if (rc != EXIT_OK)
            cli_error("--write-baseline: %s", err);
        else if (!o->quiet)
            cli_fprintf(stderr, "animidx: wrote %zu finding%s to the baseline %s\n",
                        r.findings.n - suppressed, cli_s(r.findings.n - suppressed),
                        o->write_baseline);
        lint_free(&r);
        return rc;
    }

    uint64_t totals[3];
    cli_findings_totals(&r.findings, totals);
    bool passed = true;
    for (int s = gate; s <= AMX_SEV_ERROR; s++)
        if (totals[s])
            passed = false;
    sarif_opts so = { .max_results = o->max_results > 0 ? o->max_results : SARIF_DEFAULT_MAX,
                      .group = !o->group_by                       ? SARIF_EACH
                               : strcmp(o->group_by, "file") == 0 ? SARIF_BY_FILE
                                                                  : SARIF_BY_CODE };
    switch (fmt) {
    case FMT_TEXT: write_text(&r); break;
    case FMT_JSON: write_json(&r, cfg, passed, totals, baselined, suppressed); break;
    case FMT_SARIF: lint_write_sarif(stdout, &r, cfg, &so); break;
    case FMT_JUNIT: rc = lint_write_junit(stdout, &r); break;
    }
    /* The verdict: on stdout with text, on stderr with the machine formats (stdout is theirs). */
    FILE *say = fmt == FMT_TEXT ? stdout : stderr;
    if (fmt != FMT_TEXT)
        for (size_t k = 0; k < r.supp.n; k++)
            if (!r.supp.v[k].used)
                cli_fprintf(stderr, "animidx: unused suppression: %s %s (%s)\n", r.supp.v[k].code,
                            r.supp.v[k].path, r.supp.v[k].reason);
    if (fmt == FMT_SARIF && so.written < so.results)
        cli_fprintf(stderr,
                    "animidx: SARIF: %zu of %zu results written (--max-results %d, the most "
                    "severe first); left out: %zu error%s, %zu warning%s, %zu note%s; "
                    "--group-by file|code aggregates them\n",
                    so.written, so.results, so.max_results, so.left[AMX_SEV_ERROR],
                    cli_s(so.left[AMX_SEV_ERROR]), so.left[AMX_SEV_WARNING],
                    cli_s(so.left[AMX_SEV_WARNING]), so.left[AMX_SEV_INFO],
                    cli_s(so.left[AMX_SEV_INFO]));
    if (fmt == FMT_TEXT || !o->quiet) {
        /* which rules were in force: a config can change severities and ignore files */
        cli_fprintf(say, "lint: configuration: %s\n",
                    cfg->source ? cfg->source : "none (built-in defaults)");
        write_code_summary(say, &r);
        size_t unlayered_n = not_found_without_bases(&r);
        if (unlayered_n)
            cli_fprintf(say, "lint: note: %zu finding%s a file was not found, and %s\n",
                        unlayered_n, unlayered_n == 1 ? " says" : "s say", AMX_BASE_LAYER_HINT);
        cli_fprintf(say, "lint: %llu file%s, %llu error%s, %llu warning%s, %llu info",
                    (unsigned long long)files_seen, cli_s(files_seen),
                    (unsigned long long)totals[AMX_SEV_ERROR], cli_s(totals[AMX_SEV_ERROR]),
                    (unsigned long long)totals[AMX_SEV_WARNING], cli_s(totals[AMX_SEV_WARNING]),
                    (unsigned long long)totals[AMX_SEV_INFO]);
        if (r.have_baseline)
            cli_fprintf(say, " (new since the baseline; %zu in it)", baselined);
        if (suppressed)
            cli_fprintf(say, ", %zu suppressed", suppressed);
        cli_fprintf(say, "; --fail-on %s: %s", amx_severity_name(gate),
                    passed ? "passed" : "FAILED");
        if (!passed)
            write_fail_reason(say, &r);
        fputc('\n', say);
    }
    fflush(stdout);
    lint_free(&r);
    if (rc != EXIT_OK)
        return rc;
    return passed ? EXIT_OK : EXIT_FINDINGS;
}
