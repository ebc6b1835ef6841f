/*
 * Internal interface between the format registry (decode.c) and the format decoders (one file
 * per format in lib/format/).
 *
 * A decoder gets an amx_dec: the reader over the whole file, the options, and the asset being
 * built. It allocates only through amx__alloc/amx__array (the asset's arena, with the memory
 * limit of the options), reports every problem with amx__finding, and returns nothing: the asset
 * status is derived from the findings (an error finding makes it PARTIAL; amx__fatal makes it
 * ERROR). It never prints.
 *
 * Arena memory is zeroed: a decoder that makes tracks sets amx_track.offset itself (the byte
 * offset of the track's record, which skeleton-binding findings report), -1 when it has none.
 */
#ifndef AMX_DECODER_H
#define AMX_DECODER_H

#include "animidx/animidx.h"
#include "animidx/os.h"
#include "reader.h"

#include <stdarg.h>

typedef struct amx_arena amx_arena;

amx_arena *amx__arena_create(size_t limit);
void amx__arena_destroy(amx_arena *a);
void *amx__arena_alloc(amx_arena *a, size_t size); /* zeroed, 8-aligned; NULL on limit/OOM */
size_t amx__arena_used(const amx_arena *a);

typedef struct amx_dec {
    amx_reader r;                 /* over the whole file */
    const amx_decode_opts *opts;  /* never NULL (defaults filled in) */
    amx_asset *asset;
    amx_arena *arena;
    uint32_t max_findings;
    uint32_t kept_by_severity[3]; /* findings kept, by severity (info, warning, error) */
    bool out_of_memory;           /* an allocation failed: the decode stops as soon as it can */
    bool fatal;                   /* amx__fatal was called */
    bool refs_capped;             /* AMX_MAX_REFS was reached (said once) */
    size_t refs_cap;              /* room in asset->refs (it doubles) */
    bool cancelled;               /* opts->cancelled said stop: the asset is thrown away */
} amx_dec;

/* True when the caller asked the decode to stop (amx_decode_opts.cancelled, polled now; once
 * true it stays so): the decoder returns as soon as it can, and amx_decode discards the asset. */
bool amx__cancelled(amx_dec *d);

/* Allocation from the asset's arena, zeroed. On failure: NULL, and a LIMIT_EXCEEDED finding. */
void *amx__alloc(amx_dec *d, size_t size);
/* count * elem bytes, overflow-checked. */
void *amx__array(amx_dec *d, size_t count, size_t elem);
/* Copies bytes [p, p+n) up to the first NUL into the arena as a NUL-terminated string. */
const char *amx__strndup(amx_dec *d, const uint8_t *p, size_t n);
const char *amx__strdup(amx_dec *d, const char *s);
/* As amx__strndup, the bytes read as Latin-1 and stored as UTF-8; with `slashes`, '\' becomes
 * '/' (archive member names). "" when out of memory. */
const char *amx__latin1_dup(amx_dec *d, const uint8_t *p, size_t n, bool slashes);
/* "entry 3 'DATA/X.ALO'" into buf, a long name cut at a UTF-8 character boundary (archives). */
void amx__entry_context(char *buf, size_t size, uint32_t i, const char *name);
/* ARCHIVE_OVERLAP: one finding when entries' data overlap (entries of no bytes aside), counting
 * the entries that start inside another's data and those that repeat another's exact span, and
 * naming the first pair.
 * `entry_at`: each entry's record offset (or NULL). */
void amx__archive_overlaps(amx_dec *d, const amx_archive *ar, const size_t *entry_at);
const char *amx__sprintf(amx_dec *d, const char *fmt, ...) AMX_PRINTF(2, 3);

/* Records a finding with the code's default severity. `offset` is the absolute file offset, -1
 * for none. `context` is a logical location ("bone 2"), may be NULL. */
void amx__finding(amx_dec *d, amx_code code, int64_t offset, const char *context,
                  const char *fmt, ...) AMX_PRINTF(5, 6);
void amx__finding_sev(amx_dec *d, amx_code code, amx_severity sev, int64_t offset,
                      const char *context, const char *fmt, ...) AMX_PRINTF(6, 7);
/* Records a finding (the code's default severity) and marks the asset as not decodable
 * (status ERROR). */
void amx__fatal(amx_dec *d, amx_code code, int64_t offset, const char *context,
                const char *fmt, ...) AMX_PRINTF(5, 6);

/* Records a file this one names. `name` and `tag` must live in the arena (or be literals);
 * object: the game object's index or -1; line (text files) or offset (binary files), 0 / -1
 * for none. Beyond AMX_MAX_REFS per file the rest are dropped with one LIMIT_EXCEEDED. */
#define AMX_MAX_REFS 1000000
void amx__ref(amx_dec *d, amx_ref_kind kind, const char *name, const char *tag, int32_t object,
              uint32_t line, int64_t offset);

/* True when the clip's frames may be sampled (amx_decode_opts.max_sample_frames); otherwise
 * records an info LIMIT_EXCEEDED finding and returns false. */
bool amx__samples_allowed(amx_dec *d, const amx_clip *clip);

/* True when a float is finite; otherwise records BAD_VALUE at offset and returns false. */
bool amx__check_finite(amx_dec *d, float v, int64_t offset, const char *context, const char *what);

/* ---- the registry ---- */

typedef struct amx_format_entry {
    amx_format format;
    const char *name;           /* JSON contract name, e.g. "alamo-ala" */
    const char *extensions;     /* space-separated extensions (".alo") or whole file names
                                 * ("anim.zbd"): a file named so whose content is not recognised
                                 * is a NOT_RECOGNISED finding; others are skipped */
    int decoder_version;        /* bump to make the index re-decode this format's files */
    bool is_archive;
    bool clips_unbound;         /* its clips animate world nodes, not a skeleton (MW3): the link
                                 * pass does not look for one */
    /* Returns true when the bytes look like this format. len may be short (a prefix); a
     * probe must not read past len. */
    bool (*probe)(const uint8_t *data, size_t len);
    void (*decode)(amx_dec *d);
    /* Archives whose members may be compressed: unpacks entry e of the archive bytes into a
     * malloc'd buffer of exactly e->unpacked_size bytes (at most `cap`). Returns AMX_OK, or with
     * the reason in err: AMX_E_LIMIT (larger than cap), AMX_E_INVALID_ARG (a damaged or
     * incomplete member), AMX_E_NOMEM. NULL for archives that only store. */
    amx_status (*unpack)(const amx_archive_entry *e, const uint8_t *data, size_t len, size_t cap,
                         uint8_t **out, char *err, size_t errlen);
} amx_format_entry;

const amx_format_entry *amx__format_entry(amx_format fmt);

/* Format decoders (one file each). */
bool amx__alo_probe_model(const uint8_t *data, size_t len);
bool amx__alo_probe_particle(const uint8_t *data, size_t len);
void amx__alo_decode(amx_dec *d);          /* models and particles (lib/format/alo.c) */
bool amx__ala_probe(const uint8_t *data, size_t len);
void amx__ala_decode(amx_dec *d);          /* lib/format/ala.c */
bool amx__meg_probe(const uint8_t *data, size_t len);
void amx__meg_decode(amx_dec *d);          /* lib/format/meg.c */
bool amx__mw3_probe(const uint8_t *data, size_t len);
void amx__mw3_decode(amx_dec *d);          /* lib/format/mw3.c */
bool amx__w3d_probe(const uint8_t *data, size_t len);
void amx__w3d_decode(amx_dec *d);          /* lib/format/w3d.c */
bool amx__big_probe(const uint8_t *data, size_t len);
void amx__big_decode(amx_dec *d);          /* lib/format/big.c */
bool amx__mp_anim_probe(const uint8_t *data, size_t len);
void amx__mp_anim_decode(amx_dec *d);      /* lib/format/mp_anim.c */
bool amx__mp_cinf_probe(const uint8_t *data, size_t len);
void amx__mp_cinf_decode(amx_dec *d);      /* lib/format/mp_cinf.c */
bool amx__mp_ancs_probe(const uint8_t *data, size_t len);
void amx__mp_ancs_decode(amx_dec *d);      /* lib/format/mp_ancs.c */
bool amx__mp_pak_probe(const uint8_t *data, size_t len);
void amx__mp_pak_decode(amx_dec *d);       /* lib/format/mp_pak.c */
bool amx__xml_probe(const uint8_t *data, size_t len);
void amx__xml_decode(amx_dec *d);          /* game object XML (xml.c) */
bool amx__ini_probe(const uint8_t *data, size_t len);
/* Whether more of the file than data[0..len) could make the INI probe say yes. */
bool amx__ini_probe_wants_more(const uint8_t *data, size_t len);
void amx__ini_decode(amx_dec *d);          /* SAGE INI (ini.c) */
amx_status amx__mp_pak_unpack(const amx_archive_entry *e, const uint8_t *data, size_t len,
                              size_t cap, uint8_t **out, char *err, size_t errlen);

#endif
