/*
 * Test-side writer of Alamo ALA animations, formats 1 (EaW) and 2 (FoC); layout in
 * lib/format/ala.c and docs/formats/alamo.md. Chunks and minis are written in the order real files use
 * (0x1003 minis 4 5 10 6 7 8 9 [14 15 16 17], ids in decimal like the docs, so 10 is 0x0a;
 * format 2 puts 0x100A, then 0x1009, then
 * 0x100B after the bones, each only when its frame size is > 0).
 *
 *   int16_t rot[4 * 10] = { ... };
 *   amxw_ala_bone bone = { .name = "turret", .index = 3, .rotation = rot, .rotation_frames = 10 };
 *   amxw_ala_spec spec = { .format = 2, .frames = 10, .fps = 30, .bones = &bone, .bone_count = 1 };
 *   amxw_buf b = {0};
 *   amxw_ala(&b, &spec);
 *
 * Format 2 lays each channel out as one block per frame, bones in spec order: a bone with
 * translation data gets transIdx 0, 3, 6, ... (int16 elements), with rotation data rotIdx 0, 4,
 * 8, ...; bones without get 0xFFFF. Missing frames of a short array are written as zeros.
 */
#ifndef AMXW_ALA_WRITER_H
#define AMXW_ALA_WRITER_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct amxw_ala_bone {
    const char *name;              /* mini 4; NULL = no mini 4 */
    uint32_t index;                /* mini 5 */
    uint32_t unknown;              /* mini 10 */
    float trans_offset[3], trans_scale[3];  /* minis 6, 7 */
    float scale_offset[3], scale_scale[3];  /* minis 8, 9 */
    /* Per-frame raw data; NULL = none. Format 1 writes each non-NULL array as its own chunk of
     * exactly the given count (so a count != frames makes a broken file); format 2 copies
     * min(count, frames) frames into the shared blocks. */
    const uint16_t *translation;   /* 3 x translation_frames */
    uint32_t translation_frames;
    const uint16_t *scale;         /* 3 x scale_frames */
    uint32_t scale_frames;
    const int16_t *rotation;       /* 4 x rotation_frames (format 1: 1 = a constant rotation) */
    uint32_t rotation_frames;
    int16_t default_rotation[4];   /* format 2 mini 17 */
    const uint8_t *visibility;     /* 0x1007 bytes; NULL = no chunk */
    size_t visibility_bytes;
    const uint8_t *step;           /* 0x1008 bytes; NULL = no chunk */
    size_t step_bytes;
    /* Knobs for broken variants; zero = correct. */
    bool omit_header;              /* no 0x1003 */
    bool omit_default_rotation;    /* format 2: no mini 17 */
    bool reverse_minis;            /* 0x1003 minis in reverse order */
    bool unknown_mini;             /* an extra mini 48 (u32) at the end of 0x1003 */
    bool short_index;              /* mini 5 as 2 bytes */
    bool override_indices;         /* format 2: write the indices below instead of the computed */
    uint16_t trans_idx, scale_idx, rot_idx;
} amxw_ala_bone;

typedef struct amxw_ala_spec {
    int format;                    /* 1 or 2 */
    uint32_t frames;
    float fps;
    const amxw_ala_bone *bones;
    uint32_t bone_count;
    /* Knobs for broken variants; zero = correct. */
    bool omit_header;              /* no 0x1001 */
    bool override_num_bones;       /* mini 03 = num_bones instead of bone_count */
    uint32_t num_bones;
    bool override_frame_sizes;     /* format 2: minis 11/12/13 = the values below (the data
                                    * blocks keep the computed layout) */
    uint32_t rot_frame_size, trans_frame_size, scale_frame_size;
    bool omit_rot_data, omit_trans_data, omit_scale_data;   /* format 2: leave a chunk out */
    bool force_scale_data;         /* format 2: write 0x100B even when no bone has scale */
    int32_t rot_data_extra, trans_data_extra;  /* bytes added (> 0) or cut (< 0) at the end */
    bool header_extra_mini;        /* an extra mini 32 (u32) at the end of 0x1001 */
    bool unknown_chunk;            /* a chunk 0x10FF (4 bytes) in 0x1000 before the bones */
    bool trailing_chunk;           /* a root chunk 0x1000 after the first */
} amxw_ala_spec;

#define AMXW_ALA_LAYOUT_BONES 16

/* Offsets in the buffer of what was written (0 = not written, except root which is 0). */
typedef struct amxw_ala_bone_layout {
    size_t chunk;                  /* 0x1002 */
    size_t header;                 /* 0x1003 */
    size_t mini_index;             /* mini 5 header */
    size_t mini_trans_offset, mini_trans_scale, mini_scale_offset, mini_scale_scale;
    size_t mini_trans_idx, mini_scale_idx, mini_rot_idx, mini_default_rotation;
    size_t translation, scale, rotation, visibility, step;  /* 0x1004 .. 0x1008 */
    uint16_t trans_idx, scale_idx, rot_idx;                  /* format 2, as written */
} amxw_ala_bone_layout;

typedef struct amxw_ala_layout {
    size_t root;                   /* 0x1000 */
    size_t header;                 /* 0x1001 */
    size_t mini_frames, mini_fps, mini_bones;
    size_t mini_rot_frame_size, mini_trans_frame_size, mini_scale_frame_size;
    size_t rot_data, trans_data, scale_data;  /* 0x1009, 0x100A, 0x100B */
    size_t unknown_chunk, trailing_chunk;
    uint32_t rot_frame_size, trans_frame_size, scale_frame_size;  /* computed */
    amxw_ala_bone_layout bones[AMXW_ALA_LAYOUT_BONES];
} amxw_ala_layout;

void amxw_ala(amxw_buf *b, const amxw_ala_spec *spec);
/* As amxw_ala; fills *layout when not NULL (the first AMXW_ALA_LAYOUT_BONES bones). */
void amxw_ala_ex(amxw_buf *b, const amxw_ala_spec *spec, amxw_ala_layout *layout);

/* A deterministic animation for demos and benchmarks: every listed bone rotates every frame,
 * even-numbered bones (0, 2, ...) also translate, every third (0, 3, ...) has visibility bits.
 * Same arguments, same bytes. */
void amxw_ala_simple(amxw_buf *b, int format, uint32_t frames, float fps, uint32_t bone_count,
                     const char *const *bone_names, const uint32_t *bone_indices, uint32_t seed);
/* As amxw_ala_simple, but only the first `animated` bones move; the others keep their default
 * rotation and have no per-frame data (as most tracks of real clips). */
void amxw_ala_shaped(amxw_buf *b, int format, uint32_t frames, float fps, uint32_t bone_count,
                     const char *const *bone_names, const uint32_t *bone_indices, uint32_t animated,
                     uint32_t seed);

#endif
