/* Portable helpers that standard C lacks and that some C libraries have (strndup, memmem,
 * strcasestr, qsort_r, fnmatch, timegm, strptime): written once here, the same on every
 * system, so that output does not depend on the C library. See animidx/os.h. */
#include "animidx/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *amx_strndup(const char *s, size_t n)
{
    size_t len = 0;
    while (len < n && s[len])
        len++;
    char *d = malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

const void *amx_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
    if (nlen == 0)
        return hay;
    if (nlen > hlen)
        return NULL;
    const unsigned char *h = hay, *n = needle, *end = h + (hlen - nlen);
    for (const unsigned char *p = h; p <= end; p++) {
        p = memchr(p, n[0], (size_t)(end - p) + 1);
        if (!p)
            return NULL;
        if (memcmp(p, n, nlen) == 0)
            return p;
    }
    return NULL;
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

const char *amx_strcasestr(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && lower((unsigned char)hay[i]) == lower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return hay;
    }
    return n == 0 ? hay : NULL;
}

/* ---- a stable merge sort with a context ---- */

typedef int (*sort_cmp)(const void *, const void *, void *);

static void insertion(char *b, size_t n, size_t size, sort_cmp cmp, void *ctx, char *tmp)
{
    for (size_t i = 1; i < n; i++) {
        size_t j = i;
        if (cmp(b + (j - 1) * size, b + j * size, ctx) <= 0)
            continue;
        memcpy(tmp, b + i * size, size);
        while (j > 0 && cmp(b + (j - 1) * size, tmp, ctx) > 0) {
            memcpy(b + j * size, b + (j - 1) * size, size);
            j--;
        }
        memcpy(b + j * size, tmp, size);
    }
}

/* Sorts b[0..n) using scratch (n elements). */
static void merge_sort(char *b, size_t n, size_t size, sort_cmp cmp, void *ctx, char *scratch)
{
    if (n <= 12) {
        insertion(b, n, size, cmp, ctx, scratch);
        return;
    }
    size_t half = n / 2;
    merge_sort(b, half, size, cmp, ctx, scratch);
    merge_sort(b + half * size, n - half, size, cmp, ctx, scratch);
    if (cmp(b + (half - 1) * size, b + half * size, ctx) <= 0)
        return; /* already in order */
    memcpy(scratch, b, half * size);
    char *l = scratch, *lend = scratch + half * size, *r = b + half * size,
         *rend = b + n * size, *o = b;
    while (l < lend && r < rend) {
        if (cmp(r, l, ctx) < 0) {
            memcpy(o, r, size);
            r += size;
        } else {
            memcpy(o, l, size);
            l += size;
        }
        o += size;
    }
    memcpy(o, l, (size_t)(lend - l)); /* what is left of the right half is in place */
}

void amx_sort(void *base, size_t n, size_t size, sort_cmp cmp, void *ctx)
{
    if (n < 2 || size == 0)
        return;
    char small[256];
    char *scratch = n <= 12 && size <= sizeof small ? small : malloc((n / 2 + 1) * size);
    if (!scratch) {
        /* no memory for the merge: insertion sort in place (slow, but sorted) */
        char *one = malloc(size);
        if (one) {
            insertion(base, n, size, cmp, ctx, one);
            free(one);
        }
        return;
    }
    merge_sort(base, n, size, cmp, ctx, scratch);
    if (scratch != small)
        free(scratch);
}

/* ---- glob matching ---- */

/* A bracket expression at g (just past '['): sets *end past ']'; false when it is not one. */
static bool bracket(const char *g, int c, bool fold, bool *matched, const char **end)
{
    bool neg = *g == '!' || *g == '^';
    if (neg)
        g++;
    bool hit = false, first = true;
    while (*g && (first || *g != ']')) {
        int lo = (unsigned char)*g++;
        if (lo == '\\' && *g)
            lo = (unsigned char)*g++;
        int hi = lo;
        if (*g == '-' && g[1] && g[1] != ']') {
            g++;
            hi = (unsigned char)*g++;
            if (hi == '\\' && *g)
                hi = (unsigned char)*g++;
        }
        if ((c >= lo && c <= hi) || (fold && lower(c) >= lower(lo) && lower(c) <= lower(hi)))
            hit = true;
        first = false;
    }
    if (*g != ']')
        return false;
    *end = g + 1;
    *matched = hit != neg;
    return true;
}

bool amx_glob_match(const char *g, const char *s, bool fold)
{
    const char *star_g = NULL, *star_s = NULL;
    for (;;) {
        if (*g == '*') {
            while (*g == '*')
                g++;
            if (!*g)
                return true;
            star_g = g;
            star_s = s;
            continue;
        }
        if (*s) {
            bool ok = false;
            const char *next = g + 1;
            int c = (unsigned char)*s;
            if (*g == '?') {
                ok = true;
            } else if (*g == '[') {
                bool m;
                if (bracket(g + 1, c, fold, &m, &next))
                    ok = m;
                else
                    ok = c == '['; /* a lone '[' is itself */
            } else if (*g) {
                int p = (unsigned char)*g;
                if (p == '\\' && g[1]) {
                    next = g + 2;
                    p = (unsigned char)g[1];
                }
                ok = p == c || (fold && lower(p) == lower(c));
            }
            if (ok) {
                g = next;
                s++;
                continue;
            }
        } else if (!*g) {
            return true;
        }
        if (!star_g || !*star_s)
            return false;
        g = star_g; /* backtrack: the last '*' takes one more character */
        s = ++star_s;
    }
}

/* ---- growing strings ---- */

static bool strbuf_reserve(amx_strbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void amx_strbuf_add(amx_strbuf *b, const char *s, size_t n)
{
    if (!strbuf_reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void amx_strbuf_puts(amx_strbuf *b, const char *s)
{
    amx_strbuf_add(b, s, strlen(s));
}

void amx_strbuf_putc(amx_strbuf *b, char c)
{
    amx_strbuf_add(b, &c, 1);
}

void amx_strbuf_vprintf(amx_strbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        b->failed = true;
    } else if ((size_t)n < sizeof small) {
        amx_strbuf_add(b, small, (size_t)n);
    } else if (strbuf_reserve(b, (size_t)n)) {
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void amx_strbuf_printf(amx_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    amx_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *amx_strbuf_take(amx_strbuf *b, size_t *len)
{
    char *s = b->failed ? NULL : b->s ? b->s : calloc(1, 1);
    if (len)
        *len = s ? b->len : 0;
    if (!s)
        free(b->s);
    *b = (amx_strbuf){ 0 };
    return s;
}

void amx_strbuf_free(amx_strbuf *b)
{
    free(b->s);
    *b = (amx_strbuf){ 0 };
}

/* ---- dates: the proleptic Gregorian calendar, in UTC ---- */

/* Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void amx_time_utc(int64_t t, amx_tm *tm)
{
    int64_t days = t / 86400, secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *tm = (amx_tm){ (int)(yoe + era * 400 + (m <= 2)), m, d, (int)(secs / 3600),
                    (int)(secs / 60 % 60), (int)(secs % 60) };
}

void amx_time_iso8601(int64_t t, char *out, size_t size)
{
    amx_tm tm;
    amx_time_utc(t, &tm);
    snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.year, tm.month, tm.day, tm.hour,
             tm.min, tm.sec);
}

/* n digits at *s -> *v; advances *s. */
static bool digits(const char **s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*s)[i];
        if (c < '0' || c > '9')
            return false;
        *v = *v * 10 + (c - '0');
    }
    *s += n;
    return true;
}

bool amx_time_parse(const char *s, int64_t *t)
{
    int y, mo, d, h = 0, mi = 0, se = 0;
    if (!digits(&s, 4, &y) || *s++ != '-' || !digits(&s, 2, &mo) || *s++ != '-' ||
        !digits(&s, 2, &d))
        return false;
    if (*s == ' ' || *s == 'T') {
        s++;
        if (!digits(&s, 2, &h) || *s++ != ':' || !digits(&s, 2, &mi) || *s++ != ':' ||
            !digits(&s, 2, &se))
            return false;
        if (*s == 'Z')
            s++;
    }
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (*s || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return false;
    *t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return true;
}

/* ---- what the portability layer does the same way on every system ---- */

const char *amx_os_kind_text(amx_os_kind k)
{
    switch (k) {
    case AMX_OS_FILE: return "a file";
    case AMX_OS_DIR: return "a directory";
    case AMX_OS_FIFO: return "a FIFO";
    case AMX_OS_CHARDEV: return "a character device";
    case AMX_OS_BLOCKDEV: return "a block device";
    case AMX_OS_SOCKET: return "a socket";
    case AMX_OS_OTHER: break;
    }
    return "not a regular file";
}

int amx_os_path_join(const char *dir, const char *name, char *out, size_t size)
{
    int n;
    size_t dl = strlen(dir);
    if (!*dir || amx_os_path_is_absolute(name))
        n = snprintf(out, size, "%s", name);
    else if (!*name)
        n = snprintf(out, size, "%s", dir);
    else
        n = snprintf(out, size, "%s%s%s", dir, dir[dl - 1] == '/' ? "" : "/", name);
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_path_join_nocase(const char *dir, const char *name, size_t n, char *out, size_t size,
                            amx_os_stat *st)
{
    size_t dl = strlen(dir);
    bool sep = dl && dir[dl - 1] != '/';
    if (dl + sep + n >= size)
        return -ENAMETOOLONG;
    memcpy(out, dir, dl);
    if (sep)
        out[dl] = '/';
    memcpy(out + dl + sep, name, n);
    out[dl + sep + n] = '\0';
    if (amx_os_path_stat(out, st) == 0)
        return 0;
    amx_os_dir *d;
    if (amx_os_dir_open(dir, &d) != 0)
        return -ENOENT;
    amx_os_entry e;
    int err = 0, rc = -ENOENT;
    while (rc != 0 && amx_os_dir_next(d, &e, &err))
        if (e.err == 0 && strlen(e.name) == n && strncasecmp(e.name, name, n) == 0) {
            memcpy(out + dl + sep, e.name, n);
            *st = e.st;
            rc = 0;
        }
    amx_os_dir_close(d);
    return rc;
}

const char *amx_os_path_below(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (n && root[n - 1] == '/') /* a file system's root: "/", "C:/" */
        return strncmp(path, root, n) == 0 ? path + n : NULL;
    if (strncmp(path, root, n) != 0 || (path[n] && path[n] != '/'))
        return NULL;
    return path[n] ? path + n + 1 : "";
}

char *amx_os_read_file(const char *path, size_t *len)
{
    amx_os_file *f;
    int rc = amx_os_open_read(path, &f);
    if (rc < 0) {
        errno = -rc;
        return NULL;
    }
    amx_os_stat st;
    rc = amx_os_file_stat(f, &st);
    if (rc == 0 && (st.kind != AMX_OS_FILE || (uint64_t)st.size >= SIZE_MAX))
        rc = st.kind == AMX_OS_DIR ? -EISDIR : -EFBIG;
    char *buf = NULL;
    size_t got = 0;
    if (rc == 0) {
        buf = malloc((size_t)st.size + 1);
        rc = buf ? amx_os_read(f, buf, (size_t)st.size, &got) : -ENOMEM;
    }
    amx_os_close(f);
    if (rc < 0) {
        free(buf);
        errno = -rc;
        return NULL;
    }
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}
