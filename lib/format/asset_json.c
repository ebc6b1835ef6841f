/*
 * Format-specific details of a clip as JSON, written in one place for `dump --json` and for the
 * index (clips.details; the stored copy adds "lines", the text `show` prints). MechWarrior 3: the contract's "mw3" object
 * (docs/json.md), plus each sequence's event timeline. Metroid Prime ANIM: an "mp" object with
 * the game, format, root bone and each channel's key counts and bit widths.
 */
#include "animidx/animidx.h"
#include "animidx/json.h"
#include "animidx/mp.h"
#include "animidx/mw3.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void refs(amx_json *j, const char *key, const amx_mw3_ref *r, uint32_t n)
{
    amx_json_key(j, key);
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < n; i++)
        amx_json_string(j, r[i].name);
    amx_json_end_array(j);
}

static void sequence(amx_json *j, const amx_mw3_sequence *s)
{
    amx_json_begin_object(j);
    amx_json_kstring(j, "name", s->name);
    amx_json_kint(j, "events", s->event_count);
    amx_json_kint(j, "seq_state", s->seq_state);
    amx_json_key(j, "timeline");
    amx_json_begin_array(j);
    for (uint32_t e = 0; e < s->event_count; e++) {
        const amx_mw3_event *ev = &s->events[e];
        amx_json_begin_object(j);
        amx_json_kstring(j, "type", ev->type_name);
        amx_json_knumber(j, "start_time", ev->start_time);
        amx_json_kint(j, "start_offset", ev->start_offset);
        if (ev->target)
            amx_json_kstring(j, "target", ev->target);
        amx_json_kint(j, "offset", ev->offset);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    amx_json_end_object(j);
}

static void mw3(amx_json *j, const amx_mw3_def *d)
{
    amx_json_key(j, "mw3");
    amx_json_begin_object(j);
    amx_json_kstring(j, "anim_name", d->anim_name);
    amx_json_kstring(j, "name", d->name);
    amx_json_kstring(j, "anim_root", d->anim_root);
    amx_json_kint(j, "activation", d->activation);
    amx_json_kint(j, "flags", d->flags);
    amx_json_kint(j, "index", d->index);
    amx_json_knumber(j, "reset_time", d->reset_time);
    amx_json_knumber(j, "range_min", d->range_min);
    amx_json_knumber(j, "range_max", d->range_max);
    amx_json_knumber(j, "max_health", d->max_health);
    amx_json_kint(j, "apc_min_to_satisfy", d->apc_min_to_satisfy);
    amx_json_key(j, "counts");
    amx_json_begin_object(j);
    amx_json_kint(j, "sequences", d->counts.sequences);
    amx_json_kint(j, "objects", d->counts.objects);
    amx_json_kint(j, "nodes", d->counts.nodes);
    amx_json_kint(j, "lights", d->counts.lights);
    amx_json_kint(j, "puffers", d->counts.puffers);
    amx_json_kint(j, "dynamic_sounds", d->counts.dynamic_sounds);
    amx_json_kint(j, "static_sounds", d->counts.static_sounds);
    amx_json_kint(j, "effects", d->counts.effects);
    amx_json_kint(j, "apcs", d->counts.apcs);
    amx_json_kint(j, "anim_refs", d->counts.anim_refs);
    amx_json_end_object(j);
    amx_json_key(j, "apcs");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < d->apc_count; i++) {
        amx_json_begin_object(j);
        amx_json_kint(j, "optional", d->apcs[i].optional);
        amx_json_kint(j, "type", d->apcs[i].type);
        amx_json_kstring(j, "name", d->apcs[i].name);
        amx_json_kint(j, "active", d->apcs[i].active);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    amx_json_key(j, "sequences");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < d->sequence_count; i++)
        sequence(j, &d->sequences[i]);
    amx_json_end_array(j);
    amx_json_key(j, "reset_sequence");
    sequence(j, &d->reset);
    amx_json_key(j, "anim_refs");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < d->anim_ref_count; i++) {
        amx_json_begin_object(j);
        amx_json_kstring(j, "name", d->anim_refs[i].name);
        if (d->anim_refs[i].name2 && d->anim_refs[i].name2[0])
            amx_json_kstring(j, "name2", d->anim_refs[i].name2);
        amx_json_kint(j, "type", d->anim_refs[i].type);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    refs(j, "objects", d->objects, d->object_count);
    refs(j, "nodes", d->nodes, d->node_count);
    refs(j, "lights", d->lights, d->light_count);
    refs(j, "puffers", d->puffers, d->puffer_count);
    refs(j, "dynamic_sounds", d->dynamic_sounds, d->dynamic_sound_count);
    refs(j, "static_sounds", d->static_sounds, d->static_sound_count);
    amx_json_end_object(j);
}

static void component(amx_json *j, const char *key, const amx_mp_component *c, bool v2)
{
    if (!c->present)
        return;
    amx_json_key(j, key);
    amx_json_begin_object(j);
    amx_json_kint(j, "keys", c->key_count);
    if (v2) {
        amx_json_key(j, "bits");
        amx_json_begin_array(j);
        for (int k = 0; k < 3; k++)
            amx_json_int(j, c->bits[k]);
        amx_json_end_array(j);
        amx_json_key(j, "init");
        amx_json_begin_array(j);
        for (int k = 0; k < 3; k++)
            amx_json_int(j, c->init[k]);
        amx_json_end_array(j);
    }
    amx_json_end_object(j);
}

static void mp_anim(amx_json *j, const amx_mp_info *info)
{
    const amx_mp_anim *a = info->anim;
    bool v2 = a->format == 2;
    amx_json_key(j, "mp");
    amx_json_begin_object(j);
    amx_json_kstring(j, "game", info->game);
    amx_json_kint(j, "format", a->format);
    amx_json_kint(j, "root_bone_id", a->root_bone_id);
    amx_json_knumber(j, "interval", a->interval);
    if (v2) {
        amx_json_kint(j, "rotation_divisor", a->rot_divisor);
        amx_json_knumber(j, "translation_mult", a->translation_mult);
        amx_json_knumber(j, "scale_mult", a->scale_mult);
        amx_json_kint(j, "bits_per_key", a->bits_per_key);
        amx_json_kint(j, "stored_keys", a->stored_keys);
    }
    amx_json_key(j, "channels");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < a->channel_count; i++) {
        const amx_mp_channel *ch = &a->channels[i];
        amx_json_begin_object(j);
        amx_json_kint(j, "bone_id", ch->bone_id);
        component(j, "rotation", &ch->rotation, v2);
        component(j, "translation", &ch->translation, v2);
        component(j, "scale", &ch->scale, v2);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    amx_json_end_object(j);
}

/* The Metroid Prime ANIM details belong to the asset (one clip per file). */
bool amx_asset_clip_has_details(const amx_asset *a, const amx_clip *c)
{
    return c->mw3 != NULL || (a->mp && a->mp->anim && a->clip_count == 1 && c == &a->clips[0]);
}

void amx_json_clip_details(amx_json *j, const amx_asset *a, const amx_clip *c)
{
    if (c->mw3)
        mw3(j, c->mw3);
    else if (amx_asset_clip_has_details(a, c))
        mp_anim(j, a->mp);
}

/* ---- the text lines `show` prints, rendered once when the details are stored ---- */

static void line(amx_json *j, const char *group, const char *fmt, ...) AMX_PRINTF(3, 4);

static void line(amx_json *j, const char *group, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    amx_json_begin_array(j);
    amx_json_string(j, group);
    amx_json_string(j, text);
    amx_json_end_array(j);
}

static void sequence_lines(amx_json *j, const amx_mw3_sequence *s)
{
    char group[96];
    snprintf(group, sizeof group, "sequence %s", s->name);
    for (uint32_t e = 0; e < s->event_count; e++) {
        const amx_mw3_event *ev = &s->events[e];
        line(j, group, "t=%-8.3g %s%s%s", (double)ev->start_time, ev->type_name,
             ev->target ? " -> " : "", ev->target ? ev->target : "");
    }
    if (s->event_count == 0)
        line(j, group, "(no events)");
}

static size_t component_text(char *buf, size_t n, const char *what, const amx_mp_component *c, bool v2)
{
    if (!c->present)
        return 0;
    int w = v2 ? snprintf(buf, n, " %s %u keys, bits %u/%u/%u;", what, c->key_count, c->bits[0],
                          c->bits[1], c->bits[2])
               : snprintf(buf, n, " %s %u keys;", what, c->key_count);
    return w > 0 && (size_t)w < n ? (size_t)w : 0;
}

static void detail_lines(amx_json *j, const amx_asset *a, const amx_clip *c)
{
    if (c->mw3) {
        sequence_lines(j, &c->mw3->reset);
        for (uint32_t i = 0; i < c->mw3->sequence_count; i++)
            sequence_lines(j, &c->mw3->sequences[i]);
        return;
    }
    const amx_mp_anim *m = a->mp->anim;
    bool v2 = m->format == 2;
    line(j, "anim", "%s format %u, root bone %u%s", a->mp->game ? a->mp->game : "?", m->format,
         m->root_bone_id, v2 ? "" : " (uncompressed)");
    if (v2)
        line(j, "anim", "%u keys of %u bits; rotation divisor %u, translation x %g, scale x %g",
             m->stored_keys, m->bits_per_key, m->rot_divisor, (double)m->translation_mult,
             (double)m->scale_mult);
    for (uint32_t i = 0; i < m->channel_count; i++) {
        const amx_mp_channel *ch = &m->channels[i];
        char text[256];
        size_t k = 0;
        k += component_text(text + k, sizeof text - k, "rotation", &ch->rotation, v2);
        k += component_text(text + k, sizeof text - k, "translation", &ch->translation, v2);
        k += component_text(text + k, sizeof text - k, "scale", &ch->scale, v2);
        text[k] = '\0';
        line(j, "channels", "bone %u:%s", ch->bone_id, text);
    }
}

char *amx_clip_details_string(const amx_asset *a, const amx_clip *c)
{
    if (!amx_asset_clip_has_details(a, c))
        return NULL;
    amx_json j;
    amx_json_init_buffer(&j, false);
    amx_json_begin_object(&j);
    amx_json_clip_details(&j, a, c);
    amx_json_key(&j, "lines"); /* [group, text] pairs for `show` */
    amx_json_begin_array(&j);
    detail_lines(&j, a, c);
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    return amx_json_take(&j, NULL);
}
