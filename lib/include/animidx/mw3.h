/*
 * MechWarrior 3 anim.zbd details: the animation definitions behind each amx_clip of an
 * AMX_FMT_MW3_ANIM asset (clip->mw3).
 *
 * anim.zbd is a memory dump of the game's parsed animation definitions (AnimDefs). Each
 * definition except the dummy #0 becomes one clip: clip->name = anim_name, clip->skeleton =
 * anim_root, clip->has_frames = false, no tracks. Everything below is owned by the asset and
 * valid until amx_asset_free(); nothing points into the decoded bytes.
 *
 * Names are the bytes of their field up to the first NUL (the game leaves garbage after the NUL
 * in many fields; it is legal and never part of a name). All counts are as stored in the file;
 * the arrays hold the records the decoder actually read (see each field), so a damaged file can
 * have an array shorter than its count.
 *
 * Events refer to the name tables (nodes, lights, puffers, sounds) by 1-based index: index 0 is
 * the table's reserved all-zero entry and -200 means the INPUT_NODE. The arrays here leave the
 * reserved entry out, so event index k names element k - 1.
 */
#ifndef ANIMIDX_MW3_H
#define ANIMIDX_MW3_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMX_MW3_SIGNATURE 0x08170616u
#define AMX_MW3_VERSION 39u          /* MechWarrior 3 v1.2; Pirate's Moon is 50, Recoil 28 */
#define AMX_MW3_INPUT_NODE (-200)    /* event node index meaning the INPUT_NODE */

/* amx_mw3_def.flags */
enum {
    AMX_MW3_EXEC_BY_RANGE = 1u << 1,
    AMX_MW3_EXEC_BY_ZONE = 1u << 3,
    AMX_MW3_HAS_CALLBACKS = 1u << 4,
    AMX_MW3_RESET_TIME = 1u << 5,
    AMX_MW3_NETWORK_LOG_SET = 1u << 10,
    AMX_MW3_NETWORK_LOG_ON = 1u << 11,
    AMX_MW3_SAVE_LOG_SET = 1u << 12,
    AMX_MW3_SAVE_LOG_ON = 1u << 13,
    AMX_MW3_AUTO_RESET_NODE_STATES = 1u << 16,
    AMX_MW3_PROXIMITY_DAMAGE = 1u << 20,
};

/* amx_mw3_def.activation */
enum {
    AMX_MW3_ACT_WEAPON_HIT = 0,
    AMX_MW3_ACT_COLLIDE_HIT = 1,
    AMX_MW3_ACT_WEAPON_OR_COLLIDE_HIT = 2,
    AMX_MW3_ACT_ON_CALL = 3,
    AMX_MW3_ACT_ON_STARTUP = 4,
};

/* amx_mw3_apc.type */
enum {
    AMX_MW3_APC_ANIMATION = 1,
    AMX_MW3_APC_OBJECT = 2,
    AMX_MW3_APC_PARENT = 3,
};

/* amx_mw3_anim_ref.type */
enum {
    AMX_MW3_REF_CALL_ANIMATION = 0,
    AMX_MW3_REF_CALL_OBJECT_CONNECTOR = 1,
};

/* amx_mw3_event.start_offset */
enum {
    AMX_MW3_START_ANIMATION = 1,
    AMX_MW3_START_SEQUENCE = 2,
    AMX_MW3_START_EVENT = 3,
};

/* amx_mw3_event.type: the event type ids of the file (39 are defined; 37 and 39 are not valid
 * in MechWarrior 3, 29, 38 and 40 are not defined). */
enum {
    AMX_MW3_EV_SOUND = 1,
    AMX_MW3_EV_SOUND_NODE = 2,
    AMX_MW3_EV_EFFECT = 3,
    AMX_MW3_EV_LIGHT_STATE = 4,
    AMX_MW3_EV_LIGHT_ANIMATION = 5,
    AMX_MW3_EV_OBJECT_ACTIVE_STATE = 6,
    AMX_MW3_EV_OBJECT_TRANSLATE_STATE = 7,
    AMX_MW3_EV_OBJECT_SCALE_STATE = 8,
    AMX_MW3_EV_OBJECT_ROTATE_STATE = 9,
    AMX_MW3_EV_OBJECT_MOTION = 10,
    AMX_MW3_EV_OBJECT_MOTION_FROM_TO = 11,
    AMX_MW3_EV_OBJECT_MOTION_SI_SCRIPT = 12,
    AMX_MW3_EV_OBJECT_OPACITY_STATE = 13,
    AMX_MW3_EV_OBJECT_OPACITY_FROM_TO = 14,
    AMX_MW3_EV_OBJECT_ADD_CHILD = 15,
    AMX_MW3_EV_OBJECT_DELETE_CHILD = 16,
    AMX_MW3_EV_OBJECT_CYCLE_TEXTURE = 17,
    AMX_MW3_EV_OBJECT_CONNECTOR = 18,
    AMX_MW3_EV_CALL_OBJECT_CONNECTOR = 19,
    AMX_MW3_EV_CAMERA_STATE = 20,
    AMX_MW3_EV_CAMERA_FROM_TO = 21,
    AMX_MW3_EV_CALL_SEQUENCE = 22,
    AMX_MW3_EV_STOP_SEQUENCE = 23,
    AMX_MW3_EV_CALL_ANIMATION = 24,
    AMX_MW3_EV_STOP_ANIMATION = 25,
    AMX_MW3_EV_RESET_ANIMATION = 26,
    AMX_MW3_EV_INVALIDATE_ANIMATION = 27,
    AMX_MW3_EV_FOG_STATE = 28,
    AMX_MW3_EV_LOOP = 30,
    AMX_MW3_EV_IF = 31,
    AMX_MW3_EV_ELSE = 32,
    AMX_MW3_EV_ELSEIF = 33,
    AMX_MW3_EV_ENDIF = 34,
    AMX_MW3_EV_CALLBACK = 35,
    AMX_MW3_EV_FBFX_COLOR_FROM_TO = 36,
    AMX_MW3_EV_FBFX_CSINWAVE_FROM_TO = 37,
    AMX_MW3_EV_ANIM_VERBOSE = 39,
    AMX_MW3_EV_DETONATE_WEAPON = 41,
    AMX_MW3_EV_PUFFER_STATE = 42,
};

/* The name of an event type id ("SOUND", "CALL_ANIMATION", ...); "UNKNOWN" for ids that are
 * not defined. Never NULL; a static string. */
const char *amx_mw3_event_type_name(uint32_t type);

/* One reader file of the anim list at the start of the file. */
typedef struct amx_mw3_toc_entry {
    const char *path;        /* e.g. "..\data\common\zrdr\commonAnim.zrd", up to the first NUL */
    uint32_t timestamp;      /* u32 after the 80-byte path (a unix time) */
} amx_mw3_toc_entry;

/* The parts of the file outside the definitions, shared by every def of the asset. */
typedef struct amx_mw3_file {
    uint32_t version;        /* 39 */
    amx_mw3_toc_entry *toc;
    uint32_t toc_count;
    uint16_t def_count;      /* info block: definitions including the dummy #0 */
    uint32_t defs_ptr;       /* info block pointers as stored (defs_ptr identifies the mission) */
    uint32_t world_ptr;
    float gravity;           /* always -9.8 */
} amx_mw3_file;

/* An entry of a def's objects, nodes, lights, puffers, dynamic or static sounds table. */
typedef struct amx_mw3_ref {
    const char *name;
    uint32_t pointer;        /* engine pointer as stored (objects: the node pointer at +36;
                              * static sounds: 0) */
    uint32_t flags;          /* puffers: the top byte of the flags word; objects: flags at +40;
                              * others 0 */
    int64_t offset;          /* the record's absolute offset in the file */
} amx_mw3_ref;

/* An activation prerequisite condition. */
typedef struct amx_mw3_apc {
    uint32_t optional;       /* as stored: 0 required, 1 optional */
    uint32_t type;           /* AMX_MW3_APC_*, as stored (may be invalid) */
    const char *name;        /* the animation (type 1) or object (types 2, 3) name */
    uint32_t active;         /* objects/parents: as stored (0 or 1); animations: 0 */
    uint32_t pointer;        /* objects/parents: the object pointer; animations: 0 */
    int64_t offset;
} amx_mw3_apc;

/* An animation reference: one per CALL_ANIMATION or CALL_OBJECT_CONNECTOR event. */
typedef struct amx_mw3_anim_ref {
    const char *name;        /* the called definition's anim_name: the 64-byte field up to its
                              * first NUL; for CALL_OBJECT_CONNECTOR the first 32-byte half */
    const char *name2;       /* CALL_OBJECT_CONNECTOR: the second 32-byte half; else "" */
    uint32_t type;           /* AMX_MW3_REF_*, as stored */
    int64_t offset;
} amx_mw3_anim_ref;

typedef struct amx_mw3_event {
    uint8_t type;            /* AMX_MW3_EV_* */
    const char *type_name;   /* amx_mw3_event_type_name(type) */
    uint8_t start_offset;    /* AMX_MW3_START_* */
    float start_time;        /* relative to start_offset */
    int64_t offset;          /* absolute offset of the 12-byte event header */
    uint32_t size;           /* as stored: header included */
    /* The definition or sequence the event names: CALL/STOP_SEQUENCE (a sequence of the same
     * definition), CALL/STOP/RESET/INVALIDATE_ANIMATION and CALL_OBJECT_CONNECTOR (a
     * definition's anim_name). NULL for other types. */
    const char *target;
} amx_mw3_event;

typedef struct amx_mw3_sequence {
    const char *name;        /* "RESET_SEQUENCE" for the reset sequence */
    uint8_t seq_state;       /* 0 initial, 3 on call */
    uint8_t reset_state;
    uint32_t pointer;        /* as stored */
    uint32_t size;           /* bytes of event data, as stored */
    int64_t offset;          /* absolute offset of the 64-byte sequence header; -1 when absent */
    amx_mw3_event *events;   /* the events walked (up to the first one that cannot be) */
    uint32_t event_count;
} amx_mw3_sequence;

/* The stored counts of a definition (u8 fields at +264..+274). The node-like tables (objects,
 * nodes, lights, puffers, dynamic and static sounds) count their reserved entry 0 too. */
typedef struct amx_mw3_counts {
    uint8_t sequences;
    uint8_t objects;
    uint8_t nodes;
    uint8_t lights;
    uint8_t puffers;
    uint8_t dynamic_sounds;
    uint8_t static_sounds;
    uint8_t effects;         /* always 0 in MechWarrior 3 */
    uint8_t apcs;
    uint8_t anim_refs;
} amx_mw3_counts;

/* The stored table pointers of a definition (+276..+308); non-zero exactly when the count is. */
typedef struct amx_mw3_pointers {
    uint32_t objects, nodes, lights, puffers, dynamic_sounds, static_sounds, effects, apcs,
        anim_refs;
} amx_mw3_pointers;

/* One animation definition (AnimDefC, 316 bytes, and what follows it). */
typedef struct amx_mw3_def {
    uint32_t index;          /* position in the file: 1 = the first after the dummy #0 */
    int64_t offset;          /* absolute offset of the 316-byte AnimDefC */
    const amx_mw3_file *file;
    const char *anim_name;   /* +0   "animation name" */
    const char *name;        /* +32  "name", e.g. "wing.flt" */
    const char *anim_root;   /* +68  the animation root node */
    uint32_t anim_ptr;       /* +64 */
    uint32_t anim_root_ptr;  /* +100: == anim_ptr iff name == anim_root */
    uint32_t flags;          /* +148 AMX_MW3_* flag bits */
    uint8_t activation;      /* +153 AMX_MW3_ACT_* */
    uint8_t exec_priority;   /* +154 always 4 */
    float range_min;         /* +156 execution by range; 0 unless EXEC_BY_RANGE */
    float range_max;         /* +160 */
    float reset_time;        /* +164 -1 unless RESET_TIME */
    float max_health;        /* +172 */
    float cur_health;        /* +176 == max_health */
    uint32_t seq_defs_ptr;   /* +196 */
    amx_mw3_counts counts;
    uint8_t apc_min_to_satisfy; /* +273 */
    amx_mw3_pointers pointers;
    /* Tables without their reserved entry 0 (event index k names element k - 1). */
    amx_mw3_ref *objects;
    uint32_t object_count;
    amx_mw3_ref *nodes;
    uint32_t node_count;
    amx_mw3_ref *lights;
    uint32_t light_count;
    amx_mw3_ref *puffers;
    uint32_t puffer_count;
    amx_mw3_ref *dynamic_sounds;
    uint32_t dynamic_sound_count;
    amx_mw3_ref *static_sounds;
    uint32_t static_sound_count;
    amx_mw3_apc *apcs;
    uint32_t apc_count;
    amx_mw3_anim_ref *anim_refs;
    uint32_t anim_ref_count;
    amx_mw3_sequence reset;  /* the reset sequence (read unconditionally; may be empty) */
    amx_mw3_sequence *sequences;
    uint32_t sequence_count;
} amx_mw3_def;

#ifdef __cplusplus
}
#endif

#endif
