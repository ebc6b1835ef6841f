/*
 * Bit reader for word-packed bitstreams (Metroid Prime ANIM format 2), in the style of dav1d's
 * GetBits: a 64-bit state refilled a word at a time, a sticky error, and reads past the end
 * that yield zeros instead of touching memory outside the data.
 *
 * Bit order (AxioDL/metaforce WordBitmap / DNAANIM::BitstreamReader; docs/formats/metroid-prime.md
 * section 2.2, with a worked example): the data is a sequence
 * of big-endian u32 words; inside a word bits are taken from the least significant up. A field
 * that crosses a word boundary takes its low bits from the top of the current word and its
 * remaining high bits from the bottom of the next one. So the state keeps unread bits
 * right-aligned (next bit = bit 0) and a new word is ORed in above the bits still held.
 *
 * Only whole words are read: 1..3 trailing bytes that do not make a word are never used (the
 * format always stores whole words). Reading more bits than remain returns the bits that
 * remain, zero-extended, and latches `err`.
 *
 *   amx_bits b;
 *   amx_bits_init(&b, data, len);
 *   uint32_t v = amx_bits_get(&b, 5);      // 1 <= n <= 32
 *   int32_t d = amx_bits_get_signed(&b, 5); // two's complement, sign-extended
 *   if (b.err) ...
 */
#ifndef AMX_BITREADER_H
#define AMX_BITREADER_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct amx_bits {
    const uint8_t *ptr;   /* next word to load */
    const uint8_t *end;   /* end of the last whole word */
    uint64_t state;       /* unread bits, next bit in bit 0 */
    unsigned bits_left;   /* valid bits in state (0..64) */
    uint64_t consumed;    /* bits returned so far (including zeros past the end) */
    bool err;             /* a read went past the end of the data */
} amx_bits;

static inline void amx_bits_init(amx_bits *b, const uint8_t *data, size_t len)
{
    b->ptr = data;
    b->end = data + (len - len % 4);
    b->state = 0;
    b->bits_left = 0;
    b->consumed = 0;
    b->err = false;
}

/* Loads whole words while at least 32 bits of room remain in the state. */
static inline void amx_bits_refill(amx_bits *b)
{
    while (b->bits_left <= 32 && b->end - b->ptr >= 4) {
        uint32_t w = (uint32_t)b->ptr[0] << 24 | (uint32_t)b->ptr[1] << 16 |
                     (uint32_t)b->ptr[2] << 8 | (uint32_t)b->ptr[3];
        b->state |= (uint64_t)w << b->bits_left;
        b->bits_left += 32;
        b->ptr += 4;
    }
}

/* The next n bits (1 <= n <= 32) as an unsigned value, first bit in bit 0. */
static inline uint32_t amx_bits_get(amx_bits *b, unsigned n)
{
    assert(n >= 1 && n <= 32);
    if (b->bits_left < n)
        amx_bits_refill(b);
    b->consumed += n;
    uint64_t mask = ((uint64_t)1 << n) - 1;
    if (b->bits_left < n) {
        /* Past the end: what is left, then zeros. */
        uint32_t v = (uint32_t)(b->state & mask);
        b->state = 0;
        b->bits_left = 0;
        b->err = true;
        return v;
    }
    uint32_t v = (uint32_t)(b->state & mask);
    b->state >>= n;
    b->bits_left -= n;
    return v;
}

/* The next n bits (1 <= n <= 32) as a two's-complement value, sign-extended. */
static inline int32_t amx_bits_get_signed(amx_bits *b, unsigned n)
{
    uint32_t v = amx_bits_get(b, n);
    int64_t s = (int64_t)v;
    if (n < 32 ? (v >> (n - 1)) & 1u : (v >> 31) & 1u)
        s -= (int64_t)1 << n;
    return (int32_t)s;
}

/* Bits read so far (counting the zeros returned past the end). */
static inline uint64_t amx_bits_pos(const amx_bits *b) { return b->consumed; }

/* Drops the unread bits of the current word, so the next read starts at a word boundary. */
static inline void amx_bits_align(amx_bits *b)
{
    unsigned drop = (unsigned)(b->consumed % 32);
    if (drop) {
        unsigned n = 32 - drop;
        while (n) {
            unsigned k = n > 16 ? 16 : n;
            amx_bits_get(b, k);
            n -= k;
        }
    }
}

#endif
