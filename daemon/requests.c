/*
 * animidxd's control requests, as server.c hands them over: status, pause, resume and sync.
 * Each answer is one JSON object (reply_begin ... reply_send) queued to the client with
 * amxd_client_send.
 *
 * sync is a barrier. It reads every event the kernel has queued (a change made before the
 * request has its event queued by then), skips the settle wait, retries a failing root at once,
 * and answers once no queued path has an event numbered at or below the last one it saw
 * (amxd__check_syncs, after each batch): ok when every root is healthy, else an error naming
 * each problem (health.c). A pause or a stop ends the waiting syncs with an error; a client
 * going away drops its own.
 *
 * follow subscribes: the reply (event "start") says where the index is, which roots it holds
 * and whether the initial scan is done, then one more line comes after every batch (event
 * "batch": the files it decoded and removed), until the client goes. `animidx watch --lint`
 * and `animidx status --follow` read the index's findings on each and print what changed.
 *
 * It calls queue.c (the lists, the settle timer), amxd__kick (batch.c) and the watcher
 * (amxd_watch_drain, amxd_watch_poll_unwatched, amxd_watch_status).
 */
#include "core_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATUS_SCHEMA 1

/* A client told of every batch (follow). */
struct follower {
    struct follower *next;
    amxd_client *client;
};

/* A sync request waiting for the changes it saw to be indexed. */
struct sync_wait {
    struct sync_wait *next;
    amxd_client *client;
    uint64_t target;              /* done when no queued path has an event at or below it */
    uint64_t t_start;
    uint64_t decoded_at_start, removed_at_start;
};

static double ms_since(uint64_t t0)
{
    return (double)(uv_hrtime() - t0) / 1e6;
}

/* A JSON reply built with amx_json into its buffer. */
typedef struct reply {
    amx_json j;
} reply;

static bool reply_begin(reply *r, const char *cmd, bool ok)
{
    amx_json_init_buffer(&r->j, false);
    amx_json_begin_object(&r->j);
    amx_json_kbool(&r->j, "ok", ok);
    amx_json_kstring(&r->j, "cmd", cmd);
    return true;
}

static void reply_send(reply *r, amxd_client *c)
{
    amx_json_end_object(&r->j);
    char *text = amx_json_take(&r->j, NULL);
    if (text)
        amxd_client_send(c, text);
    free(text);
}

static void reply_error(amxd_client *c, const char *cmd, const char *msg)
{
    reply r;
    if (!reply_begin(&r, cmd, false))
        return;
    amx_json_kstring(&r.j, "error", msg);
    reply_send(&r, c);
}

static const char *state_name(const amxd *d)
{
    if (atomic_load(&d->stopping))
        return "stopping";
    if (d->paused)
        return "paused";
    if (!d->initial_done || (d->batch && d->batch->has_root))
        return "scanning";
    return "watching";
}

static size_t queue_depth(const amxd *d)
{
    return d->lists[ENTRY_PENDING].n + d->lists[ENTRY_HELD].n + d->lists[ENTRY_READY].n +
           d->lists[ENTRY_INFLIGHT].n;
}

static void send_status(amxd *d, amxd_client *c)
{
    reply r;
    if (!reply_begin(&r, "status", true))
        return;
    amx_json *j = &r.j;
    amx_json_kint(j, "schema", STATUS_SCHEMA);
    amx_json_kstring(j, "version", AMX_VERSION_STRING);
    amx_json_kint(j, "pid", (int64_t)amx_os_pid());
    amx_json_kstring(j, "state", state_name(d));
    amx_json_kstring(j, "database", d->cfg->db_path);
    amx_json_kstring(j, "config", d->cfg->source);
    amx_json_key(j, "roots");
    amx_json_begin_array(j);
    for (size_t i = 0; i < d->root_count; i++)
        amx_json_string(j, d->roots[i]);
    amx_json_end_array(j);
    amx_summary sum;
    char err[512];
    if (d->reader && amx_query_summary(d->reader, d->cfg, false, &sum, err, sizeof err) == AMX_OK) {
        amx_json_kint(j, "files", (int64_t)sum.files);
        amx_json_kint(j, "other_files", (int64_t)sum.other_files);
        amx_json_key(j, "findings");
        amx_json_begin_object(j);
        amx_json_kint(j, "error", (int64_t)sum.findings[AMX_SEV_ERROR]);
        amx_json_kint(j, "warning", (int64_t)sum.findings[AMX_SEV_WARNING]);
        amx_json_kint(j, "info", (int64_t)sum.findings[AMX_SEV_INFO]);
        amx_json_end_object(j);
    } else {
        amx_json_key(j, "files");
        amx_json_null(j);
    }
    amx_json_kint(j, "queue", (int64_t)queue_depth(d));
    amx_json_kint(j, "in_flight", (int64_t)d->lists[ENTRY_INFLIGHT].n);
    double rate = d->last_rate;
    if (d->batch) {
        uv_mutex_lock(&d->pmu);
        uint64_t seen = d->p_seen;
        uv_mutex_unlock(&d->pmu);
        double secs = (double)(uv_hrtime() - d->batch->t_start) / 1e9;
        if (secs > 0.5)
            rate = (double)seen / secs;
    }
    amx_json_knumber(j, "files_per_sec", rate);
    amx_json_kint(j, "files_decoded", (int64_t)d->decoded);
    amx_json_kint(j, "files_removed", (int64_t)d->removed);
    amx_json_kint(j, "files_unreadable", (int64_t)d->failed);
    amx_json_kint(j, "batches", (int64_t)d->batches);
    amx_json_kint(j, "overflows", (int64_t)d->overflows);
    amx_json_kint(j, "renamed", (int64_t)atomic_load(&d->renamed_atomic));
    amx_json_kint(j, "lost_watches", (int64_t)d->lost_watches);
    amx_json_kint(j, "full_rescans", (int64_t)d->full_rescans);
    amx_json_kint(j, "scan_errors", (int64_t)d->scan_errors);
    amxd__health_json(d, j);
    if (d->watch)
        amxd_watch_status(d->watch, j);
    amx_json_kstring(j, "last_error", d->last_error[0] ? d->last_error : NULL);
    amx_json_key(j, "last_error_at");
    if (d->last_error_at)
        amx_json_int(j, (int64_t)d->last_error_at);
    else
        amx_json_null(j);
    amx_json_kint(j, "settle_ms", d->cfg->settle_ms);
    amx_json_kint(j, "reconcile_interval_s", d->cfg->reconcile_s);
    amx_json_kint(j, "poll_interval_s", d->cfg->poll_s);
    amx_json_kstring(j, "log_level", amx_log_level_name(d->cfg->log_level));
    amx_json_knumber(j, "uptime_s", (double)(uv_hrtime() - d->start_ns) / 1e9);
    reply_send(&r, c);
}

/* A follow line: the event, the batches so far, the state and whether the index has been
 * scanned whole since the start (before that it may miss files). */
static bool follow_begin(amxd *d, reply *r, const char *event)
{
    if (!reply_begin(r, "follow", true))
        return false;
    amx_json_kstring(&r->j, "event", event);
    amx_json_kint(&r->j, "batch", (int64_t)d->batches);
    amx_json_kstring(&r->j, "state", state_name(d));
    amx_json_kbool(&r->j, "initial_done", d->initial_done);
    return true;
}

static void start_follow(amxd *d, amxd_client *c)
{
    for (follower *g = d->followers; g; g = g->next)
        if (g->client == c) { /* once per client: a send may drop it, and all its entries */
            reply_error(c, "follow", "this connection follows the batches already");
            return;
        }
    follower *f = calloc(1, sizeof *f);
    reply r;
    if (!f) {
        reply_error(c, "follow", "out of memory");
        return;
    }
    if (!follow_begin(d, &r, "start")) {
        free(f);
        return;
    }
    amx_json_kint(&r.j, "schema", STATUS_SCHEMA);
    amx_json_kstring(&r.j, "database", d->cfg->db_path);
    amx_json_key(&r.j, "roots");
    amx_json_begin_array(&r.j);
    for (size_t i = 0; i < d->root_count; i++)
        amx_json_string(&r.j, d->roots[i]);
    amx_json_end_array(&r.j);
    reply_send(&r, c);
    f->client = c;
    f->next = d->followers;
    d->followers = f;
}

void amxd__notify_followers(amxd *d, uint64_t decoded, uint64_t removed)
{
    for (follower *f = d->followers, *next; f; f = next) {
        next = f->next; /* a send may drop the client, which removes it (amxd_client_gone) */
        reply r;
        if (!follow_begin(d, &r, "batch"))
            return;
        amx_json_kint(&r.j, "files_decoded", (int64_t)decoded);
        amx_json_kint(&r.j, "files_removed", (int64_t)removed);
        amx_json_kint(&r.j, "queue", (int64_t)queue_depth(d));
        reply_send(&r, f->client);
    }
}

void amxd__free_followers(amxd *d)
{
    while (d->followers) {
        follower *f = d->followers;
        d->followers = f->next;
        free(f);
    }
}

/* Once the changes it saw are indexed, a sync answers whether the index is in sync: not while a
 * root is failing (health.c), whatever the cause and whenever it began. */
static void finish_sync(amxd *d, sync_wait *w)
{
    reply r;
    bool ok = amxd__healthy(d);
    if (!reply_begin(&r, "sync", ok))
        return;
    amx_json_knumber(&r.j, "ms", ms_since(w->t_start));
    amx_json_kint(&r.j, "files_decoded", (int64_t)(d->decoded - w->decoded_at_start));
    amx_json_kint(&r.j, "files_removed", (int64_t)(d->removed - w->removed_at_start));
    if (!ok) {
        char text[4096], msg[4200];
        amxd__health_text(d, text, sizeof text);
        snprintf(msg, sizeof msg, "not in sync: %s", text);
        amx_json_kstring(&r.j, "error", msg);
        amxd__health_json(d, &r.j);
    }
    reply_send(&r, w->client);
}

/* Answers every sync whose changes are all indexed. */
void amxd__check_syncs(amxd *d)
{
    if (!d->syncs)
        return;
    uint64_t min = UINT64_MAX;
    for (int s = ENTRY_PENDING; s < ENTRY_LISTS; s++)
        for (entry *e = d->lists[s].head; e; e = e->next)
            if (e->seq < min)
                min = e->seq;
    for (sync_wait **p = &d->syncs; *p;) {
        sync_wait *w = *p;
        if (w->target < min) {
            *p = w->next;
            finish_sync(d, w);
            free(w);
        } else {
            p = &w->next;
        }
    }
}

/* Ends every waiting sync with an error (pause, shutdown). */
void amxd__fail_syncs(amxd *d, const char *msg)
{
    while (d->syncs) {
        sync_wait *w = d->syncs;
        d->syncs = w->next;
        reply_error(w->client, "sync", msg);
        free(w);
    }
}

static void start_sync(amxd *d, amxd_client *c)
{
    if (d->paused) {
        reply_error(c, "sync", "indexing is paused, so changes are not being indexed; run "
                               "'animidx resume' first");
        return;
    }
    sync_wait *w = calloc(1, sizeof *w);
    if (!w) {
        reply_error(c, "sync", "out of memory");
        return;
    }
    w->client = c;
    w->t_start = uv_hrtime();
    w->decoded_at_start = d->decoded;
    w->removed_at_start = d->removed;
    /* a failing root is retried now, and the sync waits for that scan: its answer is today's */
    amxd__health_retry_now(d);
    /* Every change made before the request has its event queued in the kernel by now. */
    if (!amxd_watch_drain(d->watch)) {
        d->full_rescans++;
        amxd__queue_roots(d, 0);
    }
    amxd_watch_poll_unwatched(d->watch);
    w->target = d->seq;
    /* No settle wait for what the caller is waiting for. */
    for (int s = ENTRY_PENDING; s <= ENTRY_HELD; s++)
        while (d->lists[s].head)
            amxd__set_state(d, d->lists[s].head, ENTRY_READY);
    w->next = d->syncs;
    d->syncs = w;
    amxd__arm_settle(d);
    amxd__kick(d);
    amxd__check_syncs(d);
}

void amxd_request(amxd *d, amxd_client *c, const char *cmd)
{
    if (strcmp(cmd, "stop") == 0) {
        /* the reply first (the server sends what is queued before it closes), then the stop
         * SIGTERM makes; 'animidx stop' waits for the index's lock to be released */
        reply r;
        if (reply_begin(&r, cmd, true)) {
            amx_json_kint(&r.j, "pid", (int64_t)amx_os_pid());
            amx_json_kstring(&r.j, "database", d->cfg->db_path);
            reply_send(&r, c);
        }
        if (!atomic_load(&d->stopping))
            amxd__begin_stop(d, "'animidx stop'");
        return;
    }
    if (atomic_load(&d->stopping)) {
        reply_error(c, cmd, "animidxd is stopping");
        return;
    }
    if (strcmp(cmd, "status") == 0) {
        send_status(d, c);
    } else if (strcmp(cmd, "sync") == 0) {
        start_sync(d, c);
    } else if (strcmp(cmd, "follow") == 0) {
        start_follow(d, c);
    } else if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0) {
        bool pause = cmd[0] == 'p';
        if (pause != d->paused)
            amxd_log(AMX_LOG_INFO, "%s (requested over the socket)",
                     pause ? "paused: changes are queued, not indexed" : "resumed");
        d->paused = pause;
        if (pause)
            amxd__fail_syncs(d, "indexing was paused before these changes were indexed");
        reply r;
        if (reply_begin(&r, cmd, true)) {
            amx_json_kstring(&r.j, "state", state_name(d));
            amx_json_kint(&r.j, "queue", (int64_t)queue_depth(d));
            reply_send(&r, c);
        }
        amxd__kick(d);
    } else if (!*cmd) {
        reply_error(c, cmd, "bad request: send one JSON object per line, such as {\"cmd\": "
                            "\"status\"} (commands: status, pause, resume, sync, follow, stop)");
    } else {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "unknown command '%.40s' (known: status, pause, resume, sync, follow, stop)", cmd);
        reply_error(c, cmd, msg);
    }
}

void amxd_client_gone(amxd *d, amxd_client *c)
{
    for (follower **p = &d->followers; *p;) {
        follower *f = *p;
        if (f->client == c) {
            *p = f->next;
            free(f);
        } else {
            p = &f->next;
        }
    }
    for (sync_wait **p = &d->syncs; *p;) {
        sync_wait *w = *p;
        if (w->client == c) {
            *p = w->next;
            free(w);
        } else {
            p = &w->next;
        }
    }
}

void amxd__free_syncs(amxd *d)
{
    while (d->syncs) {
        sync_wait *w = d->syncs;
        d->syncs = w->next;
        free(w);
    }
}
