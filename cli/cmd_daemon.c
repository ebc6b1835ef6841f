/*
 * animidx status / pause / resume / sync / watch: the daemon's side of the command line.
 *
 * The first four send one request over animidxd's control socket ([daemon] socket: a Unix
 * socket; on Windows a named pipe) and print
 * its one-line JSON reply (--json) or a text rendering of it. `watch` runs animidxd itself in
 * the foreground: the daemon next to this binary (the build tree's daemon/animidxd, or the
 * installed one in the same directory), else animidxd from PATH.
 */
#include "cmd_daemon.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPLY (64 * 1024)

/* ---- a small reader for the daemon's flat JSON replies ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* The end of the JSON value at p (a string, number, literal, array or object). */
static const char *skip_value(const char *p)
{
    p = skip_ws(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : p;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        bool in_str = false;
        for (; *p; p++) {
            if (in_str) {
                if (*p == '\\' && p[1])
                    p++;
                else if (*p == '"')
                    in_str = false;
            } else if (*p == '"') {
                in_str = true;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if ((*p == '}' || *p == ']') && --depth == 0) {
                return p + 1;
            }
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ')
        p++;
    return p;
}

/* The value of a key of the object at json, or NULL. */
static const char *json_get(const char *json, const char *key)
{
    const char *p = skip_ws(json);
    if (*p != '{')
        return NULL;
    p = skip_ws(p + 1);
    size_t klen = strlen(key);
    while (*p == '"') {
        const char *k = p + 1;
        const char *kend = skip_value(p);
        p = skip_ws(kend);
        if (*p != ':')
            return NULL;
        const char *v = skip_ws(p + 1);
        if ((size_t)(kend - 1 - k) == klen && strncmp(k, key, klen) == 0)
            return v;
        p = skip_ws(skip_value(v));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return NULL;
}

/* A string value into buf (escapes undone: what the daemon sent, printed with cli_printf
 * like every text); "" when it is not a string. */
static const char *json_str(const char *v, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (!v || *v != '"')
        return buf;
    for (v++; *v && *v != '"' && n + 4 < len; v++) {
        char c = *v;
        if (c == '\\' && v[1]) {
            c = *++v;
            if (c == 'u' && strspn(v + 1, "0123456789abcdefABCDEF") >= 4) {
                char hex[5] = { v[1], v[2], v[3], v[4], 0 };
                unsigned cp = (unsigned)strtoul(hex, NULL, 16);
                v += 4;
                if (cp >= 0xD800 && cp <= 0xDFFF) /* half a pair: the daemon sends none */
                    cp = '?';
                if (cp < 0x80) {
                    buf[n++] = (char)cp;
                } else if (cp < 0x800) {
                    buf[n++] = (char)(0xC0 | cp >> 6);
                    buf[n++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    buf[n++] = (char)(0xE0 | cp >> 12);
                    buf[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
                    buf[n++] = (char)(0x80 | (cp & 0x3F));
                }
                continue;
            }
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b'
              : c == 'f' ? '\f' : c;
        }
        buf[n++] = c;
    }
    buf[n] = '\0';
    return buf;
}

static double json_num(const char *v)
{
    return v && (*v == '-' || (*v >= '0' && *v <= '9')) ? strtod(v, NULL) : 0;
}

static bool json_true(const char *v)
{
    return v && strncmp(v, "true", 4) == 0;
}

static bool json_null(const char *v)
{
    return !v || strncmp(v, "null", 4) == 0;
}

const char *cli_reply_get(const char *json, const char *key)
{
    return json_get(json, key);
}

const char *cli_reply_str(const char *v, char *buf, size_t len)
{
    return json_str(v, buf, len);
}

double cli_reply_num(const char *v)
{
    return json_num(v);
}

bool cli_reply_true(const char *v)
{
    return json_true(v);
}

/* The string elements of the array at v, each passed to fn. */
void cli_reply_strings(const char *v, void (*fn)(const char *s, void *user), void *user)
{
    char s[AMX_PATH_MAX];
    if (!v || *v != '[')
        return;
    for (const char *p = skip_ws(v + 1); *p == '"';) {
        fn(json_str(p, s, sizeof s), user);
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
}

/* ---- the request ---- */

amx_os_conn *cli_daemon_connect(const amx_config *cfg, bool quiet)
{
    const char *path = cfg->socket_path;
    amx_os_conn *c;
    int rc = amx_os_connect(path, &c);
    if (rc == 0)
        return c;
    if (quiet && (rc == -ENOENT || rc == -ECONNREFUSED))
        return NULL;
    char shown[AMX_PATH_MAX];
    amx_os_path_display(path, shown, sizeof shown); /* Windows: \\.\pipe\... */
    if (rc == -ENOENT || rc == -ECONNREFUSED)
        cli_error("no animidxd is running on %s; start it with 'animidx watch DIR...'%s "
                  "(the %s is [daemon] socket in the config)", shown,
                  amx_os_pick(", 'animidxd', or 'systemctl --user start animidxd'",
                              " or 'animidxd'"),
                  amx_os_pick("socket", "named pipe"));
    else if (rc == -ENAMETOOLONG)
        cli_error("%s: the %s", shown, amx_os_pick("socket path is too long for a Unix socket",
                                                   "named pipe's name is too long"));
    else
        cli_error("%s: cannot connect to animidxd: %s", shown, strerror(-rc));
    return NULL;
}

/* Sends {"cmd": CMD} and reads the one-line reply into a malloc'd string. */
static char *request(const amx_config *cfg, const char *cmd)
{
    amx_os_conn *c = cli_daemon_connect(cfg, false);
    if (!c)
        return NULL;
    char line[64];
    int len = snprintf(line, sizeof line, "{\"cmd\": \"%s\"}\n", cmd);
    int rc = amx_os_conn_write(c, line, (size_t)len);
    if (rc != 0) {
        cli_error("%s: sending to animidxd: %s", cfg->socket_path, strerror(-rc));
        amx_os_conn_close(c);
        return NULL;
    }
    char *buf = malloc(MAX_REPLY);
    size_t n = 0;
    while (buf && n < MAX_REPLY - 1) {
        size_t got = 0;
        if (amx_os_conn_read(c, buf + n, MAX_REPLY - 1 - n, &got) != 0 || got == 0)
            break;
        n += got;
        if (memchr(buf + n - got, '\n', got))
            break;
    }
    amx_os_conn_close(c);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    char *nl = strchr(buf, '\n');
    if (!nl) {
        cli_error("%s: animidxd closed the connection without a reply%s", cfg->socket_path,
                  n ? " (the reply was cut off)" : " (is it stopping?)");
        free(buf);
        return NULL;
    }
    *nl = '\0';
    return buf;
}

static void problems_text(FILE *out, const char *r, const char *indent);

/* Prints a reply (JSON or through `text`); returns the exit status. */
static int run_reply(cli_opts *o, const char *cmd, const char *reply,
                     void (*text)(const char *reply, const cli_opts *o))
{
    bool ok = json_true(json_get(reply, "ok"));
    if (o->json)
        cli_printf("%s\n", reply);
    if (!ok) {
        char msg[4096];
        json_str(json_get(reply, "error"), msg, sizeof msg);
        if (json_get(reply, "problems") && !o->json) {
            /* a sync of a daemon that is not in sync: each problem on a line of its own */
            cli_error("%s: not in sync:", cmd);
            problems_text(stderr, reply, "  ");
        } else {
            cli_error("%s: %s", cmd, msg[0] ? msg : "animidxd reported an error");
        }
    } else if (!o->json && text) {
        text(reply, o);
    }
    return ok ? EXIT_OK : EXIT_IO;
}

/* Runs one request: prints the reply, returns the exit status. */
static int run(cli_opts *o, const amx_config *cfg, const char *cmd,
               void (*text)(const char *reply, const cli_opts *o))
{
    char *reply = request(cfg, cmd);
    if (!reply)
        return EXIT_IO;
    int rc = run_reply(o, cmd, reply, text);
    free(reply);
    return rc;
}

/* ---- status ---- */

/* The problems of the status or sync reply r, one line each: "ROOT: reason (since ..., N
 * retries, the next in S s)". */
static void problems_text(FILE *out, const char *r, const char *indent)
{
    const char *list = json_get(r, "problems");
    if (!list || *list != '[')
        return;
    for (const char *p = skip_ws(list + 1); *p == '{';) {
        char root[1024], reason[2048], t[64] = "";
        json_str(json_get(p, "root"), root, sizeof root);
        json_str(json_get(p, "reason"), reason, sizeof reason);
        int64_t since = (int64_t)json_num(json_get(p, "since"));
        if (since) {
            amx_tm tm;
            amx_time_local(since, &tm);
            snprintf(t, sizeof t, "%02d:%02d:%02d", tm.hour, tm.min, tm.sec);
        }
        const char *next = json_get(p, "next_retry_s");
        double retries = json_num(json_get(p, "retries"));
        cli_fprintf(out, "%s%s: %s (since %s, %.0f retr%s", indent, root, reason, t, retries,
                    retries == 1 ? "y" : "ies");
        if (!json_null(next))
            cli_fprintf(out, ", the next in %.0f s", json_num(next));
        cli_fprintf(out, ")\n");
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
}

static bool failing(const char *r)
{
    char h[32];
    return strcmp(json_str(json_get(r, "health"), h, sizeof h), "failing") == 0;
}

static void status_text(const char *r, const cli_opts *o)
{
    (void)o;
    char s[1024], t[1024];
    cli_printf("animidxd (pid %.0f): %s%s\n", json_num(json_get(r, "pid")),
               json_str(json_get(r, "state"), s, sizeof s), failing(r) ? ", NOT IN SYNC" : "");
    if (failing(r)) {
        cli_printf("  not in sync: 'animidx sync' fails (exit 3) until a scan of each root below "
                   "succeeds;\n  animidxd retries by itself, and at once on a sync%s:\n",
                   amx_os_pick(" or SIGHUP", ""));
        problems_text(stdout, r, "    ");
    }
    cli_printf("  index:       %s\n", json_str(json_get(r, "database"), s, sizeof s));
    const char *files = json_get(r, "files");
    if (!json_null(files)) {
        const char *fi = json_get(r, "findings");
        cli_printf("  indexed:     %.0f files (findings: %.0f errors, %.0f warnings, %.0f info)\n",
                   json_num(files), json_num(json_get(fi, "error")),
                   json_num(json_get(fi, "warning")), json_num(json_get(fi, "info")));
    }
    const char *roots = json_get(r, "roots");
    cli_printf("  roots:      ");
    if (roots && *roots == '[') {
        const char *p = skip_ws(roots + 1);
        while (*p == '"') {
            cli_printf(" %s", json_str(p, s, sizeof s));
            p = skip_ws(skip_value(p));
            if (*p == ',')
                p = skip_ws(p + 1);
        }
    }
    cli_printf("\n");
    cli_printf("  queue:       %.0f changes waiting (%.0f being indexed); %.1f files/s\n",
               json_num(json_get(r, "queue")), json_num(json_get(r, "in_flight")),
               json_num(json_get(r, "files_per_sec")));
    cli_printf("  since start: %.0f files indexed, %.0f removed, %.0f unreadable\n",
               json_num(json_get(r, "files_decoded")), json_num(json_get(r, "files_removed")),
               json_num(json_get(r, "files_unreadable")));
    cli_printf("  watching:    %.0f directories (%s, settle %.0f ms)",
               json_num(json_get(r, "watches")), json_str(json_get(r, "watcher"), s, sizeof s),
               json_num(json_get(r, "settle_ms")));
    double unwatched = json_num(json_get(r, "unwatched_dirs"));
    if (unwatched > 0)
        cli_printf("; %.0f over the watch limit, rescanned every %.0f s", unwatched,
                   json_num(json_get(r, "poll_interval_s")));
    cli_printf("\n");
    cli_printf("  overflows:   %.0f (lost watches %.0f, full rescans %.0f)\n",
               json_num(json_get(r, "overflows")), json_num(json_get(r, "lost_watches")),
               json_num(json_get(r, "full_rescans")));
    const char *err = json_get(r, "last_error");
    if (json_null(err)) {
        cli_printf("  last error:  none\n");
    } else {
        int64_t at = (int64_t)json_num(json_get(r, "last_error_at"));
        t[0] = '\0';
        if (at) {
            amx_tm tm;
            amx_time_local(at, &tm);
            snprintf(t, sizeof t, " (at %04d-%02d-%02d %02d:%02d:%02d)", tm.year, tm.month,
                     tm.day, tm.hour, tm.min, tm.sec);
        }
        cli_printf("  last error:  %s%s\n", json_str(err, s, sizeof s), t);
    }
}

/* status, pause, resume, sync and stop talk to the one daemon of the socket: an argument
 * (a directory, a name) would be ignored, so it is a usage error, before the daemon is asked. */
static int no_arguments(const cli_opts *o, const char *cmd)
{
    if (!o->nargs)
        return EXIT_OK;
    cli_error("%s: unexpected argument '%s'; it talks to the daemon of the socket ([daemon] "
              "socket in the config, or --config FILE), whatever directories it watches", cmd,
              o->args[0]);
    return EXIT_USAGE;
}

/* The options that shape what --lint / --follow print: an error without it. */
static int lint_options_only_with(const cli_opts *o, bool with, const char *cmd, const char *flag)
{
    const char *given = o->fail_on        ? "--fail-on"
                        : o->baseline     ? "--baseline"
                        : o->suppressions ? "--suppressions"
                        : o->color        ? "--color" /* only those lines have colours */
                                          : NULL;
    if (given && !with) {
        cli_error("%s: %s goes with %s (the findings that appear and go)", cmd, given, flag);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cmd_status(cli_opts *o, amx_config *cfg)
{
    int rc = no_arguments(o, "status");
    if (rc == EXIT_OK)
        rc = lint_options_only_with(o, o->follow, "status", "--follow");
    if (rc != EXIT_OK)
        return rc;
    if (o->follow) {
        follow *f;
        rc = cli_follow_new(o, cfg, &f);
        return rc == EXIT_OK ? cli_follow_run(f, 0) : rc;
    }
    char *reply = request(cfg, "status");
    if (!reply)
        return EXIT_IO;
    rc = run_reply(o, "status", reply, status_text);
    /* a daemon whose index is not in sync reports an error (README "Exit codes") */
    if (rc == EXIT_OK && failing(reply)) {
        if (o->json)
            cli_error("status: animidxd's index is not in sync (\"problems\" says why)");
        rc = EXIT_IO;
    }
    free(reply);
    return rc;
}

/* ---- pause / resume / sync ---- */

static void state_text(const char *r, const cli_opts *o)
{
    char s[64];
    if (!o->quiet)
        cli_printf("animidxd: %s (%.0f changes queued)\n",
                   json_str(json_get(r, "state"), s, sizeof s), json_num(json_get(r, "queue")));
}

int cmd_pause(cli_opts *o, amx_config *cfg)
{
    if (no_arguments(o, "pause") != EXIT_OK)
        return EXIT_USAGE;
    return run(o, cfg, "pause", state_text);
}

int cmd_resume(cli_opts *o, amx_config *cfg)
{
    if (no_arguments(o, "resume") != EXIT_OK)
        return EXIT_USAGE;
    return run(o, cfg, "resume", state_text);
}

static void sync_text(const char *r, const cli_opts *o)
{
    if (!o->quiet)
        cli_printf("in sync: %.0f files indexed, %.0f removed while waiting (%.1f ms)\n",
                   json_num(json_get(r, "files_decoded")), json_num(json_get(r, "files_removed")),
                   json_num(json_get(r, "ms")));
}

int cmd_sync(cli_opts *o, amx_config *cfg)
{
    if (no_arguments(o, "sync") != EXIT_OK)
        return EXIT_USAGE;
    return run(o, cfg, "sync", sync_text);
}

/* ---- stop ---- */

#define STOP_WAIT_S 60

/* Asks the daemon to stop (as SIGTERM or Ctrl-C does), then waits until it has: until the lock
 * beside the index its reply names is released, which the daemon does after closing the index
 * (the last thing before it exits). */
int cmd_stop(cli_opts *o, amx_config *cfg)
{
    if (no_arguments(o, "stop") != EXIT_OK)
        return EXIT_USAGE;
    char *reply = request(cfg, "stop");
    if (!reply)
        return EXIT_IO;
    if (!json_true(json_get(reply, "ok"))) {
        int rc = run_reply(o, "stop", reply, NULL);
        free(reply);
        return rc;
    }
    char db[AMX_PATH_MAX], lock[AMX_PATH_MAX + 32];
    json_str(json_get(reply, "database"), db, sizeof db);
    double pid = json_num(json_get(reply, "pid"));
    snprintf(lock, sizeof lock, "%s.animidxd.lock", db);
    int64_t until = amx_os_monotonic_ns() + (int64_t)STOP_WAIT_S * 1000000000;
    int held;
    while ((held = amx_os_lock_held(lock)) == 1 && amx_os_monotonic_ns() < until)
        amx_os_sleep_ms(20);
    int rc = EXIT_OK;
    if (held == 1) {
        cli_error("stop: animidxd (pid %.0f) is still stopping after %d s (it first writes the "
                  "files being decoded); 'animidx status' fails once it is gone",
                  pid, STOP_WAIT_S);
        rc = EXIT_IO;
    } else if (held < 0) {
        cli_error("stop: animidxd (pid %.0f) was asked to stop, but its lock %s cannot be read "
                  "to see that it has: %s", pid, lock, strerror(-held));
        rc = EXIT_IO;
    } else if (o->json) {
        cli_printf("%s\n", reply);
    } else if (!o->quiet) {
        cli_printf("animidxd (pid %.0f) stopped\n", pid);
    }
    free(reply);
    return rc;
}

/* ---- watch ---- */

/* The animidxd to run: next to this binary (build tree or install), else from PATH. */
static const char *find_daemon(char *buf, size_t len)
{
    char self[AMX_PATH_MAX];
    if (amx_os_self_path(self, sizeof self) == 0) {
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = { "/../daemon/animidxd", "/animidxd" };
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                int k = snprintf(buf, len, "%s%s%s", self, rel[i], amx_os_exe_suffix());
                if (k > 0 && (size_t)k < len && amx_os_exists(buf))
                    return buf;
            }
        }
    }
    return NULL;
}

/* Runs animidxd --foreground on the command's roots (it loads the same config itself: --config
 * is passed on): in this process's place (child NULL; returns only when it cannot be run), or
 * as a child whose standard output is this one's standard error (*child). */
static int run_daemon(const cli_opts *o, amx_os_child **child)
{
    const char **argv = calloc((size_t)o->nargs + 2 * (size_t)o->nbases + 15, sizeof *argv);
    if (!argv)
        return EXIT_IO;
    char path[AMX_PATH_MAX + 32], jobs[16];
    const char *exe = find_daemon(path, sizeof path);
    int n = 0;
    argv[n++] = exe ? exe : "animidxd";
    argv[n++] = "--foreground";
    if (o->config_path) {
        argv[n++] = "--config";
        argv[n++] = o->config_path;
    }
    if (o->db) {
        argv[n++] = "--db";
        argv[n++] = o->db;
    }
    if (o->jobs >= 0) {
        snprintf(jobs, sizeof jobs, "%d", o->jobs);
        argv[n++] = "--jobs";
        argv[n++] = jobs;
    }
    for (int i = 0; i < o->nbases; i++) {
        argv[n++] = "--base";
        argv[n++] = o->bases[i];
    }
    if (o->set_bases && o->nbases == 0)
        argv[n++] = "--no-base";
    if (o->follow_links)
        argv[n++] = "--follow-links";
    argv[n++] = "--";
    for (int i = 0; i < o->nargs; i++)
        argv[n++] = o->args[i];
    argv[n] = NULL;
    int rc = child ? amx_os_spawn(exe ? exe : "animidxd", argv, true, child)
                   : amx_os_exec(exe ? exe : "animidxd", argv);
    free(argv);
    if (rc == 0)
        return EXIT_OK;
    cli_error("watch: cannot run %s: %s (build it with ninja, or install animidx)",
              exe ? exe : "animidxd", strerror(-rc));
    return EXIT_IO;
}

int cmd_watch(cli_opts *o, amx_config *cfg)
{
    for (int i = 0; i < o->nargs; i++) {
        amx_os_stat st;
        int rc = amx_os_path_stat(o->args[i], &st);
        const char *why = rc != 0                  ? strerror(-rc)
                          : st.kind != AMX_OS_DIR ? "not a directory"
                                                  : NULL;
        if (why) {
            cli_error("watch: %s: %s", o->args[i], why);
            return EXIT_USAGE;
        }
    }
    int rc = lint_options_only_with(o, o->lint, "watch", "--lint");
    if (rc != EXIT_OK)
        return rc;
    if (o->json && !o->lint) {
        cli_error("watch: --json goes with --lint (one JSON object per finding that appears or "
                  "goes)");
        return EXIT_USAGE;
    }
    if (!o->lint)
        return run_daemon(o, NULL);
    /* --lint: the daemon runs as a child (its log on stderr, stdout is the findings'), this
     * process follows it */
    follow *f;
    if ((rc = cli_follow_new(o, cfg, &f)) != EXIT_OK)
        return rc;
    amx_os_child *daemon;
    if ((rc = run_daemon(o, &daemon)) != EXIT_OK) {
        cli_follow_free(f);
        return rc;
    }
    return cli_follow_run(f, daemon);
}
