/* Whole files in and out: the files animidx reads beside its inputs (a configuration, a
 * baseline, a suppression list, a previous report), which must be regular files of a bounded
 * size, and the files it writes, which are written beside their target and renamed over it.
 * See animidx.h ("Files"). */
#include "animidx/animidx.h"

#include "animidx/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* Opening never waits (a FIFO is not waited on: its kind is checked next). */
    amx_os_file *fd = NULL;
    amx_os_stat st;
    int rc = amx_os_open_read(path, &fd);
    if (rc == 0)
        rc = amx_os_file_stat(fd, &st);
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
        amx_os_close(fd);
        return NULL;
    }
    if (st.kind != AMX_OS_FILE) {
        snprintf(err, errlen, "%s: %s, not a regular file", path,
                 st.kind == AMX_OS_OTHER ? "not a regular file" : amx_os_kind_text(st.kind));
        *why = AMX_READ_NOT_REGULAR;
        amx_os_close(fd);
        return NULL;
    }
    char most[32], has[32];
    size_text(max, most, sizeof most);
    if ((uint64_t)st.size > max || (uint64_t)st.size >= SIZE_MAX) {
        size_text((uint64_t)st.size, has, sizeof has);
        snprintf(err, errlen, "%s: %s, more than the %s it may have", path, has, most);
        *why = AMX_READ_TOO_BIG;
        amx_os_close(fd);
        return NULL;
    }
    /* The size is a hint: the file may grow or shrink while it is read. It is read to its end,
     * never past max. */
    size_t cap = (size_t)st.size + 1, n = 0;
    unsigned char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            snprintf(err, errlen, "%s: out of memory", path);
            amx_os_close(fd);
            return NULL;
        }
        if (n == cap) {
            if ((uint64_t)n > max) {
                size_text(max, most, sizeof most);
                snprintf(err, errlen, "%s: grew past the %s it may have while it was read",
                         path, most);
                *why = AMX_READ_TOO_BIG;
                free(buf);
                amx_os_close(fd);
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
        size_t k = 0;
        rc = amx_os_read(fd, buf + n, cap - n, &k);
        if (rc != 0) {
            snprintf(err, errlen, "%s: read error: %s", path, strerror(-rc));
            free(buf);
            amx_os_close(fd);
            return NULL;
        }
        if (k == 0)
            break;
        n += k;
    }
    amx_os_close(fd);
    buf[n] = '\0';
    *len = n;
    *why = AMX_READ_OK;
    return buf;
}

unsigned char *amx_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    return amx_read_regular(path, UINT64_MAX, len, NULL, err, errlen);
}

/* ---- outputs ---- */

int amx_output_open(amx_output *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    size_t len = strlen(path) + 32;
    o->path = strdup(path);
    o->tmp = malloc(len);
    if (!o->path || !o->tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        amx_output_abort(o);
        return -1;
    }
    /* ".NAME.XXXXXX" in the target's directory (the replacement stays on one file system),
     * created new: a link planted under that name is never followed; the mode a file created
     * by fopen would have */
    o->f = amx_os_temp_beside(path, o->tmp, len);
    if (!o->f) {
        snprintf(err, errlen, "%s: cannot create a file beside it: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
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
    } else if ((rc = amx_os_replace(o->tmp, o->path)) != 0) {
        /* the replacement replaces a link at the target itself, never the file it points at */
        snprintf(err, errlen, "%s: %s", o->path, strerror(-rc));
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
        amx_os_remove(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
