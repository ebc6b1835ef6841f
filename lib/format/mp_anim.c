/*
 * Metroid Prime 1 / 2 ANIM (GameCube, all big-endian). The first u32 is the format: 0 =
 * uncompressed quaternion arrays (CAnimSource), 2 = compressed bitstream (CFBStreamedCompression).
 * 3 is metaforce's own PC variant (never on disc): UNSUPPORTED. Quaternions are stored W,X,Y,Z;
 * samples give x,y,z,w.
 *
 * Layout, unpacking and sources: docs/formats/metroid-prime.md. Public sources:
 * AxioDL/PrimeWorldEditor src/Core/Resource/Factory/CAnimationLoader.cpp, AxioDL/metaforce
 * DataSpec/DNAMP1/ANIM.cpp, DataSpec/DNAMP2/ANIM.cpp and DataSpec/DNACommon/ANIM.cpp (bitstream),
 * PrimeDecomp/prime CAnimSource.cpp / CFBStreamedCompression, the Retro Modding Wiki ANIM page.
 *
 * Format 0, MP1 (offsets from the file start):
 *   0x00 u32 format 0          0x04 f32 duration, 0x08 u32 diff state
 *   0x0C f32 interval, 0x10 u32 diff state                0x14 u32 KeyCount (frames)
 *   0x18 u32 root bone id      0x1C u32 slot count (100)   0x20 u8 slot[100]: bone id -> channel
 *   u32 ChannelCount; u8 TransIdx[ChannelCount]   (channel -> translation block, 0xFF none)
 *   u32 RotKeyTotal;   f32 quat[RotKeyTotal][4]   (W,X,Y,Z; = ChannelCount x KeyCount)
 *   u32 TransKeyTotal; f32 vec3[TransKeyTotal][3] (= translated channels x KeyCount)
 *   u32 EVNT id
 * Format 0, MP2: after slot[] three u32-count-prefixed u8 lists indexed by channel: rotation,
 * translation, scale block (0xFF none); then u32-count-prefixed blocks in the order scale (vec3),
 * rotation (quat), translation (vec3); no EVNT id.
 * Every channel has a rotation in MP1: rotation block = the channel index (PrimeDecomp
 * CAnimSource: rotIdx = slot[bone], transIdx = TransIdx[rotIdx]). Blocks are channel-major
 * (block b, key k at b x KeyCount + k), as PWE, metaforce's DataSpec reader and the Retro Modding
 * Wiki read them. (metaforce's runtime CAnimSource copies the arrays frame-major; channel-major is
 * kept until a real file says otherwise: docs/formats/metroid-prime.md section 7.) MP2
 * generalises the MP1 rule: block = list[slot[bone]] for each kind.
 * MP1 vs MP2: the layout whose sizes end exactly at EOF (PWE UncompressedCheckEchoes); when
 * both or neither fit, MP2 if the three index lists after the slot table have one count.
 *
 * Format 2, MP1:                               MP2 (a u16 makes every later field 2-aligned):
 *   0x00 u32 format 2                           0x00 u32 format 2
 *   0x04 u32 scratch size                       0x04 u32 scratch size
 *   0x08 u32 EVNT id                            0x08 u16 unknown (0x0101)
 *   0x0C u32 unknown (1)                        0x0A f32 duration
 *   0x10 f32 duration                           0x0E f32 interval
 *   0x14 f32 interval                           0x12 u32 root bone id
 *   0x18 u32 root bone id                       0x16 u32 looping
 *   0x1C u32 looping                            0x1A u32 rotation divisor
 *   0x20 u32 rotation divisor                   0x1E f32 translation multiplier
 *   0x24 f32 translation multiplier             0x22 f32 scale multiplier
 *   0x28 u32 bone channel count                 0x26 u32 bone channel count
 *   0x2C u32 unknown (1)                        0x2A u32 unknown
 *   0x30 u32 key bitmap bits (= frames)         0x2E u32 key bitmap bits
 *   0x34 u32 bitmap[(bits + 31) / 32]           0x32 u32 bitmap[(bits + 31) / 32]
 *   u32 unused, u32 channel count again         u32 channel count again
 *   descriptors                                 descriptors
 *   bitstream (u32 words)                       bitstream
 * MP1 descriptor (17 or 26 bytes): u32 bone id; u16 rot keys; {s16 init, u8 bits} x 3 (always);
 *   u16 trans keys; {s16 init, u8 bits} x 3 when trans keys > 0.
 * MP2 descriptor (7 + 9 per component): u8 bone id; u16 rot keys [+ 3 triples]; u16 trans keys
 *   [+ 3 triples]; u16 scale keys [+ 3 triples].
 * A component is present when its key count is > 0 (PWE, metaforce readers).
 * MP1 vs MP2: the layout whose descriptors and bitstream end exactly at EOF; else PWE's test
 * (u16 at 0x08 == 0x0101 means MP2).
 *
 * Key bitmap: bit i = (word[i >> 5] >> (i & 31)) & 1, LSB-first in BE words. Bit 0 is the
 * initial pose (descriptor init values); every later set bit is a key in the bitstream; stored
 * key count = set bits after bit 0 (= popcount - 1 when bit 0 is set), and each present
 * component's key count must equal it. Bitstream size = ceil(bits per key x keys / 32) x 4 bytes,
 * bits per key = sum over present components (rotation 1 + bx+by+bz, translation and scale
 * bx+by+bz). For each key, for each channel in descriptor order: rotation (1 bit W sign, then
 * x, y, z deltas), translation deltas, scale deltas; each delta a q-bit two's-complement field
 * (lib/format/bitreader.h) added to the channel's accumulator (started at init; int64 here, no
 * wrap).
 * Dequantisation: rotation x,y,z = sin(v * (pi/2) / RotDivisor), w = sqrt(max(0, 1 - x^2 -
 * y^2 - z^2)), negated when the sign bit is set (the initial key has w >= 0); translation = v x
 * TranslationMult; scale = v x ScaleMult. Frames whose bit is clear are interpolated between
 * the keyed frames around them (shortest-path slerp for rotations, lerp for vectors); frames
 * after the last key hold it.
 *
 * Validation: format; header values (interval > 0, finite floats, rotation divisor != 0,
 * duration against (frames - 1) x interval or frames x interval, root bone id < 100, looping
 * 0/1); channel count against the count word before the descriptors; descriptor bone ids (< 100,
 * unique), key counts against the bitmap, bit widths <= 32; bitstream length against what the
 * descriptors need; v0 slot table (100 entries), channel/index list counts and index ranges, key
 * array sizes against KeyCount x blocks; trailing data (zero padding to 32 bytes is allowed).
 * Binding of bone ids to a CINF happens in the index (through ANCS).
 */
#include "bitreader.h"
#include "mp_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#define ANIM_UNCOMPRESSED 0u
#define ANIM_COMPRESSED 2u
#define ANIM_METAFORCE_PC 3u
#define V0_SLOTS 100u
#define MP2_V2_MARKER 0x0101u

enum { ROT, TRANS, SCALE, NCOMP };
static const char *const comp_name[NCOMP] = { "rotation", "translation", "scale" };

/* ---- format 2 header offsets ---- */

#define NO_FIELD SIZE_MAX

typedef struct v2_offsets {
    size_t scratch, evnt, unk0, duration, interval, root, looping, rot_div, trans_mult,
        scale_mult, channels, unk3, bits, bitmap;
} v2_offsets;

static const v2_offsets v2_off[3] = {
    [MP1] = { 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C, 0x20, 0x24, NO_FIELD, 0x28, 0x2C, 0x30,
              0x34 },
    [MP2] = { 0x04, NO_FIELD, 0x08, 0x0A, 0x0E, 0x12, 0x16, 0x1A, 0x1E, 0x22, 0x26, 0x2A, 0x2E,
              0x32 },
};

static uint32_t be32_at(const uint8_t *p, size_t len, size_t at, bool *ok)
{
    if (at > len || len - at < 4) {
        *ok = false;
        return 0;
    }
    return amx_load_u32be(p + at);
}

/* ---- structure scans (no findings): probe and game detection ---- */

typedef enum scan_result {
    SCAN_BAD,      /* the bytes contradict the layout */
    SCAN_PARTIAL,  /* consistent as far as the data goes, but it ends before the layout does */
    SCAN_OK,       /* consistent to the end of the layout; `end` is where it ends */
} scan_result;

/* Format 2 of one game: header, bitmap, count word, descriptors; end = after the bitstream. */
static scan_result v2_scan(const uint8_t *p, size_t len, int game, uint64_t *end)
{
    const v2_offsets *o = &v2_off[game];
    amx_reader r = amx_reader_make(p, len);
    bool ok = true;
    uint32_t channels = be32_at(p, len, o->channels, &ok);
    uint32_t nbits = be32_at(p, len, o->bits, &ok);
    if (!ok)
        return SCAN_PARTIAL;
    if (channels > MP_MAX_BONE_ID)
        return SCAN_BAD;
    uint64_t words = ((uint64_t)nbits + 31) / 32;
    if (words * 4 > len - o->bitmap)
        return SCAN_PARTIAL;
    amx_reader_seek(&r, o->bitmap);
    uint64_t keys = 0;
    for (uint64_t w = 0; w < words; w++) {
        uint32_t v = amx_read_u32be(&r);
        if (w == words - 1 && nbits % 32)
            v &= (1u << (nbits % 32)) - 1;
        if (w == 0)
            v &= ~1u;
        keys += (uint64_t)__builtin_popcount(v);
    }
    if (game == MP1)
        amx_read_u32be(&r);
    uint32_t again = amx_read_u32be(&r);
    if (r.err)
        return SCAN_PARTIAL;
    if (again != channels)
        return SCAN_BAD;
    uint64_t bits_per_key = 0;
    for (uint32_t c = 0; c < channels; c++) {
        uint32_t bone = game == MP1 ? amx_read_u32be(&r) : amx_read_u8(&r);
        if (r.err)
            return SCAN_PARTIAL;
        if (bone >= MP_MAX_BONE_ID)
            return SCAN_BAD;
        for (int k = 0; k < NCOMP; k++) {
            if (k == SCALE && game == MP1)
                break;
            uint16_t count = amx_read_u16be(&r);
            bool present = count > 0;
            bool stored = present || (game == MP1 && k == ROT);
            if (r.err)
                return SCAN_PARTIAL;
            if (count > nbits)
                return SCAN_BAD;
            if (!stored)
                continue;
            if (present && k == ROT)
                bits_per_key += 1;
            for (int a = 0; a < 3; a++) {
                amx_read_u16be(&r);
                uint8_t q = amx_read_u8(&r);
                if (r.err)
                    return SCAN_PARTIAL;
                if (q > 32)
                    return SCAN_BAD;
                if (present)
                    bits_per_key += q;
            }
        }
    }
    *end = amx_reader_tell(&r) + (bits_per_key * keys + 31) / 32 * 4;
    return SCAN_OK;
}

/* Format 0 of one game: end = after the last block (and the MP1 EVNT id). */
static scan_result v0_scan(const uint8_t *p, size_t len, int game, uint64_t *end)
{
    amx_reader r = amx_reader_make(p, len);
    amx_reader_seek(&r, 0x14);
    uint32_t keys = amx_read_u32be(&r);
    amx_read_u32be(&r); /* root */
    uint32_t slots = amx_read_u32be(&r);
    if (r.err)
        return SCAN_PARTIAL;
    if (slots != V0_SLOTS)
        return SCAN_BAD;
    const uint8_t *slot = amx_reader_take(&r, slots);
    if (!slot)
        return SCAN_PARTIAL;
    for (uint32_t i = 0; i < slots; i++)
        if (slot[i] != 0xFF && slot[i] >= MP_MAX_BONE_ID)
            return SCAN_BAD;
    int lists = game == MP1 ? 1 : 3;
    for (int l = 0; l < lists; l++) {
        uint32_t n = amx_read_u32be(&r);
        if (r.err)
            return SCAN_PARTIAL;
        if (n > MP_MAX_BONE_ID)
            return SCAN_BAD;
        const uint8_t *idx = amx_reader_take(&r, n);
        if (!idx)
            return SCAN_PARTIAL;
        for (uint32_t i = 0; i < n; i++)
            if (idx[i] != 0xFF && idx[i] >= MP_MAX_BONE_ID)
                return SCAN_BAD;
    }
    static const size_t elem_mp1[] = { 16, 12 }, elem_mp2[] = { 12, 16, 12 };
    const size_t *elem = game == MP1 ? elem_mp1 : elem_mp2;
    int blocks = game == MP1 ? 2 : 3;
    for (int b = 0; b < blocks; b++) {
        uint32_t total = amx_read_u32be(&r);
        if (r.err)
            return SCAN_PARTIAL;
        if ((uint64_t)total > (uint64_t)keys * MP_MAX_BONE_ID)
            return SCAN_BAD;
        if (!amx_reader_has(&r, total, elem[b]))
            return SCAN_PARTIAL;
        amx_reader_skip(&r, (size_t)total * elem[b]);
    }
    *end = amx_reader_tell(&r) + (game == MP1 ? 4 : 0);
    return SCAN_OK;
}

/* Format 0 when no layout fits: MP2 when the three index lists after the slot table have the
 * same count (in MP1 the second "count" is RotKeyTotal = channels x KeyCount), else MP1. */
static int v0_heuristic(const uint8_t *p, size_t len)
{
    amx_reader r = amx_reader_make(p, len);
    amx_reader_seek(&r, 0x1C);
    uint32_t slots = amx_read_u32be(&r);
    amx_reader_skip(&r, slots);
    uint32_t n[3];
    for (int k = 0; k < 3; k++) {
        n[k] = amx_read_u32be(&r);
        amx_reader_skip(&r, n[k]);
    }
    return !r.err && n[1] == n[0] && n[2] == n[0] ? MP2 : MP1;
}

static bool fits(scan_result s, uint64_t end, const uint8_t *p, size_t len)
{
    return s == SCAN_OK && end <= len && mp_is_padding(p, len, (size_t)end);
}

bool amx__mp_anim_probe(const uint8_t *data, size_t len)
{
    if (len < 0x34)
        return false;
    uint32_t format = amx_load_u32be(data);
    uint64_t end;
    if (format == ANIM_COMPRESSED) {
        for (int g = MP1; g <= MP2; g++) {
            scan_result s = v2_scan(data, len, g, &end);
            if (s == SCAN_BAD)
                continue;
            /* Consistent to the end and ending at EOF (or running past a prefix); or the data
             * ends early or has bytes after the layout, but the header times are sane. */
            if (s == SCAN_OK && (end > len || fits(s, end, data, len)))
                return true;
            const v2_offsets *o = &v2_off[g];
            float duration = amx_bits_to_f32(amx_load_u32be(data + o->duration));
            float interval = amx_bits_to_f32(amx_load_u32be(data + o->interval));
            if (isfinite(duration) && duration >= 0.0f && duration <= 1e5f && mp_positive(interval) &&
                interval <= 10.0f)
                return true;
        }
        return false;
    }
    if (format == ANIM_UNCOMPRESSED) {
        if (len < 0x20 + V0_SLOTS)
            return false;
        for (int g = MP1; g <= MP2; g++) {
            scan_result s = v0_scan(data, len, g, &end);
            if (s == SCAN_OK || s == SCAN_PARTIAL)
                return true;
        }
    }
    return false;
}

/* ---- decoding ---- */

typedef struct anim {
    amx_dec *d;
    int game;
    amx_mp_anim *info;
    amx_clip *clip;
    const char **ctx;       /* per channel, made on first use */
    bool no_samples;        /* a descriptor the bitstream cannot be read with (bits > 32) */
    /* format 0 blocks */
    size_t block_at[NCOMP];
    uint32_t block_total[NCOMP];
    uint32_t block_count[NCOMP]; /* blocks (channels with that component) */
} anim;

static const char *chan_ctx(anim *a, uint32_t i)
{
    if (!a->ctx[i]) {
        uint32_t bone = a->info->channels[i].bone_id;
        a->ctx[i] = a->info->format == ANIM_COMPRESSED
                        ? amx__sprintf(a->d, "channel %u (bone %u)", i, bone)
                        : amx__sprintf(a->d, "bone %u (channel %u)", bone, i);
    }
    return a->ctx[i];
}

static void check_times(anim *a, size_t duration_at, size_t interval_at)
{
    amx_dec *d = a->d;
    amx_mp_anim *in = a->info;
    bool dur_ok = amx__check_finite(d, in->duration, (int64_t)duration_at, "header", "duration");
    if (dur_ok && in->duration < 0.0f) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)duration_at, "header",
                     "duration %g s is negative", (double)in->duration);
        dur_ok = false;
    }
    if (!isfinite(in->interval) || in->interval <= 0.0f) {
        amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, (int64_t)interval_at, "header",
                         "the key interval is %g s; it must be a positive number",
                         (double)in->interval);
        return;
    }
    a->clip->fps = 1.0f / in->interval;
    if (!isfinite(a->clip->fps))
        a->clip->fps = 0.0f;
    if (!dur_ok)
        return;
    /* Writers store (frames - 1) x interval (the time of the last key); accept frames x
     * interval too. */
    double iv = (double)in->interval, dur = (double)in->duration;
    double tol = 0.01 * iv + 1e-6 * dur + 1e-6;
    uint32_t n = in->frames;
    double a1 = n ? (double)(n - 1) * iv : 0.0, a2 = (double)n * iv;
    if (fabs(dur - a1) > tol && fabs(dur - a2) > tol)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)duration_at, "header",
                     "duration %g s does not match %u frames x %g s interval (%g or %g s)", dur, n,
                     iv, a1, a2);
}

static void check_root(anim *a, size_t at)
{
    if (a->info->root_bone_id >= MP_MAX_BONE_ID)
        amx__finding(a->d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)at, "header",
                     "root bone id %u is not below %u", a->info->root_bone_id, MP_MAX_BONE_ID);
}

/* Bone ids < 100 and unique over the channels. */
static void check_channel_bones(anim *a)
{
    uint32_t first[MP_MAX_BONE_ID];
    for (uint32_t i = 0; i < MP_MAX_BONE_ID; i++)
        first[i] = UINT32_MAX;
    for (uint32_t i = 0; i < a->info->channel_count; i++) {
        const amx_mp_channel *c = &a->info->channels[i];
        if (c->bone_id >= MP_MAX_BONE_ID) {
            amx__finding(a->d, AMX_C_INDEX_OUT_OF_RANGE, c->offset, chan_ctx(a, i),
                         "bone id %u is not below %u", c->bone_id, MP_MAX_BONE_ID);
            continue;
        }
        if (first[c->bone_id] != UINT32_MAX)
            amx__finding_sev(a->d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, c->offset, chan_ctx(a, i),
                             "bone %u is animated by channel %u already", c->bone_id,
                             first[c->bone_id]);
        else
            first[c->bone_id] = i;
    }
}

static uint32_t channel_flags(const amx_mp_channel *c)
{
    return (c->rotation.present ? AMX_CH_ROTATION : 0u) |
           (c->translation.present ? AMX_CH_TRANSLATION : 0u) |
           (c->scale.present ? AMX_CH_SCALE : 0u);
}

static amx_mp_component *comp_of(amx_mp_channel *c, int k)
{
    return k == ROT ? &c->rotation : k == TRANS ? &c->translation : &c->scale;
}

/* Tracks from the channels (one each, same order). */
static bool make_tracks(anim *a)
{
    uint32_t n = a->info->channel_count;
    amx_track *t = amx__array(a->d, n, sizeof *t);
    if (!t)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const amx_mp_channel *c = &a->info->channels[i];
        t[i].bone = NULL;
        t[i].bone_index = c->bone_id <= INT32_MAX ? (int32_t)c->bone_id : -1;
        t[i].channels = channel_flags(c);
        t[i].offset = c->offset;
    }
    a->clip->tracks = t;
    a->clip->track_count = n;
    return true;
}

/* Sample arrays of every track, filled with the rest values. False: no samples. */
static bool alloc_samples(anim *a)
{
    amx_dec *d = a->d;
    amx_clip *clip = a->clip;
    if (!amx__samples_allowed(d, clip))
        return false;
    size_t len = d->r.end, budget, need;
    if (!amx_mul_size(len, 64, &budget) || !amx_add_size(budget, (size_t)64 << 20, &budget))
        budget = SIZE_MAX;
    if (!amx_mul_size(clip->frames, clip->track_count, &need) || !amx_mul_size(need, 41, &need) ||
        need > budget) {
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, -1, NULL,
                     "%u frames x %u tracks of samples exceed the memory a %zu-byte file may use; "
                     "no samples", clip->frames, clip->track_count, len);
        return false;
    }
    size_t n = clip->frames;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        amx_track *t = &clip->tracks[i];
        t->translation = amx__array(d, n, 3 * sizeof(float));
        t->rotation = amx__array(d, n, 4 * sizeof(float));
        t->scale = amx__array(d, n, 3 * sizeof(float));
        t->visibility = amx__array(d, n, 1);
        if (!t->translation || !t->rotation || !t->scale || !t->visibility)
            return false;
        for (size_t f = 0; f < n; f++) {
            t->rotation[4 * f + 3] = 1.0f;
            for (size_t k = 0; k < 3; k++)
                t->scale[3 * f + k] = 1.0f;
            t->visibility[f] = 1;
        }
    }
    return true;
}

/* ---- format 2 ---- */

static bool bitmap_bit(const uint32_t *w, uint32_t i) { return (w[i >> 5] >> (i & 31)) & 1u; }

static void slerp(const float *a, const float *b, float t, float *out)
{
    double dot = 0.0;
    for (int k = 0; k < 4; k++)
        dot += (double)a[k] * (double)b[k];
    double sign = 1.0;
    if (dot < 0.0) { /* shortest path */
        dot = -dot;
        sign = -1.0;
    }
    double wa, wb;
    if (dot > 0.9995) {
        wa = 1.0 - (double)t;
        wb = (double)t;
    } else {
        double th = acos(dot), s = sin(th);
        wa = sin((1.0 - (double)t) * th) / s;
        wb = sin((double)t * th) / s;
    }
    double q[4], norm = 0.0;
    for (int k = 0; k < 4; k++) {
        q[k] = wa * (double)a[k] + wb * sign * (double)b[k];
        norm += q[k] * q[k];
    }
    norm = sqrt(norm);
    for (int k = 0; k < 4; k++)
        out[k] = norm > 0.0 ? (float)(q[k] / norm) : (k == 3 ? 1.0f : 0.0f);
}

/* Writes the dequantised value of a component at frame f. acc: the three accumulators. */
static void put_value(anim *a, amx_track *t, int k, uint32_t f, const int64_t *acc, bool wneg)
{
    const amx_mp_anim *in = a->info;
    if (k == ROT) {
        if (in->rot_divisor == 0)
            return; /* identity: a finding says why */
        double m = (M_PI / 2.0) / (double)in->rot_divisor;
        double x = sin((double)acc[0] * m), y = sin((double)acc[1] * m), z = sin((double)acc[2] * m);
        double w = sqrt(fmax(0.0, 1.0 - (x * x + y * y + z * z)));
        float *q = t->rotation + 4 * (size_t)f;
        q[0] = (float)x;
        q[1] = (float)y;
        q[2] = (float)z;
        q[3] = (float)(wneg ? -w : w);
        return;
    }
    float mult = k == TRANS ? in->translation_mult : in->scale_mult;
    if (!isfinite(mult))
        mult = k == TRANS ? 0.0f : 1.0f; /* a finding says why */
    float *v = (k == TRANS ? t->translation : t->scale) + 3 * (size_t)f;
    for (int c = 0; c < 3; c++) {
        v[c] = (float)((double)acc[c] * (double)mult);
        if (!isfinite(v[c]))
            v[c] = k == TRANS ? 0.0f : 1.0f;
    }
}

/* Fills frames whose bitmap bit is clear: between keyed frames a < f < b by slerp/lerp, after
 * the last keyed frame by holding it. */
static void interpolate(anim *a, const uint8_t *keyed)
{
    amx_clip *clip = a->clip;
    uint32_t n = clip->frames;
    uint32_t prev = 0;
    for (uint32_t f = 1; f <= n; f++) {
        if (f < n && !keyed[f])
            continue;
        /* keyed frames prev and f (f == n: none after prev) */
        for (uint32_t g = prev + 1; g < f && g < n; g++) {
            float t = f < n ? (float)(g - prev) / (float)(f - prev) : 0.0f;
            uint32_t next = f < n ? f : prev;
            for (uint32_t i = 0; i < clip->track_count; i++) {
                amx_track *tr = &clip->tracks[i];
                const amx_mp_channel *c = &a->info->channels[i];
                if (c->rotation.present)
                    slerp(tr->rotation + 4 * (size_t)prev, tr->rotation + 4 * (size_t)next, t,
                          tr->rotation + 4 * (size_t)g);
                for (int k = TRANS; k <= SCALE; k++) {
                    if (!(k == TRANS ? c->translation.present : c->scale.present))
                        continue;
                    float *v = k == TRANS ? tr->translation : tr->scale;
                    for (size_t e = 0; e < 3; e++) {
                        /* in double: vb - va of two finite floats may overflow a float */
                        double va = v[3 * (size_t)prev + e], vb = v[3 * (size_t)next + e];
                        v[3 * (size_t)g + e] = (float)(va + (vb - va) * t);
                    }
                }
            }
        }
        prev = f;
    }
}

static void v2_samples(anim *a, const uint32_t *bitmap)
{
    amx_dec *d = a->d;
    amx_mp_anim *in = a->info;
    amx_clip *clip = a->clip;
    uint32_t n = clip->frames;
    if (!alloc_samples(a))
        return;
    uint8_t *keyed = amx__array(d, n, 1);
    int64_t *acc = amx__array(d, (size_t)in->channel_count * NCOMP * 3, sizeof *acc);
    if (!keyed || !acc)
        return;
    for (uint32_t f = 0; f < n; f++)
        keyed[f] = f == 0 || bitmap_bit(bitmap, f);
    /* frame 0: the initial values */
    for (uint32_t i = 0; i < in->channel_count; i++) {
        amx_mp_channel *c = &in->channels[i];
        for (int k = 0; k < NCOMP; k++) {
            const amx_mp_component *cp = comp_of(c, k);
            if (!cp->present)
                continue;
            int64_t *ac = acc + ((size_t)i * NCOMP + (size_t)k) * 3;
            for (int e = 0; e < 3; e++)
                ac[e] = cp->init[e];
            if (n)
                put_value(a, &clip->tracks[i], k, 0, ac, false);
        }
    }
    /* the keys, at the later set bits */
    size_t avail = d->r.end - (size_t)in->bitstream_offset;
    if ((uint64_t)avail > in->bitstream_bytes)
        avail = (size_t)in->bitstream_bytes;
    amx_bits bits;
    amx_bits_init(&bits, d->r.base + in->bitstream_offset, avail);
    for (uint32_t f = 1; f < n; f++) {
        if (!keyed[f])
            continue;
        for (uint32_t i = 0; i < in->channel_count; i++) {
            amx_mp_channel *c = &in->channels[i];
            for (int k = 0; k < NCOMP; k++) {
                const amx_mp_component *cp = comp_of(c, k);
                if (!cp->present)
                    continue;
                int64_t *ac = acc + ((size_t)i * NCOMP + (size_t)k) * 3;
                bool wneg = k == ROT && amx_bits_get(&bits, 1);
                for (int e = 0; e < 3; e++)
                    if (cp->bits[e])
                        ac[e] += amx_bits_get_signed(&bits, cp->bits[e]);
                put_value(a, &clip->tracks[i], k, f, ac, wneg);
            }
        }
    }
    interpolate(a, keyed);
    clip->has_samples = true;
}

static void v2_decode(anim *a)
{
    amx_dec *d = a->d;
    amx_reader *r = &d->r;
    amx_mp_anim *in = a->info;
    const v2_offsets *o = &v2_off[a->game];
    size_t len = r->end;
    if (len < o->bitmap) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header",
                   "a %s format-2 header needs %zu bytes, the file has %zu",
                   mp_game_name(a->game), o->bitmap, len);
        return;
    }
    bool ok = true;
    const uint8_t *p = r->base;
    in->scratch_size = be32_at(p, len, o->scratch, &ok);
    in->evnt_id = o->evnt != NO_FIELD ? be32_at(p, len, o->evnt, &ok) : AMX_MP_NO_ASSET;
    in->duration = amx_bits_to_f32(be32_at(p, len, o->duration, &ok));
    in->interval = amx_bits_to_f32(be32_at(p, len, o->interval, &ok));
    in->root_bone_id = be32_at(p, len, o->root, &ok);
    in->looping = be32_at(p, len, o->looping, &ok);
    in->rot_divisor = be32_at(p, len, o->rot_div, &ok);
    in->translation_mult = amx_bits_to_f32(be32_at(p, len, o->trans_mult, &ok));
    in->scale_mult =
        o->scale_mult != NO_FIELD ? amx_bits_to_f32(be32_at(p, len, o->scale_mult, &ok)) : 0.0f;
    uint32_t channels = be32_at(p, len, o->channels, &ok);
    uint32_t nbits = be32_at(p, len, o->bits, &ok);
    in->frames = nbits;
    a->clip->frames = nbits;

    /* header values */
    check_times(a, o->duration, o->interval);
    a->clip->duration = isfinite(in->duration) && in->duration > 0.0f ? in->duration : 0.0;
    check_root(a, o->root);
    if (in->looping > 1)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)o->looping, "header",
                     "looping flag %u (0 or 1)", in->looping);
    if (in->rot_divisor == 0)
        amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, (int64_t)o->rot_div, "header",
                         "rotation divisor 0: rotations cannot be dequantised (identity used)");
    amx__check_finite(d, in->translation_mult, (int64_t)o->trans_mult, "header",
                      "translation multiplier");
    if (o->scale_mult != NO_FIELD)
        amx__check_finite(d, in->scale_mult, (int64_t)o->scale_mult, "header", "scale multiplier");
    if (a->game == MP2) {
        uint16_t marker = (uint16_t)(p[8] << 8 | p[9]);
        if (marker != MP2_V2_MARKER)
            amx__finding(d, AMX_C_BAD_VALUE, 8, "header",
                         "the MP2 header's u16 is 0x%04X, not 0x0101", marker);
    }

    /* key bitmap */
    amx_reader_seek(r, o->bitmap);
    uint64_t words = ((uint64_t)nbits + 31) / 32;
    if (words * 4 > amx_reader_left(r)) {
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)o->bitmap, "key bitmap",
                   "a key bitmap of %u bits needs %llu bytes, only %zu are left", nbits,
                   (unsigned long long)(words * 4), amx_reader_left(r));
        return;
    }
    uint32_t *bitmap = amx__array(d, (size_t)words, sizeof *bitmap);
    if (!bitmap)
        return;
    uint64_t keys = 0;
    for (uint64_t w = 0; w < words; w++) {
        bitmap[w] = amx_read_u32be(r);
        if (w == words - 1 && nbits % 32)
            bitmap[w] &= (1u << (nbits % 32)) - 1; /* bits past the length are not frames */
        keys += (uint64_t)__builtin_popcount(w == 0 ? bitmap[w] & ~1u : bitmap[w]);
    }
    in->key_bitmap = bitmap;
    in->stored_keys = (uint32_t)keys;
    if (nbits == 0)
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)o->bits, "header",
                     "the key bitmap has no frames");
    else if (!(bitmap[0] & 1u))
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)o->bitmap, "key bitmap",
                     "frame 0 is not marked as a key; it takes the initial values anyway");

    /* the channel count again, then the descriptors */
    if (a->game == MP1)
        amx_read_u32be(r);
    size_t again_at = amx_reader_tell(r);
    uint32_t again = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)again_at, "header",
                   "the file ends before the descriptor count");
        return;
    }
    if (again != channels)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)again_at, "descriptors",
                     "the header declares %u bone channels, the descriptor count is %u", channels,
                     again);
    /* No more descriptors than the bytes left could hold (plus the one that runs out). */
    size_t min_desc = a->game == MP1 ? 17 : 7;
    uint32_t room = channels;
    if (!amx_reader_has(r, channels, min_desc))
        room = (uint32_t)(amx_reader_left(r) / min_desc + 1);
    in->channels = amx__array(d, room, sizeof *in->channels);
    a->ctx = amx__array(d, room, sizeof *a->ctx);
    if (!in->channels || !a->ctx)
        return;
    uint64_t bits_per_key = 0;
    for (uint32_t i = 0; i < room; i++) {
        amx_mp_channel *c = &in->channels[i];
        c->offset = (int64_t)amx_reader_tell(r);
        c->bone_id = a->game == MP1 ? amx_read_u32be(r) : amx_read_u8(r);
        size_t count_at[NCOMP] = { 0 };
        for (int k = 0; k < NCOMP; k++) {
            if (k == SCALE && a->game == MP1)
                break;
            amx_mp_component *cp = comp_of(c, k);
            count_at[k] = amx_reader_tell(r);
            uint16_t count = amx_read_u16be(r);
            cp->key_count = count;
            cp->present = count > 0;
            cp->block = -1;
            if (!cp->present && !(a->game == MP1 && k == ROT))
                continue;
            for (int e = 0; e < 3; e++) {
                cp->init[e] = amx_read_i16be(r);
                cp->bits[e] = amx_read_u8(r);
            }
        }
        if (r->err) {
            in->channel_count = i;
            amx__fatal(d, AMX_C_TRUNCATED, c->offset, amx__sprintf(d, "channel %u", i),
                       "the file ends inside bone channel descriptor %u of %u", i, channels);
            break;
        }
        in->channel_count = i + 1;
        for (int k = 0; k < NCOMP; k++) {
            const amx_mp_component *cp = comp_of(c, k);
            if (!cp->present) {
                if (k == ROT && a->game == MP1 && keys)
                    amx__finding(d, AMX_C_BAD_VALUE, (int64_t)count_at[k], chan_ctx(a, i),
                                 "no rotation keys: the game reads rotation bits for every MP1 "
                                 "channel; this one is read without rotation");
                continue;
            }
            if (cp->key_count != keys)
                amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)count_at[k], chan_ctx(a, i),
                             "%s key count %u, but the key bitmap has %llu keys after frame 0",
                             comp_name[k], cp->key_count, (unsigned long long)keys);
            if (k == ROT)
                bits_per_key += 1;
            for (int e = 0; e < 3; e++) {
                if (cp->bits[e] > 32) {
                    amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR,
                                     (int64_t)count_at[k] + 2 + 3 * e + 2, chan_ctx(a, i),
                                     "%s %c delta is %u bits wide (at most 32)", comp_name[k],
                                     "xyz"[e], cp->bits[e]);
                    a->no_samples = true;
                }
                bits_per_key += cp->bits[e];
            }
        }
    }
    check_channel_bones(a);
    if (!make_tracks(a) || d->fatal)
        return;

    /* the bitstream */
    size_t stream_at = amx_reader_tell(r);
    in->bits_per_key = bits_per_key <= UINT32_MAX ? (uint32_t)bits_per_key : UINT32_MAX;
    in->bitstream_offset = (int64_t)stream_at;
    in->bitstream_bytes = (bits_per_key * keys + 31) / 32 * 4;
    size_t left = amx_reader_left(r);
    if ((uint64_t)left < in->bitstream_bytes)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)stream_at, "bitstream",
                     "the bitstream holds %zu bytes; %llu keys x %llu bits need %llu", left,
                     (unsigned long long)keys, (unsigned long long)bits_per_key,
                     (unsigned long long)in->bitstream_bytes);
    else
        mp_check_trailing(d, stream_at + (size_t)in->bitstream_bytes, "bitstream");

    if (d->opts->samples && !a->no_samples && !d->out_of_memory)
        v2_samples(a, bitmap);
}

/* ---- format 0 ---- */

static void v0_block_value(anim *a, int k, uint32_t block, uint32_t f, float *out)
{
    static const size_t elem[NCOMP] = { 16, 12, 12 };
    uint64_t i = (uint64_t)block * a->info->frames + f;
    if (block >= a->block_count[k] || i >= a->block_total[k])
        return; /* rest value */
    amx_reader r = a->d->r;
    r.err = false;
    amx_reader_seek(&r, a->block_at[k] + (size_t)i * elem[k]);
    float v[4];
    size_t n = k == ROT ? 4 : 3;
    for (size_t e = 0; e < n; e++) {
        v[e] = amx_read_f32be(&r);
        if (!isfinite(v[e]))
            return; /* rest value; a finding says where */
    }
    if (k == ROT) { /* W,X,Y,Z -> x,y,z,w */
        out[0] = v[1];
        out[1] = v[2];
        out[2] = v[3];
        out[3] = v[0];
    } else {
        memcpy(out, v, 3 * sizeof(float));
    }
}

static void v0_samples(anim *a)
{
    if (!alloc_samples(a))
        return;
    amx_clip *clip = a->clip;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        amx_track *t = &clip->tracks[i];
        const amx_mp_channel *c = &a->info->channels[i];
        for (uint32_t f = 0; f < clip->frames; f++) {
            if (c->rotation.present)
                v0_block_value(a, ROT, (uint32_t)c->rotation.block, f, t->rotation + 4 * (size_t)f);
            if (c->translation.present)
                v0_block_value(a, TRANS, (uint32_t)c->translation.block, f,
                               t->translation + 3 * (size_t)f);
            if (c->scale.present)
                v0_block_value(a, SCALE, (uint32_t)c->scale.block, f, t->scale + 3 * (size_t)f);
        }
    }
    clip->has_samples = true;
}

/* Reads one u32-count-prefixed u8 index list; NULL (fatal) when it does not fit. */
static const uint8_t *v0_list(anim *a, const char *what, uint32_t *count, size_t *at)
{
    amx_dec *d = a->d;
    *at = amx_reader_tell(&d->r);
    *count = amx_read_u32be(&d->r);
    const uint8_t *p = d->r.err ? NULL : amx_reader_take(&d->r, *count);
    if (!p)
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)*at, what,
                   "the %s index list (%u entries) runs past the end of the file", what, *count);
    return p;
}

/* Non-finite floats of a key block: one finding with the first offset and the count. */
static void v0_check_block(anim *a, int k, size_t at, uint32_t total)
{
    size_t n = (size_t)total * (k == ROT ? 4 : 3), bad = 0, first = 0;
    amx_reader r = a->d->r;
    amx_reader_seek(&r, at);
    for (size_t i = 0; i < n; i++) {
        size_t pos = amx_reader_tell(&r);
        if (!isfinite(amx_read_f32be(&r)) && bad++ == 0)
            first = pos;
    }
    if (bad)
        amx__finding(a->d, AMX_C_BAD_VALUE, (int64_t)first, comp_name[k],
                     "%zu %s key values are not finite numbers (rest values used)", bad,
                     comp_name[k]);
}

static void v0_decode(anim *a)
{
    amx_dec *d = a->d;
    amx_reader *r = &d->r;
    amx_mp_anim *in = a->info;
    amx_reader_seek(r, 4);
    in->duration = amx_read_f32be(r);
    amx_read_u32be(r);
    in->interval = amx_read_f32be(r);
    amx_read_u32be(r);
    in->frames = amx_read_u32be(r);
    in->root_bone_id = amx_read_u32be(r);
    uint32_t nslots = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header", "a format-0 header needs 32 bytes, the file has %zu",
                   r->end);
        return;
    }
    a->clip->frames = in->frames;
    in->evnt_id = AMX_MP_NO_ASSET;
    check_times(a, 4, 0xC);
    a->clip->duration = isfinite(in->duration) && in->duration > 0.0f ? in->duration : 0.0;
    check_root(a, 0x18);
    if (nslots != V0_SLOTS)
        amx__finding(d, AMX_C_COUNT_MISMATCH, 0x1C, "slot table",
                     "the bone slot table has %u entries, not 100", nslots);
    const uint8_t *slots = amx_reader_take(r, nslots);
    if (!slots) {
        amx__fatal(d, AMX_C_TRUNCATED, 0x1C, "slot table",
                   "the bone slot table (%u entries) runs past the end of the file", nslots);
        return;
    }
    uint32_t animated = 0;
    for (uint32_t i = 0; i < nslots; i++)
        animated += slots[i] != 0xFF;

    /* index lists: MP1 translation (rotation = the channel); MP2 rotation, translation, scale */
    const uint8_t *list[NCOMP] = { NULL };
    uint32_t list_n[NCOMP] = { 0 };
    size_t list_at[NCOMP] = { 0 };
    for (int k = a->game == MP1 ? TRANS : ROT; k <= (a->game == MP1 ? TRANS : SCALE); k++) {
        list[k] = v0_list(a, comp_name[k], &list_n[k], &list_at[k]);
        if (!list[k])
            return;
        if (list_n[k] != animated)
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)list_at[k], comp_name[k],
                         "the %s index list has %u entries, but %u bones are animated",
                         comp_name[k], list_n[k], animated);
        for (uint32_t i = 0; i < list_n[k]; i++)
            a->block_count[k] += list[k][i] != 0xFF;
    }
    /* channel count: MP1 the translation list's (every channel has a rotation), MP2 the
     * rotation list's */
    uint32_t nchan = a->game == MP1 ? list_n[TRANS] : list_n[ROT];
    if (a->game == MP1)
        a->block_count[ROT] = nchan;

    /* key blocks: MP1 rotation, translation; MP2 scale, rotation, translation */
    static const int order_mp1[] = { ROT, TRANS }, order_mp2[] = { SCALE, ROT, TRANS };
    const int *order = a->game == MP1 ? order_mp1 : order_mp2;
    int nblocks = a->game == MP1 ? 2 : 3;
    for (int b = 0; b < nblocks; b++) {
        int k = order[b];
        size_t at = amx_reader_tell(r);
        uint32_t total = amx_read_u32be(r);
        size_t elem = k == ROT ? 16 : 12;
        if (r->err || !amx_reader_has(r, total, elem)) {
            amx__fatal(d, AMX_C_TRUNCATED, (int64_t)at, comp_name[k],
                       "the %s keys (%u x %zu bytes) run past the end of the file", comp_name[k],
                       total, elem);
            return;
        }
        a->block_at[k] = at + 4;
        a->block_total[k] = total;
        uint64_t want = (uint64_t)a->block_count[k] * in->frames;
        if (total != want)
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)at, comp_name[k],
                         "%u %s keys, but %u channels x %u frames need %llu", total, comp_name[k],
                         a->block_count[k], in->frames, (unsigned long long)want);
        v0_check_block(a, k, at + 4, total);
        amx_reader_skip(r, (size_t)total * elem);
    }
    if (a->game == MP1) {
        size_t at = amx_reader_tell(r);
        in->evnt_id = amx_read_u32be(r);
        if (r->err) {
            in->evnt_id = AMX_MP_NO_ASSET;
            amx__finding(d, AMX_C_TRUNCATED, (int64_t)at, "EVNT id",
                         "the file ends before the EVNT id");
        }
    }
    if (!r->err)
        mp_check_trailing(d, amx_reader_tell(r), "key arrays");

    /* channels: the animated bones in id order */
    in->channels = amx__array(d, animated, sizeof *in->channels);
    a->ctx = amx__array(d, animated, sizeof *a->ctx);
    if (!in->channels || !a->ctx)
        return;
    uint32_t n = 0;
    uint32_t chan_bone[256];
    for (uint32_t i = 0; i < 256; i++)
        chan_bone[i] = UINT32_MAX;
    for (uint32_t id = 0; id < nslots; id++) {
        if (slots[id] == 0xFF)
            continue;
        amx_mp_channel *c = &in->channels[n];
        c->bone_id = id;
        c->offset = 0x20 + (int64_t)id;
        in->channel_count = ++n;
        uint8_t ch = slots[id];
        if (chan_bone[ch] != UINT32_MAX)
            amx__finding(d, AMX_C_BAD_VALUE, c->offset, chan_ctx(a, n - 1),
                         "bones %u and %u share channel %u", chan_bone[ch], id, ch);
        else
            chan_bone[ch] = id;
        for (int k = 0; k < NCOMP; k++) {
            amx_mp_component *cp = comp_of(c, k);
            cp->block = -1;
        }
        if (ch >= nchan) {
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, c->offset, chan_ctx(a, n - 1),
                         "channel index %u is outside the %u channels", ch, nchan);
            continue;
        }
        for (int k = 0; k < NCOMP; k++) {
            amx_mp_component *cp = comp_of(c, k);
            uint32_t block;
            if (k == ROT && a->game == MP1)
                block = ch;
            else if (list[k] && ch < list_n[k])
                block = list[k][ch];
            else
                continue;
            if (block == 0xFF)
                continue;
            if (block >= a->block_count[k]) {
                amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)list_at[k] + 4 + ch,
                             chan_ctx(a, n - 1), "%s block %u is outside the %u %s blocks",
                             comp_name[k], block, a->block_count[k], comp_name[k]);
                continue;
            }
            cp->present = true;
            cp->block = (int32_t)block;
            cp->key_count = in->frames;
        }
    }
    if (!make_tracks(a))
        return;
    if (d->opts->samples && !d->out_of_memory && !d->fatal)
        v0_samples(a);
}

void amx__mp_anim_decode(amx_dec *d)
{
    amx_reader *r = &d->r;
    const uint8_t *p = r->base;
    size_t len = r->end;
    uint32_t format = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header", "the file has %zu bytes; an ANIM starts with "
                   "a u32 format", len);
        return;
    }
    if (format == ANIM_METAFORCE_PC) {
        amx__fatal(d, AMX_C_UNSUPPORTED, 0, "header",
                   "ANIM format 3 (metaforce's PC format, not on disc) is not decoded");
        return;
    }
    if (format != ANIM_UNCOMPRESSED && format != ANIM_COMPRESSED) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, "header",
                   "unknown ANIM format %u (0 uncompressed, 2 compressed)", format);
        return;
    }
    uint64_t e1 = 0, e2 = 0;
    bool fit1, fit2;
    int heuristic;
    scan_result s1, s2;
    if (format == ANIM_COMPRESSED) {
        s1 = v2_scan(p, len, MP1, &e1);
        s2 = v2_scan(p, len, MP2, &e2);
        heuristic = len >= 10 && (p[8] << 8 | p[9]) == MP2_V2_MARKER ? MP2 : MP1;
    } else {
        s1 = v0_scan(p, len, MP1, &e1);
        s2 = v0_scan(p, len, MP2, &e2);
        heuristic = v0_heuristic(p, len);
    }
    fit1 = fits(s1, e1, p, len);
    fit2 = fits(s2, e2, p, len);
    anim a = { .d = d };
    a.game = mp_choose_game(d, fit1, fit2, heuristic, format == ANIM_COMPRESSED ? "ANIM format-2"
                                                                                : "ANIM format-0");
    amx_mp_info *mp = mp_info(d);
    a.info = amx__alloc(d, sizeof *a.info);
    a.clip = amx__alloc(d, sizeof *a.clip);
    if (!mp || !a.info || !a.clip)
        return;
    mp->anim = a.info;
    a.info->format = format;
    d->asset->version = format == ANIM_COMPRESSED ? (a.game == MP1 ? "mp1-v2" : "mp2-v2")
                                                  : (a.game == MP1 ? "mp1-v0" : "mp2-v0");
    d->asset->clips = a.clip;
    d->asset->clip_count = 1;
    char stem[256];
    amx_path_stem(d->opts->file_name ? d->opts->file_name : "", stem, sizeof stem);
    a.clip->name = amx__strdup(d, stem);
    a.clip->skeleton = NULL; /* bound through ANCS character sets by the index */
    a.clip->has_frames = true;
    a.info->bitstream_offset = -1;
    if (format == ANIM_COMPRESSED)
        v2_decode(&a);
    else
        v0_decode(&a);
    /* the index checks the root bone against the skeleton like a channel's bone */
    if (a.info->root_bone_id <= INT32_MAX) {
        a.clip->has_root_bone = true;
        a.clip->root_bone = (int32_t)a.info->root_bone_id;
    }
}
