/* amx_decode: the registry of formats, content probing, and the services decoders share
 * (arena allocation, findings). */
#include "common/grow.h"
#include "decoder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* Probes run in this order; the first that accepts the content wins. */
static const amx_format_entry format_table[] = {
    { .format = AMX_FMT_ALAMO_ALO, .name = "alamo-alo", .extensions = ".alo", .decoder_version = 3,
      .is_archive = false, .probe = amx__alo_probe_model, .decode = amx__alo_decode },
    { .format = AMX_FMT_ALAMO_PARTICLE, .name = "alamo-particle", .extensions = ".alo", .decoder_version = 2,
      .is_archive = false, .probe = amx__alo_probe_particle, .decode = amx__alo_decode },
    { .format = AMX_FMT_ALAMO_ALA, .name = "alamo-ala", .extensions = ".ala", .decoder_version = 3,
      .is_archive = false, .probe = amx__ala_probe, .decode = amx__ala_decode },
    { .format = AMX_FMT_MEG, .name = "meg", .extensions = ".meg", .decoder_version = 2,
      .is_archive = true, .probe = amx__meg_probe, .decode = amx__meg_decode },
    { .format = AMX_FMT_MW3_ANIM, .name = "mw3-anim", .extensions = "anim.zbd", .decoder_version = 1,
      .is_archive = false, .clips_unbound = true, .probe = amx__mw3_probe,
      .decode = amx__mw3_decode },
    { .format = AMX_FMT_W3D, .name = "w3d", .extensions = ".w3d", .decoder_version = 3,
      .is_archive = false, .probe = amx__w3d_probe, .decode = amx__w3d_decode },
    { .format = AMX_FMT_BIG, .name = "big", .extensions = ".big", .decoder_version = 1,
      .is_archive = true, .probe = amx__big_probe, .decode = amx__big_decode },
    /* Text: game object XML (no extension: a .xml file that is not XML is skipped silently) */
    { .format = AMX_FMT_ALAMO_XML, .name = "alamo-xml", .extensions = "", .decoder_version = 6,
      .is_archive = false, .probe = amx__xml_probe, .decode = amx__xml_decode },
    /* (a .ini file that is not a SAGE INI, such as a configuration file, is skipped silently) */
    { .format = AMX_FMT_SAGE_INI, .name = "sage-ini", .extensions = "", .decoder_version = 9,
      .is_archive = false, .probe = amx__ini_probe, .decode = amx__ini_decode },
    /* Metroid Prime files have weak or no signatures: their probes check structure, and
     * run last. */
    { .format = AMX_FMT_MP_PAK, .name = "mp-pak", .extensions = ".pak", .decoder_version = 1,
      .is_archive = true, .probe = amx__mp_pak_probe, .decode = amx__mp_pak_decode,
      .unpack = amx__mp_pak_unpack },
    { .format = AMX_FMT_MP_ANCS, .name = "mp-ancs", .extensions = ".ancs", .decoder_version = 1,
      .is_archive = false, .probe = amx__mp_ancs_probe, .decode = amx__mp_ancs_decode },
    { .format = AMX_FMT_MP_ANIM, .name = "mp-anim", .extensions = ".anim", .decoder_version = 1,
      .is_archive = false, .probe = amx__mp_anim_probe, .decode = amx__mp_anim_decode },
    { .format = AMX_FMT_MP_CINF, .name = "mp-cinf", .extensions = ".cinf", .decoder_version = 1,
      .is_archive = false, .probe = amx__mp_cinf_probe, .decode = amx__mp_cinf_decode },
};

#define FORMAT_TABLE_LEN (sizeof format_table / sizeof format_table[0])

const amx_format_entry *amx__format_entry(amx_format fmt)
{
    for (size_t i = 0; i < FORMAT_TABLE_LEN; i++)
        if (format_table[i].format == fmt)
            return &format_table[i];
    return NULL;
}

const char *amx_format_name(amx_format fmt)
{
    const amx_format_entry *e = amx__format_entry(fmt);
    return e ? e->name : "unknown";
}

bool amx_format_parse(const char *name, amx_format *out)
{
    for (size_t i = 0; i < FORMAT_TABLE_LEN; i++) {
        if (strcasecmp(name, format_table[i].name) == 0) {
            *out = format_table[i].format;
            return true;
        }
    }
    if (strcasecmp(name, "unknown") == 0) {
        *out = AMX_FMT_UNKNOWN;
        return true;
    }
    return false;
}

/* Bump when a probe changes what it recognises. */
#define PROBE_VERSION 7

int amx_format_decoder_version(amx_format fmt)
{
    const amx_format_entry *e = amx__format_entry(fmt);
    if (e)
        return e->decoder_version;
    /* Files of no known format are skipped under this version: adding a format or changing a
     * probe changes it, so the next scan looks at those files again. */
    return (int)FORMAT_TABLE_LEN * 1000 + PROBE_VERSION;
}

bool amx_format_clips_bind(amx_format fmt)
{
    const amx_format_entry *e = amx__format_entry(fmt);
    return e && !e->clips_unbound;
}

bool amx_format_is_archive(amx_format fmt)
{
    const amx_format_entry *e = amx__format_entry(fmt);
    return e && e->is_archive;
}

bool amx_extension_known(const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    const char *dot = strrchr(base, '.');
    size_t n = dot ? strlen(dot) : 0, nb = strlen(base);
    for (size_t i = 0; i < FORMAT_TABLE_LEN; i++) {
        for (const char *e = format_table[i].extensions; e && *e;) {
            size_t k = strcspn(e, " ");
            /* ".ext" matches the extension; "name.ext" the whole file name */
            if (e[0] == '.' ? dot && k == n && strncasecmp(e, dot, n) == 0
                            : k == nb && strncasecmp(e, base, nb) == 0)
                return true;
            e += k;
            e += strspn(e, " ");
        }
    }
    return false;
}

amx_format amx_probe(const uint8_t *data, size_t len)
{
    if (!data)
        return AMX_FMT_UNKNOWN;
    for (size_t i = 0; i < FORMAT_TABLE_LEN; i++)
        if (format_table[i].probe(data, len))
            return format_table[i].format;
    return AMX_FMT_UNKNOWN;
}

bool amx_probe_wants_more(const uint8_t *data, size_t len)
{
    return data && amx_probe(data, len) == AMX_FMT_UNKNOWN && amx__ini_probe_wants_more(data, len);
}

const char *amx_asset_status_name(amx_asset_status st)
{
    switch (st) {
    case AMX_ASSET_OK: return "ok";
    case AMX_ASSET_PARTIAL: return "partial";
    case AMX_ASSET_ERROR: return "error";
    }
    return "error";
}

/* ---- allocation ---- */

static void out_of_memory(amx_dec *d, size_t size)
{
    if (d->out_of_memory)
        return;
    d->out_of_memory = true;
    amx__fatal(d, AMX_C_LIMIT_EXCEEDED, (int64_t)amx_reader_tell(&d->r), NULL,
               "decoding needs more than the memory limit (%zu bytes asked, %zu in use, limit %zu)",
               size, amx__arena_used(d->arena), d->opts->max_memory);
}

void *amx__alloc(amx_dec *d, size_t size)
{
    if (d->out_of_memory)
        return NULL;
    void *p = amx__arena_alloc(d->arena, size);
    if (!p)
        out_of_memory(d, size);
    return p;
}

void *amx__array(amx_dec *d, size_t count, size_t elem)
{
    size_t bytes;
    if (!amx_mul_size(count, elem, &bytes)) {
        out_of_memory(d, SIZE_MAX);
        return NULL;
    }
    return amx__alloc(d, bytes ? bytes : 1);
}

const char *amx__strndup(amx_dec *d, const uint8_t *p, size_t n)
{
    const uint8_t *nul = memchr(p, 0, n);
    if (nul)
        n = (size_t)(nul - p);
    char *s = amx__alloc(d, n + 1);
    if (!s)
        return "";
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

const char *amx__strdup(amx_dec *d, const char *s)
{
    return amx__strndup(d, (const uint8_t *)s, strlen(s));
}

const char *amx__latin1_dup(amx_dec *d, const uint8_t *p, size_t n, bool slashes)
{
    const uint8_t *nul = memchr(p, 0, n);
    if (nul)
        n = (size_t)(nul - p);
    char *s = amx__array(d, n * 2 + 1, 1); /* one or two bytes per character, and the NUL */
    if (!s)
        return "";
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '\\' && slashes) {
            s[o++] = '/';
        } else if (c < 0x80) {
            s[o++] = (char)c;
        } else { /* Latin-1 code point c as UTF-8 */
            s[o++] = (char)(0xC0 | c >> 6);
            s[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    s[o] = '\0';
    return s;
}

void amx__entry_context(char *buf, size_t size, uint32_t i, const char *name)
{
    size_t n = strlen(name), max = size - 40;
    bool cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((uint8_t)name[n] & 0xC0) == 0x80)
            n--;
    }
    snprintf(buf, size, "entry %u '%.*s%s'", i, (int)n, name, cut ? "..." : "");
}

typedef struct span_pos { uint64_t offset, end; uint32_t pos; } span_pos;

static int cmp_span_pos(const void *a, const void *b)
{
    const span_pos *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

void amx__archive_overlaps(amx_dec *d, const amx_archive *ar, const size_t *entry_at)
{
    span_pos *v = amx__array(d, ar->entry_count, sizeof *v);
    if (!v)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ar->entry_count; i++)
        if (ar->entries[i].valid && ar->entries[i].size)
            v[n++] = (span_pos){ ar->entries[i].offset,
                                 ar->entries[i].offset + ar->entries[i].size, i };
    qsort(v, n, sizeof *v, cmp_span_pos);
    /* Sorted by start: an entry overlaps when it starts before the furthest end so far; an
     * entry of the very same bytes as the one before it repeats it (a tool storing equal files
     * once does that; the scan decodes such bytes once). */
    uint64_t reach = 0;
    uint32_t reach_pos = 0, inside = 0, repeats = 0, first_a = 0, first_b = 0;
    for (uint32_t k = 0; k < n; k++) {
        bool same = k && v[k].offset == v[k - 1].offset && v[k].end == v[k - 1].end;
        if (k && v[k].offset < reach) {
            if (!inside && !repeats)
                first_a = same ? v[k - 1].pos : reach_pos, first_b = v[k].pos;
            if (same)
                repeats++;
            else
                inside++;
        }
        if (!k || v[k].end > reach)
            reach = v[k].end, reach_pos = v[k].pos;
    }
    if (!inside && !repeats)
        return;
    char ctx[320];
    amx__entry_context(ctx, sizeof ctx, first_b, ar->entries[first_b].name);
    amx__finding(d, AMX_C_ARCHIVE_OVERLAP, entry_at ? (int64_t)entry_at[first_b] : -1, ctx,
                 "%u entr%s share stored bytes with other entries: %u start inside another "
                 "entry's data, %u repeat another entry's data (the first: entry %u '%.200s' "
                 "and entry %u '%.200s')", inside + repeats, inside + repeats == 1 ? "y" : "ies",
                 inside, repeats, first_b, ar->entries[first_b].name, first_a,
                 ar->entries[first_a].name);
}

AMX_PRINTF(2, 0)
static const char *vsprintf_arena(amx_dec *d, const char *fmt, va_list ap)
{
    char buf[512];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0)
        return "";
    return amx__strndup(d, (const uint8_t *)buf, strlen(buf));
}

const char *amx__sprintf(amx_dec *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *s = vsprintf_arena(d, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- findings ---- */


/* The finding to give up when the list is full and a finding of severity `sev` comes: the last
 * kept finding of the lowest severity, when that is below `sev`; -1 when the new one is the
 * one to drop (nothing kept is less severe). The cap never drops a more severe finding for a
 * less severe one. */
static long finding_to_evict(amx_dec *d, amx_severity sev)
{
    amx_asset *a = d->asset;
    int lowest = -1;
    for (int s = AMX_SEV_INFO; s <= AMX_SEV_ERROR; s++)
        if (d->kept_by_severity[s]) {
            lowest = s;
            break;
        }
    if (lowest < 0 || lowest >= (int)sev)
        return -1;
    for (uint32_t i = a->finding_count; i-- > 0;)
        if ((int)a->findings[i].severity == lowest)
            return (long)i;
    return -1;
}

static void count_dropped(amx_asset *a, amx_severity sev)
{
    a->findings_dropped++;
    if (sev <= AMX_SEV_ERROR)
        a->findings_dropped_by_severity[sev]++;
}

AMX_PRINTF(6, 0)
static void add_finding(amx_dec *d, amx_code code, amx_severity sev, int64_t offset,
                        const char *context, const char *fmt, va_list ap)
{
    amx_asset *a = d->asset;
    if (sev > AMX_SEV_ERROR)
        sev = AMX_SEV_ERROR;
    if (sev == AMX_SEV_ERROR && a->status == AMX_ASSET_OK)
        a->status = AMX_ASSET_PARTIAL;
    long evict = -1;
    if (a->finding_count >= d->max_findings) {
        evict = finding_to_evict(d, sev);
        if (evict < 0) {
            count_dropped(a, sev);
            return;
        }
    }
    /* Findings live in a malloc'd array (not the arena) so that a decode that ran out of arena
     * memory can still say so. */
    if (evict < 0 && a->finding_count % 16 == 0) {
        amx_finding *grown = realloc(a->findings, (a->finding_count + 16) * sizeof *grown);
        if (!grown) {
            count_dropped(a, sev);
            return;
        }
        a->findings = grown;
    }
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t mlen = strlen(msg), clen = context ? strlen(context) : 0;
    char *text = malloc(mlen + clen + 2);
    if (!text) {
        count_dropped(a, sev);
        return;
    }
    if (evict >= 0) { /* the less severe finding goes; the order of the rest is kept */
        amx_finding *gone = &a->findings[evict];
        count_dropped(a, gone->severity);
        d->kept_by_severity[gone->severity]--;
        free((void *)gone->message);
        memmove(gone, gone + 1, (a->finding_count - (uint32_t)evict - 1) * sizeof *gone);
        a->finding_count--;
    }
    memcpy(text, msg, mlen + 1);
    memcpy(text + mlen + 1, context ? context : "", clen + 1);
    a->findings[a->finding_count++] = (amx_finding){
        .code = code, .severity = sev, .offset = offset, .message = text, .context = text + mlen + 1,
    };
    d->kept_by_severity[sev]++;
}

void amx__finding(amx_dec *d, amx_code code, int64_t offset, const char *context,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_finding(d, code, amx_code_get(code)->severity, offset, context, fmt, ap);
    va_end(ap);
}

void amx__finding_sev(amx_dec *d, amx_code code, amx_severity sev, int64_t offset,
                      const char *context, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_finding(d, code, sev, offset, context, fmt, ap);
    va_end(ap);
}

void amx__fatal(amx_dec *d, amx_code code, int64_t offset, const char *context,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_finding(d, code, amx_code_get(code)->severity, offset, context, fmt, ap);
    va_end(ap);
    d->fatal = true;
    d->asset->status = AMX_ASSET_ERROR;
}

bool amx__cancelled(amx_dec *d)
{
    if (!d->cancelled && d->opts->cancelled && d->opts->cancelled(d->opts->cancel_user))
        d->cancelled = true;
    return d->cancelled;
}

bool amx__samples_allowed(amx_dec *d, const amx_clip *clip)
{
    uint32_t max = d->opts->max_sample_frames ? d->opts->max_sample_frames : AMX_SAMPLE_FRAMES;
    if (clip->frames <= max)
        return true;
    amx__finding_sev(d, AMX_C_LIMIT_EXCEEDED, AMX_SEV_INFO, -1, NULL,
                     "the clip has %u frames, more than the %u sampled per clip; no samples "
                     "(dump --samples --max-frames %u, or 0 for no limit)",
                     clip->frames, max, clip->frames);
    return false;
}

bool amx__check_finite(amx_dec *d, float v, int64_t offset, const char *context, const char *what)
{
    if (isfinite(v))
        return true;
    amx__finding(d, AMX_C_BAD_VALUE, offset, context, "%s is not a finite number", what);
    return false;
}

/* Formats of other programs that share our extensions, named in the NOT_RECOGNISED finding. */
static const char *foreign_format(const uint8_t *data, size_t len)
{
    static const struct { const char *magic; size_t n; const char *what; } foreign[] = {
        { "IFX", 3, "a Shockwave 3D file (Macromedia/Adobe Director), not a Westwood W3D" },
        { "DDS ", 4, "a DDS texture, not a model or an animation" },
    };
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
        if (len >= foreign[i].n && memcmp(data, foreign[i].magic, foreign[i].n) == 0)
            return foreign[i].what;
    return NULL;
}

/* ---- amx_decode ---- */

amx_status amx_decode(const uint8_t *data, size_t len, const amx_decode_opts *user_opts,
                      amx_asset **out)
{
    if (!out || (!data && len))
        return AMX_E_INVALID_ARG;
    *out = NULL;
    amx_decode_opts opts = user_opts ? *user_opts : (amx_decode_opts){ 0 };
    if (opts.max_memory == 0) {
        size_t extra;
        opts.max_memory = amx_mul_size(len, 16, &extra) && extra < SIZE_MAX / 2
                              ? ((size_t)256 << 20) + extra
                              : SIZE_MAX / 2;
    }
    amx_asset *a = calloc(1, sizeof *a);
    amx_arena *arena = amx__arena_create(opts.max_memory);
    if (!a || !arena) {
        free(a);
        amx__arena_destroy(arena);
        return AMX_E_NOMEM;
    }
    a->arena_ = arena;
    a->version = "";
    static const uint8_t empty[1];
    amx_dec d = {
        .r = amx_reader_make(data ? data : empty, len),
        .opts = &opts,
        .asset = a,
        .arena = arena,
        .max_findings = opts.max_findings ? opts.max_findings : 200,
    };
    a->format = opts.format != AMX_FMT_UNKNOWN ? opts.format : amx_probe(data, len);
    const amx_format_entry *e = amx__format_entry(a->format);
    if (!e) {
        const char *what = len ? foreign_format(data, len) : NULL;
        if (what)
            amx__fatal(&d, AMX_C_NOT_RECOGNISED, 0, NULL, "%s", what);
        else
            amx__fatal(&d, AMX_C_NOT_RECOGNISED, len ? 0 : -1, NULL,
                       len ? "the content is not a format animidx knows" : "the file is empty");
    } else {
        e->decode(&d);
    }
    if (d.cancelled) {
        amx_asset_free(a);
        return AMX_E_CANCELLED;
    }
    *out = a;
    return AMX_OK;
}

#define MEMBER_CAP ((size_t)1 << 30)

amx_status amx_archive_member(const amx_asset *archive, const uint8_t *data, size_t len,
                              uint32_t index, const uint8_t **out, size_t *out_len, void **owned,
                              char *err, size_t errlen)
{
    *out = NULL;
    *out_len = 0;
    *owned = NULL;
    if (!archive || !archive->archive || index >= archive->archive->entry_count) {
        snprintf(err, errlen, "no archive entry %u", index);
        return AMX_E_INVALID_ARG;
    }
    return amx_archive_entry_bytes(archive->format, &archive->archive->entries[index], data, len, out,
                             out_len, owned, err, errlen);
}

amx_status amx_archive_entry_bytes(amx_format fmt, const amx_archive_entry *e, const uint8_t *data,
                             size_t len, const uint8_t **out, size_t *out_len, void **owned,
                             char *err, size_t errlen)
{
    *out = NULL;
    *out_len = 0;
    *owned = NULL;
    if (!e->valid || e->offset > len || e->size > len - e->offset) {
        snprintf(err, errlen, "entry '%s' lies outside the archive", e->name);
        return AMX_E_INVALID_ARG;
    }
    if (!e->compressed) {
        *out = data + e->offset;
        *out_len = (size_t)e->size;
        return AMX_OK;
    }
    const amx_format_entry *f = amx__format_entry(fmt);
    if (!f || !f->unpack) {
        snprintf(err, errlen, "entry '%s' is compressed and %s archives cannot unpack", e->name,
                 amx_format_name(fmt));
        return AMX_E_INVALID_ARG;
    }
    if (e->unpacked_size > MEMBER_CAP) {
        snprintf(err, errlen, "entry '%s' declares %llu unpacked bytes, more than 1 GiB", e->name,
                 (unsigned long long)e->unpacked_size);
        return AMX_E_LIMIT;
    }
    uint8_t *buf = NULL;
    amx_status st = f->unpack(e, data, len, MEMBER_CAP, &buf, err, errlen);
    if (st != AMX_OK)
        return st;
    *out = buf;
    *out_len = (size_t)e->unpacked_size;
    *owned = buf;
    return AMX_OK;
}

void amx__ref(amx_dec *d, amx_ref_kind kind, const char *name, const char *tag, int32_t object,
              uint32_t line, int64_t offset)
{
    amx_asset *a = d->asset;
    if (a->ref_count >= AMX_MAX_REFS) {
        if (!d->refs_capped) /* said once */
            amx__finding(d, AMX_C_LIMIT_EXCEEDED, offset, tag,
                         "more than %u references: the rest are not recorded", AMX_MAX_REFS);
        d->refs_capped = true;
        return;
    }
    /* malloc'd like the findings, so the array can grow without copies left in the arena; it
     * doubles (a step of 64 copied a million references 15,000 times) */
    if (!amx__grow((void **)&a->refs, &d->refs_cap, a->ref_count, sizeof *a->refs)) {
        d->out_of_memory = true;
        return;
    }
    a->refs[a->ref_count++] = (amx_ref){ .kind = kind, .name = name ? name : "",
                                         .tag = tag ? tag : "", .object = object, .line = line,
                                         .offset = offset, .state = -1 };
}

static const char *const ref_kind_names[AMX_REF_KIND_COUNT] = {
    [AMX_REF_MODEL] = "model", [AMX_REF_ANIM_OVERRIDE] = "anim-override",
    [AMX_REF_MODEL_OR_PARTICLE] = "model-or-particle", [AMX_REF_PARTICLE] = "particle",
    [AMX_REF_TEXTURE] = "texture", [AMX_REF_SHADER] = "shader",
    [AMX_REF_W3D_MODEL] = "w3d-model", [AMX_REF_W3D_ANIMATION] = "w3d-animation",
    [AMX_REF_BONE] = "bone", [AMX_REF_SUB_OBJECT] = "sub-object",
    [AMX_REF_PARTICLE_BONE] = "particle-bone", [AMX_REF_INCLUDE] = "include",
    [AMX_REF_INI_OBJECT] = "object", [AMX_REF_XML_FILE] = "xml-file",
};

const char *amx_ref_kind_name(amx_ref_kind kind)
{
    return (unsigned)kind < AMX_REF_KIND_COUNT ? ref_kind_names[kind] : "unknown";
}

bool amx_ref_kind_parse(const char *name, amx_ref_kind *out)
{
    for (int i = 0; i < AMX_REF_KIND_COUNT; i++)
        if (strcasecmp(name, ref_kind_names[i]) == 0) {
            *out = (amx_ref_kind)i;
            return true;
        }
    return false;
}

amx_severity amx_findings_dropped_severity(const amx_asset *a)
{
    for (int s = AMX_SEV_ERROR; s > AMX_SEV_INFO; s--)
        if (a && a->findings_dropped_by_severity[s])
            return (amx_severity)s;
    return AMX_SEV_INFO;
}

void amx_findings_dropped_text(uint32_t dropped, const uint32_t by_severity[3], char *buf,
                               size_t len)
{
    static const char *const names[] = { "info", "warning", "error" };
    int n = snprintf(buf, len, "%u more finding%s in this file %s not recorded (", dropped,
                     dropped == 1 ? "" : "s", dropped == 1 ? "was" : "were");
    bool any = false;
    for (int s = AMX_SEV_ERROR; s >= AMX_SEV_INFO && n >= 0 && (size_t)n < len; s--) {
        if (!by_severity[s])
            continue;
        n += snprintf(buf + n, len - (size_t)n, "%s%u %s%s", any ? ", " : "", by_severity[s],
                      names[s], s != AMX_SEV_INFO && by_severity[s] != 1 ? "s" : "");
        any = true;
    }
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "%s; the most severe were kept)", any ? "" : "none");
}

void amx_findings_dropped_message(const amx_asset *a, char *buf, size_t len)
{
    static const uint32_t none[3];
    amx_findings_dropped_text(a ? a->findings_dropped : 0,
                              a ? a->findings_dropped_by_severity : none, buf, len);
}

void amx_asset_free(amx_asset *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->finding_count; i++)
        free((void *)a->findings[i].message);
    free(a->findings);
    free(a->refs);
    amx__arena_destroy(a->arena_);
    free(a);
}

size_t amx_path_stem(const char *path, char *buf, size_t buflen)
{
    if (buflen == 0)
        return 0;
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= buflen)
        n = buflen - 1;
    memcpy(buf, base, n);
    buf[n] = '\0';
    return n;
}

static int fold_name_char(int c)
{
    if (c == '\\')
        return '/';
    return c >= 'a' && c <= 'z' ? c - 32 : c;
}

int64_t amx_archive_find(const amx_asset *archive, const char *name)
{
    if (!archive || !archive->archive)
        return -1;
    for (uint32_t i = 0; i < archive->archive->entry_count; i++) {
        const char *a = archive->archive->entries[i].name, *b = name;
        while (*a && *b && fold_name_char((unsigned char)*a) == fold_name_char((unsigned char)*b))
            a++, b++;
        if (!*a && !*b)
            return i;
    }
    return -1;
}
