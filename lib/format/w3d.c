/*
 * Westwood W3D files (Renegade, Generals / Zero Hour, BFME 1/2): hierarchies, animations (classic,
 * compressed, BFME motion channels) and the models that bind meshes to a hierarchy.
 *
 * Layout, unpacking and sources: docs/formats/w3d.md. Public sources: EA's engine code
 * (w3dhub/OpenW3D Code/ww3d2/w3d_file.h, motchan.cpp, hcanim.cpp, htree.cpp; the same loaders in
 * electronicarts/CnC_Generals_Zero_Hour), OpenSAGE/OpenSAGE's C# parser
 * (W3dAdaptiveDeltaCodec.cs, W3dMotionChannel*.cs) and OpenSAGE/OpenSAGE.BlenderPlugin. Checked
 * on real BFME and Renegade-era files (docs/formats/w3d.md section 13).
 *
 * Chunk header (little-endian): u32 id, u32 size; bit 31 of the size says "has sub-chunks" but
 * Renegade-era files leave it clear on containers, so containership is decided by the id, never
 * by bit 31. A file is a sequence of top-level chunks:
 *
 *   0x000 MESH (c)          0x01F MESH_HEADER3 (116 bytes): u32 Version; u32 Attributes;
 *                           char MeshName[16]; char ContainerName[16]; u32 NumTris; u32 NumVertices;
 *                           u32 NumMaterials; u32 NumDamageStages; s32 SortLevel; u32 PrelitVersion;
 *                           u32 FutureCounts[1]; u32 VertexChannels; u32 FaceChannels; f32 Min[3];
 *                           f32 Max[3]; f32 SphCenter[3]; f32 SphRadius.
 *                           Attributes & 0x00FF0000 = geometry type (0x00020000 skin). 0x00E vertex
 *                           influences. Other mesh children (0x002.., 0x050 BFME shader materials,
 *                           0x060/0x061 tangents, 0xC00/0xC01 second vertex set, 0x090 AABTree)
 *                           are recognised and skipped.
 *   0x100 HIERARCHY (c)     0x101 header (36): u32 Version; char Name[16]; u32 NumPivots;
 *                           f32 Center[3]. Must be the first sub-chunk (htree.cpp).
 *                           0x102 PIVOTS: NumPivots x 60: char Name[16]; u32 ParentIdx (~0 root);
 *                           f32 Translation[3]; f32 EulerAngles[3]; f32 Rotation[4] (x, y, z, w).
 *                           0x103 PIVOT_FIXUPS: NumPivots x 48 (exporter data, skipped).
 *                           Version < 3.0: an implicit identity pivot 0 "RootTransform" is
 *                           inserted and every ParentIdx shifted by one (htree.cpp).
 *   0x200 ANIMATION (c)     0x201 header (44): u32 Version; char Name[16]; char HierarchyName[16];
 *                           u32 NumFrames; u32 FrameRate.
 *                           0x202 channel: u16 FirstFrame, LastFrame, VectorLen, Flags (type),
 *                           Pivot, pad; f32 Data[(Last-First+1) * VectorLen]. The exporter wrote
 *                           too much data in some files: longer chunks are tolerated (motchan.cpp).
 *                           Frames outside [First, Last] are identity (0, quaternion 0,0,0,1).
 *                           0x203 bit channel: u16 FirstFrame, LastFrame, Flags, Pivot; u8
 *                           DefaultVal; u8 Bits[ceil(n/8)] (bit i = Bits[i>>3] >> (i&7) & 1);
 *                           size exactly 9 + ceil(n/8). Outside the range: DefaultVal.
 *   0x280 COMPRESSED_ANIMATION (c)
 *                           0x281 header (44): u32 Version; char Name[16]; char HierarchyName[16];
 *                           u32 NumFrames; u16 FrameRate; u16 Flavor (0 time-coded, 1 adaptive
 *                           delta). Must be the first sub-chunk (hcanim.cpp).
 *                           0x282 flavor 0: u32 NumTimeCodes; u16 Pivot; u8 VectorLen; u8 Type;
 *                             N x { u32 TimeCode; f32 Value[VectorLen] }; TimeCode bit 31 = binary
 *                             movement: when the NEXT key has it, the value holds until that key;
 *                             otherwise lerp (slerp for quaternions) between the keys.
 *                           0x282 flavor 1: u32 NumFrames; u16 Pivot; u8 VectorLen; u8 Type;
 *                             f32 Scale; f32 Initial[VectorLen]; ((N+15)>>4) blocks x VectorLen x
 *                             { u8 FilterIndex; u8 Nibbles[8] }; u8 pad[3] (OpenSAGE).
 *                           0x283 time-coded bit channel: u32 N; u16 Pivot; u8 Type; u8 DefaultVal;
 *                             u32 TimeCode[N]; the bit is the MSB of each code; size 8 + 4N.
 *                           0x284 BFME motion channel (leaf; bit 31 unreliable): u8 Zero; u8
 *                             DeltaType (0 time-coded, 1 4-bit delta, 2 8-bit delta); u8 VectorLen;
 *                             u8 Type; u16 N; u16 Pivot; then
 *                             type 0: u16 KeyFrame[N]; u16 pad if N odd; f32 Value[N * VectorLen]
 *                             type 1/2: f32 Scale; f32 Initial[VectorLen]; ceil(N/16) blocks x
 *                             VectorLen x { u8 FilterIndex; 8 (4-bit) or 16 (8-bit) delta bytes }.
 *   Adaptive delta: frame 0 = Initial; frame f >= 1 adds Scale * table[FilterIndex] * d to frame
 *   f-1, d = delta (f-1)&15 of block (f-1)>>4; 4-bit deltas: byte k holds d(2k) in the low and
 *   d(2k+1) in the high nibble, sign-extended; 8-bit: d = byte - 128, times 1/16. The 256-entry
 *   table: 10^(i-8) for i < 16, 1 - sin(90 deg * (i-16)/240) for the rest (motchan.cpp).
 *   Channel types: 0 X, 1 Y, 2 Z (VectorLen 1, translation delta from the base pose), 3..5 Euler
 *   (ignored by the engine), 6 Q (VectorLen 4, x y z w), 15 BFME (VectorLen 1, unknown use).
 *   0x300 HMODEL (c)        0x301 header (40): u32 Version; char Name[16]; char HierarchyName[16];
 *                           u16 NumConnections; pad. 0x302 node, 0x303 collision node, 0x304 skin
 *                           node, 0x306 shadow node (18 bytes): char Name[16]; u16 PivotIdx.
 *   0x700 HLOD (c)          0x701 header (40): u32 Version; u32 LodCount; char Name[16];
 *                           char HierarchyName[16]. 0x702 LOD array (c) per level, 0x705
 *                           aggregate and 0x706 proxy arrays (c): 0x703 header (8): u32 ModelCount;
 *                           f32 MaxScreenSize; then 0x704 sub-objects (36): u32 BoneIndex;
 *                           char Name[32].
 *   Recognised and skipped: 0x2C0 morph animation, 0x400 LOD model, 0x420 collection, 0x440 points,
 *   0x460 light, 0x500 emitter, 0x600 aggregate, 0x740 box, 0x741 sphere, 0x742 ring, 0x750 null
 *   object, 0x800 lightscape, 0x900 dazzle, 0xA00 sound object.
 *
 * Output: every hierarchy is a skeleton (bone matrix = T * R, 3 x 4 row-major); every animation a
 * clip named by its header, skeleton = the header's hierarchy name, one track per animated pivot
 * (bone NULL, bone_index = pivot) in pivot order; meshes, HLODs and HMODELs in asset->w3d. Samples
 * combine the channels of a pivot: translation (X, Y, Z), rotation x y z w, scale 1, visibility
 * (1 when the pivot has no bit channel); step = frames held by a binary-movement key.
 *
 * Names are 16-byte fields; a name that fills all 16 bytes has no NUL. That is legal (the engine
 * copies 16 bytes) but noted (BAD_VALUE, severity info).
 */
#include "w3d_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool top_level_known(uint32_t id)
{
    switch (id) {
    case C_MESH: case C_HIERARCHY: case C_ANIMATION: case C_COMPRESSED: case C_MORPH:
    case C_HMODEL: case C_LODMODEL: case C_COLLECTION: case C_POINTS: case C_LIGHT:
    case C_EMITTER: case C_AGGREGATE: case C_HLOD: case C_BOX: case C_SPHERE: case C_RING:
    case C_NULL_OBJECT: case C_LIGHTSCAPE: case C_DAZZLE: case C_SOUNDROBJ:
        return true;
    default:
        return false;
    }
}

/* Direct children of a mesh: w3d_file.h and w3d_obsolete.h (0x001..0x03F, texture stages
 * 0x048..0x04B, deform 0x058..0x05B, PS2 shaders 0x080, AABTree 0x090..0x093) plus the SAGE
 * additions (0x050..0x053 shader materials, 0x060/0x061 tangents, 0xC00/0xC01) and points. */
static bool mesh_child_known(uint32_t id)
{
    return (id >= 0x001 && id <= 0x03F) || (id >= 0x048 && id <= 0x04B) ||
           (id >= 0x050 && id <= 0x053) || (id >= 0x058 && id <= 0x05B) || id == 0x060 ||
           id == 0x061 || id == 0x080 || (id >= 0x090 && id <= 0x093) || id == 0xC00 ||
           id == 0xC01 || id == C_POINTS;
}

/* ---- probe ---- */

/* The first chunk must be a known top-level id whose first child (containers) or size (leaves)
 * fits. The first child also tells W3D from Alamo chunks with the same ids: Alamo's 0x200 starts
 * with a 128-byte 0x201 (W3D: 44 bytes), its 0x600 with a mini-chunked 0x601 of 12 or 18 bytes
 * (W3D aggregate header: 24), its 0x400 with a name string 0x401 (W3D LOD model header starts with
 * a version word whose top byte is 0), its 0x900 with 0x0 (W3D dazzle: 0x901). Shockwave 3D
 * files ("IFX" ...) never start with a W3D id. */
bool amx__w3d_probe(const uint8_t *data, size_t len)
{
    if (!data || len < 8)
        return false;
    uint32_t id = amx_load_u32le(data), size = amx_load_u32le(data + 4) & 0x7FFFFFFFu;
    switch (id) {
    case C_BOX:
        return size == 68;
    case C_NULL_OBJECT:
        return size == 48;
    case C_SPHERE:
    case C_RING:
        return size >= 40 && size <= 65536;
    case C_POINTS:
        return size > 0 && size % 12 == 0 && size <= (1u << 24);
    default:
        break;
    }
    if (!top_level_known(id) || len < 16 || size < 8)
        return false;
    uint32_t cid = amx_load_u32le(data + 8), csize = amx_load_u32le(data + 12) & 0x7FFFFFFFu;
    if (csize > size - 8)
        return false;
    switch (id) {
    case C_MESH:
        return (cid == C_MESH_HEADER3 && csize == 116) || (cid == 0x002 && csize % 12 == 0);
    case C_HIERARCHY:
        return cid == C_HIERARCHY_HEADER && csize == 36;
    case C_ANIMATION:
        return cid == C_ANIMATION_HEADER && csize == 44;
    case C_COMPRESSED:
        return cid == C_COMPRESSED_HEADER && csize == 44;
    case C_MORPH:
        return cid == 0x2C1;
    case C_HMODEL:
        return cid == C_HMODEL_HEADER && csize == 40;
    case C_LODMODEL:
        return cid == 0x401 && (csize == 22 || csize == 24) && (len < 20 || data[19] == 0);
    case C_COLLECTION:
        return cid == 0x421;
    case C_LIGHT:
        return cid == 0x461;
    case C_EMITTER:
        return cid == 0x501;
    case C_AGGREGATE:
        return cid == 0x601 && csize == 24;
    case C_HLOD:
        return cid == C_HLOD_HEADER && csize == 40;
    case C_LIGHTSCAPE:
        return cid == 0x801;
    case C_DAZZLE:
        return cid == 0x901;
    case C_SOUNDROBJ:
        return cid == 0xA01;
    default:
        return false;
    }
}

/* ---- small helpers ---- */

/* A fixed-size name field; a field without NUL is legal but noted (info). */
const char *amx__w3d_read_name(amx_dec *d, amx_reader *r, size_t n, const char *ctx, const char *what)
{
    size_t at = amx_reader_tell(r);
    const uint8_t *p = amx_reader_take(r, n);
    if (!p)
        return "";
    if (!memchr(p, 0, n))
        amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_INFO, (int64_t)at, ctx,
                         "%s fills all %zu bytes without a terminating NUL", what, n);
    return amx__latin1_dup(d, p, n, false);
}

static float finite_or(amx_dec *d, float v, float fallback, size_t at, const char *ctx,
                       const char *what)
{
    return amx__check_finite(d, v, (int64_t)at, ctx, what) ? v : fallback;
}

/* A fixed-size record: shorter is an error (missing fields read as 0), longer a warning. */
void amx__w3d_check_record_size(amx_dec *d, const amx_chunk *c, size_t need, const char *ctx,
                              const char *what)
{
    size_t have = amx_reader_left(&c->body);
    if (have < need)
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)c->offset, ctx,
                     "%s chunk 0x%x holds %zu bytes, %zu needed; missing fields read as 0", what,
                     (unsigned)c->type, have, need);
    else if (have > need)
        amx__finding_sev(d, AMX_C_SIZE_MISMATCH, AMX_SEV_WARNING, (int64_t)c->offset, ctx,
                         "%s chunk 0x%x holds %zu bytes, %zu expected; the rest is ignored", what,
                         (unsigned)c->type, have, need);
}

void amx__w3d_unknown_child(amx_dec *d, const amx_chunk *c, uint32_t parent, const char *ctx)
{
    amx__finding(d, AMX_C_UNKNOWN_CHUNK, (int64_t)c->offset, ctx,
                 "unknown chunk 0x%x in chunk 0x%x skipped", (unsigned)c->type, (unsigned)parent);
}

void amx__w3d_duplicate_child(amx_dec *d, const amx_chunk *c, const char *ctx)
{
    amx__finding(d, AMX_C_BAD_VALUE, (int64_t)c->offset, ctx, "second chunk 0x%x ignored",
                 (unsigned)c->type);
}

/* Counts the children of a container with the given ids, without findings (the chunk walker
 * reports the same chunks later). Same stepping rules as amx__chunk_next. */
uint32_t amx__w3d_count_children(amx_reader body, const uint32_t *ids, size_t nids)
{
    uint32_t n = 0;
    while (amx_reader_left(&body) >= 8) {
        uint32_t type = amx_read_u32le(&body);
        size_t size = amx_read_u32le(&body) & 0x7FFFFFFFu;
        amx_reader_sub(&body, size);
        for (size_t i = 0; i < nids; i++)
            if (type == ids[i] && n < UINT32_MAX)
                n++;
    }
    return n;
}

/* Finds the first child with this id, without findings. */
bool amx__w3d_find_child(amx_reader body, uint32_t id, amx_chunk *out)
{
    while (amx_reader_left(&body) >= 8) {
        size_t at = amx_reader_tell(&body);
        uint32_t type = amx_read_u32le(&body);
        uint32_t raw = amx_read_u32le(&body);
        size_t size = raw & 0x7FFFFFFFu;
        amx_reader sub = amx_reader_sub(&body, size);
        if (type == id) {
            sub.err = false;
            *out = (amx_chunk){ .type = type, .container = (raw & 0x80000000u) != 0,
                                .offset = at, .size = size, .body = sub };
            return true;
        }
    }
    return false;
}

static char *version_string(amx_dec *d, uint32_t v)
{
    return (char *)amx__sprintf(d, "%u.%u", (unsigned)(v >> 16), (unsigned)(v & 0xFFFF));
}

/* The skeleton of this file with this name (case-insensitive), or NULL. */
const amx_skeleton *amx__w3d_local_skeleton(const amx_dec *d, const char *name)
{
    if (!name || !name[0])
        return NULL;
    for (uint32_t i = 0; i < d->asset->skeleton_count; i++)
        if (strcasecmp(d->asset->skeletons[i].name, name) == 0)
            return &d->asset->skeletons[i];
    return NULL;
}

/* ---- hierarchy ---- */

static void quat_matrix(const float t[3], const float q[4], float m[12])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
        2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y),
    };
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++)
            m[row * 4 + col] = (float)r[row * 3 + col];
        m[row * 4 + 3] = t[row];
    }
}

static bool matrix_finite(const float m[12])
{
    for (int i = 0; i < 12; i++)
        if (!isfinite(m[i]))
            return false;
    return true;
}

static void decode_hierarchy(w3d_state *s, const amx_chunk *hc)
{
    amx_dec *d = s->d;
    amx_chunk hdr = { 0 }, piv = { 0 }, fix = { 0 };
    bool has_hdr = false, has_piv = false, has_fix = false;
    uint32_t first_type = 0;
    size_t first_at = 0;
    bool any = false;
    amx_reader body = hc->body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        if (!any) {
            any = true;
            first_type = c.type;
            first_at = c.offset;
        }
        switch (c.type) {
        case C_HIERARCHY_HEADER:
            if (has_hdr)
                amx__w3d_duplicate_child(d, &c, "hierarchy");
            else
                hdr = c, has_hdr = true;
            break;
        case C_PIVOTS:
            if (has_piv)
                amx__w3d_duplicate_child(d, &c, "hierarchy");
            else
                piv = c, has_piv = true;
            break;
        case C_PIVOT_FIXUPS:
            if (has_fix)
                amx__w3d_duplicate_child(d, &c, "hierarchy");
            else
                fix = c, has_fix = true;
            break;
        default:
            amx__w3d_unknown_child(d, &c, C_HIERARCHY, "hierarchy");
            break;
        }
    }
    if (d->out_of_memory)
        return;
    if (!has_hdr) {
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)hc->offset, "hierarchy",
                     "hierarchy chunk 0x100 has no header chunk 0x101");
        return;
    }
    if (first_type != C_HIERARCHY_HEADER)
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)first_at, "hierarchy",
                     "the first sub-chunk of hierarchy 0x100 is 0x%x; the engine needs the header "
                     "0x101 first", (unsigned)first_type);

    amx__w3d_check_record_size(d, &hdr, 36, "hierarchy", "hierarchy header");
    amx_reader r = hdr.body;
    uint32_t version = amx_read_u32le(&r);
    const char *name = amx__w3d_read_name(d, &r, NAME_LEN, "hierarchy", "hierarchy name");
    size_t count_at = amx_reader_tell(&r);
    uint32_t num = amx_read_u32le(&r);
    char ctx[96];
    snprintf(ctx, sizeof ctx, "hierarchy '%s'", name);
    note_version(s, 0, version);

    uint32_t count = num;
    if (!has_piv) {
        if (num > 0)
            amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)hc->offset, ctx,
                         "the header declares %u pivots but there is no pivot chunk 0x102", num);
        count = 0;
    } else {
        size_t have = amx_reader_left(&piv.body);
        uint64_t need = (uint64_t)num * 60;
        if (have != need) {
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)piv.offset, ctx,
                         "pivot chunk 0x102 holds %zu bytes; %u pivots (header at offset %zu) "
                         "need %llu", have, num, count_at, (unsigned long long)need);
            if (have / 60 < count)
                count = (uint32_t)(have / 60);
        }
    }
    if (has_fix) {
        size_t have = amx_reader_left(&fix.body);
        if (have != (uint64_t)num * 48)
            amx__finding_sev(d, AMX_C_SIZE_MISMATCH, AMX_SEV_WARNING, (int64_t)fix.offset, ctx,
                             "pivot fixup chunk 0x103 holds %zu bytes; %u pivots need %llu", have,
                             num, (unsigned long long)num * 48);
    }

    /* Version < 3.0: the engine inserts an identity root pivot and shifts every parent. */
    uint32_t extra = (version >> 16) < 3 ? 1 : 0;
    amx_skeleton *sk = &d->asset->skeletons[d->asset->skeleton_count];
    amx_bone *bones = amx__array(d, (size_t)count + extra, sizeof *bones);
    if (!bones)
        return;
    sk->name = name;
    sk->bones = bones;
    if (extra) {
        bones[0] = (amx_bone){ .name = "RootTransform", .parent = -1, .visible = 1,
                               .matrix = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 } };
    }
    bool has_root = extra != 0;
    amx_reader pr = piv.body;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t b = i + extra;
        size_t rec = amx_reader_tell(&pr);
        char bctx[160];
        snprintf(bctx, sizeof bctx, "%s pivot %u", ctx, i);
        const char *bname = amx__w3d_read_name(d, &pr, NAME_LEN, bctx, "pivot name");
        snprintf(bctx, sizeof bctx, "%s pivot %u '%s'", ctx, i, bname);
        size_t parent_at = amx_reader_tell(&pr);
        uint32_t praw = amx_read_u32le(&pr);
        float t[3], e[3], q[4];
        for (int k = 0; k < 3; k++)
            t[k] = finite_or(d, amx_read_f32le(&pr), 0.0f, rec + 20 + 4 * (size_t)k, bctx,
                             "pivot translation");
        for (int k = 0; k < 3; k++)
            e[k] = amx_read_f32le(&pr);
        (void)e; /* Euler angles are informational */
        for (int k = 0; k < 4; k++)
            q[k] = finite_or(d, amx_read_f32le(&pr), k == 3 ? 1.0f : 0.0f,
                             rec + 44 + 4 * (size_t)k, bctx, "pivot rotation");
        int64_t parent;
        if (praw == 0xFFFFFFFFu)
            parent = extra ? 0 : -1;
        else
            parent = (int64_t)praw + extra;
        if (parent == -1) {
            if (has_root)
                amx__finding(d, AMX_C_BAD_VALUE, (int64_t)parent_at, bctx,
                             "pivot %u is a second root (parent -1); only pivot 0 may be the root",
                             i);
            has_root = true;
        } else if (parent >= (int64_t)b) {
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)parent_at, bctx,
                         "parent index %u is not below the pivot's own index %u", praw, i);
            parent = -1;
        }
        amx_bone *bone = &bones[b];
        bone->name = bname;
        bone->parent = (int32_t)parent;
        bone->visible = 1;
        quat_matrix(t, q, bone->matrix);
        if (!matrix_finite(bone->matrix)) {
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)rec + 44, bctx,
                         "pivot rotation overflows the float range; identity used");
            static const float id[4] = { 0, 0, 0, 1 };
            quat_matrix(t, id, bone->matrix);
        }
    }
    sk->bone_count = count + extra;
    d->asset->skeleton_count++;
}

/* ---- meshes, HLODs, HMODELs ---- */

/* 0x30 TEXTURES (c) -> 0x31 TEXTURE (c) -> 0x32 TEXTURE_NAME (a NUL-terminated file name),
 * 0x33 TEXTURE_INFO: each name is a texture the mesh references (w3d_file.h; Westwood's
 * dependency scanner w3d_dep.cpp reads the same chunks). */
static void decode_textures(w3d_state *s, const amx_chunk *tc)
{
    amx_dec *d = s->d;
    uint32_t mesh = s->info->mesh_count - 1, k = 0;
    amx_reader body = tc->body;
    amx_chunk t;
    while (amx__chunk_next(d, &body, &t)) {
        if (t.type != C_TEXTURE)
            continue;
        amx_reader tb = t.body;
        amx_chunk n;
        while (amx__chunk_next(d, &tb, &n))
            if (n.type == C_TEXTURE_NAME)
                amx__ref(d, AMX_REF_TEXTURE, amx__body_string(d, n.body),
                         amx__sprintf(d, "mesh %u texture %u", mesh, k++), -1, 0,
                         (int64_t)n.offset);
    }
}

static void decode_mesh(w3d_state *s, const amx_chunk *mc)
{
    amx_dec *d = s->d;
    amx_w3d_mesh *m = &s->info->meshes[s->info->mesh_count++];
    *m = (amx_w3d_mesh){ .name = "", .container = "", .offset = (int64_t)mc->offset };
    bool has_hdr = false;
    amx_chunk hdr = { 0 };
    amx_reader body = mc->body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        if (c.type == C_MESH_HEADER3) {
            if (has_hdr)
                amx__w3d_duplicate_child(d, &c, "mesh");
            else
                hdr = c, has_hdr = true;
        } else if (c.type == C_VERTEX_INFLUENCES) {
            m->has_influences = true;
        } else if (c.type == C_TEXTURES) {
            decode_textures(s, &c);
        } else if (!mesh_child_known(c.type)) {
            amx__w3d_unknown_child(d, &c, C_MESH, "mesh");
        }
    }
    if (!has_hdr) {
        amx__finding(d, AMX_C_UNSUPPORTED, (int64_t)mc->offset, "mesh",
                     "mesh without a header chunk 0x1F (an obsolete mesh format); listed "
                     "without name or counts");
        return;
    }
    m->has_header = true;
    amx__w3d_check_record_size(d, &hdr, 116, "mesh", "mesh header");
    amx_reader r = hdr.body;
    m->version = amx_read_u32le(&r);
    m->attributes = amx_read_u32le(&r);
    m->name = amx__w3d_read_name(d, &r, NAME_LEN, "mesh", "mesh name");
    char ctx[96];
    snprintf(ctx, sizeof ctx, "mesh '%s'", m->name);
    m->container = amx__w3d_read_name(d, &r, NAME_LEN, ctx, "container name");
    m->triangles = amx_read_u32le(&r);
    m->vertices = amx_read_u32le(&r);
    m->materials = amx_read_u32le(&r);
    m->damage_stages = amx_read_u32le(&r);
    m->sort_level = amx_read_i32le(&r);
    m->prelit_version = amx_read_u32le(&r);
    amx_read_u32le(&r); /* FutureCounts */
    m->vertex_channels = amx_read_u32le(&r);
    m->face_channels = amx_read_u32le(&r);
    float *dst[10] = { &m->bbox_min[0], &m->bbox_min[1], &m->bbox_min[2], &m->bbox_max[0],
                       &m->bbox_max[1], &m->bbox_max[2], &m->sphere_center[0],
                       &m->sphere_center[1], &m->sphere_center[2], &m->sphere_radius };
    for (int i = 0; i < 10; i++) {
        size_t at = amx_reader_tell(&r);
        *dst[i] = finite_or(d, amx_read_f32le(&r), 0.0f, at, ctx, "bounding volume");
    }
    m->skin = (m->attributes & AMX_W3D_GEOMETRY_MASK) == AMX_W3D_GEOMETRY_SKIN;
    note_version(s, 2, m->version);
}

/* A 0x702/0x705/0x706 array: 0x703 header, then 0x704 sub-objects. */
static void decode_lod_array(w3d_state *s, const amx_chunk *lc, amx_w3d_lod *lod,
                             const amx_skeleton *sk, const char *ctx)
{
    amx_dec *d = s->d;
    static const uint32_t sub_id[] = { C_HLOD_SUB_OBJECT };
    uint32_t n = amx__w3d_count_children(lc->body, sub_id, 1);
    lod->objects = amx__array(d, n, sizeof *lod->objects);
    if (!lod->objects)
        return;
    bool has_hdr = false;
    size_t hdr_at = lc->offset;
    amx_reader body = lc->body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        if (c.type == C_HLOD_SUB_OBJECT_ARRAY_HEADER) {
            if (has_hdr) {
                amx__w3d_duplicate_child(d, &c, ctx);
                continue;
            }
            has_hdr = true;
            hdr_at = c.offset;
            amx__w3d_check_record_size(d, &c, 8, ctx, "sub-object array header");
            amx_reader r = c.body;
            lod->declared_count = amx_read_u32le(&r);
            size_t at = amx_reader_tell(&r);
            lod->max_screen_size = finite_or(d, amx_read_f32le(&r), 0.0f, at, ctx,
                                             "max screen size");
        } else if (c.type == C_HLOD_SUB_OBJECT && lod->object_count < n) {
            amx__w3d_check_record_size(d, &c, 36, ctx, "sub-object");
            amx_reader r = c.body;
            amx_w3d_sub_object *o = &lod->objects[lod->object_count++];
            size_t bone_at = amx_reader_tell(&r);
            o->bone = amx_read_u32le(&r);
            o->kind = C_HLOD_SUB_OBJECT;
            o->name = amx__w3d_read_name(d, &r, 32, ctx, "sub-object name");
            if (sk && o->bone >= sk->bone_count)
                amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)bone_at, ctx,
                             "sub-object '%s' is bound to bone %u, but hierarchy '%s' has %u "
                             "pivots", o->name, o->bone, sk->name, sk->bone_count);
        } else {
            amx__w3d_unknown_child(d, &c, lc->type, ctx);
        }
    }
    if (!has_hdr)
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)lc->offset, ctx,
                     "chunk 0x%x has no sub-object array header 0x703", (unsigned)lc->type);
    else if (lod->declared_count != lod->object_count)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)hdr_at, ctx,
                     "the header declares %u sub-objects, the array holds %u",
                     lod->declared_count, lod->object_count);
}

static void decode_hlod(w3d_state *s, const amx_chunk *hc)
{
    amx_dec *d = s->d;
    amx_w3d_hlod *h = &s->info->hlods[s->info->hlod_count++];
    *h = (amx_w3d_hlod){ .name = "", .hierarchy = "", .offset = (int64_t)hc->offset };
    static const uint32_t lod_id[] = { C_HLOD_LOD_ARRAY };
    uint32_t nlod = amx__w3d_count_children(hc->body, lod_id, 1);
    h->lods = amx__array(d, nlod, sizeof *h->lods);
    if (!h->lods)
        return;
    amx_chunk hdr;
    bool has_hdr = amx__w3d_find_child(hc->body, C_HLOD_HEADER, &hdr);
    char ctx[96] = "HLOD";
    const amx_skeleton *sk = NULL;
    if (has_hdr) {
        amx__w3d_check_record_size(d, &hdr, 40, "HLOD", "HLOD header");
        amx_reader r = hdr.body;
        h->version = amx_read_u32le(&r);
        h->declared_lods = amx_read_u32le(&r);
        h->name = amx__w3d_read_name(d, &r, NAME_LEN, "HLOD", "HLOD name");
        snprintf(ctx, sizeof ctx, "HLOD '%s'", h->name);
        h->hierarchy = amx__w3d_read_name(d, &r, NAME_LEN, ctx, "hierarchy name");
        sk = amx__w3d_local_skeleton(d, h->hierarchy);
        note_version(s, 3, h->version);
    } else {
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)hc->offset, "HLOD",
                     "HLOD chunk 0x700 has no header chunk 0x701");
    }
    amx_reader body = hc->body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        char lctx[128];
        switch (c.type) {
        case C_HLOD_HEADER:
            if (has_hdr && c.offset != hdr.offset)
                amx__w3d_duplicate_child(d, &c, ctx);
            break;
        case C_HLOD_LOD_ARRAY:
            if (h->lod_count >= nlod)
                break;
            snprintf(lctx, sizeof lctx, "%s LOD %u", ctx, h->lod_count);
            decode_lod_array(s, &c, &h->lods[h->lod_count++], sk, lctx);
            break;
        case C_HLOD_AGGREGATE_ARRAY:
        case C_HLOD_PROXY_ARRAY: {
            amx_w3d_lod **slot = c.type == C_HLOD_AGGREGATE_ARRAY ? &h->aggregates : &h->proxies;
            if (*slot) {
                amx__w3d_duplicate_child(d, &c, ctx);
                break;
            }
            *slot = amx__alloc(d, sizeof **slot);
            if (!*slot)
                return;
            snprintf(lctx, sizeof lctx, "%s %s", ctx,
                     c.type == C_HLOD_AGGREGATE_ARRAY ? "aggregates" : "proxies");
            decode_lod_array(s, &c, *slot, sk, lctx);
            break;
        }
        default:
            amx__w3d_unknown_child(d, &c, C_HLOD, ctx);
            break;
        }
        if (d->out_of_memory)
            return;
    }
    if (has_hdr && h->declared_lods != h->lod_count)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)hdr.body.start + 4, ctx,
                     "the header declares %u levels of detail, the HLOD holds %u",
                     h->declared_lods, h->lod_count);
}

static void decode_hmodel(w3d_state *s, const amx_chunk *hc)
{
    amx_dec *d = s->d;
    amx_w3d_hmodel *h = &s->info->hmodels[s->info->hmodel_count++];
    *h = (amx_w3d_hmodel){ .name = "", .hierarchy = "", .offset = (int64_t)hc->offset };
    static const uint32_t node_ids[] = { C_NODE, C_COLLISION_NODE, C_SKIN_NODE, C_SHADOW_NODE };
    uint32_t n = amx__w3d_count_children(hc->body, node_ids, 4);
    h->nodes = amx__array(d, n, sizeof *h->nodes);
    if (!h->nodes)
        return;
    amx_chunk hdr;
    bool has_hdr = amx__w3d_find_child(hc->body, C_HMODEL_HEADER, &hdr);
    char ctx[96] = "HMODEL";
    const amx_skeleton *sk = NULL;
    if (has_hdr) {
        amx__w3d_check_record_size(d, &hdr, 40, "HMODEL", "HMODEL header");
        amx_reader r = hdr.body;
        h->version = amx_read_u32le(&r);
        h->name = amx__w3d_read_name(d, &r, NAME_LEN, "HMODEL", "HMODEL name");
        snprintf(ctx, sizeof ctx, "HMODEL '%s'", h->name);
        h->hierarchy = amx__w3d_read_name(d, &r, NAME_LEN, ctx, "hierarchy name");
        h->declared_connections = amx_read_u16le(&r);
        sk = amx__w3d_local_skeleton(d, h->hierarchy);
        note_version(s, 4, h->version);
    } else {
        amx__finding(d, AMX_C_MISSING_CHUNK, (int64_t)hc->offset, "HMODEL",
                     "HMODEL chunk 0x300 has no header chunk 0x301");
    }
    amx_reader body = hc->body;
    amx_chunk c;
    while (amx__chunk_next(d, &body, &c)) {
        switch (c.type) {
        case C_HMODEL_HEADER:
            if (has_hdr && c.offset != hdr.offset)
                amx__w3d_duplicate_child(d, &c, ctx);
            break;
        case C_NODE:
        case C_COLLISION_NODE:
        case C_SKIN_NODE:
        case C_SHADOW_NODE: {
            if (h->node_count >= n)
                break;
            amx__w3d_check_record_size(d, &c, 18, ctx, "node");
            amx_reader r = c.body;
            amx_w3d_sub_object *o = &h->nodes[h->node_count++];
            o->kind = c.type;
            o->name = amx__w3d_read_name(d, &r, NAME_LEN, ctx, "node name");
            size_t at = amx_reader_tell(&r);
            o->bone = amx_read_u16le(&r);
            if (sk && o->bone >= sk->bone_count)
                amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)at, ctx,
                             "node '%s' is bound to pivot %u, but hierarchy '%s' has %u pivots",
                             o->name, o->bone, sk->name, sk->bone_count);
            break;
        }
        case C_HMODEL_AUX:
        case C_POINTS:
            break;
        default:
            amx__w3d_unknown_child(d, &c, C_HMODEL, ctx);
            break;
        }
    }
    if (has_hdr && h->declared_connections != h->node_count)
        amx__finding_sev(d, AMX_C_COUNT_MISMATCH, AMX_SEV_WARNING, (int64_t)hdr.body.start + 36,
                         ctx, "the header declares %u connections, the HMODEL holds %u nodes",
                         h->declared_connections, h->node_count);
}

/* ---- entry point ---- */

/* ---- the generic views the index uses ---- */

static uint32_t bones_used(const amx_w3d_sub_object *o, uint32_t n, uint32_t used)
{
    for (uint32_t i = 0; i < n; i++)
        if (o[i].bone < UINT32_MAX && o[i].bone + 1 > used)
            used = o[i].bone + 1;
    return used;
}

/* HLODs and HMODELs name the hierarchy they are built on (asset->skeleton_refs, checked by the
 * index across files); meshes are also a generic model, one sub-mesh each, for summaries. */
static void export_generic(amx_dec *d, const amx_w3d_info *info)
{
    amx_asset *as = d->asset;
    uint32_t nrefs = 0;
    for (uint32_t i = 0; i < info->hlod_count; i++)
        nrefs += info->hlods[i].hierarchy[0] != '\0';
    for (uint32_t i = 0; i < info->hmodel_count; i++)
        nrefs += info->hmodels[i].hierarchy[0] != '\0';
    if (nrefs) {
        as->skeleton_refs = amx__array(d, nrefs, sizeof *as->skeleton_refs);
        if (!as->skeleton_refs)
            return;
        for (uint32_t i = 0; i < info->hlod_count; i++) {
            const amx_w3d_hlod *h = &info->hlods[i];
            if (!h->hierarchy[0])
                continue;
            uint32_t used = 0;
            for (uint32_t k = 0; k < h->lod_count; k++)
                used = bones_used(h->lods[k].objects, h->lods[k].object_count, used);
            if (h->aggregates)
                used = bones_used(h->aggregates->objects, h->aggregates->object_count, used);
            if (h->proxies)
                used = bones_used(h->proxies->objects, h->proxies->object_count, used);
            as->skeleton_refs[as->skeleton_ref_count++] = (amx_skeleton_ref){
                .what = amx__sprintf(d, "HLOD '%s'", h->name), .skeleton = h->hierarchy,
                .bones_used = used, .offset = h->offset,
            };
        }
        for (uint32_t i = 0; i < info->hmodel_count; i++) {
            const amx_w3d_hmodel *h = &info->hmodels[i];
            if (!h->hierarchy[0])
                continue;
            as->skeleton_refs[as->skeleton_ref_count++] = (amx_skeleton_ref){
                .what = amx__sprintf(d, "HMODEL '%s'", h->name), .skeleton = h->hierarchy,
                .bones_used = bones_used(h->nodes, h->node_count, 0), .offset = h->offset,
            };
        }
    }
    if (info->mesh_count == 0)
        return;
    amx_model *m = amx__alloc(d, sizeof *m);
    amx_mesh *meshes = amx__array(d, info->mesh_count, sizeof *meshes);
    amx_submesh *subs = amx__array(d, info->mesh_count, sizeof *subs);
    if (!m || !meshes || !subs)
        return;
    for (uint32_t i = 0; i < info->mesh_count; i++) {
        const amx_w3d_mesh *w = &info->meshes[i];
        subs[i] = (amx_submesh){ .shader = "", .vertex_format = w->skin ? "skin" : "",
                                 .vertices = w->vertices, .triangles = w->triangles };
        meshes[i] = (amx_mesh){
            .name = w->container[0] ? amx__sprintf(d, "%s.%s", w->container, w->name) : w->name,
            .material_count = w->materials, .submeshes = &subs[i], .submesh_count = 1,
        };
        memcpy(meshes[i].bbox_min, w->bbox_min, sizeof w->bbox_min);
        memcpy(meshes[i].bbox_max, w->bbox_max, sizeof w->bbox_max);
        m->total_vertices += w->vertices;
        m->total_triangles += w->triangles;
    }
    m->meshes = meshes;
    m->mesh_count = info->mesh_count;
    as->model = m;
}

void amx__w3d_decode(amx_dec *d)
{
    if (amx_reader_left(&d->r) < 8) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, NULL, "the file ends before its first chunk header");
        return;
    }
    uint32_t first = at_u32(&d->r, 0);
    if (!top_level_known(first)) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, NULL,
                   "the first chunk 0x%x is not a W3D object chunk", (unsigned)first);
        return;
    }

    /* Count the top-level objects so the arrays are sized before the walk. */
    uint32_t ntop = 0, nhier = 0, nanim = 0, nmesh = 0, nhlod = 0, nhmodel = 0;
    {
        amx_reader r = d->r;
        while (amx_reader_left(&r) >= 8) {
            uint32_t type = amx_read_u32le(&r);
            size_t size = amx_read_u32le(&r) & 0x7FFFFFFFu;
            amx_reader_sub(&r, size);
            ntop++;
            nhier += type == C_HIERARCHY;
            nanim += type == C_ANIMATION || type == C_COMPRESSED;
            nmesh += type == C_MESH;
            nhlod += type == C_HLOD;
            nhmodel += type == C_HMODEL;
        }
    }
    amx_chunk *tops = amx__array(d, ntop, sizeof *tops);
    amx_asset *as = d->asset;
    as->skeletons = amx__array(d, nhier, sizeof *as->skeletons);
    as->clips = amx__array(d, nanim, sizeof *as->clips);
    amx_w3d_info *info = amx__alloc(d, sizeof *info);
    if (!tops || !as->skeletons || !as->clips || !info)
        return;
    info->meshes = amx__array(d, nmesh, sizeof *info->meshes);
    info->hlods = amx__array(d, nhlod, sizeof *info->hlods);
    info->hmodels = amx__array(d, nhmodel, sizeof *info->hmodels);
    if (!info->meshes || !info->hlods || !info->hmodels)
        return;
    as->w3d = info;

    uint32_t n = 0;
    amx_chunk c;
    while (n < ntop && amx__chunk_next(d, &d->r, &c)) {
        if (!top_level_known(c.type))
            amx__finding(d, AMX_C_UNKNOWN_CHUNK, (int64_t)c.offset, NULL,
                         "unknown top-level chunk 0x%x skipped", (unsigned)c.type);
        else
            tops[n++] = c;
    }

    w3d_state s = { .d = d, .info = info };
    /* Hierarchies first: animations and models check their pivots against the hierarchy of
     * the same file wherever it is. */
    for (uint32_t i = 0; i < n && !d->out_of_memory; i++)
        if (tops[i].type == C_HIERARCHY && as->skeleton_count < nhier)
            decode_hierarchy(&s, &tops[i]);
    for (uint32_t i = 0; i < n && !d->out_of_memory; i++) {
        const amx_chunk *t = &tops[i];
        switch (t->type) {
        case C_ANIMATION:
        case C_COMPRESSED:
            if (as->clip_count < nanim)
                amx__w3d_decode_animation(&s, t, t->type == C_COMPRESSED);
            break;
        case C_MESH:
            if (info->mesh_count < nmesh)
                decode_mesh(&s, t);
            break;
        case C_HLOD:
            if (info->hlod_count < nhlod)
                decode_hlod(&s, t);
            break;
        case C_HMODEL:
            if (info->hmodel_count < nhmodel)
                decode_hmodel(&s, t);
            break;
        default:
            break; /* recognised and skipped */
        }
    }
    if (s.has_version)
        as->version = version_string(d, s.version);
    if (!d->out_of_memory)
        export_generic(d, info);
}
