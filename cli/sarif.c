/* SARIF 2.1.0 output of `animidx lint` for GitHub code scanning (docs/lint.md).
 *
 * Rules are the issue catalogue (stable ids = code names, in amx_code order so ruleIndex is the
 * code's number; names are the codes in PascalCase; helpUri the code's section of
 * docs/rules.md). GitHub takes at most 25,000 results per run and shows 5,000: results come
 * the most severe first and stop at --max-results (default 5,000), and a run notification
 * says what was left out; --group-by file|code writes one result per file or per code with
 * the count and the first locations. Results carry a repository-relative artifact URI (an archive member points at
 * its archive; the member is in the message and the properties), a region at line 1 since the
 * assets are binary (the byte offset goes in the message and properties), and
 * partialFingerprints from the finding's identity (code + path + context, never the message). */
#include "lint.h"

#include "animidx/json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef AMX_DOCS_URL
#define AMX_DOCS_URL "file:///usr/local/share/doc/animidx"
#endif

const char *cli_docs_url(void)
{
    return AMX_DOCS_URL;
}

void cli_rule_name(const char *code, char *buf, size_t len)
{
    /* A one-word code would give a name that differs from the id only in case, which SARIF
     * readers treat as the same: those say what they are about. */
    static const struct { const char *code, *name; } one_word[] = {
        { "TRUNCATED", "TruncatedData" }, { "UNSUPPORTED", "UnsupportedVariant" } };
    for (size_t i = 0; i < sizeof one_word / sizeof one_word[0]; i++)
        if (strcmp(code, one_word[i].code) == 0) {
            snprintf(buf, len, "%s", one_word[i].name);
            return;
        }
    size_t n = 0;
    bool up = true;
    for (const char *p = code; *p && n + 1 < len; p++) {
        if (*p == '_') {
            up = true;
            continue;
        }
        buf[n++] = (char)(up ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
        up = false;
    }
    if (!strchr(code, '_') && n + sizeof "Finding" <= len) /* a one-word code not above */
        memcpy(buf + n, "Finding", sizeof "Finding"), n += sizeof "Finding" - 1;
    buf[n] = '\0';
}

/* The code's section of docs/rules.md (GitHub's anchor of the heading "### CODE"). */
static void help_uri(const char *code, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/docs/rules.md#", cli_docs_url());
    for (const char *p = code; n > 0 && (size_t)n + 1 < len && *p; p++)
        buf[n++] = (char)tolower((unsigned char)*p);
    if (n > 0 && (size_t)n < len)
        buf[n] = '\0';
}

static void text_object(amx_json *j, const char *key, const char *text)
{
    amx_json_key(j, key);
    amx_json_begin_object(j);
    amx_json_kstring(j, "text", text);
    amx_json_end_object(j);
}

static void write_rules(amx_json *j, const amx_config *cfg)
{
    amx_json_key(j, "rules");
    amx_json_begin_array(j);
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        const amx_code_info *ci = amx_code_get((amx_code)i);
        amx_severity eff = cli_effective_severity(cfg, (amx_code)i);
        char name[64], uri[1024];
        cli_rule_name(ci->name, name, sizeof name);
        help_uri(ci->name, uri, sizeof uri);
        amx_json_begin_object(j);
        amx_json_kstring(j, "id", ci->name);
        amx_json_kstring(j, "name", name); /* an id is opaque; a name is for people */
        text_object(j, "shortDescription", ci->summary);
        text_object(j, "fullDescription", ci->summary);
        amx_json_kstring(j, "helpUri", uri);
        amx_json_key(j, "help");
        amx_json_begin_object(j);
        amx_json_kstring(j, "text", ci->help);
        amx_json_end_object(j);
        amx_json_key(j, "defaultConfiguration");
        amx_json_begin_object(j);
        amx_json_kbool(j, "enabled", eff != AMX_SEV_OFF);
        amx_json_kstring(j, "level", cli_sarif_level(eff));
        amx_json_end_object(j);
        amx_json_key(j, "properties");
        amx_json_begin_object(j);
        amx_json_key(j, "tags");
        amx_json_begin_array(j);
        amx_json_string(j, "animidx");
        amx_json_end_array(j);
        amx_json_kstring(j, "precision", "very-high");
        amx_json_kstring(j, "problem.severity", eff == AMX_SEV_INFO ? "recommendation"
                                                : cli_sarif_level(eff));
        amx_json_end_object(j);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
}

/* The file a finding is in: its path, or an archive member's archive. */
static size_t file_len(const cli_finding *f)
{
    return f->archive_len ? f->archive_len : strlen(f->path);
}

/* The artifact URI: the root's repository-relative prefix and the file's path, percent-encoded
 * ('#', '%', spaces...); an archive member's URI is its archive's. */
static char *artifact_uri(const lint_run *r, const cli_finding *f)
{
    const char *prefix = r->uri_prefix[lint_root_of(r, f)];
    amx_strbuf m = { 0 };
    cli_uri_escape(&m, prefix ? prefix : "");
    char *file = amx_strndup(f->path, file_len(f));
    cli_uri_escape(&m, file ? file : "");
    free(file);
    return amx_strbuf_take(&m, NULL);
}

static void physical_location(amx_json *j, const lint_run *r, const cli_finding *f)
{
    size_t root = lint_root_of(r, f);
    char *uri = artifact_uri(r, f);
    amx_json_key(j, "physicalLocation");
    amx_json_begin_object(j);
    amx_json_key(j, "artifactLocation");
    amx_json_begin_object(j);
    amx_json_kstring(j, "uri", uri ? uri : "");
    if (!r->uri_prefix[root]) {
        char id[32];
        snprintf(id, sizeof id, "ROOT%zu", root);
        amx_json_kstring(j, "uriBaseId", id);
    }
    amx_json_end_object(j);
    amx_json_key(j, "region");
    amx_json_begin_object(j);
    amx_json_kint(j, "startLine", 1); /* binary: the offset is in the message and properties */
    amx_json_end_object(j);
    amx_json_end_object(j);
    free(uri);
}

static void write_location(amx_json *j, const lint_run *r, const cli_finding *f)
{
    amx_json_key(j, "locations");
    amx_json_begin_array(j);
    amx_json_begin_object(j);
    physical_location(j, r, f);
    if (f->context[0] || f->archive_len) {
        /* The logical location: the archive member and/or the bone, chunk or record. */
        char name[2048];
        snprintf(name, sizeof name, "%s%s%s", f->path, f->context[0] ? ": " : "", f->context);
        amx_json_key(j, "logicalLocations");
        amx_json_begin_array(j);
        amx_json_begin_object(j);
        amx_json_kstring(j, "fullyQualifiedName", name);
        amx_json_end_object(j);
        amx_json_end_array(j);
    }
    amx_json_end_object(j);
    amx_json_end_array(j);
}

/* "message (archive member M, byte offset N, context)" */
static void finding_text(const cli_finding *f, char *text, size_t size)
{
    int n = snprintf(text, size, "%s", f->message);
    const char *member = f->archive_len ? f->path + f->archive_len + 1 : NULL;
    if (n >= 0 && (size_t)n < size && (f->offset >= 0 || f->context[0] || member)) {
        n += snprintf(text + n, size - (size_t)n, " (");
        const char *sep = "";
        if (member && (size_t)n < size) {
            n += snprintf(text + n, size - (size_t)n, "archive member %s", member);
            sep = ", ";
        }
        if (f->offset >= 0 && (size_t)n < size) {
            n += snprintf(text + n, size - (size_t)n, "%sbyte offset %lld", sep,
                          (long long)f->offset);
            sep = ", ";
        }
        if (f->context[0] && (size_t)n < size)
            n += snprintf(text + n, size - (size_t)n, "%s%s", sep, f->context);
        if ((size_t)n < size)
            snprintf(text + n, size - (size_t)n, ")");
    }
}

static void rule_of(amx_json *j, const char *code)
{
    amx_code c = AMX_C_TRUNCATED;
    amx_json_kstring(j, "ruleId", code);
    if (amx_code_parse(code, &c))
        amx_json_kint(j, "ruleIndex", (int64_t)c);
}

static void fingerprints(amx_json *j, const char *fp)
{
    amx_json_key(j, "partialFingerprints");
    amx_json_begin_object(j);
    /* Our own hash as the one GitHub uses: upload-sarif would otherwise hash "line 1" of a
     * binary file, which changes with any edit. */
    amx_json_kstring(j, "primaryLocationLineHash", fp);
    amx_json_kstring(j, "animidxFinding/v1", fp);
    amx_json_end_object(j);
}

static void write_result(amx_json *j, const lint_run *r, const cli_finding *f)
{
    amx_json_begin_object(j);
    rule_of(j, f->code);
    amx_json_kstring(j, "level", cli_sarif_level(f->severity));
    /* The message first (GitHub shows its first sentence), then where in the binary file. */
    char text[4096];
    finding_text(f, text, sizeof text);
    text_object(j, "message", text);
    write_location(j, r, f);
    char fp[48];
    cli_finding_fingerprint(f, fp, sizeof fp);
    fingerprints(j, fp);
    if (r->have_baseline)
        amx_json_kstring(j, "baselineState", "new");
    amx_json_key(j, "properties");
    amx_json_begin_object(j);
    amx_json_kstring(j, "path", f->path);
    amx_json_kstring(j, "format", f->format);
    amx_json_kstring(j, "context", f->context);
    amx_json_key(j, "offset");
    if (f->offset >= 0)
        amx_json_int(j, f->offset);
    else
        amx_json_null(j);
    amx_json_end_object(j);
    amx_json_end_object(j);
}

/* ---- results, the most severe first, grouped or not ---- */

/* One result to write: a finding, or a group of findings (of one file, or of one code). The
 * members of a group are the indices `idx[first .. first + count)`, in their listing order. */
typedef struct item {
    size_t first, count;
    amx_severity level;           /* the most severe member's */
    size_t files;                 /* SARIF_BY_CODE: the files it spans */
} item;

typedef struct items {
    const cli_finding *v;
    size_t *idx;                  /* finding indices, grouped */
    item *it;
    size_t n;
} items;

static int by_level(const void *a, const void *b, void *arg)
{
    const item *x = a, *y = b;
    (void)arg;
    if (x->level != y->level)
        return x->level > y->level ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first); /* stable: the listing order */
}

static int by_severity_then_order(const void *a, const void *b, void *arg)
{
    const cli_finding *v = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (v[x].severity != v[y].severity)
        return v[x].severity > v[y].severity ? -1 : 1;
    return (x > y) - (x < y);
}

static int by_code_then_order(const void *a, const void *b, void *arg)
{
    const cli_finding *v = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(v[x].code, v[y].code);
    return c ? c : (x > y) - (x < y);
}

/* Builds the results: every finding that counts, one item each or grouped, sorted the most
 * severe first (in the listing order within a severity). Returns -1 when out of memory. */
static int build_items(const lint_run *r, sarif_grouping g, items *out)
{
    const cli_findings *l = &r->findings;
    *out = (items){ .v = l->v };
    out->idx = malloc((l->n + 1) * sizeof *out->idx);
    out->it = malloc((l->n + 1) * sizeof *out->it);
    if (!out->idx || !out->it)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (lint_counts(&l->v[i]))
            out->idx[n++] = i;
    if (g == SARIF_BY_CODE)
        amx_sort(out->idx, n, sizeof *out->idx, by_code_then_order, (void *)l->v);
    for (size_t k = 0; k < n;) {
        size_t end = k + 1;
        const cli_finding *head = &l->v[out->idx[k]];
        if (g == SARIF_BY_FILE)
            while (end < n && strcmp(l->v[out->idx[end]].path, head->path) == 0 &&
                   strcmp(l->v[out->idx[end]].root, head->root) == 0)
                end++;
        else if (g == SARIF_BY_CODE)
            while (end < n && strcmp(l->v[out->idx[end]].code, head->code) == 0)
                end++;
        item it = { .first = k, .count = end - k, .level = AMX_SEV_INFO };
        const char *last_path = NULL, *last_root = NULL;
        for (size_t m = k; m < end; m++) {
            const cli_finding *f = &l->v[out->idx[m]];
            if (f->severity > it.level && f->severity <= AMX_SEV_ERROR)
                it.level = f->severity;
            if (!last_path || strcmp(f->path, last_path) || strcmp(f->root, last_root))
                it.files++;
            last_path = f->path;
            last_root = f->root;
        }
        /* within a group, its most severe members first */
        amx_sort(out->idx + k, end - k, sizeof *out->idx, by_severity_then_order, (void *)l->v);
        out->it[out->n++] = it;
        k = end;
    }
    amx_sort(out->it, out->n, sizeof *out->it, by_level, NULL);
    return 0;
}

enum { GROUP_LOCATIONS = 10 };   /* a group's first locations: one, and nine related ones */

/* One result for a group of findings: the count, the codes (of a file) or files (of a code),
 * the first locations; its rule is the code (by code) or the most severe code (by file). */
static void write_group(amx_json *j, const lint_run *r, const items *in, const item *it,
                        sarif_grouping g)
{
    const cli_finding *first = &in->v[in->idx[it->first]];
    amx_json_begin_object(j);
    rule_of(j, first->code);
    amx_json_kstring(j, "level", cli_sarif_level(it->level));
    amx_strbuf mb = { 0 }, *m = &mb;
    {
        if (g == SARIF_BY_FILE) {
            amx_strbuf_printf(m, "%zu finding%s in this file:", it->count, it->count == 1 ? "" : "s");
            /* the codes with their counts, in order of first appearance */
            for (size_t a = it->first; a < it->first + it->count; a++) {
                const char *code = in->v[in->idx[a]].code;
                bool seen = false;
                for (size_t b = it->first; b < a && !seen; b++)
                    seen = strcmp(in->v[in->idx[b]].code, code) == 0;
                if (seen)
                    continue;
                size_t k = 0;
                for (size_t b = a; b < it->first + it->count; b++)
                    k += strcmp(in->v[in->idx[b]].code, code) == 0;
                amx_strbuf_printf(m, "%s %zu %s", a == it->first ? "" : ",", k, code);
            }
        } else {
            amx_strbuf_printf(m, "%zu finding%s of %s in %zu file%s", it->count, it->count == 1 ? "" : "s",
                    first->code, it->files, it->files == 1 ? "" : "s");
        }
        char one[4096];
        finding_text(first, one, sizeof one);
        amx_strbuf_printf(m, ". First: %s%s%s", g == SARIF_BY_CODE ? first->path : "",
                g == SARIF_BY_CODE ? ": " : "", one);
    }
    char *text = amx_strbuf_take(m, NULL);
    text_object(j, "message", text ? text : "");
    free(text);
    write_location(j, r, first);
    if (g == SARIF_BY_CODE && it->files > 1) {
        /* the next files of the code, one location each */
        amx_json_key(j, "relatedLocations");
        amx_json_begin_array(j);
        const char *last = first->path;
        int id = 1;
        for (size_t a = it->first + 1; a < it->first + it->count && id < GROUP_LOCATIONS; a++) {
            const cli_finding *f = &in->v[in->idx[a]];
            if (strcmp(f->path, last) == 0)
                continue;
            last = f->path;
            amx_json_begin_object(j);
            amx_json_kint(j, "id", id++);
            physical_location(j, r, f);
            text_object(j, "message", f->path);
            amx_json_end_object(j);
        }
        amx_json_end_array(j);
    }
    /* The group's identity: its file, or its code (stable across runs and checkouts). */
    cli_finding key = { .key = g == SARIF_BY_FILE ? first->path : first->code };
    char fp[64];
    cli_finding_fingerprint(&key, fp, sizeof fp);
    fingerprints(j, fp);
    if (r->have_baseline)
        amx_json_kstring(j, "baselineState", "new");
    amx_json_key(j, "properties");
    amx_json_begin_object(j);
    amx_json_kstring(j, "group", g == SARIF_BY_FILE ? "file" : "code");
    amx_json_kint(j, "count", (int64_t)it->count);
    if (g == SARIF_BY_FILE) {
        amx_json_kstring(j, "path", first->path);
        amx_json_kstring(j, "format", first->format);
    } else {
        amx_json_kint(j, "files", (int64_t)it->files);
    }
    amx_json_end_object(j);
    amx_json_end_object(j);
}

static void notification(amx_json *j, const char *id, const char *level, const char *msg)
{
    amx_json_begin_object(j);
    if (id) {
        amx_json_key(j, "descriptor");
        amx_json_begin_object(j);
        amx_json_kstring(j, "id", id);
        amx_json_end_object(j);
    }
    amx_json_kstring(j, "level", level);
    text_object(j, "message", msg);
    amx_json_end_object(j);
}

void lint_write_sarif(FILE *out, const lint_run *r, const amx_config *cfg, sarif_opts *so)
{
    items in;
    bool oom = build_items(r, so->group, &in) != 0;
    amx_json j;
    amx_json_init(&j, out, true);
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    amx_json_kstring(&j, "version", "2.1.0");
    amx_json_key(&j, "runs");
    amx_json_begin_array(&j);
    amx_json_begin_object(&j);

    amx_json_key(&j, "tool");
    amx_json_begin_object(&j);
    amx_json_key(&j, "driver");
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "name", "animidx");
    amx_json_kstring(&j, "version", AMX_VERSION_STRING);
    amx_json_kstring(&j, "semanticVersion", AMX_VERSION_STRING);
    char info[1024];
    snprintf(info, sizeof info, "%s/README.md", cli_docs_url());
    amx_json_kstring(&j, "informationUri", info);
    write_rules(&j, cfg);
    amx_json_end_object(&j);
    amx_json_end_object(&j);

    bool any_base = false;
    for (size_t i = 0; i < r->nroots; i++)
        any_base |= r->uri_prefix[i] == NULL;
    if (any_base) {
        amx_json_key(&j, "originalUriBaseIds");
        amx_json_begin_object(&j);
        for (size_t i = 0; i < r->nroots; i++) {
            if (r->uri_prefix[i])
                continue;
            char id[32];
            snprintf(id, sizeof id, "ROOT%zu", i);
            amx_strbuf m = { 0 };
            cli_file_uri(&m, r->roots[i]);
            if (m.len && m.s[m.len - 1] != '/') /* a drive's root "C:/" has its '/' */
                amx_strbuf_putc(&m, '/');
            char *uri = amx_strbuf_take(&m, NULL);
            amx_json_key(&j, id);
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "uri", uri ? uri : "");
            amx_json_end_object(&j);
            free(uri);
        }
        amx_json_end_object(&j);
    }

    amx_json_key(&j, "results");
    amx_json_begin_array(&j);
    so->results = oom ? 0 : in.n;
    so->written = 0;
    so->left[0] = so->left[1] = so->left[2] = 0;
    for (size_t i = 0; !oom && i < in.n; i++) {
        const item *it = &in.it[i];
        if (so->written == (size_t)so->max_results) {
            so->left[it->level]++;
            continue;
        }
        so->written++;
        if (so->group == SARIF_EACH)
            write_result(&j, r, &r->findings.v[in.idx[it->first]]);
        else
            write_group(&j, r, &in, it, so->group);
    }
    amx_json_end_array(&j);

    /* Unused suppressions are tool notifications: visible, never results. */
    amx_json_key(&j, "invocations");
    amx_json_begin_array(&j);
    amx_json_begin_object(&j);
    amx_json_kbool(&j, "executionSuccessful", !oom);
    amx_json_key(&j, "properties"); /* which configuration the rules came from */
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "config", cfg->source);
    amx_json_end_object(&j);
    amx_json_key(&j, "toolExecutionNotifications");
    amx_json_begin_array(&j);
    if (so->written < so->results) {
        /* What the cap left out: GitHub would reject a run over 25,000 results and shows
         * only the first 5,000. */
        char msg[1024];
        snprintf(msg, sizeof msg,
                 "%zu of %zu results left out (--max-results %d; the most severe come first): "
                 "%zu error%s, %zu warning%s, %zu note%s. Run 'animidx lint' (text) for all "
                 "of them, or --group-by file or code for one result per file or code.",
                 so->results - so->written, so->results, so->max_results,
                 so->left[AMX_SEV_ERROR], cli_s(so->left[AMX_SEV_ERROR]),
                 so->left[AMX_SEV_WARNING], cli_s(so->left[AMX_SEV_WARNING]),
                 so->left[AMX_SEV_INFO], cli_s(so->left[AMX_SEV_INFO]));
        notification(&j, "animidx/results-left-out", "warning", msg);
    }
    if (oom)
        notification(&j, NULL, "error", "out of memory: no results were written");
    for (size_t k = 0; k < r->supp.n; k++) {
        if (r->supp.v[k].used)
            continue;
        char msg[2048];
        snprintf(msg, sizeof msg, "unused suppression: %s %s (%s)", r->supp.v[k].code,
                 r->supp.v[k].path, r->supp.v[k].reason);
        notification(&j, NULL, "warning", msg);
    }
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    amx_json_end_array(&j);

    amx_json_end_object(&j);
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    fputc('\n', out);
    free(in.idx);
    free(in.it);
}
