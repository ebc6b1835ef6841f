/*
 * EA BIG archives (Command & Conquer Generals / Zero Hour "BIGF", BFME "BIG4"). Lists the members;
 * the scanner decodes each valid member's bytes like a loose file ("W3DZH.big#art/w3d/x.w3d").
 *
 * Layout and sources: docs/formats/w3d.md section 12 (EA's Win32BIGFileSystem.cpp in
 * electronicarts/CnC_Generals_Zero_Hour, OpenSAGE/OpenSAGE BigArchive.cs; not checked against a
 * retail archive here, so the decoder is tolerant).
 *
 *   +0  char[4] magic        "BIGF" (Generals/ZH) or "BIG4" (BFME)
 *   +4  u32 LE  archive size in bytes
 *   +8  u32 BE  entry count
 *   +12 u32 BE  offset of the first member's data (the end of the index)
 *   +16 entries, entry count times:
 *         u32 BE offset (absolute), u32 BE size, char name[] NUL-terminated
 *         (backslash-separated, e.g. "art\w3d\abc.w3d")
 *       member data
 *
 * Checks: every entry's data inside the archive (CHUNK_OVERRUN, the entry is not valid); the
 * index ending at or before the stated first-data offset (SIZE_MISMATCH) and that offset inside
 * the file (BAD_VALUE); names terminated inside the file (TRUNCATED: the rest of the index is
 * lost) and not empty (BAD_VALUE); member data not starting inside the index (BAD_VALUE, not
 * valid); the stated archive size equal to the real size (SIZE_MISMATCH, a warning); the same name
 * twice (ARCHIVE_DUPLICATE). Names are Latin-1 converted to UTF-8, '\' turned into '/'.
 */
#include "decoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BIG_HEADER 16u
#define BIG_MIN_ENTRY 9u /* offset, size and at least the NUL */

bool amx__big_probe(const uint8_t *data, size_t len)
{
    return data && len >= 4 && memcmp(data, "BIG", 3) == 0 && (data[3] == 'F' || data[3] == '4');
}

typedef struct name_pos { const char *name; uint32_t pos; } name_pos;

static int cmp_name_pos(const void *a, const void *b)
{
    const name_pos *x = a, *y = b;
    int c = strcasecmp(x->name, y->name);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void check_duplicates(amx_dec *d, const amx_archive *ar, const size_t *entry_at)
{
    name_pos *v = amx__array(d, ar->entry_count, sizeof *v);
    if (!v)
        return;
    for (uint32_t i = 0; i < ar->entry_count; i++)
        v[i] = (name_pos){ ar->entries[i].name, i };
    qsort(v, ar->entry_count, sizeof *v, cmp_name_pos);
    for (uint32_t i = 1; i < ar->entry_count; i++) {
        if (strcasecmp(v[i].name, v[i - 1].name) != 0 || !v[i].name[0])
            continue;
        char ctx[320];
        amx__entry_context(ctx, sizeof ctx, v[i].pos, v[i].name);
        amx__finding(d, AMX_C_ARCHIVE_DUPLICATE, (int64_t)entry_at[v[i].pos], ctx,
                     "the name is also entry %u's", v[i - 1].pos);
    }
}

void amx__big_decode(amx_dec *d)
{
    amx_reader *r = &d->r;
    amx_asset *asset = d->asset;
    size_t len = r->end;
    if (len < 4 || !amx__big_probe(r->base, len)) {
        amx__fatal(d, AMX_C_BAD_MAGIC, 0, "header", "the file does not start with BIGF or BIG4");
        return;
    }
    asset->version = r->base[3] == 'F' ? "BIGF" : "BIG4";
    if (len < BIG_HEADER) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header", "a BIG header needs 16 bytes, the file has %zu",
                   len);
        return;
    }
    amx_reader_skip(r, 4);
    uint32_t stated_size = amx_read_u32le(r);
    uint32_t count = amx_read_u32be(r);
    uint32_t first_data = amx_read_u32be(r);
    if (stated_size != len)
        amx__finding_sev(d, AMX_C_SIZE_MISMATCH, AMX_SEV_WARNING, 4, "header",
                         "the header states an archive size of %u bytes, the file has %zu",
                         stated_size, len);
    bool first_ok = first_data >= BIG_HEADER && first_data <= len;
    if (!first_ok)
        amx__finding(d, AMX_C_BAD_VALUE, 12, "header",
                     "the first data offset %u is outside the file (%zu bytes)", first_data, len);

    asset->archive = amx__alloc(d, sizeof *asset->archive);
    if (!asset->archive)
        return;
    amx_archive *ar = asset->archive;
    /* Every entry takes at least 9 bytes: never allocate more than the file can hold. */
    uint32_t fit = (uint32_t)((len - BIG_HEADER) / BIG_MIN_ENTRY);
    uint32_t n = count;
    if (n > fit) {
        amx__finding(d, AMX_C_TRUNCATED, 8, "header",
                     "%u entries need at least %llu bytes of index, the file has %zu after the "
                     "header", count, (unsigned long long)count * BIG_MIN_ENTRY, len - BIG_HEADER);
        n = fit;
    }
    ar->entries = amx__array(d, n, sizeof *ar->entries);
    size_t *entry_at = amx__array(d, n, sizeof *entry_at);
    if (!ar->entries || !entry_at)
        return;

    size_t index_end = BIG_HEADER;
    bool index_complete = true;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = amx_reader_tell(r);
        uint32_t offset = amx_read_u32be(r);
        uint32_t size = amx_read_u32be(r);
        size_t name_at = amx_reader_tell(r);
        size_t left = amx_reader_left(r);
        const uint8_t *p = r->err ? NULL : amx_reader_peek(r, left);
        const uint8_t *nul = p ? memchr(p, 0, left) : NULL;
        if (r->err || !nul) {
            amx__finding(d, AMX_C_TRUNCATED, (int64_t)(r->err ? at : name_at),
                         amx__sprintf(d, "entry %u", i),
                         "the index ends inside entry %u of %u (its name is not terminated "
                         "before the end of the file)", i, count);
            index_complete = false;
            break;
        }
        size_t nlen = (size_t)(nul - p);
        amx_reader_skip(r, nlen + 1);
        const char *name = amx__latin1_dup(d, p, nlen, true);
        entry_at[i] = at;
        char ctx[320];
        amx__entry_context(ctx, sizeof ctx, i, name);
        if (nlen == 0)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)name_at, ctx, "the entry has an empty name");
        index_end = amx_reader_tell(r);
        ar->entries[i] = (amx_archive_entry){ .name = name, .offset = offset, .size = size };
        ar->entry_count = i + 1;
        if (d->out_of_memory)
            return;
    }
    if (index_complete && first_ok && index_end > first_data)
        amx__finding(d, AMX_C_SIZE_MISMATCH, 12, "header",
                     "the index ends at %zu, after the first data offset %u", index_end,
                     first_data);

    for (uint32_t i = 0; i < ar->entry_count; i++) {
        amx_archive_entry *e = &ar->entries[i];
        char ctx[320];
        amx__entry_context(ctx, sizeof ctx, i, e->name);
        e->valid = e->offset + e->size <= (uint64_t)len;
        if (!e->valid) {
            amx__finding(d, AMX_C_CHUNK_OVERRUN, (int64_t)entry_at[i], ctx,
                         "data [%llu, +%llu) runs past the end of the archive (%zu bytes)",
                         (unsigned long long)e->offset, (unsigned long long)e->size, len);
        } else if (e->size > 0 && e->offset < index_end) {
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)entry_at[i], ctx,
                         "data at %llu starts inside the header or index (which ends at %zu)",
                         (unsigned long long)e->offset, index_end);
            e->valid = false;
        }
    }
    check_duplicates(d, ar, entry_at);
    amx__archive_overlaps(d, ar, entry_at);
}
