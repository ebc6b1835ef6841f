/* Paths in the index are text (SQLite TEXT, JSON strings): a file name's bytes that are not
 * UTF-8 are stored as %XX, and a '%' that would read as such an escape (followed by two hex
 * digits) as %25. Every name is stored losslessly and two different names never look alike;
 * names that are UTF-8 and hold no "%XX" are stored unchanged. See animidx/index.h. */
#include "animidx/index.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool is_escape(const unsigned char *s)
{
    return s[0] == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0;
}

bool amx_path_needs_encoding(const char *raw)
{
    for (const unsigned char *s = (const unsigned char *)raw; *s;) {
        size_t n = amx__utf8_len(s, 4);
        if (!n || is_escape(s))
            return true;
        s += n;
    }
    return false;
}

char *amx_path_encode(const char *raw)
{
    size_t len = strlen(raw);
    char *out = malloc(3 * len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)raw; *s;) {
        size_t n = amx__utf8_len(s, 4);
        if (!n) {
            o += (size_t)sprintf(out + o, "%%%02X", *s);
            s++;
        } else if (is_escape(s)) {
            memcpy(out + o, "%25", 3);
            o += 3;
            s++;
        } else {
            memcpy(out + o, s, n);
            o += n;
            s += n;
        }
    }
    out[o] = '\0';
    return out;
}

char *amx_path_decode(const char *stored)
{
    size_t len = strlen(stored);
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)stored; *s;) {
        if (is_escape(s)) {
            out[o++] = (char)(hexval(s[1]) << 4 | hexval(s[2]));
            s += 3;
        } else {
            out[o++] = (char)*s++;
        }
    }
    out[o] = '\0';
    return out;
}
