/*
 * The one bounds-checked byte reader every decoder uses.
 *
 * A reader is a cursor over a borrowed span. A read past the end returns zero (or NULL for
 * spans), latches `err` and moves the cursor to the end, so decoders can read a whole record
 * and check `err` once, and the code reads like the format's layout. No decoder casts bytes to
 * structs or integers: every multi-byte value goes through these functions.
 *
 * Bounds checks are written as subtractions (n > len - pos), never as additions that could wrap.
 */
#ifndef AMX_READER_H
#define AMX_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct amx_reader {
    const uint8_t *base; /* start of the whole file: offsets are reported from here */
    size_t start;        /* first byte of this reader's window, as an offset from base */
    size_t end;          /* one past the last byte of the window, as an offset from base */
    size_t pos;          /* cursor, as an offset from base; start <= pos <= end */
    bool err;            /* a read went past the end of the window */
} amx_reader;

static inline amx_reader amx_reader_make(const uint8_t *data, size_t len)
{
    return (amx_reader){ .base = data, .start = 0, .end = len, .pos = 0, .err = false };
}

static inline size_t amx_reader_left(const amx_reader *r) { return r->end - r->pos; }
static inline size_t amx_reader_tell(const amx_reader *r) { return r->pos; }
static inline bool amx_reader_eof(const amx_reader *r) { return r->pos >= r->end; }

/* Returns a pointer to the next n bytes and advances, or NULL (err latched, cursor at end). */
static inline const uint8_t *amx_reader_take(amx_reader *r, size_t n)
{
    if (n > r->end - r->pos) {
        r->pos = r->end;
        r->err = true;
        return NULL;
    }
    const uint8_t *p = r->base + r->pos;
    r->pos += n;
    return p;
}

/* Like take, without advancing. */
static inline const uint8_t *amx_reader_peek(const amx_reader *r, size_t n)
{
    if (n > r->end - r->pos)
        return NULL;
    return r->base + r->pos;
}

static inline bool amx_reader_skip(amx_reader *r, size_t n) { return amx_reader_take(r, n) != NULL; }

/* Moves the cursor to an absolute offset inside the window; false (err latched) if outside. */
static inline bool amx_reader_seek(amx_reader *r, size_t offset)
{
    if (offset < r->start || offset > r->end) {
        r->pos = r->end;
        r->err = true;
        return false;
    }
    r->pos = offset;
    return true;
}

/* A child reader over the next n bytes (clamped to what is left; err latched on the child when
 * it had to be clamped). The parent moves past those bytes whatever the child consumes. */
static inline amx_reader amx_reader_sub(amx_reader *r, size_t n)
{
    amx_reader c = { .base = r->base, .start = r->pos, .pos = r->pos, .err = false };
    if (n > r->end - r->pos) {
        n = r->end - r->pos;
        c.err = true;
    }
    c.end = r->pos + n;
    r->pos += n;
    return c;
}

static inline uint8_t amx_read_u8(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 1);
    return p ? p[0] : 0;
}

static inline uint16_t amx_read_u16le(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 2);
    return p ? (uint16_t)((uint16_t)p[0] | (uint16_t)p[1] << 8) : 0;
}

static inline uint16_t amx_read_u16be(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 2);
    return p ? (uint16_t)((uint16_t)p[0] << 8 | (uint16_t)p[1]) : 0;
}

static inline uint32_t amx_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t amx_load_u32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint32_t amx_read_u32le(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 4);
    return p ? amx_load_u32le(p) : 0;
}

static inline uint32_t amx_read_u32be(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 4);
    return p ? amx_load_u32be(p) : 0;
}

static inline uint64_t amx_read_u64le(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 8);
    return p ? (uint64_t)amx_load_u32le(p) | (uint64_t)amx_load_u32le(p + 4) << 32 : 0;
}

static inline uint64_t amx_read_u64be(amx_reader *r)
{
    const uint8_t *p = amx_reader_take(r, 8);
    return p ? (uint64_t)amx_load_u32be(p) << 32 | (uint64_t)amx_load_u32be(p + 4) : 0;
}

static inline int16_t amx_read_i16le(amx_reader *r) { return (int16_t)amx_read_u16le(r); }
static inline int16_t amx_read_i16be(amx_reader *r) { return (int16_t)amx_read_u16be(r); }
static inline int32_t amx_read_i32le(amx_reader *r) { return (int32_t)amx_read_u32le(r); }
static inline int32_t amx_read_i32be(amx_reader *r) { return (int32_t)amx_read_u32be(r); }

static inline float amx_bits_to_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float amx_read_f32le(amx_reader *r) { return amx_bits_to_f32(amx_read_u32le(r)); }
static inline float amx_read_f32be(amx_reader *r) { return amx_bits_to_f32(amx_read_u32be(r)); }

/* Overflow-checked size arithmetic: false when the result does not fit. */
static inline bool amx_mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

static inline bool amx_add_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* True when n elements of elem_size bytes fit in what is left of the reader. */
static inline bool amx_reader_has(const amx_reader *r, size_t n, size_t elem_size)
{
    size_t bytes;
    return amx_mul_size(n, elem_size, &bytes) && bytes <= amx_reader_left(r);
}

#endif
