/*
 * animidxd core: the change queue, the writer job, sync, status and the daemon's lifecycle.
 *
 * A change is a path (relative to one root; "" = the whole root) in a hash table. It moves
 * through four lists:
 *
 *   pending   touched less than settle_ms ago (ordered by last event: the head settles first)
 *   held      settled but still open for writing: waits for IN_CLOSE_WRITE, at most 2 s
 *   ready     settled: goes into the next batch
 *   inflight  in the running batch; an event meanwhile sends it back to pending afterwards
 *
 * One batch runs at a time (the single writer): the ready paths, with those inside another
 * ready directory dropped, each rescanned by amx_scan with that path as its scope, on one
 * libuv pool thread (amx_scan decodes on its own `jobs` threads, so the pool keeps its other
 * threads for file I/O). Every event gets a sequence number; `sync` reads every queued event
 * (the kernel queued them before the request arrived) and answers once no queued path has an
 * event numbered at or below that point.
 */
#include "daemon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define HOLD_OPEN_NS (2000ULL * 1000000ULL) /* longest wait for a file open for writing */
#define MAX_QUEUED 100000                   /* queued paths before they become root rescans */
#define MAX_TRIES 3                         /* scans of a scope that failed on the database */
#define STATUS_SCHEMA 1

enum { E_NONE = -1, E_PENDING, E_HELD, E_READY, E_INFLIGHT, E_LISTS };

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

typedef struct scope {
    unsigned root;
    int flags, tries;
    uint64_t seq;                 /* the highest event of the paths it covers */
    char *rel;                    /* owned */
    bool merged;                  /* covered by a directory scope added later: not scanned */
    bool shallow;                 /* that directory scope: its files only (amx_scan_opts) */
    bool done;                    /* scanned (false when shutdown stopped the batch first) */
    amx_status st;
    amx_scan_stats stats;
    char err[512];
} scope;

/* A rename paired by its inotify cookie: applied to the index before the batch's scans, so the
 * file keeps its row, id and findings (amx_index_rename). */
typedef struct rename_op {
    unsigned root;
    char *from, *to;              /* owned; relative to the root */
} rename_op;

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

typedef struct sync_wait {
    struct sync_wait *next;
    amxd_client *client;
    uint64_t target;              /* done when no queued path has an event at or below it */
    uint64_t t_start;
    uint64_t errors_at_start, decoded_at_start, removed_at_start;
} sync_wait;

struct amxd {
    uv_loop_t *loop;
    amx_config *cfg;
    amx_config *reload;           /* a reloaded config waiting for the batch to end */
    char *explicit_config, *db_override, *socket_override; /* for reloads */
    int jobs_override;
    char **arg_roots;             /* roots given on the command line (kept over reloads) */
    size_t arg_root_count;
    char **roots;                 /* absolute, resolved */
    size_t root_count;
    amx_db *db;                   /* the writer: used only by the batch job */
    amx_db *reader;               /* read-only, for status */
    int lock_fd;
    amxd_watch *watch;
    amxd_server *server;
    uv_timer_t settle_timer, reconcile_timer, poll_timer;
    uv_signal_t sig_term, sig_int, sig_hup;
    bool handles_started;

    entry **buckets;
    size_t nbuckets, count;
    elist lists[E_LISTS];
    batch *batch;
    sync_wait *syncs;
    uint64_t seq;
    bool paused;
    atomic_bool stopping;
    bool initial_done;

    uint64_t overflows, lost_watches, full_rescans, batches, scan_errors;
    uint64_t decoded, removed, seen, failed;
    double last_rate;             /* files per second of the last batch */
    char last_error[512];
    time_t last_error_at;
    uint64_t start_ns;

    rename_op *renames;           /* paired renames waiting for the next batch */
    size_t nrenames, rename_cap;
    atomic_uint_fast64_t renamed_atomic; /* rows moved by renames (status; the worker adds) */

    uv_mutex_t pmu;               /* the running scan's progress (written by its thread) */
    uint64_t p_seen;
};

static void kick(amxd *d);
static void check_syncs(amxd *d);
static void begin_stop(amxd *d, const char *why);
static void settle_cb(uv_timer_t *t);
static void queue_path(amxd *d, unsigned root, const char *rel, int flags, uint64_t seq,
                       int tries);

/* ---- small helpers ---- */

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static double ms_since(uint64_t t0)
{
    return (double)(uv_hrtime() - t0) / 1e6;
}

/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. */
static void notify_systemd(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t len = path ? strlen(path) : 0;
    if (!path || (path[0] != '/' && path[0] != '@') || len >= sizeof sa.sun_path)
        return;
    memcpy(sa.sun_path, path, len);
    if (path[0] == '@')
        sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    (void)!sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    close(fd);
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
    int n = snprintf(buf, len, "%s%s%s", d->roots[root], *rel ? "/" : "", rel);
    return n >= 0 && (size_t)n < len;
}

bool amxd_skip(amxd *d, const char *rel)
{
    return *rel && amx_config_ignored(d->cfg, rel);
}

/* ---- the queue ---- */

static void list_append(elist *l, entry *e)
{
    e->next = NULL;
    e->prev = l->tail;
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
    l->n++;
}

static void list_remove(elist *l, entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        l->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        l->tail = e->prev;
    e->prev = e->next = NULL;
    l->n--;
}

static void set_state(amxd *d, entry *e, int state)
{
    if (e->state != E_NONE)
        list_remove(&d->lists[e->state], e);
    e->state = state;
    if (state != E_NONE)
        list_append(&d->lists[state], e);
}

static uint64_t hash_path(unsigned root, const char *rel)
{
    uint64_t h = 1469598103934665603ULL ^ root;
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

static entry *find_entry(amxd *d, unsigned root, const char *rel, uint64_t h)
{
    if (!d->nbuckets)
        return NULL;
    for (entry *e = d->buckets[h & (d->nbuckets - 1)]; e; e = e->hnext)
        if (e->hash == h && e->root == root && strcmp(e->rel, rel) == 0)
            return e;
    return NULL;
}

static bool grow_table(amxd *d)
{
    size_t n = d->nbuckets ? d->nbuckets * 2 : 256;
    entry **b = calloc(n, sizeof *b);
    if (!b)
        return false;
    for (size_t i = 0; i < d->nbuckets; i++)
        for (entry *e = d->buckets[i], *next; e; e = next) {
            next = e->hnext;
            e->hnext = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    free(d->buckets);
    d->buckets = b;
    d->nbuckets = n;
    return true;
}

static void delete_entry(amxd *d, entry *e)
{
    set_state(d, e, E_NONE);
    entry **p = &d->buckets[e->hash & (d->nbuckets - 1)];
    while (*p != e)
        p = &(*p)->hnext;
    *p = e->hnext;
    d->count--;
    free(e);
}

/* The earliest settle or hold deadline, or 0 when nothing waits. */
static void arm_settle(amxd *d)
{
    uint64_t settle = (uint64_t)d->cfg->settle_ms * 1000000ULL, due = 0;
    if (d->lists[E_PENDING].head)
        due = d->lists[E_PENDING].head->last_ns + settle;
    if (d->lists[E_HELD].head) {
        uint64_t h = d->lists[E_HELD].head->last_ns + HOLD_OPEN_NS;
        due = due && due < h ? due : h;
    }
    if (!due || atomic_load(&d->stopping)) {
        uv_timer_stop(&d->settle_timer);
        return;
    }
    uint64_t now = uv_hrtime();
    uint64_t ms = due > now ? (due - now + 999999ULL) / 1000000ULL : 0;
    uv_timer_start(&d->settle_timer, settle_cb, ms, 0);
}

/* Drops every queued path that is not being scanned and queues the roots instead (more
 * paths than MAX_QUEUED: a rescan is cheaper than the bookkeeping). */
static void collapse(amxd *d)
{
    uint64_t min_seq = UINT64_MAX;
    size_t dropped = 0;
    for (int s = E_PENDING; s <= E_READY; s++)
        while (d->lists[s].head) {
            entry *e = d->lists[s].head;
            if (e->seq < min_seq)
                min_seq = e->seq;
            delete_entry(d, e);
            dropped++;
        }
    d->full_rescans++;
    amxd_log(AMX_LOG_WARNING, "more than %d changes queued: rescanning every root instead of "
                              "%zu single paths", MAX_QUEUED, dropped);
    for (unsigned r = 0; r < d->root_count; r++)
        queue_path(d, r, "", AMXD_DIR | AMXD_NOW, min_seq, 0);
}

/* Queues a path. seq 0 gives it the next sequence number; a rescan that stands for older
 * changes keeps theirs, so a sync waiting for those waits for the rescan. */
static void queue_path(amxd *d, unsigned root, const char *rel, int flags, uint64_t seq,
                       int tries)
{
    if (atomic_load(&d->stopping))
        return;
    uint64_t h = hash_path(root, rel);
    entry *e = find_entry(d, root, rel, h);
    if (!e && *rel) {
        /* A rescan of the whole root that has not started yet covers this path too (and its
         * older sequence number keeps a sync waiting for it). */
        entry *whole = find_entry(d, root, "", hash_path(root, ""));
        if (whole && whole->state != E_INFLIGHT) {
            ++d->seq;
            return;
        }
    }
    if (!e) {
        size_t len = strlen(rel);
        if ((d->count + 1 > d->nbuckets * 2 && !grow_table(d)) ||
            !(e = calloc(1, sizeof *e + len + 1))) {
            amxd_set_error(d, "out of memory queueing %s", rel);
            return;
        }
        memcpy(e->rel, rel, len + 1);
        e->root = root;
        e->hash = h;
        e->state = E_NONE;
        e->hnext = d->buckets[h & (d->nbuckets - 1)];
        d->buckets[h & (d->nbuckets - 1)] = e;
        d->count++;
    }
    e->seq = seq ? (seq > e->seq ? seq : e->seq) : ++d->seq;
    e->last_ns = uv_hrtime();
    e->tries = tries;
    e->flags |= flags & AMXD_DIR;
    if (flags & AMXD_WRITING)
        e->flags |= AMXD_WRITING;
    if (flags & AMXD_CLOSED)
        e->flags &= ~AMXD_WRITING;
    if (e->state == E_INFLIGHT)
        return; /* back to pending when its batch ends: e->seq is above the batch's start */
    if (flags & AMXD_NOW) {
        set_state(d, e, E_READY);
        kick(d);
    } else {
        set_state(d, e, E_PENDING);
    }
    if (d->count > MAX_QUEUED)
        collapse(d);
    arm_settle(d);
}

void amxd_touch(amxd *d, unsigned root, const char *rel, int flags)
{
    if (amxd_log_enabled(AMX_LOG_DEBUG))
        amxd_log(AMX_LOG_DEBUG, "change: %s%s%s%s", *rel ? rel : d->roots[root],
                 flags & AMXD_DIR ? " (directory)" : "", flags & AMXD_WRITING ? " (writing)" : "",
                 flags & AMXD_CLOSED ? " (closed)" : "");
    queue_path(d, root, rel, flags, 0, 0);
}

static void queue_roots(amxd *d, uint64_t seq)
{
    for (unsigned r = 0; r < d->root_count; r++)
        queue_path(d, r, "", AMXD_DIR | AMXD_NOW, seq, 0);
}

void amxd_overflow(amxd *d, const char *why)
{
    d->overflows++;
    d->full_rescans++;
    amxd_log(AMX_LOG_WARNING, "%s: events were lost; rescanning every root (overflow %llu)", why,
             (unsigned long long)d->overflows);
    queue_roots(d, 0);
}

void amxd_lost_watch(amxd *d, unsigned root, const char *rel, const char *why)
{
    d->lost_watches++;
    amxd_log(AMX_LOG_WARNING, "lost the watch on %s%s%s (%s): rescanning it", d->roots[root],
             *rel ? "/" : "", rel, why);
    queue_path(d, root, rel, AMXD_DIR | AMXD_NOW, 0, 0);
}

static void settle_cb(uv_timer_t *t)
{
    amxd *d = t->data;
    uint64_t now = uv_hrtime(), settle = (uint64_t)d->cfg->settle_ms * 1000000ULL;
    entry *e;
    while ((e = d->lists[E_PENDING].head) && e->last_ns + settle <= now)
        set_state(d, e, (e->flags & AMXD_WRITING) && now - e->last_ns < HOLD_OPEN_NS ? E_HELD
                                                                                      : E_READY);
    while ((e = d->lists[E_HELD].head) && e->last_ns + HOLD_OPEN_NS <= now)
        set_state(d, e, E_READY);
    kick(d);
    arm_settle(d);
}

/* ---- the batch: coalescing, the scan job, its results ---- */

/* Orders paths so that a directory comes right before everything inside it: '/' sorts
 * before every other byte. */
static int cmp_scope(const void *pa, const void *pb)
{
    const scope *a = pa, *b = pb;
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    const unsigned char *x = (const unsigned char *)a->rel, *y = (const unsigned char *)b->rel;
    while (*x && *x == *y)
        x++, y++;
    unsigned cx = *x == '/' ? 1 : *x, cy = *y == '/' ? 1 : *y;
    return cx < cy ? -1 : cx > cy;
}

static bool covers(const scope *outer, const scope *inner)
{
    if (outer->root != inner->root)
        return false;
    size_t n = strlen(outer->rel);
    return n == 0 || (strncmp(outer->rel, inner->rel, n) == 0 &&
                      (inner->rel[n] == '\0' || inner->rel[n] == '/'));
}

static void progress_cb(const amx_scan_progress *p, void *user)
{
    amxd *d = user;
    uv_mutex_lock(&d->pmu);
    d->p_seen = p->files_seen;
    uv_mutex_unlock(&d->pmu);
}

/* One line per scanned path worth knowing (runs on the job's thread). */
static void log_scope(amxd *d, const scope *s)
{
    const char *root = d->roots[s->root];
    const amx_scan_stats *st = &s->stats;
    if (s->st != AMX_OK)
        return; /* reported from the loop thread */
    if (!(s->flags & AMXD_DIR) && *s->rel) {
        amx_file_summary f;
        bool found = false;
        char err[256];
        if (st->files_removed) {
            amxd_log(AMX_LOG_INFO, "removed %s", s->rel);
        } else if (!st->files_decoded && !st->files_failed) {
            amxd_log(AMX_LOG_DEBUG, "unchanged %s", s->rel);
        } else if (amx_query_file_summary(d->db, d->cfg, root, s->rel, &f, &found, err, sizeof err) ||
                   !found) {
            amxd_log(AMX_LOG_INFO, "indexed %s", s->rel);
        } else if (f.findings[AMX_SEV_ERROR] + f.findings[AMX_SEV_WARNING] + f.findings[AMX_SEV_INFO]) {
            amxd_log(AMX_LOG_INFO, "indexed %s (%s, %s): %llu errors, %llu warnings, %llu info (%s)",
                     s->rel, f.format, f.status, (unsigned long long)f.findings[AMX_SEV_ERROR],
                     (unsigned long long)f.findings[AMX_SEV_WARNING],
                     (unsigned long long)f.findings[AMX_SEV_INFO], f.codes);
        } else {
            amxd_log(AMX_LOG_INFO, "indexed %s (%s, %s): no findings", s->rel, f.format,
                     f.status);
        }
        return;
    }
    amx_log_level lvl = st->files_decoded || st->files_removed || st->files_failed || !*s->rel
                            ? AMX_LOG_INFO
                            : AMX_LOG_DEBUG;
    amxd_log(lvl, "rescanned %s%s%s: %llu files, %llu decoded, %llu removed, %llu unreadable "
                  "(%.3f s)",
             *s->rel ? s->rel : root, *s->rel ? "/" : "", *s->rel ? "" : " (whole root)",
             (unsigned long long)st->files_seen, (unsigned long long)st->files_decoded,
             (unsigned long long)st->files_removed, (unsigned long long)st->files_failed,
             st->seconds);
}

static size_t parent_len(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? (size_t)(slash - rel) : 0;
}

/* Orders indices of scopes by (root, parent directory); qsort_r with the scopes. */
static int cmp_parent(const void *pa, const void *pb, void *arg)
{
    const scope *sc = arg;
    const scope *a = &sc[*(const size_t *)pa], *b = &sc[*(const size_t *)pb];
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    size_t la = parent_len(a->rel), lb = parent_len(b->rel);
    int c = strncmp(a->rel, b->rel, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* The number of entries of a directory that are not directories, or -1 (unreadable). */
static long file_entries(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (e->d_type == DT_DIR || ((e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) &&
                                    fstatat(dirfd(dir), e->d_name, &st, 0) == 0 &&
                                    S_ISDIR(st.st_mode)))
            continue;
        n++;
    }
    closedir(dir);
    return n;
}

/* Many changed files in one directory (a mod install, a batch export) are cheaper as one
 * shallow scan of the directory (its files, not its subdirectories) than as a scan each: one
 * scan costs about as much as checking SCAN_COST_FILES unchanged files. Runs on the job's
 * thread (it reads directories). */
#define SCAN_COST_FILES 100
#define MIN_MERGE 8

static void merge_directories(amxd *d, batch *b)
{
    size_t *idx = malloc(b->n * sizeof *idx);
    size_t nfiles = 0;
    for (size_t i = 0; idx && i < b->n; i++)
        if (!(b->scopes[i].flags & AMXD_DIR) && *b->scopes[i].rel)
            idx[nfiles++] = i;
    if (nfiles < MIN_MERGE) {
        free(idx);
        return;
    }
    qsort_r(idx, nfiles, sizeof *idx, cmp_parent, b->scopes);
    size_t n_before = b->n;
    for (size_t i = 0, j; i < nfiles; i = j) {
        for (j = i + 1; j < nfiles && cmp_parent(&idx[i], &idx[j], b->scopes) == 0; j++)
            ;
        size_t k = j - i;
        unsigned root = b->scopes[idx[i]].root;
        const char *rel0 = b->scopes[idx[i]].rel;
        size_t plen = parent_len(rel0);
        char path[PATH_MAX];
        if (k < MIN_MERGE || !amxd_abs_path(d, root, "", path, sizeof path) ||
            strlen(path) + plen + 2 > sizeof path)
            continue;
        if (plen)
            snprintf(path + strlen(path), sizeof path - strlen(path), "/%.*s", (int)plen, rel0);
        long entries = file_entries(path);
        if (entries < 0 || (long)k * SCAN_COST_FILES < entries)
            continue;
        char *rel = strndup(rel0, plen);
        scope *grown = rel ? realloc(b->scopes, (b->n + 1) * sizeof *grown) : NULL;
        if (!grown) {
            free(rel);
            break;
        }
        b->scopes = grown;
        scope merged = { .root = root, .rel = rel, .flags = AMXD_DIR, .shallow = true };
        for (size_t m = i; m < j; m++) {
            scope *s = &b->scopes[idx[m]];
            s->merged = true;
            merged.seq = s->seq > merged.seq ? s->seq : merged.seq;
            merged.tries = s->tries > merged.tries ? s->tries : merged.tries;
        }
        b->scopes[b->n++] = merged;
        amxd_log(AMX_LOG_DEBUG, "%zu changed files in %s (%ld files): one scan of its files",
                 k, path, entries);
    }
    if (b->n != n_before)
        amxd_log(AMX_LOG_DEBUG, "batch: %zu directories instead of single files",
                 b->n - n_before);
    free(idx);
}

static void free_renames(rename_op *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].from);
        free(r[i].to);
    }
    free(r);
}

void amxd_rename(amxd *d, unsigned root, const char *from, const char *to)
{
    if (atomic_load(&d->stopping))
        return;
    if (d->nrenames == d->rename_cap) {
        size_t cap = d->rename_cap ? d->rename_cap * 2 : 16;
        rename_op *g = realloc(d->renames, cap * sizeof *g);
        if (!g)
            return; /* the scans of both paths still bring the index up to date */
        d->renames = g;
        d->rename_cap = cap;
    }
    rename_op op = { root, xstrdup(from), xstrdup(to) };
    if (!op.from || !op.to) {
        free(op.from);
        free(op.to);
        return;
    }
    d->renames[d->nrenames++] = op;
}

/* Lets a stop (signal or `animidx stop`) end a long scan between files instead of after it. */
static bool stopping_cb(void *user)
{
    const amxd *d = user;
    return atomic_load(&d->stopping);
}

static void work_cb(uv_work_t *req)
{
    batch *b = req->data;
    amxd *d = b->d;
    /* Renames first: the scans of the old and new paths that follow then find the row moved
     * (unchanged: nothing decoded) or stale (renamed: decoded again into the same row). */
    for (size_t i = 0; i < b->nrenames && !atomic_load(&d->stopping); i++) {
        const rename_op *r = &b->renames[i];
        uint64_t moved = 0;
        char err[512];
        if (amx_index_rename(d->db, d->roots[r->root], r->from, r->to, &moved, err, sizeof err))
            amxd_log(AMX_LOG_WARNING, "rename %s -> %s: %s (the scans will catch up)", r->from, r->to,
                     err);
        else
            atomic_fetch_add(&d->renamed_atomic, moved);
    }
    merge_directories(d, b);
    for (size_t i = 0; i < b->n && !atomic_load(&d->stopping); i++) {
        scope *s = &b->scopes[i];
        if (s->merged)
            continue;
        amx_scan_opts o = {
            .root = d->roots[s->root],
            .scope = *s->rel ? s->rel : NULL,
            .shallow = s->shallow,
            /* a single file needs one decoder thread; a tree gets them all */
            .jobs = (s->flags & AMXD_DIR) ? d->cfg->jobs : 1,
            .config = d->cfg,
            .progress = progress_cb,
            .cancelled = stopping_cb,
            .user = d,
        };
        uv_mutex_lock(&d->pmu);
        d->p_seen = 0;
        uv_mutex_unlock(&d->pmu);
        s->st = amx_scan(d->db, &o, &s->stats, s->err, sizeof s->err);
        s->done = true;
        log_scope(d, s);
    }
}

static void apply_reload(amxd *d);

/* Back to pending, in order of its last event (which came in while it was being scanned). */
static void requeue_pending(amxd *d, entry *e)
{
    set_state(d, e, E_NONE);
    elist *l = &d->lists[E_PENDING];
    entry *at = l->tail;
    while (at && at->last_ns > e->last_ns)
        at = at->prev;
    e->state = E_PENDING;
    e->prev = at;
    e->next = at ? at->next : l->head;
    if (e->next)
        e->next->prev = e;
    else
        l->tail = e;
    if (at)
        at->next = e;
    else
        l->head = e;
    l->n++;
}

static void after_work_cb(uv_work_t *req, int status)
{
    batch *b = req->data;
    amxd *d = b->d;
    d->batch = NULL;
    d->batches++;
    if (status == UV_ECANCELED)
        amxd_log(AMX_LOG_WARNING, "a scan job was cancelled");
    bool stopping = atomic_load(&d->stopping);
    /* The batch's paths: done, unless an event came in while they were being scanned. */
    for (entry *e = d->lists[E_INFLIGHT].head, *next; e; e = next) {
        next = e->next;
        if (e->seq > b->seq_start && !stopping)
            requeue_pending(d, e);
        else
            delete_entry(d, e);
    }
    uint64_t seen = 0;
    for (size_t i = 0; i < b->n; i++) {
        scope *s = &b->scopes[i];
        if (s->done) {
            seen += s->stats.files_seen;
            d->seen += s->stats.files_seen;
            d->decoded += s->stats.files_decoded;
            d->removed += s->stats.files_removed;
            d->failed += s->stats.files_failed;
            if (s->st == AMX_E_CANCELLED) {
                amxd_log(AMX_LOG_INFO, "scan of %s stopped; the next start completes it",
                         *s->rel ? s->rel : d->roots[s->root]);
            } else if (s->st != AMX_OK) {
                bool retry = s->st == AMX_E_DB && s->tries + 1 < MAX_TRIES;
                d->scan_errors++;
                amxd_set_error(d, "scan of %s failed%s: %s", *s->rel ? s->rel : d->roots[s->root],
                               retry ? " (will retry)" : "", s->err);
                if (retry)
                    queue_path(d, s->root, s->rel, s->flags & AMXD_DIR, s->seq, s->tries + 1);
            }
        }
        free(s->rel);
    }
    double secs = (double)(uv_hrtime() - b->t_start) / 1e9;
    if (seen && secs > 0)
        d->last_rate = (double)seen / secs;
    if (!d->initial_done && !stopping) {
        d->initial_done = true;
        amxd_log(AMX_LOG_INFO, "initial scan done in %.2f s: %llu files, %llu decoded, %llu "
                               "removed, %llu unreadable; watching",
                 secs, (unsigned long long)d->seen, (unsigned long long)d->decoded,
                 (unsigned long long)d->removed, (unsigned long long)d->failed);
    }
    free(b->scopes);
    free_renames(b->renames, b->nrenames);
    free(b);
    if (stopping) {
        begin_stop(d, NULL);
        return;
    }
    if (d->reload)
        apply_reload(d);
    check_syncs(d);
    arm_settle(d);
    kick(d);
}

/* Starts a batch of every ready path, unless one runs, the daemon is paused or stopping. */
static void kick(amxd *d)
{
    elist *ready = &d->lists[E_READY];
    if (d->batch || d->paused || atomic_load(&d->stopping) || !ready->n)
        return;
    batch *b = calloc(1, sizeof *b);
    scope *sc = b ? calloc(ready->n, sizeof *sc) : NULL;
    if (!sc) {
        free(b);
        amxd_set_error(d, "out of memory starting a scan");
        return;
    }
    size_t n = 0;
    for (entry *e = ready->head; e; e = e->next) {
        if (!(sc[n].rel = strdup(e->rel))) {
            for (size_t i = 0; i < n; i++)
                free(sc[i].rel);
            free(sc);
            free(b);
            amxd_set_error(d, "out of memory starting a scan");
            return;
        }
        sc[n].root = e->root;
        sc[n].flags = e->flags;
        sc[n].seq = e->seq;
        sc[n++].tries = e->tries;
    }
    while (ready->head)
        set_state(d, ready->head, E_INFLIGHT);
    qsort(sc, n, sizeof *sc, cmp_scope);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && covers(&sc[k - 1], &sc[i])) {
            scope *o = &sc[k - 1];
            o->seq = o->seq > sc[i].seq ? o->seq : sc[i].seq;
            o->tries = o->tries > sc[i].tries ? o->tries : sc[i].tries;
            free(sc[i].rel);
            continue;
        }
        sc[k++] = sc[i];
    }
    b->req.data = b;
    b->d = d;
    b->renames = d->renames; /* the batch applies every rename paired so far */
    b->nrenames = d->nrenames;
    d->renames = NULL;
    d->nrenames = d->rename_cap = 0;
    b->seq_start = d->seq;
    b->t_start = uv_hrtime();
    b->scopes = sc;
    b->n = k;
    for (size_t i = 0; i < k; i++)
        b->has_root |= !*sc[i].rel;
    int rc = uv_queue_work(d->loop, &b->req, work_cb, after_work_cb);
    if (rc) {
        amxd_set_error(d, "cannot start a scan: %s", uv_strerror(rc));
        d->renames = b->renames; /* kept for the next batch */
        d->nrenames = d->rename_cap = b->nrenames;
        for (entry *e = d->lists[E_INFLIGHT].head; e; e = d->lists[E_INFLIGHT].head)
            set_state(d, e, E_READY);
        for (size_t i = 0; i < k; i++)
            free(sc[i].rel);
        free(sc);
        free(b);
        return;
    }
    d->batch = b;
    if (amxd_log_enabled(AMX_LOG_DEBUG))
        amxd_log(AMX_LOG_DEBUG, "batch: %zu paths in %zu scopes", n, k);
}

/* ---- requests ---- */

/* A JSON reply built with amx_json into memory. */
typedef struct reply {
    FILE *f;
    char *text;
    size_t len;
    amx_json j;
} reply;

static bool reply_begin(reply *r, const char *cmd, bool ok)
{
    r->text = NULL;
    r->f = open_memstream(&r->text, &r->len);
    if (!r->f)
        return false;
    amx_json_init(&r->j, r->f, false);
    amx_json_begin_object(&r->j);
    amx_json_kbool(&r->j, "ok", ok);
    amx_json_kstring(&r->j, "cmd", cmd);
    return true;
}

static void reply_send(reply *r, amxd_client *c)
{
    amx_json_end_object(&r->j);
    fclose(r->f);
    if (r->text)
        amxd_client_send(c, r->text);
    free(r->text);
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
    return d->lists[E_PENDING].n + d->lists[E_HELD].n + d->lists[E_READY].n +
           d->lists[E_INFLIGHT].n;
}

static void send_status(amxd *d, amxd_client *c)
{
    reply r;
    if (!reply_begin(&r, "status", true))
        return;
    amx_json *j = &r.j;
    amx_json_kint(j, "schema", STATUS_SCHEMA);
    amx_json_kstring(j, "version", AMX_VERSION_STRING);
    amx_json_kint(j, "pid", (int64_t)getpid());
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
    if (d->reader && amx_query_summary(d->reader, d->cfg, &sum, err, sizeof err) == AMX_OK) {
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
    amx_json_kint(j, "in_flight", (int64_t)d->lists[E_INFLIGHT].n);
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

static void finish_sync(amxd *d, sync_wait *w)
{
    reply r;
    bool ok = d->scan_errors == w->errors_at_start;
    if (!reply_begin(&r, "sync", ok))
        return;
    amx_json_knumber(&r.j, "ms", ms_since(w->t_start));
    amx_json_kint(&r.j, "files_decoded", (int64_t)(d->decoded - w->decoded_at_start));
    amx_json_kint(&r.j, "files_removed", (int64_t)(d->removed - w->removed_at_start));
    if (!ok)
        amx_json_kstring(&r.j, "error", d->last_error);
    reply_send(&r, w->client);
}

/* Answers every sync whose changes are all indexed. */
static void check_syncs(amxd *d)
{
    if (!d->syncs)
        return;
    uint64_t min = UINT64_MAX;
    for (int s = E_PENDING; s < E_LISTS; s++)
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
static void fail_syncs(amxd *d, const char *msg)
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
    w->errors_at_start = d->scan_errors;
    w->decoded_at_start = d->decoded;
    w->removed_at_start = d->removed;
    /* Every change made before the request has its event queued in the kernel by now. */
    if (!amxd_watch_drain(d->watch)) {
        d->full_rescans++;
        queue_roots(d, 0);
    }
    amxd_watch_poll_unwatched(d->watch);
    w->target = d->seq;
    /* No settle wait for what the caller is waiting for. */
    for (int s = E_PENDING; s <= E_HELD; s++)
        while (d->lists[s].head)
            set_state(d, d->lists[s].head, E_READY);
    w->next = d->syncs;
    d->syncs = w;
    arm_settle(d);
    kick(d);
    check_syncs(d);
}

void amxd_request(amxd *d, amxd_client *c, const char *cmd)
{
    if (atomic_load(&d->stopping)) {
        reply_error(c, cmd, "animidxd is stopping");
        return;
    }
    if (strcmp(cmd, "status") == 0) {
        send_status(d, c);
    } else if (strcmp(cmd, "sync") == 0) {
        start_sync(d, c);
    } else if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0) {
        bool pause = cmd[0] == 'p';
        if (pause != d->paused)
            amxd_log(AMX_LOG_INFO, "%s (requested over the socket)",
                     pause ? "paused: changes are queued, not indexed" : "resumed");
        d->paused = pause;
        if (pause)
            fail_syncs(d, "indexing was paused before these changes were indexed");
        reply r;
        if (reply_begin(&r, cmd, true)) {
            amx_json_kstring(&r.j, "state", state_name(d));
            amx_json_kint(&r.j, "queue", (int64_t)queue_depth(d));
            reply_send(&r, c);
        }
        kick(d);
    } else if (!*cmd) {
        reply_error(c, cmd, "bad request: send one JSON object per line, such as "
                            "{\"cmd\": \"status\"} (commands: status, pause, resume, sync)");
    } else {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown command '%.40s' (known: status, pause, resume, sync)",
                 cmd);
        reply_error(c, cmd, msg);
    }
}

void amxd_client_gone(amxd *d, amxd_client *c)
{
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

/* ---- configuration and roots ---- */

int amxd_load_config(const amxd_opts *o, amx_config *cfg, char *err, size_t errlen)
{
    if (amx_config_init(cfg) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char located[PATH_MAX];
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
        char *real = realpath(src[i], NULL);
        struct stat st;
        if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: %s", src[i], real ? "not a directory" : strerror(errno));
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
        char path[PATH_MAX];
        const char *p = i < n ? path : d->cfg->log_path;
        if (i < n)
            snprintf(path, sizeof path, "%s%s", db, suffixes[i]);
        if (!p)
            continue;
        const char *slash = strrchr(p, '/');
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - p) : 1, slash ? p : ".");
        char *real = realpath(*dir ? dir : "/", NULL);
        if (!real)
            continue;
        for (unsigned r = 0; r < d->root_count; r++) {
            size_t rl = strlen(d->roots[r]);
            if (strncmp(real, d->roots[r], rl) != 0 || (real[rl] != '/' && real[rl] != '\0'))
                continue;
            /* the path below the root, as a glob: fnmatch's special characters escaped */
            char rel[PATH_MAX], glob[2 * PATH_MAX];
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
        free(real);
    }
}

static void start_timers(amxd *d);

/* Applies a reloaded config (the batch is not running: the job reads d->cfg). */
static void apply_reload(amxd *d)
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
        for (int s = E_PENDING; s <= E_READY; s++)
            while (d->lists[s].head) {
                entry *e = d->lists[s].head;
                min_seq = e->seq < min_seq ? e->seq : min_seq;
                delete_entry(d, e);
            }
        free_strings(d->roots, d->root_count);
        d->roots = roots;
        d->root_count = nroots;
        ignore_own_files(d);
        amxd_watch_reset(d->watch);
        queue_roots(d, min_seq);
    } else {
        free_strings(roots, nroots);
        ignore_own_files(d);
    }
    start_timers(d);
    amxd_log(AMX_LOG_INFO, "configuration reloaded from %s%s (settle %d ms, log level %s)",
             d->cfg->source ? d->cfg->source : "the defaults",
             roots_changed ? ", roots changed" : "", d->cfg->settle_ms,
             amx_log_level_name(d->cfg->log_level));
    notify_systemd("READY=1");
    arm_settle(d);
    kick(d);
}

static void reload(amxd *d)
{
    notify_systemd("RELOADING=1");
    amxd_opts o = {
        .explicit_config = d->explicit_config,
        .db_override = d->db_override,
        .socket_override = d->socket_override,
        .jobs_override = d->jobs_override,
    };
    char err[1024] = "";
    amx_config *next = malloc(sizeof *next);
    if (!next || amxd_load_config(&o, next, err, sizeof err) != 0) {
        amxd_set_error(d, "config reload failed: %s; keeping the current configuration",
                       next ? err : "out of memory");
        free(next);
        notify_systemd("READY=1");
        return;
    }
    if (d->reload) {
        amx_config_finish(d->reload);
        free(d->reload);
    }
    d->reload = next;
    if (!d->batch)
        apply_reload(d);
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
    queue_roots(d, 0);
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

static void signal_cb(uv_signal_t *s, int signum)
{
    amxd *d = s->data;
    if (signum == SIGHUP) {
        reload(d);
        return;
    }
    if (atomic_load(&d->stopping)) {
        amxd_log(AMX_LOG_WARNING, "%s: already stopping, waiting for the running scan to end "
                                  "(SIGKILL is safe too: the index stays consistent)",
                 signum == SIGINT ? "SIGINT" : "SIGTERM");
        return;
    }
    begin_stop(d, signum == SIGINT ? "SIGINT" : "SIGTERM");
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
static void begin_stop(amxd *d, const char *why)
{
    if (why) {
        amxd_log(AMX_LOG_INFO, "%s: stopping%s", why,
                 d->batch ? " once the files being decoded are written" : "");
        notify_systemd("STOPPING=1");
    }
    atomic_store(&d->stopping, true);
    fail_syncs(d, "animidxd is stopping");
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
    }
    if (d->batch)
        return; /* after_work_cb comes back here */
    uv_walk(d->loop, close_if_open, NULL);
}

/* ---- create / destroy ---- */

/* One daemon per database: an flock on "<db>.animidxd.lock", which holds our pid. */
static int take_lock(amxd *d, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s.animidxd.lock", d->cfg->db_path);
    int rc = amx_mkdir_parents(path, 0700);
    if (rc) {
        snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-rc));
        return -1;
    }
    d->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (d->lock_fd < 0) {
        snprintf(err, errlen, "%s: cannot open the lock file: %s", path, strerror(errno));
        return -1;
    }
    if (flock(d->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        char held[256] = "";
        ssize_t n = pread(d->lock_fd, held, sizeof held - 1, 0);
        held[n > 0 ? n : 0] = '\0';
        long pid = strtol(held, NULL, 10);
        const char *sock = strchr(held, '\n');
        char *end = sock ? strchr(sock + 1, '\n') : NULL;
        if (end)
            *end = '\0';
        snprintf(err, errlen, "another animidxd (pid %ld, socket %s) is already running on the "
                              "index %s; stop it first, or give this one another database",
                 pid, sock && sock[1] ? sock + 1 : "?", d->cfg->db_path);
        close(d->lock_fd);
        d->lock_fd = -1;
        return -1;
    }
    char text[PATH_MAX + 64];
    int len = snprintf(text, sizeof text, "%ld\n%s\n", (long)getpid(), d->cfg->socket_path);
    if (ftruncate(d->lock_fd, 0) != 0 || pwrite(d->lock_fd, text, (size_t)len, 0) != len)
        amxd_log(AMX_LOG_WARNING, "%s: cannot write the pid: %s", path, strerror(errno));
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
    d->lock_fd = -1;
    d->start_ns = uv_hrtime();
    d->jobs_override = opts->jobs_override;
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
    if (amxd_log_open(cfg->log_path, cfg->log_level, err, errlen) != 0)
        return 2;
    if (resolve_roots(d, cfg, &d->roots, &d->root_count, err, errlen) != 0)
        return 2;
    if (strlen(cfg->socket_path) > AMX_SOCKET_PATH_MAX) {
        snprintf(err, errlen, "%s: the socket path is too long for a Unix socket (at most %d "
                              "bytes); set [daemon] socket to a shorter one",
                 cfg->socket_path, AMX_SOCKET_PATH_MAX);
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
    uv_signal_init(loop, &d->sig_term);
    uv_signal_init(loop, &d->sig_int);
    uv_signal_init(loop, &d->sig_hup);
    d->sig_term.data = d->sig_int.data = d->sig_hup.data = d;
    d->handles_started = true;
    uv_signal_start(&d->sig_term, signal_cb, SIGTERM);
    uv_signal_start(&d->sig_int, signal_cb, SIGINT);
    uv_signal_start(&d->sig_hup, signal_cb, SIGHUP);

    if (amxd_server_start(d, cfg->socket_path, &d->server, err, errlen) != 0) {
        begin_stop(d, NULL);
        return 3;
    }
    if (amxd_watch_start(d, &d->watch, err, errlen) != 0) {
        begin_stop(d, NULL);
        return 3;
    }
    start_timers(d);
    amxd_log(AMX_LOG_INFO, "animidxd %s started: index %s, socket %s, %zu root%s, settle %d ms",
             AMX_VERSION_STRING, cfg->db_path, cfg->socket_path, d->root_count,
             d->root_count == 1 ? "" : "s", cfg->settle_ms);
    for (size_t i = 0; i < d->root_count; i++)
        amxd_log(AMX_LOG_INFO, "root %s", d->roots[i]);
    queue_roots(d, 0); /* the initial scan: incremental, like 'animidx scan' */
    notify_systemd("READY=1");
    return 0;
}

void amxd_destroy(amxd *d)
{
    if (!d)
        return;
    while (d->syncs) {
        sync_wait *w = d->syncs;
        d->syncs = w->next;
        free(w);
    }
    for (size_t i = 0; i < d->nbuckets; i++)
        for (entry *e = d->buckets[i], *next; e; e = next) {
            next = e->hnext;
            free(e);
        }
    free_renames(d->renames, d->nrenames);
    free(d->buckets);
    amx_db_close(d->reader);
    amx_db_close(d->db);
    if (d->lock_fd >= 0)
        close(d->lock_fd); /* releases the lock; the file stays (removing it would race) */
    free_strings(d->roots, d->root_count);
    free_strings(d->arg_roots, d->arg_root_count);
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
