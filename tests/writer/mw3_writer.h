/*
 * Test-side writer of MechWarrior 3 anim.zbd files (version 39; layouts in lib/format/mw3.c and
 * docs/formats/mw3.md). Builds a whole file from parameters: header, anim list, info block, the dummy
 * definition #0, then each definition with its tables, reset sequence and sequences, with
 * every fixed field, pointer, count and size the game writes. Zero-initialised knobs give a
 * correct file; each knob breaks one rule.
 *
 *   static const char *const nodes[] = { "turret", "barrel" };
 *   static const amxw_mw3_event ev[] = { { .type = 6, .value = 1, .a = 1 } };   // node 1
 *   static const amxw_mw3_sequence seq[] = { { .name = "FIRE", .events = ev, .event_count = 1 } };
 *   amxw_mw3_def def = { .anim_name = "fire", .name = "gun.flt", .anim_root = "gun",
 *                        .nodes = nodes, .node_count = 2, .sequences = seq, .sequence_count = 1 };
 *   amxw_mw3_spec spec = { .defs = &def, .def_count = 1 };
 *   amxw_buf b = {0};
 *   amxw_mw3(&b, &spec);
 *
 * Like the game, node, object, light and dynamic sound names are written into a 32-byte field
 * pre-filled with "Default_node_name", so the bytes after a short name's NUL are the rest of
 * that string (legal garbage a decoder must keep out of the name).
 *
 * Event index fields take the file's values: tables are 1-based (entry 0 is the reserved zero
 * record), -200 is the INPUT_NODE, anim refs are 0-based.
 */
#ifndef AMXW_MW3_WRITER_H
#define AMXW_MW3_WRITER_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AMXW_MW3_MAX_DEFS 8    /* definitions, sequences and events the layout records */
#define AMXW_MW3_MAX_SEQS 8
#define AMXW_MW3_MAX_EVENTS 16

/* Tables, in file order, then the sequences (for count_adjust / wrong_ptr / layout). */
enum {
    AMXW_MW3_T_OBJECTS,
    AMXW_MW3_T_NODES,
    AMXW_MW3_T_LIGHTS,
    AMXW_MW3_T_PUFFERS,
    AMXW_MW3_T_DSOUNDS,
    AMXW_MW3_T_SSOUNDS,
    AMXW_MW3_T_APCS,
    AMXW_MW3_T_AREFS,
    AMXW_MW3_T_SEQS,
    AMXW_MW3_T_COUNT
};

/* One event. Which fields a type uses (offsets in the event data):
 *   1 SOUND               a static sound @0 (i16), b node @2
 *   2 SOUND_NODE          name @0, a dynamic sound @32 (i32), b node @44 (AT_NODE when b != 0)
 *   3 EFFECT              a effect @0, b node @2
 *   4 LIGHT_STATE         name @0, a light @32 (i32), b node @64 (AT_NODE when b != 0)
 *   5 LIGHT_ANIMATION     name @0, a light @32
 *   6 OBJECT_ACTIVE_STATE value = state @0, a node @4 (i16)
 *   7 OBJECT_TRANSLATE_STATE value = relative @0, translation (1,2,3) @4, a node @16, b at @18
 *   8 OBJECT_SCALE_STATE  scale (1,1,1) @0, a node @12 (i32)
 *   9 OBJECT_ROTATE_STATE a node @16, b at-node @18
 *  10 OBJECT_MOTION       a node @4 (bounce sequence indices -1)
 *  11 OBJECT_MOTION_FROM_TO a node @4 (i32)
 *  12 OBJECT_MOTION_SI_SCRIPT a node @0 (i32), value = frames @4, each frame translate-only
 *                         (12 + 76 bytes)
 *  13 OBJECT_OPACITY_STATE opacity 0.5, a node @8
 *  14 OBJECT_OPACITY_FROM_TO a node @0 (i32)
 *  15/16 OBJECT_ADD/DELETE_CHILD a parent @0, b child @2
 *  17 OBJECT_CYCLE_TEXTURE a node @4
 *  18 OBJECT_CONNECTOR    a node @4, b from @6, c to @8
 *  19 CALL_OBJECT_CONNECTOR name @4, a save anim ref @38 (when wait, else -1), b from @40,
 *                         c to @42
 *  20/21 CAMERA_STATE/FROM_TO a node @4 (i32)
 *  22/23 CALL/STOP_SEQUENCE name @0, index -1 @32
 *  24 CALL_ANIMATION      name @0, a operand node @32, b wait-for anim ref @38 (when wait,
 *                         else -1), c node @40 (AT_NODE when c != 0)
 *  25/26/27 STOP/RESET/INVALIDATE_ANIMATION name @0
 *  30 LOOP                count value @4 (flags COUNT)
 *  31/33 IF/ELSEIF        value = condition @0 (0 -> 1), a node @4, 0.5 @8
 *  35 CALLBACK            value @0
 *  41 DETONATE_WEAPON     name (10 bytes) @0, a node @10
 *  42 PUFFER_STATE        name @0, a puffer @32 (i32), b node @40 (AT_NODE when b != 0)
 * Other types (28, 32, 34, 36, ...) are written as zeros of their size; unknown types as
 * data_size zero bytes. */
typedef struct amxw_mw3_event {
    uint8_t type;
    uint8_t start_offset;    /* 0 -> 1 (animation) */
    float start_time;
    const char *name;
    int32_t a, b, c;
    uint32_t value;
    bool wait;
    /* Knobs; zero = correct. */
    int32_t size_adjust;     /* added to the stored size (the data written is unchanged) */
    int32_t data_size;       /* > 0: write this many zero data bytes instead of the layout */
    uint16_t pad;            /* the header's padding field */
} amxw_mw3_event;

typedef struct amxw_mw3_sequence {
    const char *name;
    uint8_t seq_state;       /* 0 initial, 3 on call (the reset state is written equal) */
    const amxw_mw3_event *events;
    uint32_t event_count;
    int32_t size_adjust;     /* knob: added to the stored size */
} amxw_mw3_sequence;

typedef struct amxw_mw3_apc {
    uint32_t optional;
    uint32_t type;           /* 1 animation, 2 object, 3 parent (written as given) */
    uint32_t active;         /* objects/parents */
    const char *name;
    const uint8_t *raw_name; /* knob: 32 bytes written as the name field instead of `name` */
} amxw_mw3_apc;

typedef struct amxw_mw3_anim_ref {
    const char *name;        /* CALL_ANIMATION: the 64-byte field; CONNECTOR: the first half */
    const char *name2;       /* CALL_OBJECT_CONNECTOR: the second 32-byte half */
    uint32_t type;           /* 0 CALL_ANIMATION, 1 CALL_OBJECT_CONNECTOR */
    const char *garbage;     /* bytes written after the name's NUL */
} amxw_mw3_anim_ref;

typedef struct amxw_mw3_def {
    const char *anim_name;
    const char *name;
    const char *anim_root;   /* anim_root_ptr == anim_ptr exactly when name == anim_root */
    const char *anim_name_garbage;  /* bytes written after the NUL of anim_name / anim_root */
    const char *anim_root_garbage;
    uint32_t flags;          /* AnimDefFlags */
    uint8_t activation;
    float range_min, range_max;  /* written as given */
    float reset_time;        /* written when flags has RESET_TIME (1 << 5), else -1 */
    float health;            /* max and current */
    /* Names of table entries 1..n (the reserved zero entry is added; n = 0: no table). */
    const char *const *objects;
    uint32_t object_count;
    const char *const *nodes;
    uint32_t node_count;
    const char *const *lights;
    uint32_t light_count;
    const char *const *puffers;
    uint32_t puffer_count;
    const char *const *dynamic_sounds;
    uint32_t dynamic_sound_count;
    const char *const *static_sounds;
    uint32_t static_sound_count;
    const char *static_sound_garbage; /* bytes after each static sound name's NUL */
    const amxw_mw3_apc *apcs;
    uint32_t apc_count;
    uint8_t apc_min;
    const amxw_mw3_anim_ref *anim_refs;
    uint32_t anim_ref_count;
    const amxw_mw3_event *reset_events; /* none: an empty reset sequence (size 0, pointer 0) */
    uint32_t reset_event_count;
    const amxw_mw3_sequence *sequences;
    uint32_t sequence_count;
    /* Knobs; zero = correct. */
    int32_t count_adjust[AMXW_MW3_T_COUNT]; /* added to the stored counts (records unchanged) */
    uint32_t wrong_ptr;      /* bit t: table t's pointer is 0 with records, or set without */
    int32_t reset_copy_size_adjust; /* added to the size of the reset-state copy at +200 */
    uint32_t reset_copy_ptr_xor;    /* xor-ed into the pointer of the copy at +200 */
} amxw_mw3_def;

typedef struct amxw_mw3_spec {
    const char *const *toc;  /* reader paths of the anim list */
    uint32_t toc_count;
    const char *toc_garbage; /* bytes written after the first path's NUL */
    const amxw_mw3_def *defs; /* not counting the dummy #0, which is always written */
    uint32_t def_count;
    /* Knobs; zero = correct. */
    int32_t def_count_adjust; /* added to the info block's count (def_count + 1) */
    uint32_t trailing_bytes;  /* bytes of 0xAB appended after the last definition */
} amxw_mw3_spec;

/* Offsets in the buffer of what was written (for tests that patch bytes). */
typedef struct amxw_mw3_layout {
    size_t info;
    size_t dummy;
    size_t def[AMXW_MW3_MAX_DEFS];
    size_t table[AMXW_MW3_MAX_DEFS][AMXW_MW3_T_COUNT]; /* first record; 0 = no table;
                                                         * [T_SEQS] = first sequence header */
    size_t reset[AMXW_MW3_MAX_DEFS];                   /* reset sequence header */
    size_t reset_event[AMXW_MW3_MAX_DEFS][AMXW_MW3_MAX_EVENTS];
    size_t seq[AMXW_MW3_MAX_DEFS][AMXW_MW3_MAX_SEQS];
    size_t event[AMXW_MW3_MAX_DEFS][AMXW_MW3_MAX_SEQS][AMXW_MW3_MAX_EVENTS];
    size_t end;              /* after the last definition (before trailing bytes) */
} amxw_mw3_layout;

void amxw_mw3(amxw_buf *b, const amxw_mw3_spec *spec);
/* As amxw_mw3; fills *layout when not NULL (for the first AMXW_MW3_MAX_* items). */
void amxw_mw3_ex(amxw_buf *b, const amxw_mw3_spec *spec, amxw_mw3_layout *layout);

/* Size in bytes of an event as amxw_mw3 writes it (header included, knobs ignored). */
uint32_t amxw_mw3_event_size(const amxw_mw3_event *ev);

/* A plausible file with `defs` definitions (anim roots "mech_root_00", ...; anim names
 * "anim_00", ...), each with nodes, a light, sounds, an APC, a reset sequence and two
 * sequences; definition i > 0 calls definition i - 1. Varies values by seed. */
void amxw_mw3_simple(amxw_buf *b, uint32_t defs, uint32_t seed);

#endif
