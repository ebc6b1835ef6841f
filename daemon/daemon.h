/*
 * animidxd: the watcher daemon. Internal interfaces between its parts.
 *
 *   main.c            arguments, config, the single-instance lock, daemonizing, uv_run
 *   core.c            the daemon's lifecycle: config and roots, create/destroy, the lock,
 *                     timers and signals, reload, shutdown
 *   queue.c           the change queue: settle, held writes, sequence numbers
 *   batch.c           the one writer job at a time: coalescing, renames, the scan on the pool
 *   requests.c        status, pause/resume, sync barriers, followers (told of every batch), stop
 *   health.c          the roots' health (failing until a scan succeeds), retries, back-off
 *   core_internal.h   the struct and functions those four share
 *   watch_inotify.c   Linux: one inotify descriptor polled with uv_poll_t (recursive, overflow,
 *                     move pairing, watch limit)
 *   watch_fsevent.c   other platforms: uv_fs_event (recursive there)
 *   server.c          the control socket: newline-delimited JSON requests and replies
 *   log.c             leveled log lines to stderr or a file
 *
 * Everything runs on the loop thread except the scan job (uv_queue_work), which alone uses
 * the writer connection. Every uv handle lives in a heap context freed only after its close
 * callback ran; shutdown closes them all (uv_walk) and the loop must close empty.
 */
#ifndef AMXD_DAEMON_H
#define AMXD_DAEMON_H

#include "animidx/animidx.h"
#include "animidx/config.h"
#include "animidx/index.h"
#include "animidx/json.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* ---- log.c ---- */


/* Logging starts on stderr at info. amxd_log_open switches to a file (NULL = stderr) and
 * level; on failure the previous destination stays and err says why. Thread-safe. */
int amxd_log_open(const char *path, amx_log_level level, char *err, size_t errlen);
void amxd_log_close(void);
bool amxd_log_enabled(amx_log_level level);
void amxd_log(amx_log_level level, const char *fmt, ...) AMX_PRINTF(2, 3);
/* fprintf(stderr, ...) with the control characters of every %s argument escaped (the messages
 * of the command line before the log is open). */
void amxd_eprintf(const char *fmt, ...) AMX_PRINTF(1, 2);

/* ---- core.c, queue.c, batch.c, requests.c ---- */

typedef struct amxd amxd;
typedef struct amxd_watch amxd_watch;
typedef struct amxd_server amxd_server;
typedef struct amxd_client amxd_client;

/* How a change is queued (amxd_touch flags). */
enum {
    AMXD_DIR = 1 << 0,        /* the path is (or was) a directory: a subtree scope */
    AMXD_WRITING = 1 << 1,    /* created or written: maybe still open for writing */
    AMXD_CLOSED = 1 << 2,     /* closed after writing, renamed into place or deleted */
    AMXD_NOW = 1 << 3,        /* no settle period (rescans, new directories after sync) */
};

typedef struct amxd_opts {
    const char *explicit_config; /* --config, or NULL (then the file is located as usual) */
    const char *db_override;  /* --db */
    const char *socket_override; /* --socket */
    int jobs_override;        /* --jobs, -1 = none */
    const char **roots;       /* roots from the command line (replace the config's) */
    size_t root_count;
    const char **bases;       /* --base: the base layers of every root (absolute) */
    size_t base_count;
    bool set_bases;           /* --base or --no-base given (else the config's, else recorded) */
    bool follow_links;        /* --follow-links (else the config's [scan] follow_links) */
} amxd_opts;

/* Loads the config as the daemon does at start and on SIGHUP: defaults < the file (--config,
 * else located) < the command line's --db/--socket/--jobs/--follow-links. Returns 0, or -1 with
 * err set. */
int amxd_load_config(const amxd_opts *o, amx_config *cfg, char *err, size_t errlen);

/* Creates the daemon on a loop with a loaded config (taken over: freed by amxd_destroy).
 * Opens the index, starts watching and listening, and queues the initial scan. Returns 0, or
 * 2 (configuration) / 3 (I/O, database, already running) with the message in err. */
int amxd_create(uv_loop_t *loop, amx_config *cfg, const amxd_opts *opts, amxd **out, char *err,
                size_t errlen);
/* Frees what uv_run left (all handles are closed by then). NULL is a no-op. */
void amxd_destroy(amxd *d);

/* The watcher's entry points: the changes (queue.c; amxd_rename: batch.c), then the error and
 * the accessors (core.c). `root` is an index into amxd_root(). */
void amxd_touch(amxd *d, unsigned root, const char *rel, int flags);
/* A rename within a root, paired by its cookie (inotify): the next batch moves the indexed rows
 * to the new path before it scans (amx_index_rename); both paths must also be touched. */
void amxd_rename(amxd *d, unsigned root, const char *from, const char *to);
/* A rename the watcher can only infer (uv_fs_event: a name reported that is gone, directly
 * followed by one that is there; no cookie pairs them, and a deletion followed by a new file
 * looks the same): the next batch moves the rows only when the files now at `to` have the size
 * and mtime indexed for `from`, else the scans index a deletion and a new file. Both paths must
 * also be touched. */
void amxd_rename_guess(amxd *d, unsigned root, const char *from, const char *to);
void amxd_overflow(amxd *d, const char *why);
void amxd_lost_watch(amxd *d, unsigned root, const char *rel, const char *why);
/* The root itself is gone (deleted, moved away, unmounted): its watches are dropped by the
 * watcher, its queued changes here; it is failing until it is back and rescanned (health.c). */
void amxd_root_gone(amxd *d, unsigned root, const char *why);
void amxd_set_error(amxd *d, const char *fmt, ...) AMX_PRINTF(2, 3);
/* True for paths the daemon never indexes: the config's ignore globs, to which the daemon
 * adds its own files inside the roots (the index, its -wal/-shm/-journal, the lock, the log). */
bool amxd_skip(amxd *d, const char *rel);
size_t amxd_root_count(const amxd *d);
const char *amxd_root(const amxd *d, unsigned root);
const amx_config *amxd_config(const amxd *d);
uv_loop_t *amxd_loop(const amxd *d);
/* Writes "root/rel" (rel may be "") into buf; false when it does not fit. */
bool amxd_abs_path(const amxd *d, unsigned root, const char *rel, char *buf, size_t len);

/* The server's entry points (requests.c): one request, and a client going away. */
void amxd_request(amxd *d, amxd_client *c, const char *cmd);
void amxd_client_gone(amxd *d, amxd_client *c);

/* ---- watch_*.c ---- */

int amxd_watch_start(amxd *d, amxd_watch **out, char *err, size_t errlen);
/* Closes its handles (shutdown); the struct is freed in the close callback. */
void amxd_watch_close(amxd_watch *w);
/* Reads every event the kernel has queued, now. Returns true when that makes a sync barrier
 * exact (inotify); false when the backend cannot tell (then sync rescans the roots). */
bool amxd_watch_drain(amxd_watch *w);
/* Adds watches for directories that lack one (after an overflow, on reconcile). */
void amxd_watch_rewalk(amxd_watch *w);
/* Watches a root again, from its top (a root that is back, a retry): its old watches, which
 * may watch what was moved away, are dropped first. */
void amxd_watch_root(amxd_watch *w, unsigned root);
/* Forgets every watch and watches the current roots again (roots changed on reload). */
void amxd_watch_reset(amxd_watch *w);
/* Retries the directories left unwatched by the watch limit and queues a rescan of the
 * ones still unwatched. Returns how many were queued. */
size_t amxd_watch_poll_unwatched(amxd_watch *w);
void amxd_watch_status(amxd_watch *w, amx_json *j);

/* ---- server.c ---- */

int amxd_server_start(amxd *d, const char *path, amxd_server **out, char *err, size_t errlen);
/* Stops listening, removes the socket file, ends every client (after its queued replies). */
void amxd_server_close(amxd_server *s);
/* Queues one reply line (a NUL-terminated JSON text, copied) to a client. */
void amxd_client_send(amxd_client *c, const char *line);
/* Closes a client now, cancelling its pending writes (the last step of a stop). */
void amxd_client_abort(amxd_client *c);

#endif
