/*
 * MechWarrior 3 anim.zbd: the game's parsed animation definitions, dumped from memory.
 *
 * Layout, checks and sources: docs/formats/mw3.md. The decoder follows mech3ax
 * (TerranMechworks/mech3ax crates/anim: mw/anim/read.rs, mw/anim_def/read.rs, common/support,
 * common/seq_def; crates/anim-events: the event readers and the 1-based index lookups in
 * types.rs) and mech3ax-py (gravity, exact end) where they disagree with mech3doc
 * (TerranMechworks/mech3doc: signature, dummy definition, record layouts, event table).
 * All integers are little-endian.
 *
 *   file      AnimHeader, AnimList, AnimInfo, AnimDef #0 (dummy), AnimDef 1..def_count-1, EOF
 *   header    +0 u32 signature 0x08170616   +4 u32 version 39 (Pirate's Moon 50, Recoil 28)
 *   list      +8 u32 count; count x { char path[80] (ASCIIZ, garbage after the NUL); u32 time }
 *   info (68) +0 u32 0  +4 u32 0  +8 u16 0  +10 u16 def_count (with the dummy, > 0)
 *             +12 u32 defs_ptr != 0  +16 u32 0  +20 u32 0  +24 u32 world_ptr != 0
 *             +28 f32 gravity = -9.8  +32..+56 7 x u32 0  +60 u32 1  +64 u32 0
 *   dummy     316 zero bytes except +153 (activation) = 3, then 64 zero bytes (its reset state)
 *   AnimDefC (316)
 *             +0 char anim_name[32]  +32 char name[32]  +64 u32 anim_ptr != 0
 *             +68 char anim_root[32]  +100 u32 anim_root_ptr (== anim_ptr iff name == root)
 *             +104 44 x 0  +148 u32 flags (1<<1 BY_RANGE, 1<<3 BY_ZONE, 1<<4 HAS_CALLBACKS,
 *             1<<5 RESET_TIME, 1<<10/11 NETWORK_LOG_SET/ON, 1<<12/13 SAVE_LOG_SET/ON,
 *             1<<16 AUTO_RESET_NODE_STATES, 1<<20 PROXIMITY_DAMAGE; an _ON bit needs its _SET,
 *             BY_RANGE excludes BY_ZONE)  +152 u8 0  +153 u8 activation 0..4  +154 u8 4
 *             +155 u8 2  +156 f32 range_min  +160 f32 range_max (0 unless BY_RANGE; else
 *             min >= 0, max >= min)  +164 f32 reset_time (-1 unless RESET_TIME)  +168 f32 0
 *             +172 f32 max_health >= 0  +176 f32 cur_health == max  +180..+192 4 x u32 0
 *             +196 u32 seq_defs_ptr  +200 SeqDefInfo reset-state copy (64)
 *             +264 u8 counts: seq_defs (> 0), objects, nodes, lights, puffers, dynamic sounds,
 *             static sounds, effects (0 in MW), APCs, +273 APC min-to-satisfy (<= APCs),
 *             +274 anim refs  +275 u8 0
 *             +276..+308 9 x u32 pointers (objects, nodes, lights, puffers, dynamic sounds,
 *             static sounds, effects, APCs, anim refs; != 0 exactly when the count is > 0)
 *             +312 u32 0
 *   then, in this order (record 0 of the node-like tables is all zero and counted):
 *     objects        96  name[32], u32 0, u32 node ptr, u32 flags, u32 flags_merged, f32[12]
 *     nodes          40  name[32], u32 0, u32 ptr != 0
 *     lights         44  name[32], u32 flags 0, u32 ptr != 0, u32 in_world 0
 *     puffers        44  name[32], u32 flags (top byte only), u32 ptr != 0, u32 0
 *     dynamic sounds 44  as lights
 *     static sounds  36  name[32] (garbage after the NUL), u32 0
 *     APCs           48  u32 optional (0/1), u32 type (1 animation, 2 object, 3 parent), then
 *                        animation: name[32], u32 0, u32 0; object/parent: u32 active (0/1,
 *                        parents 0), name[32], u32 ptr != 0   (no zero record)
 *     anim refs      72  name[64] (CALL_OBJECT_CONNECTOR: two 32-byte halves), u32 type
 *                        (0 CALL_ANIMATION, 1 CALL_OBJECT_CONNECTOR), u32 ptr 0 (no zero record)
 *     reset state    SeqDefInfo (equal to the copy at +200), then `size` bytes of events
 *     sequences      seq_def_count x { SeqDefInfo, events }
 *   SeqDefInfo (64)  name[32] (ASCIIZ; "RESET_SEQUENCE" for the reset state), u8 seq_state
 *                    (0 initial, 3 on call), u8 reset_state, u16 0, 3 x f32 0, 2 x u32 0,
 *                    +56 u32 ptr, +60 u32 size (sequences: ptr != 0, size > 0; reset: ptr != 0
 *                    iff size > 0, state 0)
 *   event     +0 u8 type, +1 u8 start_offset (1 animation, 2 sequence, 3 event), +2 u16 0,
 *             +4 u32 size (with these 12 bytes), +8 f32 start_time; the events of a sequence
 *             end exactly at its size. Data sizes and the indices checked: table `events` below.
 *
 * Events name table entries by 1-based index into the definition's tables (entry 0 is the
 * reserved zero record: index 0 means "none" where a field is optional) and -200 is the
 * INPUT_NODE; anim-ref indices (CALL_ANIMATION wait-for, CALL_OBJECT_CONNECTOR save) are 0-based
 * with -1 for none. Names are the bytes up to the first NUL; bytes after it are legal garbage.
 *
 * Recovery: a table count that disagrees with the records present is found by locating the
 * reset state (its 64 bytes equal the copy at +200) and attributing the byte difference to the
 * one table it fits best; a sequence count by where the next definition starts; the info block's
 * definition count by where the file ends. Names that do not resolve (anim refs, CALL_ANIMATION
 * and the other animation calls, CALL/STOP_SEQUENCE) are BAD_VALUE: they are names, not indices
 * into a table, so INDEX_OUT_OF_RANGE stays reserved for numeric indices. They are errors
 * (the engine's look-up fails at run time), except animation-type APCs (warnings). Names are
 * compared case-insensitively, like the game's reader files.
 */
#include "decoder.h"
#include "animidx/mw3.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HEADER_SIZE 8u
#define TOC_ENTRY_SIZE 84u
#define TOC_PATH_SIZE 80u
#define INFO_SIZE 68u
#define DEF_SIZE 316u
#define SEQ_SIZE 64u
#define EVENT_HEADER_SIZE 12u
#define GRAVITY_BITS 0xC11CCCCDu /* -9.8f */
#define RESET_NAME "RESET_SEQUENCE"
#define RESET_NAME_LEN 15u /* with the NUL */
#define KNOWN_FLAGS 0x00113C3Au
#define MAX_TABLES_SIZE (255u * (96u + 40u + 44u + 44u + 44u + 36u + 48u + 72u))
#define VERSION_PM 50u
#define VERSION_RC 28u

static uint32_t u32at(const uint8_t *p, size_t o) { return amx_load_u32le(p + o); }
static int32_t i32at(const uint8_t *p, size_t o) { return (int32_t)amx_load_u32le(p + o); }
static uint16_t u16at(const uint8_t *p, size_t o) { return (uint16_t)(p[o] | p[o + 1] << 8); }
static int16_t i16at(const uint8_t *p, size_t o) { return (int16_t)u16at(p, o); }
static float f32at(const uint8_t *p, size_t o) { return amx_bits_to_f32(u32at(p, o)); }

/* Offset of the first non-zero byte of [p, p+n), or n. */
static size_t first_nonzero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return i;
    return n;
}

static bool has_nul(const uint8_t *p, size_t n) { return memchr(p, 0, n) != NULL; }

/* ---- probe ---- */

bool amx__mw3_probe(const uint8_t *data, size_t len)
{
    /* The signature only: files of the other MechWarrior 3 engine versions (Pirate's Moon 50,
     * Recoil 28) are taken too, and get a BAD_MAGIC finding that names their game. */
    return len >= 4 && amx_load_u32le(data) == AMX_MW3_SIGNATURE;
}

/* ---- event table ---- */

enum { TB_NODE, TB_LIGHT, TB_PUFFER, TB_DSOUND, TB_SSOUND, TB_EFFECT, TB_AREF };
static const char *const table_names[] = { "node", "light", "puffer", "dynamic sound",
                                           "static sound", "effect", "anim ref" };

enum {
    F_REQ = 1,   /* 0 (the reserved entry) is not allowed; for anim refs: -1 is not allowed */
    F_INPUT = 2, /* -200 (INPUT_NODE) is allowed */
    F_W32 = 4,   /* a 32-bit field (else 16-bit) */
};

typedef struct ev_index {
    uint16_t off;   /* in the event data */
    uint8_t table;
    uint8_t flags;
    const char *what;
} ev_index;

enum { TGT_NONE, TGT_SEQUENCE, TGT_ANIMATION };
enum { SIZE_VARIABLE = -1, SIZE_NOT_MW = -2 };

typedef struct ev_desc {
    const char *name;
    int32_t size;        /* data bytes after the header; SIZE_* */
    uint8_t target;      /* TGT_* */
    uint8_t target_off;  /* offset of the name[32] it calls */
    ev_index idx[4];
} ev_desc;

#define NODE_REQ(o, w) { (o), TB_NODE, F_REQ | F_INPUT | (w), "node" }
#define NODE_OPT(o, w, what) { (o), TB_NODE, F_INPUT | (w), (what) }

static const ev_desc events[43] = {
    [AMX_MW3_EV_SOUND] = { "SOUND", 16, 0, 0,
        { { 0, TB_SSOUND, F_REQ, "sound" }, NODE_OPT(2, 0, "node") } },
    [AMX_MW3_EV_SOUND_NODE] = { "SOUND_NODE", 60, 0, 0,
        { { 32, TB_DSOUND, F_REQ | F_W32, "sound" }, NODE_OPT(44, F_W32, "node") } },
    [AMX_MW3_EV_EFFECT] = { "EFFECT", 16, 0, 0,
        { { 0, TB_EFFECT, F_REQ, "effect" }, NODE_OPT(2, 0, "node") } },
    [AMX_MW3_EV_LIGHT_STATE] = { "LIGHT_STATE", 120, 0, 0,
        { { 32, TB_LIGHT, F_REQ | F_W32, "light" }, NODE_OPT(64, F_W32, "node") } },
    [AMX_MW3_EV_LIGHT_ANIMATION] = { "LIGHT_ANIMATION", 100, 0, 0,
        { { 32, TB_LIGHT, F_REQ | F_W32, "light" } } },
    [AMX_MW3_EV_OBJECT_ACTIVE_STATE] = { "OBJECT_ACTIVE_STATE", 8, 0, 0, { NODE_REQ(4, 0) } },
    [AMX_MW3_EV_OBJECT_TRANSLATE_STATE] = { "OBJECT_TRANSLATE_STATE", 20, 0, 0,
        { NODE_REQ(16, 0), NODE_OPT(18, 0, "at node") } },
    [AMX_MW3_EV_OBJECT_SCALE_STATE] = { "OBJECT_SCALE_STATE", 16, 0, 0, { NODE_REQ(12, F_W32) } },
    [AMX_MW3_EV_OBJECT_ROTATE_STATE] = { "OBJECT_ROTATE_STATE", 20, 0, 0,
        { NODE_REQ(16, 0), NODE_OPT(18, 0, "at node") } },
    [AMX_MW3_EV_OBJECT_MOTION] = { "OBJECT_MOTION", 320, 0, 0,
        { NODE_REQ(4, 0), { 230, TB_SSOUND, 0, "bounce sound 0" },
          { 270, TB_SSOUND, 0, "bounce sound 1" }, { 310, TB_SSOUND, 0, "bounce sound 2" } } },
    [AMX_MW3_EV_OBJECT_MOTION_FROM_TO] = { "OBJECT_MOTION_FROM_TO", 132, 0, 0,
        { NODE_REQ(4, F_W32) } },
    [AMX_MW3_EV_OBJECT_MOTION_SI_SCRIPT] = { "OBJECT_MOTION_SI_SCRIPT", SIZE_VARIABLE, 0, 0,
        { NODE_REQ(0, F_W32) } },
    [AMX_MW3_EV_OBJECT_OPACITY_STATE] = { "OBJECT_OPACITY_STATE", 12, 0, 0, { NODE_REQ(8, 0) } },
    [AMX_MW3_EV_OBJECT_OPACITY_FROM_TO] = { "OBJECT_OPACITY_FROM_TO", 24, 0, 0,
        { NODE_REQ(0, F_W32) } },
    [AMX_MW3_EV_OBJECT_ADD_CHILD] = { "OBJECT_ADD_CHILD", 4, 0, 0,
        { { 0, TB_NODE, F_REQ | F_INPUT, "parent" }, { 2, TB_NODE, F_REQ | F_INPUT, "child" } } },
    [AMX_MW3_EV_OBJECT_DELETE_CHILD] = { "OBJECT_DELETE_CHILD", 4, 0, 0,
        { { 0, TB_NODE, F_REQ | F_INPUT, "parent" }, { 2, TB_NODE, F_REQ | F_INPUT, "child" } } },
    [AMX_MW3_EV_OBJECT_CYCLE_TEXTURE] = { "OBJECT_CYCLE_TEXTURE", 8, 0, 0, { NODE_REQ(4, 0) } },
    [AMX_MW3_EV_OBJECT_CONNECTOR] = { "OBJECT_CONNECTOR", 76, 0, 0,
        { NODE_REQ(4, 0), NODE_OPT(6, 0, "from node"), NODE_OPT(8, 0, "to node") } },
    [AMX_MW3_EV_CALL_OBJECT_CONNECTOR] = { "CALL_OBJECT_CONNECTOR", 68, TGT_ANIMATION, 4,
        { { 38, TB_AREF, 0, "save anim ref" }, NODE_OPT(40, 0, "from node"),
          NODE_OPT(42, 0, "to node") } },
    [AMX_MW3_EV_CAMERA_STATE] = { "CAMERA_STATE", 36, 0, 0, { NODE_REQ(4, F_W32) } },
    [AMX_MW3_EV_CAMERA_FROM_TO] = { "CAMERA_FROM_TO", 96, 0, 0, { NODE_REQ(4, F_W32) } },
    [AMX_MW3_EV_CALL_SEQUENCE] = { "CALL_SEQUENCE", 36, TGT_SEQUENCE, 0, { { 0 } } },
    [AMX_MW3_EV_STOP_SEQUENCE] = { "STOP_SEQUENCE", 36, TGT_SEQUENCE, 0, { { 0 } } },
    [AMX_MW3_EV_CALL_ANIMATION] = { "CALL_ANIMATION", 68, TGT_ANIMATION, 0,
        { NODE_OPT(32, 0, "operand node"), NODE_OPT(40, 0, "node") } },
    [AMX_MW3_EV_STOP_ANIMATION] = { "STOP_ANIMATION", 36, TGT_ANIMATION, 0, { { 0 } } },
    [AMX_MW3_EV_RESET_ANIMATION] = { "RESET_ANIMATION", 36, TGT_ANIMATION, 0, { { 0 } } },
    [AMX_MW3_EV_INVALIDATE_ANIMATION] = { "INVALIDATE_ANIMATION", 36, TGT_ANIMATION, 0,
        { { 0 } } },
    [AMX_MW3_EV_FOG_STATE] = { "FOG_STATE", 68, 0, 0, { { 0 } } },
    [AMX_MW3_EV_LOOP] = { "LOOP", 8, 0, 0, { { 0 } } },
    [AMX_MW3_EV_IF] = { "IF", 12, 0, 0, { { 0 } } },
    [AMX_MW3_EV_ELSE] = { "ELSE", 0, 0, 0, { { 0 } } },
    [AMX_MW3_EV_ELSEIF] = { "ELSEIF", 12, 0, 0, { { 0 } } },
    [AMX_MW3_EV_ENDIF] = { "ENDIF", 0, 0, 0, { { 0 } } },
    [AMX_MW3_EV_CALLBACK] = { "CALLBACK", 4, 0, 0, { { 0 } } },
    [AMX_MW3_EV_FBFX_COLOR_FROM_TO] = { "FBFX_COLOR_FROM_TO", 52, 0, 0, { { 0 } } },
    [AMX_MW3_EV_FBFX_CSINWAVE_FROM_TO] = { "FBFX_CSINWAVE_FROM_TO", SIZE_NOT_MW, 0, 0,
        { { 0 } } },
    [AMX_MW3_EV_ANIM_VERBOSE] = { "ANIM_VERBOSE", SIZE_NOT_MW, 0, 0, { { 0 } } },
    [AMX_MW3_EV_DETONATE_WEAPON] = { "DETONATE_WEAPON", 24, 0, 0, { NODE_OPT(10, 0, "node") } },
    [AMX_MW3_EV_PUFFER_STATE] = { "PUFFER_STATE", 580, 0, 0,
        { { 32, TB_PUFFER, F_REQ | F_W32, "puffer" }, NODE_OPT(40, F_W32, "node") } },
};

static const ev_desc *event_desc(uint32_t type)
{
    if (type >= sizeof events / sizeof events[0] || !events[type].name)
        return NULL;
    return &events[type];
}

const char *amx_mw3_event_type_name(uint32_t type)
{
    const ev_desc *e = event_desc(type);
    return e ? e->name : "UNKNOWN";
}

/* ---- decoder state ---- */

/* The node-like tables in file order, then APCs and anim refs. */
enum { T_OBJECTS, T_NODES, T_LIGHTS, T_PUFFERS, T_DSOUNDS, T_SSOUNDS, T_APCS, T_AREFS, T_COUNT };
static const uint32_t table_rec[T_COUNT] = { 96, 40, 44, 44, 44, 36, 48, 72 };
static const uint32_t table_count_at[T_COUNT] = { 265, 266, 267, 268, 269, 270, 272, 274 };
static const uint32_t table_ptr_at[T_COUNT] = { 276, 280, 284, 288, 292, 296, 304, 308 };
static const char *const table_label[T_COUNT] = { "object", "node", "light", "puffer",
                                                  "dynamic sound", "static sound", "APC",
                                                  "anim ref" };

typedef struct mw3 {
    amx_dec *d;
    amx_reader *r;
    amx_mw3_file *file;
    amx_clip *clips;
    uint32_t clip_cap;
    size_t end;               /* file length */
} mw3;

/* Per-definition state while decoding. */
typedef struct defst {
    amx_mw3_def *def;
    size_t at;                   /* AnimDefC offset */
    uint32_t count[T_COUNT];     /* effective counts (the stored ones unless recovered) */
    uint32_t effects;
    char ctx[96];                /* "def 3 'name'" */
} defst;

/* A name for contexts: printable ASCII, at most 40 characters. */
static void ctx_name(char *out, size_t n, const char *s)
{
    size_t o = 0;
    for (; *s && o + 1 < n && o < 40; s++)
        out[o++] = (*s >= 0x20 && *s < 0x7F && *s != '\'') ? *s : '?';
    out[o] = '\0';
}

static const char *ctxf(char *buf, size_t n, const char *fmt, ...) AMX_PRINTF(3, 4);
static const char *ctxf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}

static const char *seq_ctx(char *buf, size_t n, const defst *ds, const char *seq)
{
    char nm[48];
    ctx_name(nm, sizeof nm, seq);
    return ctxf(buf, n, "%s sequence '%s'", ds->ctx, nm);
}

/* ---- small checks ---- */

static void zero_bytes(mw3 *m, const uint8_t *p, size_t n, size_t at, const char *ctx,
                       const char *what)
{
    size_t k = first_nonzero(p, n);
    if (k < n)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + k), ctx,
                     "%s: byte %zu of %zu is 0x%02X, always 0", what, k, n, p[k]);
}

static void zero_u32(mw3 *m, uint32_t v, size_t at, const char *ctx, const char *what)
{
    if (v)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)at, ctx, "%s is %u (0x%08X), always 0",
                     what, v, v);
}

static bool finite_at(mw3 *m, float v, size_t at, const char *ctx, const char *what)
{
    return amx__check_finite(m->d, v, (int64_t)at, ctx, what);
}

/* A 32-byte (or n-byte) name: NUL-terminated within its field, else BAD_VALUE. */
static const char *name_field(mw3 *m, const uint8_t *p, size_t n, size_t at, const char *ctx,
                              const char *what)
{
    if (!has_nul(p, n))
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                     "%s is not NUL-terminated within its %zu bytes", what, n);
    return amx__strndup(m->d, p, n);
}

/* ---- header, anim list, info ---- */

static bool read_header(mw3 *m)
{
    amx_dec *d = m->d;
    uint32_t sig = amx_read_u32le(m->r), version = amx_read_u32le(m->r);
    if (m->r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header",
                   "an anim.zbd header needs 8 bytes, the file has %zu", m->end);
        return false;
    }
    if (sig != AMX_MW3_SIGNATURE) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, "header", "signature 0x%08X, expected 0x%08X", sig,
                   AMX_MW3_SIGNATURE);
        return false;
    }
    d->asset->version = amx__sprintf(d, "%u", version);
    if (version != AMX_MW3_VERSION) {
        const char *game = version == VERSION_PM   ? "a Pirate's Moon (PM) anim.zbd"
                           : version == VERSION_RC ? "a Recoil (RC) anim.zbd"
                                                   : "an unknown anim.zbd variant";
        amx__fatal(d, AMX_C_BAD_MAGIC, 4, "header",
                   "version %u is %s, which animidx does not decode (only MechWarrior 3 v1.2, "
                   "version 39)",
                   version, game);
        return false;
    }
    return true;
}

static bool read_toc(mw3 *m)
{
    amx_dec *d = m->d;
    uint32_t count = amx_read_u32le(m->r);
    if (m->r->err || !amx_reader_has(m->r, count, TOC_ENTRY_SIZE)) {
        amx__fatal(d, AMX_C_TRUNCATED, 8, "anim list",
                   "the anim list of %u entries needs %llu bytes, only %zu are left", count,
                   (unsigned long long)count * TOC_ENTRY_SIZE, amx_reader_left(m->r));
        return false;
    }
    m->file->toc = amx__array(d, count, sizeof *m->file->toc);
    if (!m->file->toc)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        size_t at = amx_reader_tell(m->r);
        const uint8_t *p = amx_reader_take(m->r, TOC_ENTRY_SIZE);
        char ctx[48];
        ctxf(ctx, sizeof ctx, "anim list entry %u", i);
        m->file->toc[i].path = name_field(m, p, TOC_PATH_SIZE, at, ctx, "the reader path");
        m->file->toc[i].timestamp = u32at(p, TOC_PATH_SIZE);
    }
    m->file->toc_count = count;
    return true;
}

static bool read_info(mw3 *m)
{
    amx_dec *d = m->d;
    size_t at = amx_reader_tell(m->r);
    const uint8_t *p = amx_reader_take(m->r, INFO_SIZE);
    if (!p) {
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)at, "info",
                   "the info block needs 68 bytes, only %zu are left", m->end - at);
        return false;
    }
    const char *ctx = "info";
    amx_mw3_file *f = m->file;
    f->def_count = u16at(p, 10);
    f->defs_ptr = u32at(p, 12);
    f->world_ptr = u32at(p, 24);
    f->gravity = f32at(p, 28);
    zero_u32(m, u32at(p, 0), at + 0, ctx, "info field +0");
    zero_u32(m, u32at(p, 4), at + 4, ctx, "info field +4");
    zero_u32(m, u16at(p, 8), at + 8, ctx, "info field +8");
    if (f->def_count == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 10), ctx,
                     "definition count is 0; it counts the dummy definition #0, so it is >= 1");
    if (f->defs_ptr == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 12), ctx,
                     "definitions pointer is 0, always non-zero");
    zero_u32(m, u32at(p, 16), at + 16, ctx, "message count");
    zero_u32(m, u32at(p, 20), at + 20, ctx, "messages pointer");
    if (f->world_ptr == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 24), ctx,
                     "world pointer is 0, always non-zero");
    if (u32at(p, 28) != GRAVITY_BITS)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 28), ctx,
                     "gravity is %g (0x%08X), always -9.8 (0x%08X)", (double)f->gravity,
                     u32at(p, 28), GRAVITY_BITS);
    for (size_t o = 32; o <= 56; o += 4)
        if (u32at(p, o))
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + o), ctx,
                         "info field +%zu is %u, always 0", o, u32at(p, o));
    if (u32at(p, 60) != 1)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 60), ctx,
                     "info field +60 is %u, always 1", u32at(p, 60));
    zero_u32(m, u32at(p, 64), at + 64, ctx, "info field +64");
    return true;
}

/* The dummy definition #0: 316 zero bytes except activation = 3, then 64 zero bytes. */
static bool read_dummy(mw3 *m)
{
    size_t at = amx_reader_tell(m->r);
    const uint8_t *p = amx_reader_take(m->r, DEF_SIZE + SEQ_SIZE);
    if (!p) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)at, "def 0",
                     "the dummy definition #0 needs 380 bytes, only %zu are left", m->end - at);
        return false;
    }
    for (size_t i = 0; i < DEF_SIZE + SEQ_SIZE; i++) {
        uint8_t want = i == 153 ? 3 : 0;
        if (p[i] != want) {
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + i), "def 0",
                         "the dummy definition #0 has 0x%02X at +%zu, expected 0x%02X", p[i], i,
                         want);
            break;
        }
    }
    return true;
}

/* ---- structure probes (for recovering counts) ---- */

/* True when the bytes at `at` look like an AnimDefC. */
static bool looks_like_def(const mw3 *m, size_t at)
{
    amx_reader q = *m->r;
    if (!amx_reader_seek(&q, at))
        return false;
    const uint8_t *p = amx_reader_peek(&q, DEF_SIZE);
    if (!p)
        return false;
    return (p[154] == 4 && p[155] == 2) || memcmp(p + 200, RESET_NAME, RESET_NAME_LEN) == 0;
}

/* True when the bytes at `at` look like a sequence header whose events fit in the file. */
static bool looks_like_seq(const mw3 *m, size_t at)
{
    amx_reader q = *m->r;
    if (!amx_reader_seek(&q, at))
        return false;
    const uint8_t *p = amx_reader_peek(&q, SEQ_SIZE);
    if (!p || p[0] < 0x20 || p[0] >= 0x7F || !has_nul(p, 32))
        return false;
    for (size_t i = 0; p[i]; i++)
        if (p[i] < 0x20 || p[i] >= 0x7F)
            return false;
    uint32_t size = u32at(p, 60);
    return (p[32] == 0 || p[32] == 3) && first_nonzero(p + 34, 22) == 22 && size > 0 &&
           size <= m->end - at - SEQ_SIZE;
}

/* Scores a table layout starting at `at`: how many record-0 / type checks pass. */
static int layout_score(const mw3 *m, size_t at, const uint32_t *count)
{
    amx_reader q = *m->r;
    int score = 0;
    size_t pos = at;
    for (int t = 0; t < T_COUNT; t++) {
        size_t bytes = (size_t)count[t] * table_rec[t];
        if (count[t] == 0)
            continue;
        if (!amx_reader_seek(&q, pos))
            return -1;
        const uint8_t *p = amx_reader_peek(&q, bytes);
        if (!p)
            return -1;
        if (t <= T_SSOUNDS)
            score += first_nonzero(p, table_rec[t]) == table_rec[t];
        else if (t == T_APCS)
            for (uint32_t i = 0; i < count[t]; i++)
                score += u32at(p, i * 48u + 4) - 1u < 3u && u32at(p, i * 48u) <= 1;
        else
            for (uint32_t i = 0; i < count[t]; i++)
                score += u32at(p, i * 72u + 68) == 0 && u32at(p, i * 72u + 64) <= 1;
        pos += bytes;
    }
    return score;
}

/* Finds the reset state header of a definition whose tables should end at `expected`: there
 * when its name is RESET_SEQUENCE, else the nearest 64 bytes equal to the copy at +200. Returns
 * `expected` when nothing better is found. */
static size_t find_reset(const mw3 *m, size_t def_at, size_t expected, const uint8_t *copy)
{
    amx_reader q = *m->r;
    if (amx_reader_seek(&q, expected)) {
        const uint8_t *p = amx_reader_peek(&q, SEQ_SIZE);
        if (p && memcmp(p, RESET_NAME, RESET_NAME_LEN) == 0)
            return expected;
    }
    if (memcmp(copy, RESET_NAME, RESET_NAME_LEN) != 0)
        return expected;
    size_t lo = def_at + DEF_SIZE;
    size_t hi = m->end; /* candidates in [lo, hi - 64], within the largest tables can be */
    if (hi - lo > MAX_TABLES_SIZE + SEQ_SIZE)
        hi = lo + MAX_TABLES_SIZE + SEQ_SIZE;
    if (hi - lo < SEQ_SIZE)
        return expected;
    q = *m->r;
    amx_reader_seek(&q, lo);
    const uint8_t *base = amx_reader_peek(&q, hi - lo);
    if (!base)
        return expected;
    size_t best = expected, best_dist = SIZE_MAX;
    for (size_t off = 0; off + SEQ_SIZE <= hi - lo;) {
        const uint8_t *hit = amx_memmem(base + off, hi - lo - off, copy, SEQ_SIZE);
        if (!hit)
            break;
        size_t pos = lo + (size_t)(hit - base);
        size_t dist = pos > expected ? pos - expected : expected - pos;
        if (dist < best_dist) {
            best = pos;
            best_dist = dist;
        }
        if (pos > expected)
            break; /* later hits are further away */
        off = (size_t)(hit - base) + 1;
    }
    return best;
}

/* ---- tables ---- */

static void check_zero_entry(mw3 *m, const uint8_t *p, size_t n, size_t at, const defst *ds,
                             const char *label)
{
    char ctx[160];
    ctxf(ctx, sizeof ctx, "%s %s 0", ds->ctx, label);
    zero_bytes(m, p, n, at, ctx, "the reserved entry 0");
}

/* A node-like table: record 0 reserved, then count-1 named records. */
static bool read_ref_table(mw3 *m, defst *ds, int t, amx_mw3_ref **out, uint32_t *out_count)
{
    uint32_t count = ds->count[t], rec = table_rec[t];
    if (count == 0)
        return true;
    size_t at = amx_reader_tell(m->r);
    char ctx[160];
    if (!amx_reader_has(m->r, count, rec)) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)at,
                     ctxf(ctx, sizeof ctx, "%s %ss", ds->ctx, table_label[t]),
                     "%u %s records of %u bytes run past the end of the file", count,
                     table_label[t], rec);
        return false;
    }
    const uint8_t *p = amx_reader_take(m->r, (size_t)count * rec);
    check_zero_entry(m, p, rec, at, ds, table_label[t]);
    amx_mw3_ref *refs = amx__array(m->d, count - 1, sizeof *refs);
    if (!refs)
        return false;
    for (uint32_t i = 1; i < count; i++) {
        const uint8_t *e = p + (size_t)i * rec;
        size_t eat = at + (size_t)i * rec;
        ctxf(ctx, sizeof ctx, "%s %s %u", ds->ctx, table_label[t], i);
        amx_mw3_ref *r = &refs[i - 1];
        r->offset = (int64_t)eat;
        r->name = name_field(m, e, 32, eat, ctx, "the name");
        switch (t) {
        case T_OBJECTS:
            zero_u32(m, u32at(e, 32), eat + 32, ctx, "object field +32");
            r->pointer = u32at(e, 36);
            r->flags = u32at(e, 40);
            break;
        case T_NODES:
            zero_u32(m, u32at(e, 32), eat + 32, ctx, "node field +32");
            r->pointer = u32at(e, 36);
            break;
        case T_LIGHTS:
        case T_DSOUNDS:
            zero_u32(m, u32at(e, 32), eat + 32, ctx, "flags");
            r->pointer = u32at(e, 36);
            zero_u32(m, u32at(e, 40), eat + 40, ctx, "in-world field");
            break;
        case T_PUFFERS:
            if (u32at(e, 32) & 0x00FFFFFFu)
                amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(eat + 32), ctx,
                             "puffer flags 0x%08X: only the top byte is used", u32at(e, 32));
            r->flags = u32at(e, 32) >> 24;
            r->pointer = u32at(e, 36);
            zero_u32(m, u32at(e, 40), eat + 40, ctx, "puffer field +40");
            break;
        default: /* static sounds */
            zero_u32(m, u32at(e, 32), eat + 32, ctx, "static sound field +32");
            break;
        }
        if (t != T_OBJECTS && t != T_SSOUNDS && r->pointer == 0)
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(eat + 36), ctx,
                         "the %s pointer is 0, always non-zero", table_label[t]);
    }
    *out = refs;
    *out_count = count - 1;
    return true;
}

/* APC names: non-empty, NUL-terminated within 32 bytes, printable ASCII. */
static void check_apc_name(mw3 *m, const uint8_t *p, size_t at, const char *ctx)
{
    const uint8_t *nul = memchr(p, 0, 32);
    if (!nul) {
        amx__finding(m->d, AMX_C_APC_NAME_INVALID, (int64_t)at, ctx,
                     "the name is not NUL-terminated within its 32 bytes");
        return;
    }
    if (nul == p) {
        amx__finding(m->d, AMX_C_APC_NAME_INVALID, (int64_t)at, ctx, "the name is empty");
        return;
    }
    for (const uint8_t *c = p; c < nul; c++)
        if (*c < 0x20 || *c >= 0x7F) {
            amx__finding(m->d, AMX_C_APC_NAME_INVALID, (int64_t)(at + (size_t)(c - p)), ctx,
                         "the name has the non-ASCII byte 0x%02X", *c);
            return;
        }
}

static bool read_apcs(mw3 *m, defst *ds)
{
    uint32_t count = ds->count[T_APCS];
    amx_mw3_def *def = ds->def;
    if (count == 0)
        return true;
    size_t at = amx_reader_tell(m->r);
    char ctx[160];
    if (!amx_reader_has(m->r, count, 48)) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)at, ctxf(ctx, sizeof ctx, "%s APCs", ds->ctx),
                     "%u APC records of 48 bytes run past the end of the file", count);
        return false;
    }
    const uint8_t *p = amx_reader_take(m->r, (size_t)count * 48);
    def->apcs = amx__array(m->d, count, sizeof *def->apcs);
    if (!def->apcs)
        return false;
    def->apc_count = count;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = p + (size_t)i * 48;
        size_t eat = at + (size_t)i * 48;
        amx_mw3_apc *a = &def->apcs[i];
        ctxf(ctx, sizeof ctx, "%s APC %u", ds->ctx, i);
        a->offset = (int64_t)eat;
        a->optional = u32at(e, 0);
        a->type = u32at(e, 4);
        if (a->optional > 1)
            amx__finding(m->d, AMX_C_APC_BAD_FLAG, (int64_t)eat, ctx,
                         "optional is %u, must be 0 or 1", a->optional);
        if (a->type == AMX_MW3_APC_ANIMATION) {
            a->name = amx__strndup(m->d, e + 8, 32);
            check_apc_name(m, e + 8, eat + 8, ctx);
            if (a->optional == 1)
                amx__finding(m->d, AMX_C_APC_ANIM_OPTIONAL, (int64_t)eat, ctx,
                             "animation prerequisite '%s' is optional", a->name);
            zero_u32(m, u32at(e, 40), eat + 40, ctx, "animation APC field +40");
            zero_u32(m, u32at(e, 44), eat + 44, ctx, "animation APC field +44");
        } else if (a->type == AMX_MW3_APC_OBJECT || a->type == AMX_MW3_APC_PARENT) {
            a->active = u32at(e, 8);
            a->name = amx__strndup(m->d, e + 12, 32);
            a->pointer = u32at(e, 44);
            if (a->active > 1)
                amx__finding(m->d, AMX_C_APC_BAD_FLAG, (int64_t)(eat + 8), ctx,
                             "active is %u, must be 0 or 1", a->active);
            else if (a->type == AMX_MW3_APC_PARENT && a->active)
                amx__finding(m->d, AMX_C_APC_BAD_FLAG, (int64_t)(eat + 8), ctx,
                             "parent-role prerequisite '%s' is active; parents are never active",
                             a->name);
            check_apc_name(m, e + 12, eat + 12, ctx);
            if (a->pointer == 0)
                amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(eat + 44), ctx,
                             "the object pointer is 0, always non-zero");
        } else {
            a->name = "";
            amx__finding(m->d, AMX_C_APC_BAD_TYPE, (int64_t)(eat + 4), ctx,
                         "type %u, must be 1 (animation), 2 (object) or 3 (parent)", a->type);
        }
    }
    return true;
}

static bool read_anim_refs(mw3 *m, defst *ds)
{
    uint32_t count = ds->count[T_AREFS];
    amx_mw3_def *def = ds->def;
    if (count == 0)
        return true;
    size_t at = amx_reader_tell(m->r);
    char ctx[160];
    if (!amx_reader_has(m->r, count, 72)) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)at,
                     ctxf(ctx, sizeof ctx, "%s anim refs", ds->ctx),
                     "%u anim ref records of 72 bytes run past the end of the file", count);
        return false;
    }
    const uint8_t *p = amx_reader_take(m->r, (size_t)count * 72);
    def->anim_refs = amx__array(m->d, count, sizeof *def->anim_refs);
    if (!def->anim_refs)
        return false;
    def->anim_ref_count = count;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = p + (size_t)i * 72;
        size_t eat = at + (size_t)i * 72;
        amx_mw3_anim_ref *a = &def->anim_refs[i];
        ctxf(ctx, sizeof ctx, "%s anim ref %u", ds->ctx, i);
        a->offset = (int64_t)eat;
        a->type = u32at(e, 64);
        if (a->type == AMX_MW3_REF_CALL_OBJECT_CONNECTOR) {
            a->name = amx__strndup(m->d, e, 32);
            a->name2 = amx__strndup(m->d, e + 32, 32);
        } else {
            a->name = name_field(m, e, 64, eat, ctx, "the name");
            a->name2 = "";
            if (a->type != AMX_MW3_REF_CALL_ANIMATION)
                amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(eat + 64), ctx,
                             "type %u, must be 0 (CALL_ANIMATION) or 1 (CALL_OBJECT_CONNECTOR)",
                             a->type);
        }
        zero_u32(m, u32at(e, 68), eat + 68, ctx, "the anim ref pointer");
    }
    return true;
}

/* ---- events ---- */

/* Checks one index field. */
static void check_index(mw3 *m, const defst *ds, const char *ctx, const ev_index *ix,
                        const uint8_t *data, size_t data_at)
{
    int32_t v = (ix->flags & F_W32) ? i32at(data, ix->off) : i16at(data, ix->off);
    size_t at = data_at + ix->off;
    if (ix->table == TB_AREF) {
        uint32_t n = ds->count[T_AREFS];
        if ((v == -1 && !(ix->flags & F_REQ)) || (v >= 0 && (uint32_t)v < n))
            return;
        amx__finding(m->d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)at, ctx,
                     "%s index %d is outside the %u anim refs (0-based, -1 for none)", ix->what,
                     v, n);
        return;
    }
    if (v == 0 && !(ix->flags & F_REQ))
        return;
    if (v == AMX_MW3_INPUT_NODE && (ix->flags & F_INPUT))
        return;
    uint32_t n = 0;
    switch (ix->table) {
    case TB_NODE: n = ds->count[T_NODES]; break;
    case TB_LIGHT: n = ds->count[T_LIGHTS]; break;
    case TB_PUFFER: n = ds->count[T_PUFFERS]; break;
    case TB_DSOUND: n = ds->count[T_DSOUNDS]; break;
    case TB_SSOUND: n = ds->count[T_SSOUNDS]; break;
    default: n = ds->effects; break;
    }
    if (v >= 1 && (uint32_t)v < n)
        return;
    if (n <= 1)
        amx__finding(m->d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)at, ctx,
                     "%s index %d, but the definition has no %ss", ix->what, v,
                     table_names[ix->table]);
    else
        amx__finding(m->d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)at, ctx,
                     "%s index %d is outside the %s table (valid 1..%u%s)", ix->what, v,
                     table_names[ix->table], n - 1, (ix->flags & F_INPUT) ? ", or -200" : "");
}

/* SOUND_NODE, LIGHT_STATE, LIGHT_ANIMATION and PUFFER_STATE repeat the name of the entry their
 * index (i32 at +32) names: the two must agree. */
static void check_event_name(mw3 *m, const defst *ds, const char *ctx, uint8_t type,
                             const uint8_t *data, size_t data_at)
{
    const amx_mw3_def *def = ds->def;
    const amx_mw3_ref *refs;
    uint32_t n;
    const char *what;
    switch (type) {
    case AMX_MW3_EV_SOUND_NODE:
        refs = def->dynamic_sounds, n = def->dynamic_sound_count, what = "dynamic sound";
        break;
    case AMX_MW3_EV_LIGHT_STATE:
    case AMX_MW3_EV_LIGHT_ANIMATION:
        refs = def->lights, n = def->light_count, what = "light";
        break;
    case AMX_MW3_EV_PUFFER_STATE:
        refs = def->puffers, n = def->puffer_count, what = "puffer";
        break;
    default:
        return;
    }
    int32_t v = i32at(data, 32);
    if (v < 1 || (uint32_t)v > n)
        return; /* reported by the index check */
    const char *want = refs[v - 1].name;
    size_t k = strlen(want);
    if (k < 32 && memcmp(data, want, k) == 0 && data[k] == 0)
        return;
    char got[48], exp[48];
    const char *name = amx__strndup(m->d, data, 32);
    ctx_name(got, sizeof got, name);
    ctx_name(exp, sizeof exp, want);
    amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)data_at, ctx,
                 "the event names %s '%s', but %s index %d is '%s'", what, got, what, v, exp);
}

/* OBJECT_MOTION_SI_SCRIPT: a 24-byte header, then frames {u32 flags, f32 start, f32 end} + 76
 * bytes for each of translate (1), rotate (2) and scale (4) present. */
static bool check_si_script(mw3 *m, const char *ctx, const uint8_t *data, uint32_t n,
                            size_t ev_at)
{
    if (n < 24) {
        amx__finding(m->d, AMX_C_SIZE_MISMATCH, (int64_t)(ev_at + 4), ctx,
                     "an OBJECT_MOTION_SI_SCRIPT event needs at least 12 + 24 bytes, this one "
                     "says %u",
                     n + EVENT_HEADER_SIZE);
        return false;
    }
    zero_bytes(m, data + 8, 16, ev_at + EVENT_HEADER_SIZE + 8, ctx, "script header +8..+23");
    uint32_t frames = u32at(data, 4);
    size_t pos = 24;
    for (uint32_t i = 0; i < frames; i++) {
        if (n - pos < 12) {
            pos = SIZE_MAX;
            break;
        }
        uint32_t flags = u32at(data, pos);
        size_t need = 12 + 76u * (size_t)(((flags & 1) != 0) + ((flags & 2) != 0) +
                                          ((flags & 4) != 0));
        if (n - pos < need) {
            pos = SIZE_MAX;
            break;
        }
        pos += need;
    }
    if (pos != n)
        amx__finding(m->d, AMX_C_SIZE_MISMATCH, (int64_t)(ev_at + 4), ctx,
                     "the %u script frames %s the event's %u data bytes", frames,
                     pos == SIZE_MAX ? "need more than" : "do not fill", n);
    return true;
}

/* Decodes and checks one event whose header and data lie in the file. */
static void read_event(mw3 *m, defst *ds, const char *seqctx, uint32_t idx, amx_mw3_event *ev,
                       const uint8_t *p, size_t at)
{
    char ctx[224];
    ctxf(ctx, sizeof ctx, "%s event %u", seqctx, idx);
    ev->type = p[0];
    ev->type_name = amx_mw3_event_type_name(p[0]);
    ev->start_offset = p[1];
    ev->size = u32at(p, 4);
    ev->start_time = f32at(p, 8);
    ev->offset = (int64_t)at;
    if (ev->start_offset < 1 || ev->start_offset > 3)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 1), ctx,
                     "start offset %u, must be 1 (animation), 2 (sequence) or 3 (event)",
                     ev->start_offset);
    if (u16at(p, 2))
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 2), ctx,
                     "event header padding is 0x%04X, always 0", u16at(p, 2));
    finite_at(m, ev->start_time, at + 8, ctx, "start time");

    const ev_desc *e = event_desc(ev->type);
    uint32_t n = ev->size - EVENT_HEADER_SIZE;
    const uint8_t *data = p + EVENT_HEADER_SIZE;
    size_t data_at = at + EVENT_HEADER_SIZE;
    if (!e) {
        amx__finding(m->d, AMX_C_UNKNOWN_CHUNK, (int64_t)at, ctx,
                     "unknown event type %u (%u bytes) skipped", ev->type, ev->size);
        return;
    }
    if (e->size == SIZE_NOT_MW) {
        amx__finding_sev(m->d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, (int64_t)at, ctx,
                         "event type %u (%s) does not exist in MechWarrior 3 (later games only)",
                         ev->type, e->name);
        return;
    }
    if (e->size >= 0 && n != (uint32_t)e->size) {
        amx__finding(m->d, AMX_C_SIZE_MISMATCH, (int64_t)(at + 4), ctx,
                     "%s events are %d bytes (12 + %d), this one says %u", e->name,
                     e->size + (int)EVENT_HEADER_SIZE, e->size, ev->size);
        return;
    }
    if (e->size == SIZE_VARIABLE && !check_si_script(m, ctx, data, n, at))
        return;
    if (n == 0)
        return;
    for (int k = 0; k < 4 && e->idx[k].what; k++)
        check_index(m, ds, ctx, &e->idx[k], data, data_at);
    if (e->target != TGT_NONE)
        ev->target = amx__strndup(m->d, data + e->target_off, 32);
    check_event_name(m, ds, ctx, ev->type, data, data_at);

    switch (ev->type) {
    case AMX_MW3_EV_CALL_SEQUENCE:
    case AMX_MW3_EV_STOP_SEQUENCE:
        if (i32at(data, 32) != -1)
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(data_at + 32), ctx,
                         "sequence index %d, always -1 in the file", i32at(data, 32));
        break;
    case AMX_MW3_EV_CALL_ANIMATION: {
        uint16_t flags = u16at(data, 34);
        int16_t wait = i16at(data, 38);
        if (i16at(data, 36) != 0)
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(data_at + 36), ctx,
                         "animation index %d, always 0 in the file", i16at(data, 36));
        if (flags & 0x10) {
            ev_index ix = { 38, TB_AREF, F_REQ, "wait-for anim ref" };
            check_index(m, ds, ctx, &ix, data, data_at);
        } else if (wait != -1) {
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(data_at + 38), ctx,
                         "wait-for index %d without WAIT_FOR_COMPLETION, expected -1", wait);
        }
        zero_u32(m, u16at(data, 42), data_at + 42, ctx, "CALL_ANIMATION field +42");
        break;
    }
    case AMX_MW3_EV_CALL_OBJECT_CONNECTOR:
        if (i16at(data, 36) != 0)
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(data_at + 36), ctx,
                         "animation index %d, always 0 in the file", i16at(data, 36));
        break;
    case AMX_MW3_EV_STOP_ANIMATION:
        zero_u32(m, u32at(data, 32), data_at + 32, ctx, "STOP_ANIMATION indices");
        break;
    case AMX_MW3_EV_RESET_ANIMATION:
    case AMX_MW3_EV_INVALIDATE_ANIMATION:
        zero_u32(m, u32at(data, 32), data_at + 32, ctx, "animation definition index");
        break;
    case AMX_MW3_EV_OBJECT_ACTIVE_STATE:
        zero_u32(m, u16at(data, 6), data_at + 6, ctx, "OBJECT_ACTIVE_STATE field +6");
        break;
    case AMX_MW3_EV_OBJECT_OPACITY_STATE:
        zero_u32(m, u16at(data, 10), data_at + 10, ctx, "OBJECT_OPACITY_STATE field +10");
        break;
    case AMX_MW3_EV_OBJECT_CONNECTOR:
        zero_u32(m, u16at(data, 10), data_at + 10, ctx, "OBJECT_CONNECTOR field +10");
        break;
    case AMX_MW3_EV_IF:
    case AMX_MW3_EV_ELSEIF: {
        uint32_t cond = u32at(data, 0);
        if (cond == 16) {
            ev_index ix = NODE_REQ(4, F_W32);
            ix.what = "undercover node";
            check_index(m, ds, ctx, &ix, data, data_at);
        } else if (cond != 1 && cond != 2 && cond != 4 && cond != 32 && cond != 64) {
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)data_at, ctx,
                         "condition %u, must be 1, 2, 4, 16, 32 or 64", cond);
        } else {
            zero_u32(m, u32at(data, 4), data_at + 4, ctx, "condition node (not undercover)");
        }
        break;
    }
    default:
        break;
    }
}

/* Walks the `size` bytes of events at `at` (the reader is there). Returns false when the events
 * run past the end of the file. The reader ends after the events. */
static bool read_events(mw3 *m, defst *ds, amx_mw3_sequence *seq, const char *seqctx,
                        size_t seq_at)
{
    size_t at = amx_reader_tell(m->r);
    size_t size = seq->size;
    bool truncated = size > m->end - at;
    if (truncated) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)seq_at, seqctx,
                     "the sequence's %zu bytes of events run past the end of the file (%zu "
                     "bytes left)",
                     size, m->end - at);
        size = m->end - at;
    }
    const uint8_t *p = amx_reader_take(m->r, size);
    if (!p)
        return false;
    /* Count, then decode. */
    uint32_t count = 0;
    size_t pos = 0;
    while (size - pos >= EVENT_HEADER_SIZE) {
        uint32_t esz = u32at(p, pos + 4);
        if (esz < EVENT_HEADER_SIZE || esz > size - pos)
            break;
        pos += esz;
        count++;
    }
    seq->events = amx__array(m->d, count, sizeof *seq->events);
    if (!seq->events)
        return false;
    pos = 0;
    for (uint32_t i = 0; i < count; i++) {
        read_event(m, ds, seqctx, i, &seq->events[i], p + pos, at + pos);
        pos += seq->events[i].size;
        seq->event_count = i + 1;
    }
    if (pos != size && !truncated) {
        char ctx[224];
        ctxf(ctx, sizeof ctx, "%s event %u", seqctx, count);
        if (size - pos < EVENT_HEADER_SIZE)
            amx__finding(m->d, AMX_C_SIZE_MISMATCH, (int64_t)(at + pos), ctx,
                         "the events end %zu bytes before the sequence's size (%zu): too few "
                         "for an event header",
                         size - pos, size);
        else if (u32at(p, pos + 4) < EVENT_HEADER_SIZE)
            amx__finding(m->d, AMX_C_SIZE_MISMATCH, (int64_t)(at + pos + 4), ctx,
                         "event size %u is smaller than its 12-byte header", u32at(p, pos + 4));
        else
            amx__finding(m->d, AMX_C_SIZE_MISMATCH, (int64_t)(at + pos + 4), ctx,
                         "event size %u runs %zu bytes past the end of the sequence (size %zu)",
                         u32at(p, pos + 4), (size_t)u32at(p, pos + 4) - (size - pos), size);
    }
    return !truncated;
}

/* Reads a 64-byte sequence header at the reader into seq (name, states, pointer, size) and
 * checks the fields every sequence shares. */
static const uint8_t *read_seq_header(mw3 *m, const defst *ds, amx_mw3_sequence *seq,
                                      char *ctx, size_t ctxn, const char *fallback)
{
    size_t at = amx_reader_tell(m->r);
    const uint8_t *p = amx_reader_take(m->r, SEQ_SIZE);
    if (!p)
        return NULL;
    seq->offset = (int64_t)at;
    seq->name = amx__strndup(m->d, p, 32);
    seq->seq_state = p[32];
    seq->reset_state = p[33];
    seq->pointer = u32at(p, 56);
    seq->size = u32at(p, 60);
    seq_ctx(ctx, ctxn, ds, seq->name[0] ? seq->name : fallback);
    if (!has_nul(p, 32))
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                     "the sequence name is not NUL-terminated within its 32 bytes");
    zero_bytes(m, p + 34, 22, at + 34, ctx, "sequence header +34..+55");
    return p;
}

static bool read_reset(mw3 *m, defst *ds, const uint8_t *defp)
{
    amx_mw3_def *def = ds->def;
    char ctx[160];
    size_t at = amx_reader_tell(m->r);
    def->reset.offset = -1;
    def->reset.name = "";
    const uint8_t *p = read_seq_header(m, ds, &def->reset, ctx, sizeof ctx, RESET_NAME);
    if (!p) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)at,
                     ctxf(ctx, sizeof ctx, "%s reset sequence", ds->ctx),
                     "the reset sequence header needs 64 bytes, only %zu are left", m->end - at);
        return false;
    }
    amx_mw3_sequence *seq = &def->reset;
    if (memcmp(p, RESET_NAME, RESET_NAME_LEN) != 0)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                     "the reset sequence is named '%s', always RESET_SEQUENCE", seq->name);
    if (p[32] || p[33])
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 32), ctx,
                     "reset sequence states %u/%u, always 0 (initial)", p[32], p[33]);
    if ((seq->pointer != 0) != (seq->size > 0))
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 56), ctx,
                     "reset sequence pointer 0x%08X with size %u: non-zero exactly when the "
                     "size is",
                     seq->pointer, seq->size);
    /* The copy at +200 of the definition. */
    const uint8_t *copy = defp + 200;
    size_t copy_at = ds->at + 200;
    if (u32at(copy, 56) != seq->pointer)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(copy_at + 56), ds->ctx,
                     "reset state copy pointer 0x%08X, but the reset sequence's is 0x%08X",
                     u32at(copy, 56), seq->pointer);
    if (u32at(copy, 60) != seq->size)
        amx__finding(m->d, AMX_C_COUNT_MISMATCH, (int64_t)(copy_at + 60), ds->ctx,
                     "reset state copy size %u, but the reset sequence has %u bytes of events",
                     u32at(copy, 60), seq->size);
    return read_events(m, ds, seq, ctx, at);
}

static bool read_sequence(mw3 *m, defst *ds, amx_mw3_sequence *seq, uint32_t i)
{
    char ctx[160], fallback[24];
    ctxf(fallback, sizeof fallback, "#%u", i);
    size_t at = amx_reader_tell(m->r);
    const uint8_t *p = read_seq_header(m, ds, seq, ctx, sizeof ctx, fallback);
    if (!p) {
        amx__finding(m->d, AMX_C_TRUNCATED, (int64_t)at,
                     ctxf(ctx, sizeof ctx, "%s sequence %u", ds->ctx, i),
                     "the sequence header needs 64 bytes, only %zu are left", m->end - at);
        return false;
    }
    if (!seq->name[0])
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)at, ctx, "the sequence name is empty");
    if (p[32] != 0 && p[32] != 3)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 32), ctx,
                     "sequence state %u, must be 0 (initial) or 3 (on call)", p[32]);
    if (p[33] != 0 && p[33] != 3)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 33), ctx,
                     "sequence reset state %u, must be 0 or 3", p[33]);
    if (seq->pointer == 0)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 56), ctx,
                     "sequence pointer is 0, always non-zero");
    if (seq->size == 0)
        amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)(at + 60), ctx,
                     "sequence size is 0: a sequence has at least one event");
    return read_events(m, ds, seq, ctx, at);
}

/* ---- definitions ---- */

static void check_def_fields(mw3 *m, defst *ds, const uint8_t *p)
{
    amx_mw3_def *def = ds->def;
    size_t at = ds->at;
    const char *ctx = ds->ctx;
    amx_dec *d = m->d;
    if (!has_nul(p, 32))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                     "the animation name is not NUL-terminated within its 32 bytes");
    if (!has_nul(p + 32, 32))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 32), ctx,
                     "the name is not NUL-terminated within its 32 bytes");
    if (!has_nul(p + 68, 32))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 68), ctx,
                     "the animation root name is not NUL-terminated within its 32 bytes");
    if (def->anim_ptr == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 64), ctx,
                     "the animation pointer is 0, always non-zero");
    bool same = strcmp(def->name, def->anim_root) == 0;
    if (same != (def->anim_root_ptr == def->anim_ptr))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 100), ctx,
                     "the animation root pointer 0x%08X %s the animation pointer 0x%08X, but the "
                     "name and the root name %s",
                     def->anim_root_ptr, same ? "differs from" : "equals", def->anim_ptr,
                     same ? "are equal" : "differ");
    zero_bytes(m, p + 104, 44, at + 104, ctx, "definition +104..+147");

    uint32_t fl = def->flags;
    if (fl & ~KNOWN_FLAGS)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 148), ctx, "unknown flag bits 0x%08X",
                     fl & ~KNOWN_FLAGS);
    if ((fl & AMX_MW3_NETWORK_LOG_ON) && !(fl & AMX_MW3_NETWORK_LOG_SET))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 148), ctx,
                     "NETWORK_LOG_ON without NETWORK_LOG_SET");
    if ((fl & AMX_MW3_SAVE_LOG_ON) && !(fl & AMX_MW3_SAVE_LOG_SET))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 148), ctx,
                     "SAVE_LOG_ON without SAVE_LOG_SET");
    if ((fl & AMX_MW3_EXEC_BY_RANGE) && (fl & AMX_MW3_EXEC_BY_ZONE))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 148), ctx,
                     "both EXECUTION_BY_RANGE and EXECUTION_BY_ZONE");
    if (p[152])
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 152), ctx, "status is %u, always 0",
                     p[152]);
    if (def->activation > AMX_MW3_ACT_ON_STARTUP)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 153), ctx,
                     "activation %u, must be 0..4", def->activation);
    if (p[154] != 4)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 154), ctx,
                     "execution priority %u, always 4", p[154]);
    if (p[155] != 2)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 155), ctx, "field +155 is %u, always 2",
                     p[155]);

    bool fmin = finite_at(m, def->range_min, at + 156, ctx, "range min");
    bool fmax = finite_at(m, def->range_max, at + 160, ctx, "range max");
    if (fl & AMX_MW3_EXEC_BY_RANGE) {
        if (fmin && def->range_min < 0.0f)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 156), ctx, "range min %g < 0",
                         (double)def->range_min);
        else if (fmin && fmax && def->range_max < def->range_min)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 160), ctx, "range max %g < min %g",
                         (double)def->range_max, (double)def->range_min);
    } else {
        if (fmin && def->range_min != 0.0f)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 156), ctx,
                         "range min %g without EXECUTION_BY_RANGE, expected 0",
                         (double)def->range_min);
        if (fmax && def->range_max != 0.0f)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 160), ctx,
                         "range max %g without EXECUTION_BY_RANGE, expected 0",
                         (double)def->range_max);
    }
    if (finite_at(m, def->reset_time, at + 164, ctx, "reset time") &&
        !(fl & AMX_MW3_RESET_TIME) && def->reset_time != -1.0f)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 164), ctx,
                     "reset time %g without RESET_TIME, expected -1", (double)def->reset_time);
    zero_u32(m, u32at(p, 168), at + 168, ctx, "field +168");
    bool fh = finite_at(m, def->max_health, at + 172, ctx, "max health");
    bool fc = finite_at(m, def->cur_health, at + 176, ctx, "current health");
    if (fh && def->max_health < 0.0f)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 172), ctx, "max health %g < 0",
                     (double)def->max_health);
    if (fh && fc && def->cur_health != def->max_health)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 176), ctx,
                     "current health %g differs from max health %g", (double)def->cur_health,
                     (double)def->max_health);
    for (size_t o = 180; o <= 192; o += 4)
        if (u32at(p, o))
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + o), ctx,
                         "field +%zu is %u, always 0", o, u32at(p, o));

    /* The reset state copy: the fixed parts (pointer and size are compared with the reset
     * sequence when it is read). */
    if (memcmp(p + 200, RESET_NAME, RESET_NAME_LEN) != 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 200), ctx,
                     "the reset state copy is not named RESET_SEQUENCE");
    if (p[232] || p[233])
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 232), ctx,
                     "reset state copy states %u/%u, always 0", p[232], p[233]);
    zero_bytes(m, p + 234, 22, at + 234, ctx, "reset state copy +34..+55");

    /* Counts and pointers. */
    if (def->counts.sequences == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 264), ctx,
                     "no sequence definitions; a definition has at least one");
    else if (def->seq_defs_ptr == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 196), ctx,
                     "sequence definitions pointer is 0 with %u sequences",
                     def->counts.sequences);
    if (def->counts.effects)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 271), ctx,
                     "effect count %u, always 0 in MechWarrior 3", def->counts.effects);
    if (def->pointers.effects)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + 300), ctx,
                     "effects pointer 0x%08X, always 0 in MechWarrior 3", def->pointers.effects);
    zero_u32(m, p[275], at + 275, ctx, "field +275");
    for (int t = 0; t < T_COUNT; t++) {
        uint32_t count = p[table_count_at[t]], ptr = u32at(p, table_ptr_at[t]);
        if ((ptr != 0) != (count > 0))
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(at + table_ptr_at[t]), ctx,
                         "%s pointer 0x%08X with %u %ss: non-zero exactly when the count is",
                         table_label[t], ptr, count, table_label[t]);
    }
    zero_u32(m, u32at(p, 312), at + 312, ctx, "field +312");
}

/* Table counts vs the records present: when the reset state is not where the counts put it,
 * attributes the difference to one table. Adjusts ds->count; returns where the reset state is. */
static size_t recover_counts(mw3 *m, defst *ds, const uint8_t *p)
{
    size_t tables_at = ds->at + DEF_SIZE;
    size_t bytes = 0;
    for (int t = 0; t < T_COUNT; t++)
        bytes += (size_t)ds->count[t] * table_rec[t];
    size_t expected = tables_at + bytes;
    size_t found = find_reset(m, ds->at, expected, p + 200);
    if (found == expected)
        return found;
    int64_t delta = (int64_t)found - (int64_t)expected;
    int best = -1, best_score = -1;
    bool tie = false;
    uint32_t best_count = 0;
    for (int t = 0; t < T_COUNT; t++) {
        int64_t rec = table_rec[t];
        if (delta % rec)
            continue;
        int64_t nc = (int64_t)ds->count[t] + delta / rec;
        if (nc < 0 || nc > 255)
            continue;
        uint32_t trial[T_COUNT];
        memcpy(trial, ds->count, sizeof trial);
        trial[t] = (uint32_t)nc;
        int score = layout_score(m, tables_at, trial);
        if (score > best_score) {
            best = t;
            best_score = score;
            best_count = (uint32_t)nc;
            tie = false;
        } else if (score == best_score) {
            tie = true;
        }
    }
    if (best >= 0 && !tie) {
        amx__finding(m->d, AMX_C_COUNT_MISMATCH, (int64_t)(ds->at + table_count_at[best]),
                     ds->ctx, "%s count %u, but %u %s records lie before the reset sequence",
                     table_label[best], ds->count[best], best_count, table_label[best]);
        ds->count[best] = best_count;
        return found;
    }
    amx__finding(m->d, AMX_C_COUNT_MISMATCH, (int64_t)(ds->at + 265), ds->ctx,
                 "the table counts add up to %zu bytes, but the reset sequence starts %lld bytes "
                 "%s",
                 bytes, (long long)(delta < 0 ? -delta : delta), delta < 0 ? "earlier" : "later");
    /* Keep the tables that fit before the reset state, in order. */
    size_t room = found - tables_at;
    for (int t = 0; t < T_COUNT; t++) {
        size_t need = (size_t)ds->count[t] * table_rec[t];
        if (need > room)
            ds->count[t] = (uint32_t)(room / table_rec[t]);
        room -= (size_t)ds->count[t] * table_rec[t];
    }
    return found; /* the bytes left over (if any) are skipped */
}

/* Counts the sequences of a definition that follow at the reader (which is not moved): the
 * declared ones, stopping early when the next definition starts (count too high), then any
 * further sequence headers before the next definition (count too low). *to_read is how many
 * read_sequence calls to make (a sequence that runs past the end is read to report it). */
static void count_sequences(const mw3 *m, uint32_t declared, uint32_t *present, uint32_t *extra,
                            uint32_t *to_read)
{
    size_t pos = amx_reader_tell(m->r);
    *present = *extra = 0;
    *to_read = 0;
    for (uint32_t i = 0; i < declared; i++) {
        if (pos < m->end && !looks_like_seq(m, pos) && looks_like_def(m, pos))
            return; /* the next definition: fewer sequences than declared */
        (*to_read)++;
        if (m->end - pos < SEQ_SIZE)
            return;
        amx_reader q = *m->r;
        amx_reader_seek(&q, pos + 60);
        uint32_t size = amx_read_u32le(&q);
        if (size > m->end - pos - SEQ_SIZE)
            return;
        pos += SEQ_SIZE + size;
        (*present)++;
    }
    while (pos < m->end && looks_like_seq(m, pos) && !looks_like_def(m, pos)) {
        amx_reader q = *m->r;
        amx_reader_seek(&q, pos + 60);
        pos += SEQ_SIZE + amx_read_u32le(&q);
        (*extra)++;
    }
    *to_read += *extra;
}

/* Reads one definition at the reader. Returns false when the file ends inside it. */
static bool read_def(mw3 *m, uint32_t index)
{
    amx_dec *d = m->d;
    size_t at = amx_reader_tell(m->r);
    char buf[96];
    const uint8_t *p = amx_reader_take(m->r, DEF_SIZE);
    if (!p) {
        amx__finding(d, AMX_C_TRUNCATED, (int64_t)at, ctxf(buf, sizeof buf, "def %u", index),
                     "definition %u needs 316 bytes, only %zu are left", index, m->end - at);
        return false;
    }
    amx_mw3_def *def = amx__alloc(d, sizeof *def);
    if (!def || d->asset->clip_count >= m->clip_cap)
        return false;
    def->index = index;
    def->offset = (int64_t)at;
    def->file = m->file;
    def->anim_name = amx__strndup(d, p, 32);
    def->name = amx__strndup(d, p + 32, 32);
    def->anim_ptr = u32at(p, 64);
    def->anim_root = amx__strndup(d, p + 68, 32);
    def->anim_root_ptr = u32at(p, 100);
    def->flags = u32at(p, 148);
    def->activation = p[153];
    def->exec_priority = p[154];
    def->range_min = f32at(p, 156);
    def->range_max = f32at(p, 160);
    def->reset_time = f32at(p, 164);
    def->max_health = f32at(p, 172);
    def->cur_health = f32at(p, 176);
    def->seq_defs_ptr = u32at(p, 196);
    def->counts = (amx_mw3_counts){
        .sequences = p[264], .objects = p[265], .nodes = p[266], .lights = p[267],
        .puffers = p[268], .dynamic_sounds = p[269], .static_sounds = p[270], .effects = p[271],
        .apcs = p[272], .anim_refs = p[274],
    };
    def->apc_min_to_satisfy = p[273];
    def->pointers = (amx_mw3_pointers){
        .objects = u32at(p, 276), .nodes = u32at(p, 280), .lights = u32at(p, 284),
        .puffers = u32at(p, 288), .dynamic_sounds = u32at(p, 292),
        .static_sounds = u32at(p, 296), .effects = u32at(p, 300), .apcs = u32at(p, 304),
        .anim_refs = u32at(p, 308),
    };
    def->reset.name = "";
    def->reset.offset = -1;

    amx_clip *clip = &m->clips[d->asset->clip_count++];
    clip->name = def->anim_name;
    clip->skeleton = def->anim_root[0] ? def->anim_root : NULL;
    clip->has_frames = false;
    clip->mw3 = def;

    defst ds = { .def = def, .at = at, .effects = p[271] };
    char nm[48];
    ctx_name(nm, sizeof nm, def->anim_name);
    ctxf(ds.ctx, sizeof ds.ctx, "def %u '%s'", index, nm);
    for (int t = 0; t < T_COUNT; t++)
        ds.count[t] = p[table_count_at[t]];

    check_def_fields(m, &ds, p);
    if (def->apc_min_to_satisfy > def->counts.apcs)
        amx__finding(d, AMX_C_APC_MIN_EXCEEDS_COUNT, (int64_t)(at + 273), ds.ctx,
                     "min-to-satisfy is %u but there are only %u prerequisites",
                     def->apc_min_to_satisfy, def->counts.apcs);

    size_t reset_at = recover_counts(m, &ds, p);
    if (!read_ref_table(m, &ds, T_OBJECTS, &def->objects, &def->object_count) ||
        !read_ref_table(m, &ds, T_NODES, &def->nodes, &def->node_count) ||
        !read_ref_table(m, &ds, T_LIGHTS, &def->lights, &def->light_count) ||
        !read_ref_table(m, &ds, T_PUFFERS, &def->puffers, &def->puffer_count) ||
        !read_ref_table(m, &ds, T_DSOUNDS, &def->dynamic_sounds, &def->dynamic_sound_count) ||
        !read_ref_table(m, &ds, T_SSOUNDS, &def->static_sounds, &def->static_sound_count) ||
        !read_apcs(m, &ds) || !read_anim_refs(m, &ds))
        return false;
    if (amx_reader_tell(m->r) < reset_at)
        amx_reader_seek(m->r, reset_at);
    if (!read_reset(m, &ds, p) || d->out_of_memory)
        return false;

    uint32_t present, extra, to_read;
    count_sequences(m, def->counts.sequences, &present, &extra, &to_read);
    if (present + (to_read > present + extra) < def->counts.sequences)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)(at + 264), ds.ctx,
                     "%u sequences declared, but the next definition starts after %u",
                     def->counts.sequences, present);
    else if (extra)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)(at + 264), ds.ctx,
                     "%u sequences declared, but %u follow", def->counts.sequences,
                     present + extra);
    def->sequences = amx__array(d, to_read, sizeof *def->sequences);
    if (!def->sequences)
        return false;
    for (uint32_t i = 0; i < to_read; i++) {
        def->sequences[i].name = "";
        def->sequences[i].offset = -1;
        def->sequence_count = i + 1;
        if (!read_sequence(m, &ds, &def->sequences[i], i) || d->out_of_memory)
            return false;
    }
    return true;
}

/* ---- name references ---- */

static int cmp_name(const void *a, const void *b)
{
    return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

static bool def_exists(const char *const *sorted, uint32_t n, const char *name)
{
    return n && bsearch(&name, sorted, n, sizeof *sorted, cmp_name) != NULL;
}

/* Sorted names of definitions (anim_name) or of a definition's sequences. */
typedef struct names {
    const char **v;
    uint32_t n;
} names;

/* sorted == NULL: the file did not decode to its end, so only sequence names are checked. */
static void resolve_events(mw3 *m, const char *const *sorted, uint32_t n, const names *seqs,
                           const amx_mw3_sequence *seq, const char *dctx)
{
    for (uint32_t k = 0; k < seq->event_count; k++) {
        const amx_mw3_event *ev = &seq->events[k];
        const ev_desc *e = event_desc(ev->type);
        if (!ev->target || !e || (!sorted && e->target != TGT_SEQUENCE))
            continue;
        bool ok = e->target == TGT_SEQUENCE ? def_exists(seqs->v, seqs->n, ev->target)
                                            : def_exists(sorted, n, ev->target);
        if (ok)
            continue;
        char sn[48], tn[48], ctx[224];
        ctx_name(sn, sizeof sn, seq->name);
        ctx_name(tn, sizeof tn, ev->target);
        ctxf(ctx, sizeof ctx, "%s sequence '%s' event %u", dctx, sn, k);
        amx__finding_sev(m->d, AMX_C_BAD_VALUE, AMX_SEV_ERROR,
                         ev->offset + EVENT_HEADER_SIZE + e->target_off, ctx,
                         "%s names %s '%s', which does not exist%s", e->name,
                         e->target == TGT_SEQUENCE ? "sequence" : "animation", tn,
                         e->target == TGT_SEQUENCE ? " in this definition" : " in the file");
    }
}

/* A valid APC name (APC_NAME_INVALID otherwise): 1..31 printable ASCII characters. */
static bool apc_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 31)
        return false;
    for (; *s; s++)
        if (*s < 0x20 || *s >= 0x7F)
            return false;
    return true;
}

/* Anim refs, animation APCs and the events that call definitions or sequences by name. When
 * the file did not decode to its end (complete == false), definitions may be missing: only the
 * sequence names of the definitions read completely are checked. */
static void resolve_names(mw3 *m, bool complete)
{
    amx_asset *a = m->d->asset;
    uint32_t n = a->clip_count;
    const char **sorted = NULL;
    if (complete && n) {
        sorted = amx__array(m->d, n, sizeof *sorted);
        if (!sorted)
            return;
        for (uint32_t i = 0; i < n; i++)
            sorted[i] = a->clips[i].mw3->anim_name;
        qsort(sorted, n, sizeof *sorted, cmp_name);
    } else if (n) {
        n--; /* the last definition is the one the file ends in */
    }
    for (uint32_t i = 0; i < n; i++) {
        const amx_mw3_def *def = a->clips[i].mw3;
        char nm[48], dctx[96], ctx[160];
        ctx_name(nm, sizeof nm, def->anim_name);
        ctxf(dctx, sizeof dctx, "def %u '%s'", def->index, nm);
        for (uint32_t k = 0; sorted && k < def->anim_ref_count; k++) {
            const amx_mw3_anim_ref *r = &def->anim_refs[k];
            if (def_exists(sorted, n, r->name))
                continue;
            ctx_name(nm, sizeof nm, r->name);
            amx__finding_sev(m->d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, r->offset,
                             ctxf(ctx, sizeof ctx, "%s anim ref %u", dctx, k),
                             "anim ref '%s' names no definition in the file", nm);
        }
        for (uint32_t k = 0; sorted && k < def->apc_count; k++) {
            const amx_mw3_apc *p = &def->apcs[k];
            if (p->type != AMX_MW3_APC_ANIMATION || !apc_name_ok(p->name) ||
                def_exists(sorted, n, p->name))
                continue;
            ctx_name(nm, sizeof nm, p->name);
            amx__finding(m->d, AMX_C_BAD_VALUE, p->offset + 8,
                         ctxf(ctx, sizeof ctx, "%s APC %u", dctx, k),
                         "animation prerequisite '%s' names no definition in the file", nm);
        }
        names seqs = { .n = def->sequence_count };
        if (seqs.n) {
            seqs.v = amx__array(m->d, seqs.n, sizeof *seqs.v);
            if (!seqs.v)
                return;
            for (uint32_t s = 0; s < seqs.n; s++)
                seqs.v[s] = def->sequences[s].name;
            qsort(seqs.v, seqs.n, sizeof *seqs.v, cmp_name);
        }
        resolve_events(m, sorted, n, &seqs, &def->reset, dctx);
        for (uint32_t s = 0; s < def->sequence_count; s++)
            resolve_events(m, sorted, n, &seqs, &def->sequences[s], dctx);
    }
}

/* ---- entry point ---- */

void amx__mw3_decode(amx_dec *d)
{
    mw3 m = { .d = d, .r = &d->r, .end = d->r.end };
    m.file = amx__alloc(d, sizeof *m.file);
    if (!m.file)
        return;
    d->asset->mw3 = m.file;
    if (!read_header(&m))
        return;
    m.file->version = AMX_MW3_VERSION;
    if (!read_toc(&m))
        return;
    size_t info_at = amx_reader_tell(m.r);
    if (!read_info(&m) || !read_dummy(&m))
        return;

    uint32_t declared = m.file->def_count ? m.file->def_count - 1u : 0;
    m.clip_cap = (uint32_t)(amx_reader_left(m.r) / DEF_SIZE) + 1;
    m.clips = amx__array(d, m.clip_cap, sizeof *m.clips);
    if (!m.clips)
        return;
    d->asset->clips = m.clips;

    bool complete = true;
    uint32_t index = 1;
    for (; index <= declared; index++) {
        if (amx_reader_eof(m.r)) {
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)(info_at + 10), "info",
                         "%u definitions declared (with the dummy #0), but the file ends after "
                         "%u",
                         m.file->def_count, index);
            break;
        }
        if (!read_def(&m, index) || d->out_of_memory) {
            complete = false;
            break;
        }
    }
    if (complete && index > declared) {
        uint32_t extra = 0;
        while (!amx_reader_eof(m.r) && looks_like_def(&m, amx_reader_tell(m.r))) {
            extra++;
            if (!read_def(&m, index++) || d->out_of_memory) {
                complete = false;
                break;
            }
        }
        if (extra)
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)(info_at + 10), "info",
                         "%u definitions declared (with the dummy #0), but the file holds %u",
                         m.file->def_count, declared + extra + 1);
        if (complete && !amx_reader_eof(m.r))
            amx__finding(d, AMX_C_TRAILING_DATA, (int64_t)amx_reader_tell(m.r), NULL,
                         "%zu bytes after the last definition", amx_reader_left(m.r));
    }
    if (!d->out_of_memory)
        resolve_names(&m, complete);
}
