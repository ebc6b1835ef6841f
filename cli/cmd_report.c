/* animidx report: report.json (docs/report.schema.json) and report.html (html.c) of the index,
 * with what changed since a previous report.json when one is given. */
#include "report.h"

#include "animidx/json.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *dup0(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ---- gathering ---- */

typedef struct gather {
    report *r;
    bool oom;
} gather;

/* A root scanned only as a base layer: its files stay out of the report unless asked. */
static bool is_base_root(const report *r, const char *root)
{
    for (size_t i = 0; !r->include_base && i < r->nbase_roots; i++)
        if (strcmp(r->base_roots[i], root) == 0)
            return true;
    return false;
}

static void root_row(const amx_root_row *row, void *user)
{
    gather *g = user;
    if (strcmp(row->role, "base") != 0)
        return;
    char **v = realloc(g->r->base_roots, (g->r->nbase_roots + 1) * sizeof *v);
    if (!v || !(v[g->r->nbase_roots] = dup0(row->path))) {
        if (v)
            g->r->base_roots = v;
        g->oom = true;
        return;
    }
    g->r->base_roots = v;
    g->r->nbase_roots++;
}

static void skeleton_row(const amx_skeleton_row *s, void *user)
{
    gather *g = user;
    if (is_base_root(g->r, s->root))
        return;
    rep_skeleton *v = realloc(g->r->skels, (g->r->nskels + 1) * sizeof *v);
    if (!v) {
        g->oom = true;
        return;
    }
    g->r->skels = v;
    v[g->r->nskels++] = (rep_skeleton){ .root = dup0(s->root), .path = dup0(s->path),
                                        .name = dup0(s->skeleton), .format = dup0(s->format),
                                        .bones = s->bones, .clips = s->clips };
}

static void clip_row(const amx_clip_row *c, void *user)
{
    const char *skel_root = c->skeleton_root, *skel_path = c->skeleton_path;
    gather *g = user;
    if (is_base_root(g->r, c->root))
        return;
    /* Clips that animate world nodes (MechWarrior 3) have no skeleton to list them under, and
     * are not unbound either: their findings are in the findings sections. */
    amx_format fmt = AMX_FMT_UNKNOWN;
    amx_format_parse(c->format, &fmt);
    if (!amx_format_clips_bind(fmt))
        return;
    rep_clip *v = realloc(g->r->clips, (g->r->nclips + 1) * sizeof *v);
    if (!v) {
        g->oom = true;
        return;
    }
    g->r->clips = v;
    v[g->r->nclips++] = (rep_clip){
        .root = dup0(c->root), .path = dup0(c->path), .clip = dup0(c->clip),
        .skeleton = dup0(c->skeleton), .format = dup0(c->format), .frames = c->frames,
        .bones_missing = c->bones_missing, .tracks = c->tracks, .fps = c->fps,
        .duration = c->duration, .bound = c->bound, .skel_root = dup0(skel_root),
        .skel_path = dup0(skel_path), .how = dup0(c->how), .via = dup0(c->via),
    };
}

#define REPORT_REFERRERS 10

static void missing_row(const amx_missing_row *m, void *user)
{
    gather *g = user;
    rep_missing *v = realloc(g->r->missing, (g->r->nmissing + 1) * sizeof *v);
    if (!v) {
        g->oom = true;
        return;
    }
    g->r->missing = v;
    size_t n = m->referrer_count < REPORT_REFERRERS ? m->referrer_count : REPORT_REFERRERS;
    rep_missing *r = &v[g->r->nmissing++];
    *r = (rep_missing){ .kind = dup0(m->kind), .name = dup0(m->name), .file = dup0(m->file),
                        .resolution = dup0(m->resolution), .severity = m->severity,
                        .references = m->references, .files = m->files,
                        .spellings = calloc(m->spelling_count ? m->spelling_count : 1,
                                            sizeof *r->spellings),
                        .paths = calloc(n ? n : 1, sizeof *r->paths),
                        .places = calloc(n ? n : 1, sizeof *r->places) };
    if (!r->paths || !r->places || !r->spellings) {
        g->oom = true;
        return;
    }
    for (size_t i = 0; i < m->spelling_count; i++)
        r->spellings[r->nspellings++] = (rep_spelling){ .kind = dup0(m->spellings[i].kind),
                                                        .name = dup0(m->spellings[i].name),
                                                        .references = m->spellings[i].references };
    for (size_t i = 0; i < n; i++) {
        const amx_ref_row *x = &m->referrers[i];
        char place[800];
        int w = snprintf(place, sizeof place, "%s", x->tag);
        if (w >= 0 && (size_t)w < sizeof place && x->object)
            w += snprintf(place + w, sizeof place - (size_t)w, " of '%s'", x->object);
        if (w >= 0 && (size_t)w < sizeof place && x->line > 0)
            snprintf(place + w, sizeof place - (size_t)w, ", line %lld", (long long)x->line);
        r->paths[i] = dup0(x->path);
        r->places[i] = dup0(place);
        r->nreferrers++;
    }
}

static void scan_row(const char *root, int64_t finished_at, int64_t files_seen, void *user)
{
    gather *g = user;
    rep_scan *v = realloc(g->r->scans, (g->r->nscans + 1) * sizeof *v);
    if (!v) {
        g->oom = true;
        return;
    }
    g->r->scans = v;
    v[g->r->nscans++] = (rep_scan){ dup0(root), finished_at, files_seen };
}

static int gather_index(report *r)
{
    char err[1024];
    gather g = { r, false };
    int rc = cli_findings_from_index(r->db, r->cfg, r->include_base, NULL, NULL, &r->findings);
    if (rc != EXIT_OK)
        return rc;
    if (amx_query_roots(r->db, root_row, &g, err, sizeof err) != AMX_OK ||
        amx_query_summary(r->db, r->cfg, r->include_base, &r->sum, err, sizeof err) != AMX_OK ||
        amx_query_skeletons(r->db, skeleton_row, &g, err, sizeof err) != AMX_OK ||
        amx_query_all_clips(r->db, clip_row, &g, err, sizeof err) != AMX_OK ||
        amx_query_scans(r->db, scan_row, &g, err, sizeof err) != AMX_OK ||
        amx_query_missing(r->db, r->cfg, r->include_base, missing_row, &g, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    if (g.oom) {
        cli_error("out of memory");
        return EXIT_IO;
    }
    /* The report lists a clip under every skeleton it is bound to (a clip an XML override binds
     * to a second model comes under both, with that binding's bones), and once among the unbound
     * clips when it is bound to none; a skeleton's count is what it lists (base layers left
     * out). */
    for (size_t k = 0; k < r->nskels; k++) {
        r->skels[k].clips = 0;
        for (size_t i = 0; i < r->nclips; i++)
            r->skels[k].clips += rep_same_skeleton(&r->clips[i], &r->skels[k]);
    }
    int64_t last = -1;
    for (size_t i = 0; i < r->nscans; i++)
        if (r->scans[i].finished_at > last)
            last = r->scans[i].finished_at;
    if (last >= 0)
        cli_iso_time(last, r->scanned_at, sizeof r->scanned_at);
    return EXIT_OK;
}

/* The previous report's "kind" and "generated_at" (NULL when absent or not a string), read at
 * once with SQLite's JSON functions like the findings. */
static void previous_meta(const char *file, char **kind, char **generated_at)
{
    size_t len;
    char err[256];
    char *text = (char *)amx_read_regular(file, AMX_SIDE_FILE_MAX, &len, NULL, err, sizeof err);
    sqlite3 *mem = NULL;
    sqlite3_stmt *s = NULL;
    *kind = *generated_at = NULL;
    if (text && sqlite3_open(":memory:", &mem) == SQLITE_OK &&
        sqlite3_prepare_v2(mem, "SELECT json_extract(?1, '$.kind'), json_extract(?1, "
                           "'$.generated_at') WHERE json_valid(?1)", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, text, (int)len, SQLITE_STATIC);
        if (sqlite3_step(s) == SQLITE_ROW) {
            if (sqlite3_column_type(s, 0) == SQLITE_TEXT)
                *kind = dup0((const char *)sqlite3_column_text(s, 0));
            if (sqlite3_column_type(s, 1) == SQLITE_TEXT)
                *generated_at = dup0((const char *)sqlite3_column_text(s, 1));
        }
    }
    sqlite3_finalize(s);
    sqlite3_close(mem);
    free(text);
}

/* Reads the previous report (before the index, so a bad file fails fast with exit 2). A file
 * of findings that is not a report (a lint baseline, lint --format json) is refused: its
 * paths and findings are not a report's, and the diff would be made up. */
static int load_previous(report *r, const char *file)
{
    char err[1024];
    int rc = cli_findings_load(file, &r->previous, err, sizeof err);
    if (rc != EXIT_OK) {
        cli_error("--previous: %s", err);
        return rc;
    }
    char *kind;
    previous_meta(file, &kind, &r->previous_at);
    if (!kind || strcmp(kind, "animidx-report") != 0) {
        cli_error("--previous: %s is not an animidx report (its \"kind\" is %s%s%s, not "
                  "\"animidx-report\"): give the report.json an earlier 'animidx report' wrote",
                  file, kind ? "\"" : "", kind ? kind : "missing", kind ? "\"" : "");
        free(kind);
        return EXIT_USAGE;
    }
    free(kind);
    return rc;
}

/* New: in this report only; fixed: in the previous one only; open: in both (by identity). */
static int diff_previous(report *r)
{
    r->open = calloc(r->findings.n + 1, sizeof *r->open);
    r->still = calloc(r->previous.n + 1, sizeof *r->still);
    if (!r->open || !r->still || cli_findings_match(&r->findings, &r->previous, r->open, r->still)) {
        cli_error("out of memory");
        return EXIT_IO;
    }
    for (size_t i = 0; i < r->findings.n; i++)
        r->open[i] ? r->n_open++ : r->n_new++;
    for (size_t i = 0; i < r->previous.n; i++)
        r->n_fixed += !r->still[i];
    r->have_previous = true;
    return EXIT_OK;
}

static void report_free(report *r)
{
    cli_findings_free(&r->findings);
    cli_findings_free(&r->previous);
    free(r->previous_at);
    free(r->open);
    free(r->still);
    for (size_t i = 0; i < r->nclips; i++) {
        rep_clip *c = &r->clips[i];
        free(c->root), free(c->path), free(c->clip), free(c->skeleton), free(c->format);
        free(c->skel_root), free(c->skel_path), free(c->how), free(c->via);
    }
    free(r->clips);
    for (size_t i = 0; i < r->nskels; i++) {
        rep_skeleton *s = &r->skels[i];
        free(s->root), free(s->path), free(s->name), free(s->format);
    }
    free(r->skels);
    for (size_t i = 0; i < r->nscans; i++)
        free(r->scans[i].root);
    free(r->scans);
    for (size_t i = 0; i < r->nbase_roots; i++)
        free(r->base_roots[i]);
    free(r->base_roots);
    for (size_t i = 0; i < r->nmissing; i++) {
        rep_missing *m = &r->missing[i];
        for (size_t k = 0; k < m->nreferrers; k++)
            free(m->paths[k]), free(m->places[k]);
        for (size_t k = 0; k < m->nspellings; k++)
            free(m->spellings[k].kind), free(m->spellings[k].name);
        free(m->paths), free(m->places), free(m->kind), free(m->name), free(m->resolution);
        free(m->file), free(m->spellings);
    }
    free(r->missing);
    amx_db_close(r->db);
}

/* ---- report.json ---- */

static void json_config(amx_json *j, const amx_config *cfg)
{
    amx_json_key(j, "config");
    amx_json_begin_object(j);
    amx_json_kstring(j, "source", cfg->source);
    amx_json_kstring(j, "database", cfg->db_path);
    amx_json_key(j, "roots");
    amx_json_begin_array(j);
    for (size_t i = 0; i < cfg->root_count; i++)
        amx_json_string(j, cfg->roots[i]);
    amx_json_end_array(j);
    amx_json_kint(j, "jobs", cfg->jobs);
    amx_json_kint(j, "memory_mb", cfg->memory_mb);
    amx_json_key(j, "ignore");
    amx_json_begin_array(j);
    for (size_t i = 0; i < cfg->ignore_count; i++)
        amx_json_string(j, cfg->ignore[i]);
    amx_json_end_array(j);
    amx_json_key(j, "severity");
    amx_json_begin_object(j);
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        const amx_code_info *ci = amx_code_get((amx_code)i);
        amx_json_kstring(j, ci->name, amx_severity_name(cfg->severity_set[i] ? cfg->severity[i]
                                                                              : ci->severity));
    }
    amx_json_end_object(j);
    amx_json_key(j, "overrides");
    amx_json_begin_object(j);
    for (int i = 0; i < AMX_CODE_COUNT; i++)
        if (cfg->severity_set[i])
            amx_json_kstring(j, amx_code_get((amx_code)i)->name, amx_severity_name(cfg->severity[i]));
    amx_json_end_object(j);
    amx_json_end_object(j);
}

static void json_totals(amx_json *j, const report *r)
{
    uint64_t sev[3] = { 0 }, fmt_sev[AMX_FORMAT_COUNT][3] = { { 0 } }, code[AMX_CODE_COUNT] = { 0 };
    for (size_t i = 0; i < r->findings.n; i++) {
        const cli_finding *f = &r->findings.v[i];
        if (f->severity > AMX_SEV_ERROR)
            continue;
        sev[f->severity]++;
        amx_format fm = AMX_FMT_UNKNOWN;
        amx_format_parse(f->format, &fm);
        fmt_sev[fm][f->severity]++;
        amx_code c;
        if (amx_code_parse(f->code, &c))
            code[c]++;
    }
    amx_json_key(j, "totals");
    amx_json_begin_object(j);
    amx_json_kint(j, "files", (int64_t)r->sum.files);
    amx_json_kint(j, "other_files", (int64_t)r->sum.other_files);
    amx_json_kint(j, "clips", (int64_t)r->sum.clips);
    amx_json_kint(j, "clips_unbound", (int64_t)r->sum.clips_unbound);
    amx_json_kint(j, "skeletons", (int64_t)r->sum.skeletons);
    amx_json_kint(j, "models", (int64_t)r->sum.models);
    amx_json_kint(j, "particles", (int64_t)r->sum.particles);
    amx_json_kint(j, "findings", (int64_t)(sev[0] + sev[1] + sev[2]));
    amx_json_key(j, "by_severity");
    amx_json_begin_object(j);
    amx_json_kint(j, "error", (int64_t)sev[AMX_SEV_ERROR]);
    amx_json_kint(j, "warning", (int64_t)sev[AMX_SEV_WARNING]);
    amx_json_kint(j, "info", (int64_t)sev[AMX_SEV_INFO]);
    amx_json_end_object(j);
    amx_json_key(j, "by_format");
    amx_json_begin_object(j);
    for (int f = 0; f < AMX_FORMAT_COUNT; f++) {
        amx_json_key(j, amx_format_name((amx_format)f));
        amx_json_begin_object(j);
        amx_json_kint(j, "files", (int64_t)r->sum.by_format[f]);
        amx_json_kint(j, "error", (int64_t)fmt_sev[f][AMX_SEV_ERROR]);
        amx_json_kint(j, "warning", (int64_t)fmt_sev[f][AMX_SEV_WARNING]);
        amx_json_kint(j, "info", (int64_t)fmt_sev[f][AMX_SEV_INFO]);
        amx_json_end_object(j);
    }
    amx_json_end_object(j);
    amx_json_key(j, "by_code");
    amx_json_begin_object(j);
    for (int c = 0; c < AMX_CODE_COUNT; c++)
        if (code[c])
            amx_json_kint(j, amx_code_get((amx_code)c)->name, (int64_t)code[c]);
    amx_json_end_object(j);
    amx_json_end_object(j);
}

static void json_clip(amx_json *j, const rep_clip *c)
{
    amx_json_begin_object(j);
    amx_json_kstring(j, "path", c->path);
    amx_json_kstring(j, "root", c->root);
    amx_json_kstring(j, "clip", c->clip);
    amx_json_kstring(j, "skeleton", c->skeleton);
    amx_json_kstring(j, "format", c->format);
    amx_json_key(j, "frames");
    if (c->frames >= 0)
        amx_json_int(j, c->frames);
    else
        amx_json_null(j);
    amx_json_knumber(j, "fps", c->fps);
    amx_json_kint(j, "tracks", c->tracks);
    amx_json_kint(j, "bones_missing", c->bones_missing);
    amx_json_kbool(j, "bound", c->bound);
    amx_json_kbool(j, "compatible", c->bound && c->bones_missing == 0);
    amx_json_kstring(j, "bound_by", c->how);
    amx_json_kstring(j, "via", c->via);
    amx_json_end_object(j);
}

static void write_json(FILE *out, const report *r)
{
    amx_json j;
    amx_json_init(&j, out, true);
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "kind", "animidx-report");
    amx_json_kint(&j, "schema", 1);
    amx_json_kstring(&j, "generated_at", r->generated_at);
    amx_json_key(&j, "tool");
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "name", "animidx");
    amx_json_kstring(&j, "version", AMX_VERSION_STRING);
    amx_json_kint(&j, "json_schema", AMX_JSON_SCHEMA);
    amx_json_key(&j, "decoders");
    amx_json_begin_object(&j);
    for (int f = 0; f < AMX_FORMAT_COUNT; f++)
        amx_json_kint(&j, f == AMX_FMT_UNKNOWN ? "probe" : amx_format_name((amx_format)f),
                      amx_format_decoder_version((amx_format)f));
    amx_json_end_object(&j);
    amx_json_end_object(&j);

    amx_json_key(&j, "scan");
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "finished_at", r->scanned_at[0] ? r->scanned_at : NULL);
    amx_json_key(&j, "roots");
    amx_json_begin_array(&j);
    for (size_t i = 0; i < r->nscans; i++) {
        char at[32];
        cli_iso_time(r->scans[i].finished_at, at, sizeof at);
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "path", r->scans[i].root);
        amx_json_kstring(&j, "finished_at", at);
        amx_json_kint(&j, "files_seen", r->scans[i].files_seen);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    amx_json_end_object(&j);

    json_config(&j, r->cfg);
    json_totals(&j, r);

    amx_json_key(&j, "findings");
    amx_json_begin_array(&j);
    for (size_t i = 0; i < r->findings.n; i++)
        cli_finding_json(&j, &r->findings.v[i],
                         !r->have_previous ? NULL : r->open[i] ? "open" : "new");
    amx_json_end_array(&j);

    amx_json_key(&j, "diff");
    if (!r->have_previous) {
        amx_json_null(&j);
    } else {
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "previous_generated_at", r->previous_at);
        amx_json_kint(&j, "new", (int64_t)r->n_new);
        amx_json_kint(&j, "fixed", (int64_t)r->n_fixed);
        amx_json_kint(&j, "open", (int64_t)r->n_open);
        amx_json_key(&j, "fixed_findings");
        amx_json_begin_array(&j);
        for (size_t i = 0; i < r->previous.n; i++)
            if (!r->still[i])
                cli_finding_json(&j, &r->previous.v[i], "fixed");
        amx_json_end_array(&j);
        amx_json_end_object(&j);
    }

    amx_json_key(&j, "skeletons");
    amx_json_begin_array(&j);
    for (size_t s = 0; s < r->nskels; s++) {
        const rep_skeleton *sk = &r->skels[s];
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "path", sk->path);
        amx_json_kstring(&j, "root", sk->root);
        amx_json_kstring(&j, "skeleton", sk->name);
        amx_json_kstring(&j, "format", sk->format);
        amx_json_kint(&j, "bones", sk->bones);
        amx_json_key(&j, "clips");
        amx_json_begin_array(&j);
        for (size_t c = 0; c < r->nclips; c++)
            if (rep_same_skeleton(&r->clips[c], sk))
                json_clip(&j, &r->clips[c]);
        amx_json_end_array(&j);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    amx_json_key(&j, "unbound_clips");
    amx_json_begin_array(&j);
    for (size_t c = 0; c < r->nclips; c++)
        if (!r->clips[c].skel_path)
            json_clip(&j, &r->clips[c]);
    amx_json_end_array(&j);
    /* names no layer provides, grouped, most referenced first (refs --missing) */
    amx_json_key(&j, "missing_assets");
    amx_json_begin_array(&j);
    for (size_t i = 0; i < r->nmissing; i++) {
        const rep_missing *m = &r->missing[i];
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "kind", m->kind);
        amx_json_kstring(&j, "name", m->name);
        amx_json_kstring(&j, "file", m->file);
        amx_json_kstring(&j, "resolution", m->resolution);
        amx_json_kstring(&j, "severity", amx_severity_name(m->severity));
        amx_json_kint(&j, "references", m->references);
        amx_json_kint(&j, "files", m->files);
        amx_json_key(&j, "spellings");
        amx_json_begin_array(&j);
        for (size_t k = 0; k < m->nspellings; k++) {
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "kind", m->spellings[k].kind);
            amx_json_kstring(&j, "name", m->spellings[k].name);
            amx_json_kint(&j, "references", m->spellings[k].references);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_key(&j, "referrers");
        amx_json_begin_array(&j);
        for (size_t k = 0; k < m->nreferrers; k++) {
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "path", m->paths[k]);
            amx_json_kstring(&j, "where", m->places[k]);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    fputc('\n', out);
}

/* ---- the command ---- */

/* Creates DIR and its parents (mkdir -p). */
static int make_dirs(const char *dir)
{
    char p[AMX_PATH_MAX];
    if (snprintf(p, sizeof p, "%s/", dir) >= (int)sizeof p) { /* "dir/": dir itself too */
        errno = ENAMETOOLONG;
        return -1;
    }
    int rc = amx_mkdir_parents(p, 0777);
    if (rc < 0)
        errno = -rc;
    return rc < 0 ? -1 : 0;
}

/* Writes DIR/NAME through a temporary file renamed into place (amx_output), so a reader (or the
 * next night's --previous) never sees half a report, and a link planted in DIR is replaced,
 * never written through. */
static int write_file(const char *dir, const char *name, const report *r, bool html)
{
    char path[AMX_PATH_MAX], err[1024];
    if (amx_os_path_join(dir, name, path, sizeof path) != 0) {
        cli_error("report: %s/%s: path too long", dir, name);
        return EXIT_IO;
    }
    amx_output o;
    if (amx_output_open(&o, path, err, sizeof err) != 0) {
        cli_error("report: %s", err);
        return EXIT_IO;
    }
    int rc = EXIT_OK;
    if (html)
        rc = report_write_html(o.f, r);
    else
        write_json(o.f, r);
    if (rc != EXIT_OK) {
        amx_output_abort(&o);
        return rc;
    }
    if (amx_output_commit(&o, err, sizeof err) != 0) {
        cli_error("report: %s", err);
        return EXIT_IO;
    }
    return EXIT_OK;
}

int cmd_report(cli_opts *o, amx_config *cfg)
{
    if (o->nargs) {
        cli_error("report: unexpected argument '%s'; the report covers the whole index "
                  "(see 'animidx report --help')", o->args[0]);
        return EXIT_USAGE;
    }
    const char *dir = o->out ? o->out : ".";
    report r = { .cfg = cfg, .include_base = o->include_base };
    if (o->plots && strcmp(o->plots, "all") == 0)
        r.plots = PLOTS_ALL;
    else if (o->plots && strcmp(o->plots, "none") == 0)
        r.plots = PLOTS_NONE;
    else if (o->plots && strcmp(o->plots, "findings") != 0) {
        cli_error("--plots: expected findings, all or none, got '%s'", o->plots);
        return EXIT_USAGE;
    }
    cli_iso_time((int64_t)time(NULL), r.generated_at, sizeof r.generated_at);
    int rc = EXIT_OK;
    if (o->previous)
        rc = load_previous(&r, o->previous);
    if (rc == EXIT_OK && !(r.db = cli_open_db_readonly(cfg)))
        rc = EXIT_IO;
    if (rc == EXIT_OK)
        rc = gather_index(&r);
    if (rc == EXIT_OK && o->previous)
        rc = diff_previous(&r);
    if (rc == EXIT_OK && make_dirs(dir) != 0) {
        cli_error("report: %s: %s", dir, strerror(errno));
        rc = EXIT_IO;
    }
    if (rc == EXIT_OK)
        rc = write_file(dir, "report.json", &r, false);
    if (rc == EXIT_OK)
        rc = write_file(dir, "report.html", &r, true);
    if (rc == EXIT_OK && !o->quiet) {
        /* the folder as typed, then this system's separator (Windows: rep\\report.json) */
        size_t n = strlen(dir);
        char sep[2] = { amx_os_separator(), '\0' };
        if (n && (dir[n - 1] == '/' || dir[n - 1] == sep[0]))
            sep[0] = '\0';
        cli_printf("wrote %s%sreport.json and %s%sreport.html: %zu finding%s", dir, sep, dir, sep,
                   r.findings.n, cli_s(r.findings.n));
        if (r.have_previous)
            cli_printf(" (%zu new, %zu fixed, %zu still open)", r.n_new, r.n_fixed, r.n_open);
        cli_printf("\n");
    }
    report_free(&r);
    return rc;
}
