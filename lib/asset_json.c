/*
 * Format-specific details of a clip as JSON, written in one place for `dump --json` and for the
 * index (clips.details, which `show` prints). MechWarrior 3: the contract's "mw3" object
 * (docs/json.md), plus each sequence's event timeline.
 */
#include "animidx/animidx.h"
#include "animidx/json.h"
#include "animidx/mw3.h"

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

bool amx_clip_has_details(const amx_clip *c)
{
    return c->mw3 != NULL;
}

void amx_json_clip_details(amx_json *j, const amx_clip *c)
{
    if (c->mw3)
        mw3(j, c->mw3);
}

char *amx_clip_details_string(const amx_clip *c)
{
    if (!amx_clip_has_details(c))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    amx_json j;
    amx_json_init(&j, f, false);
    amx_json_begin_object(&j);
    amx_json_clip_details(&j, c);
    amx_json_end_object(&j);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
