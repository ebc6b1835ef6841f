/* Unit tests for the W3D decoder (lib/format/w3d.c), the BIG decoder (lib/format/big.c) and their
 * writer (tests/writer/w3d_writer.c). */
#include "test.h"
#include "animidx/w3d.h"
#include "buf.h"
#include "check_asset.h"
#include "decoder.h"
#include "w3d_writer.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define FLAG 0x80000000u
#define S45 0.70710678118654752f

/* ---- helpers ---- */

static int check_w3d_info(const amx_w3d_info *w)
{
    int bad = 0;
    if (!w)
        return 0;
    volatile size_t sink = 0;
    for (uint32_t i = 0; i < w->mesh_count; i++) {
        if (!w->meshes[i].name || !w->meshes[i].container)
            bad++;
        else
            sink += strlen(w->meshes[i].name) + strlen(w->meshes[i].container);
    }
    for (uint32_t i = 0; i < w->hlod_count; i++) {
        const amx_w3d_hlod *h = &w->hlods[i];
        if (!h->name || !h->hierarchy || (h->lod_count && !h->lods))
            bad++;
        const amx_w3d_lod *arrays[2] = { h->aggregates, h->proxies };
        for (uint32_t l = 0; l < h->lod_count + 2; l++) {
            const amx_w3d_lod *lod = l < h->lod_count ? &h->lods[l] : arrays[l - h->lod_count];
            if (!lod)
                continue;
            if (lod->object_count && !lod->objects)
                bad++;
            for (uint32_t o = 0; o < lod->object_count; o++)
                if (!lod->objects[o].name)
                    bad++;
                else
                    sink += strlen(lod->objects[o].name);
        }
    }
    for (uint32_t i = 0; i < w->hmodel_count; i++) {
        const amx_w3d_hmodel *h = &w->hmodels[i];
        if (!h->name || !h->hierarchy || (h->node_count && !h->nodes))
            bad++;
        for (uint32_t n = 0; n < h->node_count; n++)
            if (!h->nodes[n].name)
                bad++;
    }
    (void)sink;
    if (bad)
        printf("# check_w3d_info: %d violations\n", bad);
    return bad;
}

static amx_asset *decode_fmt(const uint8_t *p, size_t n, amx_format fmt, bool samples)
{
    amx_decode_opts o = { .samples = samples, .format = fmt };
    amx_asset *a = test_decode(p, n, &o);
    if (a) {
        CHECK_EQ(check_w3d_info(a->w3d), 0);
        CHECK_EQ(a->format, fmt);
    }
    return a;
}

static amx_asset *decode(const amxw_buf *b) { return decode_fmt(b->data, b->len, AMX_FMT_W3D, true); }

#define CHECK_SEV(a, code, off, sev) \
    do { \
        const amx_finding *f_ = test_find((a), (code), (int64_t)(off)); \
        CHECK(f_ != NULL); \
        if (f_) \
            CHECK_EQ(f_->severity, (sev)); \
    } while (0)

static const amx_track *track_of(const amx_clip *c, int32_t pivot)
{
    for (uint32_t i = 0; i < c->track_count; i++)
        if (c->tracks[i].bone_index == pivot)
            return &c->tracks[i];
    return NULL;
}

/* A 4-pivot skeleton "SKL" used by the animation tests. */
static const amxw_w3d_pivot skl_pivots[] = {
    { .name = "ROOTTRANSFORM", .parent = 0xFFFFFFFFu, .rotation = { 0, 0, 0, 1 } },
    { .name = "PELVIS", .parent = 0, .translation = { 1, 2, 3 }, .rotation = { 0, 0, S45, S45 } },
    { .name = "SPINE", .parent = 1, .translation = { 0, 0, 1 }, .rotation = { 0, 0, 0, 1 } },
    { .name = "HEAD", .parent = 2, .translation = { 0, 0, 2 }, .rotation = { 1, 0, 0, 0 } },
};

static void write_skl(amxw_buf *b, amxw_w3d_hierarchy_layout *lay)
{
    amxw_w3d_hierarchy h = { .name = "SKL", .pivots = skl_pivots, .pivot_count = 4, .fixups = true };
    amxw_w3d_hierarchy_write(b, &h, lay);
}

/* The animation (after the hierarchy SKL when with_skl), written and decoded; the animation's
 * chunk offsets in *lay. The bytes are freed before the asset is returned: it owns its data. */
static amx_asset *anim_asset(const amxw_w3d_anim *an, bool with_skl, amxw_w3d_anim_layout *lay)
{
    amxw_buf b = { 0 };
    if (with_skl)
        write_skl(&b, NULL);
    amxw_w3d_anim_write(&b, an, lay);
    amx_asset *a = decode(&b);
    amxw_buf_free(&b);
    return a;
}

/* As anim_asset, for a compressed animation. */
static amx_asset *canim_asset(const amxw_w3d_canim *an, bool with_skl, amxw_w3d_anim_layout *lay)
{
    amxw_buf b = { 0 };
    if (with_skl)
        write_skl(&b, NULL);
    amxw_w3d_canim_write(&b, an, lay);
    amx_asset *a = decode(&b);
    amxw_buf_free(&b);
    return a;
}

static void quat_z(float deg, float q[4])
{
    double r = deg * M_PI / 360.0;
    q[0] = 0;
    q[1] = 0;
    q[2] = (float)sin(r);
    q[3] = (float)cos(r);
}

/* ---- hierarchies ---- */

static void test_hierarchy(void)
{
    amxw_buf b = { 0 };
    write_skl(&b, NULL);
    CHECK(amx__w3d_probe(b.data, b.len));
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_W3D);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_STR(a->version, "4.1");
    CHECK_EQ(a->skeleton_count, 1);
    CHECK_EQ(a->clip_count, 0);
    CHECK(a->w3d != NULL);
    if (a->skeleton_count == 1) {
        const amx_skeleton *s = &a->skeletons[0];
        CHECK_STR(s->name, "SKL");
        CHECK_EQ(s->bone_count, 4);
        static const char *names[] = { "ROOTTRANSFORM", "PELVIS", "SPINE", "HEAD" };
        static const int parents[] = { -1, 0, 1, 2 };
        for (uint32_t i = 0; i < 4 && i < s->bone_count; i++) {
            CHECK_STR(s->bones[i].name, names[i]);
            CHECK_EQ(s->bones[i].parent, parents[i]);
        }
        /* PELVIS: 90 degrees about Z, translated (1, 2, 3). */
        static const float m1[12] = { 0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 3 };
        /* HEAD: 180 degrees about X (quaternion 1, 0, 0, 0). */
        static const float m3[12] = { 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 2 };
        static const float m0[12] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 };
        for (int k = 0; k < 12 && s->bone_count == 4; k++) {
            CHECK_NEAR(s->bones[0].matrix[k], m0[k], 1e-6);
            CHECK_NEAR(s->bones[1].matrix[k], m1[k], 1e-6);
            CHECK_NEAR(s->bones[3].matrix[k], m3[k], 1e-6);
        }
    }
    amx_asset_free(a);

    /* A Renegade-era file: the container without bit 31. */
    amxw_buf_free(&b);
    amxw_w3d_hierarchy h = { .name = "LEGACY", .pivots = skl_pivots, .pivot_count = 4,
                             .legacy = true };
    amxw_w3d_hierarchy_write(&b, &h, NULL);
    CHECK_EQ(b.data[7] & 0x80, 0);
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_W3D);
    a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_EQ(a->skeleton_count, 1);
    if (a->skeleton_count)
        CHECK_EQ(a->skeletons[0].bone_count, 4);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_hierarchy_old_version(void)
{
    /* Version 2.0: the engine inserts an identity root pivot and shifts every parent. */
    static const amxw_w3d_pivot pv[] = {
        { .name = "BASE", .parent = 0xFFFFFFFFu, .translation = { 5, 0, 0 }, .rotation = { 0, 0, 0, 1 } },
        { .name = "ARM", .parent = 0, .rotation = { 0, 0, 0, 1 } },
        { .name = "HAND", .parent = 1, .rotation = { 0, 0, 0, 1 } },
        { .name = "LEG", .parent = 0xFFFFFFFFu, .rotation = { 0, 0, 0, 1 } },
    };
    amxw_w3d_hierarchy h = { .version = AMXW_W3D_VERSION(2, 0), .name = "OLD", .pivots = pv,
                             .pivot_count = 4 };
    amxw_buf b = { 0 };
    amxw_w3d_hierarchy_write(&b, &h, NULL);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_STR(a->version, "2.0");
    CHECK_EQ(a->skeleton_count, 1);
    if (a->skeleton_count == 1) {
        const amx_skeleton *s = &a->skeletons[0];
        CHECK_EQ(s->bone_count, 5);
        static const char *names[] = { "RootTransform", "BASE", "ARM", "HAND", "LEG" };
        static const int parents[] = { -1, 0, 1, 2, 0 };
        for (uint32_t i = 0; i < 5 && i < s->bone_count; i++) {
            CHECK_STR(s->bones[i].name, names[i]);
            CHECK_EQ(s->bones[i].parent, parents[i]);
        }
        if (s->bone_count == 5) {
            CHECK(s->bones[0].matrix[0] == 1 && s->bones[0].matrix[3] == 0);
            CHECK(s->bones[1].matrix[3] == 5);
        }
    }
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- classic animation ---- */

static void test_classic(void)
{
    enum { F = 10 };
    float xs[5] = { 1, 2, 3, 4, 5 };                    /* pivot 1 X, frames 2..6 */
    float ys[F] = { 0, -1, -2, -3, -4, -5, -6, -7, -8, -9 }; /* pivot 1 Y, frames 0..9 */
    float zs[8] = { 10, 11, 12, 13, 99, 99, 99, 0 };   /* pivot 2 Z, frames 0..3 + 4 extra */
    float qs[5 * 4];                                    /* pivot 2 Q, frames 3..7 */
    for (int i = 0; i < 5; i++)
        quat_z((float)(20 * i), &qs[4 * i]);
    uint8_t bits[1] = { 0xA5 };                         /* pivot 3 visibility, frames 1..8 */
    amxw_w3d_channel ch[] = {
        { .first = 2, .last = 6, .vector_len = 1, .type = 0, .pivot = 1, .data = xs, .data_count = 5 },
        { .first = 0, .last = 9, .vector_len = 1, .type = 1, .pivot = 1, .data = ys, .data_count = F },
        { .first = 0, .last = 3, .vector_len = 1, .type = 2, .pivot = 2, .data = zs, .data_count = 7 },
        { .first = 3, .last = 7, .vector_len = 4, .type = 6, .pivot = 2, .data = qs, .data_count = 20 },
    };
    amxw_w3d_bit_channel bc[] = {
        { .first = 1, .last = 8, .type = 0, .pivot = 3, .default_val = 0, .bits = bits, .bit_bytes = 1 },
    };
    amxw_w3d_anim an = { .name = "SKL_WALK", .hierarchy = "SKL", .frames = F, .fps = 15,
                         .channels = ch, .channel_count = 4, .bits = bc, .bit_count = 1 };
    amxw_buf b = { 0 };
    write_skl(&b, NULL);
    amxw_w3d_anim_layout lay;
    amxw_w3d_anim_write(&b, &an, &lay);
    amx_asset *a = decode(&b);
    /* Only the over-long Z channel (3 floats too many) is noted, as info. */
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 1);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, lay.channels[2], AMX_SEV_INFO);
    CHECK_STR(a->version, "4.1");
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        goto out;
    const amx_clip *c = &a->clips[0];
    CHECK_STR(c->name, "SKL_WALK");
    CHECK_STR(c->skeleton, "SKL");
    CHECK(c->has_frames);
    CHECK_EQ(c->frames, F);
    CHECK(c->fps == 15.0f);
    CHECK_NEAR(c->duration, 10.0 / 15.0, 1e-9);
    CHECK(c->has_samples);
    CHECK_EQ(c->track_count, 3);
    const amx_track *t1 = track_of(c, 1), *t2 = track_of(c, 2), *t3 = track_of(c, 3);
    CHECK(t1 && t2 && t3);
    if (!t1 || !t2 || !t3 || !c->has_samples)
        goto out;
    CHECK(t1->bone == NULL);
    CHECK_EQ(c->tracks[0].bone_index, 1);
    CHECK_EQ(t1->channels, AMX_CH_TRANSLATION);
    CHECK_EQ(t2->channels, AMX_CH_TRANSLATION | AMX_CH_ROTATION);
    CHECK_EQ(t3->channels, AMX_CH_VISIBILITY);
    CHECK_EQ(t1->offset, (int64_t)lay.channels[0]);
    CHECK_EQ(t2->offset, (int64_t)lay.channels[2]);
    CHECK_EQ(t3->offset, (int64_t)lay.bits[0]);
    CHECK(t1->step == NULL);
    for (uint32_t f = 0; f < F; f++) {
        int before = test_failed_checks;
        float ex = f >= 2 && f <= 6 ? xs[f - 2] : 0.0f;
        CHECK(t1->translation[3 * f] == ex);
        CHECK(t1->translation[3 * f + 1] == ys[f]);
        CHECK(t1->translation[3 * f + 2] == 0.0f);
        for (int k = 0; k < 4; k++)
            CHECK(t1->rotation[4 * f + k] == (k == 3 ? 1.0f : 0.0f));
        for (int k = 0; k < 3; k++)
            CHECK(t1->scale[3 * f + k] == 1.0f);
        CHECK_EQ(t1->visibility[f], 1);

        CHECK(t2->translation[3 * f] == 0.0f && t2->translation[3 * f + 1] == 0.0f);
        CHECK(t2->translation[3 * f + 2] == (f <= 3 ? zs[f] : 0.0f));
        for (int k = 0; k < 4; k++) {
            float eq = f >= 3 && f <= 7 ? qs[4 * (f - 3) + k] : (k == 3 ? 1.0f : 0.0f);
            CHECK(t2->rotation[4 * f + k] == eq);
        }
        uint8_t ev = f >= 1 && f <= 8 ? (bits[0] >> (f - 1)) & 1 : 0;
        CHECK_EQ(t3->visibility[f], ev);
        if (test_failed_checks != before)
            printf("# ... at frame %u\n", f);
    }
out:
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- compressed: time-coded ---- */

static double lerp(double a, double b, double t) { return (1 - t) * a + t * b; }

static void test_timecoded(void)
{
    enum { F = 20 };
    uint32_t xt[] = { 0, 5, 10 | FLAG, 19 };
    float xv[] = { 0, 10, 20, 30 };
    uint32_t qt[] = { 0, 10, 19 };
    float qv[12];
    quat_z(0, qv);
    quat_z(90, qv + 4);
    quat_z(180, qv + 8);
    uint32_t bt[] = { 0 | FLAG, 7, 12 | FLAG };
    uint32_t yt[] = { 0 };
    float yv[] = { 5 };
    amxw_w3d_cchannel ch[] = {
        { .kind = AMXW_W3D_TIMECODED, .pivot = 1, .vector_len = 1, .type = 0, .count = 4, .times = xt, .values = xv },
        { .kind = AMXW_W3D_TIMECODED, .pivot = 1, .vector_len = 4, .type = 6, .count = 3, .times = qt, .values = qv },
        { .kind = AMXW_W3D_TC_BIT, .pivot = 2, .type = 0, .count = 3, .times = bt, .default_val = 0 },
        { .kind = AMXW_W3D_TIMECODED, .pivot = 3, .vector_len = 1, .type = 1, .count = 1, .times = yt, .values = yv },
    };
    amxw_w3d_canim an = { .name = "SKL_TC", .hierarchy = "SKL", .frames = F, .fps = 30,
                          .flavor = 0, .channels = ch, .channel_count = 4 };
    amxw_buf b = { 0 };
    write_skl(&b, NULL);
    amxw_w3d_canim_write(&b, &an, NULL);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        goto out;
    const amx_clip *c = &a->clips[0];
    CHECK_STR(c->name, "SKL_TC");
    CHECK_STR(c->skeleton, "SKL");
    CHECK_EQ(c->frames, F);
    CHECK(c->fps == 30.0f);
    CHECK_EQ(c->track_count, 3);
    const amx_track *t1 = track_of(c, 1), *t2 = track_of(c, 2), *t3 = track_of(c, 3);
    CHECK(t1 && t2 && t3 && c->has_samples);
    if (!t1 || !t2 || !t3 || !c->has_samples)
        goto out;
    CHECK_EQ(t1->channels, AMX_CH_TRANSLATION | AMX_CH_ROTATION | AMX_CH_STEP);
    CHECK_EQ(t2->channels, AMX_CH_VISIBILITY);
    CHECK_EQ(t3->channels, AMX_CH_TRANSLATION);
    CHECK(t1->step != NULL);
    CHECK(t2->step == NULL && t3->step == NULL);
    if (!t1->step)
        goto out;
    for (uint32_t f = 0; f < F; f++) {
        int before = test_failed_checks;
        /* X: lerp 0->10 over 0..5; the key at 10 is a step, so 5..9 hold 10; lerp 20->30. */
        double ex = f <= 5 ? lerp(0, 10, f / 5.0) : f < 10 ? 10 : lerp(20, 30, (f - 10) / 9.0);
        CHECK_NEAR(t1->translation[3 * f], ex, 1e-5);
        CHECK_EQ(t1->step[f], f >= 5 && f < 10);
        CHECK(t1->translation[3 * f + 1] == 0 && t1->translation[3 * f + 2] == 0);
        /* Q: slerp 0 -> 90 degrees over 0..10, 90 -> 180 over 10..19 (about Z). */
        double deg = f <= 10 ? 9.0 * f : 90 + 90.0 * (f - 10) / 9.0;
        double r = deg * M_PI / 360.0;
        CHECK_NEAR(t1->rotation[4 * f], 0, 1e-6);
        CHECK_NEAR(t1->rotation[4 * f + 1], 0, 1e-6);
        CHECK_NEAR(t1->rotation[4 * f + 2], sin(r), 1e-5);
        CHECK_NEAR(t1->rotation[4 * f + 3], cos(r), 1e-5);
        /* Bits: visible from 0, hidden from 7, visible again from 12. */
        CHECK_EQ(t2->visibility[f], f < 7 || f >= 12);
        /* One key: constant. */
        CHECK(t3->translation[3 * f + 1] == 5.0f);
        CHECK_EQ(t1->visibility[f], 1);
        if (test_failed_checks != before)
            printf("# ... at frame %u\n", f);
    }
out:
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- compressed: adaptive delta (flavor 1, 4-bit) ---- */

/* Expected adaptive-delta values: the same float operations as the engine. */
static void expect_delta(const amxw_w3d_cchannel *ch, uint32_t frames, int bits, float *out)
{
    uint32_t vl = ch->vector_len;
    float val[4];
    for (uint32_t k = 0; k < vl; k++)
        val[k] = ch->initial[k];
    for (uint32_t f = 0; f < frames; f++) {
        if (f >= 1 && f < ch->count) {
            for (uint32_t k = 0; k < vl; k++) {
                float filter = amxw_w3d_filter(ch->filter) * ch->scale;
                if (bits == 8)
                    filter *= 1.0f / 16.0f;
                val[k] += (float)ch->deltas[(size_t)(f - 1) * vl + k] * filter;
            }
        }
        for (uint32_t k = 0; k < vl; k++)
            out[(size_t)f * vl + k] = val[k];
    }
}

static void test_adaptive_delta(void)
{
    enum { F = 40 };
    int8_t xd[F - 1], yd[F - 1], qd[(F - 1) * 4];
    for (int i = 0; i < F - 1; i++) {
        xd[i] = (int8_t)((i * 5) % 16 - 8);   /* -8..7 */
        yd[i] = (int8_t)(7 - i % 16);
    }
    for (int i = 0; i < (F - 1) * 4; i++)
        qd[i] = (int8_t)((i % 3) - 1);
    float xi[] = { 1.5f }, yi[] = { -2 }, qi[] = { 0, 0, 0, 1 };
    amxw_w3d_cchannel ch[] = {
        /* scale x table[8] = 0.25: exact sums */
        { .kind = AMXW_W3D_DELTA4, .pivot = 1, .vector_len = 1, .type = 0, .count = F,
          .scale = 0.25f, .initial = xi, .deltas = xd, .filter = 8 },
        /* table[16] = 1 - sin(0) = 1 */
        { .kind = AMXW_W3D_DELTA4, .pivot = 1, .vector_len = 1, .type = 1, .count = F,
          .scale = 0.5f, .initial = yi, .deltas = yd, .filter = 16 },
        /* a generated table entry: the same float operations on both sides */
        { .kind = AMXW_W3D_DELTA4, .pivot = 2, .vector_len = 4, .type = 6, .count = F,
          .scale = 0.01f, .initial = qi, .deltas = qd, .filter = 100 },
    };
    amxw_w3d_canim an = { .name = "SKL_AD", .hierarchy = "SKL", .frames = F, .fps = 30,
                          .flavor = 1, .channels = ch, .channel_count = 3 };
    amxw_buf b = { 0 };
    write_skl(&b, NULL);
    amxw_w3d_canim_write(&b, &an, NULL);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        goto out;
    const amx_clip *c = &a->clips[0];
    const amx_track *t1 = track_of(c, 1), *t2 = track_of(c, 2);
    CHECK(t1 && t2 && c->has_samples);
    if (!t1 || !t2 || !c->has_samples)
        goto out;
    CHECK_EQ(t1->channels, AMX_CH_TRANSLATION);
    CHECK_EQ(t2->channels, AMX_CH_ROTATION);
    float ex[F], ey[F], eq[F * 4];
    expect_delta(&ch[0], F, 4, ex);
    expect_delta(&ch[1], F, 4, ey);
    expect_delta(&ch[2], F, 4, eq);
    /* Exact sums by hand for X: 1.5 + 0.25 * (sum of deltas). */
    float sum = 1.5f;
    for (uint32_t f = 0; f < F; f++) {
        int before = test_failed_checks;
        if (f > 0)
            sum += 0.25f * xd[f - 1];
        CHECK(ex[f] == sum);
        CHECK(t1->translation[3 * f] == ex[f]);
        CHECK(t1->translation[3 * f + 1] == ey[f]);
        CHECK(t1->translation[3 * f + 2] == 0.0f);
        for (int k = 0; k < 4; k++)
            CHECK(t2->rotation[4 * f + k] == eq[4 * f + k]);
        if (test_failed_checks != before)
            printf("# ... at frame %u\n", f);
    }
out:
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- BFME motion channels (0x284) ---- */

static void test_motion_channels(void)
{
    enum { F = 10 };
    uint32_t xt[] = { 0, 4, 9 };          /* odd count: a pad u16 */
    float xv[] = { 1, 5, 0 };
    uint32_t qt[] = { 0, 9 };
    float qv[8];
    quat_z(0, qv);
    quat_z(90, qv + 4);
    int8_t yd[F - 1] = { 1, -2, 3, -4, 5, -6, 7, -8, 0 };
    int8_t zd[F - 1] = { 100, -100, 127, -128, 1, 2, 3, 4, 5 };
    int8_t qd[(F - 1) * 4];
    for (int i = 0; i < (F - 1) * 4; i++)
        qd[i] = (int8_t)(i % 5 - 2);
    float yi[] = { 0.5f }, zi[] = { -1 }, qi[] = { 0, 0, 0, 1 };
    amxw_w3d_cchannel ch[] = {
        { .kind = AMXW_W3D_MOTION_TC, .pivot = 1, .vector_len = 1, .type = 0, .count = 3, .times = xt, .values = xv },
        { .kind = AMXW_W3D_MOTION_TC, .pivot = 1, .vector_len = 4, .type = 6, .count = 2, .times = qt, .values = qv },
        { .kind = AMXW_W3D_MOTION_DELTA4, .pivot = 2, .vector_len = 1, .type = 1, .count = F,
          .scale = 0.5f, .initial = yi, .deltas = yd, .filter = 8 },
        { .kind = AMXW_W3D_MOTION_DELTA8, .pivot = 2, .vector_len = 1, .type = 2, .count = F,
          .scale = 1.0f, .initial = zi, .deltas = zd, .filter = 8 },
        { .kind = AMXW_W3D_MOTION_DELTA8, .pivot = 3, .vector_len = 4, .type = 6, .count = F,
          .scale = 0.125f, .initial = qi, .deltas = qd, .filter = 9 },
    };
    amxw_w3d_canim an = { .version = AMXW_W3D_VERSION(1, 0), .name = "SKL_MO", .hierarchy = "SKL",
                          .frames = F, .fps = 30, .flavor = 0, .channels = ch, .channel_count = 5 };
    amxw_buf b = { 0 };
    write_skl(&b, NULL);
    amxw_w3d_anim_layout lay;
    amxw_w3d_canim_write(&b, &an, &lay);
    /* Sizes (docs/formats/w3d.md, BFME motion channels): 8+2N+pad+4*VL*N, 12+4VL+9VL*ceil(N/16), 12+4VL+17VL*ceil(N/16). */
    CHECK_EQ(amx_load_u32le(b.data + lay.channels[0] + 4), 8 + 6 + 2 + 12);
    CHECK_EQ(amx_load_u32le(b.data + lay.channels[1] + 4), 8 + 4 + 32);
    CHECK_EQ(amx_load_u32le(b.data + lay.channels[2] + 4), 12 + 4 + 9);
    CHECK_EQ(amx_load_u32le(b.data + lay.channels[3] + 4), 12 + 4 + 17);
    CHECK_EQ(amx_load_u32le(b.data + lay.channels[4] + 4), 12 + 16 + 68);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_STR(a->version, "4.1"); /* the hierarchy is the main object */
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        goto out;
    const amx_clip *c = &a->clips[0];
    const amx_track *t1 = track_of(c, 1), *t2 = track_of(c, 2), *t3 = track_of(c, 3);
    CHECK(t1 && t2 && t3 && c->has_samples);
    if (!t1 || !t2 || !t3 || !c->has_samples)
        goto out;
    CHECK_EQ(t1->channels, AMX_CH_TRANSLATION | AMX_CH_ROTATION);
    CHECK_EQ(t2->channels, AMX_CH_TRANSLATION);
    CHECK_EQ(t3->channels, AMX_CH_ROTATION);
    float ey[F], ez[F], eq[F * 4];
    expect_delta(&ch[2], F, 4, ey);
    expect_delta(&ch[3], F, 8, ez);
    expect_delta(&ch[4], F, 8, eq);
    float sy = 0.5f, sz = -1.0f;
    for (uint32_t f = 0; f < F; f++) {
        int before = test_failed_checks;
        double ex = f <= 4 ? lerp(1, 5, f / 4.0) : lerp(5, 0, (f - 4) / 5.0);
        CHECK_NEAR(t1->translation[3 * f], ex, 1e-5);
        double r = 10.0 * f * M_PI / 360.0;
        CHECK_NEAR(t1->rotation[4 * f + 2], sin(r), 1e-5);
        CHECK_NEAR(t1->rotation[4 * f + 3], cos(r), 1e-5);
        if (f > 0) {
            sy += 0.5f * yd[f - 1];
            sz += zd[f - 1] / 16.0f;
        }
        CHECK(ey[f] == sy && ez[f] == sz);
        CHECK(t2->translation[3 * f + 1] == sy);
        CHECK(t2->translation[3 * f + 2] == sz);
        CHECK(t2->translation[3 * f] == 0.0f);
        for (int k = 0; k < 4; k++)
            CHECK(t3->rotation[4 * f + k] == eq[4 * f + k]);
        if (test_failed_checks != before)
            printf("# ... at frame %u\n", f);
    }
out:
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- models ---- */

static void test_models(void)
{
    static const amxw_w3d_pivot pv[] = {
        { .name = "ROOTTRANSFORM", .parent = 0xFFFFFFFFu, .rotation = { 0, 0, 0, 1 } },
        { .name = "BODY", .parent = 0, .rotation = { 0, 0, 0, 1 } },
        { .name = "TURRET", .parent = 1, .rotation = { 0, 0, 0, 1 } },
    };
    amxw_w3d_hierarchy h = { .name = "TANK", .pivots = pv, .pivot_count = 3 };
    amxw_w3d_mesh m1 = { .version = AMXW_W3D_VERSION(5, 0), .attributes = 0x00020000,
                         .name = "HULL", .container = "TANK", .triangles = 50, .vertices = 100,
                         .materials = 1, .damage_stages = 0, .sort_level = 2,
                         .vertex_channels = 0x13, .face_channels = 1,
                         .bbox_min = { -1, -2, -3 }, .bbox_max = { 1, 2, 3 },
                         .sphere_center = { 0, 0, 0.5f }, .sphere_radius = 4, .influences = true,
                         .vertices_chunk = true, .extra_child = 0x60 };
    amxw_w3d_mesh m2 = { .name = "GUN", .container = "TANK", .triangles = 12, .vertices = 8,
                         .legacy = true };
    amxw_w3d_sub_object lod0[] = { { "TANK.HULL", 1 }, { "TANK.GUN", 2 } };
    amxw_w3d_sub_object lod1[] = { { "TANK.HULL", 1 } };
    amxw_w3d_sub_object agg[] = { { "TANK.FLAG", 2 } };
    amxw_w3d_lod lods[] = { { .max_screen_size = 3.4e38f, .objects = lod0, .object_count = 2 },
                            { .max_screen_size = 0.5f, .objects = lod1, .object_count = 1 } };
    amxw_w3d_lod aggs = { .objects = agg, .object_count = 1 };
    amxw_w3d_hlod hl = { .name = "TANK", .hierarchy = "TANK", .lods = lods, .lod_count = 2,
                         .aggregates = &aggs };
    amxw_w3d_node nodes[] = { { 0x302, "HULL", 1 }, { 0x304, "SKIN", 0 } };
    amxw_w3d_hmodel hm = { .name = "TANKHM", .hierarchy = "TANK", .num_connections = 2,
                           .nodes = nodes, .node_count = 2 };
    amxw_buf b = { 0 };
    /* A box first, like BFME models: recognised and skipped. */
    size_t box = amxw_chunk_begin(&b, 0x740, false);
    amxw_zeros(&b, 68);
    amxw_chunk_end(&b, box);
    CHECK(amx__w3d_probe(b.data, b.len));
    size_t mesh1 = amxw_w3d_mesh_write(&b, &m1);
    amxw_w3d_mesh_write(&b, &m2);
    amxw_w3d_hierarchy_write(&b, &h, NULL); /* after the models: checks still see it */
    amxw_w3d_hlod_write(&b, &hl, NULL);
    amxw_w3d_hmodel_write(&b, &hm, NULL);
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_W3D);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_STR(a->version, "4.1");
    CHECK_EQ(a->skeleton_count, 1);
    const amx_w3d_info *w = a->w3d;
    CHECK(w != NULL);
    if (!w)
        goto out;
    CHECK_EQ(w->mesh_count, 2);
    if (w->mesh_count == 2) {
        const amx_w3d_mesh *m = &w->meshes[0];
        CHECK_STR(m->name, "HULL");
        CHECK_STR(m->container, "TANK");
        CHECK_EQ(m->version, AMXW_W3D_VERSION(5, 0));
        CHECK_EQ(m->attributes, 0x00020000);
        CHECK(m->skin && m->has_influences && m->has_header);
        CHECK_EQ(m->triangles, 50);
        CHECK_EQ(m->vertices, 100);
        CHECK_EQ(m->materials, 1);
        CHECK_EQ(m->sort_level, 2);
        CHECK_EQ(m->vertex_channels, 0x13);
        CHECK_EQ(m->face_channels, 1);
        CHECK(m->bbox_min[2] == -3 && m->bbox_max[1] == 2 && m->sphere_center[2] == 0.5f &&
              m->sphere_radius == 4);
        CHECK_EQ(m->offset, (int64_t)mesh1);
        m = &w->meshes[1];
        CHECK_STR(m->name, "GUN");
        CHECK(!m->skin && !m->has_influences);
        CHECK_EQ(m->vertices, 8);
        CHECK_EQ(m->version, AMXW_W3D_VERSION(4, 2));
    }
    CHECK_EQ(w->hlod_count, 1);
    if (w->hlod_count == 1) {
        const amx_w3d_hlod *x = &w->hlods[0];
        CHECK_STR(x->name, "TANK");
        CHECK_STR(x->hierarchy, "TANK");
        CHECK_EQ(x->version, AMXW_W3D_VERSION(1, 0));
        CHECK_EQ(x->declared_lods, 2);
        CHECK_EQ(x->lod_count, 2);
        if (x->lod_count == 2) {
            CHECK(x->lods[0].max_screen_size == 3.4e38f);
            CHECK_EQ(x->lods[0].object_count, 2);
            CHECK_EQ(x->lods[0].declared_count, 2);
            if (x->lods[0].object_count == 2) {
                CHECK_STR(x->lods[0].objects[0].name, "TANK.HULL");
                CHECK_EQ(x->lods[0].objects[0].bone, 1);
                CHECK_STR(x->lods[0].objects[1].name, "TANK.GUN");
                CHECK_EQ(x->lods[0].objects[1].bone, 2);
                CHECK_EQ(x->lods[0].objects[1].kind, 0x704);
            }
            CHECK(x->lods[1].max_screen_size == 0.5f);
            CHECK_EQ(x->lods[1].object_count, 1);
        }
        CHECK(x->aggregates != NULL);
        if (x->aggregates) {
            CHECK_EQ(x->aggregates->object_count, 1);
            if (x->aggregates->object_count)
                CHECK_STR(x->aggregates->objects[0].name, "TANK.FLAG");
        }
        CHECK(x->proxies == NULL);
    }
    CHECK_EQ(w->hmodel_count, 1);
    if (w->hmodel_count == 1) {
        const amx_w3d_hmodel *x = &w->hmodels[0];
        CHECK_STR(x->name, "TANKHM");
        CHECK_STR(x->hierarchy, "TANK");
        CHECK_EQ(x->declared_connections, 2);
        CHECK_EQ(x->node_count, 2);
        if (x->node_count == 2) {
            CHECK_STR(x->nodes[0].name, "HULL");
            CHECK_EQ(x->nodes[0].bone, 1);
            CHECK_EQ(x->nodes[0].kind, 0x302);
            CHECK_EQ(x->nodes[1].kind, 0x304);
        }
    }
out:
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* A mesh-only file: the version comes from the mesh. */
    amxw_w3d_mesh_write(&b, &m1);
    a = decode(&b);
    CHECK_CLEAN(a);
    CHECK_STR(a->version, "5.0");
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- BIG archives ---- */

static void test_big(void)
{
    amxw_buf w3d = { 0 };
    write_skl(&w3d, NULL);
    static const uint8_t ini[] = "Object Tank\nEnd\n";
    static const uint8_t tga[] = { 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8, 1, 2, 3, 4 };
    amxw_big_file files[] = {
        { "art\\w3d\\skl.w3d", w3d.data, w3d.len },
        { "data\\ini\\object\\tank.ini", ini, sizeof ini - 1 },
        { "Art\\Textures\\t.tga", tga, sizeof tga },
        { "empty.txt", NULL, 0 },
    };
    static const char *names[] = { "art/w3d/skl.w3d", "data/ini/object/tank.ini",
                                   "Art/Textures/t.tga", "empty.txt" };
    for (int v = 0; v < 2; v++) {
        amxw_buf b = { 0 };
        amxw_big_opts o = { .magic = v ? "BIG4" : "BIGF", .gap = v ? 8 : 0 };
        amxw_big_layout lay;
        amxw_big(&b, files, 4, &o, &lay);
        CHECK(amx__big_probe(b.data, b.len));
        CHECK(!amx__w3d_probe(b.data, b.len));
        CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_BIG);
        CHECK(amx_format_is_archive(AMX_FMT_BIG));
        amx_asset *a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
        CHECK_CLEAN(a);
        CHECK_STR(a->version, v ? "BIG4" : "BIGF");
        CHECK(a->archive != NULL);
        if (a->archive) {
            CHECK_EQ(a->archive->entry_count, 4);
            for (uint32_t i = 0; i < 4 && i < a->archive->entry_count; i++) {
                const amx_archive_entry *e = &a->archive->entries[i];
                CHECK_STR(e->name, names[i]);
                CHECK_EQ(e->offset, lay.data[i]);
                CHECK_EQ(e->size, files[i].size);
                CHECK(e->valid);
                CHECK(e->offset + e->size <= b.len);
                if (files[i].size && e->offset + e->size <= b.len)
                    CHECK(memcmp(b.data + e->offset, files[i].data, files[i].size) == 0);
            }
            /* The member decodes like a loose file. */
            if (a->archive->entry_count) {
                const amx_archive_entry *e = &a->archive->entries[0];
                amx_asset *m = decode_fmt(b.data + e->offset, (size_t)e->size, AMX_FMT_W3D, false);
                CHECK_EQ(m->skeleton_count, 1);
                amx_asset_free(m);
            }
        }
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
    amxw_buf_free(&w3d);
}

/* ---- probes ---- */

static bool probe_prefix(const uint8_t *p, size_t n)
{
    return amx__w3d_probe(p, n < 4096 ? n : 4096);
}

static void test_probe(void)
{
    static const uint8_t ifx[] = { 'I', 'F', 'X', 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    CHECK(!amx__w3d_probe(ifx, sizeof ifx));
    CHECK(!amx__w3d_probe(NULL, 0));
    static const uint8_t zeros[64] = { 0 };
    CHECK(!amx__w3d_probe(zeros, sizeof zeros));
    CHECK(!amx__w3d_probe(zeros, 8));
    /* Alamo-shaped chunks with W3D ids. */
    amxw_buf b = { 0 };
    size_t c = amxw_chunk_begin(&b, 0x200, true);
    size_t h = amxw_chunk_begin(&b, 0x201, false);
    amxw_u32le(&b, 3);
    amxw_zeros(&b, 124);
    amxw_chunk_end(&b, h);
    amxw_chunk_end(&b, c);
    CHECK(!amx__w3d_probe(b.data, b.len));
    amxw_buf_free(&b);
    c = amxw_chunk_begin(&b, 0x600, true);
    h = amxw_chunk_begin(&b, 0x601, false);
    amxw_mini_u32(&b, 1, 2);
    amxw_mini_u32(&b, 4, 0);
    amxw_chunk_end(&b, h);
    amxw_chunk_end(&b, c);
    CHECK(!amx__w3d_probe(b.data, b.len));
    amxw_buf_free(&b);
    c = amxw_chunk_begin(&b, 0x400, true);
    amxw_chunk_str(&b, 0x401, "A_MESH_NAME_OF_23_CHARS");
    amxw_chunk_end(&b, c);
    CHECK(!amx__w3d_probe(b.data, b.len));
    amxw_buf_free(&b);

    /* A classic W3D animation (0x200 with bit 31, like an Alamo skeleton): the registry takes
     * it for W3D, since the Alamo model probe wants a 128-byte 0x201 first child. */
    amxw_w3d_anim an = { .name = "A", .hierarchy = "SKL", .frames = 1, .fps = 30 };
    amxw_w3d_anim_write(&b, &an, NULL);
    CHECK(amx__w3d_probe(b.data, b.len));
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_W3D);
    amxw_buf_free(&b);
    an.legacy = true;
    amxw_w3d_anim_write(&b, &an, NULL);
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_W3D);
    amxw_buf_free(&b);

    /* The corpora: every W3D file is taken, no Alamo file is. */
    const char *sub[2] = { "w3d", "alamo" };
    int counts[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", test_corpus_dir(), sub[k]);
        DIR *dp = opendir(dir);
        if (!dp) {
            printf("# no corpus at %s\n", dir);
            continue;
        }
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (e->d_name[0] == '.')
                continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            size_t len = 0;
            unsigned char *data = test_read_file(path, &len);
            if (!data)
                continue;
            counts[k]++;
            bool w = amx__w3d_probe(data, len), wp = probe_prefix(data, len);
            if (k == 0) {
                CHECK(w && wp);
                CHECK_EQ(amx_probe(data, len), AMX_FMT_W3D);
            } else {
                CHECK(!w && !wp);
                CHECK(amx_probe(data, len) != AMX_FMT_W3D);
            }
            if (w != (k == 0))
                printf("# probe wrong for %s\n", path);
            free(data);
        }
        closedir(dp);
    }
    printf("# probe: %d W3D and %d Alamo corpus files\n", counts[0], counts[1]);
}

/* ---- the real files ---- */

typedef struct manifest_w3d {
    char file[128];
    char desc[1024];
} manifest_w3d;

static int read_manifest(manifest_w3d *out, int max)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", test_corpus_dir());
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        if (strncmp(line, "w3d/", 4) != 0)
            continue;
        char *tab = strchr(line, '\t');
        const char *desc = strrchr(line, '\t');
        if (!tab || !desc)
            continue;
        *tab = '\0';
        snprintf(out[n].file, sizeof out[n].file, "%.127s", line + 4);
        snprintf(out[n].desc, sizeof out[n].desc, "%.1023s", desc + 1);
        n++;
    }
    fclose(f);
    return n;
}

static const amx_skeleton *find_skeleton(const amx_asset *a, const char *name)
{
    for (uint32_t i = 0; i < a->skeleton_count; i++)
        if (strcmp(a->skeletons[i].name, name) == 0)
            return &a->skeletons[i];
    return NULL;
}

/* Skeletons of the whole corpus, for the binding check. */
typedef struct corpus_skel { char name[32]; uint32_t bones; } corpus_skel;

static void check_manifest(const amx_asset *a, const manifest_w3d *m, const unsigned char *data)
{
    const char *p = m->desc;
    /* "HIERARCHY NAME v4.1 29 pivots" */
    const char *h = strstr(p, "HIERARCHY ");
    if (h) {
        char name[64];
        unsigned maj, min, pivots;
        if (sscanf(h, "HIERARCHY %63s v%u.%u %u pivots", name, &maj, &min, &pivots) == 4) {
            const amx_skeleton *s = find_skeleton(a, name);
            CHECK(s != NULL);
            if (s)
                CHECK_EQ(s->bone_count, pivots);
            char ver[16];
            snprintf(ver, sizeof ver, "%u.%u", maj, min);
            CHECK_STR(a->version, ver);
        }
    }
    /* "COMPRESSED_ANIM NAME (htree SKL) v0.1 33f@30fps flavor 0" */
    const char *c = strstr(p, "COMPRESSED_ANIM ");
    if (c) {
        char name[64], hier[64];
        unsigned frames, fps, flavor;
        if (sscanf(c, "COMPRESSED_ANIM %63s (htree %63[^)]) v%*u.%*u %uf@%ufps flavor %u", name,
                   hier, &frames, &fps, &flavor) == 5) {
            CHECK_EQ(a->clip_count, 1);
            if (a->clip_count == 1) {
                CHECK_STR(a->clips[0].name, name);
                CHECK_STR(a->clips[0].skeleton, hier);
                CHECK_EQ(a->clips[0].frames, frames);
                CHECK(a->clips[0].fps == (float)fps);
            }
        } else {
            CHECK(!"unparsed COMPRESSED_ANIM");
        }
    }
    /* "HLOD NAME -> htree SKL" */
    const char *l = strstr(p, "HLOD ");
    if (l) {
        char name[64], hier[64];
        if (sscanf(l, "HLOD %63s -> htree %63[^;]", name, hier) == 2) {
            CHECK(a->w3d && a->w3d->hlod_count == 1);
            if (a->w3d && a->w3d->hlod_count == 1) {
                CHECK_STR(a->w3d->hlods[0].name, name);
                CHECK_STR(a->w3d->hlods[0].hierarchy, hier);
            }
        }
    }
    const char *hm = strstr(p, "HMODEL(obsolete) ");
    if (hm) {
        char name[64], hier[64];
        if (sscanf(hm, "HMODEL(obsolete) %63s -> htree %63[^;]", name, hier) == 2) {
            CHECK(a->w3d && a->w3d->hmodel_count == 1);
            if (a->w3d && a->w3d->hmodel_count == 1) {
                CHECK_STR(a->w3d->hmodels[0].name, name);
                CHECK_STR(a->w3d->hmodels[0].hierarchy, hier);
            }
        }
    }
    const char *me = strstr(p, "mesh x");
    unsigned meshes;
    if (me && sscanf(me, "mesh x%u", &meshes) == 1)
        CHECK(a->w3d && a->w3d->mesh_count == meshes);
    if (strstr(p, "WITHOUT 0x80000000"))
        CHECK_EQ(data[7] & 0x80, 0); /* the first container: no sub-chunk bit */
    if (strstr(p, "tc-bit(0x283)") && a->clip_count == 1) {
        bool vis = false;
        for (uint32_t t = 0; t < a->clips[0].track_count; t++)
            vis |= (a->clips[0].tracks[t].channels & AMX_CH_VISIBILITY) != 0;
        CHECK(vis);
    }
}

static void test_corpus(void)
{
    manifest_w3d *man = calloc(64, sizeof *man);
    int nman = read_manifest(man, 64);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/w3d", test_corpus_dir());
    DIR *dp = opendir(dir);
    if (!dp) {
        printf("# no corpus at %s; skipped\n", dir);
        free(man);
        return;
    }
    corpus_skel skels[64];
    int nskel = 0;
    struct { char skel[32]; uint32_t max_pivot; char file[128]; } binds[64];
    int nbind = 0;
    int files = 0, clips = 0, rotations = 0;
    double min_norm = 2, max_norm = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        unsigned char *data = test_read_file(path, &len);
        CHECK(data != NULL);
        if (!data)
            continue;
        files++;
        amx_asset *a = decode_fmt(data, len, AMX_FMT_W3D, true);
        amx_decode_opts o = { .samples = false };
        amx_asset *probed = NULL;
        CHECK_EQ(amx_decode(data, len, &o, &probed), AMX_OK);
        if (probed) {
            CHECK_EQ(probed->format, AMX_FMT_W3D);
            amx_asset_free(probed);
        }
        int before = test_failed_checks;
        CHECK_EQ(a->status, AMX_ASSET_OK);
        CHECK_EQ(test_count_severity(a, AMX_SEV_ERROR), 0);
        CHECK_EQ(test_count_severity(a, AMX_SEV_WARNING), 0);
        if (a->finding_count)
            test_print_findings(a);
        const manifest_w3d *m = NULL;
        for (int i = 0; i < nman; i++)
            if (strcmp(man[i].file, e->d_name) == 0)
                m = &man[i];
        CHECK(m != NULL);
        if (m)
            check_manifest(a, m, data);
        for (uint32_t s = 0; s < a->skeleton_count && nskel < 64; s++) {
            snprintf(skels[nskel].name, sizeof skels[nskel].name, "%.31s", a->skeletons[s].name);
            skels[nskel++].bones = a->skeletons[s].bone_count;
        }
        for (uint32_t ci = 0; ci < a->clip_count; ci++) {
            const amx_clip *c = &a->clips[ci];
            clips++;
            CHECK(c->has_samples);
            uint32_t max_pivot = 0;
            for (uint32_t t = 0; t < c->track_count; t++) {
                const amx_track *tr = &c->tracks[t];
                if ((uint32_t)tr->bone_index > max_pivot)
                    max_pivot = (uint32_t)tr->bone_index;
                if (!(tr->channels & AMX_CH_ROTATION) || !c->has_samples)
                    continue;
                for (uint32_t f = 0; f < c->frames; f++) {
                    const float *q = &tr->rotation[4 * f];
                    double nrm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                    rotations++;
                    if (nrm < min_norm)
                        min_norm = nrm;
                    if (nrm > max_norm)
                        max_norm = nrm;
                }
            }
            if (nbind < 64) {
                snprintf(binds[nbind].skel, sizeof binds[nbind].skel, "%.31s", c->skeleton);
                snprintf(binds[nbind].file, sizeof binds[nbind].file, "%.127s", e->d_name);
                binds[nbind++].max_pivot = max_pivot;
            }
        }
        if (a->w3d)
            for (uint32_t i = 0; i < a->w3d->hlod_count && nbind < 64; i++) {
                const amx_w3d_hlod *hl = &a->w3d->hlods[i];
                uint32_t max_bone = 0;
                for (uint32_t l = 0; l < hl->lod_count; l++)
                    for (uint32_t o2 = 0; o2 < hl->lods[l].object_count; o2++)
                        if (hl->lods[l].objects[o2].bone > max_bone)
                            max_bone = hl->lods[l].objects[o2].bone;
                snprintf(binds[nbind].skel, sizeof binds[nbind].skel, "%.31s", hl->hierarchy);
                snprintf(binds[nbind].file, sizeof binds[nbind].file, "%.127s", e->d_name);
                binds[nbind++].max_pivot = max_bone;
            }
        if (test_failed_checks != before)
            printf("# ... in %s\n", e->d_name);
        amx_asset_free(a);
        free(data);
    }
    closedir(dp);
    /* Bindings: every clip/HLOD whose hierarchy is in the corpus fits it. */
    int resolved = 0;
    for (int i = 0; i < nbind; i++) {
        for (int s = 0; s < nskel; s++) {
            if (strcasecmp(binds[i].skel, skels[s].name) != 0)
                continue;
            resolved++;
            if (binds[i].max_pivot >= skels[s].bones)
                printf("# %s: pivot %u not in %s (%u)\n", binds[i].file, binds[i].max_pivot,
                       skels[s].name, skels[s].bones);
            CHECK(binds[i].max_pivot < skels[s].bones);
            break;
        }
    }
    printf("# corpus: %d W3D files, %d clips, %d sampled rotations with norms %.4f..%.4f, "
           "%d of %d bindings resolved in the corpus\n",
           files, clips, rotations, min_norm, max_norm, resolved, nbind);
    CHECK(files >= 20);
    CHECK(clips >= 5);
    CHECK(rotations > 1000);
    CHECK(min_norm > 0.98 && max_norm < 1.02);
    CHECK(resolved >= 6);
    free(man);
}

/* ---- broken variants ---- */

static void test_broken_hierarchy(void)
{
    amxw_w3d_pivot pv[4];
    memcpy(pv, skl_pivots, sizeof pv);
    amxw_w3d_hierarchy h = { .name = "SKL", .pivots = pv, .pivot_count = 4 };
    amxw_w3d_hierarchy_layout lay;
    amxw_buf b = { 0 };
    amx_asset *a;

    /* A parent at or after its child. */
    pv[2].parent = 3;
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.pivots + 8 + 2 * 60 + AMXW_W3D_PIVOT_PARENT);
    CHECK_EQ(a->skeletons[0].bones[2].parent, -1);
    amx_asset_free(a);
    amxw_buf_free(&b);
    pv[2].parent = 2; /* itself */
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.pivots + 8 + 2 * 60 + AMXW_W3D_PIVOT_PARENT);
    amx_asset_free(a);
    amxw_buf_free(&b);
    pv[2].parent = 1;

    /* A second root. */
    pv[3].parent = 0xFFFFFFFFu;
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.pivots + 8 + 3 * 60 + AMXW_W3D_PIVOT_PARENT);
    CHECK_EQ(a->status, AMX_ASSET_OK); /* a warning */
    amx_asset_free(a);
    amxw_buf_free(&b);
    pv[3].parent = 2;

    /* The header is not the first sub-chunk. */
    h.pivots_first = true;
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.pivots);
    CHECK_EQ(a->skeleton_count, 1);
    amx_asset_free(a);
    amxw_buf_free(&b);
    h.pivots_first = false;

    /* No header at all. */
    h.omit_header = true;
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.chunk);
    CHECK_EQ(a->skeleton_count, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
    h.omit_header = false;

    /* NumPivots does not match the pivot chunk. */
    h.override_num_pivots = true;
    h.num_pivots = 6;
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.pivots);
    CHECK_EQ(a->skeletons[0].bone_count, 4);
    amx_asset_free(a);
    amxw_buf_free(&b);
    h.num_pivots = 1000000000u; /* never allocated */
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.pivots);
    amx_asset_free(a);
    amxw_buf_free(&b);
    h.override_num_pivots = false;

    /* A 16-character name without terminator: legal, noted as info. */
    pv[1].name = "ABCDEFGHIJKLMNOP";
    h.name = "SIXTEEN_CHARS_XX";
    amxw_w3d_hierarchy_write(&b, &h, &lay);
    a = decode(&b);
    CHECK_SEV(a, AMX_C_BAD_VALUE, lay.header + 8 + 4, AMX_SEV_INFO);
    CHECK_SEV(a, AMX_C_BAD_VALUE, lay.pivots + 8 + 60, AMX_SEV_INFO);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_STR(a->skeletons[0].name, "SIXTEEN_CHARS_XX");
    CHECK_STR(a->skeletons[0].bones[1].name, "ABCDEFGHIJKLMNOP");
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_broken_classic(void)
{
    float data[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    uint8_t bits[2] = { 0xFF, 0x01 };
    amxw_w3d_channel ch[] = {
        { .first = 0, .last = 3, .vector_len = 1, .type = 0, .pivot = 1, .data = data, .data_count = 4 },
        { .first = 0, .last = 1, .vector_len = 4, .type = 6, .pivot = 2, .data = data, .data_count = 8 },
    };
    amxw_w3d_bit_channel bc[] = {
        { .first = 0, .last = 3, .pivot = 3, .default_val = 1, .bits = bits, .bit_bytes = 1 },
    };
    amxw_w3d_anim an = { .name = "A", .hierarchy = "SKL", .frames = 4, .fps = 30, .channels = ch,
                         .channel_count = 2, .bits = bc, .bit_count = 1 };
    amxw_w3d_anim_layout lay;
    amx_asset *a;

    /* Correct first. */
    a = anim_asset(&an, true, &lay);
    CHECK_CLEAN(a);
    amx_asset_free(a);

    /* Channel pivot beyond the hierarchy of the same file. */
    ch[0].pivot = 4;
    a = anim_asset(&an, true, &lay);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.channels[0] + 8 + 8);
    amx_asset_free(a);
    /* Without the hierarchy in the file: no check here (the index binds). */
    a = anim_asset(&an, false, &lay);
    CHECK_EQ(test_count_code(a, AMX_C_INDEX_OUT_OF_RANGE), 0);
    CHECK_CLEAN(a);
    amx_asset_free(a);
    ch[0].pivot = 1;

    /* Data shorter than the frame range: an error; frames without data are identity. */
    ch[0].data_count = 2;
    a = anim_asset(&an, false, &lay);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, lay.channels[0], AMX_SEV_ERROR);
    if (a->clip_count && a->clips[0].has_samples) {
        const amx_track *t = track_of(&a->clips[0], 1);
        CHECK(t && t->translation[3] == 2 && t->translation[6] == 0);
    }
    amx_asset_free(a);
    /* Longer: tolerated with an info. */
    ch[0].data_count = 9;
    a = anim_asset(&an, false, &lay);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, lay.channels[0], AMX_SEV_INFO);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    amx_asset_free(a);
    ch[0].data_count = 4;

    /* Last frame before the first. */
    ch[0].first = 3;
    ch[0].last = 1;
    a = anim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[0] + 8);
    amx_asset_free(a);
    ch[0].first = 0;
    ch[0].last = 3;

    /* Unknown channel type, and a vector length that does not fit the type. */
    ch[0].type = 9;
    a = anim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[0] + 8 + 6);
    if (a->clip_count) {
        const amx_track *t = track_of(&a->clips[0], 1);
        CHECK(t && t->channels == 0);
    }
    amx_asset_free(a);
    ch[0].type = 0;
    ch[1].vector_len = 3;
    ch[1].data_count = 6;
    a = anim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[1] + 8 + 4);
    amx_asset_free(a);
    ch[1].vector_len = 4;
    ch[1].data_count = 8;

    /* Bit channel size: exactly 9 + ceil(n / 8). */
    bc[0].bit_bytes = 2;
    a = anim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bits[0]);
    amx_asset_free(a);
    bc[0].bit_bytes = 0;
    a = anim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bits[0]);
    if (a->clip_count && a->clips[0].has_samples) {
        const amx_track *t = track_of(&a->clips[0], 3);
        CHECK(t && t->visibility[0] == 1); /* the default */
    }
    amx_asset_free(a);
    bc[0].bit_bytes = 1;

    /* Header after the channels: legal for the decoder, not for the engine. */
    an.header_last = true;
    a = anim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.channels[0]);
    CHECK_EQ(a->clip_count, 1);
    amx_asset_free(a);
    an.header_last = false;

    /* 16-character animation name. */
    an.name = "0123456789ABCDEF";
    a = anim_asset(&an, false, &lay);
    CHECK_SEV(a, AMX_C_BAD_VALUE, lay.header + 8 + 4, AMX_SEV_INFO);
    CHECK_STR(a->clips[0].name, "0123456789ABCDEF");
    amx_asset_free(a);
}

static void test_broken_compressed(void)
{
    uint32_t xt[] = { 0, 5, 9 };
    float xv[] = { 0, 1, 2 };
    uint32_t bt[] = { 0, 4 | FLAG };
    float di[] = { 0 };
    int8_t dd[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    amxw_w3d_cchannel ch[] = {
        { .kind = AMXW_W3D_TIMECODED, .pivot = 1, .vector_len = 1, .type = 0, .count = 3, .times = xt, .values = xv },
        { .kind = AMXW_W3D_TC_BIT, .pivot = 2, .count = 2, .times = bt, .default_val = 1 },
        { .kind = AMXW_W3D_MOTION_DELTA4, .pivot = 3, .vector_len = 1, .type = 2, .count = 10,
          .scale = 1, .initial = di, .deltas = dd, .filter = 8 },
    };
    amxw_w3d_canim an = { .name = "C", .hierarchy = "SKL", .frames = 10, .fps = 30,
                          .channels = ch, .channel_count = 3 };
    amxw_w3d_anim_layout lay;
    amxw_buf b = { 0 };
    amx_asset *a;

    a = canim_asset(&an, true, &lay);
    CHECK_CLEAN(a);
    amx_asset_free(a);

    /* Pivot beyond the hierarchy. */
    ch[0].pivot = 7;
    a = canim_asset(&an, true, &lay);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.channels[0] + 8 + 4);
    amx_asset_free(a);
    ch[0].pivot = 1;

    /* Time codes not ascending; beyond the frame count. */
    xt[2] = 5;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[0] + 8 + 8 + 2 * 8);
    amx_asset_free(a);
    xt[2] = 10;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.channels[0] + 8 + 8 + 2 * 8);
    amx_asset_free(a);
    xt[2] = 9;
    bt[1] = 12 | FLAG;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.channels[1] + 8 + 8 + 4);
    amx_asset_free(a);
    bt[1] = 4 | FLAG;

    /* Unknown type; vector length not fitting. */
    ch[0].type = 7;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[0] + 8 + 7);
    amx_asset_free(a);
    ch[0].type = 6; /* Q with vector length 1 */
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[0] + 8 + 6);
    amx_asset_free(a);
    ch[0].type = 0;

    /* Channel data size vs its key count. */
    ch[0].extra_bytes = -3;
    a = canim_asset(&an, false, &lay);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, lay.channels[0], AMX_SEV_ERROR);
    amx_asset_free(a);
    ch[0].extra_bytes = 0;

    /* 0x283 size: exactly 8 + 4N. */
    ch[1].extra_bytes = 4;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.channels[1]);
    amx_asset_free(a);
    ch[1].extra_bytes = 0;

    /* 0x284: zero byte, delta type, size. */
    ch[2].zero = 1;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[2] + 8);
    amx_asset_free(a);
    ch[2].zero = 0;
    ch[2].delta_type_override = 3;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[2] + 8 + 1);
    amx_asset_free(a);
    ch[2].delta_type_override = 0;
    ch[2].extra_bytes = -2;
    a = canim_asset(&an, false, &lay);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, lay.channels[2], AMX_SEV_ERROR);
    amx_asset_free(a);
    ch[2].extra_bytes = 0;

    /* 0x284 adaptive delta of N frames in an animation of 10: N = 1 is a constant channel (as
     * BFME2's guaragorn_idla.w3d writes three), any other N a COUNT_MISMATCH at the channel. */
    ch[2].count = 1;
    a = canim_asset(&an, true, &lay);
    CHECK_CLEAN(a);
    if (a->clip_count == 1 && a->clips[0].has_samples) {
        const amx_track *t = track_of(&a->clips[0], 3);
        CHECK(t && t->channels == AMX_CH_TRANSLATION);
        for (uint32_t f = 0; t && f < 10; f++)
            CHECK(t->translation[3 * f + 2] == 0.0f); /* di[0], held */
    } else {
        CHECK(!"a sampled clip");
    }
    amx_asset_free(a);
    di[0] = 2.5f;
    a = canim_asset(&an, true, &lay);
    const amx_track *held = a->clip_count == 1 ? track_of(&a->clips[0], 3) : NULL;
    CHECK(held && held->translation[3 * 9 + 2] == 2.5f);
    amx_asset_free(a);
    di[0] = 0;
    ch[2].count = 5;
    a = canim_asset(&an, true, &lay);
    CHECK_SEV(a, AMX_C_COUNT_MISMATCH, lay.channels[2] + 8, AMX_SEV_WARNING);
    amx_asset_free(a);
    ch[2].count = 10;

    /* Flavor 2: BAD_VALUE at the flavor field; its 0x282 channels are not decoded. */
    an.flavor = 2;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.header + 8 + 42);
    if (a->clip_count) {
        const amx_track *t = track_of(&a->clips[0], 1);
        CHECK(t && t->channels == 0);
    }
    amx_asset_free(a);
    an.flavor = 0;

    /* Header not first. */
    an.header_last = true;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.channels[0]);
    amx_asset_free(a);
    an.header_last = false;

    /* Adaptive delta (flavor 1) cut short. */
    amxw_w3d_cchannel ad = { .kind = AMXW_W3D_DELTA4, .pivot = 1, .vector_len = 1, .type = 0,
                             .count = 10, .scale = 1, .initial = di, .deltas = dd, .filter = 8,
                             .extra_bytes = -7 };
    amxw_w3d_canim an2 = { .name = "D", .hierarchy = "SKL", .frames = 10, .fps = 30, .flavor = 1,
                           .channels = &ad, .channel_count = 1 };
    amxw_w3d_canim_write(&b, &an2, &lay);
    a = decode(&b);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, lay.channels[0], AMX_SEV_ERROR);
    if (a->clip_count && a->clips[0].has_samples) {
        const amx_track *t = track_of(&a->clips[0], 1);
        CHECK(t && t->translation[0] == 0 && t->translation[27] == 0);
    }
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* No header chunk at all. */
    an.channel_count = 0;
    size_t c0 = amxw_chunk_begin(&b, 0x280, true);
    size_t c1 = amxw_chunk_begin(&b, 0x282, false);
    amxw_zeros(&b, 8);
    amxw_chunk_end(&b, c1);
    amxw_chunk_end(&b, c0);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, 0);
    CHECK_EQ(a->clip_count, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_broken_models(void)
{
    amxw_w3d_sub_object objs[] = { { "SKL.BODY", 1 }, { "SKL.HEAD", 9 } };
    amxw_w3d_lod lod = { .objects = objs, .object_count = 2 };
    amxw_w3d_hlod hl = { .name = "SKL", .hierarchy = "SKL", .lods = &lod, .lod_count = 1 };
    amxw_w3d_hlod_layout lay;
    amxw_buf b = { 0 };
    amx_asset *a;

    /* A sub-object bound to a bone the hierarchy does not have. */
    write_skl(&b, NULL);
    amxw_w3d_hlod_write(&b, &hl, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.objects[0][1] + 8);
    CHECK_EQ(test_count_code(a, AMX_C_INDEX_OUT_OF_RANGE), 1);
    amx_asset_free(a);
    amxw_buf_free(&b);
    objs[1].bone = 3;

    /* LOD and sub-object counts. */
    hl.override_lod_count = true;
    hl.lod_count_value = 3;
    lod.override_count = true;
    lod.count = 5;
    amxw_w3d_hlod_write(&b, &hl, &lay);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.header + 8 + 4);
    CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.lods[0] + 8);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* Unknown chunks: UNKNOWN_CHUNK (info) only for ids the format documents do not list; known ones are silent. */
    size_t u = amxw_chunk_begin(&b, 0x4242, false);
    amxw_u32le(&b, 1);
    amxw_chunk_end(&b, u);
    write_skl(&b, NULL); /* the file cannot start with an unknown chunk: see below */
    memmove(b.data, b.data + 12, b.len - 12);
    b.len -= 12;
    size_t unknown_at = b.len;
    u = amxw_chunk_begin(&b, 0x4242, false);
    amxw_u32le(&b, 1);
    amxw_chunk_end(&b, u);
    u = amxw_chunk_begin(&b, 0x420, false); /* collection: recognised */
    amxw_chunk_end(&b, u);
    amxw_w3d_mesh m = { .name = "M", .extra_child = 0x777 };
    size_t mesh_at = amxw_w3d_mesh_write(&b, &m);
    a = decode(&b);
    CHECK_SEV(a, AMX_C_UNKNOWN_CHUNK, unknown_at, AMX_SEV_INFO);
    CHECK_SEV(a, AMX_C_UNKNOWN_CHUNK, mesh_at + 8 + 8 + 116, AMX_SEV_INFO);
    CHECK_EQ(a->finding_count, 2);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* An unknown first chunk with the format forced: not W3D. */
    u = amxw_chunk_begin(&b, 0x4242, false);
    amxw_chunk_end(&b, u);
    a = decode(&b);
    CHECK_FINDING(a, AMX_C_BAD_MAGIC, 0);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* Truncated file. */
    write_skl(&b, NULL);
    a = decode_fmt(b.data, b.len - 10, AMX_FMT_W3D, true);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    amx_asset_free(a);
    a = decode_fmt(b.data, 5, AMX_FMT_W3D, true);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_broken_big(void)
{
    static const uint8_t d1[] = "hello", d2[] = "world!";
    amxw_big_file files[] = { { "a\\b.txt", d1, 5 }, { "c.txt", d2, 6 } };
    amxw_big_layout lay;
    amxw_buf b = { 0 };
    amx_asset *a;

    /* Stated archive size wrong: a warning. */
    amxw_big_opts o = { .override_archive_size = true, .archive_size = 12345 };
    amxw_big(&b, files, 2, &o, &lay);
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_SEV(a, AMX_C_SIZE_MISMATCH, 4, AMX_SEV_WARNING);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* First data offset inside the index. */
    o = (amxw_big_opts){ .override_first_offset = true, .first_offset = 20 };
    amxw_big(&b, files, 2, &o, &lay);
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, 12);
    amx_asset_free(a);
    amxw_buf_free(&b);
    /* ... or outside the file. */
    o.first_offset = 100000;
    amxw_big(&b, files, 2, &o, &lay);
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, 12);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* A member past the end: not valid. */
    amxw_big(&b, files, 2, NULL, &lay);
    b.len -= 3; /* cut into the last member; fix the stated size so only that is reported */
    amxw_put_u32le(&b, 4, (uint32_t)b.len);
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_CHUNK_OVERRUN, lay.entries[1]);
    CHECK(a->archive && a->archive->entry_count == 2 && a->archive->entries[0].valid &&
          !a->archive->entries[1].valid);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* Member data starting inside the index. */
    amxw_big(&b, files, 2, NULL, &lay);
    b.data[lay.entries[0] + 3] = 8; /* offset 8: inside the header */
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.entries[0]);
    CHECK(a->archive && !a->archive->entries[0].valid);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* A name that is not terminated before the end of the file. */
    amxw_big_file one = { "unterminated", NULL, 0 };
    amxw_big(&b, &one, 1, NULL, &lay);
    b.len -= 1;
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_TRUNCATED, lay.entries[0] + 8);
    CHECK(a->archive && a->archive->entry_count == 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* More entries than the file can hold: never allocated. */
    o = (amxw_big_opts){ .override_count = true, .count = 0xFFFFFFFFu };
    amxw_big(&b, files, 2, &o, &lay);
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 8);
    CHECK(a->archive && a->archive->entry_count == 2);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* Duplicate names; empty name. */
    amxw_big_file dup[] = { { "x\\A.W3D", d1, 5 }, { "X\\a.w3d", d2, 6 }, { "", d1, 1 } };
    amxw_big(&b, dup, 3, NULL, &lay);
    a = decode_fmt(b.data, b.len, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_ARCHIVE_DUPLICATE, lay.entries[1]);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.entries[2] + 8);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* Header cut short. */
    a = decode_fmt((const uint8_t *)"BIGF\0\0\0", 7, AMX_FMT_BIG, false);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
}

/* ---- robustness ---- */

static void mutate_both(const amxw_buf *b, size_t stride, mutate_stats *st)
{
    mutate_all(b->data, b->len, stride, NULL, st);
    amx_decode_opts o = { .format = AMX_FMT_W3D };
    mutate_all(b->data, b->len, stride, &o, st);
}

static void test_mutations(void)
{
    mutate_stats st = { 0 };
    amxw_buf b = { 0 };

    /* hierarchy + classic animation with every channel kind */
    float data[40];
    for (int i = 0; i < 40; i++)
        data[i] = (float)i * 0.5f;
    uint8_t bits[2] = { 0x5A, 0x03 };
    amxw_w3d_channel ch[] = {
        { .first = 0, .last = 4, .vector_len = 1, .type = 0, .pivot = 1, .data = data, .data_count = 5 },
        { .first = 2, .last = 5, .vector_len = 4, .type = 6, .pivot = 2, .data = data, .data_count = 16 },
    };
    amxw_w3d_bit_channel bc = { .first = 0, .last = 9, .pivot = 3, .default_val = 1, .bits = bits, .bit_bytes = 2 };
    amxw_w3d_anim an = { .name = "M", .hierarchy = "SKL", .frames = 10, .fps = 30, .channels = ch,
                         .channel_count = 2, .bits = &bc, .bit_count = 1 };
    write_skl(&b, NULL);
    amxw_w3d_anim_write(&b, &an, NULL);
    mutate_both(&b, 1, &st);
    amxw_buf_free(&b);

    /* compressed: time-coded (step), bit channel, motion channels */
    uint32_t xt[] = { 0, 3 | FLAG, 9 };
    float xv[] = { 0, 1, 2 }, qv[12] = { 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0 };
    uint32_t bt[] = { 0 | FLAG, 5 };
    int8_t dd[36];
    for (int i = 0; i < 36; i++)
        dd[i] = (int8_t)(i % 7 - 3);
    float di[4] = { 0, 0, 0, 1 };
    amxw_w3d_cchannel cc[] = {
        { .kind = AMXW_W3D_TIMECODED, .pivot = 1, .vector_len = 1, .type = 0, .count = 3, .times = xt, .values = xv },
        { .kind = AMXW_W3D_TIMECODED, .pivot = 1, .vector_len = 4, .type = 6, .count = 3, .times = xt, .values = qv },
        { .kind = AMXW_W3D_TC_BIT, .pivot = 2, .count = 2, .times = bt },
        { .kind = AMXW_W3D_MOTION_TC, .pivot = 3, .vector_len = 1, .type = 1, .count = 3, .times = xt, .values = xv },
        { .kind = AMXW_W3D_MOTION_DELTA4, .pivot = 3, .vector_len = 4, .type = 6, .count = 10,
          .scale = 0.1f, .initial = di, .deltas = dd, .filter = 20 },
        { .kind = AMXW_W3D_MOTION_DELTA8, .pivot = 2, .vector_len = 1, .type = 2, .count = 10,
          .scale = 2, .initial = di, .deltas = dd, .filter = 9 },
    };
    amxw_w3d_canim ca = { .name = "T", .hierarchy = "SKL", .frames = 10, .fps = 30,
                          .channels = cc, .channel_count = 6 };
    write_skl(&b, NULL);
    amxw_w3d_canim_write(&b, &ca, NULL);
    mutate_both(&b, 1, &st);
    amxw_buf_free(&b);

    /* adaptive delta flavor 1 */
    amxw_w3d_cchannel ad[] = {
        { .kind = AMXW_W3D_DELTA4, .pivot = 1, .vector_len = 4, .type = 6, .count = 10,
          .scale = 0.5f, .initial = di, .deltas = dd, .filter = 30 },
        { .kind = AMXW_W3D_DELTA4, .pivot = 2, .vector_len = 1, .type = 0, .count = 10,
          .scale = 0.5f, .initial = di, .deltas = dd, .filter = 8 },
    };
    amxw_w3d_canim cd = { .name = "D", .hierarchy = "SKL", .frames = 10, .fps = 30, .flavor = 1,
                          .channels = ad, .channel_count = 2 };
    amxw_w3d_canim_write(&b, &cd, NULL);
    mutate_both(&b, 1, &st);
    amxw_buf_free(&b);

    /* models */
    amxw_w3d_sub_object objs[] = { { "SKL.BODY", 1 }, { "SKL.HEAD", 3 } };
    amxw_w3d_lod lod = { .max_screen_size = 1, .objects = objs, .object_count = 2 };
    amxw_w3d_hlod hl = { .name = "SKL", .hierarchy = "SKL", .lods = &lod, .lod_count = 1,
                         .proxies = &lod };
    amxw_w3d_mesh m = { .name = "BODY", .container = "SKL", .attributes = 0x20000, .vertices = 2,
                        .influences = true };
    amxw_w3d_node nodes[] = { { 0x302, "BODY", 1 } };
    amxw_w3d_hmodel hm = { .name = "SKL", .hierarchy = "SKL", .num_connections = 1,
                           .nodes = nodes, .node_count = 1, .legacy = true };
    write_skl(&b, NULL);
    amxw_w3d_mesh_write(&b, &m);
    amxw_w3d_hlod_write(&b, &hl, NULL);
    amxw_w3d_hmodel_write(&b, &hm, NULL);
    mutate_both(&b, 1, &st);
    amxw_buf_free(&b);

    /* old hierarchy */
    amxw_w3d_hierarchy h = { .version = AMXW_W3D_VERSION(2, 0), .name = "OLD",
                             .pivots = skl_pivots, .pivot_count = 4, .legacy = true };
    amxw_w3d_hierarchy_write(&b, &h, NULL);
    mutate_both(&b, 1, &st);
    amxw_buf_free(&b);

    /* BIG */
    amxw_buf inner = { 0 };
    write_skl(&inner, NULL);
    amxw_big_file files[] = { { "art\\w3d\\skl.w3d", inner.data, inner.len }, { "x.ini", (const uint8_t *)"abc", 3 } };
    amxw_big(&b, files, 2, NULL, NULL);
    mutate_all(b.data, b.len, 1, NULL, &st);
    amxw_buf_free(&b);
    amxw_buf_free(&inner);

    printf("# generated mutations: %zu decodes (ok %zu, partial %zu, error %zu)\n", st.decodes,
           st.statuses[0], st.statuses[1], st.statuses[2]);
    CHECK_EQ(st.violations, 0);
    CHECK(st.decodes > 20000);
}

static void test_corpus_mutations(void)
{
    static const struct { const char *name; size_t stride; } files[] = {
        { "bp_90d1182_auelladan_diea.w3d", 199 },   /* 0x282 flavor 0 + 0x283 */
        { "bp_faad3e4_gbdolamr_bld.w3d", 1499 },   /* hierarchy, animation, HLOD, meshes */
        { "ow3d_waymid.w3d", 7 },                  /* Renegade, no bit 31, HMODEL */
    };
    mutate_stats st = { 0 };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/w3d/%s", test_corpus_dir(), files[i].name);
        size_t len = 0;
        unsigned char *data = test_read_file(path, &len);
        if (!data) {
            printf("# no %s; skipped\n", path);
            continue;
        }
        size_t before = st.decodes;
        clock_t t0 = clock();
        mutate_all(data, len, files[i].stride, NULL, &st);
        printf("# %s: %zu decodes, %.2f s\n", files[i].name, st.decodes - before,
               (double)(clock() - t0) / CLOCKS_PER_SEC);
        free(data);
    }
    printf("# corpus mutations: %zu decodes (ok %zu, partial %zu, error %zu)\n", st.decodes,
           st.statuses[0], st.statuses[1], st.statuses[2]);
    CHECK_EQ(st.violations, 0);
}

/* Claims far beyond the file: counts are checked before anything is allocated. */
static void test_hostile(void)
{
    amxw_buf b = { 0 };
    /* A compressed animation with a billion frames and a channel claiming 2^32-1 keys. */
    size_t c = amxw_chunk_begin(&b, 0x280, true);
    size_t h = amxw_chunk_begin(&b, 0x281, false);
    amxw_u32le(&b, 1);
    amxw_zeros(&b, 32);
    amxw_u32le(&b, 1000000000u);
    amxw_u16le(&b, 30);
    amxw_u16le(&b, 0);
    amxw_chunk_end(&b, h);
    size_t k = amxw_chunk_begin(&b, 0x282, false);
    amxw_u32le(&b, 0xFFFFFFFFu);
    amxw_u16le(&b, 0);
    amxw_u8(&b, 1);
    amxw_u8(&b, 0);
    amxw_u32le(&b, 0);
    amxw_f32le(&b, 1);
    amxw_chunk_end(&b, k);
    amxw_chunk_end(&b, c);
    amx_asset *a = decode(&b);
    CHECK(test_find(a, AMX_C_LIMIT_EXCEEDED, TEST_ANY_OFFSET) != NULL);
    CHECK(test_find(a, AMX_C_SIZE_MISMATCH, (int64_t)k) != NULL);
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count)
        CHECK(!a->clips[0].has_samples);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* Non-finite values: reported, identity used; huge deltas overflow: reported, finite. */
    float inf = INFINITY;
    float xv[] = { inf, 1 };
    uint32_t xt[] = { 0, 3 };
    int8_t dd[9] = { 7, 7, 7, 7, 7, 7, 7, 7, 7 };
    float di[] = { 3e38f };
    amxw_w3d_cchannel ch[] = {
        { .kind = AMXW_W3D_TIMECODED, .pivot = 1, .vector_len = 1, .type = 0, .count = 2, .times = xt, .values = xv },
        { .kind = AMXW_W3D_MOTION_DELTA4, .pivot = 2, .vector_len = 1, .type = 0, .count = 10,
          .scale = 3e38f, .initial = di, .deltas = dd, .filter = 15 },
    };
    amxw_w3d_canim an = { .name = "H", .hierarchy = "X", .frames = 10, .fps = 30, .channels = ch,
                          .channel_count = 2 };
    amxw_w3d_anim_layout lay;
    a = canim_asset(&an, false, &lay);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[0] + 8 + 8 + 4);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.channels[1]);
    amx_asset_free(a);
}

int main(void)
{
    RUN(test_hierarchy);
    RUN(test_hierarchy_old_version);
    RUN(test_classic);
    RUN(test_timecoded);
    RUN(test_adaptive_delta);
    RUN(test_motion_channels);
    RUN(test_models);
    RUN(test_big);
    RUN(test_probe);
    RUN(test_corpus);
    RUN(test_broken_hierarchy);
    RUN(test_broken_classic);
    RUN(test_broken_compressed);
    RUN(test_broken_models);
    RUN(test_broken_big);
    RUN(test_hostile);
    RUN(test_mutations);
    RUN(test_corpus_mutations);
    return test_done();
}
