/* Text for people: control characters escaped, one line per record. See animidx/text.h. */
#include "animidx/text.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t amx_utf8_len(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0], min, v;
    size_t k;
    if (c < 0x80) {
        k = 1;
        min = 0;
        v = c;
    } else if (c >= 0xC2 && c <= 0xDF) {
        k = 2;
        min = 0x80;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        min = 0x800;
        v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        min = 0x10000;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    if (cp)
        *cp = v;
    return k;
}

bool amx_text_is_control(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

size_t amx_text_escape(const char *str, size_t n, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)str;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t k = amx_utf8_len(s + i, n - i, &cp);
        bool escape = k == 0 || amx_text_is_control(cp);
        if (k == 0)
            k = 1; /* a byte that is not UTF-8: that byte alone */
        if (!escape) {
            if (out)
                memcpy(out + o, s + i, k);
            o += k;
        } else {
            for (size_t j = 0; j < k; j++, o += 4)
                if (out) {
                    out[o] = '\\';
                    out[o + 1] = 'x';
                    out[o + 2] = hex[s[i + j] >> 4];
                    out[o + 3] = hex[s[i + j] & 15];
                }
        }
        i += k;
    }
    return o;
}

/* ---- the formatter ---- */

typedef struct sink {
    char *buf;
    size_t len, n;     /* n: bytes of the whole text so far (may exceed len) */
} sink;

static void put(sink *k, const char *p, size_t n)
{
    if (k->n < k->len) {
        size_t room = k->len - k->n;
        memcpy(k->buf + k->n, p, n < room ? n : room);
    }
    k->n += n;
}

static void pad(sink *k, size_t n)
{
    static const char spaces[] = "                                ";
    while (n) {
        size_t c = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        put(k, spaces, c);
        n -= c;
    }
}

/* A string argument: escaped (unless kept), then padded to the width as %s would be. */
static void put_string(sink *k, const char *s, bool has_prec, int prec, int width, bool left,
                       bool (*keep)(const char *))
{
    if (!s)
        s = "(null)";
    size_t n = has_prec ? strnlen(s, (size_t)(prec < 0 ? 0 : prec)) : strlen(s);
    bool raw = keep && keep(s);
    size_t shown = raw ? n : amx_text_escape(s, n, NULL);
    size_t w = width > 0 ? (size_t)width : 0;
    if (!left && shown < w)
        pad(k, w - shown);
    if (raw) {
        put(k, s, n);
    } else {
        char stack[512];
        char *e = shown <= sizeof stack ? stack : malloc(shown);
        if (e) {
            amx_text_escape(s, n, e);
            put(k, e, shown);
            if (e != stack)
                free(e);
        } else {
            k->n += shown; /* out of memory: the length is still reported */
        }
    }
    if (left && shown < w)
        pad(k, w - shown);
}

/* Any other conversion: formatted by snprintf from a spec rebuilt with the width and precision
 * resolved (so '*' takes no argument there) and the integer widened to intmax_t. */
static void put_other(sink *k, const char *flags, size_t nflags, int width, bool has_prec,
                      int prec, char conv, const char *lenmod, va_list *ap)
{
    char spec[64];
    int w = snprintf(spec, sizeof spec, "%%%.*s", (int)nflags, flags);
    if (width > 0)
        w += snprintf(spec + w, sizeof spec - (size_t)w, "%d", width);
    if (has_prec)
        w += snprintf(spec + w, sizeof spec - (size_t)w, ".%d", prec < 0 ? 0 : prec);
    char small[128];
    char *out = small;
    int n = -1;
    /* the same call twice when it does not fit (a %f of a huge value): the argument is taken
     * once, into v */
    union {
        intmax_t i;
        uintmax_t u;
        double d;
        long double ld;
        void *p;
        int c;
    } v;
    enum { V_I, V_U, V_D, V_LD, V_P, V_C } kind;
    bool l = strcmp(lenmod, "l") == 0, ll = strcmp(lenmod, "ll") == 0,
         z = strcmp(lenmod, "z") == 0, j = strcmp(lenmod, "j") == 0,
         t = strcmp(lenmod, "t") == 0, L = strcmp(lenmod, "L") == 0;
    switch (conv) {
    case 'd':
    case 'i':
        kind = V_I;
        v.i = ll ? va_arg(*ap, long long) : l ? va_arg(*ap, long)
            : z ? (intmax_t)va_arg(*ap, size_t) : j ? va_arg(*ap, intmax_t)
            : t ? va_arg(*ap, ptrdiff_t) : va_arg(*ap, int);
        if (strcmp(lenmod, "hh") == 0)
            v.i = (signed char)v.i;
        else if (strcmp(lenmod, "h") == 0)
            v.i = (short)v.i;
        break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
        kind = V_U;
        v.u = ll ? va_arg(*ap, unsigned long long) : l ? va_arg(*ap, unsigned long)
            : z ? va_arg(*ap, size_t) : j ? va_arg(*ap, uintmax_t)
            : t ? (uintmax_t)va_arg(*ap, ptrdiff_t) : va_arg(*ap, unsigned);
        if (strcmp(lenmod, "hh") == 0)
            v.u = (unsigned char)v.u;
        else if (strcmp(lenmod, "h") == 0)
            v.u = (unsigned short)v.u;
        break;
    case 'c':
        kind = V_C;
        v.c = va_arg(*ap, int);
        break;
    case 'p':
        kind = V_P;
        v.p = va_arg(*ap, void *);
        break;
    default: /* f F e E g G a A */
        kind = L ? V_LD : V_D;
        if (L)
            v.ld = va_arg(*ap, long double);
        else
            v.d = va_arg(*ap, double);
        break;
    }
    snprintf(spec + w, sizeof spec - (size_t)w, "%s%c",
             kind == V_I || kind == V_U ? "j" : kind == V_LD ? "L" : "", conv);
    /* spec is built from a format the compiler checked (amx_text_format's attribute) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    for (int pass = 0; pass < 2; pass++) {
        size_t size = out == small ? sizeof small : (size_t)n + 1;
        switch (kind) {
        case V_I: n = snprintf(out, size, spec, v.i); break;
        case V_U: n = snprintf(out, size, spec, v.u); break;
        case V_D: n = snprintf(out, size, spec, v.d); break;
        case V_LD: n = snprintf(out, size, spec, v.ld); break;
        case V_P: n = snprintf(out, size, spec, v.p); break;
        case V_C: n = snprintf(out, size, spec, v.c); break;
        }
        char *bigger = n >= 0 && (size_t)n >= size && pass == 0 ? malloc((size_t)n + 1) : NULL;
        if (!bigger)
            break;
        out = bigger;
    }
#pragma GCC diagnostic pop
    if (n > 0) {
        if (kind == V_C && n == 1 && (unsigned char)v.c < 0x80 &&
            amx_text_is_control((unsigned char)v.c)) {
            /* a control character given as %c is escaped too */
            char e[4];
            amx_text_escape(out, 1, e);
            put(k, e, 4);
        } else {
            put(k, out, out == small && (size_t)n >= sizeof small ? sizeof small - 1 : (size_t)n);
        }
    }
    if (out != small)
        free(out);
}

int amx_text_vformat(char *buf, size_t len, bool (*keep)(const char *s), const char *fmt,
                     va_list ap_in)
{
    sink k = { buf, len, 0 };
    va_list ap;
    va_copy(ap, ap_in);
    for (const char *p = fmt; *p;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            put(&k, p, strlen(p));
            break;
        }
        put(&k, p, (size_t)(pct - p));
        p = pct + 1;
        if (*p == '%') {
            put(&k, "%", 1);
            p++;
            continue;
        }
        const char *flags = p;
        while (*p && strchr("-+ #0", *p))
            p++;
        size_t nflags = (size_t)(p - flags);
        bool left = memchr(flags, '-', nflags) != NULL;
        int width = 0;
        if (*p == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = width == INT_MIN ? 0 : -width;
            }
            p++;
        } else {
            while (*p >= '0' && *p <= '9')
                width = width * 10 + (*p++ - '0');
        }
        bool has_prec = false;
        int prec = 0;
        if (*p == '.') {
            has_prec = true;
            p++;
            if (*p == '*') {
                prec = va_arg(ap, int);
                if (prec < 0)
                    has_prec = false; /* a negative precision is taken as none */
                p++;
            } else {
                while (*p >= '0' && *p <= '9')
                    prec = prec * 10 + (*p++ - '0');
            }
        }
        char lenmod[3] = "";
        if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l')) {
            lenmod[0] = p[0];
            lenmod[1] = p[1];
            p += 2;
        } else if (*p && strchr("hlzjtL", *p)) {
            lenmod[0] = *p++;
        }
        char conv = *p;
        if (!conv)
            break;
        p++;
        if (conv == 's') {
            /* "-" is the only flag %s takes here; the others mean nothing for strings */
            put_string(&k, va_arg(ap, const char *), has_prec, prec, width, left, keep);
        } else if (strchr("diuxXocpfFeEgGaA", conv)) {
            /* width and flags: the '-' of a negative '*' width joins the flags */
            char fl[8];
            size_t nf = nflags < sizeof fl - 2 ? nflags : sizeof fl - 2;
            memcpy(fl, flags, nf);
            if (left && !memchr(fl, '-', nf))
                fl[nf++] = '-';
            put_other(&k, fl, nf, width, has_prec, prec, conv, lenmod, &ap);
        }
        /* anything else (%n, an unknown conversion) writes nothing */
    }
    va_end(ap);
    if (len)
        buf[k.n < len ? k.n : len - 1] = '\0';
    return k.n > INT32_MAX ? INT32_MAX : (int)k.n;
}

int amx_text_format(char *buf, size_t len, bool (*keep)(const char *s), const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = amx_text_vformat(buf, len, keep, fmt, ap);
    va_end(ap);
    return n;
}

/* ---- texts in this system's words ---- */

static void system_path(amx_strbuf *b, const char *p, size_t n)
{
    static const struct {
        const char *name;
        amx_os_user_dir dir;
    } dirs[] = { { "CONFIG", AMX_OS_CONFIG_DIR }, { "STATE", AMX_OS_STATE_DIR },
                 { "CACHE", AMX_OS_CACHE_DIR } };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        size_t k = strlen(dirs[i].name);
        if (n >= k && memcmp(p, dirs[i].name, k) == 0 && (n == k || p[k] == '/')) {
            amx_strbuf_puts(b, amx_os_user_dir_text(dirs[i].dir));
            p += k;
            n -= k;
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        amx_strbuf_putc(b, p[i] == '/' ? amx_os_separator() : p[i]);
}

void amx_text_put_for_system(FILE *out, const char *text, int indent)
{
    amx_strbuf b = { 0 };
    amx_text_for_system(&b, text);
    char *s = amx_strbuf_take(&b, NULL);
    for (const char *p = s ? s : text; *p; p++) {
        fputc(*p, out);
        if (*p == '\n' && p[1] && indent > 0)
            fprintf(out, "%*s", indent, "");
    }
    free(s);
}

void amx_text_for_system(amx_strbuf *b, const char *text)
{
    const char *p = text;
    for (;;) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        if (!close) {
            amx_strbuf_puts(b, p);
            return;
        }
        amx_strbuf_add(b, p, (size_t)(open - p));
        const char *in = open + 2;
        size_t n = (size_t)(close - in);
        const char *bar = memchr(in, '|', n);
        if (bar) {
            const char *posix = amx_os_pick(in, bar + 1);
            amx_strbuf_add(b, posix, posix == in ? (size_t)(bar - in) : (size_t)(close - bar - 1));
        } else {
            system_path(b, in, n);
        }
        p = close + 2;
    }
}

/* ---- near misses ---- */

static int ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static bool same_folded(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i]))
            return false;
    return true;
}

bool amx_text_one_edit(const char *a, size_t na, const char *b, size_t nb)
{
    if (na > nb)
        return amx_text_one_edit(b, nb, a, na);
    if (nb - na > 1)
        return false;
    size_t i = 0;
    while (i < na && ascii_lower((unsigned char)a[i]) == ascii_lower((unsigned char)b[i]))
        i++;
    if (na < nb) /* b has one character more, at i */
        return same_folded(a + i, b + i + 1, na - i);
    return i == na || same_folded(a + i + 1, b + i + 1, na - i - 1) || /* changed at i */
           (i + 1 < na && ascii_lower((unsigned char)a[i]) == ascii_lower((unsigned char)b[i + 1]) &&
            ascii_lower((unsigned char)a[i + 1]) == ascii_lower((unsigned char)b[i]) &&
            same_folded(a + i + 2, b + i + 2, na - i - 2)); /* swapped at i */
}
