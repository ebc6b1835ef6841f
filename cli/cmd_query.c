/* Queries on the index: clips, skeletons, issues, show; and the rule catalogue. */
#include "cli.h"

#include "animidx/json.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct out_ctx {
    amx_json j;
    bool json;
    int count;
    char last_path[4096];
} out_ctx;

static void json_offset(amx_json *j, int64_t off)
{
    amx_json_key(j, "offset");
    if (off >= 0)
        amx_json_int(j, off);
    else
        amx_json_null(j);
}

/* With --json, a command's output is one array, and a newline after it. */
static void json_list_begin(amx_json *j)
{
    amx_json_init(j, stdout, true);
    amx_json_begin_array(j);
}

static void json_list_end(amx_json *j)
{
    amx_json_end_array(j);
    fputc('\n', stdout);
}

/* Runs one list query: a JSON array with --json, else rows of text and a closing line
 * "<count> <noun>". `query` runs the query with the row callback and ctx. */
typedef amx_status (*list_query)(amx_db *db, out_ctx *ctx, const void *arg, char *err, size_t errlen);

static int run_list(cli_opts *o, const amx_config *cfg, list_query query, const void *arg,
                    const char *noun)
{
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    out_ctx ctx = { .json = o->json };
    if (o->json) {
        json_list_begin(&ctx.j);
    }
    char err[1024];
    amx_status st = query(db, &ctx, arg, err, sizeof err);
    if (o->json) {
        json_list_end(&ctx.j);
    } else if (!st) {
        cli_printf("%d %s\n", ctx.count, noun);
    }
    amx_db_close(db);
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* ---- clips ---- */

static void clip_json(amx_json *j, const amx_clip_row *r)
{
    amx_json_begin_object(j);
    amx_json_kstring(j, "path", r->path);
    amx_json_kstring(j, "clip", r->clip);
    amx_json_kstring(j, "skeleton", r->skeleton);
    amx_json_key(j, "frames");
    if (r->frames >= 0)
        amx_json_int(j, r->frames);
    else
        amx_json_null(j);
    amx_json_knumber(j, "fps", r->fps);
    amx_json_kstring(j, "format", r->format);
    amx_json_kint(j, "bones_missing", r->bones_missing);
    amx_json_kint(j, "tracks", r->tracks);
    amx_json_kbool(j, "bound", r->bound);
    amx_json_kstring(j, "root", r->root);
    /* why: the rule that bound it and the skeleton's file */
    amx_json_kstring(j, "bound_by", r->how);
    amx_json_kstring(j, "via", r->via);
    amx_json_kstring(j, "skeleton_root", r->skeleton_root);
    amx_json_kstring(j, "skeleton_path", r->skeleton_path);
    amx_json_end_object(j);
}

/* "by name (type IDLE)", "by xml-override (Data/XML/X.xml:12 ...)" */
static void print_how(const char *how, const char *via)
{
    if (!how)
        return;
    cli_printf("by %s", strcmp(how, "name") == 0 ? "the naming convention" : how);
    if (via && via[0])
        cli_printf(" (%s)", via);
}

typedef struct clips_ctx {
    out_ctx o;
    amx_db *db;
    const amx_config *cfg;
    const char *skeleton;        /* with --bone: only clips bound to it (NULL: any) */
    bool oom;
} clips_ctx;

static void clip_row(const amx_clip_row *r, void *user)
{
    clips_ctx *c = user;
    out_ctx *o = &c->o;
    if (c->skeleton && (!r->bound || !r->skeleton || strcasecmp(r->skeleton, c->skeleton) != 0))
        return;
    o->count++;
    if (o->json) {
        clip_json(&o->j, r);
        return;
    }
    cli_printf("  %-56s %-32s ", r->path, r->clip);
    if (r->frames >= 0)
        cli_printf("%5lld frames @ %g fps  ", (long long)r->frames, r->fps);
    cli_printf("%3lld tracks  ", (long long)r->tracks);
    /* the file's other errors (a truncated clip may still fit its skeleton) */
    amx_file_summary sum;
    bool found = false;
    char err[256];
    uint64_t errors = 0;
    if (amx_query_file_summary(c->db, c->cfg, r->root, r->path, &sum, &found, err, sizeof err) == AMX_OK && found)
        errors = sum.findings[AMX_SEV_ERROR];
    if (!r->bound) {
        cli_printf("%sskeleton not indexed%s", cli_sev_on(AMX_SEV_WARNING), cli_color_off());
    } else if (r->bones_missing) {
        cli_printf("%s%lld bones do not match%s", cli_sev_on(AMX_SEV_ERROR),
                   (long long)r->bones_missing, cli_color_off());
    } else if (errors) {
        /* a truncated clip may still name its skeleton's bones: not "all bones match" */
        cli_printf("%sbones match, but the file has %llu error finding%s%s",
                   cli_sev_on(AMX_SEV_ERROR), (unsigned long long)errors, errors == 1 ? "" : "s",
                   cli_color_off());
    } else {
        cli_printf("all bones match");
    }
    if (r->bound) {
        cli_printf("  [%s, ", r->skeleton_path ? r->skeleton_path : "?");
        print_how(r->how, r->via);
        cli_printf("]");
    }
    cli_printf("\n");
}

/* Skeleton names like the one asked for, for "no skeleton X; did you mean ...". */
typedef struct near_ctx {
    const char *want;
    char best[5][256];
    size_t dist[5], n;
    bool exact;
} near_ctx;

static void near_row(const amx_skeleton_row *r, void *user)
{
    near_ctx *c = user;
    if (strcasecmp(r->skeleton, c->want) == 0) {
        c->exact = true;
        return;
    }
    size_t d = cli_name_distance(r->skeleton, c->want);
    bool contains = amx_strcasestr(r->skeleton, c->want) || amx_strcasestr(c->want, r->skeleton);
    if (contains)
        d = d < 2 ? d : 2;
    if (d > strlen(c->want) / 3 + 2)
        return;
    for (size_t k = 0; k < c->n; k++)
        if (strcasecmp(c->best[k], r->skeleton) == 0)
            return;
    size_t k = c->n < 5 ? c->n++ : 5;
    if (k == 5) {
        if (d >= c->dist[4])
            return;
        k = 4;
    }
    while (k > 0 && c->dist[k - 1] > d) {
        memcpy(c->best[k], c->best[k - 1], sizeof c->best[k]);
        c->dist[k] = c->dist[k - 1];
        k--;
    }
    snprintf(c->best[k], sizeof c->best[k], "%s", r->skeleton);
    c->dist[k] = d;
}

/* clips --model NAME */
static int clips_of_model(cli_opts *o, amx_config *cfg)
{
    if (o->nargs || o->skeleton || o->bone) {
        cli_error("clips: --model takes no skeleton, bone or path, e.g. 'animidx clips --model "
                  "AVTank'");
        return EXIT_USAGE;
    }
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    char err[1024];
    clips_ctx c = { .db = db, .cfg = cfg, .o.json = o->json };
    if (o->json) {
        json_list_begin(&c.o.j);
    } else {
        cli_printf("clips played on model %s:\n", o->model);
    }
    amx_status st = amx_query_clips_for_model(db, o->model, clip_row, &c, err, sizeof err);
    /* a model's file typed for its name ('X.ALO', 'Art/W3D/x.w3d'): the name is its stem */
    size_t len = strlen(o->model);
    bool file_like = strpbrk(o->model, "/\\") ||
                     (len > 4 && (strcasecmp(o->model + len - 4, ".alo") == 0 ||
                                  strcasecmp(o->model + len - 4, ".w3d") == 0));
    if (!st && !c.o.count && file_like) {
        char stem[1024];
        amx_path_stem(o->model, stem, sizeof stem);
        if (stem[0])
            st = amx_query_clips_for_model(db, stem, clip_row, &c, err, sizeof err);
    }
    if (o->json) {
        json_list_end(&c.o.j);
    } else if (!st) {
        cli_printf("%d clips\n", c.o.count);
    }
    if (!st && !c.o.count)
        cli_error("clips: no animation plays on a model '%s' in the index (--model takes the "
                  "model's name: an Alamo model file's name without its directory and .ALO, a "
                  "W3D HLOD or mesh, a SAGE INI Model = NAME)", o->model);
    amx_db_close(db);
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    return EXIT_OK;
}

int cmd_clips(cli_opts *o, amx_config *cfg)
{
    if (o->model)
        return clips_of_model(o, cfg);
    if (o->nargs > 1 || (o->nargs && o->skeleton)) {
        cli_error("clips: give one skeleton, e.g. 'animidx clips --skeleton VSF_AUREK'");
        return EXIT_USAGE;
    }
    const char *skel = o->skeleton ? o->skeleton : (o->nargs ? o->args[0] : NULL);
    if (!skel && !o->bone) {
        cli_error("clips: which skeleton? e.g. 'animidx clips --skeleton VSF_AUREK' "
                  "('animidx skeletons' lists them), or which bone: --bone NAME");
        return EXIT_USAGE;
    }
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    char err[1024];
    char from_file[256] = "";
    near_ctx near = { .want = skel };
    /* an indexed name is one seek; only a name nothing has is compared with every skeleton */
    amx_status st = skel ? amx_query_skeleton_exists(db, skel, &near.exact, err, sizeof err)
                         : AMX_OK;
    if (!st && skel && !near.exact)
        st = amx_query_skeletons(db, near_row, &near, err, sizeof err);
    if (!st && skel && !near.exact && (strchr(skel, '/') || strchr(skel, '.'))) {
        /* a model's path, as typed: its skeleton */
        cli_paths where;
        if (cli_resolve_path(db, "clips", skel, 0, &where) == EXIT_OK) {
            char stem[256];
            amx_path_stem(where.v[0].path, stem, sizeof stem);
            bool exists = false;
            if (amx_query_skeleton_exists(db, stem, &exists, err, sizeof err) == AMX_OK && exists) {
                snprintf(from_file, sizeof from_file, "%s", stem);
                near.exact = true;
            }
        }
        cli_paths_free(&where);
    }
    if (!st && skel && !near.exact) {
        /* clips may still target a name no skeleton has (they are listed unbound) */
        clips_ctx probe = { .db = db, .cfg = cfg, .o.json = true };
        amx_json_init_buffer(&probe.o.j, false); /* counted, not printed */
        st = amx_query_clips(db, skel, clip_row, &probe, err, sizeof err);
        free(amx_json_take(&probe.o.j, NULL));
        if (!st && probe.o.count == 0) {
            /* said on stderr; the (empty) list follows as usual, exit 0 (the JSON contract) */
            cli_error("clips: no skeleton '%s' in the index, and no clip targets it%s", skel,
                      near.n ? "; skeletons with close names:" : " ('animidx skeletons' lists them)");
            for (size_t k = 0; k < near.n; k++)
                cli_fprintf(stderr, "  %s\n", near.best[k]);
        }
    }
    if (from_file[0])
        skel = from_file;
    clips_ctx c = { .db = db, .cfg = cfg, .o.json = o->json, .skeleton = o->bone ? skel : NULL };
    if (o->json) {
        json_list_begin(&c.o.j);
    } else if (o->bone) {
        cli_printf("clips animating bone %s%s%s:\n", o->bone, skel ? " of skeleton " : "",
                   skel ? skel : "");
    } else {
        cli_printf("clips targeting skeleton %s:\n", skel);
    }
    if (!st)
        st = o->bone ? amx_query_clips_with_bone(db, o->bone, clip_row, &c, err, sizeof err)
                     : amx_query_clips(db, skel, clip_row, &c, err, sizeof err);
    if (o->json) {
        json_list_end(&c.o.j);
    } else if (!st) {
        cli_printf("%d clips\n", c.o.count);
    }
    amx_db_close(db);
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* ---- skeletons ---- */

static void skeleton_row(const amx_skeleton_row *r, void *user)
{
    out_ctx *o = user;
    o->count++;
    if (o->json) {
        amx_json_begin_object(&o->j);
        amx_json_kstring(&o->j, "path", r->path);
        amx_json_kstring(&o->j, "skeleton", r->skeleton);
        amx_json_kint(&o->j, "bones", r->bones);
        amx_json_kstring(&o->j, "format", r->format);
        amx_json_kint(&o->j, "clips", r->clips);
        amx_json_kstring(&o->j, "root", r->root);
        amx_json_end_object(&o->j);
        return;
    }
    cli_printf("  %-40s %4lld bones %4lld clips  %s\n", r->skeleton, (long long)r->bones,
               (long long)r->clips, r->path);
}

static amx_status query_skeletons(amx_db *db, out_ctx *ctx, const void *arg, char *err,
                                  size_t errlen)
{
    return arg ? amx_query_skeletons_with_bone(db, arg, skeleton_row, ctx, err, errlen)
               : amx_query_skeletons(db, skeleton_row, ctx, err, errlen);
}

int cmd_skeletons(cli_opts *o, amx_config *cfg)
{
    if (o->nargs) {
        cli_error("skeletons: unexpected argument '%s' (--bone NAME lists those with a bone)",
                  o->args[0]);
        return EXIT_USAGE;
    }
    return run_list(o, cfg, query_skeletons, o->bone, "skeletons");
}

/* ---- issues ---- */

static void issue_json(amx_json *j, const amx_issue_row *r)
{
    amx_json_begin_object(j);
    amx_json_kstring(j, "path", r->path);
    amx_json_kstring(j, "code", r->code);
    amx_json_kstring(j, "severity", amx_severity_name(r->severity));
    amx_json_kstring(j, "message", r->message);
    json_offset(j, r->offset);
    amx_json_kstring(j, "context", r->context);
    amx_json_kstring(j, "root", r->root);
    amx_json_end_object(j);
}

static void issue_text(const amx_issue_row *r)
{
    cli_printf("  %s%-7s%s %s", cli_sev_on(r->severity), amx_severity_name(r->severity),
               cli_color_off(), r->code);
    if (r->offset >= 0)
        cli_printf(" @%lld", (long long)r->offset);
    if (r->context[0])
        cli_printf(" (%s)", r->context);
    cli_printf(": %s\n", r->message);
}

/* Findings of one code shown per file before the rest are collapsed (as lint does). */
enum { SHOWN_PER_CODE = 3 };

typedef struct issues_ctx {
    const amx_config *cfg;
    amx_issue_filter filter;
    const cli_paths *where;      /* PATH: the root and the file or directory; NULL: all */
    bool json;
    int limit;                   /* -1: none */
    bool stop;                   /* the limit is reached: the query ends */
    amx_json j;
    /* text: the current file's findings are printed as they come, collapsed per code */
    char root[4096], path[4096];
    size_t per_code[AMX_CODE_COUNT + 1][3]; /* the file's findings by code and severity */
    size_t shown, total, files, by_sev[3];
    size_t code_total[AMX_CODE_COUNT + 1], code_files[AMX_CODE_COUNT + 1];
    amx_severity code_sev[AMX_CODE_COUNT + 1]; /* the most severe the code's findings have */
    bool code_in_file[AMX_CODE_COUNT + 1];
} issues_ctx;

static void end_file(issues_ctx *c)
{
    for (size_t k = 0; k <= AMX_CODE_COUNT; k++) {
        cli_collapsed(c->per_code[k], SHOWN_PER_CODE,
                      k < AMX_CODE_COUNT ? amx_code_get((amx_code)k)->name : "findings");
        memset(c->per_code[k], 0, sizeof c->per_code[k]);
        c->code_in_file[k] = false;
    }
}

/* The totals (a line per code, the count), from the index's counts rather than the rows: with
 * --limit, only the rows shown are read. */
static void issue_count(const amx_issue_count *n, void *user)
{
    issues_ctx *c = user;
    amx_code code;
    size_t slot = amx_code_parse(n->code, &code) ? (size_t)code : AMX_CODE_COUNT;
    c->total += n->findings;
    for (int s = AMX_SEV_INFO; s <= AMX_SEV_ERROR; s++)
        c->by_sev[s] += n->by_severity[s];
    if (!c->code_total[slot] || (n->severity > c->code_sev[slot] && n->severity <= AMX_SEV_ERROR))
        c->code_sev[slot] = n->severity;
    c->code_total[slot] += n->findings;
    c->code_files[slot] += n->files;
}

static void issue_row(const amx_issue_row *r, void *user)
{
    issues_ctx *c = user;
    amx_code code;
    size_t slot = amx_code_parse(r->code, &code) ? (size_t)code : AMX_CODE_COUNT;
    bool new_file = strcmp(c->path, r->path) != 0 || strcmp(c->root, r->root) != 0;
    if (new_file) {
        if (!c->json && c->path[0])
            end_file(c);
        snprintf(c->root, sizeof c->root, "%s", r->root);
        snprintf(c->path, sizeof c->path, "%s", r->path);
    }
    c->code_in_file[slot] = true;
    if (c->json) {
        issue_json(&c->j, r);
        c->shown++;
        return;
    }
    if (new_file)
        cli_printf("%s\n", r->path);
    /* shown per code and severity: an error is never collapsed behind infos of its code */
    if (++c->per_code[slot][cli_sev_slot(r->severity)] <= SHOWN_PER_CODE) {
        issue_text(r);
        c->shown++;
    }
    c->stop = c->limit >= 0 && c->shown >= (size_t)c->limit;
}

static int cmp_slot(const void *a, const void *b, void *arg)
{
    const issues_ctx *c = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (c->code_total[x] != c->code_total[y])
        return c->code_total[x] > c->code_total[y] ? -1 : 1;
    return (x > y) - (x < y);
}

int cmd_issues(cli_opts *o, amx_config *cfg)
{
    issues_ctx c = { .cfg = cfg, .json = o->json, .limit = o->limit,
                     .filter = { .code = o->code, .include_base = o->include_base } };
    if (o->severity) {
        if (!amx_severity_parse(o->severity, &c.filter.min_severity) || c.filter.min_severity == AMX_SEV_OFF) {
            cli_error("--severity: expected info, warning or error, got '%s'", o->severity);
            return EXIT_USAGE;
        }
        c.filter.has_min_severity = true;
    }
    amx_code code;
    if (o->code && !amx_code_parse(o->code, &code)) {
        cli_error("--code: unknown issue code '%s'; 'animidx rules' lists them", o->code);
        return EXIT_USAGE;
    }
    if (o->nargs > 1) {
        cli_error("issues: give at most one PATH (a file or a directory)");
        return EXIT_USAGE;
    }
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    cli_paths where = { 0 };
    if (o->nargs) {
        int rc = cli_resolve_path(db, "issues", o->args[0], CLI_PATH_DIR, &where);
        if (rc != EXIT_OK) {
            cli_paths_free(&where);
            amx_db_close(db);
            if (o->json && rc == EXIT_FINDINGS)
                cli_printf("[]\n");
            return rc;
        }
        c.where = &where;
        if (where.v[0].path[0])
            c.filter.path_prefix = where.v[0].path;
    }
    if (o->json) {
        json_list_begin(&c.j);
    }
    char err[1024];
    if (c.where)
        c.filter.root = where.v[0].root; /* not the same path under another root */
    /* with --limit, the library reads only the first rows by path (json: N rows; text: until N
     * lines are shown, repeats collapsed); text adds the totals from the counts */
    if (c.limit > 0 && o->json)
        c.filter.limit = (size_t)c.limit;
    else if (c.limit > 0)
        c.filter.stop = &c.stop;
    amx_status st = c.limit == 0 ? AMX_OK
                                 : amx_query_issues(db, cfg, &c.filter, issue_row, &c, err, sizeof err);
    uint64_t files = 0;
    if (!st && !o->json)
        st = amx_query_issue_counts(db, cfg, &c.filter, issue_count, &c, &files, err, sizeof err);
    c.files = (size_t)files;
    amx_db_close(db);
    cli_paths_free(&where);
    if (o->json) {
        json_list_end(&c.j);
    }
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    if (o->json)
        return EXIT_OK;
    if (c.path[0])
        end_file(&c);
    if (c.limit >= 0 && c.total > c.shown)
        cli_printf("... %zu more finding%s not listed (--limit %d)\n", c.total - c.shown,
                   cli_s(c.total - c.shown), c.limit);
    /* a line per code, the most frequent first, then the count */
    size_t slots[AMX_CODE_COUNT + 1], n = 0;
    for (size_t k = 0; k <= AMX_CODE_COUNT; k++)
        if (c.code_total[k])
            slots[n++] = k;
    amx_sort(slots, n, sizeof *slots, cmp_slot, &c);
    if (n)
        cli_printf("by code:\n");
    for (size_t i = 0; i < n; i++) {
        size_t k = slots[i];
        const char *name = k < AMX_CODE_COUNT ? amx_code_get((amx_code)k)->name : "other";
        amx_severity sev = c.code_sev[k];
        cli_printf("  %-24s %s%-7s%s %6zu in %zu file%s\n", name, cli_sev_on(sev),
                   amx_severity_name(sev), cli_color_off(), c.code_total[k], c.code_files[k],
                   c.code_files[k] == 1 ? "" : "s");
    }
    cli_printf("%zu finding%s (%zu error%s, %zu warning%s, %zu info) in %zu file%s\n", c.total,
               cli_s(c.total), c.by_sev[AMX_SEV_ERROR], cli_s(c.by_sev[AMX_SEV_ERROR]),
               c.by_sev[AMX_SEV_WARNING], cli_s(c.by_sev[AMX_SEV_WARNING]), c.by_sev[AMX_SEV_INFO],
               c.files, cli_s(c.files));
    return EXIT_OK;
}

/* ---- show ---- */

/* The text of a run of rows of one game object (a terrain mapping of thousands of models):
 * the object, whose name may be 256 bytes and its length, is written on the first row only,
 * and the rows after it say "the same object". */
typedef struct object_run {
    char *last;   /* "type\0name\0line" of the previous row, malloc'd */
    size_t len;
} object_run;

static bool same_object(object_run *r, const char *type, const char *name, int64_t line)
{
    if (!name)
        return false;
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)line);
    size_t tl = type ? strlen(type) : 0, nl = strlen(name), ll = strlen(num);
    size_t len = tl + nl + ll + 2;
    if (r->last && r->len == len && memcmp(r->last, type ? type : "", tl) == 0 &&
        memcmp(r->last + tl + 1, name, nl) == 0 && memcmp(r->last + tl + nl + 2, num, ll) == 0)
        return true;
    char *key = malloc(len + 1);
    if (key) {
        snprintf(key, len + 1, "%s%c%s%c%s", type ? type : "", 0, name, 0, num);
        free(r->last);
        r->last = key;
        r->len = len;
    }
    return false;
}

/* A line of text held back while the same line comes again in a row (a file naming one
 * model thousands of times): written once, with how many times. */
typedef struct repeated_line {
    char *line;
    int64_t count;
} repeated_line;

static void repeated_flush(repeated_line *r)
{
    if (r->line && r->count > 1)
        cli_printf("%s (%lld times)\n", r->line, (long long)r->count);
    else if (r->line)
        cli_printf("%s\n", r->line);
    free(r->line);
    r->line = NULL;
    r->count = 0;
}

/* `line` is malloc'd (taken); NULL (out of memory) writes `fallback` at once. */
static void repeated_add(repeated_line *r, char *line, const char *fallback)
{
    if (line && r->line && strcmp(r->line, line) == 0) {
        r->count++;
        free(line);
        return;
    }
    repeated_flush(r);
    if (!line) {
        cli_printf("%s\n", fallback);
        return;
    }
    r->line = line;
    r->count = 1;
}

typedef struct show_ctx {
    out_ctx o;
    object_run run;         /* game objects: the previous row's object */
    repeated_line used_by;  /* "used by" lines */
    amx_file_summary sum;   /* the file's findings by effective severity */
    int open;       /* 0 none, 1 in the file object */
    bool in_bones, in_clips, in_bindings, in_tracks, in_meshes, in_objects, in_used_by,
        in_members, in_issues;
} show_ctx;

static void close_arrays(show_ctx *s)
{
    if (!s->o.json)
        return;
    if (s->in_bones) {
        amx_json_end_array(&s->o.j);
        amx_json_end_object(&s->o.j);
        s->in_bones = false;
    }
    if (s->in_bindings) { /* a clip without tracks */
        amx_json_end_array(&s->o.j);
        amx_json_key(&s->o.j, "tracks");
        amx_json_begin_array(&s->o.j);
        s->in_bindings = false;
        s->in_tracks = true;
    }
    if (s->in_tracks) {
        amx_json_end_array(&s->o.j);
        amx_json_end_object(&s->o.j);
        s->in_tracks = false;
    }
}

static void show_file(const amx_show_file *f, void *user)
{
    show_ctx *s = user;
    s->o.count++;
    if (s->o.json) {
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "path", f->path);
        amx_json_kstring(&s->o.j, "root", f->root);
        amx_json_kstring(&s->o.j, "format", f->format);
        amx_json_kstring(&s->o.j, "version", f->version);
        amx_json_kstring(&s->o.j, "status", f->status);
        amx_json_kstring(&s->o.j, "container", f->container);
        amx_json_kint(&s->o.j, "size", f->size);
        amx_json_kint(&s->o.j, "mtime_ns", f->mtime_ns);
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)f->hash);
        amx_json_kstring(&s->o.j, "xxh3", hex);
        amx_json_kint(&s->o.j, "decoder_version", f->decoder_version);
        amx_json_key(&s->o.j, "findings"); /* by effective severity, the config applied */
        amx_json_begin_object(&s->o.j);
        amx_json_kint(&s->o.j, "error", (int64_t)s->sum.findings[AMX_SEV_ERROR]);
        amx_json_kint(&s->o.j, "warning", (int64_t)s->sum.findings[AMX_SEV_WARNING]);
        amx_json_kint(&s->o.j, "info", (int64_t)s->sum.findings[AMX_SEV_INFO]);
        amx_json_end_object(&s->o.j);
        amx_json_key(&s->o.j, "skeletons");
        amx_json_begin_array(&s->o.j);
        return;
    }
    /* "ok" only for a file decoded completely that has no error finding (a bone check of
     * the link pass counts too) */
    const uint64_t *n = s->sum.findings;
    cli_printf("%s  (root %s)\n  format %s%s%s, ", f->path, f->root, f->format,
               f->version[0] ? " version " : "", f->version);
    if (n[AMX_SEV_ERROR])
        cli_printf("%s%llu error%s%s (%s)", cli_sev_on(AMX_SEV_ERROR),
                   (unsigned long long)n[AMX_SEV_ERROR], n[AMX_SEV_ERROR] == 1 ? "" : "s",
                   cli_color_off(),
                   strcmp(f->status, "ok") == 0 ? "decoded completely" : f->status);
    else if (n[AMX_SEV_WARNING])
        cli_printf("%s, %s%llu warning%s%s", f->status, cli_sev_on(AMX_SEV_WARNING),
                   (unsigned long long)n[AMX_SEV_WARNING], n[AMX_SEV_WARNING] == 1 ? "" : "s",
                   cli_color_off());
    else
        cli_printf("%s", f->status);
    cli_printf("; %lld bytes; xxh3 %016llx; decoder v%lld\n", (long long)f->size,
               (unsigned long long)f->hash, (long long)f->decoder_version);
    if (f->container)
        cli_printf("  inside archive %s\n", f->container);
}

static void show_skeleton(const char *name, int64_t bones, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        close_arrays(s);
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "name", name);
        amx_json_key(&s->o.j, "bones");
        amx_json_begin_array(&s->o.j);
        s->in_bones = true;
        return;
    }
    cli_printf("  skeleton %s: %lld bones\n", name, (long long)bones);
}

static void show_bone(int64_t idx, const char *name, int64_t parent, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "name", name);
        amx_json_kint(&s->o.j, "parent", parent);
        amx_json_end_object(&s->o.j);
        return;
    }
    cli_printf("    %3lld %-32s parent %lld\n", (long long)idx, name, (long long)parent);
}

static void start_section(show_ctx *s, const char *key, bool *flag)
{
    if (*flag)
        return;
    close_arrays(s);
    /* sections come in a fixed order: end the previous one */
    if (s->o.json) {
        amx_json_end_array(&s->o.j); /* skeletons, or the previous section */
        s->in_clips = s->in_meshes = s->in_objects = s->in_used_by = s->in_members =
            s->in_issues = false;
        amx_json_key(&s->o.j, key);
        amx_json_begin_array(&s->o.j);
    }
    *flag = true;
}

static void show_clip(const amx_clip_row *c, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        start_section(s, "clips", &s->in_clips);
        close_arrays(s);
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "clip", c->clip);
        amx_json_kstring(&s->o.j, "skeleton", c->skeleton);
        amx_json_kbool(&s->o.j, "bound", c->bound);
        amx_json_key(&s->o.j, "frames");
        if (c->frames >= 0)
            amx_json_int(&s->o.j, c->frames);
        else
            amx_json_null(&s->o.j);
        amx_json_knumber(&s->o.j, "fps", c->fps);
        amx_json_knumber(&s->o.j, "duration", c->duration);
        amx_json_kint(&s->o.j, "bones_missing", c->bones_missing);
        if (c->details) {
            amx_json_key(&s->o.j, "details");
            amx_json_raw(&s->o.j, c->details);
        }
        amx_json_key(&s->o.j, "bound_by");
        amx_json_begin_array(&s->o.j);
        s->in_bindings = true;
        return;
    }
    s->in_clips = true;
    s->o.last_path[0] = '\0'; /* the group heading of show_detail starts anew */
    amx_format fmt = AMX_FMT_UNKNOWN;
    amx_format_parse(c->format, &fmt);
    if (!amx_format_clips_bind(fmt)) {
        cli_printf("  definition %s, anim root %s\n", c->clip,
                   c->skeleton ? c->skeleton : "(none)");
        return;
    }
    cli_printf("  clip %s -> skeleton %s%s: ", c->clip, c->skeleton ? c->skeleton : "(unknown)",
               c->bound ? "" : " (not in the index)");
    if (c->frames >= 0)
        cli_printf("%lld frames @ %g fps (%.4g s), ", (long long)c->frames, c->fps, c->duration);
    cli_printf("%lld tracks, %lld bones do not match\n", (long long)c->tracks,
               (long long)c->bones_missing);
}

static void show_binding(const amx_binding_row *b, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "how", b->how);
        amx_json_kstring(&s->o.j, "via", b->via);
        amx_json_kstring(&s->o.j, "skeleton", b->skeleton);
        amx_json_kstring(&s->o.j, "skeleton_root", b->root);
        amx_json_kstring(&s->o.j, "skeleton_path", b->path);
        amx_json_kbool(&s->o.j, "base_layer", b->base_layer);
        amx_json_kint(&s->o.j, "bones_missing", b->bones_bad);
        amx_json_end_object(&s->o.j);
        return;
    }
    cli_printf("    checked against %s (%s%s%s) ", b->skeleton, b->path,
               b->base_layer ? ", base layer " : "", b->base_layer ? b->root : "");
    print_how(b->how, b->via);
    if (b->bones_bad)
        cli_printf(": %lld bones do not fit\n", (long long)b->bones_bad);
    else
        cli_printf(": every bone fits\n");
}

static void show_track(int64_t idx, const char *bone, int64_t bone_index, const char *channels,
                       void *user)
{
    show_ctx *s = user;
    if (s->o.json && s->in_bindings) {
        amx_json_end_array(&s->o.j);
        amx_json_key(&s->o.j, "tracks");
        amx_json_begin_array(&s->o.j);
        s->in_bindings = false;
        s->in_tracks = true;
    }
    if (s->o.json) {
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "bone", bone);
        amx_json_kint(&s->o.j, "bone_index", bone_index);
        amx_json_kstring(&s->o.j, "channels", channels);
        amx_json_end_object(&s->o.j);
        return;
    }
    (void)idx;
    cli_printf("    bone %3lld %-32s %s\n", (long long)bone_index, bone ? bone : "", channels);
}

static void show_detail(const char *group, const char *text, void *user)
{
    show_ctx *s = user;
    if (s->o.json)
        return; /* JSON: the clip's "details" */
    if (strcmp(s->o.last_path, group) != 0) {
        snprintf(s->o.last_path, sizeof s->o.last_path, "%s", group);
        cli_printf("    %s:\n", group);
    }
    cli_printf("      %s\n", text);
}

static void show_model(const amx_model_row *m, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        close_arrays(s);
        start_section(s, "meshes", &s->in_meshes);
        /* the model summary goes in as the first element's sibling keys is awkward in JSON:
         * emit it as an object in the meshes list with "kind" */
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "kind", m->kind);
        amx_json_kstring(&s->o.j, "name", m->name);
        amx_json_kint(&s->o.j, "meshes", m->meshes);
        amx_json_kint(&s->o.j, "submeshes", m->submeshes);
        amx_json_kint(&s->o.j, "vertices", m->vertices);
        amx_json_kint(&s->o.j, "triangles", m->triangles);
        amx_json_kint(&s->o.j, "lights", m->lights);
        amx_json_kint(&s->o.j, "proxies", m->proxies);
        amx_json_kint(&s->o.j, "dazzles", m->dazzles);
        amx_json_kint(&s->o.j, "emitters", m->emitters);
        amx_json_end_object(&s->o.j);
        return;
    }
    if (strcmp(m->kind, "particle") == 0)
        cli_printf("  particle system '%s': %lld emitters\n", m->name, (long long)m->emitters);
    else
        cli_printf(
            "  model: %lld meshes (%lld sub-meshes), %lld vertices, %lld triangles, %lld lights, "
            "%lld proxies, %lld dazzles\n",
            (long long)m->meshes, (long long)m->submeshes, (long long)m->vertices,
            (long long)m->triangles, (long long)m->lights, (long long)m->proxies,
            (long long)m->dazzles);
}

static void show_mesh(const char *name, int64_t materials, int64_t vertices, int64_t triangles,
                      const char *shaders, bool hidden, bool collision, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        start_section(s, "meshes", &s->in_meshes);
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "name", name);
        amx_json_kint(&s->o.j, "materials", materials);
        amx_json_kint(&s->o.j, "vertices", vertices);
        amx_json_kint(&s->o.j, "triangles", triangles);
        amx_json_kstring(&s->o.j, "shaders", shaders);
        amx_json_kbool(&s->o.j, "hidden", hidden);
        amx_json_kbool(&s->o.j, "collision", collision);
        amx_json_end_object(&s->o.j);
        return;
    }
    cli_printf("    mesh %-32s %lld materials, %lld vertices, %lld triangles, %s%s%s\n", name,
               (long long)materials, (long long)vertices, (long long)triangles, shaders,
               hidden ? ", hidden" : "", collision ? ", collision" : "");
}

static void object_json(amx_json *j, const amx_object_row *o)
{
    amx_json_begin_object(j);
    amx_json_kstring(j, "type", o->type);
    amx_json_kstring(j, "name", o->name);
    amx_json_kstring(j, "variant_of", o->variant_of);
    amx_json_kstring(j, "root", o->root);
    amx_json_kstring(j, "path", o->path);
    amx_json_kint(j, "line", o->line);
    amx_json_kstring(j, "tag", o->tag);
    amx_json_kstring(j, "value", o->value);
    amx_json_end_object(j);
}

static void show_object(const amx_object_row *o, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        start_section(s, "game_objects", &s->in_objects);
        object_json(&s->o.j, o);
        return;
    }
    if (!s->in_objects)
        cli_printf("  game objects and the files they name:\n");
    s->in_objects = true;
    if (o->tag && same_object(&s->run, o->type, o->name, o->line))
        cli_printf("    line %-6lld the same object: %s = %s\n", (long long)o->line, o->tag,
                   o->value && o->value[0] ? o->value : "(empty)");
    else if (o->tag)
        cli_printf("    line %-6lld %s '%s': %s = %s\n", (long long)o->line, o->type, o->name,
                   o->tag, o->value && o->value[0] ? o->value : "(empty)");
    else
        cli_printf("    line %-6lld %s '%s'%s%s\n", (long long)o->line, o->type, o->name,
                   o->variant_of ? ", a variant of " : "", o->variant_of ? o->variant_of : "");
}

static void show_used_by(const amx_object_row *o, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        start_section(s, "used_by", &s->in_used_by);
        object_json(&s->o.j, o);
        return;
    }
    if (!s->in_used_by)
        cli_printf("  used by game objects:\n");
    s->in_used_by = true;
    size_t size = strlen(o->type) + strlen(o->name) + strlen(o->path) +
                  (o->tag ? strlen(o->tag) : 0) + 48;
    char *line = malloc(size);
    if (line)
        snprintf(line, size, "    %s '%s' (%s:%lld, %s)", o->type, o->name, o->path,
                 (long long)o->line, o->tag ? o->tag : "");
    repeated_add(&s->used_by, line, o->name);
}

static void show_member(const char *path, const char *format, const char *status, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        start_section(s, "members", &s->in_members);
        amx_json_begin_object(&s->o.j);
        amx_json_kstring(&s->o.j, "path", path);
        amx_json_kstring(&s->o.j, "format", format);
        amx_json_kstring(&s->o.j, "status", status);
        amx_json_end_object(&s->o.j);
        return;
    }
    repeated_flush(&s->used_by);
    if (!s->in_members)
        cli_printf("  archive members:\n");
    s->in_members = true;
    cli_printf("    %-64s %s, %s\n", path, format, status);
}

static void show_issue(const amx_issue_row *r, void *user)
{
    show_ctx *s = user;
    if (s->o.json) {
        start_section(s, "issues", &s->in_issues);
        issue_json(&s->o.j, r);
        return;
    }
    repeated_flush(&s->used_by);
    if (!s->in_issues)
        cli_printf("  findings:\n");
    s->in_issues = true;
    issue_text(r);
}

static void show_end(void *user)
{
    show_ctx *s = user;
    repeated_flush(&s->used_by);
    if (s->o.json) {
        if (!s->in_issues)
            start_section(s, "issues", &s->in_issues);
        amx_json_end_array(&s->o.j);
        amx_json_end_object(&s->o.j);
    }
    s->in_bones = s->in_clips = s->in_bindings = s->in_tracks = s->in_meshes = s->in_objects =
        s->in_used_by = s->in_members = s->in_issues = false;
}

int cmd_show(cli_opts *o, amx_config *cfg)
{
    if (o->nargs != 1) {
        cli_error("show: give one path, e.g. 'animidx show %s' (or just its file name)",
                  amx_os_pick("Art/Models/VSF_AUREK.ALO", "Art\\Models\\VSF_AUREK.ALO"));
        return EXIT_USAGE;
    }
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    show_ctx s = { .o.json = o->json };
    if (o->json) {
        json_list_begin(&s.o.j);
    }
    amx_show_callbacks cb = {
        .file = show_file, .skeleton = show_skeleton, .bone = show_bone, .clip = show_clip,
        .binding = show_binding, .track = show_track, .detail = show_detail, .model = show_model,
        .mesh = show_mesh, .object = show_object, .used_by = show_used_by, .member = show_member,
        .issue = show_issue, .end = show_end,
    };
    char err[1024];
    int found = 0;
    cli_paths where;
    int rc = cli_resolve_path(db, "show", o->args[0], 0, &where);
    amx_status st = AMX_OK;
    if (rc == EXIT_OK) {
        bool have = false;
        st = amx_query_file_summary(db, cfg, where.v[0].root, where.v[0].path, &s.sum, &have, err,
                                    sizeof err);
        if (!st)
            st = amx_query_show_file(db, cfg, where.v[0].root, where.v[0].path, &cb, &s, &found,
                                     err, sizeof err);
    }
    free(s.run.last);
    cli_paths_free(&where);
    if (o->json) {
        json_list_end(&s.o.j);
    }
    amx_db_close(db);
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    return rc;
}

/* ---- refs ---- */

static void ref_json(amx_json *j, const amx_ref_row *r, bool with_file)
{
    amx_json_begin_object(j);
    if (with_file) {
        amx_json_kstring(j, "path", r->path);
        amx_json_kstring(j, "root", r->root);
    }
    amx_json_kstring(j, "kind", r->kind);
    amx_json_kstring(j, "tag", r->tag);
    amx_json_kstring(j, "name", r->name);
    amx_json_kstring(j, "object", r->object);
    amx_json_key(j, "line");
    if (r->line > 0)
        amx_json_int(j, r->line);
    else
        amx_json_null(j);
    json_offset(j, r->offset);
    if (!with_file) {
        amx_json_kstring(j, "resolution", r->resolution);
        amx_json_kstring(j, "target_root", r->target_root);
        amx_json_kstring(j, "target_path", r->target_path);
        amx_json_kbool(j, "base_layer", r->target_base);
    }
    amx_json_end_object(j);
}

/* "Land_Model_Name of 'X', line 28" / "mesh 'HULL' submesh 0 param 'BaseTexture' @2230";
 * "... of the same object" when `same`. Into a malloc'd string (NULL out of memory). */
static char *place_of(const amx_ref_row *r, bool same)
{
    size_t size = strlen(r->tag) + (r->object ? strlen(r->object) : 0) + 64;
    char *buf = malloc(size);
    if (!buf)
        return NULL;
    int n = snprintf(buf, size, "%s", r->tag);
    if (r->object)
        n += snprintf(buf + n, size - (size_t)n, same ? " of the same object" : " of '%s'",
                      r->object);
    if (r->line > 0)
        snprintf(buf + n, size - (size_t)n, ", line %lld", (long long)r->line);
    return buf;
}

static void print_place(const amx_ref_row *r, bool same)
{
    char *place = place_of(r, same);
    cli_printf("%s", place ? place : r->tag);
    free(place);
}

typedef struct refs_ctx {
    out_ctx o;
    bool in_out, in_in;
    int outgoing, incoming;
    object_run run;         /* the previous outgoing row's object */
    repeated_line named_by; /* "named by" lines */
} refs_ctx;

static void refs_close(refs_ctx *c)
{
    repeated_flush(&c->named_by);
    if (c->o.json && (c->in_out || c->in_in)) {
        amx_json_end_array(&c->o.j);
        if (c->in_out) { /* no one names it */
            amx_json_key(&c->o.j, "referenced_by");
            amx_json_begin_array(&c->o.j);
            amx_json_end_array(&c->o.j);
        }
        amx_json_end_object(&c->o.j);
    }
    c->in_out = c->in_in = false;
}

static void refs_file(const char *root, const char *path, void *user)
{
    refs_ctx *c = user;
    refs_close(c);
    c->o.count++;
    if (c->o.json) {
        amx_json_begin_object(&c->o.j);
        amx_json_kstring(&c->o.j, "path", path);
        amx_json_kstring(&c->o.j, "root", root);
        amx_json_key(&c->o.j, "references");
        amx_json_begin_array(&c->o.j);
        c->in_out = true;
        return;
    }
    cli_printf("%s  (root %s)\n", path, root);
    c->in_out = true;
}

static void refs_out(const amx_ref_row *r, void *user)
{
    refs_ctx *c = user;
    c->outgoing++;
    if (c->o.json) {
        ref_json(&c->o.j, r, false);
        return;
    }
    cli_printf("  %-18s %-40s ", r->kind, r->name[0] ? r->name : "(empty)");
    print_place(r, same_object(&c->run, NULL, r->object, r->line));
    const char *res = r->resolution ? r->resolution : "not resolved yet";
    bool usable = !r->resolution || strcmp(res, "found") == 0;
    if (r->target_path)
        cli_printf("\n      -> %s%s%s%s%s%s\n", usable ? "" : res, usable ? "" : ": ",
                   r->target_path, r->target_base ? " (base layer " : "",
                   r->target_base ? r->target_root : "", r->target_base ? ")" : "");
    else
        cli_printf("\n      -> %s\n", strcmp(res, "found") == 0 ? "found (the set's clips)"
                                      : strcmp(res, "builtin") == 0
                                          ? "built in (a shader of the stock game, in its own MEGs)"
                                          : res);
}

static void refs_in(const amx_ref_row *r, void *user)
{
    refs_ctx *c = user;
    c->incoming++;
    if (c->o.json) {
        if (c->in_out) {
            amx_json_end_array(&c->o.j);
            amx_json_key(&c->o.j, "referenced_by");
            amx_json_begin_array(&c->o.j);
            c->in_out = false;
            c->in_in = true;
        }
        ref_json(&c->o.j, r, true);
        return;
    }
    if (c->in_out) {
        cli_printf("  named by:\n");
        c->in_out = false;
        c->in_in = true;
    }
    /* the same referrer many times in a row (a mapping naming one model again and again):
     * one line, counted */
    char *place = place_of(r, false);
    size_t size = (place ? strlen(place) : 0) + strlen(r->path) + strlen(r->kind) +
                  strlen(r->name) + 16;
    char *line = place ? malloc(size) : NULL;
    if (line)
        snprintf(line, size, "    %s: %s (%s '%s')", r->path, place, r->kind, r->name);
    free(place);
    repeated_add(&c->named_by, line, r->path);
}

typedef struct missing_ctx {
    out_ctx o;
    int64_t references;
} missing_ctx;

/* "X.tga, x.DDS (2), X.tga (model-or-particle)": the spellings of a missing file, with how many
 * references use each and the kind where it is not the row's. */
static void print_spellings(const amx_missing_row *m)
{
    for (size_t i = 0; i < m->spelling_count && i < 6; i++) {
        const amx_missing_spelling *sp = &m->spellings[i];
        bool other = strcmp(sp->kind, m->kind) != 0;
        cli_printf("%s%s", i ? ", " : "", sp->name);
        if (other && sp->references > 1)
            cli_printf(" (%s, %lld)", sp->kind, (long long)sp->references);
        else if (other)
            cli_printf(" (%s)", sp->kind);
        else if (sp->references > 1)
            cli_printf(" (%lld)", (long long)sp->references);
    }
    if (m->spelling_count > 6)
        cli_printf(", and %zu more", m->spelling_count - 6);
}

static void missing_row(const amx_missing_row *m, void *user)
{
    missing_ctx *c = user;
    c->o.count++;
    c->references += m->references;
    if (c->o.json) {
        amx_json_begin_object(&c->o.j);
        amx_json_kstring(&c->o.j, "kind", m->kind);
        amx_json_kstring(&c->o.j, "name", m->name);
        amx_json_kstring(&c->o.j, "file", m->file);
        amx_json_kstring(&c->o.j, "resolution", m->resolution);
        amx_json_kstring(&c->o.j, "severity", amx_severity_name(m->severity));
        amx_json_kint(&c->o.j, "references", m->references);
        amx_json_kint(&c->o.j, "files", m->files);
        amx_json_key(&c->o.j, "spellings");
        amx_json_begin_array(&c->o.j);
        for (size_t i = 0; i < m->spelling_count; i++) {
            amx_json_begin_object(&c->o.j);
            amx_json_kstring(&c->o.j, "kind", m->spellings[i].kind);
            amx_json_kstring(&c->o.j, "name", m->spellings[i].name);
            amx_json_kint(&c->o.j, "references", m->spellings[i].references);
            amx_json_end_object(&c->o.j);
        }
        amx_json_end_array(&c->o.j);
        amx_json_key(&c->o.j, "referrers");
        amx_json_begin_array(&c->o.j);
        for (size_t i = 0; i < m->referrer_count; i++)
            ref_json(&c->o.j, &m->referrers[i], true);
        amx_json_end_array(&c->o.j);
        amx_json_end_object(&c->o.j);
        return;
    }
    /* a SAGE INI reference names no one file: its name, and its other spellings if any */
    bool spelt = m->file || m->spelling_count > 1;
    cli_printf("%s%-7s%s %-18s %s%s: %lld reference%s in %lld file%s%s", cli_sev_on(m->severity),
               amx_severity_name(m->severity), cli_color_off(), m->kind, m->file ? m->file : m->name,
               strcmp(m->resolution, "wrong-kind") == 0 ? " (wrong kind)"
               : strcmp(m->resolution, "unusable") == 0 ? " (does not decode)"
                                                         : "",
               (long long)m->references, m->references == 1 ? "" : "s", (long long)m->files,
               m->files == 1 ? "" : "s", spelt ? ", named " : "");
    if (spelt)
        print_spellings(m);
    cli_printf("\n");
    size_t show = m->referrer_count < 3 ? m->referrer_count : 3;
    for (size_t i = 0; i < show; i++) {
        cli_printf("          %s: ", m->referrers[i].path);
        print_place(&m->referrers[i], false);
        cli_printf("\n");
    }
    if ((int64_t)show < m->references)
        cli_printf("          ... and %lld more\n", (long long)(m->references - (int64_t)show));
}

/* refs PATH: the path as typed is resolved to one file (cli_resolve_path); the query matches
 * by path, so rows of a file at the same path under another root are left out here. */
int cmd_refs(cli_opts *o, amx_config *cfg)
{
    if (o->missing == (o->nargs == 1) || o->nargs > 1) {
        cli_error("refs: give one path ('animidx refs Art/Models/X.ALO') or --missing");
        return EXIT_USAGE;
    }
    if (o->include_base && !o->missing) {
        cli_error("refs: --include-base goes with --missing (a PATH is found in every root, base "
                  "layers included)");
        return EXIT_USAGE;
    }
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    char err[1024];
    amx_status st;
    int rc = EXIT_OK;
    if (o->missing) {
        missing_ctx c = { .o.json = o->json };
        if (o->json) {
            json_list_begin(&c.o.j);
        }
        st = amx_query_missing(db, cfg, o->include_base, missing_row, &c, err, sizeof err);
        if (o->json) {
            json_list_end(&c.o.j);
        } else if (!st) {
            cli_printf("%d file%s missing, of the wrong kind or not decoding, %lld reference%s\n",
                       c.o.count, c.o.count == 1 ? "" : "s", (long long)c.references,
                       c.references == 1 ? "" : "s");
        }
    } else {
        refs_ctx c = { .o.json = o->json };
        if (o->json) {
            json_list_begin(&c.o.j);
        }
        int found = 0;
        cli_paths where;
        rc = cli_resolve_path(db, "refs", o->args[0], CLI_PATH_SKIPPED, &where);
        st = AMX_OK;
        if (rc == EXIT_OK) {
            st = amx_query_refs(db, where.v[0].root, where.v[0].path, refs_file, refs_out, refs_in,
                                &c, &found, err, sizeof err);
            if (!st && !found) { /* resolved, so indexed: only a concurrent removal */
                cli_error("refs: '%s' is no longer indexed", o->args[0]);
                rc = EXIT_FINDINGS;
            }
        }
        cli_paths_free(&where);
        refs_close(&c);
        free(c.run.last);
        if (o->json) {
            json_list_end(&c.o.j);
        }
    }
    amx_db_close(db);
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    return rc;
}

/* ---- rules ---- */

/* A rule as `rules --json` lists it, with its effective severity. */
static void rule_json(amx_json *j, const amx_code_info *ci, amx_severity eff)
{
    amx_json_begin_object(j);
    amx_json_kstring(j, "code", ci->name);
    amx_json_kstring(j, "severity", amx_severity_name(eff));
    amx_json_kstring(j, "default_severity", amx_severity_name(ci->severity));
    amx_json_kstring(j, "summary", ci->summary);
    amx_json_kstring(j, "help", ci->help);
    amx_json_end_object(j);
}

/* `rules CODE`: one rule, its effective severity, what it means and how to fix it. */
static int one_rule(cli_opts *o, const amx_config *cfg, const char *name)
{
    amx_code code;
    if (!amx_code_parse(name, &code)) {
        cli_error("rules: no issue code '%s'; 'animidx rules' lists them", name);
        return EXIT_USAGE;
    }
    const amx_code_info *ci = amx_code_get(code);
    amx_severity eff = cli_effective_severity_of(cfg, code);
    if (o->json) {
        amx_json j;
        amx_json_init(&j, stdout, true);
        rule_json(&j, ci, eff);
        fputc('\n', stdout);
        return EXIT_OK;
    }
    cli_printf("%s\n\n  severity  %s%s%s", ci->name, cli_sev_on(eff), amx_severity_name(eff),
               cli_color_off());
    if (cfg->severity_set[code])
        cli_printf(" (set by the config %s; the default is %s)", cfg->source ? cfg->source : "",
                   amx_severity_name(ci->severity));
    char anchor[64];
    size_t n = 0;
    for (const char *c = ci->name; *c && n + 1 < sizeof anchor; c++)
        anchor[n++] = (char)tolower((unsigned char)*c);
    anchor[n] = '\0';
    cli_printf("\n  means     %s\n  fix       %s\n  docs      docs/rules.md#%s\n", ci->summary,
               ci->help, anchor);
    return EXIT_OK;
}

int cmd_rules(cli_opts *o, amx_config *cfg)
{
    if (o->nargs > 1) {
        cli_error("rules: give at most one code, e.g. 'animidx rules TRUNCATED'");
        return EXIT_USAGE;
    }
    if (o->nargs == 1)
        return one_rule(o, cfg, o->args[0]);
    amx_json j;
    if (o->json) {
        json_list_begin(&j);
    }
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        const amx_code_info *ci = amx_code_get((amx_code)i);
        amx_severity eff = cli_effective_severity_of(cfg, (amx_code)i);
        if (o->json) {
            rule_json(&j, ci, eff);
        } else {
            cli_printf("%-24s %s%-8s%s %s%s\n", ci->name, cli_sev_on(eff), amx_severity_name(eff),
                       cli_color_off(), ci->summary,
                       cfg->severity_set[i] ? " (severity set by the config)" : "");
        }
    }
    if (o->json) {
        json_list_end(&j);
    }
    return EXIT_OK;
}
