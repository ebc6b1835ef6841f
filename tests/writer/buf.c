/* Test-side byte writer; see buf.h. Aborts on out-of-memory: it only runs in tests and tools. */
#include "buf.h"

#include "animidx/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void amxw_buf_free(amxw_buf *b)
{
    free(b->data);
    *b = (amxw_buf){ 0 };
}

static void reserve(amxw_buf *b, size_t n)
{
    if (b->cap - b->len >= n)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        fputs("amxw: out of memory\n", stderr);
        abort();
    }
    b->data = p;
    b->cap = cap;
}

void amxw_bytes(amxw_buf *b, const void *p, size_t n)
{
    if (!n)
        return;
    reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void amxw_zeros(amxw_buf *b, size_t n)
{
    reserve(b, n);
    memset(b->data + b->len, 0, n);
    b->len += n;
}

void amxw_u8(amxw_buf *b, uint8_t v) { amxw_bytes(b, &v, 1); }

void amxw_u16le(amxw_buf *b, uint16_t v)
{
    uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    amxw_bytes(b, p, 2);
}

void amxw_u32le(amxw_buf *b, uint32_t v)
{
    uint8_t p[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    amxw_bytes(b, p, 4);
}

void amxw_u16be(amxw_buf *b, uint16_t v)
{
    uint8_t p[2] = { (uint8_t)(v >> 8), (uint8_t)v };
    amxw_bytes(b, p, 2);
}

void amxw_u32be(amxw_buf *b, uint32_t v)
{
    uint8_t p[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    amxw_bytes(b, p, 4);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

void amxw_f32le(amxw_buf *b, float v) { amxw_u32le(b, f32_bits(v)); }
void amxw_f32be(amxw_buf *b, float v) { amxw_u32be(b, f32_bits(v)); }

void amxw_cstr(amxw_buf *b, const char *s) { amxw_bytes(b, s, strlen(s) + 1); }

void amxw_put_u32le(amxw_buf *b, size_t at, uint32_t v)
{
    b->data[at] = (uint8_t)v;
    b->data[at + 1] = (uint8_t)(v >> 8);
    b->data[at + 2] = (uint8_t)(v >> 16);
    b->data[at + 3] = (uint8_t)(v >> 24);
}

/* The handle is the offset of the header; bit 63 remembers "container". */
#define CONTAINER_BIT ((size_t)1 << (sizeof(size_t) * 8 - 1))

size_t amxw_chunk_begin(amxw_buf *b, uint32_t type, bool container)
{
    size_t at = b->len;
    amxw_u32le(b, type);
    amxw_u32le(b, 0);
    return container ? at | CONTAINER_BIT : at;
}

void amxw_chunk_end(amxw_buf *b, size_t handle)
{
    size_t at = handle & ~CONTAINER_BIT;
    uint32_t size = (uint32_t)(b->len - at - 8);
    if (handle & CONTAINER_BIT)
        size |= 0x80000000u;
    amxw_put_u32le(b, at + 4, size);
}

size_t amxw_mini_begin(amxw_buf *b, uint8_t type)
{
    size_t at = b->len;
    amxw_u8(b, type);
    amxw_u8(b, 0);
    return at;
}

void amxw_mini_end(amxw_buf *b, size_t handle)
{
    size_t size = b->len - handle - 2;
    if (size > 255) {
        fputs("amxw: mini-chunk larger than 255 bytes\n", stderr);
        abort();
    }
    b->data[handle + 1] = (uint8_t)size;
}

void amxw_mini_u32(amxw_buf *b, uint8_t type, uint32_t v)
{
    size_t m = amxw_mini_begin(b, type);
    amxw_u32le(b, v);
    amxw_mini_end(b, m);
}

void amxw_mini_u16(amxw_buf *b, uint8_t type, uint16_t v)
{
    size_t m = amxw_mini_begin(b, type);
    amxw_u16le(b, v);
    amxw_mini_end(b, m);
}

void amxw_mini_f32(amxw_buf *b, uint8_t type, const float *v, size_t n)
{
    size_t m = amxw_mini_begin(b, type);
    for (size_t i = 0; i < n; i++)
        amxw_f32le(b, v[i]);
    amxw_mini_end(b, m);
}

void amxw_mini_str(amxw_buf *b, uint8_t type, const char *s)
{
    size_t m = amxw_mini_begin(b, type);
    amxw_cstr(b, s);
    amxw_mini_end(b, m);
}

void amxw_chunk_str(amxw_buf *b, uint32_t type, const char *s)
{
    size_t c = amxw_chunk_begin(b, type, false);
    amxw_cstr(b, s);
    amxw_chunk_end(b, c);
}

int amxw_write_file(const amxw_buf *b, const char *path)
{
    int rc = amx_mkdir_parents(path, 0777);
    if (rc)
        return rc;
    FILE *f = amx_os_fopen(path, "w"); /* binary on every system */
    if (!f)
        return -errno;
    size_t n = b->len ? fwrite(b->data, 1, b->len, f) : 0; /* an empty buffer has no data */
    rc = n == b->len ? 0 : -errno;
    if (fclose(f) != 0 && !rc)
        rc = -errno;
    return rc ? rc : 0;
}
