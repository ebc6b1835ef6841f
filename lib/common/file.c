/* Whole files in and out: the files animidx reads beside its inputs (a configuration, a
 * baseline, a suppression list, a previous report), which must be regular files of a bounded
 * size, and the files it writes, which are written beside their target and renamed over it.
 * See animidx.h ("Files"). */
#include "animidx/animidx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* "12 MiB", "3.5 GiB", "700 bytes": a size as people read it. */
static void size_text(uint64_t n, char *buf, size_t len)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
    if (n < 1024) {
        snprintf(buf, len, "%llu bytes", (unsigned long long)n);
        return;
    }
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, v < 10 && v != (double)(uint64_t)v ? "%.1f %s" : "%.0f %s", v, units[u]);
}

unsigned char *amx_read_regular(const char *path, uint64_t max, size_t *len, amx_read_why *why,
                                char *err, size_t errlen)
{
    amx_read_why dummy;
    if (!why)
        why = &dummy;
    *why = AMX_READ_IO;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (the mode is checked next). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s, not a regular file", path, kind_of(st.st_mode));
        *why = AMX_READ_NOT_REGULAR;
        close(fd);
        return NULL;
    }
    char most[32], has[32];
    size_text(max, most, sizeof most);
    if ((uint64_t)st.st_size > max || (uint64_t)st.st_size >= SIZE_MAX) {
        size_text((uint64_t)st.st_size, has, sizeof has);
        snprintf(err, errlen, "%s: %s, more than the %s it may have", path, has, most);
        *why = AMX_READ_TOO_BIG;
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    /* The size is a hint: the file may grow or shrink while it is read. It is read to its end,
     * never past max. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    unsigned char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            snprintf(err, errlen, "%s: out of memory", path);
            close(fd);
            return NULL;
        }
        if (n == cap) {
            if ((uint64_t)n > max) {
                size_text(max, most, sizeof most);
                snprintf(err, errlen, "%s: grew past the %s it may have while it was read",
                         path, most);
                *why = AMX_READ_TOO_BIG;
                free(buf);
                close(fd);
                return NULL;
            }
            size_t grown = cap * 2;
            if (max < UINT64_MAX && (uint64_t)grown > max + 1)
                grown = (size_t)(max + 1);
            unsigned char *g = grown > cap ? realloc(buf, grown + 1) : NULL;
            if (!g)
                free(buf);
            buf = g;
            cap = grown;
            continue;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    *why = AMX_READ_OK;
    return buf;
}

unsigned char *amx_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    return amx_read_regular(path, UINT64_MAX, len, NULL, err, errlen);
}

int amx_mkdir_parents(const char *path, unsigned mode)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf)
        return -ENAMETOOLONG;
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(buf, (mode_t)mode);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -errno;
    }
    return 0;
}

/* ---- outputs ---- */

int amx_output_open(amx_output *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    size_t len = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(len + 16);
    if (!o->path || !o->tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        amx_output_abort(o);
        return -1;
    }
    /* ".NAME.XXXXXX" in the target's directory: the rename stays on one file system */
    snprintf(o->tmp, len + 16, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
    /* mkostemp creates a new file (O_EXCL): a link planted under that name is never followed */
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a file beside it: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        amx_output_abort(o);
        return -1;
    }
    /* the mode a file created by fopen would have (mkostemp makes it 0600) */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "%s: %s", o->tmp, strerror(errno));
        close(fd);
        amx_output_abort(o);
        return -1;
    }
    return 0;
}

int amx_output_commit(amx_output *o, char *err, size_t errlen)
{
    int rc = 0;
    bool bad = ferror(o->f) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    o->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: write failed: %s", o->path, strerror(e ? e : EIO));
        rc = -1;
    } else if (rename(o->tmp, o->path) != 0) {
        /* rename replaces a link at the target itself, never the file it points at */
        snprintf(err, errlen, "%s: %s", o->path, strerror(errno));
        rc = -1;
    } else {
        free(o->tmp);
        o->tmp = NULL;
    }
    amx_output_abort(o);
    return rc;
}

void amx_output_abort(amx_output *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
