/* The write-ahead log's checkpoints, on a thread of their own.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that takes the log past 1000 pages: the
 * writer copies the log into the database and waits for two fsyncs (the log, then the
 * database) before it can write its next batch. An index build is bound by its one writer, and
 * those waits were 15 ms of a 190 ms build (bench/real_shape_bench.sh's tree, strace -T). Here
 * the writer's connection only notices the log's size (a WAL hook) and wakes a thread that
 * checkpoints through its own connection, PASSIVE: it copies what no reader still needs and
 * never blocks the writer, which goes on appending. One checkpoint at a time: a commit while
 * one runs wakes nothing, the next commit after it asks again. SQLite starts the log over at
 * the first transaction after a checkpoint that copied all of it.
 *
 * Crash safety is SQLite's: a checkpoint is the same operation whichever connection runs it.
 * If the thread cannot be started or its connection opened, the hook checkpoints inline, as
 * SQLite would have. amx__checkpointer_stop joins the thread; amx_db_close then folds the rest
 * of the log in itself. */
#include "db_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* CHECKPOINT_FRAMES: SQLite's own threshold (SQLITE_DEFAULT_WAL_AUTOCHECKPOINT). SQLite starts
 * the log over only when the writer begins a transaction after a checkpoint that copied all of
 * it; a writer that commits batch after batch always begins while the thread still copies the
 * last one, so the log would grow by all a scan writes. Past RESTART_FRAMES (16 MiB of log) the
 * writer waits for the thread and copies the rest itself (little, and little to sync), and its
 * next transaction starts the log over. */
enum { CHECKPOINT_FRAMES = 1000, RESTART_FRAMES = 4 * CHECKPOINT_FRAMES };

struct amx__checkpointer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *path;          /* the index, for the thread's connection */
    bool started;        /* the thread was created */
    bool inline_only;    /* it could not be started or could not open the index */
    bool wanted;         /* a checkpoint is asked for and has not begun */
    bool running;        /* one is under way */
    pthread_cond_t idle; /* signalled when one ends */
    bool stopping;
};

static void *checkpoint_main(void *arg)
{
    amx__checkpointer *c = arg;
    sqlite3 *h = NULL;
    /* a read first: a connection learns that the index is in WAL mode when it reads it */
    bool ok = sqlite3_open_v2(c->path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
                  SQLITE_OK &&
              sqlite3_exec(h, "PRAGMA schema_version", NULL, NULL, NULL) == SQLITE_OK;
    pthread_mutex_lock(&c->mu);
    if (!ok)
        c->inline_only = true;
    while (ok) {
        while (!c->wanted && !c->stopping)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->stopping)
            break;
        c->wanted = false;
        c->running = true;
        pthread_mutex_unlock(&c->mu);
        /* SQLITE_BUSY (another connection checkpoints) is fine: the log is copied either way */
        sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->mu);
        c->running = false;
        pthread_cond_broadcast(&c->idle);
    }
    pthread_mutex_unlock(&c->mu);
    sqlite3_close(h);
    return NULL;
}

static int wal_committed(void *arg, sqlite3 *h, const char *schema, int frames)
{
    amx__checkpointer *c = arg;
    if (frames < CHECKPOINT_FRAMES)
        return SQLITE_OK;
    pthread_mutex_lock(&c->mu);
    if (!c->started && !c->inline_only) {
        if (pthread_create(&c->thread, NULL, checkpoint_main, c) == 0)
            c->started = true;
        else
            c->inline_only = true;
    }
    bool inline_now = c->inline_only;
    if (!inline_now && frames >= RESTART_FRAMES) {
        while (c->running || c->wanted)
            pthread_cond_wait(&c->idle, &c->mu);
        inline_now = true;
    } else if (!inline_now && !c->running && !c->wanted) {
        c->wanted = true;
        pthread_cond_signal(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    if (inline_now)
        sqlite3_wal_checkpoint_v2(h, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

amx__checkpointer *amx__checkpointer_start(sqlite3 *h, const char *path)
{
    if (!path || !path[0])
        return NULL; /* a temporary or in-memory index: SQLite's own checkpoint stays */
    amx__checkpointer *c = calloc(1, sizeof *c);
    char *p = c ? strdup(path) : NULL;
    if (!p) {
        free(c);
        return NULL;
    }
    c->path = p;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    pthread_cond_init(&c->idle, NULL);
    sqlite3_wal_hook(h, wal_committed, c);
    return c;
}

void amx__checkpointer_stop(amx__checkpointer *c, sqlite3 *h)
{
    if (!c)
        return;
    if (h)
        sqlite3_wal_hook(h, NULL, NULL);
    pthread_mutex_lock(&c->mu);
    c->stopping = true;
    pthread_cond_signal(&c->cv);
    bool started = c->started;
    pthread_mutex_unlock(&c->mu);
    if (started)
        pthread_join(c->thread, NULL);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    pthread_cond_destroy(&c->idle);
    free(c->path);
    free(c);
}
