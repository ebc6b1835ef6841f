/* The files a BFME INI file's `#include` lines name, read for its decoder (include_files.h). */
#include "include_files.h"

#include "db_internal.h"
#include "common/grow.h"
#include "animidx/index.h"
#include "animidx/os.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The path `path` (written with '\' or '/', "." and ".." steps) names from the directory of
 * `from` ('/'-separated), into rel ('/'-separated); false when it climbs out or is too long. */
static bool logical_path(const char *from, const char *path, char *rel, size_t cap)
{
    size_t at = 0;
    const char *slash = strrchr(from, '/');
    if (slash) {
        at = (size_t)(slash - from);
        if (at >= cap)
            return false;
        memcpy(rel, from, at);
    }
    rel[at] = '\0';
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "\\/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (!at)
                return false; /* out of the root */
            char *up = strrchr(rel, '/');
            at = up ? (size_t)(up - rel) : 0;
            rel[at] = '\0';
        } else if (n && !(n == 1 && p[0] == '.')) {
            if (at + 1 + n + 1 > cap)
                return false;
            if (at)
                rel[at++] = '/';
            memcpy(rel + at, p, n);
            at += n;
            rel[at] = '\0';
        }
        p += n;
        p += strspn(p, "\\/");
    }
    return at > 0;
}

const uint8_t *amx__include_read(void *user, const char *from, const char *path, size_t max_len,
                                 size_t *len, char *resolved, size_t resolved_cap)
{
    amx__include_files *f = user;
    *len = 0;
    if (strcmp(from, f->file) == 0 && !(from = amx_os_path_below(f->root, f->file_abs)))
        return NULL; /* a file reached through a link out of the root */
    char rel[AMX_PATH_MAX];
    if (!logical_path(from, path, rel, sizeof rel))
        return NULL;
    /* the file as the file system spells it, name by name */
    char abs[2][AMX_PATH_MAX];
    int cur = 0;
    if (snprintf(abs[0], sizeof abs[0], "%s", f->root) >= (int)sizeof abs[0])
        return NULL;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        amx_os_stat st;
        if (amx_os_path_join_nocase(abs[cur], p, n, abs[!cur], sizeof abs[0], &st) != 0)
            return NULL;
        cur = !cur;
        p += n;
        p += strspn(p, "/");
    }
    char real[AMX_PATH_MAX];
    const char *inside;
    if (amx_os_canonical(abs[cur], real, sizeof real) != 0 ||
        !(inside = amx_os_path_below(f->root, real)) || !*inside)
        return NULL; /* a link out of the root */
    amx_os_file *file;
    if (amx_os_open_read(real, &file) != 0)
        return NULL;
    amx_os_stat st;
    uint8_t *data = NULL;
    size_t got = 0;
    if (amx_os_file_stat(file, &st) != 0 || st.kind != AMX_OS_FILE || st.size < 0) {
        amx_os_close(file);
        return NULL;
    }
    if ((uint64_t)st.size > max_len || (f->charge && !f->charge(f->charge_user, (uint64_t)st.size))) {
        amx_os_close(file);
        *len = SIZE_MAX; /* a limit, not a missing file */
        return NULL;
    }
    if ((data = malloc(st.size ? (size_t)st.size : 1)) &&
        (amx_os_read(file, data, (size_t)st.size, &got) != 0 || got != (size_t)st.size)) {
        free(data);
        data = NULL;
    }
    amx_os_close(file);
    if (!data)
        return NULL;
    size_t cap = f->cap; /* the two arrays grow together */
    if (!amx__grow((void **)&f->bytes, &cap, f->n, sizeof *f->bytes) ||
        !amx__grow((void **)&f->seen, &f->cap, f->n, sizeof *f->seen)) {
        free(data);
        return NULL;
    }
    char *kept = strdup(inside);
    if (!kept) {
        free(data);
        return NULL;
    }
    f->bytes[f->n++] = data;
    f->seen[f->n_seen++] = (struct amx__include_seen){ kept, st.size, st.mtime_ns };
    snprintf(resolved, resolved_cap, "%s", inside);
    *len = got;
    return data;
}

void amx__include_files_free(amx__include_files *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->bytes[i]);
    free(f->bytes);
    if (f->seen)
        for (size_t i = 0; i < f->n_seen; i++)
            free(f->seen[i].path);
    free(f->seen);
    f->bytes = NULL;
    f->seen = NULL;
    f->n = f->cap = f->n_seen = 0;
}

static int cmp_member_name(const void *a, const void *b, void *ctx)
{
    const amx_archive_entry *m = ctx;
    return amx__ascii_casecmp(m[*(const size_t *)a].name, m[*(const size_t *)b].name);
}

const uint8_t *amx__member_include_read(void *user, const char *from, const char *path,
                                        size_t max_len, size_t *len, char *resolved,
                                        size_t resolved_cap)
{
    amx__member_includes *mi = user;
    *len = 0;
    char rel[AMX_PATH_MAX];
    if (!logical_path(from, path, rel, sizeof rel))
        return NULL;
    if (!mi->built) { /* once per archive, and only for one with an INI member that includes */
        mi->built = true;
        if (mi->n && (mi->by_name = malloc(mi->n * sizeof *mi->by_name))) {
            for (size_t i = 0; i < mi->n; i++)
                mi->by_name[i] = i;
            amx_sort(mi->by_name, mi->n, sizeof *mi->by_name, cmp_member_name, (void *)mi->m);
        }
    }
    if (!mi->by_name)
        return NULL;
    size_t lo = 0, hi = mi->n; /* the first member of that name (the sort is stable) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (amx__ascii_casecmp(mi->m[mi->by_name[mid]].name, rel) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == mi->n || amx__ascii_casecmp(mi->m[mi->by_name[lo]].name, rel) != 0)
        return NULL;
    const amx_archive_entry *e = &mi->m[mi->by_name[lo]];
    if (e->compressed || !e->valid || e->offset > mi->len || e->size > mi->len - e->offset)
        return NULL;
    if (e->size > max_len || (mi->charge && !mi->charge(mi->charge_user, e->size))) {
        *len = SIZE_MAX; /* a limit, not a missing file */
        return NULL;
    }
    snprintf(resolved, resolved_cap, "%s", e->name);
    *len = (size_t)e->size;
    return mi->data + e->offset;
}

void amx__member_includes_free(amx__member_includes *mi)
{
    free(mi->by_name);
    mi->by_name = NULL;
    mi->built = false;
}

struct amx_include_reader {
    amx__include_files files;
    char *root, *file_name, *file_abs;
};

amx_include_reader *amx_include_reader_new(const char *root, const char *file_name,
                                           const char *file_abs)
{
    amx_include_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->root = strdup(root)) || !(r->file_name = strdup(file_name)) ||
        !(r->file_abs = strdup(file_abs))) {
        amx_include_reader_free(r);
        return NULL;
    }
    r->files = (amx__include_files){ .root = r->root, .file = r->file_name,
                                     .file_abs = r->file_abs };
    return r;
}

const uint8_t *amx_include_reader_read(void *reader, const char *from, const char *path,
                                       size_t max_len, size_t *len, char *resolved,
                                       size_t resolved_cap)
{
    amx_include_reader *r = reader;
    return amx__include_read(&r->files, from, path, max_len, len, resolved, resolved_cap);
}

size_t amx_include_reader_count(const amx_include_reader *r)
{
    return r->files.n_seen;
}

const char *amx_include_reader_path(const amx_include_reader *r, size_t i)
{
    return i < r->files.n_seen ? r->files.seen[i].path : NULL;
}

void amx_include_reader_free(amx_include_reader *r)
{
    if (!r)
        return;
    amx__include_files_free(&r->files);
    free(r->root);
    free(r->file_name);
    free(r->file_abs);
    free(r);
}
