/*
 * Internal to the daemon's core: the daemon struct and the functions its four files call in
 * one another. server.c and watch_*.c do not include this; they use daemon.h.
 *
 *   core.c      the daemon's lifecycle: config and roots, create/destroy, the single-instance
 *               lock, the periodic timers, signals, reload (SIGHUP) and stop
 *   queue.c     the change queue: the hash table of paths, its four lists, the settle timer
 *   batch.c     the single writer: one batch of ready paths at a time, scanned on the libuv pool
 *   requests.c  the control requests: status, pause/resume, sync barriers
 *   health.c    the roots' health: what makes the index wrong, retries with back-off
 *
 * Everything here runs on the loop thread, except the fields the running batch's worker
 * touches (noted in struct amxd).
 */
#ifndef AMXD_CORE_INTERNAL_H
#define AMXD_CORE_INTERNAL_H

#include "daemon.h"

#include <string.h>
#include <time.h>

/* ---- queue.c: the change queue ---- */

/* The lists a queued path moves through (queue.c explains them). */
enum { ENTRY_NONE = -1, ENTRY_PENDING, ENTRY_HELD, ENTRY_READY, ENTRY_INFLIGHT, ENTRY_LISTS };

typedef struct entry {
    struct entry *hnext;          /* hash chain */
    struct entry *prev, *next;    /* in lists[state] */
    int state;
    unsigned root;
    int flags;                    /* AMXD_DIR | AMXD_WRITING */
    int tries;                    /* failed scans so far */
    uint64_t hash;
    uint64_t seq;                 /* sequence number of the latest event */
    uint64_t last_ns;             /* uv_hrtime() of the latest event */
    char rel[];
} entry;

typedef struct elist {
    entry *head, *tail;
    size_t n;
} elist;

/* ---- batch.c: the running batch (status reads has_root and t_start) ---- */

typedef struct scope scope;
typedef struct rename_op rename_op;

typedef struct batch {
    uv_work_t req;
    amxd *d;
    rename_op *renames;           /* owned: applied first, by the worker */
    size_t nrenames;
    uint64_t seq_start;           /* events numbered above this came in during the batch */
    uint64_t t_start;
    bool has_root;                /* a whole-root scan: status says "scanning" */
    size_t n;
    scope *scopes;
} batch;

/* ---- requests.c ---- */

typedef struct sync_wait sync_wait;
typedef struct follower follower;

/* ---- health.c: why a root's part of the index may be wrong ---- */

typedef enum amxd_problem {
    AMXD_SCAN_FAILED,             /* a scan of the whole root failed */
    AMXD_CHANGES_DROPPED,         /* changes could not be indexed, after their retries */
    AMXD_ROOT_MISSING,            /* the root is gone: deleted, moved, unmounted */
    AMXD_WATCH_LOST,              /* a watch was lost: changes may have been missed */
} amxd_problem;

typedef struct root_health {
    bool failing;                 /* until a scan of the whole root succeeds */
    amxd_problem kind;
    char cause[512];              /* the error, as the scan or the watcher said it */
    char first[256];              /* the first path it hit ("." for the root) */
    uint64_t count;               /* failures of this kind and cause so far */
    time_t since;
    unsigned retries;             /* retries so far (the back-off doubles with each) */
    uint64_t retry_at;            /* uv_hrtime() of the next retry, 0 = none */
} root_health;

/* ---- the daemon ---- */

struct amxd {
    uv_loop_t *loop;
    amx_config *cfg;
    amx_config *reload;           /* a reloaded config waiting for the batch to end */
    char *explicit_config, *db_override, *socket_override; /* for reloads */
    int jobs_override;
    bool follow_links_override;   /* --follow-links (kept over reloads) */
    char **arg_roots;             /* roots given on the command line (kept over reloads) */
    size_t arg_root_count;
    char **arg_bases;             /* --base: base layers of every root (kept over reloads) */
    size_t arg_base_count;
    bool set_bases;               /* --base or --no-base was given */
    char **roots;                 /* absolute, resolved */
    size_t root_count;
    amx_db *db;                   /* the writer: used only by the batch job */
    amx_db *reader;               /* read-only, for status */
    amx_os_lock *lock;            /* one daemon per index */
    amxd_watch *watch;
    amxd_server *server;
    uv_timer_t settle_timer, reconcile_timer, poll_timer, health_timer;
    root_health *health;          /* one per root (health.c) */
    uv_signal_t sig_term, sig_int, sig_hup;
    bool handles_started;

    entry **buckets;
    size_t nbuckets, count;
    elist lists[ENTRY_LISTS];
    batch *batch;
    sync_wait *syncs;
    follower *followers;          /* clients told of every batch (follow) */
    uint64_t seq;
    bool paused;
    atomic_bool stopping;
    bool initial_done;

    uint64_t overflows, lost_watches, full_rescans, batches, scan_errors;
    uint64_t decoded, removed, seen, failed;
    double last_rate;             /* files per second of the last batch */
    char last_error[2048];
    time_t last_error_at;
    uint64_t start_ns;

    rename_op *renames;           /* paired renames waiting for the next batch */
    size_t nrenames, rename_cap;
    atomic_uint_fast64_t renamed_atomic; /* rows moved by renames (status; the worker adds) */

    uv_mutex_t pmu;               /* the running scan's progress (written by its thread) */
    uint64_t p_seen;
};

static inline char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ---- core.c ---- */

/* Stops (a signal; why = NULL: again, once the running batch ended). */
void amxd__begin_stop(amxd *d, const char *why);
/* Applies d->reload, a reloaded config (only while no batch runs: the job reads d->cfg). */
void amxd__apply_reload(amxd *d);

/* ---- queue.c ---- */

/* Queues a path (seq 0: the next sequence number; tries: its failed scans so far). */
void amxd__queue_path(amxd *d, unsigned root, const char *rel, int flags, uint64_t seq,
                      int tries);
/* Queues every root for a rescan now (AMXD_NOW), with the sequence number seq (0 = next). */
void amxd__queue_roots(amxd *d, uint64_t seq);
/* Moves an entry to the tail of lists[state] (ENTRY_NONE: out of every list). */
void amxd__set_state(amxd *d, entry *e, int state);
/* Back to pending, in order of its last event (which came in while it was being scanned). */
void amxd__requeue_pending(amxd *d, entry *e);
/* Removes an entry from its list and the hash table, and frees it. */
void amxd__delete_entry(amxd *d, entry *e);
/* Drops every queued path that is not being scanned (pending, held, ready). Lowers *min_seq to
 * the lowest sequence number among them; returns how many were dropped. */
size_t amxd__drop_waiting(amxd *d, uint64_t *min_seq);
/* Starts the settle timer for the earliest settle or hold deadline, or stops it. */
void amxd__arm_settle(amxd *d);
/* Frees every queued path and the hash table (amxd_destroy). */
void amxd__queue_free(amxd *d);

/* ---- batch.c ---- */

/* Starts a batch of every ready path, unless one runs, the daemon is paused or stopping. */
void amxd__kick(amxd *d);
void amxd__free_renames(rename_op *r, size_t n);

/* Drops every queued path of a root that is not being scanned (the root is gone). */
void amxd__drop_root(amxd *d, unsigned root);

/* ---- health.c ---- */

/* Sizes d->health for d->root_count roots, all healthy (start, roots changed). 0 or -1. */
int amxd__health_resize(amxd *d);
/* Initialises the retry timer (with the other timers). */
void amxd__health_start(amxd *d);
bool amxd__root_exists(const amxd *d, unsigned root);
bool amxd__healthy(const amxd *d);
/* A root is failing: logged once per kind and cause (what: the path it hit, "" for the root),
 * retried with back-off. */
void amxd__health_fail(amxd *d, unsigned root, amxd_problem kind, const char *what,
                       const char *fmt, ...) AMX_PRINTF(5, 6);
/* A scan of the whole root succeeded: the root is in sync (logged when it was failing). */
void amxd__health_ok(amxd *d, unsigned root);
/* Retries every failing root now (a sync, a reload). */
void amxd__health_retry_now(amxd *d);
/* "health" and "problems" of the status reply. */
void amxd__health_json(const amxd *d, amx_json *j);
/* The problems as one line ("ROOT: reason; ROOT: reason"), for a sync's error. */
size_t amxd__health_text(const amxd *d, char *buf, size_t len);

/* ---- requests.c ---- */

/* Answers every sync whose changes are all indexed. */
void amxd__check_syncs(amxd *d);
/* Ends every waiting sync with an error (pause, shutdown). */
void amxd__fail_syncs(amxd *d, const char *msg);
/* Frees the waiting syncs without an answer (amxd_destroy: the clients are gone). */
void amxd__free_syncs(amxd *d);
/* Tells every follower that a batch ended (the files it decoded and removed). */
void amxd__notify_followers(amxd *d, uint64_t decoded, uint64_t removed);
/* Frees the followers (amxd_destroy: the clients are gone). */
void amxd__free_followers(amxd *d);

#endif
