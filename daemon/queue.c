/*
 * animidxd's change queue: what the watcher reported, waiting to be scanned.
 *
 * A change is a path (relative to one root; "" = the whole root) in a hash table. It moves
 * through four lists:
 *
 *   pending   touched less than settle_ms ago (ordered by last event: the head settles first)
 *   held      settled but still open for writing: waits for IN_CLOSE_WRITE, at most 2 s
 *   ready     settled: goes into the next batch
 *   inflight  in the running batch; an event meanwhile sends it back to pending afterwards
 *
 * Every event gets a sequence number (d->seq), which a sync waits for (requests.c). More than
 * MAX_QUEUED paths collapse into rescans of every root.
 *
 * Here: the watcher's entry points (amxd_touch, amxd_overflow, amxd_lost_watch, amxd_root_gone),
 * the lists and the settle timer. It calls amxd__kick (batch.c) when paths become ready, and
 * health.c for a lost watch or a root that is gone.
 */
#include "core_internal.h"

#include "animidx/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HOLD_OPEN_NS (2000ULL * 1000000ULL) /* longest wait for a file open for writing */
#define MAX_QUEUED 100000                   /* queued paths before they become root rescans */

static void settle_cb(uv_timer_t *t);

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

void amxd__set_state(amxd *d, entry *e, int state)
{
    if (e->state != ENTRY_NONE)
        list_remove(&d->lists[e->state], e);
    e->state = state;
    if (state != ENTRY_NONE)
        list_append(&d->lists[state], e);
}

/* The paths are the watched tree's file names, which a downloaded mod chooses: seeded
 * (animidx/hash.h), so names cannot be crafted to share a bucket. */
static uint64_t hash_path(unsigned root, const char *rel)
{
    return amx_hash(rel, strlen(rel)) ^ ((uint64_t)root * 0x9E3779B97F4A7C15ull);
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

void amxd__delete_entry(amxd *d, entry *e)
{
    amxd__set_state(d, e, ENTRY_NONE);
    entry **p = &d->buckets[e->hash & (d->nbuckets - 1)];
    while (*p != e)
        p = &(*p)->hnext;
    *p = e->hnext;
    d->count--;
    free(e);
}

/* Back to pending, in order of its last event (which came in while it was being scanned). */
void amxd__requeue_pending(amxd *d, entry *e)
{
    amxd__set_state(d, e, ENTRY_NONE);
    elist *l = &d->lists[ENTRY_PENDING];
    entry *at = l->tail;
    while (at && at->last_ns > e->last_ns)
        at = at->prev;
    e->state = ENTRY_PENDING;
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

size_t amxd__drop_waiting(amxd *d, uint64_t *min_seq)
{
    size_t dropped = 0;
    for (int s = ENTRY_PENDING; s <= ENTRY_READY; s++)
        while (d->lists[s].head) {
            entry *e = d->lists[s].head;
            if (e->seq < *min_seq)
                *min_seq = e->seq;
            amxd__delete_entry(d, e);
            dropped++;
        }
    return dropped;
}

/* The earliest settle or hold deadline, or 0 when nothing waits. */
void amxd__arm_settle(amxd *d)
{
    uint64_t settle = (uint64_t)d->cfg->settle_ms * 1000000ULL, due = 0;
    if (d->lists[ENTRY_PENDING].head)
        due = d->lists[ENTRY_PENDING].head->last_ns + settle;
    if (d->lists[ENTRY_HELD].head) {
        uint64_t h = d->lists[ENTRY_HELD].head->last_ns + HOLD_OPEN_NS;
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
    size_t dropped = amxd__drop_waiting(d, &min_seq);
    d->full_rescans++;
    amxd_log(AMX_LOG_WARNING, "more than %d changes queued: rescanning every root instead of "
                              "%zu single paths", MAX_QUEUED, dropped);
    amxd__queue_roots(d, min_seq);
}

/* Queues a path. seq 0 gives it the next sequence number; a rescan that stands for older
 * changes keeps theirs, so a sync waiting for those waits for the rescan. */
void amxd__queue_path(amxd *d, unsigned root, const char *rel, int flags, uint64_t seq,
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
        if (whole && whole->state != ENTRY_INFLIGHT) {
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
        e->state = ENTRY_NONE;
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
    if (e->state == ENTRY_INFLIGHT)
        return; /* back to pending when its batch ends: e->seq is above the batch's start */
    if (flags & AMXD_NOW) {
        amxd__set_state(d, e, ENTRY_READY);
        amxd__kick(d);
    } else {
        amxd__set_state(d, e, ENTRY_PENDING);
    }
    if (d->count > MAX_QUEUED)
        collapse(d);
    amxd__arm_settle(d);
}

void amxd_touch(amxd *d, unsigned root, const char *rel, int flags)
{
    if (amxd_log_enabled(AMX_LOG_DEBUG))
        amxd_log(AMX_LOG_DEBUG, "change: %s%s%s%s", *rel ? rel : d->roots[root],
                 flags & AMXD_DIR ? " (directory)" : "", flags & AMXD_WRITING ? " (writing)" : "",
                 flags & AMXD_CLOSED ? " (closed)" : "");
    amxd__queue_path(d, root, rel, flags, 0, 0);
}

void amxd__queue_roots(amxd *d, uint64_t seq)
{
    for (unsigned r = 0; r < d->root_count; r++)
        if (!(d->health[r].failing && d->health[r].kind == AMXD_ROOT_MISSING &&
              !amxd__root_exists(d, r))) /* gone: health.c looks for it */
            amxd__queue_path(d, r, "", AMXD_DIR | AMXD_NOW, seq, 0);
}

void amxd_overflow(amxd *d, const char *why)
{
    d->overflows++;
    d->full_rescans++;
    amxd_log(AMX_LOG_WARNING, "%s: events were lost; rescanning every root (overflow %llu)", why,
             (unsigned long long)d->overflows);
    amxd__queue_roots(d, 0);
}

void amxd_lost_watch(amxd *d, unsigned root, const char *rel, const char *why)
{
    d->lost_watches++;
    /* what changed while it was lost is unknown: the root is rescanned at once (a sync from
     * now on waits for it), and is failing until that scan succeeds */
    amxd__queue_path(d, root, "", AMXD_DIR | AMXD_NOW, 0, 0);
    amxd__health_fail(d, root, AMXD_WATCH_LOST, rel, "%s", why);
}

void amxd__drop_root(amxd *d, unsigned root)
{
    for (int s = ENTRY_PENDING; s <= ENTRY_READY; s++)
        for (entry *e = d->lists[s].head, *next; e; e = next) {
            next = e->next;
            if (e->root == root)
                amxd__delete_entry(d, e);
        }
    amxd__arm_settle(d);
}

void amxd_root_gone(amxd *d, unsigned root, const char *why)
{
    /* its changes cannot be scanned (each would fail alone, a line each): the rescan of the
     * root when it is back covers them */
    amxd__drop_root(d, root);
    amxd__health_fail(d, root, AMXD_ROOT_MISSING, "", "%s", why);
    amxd__check_syncs(d); /* a sync waiting for those changes answers: with the problem */
}

static void settle_cb(uv_timer_t *t)
{
    amxd *d = t->data;
    uint64_t now = uv_hrtime(), settle = (uint64_t)d->cfg->settle_ms * 1000000ULL;
    entry *e;
    while ((e = d->lists[ENTRY_PENDING].head) && e->last_ns + settle <= now)
        amxd__set_state(d, e, (e->flags & AMXD_WRITING) && now - e->last_ns < HOLD_OPEN_NS
                                  ? ENTRY_HELD
                                  : ENTRY_READY);
    while ((e = d->lists[ENTRY_HELD].head) && e->last_ns + HOLD_OPEN_NS <= now)
        amxd__set_state(d, e, ENTRY_READY);
    amxd__kick(d);
    amxd__arm_settle(d);
}

void amxd__queue_free(amxd *d)
{
    for (size_t i = 0; i < d->nbuckets; i++)
        for (entry *e = d->buckets[i], *next; e; e = next) {
            next = e->hnext;
            free(e);
        }
    free(d->buckets);
}
