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

#include "animidx/text.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    static const char text[] =
        "usage: animidxd [--config FILE] [--foreground] [--db FILE] [--socket PATH] "
        "[--jobs N] [--base DIR]... [--no-base] [--follow-links] [DIR...]\n\n"
        "Scans the roots (the DIRs, else [scan] roots of the config) into the index, then\n"
        "watches them and indexes every change within the settle period ([daemon] settle_ms).\n"
        "'animidx status', 'pause', 'resume', 'sync' and 'stop' talk to it over its\n"
        "{{socket|named pipe}}. When the index is not in sync (a scan failed, changes could not\n"
        "be written, a root is gone, a watch was lost), 'status' and 'sync' say why and exit 3\n"
        "until a scan of that root succeeds; the daemon retries after 1 s, 2 s, 4 s ... 60 s,\n"
        "at once on a sync{{ or SIGHUP|}}, and rescans a root that is back.\n\n"
        "  --config FILE   config file (default: {{CONFIG/animidx/animidx.ini}};\n"
        "                  {{./animidx.ini}} only when given); {{SIGHUP reloads it\n"
        "                  and rescans every root|read again on a restart}}\n"
        "  --foreground    stay in the foreground ({{systemd|a console window}}, 'animidx watch')\n"
        "  --db FILE       the index (default: the config's [index] database)\n"
        "  --socket PATH   the control {{socket|named pipe, \\\\.\\pipe\\NAME}} (default: the "
        "config's\n"
        "                  [daemon] socket)\n"
        "  --jobs N        threads that decode and link files (default: the config's [scan] jobs)\n"
        "  --base DIR      a base layer of every root (a mod's game), repeatable; base layers\n"
        "                  are scanned with every whole-root scan (start, reconcile{{, SIGHUP|}})\n"
        "                  and not watched (default: [root PATH] base, else the index's record)\n"
        "  --no-base       the roots sit on nothing\n"
        "  --follow-links  follow symbolic links that lead out of a root, one level (default:\n"
        "                  [scan] follow_links; else they are LINK_NOT_FOLLOWED findings)\n"
        "  --help, --version\n\n"
        "stopping and reloading:\n"
        "  {{SIGTERM, SIGINT   |Ctrl-C, Ctrl-Break}}  stop between files (what was decoded is "
        "written), exit 0;\n"
        "                      'animidx stop' does the same from anywhere and waits for it\n"
        "  {{SIGHUP              reload the configuration and rescan every root|"
        "a restart           reloads the configuration: 'animidx stop', then animidxd}}\n\n"
        "exit status: 0 clean stop, 2 usage or config error, 3 I/O or database error\n"
        "(or another animidxd already runs on the index)\n";
    amx_text_put_for_system(out, text, 0);
}

/* A path from the command line made absolute (the daemon leaves the current directory). */
static char *absolute(const char *path)
{
    char p[AMX_PATH_MAX], cwd[AMX_PATH_MAX], abs[2 * AMX_PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    amx_os_path_normalize(p); /* Windows: "C:\\x" is "C:/x" */
    if (amx_os_path_is_absolute(p))
        return strdup(p);
    int rc = amx_os_getcwd(cwd, sizeof cwd);
    if (rc == 0)
        rc = amx_os_path_join(cwd, p, abs, sizeof abs);
    if (rc != 0) {
        errno = -rc;
        return NULL;
    }
    return strdup(abs);
}

int main(int argc, char **argv)
{
    amx_os_args_utf8(&argc, &argv);
    amx_os_ignore_broken_pipes();
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
    bool background = false;
    if (rc == 0 && !foreground) {
        if (!cfg->log_path)
            amxd_eprintf("animidxd: note: the log goes to stderr, which is closed in the "
                         "background; set [daemon] log = FILE, or run with --foreground\n");
        rc = amx_os_background("animidxd");
        background = rc == 0;
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
        if (!background && amxd_log_enabled(AMX_LOG_ERROR) && d && amxd_config(d)->log_path)
            amxd_eprintf("animidxd: %s\n", err);
        /* the starting process prints it: the names in it escaped */
        char shown[sizeof err];
        amx_text_format(shown, sizeof shown, NULL, "%s", err);
        amx_os_background_ready(rc, shown);
    } else {
        amx_os_background_ready(0, NULL);
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
