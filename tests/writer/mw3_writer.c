/* Test-side writer of MechWarrior 3 anim.zbd files; see mw3_writer.h. */
#include "mw3_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNATURE 0x08170616u
#define VERSION 39u
#define GRAVITY (-9.8f)
#define DEF_SIZE 316u
#define SEQ_SIZE 64u
#define HEADER_SIZE 12u

static const uint32_t count_at[AMXW_MW3_T_COUNT] = { 265, 266, 267, 268, 269, 270, 272, 274, 264 };
static const uint32_t ptr_at[AMXW_MW3_T_COUNT] = { 276, 280, 284, 288, 292, 296, 304, 308, 196 };

static void put16(uint8_t *p, size_t o, uint32_t v)
{
    p[o] = (uint8_t)v;
    p[o + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, size_t o, uint32_t v)
{
    p[o] = (uint8_t)v;
    p[o + 1] = (uint8_t)(v >> 8);
    p[o + 2] = (uint8_t)(v >> 16);
    p[o + 3] = (uint8_t)(v >> 24);
}

static void putf(uint8_t *p, size_t o, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(p, o, u);
}

/* Copies s (up to n - 1 bytes) and its NUL into p[0..n); then garbage after the NUL. */
static void put_name(uint8_t *p, size_t n, const char *s, const char *garbage)
{
    size_t k = s ? strlen(s) : 0;
    if (k > n)
        k = n;
    if (k)
        memcpy(p, s, k);
    if (k < n)
        p[k] = 0;
    if (garbage && k + 1 < n) {
        size_t g = strlen(garbage);
        if (g > n - k - 1)
            g = n - k - 1;
        memcpy(p + k + 1, garbage, g);
    }
}

/* A node name as the game writes it: into a field pre-filled with "Default_node_name". */
static void put_node_name(uint8_t *p, const char *s)
{
    static const char fill[] = "Default_node_name";
    memset(p, 0, 32);
    memcpy(p, fill, sizeof fill);
    put_name(p, 32, s, NULL);
}

/* Data bytes of a type as the game defines them (SIZE of the MW readers). */
static uint32_t type_size(const amxw_mw3_event *ev)
{
    switch (ev->type) {
    case 1: case 3: case 8: return 16;
    case 2: return 60;
    case 4: return 120;
    case 5: return 100;
    case 6: case 17: case 30: return 8;
    case 7: case 9: return 20;
    case 10: return 320;
    case 11: return 132;
    case 12: return 24 + ev->value * (12 + 76);
    case 13: case 31: case 33: return 12;
    case 14: case 41: return 24;
    case 15: case 16: case 35: case 39: return 4;
    case 18: return 76;
    case 19: case 24: case 28: return 68;
    case 20: case 22: case 23: case 25: case 26: case 27: return 36;
    case 21: return 96;
    case 36: return 52;
    case 37: return 100;
    case 42: return 580;
    default: return 0;
    }
}

uint32_t amxw_mw3_event_size(const amxw_mw3_event *ev)
{
    return HEADER_SIZE + (ev->data_size > 0 ? (uint32_t)ev->data_size : type_size(ev));
}

static void write_event(amxw_buf *b, const amxw_mw3_event *ev)
{
    uint32_t n = ev->data_size > 0 ? (uint32_t)ev->data_size : type_size(ev);
    uint8_t *d = calloc(n ? n : 1, 1);
    if (!d)
        abort();
    if (ev->data_size <= 0) {
        uint32_t a = (uint32_t)ev->a, bb = (uint32_t)ev->b, c = (uint32_t)ev->c;
        switch (ev->type) {
        case 1: case 3:
            put16(d, 0, a);
            put16(d, 2, bb);
            break;
        case 2:
            put_name(d, 32, ev->name, NULL);
            put32(d, 32, a);
            put32(d, 36, bb ? 2 : 0);
            put32(d, 40, 1);
            put32(d, 44, bb);
            break;
        case 4:
            put_name(d, 32, ev->name, NULL);
            put32(d, 32, a);
            put32(d, 36, bb ? 2 : 0);
            put32(d, 40, 1);
            put32(d, 64, bb);
            break;
        case 5:
            put_name(d, 32, ev->name, NULL);
            put32(d, 32, a);
            break;
        case 6:
            put32(d, 0, ev->value);
            put16(d, 4, a);
            break;
        case 7:
            put32(d, 0, ev->value);
            putf(d, 4, 1.0f);
            putf(d, 8, 2.0f);
            putf(d, 12, 3.0f);
            put16(d, 16, a);
            put16(d, 18, bb);
            break;
        case 8:
            putf(d, 0, 1.0f);
            putf(d, 4, 1.0f);
            putf(d, 8, 1.0f);
            put32(d, 12, a);
            break;
        case 9:
            put16(d, 16, a);
            put16(d, 18, bb);
            break;
        case 10:
            put16(d, 4, a);
            put16(d, 228, 0xFFFF);
            put16(d, 268, 0xFFFF);
            put16(d, 308, 0xFFFF);
            break;
        case 11: case 14: case 20: case 21:
            put32(d, ev->type == 14 ? 0 : 4, a);
            break;
        case 12:
            put32(d, 0, a);
            put32(d, 4, ev->value);
            for (uint32_t i = 0; i < ev->value; i++) {
                size_t o = 24 + (size_t)i * 88;
                put32(d, o, 1);
                putf(d, o + 4, (float)i);
                putf(d, o + 8, (float)i + 1.0f);
            }
            break;
        case 13:
            put16(d, 0, 1);
            put16(d, 2, 1);
            putf(d, 4, 0.5f);
            put16(d, 8, a);
            break;
        case 15: case 16:
            put16(d, 0, a);
            put16(d, 2, bb);
            break;
        case 17:
            put32(d, 0, 1);
            put16(d, 4, a);
            break;
        case 18:
            put16(d, 4, a);
            put16(d, 6, bb);
            put16(d, 8, c);
            break;
        case 19:
            put32(d, 0, (bb ? 1u : 0u) | (c ? 0x40u : 0u));
            put_name(d + 4, 32, ev->name, NULL);
            put16(d, 38, ev->wait ? a : 0xFFFF);
            put16(d, 40, bb);
            put16(d, 42, c);
            break;
        case 22: case 23:
            put_name(d, 32, ev->name, NULL);
            put32(d, 32, 0xFFFFFFFFu);
            break;
        case 24:
            put_name(d, 32, ev->name, NULL);
            put16(d, 32, a);
            put16(d, 34, (c ? 1u : 0u) | (ev->wait ? 0x10u : 0u));
            put16(d, 38, ev->wait ? bb : 0xFFFF);
            put16(d, 40, c);
            break;
        case 25: case 26: case 27:
            put_name(d, 32, ev->name, NULL);
            break;
        case 30:
            put32(d, 0, 1);
            put32(d, 4, ev->value);
            break;
        case 31: case 33:
            put32(d, 0, ev->value ? ev->value : 1);
            put32(d, 4, a);
            putf(d, 8, 0.5f);
            break;
        case 35:
            put32(d, 0, ev->value);
            break;
        case 41:
            put_name(d, 10, ev->name, NULL);
            put16(d, 10, a);
            break;
        case 42:
            put_name(d, 32, ev->name, NULL);
            put32(d, 32, a);
            put32(d, 36, 4u | (bb ? 2u : 0u));
            put32(d, 40, bb);
            put32(d, 44, 1);
            break;
        default:
            break;
        }
    }
    uint8_t h[HEADER_SIZE] = { 0 };
    h[0] = ev->type;
    h[1] = ev->start_offset ? ev->start_offset : 1;
    put16(h, 2, ev->pad);
    put32(h, 4, (uint32_t)((int64_t)HEADER_SIZE + n + ev->size_adjust));
    putf(h, 8, ev->start_time);
    amxw_bytes(b, h, sizeof h);
    amxw_bytes(b, d, n);
    free(d);
}

static uint32_t events_size(const amxw_mw3_event *ev, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += amxw_mw3_event_size(&ev[i]);
    return s;
}

static void seq_header(uint8_t *p, const char *name, uint8_t state, uint32_t ptr, uint32_t size)
{
    memset(p, 0, SEQ_SIZE);
    put_name(p, 32, name, NULL);
    p[32] = state;
    p[33] = state;
    put32(p, 56, ptr);
    put32(p, 60, size);
}

static void write_def(amxw_buf *b, const amxw_mw3_def *def, uint32_t di, amxw_mw3_layout *lay)
{
    bool rec = lay && di < AMXW_MW3_MAX_DEFS;
    uint32_t base = 0x01000000u + di * 0x10000u;
    uint32_t names[AMXW_MW3_T_COUNT] = {
        def->object_count, def->node_count, def->light_count, def->puffer_count,
        def->dynamic_sound_count, def->static_sound_count, def->apc_count, def->anim_ref_count,
        def->sequence_count,
    };
    uint32_t count[AMXW_MW3_T_COUNT];
    for (int t = 0; t < AMXW_MW3_T_COUNT; t++)
        count[t] = t <= AMXW_MW3_T_SSOUNDS ? (names[t] ? names[t] + 1 : 0) : names[t];

    uint8_t p[DEF_SIZE] = { 0 };
    put_name(p, 32, def->anim_name, def->anim_name_garbage);
    put_name(p + 32, 32, def->name, NULL);
    uint32_t anim_ptr = base + 0x10;
    put32(p, 64, anim_ptr);
    put_name(p + 68, 32, def->anim_root, def->anim_root_garbage);
    bool same = def->name && def->anim_root && strcmp(def->name, def->anim_root) == 0;
    put32(p, 100, same ? anim_ptr : anim_ptr + 0x40);
    put32(p, 148, def->flags);
    p[153] = def->activation;
    p[154] = 4;
    p[155] = 2;
    putf(p, 156, def->range_min);
    putf(p, 160, def->range_max);
    putf(p, 164, (def->flags & (1u << 5)) ? def->reset_time : -1.0f);
    putf(p, 172, def->health);
    putf(p, 176, def->health);
    uint32_t reset_size = events_size(def->reset_events, def->reset_event_count);
    uint32_t reset_ptr = reset_size ? base + 0x8000 : 0;
    seq_header(p + 200, "RESET_SEQUENCE", 0, reset_ptr ^ def->reset_copy_ptr_xor,
               (uint32_t)((int64_t)reset_size + def->reset_copy_size_adjust));
    for (int t = 0; t < AMXW_MW3_T_COUNT; t++) {
        p[count_at[t]] = (uint8_t)((int32_t)count[t] + def->count_adjust[t]);
        uint32_t ptr = count[t] ? base + 0x100u * (uint32_t)(t + 1) : 0;
        if (def->wrong_ptr & (1u << t))
            ptr = ptr ? 0 : base + 0x100u * (uint32_t)(t + 1);
        put32(p, ptr_at[t], ptr);
    }
    p[273] = def->apc_min;
    if (rec)
        lay->def[di] = b->len;
    amxw_bytes(b, p, DEF_SIZE);

    /* Node-like tables. */
    static const uint32_t recsz[6] = { 96, 40, 44, 44, 44, 36 };
    const char *const *tables[6] = { def->objects, def->nodes, def->lights, def->puffers,
                                     def->dynamic_sounds, def->static_sounds };
    for (int t = 0; t <= AMXW_MW3_T_SSOUNDS; t++) {
        if (!count[t])
            continue;
        if (rec)
            lay->table[di][t] = b->len;
        amxw_zeros(b, recsz[t]);
        for (uint32_t i = 0; i < names[t]; i++) {
            uint8_t e[96] = { 0 };
            uint32_t ptr = base + 0x1000u * (uint32_t)(t + 1) + i * 8u;
            switch (t) {
            case AMXW_MW3_T_OBJECTS:
                put_node_name(e, tables[t][i]);
                put32(e, 36, ptr);
                break;
            case AMXW_MW3_T_NODES:
                put_node_name(e, tables[t][i]);
                put32(e, 36, ptr);
                break;
            case AMXW_MW3_T_PUFFERS:
                put_name(e, 32, tables[t][i], NULL);
                put32(e, 32, (i + 1u) << 24);
                put32(e, 36, ptr);
                break;
            case AMXW_MW3_T_SSOUNDS:
                put_name(e, 32, tables[t][i], def->static_sound_garbage);
                break;
            default: /* lights, dynamic sounds */
                put_node_name(e, tables[t][i]);
                put32(e, 36, ptr);
                break;
            }
            amxw_bytes(b, e, recsz[t]);
        }
    }
    if (def->apc_count && rec)
        lay->table[di][AMXW_MW3_T_APCS] = b->len;
    for (uint32_t i = 0; i < def->apc_count; i++) {
        const amxw_mw3_apc *a = &def->apcs[i];
        uint8_t e[48] = { 0 };
        put32(e, 0, a->optional);
        put32(e, 4, a->type);
        size_t name_at = a->type == 1 ? 8 : 12;
        if (a->raw_name)
            memcpy(e + name_at, a->raw_name, 32);
        else
            put_name(e + name_at, 32, a->name, NULL);
        if (a->type != 1) {
            put32(e, 8, a->active);
            put32(e, 44, base + 0x2000u + i * 4u);
        }
        amxw_bytes(b, e, 48);
    }
    if (def->anim_ref_count && rec)
        lay->table[di][AMXW_MW3_T_AREFS] = b->len;
    for (uint32_t i = 0; i < def->anim_ref_count; i++) {
        const amxw_mw3_anim_ref *r = &def->anim_refs[i];
        uint8_t e[72] = { 0 };
        if (r->type == 1) {
            put_name(e, 32, r->name, r->garbage);
            put_name(e + 32, 32, r->name2, NULL);
        } else {
            put_name(e, 64, r->name, r->garbage);
        }
        put32(e, 64, r->type);
        amxw_bytes(b, e, 72);
    }

    /* Reset sequence, then the sequences. */
    uint8_t h[SEQ_SIZE];
    seq_header(h, "RESET_SEQUENCE", 0, reset_ptr, reset_size);
    if (rec)
        lay->reset[di] = b->len;
    amxw_bytes(b, h, SEQ_SIZE);
    for (uint32_t e = 0; e < def->reset_event_count; e++) {
        if (rec && e < AMXW_MW3_MAX_EVENTS)
            lay->reset_event[di][e] = b->len;
        write_event(b, &def->reset_events[e]);
    }
    for (uint32_t s = 0; s < def->sequence_count; s++) {
        const amxw_mw3_sequence *sq = &def->sequences[s];
        uint32_t size = events_size(sq->events, sq->event_count);
        seq_header(h, sq->name, sq->seq_state, base + 0x9000u + s * 0x100u,
                   (uint32_t)((int64_t)size + sq->size_adjust));
        bool rs = rec && s < AMXW_MW3_MAX_SEQS;
        if (rs)
            lay->seq[di][s] = b->len;
        if (rec && s == 0)
            lay->table[di][AMXW_MW3_T_SEQS] = b->len;
        amxw_bytes(b, h, SEQ_SIZE);
        for (uint32_t e = 0; e < sq->event_count; e++) {
            if (rs && e < AMXW_MW3_MAX_EVENTS)
                lay->event[di][s][e] = b->len;
            write_event(b, &sq->events[e]);
        }
    }
}

void amxw_mw3_ex(amxw_buf *b, const amxw_mw3_spec *spec, amxw_mw3_layout *lay)
{
    if (lay)
        memset(lay, 0, sizeof *lay);
    amxw_u32le(b, SIGNATURE);
    amxw_u32le(b, VERSION);
    amxw_u32le(b, spec->toc_count);
    for (uint32_t i = 0; i < spec->toc_count; i++) {
        uint8_t e[84] = { 0 };
        put_name(e, 80, spec->toc[i], i == 0 ? spec->toc_garbage : NULL);
        put32(e, 80, 0x37000000u + i * 3600u);
        amxw_bytes(b, e, sizeof e);
    }
    uint8_t info[68] = { 0 };
    put16(info, 10, (uint32_t)((int32_t)spec->def_count + 1 + spec->def_count_adjust));
    put32(info, 12, 0x03F5000Cu);
    put32(info, 24, 0x03F40000u);
    putf(info, 28, GRAVITY);
    put32(info, 60, 1);
    if (lay)
        lay->info = b->len;
    amxw_bytes(b, info, sizeof info);
    uint8_t dummy[DEF_SIZE + SEQ_SIZE] = { 0 };
    dummy[153] = 3;
    if (lay)
        lay->dummy = b->len;
    amxw_bytes(b, dummy, sizeof dummy);
    for (uint32_t i = 0; i < spec->def_count; i++)
        write_def(b, &spec->defs[i], i, lay);
    if (lay)
        lay->end = b->len;
    for (uint32_t i = 0; i < spec->trailing_bytes; i++)
        amxw_u8(b, 0xAB);
}

void amxw_mw3(amxw_buf *b, const amxw_mw3_spec *spec) { amxw_mw3_ex(b, spec, NULL); }

/* ---- the demo file ---- */

typedef struct simple_def {
    char anim_name[32], name[32], root[32], prev[32];
    char node0[32], node1[32], light[32], sound[32], apc[32];
    const char *nodes[2], *lights[1], *sounds[1];
    amxw_mw3_event reset[1], start[4], idle[3];
    amxw_mw3_sequence seqs[2];
    amxw_mw3_apc apcs[1];
    amxw_mw3_anim_ref refs[1];
} simple_def;

void amxw_mw3_simple(amxw_buf *b, uint32_t defs, uint32_t seed)
{
    simple_def *s = calloc(defs ? defs : 1, sizeof *s);
    amxw_mw3_def *d = calloc(defs ? defs : 1, sizeof *d);
    if (!s || !d)
        abort();
    for (uint32_t i = 0; i < defs; i++) {
        simple_def *x = &s[i];
        uint32_t r = seed * 2654435761u + i * 40503u;
        snprintf(x->anim_name, sizeof x->anim_name, "anim_%02u", i % 100);
        snprintf(x->name, sizeof x->name, "part_%02u.flt", i % 100);
        snprintf(x->root, sizeof x->root, "mech_root_%02u", i % 100);
        snprintf(x->node0, sizeof x->node0, "mech_root_%02u", i % 100);
        snprintf(x->node1, sizeof x->node1, "hatch_%02u", i % 100);
        snprintf(x->light, sizeof x->light, "beacon_%02u", i % 100);
        snprintf(x->sound, sizeof x->sound, "hatch_open_%u", r % 7);
        x->nodes[0] = x->node0;
        x->nodes[1] = x->node1;
        x->lights[0] = x->light;
        x->sounds[0] = x->sound;
        x->reset[0] = (amxw_mw3_event){ .type = 6, .value = 0, .a = 2 };
        x->start[0] = (amxw_mw3_event){ .type = 6, .value = 1, .a = 2 };
        x->start[1] = (amxw_mw3_event){ .type = 1, .a = 1, .b = 2,
                                        .start_time = (float)(r % 5) * 0.25f };
        x->start[2] = (amxw_mw3_event){ .type = 4, .name = x->light, .a = 1, .b = 1 };
        x->start[3] = (amxw_mw3_event){ .type = 22, .name = "IDLE", .start_offset = 2 };
        x->idle[0] = (amxw_mw3_event){ .type = 30, .value = 1 + r % 4 };
        x->idle[1] = (amxw_mw3_event){ .type = 7, .a = 2, .value = 1, .start_time = 0.5f };
        x->idle[2] = (amxw_mw3_event){ .type = 35, .value = i };
        x->seqs[0] = (amxw_mw3_sequence){ .name = "START", .seq_state = 0, .events = x->start,
                                          .event_count = 4 };
        x->seqs[1] = (amxw_mw3_sequence){ .name = "IDLE", .seq_state = 3, .events = x->idle,
                                          .event_count = 3 };
        x->apcs[0] = (amxw_mw3_apc){ .type = 2, .active = 1, .name = x->node1 };
        amxw_mw3_def *def = &d[i];
        *def = (amxw_mw3_def){
            .anim_name = x->anim_name, .name = x->name, .anim_root = x->root,
            .flags = (1u << 4) | (1u << 16), .activation = i == 0 ? 4 : 3,
            .health = (float)(r % 200), .nodes = x->nodes, .node_count = 2,
            .lights = x->lights, .light_count = 1, .static_sounds = x->sounds,
            .static_sound_count = 1, .apcs = x->apcs, .apc_count = 1, .apc_min = 1,
            .reset_events = x->reset, .reset_event_count = 1, .sequences = x->seqs,
            .sequence_count = 2,
        };
        if (i > 0) {
            /* Definition i calls definition i - 1 (one anim ref per CALL_ANIMATION). */
            snprintf(x->prev, sizeof x->prev, "anim_%02u", (i - 1) % 100);
            x->idle[2] = (amxw_mw3_event){ .type = 24, .name = x->prev, .c = 1 };
            x->refs[0] = (amxw_mw3_anim_ref){ .name = x->prev };
            def->anim_refs = x->refs;
            def->anim_ref_count = 1;
            def->flags = 1u << 16;
        }
    }
    static const char *const toc[] = { "..\\data\\common\\zrdr\\commonAnim.zrd",
                                       "..\\data\\mechs\\zrdr\\mechAnim.zrd" };
    amxw_mw3_spec spec = { .toc = toc, .toc_count = 2, .defs = d, .def_count = defs };
    amxw_mw3(b, &spec);
    free(d);
    free(s);
}
