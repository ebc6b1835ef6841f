/* Output to a terminal. File and member names come from downloaded mods: a name holding
 * "\033]0;...\a" or "\033[2J" would be run by the terminal as a command when printed. When
 * stdout is a terminal, it is replaced by a stream that passes everything through but control
 * characters: C0 controls other than newline and tab, DEL, and the C1 controls (U+0080..U+009F
 * in UTF-8) are written as \xNN; only the colour sequences the command itself writes pass. Output to a file or a pipe is untouched
 * (JSON escapes control characters itself). Error messages on a terminal go through
 * cli_term_escape the same way (cli_error). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The colour sequences the command line writes itself (cli_sev_on, cli_color_off): they pass;
 * every other escape sequence is shown, not run. */
static const char *const colours[] = { "\033[1;31m", "\033[33m", "\033[36m", "\033[0m" };

typedef struct esc_state {
    bool c2;          /* a UTF-8 lead byte 0xC2 left at the end of one piece */
    char pend[8];     /* the start of a colour sequence left at the end of one piece */
    size_t npend;
} esc_state;

/* True when p[0, n) starts one of the colour sequences; *full when it is all of one. */
static bool colour_prefix(const char *p, size_t n, bool *full)
{
    *full = false;
    for (size_t i = 0; i < sizeof colours / sizeof colours[0]; i++) {
        size_t k = strlen(colours[i]);
        if (n <= k && memcmp(colours[i], p, n) == 0) {
            *full = n == k;
            return true;
        }
    }
    return false;
}

static size_t put_byte(unsigned c, char *out, esc_state *st)
{
    size_t o = 0;
    if (st->c2) {
        st->c2 = false;
        if (c >= 0x80 && c <= 0x9F) /* U+0080..U+009F: a C1 control */
            return (size_t)sprintf(out, "\\xC2\\x%02X", c);
        out[o++] = (char)0xC2;
    }
    if (c == 0xC2) {
        st->c2 = true;
        return o;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
        o += (size_t)sprintf(out + o, "\\x%02X", c);
    else
        out[o++] = (char)c;
    return o;
}

/* Escapes s[0, n) into out (at least 4 * n + 48 bytes), carrying what a piece ends in to the
 * next (st). Returns the bytes written. */
static size_t escape(const unsigned char *s, size_t n, char *out, esc_state *st)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        if (st->npend || c == 0x1B) {
            bool full;
            st->pend[st->npend++] = (char)c;
            if (colour_prefix(st->pend, st->npend, &full)) {
                if (full) {
                    memcpy(out + o, st->pend, st->npend);
                    o += st->npend;
                    st->npend = 0;
                }
                continue;
            }
            /* not one of ours: the ESC is shown, what followed it is looked at again */
            size_t k = st->npend;
            char again[8];
            memcpy(again, st->pend, k);
            st->npend = 0;
            o += put_byte((unsigned char)again[0], out + o, st);
            for (size_t j = 1; j < k; j++) {
                if ((unsigned char)again[j] == 0x1B) { /* may start a sequence of its own */
                    o += escape((const unsigned char *)again + j, k - j, out + o, st);
                    break;
                }
                o += put_byte((unsigned char)again[j], out + o, st);
            }
            continue;
        }
        o += put_byte(c, out + o, st);
    }
    return o;
}

/* What a stream ends in: a lead byte or the start of a sequence that never came whole. */
static size_t escape_end(char *out, esc_state *st)
{
    size_t o = 0;
    size_t k = st->npend;
    char rest[8];
    memcpy(rest, st->pend, k);
    st->npend = 0;
    for (size_t j = 0; j < k; j++)
        o += put_byte((unsigned char)rest[j], out + o, st);
    if (st->c2) {
        st->c2 = false;
        out[o++] = (char)0xC2;
    }
    return o;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

typedef struct term_stream {
    int fd;
    esc_state st;
} term_stream;

static ssize_t term_write(void *cookie, const char *buf, size_t n)
{
    term_stream *t = cookie;
    char out[4 * 1024 + 64];
    size_t done = 0;
    while (done < n) {
        size_t k = n - done < 1024 ? n - done : 1024;
        size_t o = escape((const unsigned char *)buf + done, k, out, &t->st);
        if (write_all(t->fd, out, o) != 0)
            return done ? (ssize_t)done : -1;
        done += k;
    }
    return (ssize_t)n;
}

static int term_close(void *cookie)
{
    term_stream *t = cookie;
    char out[64];
    size_t o = escape_end(out, &t->st);
    if (o)
        write_all(t->fd, out, o);
    free(t);
    return 0;
}

#if defined(__GLIBC__)
static FILE *real_stdout;

/* At exit: the escaping stream is flushed and closed, and stdout is itself again. */
static void term_done(void)
{
    FILE *f = stdout;
    stdout = real_stdout;
    fclose(f);
}
#endif

void cli_term_init(void)
{
#if defined(__GLIBC__)
    if (!isatty(STDOUT_FILENO))
        return;
    term_stream *t = calloc(1, sizeof *t);
    if (!t)
        return;
    t->fd = STDOUT_FILENO;
    cookie_io_functions_t io = { .write = term_write, .close = term_close };
    FILE *f = fopencookie(t, "w", io);
    if (!f) {
        free(t);
        return;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    fflush(stdout);
    real_stdout = stdout;
    stdout = f;
    atexit(term_done);
#endif
}

void cli_term_escape(FILE *out, const char *s)
{
    if (!isatty(fileno(out))) {
        fputs(s, out);
        return;
    }
    size_t n = strlen(s);
    char *buf = malloc(4 * n + 64);
    if (!buf) {
        fputs(s, out);
        return;
    }
    esc_state st = { 0 };
    size_t o = escape((const unsigned char *)s, n, buf, &st);
    o += escape_end(buf + o, &st);
    fwrite(buf, 1, o, out);
    free(buf);
}
