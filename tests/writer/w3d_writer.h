/*
 * Test-side writer of Westwood W3D files (layouts in lib/format/w3d.c and docs/formats/w3d.md) and of
 * EA BIG archives (lib/format/big.c).
 *
 * A W3D file is a sequence of top-level chunks: call one amxw_w3d_* function per object, in the
 * order the file should have them. Each returns the offset of the object's chunk header and can
 * fill a layout with the offsets of the sub-chunks it wrote, for tests that assert finding
 * offsets or patch bytes.
 *
 *   amxw_w3d_pivot pivots[] = { { .name = "ROOTTRANSFORM", .parent = 0xFFFFFFFF, .rotation = {0,0,0,1} }, ... };
 *   amxw_w3d_hierarchy h = { .name = "SKL", .pivots = pivots, .pivot_count = 2 };
 *   amxw_buf b = {0};
 *   amxw_w3d_hierarchy_write(&b, &h, NULL);
 *
 * Names are written into their fixed-size fields NUL-padded; a name as long as the field has no
 * terminator (legal). Containers get bit 31 of the size unless `legacy` (Renegade-era files).
 *
 * Adaptive-delta channels are given as deltas, not values: frame f >= 1 adds
 * scale * table[filter] * delta[(f-1) * VectorLen + v] (x 1/16 for 8-bit) to frame f-1, so a test
 * picks a scale and filter index whose product is a power of two and the expected values are
 * exact sums. The writer packs the deltas into ((N+15)>>4) blocks (4-bit: low nibble first;
 * 8-bit: offset-binary, byte = delta + 128).
 */
#ifndef AMXW_W3D_WRITER_H
#define AMXW_W3D_WRITER_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AMXW_W3D_VERSION(major, minor) ((uint32_t)(major) << 16 | (uint32_t)(minor))

/* ---- hierarchy (0x100) ---- */

typedef struct amxw_w3d_pivot {
    const char *name;
    uint32_t parent;            /* 0xFFFFFFFF = root */
    float translation[3];
    float euler[3];
    float rotation[4];          /* x, y, z, w */
} amxw_w3d_pivot;

typedef struct amxw_w3d_hierarchy {
    uint32_t version;           /* 0 = 4.1 */
    const char *name;
    const amxw_w3d_pivot *pivots;
    uint32_t pivot_count;
    float center[3];
    bool fixups;                /* write 0x103 (pivot_count x 48 bytes) */
    bool legacy;                /* container without bit 31 */
    /* knobs for broken variants */
    bool override_num_pivots;   /* header NumPivots = num_pivots */
    uint32_t num_pivots;
    bool pivots_first;          /* 0x102 before 0x101 */
    bool omit_header;
} amxw_w3d_hierarchy;

typedef struct amxw_w3d_hierarchy_layout {
    size_t chunk, header, pivots, fixups;   /* chunk header offsets */
} amxw_w3d_hierarchy_layout;

size_t amxw_w3d_hierarchy_write(amxw_buf *b, const amxw_w3d_hierarchy *h,
                                amxw_w3d_hierarchy_layout *layout);

/* Byte offsets inside a pivot record (from its start, which is layout.pivots + 8 + 60 * i). */
#define AMXW_W3D_PIVOT_PARENT 16

/* ---- classic animation (0x200) ---- */

typedef struct amxw_w3d_channel {       /* 0x202 */
    uint16_t first, last;
    uint16_t vector_len;
    uint16_t type;                      /* 0 X, 1 Y, 2 Z, 3..5 Euler, 6 Q, 15 BFME */
    uint16_t pivot;
    const float *data;                  /* data_count floats */
    uint32_t data_count;                /* normally (last - first + 1) * vector_len */
} amxw_w3d_channel;

typedef struct amxw_w3d_bit_channel {   /* 0x203 */
    uint16_t first, last;
    uint16_t type;                      /* 0 visibility */
    uint16_t pivot;
    uint8_t default_val;
    const uint8_t *bits;                /* bit_bytes bytes; normally ceil((last-first+1)/8) */
    size_t bit_bytes;
} amxw_w3d_bit_channel;

typedef struct amxw_w3d_anim {
    uint32_t version;                   /* 0 = 4.1 */
    const char *name, *hierarchy;
    uint32_t frames, fps;
    const amxw_w3d_channel *channels;
    uint32_t channel_count;
    const amxw_w3d_bit_channel *bits;   /* written after the channels */
    uint32_t bit_count;
    bool legacy;
    bool header_last;                   /* knob: 0x201 after the channels */
} amxw_w3d_anim;

#define AMXW_W3D_LAYOUT_CHANNELS 64

typedef struct amxw_w3d_anim_layout {
    size_t chunk, header;
    size_t channels[AMXW_W3D_LAYOUT_CHANNELS];  /* chunk header offsets, in write order */
    size_t bits[AMXW_W3D_LAYOUT_CHANNELS];
} amxw_w3d_anim_layout;

size_t amxw_w3d_anim_write(amxw_buf *b, const amxw_w3d_anim *a, amxw_w3d_anim_layout *layout);

/* ---- compressed animation (0x280) and BFME motion channels (0x284) ---- */

typedef enum amxw_w3d_ckind {
    AMXW_W3D_TIMECODED,      /* 0x282, flavor 0: u32 time codes (bit 31 = step) */
    AMXW_W3D_DELTA4,         /* 0x282, flavor 1: 4-bit adaptive delta, 3 pad bytes */
    AMXW_W3D_DELTA8,         /* 0x282 laid out with 8-bit blocks (only for flavor-2 variants) */
    AMXW_W3D_TC_BIT,         /* 0x283: u32 time codes, the bit in bit 31 */
    AMXW_W3D_MOTION_TC,      /* 0x284 type 0: u16 key frames, pad when odd, values */
    AMXW_W3D_MOTION_DELTA4,  /* 0x284 type 1 */
    AMXW_W3D_MOTION_DELTA8,  /* 0x284 type 2 */
} amxw_w3d_ckind;

typedef struct amxw_w3d_cchannel {
    amxw_w3d_ckind kind;
    uint16_t pivot;
    uint8_t vector_len;                 /* 1 or 4 (ignored for TC_BIT) */
    uint8_t type;                       /* channel type; TC_BIT: 0 visibility */
    uint32_t count;                     /* time codes (TC kinds) or frames (delta kinds) */
    const uint32_t *times;              /* TC kinds: count codes (u16 for MOTION_TC) */
    const float *values;                /* TIMECODED / MOTION_TC: count * vector_len */
    float scale;                        /* delta kinds */
    const float *initial;               /* delta kinds: vector_len values (frame 0) */
    const int8_t *deltas;               /* delta kinds: (count - 1) * vector_len, frame-major */
    uint8_t filter;                     /* delta kinds: filter index of every block */
    uint8_t default_val;                /* TC_BIT */
    /* knobs */
    uint8_t zero;                       /* 0x284 first byte */
    uint8_t delta_type_override;        /* 0x284: != 0 writes this delta type byte */
    int32_t extra_bytes;                /* > 0 appends zero bytes, < 0 cuts bytes off the end */
} amxw_w3d_cchannel;

typedef struct amxw_w3d_canim {
    uint32_t version;                   /* 0 = 0.1 */
    const char *name, *hierarchy;
    uint32_t frames;
    uint16_t fps, flavor;
    const amxw_w3d_cchannel *channels;
    uint32_t channel_count;
    bool legacy;
    bool header_last;                   /* knob */
} amxw_w3d_canim;

size_t amxw_w3d_canim_write(amxw_buf *b, const amxw_w3d_canim *a, amxw_w3d_anim_layout *layout);

/* The engine's adaptive-delta filter table entry i (for expected values in tests). */
float amxw_w3d_filter(uint8_t i);

/* ---- models ---- */

typedef struct amxw_w3d_mesh {
    uint32_t version;                   /* 0 = 4.2 */
    uint32_t attributes;
    const char *name, *container;
    uint32_t triangles, vertices, materials, damage_stages;
    int32_t sort_level;
    uint32_t prelit_version, vertex_channels, face_channels;
    float bbox_min[3], bbox_max[3], sphere_center[3], sphere_radius;
    bool influences;                    /* write 0x0E (vertices x 8 bytes) */
    bool vertices_chunk;                /* write 0x02 (vertices x 12 bytes) after the header */
    uint32_t extra_child;               /* != 0: an extra empty child chunk with this id */
    const char *const *textures;        /* 0x30 > 0x31 > 0x32 texture names (NUL-terminated) */
    uint32_t texture_count;
    bool legacy;
} amxw_w3d_mesh;

size_t amxw_w3d_mesh_write(amxw_buf *b, const amxw_w3d_mesh *m);

typedef struct amxw_w3d_sub_object { const char *name; uint32_t bone; } amxw_w3d_sub_object;

typedef struct amxw_w3d_lod {
    float max_screen_size;
    const amxw_w3d_sub_object *objects;
    uint32_t object_count;
    bool override_count;                /* knob: 0x703 ModelCount = count */
    uint32_t count;
} amxw_w3d_lod;

typedef struct amxw_w3d_hlod {
    uint32_t version;                   /* 0 = 1.0 */
    const char *name, *hierarchy;
    const amxw_w3d_lod *lods;
    uint32_t lod_count;
    const amxw_w3d_lod *aggregates;     /* NULL = no 0x705 */
    const amxw_w3d_lod *proxies;        /* NULL = no 0x706 */
    bool override_lod_count;            /* knob: header LodCount = lod_count_value */
    uint32_t lod_count_value;
    bool legacy;
} amxw_w3d_hlod;

typedef struct amxw_w3d_hlod_layout {
    size_t chunk, header;
    size_t lods[8];                     /* 0x702 chunk headers */
    size_t objects[8][16];              /* 0x704 chunk headers per LOD */
} amxw_w3d_hlod_layout;

size_t amxw_w3d_hlod_write(amxw_buf *b, const amxw_w3d_hlod *h, amxw_w3d_hlod_layout *layout);

typedef struct amxw_w3d_node {
    uint32_t chunk;                     /* 0x302 node, 0x303 collision, 0x304 skin, 0x306 shadow */
    const char *name;
    uint16_t pivot;
} amxw_w3d_node;

typedef struct amxw_w3d_hmodel {
    uint32_t version;                   /* 0 = 4.1 */
    const char *name, *hierarchy;
    uint16_t num_connections;
    const amxw_w3d_node *nodes;
    uint32_t node_count;
    bool legacy;
} amxw_w3d_hmodel;

size_t amxw_w3d_hmodel_write(amxw_buf *b, const amxw_w3d_hmodel *h, size_t *node_offsets);

/* ---- BIG archives ---- */

typedef struct amxw_big_file {
    const char *name;                   /* stored as given (backslashes like the games) */
    const uint8_t *data;
    size_t size;
} amxw_big_file;

typedef struct amxw_big_opts {
    const char *magic;                  /* NULL = "BIGF" */
    bool override_archive_size;
    uint32_t archive_size;
    bool override_first_offset;
    uint32_t first_offset;
    uint32_t gap;                       /* bytes between the index and the data */
    bool override_count;
    uint32_t count;
} amxw_big_opts;

typedef struct amxw_big_layout {
    size_t entries[64];                 /* offset of each entry record */
    size_t data[64];                    /* offset of each member's data */
    size_t index_end;
} amxw_big_layout;

void amxw_big(amxw_buf *b, const amxw_big_file *files, size_t count, const amxw_big_opts *opts,
              amxw_big_layout *layout);

#endif
