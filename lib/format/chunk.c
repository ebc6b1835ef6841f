/* Chunk and mini-chunk walking for the chunked formats; see chunk.h for the layout. */
#include "chunk.h"

bool amx__chunk_next(amx_dec *d, amx_reader *r, amx_chunk *c)
{
    if (amx_reader_eof(r) || d->out_of_memory)
        return false;
    size_t at = amx_reader_tell(r);
    if (amx_reader_left(r) < 8) {
        amx__finding(d, AMX_C_TRUNCATED, (int64_t)at, NULL,
                     "chunk header cut short: %zu of 8 bytes left", amx_reader_left(r));
        amx_reader_skip(r, amx_reader_left(r));
        return false;
    }
    c->offset = at;
    c->type = amx_read_u32le(r);
    uint32_t raw = amx_read_u32le(r);
    c->container = (raw & 0x80000000u) != 0;
    c->size = raw & 0x7FFFFFFFu;
    if (c->size > amx_reader_left(r)) {
        /* Past the end of the file: the file was cut short. Inside it: a size field is wrong. */
        if (r->end == d->r.end)
            amx__finding(d, AMX_C_TRUNCATED, (int64_t)at, NULL,
                         "chunk 0x%x claims %zu bytes but the file ends %zu bytes after its header",
                         (unsigned)c->type, c->size, amx_reader_left(r));
        else
            amx__finding(d, AMX_C_CHUNK_OVERRUN, (int64_t)at, NULL,
                         "chunk 0x%x claims %zu bytes but only %zu are left in its parent",
                         (unsigned)c->type, c->size, amx_reader_left(r));
    }
    c->body = amx_reader_sub(r, c->size);
    c->body.err = false;
    return true;
}

bool amx__mini_next(amx_dec *d, amx_reader *r, amx_mini *m)
{
    if (amx_reader_eof(r) || d->out_of_memory)
        return false;
    size_t at = amx_reader_tell(r);
    if (amx_reader_left(r) < 2) {
        amx__finding(d, AMX_C_TRUNCATED, (int64_t)at, NULL, "mini-chunk header cut short");
        amx_reader_skip(r, amx_reader_left(r));
        return false;
    }
    m->offset = at;
    m->type = amx_read_u8(r);
    size_t size = amx_read_u8(r);
    if (size > amx_reader_left(r)) {
        if (r->end == d->r.end)
            amx__finding(d, AMX_C_TRUNCATED, (int64_t)at, NULL,
                         "mini-chunk 0x%02x claims %zu bytes but the file ends %zu bytes after its header",
                         m->type, size, amx_reader_left(r));
        else
            amx__finding(d, AMX_C_CHUNK_OVERRUN, (int64_t)at, NULL,
                         "mini-chunk 0x%02x claims %zu bytes but only %zu are left in its chunk",
                         m->type, size, amx_reader_left(r));
    }
    m->body = amx_reader_sub(r, size);
    m->body.err = false;
    return true;
}

static bool mini_fixed(amx_dec *d, const amx_mini *m, const char *ctx, size_t need)
{
    size_t have = amx_reader_left(&m->body);
    if (have < need) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)m->offset, ctx,
                     "mini-chunk 0x%02x holds %zu bytes, %zu needed", m->type, have, need);
        return false;
    }
    if (have > need)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)m->offset, ctx,
                     "mini-chunk 0x%02x holds %zu bytes, %zu expected; the rest is ignored",
                     m->type, have, need);
    return true;
}

bool amx__mini_u32(amx_dec *d, const amx_mini *m, const char *ctx, uint32_t *out)
{
    if (!mini_fixed(d, m, ctx, 4))
        return false;
    amx_reader b = m->body;
    *out = amx_read_u32le(&b);
    return true;
}

bool amx__mini_u16(amx_dec *d, const amx_mini *m, const char *ctx, uint16_t *out)
{
    if (!mini_fixed(d, m, ctx, 2))
        return false;
    amx_reader b = m->body;
    *out = amx_read_u16le(&b);
    return true;
}

bool amx__mini_f32(amx_dec *d, const amx_mini *m, const char *ctx, float *out, size_t n)
{
    if (!mini_fixed(d, m, ctx, 4 * n))
        return false;
    amx_reader b = m->body;
    for (size_t i = 0; i < n; i++) {
        size_t at = amx_reader_tell(&b);
        out[i] = amx_read_f32le(&b);
        if (!amx__check_finite(d, out[i], (int64_t)at, ctx, "value"))
            out[i] = 0.0f;
    }
    return true;
}

const char *amx__body_string(amx_dec *d, amx_reader body)
{
    size_t n = amx_reader_left(&body);
    const uint8_t *p = amx_reader_take(&body, n);
    return amx__strndup(d, p ? p : (const uint8_t *)"", p ? n : 0);
}
