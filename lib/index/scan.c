/*
 * The incremental scanner.
 *
 *   scanning thread (the caller)          worker threads (opts->jobs)
 *   ---------------------------          ----------------------------
 *   walk the tree (amx_os_dir)
 *   look the file up in the index
 *   unchanged (size, mtime, decoder) -> mark seen
 *   otherwise -> job queue (bounded) --> read, hash (XXH3-64), probe, decode;
 *                                        archives: one result per member, streamed
 *   <- result queue (bounded) <--------+
 *   write results in BEGIN IMMEDIATE batches (the only writer)
 *   at the end: remove rows of files not seen, run the link pass, record the scan
 *
 * Memory is bounded by the queue sizes and the largest file, not by the tree. Every batch is a
 * transaction; an archive's row is written with mtime -1 until its last member is in, so a scan
 * killed at any point leaves an index that the next scan completes.
 */
#include "db_internal.h"
#include "include_files.h"
#include "common/grow.h"
#include "common/str_table.h"

#include "animidx/os.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <xxhash.h>

#define BATCH_FILES 500
#define BATCH_NS (250 * 1000000LL)
#define PROBE_BYTES 4096
#define MAX_FILE_BYTES ((int64_t)4 << 30)
#define INCLUDE_SCAN_FLOOR ((uint64_t)16 << 20)
#define INCLUDE_RATIO 16

static int64_t now_ns(void)
{
    return amx_os_monotonic_ns();
}

/* ---- jobs and results ---- */

typedef enum { R_ASSET, R_TOUCH, R_IGNORED, R_FAILED, R_ARCHIVE_DONE } result_kind;

typedef struct job {
    char *abs_path, *rel_path;
    int64_t root_id;
    amx__file_row old;            /* the file's row before this scan (id 0: new) */
    int64_t size, mtime_ns;       /* from the walk */
    int64_t file_id;              /* set by the writer when the (archive) row is written */
    bool force;                   /* decode even when the bytes are those indexed (a file
                                   * its #include lines read changed) */
    int pending;                  /* results not yet written; the job is freed at 0 */
    struct job *next_done;        /* the writer's list of jobs to free */
} job;

typedef struct result {
    struct result *next;
    job *job;
    result_kind kind;
    char *member_path;            /* archive members: "archive#NAME"; NULL for the file itself */
    amx_asset *asset;
    amx_code fail_code;
    char fail_msg[256];
    int64_t size, mtime_ns;
    bool has_hash;
    uint64_t hash;
    uint64_t bytes_read;
    amx__byte_buf *packed;        /* the asset's clips' tracks, packed by the worker */
    struct amx__include_seen *inc_seen; /* the #include files its decoder read in place, */
    size_t inc_n;                 /* as they were then (include_files.h) */
} result;

typedef struct scan_ctx {
    pthread_mutex_t mu;
    pthread_cond_t job_cv;        /* workers wait here for jobs */
    pthread_cond_t result_cv;     /* the scanning thread waits here: a result, a free job slot,
                                   * or a finished job */
    pthread_cond_t space_cv;      /* workers wait here for room in the result queue */
    pthread_cond_t bytes_cv;      /* workers wait here for bytes_held to fall */
    uint64_t bytes_held;          /* file bytes read into memory by workers, and the archive
                                   * members they unpacked ... */
    uint64_t max_bytes_held;      /* ... at most this ([scan] memory_mb), unless one file is
                                   * larger: it is read when nothing else is held, so memory is
                                   * bounded by max(this, the largest file), not jobs x largest */
    unsigned holders;             /* workers holding a file's bytes */
    unsigned holders_waiting;     /* ... of them, waiting to hold an unpacked member too */
    bool overdraft;               /* one of those went past max_bytes_held (all were waiting) */
    /* The scan's unpack budget: what all archives unpack together (AMX_UNPACK_SCAN_FLOOR +
     * AMX_UNPACK_RATIO x the archive bytes read). Past it, the first member is a
     * LIMIT_EXCEEDED finding and no other member is unpacked. */
    uint64_t unpack_floor, unpack_budget, unpacked;
    bool unpack_spent;
    job **jobs;                   /* ring */
    size_t job_cap, job_head, job_count;
    result *res_head, *res_tail;
    size_t res_count, res_cap;
    bool closing;
    size_t busy;                  /* jobs taken by workers and not finished */
    const char *game;             /* the root's [root PATH] game setting (read-only), or NULL */
    const char *root;             /* the root (canonical): where #include files are read */
    /* What the #include files that INI decoders read in place may take, all together:
     * INCLUDE_SCAN_FLOOR + INCLUDE_RATIO x the bytes of the INI files the scan decoded (a tiny
     * file including a large one, thousands of times, would otherwise cost thousands of times
     * the tree; an archive's bytes count only as its INI members: counted as the archive too,
     * 2,000 INI members of a 4 MiB .big, each including a 4 MiB member, made a 304 MB index) */
    uint64_t include_allowance, include_spent;
    bool (*cancelled)(void *user); /* amx_scan_opts.cancelled, polled by the workers too */
    void *cancel_user;
} scan_ctx;

/* True when the caller asked the scan to stop: a worker then takes no new file, and the
 * decoders of long files stop (amx_decode_opts.cancelled). */
static bool worker_cancelled(const scan_ctx *c)
{
    return c->cancelled && c->cancelled(c->cancel_user);
}

static void job_free(job *j)
{
    if (!j)
        return;
    free(j->abs_path);
    free(j->rel_path);
    free(j);
}

static void result_free(result *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; r->packed && i < r->asset->clip_count; i++)
        amx__byte_buf_free(&r->packed[i]);
    free(r->packed);
    amx_asset_free(r->asset);
    free(r->member_path);
    for (size_t i = 0; i < r->inc_n; i++)
        free(r->inc_seen[i].path); /* NULL when the writer took it */
    free(r->inc_seen);
    free(r);
}

/* Worker side: packs the decoded clips' tracks as the index stores them (tracks.c), so the
 * writer, the scan's one busy thread, only copies the bytes. Out of memory: left to the
 * writer. */
static void pack_tracks(result *r)
{
    const amx_asset *a = r->asset;
    if (!a || !a->clip_count || !(r->packed = calloc(a->clip_count, sizeof *r->packed)))
        return;
    for (uint32_t i = 0; i < a->clip_count; i++)
        if (a->clips[i].track_count &&
            amx__tracks_pack(a->clips[i].tracks, a->clips[i].track_count, &r->packed[i]) != 0)
            amx__byte_buf_free(&r->packed[i]); /* len 0: the writer packs this one */
}

/* Worker side: pushes a result, waiting while the result queue is full (back-pressure). */
static void push_result(scan_ctx *c, result *r)
{
    pthread_mutex_lock(&c->mu);
    while (c->res_count >= c->res_cap)
        pthread_cond_wait(&c->space_cv, &c->mu);
    r->job->pending++;
    if (c->res_tail)
        c->res_tail->next = r;
    else
        c->res_head = r;
    c->res_tail = r;
    c->res_count++;
    pthread_cond_broadcast(&c->result_cv);
    pthread_mutex_unlock(&c->mu);
}

static result *new_result(job *j, result_kind kind)
{
    result *r = calloc(1, sizeof *r);
    if (r) {
        r->job = j;
        r->kind = kind;
    }
    return r;
}

static void push_failure(scan_ctx *c, job *j, amx_code code, const char *msg, const char *detail)
{
    result *r = new_result(j, R_FAILED);
    if (!r)
        return;
    r->fail_code = code;
    snprintf(r->fail_msg, sizeof r->fail_msg, "%s%s", msg, detail);
    r->size = -1; /* never "unchanged": retried by the next scan */
    r->mtime_ns = -1;
    push_result(c, r);
}


/* Copies the valid entries of an archive, so the archive's asset can go to the writer while
 * the worker decodes the members. Returns the count, or -1 when out of memory. */
static long copy_members(const amx_asset *a, amx_archive_entry **out)
{
    const amx_archive *ar = a->archive;
    amx_archive_entry *m = calloc(ar->entry_count ? ar->entry_count : 1, sizeof *m);
    if (!m)
        return -1;
    long n = 0;
    for (uint32_t i = 0; i < ar->entry_count; i++) {
        if (!ar->entries[i].valid)
            continue;
        m[n] = ar->entries[i];
        if (!(m[n].name = strdup(ar->entries[i].name))) {
            for (long k = 0; k < n; k++)
                free((char *)m[k].name);
            free(m);
            return -1;
        }
        n++;
    }
    *out = m;
    return n;
}

/* Holds `size` more bytes for a worker that already holds its file's (an unpacked archive
 * member): it waits while a holder that is not itself waiting can release bytes; when every
 * holder waits, one at a time goes over the limit (*over), so none waits for ever. */
static void hold_more(scan_ctx *c, uint64_t size, bool *over)
{
    *over = false;
    pthread_mutex_lock(&c->mu);
    c->holders_waiting++;
    while (c->bytes_held + size > c->max_bytes_held) {
        if (c->holders_waiting >= c->holders && !c->overdraft) {
            c->overdraft = *over = true;
            break;
        }
        pthread_cond_wait(&c->bytes_cv, &c->mu);
    }
    c->holders_waiting--;
    c->bytes_held += size;
    pthread_mutex_unlock(&c->mu);
}

static void release_more(scan_ctx *c, uint64_t size, bool over)
{
    pthread_mutex_lock(&c->mu);
    c->bytes_held -= size;
    if (over)
        c->overdraft = false;
    pthread_cond_broadcast(&c->bytes_cv);
    pthread_mutex_unlock(&c->mu);
}

/* Charges a member's unpacked size to the scan's budget. Returns 1 when it fits, 0 when it
 * is the first member past it (it gets the finding), -1 when the budget was already spent. */
static int charge_unpack(scan_ctx *c, uint64_t size, uint64_t *budget)
{
    pthread_mutex_lock(&c->mu);
    *budget = c->unpack_budget;
    int rc = 1;
    if (c->unpack_spent)
        rc = -1;
    else if (size > c->unpack_budget - c->unpacked)
        rc = 0, c->unpack_spent = true;
    else
        c->unpacked += size;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static int cmp_span(const void *a, const void *b)
{
    const amx_archive_entry *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return 0;
}

/* The unpacked bytes of a compressed member, kept while the next members share its stored
 * span (sorted next to it), so the same bytes are never inflated twice. */
typedef struct unpacked {
    uint64_t offset, size;
    const uint8_t *bytes;
    size_t len;
    void *owned;
    bool over;
} unpacked;

static void unpacked_drop(scan_ctx *c, unpacked *u)
{
    if (u->owned) {
        free(u->owned);
        release_more(c, u->len, u->over);
    }
    *u = (unpacked){ 0 };
}

/* A result for archive member `name`, its path "ARCHIVE#NAME"; NULL out of memory. */
static result *new_member_result(job *j, result_kind kind, const char *name)
{
    result *r = new_result(j, kind);
    size_t plen = strlen(j->rel_path) + strlen(name) + 2;
    char *mp = malloc(plen);
    if (!r || !mp) {
        free(r);
        free(mp);
        return NULL;
    }
    snprintf(mp, plen, "%s#%s", j->rel_path, name);
    r->member_path = mp;
    return r;
}

/* A member's row that says why it was not decoded. */
static void push_member_failure(scan_ctx *c, job *j, const char *name, amx_code code,
                                const char *msg)
{
    result *r = new_member_result(j, R_FAILED, name);
    if (!r)
        return;
    r->fail_code = code;
    /* the message, cut to the row's buffer */
    snprintf(r->fail_msg, sizeof r->fail_msg, "%.*s", (int)sizeof r->fail_msg - 1, msg);
    r->size = -1;
    r->mtime_ns = -1;
    push_result(c, r);
}

/* A member whose stored span repeats an earlier member's: a row for its name (references find
 * it), of no format, its bytes decoded under the first name only. */
static void push_member_repeat(scan_ctx *c, job *j, const amx_archive_entry *m)
{
    result *r = new_member_result(j, R_IGNORED, m->name);
    if (!r)
        return;
    r->size = (int64_t)(m->compressed ? m->unpacked_size : m->size);
    r->mtime_ns = j->mtime_ns;
    push_result(c, r);
}

static bool charge_include(void *user, uint64_t size);

/* What the #include files of a file of `size` bytes may add to the scan's allowance: its
 * INCLUDE_RATIO times when it is an INI file, nothing otherwise. */
static void allow_includes(scan_ctx *c, amx_format fmt, uint64_t size)
{
    if (fmt != AMX_FMT_SAGE_INI)
        return;
    pthread_mutex_lock(&c->mu);
    c->include_allowance += size * INCLUDE_RATIO;
    pthread_mutex_unlock(&c->mu);
}

/* Decodes one member of an archive, whose bytes are span/span_len, into a result; the
 * `#include` lines of an INI member read the archive's members (inc). */
static void decode_member(scan_ctx *c, job *j, const amx_archive_entry *m, const uint8_t *span,
                          size_t span_len, amx__member_includes *inc)
{
    result *r = new_member_result(j, R_ASSET, m->name);
    if (!r)
        return;
    r->mtime_ns = j->mtime_ns;
    r->size = (int64_t)span_len;
    amx_format fmt = amx_probe(span, span_len);
    if (fmt == AMX_FMT_UNKNOWN && !amx_extension_known(m->name)) {
        /* Textures, XML, audio: indexed as members of no known format, like loose files. */
        r->kind = R_IGNORED;
        push_result(c, r);
        return;
    }
    allow_includes(c, fmt, span_len);
    amx_decode_opts o = { .file_name = m->name, .format = fmt, .game = c->game,
                          .cancelled = c->cancelled,
                          .cancel_user = c->cancel_user, .read_include = amx__member_include_read,
                          .include_user = inc };
    if (amx_decode(span, span_len, &o, &r->asset) != AMX_OK) {
        result_free(r);
        return;
    }
    r->has_hash = true;
    r->hash = XXH3_64bits(span, span_len);
    pack_tracks(r);
    push_result(c, r);
}

/* Unpacks a compressed member into *u (held in the memory budget), charged to the scan's
 * unpack budget. Returns false when it was not unpacked (a row or the budget says why);
 * *incomplete is set when the scan's budget left it for the next scan. */
static bool unpack_member(scan_ctx *c, job *j, amx_format fmt, const uint8_t *data, size_t len,
                          const amx_archive_entry *m, unpacked *u, bool *incomplete)
{
    char msg[400];
    uint64_t budget;
    int fits = charge_unpack(c, m->unpacked_size, &budget);
    if (fits <= 0) {
        *incomplete = true; /* the archive row stays incomplete: the next scan retries it */
        if (fits == 0) {
            snprintf(msg, sizeof msg,
                     "not unpacked: its %llu bytes would take the scan past its unpack budget "
                     "(%llu MiB + %d x the archives read, %llu MiB in all); it and the "
                     "compressed members after it are left for the next scan",
                     (unsigned long long)m->unpacked_size,
                     (unsigned long long)(c->unpack_floor >> 20), AMX_UNPACK_RATIO,
                     (unsigned long long)(budget >> 20));
            push_member_failure(c, j, m->name, AMX_C_LIMIT_EXCEEDED, msg);
        }
        return false;
    }
    bool over;
    hold_more(c, m->unpacked_size, &over);
    char why[300];
    const uint8_t *bytes;
    size_t blen;
    void *owned;
    amx_status st = amx_archive_entry_bytes(fmt, m, data, len, &bytes, &blen, &owned, why,
                                            sizeof why);
    if (st != AMX_OK || !owned) {
        release_more(c, m->unpacked_size, over);
        free(owned);
        snprintf(msg, sizeof msg, "cannot unpack the member: %s", why);
        if (st != AMX_OK)
            push_member_failure(c, j, m->name,
                                st == AMX_E_INVALID_ARG ? AMX_C_SIZE_MISMATCH : AMX_C_LIMIT_EXCEEDED,
                                msg);
        return false;
    }
    /* amx_archive_entry_bytes gives exactly the declared size */
    *u = (unpacked){ .offset = m->offset, .size = m->size, .bytes = bytes, .len = blen,
                     .owned = owned, .over = over };
    return true;
}

/* Decodes the valid members of an archive (a copy of its entries, reordered here): stored ones
 * as spans of the archive; compressed ones unpacked once per stored span, within the memory
 * and unpack budgets. Then the row that completes the archive. */
/* What one archive may cost: its members' distinct stored spans may add up to the archive's
 * size and AMX_ARCHIVE_SLACK more (an archive tool stores each member once; entries whose data
 * overlap, ARCHIVE_OVERLAP, are how a 600 KB archive claims gigabytes of members and an index
 * a hundred times its size), and at most AMX_ARCHIVE_MAX_MEMBERS members are indexed. The
 * first member past either limit gets a LIMIT_EXCEEDED row that counts what was left out; the
 * members after it get none. Compressed members also have the unpack budget. */
#define AMX_ARCHIVE_SLACK ((uint64_t)16 << 20)
#define AMX_ARCHIVE_MAX_MEMBERS 200000

static bool within_archive_budget(scan_ctx *c, job *j, const amx_archive_entry *m, long i,
                                  long n, size_t len, bool repeat, uint64_t *spent, bool *over)
{
    if (*over)
        return false;
    uint64_t cost = m[i].compressed || repeat ? 0 : m[i].size;
    if (i < AMX_ARCHIVE_MAX_MEMBERS && *spent + cost <= (uint64_t)len + AMX_ARCHIVE_SLACK) {
        *spent += cost;
        return true;
    }
    *over = true;
    uint64_t rest = 0;
    for (long k = i; k < n; k++)
        rest += m[k].size;
    char msg[256];
    snprintf(msg, sizeof msg, "this member and the %ld after it (%llu stored bytes) are not "
             "indexed: %s", n - i - 1, (unsigned long long)rest,
             i >= AMX_ARCHIVE_MAX_MEMBERS ? "an archive's first 200000 members are"
                                          : "an archive's members may add up to its size and "
                                            "16 MiB (its entries overlap)");
    push_member_failure(c, j, m[i].name, AMX_C_LIMIT_EXCEEDED, msg);
    return false;
}

/* Whether m[i]'s stored span (offset, size) is one an earlier member had; records it if not.
 * `seen` is an open-addressing table of member positions, `cap` (a power of two) at least
 * twice the members: each look-up is O(1) on average, whatever the archive claims. */
static bool span_seen(long *seen, size_t cap, const amx_archive_entry *m, long i)
{
    size_t h = (size_t)((m[i].offset * 0x9E3779B97F4A7C15ull) ^ m[i].size) & (cap - 1);
    while (seen[h] >= 0) {
        if (cmp_span(&m[seen[h]], &m[i]) == 0)
            return true;
        h = (h + 1) & (cap - 1);
    }
    seen[h] = i;
    return false;
}

static void decode_archive_members(scan_ctx *c, job *j, amx_format fmt, const uint8_t *data,
                                   size_t len, amx_archive_entry *m, long n)
{
    bool compressed = false;
    for (long i = 0; i < n && !compressed; i++)
        compressed = m[i].compressed;
    if (compressed) /* the members of one stored span next to each other */
        qsort(m, (size_t)n, sizeof *m, cmp_span);
    /* The bytes of a span are decoded once, under the first entry's name; an entry repeating
     * it (ARCHIVE_OVERLAP counts them) gets a row of its own name only: 20,000 names for one
     * file cost one decode. */
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    long *seen = malloc(cap * sizeof *seen);
    if (seen)
        memset(seen, 0xFF, cap * sizeof *seen);
    unpacked cache = { 0 };
    bool incomplete = false, over = false;
    uint64_t spent = 0;
    amx__member_includes inc = { .data = data, .len = len, .m = m, .n = (size_t)n,
                                 .charge = charge_include, .charge_user = c };
    for (long i = 0; i < n; i++) {
        if (worker_cancelled(c)) { /* the archive row stays incomplete: the next scan ends it */
            incomplete = true;
            break;
        }
        bool repeat = seen && m[i].size && span_seen(seen, cap, m, i);
        if (!within_archive_budget(c, j, m, i, n, len, repeat, &spent, &over))
            continue;
        if (repeat) {
            push_member_repeat(c, j, &m[i]);
            continue;
        }
        if (!m[i].compressed) {
            if (m[i].offset <= len && m[i].size <= len - m[i].offset)
                decode_member(c, j, &m[i], data + m[i].offset, (size_t)m[i].size, &inc);
            continue;
        }
        if (!(cache.owned && cache.offset == m[i].offset && cache.size == m[i].size)) {
            unpacked_drop(c, &cache);
            if (!unpack_member(c, j, fmt, data, len, &m[i], &cache, &incomplete))
                continue;
        }
        decode_member(c, j, &m[i], cache.bytes, cache.len, &inc);
    }
    amx__member_includes_free(&inc);
    unpacked_drop(c, &cache);
    free(seen);
    result *done = new_result(j, R_ARCHIVE_DONE);
    if (done) {
        done->size = j->size;
        done->mtime_ns = incomplete ? -1 : j->mtime_ns;
        push_result(c, done);
    }
}

/* Waits until `size` more file bytes fit under max_bytes_held (or nothing else is held). */
static void hold_bytes(scan_ctx *c, uint64_t size)
{
    pthread_mutex_lock(&c->mu);
    while (c->bytes_held && c->bytes_held + size > c->max_bytes_held)
        pthread_cond_wait(&c->bytes_cv, &c->mu);
    c->bytes_held += size;
    c->holders++;
    pthread_mutex_unlock(&c->mu);
}

static void release_bytes(scan_ctx *c, uint64_t size)
{
    pthread_mutex_lock(&c->mu);
    c->bytes_held -= size;
    c->holders--;
    pthread_cond_broadcast(&c->bytes_cv);
    pthread_mutex_unlock(&c->mu);
}

static void decode_file(scan_ctx *c, job *j, amx_os_file *f, const amx_os_stat *st,
                        const uint8_t *head, size_t head_len);

/* A result that records only the file's size and mtime: ignored (no known format) or touched
 * (same bytes as indexed). */
static void push_stat_result(scan_ctx *c, job *j, result_kind kind, const amx_os_stat *st,
                             size_t read)
{
    result *r = new_result(j, kind);
    if (!r)
        return;
    r->size = st->size;
    r->mtime_ns = st->mtime_ns;
    r->bytes_read = read;
    push_result(c, r);
}

static void process_job(scan_ctx *c, job *j)
{
    if (worker_cancelled(c)) /* left for the next scan, like the files not walked */
        return;
    amx_os_file *f;
    int rc = amx_os_open_read(j->abs_path, &f);
    if (rc < 0) {
        if (rc == -ENOENT)
            push_failure(c, j, AMX_C_FILE_VANISHED, "the file disappeared during the scan", "");
        else
            push_failure(c, j, AMX_C_IO_ERROR, "cannot open: ", strerror(-rc));
        return;
    }
    amx_os_stat st;
    if (amx_os_file_stat(f, &st) != 0 || st.kind != AMX_OS_FILE) {
        push_failure(c, j, AMX_C_FILE_VANISHED, "the file changed into something else during the scan", "");
        amx_os_close(f);
        return;
    }
    if (st.size > MAX_FILE_BYTES) {
        push_failure(c, j, AMX_C_LIMIT_EXCEEDED, "the file is larger than 4 GiB; not decoded", "");
        amx_os_close(f);
        return;
    }
    /* Read a prefix first: most files of other formats are recognised as such from it. */
    uint8_t head[PROBE_BYTES];
    size_t size = (size_t)st.size, got = 0, want = size < PROBE_BYTES ? size : PROBE_BYTES;
    rc = amx_os_read(f, head, want, &got);
    if (rc == 0 && amx_probe(head, got) == AMX_FMT_UNKNOWN && !amx_extension_known(j->rel_path) &&
        !(size > got && amx_probe_wants_more(head, got))) {
        amx_os_close(f);
        push_stat_result(c, j, R_IGNORED, &st, got);
        return;
    }
    if (rc != 0) {
        amx_os_close(f);
        push_failure(c, j, AMX_C_IO_ERROR, "read failed: ", strerror(-rc));
        return;
    }
    hold_bytes(c, size);
    decode_file(c, j, f, &st, head, got);
    release_bytes(c, size);
}

/* include_files' charge: takes `size` from the scan's #include allowance, if it has it. */
static bool charge_include(void *user, uint64_t size)
{
    scan_ctx *c = user;
    pthread_mutex_lock(&c->mu);
    bool ok = c->include_allowance - c->include_spent >= size;
    if (ok)
        c->include_spent += size;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

/* Reads the rest of the file after its prefix `head` (f is just past it), hashes it, and
 * decodes it unless the index has the same bytes decoded by the same decoder version. Closes
 * f. */
static void decode_file(scan_ctx *c, job *j, amx_os_file *f, const amx_os_stat *stp,
                        const uint8_t *head, size_t head_len)
{
    const amx_os_stat st = *stp;
    size_t size = (size_t)st.size;
    uint8_t *data = malloc(size ? size : 1);
    if (!data) {
        push_failure(c, j, AMX_C_LIMIT_EXCEEDED, "not enough memory to read the file", "");
        amx_os_close(f);
        return;
    }
    memcpy(data, head, head_len);
    size_t got = head_len, more = 0;
    int rc = got == PROBE_BYTES && size > got ? amx_os_read(f, data + got, size - got, &more) : 0;
    got += more;
    amx_os_close(f);
    if (rc != 0) {
        push_failure(c, j, AMX_C_IO_ERROR, "read failed: ", strerror(-rc));
        free(data);
        return;
    }
    amx_format fmt = amx_probe(data, got < PROBE_BYTES ? got : PROBE_BYTES); /* as above */
    if (got != size) {
        push_failure(c, j, AMX_C_FILE_VANISHED, "the file changed size while it was read", "");
        free(data);
        return;
    }
    /* a text the prefix could not tell (an INI whose first block follows 4 KiB of comments):
     * told from more of it, and skipped, as above, if it is still no format */
    if (fmt == AMX_FMT_UNKNOWN && got > PROBE_BYTES && amx_probe_wants_more(data, PROBE_BYTES)) {
        fmt = amx_probe(data, got < AMX_PROBE_TEXT_BYTES ? got : AMX_PROBE_TEXT_BYTES);
        if (fmt == AMX_FMT_UNKNOWN && !amx_extension_known(j->rel_path)) {
            push_stat_result(c, j, R_IGNORED, &st, got);
            free(data);
            return;
        }
    }
    uint64_t hash = XXH3_64bits(data, size);
    if (!j->force && j->old.id && j->old.has_hash && (uint64_t)j->old.hash == hash &&
        j->old.decoder_version == amx_format_decoder_version(fmt) &&
        strcmp(j->old.format, amx_format_name(fmt)) == 0 && j->old.mtime_ns >= 0) {
        push_stat_result(c, j, R_TOUCH, &st, size);
        free(data);
        return;
    }
    result *r = new_result(j, R_ASSET);
    if (!r) {
        free(data);
        return;
    }
    /* an archive's compressed members are inflated once, below, not also by its decode */
    allow_includes(c, fmt, size);
    amx__include_files inc = { .root = c->root, .file = j->rel_path, .file_abs = j->abs_path,
                               .charge = charge_include, .charge_user = c };
    amx_decode_opts o = { .file_name = j->rel_path, .format = fmt, .game = c->game,
                          .unpack_later = true, .cancelled = c->cancelled,
                          .cancel_user = c->cancel_user, .read_include = amx__include_read,
                          .include_user = &inc };
    amx_status dst = amx_decode(data, size, &o, &r->asset);
    r->inc_seen = inc.seen; /* the writer's, with the result */
    r->inc_n = inc.n_seen;
    inc.seen = NULL;
    amx__include_files_free(&inc);
    if (dst == AMX_E_CANCELLED) { /* nothing written: the row keeps what it had */
        free(r);
        free(data);
        return;
    }
    if (dst != AMX_OK) {
        free(r);
        push_failure(c, j, AMX_C_LIMIT_EXCEEDED, "not enough memory to decode the file", "");
        free(data);
        return;
    }
    r->size = (int64_t)size;
    bool archive = r->asset->archive != NULL;
    r->mtime_ns = archive ? -1 : st.mtime_ns; /* archives: completed by R_ARCHIVE_DONE */
    r->has_hash = true;
    r->hash = hash;
    r->bytes_read = size;
    amx_archive_entry *members = NULL;
    long nmembers = archive ? copy_members(r->asset, &members) : 0;
    amx_format afmt = r->asset->format;
    pack_tracks(r);
    push_result(c, r); /* the writer owns r from here on */
    if (archive) { /* what this archive may add to the scan's unpack budget */
        uint64_t add = (uint64_t)size > UINT64_MAX / 2 / AMX_UNPACK_RATIO
                            ? UINT64_MAX / 2
                            : (uint64_t)size * AMX_UNPACK_RATIO;
        pthread_mutex_lock(&c->mu);
        c->unpack_budget = c->unpack_budget > UINT64_MAX / 2 ? c->unpack_budget
                                                             : c->unpack_budget + add;
        pthread_mutex_unlock(&c->mu);
    }
    if (nmembers >= 0 && archive)
        decode_archive_members(c, j, afmt, data, size, members, nmembers);
    for (long i = 0; i < nmembers; i++)
        free((char *)members[i].name);
    free(members);
    free(data);
}

static void *worker_main(void *arg)
{
    scan_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->job_count == 0 && !c->closing)
            pthread_cond_wait(&c->job_cv, &c->mu);
        if (c->job_count == 0 && c->closing) {
            pthread_mutex_unlock(&c->mu);
            return NULL;
        }
        job *j = c->jobs[c->job_head];
        c->job_head = (c->job_head + 1) % c->job_cap;
        c->job_count--;
        c->busy++;
        j->pending++; /* held by the worker until it is done with the job */
        pthread_cond_broadcast(&c->result_cv); /* a job slot is free: wakes the scanning thread */
        pthread_mutex_unlock(&c->mu);

        process_job(c, j);

        pthread_mutex_lock(&c->mu);
        c->busy--;
        j->pending--;
        bool free_now = j->pending == 0;
        pthread_cond_broadcast(&c->result_cv);
        pthread_mutex_unlock(&c->mu);
        if (free_now)
            job_free(j);
    }
}

/* ---- the scanning thread ---- */

typedef struct scanner {
    amx_db *db;
    const amx_scan_opts *opts;
    amx_scan_stats *stats;
    scan_ctx q;
    pthread_t *threads;
    int nthreads;
    int64_t root_id;
    const char *root;             /* absolute */
    const char *scope;            /* relative file or subtree being scanned, as stored
                                   * (amx_path_encode); NULL = all */
    const char *scope_raw;        /* the same as the file system spells it */
    uint8_t *seen;                /* bitmap over file ids at the start of the scan */
    int64_t seen_max;
    int64_t seen_count;           /* bits set in it */
    size_t batch_files;
    int64_t batch_start;
    int64_t last_progress;
    uint64_t db_dev;              /* the index's files (main, -wal, -shm), never scanned */
    uint64_t db_ino[3];
    char *err;
    size_t errlen;
    amx_status failed;            /* first database failure; the scan stops */
    /* directories visited (dev, ino), to break symlink loops */
    struct dir_id { uint64_t dev, ino; } *dirs;
    size_t dir_count, dir_cap;
    sqlite3_stmt *change_ins;     /* scan_changes: what this scan added, changed, removed */
    /* for the files whose #include lines read a file this scan saw change: the names (no
     * directory, any case) of the files it added, changed or removed, and the INI files it
     * decoded */
    amx__str_table changed_names, decoded_ini;
    /* the #include files the INI files this scan decoded read in place, as they were then:
     * each includer's path, the file's (relative to the root) and its size and time */
    struct decoded_include { char *path; struct amx__include_seen seen; } *dec_inc;
    size_t n_dec_inc, cap_dec_inc;
} scanner;

static void mark_seen(scanner *s, int64_t id)
{
    if (id > 0 && id <= s->seen_max && !(s->seen[id >> 3] & (1u << (id & 7)))) {
        s->seen[id >> 3] |= (uint8_t)(1u << (id & 7));
        s->seen_count++;
    }
}

static bool was_seen(const scanner *s, int64_t id)
{
    return id > s->seen_max || (s->seen[id >> 3] & (1u << (id & 7)));
}

static void report_progress(scanner *s, const char *current, bool force)
{
    if (!s->opts->progress)
        return;
    int64_t t = now_ns();
    if (!force && t - s->last_progress < 100000000LL)
        return;
    s->last_progress = t;
    amx_scan_progress p = {
        .files_seen = s->stats->files_seen,
        .files_decoded = s->stats->files_decoded,
        .files_unchanged = s->stats->files_unchanged,
        .bytes_read = s->stats->bytes_read,
        .current = current,
    };
    s->opts->progress(&p, s->opts->user);
}

static amx_status ensure_tx(scanner *s)
{
    if (s->db->in_tx)
        return AMX_OK;
    s->batch_files = 0;
    s->batch_start = now_ns();
    return amx__db_begin(s->db, s->err, s->errlen);
}

static amx_status maybe_commit(scanner *s, bool force)
{
    if (!s->db->in_tx)
        return AMX_OK;
    if (!force && s->batch_files < BATCH_FILES && now_ns() - s->batch_start < BATCH_NS)
        return AMX_OK;
    return amx__db_commit(s->db, s->err, s->errlen);
}

/* `animidx changes` keeps what the last this many whole scans of a root changed. */
enum { CHANGES_KEPT = 20 };

/* Records that a file of its own was added, changed (new content) or removed by this scan
 * (animidx changes); its scan id is set when the scan finishes. */
static amx_status record_change(scanner *s, const char *path, const char *change,
                                const char *format)
{
    if (!s->change_ins &&
        sqlite3_prepare_v2(s->db->db, "INSERT INTO scan_changes(root_id, at, path, change, format) "
                                      "VALUES (?1, ?2, ?3, ?4, ?5)",
                           -1, &s->change_ins, NULL) != SQLITE_OK)
        return amx__db_error(s->db, "index: recording a change", s->err, s->errlen);
    sqlite3_bind_int64(s->change_ins, 1, s->root_id);
    sqlite3_bind_int64(s->change_ins, 2, (int64_t)time(NULL));
    sqlite3_bind_text(s->change_ins, 3, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->change_ins, 4, change, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->change_ins, 5, format ? format : "", -1, SQLITE_STATIC);
    return amx__db_run(s->change_ins) == SQLITE_OK
               ? AMX_OK
               : amx__db_error(s->db, "index: recording a change", s->err, s->errlen);
}

/* Notes the name of a file this scan added, changed or removed (see scanner.changed_names). */
static void note_changed_name(scanner *s, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    bool added;
    if (amx__str_table_add(&s->changed_names, name, strlen(name), NULL, &added) == SIZE_MAX)
        s->failed = AMX_E_NOMEM;
}

/* The name (no directory) of the file a path names, '\\' or '/' separated. */
static const char *file_name_of(const char *path)
{
    const char *name = path + strlen(path);
    while (name > path && name[-1] != '/' && name[-1] != '\\')
        name--;
    return name;
}

/* Notes an #include file an INI file this scan decoded read in place (scanner.dec_inc); takes
 * `seen`'s path. */
static bool note_decoded_include(scanner *s, const char *path, struct amx__include_seen *seen)
{
    if (!amx__grow((void **)&s->dec_inc, &s->cap_dec_inc, s->n_dec_inc, sizeof *s->dec_inc))
        return false;
    char *p = strdup(path);
    if (!p)
        return false;
    s->dec_inc[s->n_dec_inc++] = (struct decoded_include){ p, *seen };
    seen->path = NULL;
    return true;
}

static amx_status write_result(scanner *s, result *r)
{
    job *j = r->job;
    amx_status st = ensure_tx(s);
    if (st)
        return st;
    s->batch_files++;
    s->stats->bytes_read += r->bytes_read;
    amx__file_meta m = {
        .root_id = s->root_id,
        .path = r->member_path ? r->member_path : j->rel_path,
        .size = r->size,
        .mtime_ns = r->mtime_ns,
        .has_hash = r->has_hash,
        .hash = r->hash,
        .parent_id = r->member_path ? j->file_id : 0,
        /* member paths are "ARCHIVE#NAME" */
        .member_name = r->member_path ? r->member_path + strlen(j->rel_path) + 1 : NULL,
        .member_at = r->member_path ? strlen(j->rel_path) : 0,
    };
    int64_t id = 0;
    if (!r->member_path && r->kind != R_TOUCH && r->kind != R_ARCHIVE_DONE &&
        (r->kind != R_ASSET || !j->old.id || !j->old.has_hash || !r->has_hash ||
         j->old.hash != (int64_t)r->hash))
        note_changed_name(s, j->rel_path);
    bool added;
    if (!r->member_path && r->kind == R_ASSET && r->asset &&
        r->asset->format == AMX_FMT_SAGE_INI) {
        if (amx__str_table_add(&s->decoded_ini, j->rel_path, strlen(j->rel_path), NULL,
                               &added) == SIZE_MAX)
            return AMX_E_NOMEM;
        for (size_t i = 0; i < r->inc_n; i++)
            if (!note_decoded_include(s, j->rel_path, &r->inc_seen[i]))
                return AMX_E_NOMEM;
    }
    switch (r->kind) {
    case R_TOUCH:
        s->stats->files_rehashed++;
        return amx__db_touch(s->db, j->old.id, r->size, r->mtime_ns, s->err, s->errlen);
    case R_ARCHIVE_DONE:
        if (r->mtime_ns < 0)
            s->stats->archives_incomplete++;
        return amx__db_touch(s->db, j->file_id, r->size, r->mtime_ns, s->err, s->errlen);
    case R_IGNORED:
        return amx__db_put(s->db, &m, NULL, NULL, &id, s->err, s->errlen);
    case R_FAILED: {
        s->stats->files_failed++;
        amx__failure f = { r->fail_code, r->fail_msg };
        st = amx__db_put(s->db, &m, NULL, &f, &id, s->err, s->errlen);
        if (!st && !r->member_path)
            st = record_change(s, j->rel_path, j->old.id ? "changed" : "added", "unknown");
        return st;
    }
    case R_ASSET:
        s->stats->files_decoded++;
        m.packed = r->packed;
        st = amx__db_put(s->db, &m, r->asset, NULL, &id, s->err, s->errlen);
        if (!r->member_path) {
            j->file_id = id;
            /* a file whose decoder version went up is decoded again, but did not change */
            if (!st && (!j->old.id || !j->old.has_hash || !r->has_hash ||
                        j->old.hash != (int64_t)r->hash))
                st = record_change(s, j->rel_path, j->old.id ? "changed" : "added",
                                   amx_format_name(r->asset ? r->asset->format : AMX_FMT_UNKNOWN));
        }
        return st;
    }
    return AMX_OK;
}

/* Takes every result off the queue (waiting for one when `wait`), writes them and frees them.
 * The whole list is taken under one lock and given back under one: when the writer is the
 * slower side, results queue up and cost no lock traffic each. Returns false when there was
 * nothing to take. */
static bool drain_one(scanner *s, bool wait)
{
    scan_ctx *c = &s->q;
    pthread_mutex_lock(&c->mu);
    while (wait && !c->res_head && (c->job_count || c->busy))
        pthread_cond_wait(&c->result_cv, &c->mu);
    result *list = c->res_head;
    if (list) {
        c->res_head = c->res_tail = NULL;
        c->res_count = 0;
        pthread_cond_broadcast(&c->space_cv);
    }
    pthread_mutex_unlock(&c->mu);
    if (!list)
        return false;
    for (result *r = list; r; r = r->next) {
        /* A cancelled scan still writes what its workers finished (each file is whole). */
        if (!s->failed || s->failed == AMX_E_CANCELLED) {
            amx_status st = write_result(s, r);
            if (!st)
                st = maybe_commit(s, false);
            if (st)
                s->failed = st;
        }
    }
    /* the jobs the results belong to: freed with their last result */
    job *done = NULL;
    pthread_mutex_lock(&c->mu);
    for (result *r = list; r; r = r->next)
        if (--r->job->pending == 0) {
            r->job->next_done = done;
            done = r->job;
        }
    pthread_mutex_unlock(&c->mu);
    while (list) {
        result *next = list->next;
        result_free(list);
        list = next;
    }
    while (done) {
        job *next = done->next_done;
        job_free(done);
        done = next;
    }
    report_progress(s, NULL, false);
    return true;
}

static void submit(scanner *s, job *j)
{
    scan_ctx *c = &s->q;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (c->job_count < c->job_cap) {
            c->jobs[(c->job_head + c->job_count) % c->job_cap] = j;
            c->job_count++;
            pthread_cond_signal(&c->job_cv);
            pthread_mutex_unlock(&c->mu);
            return;
        }
        pthread_mutex_unlock(&c->mu);
        /* The job queue is full: write results while the workers catch up. */
        if (!drain_one(s, false)) {
            pthread_mutex_lock(&c->mu);
            if (c->job_count >= c->job_cap && !c->res_head)
                pthread_cond_wait(&c->result_cv, &c->mu);
            pthread_mutex_unlock(&c->mu);
        }
    }
}

/* Records a finding on a path that is not a file the scan reads (a directory, a link), as a
 * row of its own so it shows in `issues`; `failure` counts it in files_failed (unreadable,
 * vanished, loops), an informative one (a link not followed) is not. */
static void record(scanner *s, const char *rel, amx_code code, const char *msg, bool failure)
{
    amx__file_meta m = { .root_id = s->root_id, .path = rel, .size = -1, .mtime_ns = -1 };
    amx__failure f = { code, msg };
    int64_t id;
    if (s->failed)
        return;
    amx_status st = ensure_tx(s);
    if (!st)
        st = amx__db_put(s->db, &m, NULL, &f, &id, s->err, s->errlen);
    if (st)
        s->failed = st;
    else
        mark_seen(s, id); /* the row stands for this scan: the sweep must keep it */
    if (failure)
        s->stats->files_failed++;
}

static void notice(scanner *s, const char *rel, amx_code code, const char *msg)
{
    record(s, rel, code, msg, true);
}

/* True when the caller asked the scan to stop (then s->failed is AMX_E_CANCELLED). */
static bool stop_requested(scanner *s)
{
    if (!s->failed && s->opts->cancelled && s->opts->cancelled(s->opts->user)) {
        s->failed = AMX_E_CANCELLED;
        snprintf(s->err, s->errlen, "scan of %s cancelled", s->root);
    }
    return s->failed != AMX_OK;
}

/* A regular file: skipped when the index has it (`known`, NULL when it does not) with the same
 * size, mtime and decoder version; otherwise a job for the workers. */
/* A job for file `name` of directory `dir_abs` (its path `rel` as stored), whose row before
 * this scan is `old`; NULL when out of memory. */
static job *job_new(scanner *s, const char *dir_abs, const char *name, const char *rel,
                    const amx__file_row *old)
{
    job *j = calloc(1, sizeof *j);
    size_t alen = strlen(dir_abs) + strlen(name) + 2;
    if (j) {
        j->abs_path = malloc(alen);
        j->rel_path = strdup(rel);
    }
    if (!j || !j->abs_path || !j->rel_path) {
        job_free(j);
        return NULL;
    }
    amx_os_path_join(dir_abs, name, j->abs_path, alen);
    j->root_id = s->root_id;
    j->old = *old;
    return j;
}

static void consider_file(scanner *s, const char *dir_abs, const char *name, const char *rel,
                          const amx_os_stat *st, const amx__file_row *known)
{
    if (stop_requested(s))
        return;
    s->stats->files_seen++;
    if (st->dev == s->db_dev &&
        (st->ino == s->db_ino[0] || st->ino == s->db_ino[1] || st->ino == s->db_ino[2]))
        return; /* the index itself */
    amx__file_row old = known ? *known : (amx__file_row){ 0 };
    if (old.id) {
        mark_seen(s, old.id);
        amx_format fmt = AMX_FMT_UNKNOWN;
        amx_format_parse(old.format, &fmt);
        if (old.size == st->size && old.mtime_ns == st->mtime_ns &&
            old.decoder_version == amx_format_decoder_version(fmt)) {
            s->stats->files_unchanged++;
            report_progress(s, rel, false);
            if (maybe_commit(s, false))
                s->failed = AMX_E_DB;
            return;
        }
    }
    job *j = job_new(s, dir_abs, name, rel, &old);
    if (!j) {
        s->failed = AMX_E_NOMEM;
        return;
    }
    j->size = st->size;
    j->mtime_ns = st->mtime_ns;
    submit(s, j);
}

static bool dir_visited(scanner *s, const amx_os_stat *st)
{
    for (size_t i = 0; i < s->dir_count; i++)
        if (s->dirs[i].dev == st->dev && s->dirs[i].ino == st->ino)
            return true;
    if (s->dir_count == s->dir_cap) {
        size_t cap = s->dir_cap ? s->dir_cap * 2 : 64;
        struct dir_id *d = realloc(s->dirs, cap * sizeof *d);
        if (!d)
            return true;
        s->dirs = d;
        s->dir_cap = cap;
    }
    s->dirs[s->dir_count++] = (struct dir_id){ st->dev, st->ino };
    return false;
}

/* A directory entry's name as the file system spells it, and as the index stores it. */
typedef struct entry_name {
    const char *raw, *stored;
    amx_os_stat st;               /* links followed (st.link: the entry is one) */
    int err;                      /* why st could not be read (-errno), or 0 */
} entry_name;

static int cmp_names(const void *a, const void *b)
{
    return strcmp(((const entry_name *)a)->stored, ((const entry_name *)b)->stored);
}

/* The index's rows for the loose files of one directory, sorted by path: read with one query
 * (on the covering index files_dir) inside the batch transaction, instead of one lookup per
 * file. Memory: one directory's rows. */
typedef struct dir_rows {
    amx__byte_buf paths;          /* the paths, NUL-terminated */
    size_t *path_at;              /* offsets into paths */
    amx__file_row *rows;
    size_t n;
    size_t next;                  /* dir_rows_find's cursor */
} dir_rows;

static void dir_rows_free(dir_rows *d)
{
    amx__byte_buf_free(&d->paths);
    free(d->path_at);
    free(d->rows);
    *d = (dir_rows){ 0 };
}

static bool dir_rows_load(scanner *s, const char *rel, dir_rows *out)
{
    *out = (dir_rows){ 0 };
    if (ensure_tx(s)) {
        s->failed = AMX_E_DB;
        return false;
    }
    char dir[AMX_PATH_MAX];
    snprintf(dir, sizeof dir, "%s%s", rel, *rel ? "/" : "");
    sqlite3_stmt *q = s->db->dir_rows;
    sqlite3_bind_int64(q, 1, s->root_id);
    sqlite3_bind_text(q, 2, dir, -1, SQLITE_STATIC);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            size_t *ga = realloc(out->path_at, cap * sizeof *ga);
            if (ga)
                out->path_at = ga;
            amx__file_row *gr = ga ? realloc(out->rows, cap * sizeof *gr) : NULL;
            if (!gr) {
                rc = SQLITE_NOMEM;
                break;
            }
            out->rows = gr;
        }
        amx__file_row *r = &out->rows[out->n];
        *r = (amx__file_row){
            .id = sqlite3_column_int64(q, 1),
            .size = sqlite3_column_int64(q, 2),
            .mtime_ns = sqlite3_column_int64(q, 3),
            .has_hash = sqlite3_column_type(q, 4) != SQLITE_NULL,
            .hash = sqlite3_column_int64(q, 4),
            .decoder_version = sqlite3_column_int64(q, 5),
        };
        const char *f = (const char *)sqlite3_column_text(q, 6);
        size_t fl = f ? strnlen(f, sizeof r->format - 1) : 0;
        memcpy(r->format, f ? f : "", fl);
        r->format[fl] = '\0';
        const unsigned char *path = sqlite3_column_text(q, 0);
        if (!amx__byte_buf_put_text(&out->paths, path ? (const char *)path : "",
                                    &out->path_at[out->n])) {
            rc = SQLITE_NOMEM;
            break;
        }
        out->n++;
    }
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    if (rc != SQLITE_DONE) {
        dir_rows_free(out);
        s->failed = rc == SQLITE_NOMEM ? AMX_E_NOMEM : amx__db_error(s->db, "index: reading a directory", s->err, s->errlen);
        return false;
    }
    return true;
}

/* The row of `path`. The walk asks in sorted order, the rows are in path order (the same
 * byte order), so a cursor moves forward: one pass over the directory, not a search per file. */
static const amx__file_row *dir_rows_find(dir_rows *d, const char *path)
{
    while (d->next < d->n) {
        int c = strcmp((const char *)d->paths.data + d->path_at[d->next], path);
        if (c == 0)
            return &d->rows[d->next++];
        if (c > 0)
            return NULL;
        d->next++;
    }
    return NULL;
}

/* A directory that cannot be read: its rows stay (marked seen, so the sweep keeps them) and it
 * gets one IO_ERROR; the scan is incomplete (stats.dirs_unreadable). */
static void dir_unreadable(scanner *s, const char *rel, int err)
{
    if (s->failed)
        return;
    sqlite3_stmt *q = NULL;
    amx_status st = ensure_tx(s);
    if (!st && sqlite3_prepare_v2(s->db->db,
                                  "SELECT id FROM files WHERE root_id = ?1 AND parent_id IS NULL "
                                  "AND (?2 = '' OR (path > ?2 || '/' AND path < ?2 || '0'))",
                                  -1, &q, NULL) != SQLITE_OK)
        st = amx__db_error(s->db, "index: listing a directory's files", s->err, s->errlen);
    if (!st) {
        sqlite3_bind_int64(q, 1, s->root_id);
        sqlite3_bind_text(q, 2, rel, -1, SQLITE_STATIC);
        int rc;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW)
            mark_seen(s, sqlite3_column_int64(q, 0));
        if (rc != SQLITE_DONE)
            st = amx__db_error(s->db, "index: listing a directory's files", s->err, s->errlen);
    }
    sqlite3_finalize(q);
    if (st) {
        s->failed = st;
        return;
    }
    char msg[400];
    snprintf(msg, sizeof msg, "cannot read the directory: %s; the files indexed under it keep "
             "their rows from the last scan that could read it", strerror(err));
    s->stats->dirs_unreadable++;
    notice(s, *rel ? rel : ".", AMX_C_IO_ERROR, msg);
}

/* A scope whose directory part goes through a symbolic link into the root (the daemon may see
 * a change by such a path) is rewritten to the directory's own path, so a file keeps one path.
 * The longest existing part is resolved (the file or its directories may be gone). */
static void canonical_scope(const char *root, char *scope, size_t size)
{
    char *slash = strrchr(scope, '/');
    if (!slash)
        return;
    size_t dlen = (size_t)(slash - scope);
    for (size_t cut = dlen; cut > 0;) {
        char abs[2 * AMX_PATH_MAX], real[AMX_PATH_MAX];
        char part[AMX_PATH_MAX];
        snprintf(part, sizeof part, "%.*s", (int)cut, scope);
        amx_os_path_join(root, part, abs, sizeof abs);
        if (amx_os_canonical(abs, real, sizeof real) == 0) {
            const char *canon = amx_os_path_below(root, real);
            if (!canon) /* through a link out of the root: that path is the file's path */
                return;
            char out[2 * AMX_PATH_MAX];
            int n = snprintf(out, sizeof out, "%s%s%s", canon, *canon ? "/" : "",
                             scope + cut + 1);
            if (n > 0 && (size_t)n < size && (size_t)n < sizeof out)
                memcpy(scope, out, (size_t)n + 1);
            return;
        }
        while (cut > 0 && scope[cut - 1] != '/')
            cut--;
        if (cut > 0)
            cut--; /* drop the '/' */
    }
}

/* A symbolic link `rel` (at abs_dir/name, in the directory `cur` relative to the root) that
 * resolves to a directory (is_dir) or a regular file: true when the scan follows it.
 *
 * The scan reads what the user named. A link into the root: to a directory, not followed (its
 * files are indexed once, under their own path; DIRECTORY_LOOP); to a file, followed (the file
 * is indexed under the link's path too). A link out of the root (to /etc, to /proc/self): not
 * followed, a LINK_NOT_FOLLOWED info finding naming where it leads; with follow_links it is,
 * one level: from inside what a link leads to (linked), no link out of the root is followed,
 * so /proc/self/root cannot take the scan through the whole machine. */
static bool follow_link(scanner *s, const char *abs_dir, const char *name, const char *rel,
                        const char *cur, bool is_dir, bool linked)
{
    char path[AMX_PATH_MAX], real[AMX_PATH_MAX];
    int jrc = amx_os_path_join(abs_dir, name, path, sizeof path);
    int crc = jrc ? jrc : amx_os_canonical(path, real, sizeof real);
    if (crc != 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot resolve the symbolic link: %s",
                 jrc ? "path too long" : strerror(-crc));
        notice(s, rel, AMX_C_IO_ERROR, msg);
        return false;
    }
    char msg[AMX_PATH_MAX + 300];
    const char *target = amx_os_path_below(s->root, real);
    if (target) {
        if (!is_dir)
            return true;
        size_t t = strlen(target);
        bool ancestor =
            t == 0 || (strncmp(cur, target, t) == 0 && (cur[t] == '\0' || cur[t] == '/'));
        char *shown = amx_path_encode(target); /* the path as the index spells it */
        if (ancestor)
            snprintf(msg, sizeof msg, "symbolic link to %s%s%s, a directory that holds it; not "
                     "followed", t ? "'" : "the root", shown ? shown : "", t ? "'" : "");
        else
            snprintf(msg, sizeof msg, "symbolic link to '%s', a directory of the root, whose "
                     "files are indexed under their own path; not followed", shown ? shown : "");
        free(shown);
        notice(s, rel, AMX_C_DIRECTORY_LOOP, msg);
        return false;
    }
    if (s->opts->follow_links && !linked)
        return true;
    if (linked)
        snprintf(msg, sizeof msg, "symbolic link to '%s', out of what the link above it leads "
                 "to; not followed (links out of the root are followed one level)", real);
    else
        snprintf(msg, sizeof msg, "symbolic link to '%s', outside the scanned directory; not "
                 "followed (--follow-links, or [scan] follow_links = true, follows it)", real);
    record(s, rel, AMX_C_LINK_NOT_FOLLOWED, msg, false);
    return false;
}

/* Walks one directory (depth-first, entries sorted so scans are reproducible). rel is "" for
 * the root. The listing gives each entry's status (amx_os_dir: on POSIX stat'ed relative to the
 * open directory, on Windows read with the directory's entries). */
/* rel is the directory's path as stored (amx_path_encode), raw as the file system spells it;
 * linked: the directory was reached through a symbolic link out of the root (follow_link). */
static void walk(scanner *s, const char *abs, const char *rel, const char *raw, int depth,
                 bool linked)
{
    if (stop_requested(s))
        return;
    if (depth > 256) {
        notice(s, rel, AMX_C_DIRECTORY_LOOP, "directory nesting deeper than 256 levels; not followed");
        return;
    }
    amx_os_dir *d;
    int rc = amx_os_dir_open(abs, &d);
    if (rc < 0) { /* unreadable, or its entries cannot be looked at */
        if (rc == -ENOENT || rc == -ENOTDIR)
            notice(s, *rel ? rel : ".", AMX_C_FILE_VANISHED,
                   "the directory disappeared during the scan");
        else
            dir_unreadable(s, rel, -rc);
        return;
    }
    /* The entry names go into one pool (offsets while it grows, pointers once it is done):
     * each as the file system spells it and, when that is not text, as the index stores it
     * (amx_path_encode). They are walked in the order of the stored names, the order of the
     * index's rows for the directory (dir_rows_find's cursor). */
    amx__byte_buf pool = { 0 };
    size_t *offs = NULL; /* pairs: raw, stored */
    entry_name *names = NULL;
    size_t n = 0, cap = 0;
    amx_os_entry e;
    int lerr;
    while (amx_os_dir_next(d, &e, &lerr)) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            size_t *grown = realloc(offs, 2 * cap * sizeof *grown);
            if (grown)
                offs = grown;
            entry_name *more = grown ? realloc(names, cap * sizeof *more) : NULL;
            if (!more)
                break;
            names = more;
        }
        size_t at, sat;
        if (!amx__byte_buf_put_text(&pool, e.name, &at))
            break;
        sat = at;
        if (amx_path_needs_encoding(e.name)) {
            char *enc = amx_path_encode(e.name);
            bool ok = enc && amx__byte_buf_put_text(&pool, enc, &sat);
            free(enc);
            if (!ok)
                break;
        }
        offs[2 * n] = at;
        offs[2 * n + 1] = sat;
        names[n].st = e.st;
        names[n].err = e.err;
        n++;
    }
    amx_os_dir_close(d);
    for (size_t i = 0; i < n; i++) {
        names[i].raw = (const char *)pool.data + offs[2 * i];
        names[i].stored = (const char *)pool.data + offs[2 * i + 1];
    }
    free(offs);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    char r[AMX_PATH_MAX], rr[AMX_PATH_MAX];
    size_t prefix = strlen(rel); /* r is "rel/" + the stored name, rr "raw/" + the name */
    memcpy(r, rel, prefix);
    if (prefix)
        r[prefix++] = '/';
    size_t rprefix = strlen(raw);
    memcpy(rr, raw, rprefix);
    if (rprefix)
        rr[rprefix++] = '/';
    dir_rows known;
    dir_rows_load(s, rel, &known); /* on failure s->failed says why, and the loop stops */
    for (size_t i = 0; i < n && !s->failed; i++) {
        const char *name = names[i].raw;
        const amx_os_stat *st = &names[i].st;
        size_t nl = strlen(name), sl = strlen(names[i].stored);
        if (prefix + sl >= sizeof r || rprefix + nl >= sizeof rr) {
            notice(s, rel, AMX_C_IO_ERROR, "a path in this directory is longer than AMX_PATH_MAX; skipped");
            continue;
        }
        memcpy(r + prefix, names[i].stored, sl + 1);
        memcpy(rr + rprefix, name, nl + 1);
        if (s->opts->config && amx_config_ignored(s->opts->config, rr))
            continue;
        if (names[i].err) {
            if (st->link)
                notice(s, r, AMX_C_IO_ERROR, "broken symbolic link");
            else if (names[i].err != -ENOENT) {
                char msg[300];
                snprintf(msg, sizeof msg, "cannot stat: %s", strerror(-names[i].err));
                notice(s, r, AMX_C_IO_ERROR, msg);
            }
            continue;
        }
        bool link = st->link;
        if (st->kind == AMX_OS_DIR) {
            if (s->opts->shallow || (link && !follow_link(s, abs, name, r, raw, true, linked)))
                continue;
            if (dir_visited(s, st)) {
                if (link)
                    notice(s, r, AMX_C_DIRECTORY_LOOP,
                           "symbolic link to a directory that is already scanned; not followed");
            } else {
                size_t alen = strlen(abs) + strlen(name) + 2;
                char *a = malloc(alen);
                if (!a) {
                    s->failed = AMX_E_NOMEM;
                    break;
                }
                amx_os_path_join(abs, name, a, alen);
                walk(s, a, r, rr, depth + 1, linked || link);
                free(a);
            }
        } else if (st->kind == AMX_OS_FILE) {
            if (!link || follow_link(s, abs, name, r, raw, false, linked))
                consider_file(s, abs, name, r, st, dir_rows_find(&known, r));
        }
    }
    dir_rows_free(&known);
    free(names);
    amx__byte_buf_free(&pool);
}

/* Walks the scope: the whole root, one subtree, or one file. A scope that no longer exists
 * is walked as empty, so the sweep removes its rows. */
static void walk_scope(scanner *s, const char *root)
{
    amx_os_stat rst;
    if (amx_os_path_stat(root, &rst) == 0)
        dir_visited(s, &rst); /* a link back to the root is a loop */
    if (!s->scope || !s->scope_raw) {
        walk(s, root, "", "", 0, false);
        return;
    }
    const char *raw = s->scope_raw; /* the file system's spelling; s->scope is the stored one */
    char abs[AMX_PATH_MAX];
    if (amx_os_path_join(root, raw, abs, sizeof abs) != 0) {
        notice(s, s->scope, AMX_C_IO_ERROR, "path longer than AMX_PATH_MAX; not scanned");
        return;
    }
    /* The scope's own components are links the walk would have met: the first one decides,
     * as it would in the walk (a scope inside a link out of the root is not read unless
     * links are followed). */
    bool linked = false;
    size_t len = strlen(raw), n = strlen(abs), rootlen = n - len; /* abs is root/raw */
    for (size_t end = 1; end <= len && !linked; end++) {
        if (raw[end] != '/' && raw[end] != '\0')
            continue;
        char part[AMX_PATH_MAX], dir[AMX_PATH_MAX], parent[AMX_PATH_MAX], name[AMX_PATH_MAX];
        amx_os_stat lst, tst;
        memcpy(part, abs, n - (len - end)); /* abs is root/raw: its prefix */
        part[n - (len - end)] = '\0';
        if (amx_os_path_lstat(part, &lst) != 0 || !lst.link)
            continue;
        if (amx_os_path_stat(part, &tst) != 0 || (tst.kind != AMX_OS_DIR && tst.kind != AMX_OS_FILE))
            break; /* broken, or nothing to index: the scope is walked as empty below */
        size_t nstart = end;
        while (nstart > 0 && raw[nstart - 1] != '/')
            nstart--;
        size_t dlen = nstart ? nstart - 1 : 0;
        memcpy(dir, raw, dlen);
        dir[dlen] = '\0';
        memcpy(name, raw + nstart, end - nstart);
        name[end - nstart] = '\0';
        if (amx_os_path_join(root, dir, parent, sizeof parent) != 0)
            return;
        char *stored = amx_path_encode(part + rootlen);
        bool follow = stored && follow_link(s, parent, name, stored, dir,
                                            tst.kind == AMX_OS_DIR, false);
        free(stored);
        if (!follow)
            return;
        char real[AMX_PATH_MAX];
        linked = amx_os_canonical(part, real, sizeof real) == 0 && !amx_os_path_below(s->root, real);
    }
    amx_os_stat st;
    if (amx_os_path_stat(abs, &st) != 0)
        return;
    if (st.kind == AMX_OS_DIR) {
        dir_visited(s, &st);
        walk(s, abs, s->scope, raw, 1, linked);
    } else if (st.kind == AMX_OS_FILE) {
        const char *slash = strrchr(abs, '/');
        char dir[AMX_PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - abs) + (slash == abs), abs); /* "/" */
        amx__file_row old;
        amx_status rc = ensure_tx(s);
        if (!rc)
            rc = amx__db_lookup(s->db, s->root_id, s->scope, &old, s->err, s->errlen);
        if (rc) {
            s->failed = rc;
            return;
        }
        consider_file(s, dir, slash + 1, s->scope, &st, old.id ? &old : NULL);
    }
}

static amx_status sweep(scanner *s)
{
    sqlite3_stmt *q = NULL;
    amx_status st = ensure_tx(s);
    if (st)
        return st;
    /* A scoped scan lists only the rows inside its scope (a range of the path index), so a
     * one-file rescan costs the same whatever the size of the index. */
    char dir[AMX_PATH_MAX];
    const char *sql = s->scope
                          ? "SELECT id, path FROM files WHERE root_id = ?1 AND parent_id IS NULL "
                            "AND id <= ?2 AND (path = ?3 OR (path > ?3 || '/' AND path < ?3 || "
                            "'0'))"
                          : "SELECT id, path FROM files WHERE root_id = ?1 AND parent_id IS NULL "
                            "AND id <= ?2";
    if (s->opts->shallow) {
        /* the files directly in the directory: their dir_path is "scope/" ("" at the root);
         * a file scope is its own row, as above */
        snprintf(dir, sizeof dir, "%s%s", s->scope ? s->scope : "", s->scope ? "/" : "");
        sql = "SELECT id, path FROM files INDEXED BY files_dir WHERE root_id = ?1 AND "
              "dir_path = ?3 AND parent_id IS NULL AND id <= ?2 UNION "
              "SELECT id, path FROM files WHERE root_id = ?1 AND parent_id IS NULL AND "
              "id <= ?2 AND path = ?4";
    }
    if (!s->scope && !s->opts->shallow) {
        /* a whole root: when every row it had was seen, nothing went (one count on the
         * covering index instead of a step per row) */
        if (sqlite3_prepare_v2(s->db->db, "SELECT count(*) FROM files INDEXED BY files_dir "
                               "WHERE root_id = ?1 AND parent_id IS NULL AND id <= ?2", -1, &q,
                               NULL) != SQLITE_OK)
            return amx__db_error(s->db, "index: listing files", s->err, s->errlen);
        sqlite3_bind_int64(q, 1, s->root_id);
        sqlite3_bind_int64(q, 2, s->seen_max);
        int rc = sqlite3_step(q);
        int64_t rows = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
        sqlite3_finalize(q);
        q = NULL;
        if (rc != SQLITE_ROW)
            return amx__db_error(s->db, "index: listing files", s->err, s->errlen);
        if (rows == s->seen_count)
            return AMX_OK;
    }
    if (sqlite3_prepare_v2(s->db->db, sql, -1, &q, NULL) != SQLITE_OK)
        return amx__db_error(s->db, "index: listing files", s->err, s->errlen);
    sqlite3_bind_int64(q, 1, s->root_id);
    sqlite3_bind_int64(q, 2, s->seen_max);
    if (s->opts->shallow) {
        sqlite3_bind_text(q, 3, dir, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, s->scope ? s->scope : "", -1, SQLITE_STATIC);
    } else if (s->scope) {
        sqlite3_bind_text(q, 3, s->scope, -1, SQLITE_STATIC);
    }
    int64_t *gone = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        if (was_seen(s, id))
            continue;
        const char *path = (const char *)sqlite3_column_text(q, 1);
        if (path) /* for the files whose #include lines read it */
            note_changed_name(s, path);
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            int64_t *g = realloc(gone, cap * sizeof *g);
            if (!g) {
                rc = SQLITE_NOMEM;
                break;
            }
            gone = g;
        }
        gone[n++] = id;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) {
        free(gone);
        return amx__db_error(s->db, "index: listing files", s->err, s->errlen);
    }
    sqlite3_stmt *rec = NULL;
    if (n && sqlite3_prepare_v2(s->db->db,
                                "INSERT INTO scan_changes(root_id, at, path, change, format) "
                                "SELECT root_id, ?2, path, 'removed', format FROM files WHERE "
                                "id = ?1 AND status <> 'ignored'",
                                -1, &rec, NULL) != SQLITE_OK)
        st = amx__db_error(s->db, "index: recording a change", s->err, s->errlen);
    for (size_t i = 0; i < n && !st; i++) {
        sqlite3_bind_int64(rec, 1, gone[i]);
        sqlite3_bind_int64(rec, 2, (int64_t)time(NULL));
        if (amx__db_run(rec) != SQLITE_OK)
            st = amx__db_error(s->db, "index: recording a change", s->err, s->errlen);
        if (!st)
            st = amx__db_remove(s->db, gone[i], s->err, s->errlen);
    }
    sqlite3_finalize(rec);
    s->stats->files_removed += n;
    free(gone);
    return st;
}

/* Paths, each once, in the order added. */
typedef struct path_set {
    amx__str_table seen;
    char **v;
    size_t n, cap;
} path_set;

static bool path_set_add(path_set *p, const char *path)
{
    bool added;
    size_t slot = amx__str_table_add(&p->seen, path, strlen(path), NULL, &added);
    if (slot == SIZE_MAX)
        return false;
    if (!added)
        return true;
    if (!amx__grow((void **)&p->v, &p->cap, p->n, sizeof *p->v))
        return false;
    p->v[p->n++] = p->seen.e[slot].key; /* owned by the table */
    return true;
}

static void path_set_free(path_set *p)
{
    amx__str_table_free(&p->seen);
    free(p->v);
}

/* Decodes again the INI files of the root whose #include lines read a file that changed: those
 * of the index this scan did not decode, with an #include of a file whose name is that of a file
 * it added, changed or removed (their decoder read the file in place, so what they hold changed
 * with it, their own bytes unchanged), and those it decoded whose #include file is no longer
 * what they read (a save while the scan ran: its size or time differ). A name compares without
 * its directory (the file an #include reads is found without case, and from the directory of
 * the file it is in): a file of the same name elsewhere only costs a decode. Runs on this
 * thread after the link pass (every INI file's references are rows then), one file at a time;
 * `redecoded` counts them (their references wait for a second link pass). */
static amx_status decode_includers(scanner *s, size_t *redecoded)
{
    *redecoded = 0;
    if (!s->changed_names.n)
        return AMX_OK;
    amx_status st = ensure_tx(s);
    if (st)
        return st;
    /* the files to decode again, each once */
    path_set todo = { 0 };
    /* the files of the index not decoded by this scan: their #include references */
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db->db,
                           "SELECT f.path, r.name FROM refs r INDEXED BY refs_include JOIN "
                           "files f ON f.id = r.file_id WHERE r.kind = 'include' AND "
                           "f.root_id = ?1 AND f.parent_id IS NULL",
                           -1, &q, NULL) != SQLITE_OK)
        return amx__db_error(s->db, "index: listing #include lines", s->err, s->errlen);
    sqlite3_bind_int64(q, 1, s->root_id);
    int rc = SQLITE_DONE;
    while (!st && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(q, 0);
        const char *inc = (const char *)sqlite3_column_text(q, 1);
        if (!path || !inc)
            continue;
        const char *name = file_name_of(inc);
        if (amx__str_table_find(&s->changed_names, name, strlen(name)) != SIZE_MAX &&
            amx__str_table_find(&s->decoded_ini, path, strlen(path)) == SIZE_MAX &&
            !path_set_add(&todo, path))
            st = AMX_E_NOMEM;
    }
    sqlite3_finalize(q);
    if (!st && rc != SQLITE_DONE)
        st = amx__db_error(s->db, "index: listing #include lines", s->err, s->errlen);
    /* the files this scan decoded: when a file they read has changed since (a save while the
     * scan ran) */
    for (size_t i = 0; i < s->n_dec_inc && !st; i++) {
        const struct decoded_include *d = &s->dec_inc[i];
        char abs[AMX_PATH_MAX];
        amx_os_stat now;
        bool same = amx_os_path_join(s->root, d->seen.path, abs, sizeof abs) == 0 &&
                    amx_os_path_stat(abs, &now) == 0 && now.size == d->seen.size &&
                    now.mtime_ns == d->seen.mtime_ns;
        if (!same && !path_set_add(&todo, d->path))
            st = AMX_E_NOMEM;
    }
    char **paths = todo.v;
    size_t n = todo.n;
    for (size_t i = 0; i < n && !st && !stop_requested(s); i++) {
        amx__file_row old;
        if ((st = amx__db_lookup(s->db, s->root_id, paths[i], &old, s->err, s->errlen)))
            break;
        char *raw = amx_path_decode(paths[i]);
        job *j = raw ? job_new(s, s->root, raw, paths[i], &old) : NULL;
        free(raw);
        if (!j) {
            st = AMX_E_NOMEM;
            break;
        }
        j->force = true;
        process_job(&s->q, j); /* one result at most, written below */
        ++*redecoded;
        pthread_mutex_lock(&s->q.mu);
        bool none = !s->q.res_head;
        pthread_mutex_unlock(&s->q.mu);
        if (none)
            job_free(j);
        else
            drain_one(s, false);
        st = s->failed == AMX_E_CANCELLED ? AMX_OK : s->failed;
    }
    path_set_free(&todo);
    return st;
}

static int cpu_count(void)
{
    return amx_os_cpu_count();
}

/* Scans one root (no layers): the walk, the decode, the writes, the sweep and the link pass. */
static amx_status scan_root(amx_db *db, const amx_scan_opts *opts, amx_scan_stats *stats,
                            char *err, size_t errlen)
{
    amx_scan_stats local = { 0 };
    if (!stats)
        stats = &local;
    *stats = (amx_scan_stats){ 0 };
    if (!db || !opts || !opts->root || db->readonly) {
        snprintf(err, errlen, "scan: needs a writable index and a root");
        return AMX_E_INVALID_ARG;
    }
    int64_t t0 = now_ns();
    char root[AMX_PATH_MAX];
    amx_os_stat rst;
    int orc = amx_os_canonical(opts->root, root, sizeof root);
    if (orc == 0)
        orc = amx_os_path_stat(root, &rst);
    if (orc != 0) {
        snprintf(err, errlen, "%s: %s", opts->root, strerror(-orc));
        return AMX_E_IO;
    }
    if (rst.kind != AMX_OS_DIR) {
        snprintf(err, errlen, "%s: not a directory; give the directory to scan (e.g. the game's Data)",
                 opts->root);
        return AMX_E_IO;
    }
    scanner s = { .db = db, .opts = opts, .stats = stats, .root = root, .err = err,
                  .errlen = errlen, .changed_names.fold = true };
    char scope[AMX_PATH_MAX], scope_stored[3 * AMX_PATH_MAX];
    if (opts->scope && opts->scope[0]) {
        /* "./a//b/" -> "a/b"; ".." is refused: a scope stays inside its root. */
        size_t k = 0;
        for (const char *p = opts->scope; *p;) {
            size_t len = strcspn(p, "/");
            if (len == 2 && p[0] == '.' && p[1] == '.') {
                snprintf(err, errlen, "scan: scope '%s' leaves the root", opts->scope);
                return AMX_E_INVALID_ARG;
            }
            if (len && !(len == 1 && p[0] == '.')) {
                if (k + len + 2 >= sizeof scope) {
                    snprintf(err, errlen, "scan: scope '%s' is too long", opts->scope);
                    return AMX_E_INVALID_ARG;
                }
                if (k)
                    scope[k++] = '/';
                memcpy(scope + k, p, len);
                k += len;
            }
            p += len;
            p += strspn(p, "/");
        }
        scope[k] = '\0';
        canonical_scope(root, scope, sizeof scope);
        if (scope[0]) { /* the stored spelling, for the index (amx_path_encode) */
            char *enc = amx_path_encode(scope);
            if (!enc)
                return AMX_E_NOMEM;
            snprintf(scope_stored, sizeof scope_stored, "%s", enc);
            free(enc);
            s.scope_raw = scope;
            s.scope = scope_stored;
        }
    }
    amx_os_stat dbst;
    const char *dbpath = sqlite3_db_filename(db->db, "main");
    if (dbpath && amx_os_path_stat(dbpath, &dbst) == 0) {
        s.db_dev = dbst.dev;
        s.db_ino[0] = dbst.ino;
        char side[AMX_PATH_MAX];
        snprintf(side, sizeof side, "%s-wal", dbpath);
        if (amx_os_path_stat(side, &dbst) == 0)
            s.db_ino[1] = dbst.ino;
        snprintf(side, sizeof side, "%s-shm", dbpath);
        if (amx_os_path_stat(side, &dbst) == 0)
            s.db_ino[2] = dbst.ino;
    }
    amx_status st = amx__db_begin(db, err, errlen);
    if (!st)
        st = amx__db_root_id(db, root, opts->as_base ? "base" : "target", &s.root_id, err, errlen);
    if (!st && !opts->as_base) /* a base layer scanned for itself becomes a target */
        st = amx__db_set_role(db, s.root_id, "target", err, errlen);
    amx_alamo_game alamo;
    const char *game = amx_config_game(opts->config, root);
    if (!st) /* the table of animation types the root's clips are named by; the SAGE game */
        st = amx__db_set_game(db, s.root_id,
                              amx_alamo_game_parse(game, &alamo)
                                  ? (alamo == AMX_ALAMO_EAW ? "eaw" : "foc")
                              : game && (strcmp(game, "generals") == 0 || strcmp(game, "zh") == 0)
                                  ? game
                                  : NULL,
                              err, errlen);
    sqlite3_stmt *q = NULL;
    if (!st && sqlite3_prepare_v2(db->db, "SELECT coalesce(max(id), 0) FROM files", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        s.seen_max = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    if (!st)
        st = amx__db_commit(db, err, errlen);
    if (st) {
        amx__db_rollback(db);
        return st;
    }
    s.q.game = amx_config_game(opts->config, root);
    s.q.root = root;
    s.q.include_allowance = INCLUDE_SCAN_FLOOR;
    s.q.cancelled = opts->cancelled;
    s.q.cancel_user = opts->user;
    s.q.max_bytes_held = (uint64_t)(opts->config ? opts->config->memory_mb : 1024) << 20;
    s.q.unpack_floor = opts->unpack_floor ? opts->unpack_floor : AMX_UNPACK_SCAN_FLOOR;
    s.q.unpack_budget = s.q.unpack_floor;
    s.seen = calloc((size_t)(s.seen_max >> 3) + 1, 1);
    int jobs = opts->jobs > 0 ? opts->jobs : cpu_count();
    /* 16 queued paths per worker: a job is a path and its stat (the worker reads the file), and
     * a deeper queue lets the workers go on while this thread writes a run of results (4 per
     * worker: 2.5% slower on bench/real_shape_bench.sh's tree, the workers waiting for paths) */
    s.q.job_cap = (size_t)jobs * 16;
    s.q.res_cap = (size_t)jobs * 8;
    s.q.jobs = calloc(s.q.job_cap, sizeof *s.q.jobs);
    s.threads = calloc((size_t)jobs, sizeof *s.threads);
    if (!s.seen || !s.q.jobs || !s.threads) {
        free(s.seen);
        free(s.q.jobs);
        free(s.threads);
        return AMX_E_NOMEM;
    }
    pthread_mutex_init(&s.q.mu, NULL);
    pthread_cond_init(&s.q.job_cv, NULL);
    pthread_cond_init(&s.q.result_cv, NULL);
    pthread_cond_init(&s.q.space_cv, NULL);
    pthread_cond_init(&s.q.bytes_cv, NULL);
    for (int i = 0; i < jobs; i++) {
        if (pthread_create(&s.threads[i], NULL, worker_main, &s.q) != 0)
            break;
        s.nthreads++;
    }
    if (s.nthreads == 0) {
        snprintf(err, errlen, "scan: cannot start worker threads");
        s.failed = AMX_E_NOMEM;
    }

    if (!s.failed)
        walk_scope(&s, root);

    /* Let the workers finish, writing what they produce. */
    pthread_mutex_lock(&s.q.mu);
    s.q.closing = true;
    pthread_cond_broadcast(&s.q.job_cv);
    pthread_mutex_unlock(&s.q.mu);
    while (drain_one(&s, true))
        ;
    for (int i = 0; i < s.nthreads; i++)
        pthread_join(s.threads[i], NULL);
    while (drain_one(&s, false))
        ;
    /* a stop after the walk may have ended decodes (nothing written for them): no sweep */
    stop_requested(&s);
    st = s.failed;
    if (st == AMX_E_CANCELLED) {
        /* Keep what was written, sweep nothing: the next scan completes the index. */
        amx_status cst = maybe_commit(&s, true);
        if (!cst)
            cst = amx__link(db, jobs, &stats->clips_linked, err, errlen);
        if (cst)
            st = cst;
        else
            snprintf(err, errlen, "scan of %s cancelled", root);
    }
    if (!st)
        st = maybe_commit(&s, true);
    /* Only a complete walk may remove rows: a failed scan leaves them for the next one. */
    if (!st)
        st = sweep(&s);
    if (!st)
        st = amx__db_commit(db, err, errlen);
    if (!st)
        st = amx__link(db, jobs, &stats->clips_linked, err, errlen);
    /* after the link pass, which has put every INI file's references in refs (a blob left by
     * an interrupted scan too): the INI files whose #include files changed, then their links */
    size_t redecoded = 0;
    if (!st)
        st = decode_includers(&s, &redecoded);
    if (!st && db->in_tx) /* its writes (a last batch may be open) */
        st = amx__db_commit(db, err, errlen);
    if (!st && redecoded) {
        uint64_t more = 0;
        st = amx__link(db, jobs, &more, err, errlen);
        stats->clips_linked += more;
    }
    /* The scans table records whole-root scans (the report's "scanned at"); the daemon's scoped
     * rescans would grow it without bound. */
    if (!st && !s.scope && !opts->shallow) {
        sqlite3_stmt *ins = NULL;
        if (sqlite3_prepare_v2(db->db,
                               "INSERT INTO scans(root_id, started_at, finished_at, files_seen, "
                               "files_decoded, files_removed) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                               -1, &ins, NULL) == SQLITE_OK) {
            time_t now = time(NULL);
            sqlite3_bind_int64(ins, 1, s.root_id);
            sqlite3_bind_int64(ins, 2, (int64_t)now - (now_ns() - t0) / 1000000000LL);
            sqlite3_bind_int64(ins, 3, (int64_t)now);
            sqlite3_bind_int64(ins, 4, (int64_t)stats->files_seen);
            sqlite3_bind_int64(ins, 5, (int64_t)stats->files_decoded);
            sqlite3_bind_int64(ins, 6, (int64_t)stats->files_removed);
            if (sqlite3_step(ins) == SQLITE_DONE) {
                /* the changes this scan recorded are its own; those of all but the last
                 * CHANGES_KEPT scans of the root go */
                char sql[400];
                snprintf(sql, sizeof sql,
                         "UPDATE scan_changes SET scan_id = %lld WHERE root_id = %lld AND "
                         "scan_id IS NULL; DELETE FROM scan_changes WHERE root_id = %lld AND "
                         "scan_id < (SELECT min(id) FROM (SELECT id FROM scans WHERE root_id = "
                         "%lld ORDER BY id DESC LIMIT %d))",
                         (long long)sqlite3_last_insert_rowid(db->db), (long long)s.root_id,
                         (long long)s.root_id, (long long)s.root_id, CHANGES_KEPT);
                sqlite3_exec(db->db, sql, NULL, NULL, NULL);
            }
        }
        sqlite3_finalize(ins);
    }
    if (st)
        amx__db_rollback(db);
    report_progress(&s, NULL, true);
    sqlite3_finalize(s.change_ins);
    pthread_mutex_destroy(&s.q.mu);
    pthread_cond_destroy(&s.q.job_cv);
    pthread_cond_destroy(&s.q.result_cv);
    pthread_cond_destroy(&s.q.space_cv);
    pthread_cond_destroy(&s.q.bytes_cv);
    free(s.q.jobs);
    free(s.threads);
    free(s.seen);
    free(s.dirs);
    amx__str_table_free(&s.changed_names);
    for (size_t i = 0; i < s.n_dec_inc; i++) {
        free(s.dec_inc[i].path);
        free(s.dec_inc[i].seen.path);
    }
    free(s.dec_inc);
    amx__str_table_free(&s.decoded_ini);
    stats->seconds = (double)(now_ns() - t0) / 1e9;
    return st;
}

void amx_scan_stats_add(amx_scan_stats *sum, const amx_scan_stats *s)
{
    sum->files_seen += s->files_seen;
    sum->files_unchanged += s->files_unchanged;
    sum->files_rehashed += s->files_rehashed;
    sum->files_decoded += s->files_decoded;
    sum->files_removed += s->files_removed;
    sum->files_failed += s->files_failed;
    sum->bytes_read += s->bytes_read;
    sum->clips_linked += s->clips_linked;
    sum->seconds += s->seconds;
    sum->dirs_unreadable += s->dirs_unreadable;
    sum->archives_incomplete += s->archives_incomplete;
}

#define MAX_LAYER_DEPTH 4   /* a mod on a mod on a game on a game */
#define MAX_BASES 16

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
}

/* The base layers of `root` (absolute): declared by the options, else by the config, else as
 * the index recorded them. Fills paths (malloc'd, absolute) and *declared. */
static amx_status root_bases(amx_db *db, const amx_scan_opts *opts, const char *root,
                             char **paths, size_t *n, bool *declared, char *err, size_t errlen)
{
    *n = 0;
    *declared = true;
    const char *const *given = NULL;
    size_t ngiven = 0;
    const amx_root_bases *cb = NULL;
    if (opts->set_bases) {
        given = opts->bases;
        ngiven = opts->base_count;
    } else if ((cb = amx_config_bases(opts->config, root))) {
        given = (const char *const *)cb->bases;
        ngiven = cb->count;
    } else {
        *declared = false;
        sqlite3_stmt *s = NULL;
        int rc = sqlite3_prepare_v2(db->db, "SELECT b.path FROM roots r JOIN root_layers l ON "
                                    "l.root_id = r.id JOIN roots b ON b.id = l.base_id "
                                    "WHERE r.path = ?1 ORDER BY l.rank", -1, &s, NULL);
        if (rc == SQLITE_OK)
            sqlite3_bind_text(s, 1, root, -1, SQLITE_STATIC);
        while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW && *n < MAX_BASES) {
            if ((paths[*n] = strdup((const char *)sqlite3_column_text(s, 0))))
                (*n)++;
            rc = SQLITE_OK;
        }
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE && rc != SQLITE_OK && rc != SQLITE_ROW)
            return amx__db_error(db, "index: reading a root's layers", err, errlen);
        return AMX_OK;
    }
    if (amx_config_check_bases(opts->config, root, opts->bases, opts->base_count,
                               opts->set_bases, err, errlen) != 0)
        return AMX_E_INVALID_ARG;
    if (ngiven > MAX_BASES) {
        snprintf(err, errlen, "%s: %zu base layers declared, at most %d are followed", root,
                 ngiven, MAX_BASES);
        return AMX_E_INVALID_ARG;
    }
    for (size_t i = 0; i < ngiven; i++) {
        char real[AMX_PATH_MAX];
        amx_os_stat st;
        int orc = amx_os_canonical(given[i], real, sizeof real);
        if (orc == 0)
            orc = amx_os_path_stat(real, &st);
        if (orc != 0) {
            snprintf(err, errlen, "base layer %s: %s", given[i], strerror(-orc));
            free_list(paths, *n);
            *n = 0;
            return AMX_E_IO;
        }
        if (st.kind != AMX_OS_DIR) {
            snprintf(err, errlen, "base layer %s: not a directory (give the game's or the "
                     "parent mod's directory)", given[i]);
            free_list(paths, *n);
            *n = 0;
            return AMX_E_IO;
        }
        bool dup = false;
        for (size_t k = 0; k < *n && !dup; k++)
            dup = strcmp(paths[k], real) == 0;
        if (!dup && !(paths[(*n)++] = strdup(real))) {
            free_list(paths, --(*n));
            *n = 0;
            return AMX_E_NOMEM;
        }
    }
    return AMX_OK;
}

/* Records the layers of `root`: its id, role and base ids. */
static amx_status record_layers(amx_db *db, const char *root, bool as_base, char **bases,
                                size_t n, char *err, size_t errlen)
{
    int64_t root_id, ids[MAX_BASES];
    amx_status st = amx__db_begin(db, err, errlen);
    if (!st)
        st = amx__db_root_id(db, root, as_base ? "base" : "target", &root_id, err, errlen);
    for (size_t i = 0; !st && i < n; i++)
        st = amx__db_root_id(db, bases[i], "base", &ids[i], err, errlen);
    if (!st)
        st = amx__db_set_layers(db, root_id, ids, n, err, errlen);
    if (!st)
        st = amx__db_commit(db, err, errlen);
    else
        amx__db_rollback(db);
    return st;
}

static amx_status scan_layers(amx_db *db, const amx_scan_opts *opts, amx_scan_stats *stats,
                              int depth, char *err, size_t errlen)
{
    if ((opts->scope && opts->scope[0]) || opts->shallow)
        return scan_root(db, opts, stats, err, errlen);
    char root[AMX_PATH_MAX];
    if (amx_os_canonical(opts->root, root, sizeof root) != 0)
        return scan_root(db, opts, stats, err, errlen); /* reports the error */
    char *bases[MAX_BASES];
    size_t n = 0;
    bool declared;
    amx_status st = root_bases(db, opts, root, bases, &n, &declared, err, errlen);
    if (st)
        return st;
    for (size_t i = 0; !st && i < n && depth < MAX_LAYER_DEPTH; i++) {
        amx_scan_opts sub = *opts;
        sub.root = bases[i];
        sub.bases = NULL;
        sub.base_count = 0;
        sub.set_bases = false;
        sub.as_base = true;
        amx_scan_stats bs = { 0 };
        st = scan_layers(db, &sub, &bs, depth + 1, err, errlen);
        amx_scan_stats_add(stats, &bs);
    }
    if (!st && declared)
        st = record_layers(db, root, opts->as_base, bases, n, err, errlen);
    free_list(bases, n);
    if (st)
        return st;
    amx_scan_stats rs = { 0 };
    st = scan_root(db, opts, &rs, err, errlen);
    amx_scan_stats_add(stats, &rs);
    return st;
}

amx_status amx_scan(amx_db *db, const amx_scan_opts *opts, amx_scan_stats *stats, char *err,
                    size_t errlen)
{
    amx_scan_stats local = { 0 };
    if (!stats)
        stats = &local;
    *stats = (amx_scan_stats){ 0 };
    if (!db || !opts || !opts->root || db->readonly) {
        snprintf(err, errlen, "scan: needs a writable index and a root");
        return AMX_E_INVALID_ARG;
    }
    return scan_layers(db, opts, stats, 0, err, errlen);
}
