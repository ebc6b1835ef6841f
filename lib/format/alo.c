/*
 * Alamo .ALO files (Star Wars: Empire at War / Forces of Corruption, Universe at War): models and
 * particle systems. Both are chunked files (chunk.h); the first root chunk tells them apart.
 *
 * Layout, checks and sources: docs/formats/alamo.md (sections 1-4). Public sources: Mike
 * Lankamp's ALO description and the GlyphX particle page (GlyphXTools/GlyphXTools.github.io),
 * his Alamo viewer (GlyphXTools/alo-viewer), the AlamoEngine-Tools/PetroglyphTools readers as
 * vendored in AlamoEngine-Tools/ModVerify (ModelFileReader, AloContentInfoIdentifier, the ALO01
 * particle-name check); checked against real mod files.
 *
 * Model (root chunks 0x200, then any mix of 0x400/0x1300, then 0x600; other orders tolerated):
 *
 *   chunk     kind        layout
 *   0x200     container   0x201, nBones x 0x202                               skeleton
 *   0x201     data        u32 nBones, zero padding to 128 bytes
 *   0x202     container   0x203 name (ASCIIZ), 0x206 or 0x205                 bone
 *   0x206     data 60     i32 parent (-1 root, < own index), u32 visible, u32 billboard,
 *                         f32[12] matrix (3 rows x 4, row-major)
 *   0x205     data 56     the same without billboard (0)
 *   0x400     container   0x401 name, 0x402 info, nMaterials x (0x10100, 0x10000)   mesh
 *   0x402     data 128    +0 u32 nMaterials, +4 f32[3] bboxMin, +16 f32[3] bboxMax, +28 unused,
 *                         +32 u32 isHidden, +36 u32 isCollisionEnabled, 88 zero bytes
 *   0x10100   container   0x10101 shader (ASCIIZ), params 0x10102 INT, 0x10103 FLOAT,
 *                         0x10104 FLOAT3, 0x10105 TEXTURE, 0x10106 FLOAT4; each param holds
 *                         mini 01 name (ASCIIZ) and mini 02 value (4, 4, 12, ASCIIZ, 16 bytes)
 *   0x10000   container   0x10001, 0x10002, 0x10007 or 0x10005, 0x10004, [0x10006], [0x1200]
 *   0x10001   data 128    u32 nVertices, u32 nPrimitives, zero padding
 *   0x10002   data        vertex format (ASCIIZ)
 *   0x10007   data        nVertices x 144 bytes; u32 boneIndices[4] at +112
 *   0x10005   data        nVertices x 128 bytes (no "unused" f32[4]); boneIndices at +96
 *   0x10004   data        u16[3 * nPrimitives] indices (< nVertices)
 *   0x10006   data        u32[] skin mapping: skeleton bone indices; vertex boneIndices[0]
 *                         indexes this list
 *   0x1200    container   collision tree: 0x1201, 0x1202, 0x1203
 *   0x1201    minis       00 f32[3] min, 01 f32[3] max, 02 u32 nNodes, 03 u32 nPrims
 *   0x1202    data        nNodes x 10 bytes: u8[3] min, u8[3] max, u16 nPrims, u16 link
 *                         (nPrims = 0: children link, link+1; else triangles map[link..+nPrims))
 *   0x1203    data        u16[nPrims] triangle map (< nPrimitives)
 *   0x1300    container   0x1301 name, 0x1302 (36 bytes): u32 type (0 omni, 1 directional,
 *                         2 spot), f32[3] rgb, intensity, farAttenEnd, farAttenStart, hotspot,
 *                         falloff                                              light
 *   0x600     container   0x601, nObjects x 0x602, nProxies x 0x603, nDazzles x 0x604
 *   0x601     minis       01 u32 nObjects, 04 u32 nProxies, optional 09 u32 nDazzles
 *   0x602     minis       02 u32 object (order of the 0x400/0x1300 chunks), 03 u32 bone
 *   0x603     minis       05 name, 06 u32 bone, optional 07 u32 isHidden, 08 u32 altDecrease
 *   0x604     minis       00 f32[3] rgb, 01 f32[3] pos, 02 f32 radius, 03 texX, 04 texY,
 *                         06 texSize, 05 texture, 07 freq, 08 phase, 09 nightOnly, 0A u32 bone,
 *                         0B name, 0C u32 isHidden, optional 0D bias (dazzle; Universe at War)
 *
 * Version: "2" when the model has 0x604 dazzles (PetroglyphTools AloVersion.V2), else "1".
 *
 * Particle system (root 0x900 EaW/FoC -> version "1", root 0x1500 UaW -> version "2"):
 *   0x0 name (ASCIIZ; equals the file stem, ModVerify ALO01), 0x1 u32 id, 0x2 u8 persist,
 *   0x800 container of n x 0x700 emitters. Inside 0x700: 0x2 and 0x36 are mini-chunked,
 *   0x1 is the tracks container (its 0x0 and 0x1 children are mini-chunked), 0x29 holds 0x1100
 *   containers. Emitter properties are walked for damage, not decoded.
 *
 * Mini-chunks are read in any order and sizes are checked, not trusted. Arrays are sized from
 * the chunks actually present, never from a declared count.
 */
#include "chunk.h"

#include <stdio.h>
#include <strings.h>

enum {
    CH_SKELETON = 0x200, CH_BONE_COUNT = 0x201, CH_BONE = 0x202, CH_BONE_NAME = 0x203,
    CH_BONE_V1 = 0x205, CH_BONE_V2 = 0x206,
    CH_MESH = 0x400, CH_MESH_NAME = 0x401, CH_MESH_INFO = 0x402,
    CH_MATERIAL = 0x10100, CH_SHADER = 0x10101, CH_PARAM_INT = 0x10102, CH_PARAM_FLOAT4 = 0x10106,
    CH_SUBMESH = 0x10000, CH_SUBMESH_INFO = 0x10001, CH_VERTEX_FORMAT = 0x10002,
    CH_INDICES = 0x10004, CH_VERTICES_V1 = 0x10005, CH_SKIN = 0x10006, CH_VERTICES_V2 = 0x10007,
    CH_COLLISION = 0x1200, CH_TREE_INFO = 0x1201, CH_TREE_NODES = 0x1202, CH_TREE_MAP = 0x1203,
    CH_LIGHT = 0x1300, CH_LIGHT_NAME = 0x1301, CH_LIGHT_DATA = 0x1302,
    CH_CONNECTIONS = 0x600, CH_CONN_COUNTS = 0x601, CH_CONN_OBJECT = 0x602, CH_CONN_PROXY = 0x603,
    CH_CONN_DAZZLE = 0x604,
    CH_PARTICLE = 0x900, CH_PARTICLE_UAW = 0x1500, CH_EMITTERS = 0x800, CH_EMITTER = 0x700,
};

#define INFO_SIZE 128      /* 0x201, 0x402, 0x10001 */
#define LIGHT_SIZE 36
#define NODE_SIZE 10
#define CTX_LEN 200        /* finding contexts are built on the stack (findings copy them) */
#define MAX_DEPTH 32       /* particle chunk nesting checked (real files nest 5 deep) */

/* ---- helpers ---- */

/* The next child chunk, exactly as amx__chunk_next walks it, but without findings: for the
 * passes that only count or look ahead (the reporting walk reports the same damage once). */
static bool peek_chunk(amx_reader *r, amx_chunk *c)
{
    if (amx_reader_left(r) < 8)
        return false;
    c->offset = amx_reader_tell(r);
    c->type = amx_read_u32le(r);
    uint32_t raw = amx_read_u32le(r);
    c->container = (raw & 0x80000000u) != 0;
    c->size = raw & 0x7FFFFFFFu;
    c->body = amx_reader_sub(r, c->size);
    c->body.err = false;
    return true;
}

static uint32_t count_children(amx_reader body, uint32_t lo, uint32_t hi)
{
    amx_chunk c;
    uint32_t n = 0;
    while (peek_chunk(&body, &c))
        if (c.type >= lo && c.type <= hi)
            n++;
    return n;
}

static bool find_child(amx_reader body, uint32_t type, amx_chunk *out)
{
    while (peek_chunk(&body, out))
        if (out->type == type)
            return true;
    return false;
}

/* The first mini-chunk of a type, without findings. */
static bool find_mini(amx_reader body, uint8_t type, amx_mini *out)
{
    while (amx_reader_left(&body) >= 2) {
        out->offset = amx_reader_tell(&body);
        out->type = amx_read_u8(&body);
        out->body = amx_reader_sub(&body, amx_read_u8(&body));
        out->body.err = false;
        if (out->type == type)
            return true;
    }
    return false;
}

static const char *child_string(amx_dec *d, amx_reader body, uint32_t type)
{
    amx_chunk c;
    return find_child(body, type, &c) ? amx__body_string(d, c.body) : "";
}

/* Unknown chunk types are reported once per type per parent. */
typedef struct seen_set {
    uint32_t types[8];
    unsigned n;
} seen_set;

static void unknown(amx_dec *d, seen_set *seen, uint32_t type, size_t offset, const char *ctx,
                    const char *what)
{
    for (unsigned i = 0; i < seen->n; i++)
        if (seen->types[i] == type)
            return;
    if (seen->n < 8)
        seen->types[seen->n++] = type;
    amx__finding(d, AMX_C_UNKNOWN_CHUNK, (int64_t)offset, ctx, "unknown %s 0x%x skipped", what,
                 (unsigned)type);
}

/* Checks the size of a fixed-size data chunk: a body shorter than `need` (the bytes read) is an
 * error and false (do not use it); any other size than `expected` (the format's) a warning. */
static bool fixed_size(amx_dec *d, const amx_chunk *c, size_t need, size_t expected,
                       const char *ctx)
{
    size_t have = amx_reader_left(&c->body);
    if (have < need) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)c->offset, ctx,
                     "chunk 0x%x holds %zu bytes, %zu expected", (unsigned)c->type, have, expected);
        return false;
    }
    if (have != expected)
        amx__finding_sev(d, AMX_C_SIZE_MISMATCH, AMX_SEV_WARNING, (int64_t)c->offset, ctx,
                         "chunk 0x%x holds %zu bytes, %zu expected", (unsigned)c->type, have,
                         expected);
    return true;
}

/* Reads a float at the cursor; non-finite values are reported and read as 0. */
static float read_float(amx_dec *d, amx_reader *r, const char *ctx, const char *what)
{
    size_t at = amx_reader_tell(r);
    float v = amx_read_f32le(r);
    return amx__check_finite(d, v, (int64_t)at, ctx, what) ? v : 0.0f;
}

static void missing(amx_dec *d, int64_t offset, const char *ctx, const char *what)
{
    amx__finding(d, AMX_C_MISSING_CHUNK, offset, ctx, "%s is missing", what);
}

/* Formats a finding context into a CTX_LEN buffer (cut short if need be). */
static void ctxf(char *buf, const char *fmt, ...) AMX_PRINTF(2, 3);
static void ctxf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, CTX_LEN, fmt, ap);
    va_end(ap);
}

static uint32_t add_sat(uint32_t a, uint32_t b) { return a > UINT32_MAX - b ? UINT32_MAX : a + b; }

/* ---- model ---- */

typedef struct model_state {
    amx_model *m;
    uint32_t bones;    /* bones in the skeleton */
    uint32_t objects;  /* 0x400 and 0x1300 chunks: the object indices of 0x602 */
} model_state;

/* What a 0x10000 walk keeps for the checks that need the whole sub-mesh. */
typedef struct submesh_work {
    bool has_info;
    size_t info_offset;
    amx_chunk vertices, indices, tree_map;
    bool has_vertices, has_indices, has_tree_map;
} submesh_work;

static const amx_bone default_bone = {
    .name = "", .parent = -1, .matrix = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 },
};

static void decode_bone_data(amx_dec *d, const amx_chunk *c, amx_bone *bone, uint32_t index,
                             const char *ctx)
{
    bool v2 = c->type == CH_BONE_V2;
    size_t need = v2 ? 60 : 56;
    if (!fixed_size(d, c, need, need, ctx))
        return;
    amx_reader r = c->body;
    size_t parent_at = amx_reader_tell(&r);
    int32_t parent = amx_read_i32le(&r);
    bone->visible = amx_read_u32le(&r);
    bone->billboard = v2 ? amx_read_u32le(&r) : 0;
    for (int i = 0; i < 12; i++)
        bone->matrix[i] = read_float(d, &r, ctx, "bone matrix value");
    if (parent < -1 || parent >= (int32_t)index) {
        amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)parent_at, ctx,
                     "parent %d is neither -1 nor an earlier bone (index %u)", parent, index);
        parent = -1;
    }
    bone->parent = parent;
}

static void decode_bone(amx_dec *d, const amx_chunk *c, amx_bone *bone, uint32_t index)
{
    *bone = default_bone;
    bone->name = child_string(d, c->body, CH_BONE_NAME);
    char ctx[CTX_LEN];
    ctxf(ctx, "bone %u '%s'", index, bone->name);
    bool has_name = false, has_data = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_BONE_NAME) {
            has_name = true;
        } else if (ch.type == CH_BONE_V2 || ch.type == CH_BONE_V1) {
            if (!has_data)
                decode_bone_data(d, &ch, bone, index, ctx);
            has_data = true;
        } else {
            unknown(d, &seen, ch.type, ch.offset, ctx, "bone chunk");
        }
    }
    if (!has_name)
        missing(d, (int64_t)c->offset, ctx, "bone name chunk 0x203");
    if (!has_data)
        missing(d, (int64_t)c->offset, ctx, "bone data chunk 0x206");
}

static void decode_skeleton(amx_dec *d, const amx_chunk *c, model_state *ms)
{
    amx_skeleton *sk = amx__alloc(d, sizeof *sk);
    uint32_t n = count_children(c->body, CH_BONE, CH_BONE);
    amx_bone *bones = amx__array(d, n, sizeof *bones);
    if (!sk || !bones)
        return;
    char stem[256];
    amx_path_stem(d->opts->file_name ? d->opts->file_name : "", stem, sizeof stem);
    sk->name = amx__strdup(d, stem);
    sk->bones = bones;
    d->asset->skeletons = sk;
    d->asset->skeleton_count = 1;

    bool has_count = false;
    uint32_t declared = 0;
    size_t count_at = 0;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_BONE_COUNT) {
            if (count_at)
                continue; /* the first one counts */
            count_at = ch.offset + 8;
            if (fixed_size(d, &ch, 4, INFO_SIZE, "skeleton")) {
                amx_reader b = ch.body;
                declared = amx_read_u32le(&b);
                has_count = true;
            }
        } else if (ch.type == CH_BONE && sk->bone_count < n) {
            decode_bone(d, &ch, &bones[sk->bone_count], sk->bone_count);
            sk->bone_count++;
        } else {
            unknown(d, &seen, ch.type, ch.offset, "skeleton", "skeleton chunk");
        }
    }
    if (!has_count && count_at == 0)
        missing(d, (int64_t)c->offset, "skeleton", "bone count chunk 0x201");
    else if (has_count && declared != sk->bone_count)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)count_at, "skeleton",
                     "the skeleton declares %u bones but holds %u bone chunks", declared,
                     sk->bone_count);
    ms->bones = sk->bone_count;
}

static void decode_param(amx_dec *d, const amx_chunk *c, amx_shader_param *p, const char *subctx)
{
    p->type = c->type - CH_PARAM_INT + AMX_PARAM_INT;
    p->texture = "";
    amx_mini m;
    p->name = find_mini(c->body, 0x01, &m) ? amx__body_string(d, m.body) : "";
    char ctx[CTX_LEN];
    ctxf(ctx, "%s param '%s'", subctx, p->name);
    bool has_name = false, has_value = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    while (amx__mini_next(d, &r, &m)) {
        if (m.type == 0x01) {
            has_name = true;
        } else if (m.type == 0x02 && !has_value) {
            has_value = true;
            uint32_t u = 0;
            switch (p->type) {
            case AMX_PARAM_INT:
                if (amx__mini_u32(d, &m, ctx, &u))
                    p->i = (int32_t)u;
                break;
            case AMX_PARAM_FLOAT: amx__mini_f32(d, &m, ctx, p->f, 1); break;
            case AMX_PARAM_FLOAT3: amx__mini_f32(d, &m, ctx, p->f, 3); break;
            case AMX_PARAM_FLOAT4: amx__mini_f32(d, &m, ctx, p->f, 4); break;
            default:
                p->texture = amx__body_string(d, m.body);
                amx__ref(d, AMX_REF_TEXTURE, p->texture, amx__strdup(d, ctx), -1, 0,
                         (int64_t)m.offset);
                break;
            }
        } else if (m.type != 0x02) {
            unknown(d, &seen, m.type, m.offset, ctx, "shader parameter mini-chunk");
        }
    }
    if (!has_name)
        missing(d, (int64_t)c->offset, ctx, "parameter name mini-chunk 01");
    if (!has_value)
        missing(d, (int64_t)c->offset, ctx, "parameter value mini-chunk 02");
}

static void decode_material(amx_dec *d, const amx_chunk *c, amx_submesh *s, const char *ctx)
{
    uint32_t n = count_children(c->body, CH_PARAM_INT, CH_PARAM_FLOAT4);
    s->params = amx__array(d, n, sizeof *s->params);
    if (!s->params)
        return;
    bool has_shader = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_SHADER) {
            if (!has_shader) {
                s->shader = amx__body_string(d, ch.body);
                amx__ref(d, AMX_REF_SHADER, s->shader, amx__sprintf(d, "%s shader", ctx), -1, 0,
                         (int64_t)ch.offset);
            }
            has_shader = true;
        } else if (ch.type >= CH_PARAM_INT && ch.type <= CH_PARAM_FLOAT4 && s->param_count < n) {
            decode_param(d, &ch, &s->params[s->param_count++], ctx);
        } else {
            unknown(d, &seen, ch.type, ch.offset, ctx, "material chunk");
        }
    }
    if (!has_shader)
        missing(d, (int64_t)c->offset, ctx, "shader chunk 0x10101");
}

static void decode_skin(amx_dec *d, const amx_chunk *c, amx_submesh *s, const model_state *ms,
                        const char *ctx)
{
    size_t size = amx_reader_left(&c->body);
    if (size % 4 != 0)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)c->offset, ctx,
                     "skin mapping of %zu bytes is not a whole number of u32 entries", size);
    uint32_t n = (uint32_t)(size / 4);
    s->skin_bones = amx__array(d, n, sizeof *s->skin_bones);
    if (!s->skin_bones)
        return;
    s->skin_bone_count = n;
    amx_reader r = c->body;
    uint32_t bad = 0;
    size_t first_at = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = amx_reader_tell(&r);
        s->skin_bones[i] = amx_read_u32le(&r);
        if (s->skin_bones[i] >= ms->bones && bad++ == 0)
            first_at = at;
    }
    if (bad)
        amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)first_at, ctx,
                     "%u skin mapping entries name bones outside the skeleton (%u bones)", bad,
                     ms->bones);
}

static void decode_tree_info(amx_dec *d, const amx_chunk *c, const char *ctx, uint32_t *nodes,
                             size_t *nodes_at, uint32_t *tris, size_t *tris_at)
{
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_mini m;
    float box[3];
    while (amx__mini_next(d, &r, &m)) {
        switch (m.type) {
        case 0x00:
        case 0x01: amx__mini_f32(d, &m, ctx, box, 3); break;
        case 0x02:
            if (amx__mini_u32(d, &m, ctx, nodes))
                *nodes_at = m.offset + 2;
            break;
        case 0x03:
            if (amx__mini_u32(d, &m, ctx, tris))
                *tris_at = m.offset + 2;
            break;
        default: unknown(d, &seen, m.type, m.offset, ctx, "collision tree mini-chunk"); break;
        }
    }
}

static void check_tree_nodes(amx_dec *d, const amx_chunk *c, uint32_t nodes, uint32_t map_len,
                             const char *ctx)
{
    amx_reader r = c->body;
    uint32_t bad = 0, first = 0, first_prims = 0, first_link = 0;
    size_t first_at = 0;
    for (uint32_t i = 0; i < nodes; i++) {
        amx_reader_skip(&r, 6);
        uint32_t prims = amx_read_u16le(&r);
        size_t link_at = amx_reader_tell(&r);
        uint32_t link = amx_read_u16le(&r);
        bool ok = prims == 0 ? link + 1 < nodes : link + prims <= map_len;
        if (!ok && bad++ == 0) {
            first_at = link_at;
            first = i;
            first_prims = prims;
            first_link = link;
        }
    }
    if (bad && first_prims == 0)
        amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)first_at, ctx,
                     "collision node %u links to children %u and %u of %u nodes "
                     "(%u bad links in all)", first, first_link, first_link + 1, nodes, bad);
    else if (bad)
        amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)first_at, ctx,
                     "collision node %u maps %u triangles from %u, past the %u-entry triangle "
                     "map (%u bad links in all)", first, first_prims, first_link, map_len, bad);
}

static void decode_collision(amx_dec *d, const amx_chunk *c, amx_submesh *s, submesh_work *w,
                             const char *ctx)
{
    uint32_t declared_nodes = 0, declared_tris = 0;
    size_t nodes_at = 0, tris_at = 0;
    bool has_info = false;
    amx_chunk nodes = { 0 };
    bool has_nodes = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_TREE_INFO) {
            if (!has_info)
                decode_tree_info(d, &ch, ctx, &declared_nodes, &nodes_at, &declared_tris,
                                 &tris_at);
            has_info = true;
        } else if (ch.type == CH_TREE_NODES) {
            if (has_nodes)
                continue;
            has_nodes = true;
            nodes = ch;
            if (amx_reader_left(&ch.body) % NODE_SIZE != 0)
                amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch.offset, ctx,
                             "collision nodes of %zu bytes are not a whole number of %d-byte "
                             "nodes", amx_reader_left(&ch.body), NODE_SIZE);
        } else if (ch.type == CH_TREE_MAP) {
            if (w->has_tree_map)
                continue;
            w->has_tree_map = true;
            w->tree_map = ch;
            if (amx_reader_left(&ch.body) % 2 != 0)
                amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)ch.offset, ctx,
                             "triangle map of %zu bytes is not a whole number of u16 entries",
                             amx_reader_left(&ch.body));
        } else {
            unknown(d, &seen, ch.type, ch.offset, ctx, "collision tree chunk");
        }
    }
    uint32_t node_count = has_nodes ? (uint32_t)(amx_reader_left(&nodes.body) / NODE_SIZE) : 0;
    uint32_t map_len = w->has_tree_map ? (uint32_t)(amx_reader_left(&w->tree_map.body) / 2) : 0;
    s->has_collision = true;
    s->collision_nodes = node_count;
    s->collision_triangles = map_len;
    if (!has_info)
        missing(d, (int64_t)c->offset, ctx, "collision tree info chunk 0x1201");
    if (nodes_at && declared_nodes != node_count)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)nodes_at, ctx,
                     "the collision tree declares %u nodes but holds %u", declared_nodes,
                     node_count);
    if (tris_at && declared_tris != map_len)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)tris_at, ctx,
                     "the collision tree declares %u mapped triangles but holds %u",
                     declared_tris, map_len);
    if (has_nodes)
        check_tree_nodes(d, &nodes, node_count, map_len, ctx);
}

/* Reports the first entry of an array of n u16/u32 values (at `stride` apart, `skip` bytes into
 * each) that is >= limit, and how many there are. */
static void check_entries(amx_dec *d, const amx_chunk *c, uint32_t n, size_t stride, size_t skip,
                          size_t width, uint32_t limit, const char *ctx, const char *what)
{
    amx_reader r = c->body;
    size_t start = amx_reader_tell(&r);
    uint32_t bad = 0;
    size_t first_at = 0;
    uint32_t first = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = start + (size_t)i * stride + skip;
        if (!amx_reader_seek(&r, at))
            break;
        uint32_t v = width == 2 ? amx_read_u16le(&r) : amx_read_u32le(&r);
        if (r.err)
            break;
        if (v >= limit && bad++ == 0) {
            first_at = at;
            first = v;
        }
    }
    if (bad)
        amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)first_at, ctx,
                     "%u %s out of range (first: %u, limit %u)", bad, what, first, limit);
}

static void check_submesh(amx_dec *d, const amx_chunk *c, amx_submesh *s, const submesh_work *w,
                          const char *ctx)
{
    if (!w->has_info) {
        if (!w->info_offset)
            missing(d, (int64_t)c->offset, ctx, "sub-mesh info chunk 0x10001");
        return;
    }
    if (w->has_vertices) {
        size_t have = amx_reader_left(&w->vertices.body);
        uint64_t want = (uint64_t)s->vertices * s->vertex_stride;
        if (have != want)
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)w->vertices.offset, ctx,
                         "vertex buffer holds %zu bytes, %u vertices of %u bytes need %llu",
                         have, s->vertices, s->vertex_stride, (unsigned long long)want);
        if (s->skin_bone_count) {
            uint32_t n = (uint32_t)(have / s->vertex_stride);
            if (n > s->vertices)
                n = s->vertices;
            check_entries(d, &w->vertices, n, s->vertex_stride, s->vertex_stride - 32, 4,
                          s->skin_bone_count, ctx, "vertex bone indices");
        }
    }
    if (w->has_indices) {
        size_t have = amx_reader_left(&w->indices.body);
        uint64_t want = (uint64_t)s->triangles * 6;
        if (have != want)
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)w->indices.offset, ctx,
                         "index buffer holds %zu bytes, %u triangles need %llu", have,
                         s->triangles, (unsigned long long)want);
        check_entries(d, &w->indices, (uint32_t)(have / 2), 2, 0, 2, s->vertices, ctx,
                      "vertex indices");
    }
    if (w->has_tree_map)
        check_entries(d, &w->tree_map, (uint32_t)(amx_reader_left(&w->tree_map.body) / 2), 2, 0,
                      2, s->triangles, ctx, "collision triangle map entries");
}

static void decode_submesh_data(amx_dec *d, const amx_chunk *c, amx_submesh *s,
                                const model_state *ms, const char *ctx)
{
    submesh_work w = { 0 };
    bool has_format = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        switch (ch.type) {
        case CH_SUBMESH_INFO:
            if (w.info_offset)
                break;
            w.info_offset = ch.offset;
            if (fixed_size(d, &ch, 8, INFO_SIZE, ctx)) {
                amx_reader b = ch.body;
                s->vertices = amx_read_u32le(&b);
                s->triangles = amx_read_u32le(&b);
                w.has_info = true;
            }
            break;
        case CH_VERTEX_FORMAT:
            if (!has_format)
                s->vertex_format = amx__body_string(d, ch.body);
            has_format = true;
            break;
        case CH_VERTICES_V2:
        case CH_VERTICES_V1:
            if (w.has_vertices)
                break;
            w.has_vertices = true;
            w.vertices = ch;
            s->vertex_stride = ch.type == CH_VERTICES_V2 ? 144 : 128;
            break;
        case CH_INDICES:
            if (!w.has_indices)
                w.indices = ch;
            w.has_indices = true;
            break;
        case CH_SKIN:
            if (!s->skin_bones)
                decode_skin(d, &ch, s, ms, ctx);
            break;
        case CH_COLLISION:
            if (!s->has_collision)
                decode_collision(d, &ch, s, &w, ctx);
            break;
        default: unknown(d, &seen, ch.type, ch.offset, ctx, "sub-mesh chunk"); break;
        }
    }
    check_submesh(d, c, s, &w, ctx);
}

typedef struct mesh_info {
    bool ok;
    size_t offset; /* of the 0x402 body */
    uint32_t materials, collision;
} mesh_info;

static void decode_mesh_info(amx_dec *d, const amx_chunk *c, amx_mesh *mesh, mesh_info *info,
                             const char *ctx)
{
    info->offset = c->offset + 8;
    if (!fixed_size(d, c, 40, INFO_SIZE, ctx))
        return;
    amx_reader r = c->body;
    info->materials = amx_read_u32le(&r);
    for (int i = 0; i < 3; i++)
        mesh->bbox_min[i] = read_float(d, &r, ctx, "bounding box value");
    for (int i = 0; i < 3; i++)
        mesh->bbox_max[i] = read_float(d, &r, ctx, "bounding box value");
    amx_read_u32le(&r); /* unused */
    mesh->hidden = amx_read_u32le(&r) != 0;
    info->collision = amx_read_u32le(&r);
    mesh->collision = info->collision != 0;
    mesh->material_count = info->materials;
    info->ok = true;
}

static void decode_mesh(amx_dec *d, const amx_chunk *c, model_state *ms, amx_mesh *mesh)
{
    mesh->name = child_string(d, c->body, CH_MESH_NAME);
    char ctx[CTX_LEN], subctx[CTX_LEN];
    ctxf(ctx, "mesh '%s'", mesh->name);
    uint32_t materials = count_children(c->body, CH_MATERIAL, CH_MATERIAL);
    uint32_t datas = count_children(c->body, CH_SUBMESH, CH_SUBMESH);
    uint32_t n = materials > datas ? materials : datas;
    amx_submesh *subs = amx__array(d, n, sizeof *subs);
    if (!subs)
        return;
    for (uint32_t i = 0; i < n; i++) {
        subs[i].shader = "";
        subs[i].vertex_format = "";
    }
    mesh->submeshes = subs;
    mesh->submesh_count = n;

    bool has_name = false;
    mesh_info info = { 0 };
    uint32_t mi = 0, di = 0;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_MESH_NAME) {
            has_name = true;
        } else if (ch.type == CH_MESH_INFO) {
            if (!info.offset)
                decode_mesh_info(d, &ch, mesh, &info, ctx);
        } else if (ch.type == CH_MATERIAL && mi < n) {
            ctxf(subctx, "%s submesh %u", ctx, mi);
            decode_material(d, &ch, &subs[mi], subctx);
            mi++;
        } else if (ch.type == CH_SUBMESH && di < n) {
            ctxf(subctx, "%s submesh %u", ctx, di);
            decode_submesh_data(d, &ch, &subs[di], ms, subctx);
            di++;
        } else {
            unknown(d, &seen, ch.type, ch.offset, ctx, "mesh chunk");
        }
    }
    if (!has_name)
        missing(d, (int64_t)c->offset, ctx, "mesh name chunk 0x401");
    if (!info.offset)
        missing(d, (int64_t)c->offset, ctx, "mesh info chunk 0x402");
    if (mi != di)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)c->offset, ctx,
                     "the mesh holds %u material chunks but %u sub-mesh data chunks", mi, di);
    if (!info.ok)
        return;
    if (info.materials != n)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)info.offset, ctx,
                     "the mesh declares %u materials but holds %u sub-meshes", info.materials, n);
    for (uint32_t i = 0; i < n; i++) {
        if ((info.collision != 0) == subs[i].has_collision)
            continue;
        ctxf(subctx, "%s submesh %u", ctx, i);
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)(info.offset + 36), subctx,
                     info.collision ? "isCollisionEnabled is set but the sub-mesh has no "
                                      "collision tree"
                                    : "the sub-mesh has a collision tree but isCollisionEnabled "
                                      "is 0");
    }
}

static void decode_light(amx_dec *d, const amx_chunk *c, amx_light *light)
{
    light->name = child_string(d, c->body, CH_LIGHT_NAME);
    char ctx[CTX_LEN];
    ctxf(ctx, "light '%s'", light->name);
    bool has_name = false, has_data = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_LIGHT_NAME) {
            has_name = true;
        } else if (ch.type == CH_LIGHT_DATA) {
            if (has_data)
                continue;
            has_data = true;
            if (!fixed_size(d, &ch, LIGHT_SIZE, LIGHT_SIZE, ctx))
                continue;
            amx_reader b = ch.body;
            light->type = amx_read_u32le(&b);
            if (light->type > 2)
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)ch.offset + 8, ctx,
                             "light type %u is not 0 (omni), 1 (directional) or 2 (spot)",
                             light->type);
            for (int i = 0; i < 3; i++)
                light->color[i] = read_float(d, &b, ctx, "light colour");
            light->intensity = read_float(d, &b, ctx, "light intensity");
            light->far_atten_end = read_float(d, &b, ctx, "light far attenuation end");
            light->far_atten_start = read_float(d, &b, ctx, "light far attenuation start");
            light->hotspot = read_float(d, &b, ctx, "light hotspot size");
            light->falloff = read_float(d, &b, ctx, "light falloff size");
        } else {
            unknown(d, &seen, ch.type, ch.offset, ctx, "light chunk");
        }
    }
    if (!has_name)
        missing(d, (int64_t)c->offset, ctx, "light name chunk 0x1301");
    if (!has_data)
        missing(d, (int64_t)c->offset, ctx, "light data chunk 0x1302");
}

/* A u32 mini-chunk that indexes a table of `limit` entries. */
static void index_mini(amx_dec *d, const amx_mini *m, const char *ctx, uint32_t *out,
                       uint32_t limit, const char *what)
{
    if (!amx__mini_u32(d, m, ctx, out))
        return;
    if (*out >= limit)
        amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)m->offset + 2, ctx,
                     "%s index %u is out of range (%u)", what, *out, limit);
}

static void decode_object_conn(amx_dec *d, const amx_chunk *c, amx_object_conn *o,
                               const model_state *ms, uint32_t index)
{
    char ctx[CTX_LEN];
    ctxf(ctx, "connection %u", index);
    bool has_object = false, has_bone = false;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_mini m;
    while (amx__mini_next(d, &r, &m)) {
        if (m.type == 0x02 && !has_object) {
            has_object = true;
            index_mini(d, &m, ctx, &o->object, ms->objects, "object");
        } else if (m.type == 0x03 && !has_bone) {
            has_bone = true;
            index_mini(d, &m, ctx, &o->bone, ms->bones, "bone");
        } else if (m.type != 0x02 && m.type != 0x03) {
            unknown(d, &seen, m.type, m.offset, ctx, "object connection mini-chunk");
        }
    }
    if (!has_object)
        missing(d, (int64_t)c->offset, ctx, "object mini-chunk 02");
    if (!has_bone)
        missing(d, (int64_t)c->offset, ctx, "bone mini-chunk 03");
}

static void decode_proxy(amx_dec *d, const amx_chunk *c, amx_proxy *p, const model_state *ms,
                         uint32_t index)
{
    amx_mini m;
    p->name = find_mini(c->body, 0x05, &m) ? amx__body_string(d, m.body) : "";
    char ctx[CTX_LEN];
    ctxf(ctx, "proxy %u '%s'", index, p->name);
    bool has_name = false, has_bone = false;
    uint32_t u = 0;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    while (amx__mini_next(d, &r, &m)) {
        switch (m.type) {
        case 0x05: has_name = true; break;
        case 0x06:
            if (!has_bone)
                index_mini(d, &m, ctx, &p->bone, ms->bones, "bone");
            has_bone = true;
            break;
        case 0x07:
            if (amx__mini_u32(d, &m, ctx, &u))
                p->hidden = u != 0;
            break;
        case 0x08:
            if (amx__mini_u32(d, &m, ctx, &u))
                p->alt_decrease_stay_hidden = u != 0;
            break;
        default: unknown(d, &seen, m.type, m.offset, ctx, "proxy mini-chunk"); break;
        }
    }
    if (!has_name)
        missing(d, (int64_t)c->offset, ctx, "proxy name mini-chunk 05");
    else /* a proxy shows a particle system */
        amx__ref(d, AMX_REF_PARTICLE, p->name, amx__strdup(d, ctx), -1, 0, (int64_t)c->offset);
    if (!has_bone)
        missing(d, (int64_t)c->offset, ctx, "proxy bone mini-chunk 06");
}

static void decode_dazzle(amx_dec *d, const amx_chunk *c, amx_dazzle *z, const model_state *ms,
                          uint32_t index)
{
    amx_mini m;
    z->name = find_mini(c->body, 0x0B, &m) ? amx__body_string(d, m.body) : "";
    z->texture = "";
    char ctx[CTX_LEN];
    ctxf(ctx, "dazzle %u '%s'", index, z->name);
    bool has_name = false, has_bone = false;
    uint32_t u = 0;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    while (amx__mini_next(d, &r, &m)) {
        switch (m.type) {
        case 0x00: amx__mini_f32(d, &m, ctx, z->color, 3); break;
        case 0x01: amx__mini_f32(d, &m, ctx, z->position, 3); break;
        case 0x02: amx__mini_f32(d, &m, ctx, &z->radius, 1); break;
        case 0x05:
            z->texture = amx__body_string(d, m.body);
            amx__ref(d, AMX_REF_TEXTURE, z->texture, amx__sprintf(d, "%s texture", ctx), -1, 0,
                     (int64_t)m.offset);
            break;
        case 0x0A:
            if (!has_bone)
                index_mini(d, &m, ctx, &z->bone, ms->bones, "bone");
            has_bone = true;
            break;
        case 0x0B: has_name = true; break;
        case 0x0C:
            if (amx__mini_u32(d, &m, ctx, &u))
                z->hidden = u != 0;
            break;
        case 0x03: case 0x04: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0D:
            break; /* texture tile, frequency, phase, night-only, bias: not decoded */
        default: unknown(d, &seen, m.type, m.offset, ctx, "dazzle mini-chunk"); break;
        }
    }
    if (!has_name)
        missing(d, (int64_t)c->offset, ctx, "dazzle name mini-chunk 0B");
    if (!has_bone)
        missing(d, (int64_t)c->offset, ctx, "dazzle bone mini-chunk 0A");
}

typedef struct conn_counts {
    bool present;
    size_t offset;           /* of the 0x601 chunk */
    uint32_t value[3];       /* objects, proxies, dazzles */
    size_t at[3];            /* offset of each value; 0 = absent or unreadable */
    bool seen[3];            /* the mini-chunk is there (readable or not) */
} conn_counts;

static void decode_conn_counts(amx_dec *d, const amx_chunk *c, conn_counts *cc)
{
    cc->present = true;
    cc->offset = c->offset;
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_mini m;
    while (amx__mini_next(d, &r, &m)) {
        int k = m.type == 0x01 ? 0 : m.type == 0x04 ? 1 : m.type == 0x09 ? 2 : -1;
        if (k < 0) {
            unknown(d, &seen, m.type, m.offset, "connections", "connection count mini-chunk");
        } else if (!cc->seen[k]) {
            cc->seen[k] = true;
            if (amx__mini_u32(d, &m, "connections", &cc->value[k]))
                cc->at[k] = m.offset + 2;
        }
    }
}

static void decode_connections(amx_dec *d, const amx_chunk *c, model_state *ms)
{
    amx_model *m = ms->m;
    uint32_t n_obj = count_children(c->body, CH_CONN_OBJECT, CH_CONN_OBJECT);
    uint32_t n_proxy = count_children(c->body, CH_CONN_PROXY, CH_CONN_PROXY);
    uint32_t n_dazzle = count_children(c->body, CH_CONN_DAZZLE, CH_CONN_DAZZLE);
    amx_object_conn *objs = amx__array(d, n_obj, sizeof *objs);
    amx_proxy *proxies = amx__array(d, n_proxy, sizeof *proxies);
    amx_dazzle *dazzles = amx__array(d, n_dazzle, sizeof *dazzles);
    if (!objs || !proxies || !dazzles)
        return;
    m->connections = objs;
    m->proxies = proxies;
    m->dazzles = dazzles;

    conn_counts cc = { 0 };
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk ch;
    while (amx__chunk_next(d, &r, &ch)) {
        if (ch.type == CH_CONN_COUNTS) {
            if (!cc.present)
                decode_conn_counts(d, &ch, &cc);
        } else if (ch.type == CH_CONN_OBJECT && m->connection_count < n_obj) {
            decode_object_conn(d, &ch, &objs[m->connection_count], ms, m->connection_count);
            m->connection_count++;
        } else if (ch.type == CH_CONN_PROXY && m->proxy_count < n_proxy) {
            decode_proxy(d, &ch, &proxies[m->proxy_count], ms, m->proxy_count);
            m->proxy_count++;
        } else if (ch.type == CH_CONN_DAZZLE && m->dazzle_count < n_dazzle) {
            decode_dazzle(d, &ch, &dazzles[m->dazzle_count], ms, m->dazzle_count);
            m->dazzle_count++;
        } else {
            unknown(d, &seen, ch.type, ch.offset, "connections", "connections chunk");
        }
    }
    if (!cc.present) {
        missing(d, (int64_t)c->offset, "connections", "connection counts chunk 0x601");
        return;
    }
    const uint32_t have[3] = { m->connection_count, m->proxy_count, m->dazzle_count };
    static const char *const what[3] = { "object connections", "proxies", "dazzles" };
    for (int k = 0; k < 3; k++) {
        if (cc.at[k] && cc.value[k] != have[k])
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)cc.at[k], "connections",
                         "the connections declare %u %s but hold %u", cc.value[k], what[k],
                         have[k]);
        else if (!cc.seen[k] && have[k])
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)cc.offset, "connections",
                         "the connection counts do not declare the %u %s present", have[k],
                         what[k]);
    }
}

static void decode_model(amx_dec *d)
{
    amx_model *m = amx__alloc(d, sizeof *m);
    if (!m)
        return;
    d->asset->model = m;
    d->asset->version = "1";
    model_state ms = { .m = m };

    uint32_t n_mesh = count_children(d->r, CH_MESH, CH_MESH);
    uint32_t n_light = count_children(d->r, CH_LIGHT, CH_LIGHT);
    ms.objects = n_mesh + n_light;
    m->meshes = amx__array(d, n_mesh, sizeof *m->meshes);
    m->lights = amx__array(d, n_light, sizeof *m->lights);
    if (!m->meshes || !m->lights)
        return;

    /* Pass 1 reports the root chunks and decodes the skeleton, so that the bone count is known
     * to the meshes and connections whatever the order of the root chunks. */
    bool has_skeleton = false, has_connections = false;
    uint32_t n_root = 0;
    seen_set seen = { 0 };
    amx_reader r = d->r;
    amx_chunk c;
    while (amx__chunk_next(d, &r, &c)) {
        n_root++;
        if (c.type == CH_SKELETON && !has_skeleton) {
            has_skeleton = true;
            decode_skeleton(d, &c, &ms);
        } else if (c.type == CH_SKELETON) {
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)c.offset, "skeleton",
                         "a second skeleton chunk is ignored");
        } else if (c.type != CH_MESH && c.type != CH_LIGHT && c.type != CH_CONNECTIONS) {
            unknown(d, &seen, c.type, c.offset, "model", "root chunk");
        }
    }
    if (n_root == 0) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, NULL, "the file holds no complete chunk header");
        return;
    }
    if (!has_skeleton && n_mesh == 0 && n_light == 0 && count_children(d->r, CH_CONNECTIONS,
                                                                        CH_CONNECTIONS) == 0) {
        amx__fatal(d, AMX_C_MISSING_CHUNK, 0, NULL,
                   "no model chunk (0x200, 0x400, 0x1300 or 0x600) in the file");
        return;
    }
    if (!has_skeleton)
        missing(d, -1, "skeleton", "skeleton chunk 0x200");

    /* Pass 2: meshes and lights, in file order (their order gives the object indices). */
    r = d->r;
    while (peek_chunk(&r, &c) && !d->out_of_memory) {
        if (c.type == CH_MESH && m->mesh_count < n_mesh) {
            amx_mesh *mesh = &m->meshes[m->mesh_count++];
            decode_mesh(d, &c, &ms, mesh);
            for (uint32_t i = 0; i < mesh->submesh_count; i++) {
                m->total_vertices = add_sat(m->total_vertices, mesh->submeshes[i].vertices);
                m->total_triangles = add_sat(m->total_triangles, mesh->submeshes[i].triangles);
            }
        } else if (c.type == CH_LIGHT && m->light_count < n_light) {
            decode_light(d, &c, &m->lights[m->light_count++]);
        }
    }

    /* Pass 3: connections, which index the bones and objects. */
    r = d->r;
    while (peek_chunk(&r, &c) && !d->out_of_memory) {
        if (c.type != CH_CONNECTIONS)
            continue;
        if (has_connections) {
            amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)c.offset, "connections",
                         "a second connections chunk is ignored");
            continue;
        }
        has_connections = true;
        decode_connections(d, &c, &ms);
    }
    if (!has_connections)
        missing(d, -1, "connections", "connections chunk 0x600");
    if (m->dazzle_count)
        d->asset->version = "2";
}

/* ---- particle systems ---- */

static void walk_minis(amx_dec *d, amx_reader body)
{
    amx_mini m;
    while (amx__mini_next(d, &body, &m)) {
    }
}

/* Walks a subtree for structural damage, and records the textures of emitter `emitter` (its
 * colour texture 0x3 and bump texture 0x45, NUL-terminated names; ModVerify ParticleReaderV1).
 * `minis` says which data children (by type) are mini-chunked under this parent; other children
 * recurse when their container bit is set. */
static void walk_tree(amx_dec *d, amx_reader body, uint32_t parent, int depth, uint32_t emitter)
{
    if (depth > MAX_DEPTH) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)amx_reader_tell(&body), "particle",
                     "chunks nested deeper than %d levels are not checked", MAX_DEPTH);
        return;
    }
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        if (parent == CH_EMITTER && (c.type == 0x3 || c.type == 0x45) && !c.container) {
            amx__ref(d, AMX_REF_TEXTURE, amx__body_string(d, c.body),
                     amx__sprintf(d, "emitter %u %s texture", emitter,
                                  c.type == 0x3 ? "colour" : "bump"),
                     -1, 0, (int64_t)c.offset);
            continue;
        }
        bool tracks = parent == CH_EMITTER && c.type == 0x1;
        bool minis = (parent == CH_EMITTER && (c.type == 0x2 || c.type == 0x36)) ||
                     (parent == 0x1 && (c.type == 0x0 || c.type == 0x1));
        if (minis)
            walk_minis(d, c.body);
        else if (tracks || c.container)
            walk_tree(d, c.body, tracks ? 0x1 : c.type, depth + 1, emitter);
    }
}

static void decode_emitter_list(amx_dec *d, const amx_chunk *c, amx_particle *p)
{
    seen_set seen = { 0 };
    amx_reader r = c->body;
    amx_chunk e;
    while (amx__chunk_next(d, &r, &e)) {
        if (e.type == CH_EMITTER)
            p->emitter_count++;
        else
            unknown(d, &seen, e.type, e.offset, "emitters", "emitter list chunk");
        if (e.type == CH_EMITTER || e.container)
            walk_tree(d, e.body, e.type, 2, p->emitter_count ? p->emitter_count - 1 : 0);
    }
}

static void decode_particle_root(amx_dec *d, const amx_chunk *root, amx_particle *p)
{
    bool has_name = false, has_emitters = false;
    size_t name_at = root->offset;
    seen_set seen = { 0 };
    amx_reader r = root->body;
    amx_chunk c;
    while (amx__chunk_next(d, &r, &c)) {
        if (c.type == 0x0) {
            if (!has_name) {
                name_at = c.offset;
                p->name = amx__body_string(d, c.body);
            }
            has_name = true;
        } else if (c.type == CH_EMITTERS) {
            has_emitters = true;
            decode_emitter_list(d, &c, p);
        } else if (c.type == 0x1 || c.type == 0x2) {
            /* id, persist flag */
        } else {
            unknown(d, &seen, c.type, c.offset, "particle", "particle chunk");
            if (c.container)
                walk_tree(d, c.body, c.type, 1, 0);
        }
    }
    if (!has_name)
        missing(d, (int64_t)root->offset, "particle name", "particle name chunk 0x0");
    if (!has_emitters)
        missing(d, (int64_t)root->offset, "emitters", "emitter list chunk 0x800");

    char stem[256];
    amx_path_stem(d->opts->file_name ? d->opts->file_name : "", stem, sizeof stem);
    if (has_name && stem[0] && strcasecmp(stem, p->name) != 0)
        amx__finding(d, AMX_C_PARTICLE_NAME_MISMATCH, (int64_t)name_at, "particle name",
                     "the particle system is named '%s' but its file is '%s'", p->name, stem);
}

static void decode_particle(amx_dec *d)
{
    amx_particle *p = amx__alloc(d, sizeof *p);
    if (!p)
        return;
    p->name = "";
    d->asset->particle = p;
    bool has_root = false;
    seen_set seen = { 0 };
    amx_reader r = d->r;
    amx_chunk c;
    while (amx__chunk_next(d, &r, &c)) {
        if (!has_root && (c.type == CH_PARTICLE || c.type == CH_PARTICLE_UAW)) {
            has_root = true;
            d->asset->version = c.type == CH_PARTICLE ? "1" : "2";
            decode_particle_root(d, &c, p);
        } else {
            unknown(d, &seen, c.type, c.offset, "file", "root chunk");
        }
    }
    if (!has_root)
        amx__fatal(d, AMX_C_MISSING_CHUNK, 0, NULL, "no particle system chunk (0x900 or 0x1500)");
}

/* ---- entry points ---- */

static bool probe_first(const uint8_t *data, size_t len, const uint32_t *types, size_t n)
{
    if (!data || len < 8)
        return false;
    uint32_t type = amx_load_u32le(data), size = amx_load_u32le(data + 4);
    if (!(size & 0x80000000u))
        return false;
    for (size_t i = 0; i < n; i++)
        if (type == types[i])
            return true;
    return false;
}

/* True when body[0, n) is a run of Alamo mini-chunks that fills it exactly (checked as far as
 * the prefix reaches); W3D's chunks of the same ids start with a version word instead. */
static bool minis_fill(const uint8_t *body, size_t n, size_t avail)
{
    size_t at = 0;
    if (n < 2 || body[1] == 0)
        return false;
    while (at < n) {
        if (at + 2 > avail)
            return true; /* beyond the prefix: what was seen fits */
        at += 2 + (size_t)body[at + 1];
    }
    return at == n;
}

/* The 0x201 bone count: a u32 followed by zeros (W3D's 0x201 header: a version and a name). */
static bool zero_padded(const uint8_t *body, size_t n, size_t avail)
{
    if (n < 8)
        return n >= 4;
    size_t end = n < avail ? n : avail;
    for (size_t i = 4; i < end; i++)
        if (body[i])
            return false;
    return true;
}

/* W3D uses the same chunk header and some of the same ids (0x200 ANIMATION, 0x400 LODMODEL,
 * 0x600 AGGREGATE, with children numbered like Alamo's), so the first child must look like an
 * Alamo child, in any order the decoder accepts: under 0x200 the bone count 0x201 (a u32 and
 * zero padding) or a bone container 0x202 (W3D: a header with a version and a name, data
 * channels); under 0x400 the mesh name
 * 0x401 (a string; W3D's header starts with a version word), the 128-byte info 0x402 or a
 * material/sub-mesh container; under 0x600 the mini-chunked 0x601..0x604. When the prefix is
 * too short to show the child, the root alone decides. */
bool amx__alo_probe_model(const uint8_t *data, size_t len)
{
    static const uint32_t types[] = { CH_SKELETON, CH_MESH, CH_LIGHT, CH_CONNECTIONS };
    if (!probe_first(data, len, types, 4))
        return false;
    if (len < 18)
        return true;
    uint32_t root = amx_load_u32le(data), child = amx_load_u32le(data + 8);
    uint32_t raw = amx_load_u32le(data + 12), size = raw & 0x7FFFFFFFu;
    bool container = (raw & 0x80000000u) != 0;
    const uint8_t *body = data + 16;
    switch (root) {
    case CH_SKELETON:
        return (child == 0x201 && !container && zero_padded(body, size, len - 16)) ||
               (child == 0x202 && container);
    case CH_MESH:
        return (child == 0x401 && !container && body[0] >= 0x20 && body[0] < 0x7F) ||
               (child == 0x402 && size == 128 && !container) ||
               ((child == 0x10100 || child == 0x10000) && container);
    case CH_CONNECTIONS:
        return child >= 0x601 && child <= 0x604 && !container && minis_fill(body, size, len - 16);
    default:
        return true;
    }
}

bool amx__alo_probe_particle(const uint8_t *data, size_t len)
{
    static const uint32_t types[] = { CH_PARTICLE, CH_PARTICLE_UAW };
    return probe_first(data, len, types, 2);
}

void amx__alo_decode(amx_dec *d)
{
    if (d->asset->format == AMX_FMT_ALAMO_PARTICLE)
        decode_particle(d);
    else
        decode_model(d);
}
