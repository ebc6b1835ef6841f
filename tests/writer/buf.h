/*
 * Test-side byte writer: a growable buffer with little/big-endian writers and nested chunks.
 * The sample writers (tests/writer/<format>_writer.c) build files from parameters through it, so
 * tests can assert every decoded value against the value written.
 *
 *   amxw_buf b = {0};
 *   size_t c = amxw_chunk_begin(&b, 0x200, true);   // container: size gets bit 31
 *   ...
 *   amxw_chunk_end(&b, c);                          // patches the size
 *   amxw_buf_free(&b);
 */
#ifndef AMXW_BUF_H
#define AMXW_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct amxw_buf {
    uint8_t *data;
    size_t len, cap;
} amxw_buf;

void amxw_buf_free(amxw_buf *b);
void amxw_bytes(amxw_buf *b, const void *p, size_t n);
void amxw_zeros(amxw_buf *b, size_t n);
void amxw_u8(amxw_buf *b, uint8_t v);
void amxw_u16le(amxw_buf *b, uint16_t v);
void amxw_u32le(amxw_buf *b, uint32_t v);
void amxw_f32le(amxw_buf *b, float v);
void amxw_u16be(amxw_buf *b, uint16_t v);
void amxw_u32be(amxw_buf *b, uint32_t v);
void amxw_f32be(amxw_buf *b, float v);
void amxw_cstr(amxw_buf *b, const char *s);            /* with the NUL */
void amxw_put_u32le(amxw_buf *b, size_t at, uint32_t v); /* patch in place */

/* Chunks: u32 type, u32 size (| 0x80000000 for containers). Returns a handle for _end. */
size_t amxw_chunk_begin(amxw_buf *b, uint32_t type, bool container);
void amxw_chunk_end(amxw_buf *b, size_t handle);
/* Mini-chunks: u8 type, u8 size. */
size_t amxw_mini_begin(amxw_buf *b, uint8_t type);
void amxw_mini_end(amxw_buf *b, size_t handle);
void amxw_mini_u32(amxw_buf *b, uint8_t type, uint32_t v);
void amxw_mini_u16(amxw_buf *b, uint8_t type, uint16_t v);
void amxw_mini_f32(amxw_buf *b, uint8_t type, const float *v, size_t n);
void amxw_mini_str(amxw_buf *b, uint8_t type, const char *s);
/* A data chunk holding a NUL-terminated string. */
void amxw_chunk_str(amxw_buf *b, uint32_t type, const char *s);

/* Writes the buffer to a file (creating parent directories); returns 0 or -errno. */
int amxw_write_file(const amxw_buf *b, const char *path);

#endif
