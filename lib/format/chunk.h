/*
 * The chunk walker shared by the chunked formats (Alamo ALO/ALA; W3D uses the same header).
 *
 *   chunk header (8 bytes, little-endian): u32 type, u32 size
 *     size bit 31 set   -> the body holds child chunks only
 *     size bit 31 clear -> the body holds data (or mini-chunks)
 *     body length = size & 0x7FFFFFFF
 *   mini-chunk header (2 bytes): u8 type, u8 size (no children)
 *
 * Children fill their parent exactly. A chunk that claims more bytes than its parent holds gets a
 * CHUNK_OVERRUN finding (TRUNCATED when it runs past the end of the file) and is clamped to what
 * is there; a parent always moves on by the chunk's
 * size, whatever its handler consumed. Whether a data chunk holds mini-chunks is decided by the
 * chunk type and its parent, never by the bytes.
 */
#ifndef AMX_CHUNK_H
#define AMX_CHUNK_H

#include "decoder.h"

typedef struct amx_chunk {
    uint32_t type;
    bool container;     /* bit 31 of the size */
    size_t offset;      /* absolute offset of the chunk header */
    size_t size;        /* body length as declared */
    amx_reader body;    /* reader over the body (clamped to the parent) */
} amx_chunk;

/* Reads the next chunk header from r and returns true, with c->body covering its body; r moves
 * past the whole chunk. Returns false at the end of r. A header cut short gives a TRUNCATED
 * finding, a body that overruns r a CHUNK_OVERRUN finding (the body is then clamped). */
bool amx__chunk_next(amx_dec *d, amx_reader *r, amx_chunk *c);

typedef struct amx_mini {
    uint8_t type;
    size_t offset;      /* absolute offset of the mini-chunk header */
    amx_reader body;
} amx_mini;

/* Same as amx__chunk_next for mini-chunks (u8 type, u8 size). */
bool amx__mini_next(amx_dec *d, amx_reader *r, amx_mini *m);

/* Reads a mini-chunk body as a u32/i32/f32 (or the first n floats). A body shorter than needed
 * gives a SIZE_MISMATCH finding and returns false; a longer one is tolerated with a finding. */
bool amx__mini_u32(amx_dec *d, const amx_mini *m, const char *ctx, uint32_t *out);
bool amx__mini_u16(amx_dec *d, const amx_mini *m, const char *ctx, uint16_t *out);
bool amx__mini_f32(amx_dec *d, const amx_mini *m, const char *ctx, float *out, size_t n);
/* A string body (NUL-terminated; the size includes the NUL): copied up to the first NUL. */
const char *amx__body_string(amx_dec *d, amx_reader body);

#endif
