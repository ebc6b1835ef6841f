/*
 * Metroid Prime 1 and 2 (GameCube, big-endian) details of a decoded asset: amx_asset.mp.
 *
 * Formats: ANIM (animations, format 0 and 2), CINF (skeletons), ANCS (character sets, which
 * join CINF skeletons to ANIM animations) and PAK (archives). None of the four says which game
 * it comes from; the decoders tell it from the structure, or take amx_decode_opts.game, and say
 * which in `game` and `game_source` (and in amx_asset.version: "mp1-v0", "mp1-v2", "mp2-v0",
 * "mp2-v2" for ANIM, "mp1"/"mp2" for CINF and ANCS, "3.5" for PAK).
 *
 * Everything here is owned by the asset and valid until amx_asset_free. Arrays have their
 * count beside them; a NULL array goes with a zero count. Asset ids are the 32-bit ids of the
 * games (file names "0A1B2C3D.ANIM"); 0xFFFFFFFF means "none".
 */
#ifndef ANIMIDX_MP_H
#define ANIMIDX_MP_H

#include "animidx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AMX_MP_NO_ASSET 0xFFFFFFFFu
#define AMX_MP_ROOT_PARENT 97u /* CINF: the parent id of a root bone */

/* How the game of a file was decided. */
typedef enum amx_mp_game_source {
    AMX_MP_GAME_STRUCTURE = 0, /* only that game's layout fits the file (sizes end at EOF), or
                                * a field that only one game writes (ANCS character version) */
    AMX_MP_GAME_HINT = 1,      /* amx_decode_opts.game (the per-root `game` setting) */
    AMX_MP_GAME_HEURISTIC = 2, /* both or neither layout fit: a field heuristic chose (PWE's:
                                * the MP2 u16 0x0101 of ANIM v2, CINF's float-vs-count peek;
                                * ANIM v0: MP2 when its three index lists have one count) */
    AMX_MP_GAME_NONE = 3,      /* not applicable (PAK: both games use the same container) */
} amx_mp_game_source;

/* One transform component (rotation, translation or scale) of an ANIM channel. */
typedef struct amx_mp_component {
    bool present;
    uint32_t key_count;  /* v2: the descriptor's u16 key count (= stored keys); v0: KeyCount */
    int16_t init[3];     /* v2: initial quantised value (x, y, z) */
    uint8_t bits[3];     /* v2: bit width of each delta in the bitstream */
    int32_t block;       /* v0: index of the key block of this kind; -1 in v2 or when absent */
} amx_mp_component;

/* One ANIM channel: a v2 bone channel descriptor, or a v0 animated bone (slot != 0xFF). */
typedef struct amx_mp_channel {
    uint32_t bone_id;
    int64_t offset;      /* v2: the descriptor; v0: the bone's byte in the slot table */
    amx_mp_component rotation, translation, scale; /* scale: MP2 only */
} amx_mp_channel;

typedef struct amx_mp_anim {
    uint32_t format;          /* 0 (uncompressed) or 2 (compressed bitstream) */
    uint32_t root_bone_id;
    float duration, interval; /* seconds, as stored */
    uint32_t frames;          /* v2: key bitmap length in bits; v0: KeyCount */
    uint32_t stored_keys;     /* v2: bitmap bits set after bit 0 (keys in the bitstream) */
    uint32_t evnt_id;         /* MP1 only; AMX_MP_NO_ASSET otherwise */
    /* format 2 */
    uint32_t scratch_size;
    uint32_t looping;
    uint32_t rot_divisor;
    float translation_mult;
    float scale_mult;         /* MP2 only (0 in MP1) */
    const uint32_t *key_bitmap; /* (frames + 31) / 32 words; bit i = (w[i >> 5] >> (i & 31)) & 1 */
    uint32_t bits_per_key;    /* sum over present components: rotation 1 + bx+by+bz, others bx+by+bz */
    int64_t bitstream_offset; /* -1 when none */
    uint64_t bitstream_bytes; /* what the descriptors need: ceil(bits_per_key * keys / 32) * 4 */
    /* channels, in descriptor order (v2) or bone id order (v0); track i of the clip is channel i */
    amx_mp_channel *channels;
    uint32_t channel_count;
} amx_mp_anim;

typedef struct amx_mp_bone {
    uint32_t id;
    uint32_t parent_id;       /* AMX_MP_ROOT_PARENT (97) for a root */
    float position[3];        /* model space, as stored */
    float rotation[4];        /* MP2 only, as stored (W, X, Y, Z); 0 in MP1 */
    float local_rotation[4];  /* MP2 only, as stored */
    uint32_t *linked;         /* parent and child ids, as stored */
    uint32_t linked_count;
    const char *name;         /* from the name table; "" when the table has none */
    int32_t skeleton_index;   /* index of this bone in asset->skeletons[0].bones */
    int64_t offset;           /* the bone's record */
} amx_mp_bone;

typedef struct amx_mp_bone_name {
    const char *name;
    uint32_t bone_id;
} amx_mp_bone_name;

typedef struct amx_mp_cinf {
    amx_mp_bone *bones;       /* in file order (the skeleton's bones are parents-first) */
    uint32_t bone_count;
    uint32_t *build_order;    /* bone ids, as stored */
    uint32_t build_order_count;
    amx_mp_bone_name *names;  /* the name table, as stored */
    uint32_t name_count;
} amx_mp_cinf;

typedef struct amx_mp_character {
    uint32_t index;           /* the character's idx field */
    uint16_t version;         /* its section count / version (10 in MP2) */
    const char *name;
    uint32_t cmdl, cskr, cinf;
    /* The ANIM asset ids the character plays: those of its character set's animation set
     * (every Primitive meta-animation, and the MP1 ANIM/EVNT resource list). The same array for
     * every character of the set. */
    const uint32_t *anim_ids;
    uint32_t anim_id_count;
    int64_t offset;
} amx_mp_character;

typedef struct amx_mp_animation {
    const char *name;         /* the animation set's entry name */
    uint32_t first_anim_id;   /* the first Primitive's ANIM id in its meta-animation tree */
} amx_mp_animation;

typedef struct amx_mp_ancs {
    amx_mp_character *characters;
    uint32_t character_count;
    amx_mp_animation *animations;
    uint32_t animation_count;
    uint32_t *anim_ids;       /* unique ANIM ids of the set, in first-seen order */
    uint32_t anim_id_count;
    uint16_t set_version;     /* the animation set's u16 version */
} amx_mp_ancs;

/* A PAK resource, one per amx_archive entry (same index). */
typedef struct amx_mp_pak_entry {
    uint32_t asset_id;
    char type[5];             /* FourCC, NUL-terminated ("ANIM"); non-printable bytes as '?' */
    bool compressed;
    uint32_t uncompressed_size; /* compressed: the u32 prefix; else the stored size */
    const char *name;         /* from the named-resource table, NULL when unnamed */
    uint64_t offset, size;    /* the stored span (compressed: prefix + zlib stream) */
    bool inflatable;          /* compressed with zlib, and it inflated to uncompressed_size */
} amx_mp_pak_entry;

typedef struct amx_mp_pak {
    amx_mp_pak_entry *entries;
    uint32_t entry_count;
    uint32_t duplicates;      /* resource records skipped as repeats of an asset id listed before */
    uint32_t named_count;     /* named-resource table entries */
} amx_mp_pak;

typedef struct amx_mp_info {
    const char *game;              /* "mp1" or "mp2"; NULL for PAK without a hint */
    amx_mp_game_source game_source;
    const amx_mp_anim *anim;       /* AMX_FMT_MP_ANIM, else NULL */
    const amx_mp_cinf *cinf;       /* AMX_FMT_MP_CINF */
    const amx_mp_ancs *ancs;       /* AMX_FMT_MP_ANCS */
    const amx_mp_pak *pak;         /* AMX_FMT_MP_PAK */
} amx_mp_info;

/* Parses the asset id of a file or PAK member named by it: the last path component ('/', '\\'
 * or '#' separated) must be 8 hex digits, alone or followed by '.' ("0A1B2C3D.ANIM",
 * "x/Metroid1.pak#0A1B2C3D.CINF"). False otherwise. */
bool amx_mp_parse_asset_id(const char *path, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif
