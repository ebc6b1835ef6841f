/*
 * Alamo ALA animations (Star Wars: Empire at War = format 1, Forces of Corruption = format 2).
 *
 * Layout, unpacking, checks and sources: docs/formats/alamo.md (section 5). Public sources: the
 * GlyphX ALA page (GlyphXTools/GlyphXTools.github.io), Lankamp's Alamo viewer
 * (GlyphXTools/alo-viewer), the AlamoEngine-Tools/ModVerify and PetroglyphTools readers, the
 * Blender ALAMO importer and GlyphXTools/animation-converter; checked against real mod files.
 *
 *   chunk   parent  body (all little-endian; "minis" = mini-chunks u8 type, u8 size; mini ids
 *                   are decimal, as in the docs: 10 = 0x0a, 11..17 = 0x0b..0x11, verified on
 *                   the real files)
 *   0x1000  file    container: 0x1001, n x 0x1002, then in format 2 0x100A, 0x1009, 0x100B
 *   0x1001  0x1000  minis 1 u32 numFrames, 2 f32 fps, 3 u32 numBones (body 18 bytes = format 1)
 *                   + 11 u32 rotFrameSize, 12 u32 transFrameSize, 13 u32 scaleFrameSize
 *                   (body 36 bytes = format 2); frame sizes count int16 elements per frame
 *   0x1002  0x1000  container, one per animated bone: 0x1003, (format 1) [0x1004] [0x1005] 0x1006,
 *                   then [0x1007] [0x1008]
 *   0x1003  0x1002  minis 4 name (ASCIIZ, size incl. NUL), 5 u32 bone index, 10 u32 unknown,
 *                   6 f32[3] transOffset, 7 f32[3] transScale, 8 f32[3] scaleOffset,
 *                   9 f32[3] scaleScale; format 2 adds 14 u16 transIdx, 15 u16 scaleIdx,
 *                   16 u16 rotIdx (0xFFFF = none; int16-element offsets into a frame block),
 *                   17 i16[4] default rotation. Read in any order.
 *   0x1004  0x1002  u16[3 * numFrames] translation            (format 1; absent: transOffset)
 *   0x1005  0x1002  u16[3 * numFrames] scale                  (format 1; absent: scaleOffset)
 *   0x1006  0x1002  i16[4 * numFrames] or i16[4] (constant) rotation x,y,z,w    (format 1)
 *   0x1007  0x1002  u8[(numFrames + 7) / 8] visibility, bit i = (v[i/8] >> (i%8)) & 1 (absent: 1)
 *   0x1008  0x1002  u8[(numFrames + 7) / 8] step bits, same layout
 *   0x100A  0x1000  u16[numFrames * transFrameSize]: frame f of a bone at f*transFrameSize+transIdx
 *   0x1009  0x1000  i16[numFrames * rotFrameSize]:   frame f of a bone at f*rotFrameSize+rotIdx
 *   0x100B  0x1000  u16[numFrames * scaleFrameSize]: frame f of a bone at f*scaleFrameSize+scaleIdx
 *
 * Unpacking: translation = offset + float(u16) * scale per component (scale the same with the
 * scale offset/scale); quaternion (x, y, z, w) = i16 / 32767. The GlyphX page's format-2 formula
 * multiplies the start by 4 (or 3) again; that is wrong (docs/formats/alamo.md, section 7).
 * A v2 bone whose rotIdx is 0xFFFF uses its default rotation (mini 17) for every frame.
 *
 * Channel bits of a track: translation/scale when per-frame data exists for the bone (0x1004 /
 * 0x1005, or a valid v2 index into a present 0x100A / 0x100B); rotation when rotation data exists
 * (0x1006, a valid v2 rotIdx, or a v2 default rotation); visibility/step when 0x1007/0x1008 exist.
 * Frames a short data block does not cover take the channel's rest value (offset, default
 * rotation, visible, no step); every such block also gets a SIZE_MISMATCH finding.
 */
#include "chunk.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    ALA_ROOT = 0x1000,
    ALA_HEADER = 0x1001,
    ALA_BONE = 0x1002,
    ALA_BONE_HEADER = 0x1003,
    ALA_VISIBILITY = 0x1007,
    ALA_STEP = 0x1008,
};

/* Mini-chunk ids (decimal, like the docs). */
enum {
    M_FRAMES = 1, M_FPS = 2, M_BONES = 3,                            /* 0x1001 */
    M_ROT_SIZE = 11, M_TRANS_SIZE = 12, M_SCALE_SIZE = 13,           /* 0x1001, format 2 */
    M_NAME = 4, M_INDEX = 5, M_UNKNOWN = 10,                         /* 0x1003 */
    M_TRANS_OFFSET = 6, M_TRANS_SCALE = 7, M_SCALE_OFFSET = 8, M_SCALE_SCALE = 9,
    M_TRANS_IDX = 14, M_SCALE_IDX = 15, M_ROT_IDX = 16, M_DEFAULT_ROT = 17, /* format 2 */
};

/* The three 16-bit channels, table-driven: their per-bone chunk (format 1), shared chunk and
 * frame-size mini (format 2). */
enum { TRANS, SCALE, ROT, NCH };

static const struct {
    const char *name;
    size_t elems;          /* int16 elements per frame of one bone */
    uint32_t v1_chunk;     /* per-bone chunk in format 1 */
    uint32_t v2_chunk;     /* shared chunk in format 2 */
    uint8_t size_mini;     /* 0x1001 mini with the frame size (format 2) */
    uint32_t flag;
} chan[NCH] = {
    [TRANS] = { "translation", 3, 0x1004, 0x100A, M_TRANS_SIZE, AMX_CH_TRANSLATION },
    [SCALE] = { "scale", 3, 0x1005, 0x100B, M_SCALE_SIZE, AMX_CH_SCALE },
    [ROT] = { "rotation", 4, 0x1006, 0x1009, M_ROT_SIZE, AMX_CH_ROTATION },
};

#define NO_INDEX 0xFFFFu

/* A data chunk of the file: where it is and a reader over its body. */
typedef struct ala_data {
    bool present;
    size_t offset;      /* chunk header */
    amx_reader body;
} ala_data;

typedef struct ala_header {
    size_t offset;      /* 0x1001 chunk header */
    int format;         /* 1 or 2 */
    uint32_t frames;
    float fps;
    bool has_num_bones;
    uint32_t num_bones;
    size_t num_bones_at;
    bool has_frame_size[NCH];
    uint32_t frame_size[NCH];
    size_t frame_size_at[NCH];
} ala_header;

/* Where the samples of one channel of a bone come from: element base + f * stride + k of src,
 * for frames f < avail (stride 0 repeats one value). No src: the rest value. */
typedef struct ala_source {
    const amx_reader *src;
    size_t base, stride, avail;
} ala_source;

typedef struct ala_bone {
    uint32_t pos;              /* position among the 0x1002 chunks */
    size_t offset;             /* 0x1002 chunk header */
    const char *ctx;           /* "bone 3 'name'", made on first use */
    const char *name;
    bool has_index;
    uint32_t index;
    size_t index_at;
    float offs[2][3], scales[2][3];  /* [TRANS or SCALE]: minis 6/7 and 8/9 */
    size_t scale_at[2];              /* value offsets of minis 7 and 9 */
    uint16_t idx[NCH];               /* format 2 element indices */
    size_t idx_at[NCH];
    bool has_default_rot;
    float default_rot[4];
    ala_data v1[NCH];                /* 0x1004, 0x1005, 0x1006 */
    ala_data vis, step;
    ala_source source[NCH];
} ala_bone;

bool amx__ala_probe(const uint8_t *data, size_t len)
{
    return len >= 8 && amx_load_u32le(data) == ALA_ROOT && (amx_load_u32le(data + 4) & 0x80000000u);
}

/* "bone 3 'name'" (the name cut at 480 bytes), or "bone 3": made for every bone of every clip,
 * so without printf. */
static const char *bone_ctx(amx_dec *d, ala_bone *b)
{
    if (b->ctx)
        return b->ctx;
    char digits[10];
    size_t nd = 0;
    uint32_t v = b->pos;
    do
        digits[nd++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    size_t nl = b->name ? strnlen(b->name, 480) : 0;
    while (nl && ((unsigned char)b->name[nl] & 0xC0) == 0x80)
        nl--; /* not inside a UTF-8 sequence */
    size_t len = 5 + nd + (nl ? nl + 3 : 0);
    char *out = amx__alloc(d, len + 1);
    if (!out)
        return "bone";
    memcpy(out, "bone ", 5);
    for (size_t i = 0; i < nd; i++)
        out[5 + i] = digits[nd - 1 - i];
    if (nl) {
        out[5 + nd] = ' ';
        out[6 + nd] = '\'';
        memcpy(out + 7 + nd, b->name, nl);
        out[7 + nd + nl] = '\'';
    }
    out[len] = '\0';
    return b->ctx = out;
}

/* Reads n floats from a mini-chunk; non-finite values become `fallback`. False when too short. */
static bool mini_floats(amx_dec *d, const amx_mini *m, const char *ctx, const char *what,
                        float *out, size_t n, float fallback)
{
    size_t have = amx_reader_left(&m->body);
    if (have < 4 * n) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)m->offset, ctx,
                     "mini-chunk %u (%s) holds %zu bytes, %zu needed", m->type, what, have, 4 * n);
        return false;
    }
    if (have > 4 * n)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)m->offset, ctx,
                     "mini-chunk %u (%s) holds %zu bytes, %zu expected; the rest is ignored",
                     m->type, what, have, 4 * n);
    amx_reader r = m->body;
    for (size_t i = 0; i < n; i++) {
        size_t at = amx_reader_tell(&r);
        out[i] = amx_read_f32le(&r);
        if (!amx__check_finite(d, out[i], (int64_t)at, ctx, what))
            out[i] = fallback;
    }
    return true;
}

static void unknown_mini(amx_dec *d, const amx_mini *m, uint32_t chunk, const char *ctx)
{
    amx__finding(d, AMX_C_UNKNOWN_CHUNK, (int64_t)m->offset, ctx,
                 "unknown mini-chunk %u in chunk 0x%x skipped", m->type, (unsigned)chunk);
}

static void unknown_chunk(amx_dec *d, const amx_chunk *c, uint32_t parent, const char *ctx,
                          const char *why)
{
    amx__finding(d, AMX_C_UNKNOWN_CHUNK, (int64_t)c->offset, ctx, "chunk 0x%x in 0x%x skipped%s",
                 (unsigned)c->type, (unsigned)parent, why);
}

/* Finds the first 0x1001 and counts the 0x1002 children of the root without findings: the chunk
 * walker reports the same chunks in the main pass. Same stepping rules as amx__chunk_next. */
static bool scan_root(amx_reader body, amx_reader *header, size_t *header_at, size_t *header_size,
                      uint32_t *bones)
{
    bool found = false;
    *bones = 0;
    while (amx_reader_left(&body) >= 8) {
        size_t at = amx_reader_tell(&body);
        uint32_t type = amx_read_u32le(&body);
        size_t size = amx_read_u32le(&body) & 0x7FFFFFFFu;
        amx_reader sub = amx_reader_sub(&body, size);
        if (type == ALA_BONE && *bones < UINT32_MAX) {
            (*bones)++;
        } else if (type == ALA_HEADER && !found) {
            found = true;
            sub.err = false;
            *header = sub;
            *header_at = at;
            *header_size = size;
        }
    }
    return found;
}

static void parse_header(amx_dec *d, amx_reader body, size_t size, ala_header *h)
{
    const char *ctx = "header";
    bool seen[M_SCALE_SIZE + 1] = { false };
    float fps = 0.0f;
    amx_mini m;
    while (amx__mini_next(d, &body, &m)) {
        if (m.type < sizeof seen)
            seen[m.type] = true;
        switch (m.type) {
        case M_FRAMES:
            amx__mini_u32(d, &m, ctx, &h->frames);
            break;
        case M_FPS:
            if (mini_floats(d, &m, ctx, "fps", &fps, 1, 0.0f) && fps <= 0.0f && isfinite(fps))
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)m.offset + 2, ctx,
                             "fps is %g; it must be positive", (double)fps);
            break;
        case M_BONES:
            if (amx__mini_u32(d, &m, ctx, &h->num_bones)) {
                h->has_num_bones = true;
                h->num_bones_at = m.offset + 2;
            }
            break;
        case M_ROT_SIZE:
        case M_TRANS_SIZE:
        case M_SCALE_SIZE: {
            int ch = m.type == M_ROT_SIZE ? ROT : m.type == M_TRANS_SIZE ? TRANS : SCALE;
            amx__mini_u32(d, &m, ctx, &h->frame_size[ch]);
            h->has_frame_size[ch] = true;
            h->frame_size_at[ch] = m.offset + 2;
            break;
        }
        default:
            unknown_mini(d, &m, ALA_HEADER, ctx);
            break;
        }
    }
    h->fps = fps > 0.0f ? fps : 0.0f;

    bool any_v2 = h->has_frame_size[ROT] || h->has_frame_size[TRANS] || h->has_frame_size[SCALE];
    if (size == 18 || size == 36) {
        h->format = size == 18 ? 1 : 2;
    } else {
        h->format = any_v2 ? 2 : 1;
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)h->offset, ctx,
                     "header chunk 0x1001 holds %zu bytes, neither 18 (format 1) nor 36 (format 2); "
                     "taken as format %d from its mini-chunks", size, h->format);
    }
    if (h->format == 1) {
        for (int ch = 0; ch < NCH; ch++) {
            if (h->has_frame_size[ch])
                amx__finding(d, AMX_C_UNKNOWN_CHUNK, (int64_t)h->frame_size_at[ch] - 2, ctx,
                             "format-2 mini-chunk %u in a format-1 header ignored",
                             chan[ch].size_mini);
            h->frame_size[ch] = 0;
        }
    }

    static const uint8_t required[] = { M_FRAMES, M_FPS, M_BONES, M_ROT_SIZE, M_TRANS_SIZE,
                                        M_SCALE_SIZE };
    char missing[64] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof required; i++)
        if (!seen[required[i]] && (required[i] < M_ROT_SIZE || h->format == 2))
            n += (size_t)snprintf(missing + n, sizeof missing - n, " %u", required[i]);
    if (n)
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)h->offset, ctx,
                     "header chunk 0x1001 lacks mini-chunk(s)%s", missing);
}

static void parse_bone_header(amx_dec *d, const ala_header *h, const amx_chunk *c, ala_bone *b)
{
    amx_reader body = c->body;
    bool seen[M_DEFAULT_ROT + 1] = { false };
    amx_mini m;
    while (amx__mini_next(d, &body, &m)) {
        bool v2_only = m.type >= M_TRANS_IDX && m.type <= M_DEFAULT_ROT;
        if (m.type >= sizeof seen || (v2_only && h->format != 2)) {
            unknown_mini(d, &m, ALA_BONE_HEADER, bone_ctx(d, b));
            continue;
        }
        seen[m.type] = true;
        switch (m.type) {
        case M_NAME:
            b->name = amx__body_string(d, m.body);
            b->ctx = NULL; /* now with the name */
            break;
        case M_INDEX:
            if (!amx__mini_u32(d, &m, bone_ctx(d, b), &b->index))
                break;
            b->has_index = true;
            b->index_at = m.offset + 2;
            if (b->index > INT32_MAX)
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)m.offset + 2, bone_ctx(d, b),
                             "bone index %u does not fit a signed 32-bit index", b->index);
            break;
        case M_UNKNOWN: {
            uint32_t unknown;
            amx__mini_u32(d, &m, bone_ctx(d, b), &unknown);
            break;
        }
        case M_TRANS_OFFSET:
        case M_TRANS_SCALE:
        case M_SCALE_OFFSET:
        case M_SCALE_SCALE: {
            static const char *const what[] = { "translation offset", "translation scale",
                                                "scale offset", "scale scale" };
            int k = m.type - M_TRANS_OFFSET;
            int ch = k < 2 ? TRANS : SCALE;
            bool is_scale = (k & 1) != 0;
            float *out = is_scale ? b->scales[ch] : b->offs[ch];
            float fallback = (ch == SCALE && !is_scale) ? 1.0f : 0.0f;
            if (mini_floats(d, &m, bone_ctx(d, b), what[k], out, 3, fallback) && is_scale)
                b->scale_at[ch] = m.offset + 2;
            break;
        }
        case M_TRANS_IDX:
        case M_SCALE_IDX:
        case M_ROT_IDX: {
            int ch = m.type == M_TRANS_IDX ? TRANS : m.type == M_SCALE_IDX ? SCALE : ROT;
            amx__mini_u16(d, &m, bone_ctx(d, b), &b->idx[ch]);
            b->idx_at[ch] = m.offset + 2;
            break;
        }
        case M_DEFAULT_ROT: {
            size_t have = amx_reader_left(&m.body);
            if (have != 8)
                amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)m.offset, bone_ctx(d, b),
                             "mini-chunk 17 (default rotation) holds %zu bytes, 8 expected", have);
            if (have < 8)
                break;
            amx_reader r = m.body;
            for (int k = 0; k < 4; k++)
                b->default_rot[k] = (float)amx_read_i16le(&r) / 32767.0f;
            b->has_default_rot = true;
            break;
        }
        default:
            unknown_mini(d, &m, ALA_BONE_HEADER, bone_ctx(d, b));
            break;
        }
    }

    static const uint8_t required[] = { M_NAME, M_INDEX, M_TRANS_OFFSET, M_TRANS_SCALE,
                                        M_SCALE_OFFSET, M_SCALE_SCALE, M_TRANS_IDX, M_SCALE_IDX,
                                        M_ROT_IDX, M_DEFAULT_ROT };
    char missing[64] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof required; i++) {
        if (seen[required[i]] || (required[i] >= M_TRANS_IDX && h->format != 2))
            continue;
        n += (size_t)snprintf(missing + n, sizeof missing - n, " %u", required[i]);
    }
    if (n)
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)c->offset, bone_ctx(d, b),
                     "bone header chunk 0x1003 lacks mini-chunk(s)%s", missing);
}

static void record_data(amx_dec *d, ala_bone *b, ala_data *slot, const amx_chunk *c)
{
    if (slot->present) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)c->offset, bone_ctx(d, b),
                     "second chunk 0x%x in one bone ignored", (unsigned)c->type);
        return;
    }
    *slot = (ala_data){ .present = true, .offset = c->offset, .body = c->body };
}

static void parse_bone(amx_dec *d, const ala_header *h, const amx_chunk *bc, ala_bone *b)
{
    amx_reader body = bc->body;
    amx_chunk c;
    bool header_seen = false;
    while (amx__chunk_next(d, &body, &c)) {
        switch (c.type) {
        case ALA_BONE_HEADER:
            if (header_seen) {
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)c.offset, bone_ctx(d, b),
                             "second bone header chunk 0x1003 in one bone ignored");
                break;
            }
            header_seen = true;
            parse_bone_header(d, h, &c, b);
            break;
        case 0x1004:
        case 0x1005:
        case 0x1006:
            if (h->format != 1) {
                unknown_chunk(d, &c, ALA_BONE, bone_ctx(d, b), " (format-1 data in a format-2 file)");
                break;
            }
            record_data(d, b, &b->v1[c.type == 0x1004 ? TRANS : c.type == 0x1005 ? SCALE : ROT], &c);
            break;
        case ALA_VISIBILITY:
            record_data(d, b, &b->vis, &c);
            break;
        case ALA_STEP:
            record_data(d, b, &b->step, &c);
            break;
        default:
            unknown_chunk(d, &c, ALA_BONE, bone_ctx(d, b), "");
            break;
        }
    }
    if (!header_seen)
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)bc->offset, bone_ctx(d, b),
                     "bone chunk 0x1002 has no header chunk 0x1003");
}

/* Format 1: checks the bone's data chunk sizes against the frame count; sets up the sources. */
static void resolve_v1(amx_dec *d, const ala_header *h, ala_bone *b, amx_track *t)
{
    size_t frames = h->frames;
    for (int ch = 0; ch < NCH; ch++) {
        const ala_data *data = &b->v1[ch];
        if (!data->present) {
            if (ch == ROT)
                amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)b->offset, bone_ctx(d, b),
                             "bone has no rotation chunk 0x1006");
            continue;
        }
        size_t have = amx_reader_left(&data->body);
        size_t frame_bytes = 2 * chan[ch].elems;
        size_t need = SIZE_MAX;
        amx_mul_size(frames, frame_bytes, &need);
        ala_source *s = &b->source[ch];
        *s = (ala_source){ .src = &data->body, .base = 0, .stride = chan[ch].elems };
        if (have == need) {
            s->avail = frames;
        } else if (ch == ROT && have == frame_bytes) {
            s->stride = 0; /* one constant quaternion */
            s->avail = frames;
        } else {
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)data->offset, bone_ctx(d, b),
                         "%s chunk 0x%x holds %zu bytes; %u frames need %zu%s", chan[ch].name,
                         (unsigned)chan[ch].v1_chunk, have, h->frames, need,
                         ch == ROT ? " (or 8 for a constant rotation)" : "");
            s->avail = have / frame_bytes < frames ? have / frame_bytes : frames;
        }
        t->channels |= chan[ch].flag;
    }
}

/* Format 2: checks the shared data chunks against the header; avail[] gets the frames each
 * holds. Chunks that cannot be used are marked absent. */
static void check_v2_data(amx_dec *d, const ala_header *h, size_t root_at, ala_data data[NCH],
                          size_t avail[NCH])
{
    for (int ch = 0; ch < NCH; ch++) {
        size_t fs = h->frame_size[ch];
        avail[ch] = 0;
        if (fs % chan[ch].elems != 0)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)h->frame_size_at[ch], "header",
                         "%s frame size %zu is not a multiple of %zu", chan[ch].name, fs,
                         chan[ch].elems);
        if (fs > 0 && !data[ch].present) {
            amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)root_at, NULL,
                         "%s frame size is %zu but there is no %s chunk 0x%x", chan[ch].name, fs,
                         chan[ch].name, (unsigned)chan[ch].v2_chunk);
            continue;
        }
        if (!data[ch].present)
            continue;
        size_t have = amx_reader_left(&data[ch].body);
        if (fs == 0) {
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)data[ch].offset, NULL,
                         "%s chunk 0x%x holds %zu bytes but the header's %s frame size is 0; ignored",
                         chan[ch].name, (unsigned)chan[ch].v2_chunk, have, chan[ch].name);
            data[ch].present = false;
            continue;
        }
        size_t frame_bytes = SIZE_MAX, need = SIZE_MAX;
        bool fits = amx_mul_size(fs, 2, &frame_bytes) && amx_mul_size(frame_bytes, h->frames, &need);
        if (!fits || have != need)
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)data[ch].offset, NULL,
                         "%s chunk 0x%x holds %zu bytes; %u frames of %zu elements need %s%zu",
                         chan[ch].name, (unsigned)chan[ch].v2_chunk, have, h->frames, fs,
                         fits ? "" : "more than ", fits ? need : SIZE_MAX);
        avail[ch] = have / frame_bytes < h->frames ? have / frame_bytes : h->frames;
    }
}

static void resolve_v2(amx_dec *d, const ala_header *h, const ala_data data[NCH],
                       const size_t avail[NCH], ala_bone *b, amx_track *t)
{
    for (int ch = 0; ch < NCH; ch++) {
        size_t idx = b->idx[ch], fs = h->frame_size[ch];
        if (idx == NO_INDEX)
            continue;
        if (idx + chan[ch].elems > fs) {
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)b->idx_at[ch], bone_ctx(d, b),
                         "%s index %zu + %zu is beyond the frame size %zu; the bone's %s is ignored",
                         chan[ch].name, idx, chan[ch].elems, fs, chan[ch].name);
            continue;
        }
        if (!data[ch].present)
            continue;
        b->source[ch] = (ala_source){ .src = &data[ch].body, .base = idx, .stride = fs,
                                      .avail = avail[ch] };
        t->channels |= chan[ch].flag;
    }
    if (b->has_default_rot)
        t->channels |= AMX_CH_ROTATION;
}

/* translation = offset + u16 * scale must stay finite for every u16. */
static void check_range(amx_dec *d, ala_bone *b, const amx_track *t)
{
    for (int ch = TRANS; ch <= SCALE; ch++) {
        if (!(t->channels & chan[ch].flag))
            continue;
        for (int k = 0; k < 3; k++) {
            double bound = fabs((double)b->offs[ch][k]) + 65535.0 * fabs((double)b->scales[ch][k]);
            if (bound <= FLT_MAX / 2)
                continue;
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)b->scale_at[ch], bone_ctx(d, b),
                         "%s offset/scale overflow the float range; the scale is taken as 0",
                         chan[ch].name);
            b->scales[ch][0] = b->scales[ch][1] = b->scales[ch][2] = 0.0f;
            break;
        }
    }
}

static void check_bits(amx_dec *d, const ala_header *h, ala_bone *b, const ala_data *data,
                       const char *what)
{
    if (!data->present)
        return;
    size_t need = ((size_t)h->frames + 7) / 8, have = amx_reader_left(&data->body);
    if (have != need)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)data->offset, bone_ctx(d, b),
                     "%s chunk holds %zu bytes; %u frames need %zu%s", what, have, h->frames, need,
                     have < need ? (data == &b->vis ? "; missing frames read as visible"
                                                    : "; missing frames read as not stepped")
                                 : "");
}

typedef struct index_pos { uint32_t index, pos; } index_pos;

static int cmp_index_pos(const void *a, const void *b)
{
    const index_pos *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void check_duplicates(amx_dec *d, ala_bone *bones, uint32_t count)
{
    index_pos *v = amx__array(d, count, sizeof *v);
    if (!v)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        if (bones[i].has_index)
            v[n++] = (index_pos){ bones[i].index, i };
    qsort(v, n, sizeof *v, cmp_index_pos);
    for (uint32_t i = 1; i < n; i++) {
        if (v[i].index != v[i - 1].index)
            continue;
        ala_bone *b = &bones[v[i].pos];
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)b->index_at, bone_ctx(d, b),
                     "bone index %u is animated twice (also by bone %u)", b->index,
                     bones[v[i - 1].pos].pos);
    }
}

static uint16_t element(const amx_reader *body, size_t i)
{
    amx_reader r = *body;
    if (!amx_reader_seek(&r, r.start) || !amx_reader_skip(&r, 2 * i))
        return 0;
    return amx_read_u16le(&r);
}

static uint8_t bit(const ala_data *data, size_t i, uint8_t rest)
{
    if (!data->present || i / 8 >= amx_reader_left(&data->body))
        return rest;
    amx_reader r = data->body;
    amx_reader_skip(&r, i / 8);
    return (uint8_t)((amx_read_u8(&r) >> (i % 8)) & 1u);
}

static bool fill_samples(amx_dec *d, uint32_t frames, const ala_bone *b, amx_track *t)
{
    t->translation = amx__array(d, frames, 3 * sizeof(float));
    t->rotation = amx__array(d, frames, 4 * sizeof(float));
    t->scale = amx__array(d, frames, 3 * sizeof(float));
    t->visibility = amx__array(d, frames, 1);
    if (b->step.present)
        t->step = amx__array(d, frames, 1);
    if (!t->translation || !t->rotation || !t->scale || !t->visibility ||
        (b->step.present && !t->step))
        return false;
    for (size_t f = 0; f < frames; f++) {
        for (int ch = TRANS; ch <= SCALE; ch++) {
            const ala_source *s = &b->source[ch];
            float *out = (ch == TRANS ? t->translation : t->scale) + 3 * f;
            for (size_t k = 0; k < 3; k++) {
                float v = b->offs[ch][k];
                if (s->src && f < s->avail)
                    v += (float)element(s->src, s->base + f * s->stride + k) * b->scales[ch][k];
                out[k] = v;
            }
        }
        const ala_source *s = &b->source[ROT];
        for (size_t k = 0; k < 4; k++)
            t->rotation[4 * f + k] =
                s->src && f < s->avail
                    ? (float)(int16_t)element(s->src, s->base + f * s->stride + k) / 32767.0f
                    : b->default_rot[k];
        t->visibility[f] = bit(&b->vis, f, 1);
        if (t->step)
            t->step[f] = bit(&b->step, f, 0);
    }
    return true;
}

static void decode_samples(amx_dec *d, amx_clip *clip, const ala_bone *bones)
{
    if (!amx__samples_allowed(d, clip))
        return;
    /* At most 41 bytes per frame and track (3 + 4 + 3 floats, 2 bytes), and no more than the
     * file can justify: a tiny file cannot claim a billion frames' worth of memory. */
    size_t len = d->r.end, budget, need;
    if (!amx_mul_size(len, 64, &budget) || !amx_add_size(budget, (size_t)64 << 20, &budget))
        budget = SIZE_MAX;
    if (!amx_mul_size(clip->frames, clip->track_count, &need) || !amx_mul_size(need, 41, &need) ||
        need > budget) {
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, -1, NULL,
                     "%u frames x %u tracks of samples exceed the memory a %zu-byte file may use; "
                     "no samples", clip->frames, clip->track_count, len);
        return;
    }
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (!fill_samples(d, clip->frames, &bones[i], &clip->tracks[i]))
            return;
    clip->has_samples = true;
}

void amx__ala_decode(amx_dec *d)
{
    if (amx_reader_left(&d->r) < 8) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, NULL, "the file ends before its first chunk header");
        return;
    }
    amx_chunk root;
    if (!amx__chunk_next(d, &d->r, &root))
        return;
    if (root.type != ALA_ROOT) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, NULL,
                   "the first chunk is 0x%x, not the animation chunk 0x1000", (unsigned)root.type);
        return;
    }
    if (!root.container)
        amx__finding(d, AMX_C_BAD_VALUE, 4, NULL,
                     "animation chunk 0x1000 does not have the container bit set");

    ala_header h = { .format = 1 };
    amx_reader header_body;
    size_t header_size = 0;
    uint32_t bone_count = 0;
    if (!scan_root(root.body, &header_body, &h.offset, &header_size, &bone_count)) {
        amx__fatal(d, AMX_C_MISSING_CHUNK, (int64_t)root.offset, NULL,
                   "the animation has no header chunk 0x1001");
        return;
    }
    parse_header(d, header_body, header_size, &h);
    d->asset->version = h.format == 2 ? "2" : "1";

    amx_clip *clip = amx__alloc(d, sizeof *clip);
    ala_bone *bones = amx__array(d, bone_count, sizeof *bones);
    amx_track *tracks = amx__array(d, bone_count, sizeof *tracks);
    if (!clip || !bones || !tracks)
        return;
    d->asset->clips = clip;
    d->asset->clip_count = 1;
    char stem[512];
    amx_path_stem(d->opts->file_name ? d->opts->file_name : "", stem, sizeof stem);
    clip->name = amx__strdup(d, stem);
    /* The model the naming convention names first, with Forces of Corruption's table (the
     * index binds every model it names, with the table of the root's game). */
    amx_alamo_anim_name names[1];
    clip->skeleton = amx_alamo_anim_names(stem, AMX_ALAMO_FOC, names, 1)
                         ? amx__strdup(d, names[0].model)
                         : NULL;
    clip->has_frames = true;
    clip->frames = h.frames;
    clip->fps = h.fps;
    clip->duration = h.fps > 0.0f ? (double)h.frames / (double)h.fps : 0.0;
    clip->tracks = tracks;

    /* The main pass over the root's children. */
    ala_data data[NCH] = { { 0 } };
    uint32_t n = 0;
    bool header_done = false;
    amx_reader body = root.body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        if (c.type == ALA_HEADER) {
            if (header_done)
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)c.offset, NULL,
                             "second header chunk 0x1001 ignored");
            header_done = true;
        } else if (c.type == ALA_BONE && n < bone_count) {
            ala_bone *b = &bones[n];
            *b = (ala_bone){ .pos = n, .offset = c.offset, .idx = { NO_INDEX, NO_INDEX, NO_INDEX },
                             .offs = { { 0, 0, 0 }, { 1, 1, 1 } },
                             .default_rot = { 0, 0, 0, 1 } };
            parse_bone(d, &h, &c, b);
            n++;
        } else if (c.type == 0x1009 || c.type == 0x100A || c.type == 0x100B) {
            int ch = c.type == 0x1009 ? ROT : c.type == 0x100A ? TRANS : SCALE;
            if (h.format != 2)
                unknown_chunk(d, &c, ALA_ROOT, NULL, " (format-2 data in a format-1 file)");
            else if (data[ch].present)
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)c.offset, NULL,
                             "second %s chunk 0x%x ignored", chan[ch].name, (unsigned)c.type);
            else
                data[ch] = (ala_data){ .present = true, .offset = c.offset, .body = c.body };
        } else {
            unknown_chunk(d, &c, ALA_ROOT, NULL, "");
        }
    }
    if (d->out_of_memory)
        return;
    clip->track_count = n;

    size_t avail[NCH] = { 0 };
    if (h.format == 2)
        check_v2_data(d, &h, root.offset, data, avail);
    for (uint32_t i = 0; i < n; i++) {
        ala_bone *b = &bones[i];
        amx_track *t = &tracks[i];
        t->bone = b->name;
        t->bone_index = b->has_index && b->index <= INT32_MAX ? (int32_t)b->index : -1;
        t->offset = (int64_t)b->offset; /* the bone's 0x1002 chunk: where binding findings point */
        if (h.format == 1)
            resolve_v1(d, &h, b, t);
        else
            resolve_v2(d, &h, data, avail, b, t);
        check_range(d, b, t);
        check_bits(d, &h, b, &b->vis, "visibility");
        check_bits(d, &h, b, &b->step, "step");
        if (b->vis.present)
            t->channels |= AMX_CH_VISIBILITY;
        if (b->step.present)
            t->channels |= AMX_CH_STEP;
    }
    if (h.has_num_bones && h.num_bones != n)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)h.num_bones_at, "header",
                     "the header declares %u animated bones but the file has %u bone chunks",
                     h.num_bones, n);
    check_duplicates(d, bones, n);

    if (!amx_reader_eof(&d->r))
        amx__finding(d, AMX_C_TRAILING_DATA, (int64_t)amx_reader_tell(&d->r), NULL,
                     "%zu bytes after the animation chunk 0x1000", amx_reader_left(&d->r));
    if (d->opts->samples && !d->out_of_memory)
        decode_samples(d, clip, bones);
}
