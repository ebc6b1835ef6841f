/* Unit tests for the Alamo ALO decoder (lib/format/alo.c): models and particle systems built with
 * the test writer, one broken variant per validation rule, mutations, and the real corpus. */
#include "test.h"
#include "alo_writer.h"
#include "check_asset.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- helpers ---- */

typedef struct step { uint32_t type, nth; } step;

#define NOT_FOUND ((size_t)1 << 40) /* chunk_at/mini_at found nothing (so does NOT_FOUND + k) */

/* Absolute offset of the chunk reached by a path of (type, n-th of that type) steps from the
 * root; NOT_FOUND when there is none. */
static size_t chunk_at(const amxw_buf *b, const step *path, size_t n)
{
    size_t pos = 0, end = b->len;
    for (size_t i = 0; i < n; i++) {
        uint32_t seen = 0;
        bool found = false;
        while (pos + 8 <= end) {
            uint32_t type = (uint32_t)b->data[pos] | (uint32_t)b->data[pos + 1] << 8 |
                            (uint32_t)b->data[pos + 2] << 16 | (uint32_t)b->data[pos + 3] << 24;
            uint32_t size = ((uint32_t)b->data[pos + 4] | (uint32_t)b->data[pos + 5] << 8 |
                             (uint32_t)b->data[pos + 6] << 16 | (uint32_t)b->data[pos + 7] << 24) &
                            0x7FFFFFFFu;
            if (type == path[i].type && seen++ == path[i].nth) {
                if (i + 1 == n)
                    return pos;
                end = pos + 8 + size;
                pos += 8;
                found = true;
                break;
            }
            pos += 8 + size;
        }
        if (!found)
            return NOT_FOUND;
    }
    return NOT_FOUND;
}

#define AT(b, ...) chunk_at((b), (step[]){ __VA_ARGS__ }, sizeof((step[]){ __VA_ARGS__ }) / sizeof(step))

/* Absolute offset of the first mini-chunk of a type in the data chunk at `chunk`. */
static size_t mini_at(const amxw_buf *b, size_t chunk, uint8_t type)
{
    if (chunk >= NOT_FOUND)
        return NOT_FOUND;
    size_t size = ((size_t)b->data[chunk + 4] | (size_t)b->data[chunk + 5] << 8 |
                   (size_t)b->data[chunk + 6] << 16) & 0x7FFFFFFF;
    for (size_t pos = chunk + 8; pos + 2 <= chunk + 8 + size; pos += 2 + b->data[pos + 1])
        if (b->data[pos] == type)
            return pos;
    return NOT_FOUND;
}

static amx_asset *decode_buf(const amxw_buf *b, const char *file_name)
{
    amx_decode_opts opts = { .file_name = file_name };
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode(b->data, b->len, &opts, &a), AMX_OK);
    if (a)
        CHECK_EQ(check_asset(a), 0);
    return a;
}

/* offset SIZE_MAX: a finding without an offset (-1) */
static const amx_finding *find(const amx_asset *a, amx_code code, size_t offset)
{
    return test_find(a, code, offset == SIZE_MAX ? -1 : (int64_t)offset);
}

/* Asserts a finding of `code` at `offset` (SIZE_MAX: offset -1) and, when ctx is not NULL, with
 * that context. */
#define EXPECT(a, code, offset, ctx) expect_finding((a), (code), (offset), (ctx), __LINE__)

static void expect_finding(const amx_asset *a, amx_code code, size_t offset, const char *ctx,
                           int line)
{
    if (offset >= NOT_FOUND && offset != SIZE_MAX) {
        printf("# line %d: expected offset not found in the sample\n", line);
        test_failed_checks++;
        return;
    }
    const amx_finding *f = find(a, code, offset);
    if (!f) {
        printf("# line %d: no %s finding at %zu; findings:\n", line, amx_code_get(code)->name,
               offset);
        test_print_findings(a);
        test_failed_checks++;
        return;
    }
    if (ctx && strcmp(f->context, ctx) != 0) {
        printf("# line %d: %s context '%s', expected '%s'\n", line, amx_code_get(code)->name,
               f->context, ctx);
        test_failed_checks++;
    }
}

/* ---- the sample model ---- */

typedef struct sample {
    amxw_alo_bone bones[4];
    amxw_alo_param params[6];
    uint32_t skin[3];
    amxw_alo_submesh subs[3];
    amxw_alo_mesh meshes[2];
    amxw_alo_light lights[1];
    amxw_alo_conn conns[3];
    amxw_alo_proxy proxies[2];
    amxw_alo_dazzle dazzles[1];
    amxw_alo_spec spec;
} sample;

static void sample_init(sample *s)
{
    memset(s, 0, sizeof *s);
    s->bones[0] = (amxw_alo_bone){ .name = "Root", .parent = -1, .visible = 1 };
    s->bones[1] = (amxw_alo_bone){ .name = "engine_l", .parent = 0, .visible = 1, .v1 = true,
                                   .matrix = { 1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3 } };
    s->bones[2] = (amxw_alo_bone){ .name = "Turret", .parent = 0, .visible = 0, .billboard = 2,
                                   .matrix = { 0, -1, 0, 0.5f, 1, 0, 0, -4, 0, 0, 2, 8 } };
    s->bones[3] = (amxw_alo_bone){ .name = "P_Light", .parent = 2, .visible = 1,
                                   .billboard = 7 };
    s->params[0] = (amxw_alo_param){ .type = AMXW_ALO_INT, .name = "Mode", .i = -3 };
    s->params[1] = (amxw_alo_param){ .type = AMXW_ALO_FLOAT, .name = "Shininess", .f = { 32 } };
    s->params[2] = (amxw_alo_param){ .type = AMXW_ALO_FLOAT3, .name = "Offset",
                                     .f = { 1, 2, 3 }, .value_first = true };
    s->params[3] = (amxw_alo_param){ .type = AMXW_ALO_TEXTURE, .name = "BaseTexture",
                                     .texture = "HULL.tga" };
    s->params[4] = (amxw_alo_param){ .type = AMXW_ALO_FLOAT4, .name = "Color",
                                     .f = { 0.5f, 0.25f, 1, 0 } };
    s->params[5] = (amxw_alo_param){ .type = AMXW_ALO_TEXTURE, .name = "BaseTexture",
                                     .texture = "TURRET.dds" };
    s->skin[0] = 0;
    s->skin[1] = 2;
    s->skin[2] = 3;
    s->subs[0] = (amxw_alo_submesh){
        .shader = "MeshBumpColorize.fx", .params = &s->params[0], .param_count = 5,
        .vertices = 8, .triangles = 6, .vertex_format = "alD3dVertRSkinNU2", .stride = 144,
        .skin = s->skin, .skin_count = 3, .vertex_bone = 2, .collision = true,
        .leaf_triangles = 2,
    };
    s->subs[1] = (amxw_alo_submesh){
        .shader = "MeshGloss.fx", .params = &s->params[5], .param_count = 1, .vertices = 4,
        .triangles = 2, .vertex_format = "alD3dVertNU2U3U3", .stride = 128,
    };
    s->subs[2] = (amxw_alo_submesh){ .shader = "alDefault.fx", .vertices = 3, .triangles = 1 };
    s->meshes[0] = (amxw_alo_mesh){ .name = "HULL", .submeshes = &s->subs[0], .submesh_count = 1,
                                    .bbox_min = { -1, -2, -3 }, .bbox_max = { 1, 2, 3 } };
    s->meshes[1] = (amxw_alo_mesh){ .name = "FC_TURRET", .hidden = true,
                                    .submeshes = &s->subs[1], .submesh_count = 2,
                                    .bbox_max = { 0.5f, 0.5f, 0.5f } };
    s->lights[0] = (amxw_alo_light){ .name = "Omni01", .type = 2, .color = { 1, 0.5f, 0.25f },
                                     .intensity = 2, .far_atten_end = 200,
                                     .far_atten_start = 80, .hotspot = 0.7f, .falloff = 0.8f };
    s->conns[0] = (amxw_alo_conn){ 0, 1 };
    s->conns[1] = (amxw_alo_conn){ 1, 2 };
    s->conns[2] = (amxw_alo_conn){ 2, 3 };
    s->proxies[0] = (amxw_alo_proxy){ .name = "P_smoke_tiny01_ALT1", .bone = 2, .hidden = true,
                                      .alt_decrease_stay_hidden = true };
    s->proxies[1] = (amxw_alo_proxy){ .name = "P_ENGINE", .bone = 1 };
    s->dazzles[0] = (amxw_alo_dazzle){ .name = "Dazzle01", .texture = "W_Dazzle.tga", .bone = 3,
                                       .color = { 1, 0, 0 }, .position = { 0, 1, 2 },
                                       .radius = 5, .hidden = true };
    s->spec = (amxw_alo_spec){
        .bones = s->bones, .bone_count = 4, .meshes = s->meshes, .mesh_count = 2,
        .lights = s->lights, .light_count = 1, .conns = s->conns, .conn_count = 3,
        .proxies = s->proxies, .proxy_count = 2, .dazzles = s->dazzles, .dazzle_count = 1,
    };
}

static void sample_write(const sample *s, amxw_buf *b)
{
    *b = (amxw_buf){ 0 };
    amxw_alo_model(b, &s->spec);
}

/* ---- decoded values ---- */

static void test_model_values(void)
{
    sample s;
    sample_init(&s);
    amxw_buf b;
    sample_write(&s, &b);
    amx_asset *a = decode_buf(&b, "Data/Art/Models/VSD_SAMPLE.alo");
    CHECK_EQ(a->format, AMX_FMT_ALAMO_ALO);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    if (a->finding_count)
        test_print_findings(a);
    CHECK_STR(a->version, "2");

    CHECK_EQ(a->skeleton_count, 1);
    const amx_skeleton *sk = &a->skeletons[0];
    CHECK_STR(sk->name, "VSD_SAMPLE");
    CHECK_EQ(sk->bone_count, 4);
    for (uint32_t i = 0; i < 4 && i < sk->bone_count; i++) {
        const amx_bone *bone = &sk->bones[i];
        CHECK_STR(bone->name, s.bones[i].name);
        CHECK_EQ(bone->parent, s.bones[i].parent);
        CHECK_EQ(bone->visible, s.bones[i].visible);
        CHECK_EQ(bone->billboard, s.bones[i].v1 ? 0 : s.bones[i].billboard);
    }
    CHECK_EQ(sk->bones[3].billboard, 7);
    CHECK_NEAR(sk->bones[0].matrix[0], 1, 0);
    CHECK_NEAR(sk->bones[0].matrix[5], 1, 0);
    CHECK_NEAR(sk->bones[0].matrix[3], 0, 0);
    for (int k = 0; k < 12; k++) {
        CHECK_NEAR(sk->bones[1].matrix[k], s.bones[1].matrix[k], 0);
        CHECK_NEAR(sk->bones[2].matrix[k], s.bones[2].matrix[k], 0);
    }

    const amx_model *m = a->model;
    CHECK(m != NULL);
    CHECK_EQ(m->mesh_count, 2);
    const amx_mesh *hull = &m->meshes[0];
    CHECK_STR(hull->name, "HULL");
    CHECK_EQ(hull->material_count, 1);
    CHECK(!hull->hidden);
    CHECK(hull->collision);
    CHECK_NEAR(hull->bbox_min[1], -2, 0);
    CHECK_NEAR(hull->bbox_max[2], 3, 0);
    CHECK_EQ(hull->submesh_count, 1);
    const amx_submesh *sm = &hull->submeshes[0];
    CHECK_STR(sm->shader, "MeshBumpColorize.fx");
    CHECK_EQ(sm->vertices, 8);
    CHECK_EQ(sm->triangles, 6);
    CHECK_STR(sm->vertex_format, "alD3dVertRSkinNU2");
    CHECK_EQ(sm->vertex_stride, 144);
    CHECK_EQ(sm->skin_bone_count, 3);
    CHECK_EQ(sm->skin_bones[0], 0);
    CHECK_EQ(sm->skin_bones[1], 2);
    CHECK_EQ(sm->skin_bones[2], 3);
    CHECK(sm->has_collision);
    CHECK_EQ(sm->collision_nodes, 7); /* 6 triangles, leaves of at most 2: 3 internal + 4 leaves */
    CHECK_EQ(sm->collision_triangles, 6);
    CHECK_EQ(sm->param_count, 5);
    CHECK_STR(sm->params[0].name, "Mode");
    CHECK_EQ(sm->params[0].type, AMX_PARAM_INT);
    CHECK_EQ(sm->params[0].i, -3);
    CHECK_STR(sm->params[1].name, "Shininess");
    CHECK_EQ(sm->params[1].type, AMX_PARAM_FLOAT);
    CHECK_NEAR(sm->params[1].f[0], 32, 0);
    CHECK_STR(sm->params[2].name, "Offset");
    CHECK_EQ(sm->params[2].type, AMX_PARAM_FLOAT3);
    CHECK_NEAR(sm->params[2].f[0], 1, 0);
    CHECK_NEAR(sm->params[2].f[2], 3, 0);
    CHECK_STR(sm->params[3].name, "BaseTexture");
    CHECK_EQ(sm->params[3].type, AMX_PARAM_TEXTURE);
    CHECK_STR(sm->params[3].texture, "HULL.tga");
    CHECK_STR(sm->params[4].name, "Color");
    CHECK_EQ(sm->params[4].type, AMX_PARAM_FLOAT4);
    CHECK_NEAR(sm->params[4].f[0], 0.5, 0);
    CHECK_NEAR(sm->params[4].f[1], 0.25, 0);
    CHECK_NEAR(sm->params[4].f[2], 1, 0);
    CHECK_NEAR(sm->params[4].f[3], 0, 0);

    const amx_mesh *turret = &m->meshes[1];
    CHECK_STR(turret->name, "FC_TURRET");
    CHECK(turret->hidden);
    CHECK(!turret->collision);
    CHECK_EQ(turret->material_count, 2);
    CHECK_EQ(turret->submesh_count, 2);
    CHECK_STR(turret->submeshes[0].shader, "MeshGloss.fx");
    CHECK_EQ(turret->submeshes[0].vertex_stride, 128);
    CHECK_STR(turret->submeshes[0].vertex_format, "alD3dVertNU2U3U3");
    CHECK_EQ(turret->submeshes[0].param_count, 1);
    CHECK_STR(turret->submeshes[0].params[0].texture, "TURRET.dds");
    CHECK_EQ(turret->submeshes[0].skin_bone_count, 0);
    CHECK(!turret->submeshes[0].has_collision);
    CHECK_STR(turret->submeshes[1].shader, "alDefault.fx");
    CHECK_STR(turret->submeshes[1].vertex_format, "alD3dVertNU2");
    CHECK_EQ(turret->submeshes[1].param_count, 0);
    CHECK_EQ(turret->submeshes[1].vertices, 3);
    CHECK_EQ(m->total_vertices, 15);
    CHECK_EQ(m->total_triangles, 9);

    CHECK_EQ(m->light_count, 1);
    const amx_light *l = &m->lights[0];
    CHECK_STR(l->name, "Omni01");
    CHECK_EQ(l->type, 2);
    CHECK_NEAR(l->color[1], 0.5, 0);
    CHECK_NEAR(l->color[2], 0.25, 0);
    CHECK_NEAR(l->intensity, 2, 0);
    CHECK_NEAR(l->far_atten_end, 200, 0);
    CHECK_NEAR(l->far_atten_start, 80, 0);
    CHECK_NEAR(l->hotspot, 0.7f, 0);
    CHECK_NEAR(l->falloff, 0.8f, 0);

    CHECK_EQ(m->connection_count, 3);
    for (uint32_t i = 0; i < 3 && i < m->connection_count; i++) {
        CHECK_EQ(m->connections[i].object, s.conns[i].object);
        CHECK_EQ(m->connections[i].bone, s.conns[i].bone);
    }
    CHECK_EQ(m->proxy_count, 2);
    CHECK_STR(m->proxies[0].name, "P_smoke_tiny01_ALT1");
    CHECK_EQ(m->proxies[0].bone, 2);
    CHECK(m->proxies[0].hidden);
    CHECK(m->proxies[0].alt_decrease_stay_hidden);
    CHECK_STR(m->proxies[1].name, "P_ENGINE");
    CHECK_EQ(m->proxies[1].bone, 1);
    CHECK(!m->proxies[1].hidden);
    CHECK(!m->proxies[1].alt_decrease_stay_hidden);
    CHECK_EQ(m->dazzle_count, 1);
    const amx_dazzle *z = &m->dazzles[0];
    CHECK_STR(z->name, "Dazzle01");
    CHECK_STR(z->texture, "W_Dazzle.tga");
    CHECK_EQ(z->bone, 3);
    CHECK_NEAR(z->color[0], 1, 0);
    CHECK_NEAR(z->position[2], 2, 0);
    CHECK_NEAR(z->radius, 5, 0);
    CHECK(z->hidden);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* No dazzles (but mini 09 = 0, as 32 real EaW models have): version 1. Lights first: object
 * indices follow the order of appearance. No file name: the skeleton is named "". */
static void test_model_v1_lights_first(void)
{
    sample s;
    sample_init(&s);
    s.spec.dazzle_count = 0;
    s.spec.dazzle_count_mini = true;
    s.spec.lights_first = true;
    s.conns[2].object = 0; /* the light is object 0 now */
    amxw_buf b;
    sample_write(&s, &b);
    CHECK(AT(&b, { 0x1300, 0 }) < AT(&b, { 0x400, 0 }));
    amx_asset *a = decode_buf(&b, NULL);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    CHECK_STR(a->version, "1");
    CHECK_STR(a->skeletons[0].name, "");
    CHECK_EQ(a->model->dazzle_count, 0);
    CHECK_EQ(a->model->light_count, 1);
    CHECK_EQ(a->model->mesh_count, 2);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* Chunks and mini-chunks in unusual orders, a wrong-size mini and an unknown mini, built by
 * hand: connections before the skeleton, bone data before its name, 0x601 minis reversed. */
static void test_model_order_independent(void)
{
    amxw_buf b = { 0 };
    size_t conn = amxw_chunk_begin(&b, 0x600, true);
    size_t o = amxw_chunk_begin(&b, 0x602, false);
    amxw_mini_u32(&b, 0x03, 1); /* bone before object */
    amxw_mini_u32(&b, 0x02, 0);
    amxw_chunk_end(&b, o);
    size_t cc = amxw_chunk_begin(&b, 0x601, false);
    amxw_mini_u32(&b, 0x04, 0);
    size_t unk = b.len;
    amxw_mini_u32(&b, 0x55, 7);
    size_t short_mini = b.len;
    amxw_mini_u16(&b, 0x01, 1); /* nObjects in 2 bytes */
    amxw_chunk_end(&b, cc);
    amxw_chunk_end(&b, conn);
    size_t mesh = amxw_chunk_begin(&b, 0x400, true);
    size_t info = amxw_chunk_begin(&b, 0x402, false);
    amxw_zeros(&b, 128);
    amxw_chunk_end(&b, info);
    amxw_chunk_str(&b, 0x401, "LATE_NAME");
    amxw_chunk_end(&b, mesh);
    size_t sk = amxw_chunk_begin(&b, 0x200, true);
    for (int i = 0; i < 2; i++) {
        size_t bone = amxw_chunk_begin(&b, 0x202, true);
        size_t data = amxw_chunk_begin(&b, 0x206, false);
        amxw_u32le(&b, (uint32_t)(i - 1));
        amxw_u32le(&b, 1);
        amxw_u32le(&b, 0);
        amxw_zeros(&b, 48);
        amxw_chunk_end(&b, data);
        amxw_chunk_str(&b, 0x203, i ? "child" : "root");
        amxw_chunk_end(&b, bone);
    }
    size_t count = amxw_chunk_begin(&b, 0x201, false);
    amxw_u32le(&b, 2);
    amxw_zeros(&b, 124);
    amxw_chunk_end(&b, count);
    amxw_chunk_end(&b, sk);

    amx_asset *a = decode_buf(&b, "x.alo");
    CHECK_EQ(a->format, AMX_FMT_ALAMO_ALO);
    CHECK_EQ(a->skeletons[0].bone_count, 2);
    CHECK_STR(a->skeletons[0].bones[1].name, "child");
    CHECK_EQ(a->skeletons[0].bones[1].parent, 0);
    CHECK_EQ(a->model->mesh_count, 1);
    CHECK_STR(a->model->meshes[0].name, "LATE_NAME");
    CHECK_EQ(a->model->connection_count, 1);
    CHECK_EQ(a->model->connections[0].bone, 1);
    EXPECT(a, AMX_C_UNKNOWN_CHUNK, unk, "connections");
    EXPECT(a, AMX_C_SIZE_MISMATCH, short_mini, "connections");
    /* no other problem: the walk did not depend on the order */
    CHECK_EQ(a->finding_count, 2);
    if (a->finding_count != 2)
        test_print_findings(a);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- one broken variant per rule ---- */

typedef void (*breaker)(sample *s);

static amx_asset *broken(breaker fn, amxw_buf *b)
{
    sample s;
    sample_init(&s);
    fn(&s);
    sample_write(&s, b);
    return decode_buf(b, "VSD_SAMPLE.ALO");
}

static void brk_bone_count(sample *s) { s->spec.bone_count_delta = 2; }
static void brk_bone_count_size(sample *s) { s->spec.bone_count_size = 64; }
static void brk_parent_forward(sample *s) { s->bones[2].parent = 2; }
static void brk_parent_negative(sample *s) { s->bones[1].parent = -5; }
static void brk_bone_nan(sample *s) { s->bones[2].matrix[3] = NAN; }
static void brk_bone_no_name(sample *s) { s->bones[1].omit_name = true; }
static void brk_bone_no_data(sample *s) { s->bones[3].omit_data = true; }

static void test_broken_skeleton(void)
{
    amxw_buf b;
    amx_asset *a = broken(brk_bone_count, &b);
    EXPECT(a, AMX_C_COUNT_MISMATCH, AT(&b, { 0x200, 0 }, { 0x201, 0 }) + 8, "skeleton");
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_bone_count_size, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x200, 0 }, { 0x201, 0 }), "skeleton");
    CHECK_EQ(a->skeletons[0].bone_count, 4);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_parent_forward, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE, AT(&b, { 0x200, 0 }, { 0x202, 2 }, { 0x206, 0 }) + 8,
           "bone 2 'Turret'");
    CHECK_EQ(a->skeletons[0].bones[2].parent, -1);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_parent_negative, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE, AT(&b, { 0x200, 0 }, { 0x202, 1 }, { 0x205, 0 }) + 8,
           "bone 1 'engine_l'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_bone_nan, &b);
    EXPECT(a, AMX_C_BAD_VALUE, AT(&b, { 0x200, 0 }, { 0x202, 2 }, { 0x206, 0 }) + 8 + 12 + 12,
           "bone 2 'Turret'");
    CHECK_NEAR(a->skeletons[0].bones[2].matrix[3], 0, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_bone_no_name, &b);
    EXPECT(a, AMX_C_MISSING_CHUNK, AT(&b, { 0x200, 0 }, { 0x202, 1 }), "bone 1 ''");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_bone_no_data, &b);
    EXPECT(a, AMX_C_MISSING_CHUNK, AT(&b, { 0x200, 0 }, { 0x202, 3 }), "bone 3 'P_Light'");
    CHECK_EQ(a->skeletons[0].bones[3].parent, -1);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void brk_materials(sample *s) { s->meshes[1].materials_delta = -1; }
static void brk_unpaired(sample *s) { s->meshes[1].omit_last_data = true; }
static void brk_mesh_info_size(sample *s) { s->meshes[0].info_size = 100; }
static void brk_mesh_info_short(sample *s) { s->meshes[0].info_size = 20; }
static void brk_mesh_no_name(sample *s) { s->meshes[1].omit_name = true; }
static void brk_mesh_no_info(sample *s) { s->meshes[1].omit_info = true; }
static void brk_bbox_inf(sample *s) { s->meshes[0].bbox_min[0] = INFINITY; }
static void brk_flag_without_tree(sample *s) { s->meshes[1].collision_flag = 1; }
static void brk_tree_without_flag(sample *s) { s->meshes[0].collision_flag = -1; }

static void test_broken_mesh(void)
{
    amxw_buf b;
    amx_asset *a = broken(brk_materials, &b);
    EXPECT(a, AMX_C_COUNT_MISMATCH, AT(&b, { 0x400, 1 }, { 0x402, 0 }) + 8, "mesh 'FC_TURRET'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_unpaired, &b);
    EXPECT(a, AMX_C_COUNT_MISMATCH, AT(&b, { 0x400, 1 }), "mesh 'FC_TURRET'");
    CHECK_EQ(a->model->meshes[1].submesh_count, 2);
    CHECK_STR(a->model->meshes[1].submeshes[1].shader, "alDefault.fx");
    CHECK_EQ(a->model->meshes[1].submeshes[1].vertices, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_mesh_info_size, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x400, 0 }, { 0x402, 0 }), "mesh 'HULL'");
    CHECK(a->model->meshes[0].collision);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_mesh_info_short, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x400, 0 }, { 0x402, 0 }), "mesh 'HULL'");
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_mesh_no_name, &b);
    EXPECT(a, AMX_C_MISSING_CHUNK, AT(&b, { 0x400, 1 }), "mesh ''");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_mesh_no_info, &b);
    EXPECT(a, AMX_C_MISSING_CHUNK, AT(&b, { 0x400, 1 }), "mesh 'FC_TURRET'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_bbox_inf, &b);
    EXPECT(a, AMX_C_BAD_VALUE, AT(&b, { 0x400, 0 }, { 0x402, 0 }) + 8 + 4, "mesh 'HULL'");
    CHECK_NEAR(a->model->meshes[0].bbox_min[0], 0, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_flag_without_tree, &b);
    EXPECT(a, AMX_C_BAD_VALUE, AT(&b, { 0x400, 1 }, { 0x402, 0 }) + 8 + 36,
           "mesh 'FC_TURRET' submesh 0"); /* and submesh 1 */
    CHECK_EQ(test_count_severity(a, AMX_SEV_ERROR), 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_tree_without_flag, &b);
    EXPECT(a, AMX_C_BAD_VALUE, AT(&b, { 0x400, 0 }, { 0x402, 0 }) + 8 + 36,
           "mesh 'HULL' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void brk_vertices(sample *s) { s->subs[1].extra_vertices = -1; }
static void brk_indices(sample *s) { s->subs[0].extra_indices = 3; }
static void brk_submesh_info(sample *s) { s->subs[2].info_size = 64; }
static void brk_index_value(sample *s) { s->subs[0].bad_index_at = 5; }
static void brk_skin_entry(sample *s) { s->skin[1] = 4; }
static void brk_vertex_bone(sample *s) { s->subs[0].vertex_bone = 3; }
static void brk_vertex_bone_v1(sample *s)
{
    s->subs[1].skin = s->skin;
    s->subs[1].skin_count = 1;
    s->subs[1].vertex_bone = 1;
}
static void brk_param_nan(sample *s) { s->params[1].f[0] = NAN; }

static void test_broken_submesh(void)
{
    amxw_buf b;
    amx_asset *a = broken(brk_vertices, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x400, 1 }, { 0x10000, 0 }, { 0x10005, 0 }),
           "mesh 'FC_TURRET' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_indices, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x10004, 0 }),
           "mesh 'HULL' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_submesh_info, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x400, 1 }, { 0x10000, 1 }, { 0x10001, 0 }),
           "mesh 'FC_TURRET' submesh 1");
    CHECK_EQ(a->model->meshes[1].submeshes[1].vertices, 3);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_index_value, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x10004, 0 }) + 8 + 2 * 4,
           "mesh 'HULL' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_skin_entry, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x10006, 0 }) + 8 + 4, "mesh 'HULL' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_vertex_bone, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x10007, 0 }) + 8 + 112,
           "mesh 'HULL' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_vertex_bone_v1, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 1 }, { 0x10000, 0 }, { 0x10005, 0 }) + 8 + 96,
           "mesh 'FC_TURRET' submesh 0");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_param_nan, &b);
    EXPECT(a, AMX_C_BAD_VALUE,
           mini_at(&b, AT(&b, { 0x400, 0 }, { 0x10100, 0 }, { 0x10103, 0 }), 0x02) + 2,
           "mesh 'HULL' submesh 0 param 'Shininess'");
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void brk_tree_nodes(sample *s) { s->subs[0].tree_nodes_delta = 1; }
static void brk_tree_tris(sample *s) { s->subs[0].tree_tris_delta = -2; }
static void brk_tree_internal_link(sample *s) { s->subs[0].tree_bad_link = true; }
static void brk_tree_leaf_link(sample *s)
{
    s->subs[0].leaf_triangles = 0; /* a single leaf */
    s->subs[0].tree_bad_link = true;
}
static void brk_tree_map(sample *s) { s->subs[0].tree_bad_map = true; }

static void test_broken_collision(void)
{
    const char *ctx = "mesh 'HULL' submesh 0";
    amxw_buf b;
    amx_asset *a = broken(brk_tree_nodes, &b);
    size_t info = AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x1200, 0 }, { 0x1201, 0 });
    EXPECT(a, AMX_C_COUNT_MISMATCH, mini_at(&b, info, 0x02) + 2, ctx);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_tree_tris, &b);
    info = AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x1200, 0 }, { 0x1201, 0 });
    EXPECT(a, AMX_C_COUNT_MISMATCH, mini_at(&b, info, 0x03) + 2, ctx);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_tree_internal_link, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x1200, 0 }, { 0x1202, 0 }) + 8 + 8, ctx);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_tree_leaf_link, &b);
    CHECK_EQ(a->model->meshes[0].submeshes[0].collision_nodes, 1);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x1200, 0 }, { 0x1202, 0 }) + 8 + 8, ctx);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_tree_map, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           AT(&b, { 0x400, 0 }, { 0x10000, 0 }, { 0x1200, 0 }, { 0x1203, 0 }) + 8, ctx);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void brk_light_type(sample *s) { s->lights[0].type = 5; }
static void brk_light_size(sample *s) { s->lights[0].data_size = 32; }
static void brk_light_nan(sample *s) { s->lights[0].intensity = NAN; }
static void brk_objects(sample *s) { s->spec.objects_delta = 1; }
static void brk_proxies(sample *s) { s->spec.proxies_delta = -1; }
static void brk_dazzles(sample *s) { s->spec.dazzles_delta = 3; }
static void brk_conn_object(sample *s) { s->conns[1].object = 3; }
static void brk_conn_bone(sample *s) { s->conns[2].bone = 4; }
static void brk_proxy_bone(sample *s) { s->proxies[1].bone = 99; }
static void brk_dazzle_bone(sample *s) { s->dazzles[0].bone = 4; }
static void brk_unknown_root(sample *s) { s->spec.unknown_root_chunk = 0x4242; }
static void brk_no_connections(sample *s) { s->spec.omit_connections = true; }

static void test_broken_light_connections(void)
{
    amxw_buf b;
    amx_asset *a = broken(brk_light_type, &b);
    EXPECT(a, AMX_C_BAD_VALUE, AT(&b, { 0x1300, 0 }, { 0x1302, 0 }) + 8, "light 'Omni01'");
    CHECK_EQ(a->status, AMX_ASSET_OK); /* a warning */
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_light_size, &b);
    EXPECT(a, AMX_C_SIZE_MISMATCH, AT(&b, { 0x1300, 0 }, { 0x1302, 0 }), "light 'Omni01'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_light_nan, &b);
    EXPECT(a, AMX_C_BAD_VALUE, AT(&b, { 0x1300, 0 }, { 0x1302, 0 }) + 8 + 16, "light 'Omni01'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_objects, &b);
    EXPECT(a, AMX_C_COUNT_MISMATCH, mini_at(&b, AT(&b, { 0x600, 0 }, { 0x601, 0 }), 0x01) + 2,
           "connections");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_proxies, &b);
    EXPECT(a, AMX_C_COUNT_MISMATCH, mini_at(&b, AT(&b, { 0x600, 0 }, { 0x601, 0 }), 0x04) + 2,
           "connections");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_dazzles, &b);
    EXPECT(a, AMX_C_COUNT_MISMATCH, mini_at(&b, AT(&b, { 0x600, 0 }, { 0x601, 0 }), 0x09) + 2,
           "connections");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_conn_object, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           mini_at(&b, AT(&b, { 0x600, 0 }, { 0x602, 1 }), 0x02) + 2, "connection 1");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_conn_bone, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           mini_at(&b, AT(&b, { 0x600, 0 }, { 0x602, 2 }), 0x03) + 2, "connection 2");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_proxy_bone, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           mini_at(&b, AT(&b, { 0x600, 0 }, { 0x603, 1 }), 0x06) + 2, "proxy 1 'P_ENGINE'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_dazzle_bone, &b);
    EXPECT(a, AMX_C_INDEX_OUT_OF_RANGE,
           mini_at(&b, AT(&b, { 0x600, 0 }, { 0x604, 0 }), 0x0A) + 2, "dazzle 0 'Dazzle01'");
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_unknown_root, &b);
    EXPECT(a, AMX_C_UNKNOWN_CHUNK, AT(&b, { 0x4242, 0 }), NULL);
    CHECK_EQ(a->status, AMX_ASSET_OK); /* info only */
    CHECK_EQ(a->finding_count, 1);
    amx_asset_free(a);
    amxw_buf_free(&b);

    a = broken(brk_no_connections, &b);
    EXPECT(a, AMX_C_MISSING_CHUNK, SIZE_MAX, "connections");
    CHECK_EQ(a->model->mesh_count, 2);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* Damage the walker reports: the decode keeps what is there. */
static void test_truncated_model(void)
{
    sample s;
    sample_init(&s);
    amxw_buf b;
    sample_write(&s, &b);
    size_t cut = AT(&b, { 0x400, 1 }) + 20; /* inside the second mesh */
    amx_decode_opts opts = { .file_name = "VSD_SAMPLE.ALO" };
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode(b.data, cut, &opts, &a), AMX_OK);
    CHECK_EQ(check_asset(a), 0);
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    EXPECT(a, AMX_C_TRUNCATED, AT(&b, { 0x400, 1 }), NULL);
    CHECK_EQ(a->skeletons[0].bone_count, 4);
    CHECK_EQ(a->model->mesh_count, 2);
    CHECK_STR(a->model->meshes[0].name, "HULL");
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- probes ---- */

static void test_probe(void)
{
    sample s;
    sample_init(&s);
    amxw_buf b;
    sample_write(&s, &b);
    CHECK_EQ(amx_probe(b.data, 8), AMX_FMT_ALAMO_ALO);
    CHECK_EQ(amx_probe(b.data, 7), AMX_FMT_UNKNOWN);
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_ALAMO_ALO);
    b.data[7] &= 0x7F; /* container bit cleared */
    CHECK_EQ(amx_probe(b.data, 8), AMX_FMT_UNKNOWN);
    amxw_buf_free(&b);

    const uint32_t firsts[] = { 0x400, 0x1300, 0x600 };
    for (int i = 0; i < 3; i++) {
        amxw_buf m = { 0 };
        size_t c = amxw_chunk_begin(&m, firsts[i], true);
        amxw_chunk_end(&m, c);
        CHECK_EQ(amx_probe(m.data, m.len), AMX_FMT_ALAMO_ALO);
        amxw_buf_free(&m);
    }
    amxw_buf p = { 0 };
    amxw_alo_particle(&p, "p_x", 1, false);
    CHECK_EQ(amx_probe(p.data, 8), AMX_FMT_ALAMO_PARTICLE);
    amxw_buf_free(&p);
    amxw_alo_particle(&p, "p_x", 1, true);
    CHECK_EQ(amx_probe(p.data, 8), AMX_FMT_ALAMO_PARTICLE);
    CHECK_EQ(amx_probe(p.data, 5), AMX_FMT_UNKNOWN);
    amxw_buf_free(&p);
}

/* ---- particles ---- */

static void test_particle(void)
{
    amxw_buf b = { 0 };
    amxw_alo_particle(&b, "p_explosion_small", 4, false);
    amx_asset *a = decode_buf(&b, "Data/Art/Models/P_EXPLOSION_SMALL.ALO");
    CHECK_EQ(a->format, AMX_FMT_ALAMO_PARTICLE);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    CHECK_STR(a->version, "1");
    CHECK(a->particle != NULL);
    CHECK_STR(a->particle->name, "p_explosion_small");
    CHECK_EQ(a->particle->emitter_count, 4);
    CHECK(a->model == NULL);
    CHECK_EQ(a->skeleton_count, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    amxw_alo_particle(&b, "uaw_fx", 0, true);
    a = decode_buf(&b, NULL); /* no file name: no name check */
    CHECK_EQ(a->finding_count, 0);
    CHECK_STR(a->version, "2");
    CHECK_STR(a->particle->name, "uaw_fx");
    CHECK_EQ(a->particle->emitter_count, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    amxw_alo_particle(&b, "p_blink_red_2", 3, false);
    a = decode_buf(&b, "models/P_BLINK_RED_120.ALO");
    CHECK_EQ(a->finding_count, 1);
    EXPECT(a, AMX_C_PARTICLE_NAME_MISMATCH, AT(&b, { 0x900, 0 }, { 0x0, 0 }), "particle name");
    CHECK_EQ(a->findings[0].severity, AMX_SEV_WARNING);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->particle->emitter_count, 3);
    amx_asset_free(a);

    /* damage inside an emitter's mini-chunks is found although emitters are not decoded */
    size_t props = AT(&b, { 0x900, 0 }, { 0x800, 0 }, { 0x700, 1 }, { 0x2, 0 });
    b.data[props + 8 + 1] = 200; /* first mini claims 200 bytes */
    a = decode_buf(&b, "p_blink_red_2.alo");
    EXPECT(a, AMX_C_CHUNK_OVERRUN, props + 8, NULL);
    CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    CHECK_EQ(a->particle->emitter_count, 3);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* Containers nested far deeper than real files: the walk stops at a depth limit. */
static void test_particle_deep_nesting(void)
{
    amxw_buf b = { 0 };
    size_t handles[200];
    size_t root = amxw_chunk_begin(&b, 0x900, true);
    amxw_chunk_str(&b, 0x0, "p_deep");
    size_t list = amxw_chunk_begin(&b, 0x800, true);
    size_t emitter = amxw_chunk_begin(&b, 0x700, true);
    for (int i = 0; i < 200; i++)
        handles[i] = amxw_chunk_begin(&b, 0x29, true);
    for (int i = 199; i >= 0; i--)
        amxw_chunk_end(&b, handles[i]);
    amxw_chunk_end(&b, emitter);
    amxw_chunk_end(&b, list);
    amxw_chunk_end(&b, root);
    amx_asset *a = decode_buf(&b, "p_deep.alo");
    CHECK_EQ(a->particle->emitter_count, 1);
    CHECK_EQ(a->finding_count, 1);
    CHECK_EQ(a->findings[0].code, AMX_C_BAD_VALUE);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* A format forced on content that has none of its chunks: nothing usable, status ERROR. */
static void test_forced_format(void)
{
    amxw_buf b = { 0 };
    amxw_alo_particle(&b, "p_x", 1, false);
    amx_decode_opts opts = { .format = AMX_FMT_ALAMO_ALO };
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode(b.data, b.len, &opts, &a), AMX_OK);
    CHECK_EQ(check_asset(a), 0);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
    amxw_buf_free(&b);

    sample s;
    sample_init(&s);
    sample_write(&s, &b);
    opts.format = AMX_FMT_ALAMO_PARTICLE;
    CHECK_EQ(amx_decode(b.data, b.len, &opts, &a), AMX_OK);
    CHECK_EQ(check_asset(a), 0);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    EXPECT(a, AMX_C_MISSING_CHUNK, 0, NULL);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- the demo/bench generator ---- */

static void test_simple(void)
{
    const char *names[] = { "Root", "Hull", "Engine", "P_Smoke" };
    amxw_buf b = { 0 };
    amxw_alo_simple(&b, 4, names, 3, 2000, 7);
    CHECK(b.len > 3 * 2000 * 144);
    amx_asset *a = decode_buf(&b, "DEMO.ALO");
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    CHECK_EQ(a->skeletons[0].bone_count, 4);
    CHECK_STR(a->skeletons[0].bones[3].name, "P_Smoke");
    CHECK_EQ(a->model->mesh_count, 3);
    CHECK_STR(a->model->meshes[0].submeshes[0].shader, "MeshGloss.fx");
    CHECK_EQ(a->model->meshes[0].submeshes[0].params[0].type, AMX_PARAM_TEXTURE);
    CHECK_EQ(a->model->total_vertices, 6000);
    CHECK_EQ(a->model->connection_count, 3);
    CHECK_EQ(a->model->proxy_count, 1);
    amx_asset_free(a);
    amxw_buf_free(&b);

    amxw_alo_simple(&b, 30, NULL, 2, 70000, 1); /* more vertices than u16 indices reach */
    a = decode_buf(&b, NULL);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    CHECK_EQ(a->skeletons[0].bone_count, 30);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- mutations ---- */

static void mutate_sample(const amxw_buf *b, const char *what)
{
    mutate_stats st = { 0 };
    mutate_all(b->data, b->len, 1, NULL, &st);
    printf("# mutate %s (%zu bytes): %zu decodes, ok %zu, partial %zu, error %zu\n", what, b->len,
           st.decodes, st.statuses[0], st.statuses[1], st.statuses[2]);
    CHECK_EQ(st.violations, 0);
    CHECK(st.decodes > 4 * b->len - 1);
}

static void test_mutations(void)
{
    sample s;
    sample_init(&s);
    amxw_buf b;
    sample_write(&s, &b);
    mutate_sample(&b, "sample model");
    amxw_buf_free(&b);

    amxw_alo_particle(&b, "p_x", 2, false);
    mutate_sample(&b, "particle");
    amxw_buf_free(&b);

    amxw_alo_simple(&b, 3, NULL, 2, 5, 3);
    mutate_sample(&b, "simple model");
    amxw_buf_free(&b);
}

/* ---- the real corpus ---- */

static bool has_alo_ext(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcasecmp(name + n - 4, ".alo") == 0;
}

static amx_asset *decode_real(const char *file, unsigned char **data, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/alamo/%s", test_corpus_dir(), file);
    *data = test_read_file(path, len);
    if (!*data) {
        printf("# cannot read %s\n", path);
        test_failed_checks++;
        return NULL;
    }
    amx_decode_opts opts = { .file_name = path };
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode(*data, *len, &opts, &a), AMX_OK);
    return a;
}

static void test_corpus_all(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/alamo", test_corpus_dir());
    DIR *dp = opendir(dir);
    CHECK(dp != NULL);
    if (!dp)
        return;
    int files = 0, models = 0, particles = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (!has_alo_ext(e->d_name))
            continue;
        unsigned char *data;
        size_t len;
        amx_asset *a = decode_real(e->d_name, &data, &len);
        if (!a)
            continue;
        files++;
        models += a->format == AMX_FMT_ALAMO_ALO;
        particles += a->format == AMX_FMT_ALAMO_PARTICLE;
        CHECK(a->format == AMX_FMT_ALAMO_ALO || a->format == AMX_FMT_ALAMO_PARTICLE);
        CHECK_EQ(check_asset(a), 0);
        int errors = test_count_severity(a, AMX_SEV_ERROR);
        CHECK_EQ(errors, 0);
        bool blink = strcmp(e->d_name, "P_BLINK_RED_120.ALO") == 0;
        CHECK_EQ(a->finding_count, blink ? 1 : 0);
        if (errors || a->finding_count != (blink ? 1u : 0u)) {
            printf("# %s:\n", e->d_name);
            test_print_findings(a);
        }
        CHECK_EQ(a->status, AMX_ASSET_OK);
        amx_asset_free(a);
        free(data);
    }
    closedir(dp);
    printf("# corpus: %d .ALO files (%d models, %d particle systems)\n", files, models, particles);
    CHECK_EQ(files, models + particles);
    CHECK(models >= 19);
    CHECK(particles >= 7);
}

typedef struct model_expect {
    const char *file;
    uint32_t bones, meshes, proxies, lights, trees;
    const char *version;
} model_expect;

static uint32_t collision_trees(const amx_model *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++)
        for (uint32_t k = 0; k < m->meshes[i].submesh_count; k++)
            n += m->meshes[i].submeshes[k].has_collision;
    return n;
}

static bool has_billboard(const amx_skeleton *sk, uint32_t mode)
{
    for (uint32_t i = 0; i < sk->bone_count; i++)
        if (sk->bones[i].billboard == mode)
            return true;
    return false;
}

static void test_corpus_models(void)
{
    static const model_expect want[] = {
        { "VSG_SLAVE_I_D.ALO", 5, 1, 3, 0, 0, "1" },
        { "VCCo_IPV1_D.ALO", 11, 2, 7, 0, 0, "1" },
        { "VCFr_NEBULONB_D.ALO", 26, 5, 16, 3, 0, "1" },
        { "VSF_AUREK.ALO", 18, 10, 3, 0, 1, "1" },
        { "VCCr_Nebula_D.ALO", 49, 15, 33, 0, 2, "1" },
        { "RVBm_C_STARBASE_COMM_ARRAY.ALO", 8, 4, 3, 0, 4, "1" },
        { "VCFr_ASSAULTFRIGATE_MK_II_HP00_B-L.ALO", 50, 3, 0, 3, 1, "1" },
        { "Prop_Asteroid_00_F.ALO", 3, 2, 0, 0, 1, "1" },
        { "Proj_Turbo_Green_Heavy_Quad.ALO", 6, 1, 4, 0, 1, "1" },
        { "W_PLANET_DAGOBAH_HIGH.ALO", 3, 2, 0, 0, 0, "1" },
        { "w_stars_high_red.alo", 8, 2, 2, 0, 0, "1" },
        { "W_LASER_LARGE.ALO", 4, 2, 0, 0, 0, "1" },
        { "RVBm_PERIMETER_HTL_00.ALO", 6, 3, 0, 0, 0, "1" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        unsigned char *data;
        size_t len;
        amx_asset *a = decode_real(want[i].file, &data, &len);
        if (!a)
            continue;
        printf("# %s\n", want[i].file);
        CHECK_EQ(a->format, AMX_FMT_ALAMO_ALO);
        CHECK_STR(a->version, want[i].version);
        CHECK_EQ(a->skeleton_count, 1);
        CHECK_EQ(a->skeletons[0].bone_count, want[i].bones);
        CHECK_EQ(a->model->mesh_count, want[i].meshes);
        CHECK_EQ(a->model->proxy_count, want[i].proxies);
        CHECK_EQ(a->model->light_count, want[i].lights);
        CHECK_EQ(collision_trees(a->model), want[i].trees);
        CHECK_EQ(a->model->connection_count, want[i].meshes + want[i].lights);
        char stem[256];
        amx_path_stem(want[i].file, stem, sizeof stem);
        CHECK_STR(a->skeletons[0].name, stem);

        if (strcmp(want[i].file, "W_PLANET_DAGOBAH_HIGH.ALO") == 0)
            CHECK(has_billboard(&a->skeletons[0], 6));
        if (strcmp(want[i].file, "w_stars_high_red.alo") == 0)
            CHECK(has_billboard(&a->skeletons[0], 7));
        if (strcmp(want[i].file, "W_LASER_LARGE.ALO") == 0) {
            const amx_mesh *aura = &a->model->meshes[1];
            CHECK_STR(aura->name, "Aura");
            CHECK_STR(aura->submeshes[0].shader, "RSkinAdditive.fx");
            CHECK_STR(aura->submeshes[0].vertex_format, "alD3dVertRSkinNU2");
            CHECK_EQ(aura->submeshes[0].skin_bone_count, 3);
            CHECK_EQ(aura->submeshes[0].skin_bones[0], 0);
            CHECK_EQ(aura->submeshes[0].skin_bones[1], 2);
            CHECK_EQ(aura->submeshes[0].skin_bones[2], 3);
            CHECK_EQ(aura->submeshes[0].vertices, 16);
            CHECK_EQ(aura->submeshes[0].triangles, 8);
            CHECK_EQ(a->model->meshes[0].submeshes[0].skin_bone_count, 0);
            CHECK_STR(a->skeletons[0].bones[2].name, "Point01");
            CHECK_STR(a->model->meshes[0].submeshes[0].params[0].texture, "W_LASER_SMALL.DDS");
        }
        if (strcmp(want[i].file, "RVBm_PERIMETER_HTL_00.ALO") == 0) {
            int ints = 0;
            for (uint32_t k = 0; k < a->model->mesh_count; k++)
                for (uint32_t j = 0; j < a->model->meshes[k].submesh_count; j++)
                    for (uint32_t p = 0; p < a->model->meshes[k].submeshes[j].param_count; p++)
                        ints += a->model->meshes[k].submeshes[j].params[p].type == AMX_PARAM_INT;
            CHECK(ints > 0);
        }
        if (strcmp(want[i].file, "VCFr_ASSAULTFRIGATE_MK_II_HP00_B-L.ALO") == 0) {
            CHECK_STR(a->model->lights[0].name, "Spot01");
            CHECK_EQ(a->model->lights[0].type, 2);
            CHECK_STR(a->model->lights[1].name, "Omni01");
            CHECK_EQ(a->model->lights[1].type, 0);
            CHECK_NEAR(a->model->lights[0].far_atten_end, 200, 0);
            CHECK_STR(a->model->meshes[0].submeshes[0].params[3].name, "Shininess");
            CHECK_NEAR(a->model->meshes[0].submeshes[0].params[3].f[0], 32, 0);
        }
        amx_asset_free(a);
        free(data);
    }
}

static void test_corpus_particles(void)
{
    static const struct { const char *file, *name; uint32_t emitters; } want[] = {
        { "PE_Aurek.ALO", "pe_aurek", 2 },
        { "PTE_Aurek.ALO", "pte_aurek", 1 },
        { "PE_Z95ENGINES.ALO", "pe_z95engines", 3 },
        { "P_Explosion_Large_A.ALO", "p_explosion_large_a", 14 },
        { "P_HP_IMPERIAL_DAMAGE.ALO", "p_hp_imperial_damage", 5 },
        { "P_BLINK_RED_120.ALO", "p_blink_red_2", 3 },
        { "PE_SLAVE1ENGINES.ALO", "pe_slave1engines", 1 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        unsigned char *data;
        size_t len;
        amx_asset *a = decode_real(want[i].file, &data, &len);
        if (!a)
            continue;
        CHECK_EQ(a->format, AMX_FMT_ALAMO_PARTICLE);
        CHECK_STR(a->version, "1");
        CHECK_STR(a->particle->name, want[i].name);
        CHECK_EQ(a->particle->emitter_count, want[i].emitters);
        bool blink = strcmp(want[i].file, "P_BLINK_RED_120.ALO") == 0;
        CHECK_EQ(a->finding_count, blink ? 1 : 0);
        if (blink && a->finding_count == 1) {
            CHECK_EQ(a->findings[0].code, AMX_C_PARTICLE_NAME_MISMATCH);
            CHECK_EQ(a->findings[0].severity, AMX_SEV_WARNING);
            CHECK_EQ(a->findings[0].offset, 8);
            CHECK_STR(a->findings[0].context, "particle name");
        }
        amx_asset_free(a);
        free(data);
    }
}

static void mutate_real(const char *file)
{
    unsigned char *data;
    size_t len;
    amx_asset *a = decode_real(file, &data, &len);
    if (!a)
        return;
    amx_asset_free(a);
    char path[4096];
    snprintf(path, sizeof path, "alamo/%s", file);
    amx_decode_opts opts = { .file_name = path };
    size_t stride = len / 300 ? len / 300 : 1;
    mutate_stats st = { 0 };
    mutate_all(data, len, stride, &opts, &st);
    printf("# mutate %s (%zu bytes, stride %zu): %zu decodes, ok %zu, partial %zu, error %zu\n",
           file, len, stride, st.decodes, st.statuses[0], st.statuses[1], st.statuses[2]);
    CHECK_EQ(st.violations, 0);
    free(data);
}

static void test_corpus_mutations(void)
{
    mutate_real("RVBm_C_STARBASE_COMM_ARRAY.ALO");
    mutate_real("P_Explosion_Large_A.ALO");
}

int main(void)
{
    RUN(test_model_values);
    RUN(test_model_v1_lights_first);
    RUN(test_model_order_independent);
    RUN(test_broken_skeleton);
    RUN(test_broken_mesh);
    RUN(test_broken_submesh);
    RUN(test_broken_collision);
    RUN(test_broken_light_connections);
    RUN(test_truncated_model);
    RUN(test_probe);
    RUN(test_particle);
    RUN(test_particle_deep_nesting);
    RUN(test_forced_format);
    RUN(test_simple);
    RUN(test_mutations);
    RUN(test_corpus_all);
    RUN(test_corpus_models);
    RUN(test_corpus_particles);
    RUN(test_corpus_mutations);
    return test_done();
}
