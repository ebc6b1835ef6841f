/*
 * Test-side writer of Alamo .ALO files (lib/format/alo.c has the layout): models from a spec, and
 * structurally valid particle systems. Every field the decoder reports comes from the spec, so
 * tests can assert decoded values against written ones. Fields left zero give a valid file; the
 * "break" knobs make one thing wrong at a time.
 *
 *   amxw_alo_bone bones[] = { { .name = "Root", .parent = -1, .visible = 1 } };
 *   amxw_alo_spec spec = { .bones = bones, .bone_count = 1 };
 *   amxw_buf b = {0};
 *   amxw_alo_model(&b, &spec);
 */
#ifndef AMXW_ALO_WRITER_H
#define AMXW_ALO_WRITER_H

#include "buf.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct amxw_alo_bone {
    const char *name;
    int32_t parent;          /* written as is: -1 for a root */
    uint32_t visible;
    uint32_t billboard;
    float matrix[12];        /* all zero = identity */
    bool v1;                 /* 0x205 (no billboard) instead of 0x206 */
    bool omit_name;          /* break: no 0x203 */
    bool omit_data;          /* break: no 0x205/0x206 */
} amxw_alo_bone;

/* Shader parameter types: the chunk ids. */
enum {
    AMXW_ALO_INT = 0x10102,
    AMXW_ALO_FLOAT = 0x10103,
    AMXW_ALO_FLOAT3 = 0x10104,
    AMXW_ALO_TEXTURE = 0x10105,
    AMXW_ALO_FLOAT4 = 0x10106,
};

typedef struct amxw_alo_param {
    uint32_t type;           /* AMXW_ALO_* */
    const char *name;
    int32_t i;
    float f[4];
    const char *texture;
    bool value_first;        /* write mini 02 before mini 01 (order independence) */
} amxw_alo_param;

typedef struct amxw_alo_submesh {
    const char *shader;      /* NULL = "alDefault.fx" */
    const amxw_alo_param *params;
    uint32_t param_count;
    uint32_t vertices;       /* nVertices as declared */
    uint32_t triangles;      /* nPrimitives as declared */
    const char *vertex_format; /* NULL = "alD3dVertNU2" */
    uint32_t stride;         /* 144 (0x10007, the default) or 128 (0x10005) */
    bool omit_vertices;      /* no vertex buffer chunk */
    const uint32_t *skin;    /* 0x10006 skeleton bone indices; NULL = none */
    uint32_t skin_count;
    uint32_t vertex_bone;    /* boneIndices[0] of every vertex */
    const uint16_t *indices; /* 3 x triangles entries; NULL = generated valid */
    bool collision;          /* write a collision tree (0x1200) */
    uint32_t leaf_triangles; /* collision tree leaf size; 0 = one leaf holding everything */
    /* break knobs */
    int32_t extra_vertices;  /* vertices written = vertices + extra */
    int32_t extra_indices;   /* u16 entries written = 3 x triangles + extra */
    uint32_t info_size;      /* 0x10001 body size; 0 = 128 */
    int32_t bad_index_at;    /* > 0: index entry bad_index_at-1 is set to `vertices` */
    int32_t tree_nodes_delta; /* declared nNodes = actual + delta */
    int32_t tree_tris_delta;  /* declared nPrims = actual + delta */
    bool tree_bad_link;      /* node 0's link made out of range */
    bool tree_bad_map;       /* triangle map entry 0 set to `triangles` */
} amxw_alo_submesh;

typedef struct amxw_alo_mesh {
    const char *name;
    bool hidden;
    const amxw_alo_submesh *submeshes;
    uint32_t submesh_count;
    float bbox_min[3], bbox_max[3];
    /* break knobs */
    int32_t materials_delta;   /* declared nMaterials = submesh_count + delta */
    int32_t collision_flag;    /* 0: isCollisionEnabled = any submesh has a tree; 1: force 1;
                                * -1: force 0 */
    uint32_t info_size;        /* 0x402 body size; 0 = 128 */
    bool omit_name, omit_info;
    bool omit_last_data;       /* the last sub-mesh has no 0x10000 (unpaired material) */
} amxw_alo_mesh;

typedef struct amxw_alo_light {
    const char *name;
    uint32_t type;
    float color[3];
    float intensity, far_atten_end, far_atten_start, hotspot, falloff;
    uint32_t data_size;        /* break: 0x1302 body size; 0 = 36 */
} amxw_alo_light;

typedef struct amxw_alo_conn { uint32_t object, bone; } amxw_alo_conn;

typedef struct amxw_alo_proxy {
    const char *name;
    uint32_t bone;
    bool hidden, alt_decrease_stay_hidden;
    bool flags;                /* write minis 07 and 08 */
} amxw_alo_proxy;

typedef struct amxw_alo_dazzle {
    const char *name, *texture;
    uint32_t bone;
    float color[3], position[3];
    float radius;
    bool hidden;
} amxw_alo_dazzle;

typedef struct amxw_alo_spec {
    const amxw_alo_bone *bones;
    uint32_t bone_count;
    const amxw_alo_mesh *meshes;
    uint32_t mesh_count;
    const amxw_alo_light *lights;
    uint32_t light_count;
    bool lights_first;         /* write the lights before the meshes */
    const amxw_alo_conn *conns;
    uint32_t conn_count;
    const amxw_alo_proxy *proxies;
    uint32_t proxy_count;
    const amxw_alo_dazzle *dazzles;
    uint32_t dazzle_count;
    bool dazzle_count_mini;    /* write mini 09 (always written when there are dazzles) */
    /* break knobs */
    int32_t bone_count_delta;  /* declared nBones = bone_count + delta */
    uint32_t bone_count_size;  /* 0x201 body size; 0 = 128 */
    int32_t objects_delta, proxies_delta, dazzles_delta; /* 0x601 counts + delta */
    bool omit_connections;
    uint32_t unknown_root_chunk; /* != 0: an extra data chunk of this type after the skeleton */
} amxw_alo_spec;

void amxw_alo_model(amxw_buf *b, const amxw_alo_spec *spec);

/* A structurally valid particle system: root 0x900 (0x1500 when uaw) with 0x0 name, 0x1 id,
 * 0x2 persist and 0x800 holding `emitters` 0x700 emitters, each with a few chunks. */
void amxw_alo_particle(amxw_buf *b, const char *name, uint32_t emitters, bool uaw);

/* A plausible model for demos and benchmarks: bone 0 "Root", bone i parented to an earlier bone
 * (names from bone_names when not NULL), mesh_count meshes of one sub-mesh each
 * ("MeshGloss.fx" with a texture parameter), vertices_per_mesh vertices and a valid index
 * buffer, one connection per mesh and one proxy. */
void amxw_alo_simple(amxw_buf *b, uint32_t bone_count, const char *const *bone_names,
                     uint32_t mesh_count, uint32_t vertices_per_mesh, uint32_t seed);

#endif
