/* Test-side Alamo .ALO writer; see alo_writer.h and the layout table in lib/format/alo.c. */
#include "alo_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("amxw: out of memory\n", stderr);
        abort();
    }
    return p;
}

static void info_chunk(amxw_buf *b, uint32_t type, const uint32_t *words, size_t n,
                       uint32_t size)
{
    size_t c = amxw_chunk_begin(b, type, false);
    size_t start = b->len;
    for (size_t i = 0; i < n && (i + 1) * 4 <= size; i++)
        amxw_u32le(b, words[i]);
    amxw_zeros(b, size - (b->len - start));
    amxw_chunk_end(b, c);
}

/* ---- skeleton ---- */

static void write_bone(amxw_buf *b, const amxw_alo_bone *bone)
{
    static const float identity[12] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 };
    const float *m = identity;
    for (int i = 0; i < 12; i++)
        if (bone->matrix[i] != 0.0f)
            m = bone->matrix;
    size_t c = amxw_chunk_begin(b, 0x202, true);
    if (!bone->omit_name)
        amxw_chunk_str(b, 0x203, bone->name ? bone->name : "");
    if (!bone->omit_data) {
        size_t dc = amxw_chunk_begin(b, bone->v1 ? 0x205 : 0x206, false);
        amxw_u32le(b, (uint32_t)bone->parent);
        amxw_u32le(b, bone->visible);
        if (!bone->v1)
            amxw_u32le(b, bone->billboard);
        for (int i = 0; i < 12; i++)
            amxw_f32le(b, m[i]);
        amxw_chunk_end(b, dc);
    }
    amxw_chunk_end(b, c);
}

static void write_skeleton(amxw_buf *b, const amxw_alo_spec *s)
{
    size_t c = amxw_chunk_begin(b, 0x200, true);
    uint32_t declared = s->bone_count + (uint32_t)s->bone_count_delta;
    info_chunk(b, 0x201, &declared, 1, s->bone_count_size ? s->bone_count_size : 128);
    for (uint32_t i = 0; i < s->bone_count; i++)
        write_bone(b, &s->bones[i]);
    amxw_chunk_end(b, c);
}

/* ---- meshes ---- */

static void write_param(amxw_buf *b, const amxw_alo_param *p)
{
    size_t c = amxw_chunk_begin(b, p->type, false);
    for (int k = 0; k < 2; k++) {
        bool value = (k == 0) == p->value_first;
        if (!value) {
            amxw_mini_str(b, 0x01, p->name ? p->name : "");
            continue;
        }
        switch (p->type) {
        case AMXW_ALO_INT: amxw_mini_u32(b, 0x02, (uint32_t)p->i); break;
        case AMXW_ALO_FLOAT: amxw_mini_f32(b, 0x02, p->f, 1); break;
        case AMXW_ALO_FLOAT3: amxw_mini_f32(b, 0x02, p->f, 3); break;
        case AMXW_ALO_FLOAT4: amxw_mini_f32(b, 0x02, p->f, 4); break;
        default: amxw_mini_str(b, 0x02, p->texture ? p->texture : ""); break;
        }
    }
    amxw_chunk_end(b, c);
}

static void write_material(amxw_buf *b, const amxw_alo_submesh *s)
{
    size_t c = amxw_chunk_begin(b, 0x10100, true);
    amxw_chunk_str(b, 0x10101, s->shader ? s->shader : "alDefault.fx");
    for (uint32_t i = 0; i < s->param_count; i++)
        write_param(b, &s->params[i]);
    amxw_chunk_end(b, c);
}

static void write_vertices(amxw_buf *b, const amxw_alo_submesh *s, uint32_t seed)
{
    uint32_t stride = s->stride == 128 ? 128 : 144;
    int64_t n = (int64_t)s->vertices + s->extra_vertices;
    size_t c = amxw_chunk_begin(b, stride == 144 ? 0x10007 : 0x10005, false);
    uint32_t x = seed * 2654435761u + 1;
    for (int64_t v = 0; v < n; v++) {
        for (int k = 0; k < 3; k++) { /* position in [-1, 1] */
            x = x * 1664525u + 1013904223u;
            amxw_f32le(b, (float)(x >> 8) / (float)(1u << 23) - 1.0f);
        }
        const float normal[3] = { 0, 0, 1 }, tangent[3] = { 1, 0, 0 }, binormal[3] = { 0, 1, 0 };
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, normal[k]);
        for (int k = 0; k < 8; k++) /* 4 uv sets */
            amxw_f32le(b, (float)((v + k) % 2));
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, tangent[k]);
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, binormal[k]);
        for (int k = 0; k < 4; k++) /* colour */
            amxw_f32le(b, 1.0f);
        if (stride == 144)
            amxw_zeros(b, 16); /* unused */
        amxw_u32le(b, s->vertex_bone);
        amxw_zeros(b, 12);
        amxw_f32le(b, 1.0f); /* weights 1, 0, 0, 0 */
        amxw_zeros(b, 12);
    }
    amxw_chunk_end(b, c);
}

static void write_indices(amxw_buf *b, const amxw_alo_submesh *s)
{
    int64_t n = (int64_t)s->triangles * 3 + s->extra_indices;
    uint32_t mod = s->vertices < 65536 ? s->vertices : 65536;
    size_t c = amxw_chunk_begin(b, 0x10004, false);
    for (int64_t i = 0; i < n; i++) {
        uint16_t v;
        if (s->bad_index_at > 0 && i == s->bad_index_at - 1)
            v = (uint16_t)s->vertices;
        else if (s->indices && i < (int64_t)s->triangles * 3)
            v = s->indices[i];
        else
            v = mod ? (uint16_t)(i % mod) : 0;
        amxw_u16le(b, v);
    }
    amxw_chunk_end(b, c);
}

typedef struct tree_node { uint16_t prims, link; uint32_t lo, hi; } tree_node;

/* A balanced tree over the triangle range [0, triangles): children of a node are consecutive. */
static void write_collision(amxw_buf *b, const amxw_alo_submesh *s)
{
    uint32_t tris = s->triangles > 65535 ? 65535 : s->triangles;
    uint32_t leaf = s->leaf_triangles ? s->leaf_triangles : (tris ? tris : 1);
    tree_node *nodes = xcalloc(2 * (size_t)tris + 1, sizeof *nodes);
    uint32_t count = 0;
    if (tris) {
        nodes[count++] = (tree_node){ 0, 0, 0, tris };
        for (uint32_t i = 0; i < count; i++) {
            tree_node *n = &nodes[i];
            if (n->hi - n->lo <= leaf) {
                n->prims = (uint16_t)(n->hi - n->lo);
                n->link = (uint16_t)n->lo;
                continue;
            }
            uint32_t mid = n->lo + (n->hi - n->lo) / 2;
            n->prims = 0;
            n->link = (uint16_t)count;
            nodes[count++] = (tree_node){ 0, 0, n->lo, mid };
            nodes[count++] = (tree_node){ 0, 0, mid, n->hi };
        }
    }
    if (s->tree_bad_link && count)
        nodes[0].link = nodes[0].prims ? (uint16_t)(tris + 1) : (uint16_t)count;

    size_t c = amxw_chunk_begin(b, 0x1200, true);
    size_t ic = amxw_chunk_begin(b, 0x1201, false);
    const float lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
    amxw_mini_f32(b, 0x00, lo, 3);
    amxw_mini_f32(b, 0x01, hi, 3);
    amxw_mini_u32(b, 0x02, count + (uint32_t)s->tree_nodes_delta);
    amxw_mini_u32(b, 0x03, tris + (uint32_t)s->tree_tris_delta);
    amxw_chunk_end(b, ic);
    size_t nc = amxw_chunk_begin(b, 0x1202, false);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t box[6] = { 0, 0, 0, 255, 255, 255 };
        amxw_bytes(b, box, 6);
        amxw_u16le(b, nodes[i].prims);
        amxw_u16le(b, nodes[i].link);
    }
    amxw_chunk_end(b, nc);
    size_t mc = amxw_chunk_begin(b, 0x1203, false);
    for (uint32_t i = 0; i < tris; i++)
        amxw_u16le(b, s->tree_bad_map && i == 0 ? (uint16_t)s->triangles : (uint16_t)i);
    amxw_chunk_end(b, mc);
    amxw_chunk_end(b, c);
    free(nodes);
}

static void write_submesh_data(amxw_buf *b, const amxw_alo_submesh *s, uint32_t seed)
{
    size_t c = amxw_chunk_begin(b, 0x10000, true);
    const uint32_t counts[2] = { s->vertices, s->triangles };
    info_chunk(b, 0x10001, counts, 2, s->info_size ? s->info_size : 128);
    amxw_chunk_str(b, 0x10002, s->vertex_format ? s->vertex_format : "alD3dVertNU2");
    if (!s->omit_vertices)
        write_vertices(b, s, seed);
    write_indices(b, s);
    if (s->skin) {
        size_t sc = amxw_chunk_begin(b, 0x10006, false);
        for (uint32_t i = 0; i < s->skin_count; i++)
            amxw_u32le(b, s->skin[i]);
        amxw_chunk_end(b, sc);
    }
    if (s->collision)
        write_collision(b, s);
    amxw_chunk_end(b, c);
}

static void write_mesh(amxw_buf *b, const amxw_alo_mesh *m, uint32_t seed)
{
    size_t c = amxw_chunk_begin(b, 0x400, true);
    if (!m->omit_name)
        amxw_chunk_str(b, 0x401, m->name ? m->name : "");
    if (!m->omit_info) {
        bool collision = false;
        for (uint32_t i = 0; i < m->submesh_count; i++)
            collision = collision || m->submeshes[i].collision;
        if (m->collision_flag)
            collision = m->collision_flag > 0;
        uint32_t size = m->info_size ? m->info_size : 128;
        size_t ic = amxw_chunk_begin(b, 0x402, false);
        size_t start = b->len;
        amxw_u32le(b, m->submesh_count + (uint32_t)m->materials_delta);
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, m->bbox_min[k]);
        for (int k = 0; k < 3; k++)
            amxw_f32le(b, m->bbox_max[k]);
        amxw_u32le(b, 0);
        amxw_u32le(b, m->hidden);
        amxw_u32le(b, collision);
        if (size >= 40)
            amxw_zeros(b, size - 40);
        else
            b->len = start + size;
        amxw_chunk_end(b, ic);
    }
    for (uint32_t i = 0; i < m->submesh_count; i++) {
        write_material(b, &m->submeshes[i]);
        if (!(m->omit_last_data && i + 1 == m->submesh_count))
            write_submesh_data(b, &m->submeshes[i], seed + i);
    }
    amxw_chunk_end(b, c);
}

static void write_light(amxw_buf *b, const amxw_alo_light *l)
{
    size_t c = amxw_chunk_begin(b, 0x1300, true);
    amxw_chunk_str(b, 0x1301, l->name ? l->name : "");
    uint32_t size = l->data_size ? l->data_size : 36;
    size_t dc = amxw_chunk_begin(b, 0x1302, false);
    size_t start = b->len;
    amxw_u32le(b, l->type);
    for (int k = 0; k < 3; k++)
        amxw_f32le(b, l->color[k]);
    amxw_f32le(b, l->intensity);
    amxw_f32le(b, l->far_atten_end);
    amxw_f32le(b, l->far_atten_start);
    amxw_f32le(b, l->hotspot);
    amxw_f32le(b, l->falloff);
    if (size >= 36)
        amxw_zeros(b, size - 36);
    else
        b->len = start + size;
    amxw_chunk_end(b, dc);
    amxw_chunk_end(b, c);
}

/* ---- connections ---- */

static void write_connections(amxw_buf *b, const amxw_alo_spec *s)
{
    size_t c = amxw_chunk_begin(b, 0x600, true);
    size_t cc = amxw_chunk_begin(b, 0x601, false);
    amxw_mini_u32(b, 0x01, s->conn_count + (uint32_t)s->objects_delta);
    amxw_mini_u32(b, 0x04, s->proxy_count + (uint32_t)s->proxies_delta);
    if (s->dazzle_count || s->dazzle_count_mini || s->dazzles_delta)
        amxw_mini_u32(b, 0x09, s->dazzle_count + (uint32_t)s->dazzles_delta);
    amxw_chunk_end(b, cc);
    for (uint32_t i = 0; i < s->conn_count; i++) {
        size_t oc = amxw_chunk_begin(b, 0x602, false);
        amxw_mini_u32(b, 0x02, s->conns[i].object);
        amxw_mini_u32(b, 0x03, s->conns[i].bone);
        amxw_chunk_end(b, oc);
    }
    for (uint32_t i = 0; i < s->proxy_count; i++) {
        const amxw_alo_proxy *p = &s->proxies[i];
        size_t pc = amxw_chunk_begin(b, 0x603, false);
        amxw_mini_str(b, 0x05, p->name ? p->name : "");
        amxw_mini_u32(b, 0x06, p->bone);
        if (p->flags || p->hidden || p->alt_decrease_stay_hidden) {
            amxw_mini_u32(b, 0x07, p->hidden);
            amxw_mini_u32(b, 0x08, p->alt_decrease_stay_hidden);
        }
        amxw_chunk_end(b, pc);
    }
    for (uint32_t i = 0; i < s->dazzle_count; i++) {
        const amxw_alo_dazzle *z = &s->dazzles[i];
        size_t zc = amxw_chunk_begin(b, 0x604, false);
        amxw_mini_f32(b, 0x00, z->color, 3);
        amxw_mini_f32(b, 0x01, z->position, 3);
        amxw_mini_f32(b, 0x02, &z->radius, 1);
        amxw_mini_u32(b, 0x03, 0); /* texX */
        amxw_mini_u32(b, 0x04, 0); /* texY */
        amxw_mini_u32(b, 0x06, 1); /* texSize */
        amxw_mini_str(b, 0x05, z->texture ? z->texture : "");
        const float freq = 1.0f, phase = 0.0f;
        amxw_mini_f32(b, 0x07, &freq, 1);
        amxw_mini_f32(b, 0x08, &phase, 1);
        amxw_mini_u32(b, 0x09, 0); /* nightOnly */
        amxw_mini_u32(b, 0x0A, z->bone);
        amxw_mini_str(b, 0x0B, z->name ? z->name : "");
        amxw_mini_u32(b, 0x0C, z->hidden);
        amxw_chunk_end(b, zc);
    }
    amxw_chunk_end(b, c);
}

void amxw_alo_model(amxw_buf *b, const amxw_alo_spec *s)
{
    write_skeleton(b, s);
    if (s->unknown_root_chunk) {
        size_t c = amxw_chunk_begin(b, s->unknown_root_chunk, false);
        amxw_u32le(b, 0);
        amxw_chunk_end(b, c);
    }
    if (s->lights_first)
        for (uint32_t i = 0; i < s->light_count; i++)
            write_light(b, &s->lights[i]);
    for (uint32_t i = 0; i < s->mesh_count; i++)
        write_mesh(b, &s->meshes[i], i * 7919u);
    if (!s->lights_first)
        for (uint32_t i = 0; i < s->light_count; i++)
            write_light(b, &s->lights[i]);
    if (!s->omit_connections)
        write_connections(b, s);
}

/* ---- particles ---- */

static void write_emitter(amxw_buf *b, uint32_t index)
{
    size_t e = amxw_chunk_begin(b, 0x700, true);
    size_t p = amxw_chunk_begin(b, 0x2, false); /* properties: a few minis */
    amxw_mini_u32(b, 0x04, index);
    const float f = 0.5f;
    amxw_mini_f32(b, 0x05, &f, 1);
    amxw_mini_u32(b, 0x07, 1);
    amxw_chunk_end(b, p);
    amxw_chunk_str(b, 0x3, "p_particle_master.tga");
    char name[32];
    snprintf(name, sizeof name, "Emitter%u", index);
    amxw_chunk_str(b, 0x16, name);
    size_t g = amxw_chunk_begin(b, 0x29, true);
    for (int k = 0; k < 3; k++) {
        size_t h = amxw_chunk_begin(b, 0x1100, true);
        size_t d = amxw_chunk_begin(b, 0x1101, false);
        amxw_u32le(b, (uint32_t)k);
        amxw_zeros(b, 60);
        amxw_chunk_end(b, d);
        amxw_chunk_end(b, h);
    }
    amxw_chunk_end(b, g);
    size_t t = amxw_chunk_begin(b, 0x1, true); /* tracks */
    for (int k = 0; k < 7; k++) {
        size_t a = amxw_chunk_begin(b, 0x0, false);
        amxw_mini_u32(b, 0x02, 0);
        amxw_mini_u32(b, 0x03, 0);
        amxw_mini_u32(b, 0x04, 0);
        amxw_chunk_end(b, a);
        size_t k5 = amxw_chunk_begin(b, 0x1, false);
        if (k % 2) {
            const float key[2] = { 0.0f, 1.0f };
            amxw_mini_f32(b, 0x05, key, 2);
        }
        amxw_chunk_end(b, k5);
    }
    amxw_chunk_end(b, t);
    size_t s = amxw_chunk_begin(b, 0x36, false);
    amxw_mini_u32(b, 0x37, 0xFFFFFFFFu);
    amxw_mini_u32(b, 0x39, 0xFFFFFFFFu);
    amxw_chunk_end(b, s);
    amxw_chunk_str(b, 0x45, "p_particle_depth_master.tga");
    amxw_chunk_end(b, e);
}

void amxw_alo_particle(amxw_buf *b, const char *name, uint32_t emitters, bool uaw)
{
    size_t root = amxw_chunk_begin(b, uaw ? 0x1500 : 0x900, true);
    amxw_chunk_str(b, 0x0, name ? name : "");
    size_t id = amxw_chunk_begin(b, 0x1, false);
    amxw_u32le(b, 0);
    amxw_chunk_end(b, id);
    size_t list = amxw_chunk_begin(b, 0x800, true);
    for (uint32_t i = 0; i < emitters; i++)
        write_emitter(b, i);
    amxw_chunk_end(b, list);
    size_t persist = amxw_chunk_begin(b, 0x2, false);
    amxw_u8(b, 0);
    amxw_chunk_end(b, persist);
    amxw_chunk_end(b, root);
}

/* ---- a plausible model ---- */

void amxw_alo_simple(amxw_buf *b, uint32_t bone_count, const char *const *bone_names,
                     uint32_t mesh_count, uint32_t vertices_per_mesh, uint32_t seed)
{
    if (bone_count == 0)
        bone_count = 1;
    amxw_alo_bone *bones = xcalloc(bone_count, sizeof *bones);
    char (*names)[32] = xcalloc(bone_count + 2 * (size_t)mesh_count, sizeof *names);
    uint32_t x = seed * 2654435761u + 12345u;
    for (uint32_t i = 0; i < bone_count; i++) {
        if (bone_names)
            bones[i].name = bone_names[i];
        else {
            snprintf(names[i], sizeof names[i], i ? "Bone_%02u" : "Root", i);
            bones[i].name = names[i];
        }
        x = x * 1664525u + 1013904223u;
        bones[i].parent = i ? (int32_t)((x >> 8) % i) : -1;
        bones[i].visible = 1;
        float *m = bones[i].matrix;
        m[0] = m[5] = m[10] = 1.0f;
        m[3] = (float)i;
        m[7] = (float)((x >> 4) % 16);
    }

    amxw_alo_mesh *meshes = xcalloc(mesh_count, sizeof *meshes);
    amxw_alo_submesh *subs = xcalloc(mesh_count, sizeof *subs);
    amxw_alo_param *params = xcalloc(mesh_count, 2 * sizeof *params);
    amxw_alo_conn *conns = xcalloc(mesh_count, sizeof *conns);
    uint32_t triangles = vertices_per_mesh >= 3 ? vertices_per_mesh - 2 : 0;
    for (uint32_t i = 0; i < mesh_count; i++) {
        char *mesh_name = names[bone_count + 2 * i], *texture = names[bone_count + 2 * i + 1];
        snprintf(mesh_name, 32, "MESH_%02u", i);
        snprintf(texture, 32, "MESH_%02u.tga", i);
        params[2 * i] = (amxw_alo_param){ .type = AMXW_ALO_TEXTURE, .name = "BaseTexture",
                                          .texture = texture };
        params[2 * i + 1] = (amxw_alo_param){ .type = AMXW_ALO_FLOAT4, .name = "Color",
                                              .f = { 1, 1, 1, 1 } };
        subs[i] = (amxw_alo_submesh){
            .shader = "MeshGloss.fx", .params = &params[2 * i], .param_count = 2,
            .vertices = vertices_per_mesh, .triangles = triangles,
            .vertex_format = "alD3dVertNU2",
        };
        meshes[i] = (amxw_alo_mesh){
            .name = mesh_name, .submeshes = &subs[i], .submesh_count = 1,
            .bbox_min = { -1, -1, -1 }, .bbox_max = { 1, 1, 1 },
        };
        conns[i] = (amxw_alo_conn){ .object = i, .bone = i % bone_count };
    }
    const amxw_alo_proxy proxy = { .name = "P_SMOKE_01", .bone = bone_count - 1 };
    amxw_alo_spec spec = {
        .bones = bones, .bone_count = bone_count,
        .meshes = meshes, .mesh_count = mesh_count,
        .conns = conns, .conn_count = mesh_count,
        .proxies = &proxy, .proxy_count = 1,
    };
    amxw_alo_model(b, &spec);
    free(bones);
    free(names);
    free(meshes);
    free(subs);
    free(params);
    free(conns);
}
