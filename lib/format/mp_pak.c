/*
 * Metroid Prime PAK archives, MP1 layout (MP2 uses the same container; MP3 and DKCR differ).
 * All big-endian.
 *
 * Layout and sources: docs/formats/metroid-prime.md (AxioDL/PrimeWorldEditor CGameExporter.cpp and
 * CPackage.cpp; AxioDL/metaforce's older DataSpec/DNAMP1/PAK.cpp PAK::Entry::getBuffer).
 *
 *   0x00 u16 major 3, u16 minor 5      (u32 0x00030005, PWE asserts)
 *   0x04 u32 unused (0)
 *   0x08 u32 NamedCount; NamedCount x { FourCC type; u32 asset id; u32 NameLen; char Name[NameLen] }
 *   u32 ResCount; ResCount x 20 bytes { u32 compressed (1 = yes); FourCC type; u32 asset id;
 *                                       u32 size; u32 offset }
 *   offset: absolute from the start of the PAK; size: stored bytes (with the 4-byte prefix
 *   when compressed). Compressed payload: u32 decompressed size, then a zlib stream (MP1). Echoes
 *   stores segmented LZO instead: told apart by metaforce's test, the BE u16 after the size is
 *   a multiple of 31 for zlib (plus CM = 8 in its low nibble here). LZO members are UNSUPPORTED.
 *
 * Members are listed as archive entries named "<ASSETID>.<TYPE>" ("0A1B2C3D.ANIM"); the
 * named-resource table's name, the compression and the decompressed size are in
 * asset->mp->pak (same index). The same asset may appear several times: the first record of an
 * asset id is listed, later ones are counted (amx_mp_pak.duplicates). Uncompressed members are
 * spans of the PAK (valid = inside the file). Compressed members are inflated through
 * amx_archive_member (amx__mp_pak_unpack, the registry's unpack hook).
 *
 * Validation: magic, table sizes against the file, offsets and sizes inside the file, data
 * not overlapping the tables, compressed flag 0/1, printable FourCCs, zlib streams that inflate
 * to exactly their declared size (bounded by that size and a 256 MiB cap; the output is
 * discarded), named entries that name a listed resource of the same type.
 *
 * Decompression bombs: records of different asset ids may point at the same stored bytes, and
 * a few hundred KB of zlib can claim gigabytes. Each distinct stored span is checked once (a
 * record that repeats the span of an earlier one shares its result), and the bytes inflated
 * for one archive are bounded by its unpack budget (AMX_UNPACK_ARCHIVE_FLOOR + AMX_UNPACK_RATIO
 * x the archive's size, at most AMX_UNPACK_ARCHIVE_CAP), charged at the declared size before
 * inflating: the first member that would overrun it is a LIMIT_EXCEEDED finding, and it and
 * the compressed members after it are neither inflated nor valid. With
 * amx_decode_opts.unpack_later (the scanner) the streams are not inflated here at all, only
 * their headers checked and the budget charged: the caller inflates each member once, through
 * amx_archive_entry_bytes.
 */
#include "mp_common.h"
#include "common/hash.h"

#include <stdlib.h>
#include <zlib.h>

#define PAK_VERSION 0x00030005u
#define PAK_RECORD 20u
#define PAK_MAX_INFLATE ((size_t)256 << 20)
#define PAK_PROBE_MAX_NAME 4096u

/* ---- probe ---- */

static bool fourcc_ok(const uint8_t *p)
{
    for (int i = 0; i < 4; i++) {
        uint8_t c = p[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              c == ' ' || c == '_'))
            return false;
    }
    return true;
}

bool amx__mp_pak_probe(const uint8_t *data, size_t len)
{
    if (len < 16 || amx_load_u32be(data) != PAK_VERSION || amx_load_u32be(data + 4) != 0)
        return false;
    amx_reader r = amx_reader_make(data, len);
    amx_reader_seek(&r, 8);
    uint32_t named = amx_read_u32be(&r);
    if (named > 1000000)
        return false;
    /* What the data shows of the tables must look right; a prefix may end anywhere. */
    for (uint32_t i = 0; i < named; i++) {
        const uint8_t *t = amx_reader_take(&r, 12);
        if (!t)
            return true;
        uint32_t n = amx_load_u32be(t + 8);
        if (!fourcc_ok(t) || n == 0 || n > PAK_PROBE_MAX_NAME)
            return false;
        for (uint32_t k = 0; k < n; k++) {
            if (amx_reader_eof(&r))
                return true;
            uint8_t c = amx_read_u8(&r);
            if (c < 0x20 || c > 0x7E)
                return false;
        }
    }
    uint32_t res = amx_read_u32be(&r);
    if (r.err)
        return true;
    if (res > 10000000)
        return false;
    for (uint32_t i = 0; i < res; i++) {
        const uint8_t *t = amx_reader_take(&r, PAK_RECORD);
        if (!t)
            return true;
        if (amx_load_u32be(t) > 1 || !fourcc_ok(t + 4))
            return false;
    }
    return true;
}

/* ---- zlib ---- */

typedef enum inflate_result {
    INFL_OK,
    INFL_NOT_ZLIB,   /* not a zlib stream (Echoes' LZO segments) */
    INFL_CORRUPT,    /* zlib reported an error */
    INFL_SIZE,       /* the stream ends at another size than declared */
    INFL_NOMEM,
} inflate_result;

/* Tells a zlib stream from anything else (metaforce: the BE u16 header % 31 == 0). */
static bool is_zlib(const uint8_t *p, size_t n)
{
    if (n < 2)
        return false;
    unsigned h = (unsigned)p[0] << 8 | p[1];
    return h % 31 == 0 && (p[0] & 0x0F) == 8;
}

/*
 * Inflates a zlib stream of n bytes that must give exactly `want` bytes. out: a buffer of
 * `want` bytes, or NULL to discard the output (through a small scratch buffer). *got: bytes
 * produced (at most want + 1: one more is asked for to see an overlong stream).
 */
static inflate_result inflate_exact(const uint8_t *src, size_t n, uint8_t *out, size_t want,
                                    size_t *got, const char **msg)
{
    *got = 0;
    *msg = NULL;
    if (!is_zlib(src, n))
        return INFL_NOT_ZLIB;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return INFL_NOMEM;
    uint8_t scratch[16384];
    size_t left_in = n;
    const uint8_t *in = src;
    inflate_result res = INFL_OK;
    for (;;) {
        if (z.avail_in == 0 && left_in) {
            uInt k = left_in > (1u << 30) ? (1u << 30) : (uInt)left_in;
            z.next_in = (Bytef *)(uintptr_t)in;
            z.avail_in = k;
            in += k;
            left_in -= k;
        }
        uint8_t over;
        if (out && *got < want) {
            size_t room = want - *got;
            z.next_out = out + *got;
            z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
        } else if (out) {
            z.next_out = &over; /* one byte past the declared size: overlong */
            z.avail_out = 1;
        } else {
            size_t room = want - *got + 1;
            z.next_out = scratch;
            z.avail_out = room < sizeof scratch ? (uInt)room : (uInt)sizeof scratch;
        }
        uInt before = z.avail_out;
        int rc = inflate(&z, Z_NO_FLUSH);
        *got += before - z.avail_out;
        if (rc == Z_STREAM_END)
            break;
        if (*got > want) {
            res = INFL_SIZE;
            break;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && left_in == 0) {
            res = INFL_SIZE; /* the data ends before the stream does */
            *msg = "the zlib stream is cut short";
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            res = rc == Z_MEM_ERROR ? INFL_NOMEM : INFL_CORRUPT;
            *msg = z.msg ? z.msg : "zlib error";
            break;
        }
    }
    if (res == INFL_OK && *got != want)
        res = INFL_SIZE;
    inflateEnd(&z);
    return res;
}

/* ---- decoding ---- */

typedef struct named {
    uint32_t type, id;
    const char *name;
    size_t at;
} named;

static void read_named(amx_dec *d, named **out, uint32_t *count)
{
    amx_reader *r = &d->r;
    uint32_t n = amx_read_u32be(r);
    if (r->err || !amx_reader_has(r, n, 12)) {
        amx__fatal(d, AMX_C_TRUNCATED, 8, "named resources",
                   "%u named resources need at least %llu bytes, only %zu are left", n,
                   (unsigned long long)n * 12, amx_reader_left(r));
        return;
    }
    named *t = amx__array(d, n, sizeof *t);
    if (!t)
        return;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = amx_reader_tell(r);
        t[i].at = at;
        t[i].type = amx_read_u32be(r);
        t[i].id = amx_read_u32be(r);
        uint32_t nlen = amx_read_u32be(r);
        const uint8_t *s = r->err ? NULL : amx_reader_take(r, nlen);
        if (!s) {
            amx__fatal(d, AMX_C_TRUNCATED, (int64_t)at, amx__sprintf(d, "named resource %u", i),
                       "named resource %u of %u (name of %u bytes) runs past the end of the file",
                       i, n, nlen);
            return;
        }
        t[i].name = amx__strndup(d, s, nlen);
        if (!t[i].name[0] || !mp_printable(s, nlen))
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)at + 12,
                         amx__sprintf(d, "named resource %u", i),
                         "the name is empty or has non-printable bytes");
        *count = i + 1;
    }
    *out = t;
}

/* The bytes one archive may inflate (see the opening comment). */
static uint64_t unpack_budget(size_t len)
{
    uint64_t b = (uint64_t)len > AMX_UNPACK_ARCHIVE_CAP / AMX_UNPACK_RATIO
                     ? AMX_UNPACK_ARCHIVE_CAP
                     : AMX_UNPACK_ARCHIVE_FLOOR + (uint64_t)len * AMX_UNPACK_RATIO;
    return b < AMX_UNPACK_ARCHIVE_CAP ? b : AMX_UNPACK_ARCHIVE_CAP;
}

typedef struct budget {
    uint64_t total, left;
    bool spent;                   /* a member overran it: no compressed member after it is valid */
} budget;

/* Distinct stored spans of compressed members: slots hold an entry index + 1. */
typedef struct span_set {
    uint32_t *slots;
    uint32_t mask;
} span_set;

/* Seeded (common/hash.h): the offsets and sizes are the archive's, and a fixed hash would let
 * them be chosen to share one run of slots that every entry then walks. */
static uint32_t span_hash(uint64_t offset, uint64_t size, uint32_t mask)
{
    const uint64_t key[2] = { offset, size };
    return (uint32_t)amx_hash(key, sizeof key) & mask;
}

/* The entry that stored the same span before entry k, or -1 (then k is recorded). */
static int64_t span_first(span_set *s, const amx_mp_pak_entry *entries, uint32_t k)
{
    if (!s->slots)
        return -1;
    const amx_mp_pak_entry *e = &entries[k];
    for (uint32_t h = span_hash(e->offset, e->size, s->mask);; h = (h + 1) & s->mask) {
        uint32_t v = s->slots[h];
        if (!v) {
            s->slots[h] = k + 1;
            return -1;
        }
        if (entries[v - 1].offset == e->offset && entries[v - 1].size == e->size)
            return (int64_t)v - 1;
    }
}

/* Checks a compressed member; returns true when it can be unpacked (with unpack_later: its
 * header is right; otherwise it inflated to its declared size, and e->inflatable is set). */
static bool check_compressed(amx_dec *d, amx_mp_pak_entry *e, const char *ctx, size_t rec,
                             budget *bud)
{
    const uint8_t *p = d->r.base + e->offset;
    if (bud->spent)
        return false; /* the budget ran out on an earlier member, which says so */
    if (e->size < 4) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)rec + 12, ctx,
                     "a compressed resource of %llu bytes has no room for its size prefix",
                     (unsigned long long)e->size);
        return false;
    }
    e->uncompressed_size = amx_load_u32be(p);
    if (e->uncompressed_size > PAK_MAX_INFLATE) {
        amx__finding(d, AMX_C_BAD_VALUE, (int64_t)e->offset, ctx,
                     "declares %u bytes decompressed, over the %zu-byte limit; not checked",
                     e->uncompressed_size, PAK_MAX_INFLATE);
        return false;
    }
    if (!is_zlib(p + 4, (size_t)e->size - 4)) {
        amx__finding(d, AMX_C_UNSUPPORTED, (int64_t)e->offset + 4, ctx,
                     "not a zlib stream (Echoes' segmented LZO?); the member is not decoded");
        return false;
    }
    if (e->uncompressed_size > bud->left) {
        bud->spent = true;
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, (int64_t)e->offset, ctx,
                     "unpacking its %u bytes would take the archive past its unpack budget of "
                     "%llu bytes (%llu MiB + %d x the archive's %zu bytes, at most %llu MiB; "
                     "%llu already unpacked): it and the compressed members after it are not "
                     "unpacked",
                     e->uncompressed_size, (unsigned long long)bud->total,
                     (unsigned long long)(AMX_UNPACK_ARCHIVE_FLOOR >> 20), AMX_UNPACK_RATIO,
                     d->r.end, (unsigned long long)(AMX_UNPACK_ARCHIVE_CAP >> 20),
                     (unsigned long long)(bud->total - bud->left));
        return false;
    }
    bud->left -= e->uncompressed_size;
    if (d->opts->unpack_later)
        return true;
    size_t got;
    const char *msg;
    inflate_result res = inflate_exact(p + 4, (size_t)e->size - 4, NULL, e->uncompressed_size,
                                       &got, &msg);
    switch (res) {
    case INFL_OK:
        e->inflatable = true;
        break;
    case INFL_NOT_ZLIB:
        amx__finding(d, AMX_C_UNSUPPORTED, (int64_t)e->offset + 4, ctx,
                     "not a zlib stream (Echoes' segmented LZO?); the member is not decoded");
        break;
    case INFL_CORRUPT:
        amx__finding_sev(d, AMX_C_BAD_VALUE, AMX_SEV_ERROR, (int64_t)e->offset + 4, ctx,
                         "the zlib stream is damaged (%s)", msg);
        break;
    case INFL_SIZE:
        if (msg)
            amx__finding(d, AMX_C_TRUNCATED, (int64_t)e->offset + 4, ctx,
                         "%s after %zu of %u bytes", msg, got, e->uncompressed_size);
        else
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)e->offset, ctx,
                         "declares %u bytes decompressed, the zlib stream gives %s%zu",
                         e->uncompressed_size, got > e->uncompressed_size ? "more than " : "",
                         got > e->uncompressed_size ? (size_t)e->uncompressed_size : got);
        break;
    case INFL_NOMEM:
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, (int64_t)e->offset, ctx,
                     "zlib ran out of memory");
        break;
    }
    return e->inflatable;
}

void amx__mp_pak_decode(amx_dec *d)
{
    amx_reader *r = &d->r;
    size_t len = r->end;
    uint32_t version = amx_read_u32be(r), unused = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header", "the file has %zu bytes; a PAK header needs 8",
                   len);
        return;
    }
    if (version != PAK_VERSION) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, "header",
                   "version 0x%08X; the Metroid Prime 1/2 PAK is 3.5 (0x00030005)", version);
        return;
    }
    d->asset->version = "3.5";
    if (unused != 0)
        amx__finding(d, AMX_C_BAD_VALUE, 4, "header", "the unused header word is 0x%08X, not 0",
                     unused);
    amx_mp_info *mp = mp_info(d);
    amx_mp_pak *pak = amx__alloc(d, sizeof *pak);
    amx_archive *ar = amx__alloc(d, sizeof *ar);
    if (!mp || !pak || !ar)
        return;
    mp->pak = pak;
    int hint = mp_game_hint(d->opts);
    mp->game = hint ? mp_game_name(hint) : NULL;
    mp->game_source = hint ? AMX_MP_GAME_HINT : AMX_MP_GAME_NONE;
    d->asset->archive = ar;

    named *names = NULL;
    uint32_t nnamed = 0;
    read_named(d, &names, &nnamed);
    pak->named_count = nnamed;
    if (d->fatal || d->out_of_memory)
        return;

    size_t count_at = amx_reader_tell(r);
    uint32_t nres = amx_read_u32be(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, (int64_t)count_at, "resource table",
                   "the file ends before the resource count");
        return;
    }
    if (!amx_reader_has(r, nres, PAK_RECORD)) {
        size_t fit = amx_reader_left(r) / PAK_RECORD;
        amx__finding(d, AMX_C_TRUNCATED, (int64_t)(count_at + 4 + fit * PAK_RECORD),
                     "resource table", "the resource table ends after %zu of %u records", fit,
                     nres);
        nres = (uint32_t)fit;
    }
    size_t tables_end = amx_reader_tell(r) + (size_t)nres * PAK_RECORD;
    pak->entries = amx__array(d, nres, sizeof *pak->entries);
    ar->entries = amx__array(d, nres, sizeof *ar->entries);
    if (!pak->entries || !ar->entries)
        return;
    mp_idset seen = { 0 };
    budget bud = { .total = unpack_budget(len) };
    bud.left = bud.total;
    span_set spans = { 0 };
    bool *unpackable = amx__array(d, nres, sizeof *unpackable);
    if (!unpackable)
        return;
    if (nres) {
        uint32_t slots = 1;
        while (slots < 2 * (uint64_t)nres)
            slots *= 2;
        spans.slots = amx__array(d, slots, sizeof *spans.slots);
        spans.mask = slots - 1;
        if (!spans.slots)
            return;
    }
    for (uint32_t i = 0; i < nres; i++) {
        size_t rec = amx_reader_tell(r);
        uint32_t compressed = amx_read_u32be(r);
        uint32_t type = amx_read_u32be(r);
        uint32_t id = amx_read_u32be(r);
        uint32_t size = amx_read_u32be(r);
        uint32_t offset = amx_read_u32be(r);
        int added = mp_idset_add(d, &seen, id);
        if (added < 0)
            return;
        if (added == 0) {
            pak->duplicates++;
            continue;
        }
        uint32_t k = ar->entry_count;
        amx_mp_pak_entry *e = &pak->entries[k];
        mp_fourcc(type, e->type);
        e->asset_id = id;
        e->compressed = compressed != 0;
        e->offset = offset;
        e->size = size;
        e->uncompressed_size = size;
        char name[32];
        snprintf(name, sizeof name, "%08X.%s", id, e->type);
        const char *ctx = amx__sprintf(d, "resource %u %s", i, name);
        uint8_t cc[4] = { (uint8_t)(type >> 24), (uint8_t)(type >> 16), (uint8_t)(type >> 8),
                          (uint8_t)type };
        if (!fourcc_ok(cc))
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)rec + 4, ctx,
                         "the resource type is not a printable FourCC");
        if (compressed > 1)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)rec, ctx,
                         "compression flag %u (0 or 1); taken as compressed", compressed);
        bool inside = (uint64_t)offset + size <= len;
        if (!inside)
            amx__finding(d, AMX_C_CHUNK_OVERRUN, (int64_t)rec + 16, ctx,
                         "data [%u, +%u) runs past the end of the file (%zu bytes)", offset, size,
                         len);
        else if (size && offset < tables_end)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)rec + 16, ctx,
                         "data at %u overlaps the tables (which end at %zu)", offset, tables_end);
        if (inside && e->compressed) {
            /* the same stored bytes as an earlier member: checked (and charged) once */
            int64_t first = span_first(&spans, pak->entries, k);
            if (first >= 0) {
                e->uncompressed_size = pak->entries[first].uncompressed_size;
                e->inflatable = pak->entries[first].inflatable;
                unpackable[k] = unpackable[first];
            } else {
                unpackable[k] = check_compressed(d, e, ctx, rec, &bud);
            }
        }
        /* A compressed member is valid when its stream inflates to its declared size (or,
         * with unpack_later, when its header is right): the scanner and `dump` unpack it
         * through amx_archive_member (the registry's unpack). */
        ar->entries[k] = (amx_archive_entry){
            .name = amx__strdup(d, name),
            .offset = offset,
            .size = size,
            .valid = inside && (!e->compressed || unpackable[k]),
            .compressed = e->compressed,
            .unpacked_size = e->uncompressed_size,
        };
        ar->entry_count = k + 1;
        pak->entry_count = k + 1;
        if (d->out_of_memory)
            return;
    }

    /* names: each names a listed resource of its type */
    for (uint32_t i = 0; i < nnamed; i++) {
        int64_t k = mp_idset_find(&seen, names[i].id);
        const char *ctx = amx__sprintf(d, "named resource %u '%s'", i, names[i].name);
        if (k < 0 || (uint64_t)k >= pak->entry_count) {
            amx__finding_sev(d, AMX_C_INDEX_OUT_OF_RANGE, AMX_SEV_WARNING, (int64_t)names[i].at + 4,
                             ctx, "asset %08X is not in the resource table", names[i].id);
            continue;
        }
        /* seen holds each id once, in the order of the entries */
        amx_mp_pak_entry *pe = &pak->entries[k];
        char tc[5];
        mp_fourcc(names[i].type, tc);
        if (strcmp(tc, pe->type) != 0)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)names[i].at, ctx,
                         "type %s, but the resource is a %s", tc, pe->type);
        if (!pe->name)
            pe->name = names[i].name;
    }
}

/* ---- public helpers ---- */

amx_status amx__mp_pak_unpack(const amx_archive_entry *e, const uint8_t *data, size_t len,
                              size_t cap, uint8_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (e->offset > len || e->size > len - e->offset || e->size < 4) {
        snprintf(err, errlen, "resource '%s' is not a complete compressed member", e->name);
        return AMX_E_INVALID_ARG;
    }
    const uint8_t *p = data + e->offset;
    uint32_t want = amx_load_u32be(p);
    if (want != e->unpacked_size || want > cap) {
        snprintf(err, errlen, "resource '%s' declares %u bytes unpacked (limit %zu)", e->name, want,
                 cap);
        return AMX_E_LIMIT;
    }
    uint8_t *buf = malloc(want ? want : 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory unpacking '%s'", e->name);
        return AMX_E_NOMEM;
    }
    size_t got;
    const char *msg = NULL;
    inflate_result res = inflate_exact(p + 4, (size_t)e->size - 4, buf, want, &got, &msg);
    if (res != INFL_OK) {
        if (res == INFL_SIZE && !msg)
            snprintf(err, errlen, "resource '%s': the zlib stream gives %s%zu bytes, not the %u "
                     "declared", e->name, got > want ? "more than " : "", got > want ? (size_t)want : got,
                     want);
        else
            snprintf(err, errlen, "resource '%s': the zlib stream does not inflate (%s)", e->name,
                     msg ? msg : res == INFL_NOT_ZLIB ? "not a zlib stream" : "zlib error");
        free(buf);
        return res == INFL_NOMEM ? AMX_E_NOMEM : AMX_E_INVALID_ARG;
    }
    *out = buf;
    return AMX_OK;
}

bool amx_mp_parse_asset_id(const char *path, uint32_t *out)
{
    if (!path || !out)
        return false;
    const char *base = path;
    for (const char *q = path; *q; q++)
        if (*q == '/' || *q == '\\' || *q == '#')
            base = q + 1;
    uint32_t v = 0;
    for (int i = 0; i < 8; i++) {
        char c = base[i];
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            digit = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            digit = (unsigned)(c - 'A' + 10);
        else
            return false;
        v = v << 4 | digit;
    }
    if (base[8] != '\0' && base[8] != '.')
        return false;
    *out = v;
    return true;
}
