/* Output to a terminal. File and member names come from downloaded mods: a name holding
 * "\033]0;...\a" or "\033[2J" would be run by the terminal as a command when printed. When
 * stdout is a terminal, it is replaced by a stream that passes everything through but control
 * characters: C0 controls other than newline and tab, DEL, and the C1 controls (U+0080..U+009F
 * in UTF-8, or as single bytes) are written as \xNN. Output to a file or a pipe is untouched
 * (JSON escapes control characters itself). Error messages on a terminal go through
 * cli_term_escape the same way (cli_error). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Escapes s[0, n) into out (at least 4 * n + 1 bytes); *c2 carries a UTF-8 lead byte 0xC2 left
 * at the end of one piece into the next. Returns the bytes written. */
static size_t escape(const unsigned char *s, size_t n, char *out, bool *c2)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        if (*c2) {
            *c2 = false;
            if (c >= 0x80 && c <= 0x9F) { /* U+0080..U+009F: a C1 control */
                o += (size_t)sprintf(out + o, "\\xC2\\x%02X", c);
                continue;
            }
            out[o++] = (char)0xC2;
        }
        if (c == 0xC2) {
            *c2 = true;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
            o += (size_t)sprintf(out + o, "\\x%02X", c);
        else
            out[o++] = (char)c;
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
    bool c2;
} term_stream;

static ssize_t term_write(void *cookie, const char *buf, size_t n)
{
    term_stream *t = cookie;
    char out[4 * 1024 + 8];
    size_t done = 0;
    while (done < n) {
        size_t k = n - done < 1024 ? n - done : 1024;
        size_t o = escape((const unsigned char *)buf + done, k, out, &t->c2);
        if (write_all(t->fd, out, o) != 0)
            return done ? (ssize_t)done : -1;
        done += k;
    }
    return (ssize_t)n;
}

static int term_close(void *cookie)
{
    term_stream *t = cookie;
    if (t->c2)
        write_all(t->fd, "\xC2", 1);
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
    char *buf = malloc(4 * n + 8);
    if (!buf) {
        fputs(s, out);
        return;
    }
    bool c2 = false;
    size_t o = escape((const unsigned char *)s, n, buf, &c2);
    if (c2)
        buf[o++] = (char)0xC2;
    fwrite(buf, 1, o, out);
    free(buf);
}
