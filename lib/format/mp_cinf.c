/*
 * Metroid Prime 1 / 2 CINF skeletons (GameCube, big-endian). No magic and no version field.
 *
 * Layout and sources: docs/formats/metroid-prime.md (AxioDL/PrimeWorldEditor CSkeletonLoader.cpp,
 * AxioDL/metaforce DataSpec/DNAMP1/CINF.hpp and DNAMP2/CINF.hpp, PrimeDecomp/prime
 * CCharLayoutInfo.cpp).
 *
 *   u32 BoneCount
 *   BoneCount x {
 *       u32 BoneId                   ids < 100 (ANIM format 0 has a 100-slot table)
 *       u32 ParentId                 97 (0x61) for a root (metaforce: parentId != 97)
 *       f32 Position[3]              model space
 *       [MP2: f32 Rotation[4]; f32 LocalRotation[4]]   (metaforce MP2 "skinMetrics[8]")
 *       u32 LinkedCount              > 0; the parent id and the child ids, mixed
 *       u32 Linked[LinkedCount]
 *   }
 *   u32 BoneIdCount; u32 BoneIds[BoneIdCount]      build (skinning) order
 *   u32 NameCount; NameCount x { char Name[] (NUL-terminated); u32 BoneId }
 *
 * MP1 vs MP2: the layout whose sizes end exactly at EOF (zero padding to 32 bytes allowed);
 * when both or neither fit, PWE's heuristic: the u32 after the first bone's position is a float
 * (MP2) when it is 0 or > 100, else the MP1 LinkedCount.
 *
 * The skeleton (asset->skeletons[0]) lists the bones parents-first (by depth, file order within
 * a depth); amx_bone.matrix is the identity rotation with the model-space position in column 3.
 * Bone ids, parent ids, linked ids and MP2 rotations are in asset->mp->cinf (file order).
 *
 * Validation: counts against the bytes left; bone ids < 100 and unique; parents exist (or 97)
 * and form one tree (one root, no cycles; PWE "Multiple root bones?"); linked ids exist (PWE
 * "Bone %u has invalid child ID") and number parent + children; LinkedCount != 0; positions
 * finite; build order count = bone count with existing ids; name table ids exist and the table
 * names every bone once; trailing data.
 */
#include "mp_common.h"

#include <stdio.h>

#define ROOT_PARENT AMX_MP_ROOT_PARENT
#define MAX_NAME_PROBE 256u

/* ---- structure scan (no findings): probe (strict) and game detection (sizes only) ---- */

static bool scan(const uint8_t *p, size_t len, int game, bool strict)
{
    amx_reader r = amx_reader_make(p, len);
    uint32_t n = amx_read_u32be(&r);
    if (r.err || (strict && (n == 0 || n > MP_MAX_BONE_ID)))
        return false;
    size_t min_bone = game == MP1 ? 24 : 56;
    if (!amx_reader_has(&r, n, min_bone))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = amx_read_u32be(&r);
        uint32_t parent = amx_read_u32be(&r);
        int floats = game == MP1 ? 3 : 11;
        bool finite = true;
        for (int k = 0; k < floats; k++)
            finite &= isfinite(amx_read_f32be(&r)) != 0;
        uint32_t linked = amx_read_u32be(&r);
        if (r.err || !amx_reader_has(&r, linked, 4))
            return false;
        if (strict && (id >= MP_MAX_BONE_ID || parent >= MP_MAX_BONE_ID || !finite ||
                       linked == 0 || linked > MP_MAX_BONE_ID))
            return false;
        for (uint32_t k = 0; k < linked; k++)
            if (amx_read_u32be(&r) >= MP_MAX_BONE_ID && strict)
                return false;
    }
    uint32_t nbuild = amx_read_u32be(&r);
    if (r.err || !amx_reader_has(&r, nbuild, 4) || (strict && nbuild > MP_MAX_BONE_ID))
        return false;
    for (uint32_t k = 0; k < nbuild; k++)
        if (amx_read_u32be(&r) >= MP_MAX_BONE_ID && strict)
            return false;
    uint32_t nnames = amx_read_u32be(&r);
    if (r.err || !amx_reader_has(&r, nnames, 5) || (strict && nnames > MP_MAX_BONE_ID))
        return false;
    for (uint32_t k = 0; k < nnames; k++) {
        size_t sn;
        const uint8_t *s = mp_read_cstr(&r, &sn);
        uint32_t id = amx_read_u32be(&r);
        if (!s || r.err)
            return false;
        if (strict && (sn > MAX_NAME_PROBE || !mp_printable(s, sn) || id >= MP_MAX_BONE_ID))
            return false;
    }
    return mp_is_padding(p, len, amx_reader_tell(&r));
}

bool amx__mp_cinf_probe(const uint8_t *data, size_t len)
{
    if (len < 4 + 24 + 8)
        return false;
    return scan(data, len, MP1, true) || scan(data, len, MP2, true);
}

/* ---- decoding ---- */

typedef struct cinf {
    amx_dec *d;
    int game;
    amx_mp_cinf *info;
    const char **ctx;
    bool have_build, have_names; /* the tables were read */
} cinf;

static const char *bone_ctx(cinf *c, uint32_t i)
{
    if (!c->ctx[i])
        c->ctx[i] = amx__sprintf(c->d, "bone %u (id %u)", i, c->info->bones[i].id);
    return c->ctx[i];
}

/* Reads the bones; false after a fatal finding. */
static bool read_bones(cinf *c)
{
    amx_dec *d = c->d;
    amx_reader *r = &d->r;
    uint32_t n = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header", "the file has %zu bytes; a CINF starts with "
                   "a u32 bone count", r->end);
        return false;
    }
    size_t min_bone = c->game == MP1 ? 24 : 56;
    if (!amx_reader_has(r, n, min_bone)) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header",
                   "%u bones need at least %llu bytes, only %zu are left", n,
                   (unsigned long long)n * min_bone, amx_reader_left(r));
        return false;
    }
    if (n == 0)
        amx__finding_sev(d, AMX_C_COUNT_MISMATCH, AMX_SEV_ERROR, 0, "header",
                         "the skeleton has no bones");
    c->info->bones = amx__array(d, n, sizeof *c->info->bones);
    c->ctx = amx__array(d, n, sizeof *c->ctx);
    if (!c->info->bones || !c->ctx)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        amx_mp_bone *b = &c->info->bones[i];
        b->offset = (int64_t)amx_reader_tell(r);
        b->name = "";
        b->id = amx_read_u32be(r);
        b->parent_id = amx_read_u32be(r);
        for (int k = 0; k < 3; k++) {
            size_t at = amx_reader_tell(r);
            b->position[k] = amx_read_f32be(r);
            if (!r->err && !amx__check_finite(d, b->position[k], (int64_t)at, bone_ctx(c, i),
                                              "position"))
                b->position[k] = 0.0f;
        }
        if (c->game == MP2) {
            for (int k = 0; k < 8; k++) {
                size_t at = amx_reader_tell(r);
                float v = amx_read_f32be(r);
                if (!r->err && !amx__check_finite(d, v, (int64_t)at, bone_ctx(c, i),
                                                  k < 4 ? "rotation" : "local rotation"))
                    v = 0.0f;
                if (k < 4)
                    b->rotation[k] = v;
                else
                    b->local_rotation[k - 4] = v;
            }
        }
        size_t linked_at = amx_reader_tell(r);
        uint32_t linked = amx_read_u32be(r);
        if (r->err || !amx_reader_has(r, linked, 4)) {
            amx__fatal(d, AMX_C_TRUNCATED, (int64_t)linked_at, bone_ctx(c, i),
                       "%u linked ids run past the end of the file", linked);
            return false;
        }
        c->info->bone_count = i + 1;
        if (linked == 0)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)linked_at, bone_ctx(c, i),
                         "the bone has no linked ids (PWE requires at least one)");
        b->linked = amx__array(d, linked, sizeof *b->linked);
        if (!b->linked)
            return false;
        b->linked_count = linked;
        for (uint32_t k = 0; k < linked; k++)
            b->linked[k] = amx_read_u32be(r);
    }
    return true;
}

static bool read_tables(cinf *c, size_t *build_at, size_t *names_at)
{
    amx_dec *d = c->d;
    amx_reader *r = &d->r;
    amx_mp_cinf *in = c->info;
    *build_at = amx_reader_tell(r);
    uint32_t nbuild = amx_read_u32be(r);
    if (r->err || !amx_reader_has(r, nbuild, 4)) {
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)*build_at, "build order",
                   "the build order (%u ids) runs past the end of the file", nbuild);
        return false;
    }
    in->build_order = amx__array(d, nbuild, sizeof *in->build_order);
    if (!in->build_order)
        return false;
    in->build_order_count = nbuild;
    for (uint32_t k = 0; k < nbuild; k++)
        in->build_order[k] = amx_read_u32be(r);
    c->have_build = true;

    *names_at = amx_reader_tell(r);
    uint32_t nnames = amx_read_u32be(r);
    if (r->err || !amx_reader_has(r, nnames, 5)) {
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)*names_at, "name table",
                   "the name table (%u names) runs past the end of the file", nnames);
        return false;
    }
    in->names = amx__array(d, nnames, sizeof *in->names);
    if (!in->names)
        return false;
    for (uint32_t k = 0; k < nnames; k++) {
        size_t at = amx_reader_tell(r), n;
        const uint8_t *s = mp_read_cstr(r, &n);
        uint32_t id = amx_read_u32be(r);
        if (!s || r->err) {
            amx__fatal(d, AMX_C_TRUNCATED, (int64_t)at, amx__sprintf(d, "name %u", k),
                       "name %u of %u runs past the end of the file", k, nnames);
            return false;
        }
        in->names[k] = (amx_mp_bone_name){ .name = amx__strndup(d, s, n), .bone_id = id };
        in->name_count = k + 1;
    }
    c->have_names = true;
    return true;
}

/* Index of the bone with this id (first one), or -1. */
static int32_t find_id(const int32_t *by_id, uint32_t id)
{
    return id < MP_MAX_BONE_ID ? by_id[id] : -1;
}

/* Checks ids, parents and the tree; builds the skeleton. */
static void link(cinf *c, size_t build_at, size_t names_at)
{
    amx_dec *d = c->d;
    amx_mp_cinf *in = c->info;
    uint32_t n = in->bone_count;
    int32_t by_id[MP_MAX_BONE_ID];
    for (uint32_t i = 0; i < MP_MAX_BONE_ID; i++)
        by_id[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        amx_mp_bone *b = &in->bones[i];
        if (b->id >= MP_MAX_BONE_ID)
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, b->offset, bone_ctx(c, i),
                         "bone id %u is not below %u", b->id, MP_MAX_BONE_ID);
        else if (by_id[b->id] >= 0)
            amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, b->offset, bone_ctx(c, i),
                             "bone id %u is also bone %d's", b->id, by_id[b->id]);
        else
            by_id[b->id] = (int32_t)i;
    }

    /* parents: 97 is a root; anything else must be a bone */
    int32_t *parent = amx__array(d, n, sizeof *parent);
    int32_t *depth = amx__array(d, n, sizeof *depth);
    uint32_t *children = amx__array(d, n, sizeof *children);
    if (!parent || !depth || !children)
        return;
    uint32_t roots = 0;
    for (uint32_t i = 0; i < n; i++) {
        amx_mp_bone *b = &in->bones[i];
        parent[i] = -1;
        if (b->parent_id == ROOT_PARENT) {
            if (++roots == 2)
                amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, b->offset + 4, bone_ctx(c, i),
                                 "a second root bone (parent id 97); a skeleton has one");
            continue;
        }
        int32_t p = find_id(by_id, b->parent_id);
        if (p < 0)
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, b->offset + 4, bone_ctx(c, i),
                         "parent id %u is not a bone of this skeleton (97 marks a root)",
                         b->parent_id);
        else
            parent[i] = p;
    }
    if (n && roots == 0)
        amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, 0, "header",
                         "no bone has the root parent id 97");

    /* cycles: a bone whose parent chain comes back to it */
    for (uint32_t i = 0; i < n; i++) {
        int32_t j = parent[i];
        for (uint32_t steps = 0; j >= 0 && steps <= MP_MAX_BONE_ID && j != (int32_t)i; steps++)
            j = parent[j];
        if (j == (int32_t)i) {
            amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, in->bones[i].offset + 4,
                             bone_ctx(c, i), "the parent chain of bone id %u loops back to it",
                             in->bones[i].id);
            depth[i] = -2; /* mark: becomes a root below */
        } else {
            depth[i] = -1;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (depth[i] == -2)
            parent[i] = -1;
    /* depths (chains now end) */
    int32_t max_depth = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t dd = 0;
        for (int32_t j = parent[i]; j >= 0 && dd <= (int32_t)n; j = parent[j])
            dd++;
        depth[i] = dd;
        if (dd > max_depth)
            max_depth = dd;
        if (parent[i] >= 0)
            children[parent[i]]++;
    }

    /* linked ids: existing bones (or the parent id), parent + children of them */
    int64_t linked_rel = c->game == MP1 ? 20 : 52; /* the LinkedCount field in a bone record */
    for (uint32_t i = 0; i < n; i++) {
        amx_mp_bone *b = &in->bones[i];
        int64_t count_at = b->offset + linked_rel;
        for (uint32_t k = 0; k < b->linked_count; k++) {
            uint32_t id = b->linked[k];
            if (id != b->parent_id && find_id(by_id, id) < 0) {
                amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, count_at + 4 + 4 * (int64_t)k,
                             bone_ctx(c, i),
                             "linked id %u (entry %u) is not a bone of this skeleton", id, k);
                break;
            }
        }
        uint32_t want = children[i] + (parent[i] >= 0 ? 1u : 0u);
        if (b->linked_count && b->linked_count != want)
            amx__finding_sev(d, AMX_C_COUNT_MISMATCH, AMX_SEV_WARNING, count_at, bone_ctx(c, i),
                             "%u linked ids, but the bone has %u children%s", b->linked_count,
                             children[i], parent[i] >= 0 ? " and a parent" : "");
    }

    /* build order and names */
    if (c->have_build && in->build_order_count != n)
        amx__finding(d, AMX_C_COUNT_MISMATCH, (int64_t)build_at, "build order",
                     "the build order lists %u ids for %u bones", in->build_order_count, n);
    for (uint32_t k = 0; k < in->build_order_count; k++)
        if (find_id(by_id, in->build_order[k]) < 0) {
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)(build_at + 4 + 4 * (size_t)k),
                         "build order", "entry %u is bone id %u, which the skeleton lacks", k,
                         in->build_order[k]);
            break;
        }
    if (c->have_names && in->name_count != n)
        amx__finding_sev(d, AMX_C_COUNT_MISMATCH, AMX_SEV_WARNING, (int64_t)names_at,
                         "name table", "the name table has %u names for %u bones",
                         in->name_count, n);
    for (uint32_t k = 0; k < in->name_count; k++) {
        const amx_mp_bone_name *nm = &in->names[k];
        int32_t b = find_id(by_id, nm->bone_id);
        if (b < 0) {
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)names_at, "name table",
                         "name %u '%s' is for bone id %u, which the skeleton lacks", k, nm->name,
                         nm->bone_id);
            continue;
        }
        if (in->bones[b].name[0])
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)names_at, "name table",
                         "bone id %u is named '%s' and '%s'", nm->bone_id, in->bones[b].name,
                         nm->name);
        else
            in->bones[b].name = nm->name;
    }

    /* the skeleton: parents first */
    amx_skeleton *sk = amx__alloc(d, sizeof *sk);
    amx_bone *bones = amx__array(d, n, sizeof *bones);
    int32_t *order = amx__array(d, n, sizeof *order);
    if (!sk || !bones || !order)
        return;
    uint32_t m = 0;
    for (int32_t dd = 0; dd <= max_depth; dd++)
        for (uint32_t i = 0; i < n; i++)
            if (depth[i] == dd) {
                order[m] = (int32_t)i;
                in->bones[i].skeleton_index = (int32_t)m;
                m++;
            }
    for (uint32_t s = 0; s < n; s++) {
        const amx_mp_bone *b = &in->bones[order[s]];
        int32_t p = parent[order[s]];
        bones[s] = (amx_bone){
            .name = b->name,
            .parent = p >= 0 ? in->bones[p].skeleton_index : -1,
            .visible = 1,
            .matrix = { 1, 0, 0, b->position[0], 0, 1, 0, b->position[1], 0, 0, 1, b->position[2] },
            .id = (int32_t)b->id, /* ids < 100: checked when the bones are read */
        };
    }
    char stem[256];
    amx_path_stem(d->opts->file_name ? d->opts->file_name : "", stem, sizeof stem);
    sk->name = amx__strdup(d, stem);
    sk->bones = bones;
    sk->bone_count = n;
    sk->has_bone_ids = true; /* ANIM channels name bones by id */
    d->asset->skeletons = sk;
    d->asset->skeleton_count = 1;
}

void amx__mp_cinf_decode(amx_dec *d)
{
    const uint8_t *p = d->r.base;
    size_t len = d->r.end;
    bool fit1 = scan(p, len, MP1, false), fit2 = scan(p, len, MP2, false);
    int heuristic = MP1;
    if (len >= 0x1C) {
        uint32_t peek = amx_load_u32be(p + 0x18);
        heuristic = peek == 0 || peek > MP_MAX_BONE_ID ? MP2 : MP1;
    }
    cinf c = { .d = d };
    c.game = mp_choose_game(d, fit1, fit2, heuristic, "CINF");
    amx_mp_info *mp = mp_info(d);
    c.info = amx__alloc(d, sizeof *c.info);
    if (!mp || !c.info)
        return;
    mp->cinf = c.info;
    d->asset->version = mp_game_name(c.game);
    size_t build_at = 0, names_at = 0;
    bool complete = read_bones(&c) && read_tables(&c, &build_at, &names_at);
    if (d->out_of_memory)
        return;
    if (complete)
        mp_check_trailing(d, amx_reader_tell(&d->r), "name table");
    link(&c, build_at, names_at);
}
