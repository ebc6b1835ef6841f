/*
 * animidxd: keeps the animidx index current while files change.
 *
 *   animidxd [--config FILE] [--foreground] [--db FILE] [--socket PATH] [--jobs N]
 *            [--base DIR]... [--no-base] [DIR...]
 *
 * Loads the config, goes to the background (unless --foreground) once the socket listens, and
 * runs the loop until SIGTERM/SIGINT. Exit status: 0 after a clean stop (every handle closed,
 * the loop empty), 2 usage or configuration error, 3 I/O or database error (including another
 * animidxd already running on the index or the socket), 1 when the loop did not close empty.
 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fputs("usage: animidxd [--config FILE] [--foreground] [--db FILE] [--socket PATH] "
          "[--jobs N] [--base DIR]... [--no-base] [--follow-links] [DIR...]\n\n"
          "Scans the roots (the DIRs, else [scan] roots of the config) into the index, then\n"
          "watches them and indexes every change within the settle period ([daemon] settle_ms).\n"
          "'animidx status', 'pause', 'resume' and 'sync' talk to it over its socket.\n"
          "When the index is not in sync (a scan failed, changes could not be written, a root\n"
          "is gone, a watch was lost), 'status' and 'sync' say why and exit 3 until a scan of\n"
          "that root succeeds; the daemon retries after 1 s, 2 s, 4 s ... 60 s, at once on a\n"
          "sync or SIGHUP, and rescans a root that is back.\n\n"
          "  --config FILE   config file (default: $XDG_CONFIG_HOME/animidx/animidx.ini;\n"
          "                  ./animidx.ini only when given); SIGHUP reloads it\n"
          "                  and rescans every root\n"
          "  --foreground    stay in the foreground (systemd, 'animidx watch')\n"
          "  --db FILE       the index (default: the config's [index] database)\n"
          "  --socket PATH   the control socket (default: the config's [daemon] socket)\n"
          "  --jobs N        threads that decode and link files (default: the config's [scan] jobs)\n"
          "  --base DIR      a base layer of every root (a mod's game), repeatable; base layers\n"
          "                  are scanned with every whole-root scan (start, reconcile, SIGHUP)\n"
          "                  and not watched (default: [root PATH] base, else the index's record)\n"
          "  --no-base       the roots sit on nothing\n"
          "  --follow-links  follow symbolic links that lead out of a root, one level (default:\n"
          "                  [scan] follow_links; else they are LINK_NOT_FOLLOWED findings)\n"
          "  --help, --version\n\n"
          "exit status: 0 clean stop, 2 usage or config error, 3 I/O or database error\n"
          "(or another animidxd already runs on the index)\n",
          out);
}

/* A path from the command line made absolute (the daemon leaves the current directory). */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", cwd, path);
    return s;
}

/* Forks: the parent waits until the child listens (or fails) and exits with its status. */
static int daemonize(int *ready_fd)
{
    int p[2];
    if (pipe(p) != 0) {
        amxd_eprintf("animidxd: pipe: %s\n", strerror(errno));
        return 3;
    }
    pid_t pid = fork();
    if (pid < 0) {
        amxd_eprintf("animidxd: fork: %s\n", strerror(errno));
        return 3;
    }
    if (pid > 0) {
        close(p[1]);
        char msg[2048];
        size_t len = 0;
        ssize_t n;
        while (len < sizeof msg - 1 && (n = read(p[0], msg + len, sizeof msg - 1 - len)) != 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                break;
            len += (size_t)n;
        }
        msg[len] = '\0';
        close(p[0]);
        if (len == 0) {
            amxd_eprintf("animidxd: the daemon died while starting (see its log)\n");
            _exit(3);
        }
        int code = msg[0] - '0';
        const char *text = strchr(msg, '\n');
        if (code == 0)
            printf("animidxd: started (pid %ld)\n", (long)pid);
        else
            amxd_eprintf("animidxd: %s\n", text ? text + 1 : "failed to start");
        fflush(stdout);
        _exit(code);
    }
    close(p[0]);
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    if (chdir("/") != 0)
        return 3;
    *ready_fd = p[1];
    return 0;
}

static void report_ready(int *fd, int code, const char *msg)
{
    if (*fd < 0)
        return;
    char text[2048];
    int n = snprintf(text, sizeof text, "%d\n%s", code, msg ? msg : "");
    if (n > (int)sizeof text - 1)
        n = (int)sizeof text - 1;
    (void)!write(*fd, text, (size_t)n);
    close(*fd);
    *fd = -1;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    amxd_opts o = { .jobs_override = -1 };
    bool foreground = false;
    const char **roots = calloc((size_t)argc, sizeof *roots);
    const char **bases = calloc((size_t)argc, sizeof *bases);
    char **owned = calloc((size_t)argc, sizeof *owned);
    if (!roots || !bases || !owned) {
        free(roots);
        free(bases);
        free(owned);
        return 3;
    }
    size_t nowned = 0;
    int rc = 0;
    bool only_dirs = false;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        const char *value = NULL;
        bool valued = false;
        static const char *const names[] = { "--config", "--db", "--socket", "--jobs", "--base" };
        for (size_t k = 0; !only_dirs && a[0] == '-' && k < sizeof names / sizeof names[0]; k++)
            if (strlen(names[k]) == nlen && strncmp(a, names[k], nlen) == 0)
                valued = true;
        if (valued) {
            value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!value) {
                amxd_eprintf("animidxd: %.*s needs a value\n", (int)nlen, a);
                rc = 2;
                break;
            }
        }
        /* paths are made absolute: the daemon leaves the current directory, and reloads */
        const char **path_slot = !valued                  ? NULL
                                 : strncmp(a, "--config", nlen) == 0 ? &o.explicit_config
                                 : strncmp(a, "--db", nlen) == 0     ? &o.db_override
                                 : strncmp(a, "--socket", nlen) == 0 ? &o.socket_override
                                 : strncmp(a, "--base", nlen) == 0   ? &bases[o.base_count]
                                                                     : NULL;
        bool is_dir = only_dirs || a[0] != '-' || strcmp(a, "-") == 0;
        if (is_dir || path_slot) {
            char *abs = absolute(is_dir ? a : value);
            if (!abs) {
                amxd_eprintf("animidxd: %s: %s\n", is_dir ? a : value, strerror(errno));
                rc = 3;
                break;
            }
            owned[nowned++] = abs;
            if (is_dir)
                roots[o.root_count++] = abs;
            else
                *path_slot = abs;
            if (!is_dir && path_slot == &bases[o.base_count]) {
                o.base_count++;
                o.set_bases = true;
            }
        } else if (strcmp(a, "--") == 0) {
            only_dirs = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            rc = -1;
        } else if (strcmp(a, "--version") == 0) {
            printf("animidxd %s\n", AMX_VERSION_STRING);
            rc = -1;
        } else if (strcmp(a, "--no-base") == 0) {
            o.set_bases = true;
        } else if (strcmp(a, "--follow-links") == 0) {
            o.follow_links = true;
        } else if (strcmp(a, "--foreground") == 0 || strcmp(a, "-f") == 0) {
            foreground = true;
        } else if (valued) { /* --jobs */
            char *end;
            long v = strtol(value, &end, 10);
            if (!*value || *end || v < 0 || v > 256) {
                amxd_eprintf("animidxd: --jobs: expected a whole number from 0 to 256, got "
                             "'%s'\n",
                             value);
                rc = 2;
            }
            o.jobs_override = (int)v;
        } else {
            amxd_eprintf("animidxd: unknown option '%s'\n", a);
            usage(stderr);
            rc = 2;
        }
    }
    o.roots = roots;
    o.bases = bases;
    amx_config *cfg = NULL;
    char err[2048] = "";
    if (rc == 0) {
        cfg = malloc(sizeof *cfg);
        if (!cfg || amxd_load_config(&o, cfg, err, sizeof err) != 0) {
            amxd_eprintf("animidxd: %s\n", cfg ? err : "out of memory");
            free(cfg);
            cfg = NULL;
            rc = 2;
        }
    }
    int ready_fd = -1;
    if (rc == 0 && !foreground) {
        if (!cfg->log_path)
            amxd_eprintf("animidxd: note: the log goes to stderr, which is closed in the "
                         "background; set [daemon] log = FILE, or run with --foreground\n");
        rc = daemonize(&ready_fd);
    }
    if (rc != 0) {
        if (cfg) {
            amx_config_finish(cfg);
            free(cfg);
        }
        for (size_t i = 0; i < nowned; i++)
            free(owned[i]);
        free(owned);
        free(roots);
        free(bases);
        return rc < 0 ? 0 : rc;
    }

    uv_loop_t loop;
    uv_loop_init(&loop);
    amxd *d = NULL;
    rc = amxd_create(&loop, cfg, &o, &d, err, sizeof err); /* takes cfg */
    if (rc) {
        amxd_log(AMX_LOG_ERROR, "cannot start: %s", err);
        if (ready_fd < 0 && amxd_log_enabled(AMX_LOG_ERROR) && d && amxd_config(d)->log_path)
            amxd_eprintf("animidxd: %s\n", err);
        report_ready(&ready_fd, rc, err);
    } else {
        report_ready(&ready_fd, 0, NULL);
    }
    uv_run(&loop, UV_RUN_DEFAULT); /* on failure: only the close callbacks */
    int lc = uv_loop_close(&loop);
    if (lc != 0) {
        amxd_log(AMX_LOG_ERROR, "the loop still held handles at exit: %s", uv_strerror(lc));
        uv_print_all_handles(&loop, stderr);
        rc = rc ? rc : 1;
    } else if (rc == 0) {
        amxd_log(AMX_LOG_INFO, "stopped: every handle closed, the loop is empty");
    }
    amxd_destroy(d);
    amxd_log_close();
    uv_library_shutdown();
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    free(owned);
    free(roots);
    free(bases);
    return rc;
}
