/*
 * Linux watching: one inotify descriptor, polled with uv_poll_t.
 *
 * libuv's uv_fs_event is not recursive on Linux and drops IN_Q_OVERFLOW (its read loop looks
 * the watcher up by wd, and the overflow event has wd -1), so the daemon reads the descriptor
 * itself and sees everything: overflow, IN_IGNORED, IN_ISDIR and the rename cookie.
 *
 * - Every directory under every root gets a watch (one per inode: a second path to the same
 *   directory, through a symbolic link, is not descended again; a link out of the root only
 *   with follow_links, one level, as the scan follows it). A new directory gets its
 *   watches at once and is queued as a scope, so the files written into it before its watch
 *   existed are found by its scan.
 * - IN_MOVED_FROM / IN_MOVED_TO are paired by cookie. The kernel queues both halves during
 *   the rename, so a half still unpaired when the queue is empty has no other half inside the
 *   roots: a move out (the old path's rows go, and a directory's watches are removed) or in.
 *   A directory moved inside the roots keeps its watches; their paths are renamed.
 * - IN_Q_OVERFLOW: every root is rescanned and the watches are walked again; IN_IGNORED on a
 *   directory that still exists is a lost watch: it is watched again and rescanned.
 * - The watch limit (max_watches, else max_user_watches - 500, or ENOSPC): the directories
 *   left over are listed, reported with the fix, and rescanned every poll_interval_s.
 */
#include "daemon.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | \
                    IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | \
                    IN_EXCL_UNLINK)
#define MAX_DEPTH 256
#define LIMIT_FIX "raise it with: echo fs.inotify.max_user_watches=524288 | sudo tee " \
                  "/etc/sysctl.d/90-animidx.conf && sudo sysctl --system (then send animidxd " \
                  "SIGHUP, or wait for the next poll)"

typedef struct wnode {
    struct wnode *hnext;
    int wd;
    unsigned root;
    bool deleted;                 /* IN_DELETE_SELF seen: its IN_IGNORED is no loss */
    char *rel;                    /* "" = the root */
} wnode;

typedef struct dirpath {
    unsigned root;
    char *rel;
} dirpath;

typedef struct move {
    uint32_t cookie;
    unsigned root;
    bool is_dir;
    char *rel;
} move;

struct amxd_watch {
    uv_poll_t poll;
    amxd *d;
    int fd;
    bool polling;
    wnode **buckets;
    size_t nbuckets, count;
    size_t cap;                   /* most watches we set */
    size_t system_limit;          /* max_user_watches, 0 when unknown */
    dirpath *unwatched;           /* directories over the limit (their subtrees included) */
    size_t nunwatched, capunwatched;
    bool limit_warned;
    move *moves;                  /* unpaired IN_MOVED_FROM of the current read */
    size_t nmoves, capmoves;
    uint64_t events;
    _Alignas(struct inotify_event) char buf[65536];
};

static void add_tree(amxd_watch *w, unsigned root, const char *rel, int depth);

/* ---- the wd table ---- */

static wnode *find_wd(amxd_watch *w, int wd)
{
    if (!w->nbuckets)
        return NULL;
    for (wnode *n = w->buckets[(unsigned)wd & (w->nbuckets - 1)]; n; n = n->hnext)
        if (n->wd == wd)
            return n;
    return NULL;
}

static bool insert_node(amxd_watch *w, int wd, unsigned root, const char *rel)
{
    if (w->count + 1 > w->nbuckets) {
        size_t n = w->nbuckets ? w->nbuckets * 2 : 64;
        wnode **b = calloc(n, sizeof *b);
        if (!b)
            return false;
        for (size_t i = 0; i < w->nbuckets; i++)
            for (wnode *x = w->buckets[i], *next; x; x = next) {
                next = x->hnext;
                x->hnext = b[(unsigned)x->wd & (n - 1)];
                b[(unsigned)x->wd & (n - 1)] = x;
            }
        free(w->buckets);
        w->buckets = b;
        w->nbuckets = n;
    }
    wnode *n = calloc(1, sizeof *n);
    if (!n || !(n->rel = strdup(rel))) {
        free(n);
        return false;
    }
    n->wd = wd;
    n->root = root;
    wnode **slot = &w->buckets[(unsigned)wd & (w->nbuckets - 1)];
    n->hnext = *slot;
    *slot = n;
    w->count++;
    return true;
}

static void remove_node(amxd_watch *w, wnode *n)
{
    wnode **p = &w->buckets[(unsigned)n->wd & (w->nbuckets - 1)];
    while (*p != n)
        p = &(*p)->hnext;
    *p = n->hnext;
    w->count--;
    free(n->rel);
    free(n);
}

/* rel is inside (or is) dir of the same root. */
static bool under(unsigned root, const char *dir, unsigned r, const char *rel)
{
    size_t n = strlen(dir), m = strlen(rel);
    if (root != r || n == 0)
        return root == r;
    return m >= n && memcmp(rel, dir, n) == 0 && (m == n || rel[n] == '/');
}

/* "a" + "b" = "a/b"; "" + "b" = "b". */
static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s)
        snprintf(s, a + b + 2, "%s%s%s", dir, a ? "/" : "", name);
    return s;
}

/* ---- unwatched directories ---- */

static void add_unwatched(amxd_watch *w, unsigned root, const char *rel)
{
    for (size_t i = 0; i < w->nunwatched; i++)
        if (under(w->unwatched[i].root, w->unwatched[i].rel, root, rel))
            return;
    if (w->nunwatched == w->capunwatched) {
        size_t cap = w->capunwatched ? w->capunwatched * 2 : 16;
        dirpath *g = realloc(w->unwatched, cap * sizeof *g);
        if (!g)
            return;
        w->unwatched = g;
        w->capunwatched = cap;
    }
    char *copy = strdup(rel);
    if (copy)
        w->unwatched[w->nunwatched++] = (dirpath){ root, copy };
}

static void limit_reached(amxd_watch *w, unsigned root, const char *rel, int err)
{
    add_unwatched(w, root, rel);
    if (w->limit_warned)
        return;
    w->limit_warned = true;
    amxd *d = w->d;
    char path[PATH_MAX];
    amxd_abs_path(d, root, rel, path, sizeof path);
    if (err == ENOSPC && w->system_limit)
        amxd_set_error(d, "the inotify watch limit is reached (fs.inotify.max_user_watches = "
                          "%zu, shared by every program of this user) at %s: directories "
                          "without a watch are rescanned every %d s instead; " LIMIT_FIX,
                       w->system_limit, path, amxd_config(d)->poll_s);
    else if (err == ENOSPC || err == ENOMEM)
        amxd_set_error(d, "inotify_add_watch(%s): %s: directories without a watch are "
                          "rescanned every %d s instead; " LIMIT_FIX,
                       path, strerror(err), amxd_config(d)->poll_s);
    else
        amxd_set_error(d, "the watch limit of %zu is reached at %s (max_watches in the config, "
                          "else fs.inotify.max_user_watches - 500): directories without a watch "
                          "are rescanned every %d s instead; raise [daemon] max_watches, or %s",
                       w->cap, path, amxd_config(d)->poll_s,
                       amxd_config(d)->max_watches ? "leave it at 0 to use the system's limit"
                                                   : LIMIT_FIX);
}

/* ---- adding and removing watches ---- */

static bool is_dir_entry(const char *parent, const struct dirent *e)
{
    if (e->d_type == DT_DIR)
        return true;
    if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
        return false;
    char p[PATH_MAX];
    struct stat st;
    int n = snprintf(p, sizeof p, "%s/%s", parent, e->d_name);
    return n > 0 && (size_t)n < sizeof p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The real path of `path` relative to the root's: NULL when it is outside the root. */
static const char *inside(const char *root, const char *real)
{
    size_t k = strlen(root);
    if (strcmp(root, "/") == 0)
        return real + 1;
    if (strncmp(real, root, k) != 0 || (real[k] != '\0' && real[k] != '/'))
        return NULL;
    return real[k] ? real + k + 1 : "";
}

/* Whether the watch descends into a symbolic link to a directory, as the scan follows it
 * (lib/index/scan.c, follow_link): never into a link to a directory of the root (its files are
 * indexed, and watched, under their own path), into a link out of the root only with
 * follow_links, and not from inside what such a link leads to (linked). *is_link says whether
 * the entry is a link at all. */
static bool descend(amxd *d, unsigned root, const char *parent, const struct dirent *e,
                    bool linked, bool *is_link)
{
    *is_link = false;
    if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
        return true;
    char p[PATH_MAX], real[PATH_MAX];
    struct stat st;
    int n = snprintf(p, sizeof p, "%s/%s", parent, e->d_name);
    if (n <= 0 || (size_t)n >= sizeof p || lstat(p, &st) != 0)
        return false;
    if (!S_ISLNK(st.st_mode))
        return true;
    *is_link = true;
    if (!realpath(p, real) || inside(amxd_root(d, root), real))
        return false;
    return amxd_config(d)->follow_links && !linked;
}

static void add_tree_at(amxd_watch *w, unsigned root, const char *rel, int depth, bool linked);

/* Watches a directory and everything below it (on the loop thread: a walk of directories only;
 * the files are the scan's business). */
static void add_tree(amxd_watch *w, unsigned root, const char *rel, int depth)
{
    bool linked = false;
    char path[PATH_MAX], real[PATH_MAX];
    /* only a followed link leads out of the root: without follow_links nothing is linked */
    if (amxd_config(w->d)->follow_links && *rel &&
        amxd_abs_path(w->d, root, rel, path, sizeof path) && realpath(path, real))
        linked = !inside(amxd_root(w->d, root), real);
    add_tree_at(w, root, rel, depth, linked);
}

static void add_tree_at(amxd_watch *w, unsigned root, const char *rel, int depth, bool linked)
{
    amxd *d = w->d;
    if (w->fd < 0 || depth > MAX_DEPTH || (*rel && amxd_skip(d, rel)))
        return;
    char path[PATH_MAX];
    if (!amxd_abs_path(d, root, rel, path, sizeof path))
        return;
    if (w->count >= w->cap) {
        limit_reached(w, root, rel, 0);
        return;
    }
    int wd = inotify_add_watch(w->fd, path, WATCH_MASK);
    if (wd < 0) {
        int e = errno;
        if (e == ENOSPC || e == ENOMEM)
            limit_reached(w, root, rel, e);
        else if (e != ENOENT && e != ENOTDIR)
            amxd_log(AMX_LOG_WARNING, "cannot watch %s: %s", path, strerror(e));
        return;
    }
    wnode *n = find_wd(w, wd);
    if (n && (n->root != root || strcmp(n->rel, rel) != 0))
        return; /* the same directory by another path (a symbolic link): watched once */
    if (!n && !insert_node(w, wd, root, rel)) {
        amxd_set_error(d, "out of memory adding a watch");
        return;
    }
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        bool link;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            !is_dir_entry(path, e) || !descend(d, root, path, e, linked, &link))
            continue;
        char *sub = join(rel, e->d_name);
        if (sub)
            add_tree_at(w, root, sub, depth + 1, linked || link);
        free(sub);
    }
    closedir(dir);
}

/* Forgets the watches of a directory and its subtree (moved out of the roots). */
static void remove_tree(amxd_watch *w, unsigned root, const char *rel)
{
    for (size_t i = 0; i < w->nbuckets; i++)
        for (wnode *n = w->buckets[i], *next; n; n = next) {
            next = n->hnext;
            if (under(root, rel, n->root, n->rel)) {
                inotify_rm_watch(w->fd, n->wd); /* its IN_IGNORED finds no node: ignored */
                remove_node(w, n);
            }
        }
    for (size_t i = 0; i < w->nunwatched;)
        if (under(root, rel, w->unwatched[i].root, w->unwatched[i].rel)) {
            free(w->unwatched[i].rel);
            w->unwatched[i] = w->unwatched[--w->nunwatched];
        } else {
            i++;
        }
}

/* A directory moved inside the roots keeps its watches: renames their paths. */
static char *rebase(const char *rel, size_t old_len, const char *to)
{
    const char *rest = rel + old_len; /* "" or "/..." */
    size_t n = strlen(to) + strlen(rest) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", *to ? to : (*rest == '/' ? rest + 1 : rest), *to ? rest : "");
    return s;
}

static void rename_tree(amxd_watch *w, unsigned from_root, const char *from, unsigned to_root,
                        const char *to)
{
    size_t len = strlen(from);
    for (size_t i = 0; i < w->nbuckets; i++)
        for (wnode *n = w->buckets[i]; n; n = n->hnext) {
            if (!under(from_root, from, n->root, n->rel))
                continue;
            char *r = rebase(n->rel, len, to);
            if (r) {
                free(n->rel);
                n->rel = r;
                n->root = to_root;
            }
        }
    for (size_t i = 0; i < w->nunwatched; i++) {
        dirpath *u = &w->unwatched[i];
        if (!under(from_root, from, u->root, u->rel))
            continue;
        char *r = rebase(u->rel, len, to);
        if (r) {
            free(u->rel);
            u->rel = r;
            u->root = to_root;
        }
    }
}

/* ---- events ---- */

static void push_move(amxd_watch *w, uint32_t cookie, unsigned root, const char *rel, bool is_dir)
{
    if (w->nmoves == w->capmoves) {
        size_t cap = w->capmoves ? w->capmoves * 2 : 16;
        move *m = realloc(w->moves, cap * sizeof *m);
        if (!m) {
            amxd_touch(w->d, root, rel, is_dir ? AMXD_DIR : AMXD_CLOSED);
            return;
        }
        w->moves = m;
        w->capmoves = cap;
    }
    char *copy = strdup(rel);
    if (!copy) {
        amxd_touch(w->d, root, rel, is_dir ? AMXD_DIR : AMXD_CLOSED);
        return;
    }
    w->moves[w->nmoves++] = (move){ cookie, root, is_dir, copy };
}

/* The moves whose other half is not in the queue: out of the roots. */
static void flush_moves(amxd_watch *w)
{
    for (size_t i = 0; i < w->nmoves; i++) {
        move *m = &w->moves[i];
        if (m->is_dir)
            remove_tree(w, m->root, m->rel);
        amxd_touch(w->d, m->root, m->rel, m->is_dir ? AMXD_DIR : AMXD_CLOSED);
        free(m->rel);
    }
    w->nmoves = 0;
}

static void moved_to(amxd_watch *w, uint32_t cookie, unsigned root, const char *rel, bool is_dir)
{
    amxd *d = w->d;
    for (size_t i = 0; i < w->nmoves; i++) {
        move *m = &w->moves[i];
        if (m->cookie != cookie)
            continue;
        /* A rename inside the roots: the index moves the rows (same ids and findings) before
         * it scans both paths; a move between roots is a removal and a new file. */
        if (m->is_dir)
            rename_tree(w, m->root, m->rel, root, rel);
        if (m->root == root)
            amxd_rename(d, root, m->rel, rel);
        if (amxd_log_enabled(AMX_LOG_DEBUG))
            amxd_log(AMX_LOG_DEBUG, "renamed %s -> %s", m->rel, rel);
        amxd_touch(d, m->root, m->rel, is_dir ? AMXD_DIR : AMXD_CLOSED);
        amxd_touch(d, root, rel, is_dir ? AMXD_DIR : AMXD_CLOSED);
        free(m->rel);
        w->moves[i] = w->moves[--w->nmoves];
        return;
    }
    /* Moved in from outside: a new tree or file. */
    if (is_dir)
        add_tree(w, root, rel, 0);
    amxd_touch(d, root, rel, is_dir ? AMXD_DIR : AMXD_CLOSED);
}

static void handle_event(amxd_watch *w, const struct inotify_event *ev)
{
    amxd *d = w->d;
    w->events++;
    if (ev->mask & IN_Q_OVERFLOW) {
        char why[160];
        FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "re");
        long max = -1;
        if (f) {
            if (fscanf(f, "%ld", &max) != 1)
                max = -1;
            fclose(f);
        }
        snprintf(why, sizeof why, "the inotify queue overflowed (fs.inotify.max_queued_events "
                                  "= %ld)", max);
        flush_moves(w);
        amxd_watch_rewalk(w);
        amxd_overflow(d, why);
        return;
    }
    wnode *n = find_wd(w, ev->wd);
    if (!n)
        return; /* a watch removed meanwhile */
    if (ev->mask & IN_IGNORED) {
        /* The watch is gone: the directory was deleted, or the watch was lost (unmount). */
        unsigned root = n->root;
        bool deleted = n->deleted;
        char *rel = n->rel;
        n->rel = NULL;
        remove_node(w, n);
        char path[PATH_MAX];
        struct stat st;
        if (!deleted && amxd_abs_path(d, root, rel, path, sizeof path) && stat(path, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            add_tree(w, root, rel, 0);
            amxd_lost_watch(d, root, rel, "IN_IGNORED on a directory that still exists");
        } else if (!*rel) {
            /* the root itself: failing until it is back and rescanned (health.c) */
            remove_tree(w, root, "");
            amxd_root_gone(d, root, deleted ? "deleted" : "deleted or unmounted");
        }
        free(rel);
        return;
    }
    if (!ev->len) {
        if (ev->mask & IN_DELETE_SELF)
            n->deleted = true;
        if ((ev->mask & IN_MOVE_SELF) && !*n->rel) {
            /* the watches follow the directory where it went, not the root's path: dropped */
            unsigned root = n->root;
            remove_tree(w, root, "");
            amxd_root_gone(d, root, "moved away");
        }
        return; /* the parent's event tells the rest */
    }
    char *rel = join(n->rel, ev->name);
    if (!rel) {
        amxd_overflow(d, "out of memory reading events");
        return;
    }
    unsigned root = n->root;
    bool is_dir = (ev->mask & IN_ISDIR) != 0;
    if (amxd_skip(d, rel)) {
        free(rel);
        return;
    }
    if (ev->mask & IN_MOVED_FROM) {
        push_move(w, ev->cookie, root, rel, is_dir);
    } else if (ev->mask & IN_MOVED_TO) {
        moved_to(w, ev->cookie, root, rel, is_dir);
    } else if (is_dir) {
        if (ev->mask & IN_CREATE)
            add_tree(w, root, rel, 0); /* before its scan, so nothing falls between */
        if (ev->mask & (IN_CREATE | IN_DELETE))
            amxd_touch(d, root, rel, AMXD_DIR);
    } else if (ev->mask & (IN_CREATE | IN_MODIFY)) {
        amxd_touch(d, root, rel, AMXD_WRITING);
    } else if (ev->mask & (IN_CLOSE_WRITE | IN_DELETE)) {
        amxd_touch(d, root, rel, AMXD_CLOSED);
    } else if (ev->mask & IN_ATTRIB) {
        amxd_touch(d, root, rel, 0);
    }
    free(rel);
}

/* Reads until the queue is empty, or (all false) for at most 64 reads, so that a steady
 * stream of events cannot hold the loop. */
static void read_events(amxd_watch *w, bool all)
{
    for (int reads = 0; all || reads < 64; reads++) {
        ssize_t len = read(w->fd, w->buf, sizeof w->buf);
        if (len < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                amxd_set_error(w->d, "reading inotify events: %s", strerror(errno));
            break;
        }
        if (len == 0)
            break;
        for (char *p = w->buf; p < w->buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            handle_event(w, ev);
            p += sizeof *ev + ev->len;
        }
    }
    flush_moves(w);
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    amxd_watch *w = h->data;
    if (status < 0) {
        amxd_set_error(w->d, "polling the inotify descriptor: %s", uv_strerror(status));
        return;
    }
    if (events & UV_READABLE)
        read_events(w, false);
}

/* ---- the interface ---- */

static size_t read_limit(void)
{
    FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");
    long v = 0;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v > 0 ? (size_t)v : 0;
}

static void watch_roots(amxd_watch *w)
{
    for (unsigned r = 0; r < amxd_root_count(w->d); r++)
        add_tree(w, r, "", 0);
    amxd_log(AMX_LOG_INFO, "watching %zu directories%s", w->count,
             w->nunwatched ? " (some are over the watch limit: polled)" : "");
}

static void set_cap(amxd_watch *w)
{
    const amx_config *cfg = amxd_config(w->d);
    w->system_limit = read_limit();
    /* Leave 500 for other programs, as GNOME tracker does. */
    size_t sys = w->system_limit > 1000 ? w->system_limit - 500 : w->system_limit;
    w->cap = cfg->max_watches > 0 ? (size_t)cfg->max_watches : (sys ? sys : SIZE_MAX);
}

int amxd_watch_start(amxd *d, amxd_watch **out, char *err, size_t errlen)
{
    amxd_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->d = d;
    w->poll.data = w;
    set_cap(w);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    *out = w;
    if (w->fd < 0) {
        /* Too many inotify instances: no watches at all, every root is polled. */
        amxd_set_error(d, "inotify_init1: %s: no root can be watched, they are rescanned every "
                          "%d s instead; raise fs.inotify.max_user_instances (sysctl)",
                       strerror(errno), amxd_config(d)->poll_s);
        for (unsigned r = 0; r < amxd_root_count(d); r++)
            add_unwatched(w, r, "");
        return 0;
    }
    int rc = uv_poll_init(amxd_loop(d), &w->poll, w->fd);
    if (rc == 0)
        rc = uv_poll_start(&w->poll, UV_READABLE, poll_cb);
    if (rc) {
        snprintf(err, errlen, "cannot poll the inotify descriptor: %s", uv_strerror(rc));
        close(w->fd);
        w->fd = -1;
        free(w);
        *out = NULL;
        return -1;
    }
    w->polling = true;
    watch_roots(w);
    return 0;
}

static void free_watch(amxd_watch *w)
{
    for (size_t i = 0; i < w->nbuckets; i++)
        for (wnode *n = w->buckets[i], *next; n; n = next) {
            next = n->hnext;
            free(n->rel);
            free(n);
        }
    free(w->buckets);
    for (size_t i = 0; i < w->nunwatched; i++)
        free(w->unwatched[i].rel);
    free(w->unwatched);
    for (size_t i = 0; i < w->nmoves; i++)
        free(w->moves[i].rel);
    free(w->moves);
    if (w->fd >= 0)
        close(w->fd);
    free(w);
}

static void close_cb(uv_handle_t *h)
{
    free_watch(h->data);
}

void amxd_watch_close(amxd_watch *w)
{
    if (!w)
        return;
    if (w->polling)
        uv_close((uv_handle_t *)&w->poll, close_cb);
    else
        free_watch(w);
}

bool amxd_watch_drain(amxd_watch *w)
{
    if (w && w->fd >= 0)
        read_events(w, true);
    return true;
}

void amxd_watch_rewalk(amxd_watch *w)
{
    if (!w || w->fd < 0)
        return;
    size_t before = w->count;
    for (unsigned r = 0; r < amxd_root_count(w->d); r++)
        add_tree(w, r, "", 0);
    if (w->count != before)
        amxd_log(AMX_LOG_INFO, "rewalk: %zu directories watched (%+ld)", w->count,
                 (long)w->count - (long)before);
}

void amxd_watch_root(amxd_watch *w, unsigned root)
{
    if (!w)
        return;
    size_t before = w->count;
    if (w->fd >= 0)
        add_tree(w, root, "", 0);
    else
        add_unwatched(w, root, "");
    if (w->count != before)
        amxd_log(AMX_LOG_INFO, "%s: %zu directories watched again", amxd_root(w->d, root),
                 w->count - before);
}

void amxd_watch_reset(amxd_watch *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->nbuckets; i++)
        for (wnode *n = w->buckets[i], *next; n; n = next) {
            next = n->hnext;
            inotify_rm_watch(w->fd, n->wd);
            remove_node(w, n);
        }
    for (size_t i = 0; i < w->nunwatched; i++)
        free(w->unwatched[i].rel);
    w->nunwatched = 0;
    for (size_t i = 0; i < w->nmoves; i++)
        free(w->moves[i].rel);
    w->nmoves = 0;
    w->limit_warned = false;
    set_cap(w);
    if (w->fd >= 0)
        watch_roots(w);
    else
        for (unsigned r = 0; r < amxd_root_count(w->d); r++)
            add_unwatched(w, r, "");
}

size_t amxd_watch_poll_unwatched(amxd_watch *w)
{
    if (!w || !w->nunwatched)
        return 0;
    /* Take the list: the retries below add what is still over the limit. */
    dirpath *list = w->unwatched;
    size_t n = w->nunwatched;
    w->unwatched = NULL;
    w->nunwatched = w->capunwatched = 0;
    set_cap(w);
    bool was_warned = w->limit_warned;
    w->limit_warned = true; /* warned once per limit, not per poll */
    for (size_t i = 0; i < n; i++) {
        if (w->fd >= 0)
            add_tree(w, list[i].root, list[i].rel, 0);
        else
            add_unwatched(w, list[i].root, list[i].rel);
        amxd_touch(w->d, list[i].root, list[i].rel, AMXD_DIR | AMXD_NOW);
        free(list[i].rel);
    }
    free(list);
    if (!w->nunwatched && was_warned) {
        w->limit_warned = false;
        amxd_log(AMX_LOG_INFO, "every directory is watched again (%zu watches)", w->count);
    }
    return n;
}

void amxd_watch_status(amxd_watch *w, amx_json *j)
{
    amx_json_kstring(j, "watcher", "inotify");
    amx_json_kint(j, "watches", (int64_t)w->count);
    amx_json_kint(j, "unwatched_dirs", (int64_t)w->nunwatched);
    amx_json_kbool(j, "watch_limit_reached", w->nunwatched > 0);
    amx_json_key(j, "max_user_watches");
    if (w->system_limit)
        amx_json_int(j, (int64_t)w->system_limit);
    else
        amx_json_null(j);
    amx_json_kint(j, "events", (int64_t)w->events);
}
