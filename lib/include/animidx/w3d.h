/*
 * animidx: the Westwood W3D models of a decoded file (amx_asset.w3d).
 *
 * A .w3d file may hold hierarchies (decoded as amx_skeleton), animations (amx_clip) and the
 * render objects below: meshes (chunk 0x0 with its 0x1F header), HLODs (0x700, the model that
 * binds meshes to the bones of a hierarchy) and the obsolete Renegade HMODELs (0x300). Each is
 * listed in file order. Everything is owned by the asset; strings are never NULL.
 *
 * Names come from fixed-size fields (16 bytes, 32 for HLOD sub-objects) up to the first NUL.
 * Version words are as stored: (major << 16) | minor, e.g. 0x00040002 = "4.2".
 */
#ifndef ANIMIDX_W3D_H
#define ANIMIDX_W3D_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Geometry type in amx_w3d_mesh.attributes (W3D_MESH_FLAG_GEOMETRY_TYPE_*). */
#define AMX_W3D_GEOMETRY_MASK 0x00FF0000u
#define AMX_W3D_GEOMETRY_SKIN 0x00020000u

typedef struct amx_w3d_mesh {
    const char *name;           /* MeshName of the 0x1F header; "" when the mesh has none */
    const char *container;      /* ContainerName: the HLOD/HMODEL owning the mesh ("" if none) */
    uint32_t version;           /* header version word (4.1/4.2 Renegade, 5.0 BFME) */
    uint32_t attributes;        /* W3D_MESH_FLAG_*: geometry type in AMX_W3D_GEOMETRY_MASK */
    bool skin;                  /* geometry type is SKIN: vertices are bound to bones */
    bool has_influences;        /* the mesh holds a vertex influence chunk 0x0E (bone per vertex) */
    bool has_header;            /* the mesh holds a 0x1F header (old meshes do not) */
    uint32_t triangles;         /* NumTris */
    uint32_t vertices;          /* NumVertices */
    uint32_t materials;         /* NumMaterials */
    uint32_t damage_stages;     /* NumDamageStages */
    int32_t sort_level;         /* SortLevel */
    uint32_t prelit_version;    /* PrelitVersion */
    uint32_t vertex_channels;   /* VertexChannels bits (0x80: BFME two-bone smooth skin) */
    uint32_t face_channels;     /* FaceChannels bits */
    float bbox_min[3], bbox_max[3];
    float sphere_center[3], sphere_radius;
    int64_t offset;             /* byte offset of the mesh chunk 0x0 */
} amx_w3d_mesh;

/* An object of an HLOD level (0x704) or an HMODEL node (0x302..0x304). */
typedef struct amx_w3d_sub_object {
    const char *name;           /* render object name, "Container.Mesh" in HLODs */
    uint32_t bone;              /* pivot index in the model's hierarchy */
    uint32_t kind;              /* the chunk id: 0x704 sub-object; 0x302 node, 0x303 collision
                                 * node, 0x304 skin node, 0x306 shadow node (HMODEL) */
} amx_w3d_sub_object;

/* One level of detail (0x702), or the aggregate (0x705) / proxy (0x706) array of an HLOD. */
typedef struct amx_w3d_lod {
    float max_screen_size;      /* 0x703 MaxScreenSize */
    uint32_t declared_count;    /* 0x703 ModelCount as stored */
    amx_w3d_sub_object *objects;
    uint32_t object_count;      /* the 0x704 chunks actually present */
} amx_w3d_lod;

typedef struct amx_w3d_hlod {
    const char *name;           /* 0x701 Name */
    const char *hierarchy;      /* 0x701 HierarchyName: the skeleton the model binds to ("" none) */
    uint32_t version;           /* 0x701 Version */
    uint32_t declared_lods;     /* 0x701 LodCount as stored */
    amx_w3d_lod *lods;          /* the 0x702 chunks present, highest detail first */
    uint32_t lod_count;
    amx_w3d_lod *aggregates;    /* 0x705, NULL when absent */
    amx_w3d_lod *proxies;       /* 0x706, NULL when absent */
    int64_t offset;             /* byte offset of the 0x700 chunk */
} amx_w3d_hlod;

typedef struct amx_w3d_hmodel {
    const char *name;           /* 0x301 Name */
    const char *hierarchy;      /* 0x301 HierarchyName */
    uint32_t version;           /* 0x301 Version */
    uint32_t declared_connections; /* 0x301 NumConnections as stored */
    amx_w3d_sub_object *nodes;  /* 0x302/0x303/0x304/0x306 in file order */
    uint32_t node_count;
    int64_t offset;             /* byte offset of the 0x300 chunk */
} amx_w3d_hmodel;

typedef struct amx_w3d_info {
    amx_w3d_mesh *meshes;
    uint32_t mesh_count;
    amx_w3d_hlod *hlods;
    uint32_t hlod_count;
    amx_w3d_hmodel *hmodels;
    uint32_t hmodel_count;
} amx_w3d_info;

#ifdef __cplusplus
}
#endif

#endif
