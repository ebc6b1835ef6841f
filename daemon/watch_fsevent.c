/*
 * Watching on other platforms (macOS, Windows, the BSDs): one uv_fs_event per root with
 * UV_FS_EVENT_RECURSIVE (recursive on macOS and Windows). These events carry no rename cookie,
 * so every reported name is rescanned as a scope, `sync` rescans the roots, and the periodic
 * reconcile scan backs everything up. An event without a name is the overflow (Windows: the
 * change buffer was too small): counted and logged as inotify's, and every root is rescanned.
 *
 * Renames are inferred. Windows reports a rename as FILE_ACTION_RENAMED_OLD_NAME directly
 * followed by FILE_ACTION_RENAMED_NEW_NAME, and libuv passes both (like ADDED and REMOVED) as
 * UV_RENAME, in that order. So a UV_RENAME for a name that is gone, directly followed by a
 * UV_RENAME for a name that is there, may be a rename: amxd_rename_guess, which the batch
 * checks (a deletion followed by a new file looks the same) before it moves the rows. Both
 * names are rescanned anyway.
 */
#include "daemon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct root_watch {
    uv_fs_event_t h;
    amxd *d;
    struct amxd_watch *w;
    unsigned root;
    bool has_gone;                /* the last event was a UV_RENAME of a name that is gone: */
    char gone[AMX_PATH_MAX];      /* that name (relative), the old half of a rename maybe */
} root_watch;

struct amxd_watch {
    amxd *d;
    root_watch **roots;
    size_t count;
    size_t failed;                /* roots that could not be watched: polled */
    uint64_t events;
};

static void event_cb(uv_fs_event_t *h, const char *filename, int events, int status)
{
    root_watch *rw = h->data;
    amxd *d = rw->d;
    rw->w->events++;
    bool after_gone = rw->has_gone;
    rw->has_gone = false; /* only the very next event can be the rename's other half */
    if (status < 0) {
        amxd_lost_watch(d, rw->root, "", uv_strerror(status));
        return;
    }
    if (!filename || !*filename) {
        /* no name: more changes came than the watch's buffer holds (on Windows,
         * ReadDirectoryChangesW returned none: its overflow) or a name could not be read; what
         * changed is unknown, as after inotify's overflow */
        char why[AMX_PATH_MAX + 96];
        snprintf(why, sizeof why, "%s: the directory watch reported changes without their names",
                 amxd_root(d, rw->root));
        amxd_overflow(d, why);
        return;
    }
    char rel[AMX_PATH_MAX];
    snprintf(rel, sizeof rel, "%s", filename);
    for (char *p = rel; *p; p++)
        if (*p == '\\')
            *p = '/';
    if (amxd_skip(d, rel))
        return;
    char path[AMX_PATH_MAX];
    amx_os_stat st;
    bool exists = amxd_abs_path(d, rw->root, rel, path, sizeof path) &&
                  amx_os_path_stat(path, &st) == 0;
    bool dir = exists && st.kind == AMX_OS_DIR;
    if (events & UV_RENAME) {
        if (exists && after_gone) {
            amxd_rename_guess(d, rw->root, rw->gone, rel);
            if (amxd_log_enabled(AMX_LOG_DEBUG))
                amxd_log(AMX_LOG_DEBUG, "renamed %s -> %s (maybe)", rw->gone, rel);
            if (dir) /* the old name was a directory too: rescanned as a subtree */
                amxd_touch(d, rw->root, rw->gone, AMXD_DIR);
        } else if (!exists && strlen(rel) < sizeof rw->gone) {
            memcpy(rw->gone, rel, strlen(rel) + 1);
            rw->has_gone = true;
        }
    }
    amxd_touch(d, rw->root, rel, dir ? AMXD_DIR : 0);
}

static void free_root_watch(uv_handle_t *h)
{
    free(h->data);
}

/* A new handle for a root, started. */
static root_watch *start_root(amxd_watch *w, unsigned r, bool *started)
{
    amxd *d = w->d;
    root_watch *rw = calloc(1, sizeof *rw);
    if (!rw)
        return NULL;
    rw->d = d;
    rw->w = w;
    rw->root = r;
    rw->h.data = rw;
    uv_fs_event_init(amxd_loop(d), &rw->h);
    int rc = uv_fs_event_start(&rw->h, event_cb, amxd_root(d, r), UV_FS_EVENT_RECURSIVE);
    if (rc)
        amxd_set_error(d, "cannot watch %s: %s; it is rescanned every %d s instead",
                       amxd_root(d, r), uv_strerror(rc), amxd_config(d)->poll_s);
    *started = rc == 0;
    return rw;
}

static void watch_roots(amxd_watch *w)
{
    size_t n = amxd_root_count(w->d);
    w->roots = calloc(n ? n : 1, sizeof *w->roots);
    w->count = w->failed = 0;
    for (unsigned r = 0; w->roots && r < n; r++) {
        bool started;
        root_watch *rw = start_root(w, r, &started);
        if (!rw)
            break;
        if (!started)
            w->failed++;
        w->roots[w->count++] = rw;
    }
}

static void close_roots(amxd_watch *w)
{
    for (size_t i = 0; i < w->count; i++)
        uv_close((uv_handle_t *)&w->roots[i]->h, free_root_watch);
    free(w->roots);
    w->roots = NULL;
    w->count = 0;
}

int amxd_watch_start(amxd *d, amxd_watch **out, char *err, size_t errlen)
{
    amxd_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->d = d;
    watch_roots(w);
    *out = w;
    return 0;
}

void amxd_watch_close(amxd_watch *w)
{
    if (!w)
        return;
    close_roots(w);
    free(w);
}

bool amxd_watch_drain(amxd_watch *w)
{
    (void)w;
    return false; /* no way to tell which events are still in flight: sync rescans */
}

void amxd_watch_rewalk(amxd_watch *w)
{
    (void)w;
}

void amxd_watch_root(amxd_watch *w, unsigned root)
{
    /* the handle watches the directory the path named when it started: a new one watches what
     * the path names now (a root that was deleted and is back). Never the same handle stopped
     * and started again: on Windows a stop leaves its directory read pending until the close,
     * and a start on top of it shares that read's request (the loop then never ends). */
    for (size_t i = 0; i < w->count; i++) {
        root_watch *old = w->roots[i];
        if (old->root != root)
            continue;
        bool was_active = uv_is_active((uv_handle_t *)&old->h), started;
        root_watch *rw = start_root(w, root, &started);
        if (!rw)
            return; /* out of memory: the old handle stays (the poll and reconcile catch up) */
        uv_close((uv_handle_t *)&old->h, free_root_watch);
        w->roots[i] = rw;
        if (started && !was_active && w->failed)
            w->failed--;
        else if (!started && was_active)
            w->failed++;
    }
}

void amxd_watch_reset(amxd_watch *w)
{
    close_roots(w);
    watch_roots(w);
}

size_t amxd_watch_poll_unwatched(amxd_watch *w)
{
    size_t n = 0;
    for (size_t i = 0; i < w->count; i++)
        if (!uv_is_active((uv_handle_t *)&w->roots[i]->h)) {
            amxd_touch(w->d, w->roots[i]->root, "", AMXD_DIR | AMXD_NOW);
            n++;
        }
    return n;
}

void amxd_watch_status(amxd_watch *w, amx_json *j)
{
    amx_json_kstring(j, "watcher", "uv_fs_event");
    amx_json_kint(j, "watches", (int64_t)(w->count - w->failed));
    amx_json_kint(j, "unwatched_dirs", (int64_t)w->failed);
    amx_json_kbool(j, "watch_limit_reached", false);
    amx_json_kint(j, "events", (int64_t)w->events);
}
