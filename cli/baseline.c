/* Baselines and suppressions for `animidx lint` (docs/lint.md).
 *
 * A baseline records the findings of one run by identity (code + path + context, see
 * findings.c); a later run with --baseline counts only the findings beyond it. A suppression
 * file lists {code, path glob, reason}; a finding one matches does not count, and a
 * suppression that matches nothing is reported so the file can be pruned. */
#include "lint.h"

#include "animidx/json.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct supp_ctx {
    cli_suppressions *out;
    const char *file;
    char *err;
    size_t errlen;
} supp_ctx;

static const char *const supp_fields[] = { "code", "path", "reason" };

static int supp_row(sqlite3_stmt *s, size_t index, void *user)
{
    supp_ctx *c = user;
    const char *code = cli_json_text(s, 0), *path = cli_json_text(s, 1), *reason = cli_json_text(s, 2);
    amx_code known;
    if (!code || !path || !reason || !reason[0]) {
        snprintf(c->err, c->errlen,
                 "%s: suppressions[%zu] needs \"code\", \"path\" and a non-empty \"reason\"",
                 c->file, index);
        return EXIT_USAGE;
    }
    if (strcmp(code, "*") != 0 && !amx_code_parse(code, &known)) {
        snprintf(c->err, c->errlen,
                 "%s: suppressions[%zu]: unknown issue code '%s' ('animidx rules' lists them)",
                 c->file, index, code);
        return EXIT_USAGE;
    }
    cli_suppression *v = realloc(c->out->v, (c->out->n + 1) * sizeof *v);
    if (!v) {
        snprintf(c->err, c->errlen, "out of memory");
        return EXIT_IO;
    }
    c->out->v = v;
    cli_suppression *e = &v[c->out->n];
    *e = (cli_suppression){ .code = strdup(code), .path = strdup(path), .reason = strdup(reason) };
    c->out->n++;
    if (!e->code || !e->path || !e->reason) {
        snprintf(c->err, c->errlen, "out of memory");
        return EXIT_IO;
    }
    return EXIT_OK;
}

int cli_suppressions_load(const char *file, cli_suppressions *out, char *err, size_t errlen)
{
    supp_ctx c = { out, file, err, errlen };
    return cli_json_each(file, "suppressions", supp_fields, sizeof supp_fields / sizeof supp_fields[0],
                         supp_row, &c, err, errlen);
}

void cli_suppressions_apply(cli_suppressions *s, cli_findings *l)
{
    for (size_t i = 0; i < l->n; i++) {
        cli_finding *f = &l->v[i];
        for (size_t k = 0; k < s->n; k++) {
            cli_suppression *e = &s->v[k];
            if ((strcmp(e->code, "*") == 0 || strcasecmp(e->code, f->code) == 0) &&
                amx_glob_match(e->path, f->path, true)) {
                f->suppressed = true;
                e->used++;
            }
        }
    }
}

void cli_suppressions_free(cli_suppressions *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].code);
        free(s->v[i].path);
        free(s->v[i].reason);
    }
    free(s->v);
    *s = (cli_suppressions){ 0 };
}

int cli_baseline_write(const char *file, const cli_findings *l, char *err, size_t errlen)
{
    /* written beside and renamed over FILE: never through a link planted there */
    amx_output o;
    if (amx_output_open(&o, file, err, errlen) != 0)
        return EXIT_IO;
    FILE *out = o.f;
    char now[32];
    cli_iso_time((int64_t)time(NULL), now, sizeof now);
    amx_json j;
    amx_json_init(&j, out, true);
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "kind", "animidx-baseline");
    amx_json_kint(&j, "schema", 1);
    amx_json_kstring(&j, "tool_version", AMX_VERSION_STRING);
    amx_json_kstring(&j, "created_at", now);
    amx_json_key(&j, "findings");
    amx_json_begin_array(&j);
    /* Identity is code + path + context; severity and message are there for the reader. */
    for (size_t i = 0; i < l->n; i++) {
        const cli_finding *f = &l->v[i];
        if (f->suppressed)
            continue;
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "code", f->code);
        amx_json_kstring(&j, "path", f->path);
        amx_json_kstring(&j, "context", f->context);
        amx_json_kstring(&j, "severity", amx_severity_name(f->severity));
        amx_json_kstring(&j, "message", f->message);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    fputc('\n', out);
    return amx_output_commit(&o, err, errlen) == 0 ? EXIT_OK : EXIT_IO;
}
