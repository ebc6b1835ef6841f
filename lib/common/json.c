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

static void indent(amx_json *j)
{
    if (!j->pretty)
        return;
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
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
            fputc(',', j->out);
        indent(j);
    }
    if (j->depth < 64)
        j->need_comma[j->depth] = true;
}

static void open_(amx_json *j, char c)
{
    before_value(j);
    fputc(c, j->out);
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
    fputc(c, j->out);
}

void amx_json_begin_object(amx_json *j) { open_(j, '{'); }
void amx_json_end_object(amx_json *j) { close_(j, '}'); }
void amx_json_begin_array(amx_json *j) { open_(j, '['); }
void amx_json_end_array(amx_json *j) { close_(j, ']'); }

void amx_json_escape(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
            s++;
        } else if (c == '\n') {
            fputs("\\n", out);
            s++;
        } else if (c == '\t') {
            fputs("\\t", out);
            s++;
        } else if (c == '\r') {
            fputs("\\r", out);
            s++;
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(out, "\\u%04x", c);
            s++;
        } else if (c < 0x80) {
            fputc(c, out);
            s++;
        } else {
            /* (a NUL-terminated string: the decoder stops at the NUL, which continues nothing) */
            unsigned cp = 0;
            size_t n = amx_utf8_len(s, 4, &cp);
            if (n && amx_text_is_control(cp)) {
                /* C1 controls and U+2028/9: escaped, so no terminal or log reads them raw */
                fprintf(out, "\\u%04x", cp);
                s += n;
            } else if (n) {
                fwrite(s, 1, n, out);
                s += n;
            } else {
                fputs("\\ufffd", out);
                s++;
            }
        }
    }
}

void amx_json_key(amx_json *j, const char *key)
{
    before_value(j);
    fputc('"', j->out);
    amx_json_escape(j->out, key);
    fputs(j->pretty ? "\": " : "\":", j->out);
    j->after_key = true;
}

void amx_json_string(amx_json *j, const char *s)
{
    if (!s) {
        amx_json_null(j);
        return;
    }
    before_value(j);
    fputc('"', j->out);
    amx_json_escape(j->out, s);
    fputc('"', j->out);
}

void amx_json_int(amx_json *j, int64_t v)
{
    before_value(j);
    fprintf(j->out, "%" PRId64, v);
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
    fprintf(j->out, "%.9g", v);
}

void amx_json_bool(amx_json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void amx_json_null(amx_json *j)
{
    before_value(j);
    fputs("null", j->out);
}

void amx_json_kstring(amx_json *j, const char *key, const char *s) { amx_json_key(j, key); amx_json_string(j, s); }
void amx_json_kint(amx_json *j, const char *key, int64_t v) { amx_json_key(j, key); amx_json_int(j, v); }
void amx_json_knumber(amx_json *j, const char *key, double v) { amx_json_key(j, key); amx_json_number(j, v); }
void amx_json_kbool(amx_json *j, const char *key, bool v) { amx_json_key(j, key); amx_json_bool(j, v); }

void amx_json_raw(amx_json *j, const char *json)
{
    before_value(j);
    fputs(json, j->out);
}
