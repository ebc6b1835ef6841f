/*
 * animidxd core: the daemon's lifecycle. The rest of the core is queue.c (the change queue and
 * its settle timer), batch.c (the single writer job) and requests.c (status, pause/resume,
 * sync); core_internal.h holds the struct they share.
 *
 * Here: loading the config and resolving the roots; creating the daemon (the single-instance
 * lock, the index connections, timers and signals, the server and the watcher, the initial
 * scan) and destroying it; the reconcile and poll timers; SIGHUP (a reload, applied between
 * batches; with the same roots, a rescan of every root) and SIGINT/SIGTERM (a stop: the running scan ends between files, then every handle
 * closes); sd_notify; the accessors the watcher and the server use. It may call every part of
 * the daemon.
 */
#include "core_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small helpers ---- */

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void amxd_set_error(amxd *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->last_error, sizeof d->last_error, fmt, ap);
    va_end(ap);
    d->last_error_at = time(NULL);
    amxd_log(AMX_LOG_ERROR, "%s", d->last_error);
}

size_t amxd_root_count(const amxd *d) { return d->root_count; }
const char *amxd_root(const amxd *d, unsigned root) { return d->roots[root]; }
const amx_config *amxd_config(const amxd *d) { return d->cfg; }
uv_loop_t *amxd_loop(const amxd *d) { return d->loop; }

bool amxd_abs_path(const amxd *d, unsigned root, const char *rel, char *buf, size_t len)
{
    return amx_os_path_join(d->roots[root], rel, buf, len) == 0;
}

bool amxd_skip(amxd *d, const char *rel)
{
    return *rel && amx_config_ignored(d->cfg, rel);
}

/* ---- configuration and roots ---- */

int amxd_load_config(const amxd_opts *o, amx_config *cfg, char *err, size_t errlen)
{
    if (amx_config_init(cfg) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char located[AMX_PATH_MAX];
    const char *file = amx_config_locate(o->explicit_config, located, sizeof located);
    if ((file && amx_config_load_file(cfg, file, err, errlen) != 0) ||
        (o->db_override && amx_config_set_db(cfg, o->db_override) != 0) ||
        (o->socket_override && amx_config_set_socket(cfg, o->socket_override) != 0)) {
        if (!file || !err[0])
            snprintf(err, errlen, "out of memory");
        amx_config_finish(cfg);
        return -1;
    }
    if (o->jobs_override >= 0)
        cfg->jobs = o->jobs_override;
    if (o->follow_links)
        cfg->follow_links = true;
    return 0;
}

/* Resolves the roots (the command line's, else the config's). */
static int resolve_roots(amxd *d, const amx_config *cfg, char ***out, size_t *count, char *err,
                         size_t errlen)
{
    char **src = d->arg_root_count ? d->arg_roots : cfg->roots;
    size_t n = d->arg_root_count ? d->arg_root_count : cfg->root_count;
    if (!n) {
        snprintf(err, errlen, "no directory to watch: give it on the command line "
                              "('animidx watch DIR') or set [scan] roots in the config");
        return -1;
    }
    char **roots = calloc(n, sizeof *roots);
    if (!roots) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char canon[AMX_PATH_MAX];
        amx_os_stat st;
        int rc = amx_os_canonical(src[i], canon, sizeof canon);
        if (rc == 0)
            rc = amx_os_path_stat(canon, &st);
        if (rc != 0 || st.kind != AMX_OS_DIR) {
            snprintf(err, errlen, "%s: %s", src[i], rc ? strerror(-rc) : "not a directory");
            free_strings(roots, k);
            return -1;
        }
        char *real = strdup(canon);
        if (!real) {
            snprintf(err, errlen, "out of memory");
            free_strings(roots, k);
            return -1;
        }
        /* a base layer that is the root, holds it or lies inside it: a usage error */
        if (amx_config_check_bases(cfg, real, (const char *const *)d->arg_bases,
                                   d->arg_base_count, d->set_bases, err, errlen) != 0) {
            free(real);
            free_strings(roots, k);
            return -1;
        }
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++)
            dup = strcmp(roots[j], real) == 0;
        if (dup)
            free(real);
        else
            roots[k++] = real;
    }
    *out = roots;
    *count = k;
    return 0;
}

static bool same_roots(char **a, size_t na, char **b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

/* The files the daemon writes (the index and its -wal/-shm/-journal, the lock, the log) are
 * added to the config's ignore globs when they lie inside a root, so neither the watcher nor
 * a scan indexes them, and their writes cause no rescans. */
static void ignore_own_files(amxd *d)
{
    const char *db = d->cfg->db_path;
    const char *suffixes[] = { "", "-wal", "-shm", "-journal", ".animidxd.lock" };
    size_t n = sizeof suffixes / sizeof suffixes[0];
    for (size_t i = 0; i <= n; i++) {
        char path[AMX_PATH_MAX];
        const char *p = i < n ? path : d->cfg->log_path;
        if (i < n)
            snprintf(path, sizeof path, "%s%s", db, suffixes[i]);
        if (!p)
            continue;
        const char *slash = strrchr(p, '/');
        char dir[AMX_PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - p) : 1, slash ? p : ".");
        char real[AMX_PATH_MAX];
        if (amx_os_canonical(*dir ? dir : "/", real, sizeof real) != 0)
            continue;
        for (unsigned r = 0; r < d->root_count; r++) {
            size_t rl = strlen(d->roots[r]);
            if (strncmp(real, d->roots[r], rl) != 0 || (real[rl] != '/' && real[rl] != '\0'))
                continue;
            /* the path below the root, as a glob: fnmatch's special characters escaped */
            char rel[AMX_PATH_MAX], glob[2 * AMX_PATH_MAX];
            int len = snprintf(rel, sizeof rel, "%s%s%s", real[rl] ? real + rl + 1 : "",
                               real[rl] ? "/" : "", slash ? slash + 1 : p);
            if (len < 0 || (size_t)len >= sizeof rel)
                break;
            size_t k = 0;
            for (const char *c = rel; *c && k + 2 < sizeof glob; c++) {
                if (strchr("*?[]\\", *c))
                    glob[k++] = '\\';
                glob[k++] = *c;
            }
            glob[k] = '\0';
            if (amx_config_add_ignore(d->cfg, glob) != 0)
                amxd_set_error(d, "out of memory");
            break;
        }
    }
}

static void start_timers(amxd *d);

/* Applies a reloaded config (the batch is not running: the job reads d->cfg). */
void amxd__apply_reload(amxd *d)
{
    amx_config *next = d->reload;
    d->reload = NULL;
    char err[1024];
    char **roots = NULL;
    size_t nroots = 0;
    if (resolve_roots(d, next, &roots, &nroots, err, sizeof err) != 0) {
        amxd_set_error(d, "config reload: %s; keeping the current configuration", err);
        amx_config_finish(next);
        free(next);
        return;
    }
    if (amxd_log_open(next->log_path, next->log_level, err, sizeof err) != 0) {
        amxd_set_error(d, "config reload: %s; keeping the current configuration", err);
        free_strings(roots, nroots);
        amx_config_finish(next);
        free(next);
        return;
    }
    /* The database and the socket stay: changing them needs a restart. */
    if (strcmp(next->db_path, d->cfg->db_path) != 0 ||
        strcmp(next->socket_path, d->cfg->socket_path) != 0)
        amxd_log(AMX_LOG_WARNING, "config reload: the database and the socket change only on "
                                  "a restart; still using %s and %s",
                 d->cfg->db_path, d->cfg->socket_path);
    free(next->db_path);
    next->db_path = d->cfg->db_path;
    d->cfg->db_path = NULL;
    free(next->socket_path);
    next->socket_path = d->cfg->socket_path;
    d->cfg->socket_path = NULL;
    amx_config_finish(d->cfg);
    free(d->cfg);
    d->cfg = next;
    bool roots_changed = !same_roots(roots, nroots, d->roots, d->root_count);
    if (roots_changed) {
        /* Queued paths name roots by index: drop them, watch the new roots, scan them. */
        uint64_t min_seq = d->seq;
        amxd__drop_waiting(d, &min_seq);
        free_strings(d->roots, d->root_count);
        d->roots = roots;
        d->root_count = nroots;
        if (amxd__health_resize(d) != 0)
            amxd_set_error(d, "out of memory");
        ignore_own_files(d);
        amxd_watch_reset(d->watch);
        amxd__queue_roots(d, min_seq);
    } else {
        /* the same roots: a reload is also the way to say "look again" (after a disk was
         * freed, a root restored): the watches are walked again and every root rescanned */
        free_strings(roots, nroots);
        ignore_own_files(d);
        amxd_watch_rewalk(d->watch);
        d->full_rescans++;
        amxd__health_retry_now(d);
        amxd__queue_roots(d, 0);
    }
    start_timers(d);
    amxd_log(AMX_LOG_INFO, "configuration reloaded from %s%s (settle %d ms, log level %s)",
             d->cfg->source ? d->cfg->source : "the defaults",
             roots_changed ? ", roots changed" : "; rescanning every root", d->cfg->settle_ms,
             amx_log_level_name(d->cfg->log_level));
    amx_os_notify_service("READY=1");
    amxd__arm_settle(d);
    amxd__kick(d);
}

static void reload(amxd *d)
{
    amx_os_notify_service("RELOADING=1");
    amxd_opts o = {
        .explicit_config = d->explicit_config,
        .db_override = d->db_override,
        .socket_override = d->socket_override,
        .jobs_override = d->jobs_override,
        .follow_links = d->follow_links_override,
    };
    char err[1024] = "";
    amx_config *next = malloc(sizeof *next);
    if (!next || amxd_load_config(&o, next, err, sizeof err) != 0) {
        amxd_set_error(d, "config reload failed: %s; keeping the current configuration",
                       next ? err : "out of memory");
        free(next);
        amx_os_notify_service("READY=1");
        return;
    }
    if (d->reload) {
        amx_config_finish(d->reload);
        free(d->reload);
    }
    d->reload = next;
    if (!d->batch)
        amxd__apply_reload(d);
    else
        amxd_log(AMX_LOG_INFO, "config reloaded; applied when the running scan ends");
}

/* ---- timers and signals ---- */

static void reconcile_cb(uv_timer_t *t)
{
    amxd *d = t->data;
    d->full_rescans++;
    amxd_log(AMX_LOG_INFO, "periodic reconcile: checking the watches and rescanning every root");
    amxd_watch_rewalk(d->watch);
    amxd__health_retry_now(d);
    amxd__queue_roots(d, 0);
}

static void poll_cb(uv_timer_t *t)
{
    amxd *d = t->data;
    if (!d->paused)
        amxd_watch_poll_unwatched(d->watch);
}

static void start_timers(amxd *d)
{
    uv_timer_stop(&d->reconcile_timer);
    if (d->cfg->reconcile_s > 0) {
        uint64_t ms = (uint64_t)d->cfg->reconcile_s * 1000;
        uv_timer_start(&d->reconcile_timer, reconcile_cb, ms, ms);
    }
    uint64_t ms = (uint64_t)d->cfg->poll_s * 1000;
    uv_timer_start(&d->poll_timer, poll_cb, ms, ms);
}

static const char *signal_name(int signum)
{
    return signum == SIGINT ? "SIGINT" : signum == amx_os_sigbreak() ? "Ctrl-Break" : "SIGTERM";
}

static void signal_cb(uv_signal_t *s, int signum)
{
    amxd *d = s->data;
    if (signum && signum == amx_os_reload_signal()) {
        reload(d);
        return;
    }
    if (atomic_load(&d->stopping)) {
        amxd_log(AMX_LOG_WARNING, "%s: already stopping, waiting for the running scan to end "
                                  "(%s is safe too: the index stays consistent)",
                 signal_name(signum), amx_os_pick("SIGKILL", "taskkill /F"));
        return;
    }
    amxd__begin_stop(d, signal_name(signum));
}

static void close_cb_noop(uv_handle_t *h)
{
    (void)h;
}

/* The last step of a stop. Everything but the timers and signals (embedded in amxd, freed by
 * amxd_destroy after uv_run) has closed itself already, except control connections still
 * writing a reply: they close now (the write is cancelled) and free themselves. */
static void close_if_open(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (uv_is_closing(h))
        return;
    if (uv_handle_get_type(h) == UV_NAMED_PIPE)
        amxd_client_abort(h->data);
    else
        uv_close(h, close_cb_noop);
}

/* Stops: no new work, the running scan ends after the files being decoded, then every handle
 * closes and uv_run returns. Called again (why = NULL) when the batch ends. */
void amxd__begin_stop(amxd *d, const char *why)
{
    if (why) {
        amxd_log(AMX_LOG_INFO, "%s: stopping%s", why,
                 d->batch ? " once the files being decoded are written" : "");
        amx_os_notify_service("STOPPING=1");
    }
    atomic_store(&d->stopping, true);
    amxd__fail_syncs(d, "animidxd is stopping");
    if (d->server) {
        amxd_server_close(d->server);
        d->server = NULL;
    }
    if (d->watch) {
        amxd_watch_close(d->watch);
        d->watch = NULL;
    }
    if (d->handles_started) {
        uv_timer_stop(&d->settle_timer);
        uv_timer_stop(&d->reconcile_timer);
        uv_timer_stop(&d->poll_timer);
        uv_timer_stop(&d->health_timer);
    }
    if (d->batch)
        return; /* after_work_cb comes back here */
    uv_walk(d->loop, close_if_open, NULL);
}

/* ---- create / destroy ---- */

/* One daemon per database: an flock on "<db>.animidxd.lock", which holds our pid. */
static int take_lock(amxd *d, char *err, size_t errlen)
{
    char path[AMX_PATH_MAX];
    snprintf(path, sizeof path, "%s.animidxd.lock", d->cfg->db_path);
    int rc = amx_mkdir_parents(path, 0700);
    if (rc) {
        snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-rc));
        return -1;
    }
    char text[AMX_PATH_MAX + 64], held[256];
    snprintf(text, sizeof text, "%ld\n%s\n", amx_os_pid(), d->cfg->socket_path);
    /* never through a link planted at that name (the index may live inside a mod) */
    rc = amx_os_lock_take(path, text, &d->lock, held, sizeof held);
    if (rc == -EWOULDBLOCK) {
        long pid = strtol(held, NULL, 10);
        const char *sock = strchr(held, '\n');
        char *end = sock ? strchr(sock + 1, '\n') : NULL;
        if (end)
            *end = '\0';
        snprintf(err, errlen, "another animidxd (pid %ld, socket %s) is already running on the "
                              "index %s; stop it first, or give this one another database",
                 pid, sock && sock[1] ? sock + 1 : "?", d->cfg->db_path);
        return -1;
    }
    if (rc != 0 && !d->lock) {
        snprintf(err, errlen, "%s: cannot open the lock file: %s", path, strerror(-rc));
        return -1;
    }
    if (rc != 0)
        amxd_log(AMX_LOG_WARNING, "%s: cannot write the pid: %s", path, strerror(-rc));
    return 0;
}

int amxd_create(uv_loop_t *loop, amx_config *cfg, const amxd_opts *opts, amxd **out, char *err,
                size_t errlen)
{
    *out = NULL;
    amxd *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        amx_config_finish(cfg);
        free(cfg);
        return 3;
    }
    *out = d;
    d->loop = loop;
    d->cfg = cfg;
    d->start_ns = uv_hrtime();
    d->jobs_override = opts->jobs_override;
    d->follow_links_override = opts->follow_links;
    uv_mutex_init(&d->pmu);
    d->explicit_config = xstrdup(opts->explicit_config);
    d->db_override = xstrdup(opts->db_override);
    d->socket_override = xstrdup(opts->socket_override);
    if (opts->root_count) {
        d->arg_roots = calloc(opts->root_count, sizeof *d->arg_roots);
        for (size_t i = 0; d->arg_roots && i < opts->root_count; i++)
            if ((d->arg_roots[i] = strdup(opts->roots[i])))
                d->arg_root_count++;
        if (d->arg_root_count != opts->root_count) {
            snprintf(err, errlen, "out of memory");
            return 3;
        }
    }
    d->set_bases = opts->set_bases;
    if (opts->base_count) {
        d->arg_bases = calloc(opts->base_count, sizeof *d->arg_bases);
        for (size_t i = 0; d->arg_bases && i < opts->base_count; i++)
            if ((d->arg_bases[i] = strdup(opts->bases[i])))
                d->arg_base_count++;
        if (d->arg_base_count != opts->base_count) {
            snprintf(err, errlen, "out of memory");
            return 3;
        }
    }
    if (amxd_log_open(cfg->log_path, cfg->log_level, err, errlen) != 0)
        return 2;
    if (resolve_roots(d, cfg, &d->roots, &d->root_count, err, errlen) != 0)
        return 2;
    if (amxd__health_resize(d) != 0) {
        snprintf(err, errlen, "out of memory");
        return 3;
    }
    if (strlen(cfg->socket_path) > AMX_SOCKET_PATH_MAX) {
        snprintf(err, errlen, "%s: the %s is too long (at most %d bytes); set [daemon] socket "
                              "to a shorter one", cfg->socket_path,
                 amx_os_pick("socket path", "named pipe's name"), AMX_SOCKET_PATH_MAX);
        return 2;
    }
    if (take_lock(d, err, errlen) != 0)
        return 3;
    if (amx_db_open(cfg->db_path, 0, &d->db, err, errlen) != AMX_OK ||
        amx_db_open(cfg->db_path, AMX_DB_READONLY, &d->reader, err, errlen) != AMX_OK)
        return 3;
    ignore_own_files(d);

    uv_timer_init(loop, &d->settle_timer);
    uv_timer_init(loop, &d->reconcile_timer);
    uv_timer_init(loop, &d->poll_timer);
    d->settle_timer.data = d->reconcile_timer.data = d->poll_timer.data = d;
    amxd__health_start(d);
    uv_signal_init(loop, &d->sig_term);
    uv_signal_init(loop, &d->sig_int);
    uv_signal_init(loop, &d->sig_hup);
    d->sig_term.data = d->sig_int.data = d->sig_hup.data = d;
    d->handles_started = true;
    uv_signal_start(&d->sig_term, signal_cb, SIGTERM);
    uv_signal_start(&d->sig_int, signal_cb, SIGINT);
    /* the third: SIGHUP reloads (POSIX); Windows has no such signal, and Ctrl-Break stops */
    int other = amx_os_reload_signal() ? amx_os_reload_signal() : amx_os_sigbreak();
    if (other)
        uv_signal_start(&d->sig_hup, signal_cb, other);

    if (amxd_server_start(d, cfg->socket_path, &d->server, err, errlen) != 0) {
        amxd__begin_stop(d, NULL);
        return 3;
    }
    if (amxd_watch_start(d, &d->watch, err, errlen) != 0) {
        amxd__begin_stop(d, NULL);
        return 3;
    }
    start_timers(d);
    amxd_log(AMX_LOG_INFO, "animidxd %s started: index %s, socket %s, %zu root%s, settle %d ms",
             AMX_VERSION_STRING, cfg->db_path, cfg->socket_path, d->root_count,
             d->root_count == 1 ? "" : "s", cfg->settle_ms);
    for (size_t i = 0; i < d->root_count; i++)
        amxd_log(AMX_LOG_INFO, "root %s", d->roots[i]);
    amxd__queue_roots(d, 0); /* the initial scan: incremental, like 'animidx scan' */
    amx_os_notify_service("READY=1");
    return 0;
}

void amxd_destroy(amxd *d)
{
    if (!d)
        return;
    amxd__free_syncs(d);
    amxd__free_followers(d);
    amxd__queue_free(d);
    amxd__free_renames(d->renames, d->nrenames);
    amx_db_close(d->reader);
    amx_db_close(d->db);
    amx_os_lock_release(d->lock); /* the file stays (removing it would race) */
    free_strings(d->roots, d->root_count);
    free(d->health);
    free_strings(d->arg_roots, d->arg_root_count);
    free_strings(d->arg_bases, d->arg_base_count);
    free(d->explicit_config);
    free(d->db_override);
    free(d->socket_override);
    if (d->reload) {
        amx_config_finish(d->reload);
        free(d->reload);
    }
    amx_config_finish(d->cfg);
    free(d->cfg);
    uv_mutex_destroy(&d->pmu);
    free(d);
}
