/*
 * Test-side writers for the Metroid Prime 1/2 formats (big-endian): ANIM format 0 and 2 (MP1
 * and MP2 layouts), CINF (MP1/MP2), ANCS (MP1/MP2) and PAK (with zlib-compressed resources and
 * the named-resource table). They build files from parameters, so tests can assert every
 * decoded value against what was written; the layout structs give the offsets of the fields,
 * for broken variants made by patching bytes.
 *
 * Layouts follow lib/format/mp_*.c (docs/formats/metroid-prime.md). Quaternions are written W,X,Y,Z.
 */
#ifndef AMXW_MP_WRITER_H
#define AMXW_MP_WRITER_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AMXW_FOURCC(a, b, c, d) \
    ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))
#define AMXW_MP_MAX_CHANNELS 64

/* ---- ANIM ---- */

/* A format-2 bone channel. Each component is given as its quantised values at every stored
 * key, key 0 being the initial (descriptor) value: (keys + 1) x 3 values, keys = keyed frames
 * after frame 0. The writer stores the differences, in `bits` bits (0 = the fewest that hold
 * every difference of that axis). NULL = the component is absent. */
typedef struct amxw_mp_v2_channel {
    uint32_t bone_id;
    const int32_t *rot;
    const uint8_t *rot_wneg;   /* keys + 1 W sign bits (entry 0 unused); NULL = all positive */
    const int32_t *trans;
    const int32_t *scale;      /* MP2 only */
    uint8_t bits[3][3];        /* [rotation, translation, scale][x, y, z] */
} amxw_mp_v2_channel;

/* A format-0 channel (an animated bone): a key for every frame. */
typedef struct amxw_mp_v0_channel {
    uint32_t bone_id;
    const float *rot;    /* frames x 4 (W, X, Y, Z); NULL = none (MP1 writes identity) */
    const float *trans;  /* frames x 3; NULL = none */
    const float *scale;  /* frames x 3; NULL = none; MP2 only */
} amxw_mp_v0_channel;

typedef struct amxw_mp_anim_spec {
    int game;                 /* 1 or 2 */
    int format;               /* 0 or 2 */
    float interval;           /* 0 = 1/30 s */
    bool duration_set;        /* else duration = (frames - 1) x interval */
    float duration;
    uint32_t root_bone_id;
    uint32_t frames;          /* format 2: key bitmap length; format 0: KeyCount */
    uint32_t evnt_id;         /* MP1 */
    /* format 2 */
    const uint8_t *keyed;     /* frames flags: 1 = the frame is keyed (frame 0 always); NULL = all */
    uint32_t rot_divisor;
    float translation_mult, scale_mult;
    uint32_t looping, scratch_size;
    const amxw_mp_v2_channel *v2;
    /* format 0 */
    const amxw_mp_v0_channel *v0;
    uint32_t channel_count;   /* at most AMXW_MP_MAX_CHANNELS */
} amxw_mp_anim_spec;

typedef struct amxw_mp_anim_layout {
    size_t duration, interval, root, frames;   /* header fields (frames: bitmap bits / KeyCount) */
    /* format 2 */
    size_t rot_divisor, trans_mult, scale_mult, channels, bitmap, count_again;
    size_t desc[AMXW_MP_MAX_CHANNELS];
    size_t stream, stream_bytes;
    uint32_t keys, bits_per_key;
    /* format 0 */
    size_t slots, list[3], block[3], evnt;  /* list/block: the u32 count of each (rot, trans, scale) */
} amxw_mp_anim_layout;

void amxw_mp_anim(amxw_buf *b, const amxw_mp_anim_spec *s, amxw_mp_anim_layout *lay);

/* ---- CINF ---- */

typedef struct amxw_mp_bone {
    uint32_t id, parent;      /* parent 97 = root */
    float pos[3];
    float rot[4], lrot[4];    /* MP2 */
    const uint32_t *linked;   /* NULL: the parent (unless 97) and the children */
    uint32_t linked_count;
} amxw_mp_bone;

typedef struct amxw_mp_cinf_spec {
    int game;
    const amxw_mp_bone *bones;
    uint32_t bone_count;
    const uint32_t *build_order;  /* NULL: the bone ids in file order */
    uint32_t build_count;
    const char *const *names;     /* name table: names[i] for bone id name_ids[i] */
    const uint32_t *name_ids;
    uint32_t name_count;
} amxw_mp_cinf_spec;

typedef struct amxw_mp_cinf_layout {
    size_t bone[AMXW_MP_MAX_CHANNELS];
    size_t linked[AMXW_MP_MAX_CHANNELS];  /* the LinkedCount field */
    size_t build, names, end;
} amxw_mp_cinf_layout;

void amxw_mp_cinf(amxw_buf *b, const amxw_mp_cinf_spec *s, amxw_mp_cinf_layout *lay);

/* ---- ANCS ---- */

typedef struct amxw_mp_meta {
    uint32_t type;             /* 0 primitive, 1 blend, 2 phase blend, 3 random, 4 sequence */
    uint32_t anim_id, anim_idx;/* primitive */
    const char *name;          /* primitive */
    const struct amxw_mp_meta *children;
    uint32_t child_count;      /* 2 for blends */
} amxw_mp_meta;

typedef struct amxw_mp_character {
    uint32_t idx;
    uint16_t version;          /* 0 = 6 (MP1) / 10 (MP2) */
    const char *name;
    uint32_t cmdl, cskr, cinf;
    uint32_t anim_names;       /* per-character animation name entries */
    uint32_t pas_states;       /* PAS4 states (each: a float and a bool parameter, 2 infos) */
    uint32_t particles;        /* ids in each particle list */
    uint32_t aabbs, effects;   /* version > 1, > 2 */
} amxw_mp_character;

typedef struct amxw_mp_set_anim {
    const char *name;
    amxw_mp_meta meta;
} amxw_mp_set_anim;

typedef struct amxw_mp_ancs_spec {
    int game;
    const amxw_mp_character *chars;
    uint32_t char_count;
    const amxw_mp_set_anim *anims;
    uint32_t anim_count;
    uint16_t set_version;              /* 0 = 4 */
    const amxw_mp_meta *transition;    /* one transition playing this (MetaTrans 0), or NULL */
    uint32_t half_transitions;         /* Snap half transitions */
    const uint32_t *resources;         /* MP1 ANIM resource ids (EVNT = id + 1) */
    uint32_t resource_count;
} amxw_mp_ancs_spec;

typedef struct amxw_mp_ancs_layout {
    size_t chars[8];
    size_t pas[8];                     /* the PAS4 magic of each character */
    size_t set, anims_meta[16];        /* the animation set; each animation's MetaAnim type */
    size_t end;
} amxw_mp_ancs_layout;

void amxw_mp_ancs(amxw_buf *b, const amxw_mp_ancs_spec *s, amxw_mp_ancs_layout *lay);

/* ---- PAK ---- */

typedef struct amxw_mp_resource {
    uint32_t type;             /* AMXW_FOURCC('A','N','I','M') */
    uint32_t id;
    const uint8_t *data;
    size_t len;
    bool compress;             /* u32 size prefix + zlib stream */
    const char *name;          /* named-resource table entry, or NULL */
} amxw_mp_resource;

typedef struct amxw_mp_pak_layout {
    size_t named, res_count;
    size_t record[32];         /* each 20-byte record */
    size_t data[32];           /* each resource's stored data (padded to 32 bytes) */
    size_t size[32];           /* each stored size */
} amxw_mp_pak_layout;

void amxw_mp_pak(amxw_buf *b, const amxw_mp_resource *res, uint32_t n, amxw_mp_pak_layout *lay);

/* Patching big-endian fields in place. */
void amxw_mp_put_u32(amxw_buf *b, size_t at, uint32_t v);
void amxw_mp_put_u16(amxw_buf *b, size_t at, uint16_t v);
void amxw_mp_put_f32(amxw_buf *b, size_t at, float v);

#endif
