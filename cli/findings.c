/* Findings as lint and report handle them: an owned list, the identity of a finding (the one
 * definition used by baselines, SARIF fingerprints and report diffs), matching two lists, and
 * reading them from the index or from a JSON file. */
#include "lint.h"

#include "animidx/json.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

/* The identity of a finding: its code, its root-relative path and its logical context (e.g.
 * "bone 2"), joined by a separator no path or name contains. Never the message (it carries
 * values that change) nor the byte offset (edits move it). */
static char *identity(const char *code, const char *path, const char *context)
{
    size_t n = strlen(code) + strlen(path) + strlen(context) + 3;
    char *k = malloc(n);
    if (k)
        snprintf(k, n, "%s\x1f%s\x1f%s", code, path, context);
    return k;
}

int cli_findings_add(cli_findings *l, const char *root, const char *path, const char *code,
                     amx_severity severity, const char *message, int64_t offset,
                     const char *context, const char *format)
{
    if (!cli_grow((void **)&l->v, &l->cap, l->n, sizeof *l->v))
        return -1;
    cli_finding f = {
        .root = dup_or_empty(root), .path = dup_or_empty(path), .code = dup_or_empty(code),
        .message = dup_or_empty(message), .context = dup_or_empty(context),
        .format = dup_or_empty(format), .severity = severity, .offset = offset,
    };
    if (f.path && f.code && f.context)
        f.key = identity(f.code, f.path, f.context);
    if (!f.root || !f.path || !f.code || !f.message || !f.context || !f.format || !f.key) {
        free(f.root), free(f.path), free(f.code), free(f.message), free(f.context);
        free(f.format), free(f.key);
        return -1;
    }
    l->v[l->n++] = f;
    return 0;
}

static void finding_free(cli_finding *f)
{
    free(f->root), free(f->path), free(f->code), free(f->message), free(f->context);
    free(f->format), free(f->key);
}

void cli_findings_free(cli_findings *l)
{
    for (size_t i = 0; i < l->n; i++)
        finding_free(&l->v[i]);
    free(l->v);
    *l = (cli_findings){ 0 };
}

void cli_findings_keep(cli_findings *l, bool (*keep)(const cli_finding *f))
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (keep(&l->v[i]))
            l->v[k++] = l->v[i];
        else
            finding_free(&l->v[i]);
    }
    l->n = k;
}

/* Sorting indices by key, then by position (so equal keys keep the list's order). */
typedef struct keyed { const char *key; size_t pos; } keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static keyed *sorted_keys(const cli_findings *l)
{
    keyed *k = malloc((l->n ? l->n : 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < l->n; i++)
        k[i] = (keyed){ l->v[i].key, i };
    qsort(k, l->n, sizeof *k, keyed_cmp);
    return k;
}

void cli_findings_number(cli_findings *l)
{
    keyed *k = sorted_keys(l);
    if (!k) {
        for (size_t i = 0; i < l->n; i++)
            l->v[i].ordinal = 0;
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        l->v[k[i].pos].ordinal =
            i > 0 && strcmp(k[i].key, k[i - 1].key) == 0 ? l->v[k[i - 1].pos].ordinal + 1 : 0;
    free(k);
}

void cli_finding_fingerprint(const cli_finding *f, char *buf, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
    for (const unsigned char *p = (const unsigned char *)f->key; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    snprintf(buf, len, "%016llx:%u", (unsigned long long)h, f->ordinal);
}

int cli_findings_match(const cli_findings *a, const cli_findings *b, bool *a_hit, bool *b_hit)
{
    keyed *ka = sorted_keys(a), *kb = sorted_keys(b);
    if (!ka || !kb) {
        free(ka);
        free(kb);
        return -1;
    }
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int c = strcmp(ka[i].key, kb[j].key);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            if (a_hit)
                a_hit[ka[i].pos] = true;
            if (b_hit)
                b_hit[kb[j].pos] = true;
            i++;
            j++;
        }
    }
    free(ka);
    free(kb);
    return 0;
}

int cli_findings_mark_baselined(cli_findings *l, const cli_findings *base)
{
    bool *hit = calloc(l->n + 1, sizeof *hit);
    if (!hit || cli_findings_match(l, base, hit, NULL) != 0) {
        free(hit);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++)
        l->v[i].baselined = hit[i];
    free(hit);
    return 0;
}

typedef struct collect {
    cli_findings *out;
    bool (*want)(const char *root, const char *path, void *user);
    void *user;
    bool oom;
} collect;

static void collect_row(const amx_issue_row *r, void *user)
{
    collect *c = user;
    bool wanted = !c->want || c->want(r->root, r->path, c->user);
    if (wanted && cli_findings_add(c->out, r->root, r->path, r->code, r->severity, r->message,
                                   r->offset, r->context, r->format) != 0)
        c->oom = true;
    else if (wanted && r->container)
        c->out->v[c->out->n - 1].archive_len = strlen(r->container);
}

int cli_findings_from_index(amx_db *db, const amx_config *cfg, bool include_base,
                            bool (*want)(const char *root, const char *path, void *user),
                            void *user, cli_findings *out)
{
    collect c = { .out = out, .want = want, .user = user };
    char err[1024];
    amx_issue_filter filter = { .include_base = include_base };
    if (amx_query_issues(db, cfg, &filter, collect_row, &c, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    if (c.oom) {
        cli_error("out of memory");
        return EXIT_IO;
    }
    cli_findings_number(out);
    return EXIT_OK;
}

void cli_finding_json(amx_json *j, const cli_finding *f, const char *state)
{
    char fp[48];
    cli_finding_fingerprint(f, fp, sizeof fp);
    amx_json_begin_object(j);
    amx_json_kstring(j, "path", f->path);
    amx_json_kstring(j, "code", f->code);
    amx_json_kstring(j, "severity", amx_severity_name(f->severity));
    amx_json_kstring(j, "message", f->message);
    amx_json_key(j, "offset");
    if (f->offset >= 0)
        amx_json_int(j, f->offset);
    else
        amx_json_null(j);
    amx_json_kstring(j, "context", f->context);
    amx_json_kstring(j, "format", f->format);
    amx_json_kstring(j, "root", f->root);
    amx_json_kstring(j, "fingerprint", fp);
    if (state)
        amx_json_kstring(j, "state", state);
    amx_json_end_object(j);
}

amx_severity cli_effective_severity(const amx_config *cfg, amx_code code)
{
    return cli_effective_severity_of(cfg, code);
}

amx_severity cli_effective_severity_of(const amx_config *cfg, amx_code code)
{
    if (cfg && cfg->severity_set[code])
        return cfg->severity[code];
    return amx_code_get(code)->severity;
}

void cli_findings_totals(const cli_findings *l, uint64_t totals[3])
{
    totals[0] = totals[1] = totals[2] = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i].suppressed && !l->v[i].baselined && l->v[i].severity <= AMX_SEV_ERROR)
            totals[l->v[i].severity]++;
}

/* ---- reading JSON files: SQLite's JSON functions do the parsing ---- */

int cli_json_each(const char *file, const char *array, const char *const *fields, size_t nfields,
                  int (*row)(sqlite3_stmt *s, size_t index, void *user), void *user, char *err,
                  size_t errlen)
{
    size_t len = 0;
    amx_read_why why;
    char *text = (char *)amx_read_regular(file, AMX_SIDE_FILE_MAX, &len, &why, err, errlen);
    if (!text) {
        if (why == AMX_READ_IO)
            return EXIT_IO;
        /* a FIFO, a device or a huge file is not the file that was meant: a usage error */
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, "; expected a JSON file of at most %llu MiB (docs/lint.md)",
                 (unsigned long long)(AMX_SIDE_FILE_MAX >> 20));
        return EXIT_USAGE;
    }
    sqlite3 *mem = NULL;
    sqlite3_stmt *s = NULL;
    int rc = EXIT_IO;
    char *sql = NULL;
    if (sqlite3_open(":memory:", &mem) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot parse: %s", file, sqlite3_errmsg(mem));
        goto out;
    }
    /* The array is either the document itself or its member `array`. */
    sqlite3_str *q = sqlite3_str_new(mem);
    sqlite3_str_appendall(q, "SELECT json_type(value)");
    for (size_t i = 0; i < nfields; i++)
        sqlite3_str_appendf(q, ", json_extract(value, '$.%s'), json_type(value, '$.%s')",
                            fields[i], fields[i]);
    sqlite3_str_appendf(q, " FROM json_each(?1, CASE json_type(?1) WHEN 'array' THEN '$' "
                           "ELSE '$.%s' END)",
                        array);
    sql = sqlite3_str_finish(q);
    sqlite3_stmt *chk = NULL;
    if (!sql || sqlite3_prepare_v2(mem, "SELECT json_valid(?1), json_type(?1), "
                                        "json_type(?1, '$.' || ?2)",
                                   -1, &chk, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: out of memory", file);
        goto out;
    }
    sqlite3_bind_text(chk, 1, text, (int)len, SQLITE_STATIC);
    sqlite3_bind_text(chk, 2, array, -1, SQLITE_STATIC);
    bool ok = sqlite3_step(chk) == SQLITE_ROW && sqlite3_column_int(chk, 0) == 1;
    const char *top = ok ? (const char *)sqlite3_column_text(chk, 1) : NULL;
    const char *arr = ok ? (const char *)sqlite3_column_text(chk, 2) : NULL;
    bool shape = top && (strcmp(top, "array") == 0 || (arr && strcmp(arr, "array") == 0));
    sqlite3_finalize(chk);
    if (!ok || !shape) {
        if (!ok)
            snprintf(err, errlen, "%s: not valid JSON", file);
        else
            snprintf(err, errlen, "%s: expected an object with an array \"%s\" (see docs/lint.md)",
                     file, array);
        rc = EXIT_USAGE;
        goto out;
    }
    if (sqlite3_prepare_v2(mem, sql, -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", file, sqlite3_errmsg(mem));
        goto out;
    }
    sqlite3_bind_text(s, 1, text, (int)len, SQLITE_STATIC);
    rc = EXIT_OK;
    size_t index = 0;
    int step;
    while (rc == EXIT_OK && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        if (!t || strcmp(t, "object") != 0) {
            snprintf(err, errlen, "%s: %s[%zu] is not an object", file, array, index);
            rc = EXIT_USAGE;
            break;
        }
        rc = row(s, index++, user);
    }
    if (rc == EXIT_OK && step != SQLITE_DONE) {
        snprintf(err, errlen, "%s: %s", file, sqlite3_errmsg(mem));
        rc = EXIT_USAGE;
    }
out:
    sqlite3_finalize(s);
    sqlite3_free(sql);
    sqlite3_close(mem);
    free(text);
    return rc;
}

/* Column of field k (0-based) and of its JSON type, in a cli_json_each row. */
#define FIELD(k) (1 + 2 * (k))
#define FIELD_TYPE(k) (2 + 2 * (k))

const char *cli_json_text(sqlite3_stmt *s, int k)
{
    const char *t = (const char *)sqlite3_column_text(s, FIELD_TYPE(k));
    if (!t || strcmp(t, "text") != 0)
        return NULL;
    return (const char *)sqlite3_column_text(s, FIELD(k));
}

typedef struct load_ctx {
    cli_findings *out;
    const char *file;
    char *err;
    size_t errlen;
} load_ctx;

static const char *const finding_fields[] = { "code", "path", "context", "severity", "message",
                                              "offset", "format", "root" };

static int load_row(sqlite3_stmt *s, size_t index, void *user)
{
    load_ctx *c = user;
    const char *code = cli_json_text(s, 0), *path = cli_json_text(s, 1);
    if (!code || !path) {
        snprintf(c->err, c->errlen, "%s: findings[%zu] needs \"code\" and \"path\" strings", c->file,
                 index);
        return EXIT_USAGE;
    }
    amx_severity sev = AMX_SEV_ERROR;
    const char *sv = cli_json_text(s, 3);
    if (sv)
        amx_severity_parse(sv, &sev);
    const char *ot = (const char *)sqlite3_column_text(s, FIELD_TYPE(5));
    int64_t off = ot && strcmp(ot, "integer") == 0 ? sqlite3_column_int64(s, FIELD(5)) : -1;
    if (cli_findings_add(c->out, cli_json_text(s, 7), path, code, sev, cli_json_text(s, 4), off,
                         cli_json_text(s, 2), cli_json_text(s, 6)) != 0) {
        snprintf(c->err, c->errlen, "out of memory");
        return EXIT_IO;
    }
    return EXIT_OK;
}

int cli_findings_load(const char *file, cli_findings *out, char *err, size_t errlen)
{
    load_ctx c = { out, file, err, errlen };
    int rc = cli_json_each(file, "findings", finding_fields,
                           sizeof finding_fields / sizeof finding_fields[0], load_row, &c, err,
                           errlen);
    if (rc == EXIT_OK)
        cli_findings_number(out);
    return rc;
}
