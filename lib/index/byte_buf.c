/*
 * A growing byte buffer: the index's own blobs (a clip's packed tracks, tracks.c; an INI file's
 * pending references, ini_refs_pending.c) with the unsigned LEB128 varints they are written in,
 * and the texts kept by offset (link.c's plan, bind_sage.c's row texts, scan.c's names of a
 * directory's entries and paths of its rows).
 */
#include "db_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool amx__byte_buf_reserve(amx__byte_buf *b, size_t more)
{
    if (more > SIZE_MAX / 2 - b->len)
        return false;
    if (b->len + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d)
        return false;
    b->data = d;
    b->cap = cap;
    return true;
}

void amx__byte_buf_varint(amx__byte_buf *b, uint64_t v)
{
    while (v >= 0x80) {
        b->data[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->data[b->len++] = (uint8_t)v;
}

bool amx__byte_buf_put_text(amx__byte_buf *b, const char *text, size_t *at)
{
    size_t len = strlen(text) + 1;
    if (!amx__byte_buf_reserve(b, len))
        return false;
    memcpy(b->data + b->len, text, len);
    *at = b->len;
    b->len += len;
    return true;
}

void amx__byte_buf_free(amx__byte_buf *b)
{
    free(b->data);
    *b = (amx__byte_buf){ 0 };
}

bool amx__varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return false;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}
