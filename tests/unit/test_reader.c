/* Unit tests for the byte reader (lib/format/reader.h) and the chunk walker (lib/format/chunk.c). */
#include "test.h"
#include "buf.h"
#include "chunk.h"

#include <stdint.h>
#include <stdlib.h>

static void test_reader_le_be(void)
{
    const uint8_t b[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
    amx_reader r = amx_reader_make(b, sizeof b);
    CHECK_EQ(amx_read_u16le(&r), 0x0201);
    CHECK_EQ(amx_read_u16be(&r), 0x0304);
    CHECK_EQ(amx_read_u32le(&r), 0x08070605u);
    CHECK(!r.err);
    CHECK(amx_reader_eof(&r));
    r = amx_reader_make(b, sizeof b);
    CHECK_EQ(amx_read_u32be(&r), 0x01020304u);
    CHECK_EQ(amx_read_i32be(&r), 0x05060708);
    r = amx_reader_make(b, sizeof b);
    CHECK(amx_read_u64le(&r) == 0x0807060504030201ull);
    r = amx_reader_make(b, sizeof b);
    CHECK(amx_read_u64be(&r) == 0x0102030405060708ull);
    const uint8_t neg[] = { 0xFF, 0xFE };
    r = amx_reader_make(neg, 2);
    CHECK_EQ(amx_read_i16le(&r), -257);
}

static void test_reader_floats(void)
{
    const uint8_t one_le[] = { 0x00, 0x00, 0x80, 0x3F };
    const uint8_t one_be[] = { 0x3F, 0x80, 0x00, 0x00 };
    amx_reader r = amx_reader_make(one_le, 4);
    CHECK(amx_read_f32le(&r) == 1.0f);
    r = amx_reader_make(one_be, 4);
    CHECK(amx_read_f32be(&r) == 1.0f);
}

static void test_reader_past_end(void)
{
    const uint8_t b[] = { 1, 2, 3 };
    amx_reader r = amx_reader_make(b, 3);
    CHECK_EQ(amx_read_u16le(&r), 0x0201);
    CHECK(!r.err);
    CHECK_EQ(amx_read_u16le(&r), 0); /* one byte short: zero, error latched, cursor at end */
    CHECK(r.err);
    CHECK(amx_reader_eof(&r));
    CHECK_EQ(amx_read_u8(&r), 0);
    CHECK(amx_reader_take(&r, 0) != NULL); /* zero-length take at the end is fine */

    amx_reader z = amx_reader_make(b, 0);
    CHECK_EQ(amx_read_u8(&z), 0);
    CHECK(z.err);

    amx_reader big = amx_reader_make(b, 3);
    CHECK(amx_reader_take(&big, SIZE_MAX) == NULL);
    CHECK(big.err);
    CHECK(!amx_reader_has(&big, SIZE_MAX / 2, 4));
    amx_reader fits = amx_reader_make(b, 3);
    CHECK(amx_reader_has(&fits, 3, 1));
    CHECK(!amx_reader_has(&fits, 2, 2));
}

static void test_reader_sub_and_seek(void)
{
    const uint8_t b[] = { 1, 2, 3, 4, 5, 6 };
    amx_reader r = amx_reader_make(b, 6);
    amx_read_u8(&r);
    amx_reader c = amx_reader_sub(&r, 2);
    CHECK_EQ(amx_reader_tell(&r), 3);
    CHECK_EQ(amx_reader_left(&c), 2);
    CHECK_EQ(amx_read_u8(&c), 2);
    CHECK_EQ(amx_read_u8(&c), 3);
    CHECK_EQ(amx_read_u8(&c), 0); /* the child cannot read its parent's next byte */
    CHECK(c.err);
    CHECK(!r.err);
    amx_reader over = amx_reader_sub(&r, 100); /* clamped */
    CHECK(over.err);
    CHECK_EQ(amx_reader_left(&over), 3);
    CHECK(amx_reader_eof(&r));

    amx_reader s = amx_reader_make(b, 6);
    CHECK(amx_reader_seek(&s, 6));
    CHECK(!amx_reader_seek(&s, 7));
    CHECK(s.err);
    size_t out;
    CHECK(!amx_mul_size(SIZE_MAX, 2, &out));
    CHECK(!amx_add_size(SIZE_MAX, 1, &out));
    CHECK(amx_mul_size(3, 4, &out) && out == 12);
}

/* The chunk walker through a real decode context: nested chunks, overrun, short header. */
static amx_dec make_dec(const uint8_t *data, size_t len, amx_asset *a, amx_decode_opts *o)
{
    *a = (amx_asset){ .version = "" };
    *o = (amx_decode_opts){ .max_memory = 1 << 20 };
    return (amx_dec){ .r = amx_reader_make(data, len), .opts = o, .asset = a,
                      .arena = amx__arena_create(1 << 20), .max_findings = 100 };
}

static void free_dec(amx_dec *d)
{
    for (uint32_t i = 0; i < d->asset->finding_count; i++)
        free((void *)d->asset->findings[i].message);
    free(d->asset->findings);
    amx__arena_destroy(d->arena);
}

static void test_chunk_walk(void)
{
    amxw_buf b = { 0 };
    size_t outer = amxw_chunk_begin(&b, 0x200, true);
    amxw_chunk_str(&b, 0x203, "Root");
    size_t inner = amxw_chunk_begin(&b, 0x201, false);
    amxw_mini_u32(&b, 0x01, 42);
    amxw_mini_str(&b, 0x04, "abc");
    amxw_chunk_end(&b, inner);
    amxw_chunk_end(&b, outer);

    amx_asset a;
    amx_decode_opts o;
    amx_dec d = make_dec(b.data, b.len, &a, &o);
    amx_chunk c;
    CHECK(amx__chunk_next(&d, &d.r, &c));
    CHECK_EQ(c.type, 0x200);
    CHECK(c.container);
    CHECK_EQ(c.offset, 0);
    CHECK_EQ(c.size, b.len - 8);
    amx_chunk k;
    CHECK(amx__chunk_next(&d, &c.body, &k));
    CHECK_EQ(k.type, 0x203);
    CHECK(!k.container);
    CHECK_STR(amx__body_string(&d, k.body), "Root");
    CHECK(amx__chunk_next(&d, &c.body, &k));
    CHECK_EQ(k.type, 0x201);
    amx_mini m;
    uint32_t v = 0;
    CHECK(amx__mini_next(&d, &k.body, &m));
    CHECK_EQ(m.type, 1);
    CHECK(amx__mini_u32(&d, &m, NULL, &v));
    CHECK_EQ(v, 42);
    CHECK(amx__mini_next(&d, &k.body, &m));
    CHECK_EQ(m.type, 4);
    CHECK_STR(amx__body_string(&d, m.body), "abc");
    CHECK(!amx__mini_next(&d, &k.body, &m));
    CHECK(!amx__chunk_next(&d, &c.body, &k));
    CHECK(!amx__chunk_next(&d, &d.r, &c));
    CHECK_EQ(a.finding_count, 0);
    free_dec(&d);

    /* The outer chunk claims 100 bytes more than the file has: TRUNCATED (the file was cut
     * short), body clamped. */
    size_t outer_size = b.len - 8;
    amxw_put_u32le(&b, 4, (uint32_t)(outer_size + 100) | 0x80000000u);
    d = make_dec(b.data, b.len, &a, &o);
    CHECK(amx__chunk_next(&d, &d.r, &c));
    CHECK_EQ(amx_reader_left(&c.body), b.len - 8);
    CHECK_EQ(a.finding_count, 1);
    CHECK_EQ(a.findings[0].code, AMX_C_TRUNCATED);
    CHECK_EQ(a.findings[0].offset, 0);
    free_dec(&d);
    amxw_put_u32le(&b, 4, (uint32_t)outer_size | 0x80000000u);

    /* A child claiming more than its parent holds, inside the file: CHUNK_OVERRUN at the
     * child, which is clamped to the parent; the parent's next sibling is read intact. */
    amxw_buf n = { 0 };
    size_t p = amxw_chunk_begin(&n, 0x200, true);
    size_t child = amxw_chunk_begin(&n, 0x203, false);
    amxw_u32le(&n, 7);
    amxw_chunk_end(&n, child);
    amxw_chunk_end(&n, p);
    amxw_chunk_str(&n, 0x400, "next");
    amxw_put_u32le(&n, child + 4, 50);
    d = make_dec(n.data, n.len, &a, &o);
    CHECK(amx__chunk_next(&d, &d.r, &c));
    CHECK(amx__chunk_next(&d, &c.body, &k));
    CHECK_EQ(k.type, 0x203);
    CHECK_EQ(amx_reader_left(&k.body), 4);
    CHECK_EQ(a.finding_count, 1);
    CHECK_EQ(a.findings[0].code, AMX_C_CHUNK_OVERRUN);
    CHECK_EQ(a.findings[0].offset, (int64_t)child);
    CHECK(amx__chunk_next(&d, &d.r, &c));
    CHECK_EQ(c.type, 0x400);
    CHECK_STR(amx__body_string(&d, c.body), "next");
    free_dec(&d);
    amxw_buf_free(&n);

    /* A header cut short: TRUNCATED at its offset. */
    d = make_dec(b.data, 5, &a, &o);
    CHECK(!amx__chunk_next(&d, &d.r, &c));
    CHECK_EQ(a.finding_count, 1);
    CHECK_EQ(a.findings[0].code, AMX_C_TRUNCATED);
    free_dec(&d);

    /* A mini-chunk too short for a u32: SIZE_MISMATCH, value not taken. */
    amxw_buf s = { 0 };
    amxw_mini_u16(&s, 0x01, 7);
    d = make_dec(s.data, s.len, &a, &o);
    CHECK(amx__mini_next(&d, &d.r, &m));
    v = 99;
    CHECK(!amx__mini_u32(&d, &m, "hdr", &v));
    CHECK_EQ(v, 99);
    CHECK_EQ(a.findings[0].code, AMX_C_SIZE_MISMATCH);
    CHECK_STR(a.findings[0].context, "hdr");
    free_dec(&d);
    amxw_buf_free(&s);
    amxw_buf_free(&b);
}

static void test_decode_unknown(void)
{
    const uint8_t junk[] = "this is not a game file";
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode(junk, sizeof junk, NULL, &a), AMX_OK);
    CHECK(a != NULL);
    CHECK_EQ(a->format, AMX_FMT_UNKNOWN);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    CHECK_EQ(a->findings[0].code, AMX_C_NOT_RECOGNISED);
    amx_asset_free(a);
    CHECK_EQ(amx_decode(NULL, 0, NULL, &a), AMX_OK);
    CHECK_EQ(a->status, AMX_ASSET_ERROR);
    amx_asset_free(a);
    CHECK_EQ(amx_decode(NULL, 5, NULL, &a), AMX_E_INVALID_ARG);
    /* a Shockwave 3D file (the .w3d extension is shared) is named for what it is */
    const uint8_t ifx[] = "IFX\0\0\0\0\0\x10\0\0\0";
    CHECK_EQ(amx_decode(ifx, sizeof ifx, NULL, &a), AMX_OK);
    CHECK_EQ(a->format, AMX_FMT_UNKNOWN);
    CHECK(a->finding_count == 1 && strstr(a->findings[0].message, "Shockwave 3D"));
    CHECK_EQ(a->findings[0].severity, AMX_SEV_WARNING);
    amx_asset_free(a);
    amx_asset_free(NULL);
}

static void test_codes_table(void)
{
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        const amx_code_info *ci = amx_code_get((amx_code)i);
        CHECK(ci && ci->name && ci->summary && ci->help);
        amx_code back;
        CHECK(amx_code_parse(ci->name, &back) && back == (amx_code)i);
    }
    CHECK(amx_code_get(AMX_CODE_COUNT) == NULL);
    amx_code c;
    CHECK(amx_code_parse("bone_not_in_skeleton", &c) && c == AMX_C_BONE_NOT_IN_SKELETON);
    CHECK(!amx_code_parse("NOPE", &c));
    char stem[64];
    amx_path_stem("Data/Art/Models/VSF_X_DEPLOY_00.ala", stem, sizeof stem);
    CHECK_STR(stem, "VSF_X_DEPLOY_00");
    amx_path_stem("DATA\\ART\\MODELS\\X.ALO", stem, sizeof stem);
    CHECK_STR(stem, "X");
    /* '#' belongs to a loose file's name; members are named by their own names */
    amx_path_stem("Data/Art/Models/X#old.ALA", stem, sizeof stem);
    CHECK_STR(stem, "X#old");
}

/* docs/rules.md documents every code as lib/common/codes.c has it: the row of its table (code,
 * default severity, meaning, fix: what `animidx rules` prints) and a section of its own. */
static void test_rules_doc(void)
{
    const char *src = getenv("AMX_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/rules.md", src ? src : "..");
    size_t len = 0;
    unsigned char *doc = test_read_file(path, &len);
    CHECK(doc != NULL);
    if (!doc)
        return;
    char *text = malloc(len + 1);
    memcpy(text, doc, len);
    text[len] = '\0';
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        const amx_code_info *ci = amx_code_get((amx_code)i);
        char row[2048], head[128];
        snprintf(row, sizeof row, "| `%s` | %s | %s | %s |\n", ci->name,
                 amx_severity_name(ci->severity), ci->summary, ci->help);
        snprintf(head, sizeof head, "\n### %s\n", ci->name);
        if (!strstr(text, row)) {
            printf("# docs/rules.md lacks the row for %s as codes.c has it: %s", ci->name, row);
            test_failed_checks++;
        }
        if (!strstr(text, head)) {
            printf("# docs/rules.md lacks the section ### %s\n", ci->name);
            test_failed_checks++;
        }
    }
    free(text);
    free(doc);
}

int main(void)
{
    RUN(test_reader_le_be);
    RUN(test_reader_floats);
    RUN(test_reader_past_end);
    RUN(test_reader_sub_and_seek);
    RUN(test_chunk_walk);
    RUN(test_decode_unknown);
    RUN(test_codes_table);
    RUN(test_rules_doc);
    return test_done();
}
