/*
 * animidxd's health: whether the index says what the roots hold, and if not, why.
 *
 * A root is failing when its part of the index may be wrong and the daemon knows it: its scan
 * failed, changes under it could not be indexed after their retries (a full disk), the root is
 * gone (deleted, moved, unmounted), or a watch was lost. It stays failing until a scan of the
 * whole root succeeds. Meanwhile the daemon retries with back-off (1 s, 2 s, 4 s ... 60 s): a
 * retry re-adds the root's watches and rescans it, or for a root that is gone, looks whether it
 * is back. `status` shows the problems, `sync` answers with them (exit 3), and a sync, a
 * reload (SIGHUP) or the reconcile retries at once.
 *
 * The log names a cause once: a root that fails again for the same reason (every change of a
 * full disk, every retry) adds no line, and one line says when it is in sync again.
 *
 * It calls queue.c (to queue the rescans, to drop the changes of a root that is gone) and the
 * watcher (amxd_watch_root).
 */
#include "core_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS 60000

static const char *const kind_names[] = {
    [AMXD_SCAN_FAILED] = "scan-failed",
    [AMXD_CHANGES_DROPPED] = "changes-dropped",
    [AMXD_ROOT_MISSING] = "root-missing",
    [AMXD_WATCH_LOST] = "watch-lost",
};

static void arm(amxd *d);

bool amxd__root_exists(const amxd *d, unsigned root)
{
    amx_os_stat st;
    return amx_os_path_stat(d->roots[root], &st) == 0 && st.kind == AMX_OS_DIR;
}

bool amxd__healthy(const amxd *d)
{
    for (size_t r = 0; r < d->root_count; r++)
        if (d->health[r].failing)
            return false;
    return true;
}

int amxd__health_resize(amxd *d)
{
    root_health *h = calloc(d->root_count ? d->root_count : 1, sizeof *h);
    if (!h)
        return -1;
    free(d->health);
    d->health = h;
    arm(d);
    return 0;
}

/* What status and sync say of a failing root (without the root's path). */
static void describe(const root_health *h, char *buf, size_t len)
{
    switch (h->kind) {
    case AMXD_SCAN_FAILED:
        snprintf(buf, len, "its scan failed: %s", h->cause);
        break;
    case AMXD_CHANGES_DROPPED:
        snprintf(buf, len, "%llu change%s could not be indexed (%s%s): %s",
                 (unsigned long long)h->count, h->count == 1 ? "" : "s", h->first,
                 h->count > 1 ? " and others" : "", h->cause);
        break;
    case AMXD_ROOT_MISSING:
        snprintf(buf, len, "the root is gone (%s); its rows are kept until it is back", h->cause);
        break;
    case AMXD_WATCH_LOST:
        snprintf(buf, len, "a watch was lost (%s: %s), changes may have been missed", h->first,
                 h->cause);
        break;
    }
}

static uint64_t backoff_ms(unsigned retries)
{
    uint64_t ms = RETRY_FIRST_MS;
    for (unsigned i = 0; i < retries && ms < RETRY_MAX_MS; i++)
        ms *= 2;
    return ms < RETRY_MAX_MS ? ms : RETRY_MAX_MS;
}

void amxd__health_fail(amxd *d, unsigned root, amxd_problem kind, const char *what,
                       const char *fmt, ...)
{
    root_health *h = &d->health[root];
    char cause[sizeof h->cause];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cause, sizeof cause, fmt, ap);
    va_end(ap);
    /* a root that is gone explains every other failure under it */
    if (h->failing && h->kind == AMXD_ROOT_MISSING && kind != AMXD_ROOT_MISSING)
        return;
    bool same = h->failing && h->kind == kind && strcmp(h->cause, cause) == 0;
    if (!h->failing) {
        h->since = time(NULL);
        h->retries = 0;
        h->count = 0;
    }
    if (!same) {
        h->kind = kind;
        snprintf(h->cause, sizeof h->cause, "%s", cause);
        snprintf(h->first, sizeof h->first, "%s", what && *what ? what : ".");
        h->count = 0;
    }
    h->failing = true;
    h->count++;
    if (!h->retry_at)
        h->retry_at = uv_hrtime() + backoff_ms(h->retries) * 1000000;
    char text[1200];
    describe(h, text, sizeof text);
    snprintf(d->last_error, sizeof d->last_error, "%s: %s", d->roots[root], text);
    d->last_error_at = time(NULL);
    if (same) {
        amxd_log(AMX_LOG_DEBUG, "%s: failing again, as before: %s", d->roots[root], text);
    } else {
        amxd_log(AMX_LOG_ERROR, "%s: not in sync: %s; 'animidx sync' and 'status' say so until a "
                                "scan of the whole root succeeds (retried with back-off, at once "
                                "on a sync%s)",
                 d->roots[root], text, amx_os_pick(" or SIGHUP", ""));
    }
    arm(d);
}

void amxd__health_ok(amxd *d, unsigned root)
{
    root_health *h = &d->health[root];
    if (!h->failing)
        return;
    char text[1200];
    describe(h, text, sizeof text);
    amxd_log(AMX_LOG_INFO, "%s: in sync again: a scan of the whole root succeeded (%u "
                           "retr%s; it was failing since %.0f s: %s)",
             d->roots[root], h->retries, h->retries == 1 ? "y" : "ies",
             difftime(time(NULL), h->since), text);
    memset(h, 0, sizeof *h);
    arm(d);
}

/* One retry: a root that is gone is looked for; one that is there gets its watches again and
 * a rescan (whose success clears the problem, amxd__health_ok). */
static void retry(amxd *d, unsigned root)
{
    root_health *h = &d->health[root];
    h->retry_at = 0;
    if (!amxd__root_exists(d, root)) {
        h->retries++;
        amxd__health_fail(d, root, AMXD_ROOT_MISSING, "", "%s", h->kind == AMXD_ROOT_MISSING
                                                                   ? h->cause
                                                                   : "it does not exist");
        return;
    }
    if (h->kind == AMXD_ROOT_MISSING)
        amxd_log(AMX_LOG_INFO, "%s: the root is back: watching and rescanning it",
                 d->roots[root]);
    h->retries++;
    amxd_watch_root(d->watch, root);
    d->full_rescans++;
    amxd__queue_path(d, root, "", AMXD_DIR | AMXD_NOW, 0, 0);
    /* the next retry, should this one fail too (the batch's failure keeps the schedule) */
    h->retry_at = uv_hrtime() + backoff_ms(h->retries) * 1000000;
    arm(d);
}

void amxd__health_retry_now(amxd *d)
{
    for (unsigned r = 0; r < d->root_count; r++)
        if (d->health[r].failing)
            retry(d, r);
}

static void timer_cb(uv_timer_t *t)
{
    amxd *d = t->data;
    uint64_t now = uv_hrtime();
    for (unsigned r = 0; r < d->root_count; r++) {
        root_health *h = &d->health[r];
        /* one retry at a time: not while the last one is queued or scanning */
        if (h->failing && h->retry_at && h->retry_at <= now && !d->paused)
            retry(d, r);
    }
    arm(d);
}

/* Starts the timer for the earliest retry, or stops it. */
static void arm(amxd *d)
{
    if (!d->handles_started || atomic_load(&d->stopping))
        return;
    uint64_t due = 0;
    for (size_t r = 0; r < d->root_count; r++) {
        const root_health *h = &d->health[r];
        if (h->failing && h->retry_at && (!due || h->retry_at < due))
            due = h->retry_at;
    }
    if (!due) {
        uv_timer_stop(&d->health_timer);
        return;
    }
    uint64_t now = uv_hrtime();
    uv_timer_start(&d->health_timer, timer_cb, due > now ? (due - now + 999999) / 1000000 : 0, 0);
}

void amxd__health_start(amxd *d)
{
    uv_timer_init(d->loop, &d->health_timer);
    d->health_timer.data = d;
}

void amxd__health_json(const amxd *d, amx_json *j)
{
    amx_json_kstring(j, "health", amxd__healthy(d) ? "ok" : "failing");
    amx_json_key(j, "problems");
    amx_json_begin_array(j);
    uint64_t now = uv_hrtime();
    for (size_t r = 0; r < d->root_count; r++) {
        const root_health *h = &d->health[r];
        if (!h->failing)
            continue;
        char text[1200];
        describe(h, text, sizeof text);
        amx_json_begin_object(j);
        amx_json_kstring(j, "root", d->roots[r]);
        amx_json_kstring(j, "kind", kind_names[h->kind]);
        amx_json_kstring(j, "reason", text);
        amx_json_kint(j, "since", (int64_t)h->since);
        amx_json_kint(j, "retries", (int64_t)h->retries);
        amx_json_key(j, "next_retry_s");
        if (h->retry_at)
            amx_json_number(j, h->retry_at > now ? (double)(h->retry_at - now) / 1e9 : 0);
        else
            amx_json_null(j);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
}

size_t amxd__health_text(const amxd *d, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t r = 0; r < d->root_count && n < len; r++) {
        const root_health *h = &d->health[r];
        if (!h->failing)
            continue;
        char text[1200];
        describe(h, text, sizeof text);
        int w = snprintf(buf + n, len - n, "%s%s: %s", n ? "; " : "", d->roots[r], text);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return n < len ? n : len - 1;
}
