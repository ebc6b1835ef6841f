/*
 * Petroglyph MEG archives (Empire at War / Forces of Corruption Data\*.meg files): formats 1, 2 and
 * unencrypted 3. Lists the members; the scanner decodes each valid member's bytes itself.
 *
 * Layout, checks and sources: docs/formats/alamo.md (section 6). The decoder follows
 * AlamoEngine-Tools/PetroglyphTools (MegVersionIdentifier for the version detection,
 * MegFileTableValidator for the record order, the V1 size validator) and is checked against the
 * PetroglyphTools test fixtures.
 * All integers are little-endian.
 *
 * Format 1:
 *   +0  u32 numFilenames
 *   +4  u32 numFiles                      (must equal numFilenames)
 *   +8  name table, numFilenames x { u16 len; char name[len] }   (no NUL)
 *       record table, numFiles x 20 bytes:
 *         +0 u32 crc32   +4 u32 index   +8 u32 size   +12 u32 start (absolute)   +16 u32 nameIndex
 *       file data; header + tables + sum(size) == file length
 *
 * Format 2:
 *   +0  u32 0xFFFFFFFF   +4 u32 0x3F7D70A4   +8 u32 dataStart   +12 u32 numFilenames
 *   +16 u32 numFiles     +20 name table, records as in format 1, data from dataStart
 *
 * Format 3:
 *   +0  u32 flags (0xFFFFFFFF plain, 0x8FFFFFFF encrypted)   +4 u32 0x3F7D70A4
 *   +8  u32 dataStart    +12 u32 numFilenames   +16 u32 numFiles   +20 u32 filenamesSize
 *   +24 name table, then records of 20 bytes:
 *         +0 u16 flags (0 plain, 1 encrypted)   +2 u32 crc32   +6 u32 index   +10 u32 size
 *         +14 u32 start   +18 u16 nameIndex
 *   Encrypted archives (AES-128-CBC, keys only for later games) are reported, not listed.
 *
 * Version detection (MegVersionIdentifier): u32 a, b; a == b is format 1; otherwise b must be
 * 0x3F7D70A4; a == 0x8FFFFFFF is an encrypted format 3; for a == 0xFFFFFFFF it is format 3 when
 * dataStart - 20 * numFiles == 24 + filenamesSize and the first and last records have flags 0
 * and an index of 0 or numFiles - 1; otherwise format 2.
 *
 * Checks: crc32 = zlib crc32 of the stored name bytes; records sorted by crc32 ascending with
 * index == position; no two records with the same crc32; member data inside the file.
 * Names are Latin-1 (some tools write 0xFC etc.): converted to UTF-8, with '\' turned into '/'.
 */
#include "decoder.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define MEG_MAGIC 0x3F7D70A4u
#define MEG_PLAIN 0xFFFFFFFFu
#define MEG_ENCRYPTED 0x8FFFFFFFu
#define MEG_RECORD_SIZE 20u
#define MEG_MAX_PROBE_NAME 1024u /* longest name the probe accepts (the game's limit is 259) */

/* ---- probe ---- */

bool amx__meg_probe(const uint8_t *data, size_t len)
{
    if (len < 8)
        return false;
    uint32_t a = amx_load_u32le(data), b = amx_load_u32le(data + 4);
    if (b == MEG_MAGIC)
        return a == MEG_PLAIN || a == MEG_ENCRYPTED;
    if (a != b || a >= (1u << 24))
        return false;
    if (a == 0)
        return len == 8; /* the empty archive is exactly the 8-byte header */
    /* The names visible in the prefix must look like names: 1..1024 bytes, no control bytes. */
    size_t pos = 8;
    for (uint32_t i = 0; i < a; i++) {
        if (len - pos < 2)
            return i > 0;
        size_t n = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
        if (n == 0 || n > MEG_MAX_PROBE_NAME)
            return false;
        pos += 2;
        for (size_t k = 0; k < n; k++, pos++) {
            if (pos >= len)
                return true;
            if (data[pos] < 0x20 || data[pos] == 0x7F)
                return false;
        }
    }
    return true;
}

/* ---- decode ---- */

typedef struct meg_name {
    size_t off;        /* offset of the u16 length */
    uint32_t crc;      /* valid once utf8 is set */
    const char *utf8;  /* converted lazily, NULL until a record uses the name */
} meg_name;

typedef struct meg {
    amx_dec *d;
    int version;
    uint32_t num_names, num_files;
    uint32_t data_start;     /* v2/v3 */
    uint32_t names_size;     /* v3 */
    meg_name *names;
} meg;

/* Walks a name table of n names at off; false when it runs past the end. */
static bool name_table_size(const amx_reader *file, size_t off, uint32_t n, size_t *size)
{
    amx_reader r = *file;
    r.err = false;
    if (!amx_reader_seek(&r, off))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t len = amx_read_u16le(&r);
        if (r.err || !amx_reader_skip(&r, len))
            return false;
    }
    *size = amx_reader_tell(&r) - off;
    return true;
}

/* MegVersionIdentifier for a == 0xFFFFFFFF: 2 or 3. */
static int detect_plain_version(const amx_reader *file)
{
    amx_reader r = *file;
    amx_reader_seek(&r, 8);
    uint32_t data_start = amx_read_u32le(&r);
    uint32_t num_names = amx_read_u32le(&r);
    uint32_t num_files = amx_read_u32le(&r);
    uint32_t names_size = amx_read_u32le(&r);
    if (r.err)
        return 2; /* an empty format 2 archive ends after its 20-byte header */
    if ((int64_t)data_start - (int64_t)MEG_RECORD_SIZE * num_files != 24 + (int64_t)names_size)
        return 2;
    if (num_files == 0)
        return 3;
    /* First and last records: flags 0, index 0 or n-1. */
    bool records_ok = true;
    uint64_t first = 24 + (uint64_t)names_size;
    uint32_t which[2] = { 0, num_files - 1 };
    for (int k = 0; k < 2; k++) {
        amx_reader q = *file;
        uint64_t at = first + (uint64_t)which[k] * MEG_RECORD_SIZE;
        if (at > q.end || !amx_reader_seek(&q, (size_t)at)) {
            records_ok = false;
            break;
        }
        uint16_t flags = amx_read_u16le(&q);
        amx_read_u32le(&q);
        uint32_t index = amx_read_u32le(&q);
        if (q.err || flags != 0 || (index != 0 && index != num_files - 1))
            records_ok = false;
    }
    if (records_ok)
        return 3;
    /* A damaged format 3 record: still format 3 unless the layout also reads as format 2. */
    size_t size;
    if (name_table_size(file, 20, num_names, &size) &&
        20 + (uint64_t)size + (uint64_t)MEG_RECORD_SIZE * num_files == data_start)
        return 2;
    return 3;
}

static const char *version_str(int v)
{
    return v == 1 ? "1" : v == 2 ? "2" : "3";
}

/* The name of name table entry i as UTF-8 ('\' -> '/'), and its CRC-32; cached. */
static const char *name_get(meg *m, uint32_t i, uint32_t *crc)
{
    meg_name *nm = &m->names[i];
    if (!nm->utf8) {
        amx_reader r = m->d->r;
        amx_reader_seek(&r, nm->off);
        uint16_t len = amx_read_u16le(&r);
        const uint8_t *p = amx_reader_take(&r, len);
        if (!p) { /* cannot happen: the table was walked before */
            nm->utf8 = "";
            *crc = 0;
            return nm->utf8;
        }
        nm->crc = (uint32_t)crc32(0L, p, len);
        nm->utf8 = amx__latin1_dup(m->d, p, len, true);
        if (memchr(p, 0, len))
            amx__finding(m->d, AMX_C_BAD_VALUE, (int64_t)nm->off, amx__sprintf(m->d, "name %u", i),
                         "the file name contains a NUL byte; the name is cut there");
    }
    *crc = nm->crc;
    return nm->utf8;
}

/* Reads the name table; false (fatal finding) when it does not fit. */
static bool read_names(meg *m)
{
    amx_dec *d = m->d;
    size_t start = amx_reader_tell(&d->r);
    int64_t count_at = m->version == 1 ? 0 : 12;
    if (!amx_reader_has(&d->r, m->num_names, 2)) {
        amx__fatal(d, AMX_C_TRUNCATED, count_at, "name table",
                   "%u file names need at least %llu bytes, only %zu are left", m->num_names,
                   (unsigned long long)m->num_names * 2, amx_reader_left(&d->r));
        return false;
    }
    m->names = amx__array(d, m->num_names, sizeof *m->names);
    if (!m->names)
        return false;
    for (uint32_t i = 0; i < m->num_names; i++) {
        size_t at = amx_reader_tell(&d->r);
        uint16_t len = amx_read_u16le(&d->r);
        if (d->r.err || !amx_reader_skip(&d->r, len)) {
            amx__fatal(d, AMX_C_TRUNCATED, (int64_t)at, amx__sprintf(d, "name %u", i),
                       "file name %u of %u (%u bytes) runs past the end of the file", i,
                       m->num_names, len);
            return false;
        }
        m->names[i].off = at;
    }
    if (m->version == 3) {
        size_t size = amx_reader_tell(&d->r) - start;
        if (size != m->names_size)
            amx__finding(d, AMX_C_SIZE_MISMATCH, 20, "header",
                         "filenamesSize is %u but the name table takes %zu bytes", m->names_size,
                         size);
    }
    return true;
}

/* Reads the records into the archive. */
static void read_records(meg *m, amx_archive *ar)
{
    amx_dec *d = m->d;
    size_t file_len = d->r.end;
    size_t table_at = amx_reader_tell(&d->r);
    uint32_t n = m->num_files;
    bool truncated = false;
    if (!amx_reader_has(&d->r, n, MEG_RECORD_SIZE)) {
        size_t fit = amx_reader_left(&d->r) / MEG_RECORD_SIZE;
        int64_t at = (int64_t)(table_at + fit * MEG_RECORD_SIZE);
        if (fit == 0) {
            amx__fatal(d, AMX_C_TRUNCATED, at, "record table",
                       "%u file records need %llu bytes, only %zu are left", n,
                       (unsigned long long)n * MEG_RECORD_SIZE, amx_reader_left(&d->r));
            return;
        }
        amx__finding(d, AMX_C_TRUNCATED, at, amx__sprintf(d, "entry %zu", fit),
                     "the record table ends after %zu of %u records", fit, n);
        n = (uint32_t)fit;
        truncated = true;
    }
    ar->entries = amx__array(d, n, sizeof *ar->entries);
    if (!ar->entries)
        return;

    uint64_t total_size = 0;
    uint32_t prev_crc = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t rec = amx_reader_tell(&d->r);
        uint16_t flags = 0;
        uint32_t name_index;
        if (m->version == 3)
            flags = amx_read_u16le(&d->r);
        size_t crc_at = amx_reader_tell(&d->r);
        uint32_t crc = amx_read_u32le(&d->r);
        size_t index_at = amx_reader_tell(&d->r);
        uint32_t index = amx_read_u32le(&d->r);
        uint32_t size = amx_read_u32le(&d->r);
        size_t start_at = amx_reader_tell(&d->r);
        uint32_t start = amx_read_u32le(&d->r);
        size_t name_at = amx_reader_tell(&d->r);
        name_index = m->version == 3 ? amx_read_u16le(&d->r) : amx_read_u32le(&d->r);

        if (flags == 1) {
            amx__finding(d, AMX_C_UNSUPPORTED, (int64_t)rec, amx__sprintf(d, "entry %u", i),
                         "the archive has encrypted records; its members are not listed");
            ar->entry_count = 0;
            return;
        }
        if (flags != 0)
            amx__finding(d, AMX_C_BAD_VALUE, (int64_t)rec, amx__sprintf(d, "entry %u", i),
                         "unknown record flags 0x%04X (0 plain, 1 encrypted)", flags);

        const char *name = "";
        uint32_t name_crc = 0;
        bool has_name = name_index < m->num_names;
        if (has_name)
            name = name_get(m, name_index, &name_crc);
        char ctx[320];
        amx__entry_context(ctx, sizeof ctx, i, name);

        if (!has_name)
            amx__finding(d, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)name_at, ctx,
                         "name index %u is outside the name table (%u names)", name_index,
                         m->num_names);
        else if (crc != name_crc)
            amx__finding(d, AMX_C_ARCHIVE_CRC_MISMATCH, (int64_t)crc_at, ctx,
                         "record CRC-32 0x%08X, but the name's CRC-32 is 0x%08X", crc, name_crc);
        if (i > 0 && crc < prev_crc)
            amx__finding(d, AMX_C_ARCHIVE_UNSORTED, (int64_t)crc_at, ctx,
                         "CRC-32 0x%08X is smaller than the previous record's 0x%08X", crc,
                         prev_crc);
        else if (i > 0 && crc == prev_crc)
            amx__finding(d, AMX_C_ARCHIVE_DUPLICATE, (int64_t)crc_at, ctx,
                         "CRC-32 0x%08X is also the previous record's", crc);
        if (index != i)
            amx__finding(d, AMX_C_ARCHIVE_UNSORTED, (int64_t)index_at, ctx,
                         "record index %u, expected its position %u", index, i);
        prev_crc = crc;

        bool valid = (uint64_t)start + size <= file_len;
        if (!valid)
            amx__finding(d, AMX_C_CHUNK_OVERRUN, (int64_t)start_at, ctx,
                         "data [%u, +%u) runs past the end of the file (%zu bytes)", start, size,
                         file_len);
        total_size += size;
        ar->entries[i] = (amx_archive_entry){
            .name = name, .offset = start, .size = size, .valid = valid,
        };
        ar->entry_count = i + 1;
        if (d->out_of_memory)
            return;
    }
    amx__archive_overlaps(d, ar, NULL);
    if (truncated)
        return;

    size_t tables_end = amx_reader_tell(&d->r);
    if (m->version == 1) {
        uint64_t expected = tables_end + total_size;
        if (expected < file_len)
            amx__finding(d, AMX_C_TRAILING_DATA, (int64_t)expected, NULL,
                         "%zu bytes after the last member (header, tables and member sizes "
                         "add up to %llu bytes)",
                         file_len - (size_t)expected, (unsigned long long)expected);
        else if (expected > file_len)
            amx__finding(d, AMX_C_SIZE_MISMATCH, (int64_t)tables_end, NULL,
                         "header, tables and member sizes add up to %llu bytes, but the file "
                         "has %zu",
                         (unsigned long long)expected, file_len);
    } else if (m->data_start != tables_end) {
        amx__finding(d, AMX_C_SIZE_MISMATCH, 8, "header",
                     "dataStart is %u but the tables end at %zu", m->data_start, tables_end);
    }
}

void amx__meg_decode(amx_dec *d)
{
    amx_reader *r = &d->r;
    amx_asset *asset = d->asset;
    meg m = { .d = d };

    uint32_t a = amx_read_u32le(r), b = amx_read_u32le(r);
    if (r->err) {
        amx__fatal(d, AMX_C_TRUNCATED, 0, "header", "a MEG header needs 8 bytes, the file has %zu",
                   r->end);
        return;
    }
    if (b == MEG_MAGIC) {
        if (a == MEG_ENCRYPTED) {
            asset->version = "3";
            asset->archive = amx__alloc(d, sizeof *asset->archive);
            amx__finding(d, AMX_C_UNSUPPORTED, 0, "header",
                         "encrypted MEG archive (format 3); its members are not listed");
            return;
        }
        if (a != MEG_PLAIN) {
            amx__fatal(d, AMX_C_BAD_VALUE, 0, "header",
                       "unknown archive flags 0x%08X (0xFFFFFFFF plain, 0x8FFFFFFF encrypted)", a);
            return;
        }
        m.version = detect_plain_version(r);
        m.data_start = amx_read_u32le(r);
        m.num_names = amx_read_u32le(r);
        m.num_files = amx_read_u32le(r);
        if (m.version == 3)
            m.names_size = amx_read_u32le(r);
        if (r->err) {
            amx__fatal(d, AMX_C_TRUNCATED, 0, "header",
                       "a format %d header needs %d bytes, the file has %zu", m.version,
                       m.version == 3 ? 24 : 20, r->end);
            return;
        }
        if (m.num_names != m.num_files)
            amx__finding(d, AMX_C_COUNT_MISMATCH, 16, "header",
                         "%u file records but %u file names", m.num_files, m.num_names);
    } else {
        /* Format 1 (also when the format was forced and the two counts differ). */
        m.version = 1;
        m.num_names = a;
        m.num_files = b;
        if (a != b)
            amx__finding(d, AMX_C_COUNT_MISMATCH, 4, "header",
                         "%u file records but %u file names", b, a);
    }
    asset->version = version_str(m.version);
    asset->archive = amx__alloc(d, sizeof *asset->archive);
    if (!asset->archive)
        return;
    if (!read_names(&m))
        return;
    read_records(&m, asset->archive);
}
