/* Unit tests for the Alamo ALA animation decoder (lib/format/ala.c) and the ALA writer. */
#include "test.h"
#include "ala_writer.h"
#include "buf.h"
#include "check_asset.h"
#include "decoder.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define CLIP_FILE "Data/Art/Models/VSF_TEST_DEPLOY_00.ala"

static amx_asset *decode_named(const uint8_t *p, size_t n, const char *file_name, bool samples)
{
    amx_decode_opts o = { .samples = samples, .file_name = file_name };
    amx_asset *a = test_decode(p, n, &o);
    if (a)
        CHECK_EQ(a->format, AMX_FMT_ALAMO_ALA);
    return a;
}

static amx_asset *decode(const amxw_buf *b) { return decode_named(b->data, b->len, CLIP_FILE, true); }

/* offset < 0: any offset */
static const amx_finding *find_at(const amx_asset *a, amx_code code, int64_t offset)
{
    return test_find(a, code, offset < 0 ? TEST_ANY_OFFSET : offset);
}

/* Context of the first finding with this code ("(none)" when there is none). */
static const char *context_of(const amx_asset *a, amx_code code)
{
    const amx_finding *f = find_at(a, code, -1);
    return f ? f->context : "(none)";
}

/* ---- expected values from a spec ---- */

static float unpack(float offset, uint16_t v, float scale) { return offset + (float)v * scale; }

static uint8_t spec_bit(const uint8_t *bits, size_t nbytes, uint32_t f, uint8_t rest)
{
    if (!bits || f / 8 >= nbytes)
        return rest;
    return (uint8_t)((bits[f / 8] >> (f % 8)) & 1);
}

static uint32_t spec_channels(const amxw_ala_spec *s, const amxw_ala_bone *b)
{
    uint32_t ch = 0;
    if (b->translation)
        ch |= AMX_CH_TRANSLATION;
    if (b->scale)
        ch |= AMX_CH_SCALE;
    if ((b->rotation && b->rotation_frames) || (s->format == 2 && !b->omit_default_rotation))
        ch |= AMX_CH_ROTATION;
    if (b->visibility)
        ch |= AMX_CH_VISIBILITY;
    if (b->step)
        ch |= AMX_CH_STEP;
    return ch;
}

/* Asserts every decoded value of a correct file against the spec it was written from. */
static void check_against_spec(const amx_asset *a, const amxw_ala_spec *s)
{
    CHECK_STR(a->version, s->format == 2 ? "2" : "1");
    CHECK_EQ(a->clip_count, 1);
    if (a->clip_count != 1)
        return;
    const amx_clip *c = &a->clips[0];
    CHECK(c->has_frames);
    CHECK_EQ(c->frames, s->frames);
    CHECK(c->fps == s->fps);
    CHECK_NEAR(c->duration, (double)s->frames / (double)s->fps, 1e-9);
    CHECK_EQ(c->track_count, s->bone_count);
    CHECK(c->has_samples);
    if (c->track_count != s->bone_count || !c->has_samples)
        return;
    for (uint32_t i = 0; i < s->bone_count; i++) {
        const amxw_ala_bone *b = &s->bones[i];
        const amx_track *t = &c->tracks[i];
        CHECK_STR(t->bone, b->name);
        CHECK_EQ(t->bone_index, b->index);
        CHECK_EQ(t->channels, spec_channels(s, b));
        CHECK_EQ(t->step != NULL, b->step != NULL);
        int bad = 0;
        for (uint32_t f = 0; f < s->frames && bad < 5; f++) {
            int before = test_failed_checks;
            for (int k = 0; k < 3; k++) {
                float et = b->translation && f < b->translation_frames
                               ? unpack(b->trans_offset[k], b->translation[3 * f + k], b->trans_scale[k])
                               : b->trans_offset[k];
                float es = b->scale && f < b->scale_frames
                               ? unpack(b->scale_offset[k], b->scale[3 * f + k], b->scale_scale[k])
                               : b->scale_offset[k];
                CHECK_NEAR(t->translation[3 * f + k], et, 1e-5);
                CHECK_NEAR(t->scale[3 * f + k], es, 1e-5);
            }
            for (int k = 0; k < 4; k++) {
                float er;
                if (b->rotation && b->rotation_frames == 1 && s->format == 1)
                    er = (float)b->rotation[k] / 32767.0f;
                else if (b->rotation && f < b->rotation_frames)
                    er = (float)b->rotation[4 * f + k] / 32767.0f;
                else if (s->format == 2)
                    er = (float)b->default_rotation[k] / 32767.0f;
                else
                    er = k == 3 ? 1.0f : 0.0f;
                CHECK(t->rotation[4 * f + k] == er);
            }
            CHECK_EQ(t->visibility[f], spec_bit(b->visibility, b->visibility_bytes, f, 1));
            if (t->step)
                CHECK_EQ(t->step[f], spec_bit(b->step, b->step_bytes, f, 0));
            if (test_failed_checks != before) {
                printf("# ... at bone %u frame %u\n", i, f);
                bad++;
            }
        }
    }
}

/* ---- sample data ---- */

enum { NF = 10 };

/* one frame more than NF, for the "too long" variants */
static uint16_t t0[3 * (NF + 1)], t2[3 * (NF + 1)], s0[3 * (NF + 1)], s3[3 * (NF + 1)];
static int16_t r0[4 * (NF + 1)], r1[4 * (NF + 1)], r3[4 * (NF + 1)];
static const int16_t r_single[4] = { 1200, -2300, 3400, 32000 };
static const uint8_t vis0[2] = { 0xB5, 0x02 };  /* frames 0..9: 1,0,1,0,1,1,0,1, 0,1 */
static const uint8_t vis2[2] = { 0xFF, 0x01 };
static const uint8_t step0[2] = { 0x81, 0x02 };

static void fill_data(void)
{
    for (int i = 0; i < 3 * (NF + 1); i++) {
        t0[i] = (uint16_t)(i * 2000 + 7);
        t2[i] = (uint16_t)(65535 - i * 1111);
        s0[i] = (uint16_t)(i * 100);
        s3[i] = (uint16_t)(30000 + i * 17);
    }
    for (int i = 0; i < 4 * (NF + 1); i++) {
        r0[i] = (int16_t)(i * 800 - 16000);
        r1[i] = (int16_t)(-i * 811 + 123);
        r3[i] = (int16_t)(i % 2 ? 32767 : -32768);
    }
}

static amxw_ala_bone bone(const char *name, uint32_t index)
{
    return (amxw_ala_bone){
        .name = name, .index = index,
        .trans_offset = { 1.5f, -2.25f, 100.0f }, .trans_scale = { 0.001f, 0.002f, 0.0005f },
        .scale_offset = { 1.0f, 1.0f, 1.0f }, .scale_scale = { 1e-4f, 2e-4f, 3e-4f },
        .default_rotation = { 0, 0, 0, 32767 },
    };
}

/* Format 1: per-frame translation/scale/rotation/visibility/step; constant rotation; missing
 * translation (offset); reversed mini order. */
static void spec_v1(amxw_ala_bone bones[4], amxw_ala_spec *s)
{
    fill_data();
    bones[0] = bone("root", 0);
    bones[0].translation = t0;
    bones[0].translation_frames = NF;
    bones[0].scale = s0;
    bones[0].scale_frames = NF;
    bones[0].rotation = r0;
    bones[0].rotation_frames = NF;
    bones[0].visibility = vis0;
    bones[0].visibility_bytes = 2;
    bones[0].step = step0;
    bones[0].step_bytes = 2;
    bones[1] = bone("turret", 3);
    bones[1].rotation = r_single;
    bones[1].rotation_frames = 1;
    bones[1].unknown = 1;
    bones[2] = bone("engine_l", 5);
    bones[2].translation = t2;
    bones[2].translation_frames = NF;
    bones[2].rotation = r1;
    bones[2].rotation_frames = NF;
    bones[2].visibility = vis2;
    bones[2].visibility_bytes = 2;
    bones[3] = bone("P_HP_ENGINE", 7);
    bones[3].rotation = r3;
    bones[3].rotation_frames = NF;
    bones[3].reverse_minis = true;
    *s = (amxw_ala_spec){ .format = 1, .frames = NF, .fps = 30.0f, .bones = bones, .bone_count = 4 };
}

/* Format 2: translation + rotation + visibility + step; rotation only; no rotation (default
 * rotation, rotIdx 0xFFFF) + translation; scale data (0x100B) + rotation. */
static void spec_v2(amxw_ala_bone bones[4], amxw_ala_spec *s)
{
    fill_data();
    bones[0] = bone("hull", 1);
    bones[0].translation = t0;
    bones[0].translation_frames = NF;
    bones[0].rotation = r0;
    bones[0].rotation_frames = NF;
    bones[0].visibility = vis0;
    bones[0].visibility_bytes = 2;
    bones[0].step = step0;
    bones[0].step_bytes = 2;
    bones[1] = bone("wing02", 2);
    bones[1].rotation = r1;
    bones[1].rotation_frames = NF;
    bones[2] = bone("gun02", 3);
    bones[2].translation = t2;
    bones[2].translation_frames = NF;
    bones[2].default_rotation[0] = 1000;
    bones[2].default_rotation[1] = -2000;
    bones[2].default_rotation[2] = 3000;
    bones[2].default_rotation[3] = 30000;
    bones[3] = bone("MuzzleA_01", 4);
    bones[3].scale = s3;
    bones[3].scale_frames = NF;
    bones[3].rotation = r3;
    bones[3].rotation_frames = NF;
    bones[3].reverse_minis = true;
    *s = (amxw_ala_spec){ .format = 2, .frames = NF, .fps = 15.0f, .bones = bones, .bone_count = 4 };
}

/* ---- correct files ---- */

static void test_probe(void)
{
    amxw_ala_bone bones[4];
    amxw_ala_spec s;
    spec_v1(bones, &s);
    amxw_buf b = { 0 };
    amxw_ala(&b, &s);
    for (size_t n = 0; n < 8; n++)
        CHECK(!amx__ala_probe(b.data, n));
    CHECK(amx__ala_probe(b.data, 8));
    CHECK(amx__ala_probe(b.data, b.len));
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_ALAMO_ALA);
    b.data[7] &= 0x7F; /* not a container */
    CHECK(!amx__ala_probe(b.data, b.len));
    b.data[7] |= 0x80;
    b.data[1] = 0x02; /* type 0x200: an ALO model */
    CHECK(!amx__ala_probe(b.data, b.len));
    amxw_buf_free(&b);
}

static void test_v1_decode(void)
{
    amxw_ala_bone bones[4];
    amxw_ala_spec s;
    spec_v1(bones, &s);
    amxw_buf b = { 0 };
    amxw_ala(&b, &s);
    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    check_against_spec(a, &s);
    const amx_clip *c = &a->clips[0];
    CHECK_STR(c->name, "VSF_TEST_DEPLOY_00");
    CHECK_STR(c->skeleton, "VSF_TEST");
    CHECK_NEAR(c->duration, 10.0 / 30.0, 1e-9);
    /* Spot checks of the unpacking written out by hand. */
    CHECK_NEAR(c->tracks[0].translation[3 * 2 + 1], -2.25f + 14007.0f * 0.002f, 1e-4);
    CHECK_EQ(c->tracks[0].channels, AMX_CH_TRANSLATION | AMX_CH_SCALE | AMX_CH_ROTATION |
                                        AMX_CH_VISIBILITY | AMX_CH_STEP);
    CHECK_EQ(c->tracks[1].channels, AMX_CH_ROTATION); /* constant rotation */
    CHECK(c->tracks[1].rotation[4 * 9 + 3] == 32000.0f / 32767.0f);
    CHECK(c->tracks[1].translation[3 * 9 + 2] == 100.0f); /* no 0x1004: the offset */
    CHECK(c->tracks[1].scale[0] == 1.0f);
    CHECK(c->tracks[1].step == NULL);
    CHECK_EQ(c->tracks[1].visibility[5], 1); /* no 0x1007: visible */
    static const uint8_t vis[NF] = { 1, 0, 1, 0, 1, 1, 0, 1, 0, 1 };
    static const uint8_t step[NF] = { 1, 0, 0, 0, 0, 0, 0, 1, 0, 1 };
    for (int f = 0; f < NF; f++) {
        CHECK_EQ(c->tracks[0].visibility[f], vis[f]);
        CHECK_EQ(c->tracks[0].step[f], step[f]);
    }
    CHECK(c->tracks[3].rotation[0] == -32768.0f / 32767.0f);
    amx_asset_free(a);

    /* Without samples: the same clip, no sample arrays. */
    a = decode_named(b.data, b.len, NULL, false);
    CHECK_CLEAN(a);
    CHECK_STR(a->clips[0].name, "");
    CHECK(a->clips[0].skeleton == NULL);
    CHECK(!a->clips[0].has_samples);
    CHECK(a->clips[0].tracks[0].translation == NULL);
    CHECK_EQ(a->clips[0].tracks[2].channels, AMX_CH_TRANSLATION | AMX_CH_ROTATION | AMX_CH_VISIBILITY);
    amx_asset_free(a);
    a = decode_named(b.data, b.len, "x/VSF_Tie_Aggressor_Hyperspace_In.ala", false);
    CHECK_STR(a->clips[0].name, "VSF_Tie_Aggressor_Hyperspace_In");
    CHECK(a->clips[0].skeleton == NULL);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_v2_decode(void)
{
    amxw_ala_bone bones[4];
    amxw_ala_spec s;
    spec_v2(bones, &s);
    amxw_buf b = { 0 };
    amxw_ala_layout lay;
    amxw_ala_ex(&b, &s, &lay);
    /* The writer lays out like real files: 0x100A, then 0x1009, then 0x100B, element indices. */
    CHECK(lay.trans_data > lay.bones[3].chunk && lay.rot_data > lay.trans_data &&
          lay.scale_data > lay.rot_data);
    CHECK_EQ(lay.rot_frame_size, 12);
    CHECK_EQ(lay.trans_frame_size, 6);
    CHECK_EQ(lay.scale_frame_size, 3);
    CHECK_EQ(lay.bones[0].trans_idx, 0);
    CHECK_EQ(lay.bones[2].trans_idx, 3);
    CHECK_EQ(lay.bones[1].trans_idx, 0xFFFF);
    CHECK_EQ(lay.bones[0].rot_idx, 0);
    CHECK_EQ(lay.bones[1].rot_idx, 4);
    CHECK_EQ(lay.bones[2].rot_idx, 0xFFFF);
    CHECK_EQ(lay.bones[3].rot_idx, 8);
    CHECK_EQ(lay.bones[3].scale_idx, 0);
    CHECK_EQ(b.data[lay.header + 4], 36); /* 0x1001 body: 36 bytes */

    amx_asset *a = decode(&b);
    CHECK_CLEAN(a);
    check_against_spec(a, &s);
    const amx_clip *c = &a->clips[0];
    CHECK_NEAR(c->duration, 10.0 / 15.0, 1e-9);
    /* bone 2 (translation index 3 = the second triple of each frame block) at frame 4 */
    CHECK_NEAR(c->tracks[2].translation[3 * 4 + 0], 1.5f + (float)t2[12] * 0.001f, 1e-5);
    /* default rotation (rotIdx 0xFFFF) */
    CHECK(c->tracks[2].rotation[4 * 7 + 1] == -2000.0f / 32767.0f);
    CHECK_EQ(c->tracks[2].channels, AMX_CH_TRANSLATION | AMX_CH_ROTATION);
    CHECK_EQ(c->tracks[3].channels, AMX_CH_SCALE | AMX_CH_ROTATION);
    CHECK_NEAR(c->tracks[3].scale[3 * 9 + 2], 1.0f + (float)s3[29] * 3e-4f, 1e-5);
    CHECK_EQ(c->tracks[1].channels, AMX_CH_ROTATION);
    CHECK(c->tracks[1].translation[0] == 1.5f);
    amx_asset_free(a);

    /* The indices count int16 elements: swapping two bones' rotIdx (0 <-> 4) swaps their data. */
    bones[0].override_indices = true;
    bones[0].trans_idx = 0;
    bones[0].scale_idx = 0xFFFF;
    bones[0].rot_idx = 4;
    bones[1].override_indices = true;
    bones[1].trans_idx = 0xFFFF;
    bones[1].scale_idx = 0xFFFF;
    bones[1].rot_idx = 0;
    amxw_buf_free(&b);
    amxw_ala(&b, &s);
    a = decode(&b);
    CHECK_CLEAN(a);
    for (int f = 0; f < NF; f++)
        for (int k = 0; k < 4; k++) {
            CHECK(a->clips[0].tracks[0].rotation[4 * f + k] == (float)r1[4 * f + k] / 32767.0f);
            CHECK(a->clips[0].tracks[1].rotation[4 * f + k] == (float)r0[4 * f + k] / 32767.0f);
        }
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_simple_generator(void)
{
    static const char *const names[] = { "root", "arm", "P_HP_A", "gun", "barrel" };
    static const uint32_t indices[] = { 0, 2, 4, 5, 9 };
    amxw_buf b1 = { 0 }, b2 = { 0 }, again = { 0 };
    amxw_ala_simple(&b1, 1, 37, 30.0f, 5, names, indices, 42);
    amxw_ala_simple(&b2, 2, 37, 30.0f, 5, names, indices, 42);
    amxw_ala_simple(&again, 2, 37, 30.0f, 5, names, indices, 42);
    CHECK(b2.len == again.len && memcmp(b2.data, again.data, b2.len) == 0);
    amx_asset *a1 = decode(&b1), *a2 = decode(&b2);
    CHECK_CLEAN(a1);
    CHECK_CLEAN(a2);
    CHECK_STR(a1->version, "1");
    CHECK_STR(a2->version, "2");
    for (uint32_t i = 0; i < 5; i++) {
        const amx_track *x = &a1->clips[0].tracks[i], *y = &a2->clips[0].tracks[i];
        CHECK_STR(x->bone, names[i]);
        CHECK_EQ(x->bone_index, indices[i]);
        uint32_t ch = AMX_CH_ROTATION | (i % 2 == 0 ? AMX_CH_TRANSLATION : 0) |
                      (i % 3 == 0 ? AMX_CH_VISIBILITY : 0);
        CHECK_EQ(x->channels, ch);
        CHECK_EQ(y->channels, ch);
        /* both formats carry the same data */
        CHECK(memcmp(x->translation, y->translation, 37 * 3 * sizeof(float)) == 0);
        CHECK(memcmp(x->rotation, y->rotation, 37 * 4 * sizeof(float)) == 0);
        CHECK(memcmp(x->visibility, y->visibility, 37) == 0);
        for (uint32_t f = 0; f < 37; f++) {
            float n = 0;
            for (int k = 0; k < 4; k++)
                n += x->rotation[4 * f + k] * x->rotation[4 * f + k];
            CHECK_NEAR(n, 1.0, 1e-3);
        }
    }
    amx_asset_free(a1);
    amx_asset_free(a2);
    amxw_buf_free(&b1);
    amxw_buf_free(&b2);
    amxw_buf_free(&again);
}

/* ---- one broken variant per validation rule ---- */

#define BROKEN(format, body) \
    amxw_ala_bone bones[4]; \
    amxw_ala_spec s; \
    amxw_buf b; \
    amxw_ala_layout lay; \
    amx_asset *a; \
    { \
        spec_##format(bones, &s); \
        body; \
        b = (amxw_buf){ 0 }; \
        amxw_ala_ex(&b, &s, &lay); \
        a = decode(&b); \
    }

#define DONE() \
    do { \
        amx_asset_free(a); \
        amxw_buf_free(&b); \
    } while (0)

static void test_missing_header(void)
{
    BROKEN(v1, s.omit_header = true);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.root);
    CHECK_EQ(a->clip_count, 0);
    DONE();
}

static void test_missing_bone_header(void)
{
    BROKEN(v1, bones[1].omit_header = true);
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.bones[1].chunk);
    CHECK_EQ(a->clips[0].track_count, 4);
    CHECK(a->clips[0].tracks[1].bone == NULL);
    CHECK_EQ(a->clips[0].tracks[1].bone_index, -1);
    CHECK_EQ(a->clips[0].tracks[1].channels, AMX_CH_ROTATION);
    CHECK(a->clips[0].tracks[1].rotation[3] == 32000.0f / 32767.0f);
    DONE();
}

static void test_missing_rotation(void)
{
    BROKEN(v1, bones[2].rotation = NULL);
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.bones[2].chunk);
    CHECK_STR(context_of(a, AMX_C_MISSING_CHUNK), "bone 2 'engine_l'");
    CHECK_EQ(a->clips[0].tracks[2].channels, AMX_CH_TRANSLATION | AMX_CH_VISIBILITY);
    CHECK(a->clips[0].tracks[2].rotation[4 * 3 + 3] == 1.0f); /* identity */
    DONE();
}

static void test_num_bones(void)
{
    BROKEN(v2, { s.override_num_bones = true; s.num_bones = 5; });
    CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.mini_bones + 2);
    CHECK_EQ(a->clips[0].track_count, 4);
    DONE();
}

static void test_v1_sizes(void)
{
    {
        BROKEN(v1, bones[0].translation_frames = NF - 2);
        CHECK_EQ(test_count_code(a, AMX_C_SIZE_MISMATCH), 1);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[0].translation);
        /* the frames the chunk lacks read as the offset */
        CHECK(a->clips[0].tracks[0].translation[3 * 9 + 2] == 100.0f);
        CHECK_NEAR(a->clips[0].tracks[0].translation[3 * 7 + 2], unpack(100.0f, t0[23], 0.0005f), 1e-5);
        DONE();
    }
    {
        BROKEN(v1, bones[0].scale_frames = NF + 1);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[0].scale);
        CHECK_NEAR(a->clips[0].tracks[0].scale[3 * 9], unpack(1.0f, s0[27], 1e-4f), 1e-6);
        DONE();
    }
    {
        BROKEN(v1, bones[2].rotation_frames = 3);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[2].rotation);
        CHECK(a->clips[0].tracks[2].rotation[4 * 2] == (float)r1[8] / 32767.0f);
        CHECK(a->clips[0].tracks[2].rotation[4 * 3 + 3] == 1.0f);
        DONE();
    }
    {
        /* a constant rotation is 8 bytes; 0 bytes is neither */
        BROKEN(v1, bones[1].rotation_frames = 0);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[1].rotation);
        CHECK(a->clips[0].tracks[1].rotation[3] == 1.0f);
        DONE();
    }
    {
        BROKEN(v1, bones[0].visibility_bytes = 1);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[0].visibility);
        CHECK_EQ(a->clips[0].tracks[0].visibility[6], 0);
        CHECK_EQ(a->clips[0].tracks[0].visibility[8], 1); /* past the data: visible */
        DONE();
    }
    {
        static const uint8_t long_step[3] = { 0xFF, 0xFF, 0xFF };
        BROKEN(v1, { bones[0].step = long_step; bones[0].step_bytes = 3; });
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[0].step);
        CHECK_EQ(a->clips[0].tracks[0].step[9], 1);
        DONE();
    }
}

static void test_v2_sizes(void)
{
    {
        BROKEN(v2, s.rot_data_extra = -2);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.rot_data);
        /* the last frame block is incomplete: bone 3 (rotIdx 8) falls back to its default */
        CHECK(a->clips[0].tracks[3].rotation[4 * 9 + 3] == 1.0f);
        CHECK(a->clips[0].tracks[3].rotation[4 * 8 + 3] == (float)r3[35] / 32767.0f);
        DONE();
    }
    {
        BROKEN(v2, s.trans_data_extra = 6);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.trans_data);
        CHECK_EQ(test_count_code(a, AMX_C_SIZE_MISMATCH), 1);
        DONE();
    }
}

static void test_v2_indices(void)
{
    BROKEN(v2, {
        bones[1].override_indices = true;
        bones[1].trans_idx = 4; /* trans frame size 6: 4 + 3 > 6 */
        bones[1].scale_idx = 0xFFFF;
        bones[1].rot_idx = 10; /* rot frame size 12: 10 + 4 > 12 */
    });
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.bones[1].mini_rot_idx + 2);
    CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.bones[1].mini_trans_idx + 2);
    CHECK_EQ(test_count_code(a, AMX_C_INDEX_OUT_OF_RANGE), 2);
    /* the channels are taken as absent: offset, default rotation */
    CHECK_EQ(a->clips[0].tracks[1].channels, AMX_CH_ROTATION); /* from mini 17 */
    CHECK(a->clips[0].tracks[1].rotation[4 * 5 + 3] == 1.0f);
    CHECK(a->clips[0].tracks[1].translation[3 * 5] == 1.5f);
    DONE();
}

static void test_v2_frame_sizes(void)
{
    {
        /* rotation frame size 14 (not a multiple of 4); translation frame size 6 as computed */
        BROKEN(v2, {
            s.override_frame_sizes = true;
            s.rot_frame_size = 14;
            s.trans_frame_size = 6;
            s.scale_frame_size = 3;
        });
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.mini_rot_frame_size + 2);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.rot_data);
        DONE();
    }
    {
        BROKEN(v2, s.omit_rot_data = true);
        CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.root);
        CHECK(a->clips[0].tracks[0].rotation[3] == 1.0f);
        CHECK_EQ(a->clips[0].tracks[0].channels & AMX_CH_ROTATION, AMX_CH_ROTATION); /* mini 17 */
        DONE();
    }
    {
        /* 0x100B present, but the header says scale frame size 0 */
        BROKEN(v2, {
            s.override_frame_sizes = true;
            s.rot_frame_size = 12;
            s.trans_frame_size = 6;
            s.scale_frame_size = 0;
        });
        CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.scale_data);
        CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, lay.bones[3].mini_scale_idx + 2);
        CHECK_EQ(a->clips[0].tracks[3].channels, AMX_CH_ROTATION);
        DONE();
    }
}

static void test_bad_floats(void)
{
    {
        BROKEN(v1, s.fps = NAN);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.mini_fps + 2);
        CHECK(a->clips[0].fps == 0.0f);
        CHECK(a->clips[0].duration == 0.0);
        CHECK_EQ(a->status, AMX_ASSET_OK); /* a warning */
        DONE();
    }
    {
        BROKEN(v2, s.fps = -5.0f);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.mini_fps + 2);
        CHECK(a->clips[0].fps == 0.0f);
        DONE();
    }
    {
        BROKEN(v1, s.fps = 0.0f);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.mini_fps + 2);
        CHECK(a->clips[0].duration == 0.0);
        DONE();
    }
    {
        BROKEN(v1, {
            bones[0].trans_offset[1] = INFINITY;
            bones[0].scale_offset[2] = NAN;
        });
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bones[0].mini_trans_offset + 2 + 4);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bones[0].mini_scale_offset + 2 + 8);
        CHECK_STR(context_of(a, AMX_C_BAD_VALUE), "bone 0 'root'");
        CHECK_NEAR(a->clips[0].tracks[0].translation[3 * 2 + 1], 0.0f + 14007.0f * 0.002f, 1e-4);
        CHECK_NEAR(a->clips[0].tracks[0].scale[3 * 0 + 2], 1.0f + 200.0f * 3e-4f, 1e-6); /* NaN -> 1 */
        DONE();
    }
    {
        /* offset + 65535 * scale overflows a float: the scale is dropped */
        BROKEN(v1, bones[0].trans_scale[0] = 1e36f);
        CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bones[0].mini_trans_scale + 2);
        CHECK(a->clips[0].tracks[0].translation[3 * 4] == 1.5f);
        DONE();
    }
}

static void test_duplicate_index(void)
{
    BROKEN(v2, bones[2].index = 1); /* bone 0 "hull" is index 1 too */
    CHECK_FINDING(a, AMX_C_BAD_VALUE, lay.bones[2].mini_index + 2);
    CHECK_EQ(test_count_severity(a, AMX_SEV_WARNING), 1);
    CHECK_EQ(test_count_code(a, AMX_C_BAD_VALUE), 1);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    DONE();
}

static void test_unknown_and_trailing(void)
{
    {
        BROKEN(v1, { s.unknown_chunk = true; bones[1].unknown_mini = true; });
        CHECK_FINDING(a, AMX_C_UNKNOWN_CHUNK, lay.unknown_chunk);
        /* the extra mini is the last one in the 0x1003 body */
        size_t hdr = lay.bones[1].header;
        size_t end = hdr + 8 + (b.data[hdr + 4] | (size_t)b.data[hdr + 5] << 8);
        CHECK_FINDING(a, AMX_C_UNKNOWN_CHUNK, end - 6);
        CHECK_EQ(a->status, AMX_ASSET_OK); /* info only */
        check_against_spec(a, &s);
        DONE();
    }
    {
        BROKEN(v2, s.trailing_chunk = true);
        CHECK_FINDING(a, AMX_C_TRAILING_DATA, lay.trailing_chunk);
        CHECK_EQ(a->status, AMX_ASSET_OK); /* a warning */
        check_against_spec(a, &s);
        DONE();
    }
    {
        /* 0x1001 of 24 bytes: told apart by its minis, with a finding */
        BROKEN(v1, s.header_extra_mini = true);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.header);
        CHECK_FINDING(a, AMX_C_UNKNOWN_CHUNK, lay.mini_bones + 6);
        CHECK_STR(a->version, "1");
        DONE();
    }
    {
        BROKEN(v2, s.header_extra_mini = true);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.header);
        CHECK_STR(a->version, "2");
        DONE();
    }
    {
        BROKEN(v1, bones[3].short_index = true);
        CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, lay.bones[3].mini_index);
        CHECK_EQ(a->clips[0].tracks[3].bone_index, -1);
        DONE();
    }
    {
        BROKEN(v2, bones[1].omit_default_rotation = true);
        CHECK_FINDING(a, AMX_C_MISSING_CHUNK, lay.bones[1].header);
        CHECK_EQ(a->clips[0].tracks[1].channels, AMX_CH_ROTATION); /* per-frame data */
        DONE();
    }
}

static void test_truncated(void)
{
    amxw_ala_bone bones[4];
    amxw_ala_spec s;
    spec_v2(bones, &s);
    amxw_buf b = { 0 };
    amxw_ala_layout lay;
    amxw_ala_ex(&b, &s, &lay);
    /* cut inside bone 2: the root overruns, bones 0-1 decode, the data chunks are gone */
    amx_asset *a = decode_named(b.data, lay.bones[2].chunk + 20, CLIP_FILE, true);
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    CHECK_FINDING(a, AMX_C_TRUNCATED, lay.bones[2].chunk);
    CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, lay.mini_bones + 2);
    CHECK_FINDING(a, AMX_C_MISSING_CHUNK, 0); /* no 0x1009 */
    CHECK_EQ(a->clips[0].track_count, 3);
    CHECK_STR(a->clips[0].tracks[1].bone, "wing02");
    CHECK(a->clips[0].has_samples);
    amx_asset_free(a);
    /* fewer than 8 bytes: nothing to decode */
    amx_decode_opts o = { .format = AMX_FMT_ALAMO_ALA };
    CHECK_EQ(amx_decode(b.data, 5, &o, &a), AMX_OK);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_sample_guard(void)
{
    /* 50 million frames, one constant rotation: 2 GB of samples from a 100-byte file */
    amxw_ala_bone bones[1] = { bone("b", 0) };
    bones[0].rotation = r_single;
    bones[0].rotation_frames = 1;
    amxw_ala_spec s = { .format = 1, .frames = 50000000, .fps = 30, .bones = bones, .bone_count = 1 };
    amxw_buf b = { 0 };
    amxw_ala(&b, &s);
    amx_asset *a = decode(&b);
    CHECK_FINDING(a, AMX_C_LIMIT_EXCEEDED, TEST_ANY_OFFSET);
    CHECK(!a->clips[0].has_samples);
    CHECK_EQ(a->clips[0].frames, 50000000);
    CHECK_EQ(a->clips[0].tracks[0].channels, AMX_CH_ROTATION);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- mutation ---- */

static void test_mutations(void)
{
    amxw_ala_bone bones[4];
    amxw_ala_spec s;
    mutate_stats st = { 0 };
    amx_decode_opts o = { .file_name = CLIP_FILE };
    for (int format = 1; format <= 2; format++) {
        amxw_buf b = { 0 };
        if (format == 1)
            spec_v1(bones, &s);
        else
            spec_v2(bones, &s);
        amxw_ala(&b, &s);
        mutate_all(b.data, b.len, 1, &o, &st);
        amxw_buf_free(&b);
        amxw_ala_simple(&b, format, 20, 30.0f, 7, NULL, NULL, 7);
        mutate_all(b.data, b.len, 1, &o, &st);
        amxw_buf_free(&b);
    }
    CHECK_EQ(st.violations, 0);
    printf("# generated-file mutations: %zu decodes (ok %zu, partial %zu, error %zu)\n", st.decodes,
           st.statuses[0], st.statuses[1], st.statuses[2]);
}

/* ---- real files ---- */

typedef struct manifest_ala {
    char name[128];
    int format;
    unsigned frames, fps, bones, visible_bones;
    char model[128]; /* "" when the manifest pairs no model by convention */
} manifest_ala;

static int read_manifest(manifest_ala *out, int max)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", test_corpus_dir());
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        char *name = line, *tab = strchr(line, '\t');
        if (!tab || strncmp(name, "alamo/", 6) != 0)
            continue;
        *tab = '\0';
        const char *what = strrchr(tab + 1, '\t');
        manifest_ala m = { .format = 0 };
        if (!what || sscanf(what + 1, "ALA format %d", &m.format) != 1)
            continue;
        const char *p = strstr(what, "); ");
        if (!p || sscanf(p, "); %u stored frames @%u fps; %u animated bones; %u bones with",
                         &m.frames, &m.fps, &m.bones, &m.visible_bones) != 4)
            continue;
        const char *model = strstr(what, "; model ");
        if (model)
            sscanf(model, "; model %127[^. ]", m.model);
        snprintf(m.name, sizeof m.name, "%.127s", name + 6);
        out[n++] = m;
    }
    fclose(f);
    return n;
}

static bool is_ala(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcasecmp(name + n - 4, ".ala") == 0;
}

static void test_corpus(void)
{
    manifest_ala man[64];
    int nman = read_manifest(man, 64);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/alamo", test_corpus_dir());
    DIR *dp = opendir(dir);
    if (!dp) {
        printf("# no corpus at %s; skipped\n", dir);
        return;
    }
    int files = 0, per_format[3] = { 0 };
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!is_ala(e->d_name))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        unsigned char *data = test_read_file(path, &len);
        CHECK(data != NULL);
        if (!data)
            continue;
        files++;
        amx_asset *a = decode_named(data, len, path, true);
        int before = test_failed_checks;
        CHECK_EQ(a->status, AMX_ASSET_OK);
        CHECK_EQ(test_count_severity(a, AMX_SEV_ERROR), 0);
        CHECK_EQ(a->finding_count, 0);
        const manifest_ala *m = NULL;
        for (int i = 0; i < nman; i++)
            if (strcmp(man[i].name, e->d_name) == 0)
                m = &man[i];
        CHECK(m != NULL);
        if (m && a->clip_count == 1) {
            const amx_clip *c = &a->clips[0];
            CHECK_EQ(a->version[0] - '0', m->format);
            CHECK_EQ(c->frames, m->frames);
            CHECK(c->fps == (float)m->fps);
            CHECK_EQ(c->track_count, m->bones);
            unsigned vis = 0;
            for (uint32_t t = 0; t < c->track_count; t++) {
                vis += (c->tracks[t].channels & AMX_CH_VISIBILITY) != 0;
                CHECK(c->tracks[t].channels & AMX_CH_ROTATION);
                CHECK(c->tracks[t].bone && c->tracks[t].bone[0]);
                for (uint32_t f = 0; f < c->frames; f++) {
                    const float *q = c->tracks[t].rotation + 4 * f;
                    double norm = (double)q[0] * q[0] + (double)q[1] * q[1] +
                                  (double)q[2] * q[2] + (double)q[3] * q[3];
                    if (norm < 0.99 || norm > 1.01) {
                        printf("# %s bone %u frame %u: |q|^2 = %g\n", e->d_name, t, f, norm);
                        CHECK(false);
                        break;
                    }
                }
            }
            CHECK_EQ(vis, m->visible_bones);
            if (m->model[0])
                CHECK_STR(c->skeleton, m->model);
            per_format[m->format == 2 ? 2 : 1]++;
        }
        if (test_failed_checks != before) {
            printf("# ... in %s\n", e->d_name);
            test_print_findings(a);
        }
        amx_asset_free(a);
        free(data);
    }
    closedir(dp);
    printf("# corpus: %d ALA files (%d format 1, %d format 2), %d manifest entries\n", files,
           per_format[1], per_format[2], nman);
    CHECK(files >= 4);
    CHECK(per_format[1] > 0 && per_format[2] > 0);
}

static void test_corpus_mutations(void)
{
    static const char *const files[] = { "VSG_SLAVE_I_D_DIE_00.ALA", "BM_BERTH_D_DIE_00.ala" };
    for (size_t i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/alamo/%s", test_corpus_dir(), files[i]);
        size_t len = 0;
        unsigned char *data = test_read_file(path, &len);
        if (!data) {
            printf("# %s missing; skipped\n", path);
            continue;
        }
        mutate_stats st = { 0 };
        amx_decode_opts o = { .file_name = path };
        size_t stride = len / 1500 + 1;
        clock_t t0c = clock();
        mutate_all(data, len, stride, &o, &st);
        CHECK_EQ(st.violations, 0);
        CHECK_EQ(st.statuses[AMX_ASSET_OK] + st.statuses[AMX_ASSET_PARTIAL] +
                     st.statuses[AMX_ASSET_ERROR], st.decodes);
        printf("# %s: %zu bytes, stride %zu: %zu decodes (ok %zu, partial %zu, error %zu) in %.2f s\n",
               files[i], len, stride, st.decodes, st.statuses[0], st.statuses[1], st.statuses[2],
               (double)(clock() - t0c) / CLOCKS_PER_SEC);
        free(data);
    }
}

int main(void)
{
    RUN(test_probe);
    RUN(test_v1_decode);
    RUN(test_v2_decode);
    RUN(test_simple_generator);
    RUN(test_missing_header);
    RUN(test_missing_bone_header);
    RUN(test_missing_rotation);
    RUN(test_num_bones);
    RUN(test_v1_sizes);
    RUN(test_v2_sizes);
    RUN(test_v2_indices);
    RUN(test_v2_frame_sizes);
    RUN(test_bad_floats);
    RUN(test_duplicate_index);
    RUN(test_unknown_and_trailing);
    RUN(test_truncated);
    RUN(test_sample_guard);
    RUN(test_mutations);
    RUN(test_corpus);
    RUN(test_corpus_mutations);
    return test_done();
}
