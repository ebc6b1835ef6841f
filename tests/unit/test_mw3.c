/* Unit tests for the MechWarrior 3 anim.zbd decoder (lib/format/mw3.c) and its writer. */
#include "test.h"
#include "animidx/mw3.h"
#include "buf.h"
#include "check_asset.h"
#include "mw3_writer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static amx_asset *decode_as(const uint8_t *p, size_t n, amx_format fmt)
{
    amx_decode_opts o = { .format = fmt };
    return test_decode(p, n, &o);
}

static amx_asset *decode(const uint8_t *p, size_t n) { return decode_as(p, n, AMX_FMT_UNKNOWN); }

/* Asserts exactly one finding, with this code at this offset. */
#define CHECK_ONLY(a, code, off) \
    do { \
        CHECK_FINDING(a, code, off); \
        CHECK_EQ((a)->finding_count, 1); \
        if ((a)->finding_count != 1) \
            test_print_findings(a); \
    } while (0)

static void put_u8(amxw_buf *b, size_t at, uint8_t v) { b->data[at] = v; }
static void put_u32(amxw_buf *b, size_t at, uint32_t v) { amxw_put_u32le(b, at, v); }

static void put_f32(amxw_buf *b, size_t at, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(b, at, u);
}

/* ---- the sample: two definitions, every table kind, APCs of all types, many events ---- */

enum { EV_OPEN = 14, EV_SHUT = 4 };

typedef struct sample {
    amxw_mw3_spec spec;
    amxw_mw3_def defs[2];
    amxw_mw3_apc apcs[3];
    amxw_mw3_anim_ref refs[2];
    amxw_mw3_event reset[2];
    amxw_mw3_event open[EV_OPEN];
    amxw_mw3_event shut[EV_SHUT];
    amxw_mw3_event close[1];
    amxw_mw3_sequence seqs0[2];
    amxw_mw3_sequence seqs1[1];
} sample;

static const char *const toc[] = { "..\\data\\common\\zrdr\\commonAnim.zrd",
                                   "..\\data\\c1\\zrdr\\c1Anim.zrd" };
static const char *const objects[] = { "door_frame", "door_panel" };
static const char *const nodes[] = { "door_panel", "door_hinge", "a_very_long_node_name_01" };
static const char *const lights[] = { "door_light" };
static const char *const puffers[] = { "steam" };
static const char *const dsounds[] = { "door_hum" };
static const char *const ssounds[] = { "door_creak", "door_slam" };
static const char *const nodes1[] = { "door_panel" };

static void sample_init(sample *s)
{
    memset(s, 0, sizeof *s);
    s->apcs[0] = (amxw_mw3_apc){ .type = 1, .name = "door_close" };
    s->apcs[1] = (amxw_mw3_apc){ .optional = 1, .type = 2, .active = 1, .name = "door_panel" };
    s->apcs[2] = (amxw_mw3_apc){ .type = 3, .name = "door_frame" };
    s->refs[0] = (amxw_mw3_anim_ref){ .name = "door_close", .garbage = "junk" };
    s->refs[1] = (amxw_mw3_anim_ref){ .name = "door_close", .name2 = "door_panel", .type = 1 };
    s->reset[0] = (amxw_mw3_event){ .type = 6, .value = 0, .a = 1 };
    s->reset[1] = (amxw_mw3_event){ .type = 4, .name = "door_light", .a = 1 };
    int k = 0;
    s->open[k++] = (amxw_mw3_event){ .type = 1, .a = 1, .b = 2 };                    /* 0 */
    s->open[k++] = (amxw_mw3_event){ .type = 4, .name = "door_light", .a = 1,
                                     .b = -200, .start_time = 0.5f };                 /* 1 */
    s->open[k++] = (amxw_mw3_event){ .type = 6, .value = 1, .a = 1 };                /* 2 */
    s->open[k++] = (amxw_mw3_event){ .type = 7, .a = 1, .b = 2, .start_offset = 2,
                                     .start_time = 1.25f };                           /* 3 */
    s->open[k++] = (amxw_mw3_event){ .type = 24, .name = "door_close", .c = 3, .wait = true,
                                     .b = 0 };                                        /* 4 */
    s->open[k++] = (amxw_mw3_event){ .type = 22, .name = "SHUT", .start_offset = 3,
                                     .start_time = 2.0f };                            /* 5 */
    s->open[k++] = (amxw_mw3_event){ .type = 30, .value = 3 };                       /* 6 */
    s->open[k++] = (amxw_mw3_event){ .type = 31, .value = 1 };                       /* 7 */
    s->open[k++] = (amxw_mw3_event){ .type = 2, .name = "door_hum", .a = 1, .b = 3 }; /* 8 */
    s->open[k++] = (amxw_mw3_event){ .type = 34 };                                   /* 9 */
    s->open[k++] = (amxw_mw3_event){ .type = 35, .value = 7 };                       /* 10 */
    s->open[k++] = (amxw_mw3_event){ .type = 19, .name = "door_close", .wait = true, .a = 1,
                                     .b = 1, .c = 2 };                                /* 11 */
    s->open[k++] = (amxw_mw3_event){ .type = 12, .a = 3, .value = 1 };               /* 12 */
    s->open[k++] = (amxw_mw3_event){ .type = 31, .value = 16, .a = 2 };              /* 13 */
    s->shut[0] = (amxw_mw3_event){ .type = 6, .value = 0, .a = 1 };
    s->shut[1] = (amxw_mw3_event){ .type = 23, .name = "OPEN" };
    s->shut[2] = (amxw_mw3_event){ .type = 15, .a = 1, .b = 2 };
    s->shut[3] = (amxw_mw3_event){ .type = 41, .name = "pfc", .a = 0 };
    s->close[0] = (amxw_mw3_event){ .type = 6, .value = 1, .a = 1 };
    s->seqs0[0] = (amxw_mw3_sequence){ .name = "OPEN", .seq_state = 3, .events = s->open,
                                       .event_count = EV_OPEN };
    s->seqs0[1] = (amxw_mw3_sequence){ .name = "SHUT", .seq_state = 0, .events = s->shut,
                                       .event_count = EV_SHUT };
    s->seqs1[0] = (amxw_mw3_sequence){ .name = "CLOSE", .seq_state = 3, .events = s->close,
                                       .event_count = 1 };
    s->defs[0] = (amxw_mw3_def){
        .anim_name = "door_open", .name = "door.flt", .anim_root = "door_root",
        .anim_name_garbage = "GARBAGE", .anim_root_garbage = "Default_node",
        .flags = (1u << 1) | (1u << 4) | (1u << 5) | (1u << 10) | (1u << 11),
        .activation = 1, .range_min = 10.0f, .range_max = 50.0f, .reset_time = 2.0f,
        .health = 100.0f,
        .objects = objects, .object_count = 2, .nodes = nodes, .node_count = 3,
        .lights = lights, .light_count = 1, .puffers = puffers, .puffer_count = 1,
        .dynamic_sounds = dsounds, .dynamic_sound_count = 1, .static_sounds = ssounds,
        .static_sound_count = 2, .static_sound_garbage = "xyz",
        .apcs = s->apcs, .apc_count = 3, .apc_min = 2, .anim_refs = s->refs,
        .anim_ref_count = 2, .reset_events = s->reset, .reset_event_count = 2,
        .sequences = s->seqs0, .sequence_count = 2,
    };
    s->defs[1] = (amxw_mw3_def){
        .anim_name = "door_close", .name = "door.flt", .anim_root = "door.flt",
        .activation = 3, .health = 0.0f, .nodes = nodes1, .node_count = 1,
        .sequences = s->seqs1, .sequence_count = 1,
    };
    s->spec = (amxw_mw3_spec){ .toc = toc, .toc_count = 2, .toc_garbage = "\x02\x90\x3e",
                               .defs = s->defs, .def_count = 2 };
}

static void build(sample *s, amxw_buf *b, amxw_mw3_layout *lay)
{
    *b = (amxw_buf){ 0 };
    amxw_mw3_ex(b, &s->spec, lay);
}

/* Builds the sample (after `edit` changed it) and decodes it. */
typedef struct built {
    amxw_buf b;
    amxw_mw3_layout lay;
    amx_asset *a;
} built;

static void done(built *x)
{
    amx_asset_free(x->a);
    amxw_buf_free(&x->b);
}

static void redecode(built *x)
{
    amx_asset_free(x->a);
    x->a = decode(x->b.data, x->b.len);
}

static const amx_mw3_def *def_of(const amx_asset *a, uint32_t i)
{
    return a && i < a->clip_count ? a->clips[i].mw3 : NULL;
}

/* ---- round trip ---- */

static void check_ref(const amx_mw3_ref *r, const char *name, size_t off)
{
    CHECK_STR(r->name, name);
    CHECK_EQ(r->offset, off);
}

static void test_roundtrip(void)
{
    sample s;
    sample_init(&s);
    built x = { 0 };
    build(&s, &x.b, &x.lay);
    CHECK_EQ(amx_probe(x.b.data, x.b.len), AMX_FMT_MW3_ANIM);
    x.a = decode(x.b.data, x.b.len);
    amx_asset *a = x.a;
    CHECK_EQ(a->format, AMX_FMT_MW3_ANIM);
    CHECK_STR(a->version, "39");
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    test_print_findings(a);
    CHECK_EQ(a->clip_count, 2);
    if (a->clip_count != 2) {
        done(&x);
        return;
    }
    const amx_clip *c = &a->clips[0];
    CHECK_STR(c->name, "door_open");
    CHECK_STR(c->skeleton, "door_root");
    CHECK(!c->has_frames);
    CHECK_EQ(c->frames, 0);
    CHECK_EQ(c->track_count, 0);
    CHECK_STR(a->clips[1].name, "door_close");
    CHECK_STR(a->clips[1].skeleton, "door.flt");

    const amx_mw3_def *d = c->mw3;
    CHECK(d != NULL);
    const amx_mw3_file *f = d->file;
    CHECK_EQ(f->version, 39);
    CHECK_EQ(f->toc_count, 2);
    CHECK_STR(f->toc[0].path, toc[0]); /* garbage after the NUL kept out */
    CHECK_STR(f->toc[1].path, toc[1]);
    CHECK_EQ(f->toc[1].timestamp, 0x37000000u + 3600u);
    CHECK_EQ(f->def_count, 3);
    CHECK_EQ(f->defs_ptr, 0x03F5000Cu);
    CHECK_EQ(f->world_ptr, 0x03F40000u);
    CHECK_NEAR(f->gravity, -9.8, 1e-6);
    CHECK(a->clips[1].mw3->file == f);

    CHECK_EQ(d->index, 1);
    CHECK_EQ(d->offset, x.lay.def[0]);
    CHECK_STR(d->anim_name, "door_open");
    CHECK_STR(d->name, "door.flt");
    CHECK_STR(d->anim_root, "door_root");
    CHECK(d->anim_ptr != 0);
    CHECK(d->anim_root_ptr != d->anim_ptr);
    CHECK_EQ(d->flags, s.defs[0].flags);
    CHECK_EQ(d->activation, AMX_MW3_ACT_COLLIDE_HIT);
    CHECK_EQ(d->exec_priority, 4);
    CHECK_NEAR(d->range_min, 10.0, 0);
    CHECK_NEAR(d->range_max, 50.0, 0);
    CHECK_NEAR(d->reset_time, 2.0, 0);
    CHECK_NEAR(d->max_health, 100.0, 0);
    CHECK_NEAR(d->cur_health, 100.0, 0);
    CHECK(d->seq_defs_ptr != 0);
    CHECK_EQ(d->counts.sequences, 2);
    CHECK_EQ(d->counts.objects, 3);
    CHECK_EQ(d->counts.nodes, 4);
    CHECK_EQ(d->counts.lights, 2);
    CHECK_EQ(d->counts.puffers, 2);
    CHECK_EQ(d->counts.dynamic_sounds, 2);
    CHECK_EQ(d->counts.static_sounds, 3);
    CHECK_EQ(d->counts.effects, 0);
    CHECK_EQ(d->counts.apcs, 3);
    CHECK_EQ(d->counts.anim_refs, 2);
    CHECK_EQ(d->apc_min_to_satisfy, 2);
    CHECK(d->pointers.objects && d->pointers.nodes && d->pointers.lights &&
          d->pointers.puffers && d->pointers.dynamic_sounds && d->pointers.static_sounds &&
          d->pointers.apcs && d->pointers.anim_refs);
    CHECK_EQ(d->pointers.effects, 0);

    CHECK_EQ(d->object_count, 2);
    if (d->object_count == 2) {
        check_ref(&d->objects[0], "door_frame", x.lay.table[0][AMXW_MW3_T_OBJECTS] + 96);
        check_ref(&d->objects[1], "door_panel", x.lay.table[0][AMXW_MW3_T_OBJECTS] + 192);
    }
    CHECK_EQ(d->node_count, 3);
    if (d->node_count == 3) {
        size_t t = x.lay.table[0][AMXW_MW3_T_NODES];
        check_ref(&d->nodes[0], "door_panel", t + 40);
        check_ref(&d->nodes[1], "door_hinge", t + 80);
        check_ref(&d->nodes[2], "a_very_long_node_name_01", t + 120);
        CHECK(d->nodes[0].pointer != 0);
        /* The name field holds the rest of "Default_node_name" after the NUL. */
        CHECK(memcmp(x.b.data + t + 40 + 11, "e_name", 6) == 0);
    }
    CHECK_EQ(d->light_count, 1);
    if (d->light_count)
        check_ref(&d->lights[0], "door_light", x.lay.table[0][AMXW_MW3_T_LIGHTS] + 44);
    CHECK_EQ(d->puffer_count, 1);
    if (d->puffer_count) {
        check_ref(&d->puffers[0], "steam", x.lay.table[0][AMXW_MW3_T_PUFFERS] + 44);
        CHECK_EQ(d->puffers[0].flags, 1);
    }
    CHECK_EQ(d->dynamic_sound_count, 1);
    if (d->dynamic_sound_count)
        check_ref(&d->dynamic_sounds[0], "door_hum", x.lay.table[0][AMXW_MW3_T_DSOUNDS] + 44);
    CHECK_EQ(d->static_sound_count, 2);
    if (d->static_sound_count == 2) {
        size_t t = x.lay.table[0][AMXW_MW3_T_SSOUNDS];
        check_ref(&d->static_sounds[0], "door_creak", t + 36);
        check_ref(&d->static_sounds[1], "door_slam", t + 72);
        CHECK(memcmp(x.b.data + t + 72 + 9, "\0xyz", 4) == 0);
    }
    CHECK_EQ(d->apc_count, 3);
    if (d->apc_count == 3) {
        size_t t = x.lay.table[0][AMXW_MW3_T_APCS];
        CHECK_EQ(d->apcs[0].type, AMX_MW3_APC_ANIMATION);
        CHECK_EQ(d->apcs[0].optional, 0);
        CHECK_STR(d->apcs[0].name, "door_close");
        CHECK_EQ(d->apcs[0].active, 0);
        CHECK_EQ(d->apcs[0].offset, t);
        CHECK_EQ(d->apcs[1].type, AMX_MW3_APC_OBJECT);
        CHECK_EQ(d->apcs[1].optional, 1);
        CHECK_EQ(d->apcs[1].active, 1);
        CHECK_STR(d->apcs[1].name, "door_panel");
        CHECK(d->apcs[1].pointer != 0);
        CHECK_EQ(d->apcs[2].type, AMX_MW3_APC_PARENT);
        CHECK_EQ(d->apcs[2].active, 0);
        CHECK_STR(d->apcs[2].name, "door_frame");
        CHECK_EQ(d->apcs[2].offset, t + 96);
    }
    CHECK_EQ(d->anim_ref_count, 2);
    if (d->anim_ref_count == 2) {
        size_t t = x.lay.table[0][AMXW_MW3_T_AREFS];
        CHECK_STR(d->anim_refs[0].name, "door_close");
        CHECK_STR(d->anim_refs[0].name2, "");
        CHECK_EQ(d->anim_refs[0].type, AMX_MW3_REF_CALL_ANIMATION);
        CHECK_EQ(d->anim_refs[0].offset, t);
        CHECK(memcmp(x.b.data + t + 10, "\0junk", 5) == 0);
        CHECK_STR(d->anim_refs[1].name, "door_close");
        CHECK_STR(d->anim_refs[1].name2, "door_panel");
        CHECK_EQ(d->anim_refs[1].type, AMX_MW3_REF_CALL_OBJECT_CONNECTOR);
    }

    /* Reset sequence. */
    CHECK_STR(d->reset.name, "RESET_SEQUENCE");
    CHECK_EQ(d->reset.offset, x.lay.reset[0]);
    CHECK_EQ(d->reset.size, 20 + 132);
    CHECK(d->reset.pointer != 0);
    CHECK_EQ(d->reset.event_count, 2);
    if (d->reset.event_count == 2) {
        CHECK_EQ(d->reset.events[0].type, AMX_MW3_EV_OBJECT_ACTIVE_STATE);
        CHECK_STR(d->reset.events[0].type_name, "OBJECT_ACTIVE_STATE");
        CHECK_EQ(d->reset.events[0].offset, x.lay.reset_event[0][0]);
        CHECK_EQ(d->reset.events[1].type, AMX_MW3_EV_LIGHT_STATE);
        CHECK_EQ(d->reset.events[1].size, 132);
    }

    /* Sequences and every event. */
    CHECK_EQ(d->sequence_count, 2);
    if (d->sequence_count == 2) {
        const amx_mw3_sequence *sq = &d->sequences[0];
        CHECK_STR(sq->name, "OPEN");
        CHECK_EQ(sq->seq_state, 3);
        CHECK_EQ(sq->reset_state, 3);
        CHECK_EQ(sq->offset, x.lay.seq[0][0]);
        CHECK(sq->pointer != 0);
        CHECK_EQ(sq->event_count, EV_OPEN);
        uint32_t total = 0;
        for (uint32_t i = 0; i < sq->event_count && i < EV_OPEN; i++) {
            const amx_mw3_event *e = &sq->events[i];
            CHECK_EQ(e->type, s.open[i].type);
            CHECK_STR(e->type_name, amx_mw3_event_type_name(s.open[i].type));
            CHECK_EQ(e->offset, x.lay.event[0][0][i]);
            CHECK_EQ(e->size, amxw_mw3_event_size(&s.open[i]));
            CHECK_EQ(e->start_offset, s.open[i].start_offset ? s.open[i].start_offset : 1);
            CHECK_NEAR(e->start_time, s.open[i].start_time, 0);
            total += e->size;
        }
        CHECK_EQ(sq->size, total);
        CHECK_STR(sq->events[0].type_name, "SOUND");
        CHECK_STR(sq->events[4].type_name, "CALL_ANIMATION");
        CHECK_STR(sq->events[4].target, "door_close");
        CHECK_STR(sq->events[5].type_name, "CALL_SEQUENCE");
        CHECK_STR(sq->events[5].target, "SHUT");
        CHECK_STR(sq->events[6].type_name, "LOOP");
        CHECK_STR(sq->events[7].type_name, "IF");
        CHECK_STR(sq->events[9].type_name, "ENDIF");
        CHECK_EQ(sq->events[9].size, 12);
        CHECK_STR(sq->events[10].type_name, "CALLBACK");
        CHECK_STR(sq->events[11].target, "door_close");
        CHECK_EQ(sq->events[12].size, 12 + 24 + 88);
        CHECK(sq->events[0].target == NULL);
        const amx_mw3_sequence *s1 = &d->sequences[1];
        CHECK_STR(s1->name, "SHUT");
        CHECK_EQ(s1->seq_state, 0);
        CHECK_EQ(s1->event_count, EV_SHUT);
        if (s1->event_count == EV_SHUT) {
            CHECK_STR(s1->events[1].type_name, "STOP_SEQUENCE");
            CHECK_STR(s1->events[1].target, "OPEN");
            CHECK_STR(s1->events[2].type_name, "OBJECT_ADD_CHILD");
            CHECK_STR(s1->events[3].type_name, "DETONATE_WEAPON");
            CHECK_EQ(s1->events[3].offset, x.lay.event[0][1][3]);
        }
    }

    /* The second definition: name == root, so the pointers are equal; empty reset. */
    const amx_mw3_def *d1 = a->clips[1].mw3;
    CHECK_EQ(d1->index, 2);
    CHECK_EQ(d1->offset, x.lay.def[1]);
    CHECK_EQ(d1->anim_ptr, d1->anim_root_ptr);
    CHECK_EQ(d1->reset_time, -1.0);
    CHECK_EQ(d1->activation, AMX_MW3_ACT_ON_CALL);
    CHECK_EQ(d1->reset.size, 0);
    CHECK_EQ(d1->reset.pointer, 0);
    CHECK_EQ(d1->reset.event_count, 0);
    CHECK_EQ(d1->node_count, 1);
    CHECK_EQ(d1->light_count + d1->object_count + d1->apc_count + d1->anim_ref_count, 0);
    CHECK_EQ(d1->pointers.lights, 0);
    CHECK_EQ(d1->sequence_count, 1);
    if (d1->sequence_count)
        CHECK_STR(d1->sequences[0].name, "CLOSE");
    CHECK_EQ(x.lay.end, x.b.len);
    done(&x);
}

static void make(sample *s, built *x)
{
    build(s, &x->b, &x->lay);
    x->a = decode(x->b.data, x->b.len);
}

static size_t ev_at(const built *x, int def, int seq, int ev) { return x->lay.event[def][seq][ev]; }

/* ---- probe, header ---- */

static void test_probe_and_versions(void)
{
    sample s;
    sample_init(&s);
    built x = { 0 };
    build(&s, &x.b, &x.lay);
    CHECK_EQ(amx_probe(x.b.data, 4), AMX_FMT_MW3_ANIM); /* a short prefix */
    CHECK_EQ(amx_probe(x.b.data, 8), AMX_FMT_MW3_ANIM);
    CHECK_EQ(amx_probe(x.b.data, 3), AMX_FMT_UNKNOWN);

    put_u32(&x.b, 4, 50); /* Pirate's Moon: taken by the probe, so it is reported by name */
    CHECK_EQ(amx_probe(x.b.data, x.b.len), AMX_FMT_MW3_ANIM);
    x.a = decode_as(x.b.data, x.b.len, AMX_FMT_MW3_ANIM);
    CHECK_EQ(x.a->status, AMX_ASSET_ERROR);
    CHECK_STR(x.a->version, "50");
    CHECK_ONLY(x.a, AMX_C_BAD_MAGIC, 4);
    CHECK(x.a->finding_count && strstr(x.a->findings[0].message, "Pirate's Moon"));
    put_u32(&x.b, 4, 28); /* Recoil */
    amx_asset_free(x.a);
    x.a = decode_as(x.b.data, x.b.len, AMX_FMT_MW3_ANIM);
    CHECK_ONLY(x.a, AMX_C_BAD_MAGIC, 4);
    CHECK(x.a->finding_count && strstr(x.a->findings[0].message, "Recoil"));
    put_u32(&x.b, 4, 39);
    put_u32(&x.b, 0, 0x02971222u); /* the magic mech3doc mentions: not the signature */
    amx_asset_free(x.a);
    x.a = decode_as(x.b.data, x.b.len, AMX_FMT_MW3_ANIM);
    CHECK_ONLY(x.a, AMX_C_BAD_MAGIC, 0);
    amx_asset_free(x.a);
    x.a = decode_as(x.b.data, 6, AMX_FMT_MW3_ANIM);
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, 0);
    CHECK_EQ(x.a->status, AMX_ASSET_ERROR);
    done(&x);
}

/* Names are the bytes up to the first NUL; non-zero bytes after it are legal. */
static void test_garbage_after_names(void)
{
    sample s;
    sample_init(&s);
    s.defs[0].anim_name_garbage = "\xff\xfe\x80junk";
    s.defs[0].anim_root_garbage = "\x01\x02\x03";
    s.defs[1].anim_name_garbage = "Default_node_name";
    s.spec.toc_garbage = "\x02\x90\x02\x3e\x02\x90\x3d\x3e\x02\x20\x3e\x3e\x02\x50";
    s.refs[0].garbage = "\xc8\xbb\x01\x02";
    s.defs[0].static_sound_garbage = "\xff\xff\xff";
    built x = { 0 };
    make(&s, &x);
    CHECK_EQ(x.a->finding_count, 0);
    test_print_findings(x.a);
    CHECK_EQ(x.a->status, AMX_ASSET_OK);
    const amx_mw3_def *d = def_of(x.a, 0);
    CHECK(d != NULL);
    if (d) {
        CHECK_STR(d->anim_name, "door_open");
        CHECK_STR(d->anim_root, "door_root");
        CHECK_STR(d->file->toc[0].path, toc[0]);
        CHECK_STR(d->anim_refs[0].name, "door_close");
        CHECK_STR(d->static_sounds[0].name, "door_creak");
        CHECK_STR(d->nodes[0].name, "door_panel");
        CHECK(x.b.data[x.lay.def[0] + 9] == 0 && x.b.data[x.lay.def[0] + 10] == 0xff);
    }
    CHECK_STR(x.a->clips[1].name, "door_close");
    done(&x);
}

/* ---- APCs ---- */

static void test_apc_rules(void)
{
    sample s;
    built x = { 0 };
    static const uint8_t no_nul[32] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"; /* 31 + 'A' below */
    uint8_t raw[32];
    memcpy(raw, no_nul, 32);
    raw[31] = 'A';

    sample_init(&s);
    s.apcs[1].type = 7;
    make(&s, &x);
    size_t t = x.lay.table[0][AMXW_MW3_T_APCS];
    CHECK_ONLY(x.a, AMX_C_APC_BAD_TYPE, t + 48 + 4);
    done(&x);

    sample_init(&s);
    s.apcs[1].optional = 2;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_BAD_FLAG, t + 48);
    done(&x);

    sample_init(&s);
    s.apcs[1].active = 5;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_BAD_FLAG, t + 48 + 8);
    done(&x);

    sample_init(&s);
    s.apcs[2].active = 1; /* parents are never active */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_BAD_FLAG, t + 96 + 8);
    done(&x);

    sample_init(&s);
    s.apcs[0].optional = 1;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_ANIM_OPTIONAL, t);
    CHECK_EQ(x.a->findings[0].severity, AMX_SEV_WARNING);
    CHECK_EQ(x.a->status, AMX_ASSET_OK);
    done(&x);

    sample_init(&s);
    s.defs[0].apc_min = 4;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_MIN_EXCEEDS_COUNT, x.lay.def[0] + 273);
    done(&x);

    sample_init(&s);
    s.defs[1].apc_min = 1; /* no prerequisites at all */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_MIN_EXCEEDS_COUNT, x.lay.def[1] + 273);
    done(&x);

    sample_init(&s);
    s.apcs[1].name = "";
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_NAME_INVALID, t + 48 + 12);
    done(&x);

    sample_init(&s);
    s.apcs[1].name = "pan\xe9l";
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_NAME_INVALID, t + 48 + 12 + 3);
    done(&x);

    sample_init(&s);
    s.apcs[0].raw_name = raw; /* animation APC, no NUL within 32 bytes */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_NAME_INVALID, t + 8);
    done(&x);

    sample_init(&s);
    s.apcs[2].raw_name = raw;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_APC_NAME_INVALID, t + 96 + 12);
    done(&x);

    sample_init(&s);
    s.apcs[0].name = "no_such_anim";
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, t + 8);
    CHECK_EQ(x.a->findings[0].severity, AMX_SEV_WARNING);
    CHECK_EQ(x.a->status, AMX_ASSET_OK);
    done(&x);

    sample_init(&s); /* names resolve case-insensitively */
    s.apcs[0].name = "DOOR_CLOSE";
    make(&s, &x);
    CHECK_EQ(x.a->finding_count, 0);
    done(&x);
}

/* ---- counts and pointers ---- */

static void test_table_counts(void)
{
    static const struct { int table; int adjust; uint32_t field; } cases[] = {
        { AMXW_MW3_T_NODES, +1, 266 },   { AMXW_MW3_T_NODES, -1, 266 },
        { AMXW_MW3_T_OBJECTS, +1, 265 }, { AMXW_MW3_T_LIGHTS, -1, 267 },
        { AMXW_MW3_T_PUFFERS, +1, 268 }, { AMXW_MW3_T_DSOUNDS, +1, 269 },
        { AMXW_MW3_T_SSOUNDS, +1, 270 }, { AMXW_MW3_T_APCS, -1, 272 },
        { AMXW_MW3_T_APCS, +1, 272 },    { AMXW_MW3_T_AREFS, -1, 274 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sample s;
        sample_init(&s);
        s.defs[0].count_adjust[cases[i].table] = cases[i].adjust;
        if (cases[i].table == AMXW_MW3_T_APCS && cases[i].adjust < 0)
            s.defs[0].apc_min = 1;
        built x = { 0 };
        make(&s, &x);
        printf("# case %zu: table %d %+d\n", i, cases[i].table, cases[i].adjust);
        CHECK_ONLY(x.a, AMX_C_COUNT_MISMATCH, x.lay.def[0] + cases[i].field);
        /* Recovered: the records are decoded and the rest of the file reads cleanly. */
        const amx_mw3_def *d = def_of(x.a, 0);
        CHECK(d && d->sequence_count == 2 && d->node_count == 3 && d->apc_count == 3 &&
              d->anim_ref_count == 2 && d->static_sound_count == 2);
        CHECK_EQ(x.a->clip_count, 2);
        done(&x);
    }
}

static void test_sequence_and_def_counts(void)
{
    sample s;
    built x = { 0 };
    sample_init(&s);
    s.defs[0].count_adjust[AMXW_MW3_T_SEQS] = +1; /* the next definition comes first */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_COUNT_MISMATCH, x.lay.def[0] + 264);
    CHECK_EQ(x.a->clip_count, 2);
    done(&x);

    sample_init(&s);
    s.defs[0].count_adjust[AMXW_MW3_T_SEQS] = -1; /* one more sequence follows */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_COUNT_MISMATCH, x.lay.def[0] + 264);
    CHECK(def_of(x.a, 0) && def_of(x.a, 0)->sequence_count == 2);
    done(&x);

    sample_init(&s);
    s.defs[1].count_adjust[AMXW_MW3_T_SEQS] = +1; /* the last definition: the file ends */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, x.lay.end);
    done(&x);

    sample_init(&s);
    s.spec.def_count_adjust = +1;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_COUNT_MISMATCH, x.lay.info + 10);
    CHECK_EQ(x.a->clip_count, 2);
    done(&x);

    sample_init(&s);
    s.spec.def_count_adjust = -1;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_COUNT_MISMATCH, x.lay.info + 10);
    CHECK_EQ(x.a->clip_count, 2);
    done(&x);

    sample_init(&s);
    s.spec.def_count_adjust = -3; /* 0: not even the dummy */
    make(&s, &x);
    CHECK_FINDING(x.a, AMX_C_BAD_VALUE, x.lay.info + 10);
    CHECK_FINDING(x.a, AMX_C_COUNT_MISMATCH, x.lay.info + 10);
    CHECK_EQ(x.a->finding_count, 2);
    done(&x);
}

static void test_pointers(void)
{
    sample s;
    built x = { 0 };
    static const uint32_t at[AMXW_MW3_T_COUNT] = { 276, 280, 284, 288, 292, 296, 304, 308, 196 };
    for (int t = 0; t < AMXW_MW3_T_COUNT; t++) {
        sample_init(&s);
        s.defs[0].wrong_ptr = 1u << t; /* 0 with records */
        make(&s, &x);
        CHECK_ONLY(x.a, AMX_C_BAD_VALUE, x.lay.def[0] + at[t]);
        done(&x);
    }
    sample_init(&s);
    s.defs[1].wrong_ptr = 1u << AMXW_MW3_T_LIGHTS; /* set without records */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, x.lay.def[1] + 284);
    done(&x);
}

/* ---- sizes, reset copy, end of file ---- */

static void test_sizes(void)
{
    sample s;
    built x = { 0 };
    sample_init(&s);
    s.shut[3].size_adjust = 4; /* the last event runs past its sequence */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_SIZE_MISMATCH, ev_at(&x, 0, 1, 3) + 4);
    done(&x);

    sample_init(&s);
    s.open[10].data_size = 8; /* CALLBACK is 4 bytes of data */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_SIZE_MISMATCH, ev_at(&x, 0, 0, 10) + 4);
    done(&x);

    sample_init(&s);
    s.shut[0].size_adjust = -20; /* size 0 */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_SIZE_MISMATCH, ev_at(&x, 0, 1, 0) + 4);
    done(&x);

    sample_init(&s);
    s.open[12].size_adjust = 88; /* SI script: one more frame's bytes than its frames need */
    s.open[12].data_size = 24 + 88 + 88;
    make(&s, &x);
    CHECK_FINDING(x.a, AMX_C_SIZE_MISMATCH, ev_at(&x, 0, 0, 12) + 4);
    done(&x);

    sample_init(&s);
    s.open[12] = (amxw_mw3_event){ .type = 12, .data_size = 2 }; /* shorter than its header */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_SIZE_MISMATCH, ev_at(&x, 0, 0, 12) + 4);
    done(&x);

    sample_init(&s);
    s.seqs1[0].size_adjust = 4; /* 4 bytes too few for another event */
    s.spec.trailing_bytes = 4;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_SIZE_MISMATCH, x.lay.end);
    done(&x);

    sample_init(&s);
    s.seqs1[0].size_adjust = 100; /* past the end of the file */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, x.lay.seq[1][0]);
    CHECK_EQ(x.a->status, AMX_ASSET_PARTIAL);
    done(&x);
}

static void test_reset_copy(void)
{
    sample s;
    built x = { 0 };
    sample_init(&s);
    s.defs[0].reset_copy_size_adjust = 4;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_COUNT_MISMATCH, x.lay.def[0] + 260);
    done(&x);

    sample_init(&s);
    s.defs[0].reset_copy_ptr_xor = 0x10;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, x.lay.def[0] + 256);
    done(&x);

    sample_init(&s);
    make(&s, &x);
    memcpy(x.b.data + x.lay.reset[0], "RESET_SEQUENCF", 14); /* the header itself */
    redecode(&x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, x.lay.reset[0]);
    done(&x);
}

static void test_end_of_file(void)
{
    sample s;
    built x = { 0 };
    sample_init(&s);
    s.spec.trailing_bytes = 5;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_TRAILING_DATA, x.lay.end);
    CHECK_EQ(x.a->status, AMX_ASSET_OK);
    done(&x);

    sample_init(&s);
    s.spec.trailing_bytes = 400;
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_TRAILING_DATA, x.lay.end);
    done(&x);

    sample_init(&s);
    make(&s, &x);
    amx_asset_free(x.a);
    x.a = decode(x.b.data, x.lay.def[1] + 100); /* inside the second definition */
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, x.lay.def[1]);
    CHECK_EQ(x.a->status, AMX_ASSET_PARTIAL);
    CHECK_EQ(x.a->clip_count, 1);
    amx_asset_free(x.a);
    x.a = decode(x.b.data, x.lay.seq[0][1] + 10); /* inside a sequence header */
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, x.lay.seq[0][1]);
    amx_asset_free(x.a);
    x.a = decode(x.b.data, x.lay.table[0][AMXW_MW3_T_APCS] + 50); /* inside the APCs */
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, x.lay.table[0][AMXW_MW3_T_APCS]);
    amx_asset_free(x.a);
    x.a = decode(x.b.data, x.lay.dummy + 10);
    CHECK_ONLY(x.a, AMX_C_TRUNCATED, x.lay.dummy);
    CHECK_EQ(x.a->clip_count, 0);
    done(&x);
}

/* ---- fixed fields ---- */

typedef struct patch {
    const char *what;
    int base;          /* 0 info, 1 def 0, 2 def 1, 3 seq 0/0, 4 dummy, 5 nodes 0, 6 puffers 0,
                        * 7 anim refs 0, 8 event 0/0/5 (CALL_SEQUENCE), 9 event 0/0/4 (CALL_ANIM),
                        * 10 event 0/0/2 */
    uint32_t off;
    int width;         /* 1, 4, or -4 for a float */
    uint32_t value;
    float f;
    uint32_t want;     /* offset of the finding from base; 0 = off */
} patch;

static void test_fixed_fields(void)
{
    static const patch patches[] = {
        { "info +0", 0, 0, 4, 1, 0, 0 },       { "info +8", 0, 8, 1, 1, 0, 0 },
        { "info +12 ptr", 0, 12, 4, 0, 0, 0 }, { "info +16", 0, 16, 4, 3, 0, 0 },
        { "info +24 ptr", 0, 24, 4, 0, 0, 0 }, { "gravity", 0, 28, -4, 0, -9.81f, 0 },
        { "info +32", 0, 32, 4, 5, 0, 0 },     { "info +56", 0, 56, 4, 5, 0, 0 },
        { "info +60", 0, 60, 4, 0, 0, 0 },     { "info +64", 0, 64, 4, 2, 0, 0 },
        { "def +104", 1, 111, 1, 1, 0, 0 },    { "def +152", 1, 152, 1, 1, 0, 0 },
        { "def +154", 1, 154, 1, 5, 0, 0 },    { "def +155", 1, 155, 1, 0, 0, 0 },
        { "def +168", 1, 168, -4, 0, 1.0f, 0 }, { "def +176", 1, 176, -4, 0, 50.0f, 0 },
        { "def +180", 1, 180, 4, 7, 0, 0 },
        { "def +192", 1, 192, 4, 7, 0, 0 },    { "def +275", 1, 275, 1, 1, 0, 0 },
        { "def +312", 1, 312, 4, 1, 0, 0 },    { "def +64 ptr", 1, 64, 4, 0, 0, 0 },
        { "def +271 effects", 1, 271, 1, 1, 0, 0 }, { "def +300 effects ptr", 1, 300, 4, 9, 0, 0 },
        { "def +148 save log on", 1, 149, 1, 0x24, 0, 148 },
        { "def +148 unknown flag", 1, 151, 1, 0x80, 0, 148 },
        { "def +156 min < 0", 1, 156, -4, 0, -1.0f, 0 },
        { "def +160 max < min", 1, 160, -4, 0, 5.0f, 0 },
        { "def +160 NaN", 1, 160, 4, 0x7FC00000u, 0, 0 },
        { "def1 +153 activation", 2, 153, 1, 9, 0, 0 },
        { "def1 +156 range", 2, 156, -4, 0, 3.0f, 0 },
        { "def1 +164 reset time", 2, 164, -4, 0, 0.5f, 0 },
        { "def1 +100 root ptr", 2, 100, 4, 1, 0, 0 },
        { "def +232 copy state", 1, 232, 1, 3, 0, 0 },
        { "def +240 copy zeros", 1, 240, 1, 3, 0, 0 },
        { "def +200 copy name", 1, 201, 1, 'x', 0, 200 },
        { "seq +32 state", 3, 32, 1, 7, 0, 0 },  { "seq +33 state", 3, 33, 1, 7, 0, 0 },
        { "seq +40", 3, 40, 1, 1, 0, 0 },   { "seq +56 ptr", 3, 56, 4, 0, 0, 0 },
        { "dummy +153", 4, 153, 1, 5, 0, 0 },   { "dummy +10", 4, 10, 1, 1, 0, 0 },
        { "dummy reset", 4, 316 + 60, 1, 1, 0, 0 },
        { "node 0", 5, 5, 1, 1, 0, 0 },        { "node 1 ptr", 5, 40 + 36, 4, 0, 0, 0 },
        { "node 1 +32", 5, 40 + 32, 4, 1, 0, 0 },
        { "puffer 1 flags", 6, 44 + 32, 1, 1, 0, 0 }, { "puffer 1 +40", 6, 44 + 40, 4, 1, 0, 0 },
        { "anim ref +64 type", 7, 64, 4, 5, 0, 0 }, { "anim ref +68 ptr", 7, 68, 4, 1, 0, 0 },
        { "CALL_SEQUENCE index", 8, 12 + 32, 4, 0, 0, 0 },
        { "CALL_ANIMATION anim index", 9, 12 + 36, 1, 1, 0, 0 },
        { "CALL_ANIMATION +42", 9, 12 + 42, 1, 1, 0, 0 },
        { "event start offset", 10, 1, 1, 9, 0, 0 }, { "event pad", 10, 2, 1, 1, 0, 0 },
        { "event start time NaN", 10, 8, 4, 0x7F800000u, 0, 0 },
        { "OBJECT_ACTIVE_STATE +6", 10, 12 + 6, 1, 1, 0, 0 },
    };
    sample s;
    sample_init(&s);
    built x = { 0 };
    build(&s, &x.b, &x.lay);
    amxw_buf orig = { 0 };
    amxw_bytes(&orig, x.b.data, x.b.len);
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        const patch *p = &patches[i];
        size_t bases[] = { x.lay.info, x.lay.def[0], x.lay.def[1], x.lay.seq[0][0], x.lay.dummy,
                           x.lay.table[0][AMXW_MW3_T_NODES], x.lay.table[0][AMXW_MW3_T_PUFFERS],
                           x.lay.table[0][AMXW_MW3_T_AREFS], ev_at(&x, 0, 0, 5),
                           ev_at(&x, 0, 0, 4), ev_at(&x, 0, 0, 2) };
        size_t at = bases[p->base] + p->off;
        memcpy(x.b.data, orig.data, orig.len);
        if (p->width == 1)
            put_u8(&x.b, at, (uint8_t)p->value);
        else if (p->width == 4)
            put_u32(&x.b, at, p->value);
        else
            put_f32(&x.b, at, p->f);
        printf("# patch %s\n", p->what);
        amx_asset_free(x.a);
        x.a = decode(x.b.data, x.b.len);
        CHECK_ONLY(x.a, AMX_C_BAD_VALUE, bases[p->base] + (p->want ? p->want : p->off));
    }
    amxw_buf_free(&orig);
    done(&x);
}

/* ---- cross references ---- */

static void test_name_references(void)
{
    sample s;
    built x = { 0 };
    sample_init(&s);
    s.open[4].name = "ghost"; /* CALL_ANIMATION */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, ev_at(&x, 0, 0, 4) + 12);
    CHECK_EQ(x.a->findings[0].severity, AMX_SEV_ERROR);
    CHECK_EQ(x.a->status, AMX_ASSET_PARTIAL);
    done(&x);

    sample_init(&s);
    s.open[5].name = "NOPE"; /* CALL_SEQUENCE */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, ev_at(&x, 0, 0, 5) + 12);
    done(&x);

    sample_init(&s);
    s.shut[1].name = "nope"; /* STOP_SEQUENCE */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, ev_at(&x, 0, 1, 1) + 12);
    done(&x);

    sample_init(&s);
    s.open[11].name = "ghost"; /* CALL_OBJECT_CONNECTOR: the name is at +4 */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, ev_at(&x, 0, 0, 11) + 12 + 4);
    done(&x);

    sample_init(&s);
    s.refs[0].name = "ghost";
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, x.lay.table[0][AMXW_MW3_T_AREFS]);
    done(&x);

    sample_init(&s);
    s.refs[1].name = "ghost"; /* CALL_OBJECT_CONNECTOR ref: the first half */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, x.lay.table[0][AMXW_MW3_T_AREFS] + 72);
    done(&x);

    sample_init(&s);
    s.open[5].name = "shut"; /* case-insensitive */
    s.open[4].name = "DOOR_CLOSE";
    make(&s, &x);
    CHECK_EQ(x.a->finding_count, 0);
    done(&x);
}

/* ---- event indices ---- */

typedef struct idx_case {
    const char *what;
    int seq;          /* 0 OPEN, 1 SHUT, 2 reset */
    int ev;
    amxw_mw3_event e;
    int32_t field;    /* offset of the finding in the event data; -1: no finding */
    amx_code code;
} idx_case;

static void test_event_indices(void)
{
    const idx_case cases[] = {
        { "sound: static sound 3 of 1..2", 0, 0, { .type = 1, .a = 3, .b = 2 }, 0, 0 },
        { "sound: node -200 is the input node", 0, 0, { .type = 1, .a = 1, .b = -200 }, -1, 0 },
        { "sound: node 0 is none", 0, 0, { .type = 1, .a = 2 }, -1, 0 },
        { "sound: node 4", 0, 0, { .type = 1, .a = 1, .b = 4 }, 2, 0 },
        { "sound: node -1", 0, 0, { .type = 1, .a = 1, .b = -1 }, 2, 0 },
        { "light state: light 2 of 1..1", 0, 1,
          { .type = 4, .name = "door_light", .a = 2 }, 32, 0 },
        { "light state: node 9", 0, 1, { .type = 4, .name = "door_light", .a = 1, .b = 9 }, 64,
          0 },
        { "light state: name differs", 0, 1, { .type = 4, .name = "other", .a = 1 }, 0,
          AMX_C_BAD_VALUE },
        { "active state: node 0 (required)", 0, 2, { .type = 6, .a = 0 }, 4, 0 },
        { "active state: node 4", 0, 2, { .type = 6, .a = 4 }, 4, 0 },
        { "translate: at node 7", 0, 3, { .type = 7, .a = 1, .b = 7 }, 18, 0 },
        { "call animation: wait-for anim ref 2 of 0..1", 0, 4,
          { .type = 24, .name = "door_close", .wait = true, .b = 2 }, 38, 0 },
        { "call animation: node -200", 0, 4, { .type = 24, .name = "door_close", .c = -200 },
          -1, 0 },
        { "call animation: operand node 5", 0, 4, { .type = 24, .name = "door_close", .a = 5 },
          32, 0 },
        { "sound node: dynamic sound 9", 0, 8, { .type = 2, .name = "door_hum", .a = 9 }, 32, 0 },
        { "sound node: name differs", 0, 8, { .type = 2, .name = "hum", .a = 1 }, 0,
          AMX_C_BAD_VALUE },
        { "connector call: save anim ref 2", 0, 11,
          { .type = 19, .name = "door_close", .wait = true, .a = 2 }, 38, 0 },
        { "connector call: to node 4", 0, 11, { .type = 19, .name = "door_close", .c = 4 }, 42,
          0 },
        { "si script: node -5", 0, 12, { .type = 12, .a = -5, .value = 1 }, 0, 0 },
        { "if undercover: node 4", 0, 13, { .type = 31, .value = 16, .a = 4 }, 4, 0 },
        { "if: condition 3", 0, 13, { .type = 31, .value = 3 }, 0, AMX_C_BAD_VALUE },
        { "if: node without undercover", 0, 13, { .type = 31, .value = 2, .a = 1 }, 4,
          AMX_C_BAD_VALUE },
        { "add child: child 0", 1, 2, { .type = 15, .a = 1 }, 2, 0 },
        { "puffer state: puffer 2 of 1..1", 1, 3, { .type = 42, .name = "steam", .a = 2 }, 32,
          0 },
        { "puffer state: ok", 1, 3, { .type = 42, .name = "steam", .a = 1, .b = 3 }, -1, 0 },
        { "effect: no effects", 1, 3, { .type = 3, .a = 1 }, 0, 0 },
        { "scale: node 4", 1, 3, { .type = 8, .a = 4 }, 12, 0 },
        { "rotate: ok", 1, 3, { .type = 9, .a = 1, .b = -200 }, -1, 0 },
        { "motion: node 9", 1, 3, { .type = 10, .a = 9 }, 4, 0 },
        { "motion from-to: ok", 1, 3, { .type = 11, .a = 3 }, -1, 0 },
        { "opacity: node 0", 1, 3, { .type = 13 }, 8, 0 },
        { "opacity from-to: node 4", 1, 3, { .type = 14, .a = 4 }, 0, 0 },
        { "cycle texture: ok", 1, 3, { .type = 17, .a = 2 }, -1, 0 },
        { "connector: from 6", 1, 3, { .type = 18, .a = 1, .b = 6 }, 6, 0 },
        { "camera: node 0", 1, 3, { .type = 20 }, 4, 0 },
        { "camera from-to: ok", 1, 3, { .type = 21, .a = 1 }, -1, 0 },
        { "delete child: parent 9", 1, 3, { .type = 16, .a = 9, .b = 1 }, 0, 0 },
        { "light animation: light 0", 1, 3, { .type = 5, .name = "door_light" }, 32, 0 },
        { "detonate: node -200", 1, 3, { .type = 41, .name = "pfc", .a = -200 }, -1, 0 },
        { "fog, fbfx: ok", 1, 3, { .type = 28 }, -1, 0 },
        { "reset: light 3", 2, 1, { .type = 4, .name = "door_light", .a = 3 }, 32, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const idx_case *c = &cases[i];
        sample s;
        sample_init(&s);
        amxw_mw3_event *evs = c->seq == 0 ? s.open : c->seq == 1 ? s.shut : s.reset;
        evs[c->ev] = c->e;
        built x = { 0 };
        make(&s, &x);
        printf("# case %s\n", c->what);
        size_t at = c->seq == 2 ? x.lay.reset_event[0][c->ev] : ev_at(&x, 0, c->seq, c->ev);
        if (c->field < 0) {
            CHECK_EQ(x.a->finding_count, 0);
            test_print_findings(x.a);
        } else {
            CHECK_ONLY(x.a, c->code ? c->code : AMX_C_INDEX_OUT_OF_RANGE,
                       at + 12 + (size_t)c->field);
        }
        done(&x);
    }

    /* A definition without lights. */
    sample s;
    sample_init(&s);
    s.close[0] = (amxw_mw3_event){ .type = 4, .name = "x", .a = 1 };
    built x = { 0 };
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_INDEX_OUT_OF_RANGE, ev_at(&x, 1, 0, 0) + 12 + 32);
    CHECK(x.a->finding_count && strstr(x.a->findings[0].message, "no lights"));
    done(&x);
}

static void test_unknown_events(void)
{
    sample s;
    built x = { 0 };
    sample_init(&s);
    s.open[9] = (amxw_mw3_event){ .type = 29, .data_size = 8 };
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_UNKNOWN_CHUNK, ev_at(&x, 0, 0, 9));
    CHECK_EQ(x.a->status, AMX_ASSET_OK);
    const amx_mw3_def *d = def_of(x.a, 0);
    CHECK(d && d->sequences[0].event_count == EV_OPEN);
    if (d && d->sequences[0].event_count == EV_OPEN) {
        CHECK_STR(d->sequences[0].events[9].type_name, "UNKNOWN");
        CHECK_EQ(d->sequences[0].events[9].size, 20);
    }
    done(&x);

    sample_init(&s);
    s.open[9] = (amxw_mw3_event){ .type = 37 }; /* FBFX_CSINWAVE_FROM_TO: later games */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, ev_at(&x, 0, 0, 9));
    CHECK_EQ(x.a->findings[0].severity, AMX_SEV_ERROR);
    done(&x);

    sample_init(&s);
    s.open[9] = (amxw_mw3_event){ .type = 39 }; /* ANIM_VERBOSE */
    make(&s, &x);
    CHECK_ONLY(x.a, AMX_C_BAD_VALUE, ev_at(&x, 0, 0, 9));
    done(&x);
}

/* ---- the demo writer ---- */

static void test_simple(void)
{
    amxw_buf b = { 0 };
    amxw_mw3_simple(&b, 4, 7);
    amx_asset *a = decode(b.data, b.len);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    test_print_findings(a);
    CHECK_EQ(a->clip_count, 4);
    for (uint32_t i = 0; i < a->clip_count; i++) {
        char want[32];
        snprintf(want, sizeof want, "mech_root_%02u", i);
        CHECK_STR(a->clips[i].skeleton, want);
        snprintf(want, sizeof want, "anim_%02u", i);
        CHECK_STR(a->clips[i].name, want);
        CHECK_EQ(a->clips[i].mw3->sequence_count, 2);
    }
    amx_asset_free(a);
    amxw_buf_free(&b);

    amxw_mw3_simple(&b, 500, 9); /* a mission-sized file */
    a = decode(b.data, b.len);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    CHECK_EQ(a->clip_count, 500);
    amx_asset_free(a);
    amxw_buf_free(&b);

    amxw_mw3_simple(&b, 0, 1); /* only the dummy */
    a = decode(b.data, b.len);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    CHECK_EQ(a->clip_count, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- mutations ---- */

static void mutate(const uint8_t *p, size_t n, const char *what)
{
    mutate_stats st = { 0 };
    mutate_all(p, n, 1, NULL, &st);
    printf("# mutate %s (%zu bytes): %zu decodes, ok %zu, partial %zu, error %zu\n", what, n,
           st.decodes, st.statuses[AMX_ASSET_OK], st.statuses[AMX_ASSET_PARTIAL],
           st.statuses[AMX_ASSET_ERROR]);
    CHECK_EQ(st.violations, 0);
    CHECK_EQ(st.decodes, 4 * n);
}

static void test_mutations(void)
{
    sample s;
    sample_init(&s);
    amxw_buf b = { 0 };
    amxw_mw3(&b, &s.spec);
    mutate(b.data, b.len, "sample");
    amxw_buf_free(&b);

    amxw_mw3_simple(&b, 2, 3);
    mutate(b.data, b.len, "simple");
    amxw_buf_free(&b);

    /* A puffer state and the other large events. */
    sample_init(&s);
    s.shut[3] = (amxw_mw3_event){ .type = 42, .name = "steam", .a = 1, .b = 1 };
    s.close[0] = (amxw_mw3_event){ .type = 10, .a = 1 };
    s.defs[1].count_adjust[AMXW_MW3_T_NODES] = 0;
    amxw_mw3(&b, &s.spec);
    mutate(b.data, b.len, "large events");
    amxw_buf_free(&b);
}

int main(void)
{
    RUN(test_roundtrip);
    RUN(test_probe_and_versions);
    RUN(test_garbage_after_names);
    RUN(test_apc_rules);
    RUN(test_table_counts);
    RUN(test_sequence_and_def_counts);
    RUN(test_pointers);
    RUN(test_sizes);
    RUN(test_reset_copy);
    RUN(test_end_of_file);
    RUN(test_fixed_fields);
    RUN(test_name_references);
    RUN(test_event_indices);
    RUN(test_unknown_events);
    RUN(test_simple);
    RUN(test_mutations);
    return test_done();
}
