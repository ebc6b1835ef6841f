/* Test-side writer of W3D files and BIG archives; see w3d_writer.h. */
#include "w3d_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static size_t begin(amxw_buf *b, uint32_t id, bool container, bool legacy)
{
    return amxw_chunk_begin(b, id, container && !legacy);
}

/* A fixed-size name field, NUL-padded (no NUL when the name fills it). */
static void name_field(amxw_buf *b, const char *s, size_t n)
{
    size_t len = s ? strlen(s) : 0;
    if (len > n)
        len = n;
    if (len)
        amxw_bytes(b, s, len);
    amxw_zeros(b, n - len);
}

static size_t start_of(size_t handle)
{
    return handle & ~((size_t)1 << (sizeof(size_t) * 8 - 1));
}

/* ---- hierarchy ---- */

static void hierarchy_header(amxw_buf *b, const amxw_w3d_hierarchy *h, size_t *at)
{
    size_t c = amxw_chunk_begin(b, 0x101, false);
    *at = c;
    amxw_u32le(b, h->version ? h->version : AMXW_W3D_VERSION(4, 1));
    name_field(b, h->name, 16);
    amxw_u32le(b, h->override_num_pivots ? h->num_pivots : h->pivot_count);
    for (int k = 0; k < 3; k++)
        amxw_f32le(b, h->center[k]);
    amxw_chunk_end(b, c);
}

static void hierarchy_pivots(amxw_buf *b, const amxw_w3d_hierarchy *h, size_t *at)
{
    size_t c = amxw_chunk_begin(b, 0x102, false);
    *at = c;
    for (uint32_t i = 0; i < h->pivot_count; i++) {
        const amxw_w3d_pivot *p = &h->pivots[i];
        name_field(b, p->name, 16);
        amxw_u32le(b, p->parent);
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, p->translation[k]);
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, p->euler[k]);
        for (int k = 0; k < 4; k++)
            amxw_f32le(b, p->rotation[k]);
    }
    amxw_chunk_end(b, c);
}

size_t amxw_w3d_hierarchy_write(amxw_buf *b, const amxw_w3d_hierarchy *h,
                                amxw_w3d_hierarchy_layout *layout)
{
    amxw_w3d_hierarchy_layout lay = { 0 };
    size_t c = begin(b, 0x100, true, h->legacy);
    lay.chunk = start_of(c);
    if (h->pivots_first) {
        hierarchy_pivots(b, h, &lay.pivots);
        if (!h->omit_header)
            hierarchy_header(b, h, &lay.header);
    } else {
        if (!h->omit_header)
            hierarchy_header(b, h, &lay.header);
        hierarchy_pivots(b, h, &lay.pivots);
    }
    if (h->fixups) {
        size_t f = amxw_chunk_begin(b, 0x103, false);
        lay.fixups = f;
        for (uint32_t i = 0; i < h->pivot_count; i++)
            for (int k = 0; k < 12; k++)
                amxw_f32le(b, k % 4 == k / 4 ? 1.0f : 0.0f);
        amxw_chunk_end(b, f);
    }
    amxw_chunk_end(b, c);
    if (layout)
        *layout = lay;
    return lay.chunk;
}

/* ---- classic animation ---- */

static void anim_header(amxw_buf *b, const amxw_w3d_anim *a, size_t *at)
{
    size_t c = amxw_chunk_begin(b, 0x201, false);
    *at = c;
    amxw_u32le(b, a->version ? a->version : AMXW_W3D_VERSION(4, 1));
    name_field(b, a->name, 16);
    name_field(b, a->hierarchy, 16);
    amxw_u32le(b, a->frames);
    amxw_u32le(b, a->fps);
    amxw_chunk_end(b, c);
}

size_t amxw_w3d_anim_write(amxw_buf *b, const amxw_w3d_anim *a, amxw_w3d_anim_layout *layout)
{
    amxw_w3d_anim_layout lay;
    memset(&lay, 0, sizeof lay);
    size_t c = begin(b, 0x200, true, a->legacy);
    lay.chunk = start_of(c);
    if (!a->header_last)
        anim_header(b, a, &lay.header);
    for (uint32_t i = 0; i < a->channel_count; i++) {
        const amxw_w3d_channel *ch = &a->channels[i];
        size_t cc = amxw_chunk_begin(b, 0x202, false);
        if (i < AMXW_W3D_LAYOUT_CHANNELS)
            lay.channels[i] = cc;
        amxw_u16le(b, ch->first);
        amxw_u16le(b, ch->last);
        amxw_u16le(b, ch->vector_len);
        amxw_u16le(b, ch->type);
        amxw_u16le(b, ch->pivot);
        amxw_u16le(b, 0);
        for (uint32_t k = 0; k < ch->data_count; k++)
            amxw_f32le(b, ch->data[k]);
        amxw_chunk_end(b, cc);
    }
    for (uint32_t i = 0; i < a->bit_count; i++) {
        const amxw_w3d_bit_channel *ch = &a->bits[i];
        size_t cc = amxw_chunk_begin(b, 0x203, false);
        if (i < AMXW_W3D_LAYOUT_CHANNELS)
            lay.bits[i] = cc;
        amxw_u16le(b, ch->first);
        amxw_u16le(b, ch->last);
        amxw_u16le(b, ch->type);
        amxw_u16le(b, ch->pivot);
        amxw_u8(b, ch->default_val);
        amxw_bytes(b, ch->bits, ch->bit_bytes);
        amxw_chunk_end(b, cc);
    }
    if (a->header_last)
        anim_header(b, a, &lay.header);
    amxw_chunk_end(b, c);
    if (layout)
        *layout = lay;
    return lay.chunk;
}

/* ---- compressed animation ---- */

float amxw_w3d_filter(uint8_t i)
{
    static const float head[16] = { 1e-8f, 1e-7f, 1e-6f, 1e-5f, 1e-4f, 1e-3f, 1e-2f, 1e-1f,
                                    1.0f,  1e1f,  1e2f,  1e3f,  1e4f,  1e5f,  1e6f,  1e7f };
    if (i < 16)
        return head[i];
    float ratio = (float)(i - 16) / 240.0f;
    return 1.0f - (float)sin((double)(90.0f * ratio) * M_PI / 180.0);
}

/* ((count + 15) >> 4) blocks x vector_len x { filter, 8 or 16 delta bytes }. */
static void delta_blocks(amxw_buf *b, const amxw_w3d_cchannel *ch, int bits)
{
    uint32_t vl = ch->vector_len, n = ch->count;
    uint32_t blocks = (n + 15) >> 4;
    for (uint32_t blk = 0; blk < blocks; blk++) {
        for (uint32_t v = 0; v < vl; v++) {
            amxw_u8(b, ch->filter);
            int8_t d[16];
            for (uint32_t j = 0; j < 16; j++) {
                uint32_t f = blk * 16 + j + 1; /* the frame this delta makes */
                d[j] = (f < n && ch->deltas) ? ch->deltas[(size_t)(f - 1) * vl + v] : 0;
            }
            if (bits == 4) {
                for (int k = 0; k < 8; k++)
                    amxw_u8(b, (uint8_t)((d[2 * k] & 0xF) | (d[2 * k + 1] & 0xF) << 4));
            } else {
                for (int k = 0; k < 16; k++)
                    amxw_u8(b, (uint8_t)(d[k] + 128));
            }
        }
    }
}

static void canim_header(amxw_buf *b, const amxw_w3d_canim *a, size_t *at)
{
    size_t c = amxw_chunk_begin(b, 0x281, false);
    *at = c;
    amxw_u32le(b, a->version ? a->version : AMXW_W3D_VERSION(0, 1));
    name_field(b, a->name, 16);
    name_field(b, a->hierarchy, 16);
    amxw_u32le(b, a->frames);
    amxw_u16le(b, a->fps);
    amxw_u16le(b, a->flavor);
    amxw_chunk_end(b, c);
}

static void cchannel(amxw_buf *b, const amxw_w3d_cchannel *ch)
{
    uint32_t vl = ch->vector_len, n = ch->count;
    switch (ch->kind) {
    case AMXW_W3D_TIMECODED:
        amxw_u32le(b, n);
        amxw_u16le(b, ch->pivot);
        amxw_u8(b, (uint8_t)vl);
        amxw_u8(b, ch->type);
        for (uint32_t i = 0; i < n; i++) {
            amxw_u32le(b, ch->times[i]);
            for (uint32_t k = 0; k < vl; k++)
                amxw_f32le(b, ch->values[(size_t)i * vl + k]);
        }
        break;
    case AMXW_W3D_DELTA4:
    case AMXW_W3D_DELTA8:
        amxw_u32le(b, n);
        amxw_u16le(b, ch->pivot);
        amxw_u8(b, (uint8_t)vl);
        amxw_u8(b, ch->type);
        amxw_f32le(b, ch->scale);
        for (uint32_t k = 0; k < vl; k++)
            amxw_f32le(b, ch->initial[k]);
        delta_blocks(b, ch, ch->kind == AMXW_W3D_DELTA4 ? 4 : 8);
        amxw_zeros(b, 3);
        break;
    case AMXW_W3D_TC_BIT:
        amxw_u32le(b, n);
        amxw_u16le(b, ch->pivot);
        amxw_u8(b, ch->type);
        amxw_u8(b, ch->default_val);
        for (uint32_t i = 0; i < n; i++)
            amxw_u32le(b, ch->times[i]);
        break;
    case AMXW_W3D_MOTION_TC:
    case AMXW_W3D_MOTION_DELTA4:
    case AMXW_W3D_MOTION_DELTA8: {
        uint8_t dtype = ch->kind == AMXW_W3D_MOTION_TC ? 0 : ch->kind == AMXW_W3D_MOTION_DELTA4 ? 1 : 2;
        amxw_u8(b, ch->zero);
        amxw_u8(b, ch->delta_type_override ? ch->delta_type_override : dtype);
        amxw_u8(b, (uint8_t)vl);
        amxw_u8(b, ch->type);
        amxw_u16le(b, (uint16_t)n);
        amxw_u16le(b, ch->pivot);
        if (dtype == 0) {
            for (uint32_t i = 0; i < n; i++)
                amxw_u16le(b, (uint16_t)ch->times[i]);
            if (n & 1)
                amxw_u16le(b, 0);
            for (uint32_t i = 0; i < n * vl; i++)
                amxw_f32le(b, ch->values[i]);
        } else {
            amxw_f32le(b, ch->scale);
            for (uint32_t k = 0; k < vl; k++)
                amxw_f32le(b, ch->initial[k]);
            delta_blocks(b, ch, dtype == 1 ? 4 : 8);
        }
        break;
    }
    }
    if (ch->extra_bytes > 0)
        amxw_zeros(b, (size_t)ch->extra_bytes);
    else if (ch->extra_bytes < 0)
        b->len -= (size_t)-ch->extra_bytes;
}

size_t amxw_w3d_canim_write(amxw_buf *b, const amxw_w3d_canim *a, amxw_w3d_anim_layout *layout)
{
    amxw_w3d_anim_layout lay;
    memset(&lay, 0, sizeof lay);
    size_t c = begin(b, 0x280, true, a->legacy);
    lay.chunk = start_of(c);
    if (!a->header_last)
        canim_header(b, a, &lay.header);
    for (uint32_t i = 0; i < a->channel_count; i++) {
        const amxw_w3d_cchannel *ch = &a->channels[i];
        uint32_t id = ch->kind == AMXW_W3D_TC_BIT ? 0x283
                      : ch->kind >= AMXW_W3D_MOTION_TC ? 0x284 : 0x282;
        size_t cc = amxw_chunk_begin(b, id, false);
        if (i < AMXW_W3D_LAYOUT_CHANNELS)
            lay.channels[i] = cc;
        cchannel(b, ch);
        amxw_chunk_end(b, cc);
    }
    if (a->header_last)
        canim_header(b, a, &lay.header);
    amxw_chunk_end(b, c);
    if (layout)
        *layout = lay;
    return lay.chunk;
}

/* ---- models ---- */

size_t amxw_w3d_mesh_write(amxw_buf *b, const amxw_w3d_mesh *m)
{
    size_t c = begin(b, 0x000, true, m->legacy);
    size_t h = amxw_chunk_begin(b, 0x01F, false);
    amxw_u32le(b, m->version ? m->version : AMXW_W3D_VERSION(4, 2));
    amxw_u32le(b, m->attributes);
    name_field(b, m->name, 16);
    name_field(b, m->container, 16);
    amxw_u32le(b, m->triangles);
    amxw_u32le(b, m->vertices);
    amxw_u32le(b, m->materials);
    amxw_u32le(b, m->damage_stages);
    amxw_u32le(b, (uint32_t)m->sort_level);
    amxw_u32le(b, m->prelit_version);
    amxw_u32le(b, 0);
    amxw_u32le(b, m->vertex_channels);
    amxw_u32le(b, m->face_channels);
    for (int k = 0; k < 3; k++)
        amxw_f32le(b, m->bbox_min[k]);
    for (int k = 0; k < 3; k++)
        amxw_f32le(b, m->bbox_max[k]);
    for (int k = 0; k < 3; k++)
        amxw_f32le(b, m->sphere_center[k]);
    amxw_f32le(b, m->sphere_radius);
    amxw_chunk_end(b, h);
    if (m->vertices_chunk) {
        size_t v = amxw_chunk_begin(b, 0x002, false);
        amxw_zeros(b, (size_t)m->vertices * 12);
        amxw_chunk_end(b, v);
    }
    if (m->influences) {
        size_t v = amxw_chunk_begin(b, 0x00E, false);
        amxw_zeros(b, (size_t)m->vertices * 8);
        amxw_chunk_end(b, v);
    }
    if (m->extra_child) {
        size_t v = amxw_chunk_begin(b, m->extra_child, false);
        amxw_chunk_end(b, v);
    }
    if (m->texture_count) { /* W3D_CHUNK_TEXTURES > TEXTURE > TEXTURE_NAME */
        size_t ts = begin(b, 0x030, true, m->legacy);
        for (uint32_t i = 0; i < m->texture_count; i++) {
            size_t t = begin(b, 0x031, true, m->legacy);
            size_t nm = amxw_chunk_begin(b, 0x032, false);
            amxw_bytes(b, m->textures[i], strlen(m->textures[i]) + 1);
            amxw_chunk_end(b, nm);
            amxw_chunk_end(b, t);
        }
        amxw_chunk_end(b, ts);
    }
    amxw_chunk_end(b, c);
    return start_of(c);
}

static void lod_array(amxw_buf *b, uint32_t id, const amxw_w3d_lod *lod, bool legacy,
                      size_t *chunk_at, size_t *objects_at)
{
    size_t c = begin(b, id, true, legacy);
    if (chunk_at)
        *chunk_at = start_of(c);
    size_t h = amxw_chunk_begin(b, 0x703, false);
    amxw_u32le(b, lod->override_count ? lod->count : lod->object_count);
    amxw_f32le(b, lod->max_screen_size);
    amxw_chunk_end(b, h);
    for (uint32_t i = 0; i < lod->object_count; i++) {
        size_t o = amxw_chunk_begin(b, 0x704, false);
        if (objects_at && i < 16)
            objects_at[i] = o;
        amxw_u32le(b, lod->objects[i].bone);
        name_field(b, lod->objects[i].name, 32);
        amxw_chunk_end(b, o);
    }
    amxw_chunk_end(b, c);
}

size_t amxw_w3d_hlod_write(amxw_buf *b, const amxw_w3d_hlod *h, amxw_w3d_hlod_layout *layout)
{
    amxw_w3d_hlod_layout lay;
    memset(&lay, 0, sizeof lay);
    size_t c = begin(b, 0x700, true, h->legacy);
    lay.chunk = start_of(c);
    size_t hd = amxw_chunk_begin(b, 0x701, false);
    lay.header = hd;
    amxw_u32le(b, h->version ? h->version : AMXW_W3D_VERSION(1, 0));
    amxw_u32le(b, h->override_lod_count ? h->lod_count_value : h->lod_count);
    name_field(b, h->name, 16);
    name_field(b, h->hierarchy, 16);
    amxw_chunk_end(b, hd);
    for (uint32_t i = 0; i < h->lod_count; i++)
        lod_array(b, 0x702, &h->lods[i], h->legacy, i < 8 ? &lay.lods[i] : NULL,
                  i < 8 ? lay.objects[i] : NULL);
    if (h->aggregates)
        lod_array(b, 0x705, h->aggregates, h->legacy, NULL, NULL);
    if (h->proxies)
        lod_array(b, 0x706, h->proxies, h->legacy, NULL, NULL);
    amxw_chunk_end(b, c);
    if (layout)
        *layout = lay;
    return lay.chunk;
}

size_t amxw_w3d_hmodel_write(amxw_buf *b, const amxw_w3d_hmodel *h, size_t *node_offsets)
{
    size_t c = begin(b, 0x300, true, h->legacy);
    size_t hd = amxw_chunk_begin(b, 0x301, false);
    amxw_u32le(b, h->version ? h->version : AMXW_W3D_VERSION(4, 1));
    name_field(b, h->name, 16);
    name_field(b, h->hierarchy, 16);
    amxw_u16le(b, h->num_connections);
    amxw_u16le(b, 0);
    amxw_chunk_end(b, hd);
    for (uint32_t i = 0; i < h->node_count; i++) {
        size_t n = amxw_chunk_begin(b, h->nodes[i].chunk, false);
        if (node_offsets)
            node_offsets[i] = n;
        name_field(b, h->nodes[i].name, 16);
        amxw_u16le(b, h->nodes[i].pivot);
        amxw_chunk_end(b, n);
    }
    amxw_chunk_end(b, c);
    return start_of(c);
}

/* ---- BIG ---- */

void amxw_big(amxw_buf *b, const amxw_big_file *files, size_t count, const amxw_big_opts *opts,
              amxw_big_layout *layout)
{
    amxw_big_opts o = opts ? *opts : (amxw_big_opts){ 0 };
    amxw_big_layout lay;
    memset(&lay, 0, sizeof lay);
    size_t base = b->len;
    size_t index_end = 16;
    for (size_t i = 0; i < count; i++)
        index_end += 8 + strlen(files[i].name) + 1;
    size_t data_start = index_end + o.gap;
    size_t total = data_start;
    for (size_t i = 0; i < count; i++)
        total += files[i].size;

    amxw_bytes(b, o.magic ? o.magic : "BIGF", 4);
    amxw_u32le(b, o.override_archive_size ? o.archive_size : (uint32_t)total);
    amxw_u32be(b, o.override_count ? o.count : (uint32_t)count);
    amxw_u32be(b, o.override_first_offset ? o.first_offset : (uint32_t)data_start);
    size_t at = data_start;
    for (size_t i = 0; i < count; i++) {
        if (i < 64) {
            lay.entries[i] = b->len - base;
            lay.data[i] = at;
        }
        amxw_u32be(b, (uint32_t)at);
        amxw_u32be(b, (uint32_t)files[i].size);
        amxw_cstr(b, files[i].name);
        at += files[i].size;
    }
    lay.index_end = b->len - base;
    amxw_zeros(b, o.gap);
    for (size_t i = 0; i < count; i++)
        amxw_bytes(b, files[i].data, files[i].size);
    if (layout)
        *layout = lay;
}
