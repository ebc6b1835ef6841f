/*
 * Metroid Prime 1 / 2 ANCS character sets (GameCube, big-endian): enough to join CINF
 * skeletons to ANIM animations. Every ANIM asset id the set's animation set plays is animated
 * against the CINF of each character of the set.
 *
 * Layout and sources: docs/formats/metroid-prime.md; AxioDL/PrimeWorldEditor CAnimSetLoader.cpp
 * (LoadANCS, LoadPASDatabase, LoadParticleResourceData, LoadAnimationSet) and metaforce
 * DNAMP1/ANCS.cpp (CharacterInfo::Enumerate<Read>, PASDatabase::AnimState).
 *
 *   u16 Version (1); u16 CharSetVersion (1)   = u32 0x00010001 (PWE "Invalid ANCS magic")
 *   u32 CharacterCount
 *   character:
 *     u32 idx; u16 version (section count; 10 = MP2, PWE); char name[]
 *     u32 CMDL; u32 CSKR; u32 CINF
 *     u32 n; n x { u32 animIdx; [MP1: char strA[]]; char name[] }
 *     PAS4 database: u32 'PAS4'; u32 stateCount; u32 defaultState;
 *       state: u32 id; u32 parmCount; u32 animInfoCount;
 *              parm: u32 type (0 int, 1 uint, 2 float, 3 bool, 4 enum); u32 weightFunction;
 *                    f32 weight; range: 2 x 4 bytes (bool: 2 x 1 byte)
 *              animInfo: u32 id; per parm 4 bytes (bool: 1)
 *     particles: u32 n + n x u32 PART; u32 n + SWHC; u32 n + unknown ids;
 *                [version > 5: u32 n + ELSC]; [MP2: u32 n + SPSC]; u32 unknown; [MP2: u32]
 *     [version > 1: u32 n; n x { char name[]; f32 aabb[6] }]
 *     [version > 2: u32 n; n x { char name[]; u32 m; m x { char name[]; u32 type; u32 id;
 *                                MP1: char locator[] / MP2: u32; f32 scale; u32 parentMode;
 *                                u32 flags } }]
 *     [version > 3: u32 overlay CMDL; u32 overlay CSKR]
 *     [version > 4: u32 n; n x u32 animIdx]            (animations the character uses)
 *     [MP2: u32; u8; u32 n; n x 28 bytes]
 *   animation set:
 *     u16 version; u32 n; n x { char name[]; MetaAnim }
 *     u32 n; n x { u32; u32 animA; u32 animB; MetaTrans }      transitions
 *     MetaTrans                                                default transition
 *     [version > 1: u32 n; n x { u32 animIdx; f32; f32 }; f32; f32]     additive
 *     [version > 2: u32 n; n x { u32 animIdx; MetaTrans }]              half transitions
 *     [MP1, version > 3: u32 n; n x { u32 ANIM id; u32 EVNT id }]       resources
 *     MP2: event data follows (not read).
 *   MetaAnim: u32 type; 0 Primitive { u32 ANIM id; u32 animIdx; char name[]; f32; u32 }
 *             1 Blend / 2 PhaseBlend { MetaAnim; MetaAnim; f32; u8 }
 *             3 Random { u32 n; n x { MetaAnim; u32 probability } }
 *             4 Sequence { u32 n; n x MetaAnim }
 *   MetaTrans: u32 type; 0 { MetaAnim }; 1 Trans / 2 PhaseTrans { f32; u32; u8; u8; u32 };
 *              3 Snap {}
 *
 * Which characters play what: every character of the set gets the set's ANIM ids;
 * the per-character used-index lists (PWE's UsedAnimationIndices) are not applied.
 * Game: the hint, else the first character's version (10 = MP2, PWE).
 * Validation: magic, counts against the bytes left, PAS4 magic, parameter and meta types,
 * nesting depth (64), trailing data (MP1).
 */
#include "mp_common.h"

#include <stdio.h>

#define ANCS_MAGIC 0x00010001u
#define PAS4_MAGIC 0x50415334u /* 'PAS4' */
#define MP2_CHAR_VERSION 10u
#define MAX_DEPTH 64
#define MAX_PROBE_STR 256u

/* ---- probe ---- */

/* A NUL-terminated printable string of at most MAX_PROBE_STR bytes; 1 ok, 0 bad, -1 data ends. */
static int probe_str(amx_reader *r)
{
    size_t left = amx_reader_left(r);
    const uint8_t *p = amx_reader_peek(r, left);
    size_t lim = left < MAX_PROBE_STR + 1 ? left : MAX_PROBE_STR + 1;
    const uint8_t *nul = p ? memchr(p, 0, lim) : NULL;
    if (!nul)
        return lim == left ? -1 : 0;
    size_t n = (size_t)(nul - p);
    if (!mp_printable(p, n))
        return 0;
    amx_reader_skip(r, n + 1);
    return 1;
}

bool amx__mp_ancs_probe(const uint8_t *data, size_t len)
{
    if (len < 8)
        return false;
    amx_reader r = amx_reader_make(data, len);
    uint32_t magic = amx_read_u32be(&r), nchars = amx_read_u32be(&r);
    if (magic != ANCS_MAGIC || nchars == 0 || nchars > 10000)
        return false;
    amx_read_u32be(&r); /* idx */
    uint16_t version = amx_read_u16be(&r);
    if (r.err || version == 0 || version > 32)
        return false;
    int s = probe_str(&r);
    if (s <= 0)
        return false;
    for (int k = 0; k < 3; k++)
        amx_read_u32be(&r);
    uint32_t nanims = amx_read_u32be(&r);
    if (r.err)
        return false;
    if (nanims > 100000)
        return false;
    for (uint32_t i = 0; i < nanims; i++) {
        amx_read_u32be(&r);
        if (r.err)
            return true; /* a prefix: what was seen fits */
        for (int k = version == MP2_CHAR_VERSION ? 1 : 0; k < 2; k++) {
            s = probe_str(&r);
            if (s < 0)
                return true;
            if (s == 0)
                return false;
        }
    }
    uint32_t pas = amx_read_u32be(&r);
    return r.err || pas == PAS4_MAGIC;
}

/* ---- decoding ---- */

typedef struct ancs {
    amx_dec *d;
    amx_reader *r;
    int game;
    amx_mp_ancs *info;
    mp_idset ids;
    uint32_t first_id;   /* first Primitive id of the current animation */
    bool have_first;
} ancs;

/* After a record: a read past the end is fatal. */
static bool ok(ancs *a, size_t at, const char *ctx, const char *what)
{
    if (!a->r->err)
        return !a->d->fatal && !a->d->out_of_memory;
    amx__fatal(a->d, AMX_C_TRUNCATED, (int64_t)at, ctx, "the file ends inside %s", what);
    return false;
}

/* A count of records of at least `min` bytes each that must fit in what is left. */
static bool count_fits(ancs *a, uint32_t n, size_t min, size_t at, const char *ctx,
                       const char *what)
{
    if (amx_reader_has(a->r, n, min))
        return true;
    amx__fatal(a->d, AMX_C_TRUNCATED, (int64_t)at, ctx,
               "%u %s need at least %llu bytes, only %zu are left", n, what,
               (unsigned long long)n * min, amx_reader_left(a->r));
    return false;
}

static bool skip_str(ancs *a)
{
    size_t n;
    return mp_read_cstr(a->r, &n) != NULL;
}

static bool add_anim_id(ancs *a, uint32_t id)
{
    if (!a->have_first) {
        a->first_id = id;
        a->have_first = true;
    }
    return mp_idset_add(a->d, &a->ids, id) >= 0;
}

static bool meta_anim(ancs *a, int depth, const char *ctx);

static bool meta_trans(ancs *a, int depth, const char *ctx)
{
    size_t at = amx_reader_tell(a->r);
    uint32_t type = amx_read_u32be(a->r);
    if (!ok(a, at, ctx, "a meta-transition"))
        return false;
    switch (type) {
    case 0:
        return meta_anim(a, depth + 1, ctx);
    case 1:
    case 2:
        amx_reader_skip(a->r, 14);
        return ok(a, at, ctx, "a meta-transition");
    case 3:
        return true;
    default:
        amx__fatal(a->d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                   "unknown meta-transition type %u (0..3); the rest cannot be read", type);
        return false;
    }
}

static bool meta_anim(ancs *a, int depth, const char *ctx)
{
    size_t at = amx_reader_tell(a->r);
    if (depth > MAX_DEPTH) {
        amx__fatal(a->d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                   "meta-animations nest deeper than %d levels", MAX_DEPTH);
        return false;
    }
    uint32_t type = amx_read_u32be(a->r);
    if (!ok(a, at, ctx, "a meta-animation"))
        return false;
    switch (type) {
    case 0: { /* Primitive */
        uint32_t id = amx_read_u32be(a->r);
        amx_read_u32be(a->r);
        skip_str(a);
        amx_reader_skip(a->r, 8);
        if (!ok(a, at, ctx, "a primitive meta-animation"))
            return false;
        return add_anim_id(a, id);
    }
    case 1:
    case 2: /* Blend, PhaseBlend */
        if (!meta_anim(a, depth + 1, ctx) || !meta_anim(a, depth + 1, ctx))
            return false;
        amx_reader_skip(a->r, 5);
        return ok(a, at, ctx, "a blend meta-animation");
    case 3:
    case 4: { /* Random, Sequence */
        size_t nat = amx_reader_tell(a->r);
        uint32_t n = amx_read_u32be(a->r);
        if (!ok(a, at, ctx, "a meta-animation") ||
            !count_fits(a, n, type == 3 ? 12 : 8, nat, ctx, "meta-animation children"))
            return false;
        for (uint32_t i = 0; i < n; i++) {
            if (!meta_anim(a, depth + 1, ctx))
                return false;
            if (type == 3) {
                amx_read_u32be(a->r);
                if (!ok(a, at, ctx, "a random meta-animation"))
                    return false;
            }
        }
        return true;
    }
    default:
        amx__fatal(a->d, AMX_C_BAD_VALUE, (int64_t)at, ctx,
                   "unknown meta-animation type %u (0..4); the rest cannot be read", type);
        return false;
    }
}

/* A u32 count and that many u32 ids. */
static bool id_list(ancs *a, const char *ctx, const char *what)
{
    size_t at = amx_reader_tell(a->r);
    uint32_t n = amx_read_u32be(a->r);
    if (!ok(a, at, ctx, what) || !count_fits(a, n, 4, at, ctx, what))
        return false;
    amx_reader_skip(a->r, (size_t)n * 4);
    return true;
}

static bool pas_database(ancs *a, const char *ctx)
{
    amx_reader *r = a->r;
    size_t at = amx_reader_tell(r);
    uint32_t magic = amx_read_u32be(r);
    uint32_t nstates = amx_read_u32be(r);
    amx_read_u32be(r); /* default state */
    if (!ok(a, at, ctx, "the PAS4 database"))
        return false;
    if (magic != PAS4_MAGIC) {
        char cc[5];
        mp_fourcc(magic, cc);
        amx__fatal(a->d, AMX_C_BAD_MAGIC, (int64_t)at, ctx,
                   "the animation state database starts with '%s', not 'PAS4'", cc);
        return false;
    }
    if (!count_fits(a, nstates, 12, at + 4, ctx, "animation states"))
        return false;
    for (uint32_t s = 0; s < nstates; s++) {
        size_t sat = amx_reader_tell(r);
        amx_read_u32be(r);
        uint32_t nparms = amx_read_u32be(r), ninfos = amx_read_u32be(r);
        if (!ok(a, sat, ctx, "an animation state") ||
            !count_fits(a, nparms, 14, sat + 4, ctx, "state parameters"))
            return false;
        size_t info_size = 4;
        for (uint32_t p = 0; p < nparms; p++) {
            size_t pat = amx_reader_tell(r);
            uint32_t type = amx_read_u32be(r);
            amx_reader_skip(r, 8);
            if (!ok(a, pat, ctx, "a state parameter"))
                return false;
            if (type > 4) {
                amx__fatal(a->d, AMX_C_BAD_VALUE, (int64_t)pat, ctx,
                           "unknown state parameter type %u (0..4); the rest cannot be read",
                           type);
                return false;
            }
            size_t elem = type == 3 ? 1 : 4;
            amx_reader_skip(r, 2 * elem);
            info_size += elem;
            if (!ok(a, pat, ctx, "a state parameter"))
                return false;
        }
        if (!count_fits(a, ninfos, info_size, sat + 8, ctx, "state animation infos"))
            return false;
        amx_reader_skip(r, (size_t)ninfos * info_size);
    }
    return true;
}

static bool character(ancs *a, uint32_t i, amx_mp_character *ch)
{
    amx_reader *r = a->r;
    amx_dec *d = a->d;
    size_t at = amx_reader_tell(r);
    const char *ctx = amx__sprintf(d, "character %u", i);
    ch->offset = (int64_t)at;
    ch->index = amx_read_u32be(r);
    ch->version = amx_read_u16be(r);
    size_t n;
    const uint8_t *name = mp_read_cstr(r, &n);
    ch->name = name ? amx__strndup(d, name, n) : "";
    if (name)
        ctx = amx__sprintf(d, "character %u '%s'", i, ch->name);
    ch->cmdl = amx_read_u32be(r);
    ch->cskr = amx_read_u32be(r);
    ch->cinf = amx_read_u32be(r);
    size_t nat = amx_reader_tell(r);
    uint32_t nanims = amx_read_u32be(r);
    if (!ok(a, at, ctx, "the character header") ||
        !count_fits(a, nanims, a->game == MP1 ? 6 : 5, nat, ctx, "animation names"))
        return false;
    for (uint32_t k = 0; k < nanims; k++) {
        size_t kat = amx_reader_tell(r);
        amx_read_u32be(r);
        if (a->game == MP1)
            skip_str(a);
        skip_str(a);
        if (!ok(a, kat, ctx, "an animation name"))
            return false;
    }
    if (!pas_database(a, ctx))
        return false;
    /* particles */
    int lists = 3 + (ch->version > 5) + (a->game == MP2);
    for (int k = 0; k < lists; k++)
        if (!id_list(a, ctx, "a particle list"))
            return false;
    size_t uat = amx_reader_tell(r);
    amx_reader_skip(r, a->game == MP2 ? 8 : 4);
    if (!ok(a, uat, ctx, "the particle data"))
        return false;
    if (ch->version > 1) { /* animation bounds */
        size_t bat = amx_reader_tell(r);
        uint32_t nb = amx_read_u32be(r);
        if (!ok(a, bat, ctx, "the animation bounds") ||
            !count_fits(a, nb, 25, bat, ctx, "animation bounds"))
            return false;
        for (uint32_t k = 0; k < nb; k++) {
            skip_str(a);
            amx_reader_skip(r, 24);
            if (!ok(a, bat, ctx, "the animation bounds"))
                return false;
        }
    }
    if (ch->version > 2) { /* effects */
        size_t eat = amx_reader_tell(r);
        uint32_t ne = amx_read_u32be(r);
        if (!ok(a, eat, ctx, "the effects") || !count_fits(a, ne, 5, eat, ctx, "effects"))
            return false;
        for (uint32_t k = 0; k < ne; k++) {
            size_t kat = amx_reader_tell(r);
            skip_str(a);
            size_t cat = amx_reader_tell(r);
            uint32_t nc = amx_read_u32be(r);
            if (!ok(a, kat, ctx, "an effect") ||
                !count_fits(a, nc, a->game == MP1 ? 22 : 25, cat, ctx, "effect components"))
                return false;
            for (uint32_t c = 0; c < nc; c++) {
                skip_str(a);
                amx_reader_skip(r, 8);
                if (a->game == MP1)
                    skip_str(a);
                else
                    amx_reader_skip(r, 4);
                amx_reader_skip(r, 12);
                if (!ok(a, kat, ctx, "an effect component"))
                    return false;
            }
        }
    }
    if (ch->version > 3) { /* overlay model and skin */
        size_t oat = amx_reader_tell(r);
        amx_reader_skip(r, 8);
        if (!ok(a, oat, ctx, "the overlay model"))
            return false;
    }
    if (ch->version > 4 && !id_list(a, ctx, "the used animation indices"))
        return false;
    if (a->game == MP2) {
        size_t tat = amx_reader_tell(r);
        amx_reader_skip(r, 5);
        uint32_t nt = amx_read_u32be(r);
        if (!ok(a, tat, ctx, "the character's tail") ||
            !count_fits(a, nt, 28, tat + 5, ctx, "spatial primitives"))
            return false;
        amx_reader_skip(r, (size_t)nt * 28);
    }
    return true;
}

static bool animation_set(ancs *a)
{
    amx_reader *r = a->r;
    amx_dec *d = a->d;
    amx_mp_ancs *in = a->info;
    size_t at = amx_reader_tell(r);
    in->set_version = amx_read_u16be(r);
    uint32_t nanims = amx_read_u32be(r);
    if (!ok(a, at, "animation set", "the animation set header") ||
        !count_fits(a, nanims, 5, at + 2, "animation set", "animations"))
        return false;
    in->animations = amx__array(d, nanims, sizeof *in->animations);
    if (!in->animations)
        return false;
    for (uint32_t i = 0; i < nanims; i++) {
        size_t kat = amx_reader_tell(r), n;
        const uint8_t *name = mp_read_cstr(r, &n);
        if (!ok(a, kat, "animation set", "an animation name"))
            return false;
        amx_mp_animation *an = &in->animations[i];
        an->name = amx__strndup(d, name, n);
        an->first_anim_id = AMX_MP_NO_ASSET;
        in->animation_count = i + 1;
        a->have_first = false;
        if (!meta_anim(a, 0, amx__sprintf(d, "animation %u '%s'", i, an->name)))
            return false;
        if (a->have_first)
            an->first_anim_id = a->first_id;
    }
    size_t tat = amx_reader_tell(r);
    uint32_t ntrans = amx_read_u32be(r);
    if (!ok(a, tat, "transitions", "the transitions") ||
        !count_fits(a, ntrans, 16, tat, "transitions", "transitions"))
        return false;
    for (uint32_t i = 0; i < ntrans; i++) {
        amx_reader_skip(r, 12);
        if (!ok(a, tat, "transitions", "a transition") ||
            !meta_trans(a, 0, "transitions"))
            return false;
    }
    if (!meta_trans(a, 0, "default transition"))
        return false;
    if (in->set_version > 1) {
        size_t aat = amx_reader_tell(r);
        uint32_t nadd = amx_read_u32be(r);
        if (!ok(a, aat, "additive animations", "the additive animations") ||
            !count_fits(a, nadd, 12, aat, "additive animations", "additive animations"))
            return false;
        amx_reader_skip(r, (size_t)nadd * 12 + 8);
        if (!ok(a, aat, "additive animations", "the additive animations"))
            return false;
    }
    if (in->set_version > 2) {
        size_t hat = amx_reader_tell(r);
        uint32_t nhalf = amx_read_u32be(r);
        if (!ok(a, hat, "half transitions", "the half transitions") ||
            !count_fits(a, nhalf, 8, hat, "half transitions", "half transitions"))
            return false;
        for (uint32_t i = 0; i < nhalf; i++) {
            amx_read_u32be(r);
            if (!ok(a, hat, "half transitions", "a half transition") ||
                !meta_trans(a, 0, "half transitions"))
                return false;
        }
    }
    if (a->game == MP1 && in->set_version > 3) {
        size_t rat = amx_reader_tell(r);
        uint32_t nres = amx_read_u32be(r);
        if (!ok(a, rat, "resources", "the ANIM resource list") ||
            !count_fits(a, nres, 8, rat, "resources", "ANIM resources"))
            return false;
        for (uint32_t i = 0; i < nres; i++) {
            uint32_t id = amx_read_u32be(r);
            amx_read_u32be(r); /* EVNT id */
            if (mp_idset_add(d, &a->ids, id) < 0)
                return false;
        }
    }
    return true;
}

void amx__mp_ancs_decode(amx_dec *d)
{
    amx_reader *r = &d->r;
    uint32_t magic = amx_read_u32be(r);
    uint32_t nchars = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header",
                   "the file has %zu bytes; an ANCS header needs 8", r->end);
        return;
    }
    if (magic != ANCS_MAGIC) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, "header",
                   "the file starts with 0x%08X, not the ANCS versions 0x00010001", magic);
        return;
    }
    /* The game: the first character's version (10 = MP2, PWE). */
    uint16_t v0 = r->end >= 14 ? (uint16_t)(r->base[12] << 8 | r->base[13]) : 0;
    ancs a = { .d = d, .r = r };
    a.game = mp_choose_game(d, v0 != MP2_CHAR_VERSION, v0 == MP2_CHAR_VERSION, MP1, "ANCS");
    amx_mp_info *mp = mp_info(d);
    a.info = amx__alloc(d, sizeof *a.info);
    if (!mp || !a.info)
        return;
    mp->ancs = a.info;
    d->asset->version = mp_game_name(a.game);
    if (nchars == 0)
        amx__finding(d, AMX_C_BAD_VALUE, 4, "header", "the character set has no characters");
    /* a character takes at least 51 bytes (MP1 version 1, empty lists) */
    if (!count_fits(&a, nchars, 51, 4, "header", "characters"))
        return;
    a.info->characters = amx__array(d, nchars, sizeof *a.info->characters);
    if (!a.info->characters)
        return;
    bool complete = true;
    for (uint32_t i = 0; i < nchars; i++) {
        a.info->character_count = i + 1;
        if (!character(&a, i, &a.info->characters[i])) {
            complete = false;
            break;
        }
    }
    if (complete)
        complete = animation_set(&a);
    if (d->out_of_memory)
        return;
    a.info->anim_ids = a.ids.ids;
    a.info->anim_id_count = a.ids.count;
    for (uint32_t i = 0; i < a.info->character_count; i++) {
        a.info->characters[i].anim_ids = a.ids.ids;
        a.info->characters[i].anim_id_count = a.ids.count;
    }
    /* For the index: each character's CINF plays every ANIM of the set, named as the files
     * are ("%08X", the asset id). */
    const char **clips = amx__array(d, a.ids.count, sizeof *clips);
    amx_anim_set *sets = amx__array(d, a.info->character_count, sizeof *sets);
    if (!clips || !sets)
        return;
    for (uint32_t k = 0; k < a.ids.count; k++)
        clips[k] = amx__sprintf(d, "%08X", a.ids.ids[k]);
    for (uint32_t i = 0; i < a.info->character_count; i++)
        sets[i] = (amx_anim_set){
            .name = a.info->characters[i].name ? a.info->characters[i].name : "",
            .skeleton = amx__sprintf(d, "%08X", a.info->characters[i].cinf),
            .clips = clips,
            .clip_count = a.ids.count,
        };
    d->asset->anim_sets = sets;
    d->asset->anim_set_count = a.info->character_count;
    if (complete && a.game == MP1)
        mp_check_trailing(d, amx_reader_tell(r), "animation set");
}
