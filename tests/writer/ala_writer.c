/* Test-side writer of Alamo ALA animations; see ala_writer.h. */
#include "ala_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* amxw_chunk_begin marks container handles with the top bit; the offset is the rest. */
static size_t handle_offset(size_t handle) { return handle & (SIZE_MAX >> 1); }

static size_t mini_u32_at(amxw_buf *b, uint8_t type, uint32_t v)
{
    size_t at = b->len;
    amxw_mini_u32(b, type, v);
    return at;
}

static size_t mini_u16_at(amxw_buf *b, uint8_t type, uint16_t v)
{
    size_t at = b->len;
    amxw_mini_u16(b, type, v);
    return at;
}

static size_t mini_f32_at(amxw_buf *b, uint8_t type, const float *v, size_t n)
{
    size_t at = b->len;
    amxw_mini_f32(b, type, v, n);
    return at;
}

static void write_header(amxw_buf *b, const amxw_ala_spec *s, const uint32_t frame_size[3],
                         amxw_ala_layout *lay)
{
    size_t c = amxw_chunk_begin(b, 0x1001, false);
    lay->header = c;
    lay->mini_frames = mini_u32_at(b, 0x01, s->frames);
    lay->mini_fps = mini_f32_at(b, 0x02, &s->fps, 1);
    lay->mini_bones = mini_u32_at(b, 0x03, s->override_num_bones ? s->num_bones : s->bone_count);
    if (s->format == 2) {
        lay->mini_rot_frame_size = mini_u32_at(b, 11, frame_size[0]);
        lay->mini_trans_frame_size = mini_u32_at(b, 12, frame_size[1]);
        lay->mini_scale_frame_size = mini_u32_at(b, 13, frame_size[2]);
    }
    if (s->header_extra_mini)
        amxw_mini_u32(b, 32, 0xC0FFEE);
    amxw_chunk_end(b, c);
}

static void write_bone_header(amxw_buf *b, const amxw_ala_spec *s, const amxw_ala_bone *bone,
                              const uint16_t idx[3], amxw_ala_bone_layout *bl)
{
    /* mini ids in decimal, like the docs */
    static const uint8_t order[] = { 4, 5, 10, 6, 7, 8, 9, 14, 15, 16, 17, 48 };
    const size_t n = sizeof order;
    size_t c = amxw_chunk_begin(b, 0x1003, false);
    bl->header = c;
    for (size_t i = 0; i < n; i++) {
        uint8_t type = order[bone->reverse_minis ? n - 1 - i : i];
        if (type >= 14 && type <= 17 && s->format != 2)
            continue;
        switch (type) {
        case 4:
            if (bone->name)
                amxw_mini_str(b, 4, bone->name);
            break;
        case 5:
            bl->mini_index = bone->short_index ? mini_u16_at(b, 5, (uint16_t)bone->index)
                                               : mini_u32_at(b, 5, bone->index);
            break;
        case 10: amxw_mini_u32(b, 10, bone->unknown); break;
        case 6: bl->mini_trans_offset = mini_f32_at(b, 6, bone->trans_offset, 3); break;
        case 7: bl->mini_trans_scale = mini_f32_at(b, 7, bone->trans_scale, 3); break;
        case 8: bl->mini_scale_offset = mini_f32_at(b, 8, bone->scale_offset, 3); break;
        case 9: bl->mini_scale_scale = mini_f32_at(b, 9, bone->scale_scale, 3); break;
        case 14: bl->mini_trans_idx = mini_u16_at(b, 14, idx[1]); break;
        case 15: bl->mini_scale_idx = mini_u16_at(b, 15, idx[2]); break;
        case 16: bl->mini_rot_idx = mini_u16_at(b, 16, idx[0]); break;
        case 17:
            if (!bone->omit_default_rotation) {
                bl->mini_default_rotation = b->len;
                size_t m = amxw_mini_begin(b, 17);
                for (int k = 0; k < 4; k++)
                    amxw_u16le(b, (uint16_t)bone->default_rotation[k]);
                amxw_mini_end(b, m);
            }
            break;
        case 48:
            if (bone->unknown_mini)
                amxw_mini_u32(b, 48, 7);
            break;
        }
    }
    amxw_chunk_end(b, c);
}

static size_t u16_chunk(amxw_buf *b, uint32_t type, const uint16_t *v, size_t n)
{
    size_t c = amxw_chunk_begin(b, type, false);
    for (size_t i = 0; i < n; i++)
        amxw_u16le(b, v[i]);
    amxw_chunk_end(b, c);
    return c;
}

static size_t byte_chunk(amxw_buf *b, uint32_t type, const uint8_t *v, size_t n)
{
    size_t c = amxw_chunk_begin(b, type, false);
    amxw_bytes(b, v, n);
    amxw_chunk_end(b, c);
    return c;
}

static void write_bone(amxw_buf *b, const amxw_ala_spec *s, const amxw_ala_bone *bone,
                       const uint16_t idx[3], amxw_ala_bone_layout *bl)
{
    size_t c = amxw_chunk_begin(b, 0x1002, true);
    bl->chunk = handle_offset(c);
    if (!bone->omit_header)
        write_bone_header(b, s, bone, idx, bl);
    if (s->format == 1) {
        if (bone->translation)
            bl->translation = u16_chunk(b, 0x1004, bone->translation, 3 * (size_t)bone->translation_frames);
        if (bone->scale)
            bl->scale = u16_chunk(b, 0x1005, bone->scale, 3 * (size_t)bone->scale_frames);
        if (bone->rotation) {
            bl->rotation = b->len;
            size_t r = amxw_chunk_begin(b, 0x1006, false);
            for (size_t i = 0; i < 4 * (size_t)bone->rotation_frames; i++)
                amxw_u16le(b, (uint16_t)bone->rotation[i]);
            amxw_chunk_end(b, r);
        }
    }
    if (bone->visibility)
        bl->visibility = byte_chunk(b, 0x1007, bone->visibility, bone->visibility_bytes);
    if (bone->step)
        bl->step = byte_chunk(b, 0x1008, bone->step, bone->step_bytes);
    amxw_chunk_end(b, c);
}

/* One format-2 shared block: channel ch (0 rot, 1 trans, 2 scale), frames x frame_size elements. */
static size_t write_block(amxw_buf *b, const amxw_ala_spec *s, int ch, uint32_t frame_size,
                          const uint16_t (*idx)[3], int32_t extra)
{
    static const uint32_t types[3] = { 0x1009, 0x100A, 0x100B };
    const size_t elems = ch == 0 ? 4 : 3;
    size_t c = amxw_chunk_begin(b, types[ch], false);
    size_t start = b->len;
    for (uint32_t f = 0; f < s->frames; f++) {
        size_t block = b->len;
        amxw_zeros(b, 2 * (size_t)frame_size);
        for (uint32_t i = 0; i < s->bone_count; i++) {
            const amxw_ala_bone *bone = &s->bones[i];
            uint16_t at = idx[i][ch];
            const void *src = ch == 0 ? (const void *)bone->rotation
                            : ch == 1 ? (const void *)bone->translation : (const void *)bone->scale;
            uint32_t count = ch == 0 ? bone->rotation_frames
                           : ch == 1 ? bone->translation_frames : bone->scale_frames;
            if (at == 0xFFFF || !src || f >= count || at + elems > frame_size)
                continue;
            for (size_t k = 0; k < elems; k++) {
                uint16_t v = ch == 0 ? (uint16_t)((const int16_t *)src)[4 * f + k]
                                     : ((const uint16_t *)src)[3 * f + k];
                b->data[block + 2 * (at + k)] = (uint8_t)v;
                b->data[block + 2 * (at + k) + 1] = (uint8_t)(v >> 8);
            }
        }
    }
    if (extra > 0)
        amxw_zeros(b, (size_t)extra);
    else if (extra < 0)
        b->len -= (size_t)-extra < b->len - start ? (size_t)-extra : b->len - start;
    amxw_chunk_end(b, c);
    return c;
}

void amxw_ala_ex(amxw_buf *b, const amxw_ala_spec *s, amxw_ala_layout *layout)
{
    amxw_ala_layout scratch;
    amxw_ala_layout *lay = layout ? layout : &scratch;
    memset(lay, 0, sizeof *lay);

    /* Format 2: element indices into the per-frame blocks, in bone order. */
    uint16_t (*idx)[3] = calloc(s->bone_count ? s->bone_count : 1, sizeof *idx);
    if (!idx) {
        fputs("amxw: out of memory\n", stderr);
        abort();
    }
    uint32_t size[3] = { 0, 0, 0 }; /* rot, trans, scale */
    for (uint32_t i = 0; i < s->bone_count; i++) {
        const amxw_ala_bone *bone = &s->bones[i];
        bool has[3] = { bone->rotation && bone->rotation_frames, bone->translation != NULL,
                        bone->scale != NULL };
        for (int ch = 0; ch < 3; ch++) {
            idx[i][ch] = has[ch] ? (uint16_t)size[ch] : 0xFFFF;
            if (has[ch])
                size[ch] += ch == 0 ? 4 : 3;
        }
    }
    lay->rot_frame_size = size[0];
    lay->trans_frame_size = size[1];
    lay->scale_frame_size = size[2];
    uint32_t declared[3] = { size[0], size[1], size[2] };
    if (s->override_frame_sizes) {
        declared[0] = s->rot_frame_size;
        declared[1] = s->trans_frame_size;
        declared[2] = s->scale_frame_size;
    }

    size_t root = amxw_chunk_begin(b, 0x1000, true);
    lay->root = handle_offset(root);
    if (!s->omit_header)
        write_header(b, s, declared, lay);
    if (s->unknown_chunk) {
        lay->unknown_chunk = b->len;
        size_t c = amxw_chunk_begin(b, 0x10FF, false);
        amxw_u32le(b, 0xDEADBEEF);
        amxw_chunk_end(b, c);
    }
    for (uint32_t i = 0; i < s->bone_count; i++) {
        amxw_ala_bone_layout dummy;
        amxw_ala_bone_layout *bl = i < AMXW_ALA_LAYOUT_BONES ? &lay->bones[i] : &dummy;
        memset(bl, 0, sizeof *bl);
        uint16_t written[3] = { idx[i][0], idx[i][1], idx[i][2] };
        if (s->bones[i].override_indices) {
            written[0] = s->bones[i].rot_idx;
            written[1] = s->bones[i].trans_idx;
            written[2] = s->bones[i].scale_idx;
        }
        bl->rot_idx = written[0];
        bl->trans_idx = written[1];
        bl->scale_idx = written[2];
        write_bone(b, s, &s->bones[i], written, bl);
    }
    if (s->format == 2) {
        if (size[1] > 0 && !s->omit_trans_data)
            lay->trans_data = write_block(b, s, 1, size[1], (const uint16_t (*)[3])idx,
                                          s->trans_data_extra);
        if (size[0] > 0 && !s->omit_rot_data)
            lay->rot_data = write_block(b, s, 0, size[0], (const uint16_t (*)[3])idx,
                                        s->rot_data_extra);
        if ((size[2] > 0 || s->force_scale_data) && !s->omit_scale_data)
            lay->scale_data = write_block(b, s, 2, size[2], (const uint16_t (*)[3])idx, 0);
    }
    amxw_chunk_end(b, root);
    if (s->trailing_chunk) {
        size_t t = amxw_chunk_begin(b, 0x1000, true);
        lay->trailing_chunk = handle_offset(t);
        amxw_chunk_end(b, t);
    }
    free(idx);
}

void amxw_ala(amxw_buf *b, const amxw_ala_spec *spec) { amxw_ala_ex(b, spec, NULL); }

/* ---- the deterministic generator ---- */

static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state; /* xorshift32 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

static float random_unit(uint32_t *state) /* [-1, 1) */
{
    return (float)(next_random(state) >> 8) / 8388608.0f - 1.0f;
}

void amxw_ala_simple(amxw_buf *b, int format, uint32_t frames, float fps, uint32_t bone_count,
                     const char *const *bone_names, const uint32_t *bone_indices, uint32_t seed)
{
    amxw_ala_shaped(b, format, frames, fps, bone_count, bone_names, bone_indices, bone_count, seed);
}

void amxw_ala_shaped(amxw_buf *b, int format, uint32_t frames, float fps, uint32_t bone_count,
                     const char *const *bone_names, const uint32_t *bone_indices, uint32_t animated,
                     uint32_t seed)
{
    uint32_t state = seed ? seed : 0x9E3779B9u;
    size_t vis_bytes = ((size_t)frames + 7) / 8;
    amxw_ala_bone *bones = calloc(bone_count ? bone_count : 1, sizeof *bones);
    char (*names)[32] = calloc(bone_count ? bone_count : 1, sizeof *names);
    int16_t *rot = calloc(4 * (size_t)frames * bone_count + 1, sizeof *rot);
    uint16_t *trans = calloc(3 * (size_t)frames * bone_count + 1, sizeof *trans);
    uint8_t *vis = calloc(vis_bytes * bone_count + 1, 1);
    if (!bones || !names || !rot || !trans || !vis) {
        fputs("amxw: out of memory\n", stderr);
        abort();
    }
    for (uint32_t i = 0; i < bone_count; i++) {
        amxw_ala_bone *bone = &bones[i];
        if (bone_names && bone_names[i]) {
            bone->name = bone_names[i];
        } else {
            snprintf(names[i], sizeof names[i], "bone_%02u", i);
            bone->name = names[i];
        }
        bone->index = bone_indices ? bone_indices[i] : i;
        for (int k = 0; k < 3; k++) {
            bone->trans_offset[k] = 10.0f * random_unit(&state);
            bone->trans_scale[k] = 20.0f / 65535.0f;
            bone->scale_offset[k] = 1.0f;
        }
        bone->default_rotation[3] = 32767;
        if (i >= animated)
            continue; /* a bone the clip keeps still: its default rotation only */
        int16_t *r = rot + 4 * (size_t)frames * i;
        float q[4] = { 0, 0, 0, 1 };
        for (uint32_t f = 0; f < frames; f++) {
            /* a random walk on the unit sphere of quaternions */
            float len = 0.0f;
            for (int k = 0; k < 4; k++) {
                q[k] += 0.1f * random_unit(&state);
                len += q[k] * q[k];
            }
            len = len > 0.0f ? sqrtf(len) : 1.0f;
            for (int k = 0; k < 4; k++) {
                q[k] /= len;
                r[4 * f + k] = (int16_t)lrintf(q[k] * 32767.0f);
            }
        }
        bone->rotation = r;
        bone->rotation_frames = frames;
        bone->default_rotation[3] = 32767;
        if (i % 2 == 0) {
            uint16_t *t = trans + 3 * (size_t)frames * i;
            uint32_t p[3] = { next_random(&state) & 0xFFFF, next_random(&state) & 0xFFFF,
                              next_random(&state) & 0xFFFF };
            for (uint32_t f = 0; f < frames; f++)
                for (int k = 0; k < 3; k++) {
                    p[k] = (p[k] + (next_random(&state) & 0x3FF) - 0x1FF) & 0xFFFF;
                    t[3 * f + k] = (uint16_t)p[k];
                }
            bone->translation = t;
            bone->translation_frames = frames;
        }
        if (i % 3 == 0) {
            uint8_t *v = vis + vis_bytes * i;
            for (size_t k = 0; k < vis_bytes; k++)
                v[k] = (uint8_t)next_random(&state);
            if (frames % 8)
                v[vis_bytes - 1] &= (uint8_t)((1u << (frames % 8)) - 1);
            bone->visibility = v;
            bone->visibility_bytes = vis_bytes;
        }
    }
    amxw_ala_spec spec = { .format = format, .frames = frames, .fps = fps, .bones = bones,
                           .bone_count = bone_count };
    amxw_ala(b, &spec);
    free(vis);
    free(trans);
    free(rot);
    free(names);
    free(bones);
}
