/*
 * Internal to the W3D decoder: chunk ids, the decode state, and the helpers that w3d.c (file
 * structure, hierarchies, meshes, HLODs, HMODELs) and w3d_anim.c (animations: channels and
 * their sampling) share. The layout is documented in docs/formats/w3d.md.
 */
#ifndef AMX_W3D_INTERNAL_H
#define AMX_W3D_INTERNAL_H

#include "chunk.h"
#include "animidx/w3d.h"

#include <string.h>

enum {
    C_MESH = 0x000,
    C_MESH_HEADER3 = 0x01F,
    C_VERTEX_INFLUENCES = 0x00E,
    C_TEXTURES = 0x030,
    C_TEXTURE = 0x031,
    C_TEXTURE_NAME = 0x032,
    C_HIERARCHY = 0x100,
    C_HIERARCHY_HEADER = 0x101,
    C_PIVOTS = 0x102,
    C_PIVOT_FIXUPS = 0x103,
    C_ANIMATION = 0x200,
    C_ANIMATION_HEADER = 0x201,
    C_ANIMATION_CHANNEL = 0x202,
    C_BIT_CHANNEL = 0x203,
    C_COMPRESSED = 0x280,
    C_COMPRESSED_HEADER = 0x281,
    C_COMPRESSED_CHANNEL = 0x282,
    C_COMPRESSED_BIT_CHANNEL = 0x283,
    C_MOTION_CHANNEL = 0x284,
    C_MORPH = 0x2C0,
    C_HMODEL = 0x300,
    C_HMODEL_HEADER = 0x301,
    C_NODE = 0x302,
    C_COLLISION_NODE = 0x303,
    C_SKIN_NODE = 0x304,
    C_HMODEL_AUX = 0x305,
    C_SHADOW_NODE = 0x306,
    C_LODMODEL = 0x400,
    C_COLLECTION = 0x420,
    C_POINTS = 0x440,
    C_LIGHT = 0x460,
    C_EMITTER = 0x500,
    C_AGGREGATE = 0x600,
    C_HLOD = 0x700,
    C_HLOD_HEADER = 0x701,
    C_HLOD_LOD_ARRAY = 0x702,
    C_HLOD_SUB_OBJECT_ARRAY_HEADER = 0x703,
    C_HLOD_SUB_OBJECT = 0x704,
    C_HLOD_AGGREGATE_ARRAY = 0x705,
    C_HLOD_PROXY_ARRAY = 0x706,
    C_BOX = 0x740,
    C_SPHERE = 0x741,
    C_RING = 0x742,
    C_NULL_OBJECT = 0x750,
    C_LIGHTSCAPE = 0x800,
    C_DAZZLE = 0x900,
    C_SOUNDROBJ = 0xA00,
};

#define NAME_LEN 16
#define TIMECODE_FLAG 0x80000000u
#define TIMECODE_MASK 0x7FFFFFFFu

typedef struct w3d_state {
    amx_dec *d;
    amx_w3d_info *info;
    bool has_version;
    uint32_t version_rank; /* 0 hierarchy, 1 animation, 2 mesh, 3 HLOD, 4 HMODEL */
    uint32_t version;
} w3d_state;

static inline void note_version(w3d_state *s, uint32_t rank, uint32_t v)
{
    if (!s->has_version || rank < s->version_rank) {
        s->has_version = true;
        s->version_rank = rank;
        s->version = v;
    }
}

/* ---- reads at absolute offsets ---- */

/* Reads at an absolute offset inside a reader's window; 0 when outside. (The window check is
 * written with subtractions, like reader.h; these run once per key and frame, so they do not copy
 * the reader.) */
static inline bool in_window(const amx_reader *w, size_t off, size_t n)
{
    return off >= w->start && off <= w->end && w->end - off >= n;
}

static inline uint32_t at_u32(const amx_reader *w, size_t off)
{
    return in_window(w, off, 4) ? amx_load_u32le(w->base + off) : 0;
}

static inline uint16_t at_u16(const amx_reader *w, size_t off)
{
    if (!in_window(w, off, 2))
        return 0;
    return (uint16_t)(w->base[off] | w->base[off + 1] << 8);
}

static inline uint8_t at_u8(const amx_reader *w, size_t off)
{
    return in_window(w, off, 1) ? w->base[off] : 0;
}

static inline float at_f32(const amx_reader *w, size_t off) { return amx_bits_to_f32(at_u32(w, off)); }

/* ---- helpers (w3d.c) ---- */

/* A fixed-size name field; a field without NUL is legal but noted (info). */
const char *amx__w3d_read_name(amx_dec *d, amx_reader *r, size_t n, const char *ctx,
                               const char *what);
/* A fixed-size record: shorter is an error (missing fields read as 0), longer a warning. */
void amx__w3d_check_record_size(amx_dec *d, const amx_chunk *c, size_t need, const char *ctx,
                                const char *what);
void amx__w3d_unknown_child(amx_dec *d, const amx_chunk *c, uint32_t parent, const char *ctx);
void amx__w3d_duplicate_child(amx_dec *d, const amx_chunk *c, const char *ctx);
/* Counts the children of a container with the given ids, without findings. */
uint32_t amx__w3d_count_children(amx_reader body, const uint32_t *ids, size_t nids);
/* Finds the first child with this id, without findings. */
bool amx__w3d_find_child(amx_reader body, uint32_t id, amx_chunk *out);
/* The skeleton of this file with this name (case-insensitive), or NULL. */
const amx_skeleton *amx__w3d_local_skeleton(const amx_dec *d, const char *name);

/* An animation (0x200) or compressed animation (0x280) chunk into a clip (w3d_anim.c). */
void amx__w3d_decode_animation(w3d_state *s, const amx_chunk *ac, bool compressed);

#endif
