/* animidx changes: what the last scan of each root (or every scan since one) added, changed and
 * removed, from the index's record of its scans (sql/migrations/0009_scan_changes.sql). */
#include "cli.h"

#include "animidx/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct changes_ctx {
    bool json;
    amx_json j;
    char root[4096];
    int64_t scan;
    size_t n[3];      /* added, changed, removed */
} changes_ctx;

static void change_row(const amx_change_row *r, void *user)
{
    changes_ctx *c = user;
    int k = strcmp(r->change, "added") == 0 ? 0 : strcmp(r->change, "changed") == 0 ? 1 : 2;
    c->n[k]++;
    if (c->json) {
        amx_json_begin_object(&c->j);
        amx_json_kstring(&c->j, "root", r->root);
        amx_json_kstring(&c->j, "path", r->path);
        amx_json_kstring(&c->j, "change", r->change);
        amx_json_kstring(&c->j, "format", r->format);
        amx_json_key(&c->j, "scan");
        if (r->scan_id >= 0)
            amx_json_int(&c->j, r->scan_id);
        else
            amx_json_null(&c->j);
        amx_json_kint(&c->j, "at", r->at);
        amx_json_end_object(&c->j);
        return;
    }
    if (strcmp(c->root, r->root) != 0 || c->scan != r->scan_id) {
        snprintf(c->root, sizeof c->root, "%s", r->root);
        c->scan = r->scan_id;
        amx_tm tm;
        amx_time_utc(r->at, &tm);
        char when[40];
        snprintf(when, sizeof when, "%04d-%02d-%02d %02d:%02d:%02d UTC", tm.year, tm.month,
                 tm.day, tm.hour, tm.min, tm.sec);
        if (r->scan_id >= 0)
            cli_printf("%s, scan %lld (%s):\n", r->root, (long long)r->scan_id, when);
        else
            cli_printf("%s, changes the watcher indexed since the last scan:\n", r->root);
    }
    static const char sign[] = { '+', '~', '-' };
    const char *on = k == 2 ? cli_sev_on(AMX_SEV_ERROR) : k == 0 ? cli_sev_on(AMX_SEV_INFO) : "";
    cli_printf("  %s%c %-8s%s %s  (%s)\n", on, sign[k], r->change, on[0] ? cli_color_off() : "",
               r->path, r->format);
}

/* "12" (a scan id) or "2024-05-01" / "2024-05-01T12:00:00" (UTC) */
static bool parse_since(const char *s, int64_t *scan, int64_t *at)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end != s && !*end && v >= 0) {
        *scan = v;
        return true;
    }
    return amx_time_parse(s, at);
}

int cmd_changes(cli_opts *o, amx_config *cfg)
{
    if (o->nargs) {
        cli_error("changes: unexpected argument '%s'; 'animidx changes --since SCAN' lists the "
                  "changes since a scan", o->args[0]);
        return EXIT_USAGE;
    }
    int64_t since_scan = -1, since_time = -1;
    if (o->since && !parse_since(o->since, &since_scan, &since_time)) {
        cli_error("--since: expected a scan id (a number) or a date YYYY-MM-DD[THH:MM:SS], got '%s'",
                  o->since);
        return EXIT_USAGE;
    }
    amx_db *db = cli_open_db_readonly(cfg);
    if (!db)
        return EXIT_IO;
    changes_ctx c = { .json = o->json, .scan = -2 };
    if (o->json) {
        amx_json_init(&c.j, stdout, true);
        amx_json_begin_array(&c.j);
    }
    char err[1024];
    amx_status st = amx_query_changes(db, since_scan, since_time, change_row, &c, err, sizeof err);
    amx_db_close(db);
    if (o->json) {
        amx_json_end_array(&c.j);
        fputc('\n', stdout);
    }
    if (st) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    if (!o->json)
        cli_printf("%zu added, %zu changed, %zu removed\n", c.n[0], c.n[1], c.n[2]);
    return EXIT_OK;
}
