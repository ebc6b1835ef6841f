#include "check_asset.h"

#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) \
    do { \
        printf("# check_asset: " __VA_ARGS__); \
        printf("\n"); \
        bad++; \
    } while (0)

static volatile size_t sink; /* keeps string walks from being optimised away */

static int check_str(const char *s, const char *what)
{
    if (!s) {
        printf("# check_asset: %s is NULL\n", what);
        return 1;
    }
    sink += strlen(s);
    return 0;
}

static int check_floats(const float *v, size_t n, const char *what)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            FAIL("%s[%zu] is not finite", what, i);
            break;
        }
    return bad;
}

static int check_clip(const amx_clip *c, uint32_t ci)
{
    int bad = 0;
    bad += check_str(c->name, "clip name");
    if (c->skeleton)
        bad += check_str(c->skeleton, "clip skeleton");
    if (c->track_count && !c->tracks)
        FAIL("clip %u: tracks NULL with count %u", ci, c->track_count);
    if (!(c->fps >= 0) || !isfinite(c->duration))
        FAIL("clip %u: fps/duration not finite or negative", ci);
    for (uint32_t t = 0; t < c->track_count; t++) {
        const amx_track *tr = &c->tracks[t];
        if (tr->bone)
            bad += check_str(tr->bone, "track bone");
        if (!c->has_samples)
            continue;
        if (!c->has_frames)
            FAIL("clip %u: samples without a frame count", ci);
        size_t n = c->frames;
        if (!tr->translation || !tr->rotation || !tr->scale || !tr->visibility) {
            FAIL("clip %u track %u: a sample array is missing", ci, t);
            continue;
        }
        bad += check_floats(tr->translation, n * 3, "translation");
        bad += check_floats(tr->rotation, n * 4, "rotation");
        bad += check_floats(tr->scale, n * 3, "scale");
        for (size_t f = 0; f < n; f++) {
            if (tr->visibility[f] > 1)
                FAIL("clip %u track %u: visibility[%zu] = %u", ci, t, f, tr->visibility[f]);
            if (tr->step && tr->step[f] > 1)
                FAIL("clip %u track %u: step[%zu] = %u", ci, t, f, tr->step[f]);
        }
    }
    return bad;
}

int check_asset(const amx_asset *a)
{
    int bad = 0;
    if (!a) {
        printf("# check_asset: NULL asset\n");
        return 1;
    }
    if ((unsigned)a->format >= AMX_FORMAT_COUNT)
        FAIL("format %d out of range", (int)a->format);
    if ((unsigned)a->status > AMX_ASSET_ERROR)
        FAIL("status %d out of range", (int)a->status);
    bad += check_str(a->version, "version");
    int errors = 0;
    for (uint32_t i = 0; i < a->finding_count; i++) {
        const amx_finding *f = &a->findings[i];
        if (!amx_code_get(f->code))
            FAIL("finding %u: code %d unknown", i, (int)f->code);
        if ((unsigned)f->severity > AMX_SEV_ERROR)
            FAIL("finding %u: severity %d", i, (int)f->severity);
        if (f->severity == AMX_SEV_ERROR)
            errors++;
        bad += check_str(f->message, "finding message");
        bad += check_str(f->context, "finding context");
        if (f->message && !f->message[0])
            FAIL("finding %u: empty message", i);
    }
    if (a->status == AMX_ASSET_OK && errors)
        FAIL("status ok with %d error findings", errors);
    if (a->status != AMX_ASSET_OK && a->finding_count == 0 && a->findings_dropped == 0)
        FAIL("status %s without findings", amx_asset_status_name(a->status));
    if (a->skeleton_count && !a->skeletons)
        FAIL("skeletons NULL with count");
    for (uint32_t s = 0; s < a->skeleton_count; s++) {
        const amx_skeleton *sk = &a->skeletons[s];
        bad += check_str(sk->name, "skeleton name");
        if (sk->bone_count && !sk->bones)
            FAIL("skeleton %u: bones NULL with count", s);
        for (uint32_t b = 0; b < sk->bone_count; b++) {
            bad += check_str(sk->bones[b].name, "bone name");
            int32_t p = sk->bones[b].parent;
            if (p < -1 || p >= (int32_t)b)
                FAIL("skeleton %u bone %u: parent %d not in [-1, %u)", s, b, p, b);
            bad += check_floats(sk->bones[b].matrix, 12, "bone matrix");
        }
    }
    if (a->clip_count && !a->clips)
        FAIL("clips NULL with count");
    for (uint32_t c = 0; c < a->clip_count; c++)
        bad += check_clip(&a->clips[c], c);
    if (a->model) {
        const amx_model *m = a->model;
        if ((m->mesh_count && !m->meshes) || (m->light_count && !m->lights) ||
            (m->connection_count && !m->connections) || (m->proxy_count && !m->proxies) ||
            (m->dazzle_count && !m->dazzles))
            FAIL("model: array NULL with count");
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const amx_mesh *me = &m->meshes[i];
            bad += check_str(me->name, "mesh name");
            if (me->submesh_count && !me->submeshes)
                FAIL("mesh %u: submeshes NULL with count", i);
            for (uint32_t s = 0; s < me->submesh_count; s++) {
                const amx_submesh *sm = &me->submeshes[s];
                bad += check_str(sm->shader, "shader");
                bad += check_str(sm->vertex_format, "vertex format");
                if (sm->param_count && !sm->params)
                    FAIL("mesh %u submesh %u: params NULL", i, s);
                for (uint32_t p = 0; p < sm->param_count; p++) {
                    bad += check_str(sm->params[p].name, "param name");
                    if (sm->params[p].type == AMX_PARAM_TEXTURE)
                        bad += check_str(sm->params[p].texture, "param texture");
                }
                if (sm->skin_bone_count && !sm->skin_bones)
                    FAIL("mesh %u submesh %u: skin NULL", i, s);
                for (uint32_t k = 0; k < sm->skin_bone_count; k++)
                    sink += sm->skin_bones[k];
            }
        }
        for (uint32_t i = 0; i < m->light_count; i++)
            bad += check_str(m->lights[i].name, "light name");
        for (uint32_t i = 0; i < m->proxy_count; i++)
            bad += check_str(m->proxies[i].name, "proxy name");
        for (uint32_t i = 0; i < m->dazzle_count; i++) {
            bad += check_str(m->dazzles[i].name, "dazzle name");
            bad += check_str(m->dazzles[i].texture, "dazzle texture");
        }
        for (uint32_t i = 0; i < m->connection_count; i++)
            sink += m->connections[i].object + m->connections[i].bone;
    }
    if (a->particle)
        bad += check_str(a->particle->name, "particle name");
    if (a->anim_set_count && !a->anim_sets)
        FAIL("anim_sets NULL with count");
    for (uint32_t i = 0; i < a->anim_set_count; i++) {
        const amx_anim_set *set = &a->anim_sets[i];
        bad += check_str(set->name, "anim set name");
        bad += check_str(set->skeleton, "anim set skeleton");
        if (set->clip_count && !set->clips)
            FAIL("anim set %u: clips NULL with count", i);
        for (uint32_t k = 0; k < set->clip_count; k++)
            bad += check_str(set->clips[k], "anim set clip");
    }
    if (a->object_count && !a->objects)
        FAIL("objects NULL with count");
    for (uint32_t i = 0; i < a->object_count; i++) {
        bad += check_str(a->objects[i].type, "object type");
        bad += check_str(a->objects[i].name, "object name");
        if (a->objects[i].variant_of)
            bad += check_str(a->objects[i].variant_of, "object variant");
    }
    if (a->state_count && !a->states)
        FAIL("states NULL with count");
    for (uint32_t i = 0; i < a->state_count; i++) {
        const amx_ini_state *st = &a->states[i];
        bad += check_str(st->module, "state module");
        bad += check_str(st->kind, "state kind");
        bad += check_str(st->flags, "state flags");
        bad += check_str(st->model, "state model");
        if (st->object < -1 || (st->object >= 0 && (uint32_t)st->object >= a->object_count))
            FAIL("state %u: object %d out of range (%u objects)", i, st->object, a->object_count);
    }
    if (a->ref_count && !a->refs)
        FAIL("refs NULL with count");
    for (uint32_t i = 0; i < a->ref_count; i++) {
        const amx_ref *r = &a->refs[i];
        bad += check_str(r->name, "ref name");
        bad += check_str(r->tag, "ref tag");
        if (r->object < -1 || (r->object >= 0 && (uint32_t)r->object >= a->object_count))
            FAIL("ref %u: object %d out of range (%u objects)", i, r->object, a->object_count);
        if ((unsigned)r->kind >= AMX_REF_KIND_COUNT)
            FAIL("ref %u: kind %d", i, (int)r->kind);
        if (r->state < -1 || (r->state >= 0 && (uint32_t)r->state >= a->state_count))
            FAIL("ref %u: state %d out of range (%u states)", i, r->state, a->state_count);
        if (r->model)
            bad += check_str(r->model, "ref model");
    }
    if (a->archive) {
        if (a->archive->entry_count && !a->archive->entries)
            FAIL("archive: entries NULL with count");
        for (uint32_t i = 0; i < a->archive->entry_count; i++)
            bad += check_str(a->archive->entries[i].name, "entry name");
    }
    return bad;
}

static void one(const unsigned char *p, size_t n, const amx_decode_opts *opts, mutate_stats *st)
{
    amx_asset *a = NULL;
    amx_status s = amx_decode(p, n, opts, &a);
    st->decodes++;
    if (s != AMX_OK) {
        printf("# mutate: amx_decode returned %s for %zu bytes\n", amx_status_str(s), n);
        st->violations++;
        return;
    }
    st->statuses[a->status]++;
    st->violations += (size_t)check_asset(a);
    amx_asset_free(a);
}

void mutate_all(const unsigned char *data, size_t len, size_t stride,
                const amx_decode_opts *user_opts, mutate_stats *st)
{
    amx_decode_opts opts = user_opts ? *user_opts : (amx_decode_opts){ 0 };
    opts.samples = true;
    if (stride == 0)
        stride = 1;
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy) {
        st->violations++;
        return;
    }
    /* Every truncation goes into an exact-size heap block, so ASan catches a read past it. */
    for (size_t n = 0; n < len; n += stride) {
        unsigned char *t = malloc(n ? n : 1);
        if (!t) {
            st->violations++;
            break;
        }
        memcpy(t, data, n);
        one(t, n, &opts, st);
        free(t);
    }
    memcpy(copy, data, len);
    static const int patches[3] = { 0x00, 0xFF, -1 };
    for (size_t i = 0; i < len; i += stride) {
        for (int k = 0; k < 3; k++) {
            unsigned char orig = copy[i];
            copy[i] = patches[k] >= 0 ? (unsigned char)patches[k] : (unsigned char)(orig + 1);
            one(copy, len, &opts, st);
            copy[i] = orig;
        }
    }
    free(copy);
}

const amx_finding *test_find(const amx_asset *a, amx_code code, int64_t offset)
{
    for (uint32_t i = 0; i < a->finding_count; i++)
        if (a->findings[i].code == code && (offset == TEST_ANY_OFFSET || a->findings[i].offset == offset))
            return &a->findings[i];
    return NULL;
}

int test_count_code(const amx_asset *a, amx_code code)
{
    int n = 0;
    for (uint32_t i = 0; i < a->finding_count; i++)
        n += a->findings[i].code == code;
    return n;
}

int test_count_severity(const amx_asset *a, amx_severity sev)
{
    int n = 0;
    for (uint32_t i = 0; i < a->finding_count; i++)
        n += a->findings[i].severity == sev;
    return n;
}

void test_print_findings(const amx_asset *a)
{
    for (uint32_t i = 0; i < a->finding_count; i++)
        printf("# finding %s/%s @%lld [%s] %s\n", amx_code_get(a->findings[i].code)->name,
               amx_severity_name(a->findings[i].severity), (long long)a->findings[i].offset,
               a->findings[i].context, a->findings[i].message);
}

amx_asset *test_decode(const uint8_t *p, size_t n, const amx_decode_opts *opts)
{
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode(p, n, opts, &a), AMX_OK);
    CHECK(a != NULL);
    if (a)
        CHECK_EQ(check_asset(a), 0);
    return a;
}
