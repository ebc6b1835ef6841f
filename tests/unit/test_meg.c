/* Unit tests for the MEG archive decoder (lib/format/meg.c) and the MEG writer. */
#include "test.h"
#include "buf.h"
#include "check_asset.h"
#include "decoder.h"
#include "meg_writer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

static amx_asset *decode_as(const uint8_t *p, size_t n, amx_format fmt)
{
    amx_decode_opts o = { .format = fmt };
    return test_decode(p, n, &o);
}

static amx_asset *decode(const uint8_t *p, size_t n) { return decode_as(p, n, AMX_FMT_UNKNOWN); }

static const amx_finding *find(const amx_asset *a, amx_code code)
{
    return test_find(a, code, TEST_ANY_OFFSET);
}

static void put_u32(amxw_buf *b, size_t at, uint32_t v) { amxw_put_u32le(b, at, v); }

static void put_u16(amxw_buf *b, size_t at, uint16_t v)
{
    b->data[at] = (uint8_t)v;
    b->data[at + 1] = (uint8_t)(v >> 8);
}

static uint32_t get_u32(const amxw_buf *b, size_t at)
{
    return (uint32_t)b->data[at] | (uint32_t)b->data[at + 1] << 8 |
           (uint32_t)b->data[at + 2] << 16 | (uint32_t)b->data[at + 3] << 24;
}

static const uint8_t d_a[] = { 'a', 'l', 'o', 1, 2, 3, 4 };
static const uint8_t d_b[] = { 0xFF, 0, 0xFE };
static const uint8_t d_c[] = { 'x' };

static const amxw_meg_file sample_files[] = {
    { "DATA\\ART\\MODELS\\EV_TIE_FIGHTER.ALO", d_a, sizeof d_a },
    { "DATA\\ART\\MODELS\\EV_TIE_FIGHTER_IDLE_00.ALA", d_b, sizeof d_b },
    { "DATA\\XML\\EMPTY.XML", NULL, 0 },
    { "DATA\\ART\\MODELS\\UV_XWING.ALO", d_c, sizeof d_c },
};
#define SAMPLE_COUNT (sizeof sample_files / sizeof sample_files[0])

static void slashes(const char *in, char *out)
{
    for (; *in; in++)
        *out++ = *in == '\\' ? '/' : *in;
    *out = '\0';
}

/* ---- round trips ---- */

static void roundtrip(int version)
{
    amxw_buf b = { 0 };
    amxw_meg_layout lay;
    size_t rf[SAMPLE_COUNT];
    amxw_meg_ex(&b, version, sample_files, SAMPLE_COUNT, NULL, &lay, rf);
    CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MEG);
    amx_asset *a = decode(b.data, b.len);
    char want_version[2] = { (char)('0' + version), 0 };
    CHECK_STR(a->version, want_version);
    CHECK_EQ(a->format, AMX_FMT_MEG);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_EQ(a->finding_count, 0);
    test_print_findings(a);
    CHECK(a->archive != NULL);
    if (a->archive) {
        CHECK_EQ(a->archive->entry_count, SAMPLE_COUNT);
        uint32_t prev = 0;
        for (uint32_t i = 0; i < a->archive->entry_count && i < SAMPLE_COUNT; i++) {
            const amx_archive_entry *e = &a->archive->entries[i];
            const amxw_meg_file *f = &sample_files[rf[i]];
            char want[128];
            slashes(f->name, want);
            CHECK_STR(e->name, want);
            CHECK_EQ(e->size, f->size);
            CHECK(e->valid);
            CHECK(e->offset >= lay.data_offset && e->offset + e->size <= b.len);
            if (f->size)
                CHECK(memcmp(b.data + e->offset, f->data, f->size) == 0);
            uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)f->name, (uInt)strlen(f->name));
            CHECK(i == 0 || crc > prev); /* record order = CRC order */
            prev = crc;
        }
        /* Data is laid out in the given order, right after the tables. */
        size_t at = lay.data_offset;
        for (size_t k = 0; k < SAMPLE_COUNT; k++) {
            for (uint32_t i = 0; i < a->archive->entry_count; i++)
                if (rf[i] == k)
                    CHECK_EQ(a->archive->entries[i].offset, at);
            at += sample_files[k].size;
        }
        CHECK_EQ(at, b.len);
    }
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_roundtrip_v1(void) { roundtrip(1); }
static void test_roundtrip_v2(void) { roundtrip(2); }
static void test_roundtrip_v3(void) { roundtrip(3); }

static void test_empty_archives(void)
{
    for (int v = 1; v <= 3; v++) {
        amxw_buf b = { 0 };
        amxw_meg(&b, v, NULL, 0);
        CHECK_EQ(b.len, v == 1 ? 8 : v == 2 ? 20 : 24);
        CHECK_EQ(amx_probe(b.data, b.len), AMX_FMT_MEG);
        amx_asset *a = decode(b.data, b.len);
        char want[2] = { (char)('0' + v), 0 };
        CHECK_STR(a->version, want);
        CHECK_EQ(a->status, AMX_ASSET_OK);
        CHECK_EQ(a->finding_count, 0);
        CHECK(a->archive && a->archive->entry_count == 0);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

static void test_latin1_names(void)
{
    const amxw_meg_file files[] = {
        { "DATA\\\xC4RGER.TXT", d_c, 1 },  /* Ä */
        { "DATA\\\xFF\xE9.TXT", d_c, 1 },   /* ÿé */
    };
    for (int v = 1; v <= 3; v++) {
        amxw_buf b = { 0 };
        size_t rf[2];
        amxw_meg_ex(&b, v, files, 2, NULL, NULL, rf);
        amx_asset *a = decode(b.data, b.len);
        CHECK_EQ(a->finding_count, 0);
        CHECK_EQ(a->archive->entry_count, 2);
        for (uint32_t i = 0; i < 2; i++)
            CHECK_STR(a->archive->entries[i].name,
                      rf[i] == 0 ? "DATA/\xC3\x84RGER.TXT" : "DATA/\xC3\xBF\xC3\xA9.TXT");
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

/* ---- probe ---- */

static void test_probe(void)
{
    const uint8_t zeros[16] = { 0 };
    CHECK(amx__meg_probe(zeros, 8));   /* the empty v1 archive */
    CHECK(!amx__meg_probe(zeros, 16)); /* 8 zero bytes followed by more: not an empty archive */
    CHECK(!amx__meg_probe(zeros, 7));
    const uint8_t chunk[] = { 0x00, 0x02, 0, 0, 0x10, 0, 0, 0x80, 0, 0, 0, 0 };
    CHECK(!amx__meg_probe(chunk, sizeof chunk));
    const uint8_t ala[] = { 0x00, 0x10, 0, 0, 0x40, 0, 0, 0x80, 0x01, 0x10, 0, 0 };
    CHECK(!amx__meg_probe(ala, sizeof ala));
    const uint8_t badflags[] = { 0x78, 0x56, 0x34, 0x12, 0xA4, 0x70, 0x7D, 0x3F };
    CHECK(!amx__meg_probe(badflags, sizeof badflags));
    const uint8_t enc[] = { 0xFF, 0xFF, 0xFF, 0x8F, 0xA4, 0x70, 0x7D, 0x3F };
    CHECK(amx__meg_probe(enc, sizeof enc));
    /* equal counts but a control byte in the first name */
    const uint8_t ctl[] = { 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 'A', 0x01 };
    CHECK(!amx__meg_probe(ctl, sizeof ctl));
    /* equal but implausibly large counts */
    const uint8_t big[] = { 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 'A', 'B' };
    CHECK(!amx__meg_probe(big, sizeof big));

    /* prefixes of a real archive */
    amxw_buf b = { 0 };
    amxw_meg(&b, 1, sample_files, SAMPLE_COUNT);
    for (size_t n = 10; n <= b.len; n++) /* from the first name's length on */
        CHECK(amx__meg_probe(b.data, n));
    CHECK(!amx__meg_probe(b.data, 9));
    amxw_buf_free(&b);

    /* random data */
    uint32_t x = 12345;
    uint8_t rnd[64];
    int hits = 0;
    for (int t = 0; t < 20000; t++) {
        for (size_t i = 0; i < sizeof rnd; i++) {
            x = x * 1103515245u + 12345u;
            rnd[i] = (uint8_t)(x >> 16);
        }
        hits += amx__meg_probe(rnd, sizeof rnd);
    }
    CHECK_EQ(hits, 0);
}

/* ---- corpus fixtures ---- */

typedef struct fixture {
    const char *file;
    const char *version;
    uint32_t count;
    const char *names[2];
    uint64_t sizes[2];
} fixture;

static const fixture fixtures[] = {
    { "v1_empty.meg", "1", 0, { NULL, NULL }, { 0, 0 } },
    { "v1_1_file_data.meg", "1", 1, { "TEST.TXT", NULL }, { 3, 0 } },
    { "v1_2_files_empty.meg", "1", 2, { "C:/1.TXT", "C:/2.TXT" }, { 0, 0 } },
    { "v1_2_files_with_extended_ascii_name.meg", "1", 2,
      { "TEST\xC3\xBC.TXT", "TEST\xC3\xA4.TXT" }, { 3, 3 } },
    { "v3n_2_files_data.meg", "3", 2, { "A.TXT", "B.TXT" }, { 3, 3 } },
};

static uint8_t *read_fixture(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/meg/%s", test_corpus_dir(), name);
    uint8_t *p = test_read_file(path, len);
    if (!p)
        printf("# cannot read %s\n", path);
    return p;
}

static void test_fixtures(void)
{
    for (size_t k = 0; k < sizeof fixtures / sizeof fixtures[0]; k++) {
        const fixture *fx = &fixtures[k];
        size_t len;
        uint8_t *p = read_fixture(fx->file, &len);
        CHECK(p != NULL);
        if (!p)
            continue;
        printf("# %s\n", fx->file);
        CHECK_EQ(amx_probe(p, len), AMX_FMT_MEG);
        amx_asset *a = decode(p, len);
        CHECK_STR(a->version, fx->version);
        CHECK_EQ(a->status, AMX_ASSET_OK);
        CHECK_EQ(a->finding_count, 0); /* every fixture passes every check */
        test_print_findings(a);
        CHECK(a->archive != NULL);
        if (a->archive) {
            CHECK_EQ(a->archive->entry_count, fx->count);
            for (uint32_t i = 0; i < a->archive->entry_count && i < fx->count; i++) {
                const amx_archive_entry *e = &a->archive->entries[i];
                CHECK_STR(e->name, fx->names[i]);
                CHECK_EQ(e->size, fx->sizes[i]);
                CHECK(e->valid);
                CHECK(e->offset + e->size <= len);
                if (e->size == 3)
                    CHECK(memcmp(p + e->offset, "123", 3) == 0);
            }
        }
        amx_asset_free(a);
        free(p);
    }
}

/* ---- broken variants, one per rule ---- */

static void sample(amxw_buf *b, int version, amxw_meg_layout *lay, size_t *rf)
{
    *b = (amxw_buf){ 0 };
    amxw_meg_ex(b, version, sample_files, SAMPLE_COUNT, NULL, lay, rf);
}

static size_t rec_at(const amxw_meg_layout *lay, size_t i)
{
    return lay->records_offset + i * lay->record_size;
}

static void test_truncated(void)
{
    for (int v = 1; v <= 3; v++) {
        amxw_buf b;
        amxw_meg_layout lay;
        sample(&b, v, &lay, NULL);
        /* cut inside the second name: nothing can be listed */
        size_t second = lay.names_offset + 2 + strlen(sample_files[0].name);
        amx_asset *a = decode_as(b.data, second + 5, AMX_FMT_MEG);
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        CHECK_FINDING(a, AMX_C_TRUNCATED, (int64_t)second);
        amx_asset_free(a);
        /* cut inside the third record: two entries listed */
        a = decode_as(b.data, rec_at(&lay, 2) + 7, AMX_FMT_MEG);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK_FINDING(a, AMX_C_TRUNCATED, (int64_t)rec_at(&lay, 2));
        CHECK_EQ(a->archive->entry_count, 2);
        amx_asset_free(a);
        /* cut before the first record completes */
        a = decode_as(b.data, rec_at(&lay, 0) + 19, AMX_FMT_MEG);
        CHECK_EQ(a->status, AMX_ASSET_ERROR);
        CHECK_FINDING(a, AMX_C_TRUNCATED, (int64_t)rec_at(&lay, 0));
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
    /* a huge name count is rejected before allocating */
    amxw_buf b;
    amxw_meg_layout lay;
    sample(&b, 2, &lay, NULL);
    put_u32(&b, 12, 0x40000000u);
    put_u32(&b, 16, 0x40000000u);
    amx_asset *a = decode(b.data, b.len);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 12);
    amx_asset_free(a);
    /* a short header */
    a = decode_as(b.data, 14, AMX_FMT_MEG);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    amx_asset_free(a);
    a = decode_as(b.data, 5, AMX_FMT_MEG);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_FINDING(a, AMX_C_TRUNCATED, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_count_mismatch(void)
{
    amxw_buf b;
    amxw_meg_layout lay;
    sample(&b, 1, &lay, NULL);
    put_u32(&b, 4, SAMPLE_COUNT - 1); /* numFiles != numFilenames: only a forced decode reads it */
    CHECK(!amx__meg_probe(b.data, b.len));
    amx_asset *a = decode_as(b.data, b.len, AMX_FMT_MEG);
    CHECK_STR(a->version, "1");
    CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, 4);
    amx_asset_free(a);
    amxw_buf_free(&b);

    sample(&b, 2, &lay, NULL);
    put_u32(&b, 16, SAMPLE_COUNT - 1);
    a = decode(b.data, b.len);
    CHECK_FINDING(a, AMX_C_COUNT_MISMATCH, 16);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_index_out_of_range(void)
{
    for (int v = 1; v <= 3; v++) {
        amxw_buf b;
        amxw_meg_layout lay;
        sample(&b, v, &lay, NULL);
        size_t at = rec_at(&lay, 1) + lay.name_field;
        if (v == 3)
            put_u16(&b, at, 99);
        else
            put_u32(&b, at, 99);
        amx_asset *a = decode(b.data, b.len);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK_FINDING(a, AMX_C_INDEX_OUT_OF_RANGE, (int64_t)at);
        CHECK_EQ(a->archive->entry_count, SAMPLE_COUNT);
        CHECK_STR(a->archive->entries[1].name, "");
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

static void test_chunk_overrun(void)
{
    for (int v = 1; v <= 3; v++) {
        amxw_buf b;
        amxw_meg_layout lay;
        sample(&b, v, &lay, NULL);
        put_u32(&b, rec_at(&lay, 2) + lay.size_field, 0xFFFFFFF0u);
        amx_asset *a = decode(b.data, b.len);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK_FINDING(a, AMX_C_CHUNK_OVERRUN, (int64_t)(rec_at(&lay, 2) + lay.start_field));
        CHECK(!a->archive->entries[2].valid);
        CHECK(a->archive->entries[1].valid);
        CHECK_EQ(a->archive->entries[2].size, 0xFFFFFFF0u);
        if (v == 1)
            CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, (int64_t)lay.data_offset);
        amx_asset_free(a);
        amxw_buf_free(&b);
        /* a start past the end */
        sample(&b, v, &lay, NULL);
        put_u32(&b, rec_at(&lay, 0) + lay.start_field, (uint32_t)b.len + 1);
        a = decode(b.data, b.len);
        CHECK_FINDING(a, AMX_C_CHUNK_OVERRUN, (int64_t)(rec_at(&lay, 0) + lay.start_field));
        CHECK(!a->archive->entries[0].valid);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

static void test_crc_mismatch(void)
{
    for (int v = 1; v <= 3; v++) {
        amxw_buf b;
        amxw_meg_layout lay;
        sample(&b, v, &lay, NULL);
        size_t at = rec_at(&lay, SAMPLE_COUNT - 1) + lay.crc_field; /* the last: stays sorted */
        uint32_t crc = get_u32(&b, at);
        CHECK(crc != 0xFFFFFFFFu);
        put_u32(&b, at, crc + 1);
        amx_asset *a = decode(b.data, b.len);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        CHECK_FINDING(a, AMX_C_ARCHIVE_CRC_MISMATCH, (int64_t)at);
        CHECK_EQ(a->finding_count, 1);
        CHECK(strstr(find(a, AMX_C_ARCHIVE_CRC_MISMATCH)->context, "entry 3 'DATA/") != NULL);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

static void test_unsorted(void)
{
    /* Records in the given order, which is not CRC order for these two names. */
    amxw_meg_file files[2] = { sample_files[0], sample_files[1] };
    uint32_t c0 = (uint32_t)crc32(0L, (const Bytef *)files[0].name, (uInt)strlen(files[0].name));
    uint32_t c1 = (uint32_t)crc32(0L, (const Bytef *)files[1].name, (uInt)strlen(files[1].name));
    if (c0 < c1) {
        amxw_meg_file t = files[0];
        files[0] = files[1];
        files[1] = t;
    }
    amxw_meg_opts o = { .keep_order = true };
    for (int v = 1; v <= 3; v++) {
        amxw_buf b = { 0 };
        amxw_meg_layout lay;
        amxw_meg_ex(&b, v, files, 2, &o, &lay, NULL);
        amx_asset *a = decode(b.data, b.len);
        CHECK_STR(a->version, v == 1 ? "1" : v == 2 ? "2" : "3");
        CHECK_FINDING(a, AMX_C_ARCHIVE_UNSORTED, (int64_t)(rec_at(&lay, 1) + lay.crc_field));
        CHECK_EQ(a->finding_count, 1);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
    /* index != position */
    for (int v = 1; v <= 3; v++) {
        amxw_buf b;
        amxw_meg_layout lay;
        sample(&b, v, &lay, NULL);
        size_t at = rec_at(&lay, 1) + lay.index_field;
        put_u32(&b, at, 7);
        amx_asset *a = decode(b.data, b.len);
        CHECK_FINDING(a, AMX_C_ARCHIVE_UNSORTED, (int64_t)at);
        CHECK_EQ(a->finding_count, 1);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
    /* a format 3 archive whose first record index is damaged is still read as format 3 */
    amxw_buf b;
    amxw_meg_layout lay;
    sample(&b, 3, &lay, NULL);
    size_t at = rec_at(&lay, 0) + lay.index_field;
    put_u32(&b, at, 9);
    amx_asset *a = decode(b.data, b.len);
    CHECK_STR(a->version, "3");
    CHECK_FINDING(a, AMX_C_ARCHIVE_UNSORTED, (int64_t)at);
    CHECK_EQ(a->finding_count, 1);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_duplicate(void)
{
    const amxw_meg_file files[] = {
        { "DATA\\A.ALO", d_a, sizeof d_a },
        { "DATA\\B.ALO", d_b, sizeof d_b },
        { "DATA\\A.ALO", d_c, sizeof d_c },
    };
    for (int v = 1; v <= 3; v++) {
        amxw_buf b = { 0 };
        amxw_meg_layout lay;
        size_t rf[3];
        amxw_meg_ex(&b, v, files, 3, NULL, &lay, rf);
        amx_asset *a = decode(b.data, b.len);
        CHECK_EQ(a->status, AMX_ASSET_OK); /* a warning */
        CHECK_EQ(a->finding_count, 1);
        const amx_finding *f = find(a, AMX_C_ARCHIVE_DUPLICATE);
        CHECK(f != NULL);
        if (f) {
            /* the second of the two records of "DATA\A.ALO" */
            size_t second = rf[0] == 1 ? 2 : 1;
            CHECK_EQ(f->offset, (int64_t)(rec_at(&lay, second) + lay.crc_field));
            CHECK_EQ(f->severity, AMX_SEV_WARNING);
        }
        CHECK_EQ(a->archive->entry_count, 3);
        amx_asset_free(a);
        amxw_buf_free(&b);
    }
}

static void test_sizes(void)
{
    /* v1: trailing bytes */
    amxw_buf b;
    amxw_meg_layout lay;
    sample(&b, 1, &lay, NULL);
    size_t end = b.len;
    amxw_zeros(&b, 3);
    amx_asset *a = decode(b.data, b.len);
    CHECK_EQ(a->status, AMX_ASSET_OK);
    CHECK_FINDING(a, AMX_C_TRAILING_DATA, (int64_t)end);
    CHECK_EQ(a->finding_count, 1);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* v1: sizes add up to more than the file (no member overruns) */
    size_t rf[SAMPLE_COUNT];
    sample(&b, 1, &lay, rf);
    size_t first_data = 0; /* the record of sample_files[0], whose data comes first */
    for (size_t i = 0; i < SAMPLE_COUNT; i++)
        if (rf[i] == 0)
            first_data = i;
    size_t at = rec_at(&lay, first_data) + lay.size_field;
    put_u32(&b, at, get_u32(&b, at) + 1);
    a = decode(b.data, b.len);
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, (int64_t)lay.data_offset);
    /* and the longer member now runs one byte into the next one's data */
    CHECK_FINDING(a, AMX_C_ARCHIVE_OVERLAP, -1);
    CHECK_EQ(a->finding_count, 2);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* v2: dataStart disagrees with the tables */
    sample(&b, 2, &lay, NULL);
    put_u32(&b, 8, get_u32(&b, 8) + 4);
    a = decode(b.data, b.len);
    CHECK_STR(a->version, "2");
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, 8);
    CHECK_EQ(a->finding_count, 1);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* v3: filenamesSize and dataStart both one too large (still detected as v3) */
    sample(&b, 3, &lay, NULL);
    put_u32(&b, 8, get_u32(&b, 8) + 1);
    put_u32(&b, 20, get_u32(&b, 20) + 1);
    a = decode(b.data, b.len);
    CHECK_STR(a->version, "3");
    CHECK_FINDING(a, AMX_C_SIZE_MISMATCH, 20);
    CHECK_EQ(test_count_code(a, AMX_C_SIZE_MISMATCH), 2);
    CHECK_EQ(a->finding_count, 2);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_encrypted(void)
{
    amxw_buf b;
    amxw_meg_layout lay;
    sample(&b, 3, &lay, NULL);
    put_u32(&b, 0, 0x8FFFFFFFu);
    amx_asset *a = decode(b.data, b.len);
    CHECK_EQ(a->format, AMX_FMT_MEG);
    CHECK_STR(a->version, "3");
    CHECK_FINDING(a, AMX_C_UNSUPPORTED, 0);
    CHECK_EQ(a->finding_count, 1);
    CHECK(a->archive && a->archive->entry_count == 0);
    CHECK(a->status != AMX_ASSET_ERROR);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* a record flagged encrypted (the middle one: detection looks at the first and last) */
    sample(&b, 3, &lay, NULL);
    put_u16(&b, rec_at(&lay, 1), 1);
    a = decode(b.data, b.len);
    CHECK_STR(a->version, "3");
    CHECK_FINDING(a, AMX_C_UNSUPPORTED, (int64_t)rec_at(&lay, 1));
    CHECK(a->archive && a->archive->entry_count == 0);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* unknown record flags */
    sample(&b, 3, &lay, NULL);
    put_u16(&b, rec_at(&lay, 2), 0x10);
    a = decode(b.data, b.len);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, (int64_t)rec_at(&lay, 2));
    CHECK_EQ(a->finding_count, 1);
    CHECK_EQ(a->archive->entry_count, SAMPLE_COUNT);
    amx_asset_free(a);
    amxw_buf_free(&b);

    /* unknown archive flags (only a forced decode gets there) */
    sample(&b, 2, &lay, NULL);
    put_u32(&b, 0, 0x12345678u);
    CHECK(!amx__meg_probe(b.data, b.len));
    a = decode_as(b.data, b.len, AMX_FMT_MEG);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_nul_in_name(void)
{
    amxw_buf b;
    amxw_meg_layout lay;
    sample(&b, 2, &lay, NULL);
    b.data[lay.names_offset + 2 + 4] = 0; /* "DATA\0ART..." */
    amx_asset *a = decode(b.data, b.len);
    CHECK_FINDING(a, AMX_C_BAD_VALUE, (int64_t)lay.names_offset);
    for (uint32_t i = 0; i < a->archive->entry_count; i++)
        CHECK(strcmp(a->archive->entries[i].name, "DATA/ART/MODELS/EV_TIE_FIGHTER.ALO") != 0);
    amx_asset_free(a);
    amxw_buf_free(&b);
}

static void test_long_name_context(void)
{
    char name[301];
    memset(name, 0xE9, 300); /* Latin-1 e-acute: two bytes each in UTF-8 */
    name[300] = '\0';
    const amxw_meg_file files[] = { { name, d_c, 1 } };
    amxw_buf b = { 0 };
    amxw_meg_layout lay;
    amxw_meg_ex(&b, 2, files, 1, NULL, &lay, NULL);
    put_u32(&b, rec_at(&lay, 0) + lay.crc_field, 0);
    amx_asset *a = decode(b.data, b.len);
    CHECK_EQ(strlen(a->archive->entries[0].name), 600);
    const amx_finding *f = find(a, AMX_C_ARCHIVE_CRC_MISMATCH);
    CHECK(f != NULL);
    if (f) {
        size_t n = strlen(f->context);
        CHECK(n < 320);
        CHECK(strncmp(f->context, "entry 0 '\xC3\xA9", 11) == 0);
        CHECK(n > 5 && strcmp(f->context + n - 5, "\xA9...'") == 0); /* cut after a whole character */
    }
    amx_asset_free(a);
    amxw_buf_free(&b);
}

/* ---- mutations ---- */

static void mutate(const uint8_t *p, size_t n, const char *what)
{
    mutate_stats st = { 0 };
    mutate_all(p, n, 1, NULL, &st);
    CHECK_EQ(st.violations, 0);
    CHECK(st.decodes > 0);
    printf("# mutate %s: %zu decodes, ok %zu, partial %zu, error %zu\n", what, st.decodes,
           st.statuses[0], st.statuses[1], st.statuses[2]);
    amx_decode_opts o = { .format = AMX_FMT_MEG };
    st = (mutate_stats){ 0 };
    mutate_all(p, n, 1, &o, &st);
    CHECK_EQ(st.violations, 0);
}

static void test_mutate_generated(void)
{
    for (int v = 1; v <= 3; v++) {
        amxw_buf b = { 0 };
        amxw_meg(&b, v, sample_files, SAMPLE_COUNT);
        char what[16];
        snprintf(what, sizeof what, "v%d", v);
        mutate(b.data, b.len, what);
        amxw_buf_free(&b);
    }
}

static void test_mutate_fixtures(void)
{
    for (size_t k = 0; k < sizeof fixtures / sizeof fixtures[0]; k++) {
        size_t len;
        uint8_t *p = read_fixture(fixtures[k].file, &len);
        CHECK(p != NULL);
        if (!p)
            continue;
        mutate(p, len, fixtures[k].file);
        free(p);
    }
}

int main(void)
{
    RUN(test_roundtrip_v1);
    RUN(test_roundtrip_v2);
    RUN(test_roundtrip_v3);
    RUN(test_empty_archives);
    RUN(test_latin1_names);
    RUN(test_probe);
    RUN(test_fixtures);
    RUN(test_truncated);
    RUN(test_count_mismatch);
    RUN(test_index_out_of_range);
    RUN(test_chunk_overrun);
    RUN(test_crc_mismatch);
    RUN(test_unsorted);
    RUN(test_duplicate);
    RUN(test_sizes);
    RUN(test_encrypted);
    RUN(test_nul_in_name);
    RUN(test_long_name_context);
    RUN(test_mutate_generated);
    RUN(test_mutate_fixtures);
    return test_done();
}
