/*
 * animidxd's single writer: one batch of changes at a time.
 *
 * A batch takes every ready path; a path inside another ready directory is dropped (cmp_scope,
 * covers), and many changed files of one directory become one shallow scan of it
 * (merge_directories). The renames paired by the watcher go first (amx_index_rename; one it
 * could only infer, after a check that it is one: same_files), then each
 * path is rescanned by amx_scan with that path as its scope, on one libuv pool thread (amx_scan
 * decodes on its own `jobs` threads, so the pool keeps its other threads for file I/O). The
 * worker uses the batch, d->db, d->roots and d->cfg (a reload waits for the batch to end), the
 * progress under d->pmu, and the atomics; nothing else.
 *
 * after_work_cb, on the loop thread, settles the batch's paths (done, back to pending, or queued
 * again to retry), adds up the counts, tells health.c what failed (and that a whole root was
 * scanned), then lets the rest go on: a stop waiting for the batch, a reload, the syncs, the
 * followers, the next batch. It calls queue.c, health.c, amxd__check_syncs and
 * amxd__notify_followers (requests.c), amxd__begin_stop and amxd__apply_reload (core.c).
 */
#include "core_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TRIES 3 /* scans of a scope that failed on the database */

struct scope {
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
};

/* A rename paired by the watcher: applied to the index before the batch's scans, so the file
 * keeps its row, id and findings (amx_index_rename). One inferred without a cookie (verify) is
 * applied only when the files at `to` are the ones indexed at `from` (same_files). */
struct rename_op {
    unsigned root;
    char *from, *to;              /* owned; relative to the root */
    bool verify;                  /* amxd_rename_guess */
};

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

/* Orders indices of scopes by (root, parent directory); amx_sort with the scopes. */
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
    amx_os_dir *dir;
    if (amx_os_dir_open(path, &dir) != 0)
        return -1;
    long n = 0;
    amx_os_entry e;
    int err;
    while (amx_os_dir_next(dir, &e, &err))
        if (e.err || e.st.kind != AMX_OS_DIR)
            n++;
    amx_os_dir_close(dir);
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
    amx_sort(idx, nfiles, sizeof *idx, cmp_parent, b->scopes);
    size_t n_before = b->n;
    for (size_t i = 0, j; i < nfiles; i = j) {
        for (j = i + 1; j < nfiles && cmp_parent(&idx[i], &idx[j], b->scopes) == 0; j++)
            ;
        size_t k = j - i;
        unsigned root = b->scopes[idx[i]].root;
        const char *rel0 = b->scopes[idx[i]].rel;
        size_t plen = parent_len(rel0);
        char path[AMX_PATH_MAX];
        if (k < MIN_MERGE || !amxd_abs_path(d, root, "", path, sizeof path) ||
            strlen(path) + plen + 2 > sizeof path)
            continue;
        if (plen)
            snprintf(path + strlen(path), sizeof path - strlen(path), "/%.*s", (int)plen, rel0);
        long entries = file_entries(path);
        if (entries < 0 || (long)k * SCAN_COST_FILES < entries)
            continue;
        char *rel = amx_strndup(rel0, plen);
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

void amxd__free_renames(rename_op *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].from);
        free(r[i].to);
    }
    free(r);
}

static void add_rename(amxd *d, unsigned root, const char *from, const char *to, bool verify)
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
    rename_op op = { root, xstrdup(from), xstrdup(to), verify };
    if (!op.from || !op.to) {
        free(op.from);
        free(op.to);
        return;
    }
    d->renames[d->nrenames++] = op;
}

void amxd_rename(amxd *d, unsigned root, const char *from, const char *to)
{
    add_rename(d, root, from, to, false);
}

void amxd_rename_guess(amxd *d, unsigned root, const char *from, const char *to)
{
    add_rename(d, root, from, to, true);
}

/* What a guessed rename must find (same_files), row by row of amx_query_file_stats. */
typedef struct same_check {
    const amxd *d;
    unsigned root;
    const char *to;               /* stored form (amx_path_encode) */
    size_t from_len;
    bool to_is_dir;
    uint64_t same;                /* files found at the new path unchanged */
    bool differs;                 /* one found changed, or of the other kind */
} same_check;

static bool check_row(const char *path, int64_t size, int64_t mtime_ns, void *user)
{
    same_check *c = user;
    const char *below = path + c->from_len; /* "" (the file itself) or "/name..." */
    if (c->to_is_dir != (*below != '\0')) {
        c->differs = true; /* a file's name is now a directory's, or the other way round */
        return true;
    }
    size_t len = strlen(c->to) + strlen(below) + 1;
    char *stored = malloc(len), *raw = NULL;
    if (stored) {
        snprintf(stored, len, "%s%s", c->to, below);
        raw = amx_path_decode(stored);
    }
    char abs[AMX_PATH_MAX];
    amx_os_stat st;
    if (!raw || !amxd_abs_path(c->d, c->root, raw, abs, sizeof abs)) {
        c->differs = true;
    } else if (amx_os_path_stat(abs, &st) == 0 && st.kind == AMX_OS_FILE) {
        if (st.size == size && st.mtime_ns == mtime_ns)
            c->same++;
        else
            c->differs = true;
    } /* else gone since: it tells nothing */
    free(stored);
    free(raw);
    return c->differs;
}

/* A rename the watcher inferred from a name gone and a name there (amxd_rename_guess) is one
 * when the new path holds what was indexed at the old one, unchanged: a rename keeps a file's
 * size and mtime, a new file almost never has both. A file: the same size and mtime. A
 * directory: every indexed file that is at its place below the new path has them, and there is
 * at least one. Otherwise it was a deletion and a new file, left to the scans (a wrong guess
 * costs only the row ids: the scans of both paths still index what is there). Runs on the job's
 * thread. */
static bool same_files(amxd *d, const rename_op *r, const char *from, const char *to)
{
    char abs[AMX_PATH_MAX], err[512];
    amx_os_stat st;
    if (!amxd_abs_path(d, r->root, r->to, abs, sizeof abs) || amx_os_path_stat(abs, &st) != 0)
        return false;
    same_check c = { .d = d, .root = r->root, .to = to, .from_len = strlen(from),
                     .to_is_dir = st.kind == AMX_OS_DIR };
    if (amx_query_file_stats(d->db, d->roots[r->root], from, check_row, &c, err, sizeof err)) {
        amxd_log(AMX_LOG_WARNING, "rename %s -> %s: %s (the scans will catch up)", r->from,
                 r->to, err);
        return false;
    }
    return c.same && !c.differs;
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
        /* the index spells paths that are not text escaped (amx_path_encode) */
        char *from = amx_path_encode(r->from), *to = amx_path_encode(r->to);
        if (!from || !to)
            amxd_log(AMX_LOG_WARNING, "rename %s -> %s: out of memory (the scans will catch up)",
                     r->from, r->to);
        else if (r->verify && !same_files(d, r, from, to))
            amxd_log(AMX_LOG_DEBUG, "%s -> %s: not a rename (the files differ): a deletion and "
                                    "a new file", r->from, r->to);
        else if (amx_index_rename(d->db, d->roots[r->root], from, to, &moved, err, sizeof err))
            amxd_log(AMX_LOG_WARNING, "rename %s -> %s: %s (the scans will catch up)", r->from, r->to,
                     err);
        else
            atomic_fetch_add(&d->renamed_atomic, moved);
        free(from);
        free(to);
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
            .follow_links = d->cfg->follow_links,
            .config = d->cfg,
            .progress = progress_cb,
            .cancelled = stopping_cb,
            .user = d,
            /* --base: a whole-root scan scans the base layers too and records them */
            .bases = (const char *const *)d->arg_bases,
            .base_count = d->arg_base_count,
            .set_bases = d->set_bases,
        };
        uv_mutex_lock(&d->pmu);
        d->p_seen = 0;
        uv_mutex_unlock(&d->pmu);
        s->st = amx_scan(d->db, &o, &s->stats, s->err, sizeof s->err);
        s->done = true;
        log_scope(d, s);
    }
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
    for (entry *e = d->lists[ENTRY_INFLIGHT].head, *next; e; e = next) {
        next = e->next;
        if (e->seq > b->seq_start && !stopping)
            amxd__requeue_pending(d, e);
        else
            amxd__delete_entry(d, e);
    }
    uint64_t seen = 0, decoded = 0, removed = 0;
    for (size_t i = 0; i < b->n; i++) {
        scope *s = &b->scopes[i];
        if (s->done) {
            seen += s->stats.files_seen;
            decoded += s->stats.files_decoded;
            removed += s->stats.files_removed;
            d->seen += s->stats.files_seen;
            d->decoded += s->stats.files_decoded;
            d->removed += s->stats.files_removed;
            d->failed += s->stats.files_failed;
            if (s->st == AMX_E_CANCELLED) {
                amxd_log(AMX_LOG_INFO, "scan of %s stopped; the next start completes it",
                         *s->rel ? s->rel : d->roots[s->root]);
            } else if (s->st != AMX_OK) {
                /* the failures go to the root's health: its cause logged once, whatever the
                 * number of paths it hits (a full disk fails every change) */
                d->scan_errors++;
                if (!amxd__root_exists(d, s->root)) {
                    amxd_root_gone(d, s->root, "it does not exist");
                } else if (s->st == AMX_E_DB && s->tries + 1 < MAX_TRIES) {
                    amxd_log(AMX_LOG_DEBUG, "scan of %s failed (try %d of %d): %s",
                             *s->rel ? s->rel : d->roots[s->root], s->tries + 1, MAX_TRIES,
                             s->err);
                    amxd__queue_path(d, s->root, s->rel, s->flags & AMXD_DIR, s->seq,
                                     s->tries + 1);
                } else {
                    amxd__health_fail(d, s->root, *s->rel ? AMXD_CHANGES_DROPPED
                                                           : AMXD_SCAN_FAILED,
                                      s->rel, "%s", s->err);
                }
            } else if (!*s->rel) {
                amxd__health_ok(d, s->root); /* the whole root: in sync */
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
                               "removed, %llu unreadable; watching%s",
                 secs, (unsigned long long)d->seen, (unsigned long long)d->decoded,
                 (unsigned long long)d->removed, (unsigned long long)d->failed,
                 amxd__healthy(d) ? "" : "; NOT in sync (the error above; retrying)");
    }
    free(b->scopes);
    amxd__free_renames(b->renames, b->nrenames);
    free(b);
    if (stopping) {
        amxd__begin_stop(d, NULL);
        return;
    }
    if (d->reload)
        amxd__apply_reload(d);
    amxd__check_syncs(d);
    amxd__notify_followers(d, decoded, removed);
    amxd__arm_settle(d);
    amxd__kick(d);
}

/* Starts a batch of every ready path, unless one runs, the daemon is paused or stopping. */
void amxd__kick(amxd *d)
{
    elist *ready = &d->lists[ENTRY_READY];
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
        amxd__set_state(d, ready->head, ENTRY_INFLIGHT);
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
        for (entry *e = d->lists[ENTRY_INFLIGHT].head; e; e = d->lists[ENTRY_INFLIGHT].head)
            amxd__set_state(d, e, ENTRY_READY);
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
