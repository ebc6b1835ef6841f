/* Metroid Prime 1/2 sample writers; see mp_writer.h. Aborts on misuse: tests and tools only. */
#include "mp_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void die(const char *msg)
{
    fprintf(stderr, "amxw_mp: %s\n", msg);
    abort();
}

void amxw_mp_put_u32(amxw_buf *b, size_t at, uint32_t v)
{
    b->data[at] = (uint8_t)(v >> 24);
    b->data[at + 1] = (uint8_t)(v >> 16);
    b->data[at + 2] = (uint8_t)(v >> 8);
    b->data[at + 3] = (uint8_t)v;
}

void amxw_mp_put_u16(amxw_buf *b, size_t at, uint16_t v)
{
    b->data[at] = (uint8_t)(v >> 8);
    b->data[at + 1] = (uint8_t)v;
}

void amxw_mp_put_f32(amxw_buf *b, size_t at, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    amxw_mp_put_u32(b, at, u);
}

/* ---- ANIM ---- */

/* Bits LSB-first into big-endian u32 words. */
typedef struct bitw {
    amxw_buf *b;
    uint64_t acc;
    unsigned n;
} bitw;

static void bits_put(bitw *w, uint32_t v, unsigned n)
{
    if (n == 0)
        return;
    uint64_t mask = n == 32 ? 0xFFFFFFFFu : ((uint64_t)1 << n) - 1;
    w->acc |= ((uint64_t)v & mask) << w->n;
    w->n += n;
    while (w->n >= 32) {
        amxw_u32be(w->b, (uint32_t)w->acc);
        w->acc >>= 32;
        w->n -= 32;
    }
}

static void bits_flush(bitw *w)
{
    if (w->n)
        amxw_u32be(w->b, (uint32_t)w->acc);
    w->acc = 0;
    w->n = 0;
}

/* The fewest two's-complement bits that hold v (0 for 0). */
static uint8_t bits_for(int64_t v)
{
    if (v == 0)
        return 0;
    for (uint8_t q = 1; q <= 32; q++) {
        int64_t lo = -((int64_t)1 << (q - 1)), hi = ((int64_t)1 << (q - 1)) - 1;
        if (v >= lo && v <= hi)
            return q;
    }
    die("delta does not fit 32 bits");
    return 32;
}

static float interval_of(const amxw_mp_anim_spec *s) { return s->interval > 0 ? s->interval : 1.0f / 30.0f; }

static float duration_of(const amxw_mp_anim_spec *s)
{
    if (s->duration_set)
        return s->duration;
    return s->frames ? (float)(s->frames - 1) * interval_of(s) : 0.0f;
}

static const int32_t *comp_values(const amxw_mp_v2_channel *c, int k)
{
    return k == 0 ? c->rot : k == 1 ? c->trans : c->scale;
}

static void anim_v2(amxw_buf *b, const amxw_mp_anim_spec *s, amxw_mp_anim_layout *lay)
{
    bool mp1 = s->game == 1;
    uint32_t keys = 0;
    for (uint32_t f = 1; f < s->frames; f++)
        keys += s->keyed ? s->keyed[f] != 0 : 1;
    lay->keys = keys;
    /* bit widths */
    uint8_t bits[AMXW_MP_MAX_CHANNELS][3][3];
    uint32_t bpk = 0;
    for (uint32_t i = 0; i < s->channel_count; i++) {
        const amxw_mp_v2_channel *c = &s->v2[i];
        for (int k = 0; k < 3; k++) {
            const int32_t *v = comp_values(c, k);
            if (!v || (k == 2 && mp1))
                continue;
            if (k == 0)
                bpk += 1;
            for (int e = 0; e < 3; e++) {
                uint8_t q = c->bits[k][e];
                if (!q)
                    for (uint32_t j = 1; j <= keys; j++) {
                        uint8_t need = bits_for((int64_t)v[3 * j + e] - v[3 * (j - 1) + e]);
                        if (need > q)
                            q = need;
                    }
                bits[i][k][e] = q;
                bpk += q;
            }
        }
    }
    lay->bits_per_key = bpk;

    amxw_u32be(b, 2);
    amxw_u32be(b, s->scratch_size);
    if (mp1) {
        amxw_u32be(b, s->evnt_id);
        amxw_u32be(b, 1);
    } else {
        amxw_u16be(b, 0x0101);
    }
    lay->duration = b->len;
    amxw_f32be(b, duration_of(s));
    lay->interval = b->len;
    amxw_f32be(b, interval_of(s));
    lay->root = b->len;
    amxw_u32be(b, s->root_bone_id);
    amxw_u32be(b, s->looping);
    lay->rot_divisor = b->len;
    amxw_u32be(b, s->rot_divisor);
    lay->trans_mult = b->len;
    amxw_f32be(b, s->translation_mult);
    if (!mp1) {
        lay->scale_mult = b->len;
        amxw_f32be(b, s->scale_mult);
    }
    lay->channels = b->len;
    amxw_u32be(b, s->channel_count);
    amxw_u32be(b, 1);
    lay->frames = b->len;
    amxw_u32be(b, s->frames);
    lay->bitmap = b->len;
    for (uint32_t w = 0; w < (s->frames + 31) / 32; w++) {
        uint32_t word = 0;
        for (uint32_t k = 0; k < 32 && 32 * w + k < s->frames; k++) {
            uint32_t f = 32 * w + k;
            if (f == 0 || !s->keyed || s->keyed[f])
                word |= 1u << k;
        }
        amxw_u32be(b, word);
    }
    if (mp1)
        amxw_u32be(b, s->channel_count);
    lay->count_again = b->len;
    amxw_u32be(b, s->channel_count);
    for (uint32_t i = 0; i < s->channel_count; i++) {
        const amxw_mp_v2_channel *c = &s->v2[i];
        lay->desc[i] = b->len;
        if (mp1)
            amxw_u32be(b, c->bone_id);
        else
            amxw_u8(b, (uint8_t)c->bone_id);
        for (int k = 0; k < (mp1 ? 2 : 3); k++) {
            const int32_t *v = keys ? comp_values(c, k) : NULL; /* no keys: absent */
            amxw_u16be(b, v ? (uint16_t)keys : 0);
            if (!v && !(mp1 && k == 0))
                continue;
            for (int e = 0; e < 3; e++) {
                amxw_u16be(b, v ? (uint16_t)(int16_t)v[e] : 0);
                amxw_u8(b, v ? bits[i][k][e] : 0);
            }
        }
    }
    lay->stream = b->len;
    bitw w = { .b = b };
    for (uint32_t j = 1; j <= keys; j++) {
        for (uint32_t i = 0; i < s->channel_count; i++) {
            const amxw_mp_v2_channel *c = &s->v2[i];
            for (int k = 0; k < (mp1 ? 2 : 3); k++) {
                const int32_t *v = comp_values(c, k);
                if (!v)
                    continue;
                if (k == 0)
                    bits_put(&w, c->rot_wneg ? c->rot_wneg[j] != 0 : 0, 1);
                for (int e = 0; e < 3; e++)
                    bits_put(&w, (uint32_t)(v[3 * j + e] - v[3 * (j - 1) + e]), bits[i][k][e]);
            }
        }
    }
    bits_flush(&w);
    lay->stream_bytes = b->len - lay->stream;
}

static void anim_v0(amxw_buf *b, const amxw_mp_anim_spec *s, amxw_mp_anim_layout *lay)
{
    bool mp1 = s->game == 1;
    uint32_t n = s->channel_count;
    amxw_u32be(b, 0);
    lay->duration = b->len;
    amxw_f32be(b, duration_of(s));
    amxw_u32be(b, 0);
    lay->interval = b->len;
    amxw_f32be(b, interval_of(s));
    amxw_u32be(b, 0);
    lay->frames = b->len;
    amxw_u32be(b, s->frames);
    lay->root = b->len;
    amxw_u32be(b, s->root_bone_id);
    lay->slots = b->len;
    amxw_u32be(b, 100);
    uint8_t slot[100];
    memset(slot, 0xFF, sizeof slot);
    for (uint32_t i = 0; i < n; i++) {
        if (s->v0[i].bone_id >= 100)
            die("v0 bone id >= 100");
        slot[s->v0[i].bone_id] = (uint8_t)i;
    }
    amxw_bytes(b, slot, 100);
    /* index lists, indexed by channel: rotation (MP2), translation, scale (MP2) */
    uint32_t blocks[3] = { 0, 0, 0 };
    for (int k = mp1 ? 1 : 0; k < (mp1 ? 2 : 3); k++) {
        lay->list[k] = b->len;
        amxw_u32be(b, n);
        for (uint32_t i = 0; i < n; i++) {
            const float *v = k == 0 ? s->v0[i].rot : k == 1 ? s->v0[i].trans : s->v0[i].scale;
            amxw_u8(b, v ? (uint8_t)blocks[k]++ : 0xFF);
        }
    }
    if (mp1)
        blocks[0] = n;
    static const int order_mp1[] = { 0, 1 }, order_mp2[] = { 2, 0, 1 };
    const int *order = mp1 ? order_mp1 : order_mp2;
    for (int o = 0; o < (mp1 ? 2 : 3); o++) {
        int k = order[o];
        lay->block[k] = b->len;
        amxw_u32be(b, blocks[k] * s->frames);
        for (uint32_t i = 0; i < n; i++) {
            const float *v = k == 0 ? s->v0[i].rot : k == 1 ? s->v0[i].trans : s->v0[i].scale;
            if (!v && !(mp1 && k == 0))
                continue;
            int m = k == 0 ? 4 : 3;
            for (uint32_t f = 0; f < s->frames; f++)
                for (int e = 0; e < m; e++)
                    amxw_f32be(b, v ? v[(size_t)m * f + (size_t)e] : (e == 0 ? 1.0f : 0.0f));
        }
    }
    if (mp1) {
        lay->evnt = b->len;
        amxw_u32be(b, s->evnt_id);
    }
}

void amxw_mp_anim(amxw_buf *b, const amxw_mp_anim_spec *s, amxw_mp_anim_layout *lay)
{
    amxw_mp_anim_layout scratch;
    if (!lay)
        lay = &scratch;
    memset(lay, 0, sizeof *lay);
    if (s->channel_count > AMXW_MP_MAX_CHANNELS)
        die("too many channels");
    if (s->format == 2)
        anim_v2(b, s, lay);
    else
        anim_v0(b, s, lay);
}

/* ---- CINF ---- */

void amxw_mp_cinf(amxw_buf *b, const amxw_mp_cinf_spec *s, amxw_mp_cinf_layout *lay)
{
    amxw_mp_cinf_layout scratch;
    if (!lay)
        lay = &scratch;
    memset(lay, 0, sizeof *lay);
    if (s->bone_count > AMXW_MP_MAX_CHANNELS)
        die("too many bones");
    amxw_u32be(b, s->bone_count);
    for (uint32_t i = 0; i < s->bone_count; i++) {
        const amxw_mp_bone *bo = &s->bones[i];
        lay->bone[i] = b->len;
        amxw_u32be(b, bo->id);
        amxw_u32be(b, bo->parent);
        for (int k = 0; k < 3; k++)
            amxw_f32be(b, bo->pos[k]);
        if (s->game == 2) {
            for (int k = 0; k < 4; k++)
                amxw_f32be(b, bo->rot[k]);
            for (int k = 0; k < 4; k++)
                amxw_f32be(b, bo->lrot[k]);
        }
        lay->linked[i] = b->len;
        if (bo->linked) {
            amxw_u32be(b, bo->linked_count);
            for (uint32_t k = 0; k < bo->linked_count; k++)
                amxw_u32be(b, bo->linked[k]);
            continue;
        }
        uint32_t ids[AMXW_MP_MAX_CHANNELS + 1], n = 0;
        if (bo->parent != 97)
            ids[n++] = bo->parent;
        for (uint32_t j = 0; j < s->bone_count; j++)
            if (s->bones[j].parent == bo->id && j != i)
                ids[n++] = s->bones[j].id;
        amxw_u32be(b, n);
        for (uint32_t k = 0; k < n; k++)
            amxw_u32be(b, ids[k]);
    }
    lay->build = b->len;
    if (s->build_order) {
        amxw_u32be(b, s->build_count);
        for (uint32_t k = 0; k < s->build_count; k++)
            amxw_u32be(b, s->build_order[k]);
    } else {
        amxw_u32be(b, s->bone_count);
        for (uint32_t k = 0; k < s->bone_count; k++)
            amxw_u32be(b, s->bones[k].id);
    }
    lay->names = b->len;
    amxw_u32be(b, s->names ? s->name_count : 0);
    for (uint32_t k = 0; s->names && k < s->name_count; k++) {
        amxw_cstr(b, s->names[k]);
        amxw_u32be(b, s->name_ids[k]);
    }
    lay->end = b->len;
}

/* ---- ANCS ---- */

static void meta_anim(amxw_buf *b, const amxw_mp_meta *m)
{
    amxw_u32be(b, m->type);
    switch (m->type) {
    case 0:
        amxw_u32be(b, m->anim_id);
        amxw_u32be(b, m->anim_idx);
        amxw_cstr(b, m->name ? m->name : "");
        amxw_f32be(b, 1.0f);
        amxw_u32be(b, 1);
        break;
    case 1:
    case 2:
        if (m->child_count != 2)
            die("a blend has two children");
        meta_anim(b, &m->children[0]);
        meta_anim(b, &m->children[1]);
        amxw_f32be(b, 0.5f);
        amxw_u8(b, 0);
        break;
    case 3:
    case 4:
        amxw_u32be(b, m->child_count);
        for (uint32_t i = 0; i < m->child_count; i++) {
            meta_anim(b, &m->children[i]);
            if (m->type == 3)
                amxw_u32be(b, 100 / m->child_count);
        }
        break;
    default:
        amxw_u32be(b, 0); /* an unknown type, for broken variants */
        break;
    }
}

static void id_list(amxw_buf *b, uint32_t n, uint32_t base)
{
    amxw_u32be(b, n);
    for (uint32_t i = 0; i < n; i++)
        amxw_u32be(b, base + i);
}

static void character(amxw_buf *b, int game, const amxw_mp_character *c, amxw_mp_ancs_layout *lay,
                      uint32_t i)
{
    bool mp1 = game == 1;
    uint16_t version = c->version ? c->version : (mp1 ? 6 : 10);
    if (i < 8)
        lay->chars[i] = b->len;
    amxw_u32be(b, c->idx);
    amxw_u16be(b, version);
    amxw_cstr(b, c->name);
    amxw_u32be(b, c->cmdl);
    amxw_u32be(b, c->cskr);
    amxw_u32be(b, c->cinf);
    amxw_u32be(b, c->anim_names);
    for (uint32_t k = 0; k < c->anim_names; k++) {
        amxw_u32be(b, k);
        if (mp1)
            amxw_cstr(b, "");
        char name[32];
        snprintf(name, sizeof name, "anim_%u", k);
        amxw_cstr(b, name);
    }
    if (i < 8)
        lay->pas[i] = b->len;
    amxw_u32be(b, AMXW_FOURCC('P', 'A', 'S', '4'));
    amxw_u32be(b, c->pas_states);
    amxw_u32be(b, 0);
    for (uint32_t k = 0; k < c->pas_states; k++) {
        amxw_u32be(b, k);
        amxw_u32be(b, 2); /* parameters: a float and a bool */
        amxw_u32be(b, 2); /* anim infos */
        amxw_u32be(b, 2);
        amxw_u32be(b, 0);
        amxw_f32be(b, 1.0f);
        amxw_f32be(b, 0.0f);
        amxw_f32be(b, 1.0f);
        amxw_u32be(b, 3);
        amxw_u32be(b, 0);
        amxw_f32be(b, 1.0f);
        amxw_u8(b, 0);
        amxw_u8(b, 1);
        for (uint32_t a = 0; a < 2; a++) {
            amxw_u32be(b, a);
            amxw_f32be(b, 0.5f);
            amxw_u8(b, 1);
        }
    }
    int lists = 3 + (version > 5) + !mp1;
    for (int k = 0; k < lists; k++)
        id_list(b, c->particles, 0x1000u * (uint32_t)(k + 1));
    amxw_u32be(b, 0);
    if (!mp1)
        amxw_u32be(b, 0);
    if (version > 1) {
        amxw_u32be(b, c->aabbs);
        for (uint32_t k = 0; k < c->aabbs; k++) {
            amxw_cstr(b, "bounds");
            for (int e = 0; e < 6; e++)
                amxw_f32be(b, (float)e);
        }
    }
    if (version > 2) {
        amxw_u32be(b, c->effects);
        for (uint32_t k = 0; k < c->effects; k++) {
            amxw_cstr(b, "effect");
            amxw_u32be(b, 1);
            amxw_cstr(b, "component");
            amxw_u32be(b, AMXW_FOURCC('P', 'A', 'R', 'T'));
            amxw_u32be(b, 0xABCD0000u + k);
            if (mp1)
                amxw_cstr(b, "locator");
            else
                amxw_u32be(b, 0);
            amxw_f32be(b, 1.0f);
            amxw_u32be(b, 0);
            amxw_u32be(b, 0);
        }
    }
    if (version > 3) {
        amxw_u32be(b, 0xFFFFFFFFu);
        amxw_u32be(b, 0xFFFFFFFFu);
    }
    if (version > 4)
        id_list(b, 2, 0);
    if (!mp1) {
        amxw_u32be(b, 0);
        amxw_u8(b, 0);
        amxw_u32be(b, 1);
        amxw_zeros(b, 28);
    }
}

void amxw_mp_ancs(amxw_buf *b, const amxw_mp_ancs_spec *s, amxw_mp_ancs_layout *lay)
{
    amxw_mp_ancs_layout scratch;
    if (!lay)
        lay = &scratch;
    memset(lay, 0, sizeof *lay);
    amxw_u32be(b, 0x00010001u);
    amxw_u32be(b, s->char_count);
    for (uint32_t i = 0; i < s->char_count; i++)
        character(b, s->game, &s->chars[i], lay, i);
    lay->set = b->len;
    uint16_t version = s->set_version ? s->set_version : 4;
    amxw_u16be(b, version);
    amxw_u32be(b, s->anim_count);
    for (uint32_t i = 0; i < s->anim_count; i++) {
        amxw_cstr(b, s->anims[i].name);
        if (i < 16)
            lay->anims_meta[i] = b->len;
        meta_anim(b, &s->anims[i].meta);
    }
    amxw_u32be(b, s->transition ? 1 : 0);
    if (s->transition) {
        amxw_u32be(b, 0);
        amxw_u32be(b, 0);
        amxw_u32be(b, 1);
        amxw_u32be(b, 0); /* MetaTrans 0: a meta-animation */
        meta_anim(b, s->transition);
    }
    /* default transition: Trans */
    amxw_u32be(b, 1);
    amxw_f32be(b, 0.25f);
    amxw_u32be(b, 0);
    amxw_u8(b, 1);
    amxw_u8(b, 0);
    amxw_u32be(b, 0);
    if (version > 1) {
        amxw_u32be(b, 1);
        amxw_u32be(b, 0);
        amxw_f32be(b, 0.1f);
        amxw_f32be(b, 0.2f);
        amxw_f32be(b, 0.3f);
        amxw_f32be(b, 0.4f);
    }
    if (version > 2) {
        amxw_u32be(b, s->half_transitions);
        for (uint32_t i = 0; i < s->half_transitions; i++) {
            amxw_u32be(b, i);
            amxw_u32be(b, 3); /* Snap */
        }
    }
    if (s->game == 1 && version > 3) {
        amxw_u32be(b, s->resource_count);
        for (uint32_t i = 0; i < s->resource_count; i++) {
            amxw_u32be(b, s->resources[i]);
            amxw_u32be(b, s->resources[i] + 1);
        }
    }
    if (s->game == 2)
        amxw_u32be(b, 0); /* event data: not read by the decoder */
    lay->end = b->len;
}

/* ---- PAK ---- */

static void pad32(amxw_buf *b)
{
    while (b->len % 32)
        amxw_u8(b, 0);
}

void amxw_mp_pak(amxw_buf *b, const amxw_mp_resource *res, uint32_t n, amxw_mp_pak_layout *lay)
{
    amxw_mp_pak_layout scratch;
    if (!lay)
        lay = &scratch;
    memset(lay, 0, sizeof *lay);
    if (n > 32)
        die("too many resources");
    amxw_u32be(b, 0x00030005u);
    amxw_u32be(b, 0);
    lay->named = b->len;
    uint32_t named = 0;
    for (uint32_t i = 0; i < n; i++)
        named += res[i].name != NULL;
    amxw_u32be(b, named);
    for (uint32_t i = 0; i < n; i++) {
        if (!res[i].name)
            continue;
        amxw_u32be(b, res[i].type);
        amxw_u32be(b, res[i].id);
        amxw_u32be(b, (uint32_t)strlen(res[i].name));
        amxw_bytes(b, res[i].name, strlen(res[i].name));
    }
    lay->res_count = b->len;
    amxw_u32be(b, n);
    for (uint32_t i = 0; i < n; i++) {
        lay->record[i] = b->len;
        amxw_zeros(b, 20);
    }
    pad32(b);
    for (uint32_t i = 0; i < n; i++) {
        size_t at = b->len;
        if (res[i].compress) {
            uLongf cap = compressBound((uLong)res[i].len);
            uint8_t *z = malloc(cap ? cap : 1);
            if (!z || compress2(z, &cap, res[i].data, (uLong)res[i].len, 9) != Z_OK)
                die("zlib compress failed");
            amxw_u32be(b, (uint32_t)res[i].len);
            amxw_bytes(b, z, cap);
            free(z);
        } else {
            amxw_bytes(b, res[i].data, res[i].len);
        }
        pad32(b);
        lay->data[i] = at;
        lay->size[i] = b->len - at;
        size_t r = lay->record[i];
        amxw_mp_put_u32(b, r, res[i].compress ? 1 : 0);
        amxw_mp_put_u32(b, r + 4, res[i].type);
        amxw_mp_put_u32(b, r + 8, res[i].id);
        amxw_mp_put_u32(b, r + 12, (uint32_t)lay->size[i]);
        amxw_mp_put_u32(b, r + 16, (uint32_t)at);
    }
}
