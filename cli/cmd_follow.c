/*
 * animidx watch --lint and animidx status --follow: the findings that appear and go while the
 * daemon indexes changes (docs/lint.md, "watch --lint and status --follow").
 *
 * The command asks the daemon to follow ({"cmd": "follow"}): its reply names the index and the
 * roots, then a line comes after every batch it indexed. Once the first scan is done, the
 * findings of the roots are read from the index (read-only), counted as lint counts them (the
 * config's severities, --suppressions, --baseline), and after each batch matched by identity
 * with the previous read (cli_findings_match): each finding that appeared is a "+" line, each
 * that went a "-" line (or, with --json, one JSON object each); nothing when nothing changed.
 */
#include "cmd_daemon.h"
#include "lint.h"

#include "animidx/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (64 * 1024)      /* a daemon line is far shorter */
#define POLL_MS 250               /* how often a watch looks whether its daemon is still there */

struct follow {
    cli_opts *o;
    amx_config *cfg;
    amx_os_child *daemon;         /* the animidxd watch started (NULL: status --follow) */
    amx_severity gate;
    cli_suppressions supp;
    cli_findings base;
    bool have_base;
    char **roots, **prefix;       /* the daemon's roots; each one's path from here (or NULL) */
    size_t nroots;
    amx_db *db;
    cli_findings now;             /* the findings that count, as last read */
    amx_os_conn *conn;
    char buf[MAX_LINE];
    size_t len;
};

/* ---- the socket ---- */

typedef enum { LINE, QUIET, GONE, SIGNAL } wait_result;

/* The next line from the daemon into line (NUL-terminated): LINE; QUIET when none came within
 * POLL_MS; GONE when the daemon closed the connection; SIGNAL when interrupted. */
static wait_result next_line(follow *f, char *line, size_t cap)
{
    for (;;) {
        char *nl = memchr(f->buf, '\n', f->len);
        if (nl) {
            size_t n = (size_t)(nl - f->buf);
            size_t keep = n < cap - 1 ? n : cap - 1;
            memcpy(line, f->buf, keep);
            line[keep] = '\0';
            f->len -= n + 1;
            memmove(f->buf, nl + 1, f->len);
            return LINE;
        }
        if (f->len == sizeof f->buf)
            return GONE; /* a line longer than any the daemon writes */
        int r = amx_os_conn_wait(f->conn, POLL_MS);
        if (r == -EINTR || amx_os_interrupted())
            return SIGNAL;
        if (r == 0)
            return QUIET;
        size_t got = 0;
        if (r < 0 || amx_os_conn_read(f->conn, f->buf + f->len, sizeof f->buf - f->len, &got) != 0 ||
            got == 0)
            return GONE;
        f->len += got;
    }
}

/* True when the animidxd this watch started has exited (its status in *status). */
static bool daemon_exited(follow *f, int *status)
{
    if (!f->daemon || !amx_os_child_ended(f->daemon, false, status))
        return false;
    if (*status < 0)
        *status = EXIT_IO;
    amx_os_child_free(f->daemon);
    f->daemon = NULL;
    return true;
}

/* Connects (a watch: as soon as its daemon listens) and asks to follow. EXIT_OK, or the exit
 * status to return. */
static int connect_and_follow(follow *f)
{
    for (;;) {
        int status;
        f->conn = cli_daemon_connect(f->cfg, f->daemon != NULL);
        if (f->conn)
            break;
        if (!f->daemon)
            return EXIT_IO;
        if (daemon_exited(f, &status))
            return status ? status : EXIT_IO; /* it said why */
        if (amx_os_interrupted())
            return EXIT_OK;
        amx_os_sleep_ms(50);
    }
    static const char req[] = "{\"cmd\": \"follow\"}\n";
    int rc = amx_os_conn_write(f->conn, req, sizeof req - 1);
    if (rc != 0) {
        cli_error("%s: sending to animidxd: %s", f->cfg->socket_path, strerror(-rc));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* ---- the findings ---- */

static bool wanted(const char *root, const char *path, void *user)
{
    const follow *f = user;
    (void)path;
    for (size_t i = 0; i < f->nroots; i++)
        if (strcmp(f->roots[i], root) == 0)
            return true;
    return false;
}

/* The findings of the daemon's roots that count, now. */
static int read_findings(follow *f, cli_findings *out)
{
    int rc = cli_findings_from_index(f->db, f->cfg, false, wanted, f, out);
    if (rc != EXIT_OK)
        return rc;
    cli_suppressions_apply(&f->supp, out);
    if (f->have_base && cli_findings_mark_baselined(out, &f->base) != 0)
        return EXIT_IO;
    cli_findings_keep(out, lint_counts);
    return EXIT_OK;
}

static bool failing(const follow *f, const uint64_t totals[3])
{
    for (int s = f->gate; s <= AMX_SEV_ERROR; s++)
        if (totals[s])
            return true;
    return false;
}

/* "1 error, 0 warnings, 2 info; --fail-on error: failing" */
static void write_tally(FILE *out, const follow *f)
{
    uint64_t t[3];
    cli_findings_totals(&f->now, t);
    cli_fprintf(out, "%llu error%s, %llu warning%s, %llu info; --fail-on %s: %s",
            (unsigned long long)t[AMX_SEV_ERROR], t[AMX_SEV_ERROR] == 1 ? "" : "s",
            (unsigned long long)t[AMX_SEV_WARNING], t[AMX_SEV_WARNING] == 1 ? "" : "s",
            (unsigned long long)t[AMX_SEV_INFO], amx_severity_name(f->gate),
            failing(f, t) ? "failing" : "passing");
}

/* One change: "+ error   CODE PATH (offset N, context): message", "- fixed   CODE PATH
 * (context): message" (the fields it had), or one JSON object. Names and messages go through
 * cli_printf: their control characters are escaped, so a change is one line. */
static void write_change(follow *f, const cli_finding *x, bool appeared)
{
    if (f->o->json) {
        amx_json j;
        amx_json_init(&j, stdout, false);
        cli_finding_json(&j, x, appeared ? "new" : "fixed");
        fputc('\n', stdout);
        return;
    }
    const char *prefix = NULL;
    for (size_t i = 0; i < f->nroots; i++)
        if (strcmp(f->roots[i], x->root) == 0)
            prefix = f->prefix[i];
    if (appeared)
        cli_printf("+ %s%-7s%s %s ", cli_sev_on(x->severity), amx_severity_name(x->severity),
                   cli_color_off(), x->code);
    else
        cli_printf("- %sfixed%s   %s ", cli_fixed_on(), cli_color_off(), x->code);
    if (prefix)
        cli_printf("%s%s", prefix, x->path);
    else
        cli_printf("%s/%s", x->root, x->path);
    if (appeared && x->offset >= 0 && x->context[0])
        cli_printf(" (offset %lld, %s)", (long long)x->offset, x->context);
    else if (appeared && x->offset >= 0)
        cli_printf(" (offset %lld)", (long long)x->offset);
    else if (x->context[0])
        cli_printf(" (%s)", x->context);
    cli_printf(": %s\n", x->message);
}

/* Reads the findings again and prints what went and what appeared since the last read. */
static int print_changes(follow *f)
{
    cli_findings cur = { 0 };
    int rc = read_findings(f, &cur);
    bool *was = calloc(f->now.n + 1, sizeof *was), *is = calloc(cur.n + 1, sizeof *is);
    if (rc == EXIT_OK && (!was || !is || cli_findings_match(&f->now, &cur, was, is) != 0))
        rc = EXIT_IO;
    if (rc != EXIT_OK) {
        free(was);
        free(is);
        cli_findings_free(&cur);
        return rc;
    }
    size_t changes = 0;
    for (size_t i = 0; i < f->now.n; i++)
        if (!was[i]) {
            write_change(f, &f->now.v[i], false);
            changes++;
        }
    for (size_t i = 0; i < cur.n; i++)
        if (!is[i]) {
            write_change(f, &cur.v[i], true);
            changes++;
        }
    free(was);
    free(is);
    cli_findings_free(&f->now);
    f->now = cur;
    if (changes && !f->o->json) {
        fputs("= ", stdout);
        write_tally(stdout, f);
        fputc('\n', stdout);
    }
    fflush(stdout);
    return EXIT_OK;
}

/* ---- the session ---- */

static void add_root(const char *root, void *user)
{
    follow *f = user;
    char **r = realloc(f->roots, (f->nroots + 1) * sizeof *r);
    char **p = r ? realloc(f->prefix, (f->nroots + 1) * sizeof *p) : NULL;
    if (r)
        f->roots = r;
    if (p)
        f->prefix = p;
    if (!r || !p)
        return;
    f->roots[f->nroots] = strdup(root);
    f->prefix[f->nroots] = lint_uri_prefix(root);
    if (f->roots[f->nroots])
        f->nroots++;
    else
        free(f->prefix[f->nroots]);
}

/* The start reply: the index (opened read-only) and the roots. Sets *ready when the daemon's
 * first scan is done. */
static int start(follow *f, const char *reply, bool *ready)
{
    char s[AMX_PATH_MAX], err[1024];
    if (!cli_reply_true(cli_reply_get(reply, "ok"))) {
        cli_error("follow: %s", cli_reply_str(cli_reply_get(reply, "error"), s, sizeof s));
        return EXIT_IO;
    }
    cli_reply_strings(cli_reply_get(reply, "roots"), add_root, f);
    cli_reply_str(cli_reply_get(reply, "database"), s, sizeof s);
    if (amx_db_open(s, AMX_DB_READONLY, &f->db, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    *ready = cli_reply_true(cli_reply_get(reply, "initial_done"));
    return EXIT_OK;
}

/* The first read, once the daemon's first scan is done: what is there now. */
static int begin(follow *f)
{
    int rc = read_findings(f, &f->now);
    if (rc != EXIT_OK)
        return rc;
    FILE *say = f->o->json ? stderr : stdout;
    if (!f->o->quiet) {
        fputs("lint: ", say);
        write_tally(say, f);
        fputs("; the findings that appear (+) and go (-) follow\n", say);
    }
    fflush(say);
    return EXIT_OK;
}

/* Waits up to `ms` for the watch's daemon to end; true (with its status) if it has. */
static bool daemon_gone_within(follow *f, int ms, int *status)
{
    for (int waited = 0;; waited += 50) {
        if (daemon_exited(f, status))
            return true;
        if (waited >= ms)
            return false;
        amx_os_sleep_ms(50);
    }
}

/* Ends a watch's daemon and waits for it; its exit status. Ctrl-C on a terminal reaches both
 * processes: the daemon has a second to go by itself (a second Ctrl-C would only make it say
 * it is stopping already). Otherwise, or if it is still there, it is asked to stop over its
 * control socket as 'animidx stop' does (the running scan ends between files, every handle
 * closes), and given STOP_WAIT_MS; only then is it stopped by force: SIGTERM on POSIX, which it
 * also takes as a clean stop, and on Windows, which has no signal for one program, the end of
 * the process (its exit status then says nothing of the findings: the stop is reported). */
#define STOP_WAIT_MS 30000
static int end_daemon(follow *f)
{
    int status;
    if (!f->daemon)
        return EXIT_OK;
    if (amx_os_interrupt_from_terminal() && daemon_gone_within(f, 1000, &status))
        return status;
    amx_os_conn *c = cli_daemon_connect(f->cfg, true);
    if (c) {
        static const char stop[] = "{\"cmd\": \"stop\"}\n";
        bool sent = amx_os_conn_write(c, stop, sizeof stop - 1) == 0;
        bool gone = sent && daemon_gone_within(f, STOP_WAIT_MS, &status);
        amx_os_conn_close(c);
        if (gone)
            return status;
    }
    if (!f->daemon) /* it ended meanwhile */
        return EXIT_OK;
    cli_error("animidxd did not stop within %d s of being asked: stopping it by force", STOP_WAIT_MS / 1000);
    amx_os_child_stop(f->daemon);
    amx_os_child_ended(f->daemon, true, &status);
    amx_os_child_free(f->daemon);
    f->daemon = NULL;
    return status < 0 ? EXIT_OK : status;
}

/* Follows the daemon until it goes or a signal comes. */
static int session(follow *f)
{
    int rc = connect_and_follow(f);
    if (rc != EXIT_OK || !f->conn)
        return rc;
    char line[MAX_LINE];
    bool started = false, ready = false, begun = false;
    for (;;) {
        int status;
        wait_result w = next_line(f, line, sizeof line);
        if (w == SIGNAL)
            return EXIT_OK;
        if (w == QUIET) {
            if (daemon_exited(f, &status))
                return status;
            continue;
        }
        if (w == GONE) {
            if (f->daemon)
                return end_daemon(f);
            cli_error("animidxd stopped (the %s %s closed)", amx_os_pick("socket", "named pipe"),
                      f->cfg->socket_path);
            return EXIT_IO;
        }
        if (!started) {
            started = true;
            rc = start(f, line, &ready);
        } else if (begun) {
            rc = print_changes(f);
        } else {
            ready = cli_reply_true(cli_reply_get(line, "initial_done"));
        }
        if (rc == EXIT_OK && ready && !begun) {
            begun = true;
            rc = begin(f);
        }
        if (rc != EXIT_OK)
            return rc;
    }
}

void cli_follow_free(follow *f)
{
    amx_os_conn_close(f->conn);
    for (size_t i = 0; i < f->nroots; i++) {
        free(f->roots[i]);
        free(f->prefix[i]);
    }
    free(f->roots);
    free(f->prefix);
    cli_findings_free(&f->now);
    cli_findings_free(&f->base);
    cli_suppressions_free(&f->supp);
    amx_db_close(f->db);
    free(f);
}

int cli_follow_new(cli_opts *o, amx_config *cfg, follow **out)
{
    char err[1024];
    int rc = EXIT_OK;
    follow *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f) {
        cli_error("out of memory");
        return EXIT_IO;
    }
    *f = (follow){ .o = o, .cfg = cfg, .gate = AMX_SEV_ERROR };
    if (o->fail_on && (!amx_severity_parse(o->fail_on, &f->gate) || f->gate == AMX_SEV_OFF)) {
        cli_error("--fail-on: expected error, warning or info, got '%s'", o->fail_on);
        rc = EXIT_USAGE;
    } else if (o->suppressions) {
        rc = cli_suppressions_load(o->suppressions, &f->supp, err, sizeof err);
        if (rc != EXIT_OK)
            cli_error("--suppressions: %s", err);
    }
    if (rc == EXIT_OK && o->baseline) {
        rc = cli_findings_load(o->baseline, &f->base, err, sizeof err);
        if (rc != EXIT_OK)
            cli_error("--baseline: %s", err);
        f->have_base = true;
    }
    if (rc != EXIT_OK) {
        cli_follow_free(f);
        return rc;
    }
    *out = f;
    return EXIT_OK;
}

int cli_follow_run(follow *f, amx_os_child *daemon)
{
    bool watch = daemon != NULL;
    f->daemon = daemon;
    amx_os_interrupt_catch();
    int rc = session(f);
    if (f->daemon) { /* stopped by a signal, or the session failed: the daemon goes too */
        int st = end_daemon(f);
        if (rc == EXIT_OK)
            rc = st;
    }
    /* the verdict, as lint's: on a signal, or when the watch's daemon ended well */
    if (rc == EXIT_OK && (amx_os_interrupted() || watch)) {
        uint64_t t[3];
        cli_findings_totals(&f->now, t);
        rc = failing(f, t) ? EXIT_FINDINGS : EXIT_OK;
    }
    cli_follow_free(f);
    return rc;
}
