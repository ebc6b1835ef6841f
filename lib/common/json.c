/* Streaming JSON writer; see json.h. */
#include "animidx/json.h"
#include "animidx/text.h"

#include <math.h>
#include <inttypes.h>
#include <string.h>

void amx_json_init(amx_json *j, FILE *out, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
}

void amx_json_init_buffer(amx_json *j, bool pretty)
{
    amx_json_init(j, NULL, pretty);
}

char *amx_json_take(amx_json *j, size_t *len)
{
    return amx_strbuf_take(&j->buf, len);
}

/* The writer's output: its FILE, or its own buffer. */
static void put(amx_json *j, const char *s, size_t n)
{
    if (j->out)
        fwrite(s, 1, n, j->out);
    else
        amx_strbuf_add(&j->buf, s, n);
}

static void puts_(amx_json *j, const char *s)
{
    put(j, s, strlen(s));
}

static void putc_(amx_json *j, char c)
{
    if (j->out)
        fputc(c, j->out);
    else
        amx_strbuf_putc(&j->buf, c);
}

static void indent(amx_json *j)
{
    if (!j->pretty)
        return;
    putc_(j, '\n');
    for (int i = 0; i < j->depth; i++)
        puts_(j, "  ");
}

/* Called before every value: the comma and indentation, unless the value follows a key. */
static void before_value(amx_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (j->need_comma[j->depth])
            putc_(j, ',');
        indent(j);
    }
    if (j->depth < 64)
        j->need_comma[j->depth] = true;
}

static void open_(amx_json *j, char c)
{
    before_value(j);
    putc_(j, c);
    if (j->depth < 63)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_(amx_json *j, char c)
{
    bool any = j->need_comma[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (any)
        indent(j);
    putc_(j, c);
}

void amx_json_begin_object(amx_json *j) { open_(j, '{'); }
void amx_json_end_object(amx_json *j) { close_(j, '}'); }
void amx_json_begin_array(amx_json *j) { open_(j, '['); }
void amx_json_end_array(amx_json *j) { close_(j, ']'); }

/* Escapes str into out (a FILE) or buf. */
static void escape(FILE *out, amx_strbuf *buf, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        /* the run of bytes that need no escape, in one write */
        const unsigned char *run = s;
        for (;;) {
            if (*s >= 0x20 && *s < 0x7F && *s != '"' && *s != '\\') {
                s++;
                continue;
            }
            unsigned cp = 0;
            size_t n = *s >= 0x80 ? amx_utf8_len(s, 4, &cp) : 0;
            if (!n || amx_text_is_control(cp))
                break;
            s += n;
        }
        if (s > run) {
            if (out)
                fwrite(run, 1, (size_t)(s - run), out);
            else
                amx_strbuf_add(buf, (const char *)run, (size_t)(s - run));
        }
        if (!*s)
            break;
        char e[8];
        unsigned cp = 0;
        size_t n = *s >= 0x80 ? amx_utf8_len(s, 4, &cp) : 0;
        unsigned char c = *s;
        s += n ? n : 1;
        if (n) /* C1 controls and U+2028/9: escaped, so no terminal or log reads them raw */
            snprintf(e, sizeof e, "\\u%04x", cp);
        else if (c == '"' || c == '\\')
            snprintf(e, sizeof e, "\\%c", c);
        else if (c == '\n')
            snprintf(e, sizeof e, "\\n");
        else if (c == '\t')
            snprintf(e, sizeof e, "\\t");
        else if (c == '\r')
            snprintf(e, sizeof e, "\\r");
        else if (c < 0x20 || c == 0x7F)
            snprintf(e, sizeof e, "\\u%04x", c);
        else
            snprintf(e, sizeof e, "\\ufffd"); /* not UTF-8 */
        if (out)
            fputs(e, out);
        else
            amx_strbuf_puts(buf, e);
    }
}

void amx_json_escape(FILE *out, const char *str)
{
    escape(out, NULL, str);
}

void amx_json_escape_buf(amx_strbuf *buf, const char *str)
{
    escape(NULL, buf, str);
}

void amx_json_key(amx_json *j, const char *key)
{
    before_value(j);
    putc_(j, '"');
    escape(j->out, &j->buf, key);
    puts_(j, j->pretty ? "\": " : "\":");
    j->after_key = true;
}

void amx_json_string(amx_json *j, const char *s)
{
    if (!s) {
        amx_json_null(j);
        return;
    }
    before_value(j);
    putc_(j, '"');
    escape(j->out, &j->buf, s);
    putc_(j, '"');
}

void amx_json_int(amx_json *j, int64_t v)
{
    before_value(j);
    char t[32];
    put(j, t, (size_t)snprintf(t, sizeof t, "%" PRId64, v));
}

void amx_json_number(amx_json *j, double v)
{
    if (!isfinite(v)) {
        amx_json_null(j);
        return;
    }
    before_value(j);
    if (v == 0)
        v = 0; /* no "-0" */
    char t[40];
    put(j, t, (size_t)snprintf(t, sizeof t, "%.9g", v));
}

void amx_json_bool(amx_json *j, bool v)
{
    before_value(j);
    puts_(j, v ? "true" : "false");
}

void amx_json_null(amx_json *j)
{
    before_value(j);
    puts_(j, "null");
}

void amx_json_kstring(amx_json *j, const char *key, const char *s) { amx_json_key(j, key); amx_json_string(j, s); }
void amx_json_kint(amx_json *j, const char *key, int64_t v) { amx_json_key(j, key); amx_json_int(j, v); }
void amx_json_knumber(amx_json *j, const char *key, double v) { amx_json_key(j, key); amx_json_number(j, v); }
void amx_json_kbool(amx_json *j, const char *key, bool v) { amx_json_key(j, key); amx_json_bool(j, v); }

void amx_json_raw(amx_json *j, const char *json)
{
    before_value(j);
    puts_(j, json);
}
