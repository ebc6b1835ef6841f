/* animidx dump: decode files without an index; text for people, JSON Lines for tools
 * (docs/json.md). ARCHIVE#NAME decodes one member of an archive. */
#include "cli.h"

#include "animidx/json.h"
#include "animidx/mw3.h"
#include "animidx/w3d.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static amx_severity effective(const amx_config *cfg, const amx_finding *f)
{
    return cfg->severity_set[f->code] ? cfg->severity[f->code] : f->severity;
}

static const char *const channel_names[] = { "translation", "rotation", "scale", "visibility", "step" };

static void json_floats(amx_json *j, const float *v, uint32_t frames, int width)
{
    amx_json_begin_array(j);
    for (uint32_t f = 0; f < frames; f++) {
        amx_json_begin_array(j);
        for (int k = 0; k < width; k++)
            amx_json_number(j, v[(size_t)f * (size_t)width + (size_t)k]);
        amx_json_end_array(j);
    }
    amx_json_end_array(j);
}

static void json_bits(amx_json *j, const uint8_t *v, uint32_t frames)
{
    amx_json_begin_array(j);
    for (uint32_t f = 0; f < frames; f++)
        amx_json_int(j, v[f]);
    amx_json_end_array(j);
}

static void json_channels(amx_json *j, uint32_t ch)
{
    /* Contract order: rotation, translation, scale, visibility, step. */
    static const uint32_t order[] = { AMX_CH_ROTATION, AMX_CH_TRANSLATION, AMX_CH_SCALE,
                                      AMX_CH_VISIBILITY, AMX_CH_STEP };
    static const char *const names[] = { "rotation", "translation", "scale", "visibility", "step" };
    amx_json_begin_array(j);
    for (size_t i = 0; i < 5; i++)
        if (ch & order[i])
            amx_json_string(j, names[i]);
    amx_json_end_array(j);
}

static void json_objects(amx_json *j, const char *key, const amx_w3d_sub_object *o, uint32_t n)
{
    amx_json_key(j, key);
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < n; i++) {
        amx_json_begin_object(j);
        amx_json_kstring(j, "name", o[i].name);
        amx_json_kint(j, "bone", o[i].bone);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
}

/* W3D models: meshes with their container and skin flag, HLODs with their levels, HMODELs. */
static void json_w3d(amx_json *j, const amx_w3d_info *w)
{
    amx_json_key(j, "w3d");
    amx_json_begin_object(j);
    amx_json_key(j, "meshes");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < w->mesh_count; i++) {
        const amx_w3d_mesh *m = &w->meshes[i];
        amx_json_begin_object(j);
        amx_json_kstring(j, "name", m->name);
        amx_json_kstring(j, "container", m->container);
        amx_json_kbool(j, "skin", m->skin);
        amx_json_kint(j, "vertices", m->vertices);
        amx_json_kint(j, "triangles", m->triangles);
        amx_json_kint(j, "materials", m->materials);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    amx_json_key(j, "hlods");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < w->hlod_count; i++) {
        const amx_w3d_hlod *h = &w->hlods[i];
        amx_json_begin_object(j);
        amx_json_kstring(j, "name", h->name);
        amx_json_kstring(j, "hierarchy", h->hierarchy);
        amx_json_key(j, "lods");
        amx_json_begin_array(j);
        for (uint32_t k = 0; k < h->lod_count; k++) {
            amx_json_begin_object(j);
            amx_json_knumber(j, "max_screen_size", h->lods[k].max_screen_size);
            json_objects(j, "objects", h->lods[k].objects, h->lods[k].object_count);
            amx_json_end_object(j);
        }
        amx_json_end_array(j);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    amx_json_key(j, "hmodels");
    amx_json_begin_array(j);
    for (uint32_t i = 0; i < w->hmodel_count; i++) {
        const amx_w3d_hmodel *h = &w->hmodels[i];
        amx_json_begin_object(j);
        amx_json_kstring(j, "name", h->name);
        amx_json_kstring(j, "hierarchy", h->hierarchy);
        json_objects(j, "nodes", h->nodes, h->node_count);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
    amx_json_end_object(j);
}

static void print_json(const char *path, const amx_asset *a, const amx_config *cfg, bool samples,
                       const amx_include_reader *inc)
{
    amx_json j;
    amx_json_init(&j, stdout, false);
    amx_json_begin_object(&j);
    amx_json_kint(&j, "schema", AMX_JSON_SCHEMA);
    amx_json_kstring(&j, "path", path);
    amx_json_kstring(&j, "format", amx_format_name(a->format));
    amx_json_kstring(&j, "version", a->version);
    amx_json_kstring(&j, "status", amx_asset_status_name(a->status));

    amx_json_key(&j, "skeletons");
    amx_json_begin_array(&j);
    for (uint32_t s = 0; s < a->skeleton_count; s++) {
        const amx_skeleton *sk = &a->skeletons[s];
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "name", sk->name);
        amx_json_key(&j, "bones");
        amx_json_begin_array(&j);
        for (uint32_t b = 0; b < sk->bone_count; b++) {
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "name", sk->bones[b].name);
            amx_json_kint(&j, "parent", sk->bones[b].parent);
            amx_json_kbool(&j, "visible", sk->bones[b].visible != 0);
            amx_json_kint(&j, "billboard", sk->bones[b].billboard);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);

    amx_json_key(&j, "clips");
    amx_json_begin_array(&j);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const amx_clip *cl = &a->clips[c];
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "name", cl->name);
        amx_json_kstring(&j, "skeleton", cl->skeleton);
        amx_json_key(&j, "frames");
        if (cl->has_frames)
            amx_json_int(&j, cl->frames);
        else
            amx_json_null(&j);
        amx_json_knumber(&j, "fps", cl->fps);
        amx_json_knumber(&j, "duration", cl->duration);
        amx_json_key(&j, "tracks");
        amx_json_begin_array(&j);
        for (uint32_t t = 0; t < cl->track_count; t++) {
            const amx_track *tr = &cl->tracks[t];
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "bone", tr->bone);
            amx_json_kint(&j, "bone_index", tr->bone_index);
            amx_json_key(&j, "channels");
            json_channels(&j, tr->channels);
            if (samples && cl->has_samples) {
                amx_json_key(&j, "samples");
                amx_json_begin_object(&j);
                amx_json_key(&j, "rotation");
                json_floats(&j, tr->rotation, cl->frames, 4);
                amx_json_key(&j, "translation");
                json_floats(&j, tr->translation, cl->frames, 3);
                amx_json_key(&j, "scale");
                json_floats(&j, tr->scale, cl->frames, 3);
                amx_json_key(&j, "visibility");
                json_bits(&j, tr->visibility, cl->frames);
                if (tr->step) {
                    amx_json_key(&j, "step");
                    json_bits(&j, tr->step, cl->frames);
                }
                amx_json_end_object(&j);
            }
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_clip_details(&j, a, cl);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);

    if (a->model) {
        const amx_model *m = a->model;
        amx_json_key(&j, "model");
        amx_json_begin_object(&j);
        amx_json_kint(&j, "vertices", m->total_vertices);
        amx_json_kint(&j, "triangles", m->total_triangles);
        amx_json_key(&j, "meshes");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const amx_mesh *me = &m->meshes[i];
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "name", me->name);
            amx_json_kint(&j, "materials", me->material_count);
            amx_json_kbool(&j, "hidden", me->hidden);
            amx_json_kbool(&j, "collision", me->collision);
            amx_json_key(&j, "submeshes");
            amx_json_begin_array(&j);
            for (uint32_t k = 0; k < me->submesh_count; k++) {
                const amx_submesh *sm = &me->submeshes[k];
                amx_json_begin_object(&j);
                amx_json_kstring(&j, "shader", sm->shader);
                amx_json_kint(&j, "vertices", sm->vertices);
                amx_json_kint(&j, "triangles", sm->triangles);
                amx_json_kstring(&j, "vertex_format", sm->vertex_format);
                amx_json_kint(&j, "skin_bones", sm->skin_bone_count);
                amx_json_kbool(&j, "collision_tree", sm->has_collision);
                amx_json_key(&j, "params");
                amx_json_begin_array(&j);
                for (uint32_t p = 0; p < sm->param_count; p++) {
                    const amx_shader_param *pa = &sm->params[p];
                    amx_json_begin_object(&j);
                    amx_json_kstring(&j, "name", pa->name);
                    amx_json_key(&j, "value");
                    switch (pa->type) {
                    case AMX_PARAM_INT: amx_json_int(&j, pa->i); break;
                    case AMX_PARAM_FLOAT: amx_json_number(&j, pa->f[0]); break;
                    case AMX_PARAM_TEXTURE: amx_json_string(&j, pa->texture); break;
                    default: {
                        int n = pa->type == AMX_PARAM_FLOAT3 ? 3 : 4;
                        amx_json_begin_array(&j);
                        for (int q = 0; q < n; q++)
                            amx_json_number(&j, pa->f[q]);
                        amx_json_end_array(&j);
                    }
                    }
                    amx_json_end_object(&j);
                }
                amx_json_end_array(&j);
                amx_json_end_object(&j);
            }
            amx_json_end_array(&j);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_key(&j, "lights");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < m->light_count; i++) {
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "name", m->lights[i].name);
            amx_json_kint(&j, "type", m->lights[i].type);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_key(&j, "proxies");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < m->proxy_count; i++) {
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "name", m->proxies[i].name);
            amx_json_kint(&j, "bone", m->proxies[i].bone);
            amx_json_kbool(&j, "hidden", m->proxies[i].hidden);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_key(&j, "connections");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < m->connection_count; i++) {
            amx_json_begin_object(&j);
            amx_json_kint(&j, "object", m->connections[i].object);
            amx_json_kint(&j, "bone", m->connections[i].bone);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
        amx_json_kint(&j, "dazzles", m->dazzle_count);
        amx_json_end_object(&j);
    }
    if (a->skeleton_ref_count) {
        amx_json_key(&j, "skeleton_refs");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < a->skeleton_ref_count; i++) {
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "what", a->skeleton_refs[i].what);
            amx_json_kstring(&j, "skeleton", a->skeleton_refs[i].skeleton);
            amx_json_kint(&j, "bones_used", a->skeleton_refs[i].bones_used);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
    }
    if (a->w3d)
        json_w3d(&j, a->w3d);
    if (a->particle) {
        amx_json_key(&j, "particle");
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "name", a->particle->name);
        amx_json_kint(&j, "emitters", a->particle->emitter_count);
        amx_json_end_object(&j);
    }
    if (a->object_count) {
        amx_json_key(&j, "game_objects");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < a->object_count; i++) {
            const amx_game_object *o = &a->objects[i];
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "type", o->type);
            amx_json_kstring(&j, "name", o->name);
            amx_json_kstring(&j, "variant_of", o->variant_of);
            amx_json_kint(&j, "line", o->line);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
    }
    if (a->state_count) {
        amx_json_key(&j, "states");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < a->state_count; i++) {
            const amx_ini_state *st = &a->states[i];
            amx_json_begin_object(&j);
            amx_json_kint(&j, "object", st->object);
            amx_json_kstring(&j, "module", st->module);
            amx_json_kstring(&j, "kind", st->kind);
            amx_json_kstring(&j, "flags", st->flags);
            amx_json_kstring(&j, "model", st->model);
            amx_json_kint(&j, "line", st->line);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
    }
    if (a->ref_count) {
        amx_json_key(&j, "references");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < a->ref_count; i++) {
            const amx_ref *r = &a->refs[i];
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "kind", amx_ref_kind_name(r->kind));
            amx_json_kstring(&j, "tag", r->tag);
            amx_json_kstring(&j, "name", r->name);
            amx_json_key(&j, "object");
            if (r->object >= 0)
                amx_json_int(&j, r->object);
            else
                amx_json_null(&j);
            amx_json_key(&j, "line");
            if (r->line)
                amx_json_int(&j, r->line);
            else
                amx_json_null(&j);
            amx_json_key(&j, "offset");
            if (r->offset >= 0)
                amx_json_int(&j, r->offset);
            else
                amx_json_null(&j);
            if (r->state >= 0)
                amx_json_kint(&j, "state", r->state);
            if (r->model)
                amx_json_kstring(&j, "model", r->model);
            if (r->slot)
                amx_json_kstring(&j, "slot", r->slot);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
    }
    if (inc && amx_include_reader_count(inc)) {
        amx_json_key(&j, "includes_read");
        amx_json_begin_array(&j);
        for (size_t i = 0; i < amx_include_reader_count(inc); i++)
            amx_json_string(&j, amx_include_reader_path(inc, i));
        amx_json_end_array(&j);
    }
    if (a->archive) {
        amx_json_key(&j, "entries");
        amx_json_begin_array(&j);
        for (uint32_t i = 0; i < a->archive->entry_count; i++) {
            const amx_archive_entry *e = &a->archive->entries[i];
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "name", e->name);
            amx_json_kint(&j, "offset", (int64_t)e->offset);
            amx_json_kint(&j, "size", (int64_t)e->size);
            amx_json_kbool(&j, "valid", e->valid);
            amx_json_end_object(&j);
        }
        amx_json_end_array(&j);
    }

    amx_json_key(&j, "issues");
    amx_json_begin_array(&j);
    for (uint32_t i = 0; i < a->finding_count; i++) {
        const amx_finding *f = &a->findings[i];
        amx_severity sev = effective(cfg, f);
        if (sev == AMX_SEV_OFF)
            continue;
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "code", amx_code_get(f->code)->name);
        amx_json_kstring(&j, "severity", amx_severity_name(sev));
        amx_json_kstring(&j, "message", f->message);
        amx_json_key(&j, "offset");
        if (f->offset >= 0)
            amx_json_int(&j, f->offset);
        else
            amx_json_null(&j);
        amx_json_kstring(&j, "context", f->context);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    if (a->findings_dropped)
        amx_json_kint(&j, "issues_dropped", a->findings_dropped);
    amx_json_end_object(&j);
    fputc('\n', stdout);
}

static void print_vec(const float *v, int n)
{
    putchar('(');
    for (int i = 0; i < n; i++)
        cli_printf("%s%.4g", i ? ", " : "", (double)v[i]);
    putchar(')');
}

static void print_mw3_sequence(const amx_mw3_sequence *s)
{
    cli_printf("      sequence %s: %u events\n", s->name, s->event_count);
    for (uint32_t e = 0; e < s->event_count; e++) {
        const amx_mw3_event *ev = &s->events[e];
        cli_printf("        t=%-8.3g %-24s%s%s\n", (double)ev->start_time, ev->type_name,
                   ev->target ? " -> " : "", ev->target ? ev->target : "");
    }
}

static void print_mw3(const amx_mw3_def *d)
{
    cli_printf("    definition %u '%s' (%s), activation %u, flags 0x%x; %u nodes, %u lights, "
               "%u puffers, %u sounds, %u APCs (min %u), %u anim refs\n",
               d->index, d->name, d->anim_name, d->activation, d->flags, d->node_count,
               d->light_count, d->puffer_count, d->dynamic_sound_count + d->static_sound_count,
               d->apc_count, d->apc_min_to_satisfy, d->anim_ref_count);
    for (uint32_t i = 0; i < d->apc_count; i++)
        cli_printf("      APC %u: type %u '%s'%s%s\n", i, d->apcs[i].type, d->apcs[i].name,
                   d->apcs[i].optional ? ", optional" : "", d->apcs[i].active ? ", active" : "");
    print_mw3_sequence(&d->reset);
    for (uint32_t i = 0; i < d->sequence_count; i++)
        print_mw3_sequence(&d->sequences[i]);
}

static void print_text(const char *path, const amx_asset *a, const amx_config *cfg, bool samples,
                       const amx_include_reader *inc)
{
    cli_printf("%s: %s", path, amx_format_name(a->format));
    if (a->version[0])
        cli_printf(" version %s", a->version);
    cli_printf(", %s\n", amx_asset_status_name(a->status));
    for (uint32_t s = 0; s < a->skeleton_count; s++) {
        const amx_skeleton *sk = &a->skeletons[s];
        cli_printf("  skeleton %s: %u bones\n", sk->name, sk->bone_count);
        for (uint32_t b = 0; b < sk->bone_count; b++)
            cli_printf("    %3u %-32s parent %d%s%s\n", b, sk->bones[b].name, sk->bones[b].parent,
                       sk->bones[b].visible ? "" : ", hidden",
                       sk->bones[b].billboard ? ", billboard" : "");
    }
    if (a->model) {
        const amx_model *m = a->model;
        cli_printf(
            "  model: %u meshes, %u vertices, %u triangles, %u lights, %u proxies, %u dazzles\n",
            m->mesh_count, m->total_vertices, m->total_triangles, m->light_count, m->proxy_count,
            m->dazzle_count);
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const amx_mesh *me = &m->meshes[i];
            cli_printf("    mesh %s: %u materials%s%s\n", me->name, me->material_count,
                       me->hidden ? ", hidden" : "", me->collision ? ", collision" : "");
            for (uint32_t k = 0; k < me->submesh_count; k++) {
                const amx_submesh *sm = &me->submeshes[k];
                cli_printf("      %s%s%u vertices, %u triangles%s%s%s\n", sm->shader,
                           sm->shader[0] ? ": " : "", sm->vertices, sm->triangles,
                           sm->vertex_format[0] ? ", " : "", sm->vertex_format,
                           sm->skin_bone_count ? ", skinned" : "");
            }
        }
        for (uint32_t i = 0; i < m->proxy_count; i++)
            cli_printf("    proxy %s on bone %u%s\n", m->proxies[i].name, m->proxies[i].bone,
                       m->proxies[i].hidden ? " (hidden)" : "");
        for (uint32_t i = 0; i < m->light_count; i++)
            cli_printf("    light %s (type %u)\n", m->lights[i].name, m->lights[i].type);
    }
    for (uint32_t i = 0; i < a->skeleton_ref_count; i++)
        cli_printf("  %s is built on skeleton %s (uses %u bones)\n", a->skeleton_refs[i].what,
                   a->skeleton_refs[i].skeleton, a->skeleton_refs[i].bones_used);
    if (a->particle)
        cli_printf("  particle system '%s': %u emitters\n", a->particle->name,
                   a->particle->emitter_count);
    if (a->object_count)
        cli_printf("  %u game objects\n", a->object_count);
    for (uint32_t i = 0, r = 0; i < a->object_count; i++) {
        const amx_game_object *o = &a->objects[i];
        cli_printf("    line %-6u %s '%s'%s%s\n", o->line, o->type, o->name,
                   o->variant_of ? ", a variant of " : "", o->variant_of ? o->variant_of : "");
        for (; r < a->ref_count && a->refs[r].object <= (int32_t)i; r++)
            if (a->refs[r].object == (int32_t)i)
                cli_printf("      line %-6u %s = %s\n", a->refs[r].line, a->refs[r].tag,
                           a->refs[r].name[0] ? a->refs[r].name : "(empty)");
    }
    for (size_t i = 0; inc && i < amx_include_reader_count(inc); i++)
        cli_printf("  #include read in place: %s\n", amx_include_reader_path(inc, i));
    if (a->archive) {
        cli_printf("  archive: %u entries\n", a->archive->entry_count);
        for (uint32_t i = 0; i < a->archive->entry_count; i++)
            cli_printf("    %-48s %10llu bytes at %llu%s\n", a->archive->entries[i].name,
                       (unsigned long long)a->archive->entries[i].size,
                       (unsigned long long)a->archive->entries[i].offset,
                       a->archive->entries[i].valid ? "" : " (outside the archive)");
    }
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const amx_clip *cl = &a->clips[c];
        cli_printf("  clip %s -> skeleton %s: ", cl->name,
                   cl->skeleton ? cl->skeleton : "(unknown)");
        if (cl->has_frames)
            cli_printf("%u frames @ %.4g fps (%.4g s), ", cl->frames, (double)cl->fps,
                       cl->duration);
        cli_printf("%u tracks\n", cl->track_count);
        if (cl->mw3)
            print_mw3(cl->mw3);
        for (uint32_t t = 0; t < cl->track_count; t++) {
            const amx_track *tr = &cl->tracks[t];
            cli_printf("    bone %3d %-32s", tr->bone_index, tr->bone ? tr->bone : "");
            for (int k = 0; k < 5; k++)
                if (tr->channels & (1u << k))
                    cli_printf(" %s", channel_names[k]);
            putchar('\n');
            if (!samples || !cl->has_samples)
                continue;
            for (uint32_t f = 0; f < cl->frames; f++) {
                cli_printf("      %4u t", f);
                print_vec(tr->translation + (size_t)f * 3, 3);
                cli_printf(" r");
                print_vec(tr->rotation + (size_t)f * 4, 4);
                cli_printf(" s");
                print_vec(tr->scale + (size_t)f * 3, 3);
                cli_printf(" v%u%s\n", tr->visibility[f], tr->step && tr->step[f] ? " step" : "");
            }
        }
    }
    unsigned shown = 0;
    for (uint32_t i = 0; i < a->finding_count; i++) {
        const amx_finding *f = &a->findings[i];
        amx_severity sev = effective(cfg, f);
        if (sev == AMX_SEV_OFF)
            continue;
        if (!shown++)
            cli_printf("  findings:\n");
        cli_printf("    %s%-7s%s %s", cli_sev_on(sev), amx_severity_name(sev), cli_color_off(),
                   amx_code_get(f->code)->name);
        if (f->offset >= 0)
            cli_printf(" @%lld", (long long)f->offset);
        if (f->context[0])
            cli_printf(" (%s)", f->context);
        cli_printf(": %s\n", f->message);
    }
    if (a->findings_dropped) {
        char msg[256];
        amx_findings_dropped_message(a, msg, sizeof msg);
        cli_printf("    ... %s\n", msg);
    }
}

/* Reads a whole regular file. Anything else is refused before it is read, as scan skips it: a
 * FIFO would block for ever, a device never end. *skipped tells that case from a read error. */
static unsigned char *read_regular(const char *path, size_t *len, bool *skipped, char *err,
                                   size_t errlen)
{
    amx_read_why why;
    unsigned char *data = amx_read_regular(path, UINT64_MAX, len, &why, err, errlen);
    *skipped = why == AMX_READ_NOT_REGULAR;
    if (*skipped) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, "; skipped");
    }
    return data;
}

/* Decodes `arg` (a file, or ARCHIVE#MEMBER); returns the exit status for it. */
static int dump_one(const char *arg, const amx_config *cfg, bool json, bool samples,
                    uint32_t max_frames)
{
    char err[1024];
    const char *hash = strchr(arg, '#');
    char *file = strdup(arg);
    if (!file)
        return EXIT_IO;
    if (hash)
        file[hash - arg] = '\0';
    size_t len = 0;
    bool skipped = false;
    err[0] = '\0';
    unsigned char *data = read_regular(file, &len, &skipped, err, sizeof err);
    if (!data && hash && !skipped) {
        /* A file whose name really contains '#'. */
        free(file);
        file = strdup(arg);
        hash = NULL;
        err[0] = '\0';
        data = file ? read_regular(file, &len, &skipped, err, sizeof err) : NULL;
    }
    if (!data) {
        cli_error("%s", err);
        free(file);
        return EXIT_IO;
    }
    /* A [root PATH] game setting that holds the file applies, as it does in a scan. */
    char real[AMX_PATH_MAX];
    bool canonical_ok = amx_os_canonical(file, real, sizeof real) == 0;
    const char *game = canonical_ok ? amx_config_game(cfg, real) : NULL;
    amx_decode_opts opts = { .samples = samples, .file_name = file, .game = game,
                             .max_sample_frames = max_frames };
    const unsigned char *span = data;
    size_t span_len = len;
    amx_asset *archive = NULL;
    void *member_buf = NULL;
    if (hash) {
        /* the member is unpacked once, below, not also to check the archive */
        if (amx_decode(data, len, &(amx_decode_opts){ .file_name = file, .game = game,
                                                       .unpack_later = true }, &archive) != AMX_OK ||
            !archive->archive) {
            cli_error("%s: not an archive, so '%s' cannot be found in it", file, hash + 1);
            amx_asset_free(archive);
            free(data);
            free(file);
            return EXIT_USAGE;
        }
        int64_t found = amx_archive_find(archive, hash + 1);
        uint32_t index = found < 0 ? 0 : (uint32_t)found;
        if (found < 0) {
            cli_error("%s: no entry '%s'; list the archive with 'animidx dump %s'", file, hash + 1,
                      file);
            amx_asset_free(archive);
            free(data);
            free(file);
            return EXIT_USAGE;
        }
        if (amx_archive_member(archive, data, len, index, &span, &span_len, &member_buf, err,
                               sizeof err) != AMX_OK) {
            cli_error("%s: %s", file, err);
            amx_asset_free(archive);
            free(data);
            free(file);
            return EXIT_FINDINGS;
        }
        /* as stored: names the clip as the index does */
        opts.file_name = archive->archive->entries[index].name;
    }
    /* a BFME INI file's #include lines inside blocks are read in place, as a scan reads them:
     * from below the game's directory (Data/INI beside Art), else the file's own directory */
    amx_include_reader *inc = NULL;
    if (!hash && canonical_ok && amx_probe(data, len) == AMX_FMT_SAGE_INI) {
        size_t at = cli_sage_game_root(real, false);
        char root[AMX_PATH_MAX];
        snprintf(root, sizeof root, "%s", real);
        char *slash = strrchr(root, '/');
        size_t fs_root = amx_os_path_root_len(root); /* "/" or "C:/" stays whole */
        if (at)
            root[at] = '\0';
        else if (slash)
            root[(size_t)(slash - root) < fs_root ? fs_root : (size_t)(slash - root)] = '\0';
        if (!(inc = amx_include_reader_new(root, file, real))) {
            cli_error("out of memory");
            amx_asset_free(archive);
            free(member_buf);
            free(data);
            free(file);
            return EXIT_IO;
        }
        opts.read_include = amx_include_reader_read;
        opts.include_user = inc;
    }
    amx_asset *a = NULL;
    if (amx_decode(span, span_len, &opts, &a) != AMX_OK) {
        amx_include_reader_free(inc);
        cli_error("%s: out of memory", arg);
        amx_asset_free(archive);
        free(member_buf);
        free(data);
        free(file);
        return EXIT_IO;
    }
    /* the path as every output spells it: with '/' (Windows: "Data\\X.ALA" is Data/X.ALA) */
    char *shown = strdup(arg);
    if (shown)
        amx_os_path_normalize(shown);
    if (json)
        print_json(shown ? shown : arg, a, cfg, samples, inc);
    else
        print_text(shown ? shown : arg, a, cfg, samples, inc);
    amx_include_reader_free(inc);
    free(shown);
    int rc = EXIT_OK;
    for (uint32_t i = 0; i < a->finding_count; i++)
        if (effective(cfg, &a->findings[i]) == AMX_SEV_ERROR)
            rc = EXIT_FINDINGS;
    amx_asset_free(a);
    amx_asset_free(archive);
    free(member_buf);
    free(data);
    free(file);
    return rc;
}

int cmd_dump(cli_opts *o, amx_config *cfg)
{
    if (o->nargs == 0) {
        cli_error("dump: give one or more files, e.g. 'animidx dump %s'",
                  amx_os_pick("Data/Art/Models/X.ALO", "Data\\Art\\Models\\X.ALO"));
        return EXIT_USAGE;
    }
    if (o->max_frames >= 0 && !o->samples) {
        cli_error("dump: --max-frames goes with --samples (it is the longest clip sampled)");
        return EXIT_USAGE;
    }
    int worst = EXIT_OK;
    uint32_t max_frames = o->max_frames < 0 ? 0 : o->max_frames == 0 ? UINT32_MAX
                                                                   : (uint32_t)o->max_frames;
    for (int i = 0; i < o->nargs; i++) {
        int rc = dump_one(o->args[i], cfg, o->json, o->samples, max_frames);
        if (rc == EXIT_IO || rc == EXIT_USAGE)
            worst = worst == EXIT_OK || worst == EXIT_FINDINGS ? rc : worst;
        else if (rc == EXIT_FINDINGS && worst == EXIT_OK)
            worst = rc;
    }
    fflush(stdout);
    return worst;
}
