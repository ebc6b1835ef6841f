/*
 * W3D animations (classic 0x200, compressed 0x280 in both flavours, BFME 0x284 motion
 * channels): channel parsing, sampling every frame, and the clip the index sees. The file
 * structure and the rest of the format are in w3d.c; the layout is in docs/formats/w3d.md.
 */
#include "w3d_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { S_X, S_Y, S_Z, S_Q, S_VIS, NSLOT, S_NONE = NSLOT };

enum chan_kind {
    K_CLASSIC,      /* 0x202 */
    K_BIT,          /* 0x203 */
    K_TIMECODED,    /* 0x282 flavor 0 */
    K_DELTA,        /* 0x282 flavor 1, 0x284 types 1 and 2 */
    K_TC_BIT,       /* 0x283 */
    K_MOTION_TC,    /* 0x284 type 0 */
};

typedef struct w3d_chan {
    enum chan_kind kind;
    uint8_t slot;         /* S_* */
    bool has_pivot;       /* the header was readable */
    bool usable;          /* can be sampled */
    bool has_step;        /* a time code has the binary-movement flag */
    bool overflow_noted;  /* a non-finite sample was reported */
    uint32_t chunk;       /* chunk id */
    uint32_t pivot;
    size_t offset;        /* chunk header */
    size_t pivot_at;
    uint32_t vl;
    amx_reader body;      /* the chunk body */
    size_t data_at;       /* first byte after the fixed header (values, keys or initial) */
    uint32_t first, last; /* classic/bit frame range */
    uint32_t n;           /* usable keys / frames / data frames */
    uint32_t blocks;      /* adaptive delta: blocks present */
    uint32_t delta_bits;  /* 4 or 8 */
    size_t values_at;     /* motion time-coded: values */
    uint8_t def;          /* bit channel default */
    float scale;
    uint32_t pos;         /* position in the file (for stable ordering) */
} w3d_chan;

typedef struct w3d_anim {
    amx_clip *clip;
    size_t offset;
    bool compressed;
    uint32_t flavor;
    uint32_t frames;
    const char *ctx;      /* "animation 'NAME'" */
    w3d_chan *chans;
    uint32_t chan_count;
} w3d_anim;

/* ---- animation channels ---- */

/* Slot of a channel type; false (BAD_VALUE) when the type is unknown or the vector length does
 * not fit it. Euler types 3..5 and the BFME type 15 are known but not sampled (S_NONE). */
static bool channel_slot(amx_dec *d, const char *ctx, uint32_t type, size_t type_at, uint32_t vl,
                         size_t vl_at, uint8_t *slot)
{
    uint32_t want;
    switch (type) {
    case 0: case 1: case 2:
        *slot = (uint8_t)(S_X + type);
        want = 1;
        break;
    case 3: case 4: case 5: case 15:
        *slot = S_NONE;
        want = 1;
        break;
    case 6:
        *slot = S_Q;
        want = 4;
        break;
    default:
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)type_at, ctx,
                     "unknown channel type %u (0..6 X Y Z XR YR ZR Q, 15 BFME); channel ignored",
                     type);
        return false;
    }
    if (vl != want) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)vl_at, ctx,
                     "vector length %u does not fit channel type %u (%u expected); channel ignored",
                     vl, type, want);
        return false;
    }
    return true;
}

/* Checks n floats at `at` (absolute, in the body); reports the first non-finite one. */
static void check_floats(amx_dec *d, const amx_reader *body, size_t at, uint64_t n, const char *ctx)
{
    for (uint64_t i = 0; i < n; i++) {
        size_t off = at + 4 * (size_t)i;
        float v = at_f32(body, off);
        if (!isfinite(v)) {
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)off, ctx,
                         "channel value %llu is not a finite number; identity used",
                         (unsigned long long)i);
            return;
        }
    }
}

/* Time codes: ascending and inside the animation; one finding of each kind per channel. */
static void check_times(amx_dec *d, const w3d_anim *a, const w3d_chan *ch, const char *ctx,
                        size_t first_at, size_t stride, bool u16)
{
    bool order_noted = false, range_noted = false;
    uint32_t prev = 0;
    for (uint32_t i = 0; i < ch->n && !(order_noted && range_noted); i++) {
        size_t off = first_at + (size_t)i * stride;
        uint32_t t = u16 ? at_u16(&ch->body, off) : at_u32(&ch->body, off) & TIMECODE_MASK;
        if (i > 0 && t <= prev && !order_noted) {
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)off, ctx,
                         "time code %u of key %u is not above the previous key's %u", t, i, prev);
            order_noted = true;
        }
        if (t >= a->frames && !range_noted) {
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)off, ctx,
                         "time code %u of key %u is beyond the animation's %u frames", t, i,
                         a->frames);
            range_noted = true;
        }
        prev = t;
    }
}

/* Compares a channel size with the one its header implies: shorter is an error, longer is
 * `long_sev` (a tolerated exporter bug for classic channels). Returns false when shorter. */
static bool check_channel_size(amx_dec *d, const w3d_chan *ch, const char *ctx, uint64_t need,
                               amx_severity long_sev, const char *what)
{
    size_t have = amx_reader_left(&ch->body);
    if (have < need) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "%s chunk 0x%x holds %zu bytes; its header implies %llu", what,
                     (unsigned)ch->chunk, have, (unsigned long long)need);
        return false;
    }
    if (have > need)
        amx__finding_sev(d, AMX_C_SIZE_MISMATCH, long_sev, (int64_t)ch->offset, ctx,
                         "%s chunk 0x%x holds %zu bytes; its header implies %llu (the rest is "
                         "ignored)", what, (unsigned)ch->chunk, have, (unsigned long long)need);
    return true;
}

static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static void parse_classic(amx_dec *d, const w3d_anim *a, w3d_chan *ch, const char *ctx)
{
    amx_reader r = ch->body;
    size_t base = r.start;
    if (amx_reader_left(&r) < 12) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "channel chunk 0x202 holds %zu bytes, less than its 12-byte header",
                     amx_reader_left(&r));
        return;
    }
    ch->first = amx_read_u16le(&r);
    ch->last = amx_read_u16le(&r);
    ch->vl = amx_read_u16le(&r);
    uint32_t type = amx_read_u16le(&r);
    ch->pivot = amx_read_u16le(&r);
    ch->pivot_at = base + 8;
    ch->has_pivot = true;
    amx_read_u16le(&r);
    ch->data_at = base + 12;
    bool ok = channel_slot(d, ctx, type, base + 6, ch->vl, base + 4, &ch->slot);
    if (ch->last < ch->first) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base, ctx,
                     "last frame %u is before the first frame %u; channel ignored", ch->last,
                     ch->first);
        return;
    }
    if (ch->last >= a->frames)
        amx__finding_sev(d, AMX_C_INDEX_OUT_OF_RANGE, AMX_SEV_WARNING, (int64_t)base + 2, ctx,
                         "frames %u..%u run past the animation's %u frames", ch->first, ch->last,
                         a->frames);
    if (ch->vl == 0)
        return;
    uint64_t n = (uint64_t)ch->last - ch->first + 1, per = 4 * (uint64_t)ch->vl;
    uint64_t need = 12 + n * per;
    size_t have = amx_reader_left(&ch->body);
    /* Over-long channels: "a bug in the exporter which saved too much data" (motchan.cpp). */
    ch->n = check_channel_size(d, ch, ctx, need, AMX_SEV_INFO, "channel")
                ? (uint32_t)n
                : (uint32_t)((have - 12) / per);
    check_floats(d, &ch->body, ch->data_at, (uint64_t)ch->n * ch->vl, ctx);
    ch->usable = ok && ch->slot != S_NONE;
}

static void parse_bit(amx_dec *d, w3d_chan *ch, const char *ctx)
{
    amx_reader r = ch->body;
    size_t base = r.start;
    if (amx_reader_left(&r) < 9) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "bit channel chunk 0x203 holds %zu bytes, less than its 9-byte header",
                     amx_reader_left(&r));
        return;
    }
    ch->first = amx_read_u16le(&r);
    ch->last = amx_read_u16le(&r);
    uint32_t type = amx_read_u16le(&r);
    ch->pivot = amx_read_u16le(&r);
    ch->pivot_at = base + 6;
    ch->has_pivot = true;
    ch->def = amx_read_u8(&r);
    ch->data_at = base + 9;
    ch->slot = S_VIS;
    bool ok = true;
    if (type > 1) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base + 4, ctx,
                     "unknown bit channel type %u (0 visibility, 1 time-coded visibility); "
                     "channel ignored", type);
        ok = false;
    }
    if (ch->last < ch->first) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base, ctx,
                     "last frame %u is before the first frame %u; channel ignored", ch->last,
                     ch->first);
        return;
    }
    uint64_t n = (uint64_t)ch->last - ch->first + 1;
    uint64_t need = 9 + div_up(n, 8);
    size_t have = amx_reader_left(&ch->body);
    if (have != need)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "bit channel chunk 0x203 holds %zu bytes; frames %u..%u need exactly %llu%s",
                     have, ch->first, ch->last, (unsigned long long)need,
                     have < need ? "; missing bits read as the default" : "");
    uint64_t bits = (uint64_t)(have - 9) * 8;
    ch->n = (uint32_t)(bits < n ? bits : n);
    ch->usable = ok;
}

/* The header both flavours of 0x282 start with: u32 count, u16 pivot, u8 vector length,
 * u8 channel type. False (with a finding) when the chunk is shorter than `min` bytes. */
static bool channel_header(amx_dec *d, w3d_chan *ch, const char *ctx, size_t min,
                           const char *what, uint32_t *n, uint32_t *type)
{
    amx_reader r = ch->body;
    size_t base = r.start;
    if (amx_reader_left(&r) < min) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "%s channel holds %zu bytes, less than its %zu-byte header", what,
                     amx_reader_left(&r), min);
        return false;
    }
    *n = amx_read_u32le(&r);
    ch->pivot = amx_read_u16le(&r);
    ch->pivot_at = base + 4;
    ch->has_pivot = true;
    ch->vl = amx_read_u8(&r);
    *type = amx_read_u8(&r);
    return true;
}

static void parse_timecoded(amx_dec *d, const w3d_anim *a, w3d_chan *ch, const char *ctx)
{
    size_t base = ch->body.start;
    uint32_t n, type;
    if (!channel_header(d, ch, ctx, 8, "time-coded", &n, &type))
        return;
    ch->data_at = base + 8;
    bool ok = channel_slot(d, ctx, type, base + 7, ch->vl, base + 6, &ch->slot);
    if (ch->vl == 0)
        return;
    uint64_t packet = 4 + 4 * (uint64_t)ch->vl;
    size_t have = amx_reader_left(&ch->body);
    ch->n = check_channel_size(d, ch, ctx, 8 + (uint64_t)n * packet, AMX_SEV_WARNING,
                               "time-coded channel")
                ? n
                : (uint32_t)((have - 8) / packet);
    if (n == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base, ctx, "the channel has no time codes");
    check_times(d, a, ch, ctx, ch->data_at, (size_t)packet, false);
    for (uint32_t i = 0; i < ch->n; i++) {
        size_t key = ch->data_at + (size_t)i * (size_t)packet;
        if (at_u32(&ch->body, key) & TIMECODE_FLAG)
            ch->has_step = true;
        for (uint32_t k = 0; k < ch->vl; k++) {
            float v = at_f32(&ch->body, key + 4 + 4 * (size_t)k);
            if (!isfinite(v)) {
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(key + 4 + 4 * (size_t)k), ctx,
                             "value of key %u is not a finite number; identity used", i);
                i = ch->n; /* once per channel */
                break;
            }
        }
    }
    ch->usable = ok && ch->slot != S_NONE && ch->n > 0;
}

/* Adaptive delta data of 0x282 flavor 1 (bits 4, header 12 bytes with the scale last) and of
 * 0x284 types 1/2 (header 8 bytes, then the scale). `hdr` is the offset of the scale. */
static void parse_delta_data(amx_dec *d, const w3d_anim *a, w3d_chan *ch, const char *ctx,
                             size_t scale_at, uint32_t n, bool motion)
{
    size_t psize = ch->delta_bits == 8 ? 17 : 9;
    ch->scale = at_f32(&ch->body, scale_at);
    ch->data_at = scale_at + 4; /* the initial values */
    size_t fixed = ch->data_at - ch->body.start + 4 * (size_t)ch->vl;
    size_t have = amx_reader_left(&ch->body);
    if (have < fixed) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "adaptive-delta channel holds %zu bytes, less than its %zu-byte header", have,
                     fixed);
        return;
    }
    if (!isfinite(ch->scale)) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)scale_at, ctx,
                     "delta scale is not a finite number; channel ignored");
        return;
    }
    check_floats(d, &ch->body, ch->data_at, ch->vl, ctx);
    /* Blocks: OpenSAGE/BlenderPlugin write ((N + 15) >> 4) blocks (+ 3 pad bytes in 0x282);
     * the engine reads blocks for frames 1..N-1 only. */
    uint64_t blocks = ((uint64_t)n + 15) >> 4;
    uint64_t used = n > 1 ? div_up((uint64_t)n - 1, 16) : 0;
    uint64_t per = (uint64_t)psize * ch->vl;
    uint64_t expected = fixed + blocks * per + (motion ? 0 : 3);
    uint64_t minimum = fixed + used * per;
    uint64_t avail = (have - fixed) / per;
    if (have < minimum) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "adaptive-delta channel holds %zu bytes; %u frames need %llu; later frames "
                     "hold the last value", have, n, (unsigned long long)expected);
    } else if (have != expected) {
        amx__finding_sev(d, AMX_C_SIZE_MISMATCH,
                         motion && have > expected ? AMX_SEV_WARNING : AMX_SEV_INFO,
                         (int64_t)ch->offset, ctx,
                         "adaptive-delta channel holds %zu bytes; %u frames are written as %llu "
                         "(tolerated)", have, n, (unsigned long long)expected);
    }
    ch->blocks = (uint32_t)(avail < blocks ? avail : blocks);
    ch->n = n;
    /* A BFME motion channel of one frame is a constant one: its initial value, held (BFME2's
     * exporter writes a pivot's unmoving translations so; OpenSAGE makes it one key frame). */
    if (n != a->frames && !(motion && n == 1))
        amx__finding_sev(d, AMX_C_COUNT_MISMATCH, AMX_SEV_WARNING, (int64_t)ch->body.start, ctx,
                         "the channel has %u frames, the animation %u", n, a->frames);
    ch->usable = ch->slot != S_NONE && n > 0;
}

static void parse_delta(amx_dec *d, const w3d_anim *a, w3d_chan *ch, const char *ctx)
{
    size_t base = ch->body.start;
    uint32_t n, type;
    if (!channel_header(d, ch, ctx, 12, "adaptive-delta", &n, &type))
        return;
    ch->delta_bits = 4;
    if (!channel_slot(d, ctx, type, base + 7, ch->vl, base + 6, &ch->slot) || ch->vl == 0)
        return;
    parse_delta_data(d, a, ch, ctx, base + 8, n, false);
}

static void parse_tc_bit(amx_dec *d, const w3d_anim *a, w3d_chan *ch, const char *ctx)
{
    amx_reader r = ch->body;
    size_t base = r.start;
    if (amx_reader_left(&r) < 8) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "time-coded bit channel holds %zu bytes, less than its 8-byte header",
                     amx_reader_left(&r));
        return;
    }
    uint32_t n = amx_read_u32le(&r);
    ch->pivot = amx_read_u16le(&r);
    ch->pivot_at = base + 4;
    ch->has_pivot = true;
    uint32_t type = amx_read_u8(&r);
    ch->def = amx_read_u8(&r);
    ch->data_at = base + 8;
    ch->slot = S_VIS;
    bool ok = true;
    if (type > 1) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base + 6, ctx,
                     "unknown bit channel type %u (0 visibility, 1 time-coded visibility); "
                     "channel ignored", type);
        ok = false;
    }
    size_t have = amx_reader_left(&ch->body);
    uint64_t need = 8 + 4 * (uint64_t)n;
    if (have != need)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "time-coded bit channel 0x283 holds %zu bytes; %u time codes need exactly "
                     "%llu", have, n, (unsigned long long)need);
    ch->n = (have - 8) / 4 < n ? (uint32_t)((have - 8) / 4) : n;
    check_times(d, a, ch, ctx, ch->data_at, 4, false);
    ch->usable = ok;
}

static void parse_motion(amx_dec *d, const w3d_anim *a, w3d_chan *ch, const char *ctx)
{
    amx_reader r = ch->body;
    size_t base = r.start;
    if (amx_reader_left(&r) < 8) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch->offset, ctx,
                     "motion channel 0x284 holds %zu bytes, less than its 8-byte header",
                     amx_reader_left(&r));
        return;
    }
    uint32_t zero = amx_read_u8(&r);
    uint32_t dtype = amx_read_u8(&r);
    ch->vl = amx_read_u8(&r);
    uint32_t type = amx_read_u8(&r);
    uint32_t n = amx_read_u16le(&r);
    ch->pivot = amx_read_u16le(&r);
    ch->pivot_at = base + 6;
    ch->has_pivot = true;
    if (zero != 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base, ctx,
                     "the first byte of a motion channel is %u; it must be 0", zero);
    if (dtype > 2) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base + 1, ctx,
                     "unknown motion channel delta type %u (0 time-coded, 1 4-bit, 2 8-bit "
                     "delta); channel ignored", dtype);
        return;
    }
    if (!channel_slot(d, ctx, type, base + 3, ch->vl, base + 2, &ch->slot) || ch->vl == 0)
        return;
    if (dtype == 0) {
        ch->kind = K_MOTION_TC;
        ch->data_at = base + 8;
        uint64_t keys = 2 * (uint64_t)n + ((n & 1) ? 2 : 0);
        ch->values_at = ch->data_at + (size_t)keys;
        size_t have = amx_reader_left(&ch->body);
        if (check_channel_size(d, ch, ctx, 8 + keys + 4 * (uint64_t)ch->vl * n, AMX_SEV_WARNING,
                               "motion channel"))
            ch->n = n;
        else if (have < 8 + keys) /* the values are all missing */
            ch->n = 0;
        else
            ch->n = (uint32_t)((have - 8 - keys) / (4 * (uint64_t)ch->vl));
        if (n == 0)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base + 4, ctx,
                         "the channel has no time codes");
        check_times(d, a, ch, ctx, ch->data_at, 2, true);
        check_floats(d, &ch->body, ch->values_at, (uint64_t)ch->n * ch->vl, ctx);
        ch->usable = ch->slot != S_NONE && ch->n > 0;
        return;
    }
    ch->kind = K_DELTA;
    ch->delta_bits = dtype == 1 ? 4 : 8;
    parse_delta_data(d, a, ch, ctx, base + 8, n, true);
}

/* ---- sampling ---- */

/* The 256-entry adaptive-delta filter table (motchan.cpp): computed, the library has no
 * mutable globals. */
static float filter_value(uint8_t i)
{
    static const float head[16] = { 1e-8f, 1e-7f, 1e-6f, 1e-5f, 1e-4f, 1e-3f, 1e-2f, 1e-1f,
                                     1.0f,  1e1f,  1e2f,  1e3f,  1e4f,  1e5f,  1e6f,  1e7f };
    if (i < 16)
        return head[i];
    float ratio = (float)(i - 16) / 240.0f;
    const double pi = 3.14159265358979323846; /* (M_PI is not standard C) */
    return 1.0f - (float)sin((double)(90.0f * ratio) * pi / 180.0);
}

static void identity(uint32_t vl, float *out)
{
    for (uint32_t k = 0; k < vl; k++)
        out[k] = (vl == 4 && k == 3) ? 1.0f : 0.0f;
}

/* Writes vl values to out; non-finite values make the identity (reported once). */
static void put(amx_dec *d, w3d_chan *ch, const double *v, uint32_t vl, float *out)
{
    for (uint32_t k = 0; k < vl; k++) {
        float f = (float)v[k];
        if (!isfinite(f)) {
            if (!ch->overflow_noted) {
                ch->overflow_noted = true;
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)ch->offset, NULL,
                             "channel of pivot %u decodes to values outside the float range; "
                             "identity used", ch->pivot);
            }
            identity(vl, out);
            return;
        }
        out[k] = f;
    }
}

static void read_values(const w3d_chan *ch, size_t at, uint32_t vl, double *v)
{
    for (uint32_t k = 0; k < vl; k++) {
        float f = at_f32(&ch->body, at + 4 * (size_t)k);
        v[k] = isfinite(f) ? f : ((vl == 4 && k == 3) ? 1.0 : 0.0);
    }
}

static void slerp(const double *p, const double *q, double t, double *out)
{
    double c = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    bool flip = c < 0;
    if (flip)
        c = -c;
    double beta, alpha;
    if (!(1.0 - c >= 0.001)) { /* close (or not unit length): linear */
        beta = 1.0 - t;
        alpha = t;
    } else {
        double theta = acos(c), st = sin(theta);
        beta = sin(theta - t * theta) / st;
        alpha = sin(t * theta) / st;
    }
    if (flip)
        alpha = -alpha;
    for (int k = 0; k < 4; k++)
        out[k] = beta * p[k] + alpha * q[k];
}

static void interpolate(const double *a, const double *b, double t, uint32_t vl, double *out)
{
    if (vl == 4) {
        slerp(a, b, t, out);
        return;
    }
    for (uint32_t k = 0; k < vl; k++)
        out[k] = (1.0 - t) * a[k] + t * b[k];
}

/* Key-framed channels (0x282 flavor 0, 0x284 type 0): time of key i and where its values are. */
static uint32_t key_time(const w3d_chan *ch, uint32_t i, bool *flag)
{
    if (ch->kind == K_MOTION_TC) {
        *flag = false;
        return at_u16(&ch->body, ch->data_at + 2 * (size_t)i);
    }
    uint32_t code = at_u32(&ch->body, ch->data_at + (size_t)i * (4 + 4 * (size_t)ch->vl));
    *flag = (code & TIMECODE_FLAG) != 0;
    return code & TIMECODE_MASK;
}

static size_t key_values(const w3d_chan *ch, uint32_t i)
{
    if (ch->kind == K_MOTION_TC)
        return ch->values_at + (size_t)i * 4 * ch->vl;
    return ch->data_at + (size_t)i * (4 + 4 * (size_t)ch->vl) + 4;
}

/* Evaluates a float channel at every frame into out (stride floats per frame). */
static void eval_float(amx_dec *d, w3d_chan *ch, uint32_t frames, float *out, size_t stride,
                       uint8_t *step)
{
    uint32_t vl = ch->vl;
    double v[4], w[4];
    switch (ch->kind) {
    case K_CLASSIC:
        for (uint32_t f = 0; f < frames; f++) {
            if (f >= ch->first && f <= ch->last && f - ch->first < ch->n) {
                read_values(ch, ch->data_at + (size_t)(f - ch->first) * vl * 4, vl, v);
                put(d, ch, v, vl, out + (size_t)f * stride);
            } else {
                identity(vl, out + (size_t)f * stride);
            }
        }
        break;
    case K_TIMECODED:
    case K_MOTION_TC: {
        uint32_t idx = 0;
        bool flag;
        for (uint32_t f = 0; f < frames; f++) {
            while (idx + 1 < ch->n && key_time(ch, idx + 1, &flag) <= f)
                idx++;
            uint32_t t1 = key_time(ch, idx, &flag);
            read_values(ch, key_values(ch, idx), vl, v);
            if (f > t1 && idx + 1 < ch->n) {
                uint32_t t2 = key_time(ch, idx + 1, &flag);
                if (flag) {
                    if (step)
                        step[f] = 1;
                } else {
                    read_values(ch, key_values(ch, idx + 1), vl, w);
                    interpolate(v, w, (double)(f - t1) / (double)(t2 - t1), vl, v);
                }
            } else if (f == t1 && idx + 1 < ch->n && step) {
                key_time(ch, idx + 1, &flag);
                if (flag)
                    step[f] = 1;
            }
            put(d, ch, v, vl, out + (size_t)f * stride);
        }
        break;
    }
    case K_DELTA: {
        size_t psize = ch->delta_bits == 8 ? 17 : 9;
        size_t blocks_at = ch->data_at + 4 * (size_t)vl;
        float val[4];
        for (uint32_t k = 0; k < vl; k++) {
            float f0 = at_f32(&ch->body, ch->data_at + 4 * (size_t)k);
            val[k] = isfinite(f0) ? f0 : ((vl == 4 && k == 3) ? 1.0f : 0.0f);
        }
        for (uint32_t f = 0; f < frames; f++) {
            if (f >= 1 && f < ch->n && ((f - 1) >> 4) < ch->blocks) {
                uint32_t blk = (f - 1) >> 4, j = (f - 1) & 15;
                for (uint32_t k = 0; k < vl; k++) {
                    size_t pkt = blocks_at + ((size_t)blk * vl + k) * psize;
                    float filter = filter_value(at_u8(&ch->body, pkt)) * ch->scale;
                    int delta;
                    if (ch->delta_bits == 8) {
                        delta = (int)at_u8(&ch->body, pkt + 1 + j) - 128;
                        filter *= 1.0f / 16.0f;
                    } else {
                        uint8_t byte = at_u8(&ch->body, pkt + 1 + j / 2);
                        delta = (j & 1) ? byte >> 4 : byte & 0xF;
                        if (delta & 8)
                            delta -= 16;
                    }
                    val[k] += (float)delta * filter;
                }
            }
            for (uint32_t k = 0; k < vl; k++)
                v[k] = val[k];
            put(d, ch, v, vl, out + (size_t)f * stride);
        }
        break;
    }
    default:
        break;
    }
}

static void eval_bits(const w3d_chan *ch, uint32_t frames, uint8_t *vis)
{
    if (ch->kind == K_BIT) {
        for (uint32_t f = 0; f < frames; f++) {
            if (f >= ch->first && f <= ch->last && f - ch->first < ch->n) {
                uint32_t i = f - ch->first;
                vis[f] = (at_u8(&ch->body, ch->data_at + i / 8) >> (i % 8)) & 1;
            } else {
                vis[f] = ch->def != 0;
            }
        }
        return;
    }
    /* 0x283: the MSB of the last key at or before the frame (key 0 before the first key). */
    uint32_t idx = 0;
    for (uint32_t f = 0; f < frames; f++) {
        if (ch->n == 0) {
            vis[f] = ch->def != 0;
            continue;
        }
        while (idx + 1 < ch->n &&
               (at_u32(&ch->body, ch->data_at + 4 * (size_t)(idx + 1)) & TIMECODE_MASK) <= f)
            idx++;
        vis[f] = at_u32(&ch->body, ch->data_at + 4 * (size_t)idx) >> 31;
    }
}

/* ---- animations ---- */

typedef struct pivot_pos { uint32_t pivot, pos; } pivot_pos;

static int cmp_pivot_pos(const void *a, const void *b)
{
    const pivot_pos *x = a, *y = b;
    if (x->pivot != y->pivot)
        return x->pivot < y->pivot ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Groups the channels into tracks per pivot and fills in the samples. */
static void build_tracks(amx_dec *d, w3d_anim *a)
{
    amx_clip *clip = a->clip;
    pivot_pos *order = amx__array(d, a->chan_count, sizeof *order);
    if (!order)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->chan_count; i++)
        if (a->chans[i].has_pivot)
            order[n++] = (pivot_pos){ a->chans[i].pivot, i };
    qsort(order, n, sizeof *order, cmp_pivot_pos);
    uint32_t tracks = 0;
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || order[i].pivot != order[i - 1].pivot)
            tracks++;
    amx_track *t = amx__array(d, tracks, sizeof *t);
    /* per track: the channel of each slot (index into chans, or UINT32_MAX) */
    uint32_t(*slots)[NSLOT] = amx__array(d, tracks, sizeof *slots);
    if (!t || !slots)
        return;
    clip->tracks = t;
    clip->track_count = tracks;
    uint32_t ti = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        w3d_chan *ch = &a->chans[order[i].pos];
        if (i == 0 || order[i].pivot != order[i - 1].pivot) {
            ti++;
            t[ti] = (amx_track){ .bone = NULL, .bone_index = (int32_t)ch->pivot,
                                 .offset = (int64_t)ch->offset };
            for (int s = 0; s < NSLOT; s++)
                slots[ti][s] = UINT32_MAX;
        }
        if (!ch->usable || ch->slot >= NSLOT)
            continue;
        if (slots[ti][ch->slot] != UINT32_MAX) {
            static const char *const names[NSLOT] = { "X", "Y", "Z", "Q", "visibility" };
            char ctx[96];
            snprintf(ctx, sizeof ctx, "%s pivot %u", a->ctx, ch->pivot);
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)ch->offset, ctx,
                         "pivot %u has a second %s channel; the first one is used", ch->pivot,
                         names[ch->slot]);
            continue;
        }
        slots[ti][ch->slot] = order[i].pos;
        t[ti].channels |= ch->slot == S_Q     ? AMX_CH_ROTATION
                          : ch->slot == S_VIS ? AMX_CH_VISIBILITY
                                              : AMX_CH_TRANSLATION;
        if (ch->has_step)
            t[ti].channels |= AMX_CH_STEP;
    }

    if (!d->opts->samples || d->out_of_memory || !amx__samples_allowed(d, clip))
        return;
    /* At most 41 bytes per frame and track, and no more than the file can justify. */
    size_t len = d->r.end, budget, need;
    if (!amx_mul_size(len, 64, &budget) || !amx_add_size(budget, (size_t)64 << 20, &budget))
        budget = SIZE_MAX;
    if (!amx_mul_size(clip->frames, tracks, &need) || !amx_mul_size(need, 41, &need) ||
        need > budget) {
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, (int64_t)a->offset, a->ctx,
                     "%u frames x %u tracks of samples exceed the memory a %zu-byte file may use; "
                     "no samples", clip->frames, tracks, len);
        return;
    }
    uint32_t frames = clip->frames;
    for (uint32_t i = 0; i < tracks; i++) {
        amx_track *tr = &t[i];
        tr->translation = amx__array(d, frames, 3 * sizeof(float));
        tr->rotation = amx__array(d, frames, 4 * sizeof(float));
        tr->scale = amx__array(d, frames, 3 * sizeof(float));
        tr->visibility = amx__array(d, frames, 1);
        if (tr->channels & AMX_CH_STEP)
            tr->step = amx__array(d, frames, 1);
        if (!tr->translation || !tr->rotation || !tr->scale || !tr->visibility ||
            ((tr->channels & AMX_CH_STEP) && !tr->step))
            return;
        for (uint32_t f = 0; f < frames; f++) {
            tr->rotation[4 * (size_t)f + 3] = 1.0f;
            for (int k = 0; k < 3; k++)
                tr->scale[3 * (size_t)f + k] = 1.0f;
            tr->visibility[f] = 1;
        }
        for (int s = 0; s < NSLOT; s++) {
            if (slots[i][s] == UINT32_MAX)
                continue;
            w3d_chan *ch = &a->chans[slots[i][s]];
            if (s == S_VIS)
                eval_bits(ch, frames, tr->visibility);
            else if (s == S_Q)
                eval_float(d, ch, frames, tr->rotation, 4, tr->step);
            else
                eval_float(d, ch, frames, tr->translation + s, 3, tr->step);
        }
    }
    clip->has_samples = true;
}

void amx__w3d_decode_animation(w3d_state *s, const amx_chunk *ac, bool compressed)
{
    amx_dec *d = s->d;
    uint32_t hdr_id = compressed ? C_COMPRESSED_HEADER : C_ANIMATION_HEADER;
    const char *what = compressed ? "compressed animation" : "animation";
    amx_chunk hdr;
    if (!amx__w3d_find_child(ac->body, hdr_id, &hdr)) {
        /* Walk anyway so the chunk walker reports damaged children. */
        amx_reader body = ac->body;
        amx_chunk c;
        while (amx__chunk_next(d, &body, &c)) {
        }
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)ac->offset, what,
                     "%s chunk 0x%x has no header chunk 0x%x", what, (unsigned)ac->type,
                     (unsigned)hdr_id);
        return;
    }
    amx__w3d_check_record_size(d, &hdr, 44, what, "animation header");
    amx_reader r = hdr.body;
    size_t base = r.start;
    uint32_t version = amx_read_u32le(&r);
    const char *name = amx__w3d_read_name(d, &r, NAME_LEN, what, "animation name");
    char ctx[96];
    snprintf(ctx, sizeof ctx, "%s '%s'", what, name);
    const char *hier = amx__w3d_read_name(d, &r, NAME_LEN, ctx, "hierarchy name");
    uint32_t frames = amx_read_u32le(&r);
    uint32_t fps, flavor = 0;
    if (compressed) {
        fps = amx_read_u16le(&r);
        flavor = amx_read_u16le(&r);
        if (flavor > 1)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)base + 42, ctx,
                         "unknown flavor %u (0 time-coded, 1 adaptive delta); its 0x282 channels "
                         "are not decoded", flavor);
    } else {
        fps = amx_read_u32le(&r);
    }
    note_version(s, 1, version);

    static const uint32_t classic_ids[] = { C_ANIMATION_CHANNEL, C_BIT_CHANNEL };
    static const uint32_t comp_ids[] = { C_COMPRESSED_CHANNEL, C_COMPRESSED_BIT_CHANNEL,
                                         C_MOTION_CHANNEL };
    uint32_t nchan = compressed ? amx__w3d_count_children(ac->body, comp_ids, 3)
                                : amx__w3d_count_children(ac->body, classic_ids, 2);
    amx_clip *clip = &d->asset->clips[d->asset->clip_count];
    w3d_anim *a = amx__alloc(d, sizeof *a);
    w3d_chan *chans = amx__array(d, nchan, sizeof *chans);
    const char *actx = amx__strdup(d, ctx);
    if (!a || !chans)
        return;
    *a = (w3d_anim){ .clip = clip, .offset = ac->offset, .compressed = compressed,
                     .flavor = flavor, .frames = frames, .ctx = actx, .chans = chans };
    clip->name = name;
    clip->skeleton = hier;
    clip->has_frames = true;
    clip->frames = frames;
    clip->fps = (float)fps;
    clip->duration = fps > 0 ? (double)frames / (double)fps : 0.0;
    d->asset->clip_count++;

    bool any = false;
    amx_reader body = ac->body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        if (!any) {
            any = true;
            if (c.type != hdr_id)
                amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)c.offset, ctx,
                             "the first sub-chunk of %s 0x%x is 0x%x; the engine needs the header "
                             "0x%x first", what, (unsigned)ac->type, (unsigned)c.type,
                             (unsigned)hdr_id);
        }
        if (c.type == hdr_id) {
            if (c.offset != hdr.offset)
                amx__w3d_duplicate_child(d, &c, ctx);
            continue;
        }
        bool is_chan = false;
        for (size_t i = 0; i < (compressed ? 3u : 2u); i++)
            if (c.type == (compressed ? comp_ids : classic_ids)[i])
                is_chan = true;
        if (!is_chan || a->chan_count >= nchan) {
            amx__w3d_unknown_child(d, &c, ac->type, ctx);
            continue;
        }
        w3d_chan *ch = &chans[a->chan_count];
        *ch = (w3d_chan){ .chunk = c.type, .offset = c.offset, .body = c.body,
                          .pos = a->chan_count, .slot = S_NONE };
        char cctx[128];
        snprintf(cctx, sizeof cctx, "%s channel %u", ctx, a->chan_count);
        a->chan_count++;
        switch (c.type) {
        case C_ANIMATION_CHANNEL:
            ch->kind = K_CLASSIC;
            parse_classic(d, a, ch, cctx);
            break;
        case C_BIT_CHANNEL:
            ch->kind = K_BIT;
            parse_bit(d, ch, cctx);
            break;
        case C_COMPRESSED_CHANNEL:
            if (flavor == 0) {
                ch->kind = K_TIMECODED;
                parse_timecoded(d, a, ch, cctx);
            } else if (flavor == 1) {
                ch->kind = K_DELTA;
                parse_delta(d, a, ch, cctx);
            } else if (c.body.end - c.body.start >= 6) {
                /* unknown flavor (reported with the header): only the pivot is known */
                ch->kind = K_TIMECODED;
                ch->pivot = at_u16(&c.body, c.body.start + 4);
                ch->pivot_at = c.body.start + 4;
                ch->has_pivot = true;
            }
            break;
        case C_COMPRESSED_BIT_CHANNEL:
            ch->kind = K_TC_BIT;
            parse_tc_bit(d, a, ch, cctx);
            break;
        case C_MOTION_CHANNEL:
            parse_motion(d, a, ch, cctx);
            break;
        }
        if (d->out_of_memory)
            return;
    }

    /* Pivots against the hierarchy when it is in this file (the engine drops such channels). */
    const amx_skeleton *sk = amx__w3d_local_skeleton(d, hier);
    if (sk) {
        for (uint32_t i = 0; i < a->chan_count; i++) {
            const w3d_chan *ch = &chans[i];
            if (ch->has_pivot && ch->pivot >= sk->bone_count) {
                char cctx[128];
                snprintf(cctx, sizeof cctx, "%s channel %u", ctx, i);
                amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)ch->pivot_at, cctx,
                             "pivot %u is not in hierarchy '%s' (%u pivots); the engine drops "
                             "the channel", ch->pivot, sk->name, sk->bone_count);
            }
        }
    }
    build_tracks(d, a);
}
