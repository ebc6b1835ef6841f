/* Unit tests for the Metroid Prime decoders (lib/format/mp_*.c), the bit reader
 * (lib/format/bitreader.h) and the MP writers (tests/writer/mp_writer.c). */
#include "test.h"
#include "bitreader.h"
#include "buf.h"
#include "check_asset.h"
#include "decoder.h"
#include "mp_writer.h"
#include "animidx/mp.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- helpers ---- */

static amx_asset *decode_opts(const uint8_t *p, size_t n, amx_format fmt, const char *game,
                              bool samples)
{
    amx_decode_opts o = { .samples = samples, .format = fmt, .game = game,
                          .file_name = "x/0A1B2C3D.BIN" };
    return test_decode(p, n, &o);
}

/* Probing (no format given), with samples. */
static amx_asset *decode(const amxw_buf *b) { return decode_opts(b->data, b->len, AMX_FMT_UNKNOWN, NULL, true); }

/* Forced format: broken variants the probe may not take. */
static amx_asset *decode_as(const amxw_buf *b, amx_format fmt)
{
    return decode_opts(b->data, b->len, fmt, NULL, true);
}

static const char *context_of(const amx_asset *a, amx_code code)
{
    const amx_finding *f = test_find(a, code, TEST_ANY_OFFSET);
    return f ? f->context : "(none)";
}

static uint32_t rng_state;
static int32_t rnd(int32_t lo, int32_t hi)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (int32_t)((rng_state >> 8) % (uint32_t)(hi - lo + 1));
}

/* ---- bit reader ---- */

static void test_bitreader(void)
{
    /* words 0x000000F5, 0x80000001 (big-endian bytes) */
    static const uint8_t d[] = { 0x00, 0x00, 0x00, 0xF5, 0x80, 0x00, 0x00, 0x01, 0xAA };
    amx_bits b;
    amx_bits_init(&b, d, 8);
    CHECK_EQ(amx_bits_get(&b, 1), 1);      /* LSB of 0xF5 first */
    CHECK_EQ(amx_bits_get(&b, 2), 2);      /* bits 1..2 of 0xF5 = 0b10 */
    CHECK_EQ(amx_bits_get(&b, 5), 0x1E);   /* bits 3..7 = 0b11110 */
    CHECK_EQ(amx_bits_pos(&b), 8);
    CHECK_EQ(amx_bits_get(&b, 23), 0);     /* bits 8..30 */
    /* bit 31 of word 0 (0), then bit 0 of word 1 (1): a field across the boundary */
    CHECK_EQ(amx_bits_get(&b, 2), 2);
    CHECK_EQ(amx_bits_get(&b, 30), 0);     /* bits 1..30 of 0x80000001 */
    CHECK_EQ(amx_bits_get(&b, 1), 1);      /* its bit 31 */
    CHECK(!b.err);
    CHECK_EQ(amx_bits_get(&b, 1), 0);      /* past the end: zero, err */
    CHECK(b.err);

    /* signed fields */
    static const uint8_t s[] = { 0x00, 0x00, 0x00, 0x1F };
    amx_bits_init(&b, s, 4);
    CHECK_EQ(amx_bits_get_signed(&b, 3), -1);   /* 0b111 */
    CHECK_EQ(amx_bits_get_signed(&b, 3), 3);    /* 0b011 */
    CHECK_EQ(amx_bits_get_signed(&b, 2), 0);
    amx_bits_init(&b, s, 4);
    CHECK_EQ(amx_bits_get(&b, 32), 0x1F);
    CHECK(!b.err);
    static const uint8_t m[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00 };
    amx_bits_init(&b, m, 8);
    CHECK_EQ(amx_bits_get_signed(&b, 32), -1);
    CHECK_EQ(amx_bits_get_signed(&b, 32), INT32_MIN);
    /* a partial trailing word is never read */
    amx_bits_init(&b, d + 4, 5);
    CHECK_EQ(amx_bits_get(&b, 32), 0x80000001u);
    CHECK_EQ(amx_bits_get(&b, 8), 0);
    CHECK(b.err);
    /* empty data, and a read running off the end keeps what was there */
    amx_bits_init(&b, d, 0);
    CHECK_EQ(amx_bits_get(&b, 32), 0);
    CHECK(b.err);
    amx_bits_init(&b, s, 4);
    amx_bits_get(&b, 30);
    CHECK_EQ(amx_bits_get(&b, 4), 0); /* bits 30, 31 of 0x1F are 0, then zeros */
    CHECK(b.err);
    amx_bits_init(&b, d, 4);
    amx_bits_get(&b, 30);
    CHECK_EQ(amx_bits_get(&b, 3), 0);
    /* align */
    amx_bits_init(&b, d, 8);
    amx_bits_get(&b, 3);
    amx_bits_align(&b);
    CHECK_EQ(amx_bits_pos(&b), 32);
    CHECK_EQ(amx_bits_get(&b, 1), 1);
    CHECK(!b.err);
}

/* ---- ANIM format 2: samples ---- */

enum { NF = 23, MAXK = NF };

typedef struct v2_case {
    uint8_t keyed[NF];
    uint32_t keys;
    int32_t rot[4][(MAXK + 1) * 3], trans[4][(MAXK + 1) * 3], scale[4][(MAXK + 1) * 3];
    uint8_t wneg[4][MAXK + 1];
    amxw_mp_v2_channel ch[4];
    amxw_mp_anim_spec s;
} v2_case;

static void walk(int32_t *v, uint32_t n, int32_t init, int32_t step, int32_t lim)
{
    for (uint32_t j = 0; j <= n; j++)
        for (int e = 0; e < 3; e++) {
            int32_t x = j == 0 ? init * (e + 1) / 2 : v[3 * (j - 1) + e] + rnd(-step, step);
            if (x > lim)
                x = lim;
            if (x < -lim)
                x = -lim;
            v[3 * j + e] = x;
        }
}

/* MP1: bone 3 rot+trans (trans x in 32-bit fields), bone 4 rot (W negative at some keys),
 * bone 7 rot+trans (constant translation: 0-bit deltas). MP2: bone 3 rot+trans+scale, bone 4
 * rot, bone 7 trans, bone 8 scale. Frames 21 and 22 are not keyed (held). */
static void v2_spec(v2_case *c, int game)
{
    memset(c, 0, sizeof *c);
    rng_state = 12345u + (uint32_t)game;
    for (uint32_t f = 0; f < NF; f++)
        c->keyed[f] = f == 0 || ((f % 3 == 0 || f % 5 == 4) && f < 21);
    for (uint32_t f = 1; f < NF; f++)
        c->keys += c->keyed[f];
    for (int i = 0; i < 4; i++) {
        walk(c->rot[i], c->keys, 300 * (i + 1), 150, 2000);
        walk(c->trans[i], c->keys, -700 * (i + 1), 400, 30000);
        walk(c->scale[i], c->keys, 4096, 64, 8000);
        for (uint32_t j = 1; j <= c->keys; j++)
            c->wneg[i][j] = i == 1 && j % 3 == 2;
    }
    for (uint32_t j = 0; j <= c->keys; j++)
        for (int e = 0; e < 3; e++)
            c->trans[2][3 * j + e] = c->trans[2][e]; /* constant */
    if (game == 1) {
        c->ch[0] = (amxw_mp_v2_channel){ .bone_id = 3, .rot = c->rot[0], .trans = c->trans[0] };
        c->ch[0].bits[1][0] = 32;
        c->ch[1] = (amxw_mp_v2_channel){ .bone_id = 4, .rot = c->rot[1], .rot_wneg = c->wneg[1] };
        c->ch[2] = (amxw_mp_v2_channel){ .bone_id = 7, .rot = c->rot[2], .trans = c->trans[2] };
    } else {
        c->ch[0] = (amxw_mp_v2_channel){ .bone_id = 3, .rot = c->rot[0], .trans = c->trans[0],
                                         .scale = c->scale[0] };
        c->ch[0].bits[1][0] = 32;
        c->ch[1] = (amxw_mp_v2_channel){ .bone_id = 4, .rot = c->rot[1], .rot_wneg = c->wneg[1] };
        c->ch[2] = (amxw_mp_v2_channel){ .bone_id = 7, .trans = c->trans[2] };
        c->ch[3] = (amxw_mp_v2_channel){ .bone_id = 8, .scale = c->scale[3] };
    }
    c->s = (amxw_mp_anim_spec){
        .game = game, .format = 2, .interval = 1.0f / 30.0f, .root_bone_id = 3, .frames = NF,
        .evnt_id = 0x12345678u, .keyed = c->keyed, .rot_divisor = 8192,
        .translation_mult = 0.01f, .scale_mult = 1.0f / 4096.0f, .looping = 1,
        .scratch_size = 1000, .v2 = c->ch, .channel_count = game == 1 ? 3 : 4,
    };
}

static void exp_rot(const int32_t *v, bool neg, uint32_t div, double out[4])
{
    double m = (M_PI / 2.0) / (double)div;
    double x = sin(v[0] * m), y = sin(v[1] * m), z = sin(v[2] * m);
    double w = sqrt(fmax(0.0, 1.0 - x * x - y * y - z * z));
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = neg ? -w : w;
}

static void test_slerp(const double *a, const double *b, double t, double *out)
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], bb[4];
    for (int k = 0; k < 4; k++)
        bb[k] = d < 0 ? -b[k] : b[k];
    d = fabs(d);
    double wa = 1 - t, wb = t;
    if (d < 0.9995) {
        double th = acos(d);
        wa = sin((1 - t) * th) / sin(th);
        wb = sin(t * th) / sin(th);
    }
    double n = 0;
    for (int k = 0; k < 4; k++) {
        out[k] = wa * a[k] + wb * bb[k];
        n += out[k] * out[k];
    }
    for (int k = 0; k < 4; k++)
        out[k] /= sqrt(n);
}

/* Expected value of a component (0 rot, 1 trans, 2 scale) of channel i at frame f. */
static void v2_expected(const v2_case *c, int i, int k, uint32_t f, double out[4])
{
    const amxw_mp_v2_channel *ch = &c->ch[i];
    const int32_t *v = k == 0 ? ch->rot : k == 1 ? ch->trans : ch->scale;
    /* keyed frames around f */
    uint32_t kf[NF], nk = 0, a = 0, b = 0, ja = 0, jb = 0;
    for (uint32_t g = 0; g < NF; g++)
        if (g == 0 || c->keyed[g])
            kf[nk++] = g;
    for (uint32_t j = 0; j < nk; j++)
        if (kf[j] <= f) {
            a = kf[j];
            ja = j;
        }
    b = a;
    jb = ja;
    if (ja + 1 < nk) {
        b = kf[ja + 1];
        jb = ja + 1;
    }
    double t = b > a ? (double)(f - a) / (double)(b - a) : 0.0;
    if (k == 0) {
        double qa[4], qb[4];
        exp_rot(v + 3 * ja, ch->rot_wneg && ch->rot_wneg[ja] && ja, c->s.rot_divisor, qa);
        exp_rot(v + 3 * jb, ch->rot_wneg && ch->rot_wneg[jb] && jb, c->s.rot_divisor, qb);
        if (f == a)
            memcpy(out, qa, sizeof qa);
        else
            test_slerp(qa, qb, t, out);
        return;
    }
    double mult = k == 1 ? c->s.translation_mult : c->s.scale_mult;
    for (int e = 0; e < 3; e++) {
        double va = v[3 * ja + e] * mult, vb = v[3 * jb + e] * mult;
        out[e] = va + (vb - va) * t;
    }
}

static void check_v2(const amx_asset *a, const v2_case *c)
{
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        return;
    const amx_clip *clip = &a->clips[0];
    CHECK(clip->has_frames);
    CHECK_EQ(clip->frames, NF);
    CHECK_NEAR(clip->fps, 30.0, 1e-3);
    CHECK_NEAR(clip->duration, (NF - 1) / 30.0, 1e-6);
    CHECK_EQ(clip->track_count, c->s.channel_count);
    CHECK(clip->has_samples);
    if (clip->track_count != c->s.channel_count || !clip->has_samples)
        return;
    for (uint32_t i = 0; i < c->s.channel_count; i++) {
        const amx_track *t = &clip->tracks[i];
        const amxw_mp_v2_channel *ch = &c->ch[i];
        CHECK(t->bone == NULL);
        CHECK_EQ(t->bone_index, ch->bone_id);
        uint32_t flags = (ch->rot ? AMX_CH_ROTATION : 0u) | (ch->trans ? AMX_CH_TRANSLATION : 0u) |
                         (ch->scale ? AMX_CH_SCALE : 0u);
        CHECK_EQ(t->channels, flags);
        int bad = 0;
        for (uint32_t f = 0; f < NF && bad < 3; f++) {
            int before = test_failed_checks;
            double tol = (f == 0 || c->keyed[f]) ? 1e-5 : 1e-4;
            double e[4];
            if (ch->rot) {
                v2_expected(c, (int)i, 0, f, e);
                for (int k = 0; k < 4; k++)
                    CHECK_NEAR(t->rotation[4 * f + k], e[k], tol);
            } else {
                CHECK(t->rotation[4 * f + 3] == 1.0f && t->rotation[4 * f] == 0.0f);
            }
            if (ch->trans) {
                v2_expected(c, (int)i, 1, f, e);
                for (int k = 0; k < 3; k++)
                    CHECK_NEAR(t->translation[3 * f + k], e[k], tol * 100);
            } else {
                CHECK(t->translation[3 * f] == 0.0f);
            }
            if (ch->scale) {
                v2_expected(c, (int)i, 2, f, e);
                for (int k = 0; k < 3; k++)
                    CHECK_NEAR(t->scale[3 * f + k], e[k], tol);
            } else {
                CHECK(t->scale[3 * f + 1] == 1.0f);
            }
            CHECK_EQ(t->visibility[f], 1);
            if (test_failed_checks != before) {
                printf("# ... at channel %u frame %u\n", i, f);
                bad++;
            }
        }
    }
}

static void test_v2_decode(void)
{
    for (int game = 1; game <= 2; game++) {
        v2_case c;
        v2_spec(&c, game);
        amxw_buf b = { 0 };
        amxw_mp_anim_layout lay;
        amxw_mp_anim(&b, &c.s, &lay);
        CHECK_EQ(lay.keys, c.keys);
        CHECK_EQ(lay.stream_bytes, (lay.bits_per_key * lay.keys + 31) / 32 * 4);
        CHECK(amx__mp_anim_probe(b.data, b.len));
        CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MP_ANIM);
        amx_asset *a = decode(&b);
        CHECK_EQ(a->format, AMX_FMT_MP_ANIM);
        CHECK_CLEAN(a);
        CHECK_STR(a->version, game == 1 ? "mp1-v2" : "mp2-v2");
        check_v2(a, &c);
        const amx_mp_info *mp = a->mp;
        CHECK(mp != NULL && mp->anim != NULL);
        if (mp && mp->anim) {
            const amx_mp_anim *in = mp->anim;
            CHECK_STR(mp->game, game == 1 ? "mp1" : "mp2");
            CHECK_EQ(mp->game_source, AMX_MP_GAME_STRUCTURE);
            CHECK_EQ(in->format, 2);
            CHECK_EQ(in->root_bone_id, 3);
            CHECK_EQ(in->frames, NF);
            CHECK_EQ(in->stored_keys, c.keys);
            CHECK_EQ(in->rot_divisor, 8192);
            CHECK_EQ(in->looping, 1);
            CHECK_EQ(in->scratch_size, 1000);
            CHECK(in->translation_mult == 0.01f);
            CHECK(in->scale_mult == (game == 1 ? 0.0f : 1.0f / 4096.0f));
            CHECK_EQ(in->evnt_id, game == 1 ? 0x12345678u : AMX_MP_NO_ASSET);
            CHECK_EQ(in->bits_per_key, lay.bits_per_key);
            CHECK_EQ(in->bitstream_offset, lay.stream);
            CHECK_EQ(in->bitstream_bytes, lay.stream_bytes);
            CHECK_EQ(in->channel_count, c.s.channel_count);
            CHECK_EQ(in->key_bitmap[0] & 0x1F, 0x19); /* frames 0, 3, 4 of 0..4 */
            for (uint32_t i = 0; i < in->channel_count && i < 4; i++) {
                const amx_mp_channel *ch = &in->channels[i];
                CHECK_EQ(ch->bone_id, c.ch[i].bone_id);
                CHECK_EQ(ch->offset, lay.desc[i]);
                CHECK_EQ(a->clips[0].tracks[i].offset, lay.desc[i]);
                CHECK_EQ(ch->rotation.present, c.ch[i].rot != NULL);
                CHECK_EQ(ch->translation.present, c.ch[i].trans != NULL);
                CHECK_EQ(ch->scale.present, c.ch[i].scale != NULL);
                if (c.ch[i].rot) {
                    CHECK_EQ(ch->rotation.key_count, c.keys);
                    CHECK_EQ(ch->rotation.init[1], c.ch[i].rot[1]);
                }
                if (c.ch[i].trans)
                    CHECK_EQ(ch->translation.init[2], c.ch[i].trans[2]);
            }
            CHECK_EQ(in->channels[0].translation.bits[0], 32);
            CHECK_EQ(in->channels[game == 1 ? 2 : 2].translation.bits[1], 0); /* constant */
        }
        /* spot check written out by hand: channel 1 frame 0 */
        double m = (M_PI / 2.0) / 8192.0;
        CHECK_NEAR(a->clips[0].tracks[1].rotation[0], sin(c.rot[1][0] * m), 1e-6);
        CHECK(a->clips[0].tracks[1].rotation[3] > 0.0f);
        amx_asset_free(a);

        /* without samples */
        a = decode_opts(b.data, b.len, AMX_FMT_UNKNOWN, NULL, false);
        CHECK_CLEAN(a);
        CHECK(!a->clips[0].has_samples);
        CHECK(a->clips[0].tracks[0].rotation == NULL);
        CHECK_STR(a->clips[0].name, "0A1B2C3D");
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

/* Every frame keyed, and a single frame. */
static void test_v2_edges(void)
{
    v2_case c;
    v2_spec(&c, 2);
    memset(c.keyed, 1, sizeof c.keyed);
    c.keys = NF - 1;
    walk(c.rot[0], c.keys, 300, 150, 2000);
    amxw_buf b = { 0 };
    amxw_mp_anim(&b, &c.s, NULL);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    check_v2(a, &c);
    amx_asset_free(a);
    amxw_buf_free(&b);

    v2_spec(&c, 1);
    c.s.frames = 1;
    c.keys = 0;
    amxw_mp_anim(&b, &c.s, NULL);
    a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_EQ(a->clips[0].frames, 1);
    CHECK(a->clips[0].has_samples);
    CHECK_EQ(a->clips[0].track_count, 3);
    CHECK_EQ(a->clips[0].tracks[0].channels, 0); /* no keys: nothing animated */
    CHECK(a->clips[0].tracks[0].rotation[3] == 1.0f);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- ANIM format 0 ---- */

enum { V0F = 5 };

typedef struct v0_case {
    float rot[4][V0F * 4], trans[4][V0F * 3], scale[4][V0F * 3];
    amxw_mp_v0_channel ch[4];
    amxw_mp_anim_spec s;
} v0_case;

static void v0_spec(v0_case *c, int game)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 4; i++)
        for (int f = 0; f < V0F; f++) {
            float ang = 0.1f * (float)(f + i);
            c->rot[i][4 * f] = cosf(ang);          /* W */
            c->rot[i][4 * f + 1] = sinf(ang);      /* X */
            c->rot[i][4 * f + 2] = 0.0f;
            c->rot[i][4 * f + 3] = 0.0f;
            for (int e = 0; e < 3; e++) {
                c->trans[i][3 * f + e] = (float)(i * 10 + f) + 0.25f * (float)e;
                c->scale[i][3 * f + e] = 1.0f + 0.01f * (float)(f + e);
            }
        }
    if (game == 1) {
        c->ch[0] = (amxw_mp_v0_channel){ .bone_id = 0, .rot = c->rot[0], .trans = c->trans[0] };
        c->ch[1] = (amxw_mp_v0_channel){ .bone_id = 2, .rot = c->rot[1] };
        c->ch[2] = (amxw_mp_v0_channel){ .bone_id = 5, .rot = c->rot[2], .trans = c->trans[2] };
    } else {
        c->ch[0] = (amxw_mp_v0_channel){ .bone_id = 0, .rot = c->rot[0], .trans = c->trans[0],
                                         .scale = c->scale[0] };
        c->ch[1] = (amxw_mp_v0_channel){ .bone_id = 2, .rot = c->rot[1] };
        c->ch[2] = (amxw_mp_v0_channel){ .bone_id = 5, .scale = c->scale[2] };
        c->ch[3] = (amxw_mp_v0_channel){ .bone_id = 6, .trans = c->trans[3] };
    }
    c->s = (amxw_mp_anim_spec){ .game = game, .format = 0, .interval = 0.05f, .root_bone_id = 0,
                                .frames = V0F, .evnt_id = 0xCAFE0001u, .v0 = c->ch,
                                .channel_count = game == 1 ? 3 : 4 };
}

static void check_v0(const amx_asset *a, const v0_case *c)
{
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        return;
    const amx_clip *clip = &a->clips[0];
    CHECK_EQ(clip->frames, V0F);
    CHECK_NEAR(clip->fps, 20.0, 1e-4);
    CHECK_NEAR(clip->duration, 0.2, 1e-6);
    CHECK_EQ(clip->track_count, c->s.channel_count);
    CHECK(clip->has_samples);
    if (clip->track_count != c->s.channel_count || !clip->has_samples)
        return;
    for (uint32_t i = 0; i < c->s.channel_count; i++) {
        const amx_track *t = &clip->tracks[i];
        const amxw_mp_v0_channel *ch = &c->ch[i];
        CHECK_EQ(t->bone_index, ch->bone_id);
        CHECK_EQ(t->offset, 0x20 + ch->bone_id);
        uint32_t flags = (ch->rot ? AMX_CH_ROTATION : 0u) | (ch->trans ? AMX_CH_TRANSLATION : 0u) |
                         (ch->scale ? AMX_CH_SCALE : 0u);
        CHECK_EQ(t->channels, flags);
        for (uint32_t f = 0; f < V0F; f++) {
            for (int k = 0; k < 4; k++) {
                /* x,y,z,w from W,X,Y,Z */
                float e = ch->rot ? ch->rot[4 * f + (k + 1) % 4] : (k == 3 ? 1.0f : 0.0f);
                CHECK(t->rotation[4 * f + k] == e);
            }
            for (int k = 0; k < 3; k++) {
                CHECK(t->translation[3 * f + k] == (ch->trans ? ch->trans[3 * f + k] : 0.0f));
                CHECK(t->scale[3 * f + k] == (ch->scale ? ch->scale[3 * f + k] : 1.0f));
            }
        }
    }
}

static void test_v0_decode(void)
{
    for (int game = 1; game <= 2; game++) {
        v0_case c;
        v0_spec(&c, game);
        amxw_buf b = { 0 };
        amxw_mp_anim_layout lay;
        amxw_mp_anim(&b, &c.s, &lay);
        CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MP_ANIM);
        amx_asset *a = decode(&b);
        CHECK_CLEAN(a);
        CHECK_STR(a->version, game == 1 ? "mp1-v0" : "mp2-v0");
        check_v0(a, &c);
        CHECK_EQ(a->mp->game_source, AMX_MP_GAME_STRUCTURE);
        const amx_mp_anim *in = a->mp->anim;
        CHECK_EQ(in->format, 0);
        CHECK_EQ(in->frames, V0F);
        CHECK_EQ(in->evnt_id, game == 1 ? 0xCAFE0001u : AMX_MP_NO_ASSET);
        CHECK_EQ(in->channel_count, c.s.channel_count);
        CHECK_EQ(in->channels[2].bone_id, 5);
        if (game == 1) {
            CHECK_EQ(in->channels[2].rotation.block, 2);
            CHECK_EQ(in->channels[2].translation.block, 1);
            CHECK_EQ(in->channels[1].translation.block, -1);
        } else {
            CHECK_EQ(in->channels[2].scale.block, 1);
            CHECK_EQ(in->channels[3].translation.block, 1);
            CHECK(!in->channels[3].rotation.present);
        }
        amx_asset_free(a);

        /* zero padding to 32 bytes (a resource taken out of a PAK) is not trailing data */
        while (b.len % 32)
            amxw_u8(&b, 0);
        a = decode(&b);
        CHECK_CLEAN(a);
        CHECK_STR(a->version, game == 1 ? "mp1-v0" : "mp2-v0");
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

/* ---- game detection and the hint ---- */

static void test_game_hint(void)
{
    v2_case c;
    v2_spec(&c, 2);
    amxw_buf b = { 0 };
    amxw_mp_anim(&b, &c.s, NULL);
    amx_asset *a = decode_opts(b.data, b.len, AMX_FMT_UNKNOWN, "mp2", true);
    CHECK_CLEAN(a);
    CHECK_EQ(a->mp->game_source, AMX_MP_GAME_HINT);
    CHECK_STR(a->mp->game, "mp2");
    check_v2(a, &c);
    amx_asset_free(a);
    /* the wrong hint is honoured, and said to disagree with the structure */
    a = decode_opts(b.data, b.len, AMX_FMT_UNKNOWN, "MP1", true);
    CHECK_EQ(a->mp->game_source, AMX_MP_GAME_HINT);
    CHECK_STR(a->version, "mp1-v2");
    CHECK_FINDING(a, AMX_C_BAD_VALUE, -1);
    amx_asset_free(a);
    /* an unknown setting is ignored */
    a = decode_opts(b.data, b.len, AMX_FMT_UNKNOWN, "prime3", true);
    CHECK_EQ(a->mp->game_source, AMX_MP_GAME_STRUCTURE);
    CHECK_STR(a->version, "mp2-v2");
    CHECK_FINDING(a, AMX_C_BAD_VALUE, -1);
    amx_asset_free(a);
    /* neither layout fits (trailing bytes): the 0x0101 heuristic */
    amxw_u32be(&b, 0xDEADBEEF);
    a = decode(&b);
    CHECK_EQ(a->mp->game_source, AMX_MP_GAME_HEURISTIC);
    CHECK_STR(a->version, "mp2-v2");
    CHECK_FINDING(a, AMX_C_TRAILING_DATA, b.len - 4);
    amx_asset_free(a);
    amxw_buf_free(&b);

    v0_case c0;
    v0_spec(&c0, 1);
    amxw_mp_anim(&b, &c0.s, NULL);
    a = decode_opts(b.data, b.len, AMX_FMT_UNKNOWN, "mp2", true);
    CHECK_STR(a->version, "mp2-v0");
    CHECK(a->finding_count > 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- ANIM broken variants ---- */

static void test_v2_broken(void)
{
    for (int game = 1; game <= 2; game++) {
        v2_case c;
        v2_spec(&c, game);
        amxw_buf b = { 0 };
        amxw_mp_anim_layout lay;
        amxw_mp_anim(&b, &c.s, &lay);
        amx_asset *a;

        /* channel count vs the count before the descriptors */
        amxw_mp_put_u32(&b, lay.count_again, 2);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.count_again);
        CHECK_STR(a->version, game == 1 ? "mp1-v2" : "mp2-v2");
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.count_again, c.s.channel_count);

        /* a key count vs the bitmap */
        size_t count_at = lay.desc[1] + (game == 1 ? 4 : 1);
        amxw_mp_put_u16(&b, count_at, (uint16_t)(c.keys + 1));
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, count_at);
        CHECK_STR(context_of(a, AMX_C_COUNT_MISMATCH), "channel 1 (bone 4)");
        amx_asset_free(a);
        amxw_mp_put_u16(&b, count_at, (uint16_t)c.keys);

        /* zero interval; non-finite duration; duration vs frames; rotation divisor 0 */
        amxw_mp_put_f32(&b, lay.interval, 0.0f);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.interval);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK(a->clips[0].fps == 0.0f);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, lay.interval, 1.0f / 30.0f);
        amxw_mp_put_f32(&b, lay.duration, NAN);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.duration);
        CHECK(a->clips[0].duration == 0.0);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, lay.duration, 100.0f);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.duration);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, lay.duration, (float)NF / 30.0f); /* frames x interval: accepted */
        a = decode(&b);
        CHECK_CLEAN(a);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, lay.duration, (float)(NF - 1) / 30.0f);
        amxw_mp_put_u32(&b, lay.rot_divisor, 0);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.rot_divisor);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK(a->clips[0].tracks[0].rotation[4 * 5 + 3] == 1.0f);
        CHECK(a->clips[0].has_samples);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.rot_divisor, 8192);
        amxw_mp_put_f32(&b, lay.trans_mult, INFINITY);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.trans_mult);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, lay.trans_mult, 0.01f);

        /* root bone id, bone ids, duplicate bones, bit widths */
        amxw_mp_put_u32(&b, lay.root, 150);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.root);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.root, 3);
        if (game == 1)
            amxw_mp_put_u32(&b, lay.desc[2], 120);
        else
            b.data[lay.desc[2]] = 120;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.desc[2]);
        CHECK_EQ(a->clips[0].tracks[2].bone_index, 120);
        amx_asset_free(a);
        if (game == 1)
            amxw_mp_put_u32(&b, lay.desc[2], 3);
        else
            b.data[lay.desc[2]] = 3;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.desc[2]);
        amx_asset_free(a);
        if (game == 1)
            amxw_mp_put_u32(&b, lay.desc[2], 7);
        else
            b.data[lay.desc[2]] = 7;
        size_t bits_at = lay.desc[1] + (game == 1 ? 4 : 1) + 2 + 2; /* rotation x bits */
        uint8_t old_bits = b.data[bits_at];
        b.data[bits_at] = 40;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, bits_at);
        CHECK(!a->clips[0].has_samples);
        amx_asset_free(a);
        b.data[bits_at] = old_bits;

        /* the bitstream: short (the reader stops at the data), long */
        a = decode_opts(b.data, b.len - 4, AMX_FMT_MP_ANIM, NULL, true);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.stream);
        CHECK(a->clips[0].has_samples);
        amx_asset_free(a);
        amxw_u32be(&b, 0x01020304);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_TRAILING_DATA, lay.stream + lay.stream_bytes);
        amx_asset_free(a);
        b.len -= 4;

        /* the bitmap runs off the file */
        amxw_mp_put_u32(&b, lay.frames, 0x10000000);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_TRUNCATED, lay.bitmap);
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.frames, NF);

        /* frame 0 not keyed */
        b.data[lay.bitmap + 3] &= 0xFE;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bitmap);
        amx_asset_free(a);
        b.data[lay.bitmap + 3] |= 1;

        /* cut inside the descriptors */
        a = decode_opts(b.data, lay.desc[1] + 3, AMX_FMT_MP_ANIM, NULL, true);
        CHECK_FINDING(a, AMX_C_TRUNCATED, lay.desc[1]);
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
    /* formats */
    static const uint8_t fmt3[64] = { 0, 0, 0, 3 }, fmt7[64] = { 0, 0, 0, 7 };
    amx_asset *a = decode_opts(fmt3, sizeof fmt3, AMX_FMT_MP_ANIM, NULL, true);
    CHECK_FINDING(a, AMX_C_UNSUPPORTED, 0);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
    a = decode_opts(fmt7, sizeof fmt7, AMX_FMT_MP_ANIM, NULL, true);
    CHECK_FINDING(a, AMX_C_BAD_MAGIC, 0);
    amx_asset_free(a);
    a = decode_opts(fmt7, 2, AMX_FMT_MP_ANIM, NULL, true);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    amx_asset_free(a);
}

static void test_v0_broken(void)
{
    for (int game = 1; game <= 2; game++) {
        v0_case c;
        v0_spec(&c, game);
        amxw_buf b = { 0 };
        amxw_mp_anim_layout lay;
        amxw_mp_anim(&b, &c.s, &lay);
        amx_asset *a;

        /* slot table of 99 entries */
        amxw_mp_put_u32(&b, lay.slots, 99);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.slots);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.slots, 100);

        /* a slot pointing past the channels */
        b.data[lay.slots + 4 + 5] = 50;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, 0x20 + 5);
        CHECK_STR(context_of(a, AMX_C_INDEX_OUT_OF_RANGE), "bone 5 (channel 2)");
        amx_asset_free(a);
        b.data[lay.slots + 4 + 5] = 2;

        /* two bones on one channel */
        b.data[lay.slots + 4 + 9] = 1;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, 0x20 + 9);
        amx_asset_free(a);
        b.data[lay.slots + 4 + 9] = 0xFF;

        /* a translation index past the blocks */
        size_t idx_at = lay.list[1] + 4 + 0;
        b.data[idx_at] = 9;
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, idx_at);
        amx_asset_free(a);
        b.data[idx_at] = 0;

        /* index list count vs animated bones */
        amxw_mp_put_u32(&b, lay.list[1], c.s.channel_count + 1);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.list[1]);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.list[1], c.s.channel_count);

        /* key array size vs KeyCount x channels */
        uint32_t total = (uint32_t)(game == 1 ? 3 : 2) * V0F;
        amxw_mp_put_u32(&b, lay.block[0], total - 1);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.block[0]);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.block[0], 0x0FFFFFFF);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_TRUNCATED, lay.block[0]);
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.block[0], total);

        /* a NaN key: a finding, the rest value in the samples */
        size_t nan_at = lay.block[0] + 4 + 16 * (V0F + 2) + 4; /* channel 1, frame 2, X */
        amxw_mp_put_f32(&b, nan_at, NAN);
        a = decode(&b);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, nan_at);
        CHECK(a->clips[0].tracks[1].rotation[4 * 2 + 3] == 1.0f);
        CHECK(a->clips[0].tracks[1].rotation[4 * 3 + 3] == c.rot[1][4 * 3]);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, nan_at, c.rot[1][4 * 2 + 1]);

        /* interval 0 */
        amxw_mp_put_f32(&b, lay.interval, 0.0f);
        a = decode(&b);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.interval);
        amx_asset_free(a);
        amxw_mp_put_f32(&b, lay.interval, 0.05f);

        /* trailing data; the MP1 EVNT id cut off */
        amxw_u32be(&b, 0x11111111);
        a = decode_as(&b, AMX_FMT_MP_ANIM);
        CHECK_FINDING(a, AMX_C_TRAILING_DATA, b.len - 4);
        amx_asset_free(a);
        b.len -= 4;
        if (game == 1) {
            a = decode_opts(b.data, b.len - 4, AMX_FMT_MP_ANIM, "mp1", true);
            CHECK_FINDING(a, AMX_C_TRUNCATED, lay.evnt);
            CHECK(a->clips[0].has_samples);
            amx_asset_free(a);
        }
        amxw_buf_free(&b);
    }
}

/* ---- CINF ---- */

static const char *const bone_names[] = { "root", "spine", "head", "arm_l", "arm_r" };

/* Bones in file order: a child before its parent. */
static void cinf_spec(amxw_mp_bone bones[5], amxw_mp_cinf_spec *s, int game, uint32_t ids[5])
{
    static const uint32_t id[5] = { 0, 1, 2, 3, 4 };
    memset(bones, 0, 5 * sizeof *bones);
    bones[0] = (amxw_mp_bone){ .id = 2, .parent = 1, .pos = { 0, 0, 2.5f } };  /* head */
    bones[1] = (amxw_mp_bone){ .id = 0, .parent = 97, .pos = { 0, 0, 0 } };    /* root */
    bones[2] = (amxw_mp_bone){ .id = 1, .parent = 0, .pos = { 0, 0, 1.5f } };  /* spine */
    bones[3] = (amxw_mp_bone){ .id = 3, .parent = 1, .pos = { 0.5f, 0, 2 } };
    bones[4] = (amxw_mp_bone){ .id = 4, .parent = 1, .pos = { -0.5f, 0, 2 } };
    for (int i = 0; i < 5; i++) {
        bones[i].rot[0] = 1.0f;
        bones[i].lrot[0] = 1.0f;
        bones[i].rot[1] = 0.125f * (float)i;
    }
    memcpy(ids, id, sizeof id);
    *s = (amxw_mp_cinf_spec){ .game = game, .bones = bones, .bone_count = 5, .names = bone_names,
                              .name_ids = ids, .name_count = 5 };
}

static void test_cinf_decode(void)
{
    for (int game = 1; game <= 2; game++) {
        amxw_mp_bone bones[5];
        amxw_mp_cinf_spec s;
        uint32_t ids[5];
        cinf_spec(bones, &s, game, ids);
        amxw_buf b = { 0 };
        amxw_mp_cinf_layout lay;
        amxw_mp_cinf(&b, &s, &lay);
        CHECK(amx__mp_cinf_probe(b.data, b.len));
        CHECK(!amx__mp_anim_probe(b.data, b.len));
        CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MP_CINF);
        amx_asset *a = decode(&b);
        CHECK_EQ(a->format, AMX_FMT_MP_CINF);
        CHECK_CLEAN(a);
        CHECK_STR(a->version, game == 1 ? "mp1" : "mp2");
        CHECK_EQ(a->mp->game_source, AMX_MP_GAME_STRUCTURE);
        CHECK_EQ(a->skeleton_count, 1);
        const amx_skeleton *sk = &a->skeletons[0];
        CHECK_STR(sk->name, "0A1B2C3D");
        CHECK_EQ(sk->bone_count, 5);
        /* parents first: root, spine, head, arm_l, arm_r */
        static const char *const order[] = { "root", "spine", "head", "arm_l", "arm_r" };
        static const int32_t parents[] = { -1, 0, 1, 1, 1 };
        for (uint32_t i = 0; i < 5 && i < sk->bone_count; i++) {
            CHECK_STR(sk->bones[i].name, order[i]);
            CHECK_EQ(sk->bones[i].parent, parents[i]);
        }
        CHECK(sk->bones[2].matrix[11] == 2.5f && sk->bones[2].matrix[0] == 1.0f &&
              sk->bones[2].matrix[3] == 0.0f);
        CHECK(sk->bones[3].matrix[3] == 0.5f);
        const amx_mp_cinf *in = a->mp->cinf;
        CHECK_EQ(in->bone_count, 5);
        CHECK_EQ(in->bones[0].id, 2);
        CHECK_EQ(in->bones[0].parent_id, 1);
        CHECK_EQ(in->bones[0].skeleton_index, 2);
        CHECK_EQ(in->bones[0].offset, lay.bone[0]);
        CHECK_STR(in->bones[0].name, "head");
        CHECK_EQ(in->bones[2].linked_count, 4); /* spine: parent 0, children 2, 3, 4 */
        CHECK_EQ(in->bones[2].linked[0], 0);
        CHECK_EQ(in->bones[2].linked[3], 4);
        CHECK_EQ(in->bones[1].linked_count, 1);
        CHECK(in->bones[4].position[0] == -0.5f);
        CHECK(in->bones[3].rotation[1] == (game == 2 ? 0.375f : 0.0f));
        CHECK(in->bones[3].local_rotation[0] == (game == 2 ? 1.0f : 0.0f));
        CHECK_EQ(in->build_order_count, 5);
        CHECK_EQ(in->build_order[1], 0);
        CHECK_EQ(in->name_count, 5);
        CHECK_STR(in->names[4].name, "arm_r");
        CHECK_EQ(in->names[4].bone_id, 4);
        amx_asset_free(a);
        /* the hint, matching */
        a = decode_opts(b.data, b.len, AMX_FMT_UNKNOWN, game == 1 ? "mp1" : "mp2", false);
        CHECK_CLEAN(a);
        CHECK_EQ(a->mp->game_source, AMX_MP_GAME_HINT);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

#define CINF_BROKEN(game, body) \
    amxw_mp_bone bones[5]; \
    amxw_mp_cinf_spec s; \
    uint32_t ids[5]; \
    amxw_buf b = { 0 }; \
    amxw_mp_cinf_layout lay; \
    amx_asset *a; \
    { \
        cinf_spec(bones, &s, game, ids); \
        body; \
        amxw_mp_cinf(&b, &s, &lay); \
        a = decode_as(&b, AMX_FMT_MP_CINF); \
    }

#define CINF_DONE() \
    do { \
        amx_asset_free(a); \
        amxw_buf_free(&b); \
    } while (0)

static void test_cinf_broken(void)
{
    for (int game = 1; game <= 2; game++) {
        {
            CINF_BROKEN(game, bones[0].parent = 42);
            CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.bone[0] + 4);
            CHECK_STR(context_of(a, AMX_C_INDEX_OUT_OF_RANGE), "bone 0 (id 2)");
            CHECK_EQ(a->skeletons[0].bones[0].parent, -1);
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, bones[3].parent = 97);
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bone[3] + 4);
            CHECK_STR(context_of(a, AMX_C_BAD_VALUE), "bone 3 (id 3)");
            CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, bones[1].parent = 2); /* root -> head -> spine -> root */
            CHECK_FINDING(a, AMX_C_BAD_VALUE, 0);            /* no root */
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bone[1] + 4); /* the loop, at each bone */
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bone[0] + 4);
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bone[2] + 4);
            CHECK_EQ(a->skeletons[0].bone_count, 5);
            CINF_DONE();
        }
        {
            static const uint32_t bad_linked[] = { 1, 77 };
            CINF_BROKEN(game, { bones[0].linked = bad_linked; bones[0].linked_count = 2; });
            CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.linked[0] + 4 + 4);
            CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.linked[0]);
            CINF_DONE();
        }
        {
            static const uint32_t none[1] = { 0 };
            CINF_BROKEN(game, { bones[0].linked = none; bones[0].linked_count = 0; });
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.linked[0]);
            CINF_DONE();
        }
        {
            static const uint32_t build[] = { 0, 1, 2, 3 };
            CINF_BROKEN(game, { s.build_order = build; s.build_count = 4; });
            CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.build);
            CINF_DONE();
        }
        {
            static const uint32_t build[] = { 0, 1, 2, 3, 55 };
            CINF_BROKEN(game, { s.build_order = build; s.build_count = 5; });
            CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.build + 4 + 16);
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, ids[4] = 66);
            CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.names);
            CHECK_STR(a->skeletons[0].bones[4].name, "");
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, s.name_count = 4);
            CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.names);
            CHECK_EQ(a->status, AMX_ASSET_OK); /* a warning */
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, { bones[4].id = 150; ids[4] = 150; });
            CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.bone[4]);
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, { bones[4].id = 3; });
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bone[4]);
            CINF_DONE();
        }
        {
            CINF_BROKEN(game, bones[2].pos[1] = NAN);
            CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bone[2] + 12);
            CINF_DONE();
        }
        {
            /* truncated inside bone 3; trailing data */
            CINF_BROKEN(game, (void)0);
            amx_asset_free(a);
            a = decode_opts(b.data, lay.bone[3] + 30, AMX_FMT_MP_CINF, NULL, true);
            CHECK_EQ(a->status, AMX_ASSET_ERROR);
            CHECK_EQ(test_count_code(a, AMX_C_TRUNCATED), 1);
            amx_asset_free(a);
            amxw_u32be(&b, 0x55555555);
            a = decode_as(&b, AMX_FMT_MP_CINF);
            CHECK_FINDING(a, AMX_C_TRAILING_DATA, lay.end);
            CHECK_STR(a->version, game == 1 ? "mp1" : "mp2");
            CHECK_EQ(a->mp->game_source, AMX_MP_GAME_HEURISTIC);
            CHECK(!amx__mp_cinf_probe(b.data, b.len));
            CINF_DONE();
        }
    }
}

/* ---- ANCS ---- */

static const amxw_mp_meta prim_a = { .type = 0, .anim_id = 0xA0000001u, .anim_idx = 0, .name = "walk" };
static const amxw_mp_meta prim_b = { .type = 0, .anim_id = 0xA0000002u, .anim_idx = 1, .name = "run" };
static const amxw_mp_meta prim_c = { .type = 0, .anim_id = 0xA0000003u, .anim_idx = 2, .name = "idle" };
static const amxw_mp_meta prim_d = { .type = 0, .anim_id = 0xA0000004u, .anim_idx = 3, .name = "turn" };
static const amxw_mp_meta blend_kids[2] = {
    { .type = 0, .anim_id = 0xA0000001u, .anim_idx = 0, .name = "walk" },
    { .type = 0, .anim_id = 0xA0000002u, .anim_idx = 1, .name = "run" },
};
static const amxw_mp_meta seq_kids[3] = {
    { .type = 0, .anim_id = 0xA0000003u, .anim_idx = 2, .name = "idle" },
    { .type = 1, .children = blend_kids, .child_count = 2 },
    { .type = 0, .anim_id = 0xA0000005u, .anim_idx = 4, .name = "land" },
};

static void ancs_spec(amxw_mp_character chars[2], amxw_mp_set_anim anims[4],
                      amxw_mp_ancs_spec *s, int game)
{
    static const uint32_t res[] = { 0xA0000001u, 0xA0000006u };
    chars[0] = (amxw_mp_character){ .idx = 0, .name = "Samus", .cmdl = 0xC0000001u,
                                    .cskr = 0xC5000001u, .cinf = 0xC1000001u, .anim_names = 3,
                                    .pas_states = 2, .particles = 2, .aabbs = 1, .effects = 1 };
    chars[1] = (amxw_mp_character){ .idx = 1, .name = "Samus_ice", .cmdl = 0xC0000002u,
                                    .cskr = 0xC5000002u, .cinf = 0xC1000002u, .anim_names = 0 };
    anims[0] = (amxw_mp_set_anim){ "walk", prim_a };
    anims[1] = (amxw_mp_set_anim){ "blend", { .type = 2, .children = blend_kids, .child_count = 2 } };
    anims[2] = (amxw_mp_set_anim){ "random", { .type = 3, .children = seq_kids, .child_count = 3 } };
    anims[3] = (amxw_mp_set_anim){ "sequence", { .type = 4, .children = seq_kids, .child_count = 3 } };
    *s = (amxw_mp_ancs_spec){ .game = game, .chars = chars, .char_count = 2, .anims = anims,
                              .anim_count = 4, .transition = &prim_d, .half_transitions = 1,
                              .resources = res, .resource_count = 2 };
    (void)prim_b;
    (void)prim_c;
}

static bool has_id(const amx_mp_ancs *in, uint32_t id)
{
    for (uint32_t i = 0; i < in->anim_id_count; i++)
        if (in->anim_ids[i] == id)
            return true;
    return false;
}

static void test_ancs_decode(void)
{
    for (int game = 1; game <= 2; game++) {
        amxw_mp_character chars[2];
        amxw_mp_set_anim anims[4];
        amxw_mp_ancs_spec s;
        ancs_spec(chars, anims, &s, game);
        amxw_buf b = { 0 };
        amxw_mp_ancs_layout lay;
        amxw_mp_ancs(&b, &s, &lay);
        CHECK(amx__mp_ancs_probe(b.data, b.len));
        CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MP_ANCS);
        amx_asset *a = decode(&b);
        CHECK_CLEAN(a);
        CHECK_STR(a->version, game == 1 ? "mp1" : "mp2");
        CHECK_EQ(a->mp->game_source, AMX_MP_GAME_STRUCTURE);
        const amx_mp_ancs *in = a->mp->ancs;
        CHECK_EQ(in->character_count, 2);
        CHECK_STR(in->characters[0].name, "Samus");
        CHECK_STR(in->characters[1].name, "Samus_ice");
        CHECK_EQ(in->characters[0].version, game == 1 ? 6 : 10);
        CHECK_EQ(in->characters[1].cinf, 0xC1000002u);
        CHECK_EQ(in->characters[1].cmdl, 0xC0000002u);
        CHECK_EQ(in->characters[1].cskr, 0xC5000002u);
        CHECK_EQ(in->characters[0].offset, lay.chars[0]);
        CHECK_EQ(in->characters[1].offset, lay.chars[1]);
        /* ids: walk, run, idle, land (nested), turn (transition), 6 (MP1 resource list) */
        CHECK_EQ(in->anim_id_count, game == 1 ? 6 : 5);
        for (uint32_t id = 0xA0000001u; id <= 0xA0000005u; id++)
            CHECK(has_id(in, id));
        CHECK_EQ(has_id(in, 0xA0000006u), game == 1);
        CHECK_EQ(in->anim_ids[0], 0xA0000001u);
        CHECK_EQ(in->characters[1].anim_id_count, in->anim_id_count);
        CHECK(in->characters[0].anim_ids == in->anim_ids);
        CHECK_EQ(in->animation_count, 4);
        CHECK_STR(in->animations[2].name, "random");
        CHECK_EQ(in->animations[2].first_anim_id, 0xA0000003u);
        CHECK_EQ(in->animations[1].first_anim_id, 0xA0000001u);
        CHECK_EQ(in->set_version, 4);
        amx_asset_free(a);
        /* older character versions (fewer sections) */
        chars[0].version = 1;
        chars[1].version = 3;
        if (game == 1) {
            amxw_buf_free(&b);
            amxw_mp_ancs(&b, &s, &lay);
            a = decode(&b);
            CHECK_CLEAN(a);
            CHECK_EQ(a->mp->ancs->characters[1].version, 3);
            CHECK_EQ(a->mp->ancs->anim_id_count, 6);
            amx_asset_free(a);
        }
        amxw_buf_free(&b);
    }
}

static void test_ancs_broken(void)
{
    for (int game = 1; game <= 2; game++) {
        amxw_mp_character chars[2];
        amxw_mp_set_anim anims[4];
        amxw_mp_ancs_spec s;
        ancs_spec(chars, anims, &s, game);
        amxw_buf b = { 0 };
        amxw_mp_ancs_layout lay;
        amxw_mp_ancs(&b, &s, &lay);
        amx_asset *a;

        amxw_mp_put_u32(&b, lay.anims_meta[2], 9);
        a = decode_as(&b, AMX_FMT_MP_ANCS);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.anims_meta[2]);
        CHECK_STR(context_of(a, AMX_C_BAD_VALUE), "animation 2 'random'");
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        CHECK_EQ(a->mp->ancs->character_count, 2);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, lay.anims_meta[2], 3);

        b.data[lay.pas[1]] = 'X';
        a = decode_as(&b, AMX_FMT_MP_ANCS);
        CHECK_FINDING(a, AMX_C_BAD_MAGIC, lay.pas[1]);
        CHECK_STR(context_of(a, AMX_C_BAD_MAGIC), "character 1 'Samus_ice'");
        amx_asset_free(a);
        b.data[lay.pas[1]] = 'P';

        amxw_mp_put_u32(&b, 4, 100000);
        a = decode_as(&b, AMX_FMT_MP_ANCS);
        CHECK_FINDING(a, AMX_C_TRUNCATED, 4);
        amx_asset_free(a);
        amxw_mp_put_u32(&b, 4, 2);

        a = decode_opts(b.data, lay.set + 20, AMX_FMT_MP_ANCS, NULL, true);
        CHECK_EQ(test_count_code(a, AMX_C_TRUNCATED), 1);
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        amx_asset_free(a);

        if (game == 1) {
            amxw_u32be(&b, 0x77777777);
            a = decode(&b);
            CHECK_FINDING(a, AMX_C_TRAILING_DATA, lay.end);
            amx_asset_free(a);
            b.len -= 4;
        }
        amxw_mp_put_u32(&b, 0, 0x00020001);
        CHECK(!amx__mp_ancs_probe(b.data, b.len));
        a = decode_as(&b, AMX_FMT_MP_ANCS);
        CHECK_FINDING(a, AMX_C_BAD_MAGIC, 0);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

/* ---- PAK ---- */

typedef struct pak_case {
    amxw_buf anim, cinf, ancs;
    uint8_t blob[100];
    amxw_mp_resource res[6];
} pak_case;

static void pak_spec(pak_case *p)
{
    memset(p, 0, sizeof *p);
    v2_case c;
    v2_spec(&c, 1);
    amxw_mp_anim(&p->anim, &c.s, NULL);
    amxw_mp_bone bones[5];
    amxw_mp_cinf_spec cs;
    uint32_t ids[5];
    cinf_spec(bones, &cs, 1, ids);
    amxw_mp_cinf(&p->cinf, &cs, NULL);
    amxw_mp_character chars[2];
    amxw_mp_set_anim anims[4];
    amxw_mp_ancs_spec as;
    ancs_spec(chars, anims, &as, 1);
    amxw_mp_ancs(&p->ancs, &as, NULL);
    for (int i = 0; i < 100; i++)
        p->blob[i] = (uint8_t)(i * 7);
    p->res[0] = (amxw_mp_resource){ AMXW_FOURCC('A', 'N', 'I', 'M'), 0xA0000001u, p->anim.data,
                                    p->anim.len, false, NULL };
    p->res[1] = (amxw_mp_resource){ AMXW_FOURCC('C', 'I', 'N', 'F'), 0xC1000001u, p->cinf.data,
                                    p->cinf.len, true, "Samus_skeleton" };
    p->res[2] = (amxw_mp_resource){ AMXW_FOURCC('A', 'N', 'C', 'S'), 0x5A000001u, p->ancs.data,
                                    p->ancs.len, true, "Samus" };
    p->res[3] = (amxw_mp_resource){ AMXW_FOURCC('T', 'X', 'T', 'R'), 0x7E000001u, p->blob, 100,
                                    false, NULL };
    p->res[4] = (amxw_mp_resource){ AMXW_FOURCC('A', 'N', 'I', 'M'), 0xA0000001u, p->anim.data,
                                    p->anim.len, false, NULL }; /* a duplicate */
}

static void pak_free(pak_case *p)
{
    amxw_buf_free(&p->anim);
    amxw_buf_free(&p->cinf);
    amxw_buf_free(&p->ancs);
}

static void test_pak_decode(void)
{
    pak_case p;
    pak_spec(&p);
    amxw_buf b = { 0 };
    amxw_mp_pak_layout lay;
    amxw_mp_pak(&b, p.res, 5, &lay);
    CHECK(amx__mp_pak_probe(b.data, b.len));
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MP_PAK);
    CHECK(amx_format_is_archive(AMX_FMT_MP_PAK));
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_STR(a->version, "3.5");
    CHECK(a->mp->game == NULL);
    CHECK_EQ(a->mp->game_source, AMX_MP_GAME_NONE);
    const amx_archive *ar = a->archive;
    CHECK_EQ(ar->entry_count, 4);
    static const char *const names[] = { "A0000001.ANIM", "C1000001.CINF", "5A000001.ANCS",
                                         "7E000001.TXTR" };
    for (uint32_t i = 0; i < 4 && i < ar->entry_count; i++) {
        CHECK_STR(ar->entries[i].name, names[i]);
        CHECK_EQ(ar->entries[i].offset, lay.data[i]);
        CHECK_EQ(ar->entries[i].size, lay.size[i]);
        CHECK(ar->entries[i].valid); /* compressed members too: they inflate cleanly */
        CHECK_EQ(ar->entries[i].compressed, p.res[i].compress);
    }
    const amx_mp_pak *pk = a->mp->pak;
    CHECK_EQ(pk->entry_count, 4);
    CHECK_EQ(pk->duplicates, 1);
    CHECK_EQ(pk->named_count, 2);
    CHECK(pk->entries[0].name == NULL);
    CHECK_STR(pk->entries[1].name, "Samus_skeleton");
    CHECK_STR(pk->entries[2].name, "Samus");
    CHECK_STR(pk->entries[2].type, "ANCS");
    CHECK_EQ(pk->entries[2].asset_id, 0x5A000001u);
    CHECK(pk->entries[1].compressed && pk->entries[1].inflatable);
    CHECK_EQ(pk->entries[1].uncompressed_size, p.cinf.len);
    CHECK(!pk->entries[3].compressed);

    /* members through amx_archive_member: the uncompressed ANIM and blob as spans of the PAK
     * (the ANIM with its padding), the compressed CINF and ANCS inflated */
    const uint8_t *out = NULL;
    size_t out_len = 0;
    void *owned = NULL;
    char err[256];
    CHECK_EQ(amx_archive_member(a, b.data, b.len, 0, &out, &out_len, &owned, err, sizeof err), AMX_OK);
    CHECK(owned == NULL && out == b.data + ar->entries[0].offset);
    amx_asset *m = decode_opts(out, out_len, AMX_FMT_UNKNOWN, NULL, true);
    CHECK_EQ(m->format, AMX_FMT_MP_ANIM);
    CHECK_CLEAN(m);
    amx_asset_free(m);
    CHECK(ar->entries[1].valid && ar->entries[1].compressed);
    CHECK_EQ(ar->entries[1].unpacked_size, p.cinf.len);
    CHECK_EQ(amx_archive_member(a, b.data, b.len, 1, &out, &out_len, &owned, err, sizeof err), AMX_OK);
    CHECK_EQ(out_len, p.cinf.len);
    CHECK(owned != NULL && out && memcmp(out, p.cinf.data, out_len) == 0);
    m = decode_opts(out, out_len, AMX_FMT_UNKNOWN, NULL, true);
    CHECK_EQ(m->format, AMX_FMT_MP_CINF);
    CHECK_CLEAN(m);
    amx_asset_free(m);
    free(owned);
    CHECK_EQ(amx_archive_member(a, b.data, b.len, 2, &out, &out_len, &owned, err, sizeof err), AMX_OK);
    m = decode_opts(out, out_len, AMX_FMT_UNKNOWN, NULL, true);
    CHECK_EQ(m->format, AMX_FMT_MP_ANCS);
    CHECK_CLEAN(m);
    amx_asset_free(m);
    free(owned);
    CHECK_EQ(amx_archive_member(a, b.data, b.len, 3, &out, &out_len, &owned, err, sizeof err), AMX_OK);
    CHECK_EQ(out_len, lay.size[3]);
    CHECK(out && memcmp(out, p.blob, 100) == 0);
    CHECK_EQ(amx_archive_member(a, b.data, b.len, 9, &out, &out_len, &owned, err, sizeof err),
             AMX_E_INVALID_ARG);
    CHECK_EQ(amx_archive_member(NULL, b.data, b.len, 0, &out, &out_len, &owned, err, sizeof err),
             AMX_E_INVALID_ARG);
    amx_asset_free(a);

    /* asset ids of names */
    uint32_t id = 0;
    CHECK(amx_mp_parse_asset_id("x/Metroid1.pak#0A1B2C3D.ANIM", &id) && id == 0x0A1B2C3Du);
    CHECK(amx_mp_parse_asset_id("deadBEEF", &id) && id == 0xDEADBEEFu);
    CHECK(!amx_mp_parse_asset_id("0A1B2C3.ANIM", &id));
    CHECK(!amx_mp_parse_asset_id("0A1B2C3DE.ANIM", &id));
    CHECK(!amx_mp_parse_asset_id("SamusGun.ANIM", &id));
    amxw_buf_free(&b);
    pak_free(&p);
}

static void test_pak_broken(void)
{
    pak_case p;
    pak_spec(&p);
    amxw_buf b = { 0 };
    amxw_mp_pak_layout lay;
    amxw_mp_pak(&b, p.res, 5, &lay);
    amx_asset *a;

    /* data outside the file */
    amxw_mp_put_u32(&b, lay.record[3] + 16, (uint32_t)b.len - 50);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_CHUNK_OVERRUN, lay.record[3] + 16);
    CHECK(!a->archive->entries[3].valid);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.record[3] + 16, (uint32_t)lay.data[3]);

    /* data over the tables */
    amxw_mp_put_u32(&b, lay.record[3] + 16, 8);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.record[3] + 16);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.record[3] + 16, (uint32_t)lay.data[3]);

    /* a damaged zlib stream; a wrong declared size; not zlib at all */
    uint8_t save = b.data[lay.data[1] + 10];
    b.data[lay.data[1] + 10] ^= 0x55;
    a = decode(&b);
    CHECK(test_find(a, AMX_C_BAD_VALUE, lay.data[1] + 4) ||
          test_find(a, AMX_C_SIZE_MISMATCH, lay.data[1]) ||
          test_find(a, AMX_C_TRUNCATED, lay.data[1] + 4));
    CHECK(!a->mp->pak->entries[1].inflatable);
    CHECK(!a->archive->entries[1].valid); /* not handed to the scanner */
    const uint8_t *out = NULL;
    size_t out_len = 0;
    void *owned = NULL;
    char err[256];
    CHECK_EQ(amx_archive_member(a, b.data, b.len, 1, &out, &out_len, &owned, err, sizeof err),
             AMX_E_INVALID_ARG);
    amx_asset_free(a);
    b.data[lay.data[1] + 10] = save;
    amxw_mp_put_u32(&b, lay.data[1], (uint32_t)p.cinf.len + 1);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.data[1]);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.data[1], (uint32_t)p.cinf.len - 1);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.data[1]);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.data[1], 0x7FFFFFFF);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.data[1]);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.data[1], (uint32_t)p.cinf.len);
    save = b.data[lay.data[1] + 4];
    b.data[lay.data[1] + 4] = 0x00; /* not a zlib header */
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_UNSUPPORTED, lay.data[1] + 4);
    amx_asset_free(a);
    b.data[lay.data[1] + 4] = save;

    /* compressed flag, FourCC, unused word */
    amxw_mp_put_u32(&b, lay.record[3], 2);
    a = decode_as(&b, AMX_FMT_MP_PAK);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.record[3]);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.record[3], 0);
    b.data[lay.record[3] + 5] = 0x01;
    a = decode_as(&b, AMX_FMT_MP_PAK);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.record[3] + 4);
    CHECK_STR(a->archive->entries[3].name, "7E000001.T?TR");
    amx_asset_free(a);
    b.data[lay.record[3] + 5] = 'X';
    amxw_mp_put_u32(&b, 4, 1);
    a = decode_as(&b, AMX_FMT_MP_PAK);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, 4);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, 4, 0);

    /* a named entry for a missing asset, and of the wrong type */
    size_t named_id = lay.named + 4 + 4; /* the first named entry's asset id */
    amxw_mp_put_u32(&b, named_id, 0x12121212u);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, named_id);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, named_id, 0xC1000001u);
    amxw_mp_put_u32(&b, lay.named + 4, AMXW_FOURCC('A', 'N', 'I', 'M'));
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.named + 4);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.named + 4, AMXW_FOURCC('C', 'I', 'N', 'F'));

    /* table sizes */
    amxw_mp_put_u32(&b, lay.res_count, 1000);
    a = decode_as(&b, AMX_FMT_MP_PAK);
    CHECK_EQ(test_count_code(a, AMX_C_TRUNCATED), 1);
    CHECK(a->archive->entry_count > 4);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.res_count, 5);
    amxw_mp_put_u32(&b, lay.named, 0x01000000);
    a = decode_as(&b, AMX_FMT_MP_PAK);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 8);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
    amxw_mp_put_u32(&b, lay.named, 2);
    a = decode_opts(b.data, lay.res_count + 2, AMX_FMT_MP_PAK, NULL, false);
    CHECK_FINDING(a, AMX_C_TRUNCATED, lay.res_count);
    amx_asset_free(a);

    /* magic */
    amxw_mp_put_u32(&b, 0, 0x00030006);
    CHECK(!amx__mp_pak_probe(b.data, b.len));
    a = decode_as(&b, AMX_FMT_MP_PAK);
    CHECK_FINDING(a, AMX_C_BAD_MAGIC, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
    pak_free(&p);
}

/* ---- probes: foreign files are never taken for MP files ---- */

static int probe_dir(const char *dir, int *files)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    int taken = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            taken += probe_dir(path, files);
            continue;
        }
        size_t len = 0;
        unsigned char *data = test_read_file(path, &len);
        if (!data)
            continue;
        (*files)++;
        bool any = false;
        for (size_t n = len; ; n = n > 4096 ? 4096 : n / 2) {
            bool hit = amx__mp_anim_probe(data, n) || amx__mp_cinf_probe(data, n) ||
                       amx__mp_ancs_probe(data, n) || amx__mp_pak_probe(data, n);
            if (hit && !any)
                printf("# %s (%zu of %zu bytes) taken for a Metroid Prime file\n", path, n, len);
            any |= hit;
            if (n == 0)
                break;
        }
        taken += any;
        free(data);
    }
    closedir(dp);
    return taken;
}

static void test_probe_foreign(void)
{
    int files = 0;
    int taken = probe_dir(test_corpus_dir(), &files);
    printf("# corpus: %d files probed\n", files);
    CHECK_EQ(taken, 0);
    /* random data, and random data behind each signature's first word */
    rng_state = 99;
    uint8_t buf[512];
    int hits = 0;
    for (int i = 0; i < 20000; i++) {
        size_t n = (size_t)rnd(0, (int32_t)sizeof buf);
        for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t)rnd(0, 255);
        if (n >= 4 && i % 4 == 1)
            memcpy(buf, "\0\0\0\2", 4);
        if (n >= 4 && i % 4 == 2)
            memcpy(buf, "\0\0\0\0", 4);
        if (n >= 8 && i % 4 == 3)
            memcpy(buf, "\0\1\0\1", 4);
        hits += amx__mp_anim_probe(buf, n) || amx__mp_cinf_probe(buf, n) ||
                amx__mp_ancs_probe(buf, n) || amx__mp_pak_probe(buf, n);
    }
    CHECK_EQ(hits, 0);
}

/* A prefix of an ANIM (the scanner probes 4 KiB first) is still an ANIM. */
static void test_probe_prefix(void)
{
    v2_case c;
    v2_spec(&c, 1);
    amxw_buf b = { 0 };
    amxw_mp_anim(&b, &c.s, NULL);
    CHECK(amx__mp_anim_probe(b.data, 0x50));
    CHECK(!amx__mp_anim_probe(b.data, 0x20));
    amxw_buf_free(&b);
    v0_case c0;
    v0_spec(&c0, 2);
    amxw_mp_anim(&b, &c0.s, NULL);
    CHECK(amx__mp_anim_probe(b.data, 0x90));
    CHECK(!amx__mp_cinf_probe(b.data, b.len));
    amxw_buf_free(&b);
    pak_case p;
    pak_spec(&p);
    amxw_mp_pak(&b, p.res, 5, NULL);
    CHECK(amx__mp_pak_probe(b.data, 40));
    CHECK(!amx__mp_pak_probe(b.data, 8));
    amxw_buf_free(&b);
    pak_free(&p);
}

/* ---- mutation ---- */

static void mutate_both(const amxw_buf *b, amx_format fmt, mutate_stats *st)
{
    mutate_all(b->data, b->len, 1, NULL, st);
    amx_decode_opts o = { .format = fmt };
    mutate_all(b->data, b->len, 1, &o, st);
}

static void test_mutations(void)
{
    mutate_stats st = { 0 };
    for (int game = 1; game <= 2; game++) {
        amxw_buf b = { 0 };
        v2_case c;
        v2_spec(&c, game);
        c.s.frames = 9; /* small samples */
        amxw_mp_anim(&b, &c.s, NULL);
        mutate_both(&b, AMX_FMT_MP_ANIM, &st);
        amxw_buf_free(&b);
        v0_case c0;
        v0_spec(&c0, game);
        c0.s.frames = 2;
        amxw_mp_anim(&b, &c0.s, NULL);
        mutate_both(&b, AMX_FMT_MP_ANIM, &st);
        amxw_buf_free(&b);
        amxw_mp_bone bones[5];
        amxw_mp_cinf_spec cs;
        uint32_t ids[5];
        cinf_spec(bones, &cs, game, ids);
        amxw_mp_cinf(&b, &cs, NULL);
        mutate_both(&b, AMX_FMT_MP_CINF, &st);
        amxw_buf_free(&b);
        amxw_mp_character chars[2];
        amxw_mp_set_anim anims[4];
        amxw_mp_ancs_spec as;
        ancs_spec(chars, anims, &as, game);
        amxw_mp_ancs(&b, &as, NULL);
        mutate_both(&b, AMX_FMT_MP_ANCS, &st);
        amxw_buf_free(&b);
    }
    /* a small PAK: a compressed CINF and an uncompressed ANIM */
    amxw_buf anim = { 0 }, cinf = { 0 }, b = { 0 };
    v0_case c0;
    v0_spec(&c0, 1);
    c0.s.frames = 1;
    amxw_mp_anim(&anim, &c0.s, NULL);
    amxw_mp_bone bones[5];
    amxw_mp_cinf_spec cs;
    uint32_t ids[5];
    cinf_spec(bones, &cs, 1, ids);
    cs.bone_count = 2;
    cs.name_count = 2;
    bones[0].parent = 0;
    amxw_mp_cinf(&cinf, &cs, NULL);
    amxw_mp_resource res[2] = {
        { AMXW_FOURCC('C', 'I', 'N', 'F'), 1, cinf.data, cinf.len, true, "skel" },
        { AMXW_FOURCC('A', 'N', 'I', 'M'), 2, anim.data, anim.len, false, NULL },
    };
    amxw_mp_pak(&b, res, 2, NULL);
    mutate_both(&b, AMX_FMT_MP_PAK, &st);
    amxw_buf_free(&b);
    amxw_buf_free(&anim);
    amxw_buf_free(&cinf);
    CHECK_EQ(st.violations, 0);
    printf("# generated-file mutations: %zu decodes (ok %zu, partial %zu, error %zu)\n", st.decodes,
           st.statuses[0], st.statuses[1], st.statuses[2]);
}

int main(void)
{
    RUN(test_bitreader);
    RUN(test_v2_decode);
    RUN(test_v2_edges);
    RUN(test_v0_decode);
    RUN(test_game_hint);
    RUN(test_v2_broken);
    RUN(test_v0_broken);
    RUN(test_cinf_decode);
    RUN(test_cinf_broken);
    RUN(test_ancs_decode);
    RUN(test_ancs_broken);
    RUN(test_pak_decode);
    RUN(test_pak_broken);
    RUN(test_probe_foreign);
    RUN(test_probe_prefix);
    RUN(test_mutations);
    return test_done();
}
