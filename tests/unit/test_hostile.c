/* Hostile input without denial of service (issue 16), through the library: the findings cap
 * keeps the most severe findings, PAK archives have an unpack budget and never inflate the same
 * bytes twice, the scan bounds what its archives unpack together. */
#include "test.h"
#include "animidx/os.h"

#include "check_asset.h"
#include "decoder.h"
#include "mp_writer.h"

#include "animidx/config.h"
#include "animidx/index.h"
#include "animidx/mp.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the findings cap ---- */

static amx_dec make_dec(amx_asset *a, amx_decode_opts *o, uint32_t max)
{
    static const uint8_t none[1];
    *a = (amx_asset){ .version = "" };
    *o = (amx_decode_opts){ .max_memory = 1 << 20 };
    return (amx_dec){ .r = amx_reader_make(none, 0), .opts = o, .asset = a,
                      .arena = amx__arena_create(1 << 20), .max_findings = max };
}

static void free_dec(amx_dec *d)
{
    for (uint32_t i = 0; i < d->asset->finding_count; i++)
        free((void *)d->asset->findings[i].message);
    free(d->asset->findings);
    amx__arena_destroy(d->arena);
}

static void test_cap_keeps_errors(void)
{
    amx_asset a;
    amx_decode_opts o;
    amx_dec d = make_dec(&a, &o, 200);
    /* 250 warnings (200 kept), then one error: the error must not be the one dropped */
    for (int i = 0; i < 250; i++)
        amx__finding(&d, AMX_C_BAD_VALUE, i, NULL, "warning %d", i);
    CHECK_EQ(a.finding_count, 200);
    CHECK_EQ(a.findings_dropped, 50);
    amx__finding(&d, AMX_C_CHUNK_OVERRUN, 9999, "record 7", "the error");
    CHECK_EQ(a.finding_count, 200);
    CHECK_EQ(a.findings_dropped, 51);
    CHECK_EQ(a.findings_dropped_by_severity[AMX_SEV_WARNING], 51);
    CHECK_EQ(a.findings_dropped_by_severity[AMX_SEV_ERROR], 0);
    const amx_finding *e = test_find(&a, AMX_C_CHUNK_OVERRUN, 9999);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->message, "the error");
        CHECK_STR(e->context, "record 7");
    }
    CHECK_EQ(a.findings[a.finding_count - 1].code, AMX_C_CHUNK_OVERRUN); /* order kept */
    CHECK_EQ(a.findings[0].offset, 0);
    CHECK_EQ(a.status, AMX_ASSET_PARTIAL); /* the status follows what was found */
    CHECK_EQ(amx_findings_dropped_severity(&a), AMX_SEV_WARNING);
    char msg[256];
    amx_findings_dropped_message(&a, msg, sizeof msg);
    CHECK_STR(msg, "51 more findings in this file were not recorded (51 warnings; the most severe "
                   "were kept)");

    /* info goes before warnings; a full list of errors drops the next error */
    free_dec(&d);
    d = make_dec(&a, &o, 4);
    amx__finding(&d, AMX_C_UNKNOWN_CHUNK, 1, NULL, "info 1");
    amx__finding(&d, AMX_C_BAD_VALUE, 2, NULL, "warning 2");
    amx__finding(&d, AMX_C_UNKNOWN_CHUNK, 3, NULL, "info 3");
    amx__finding(&d, AMX_C_BAD_VALUE, 4, NULL, "warning 4");
    amx__finding(&d, AMX_C_TRUNCATED, 5, NULL, "error 5"); /* evicts info 3 (the last info) */
    CHECK_EQ(a.finding_count, 4);
    CHECK(test_find(&a, AMX_C_UNKNOWN_CHUNK, 1) && !test_find(&a, AMX_C_UNKNOWN_CHUNK, 3));
    amx__finding(&d, AMX_C_UNKNOWN_CHUNK, 6, NULL, "info 6"); /* dropped */
    CHECK(!test_find(&a, AMX_C_UNKNOWN_CHUNK, 6));
    amx__finding(&d, AMX_C_TRUNCATED, 7, NULL, "error 7");
    amx__finding(&d, AMX_C_TRUNCATED, 8, NULL, "error 8");
    amx__finding(&d, AMX_C_TRUNCATED, 9, NULL, "error 9");
    amx__finding(&d, AMX_C_TRUNCATED, 10, NULL, "error 10"); /* every kept one is an error */
    CHECK_EQ(test_count_severity(&a, AMX_SEV_ERROR), 4);
    CHECK(test_find(&a, AMX_C_TRUNCATED, 5) && test_find(&a, AMX_C_TRUNCATED, 9));
    CHECK(!test_find(&a, AMX_C_TRUNCATED, 10));
    CHECK_EQ(a.findings_dropped, 6);
    CHECK_EQ(a.findings_dropped_by_severity[AMX_SEV_INFO], 3);
    CHECK_EQ(a.findings_dropped_by_severity[AMX_SEV_WARNING], 2);
    CHECK_EQ(a.findings_dropped_by_severity[AMX_SEV_ERROR], 1);
    CHECK_EQ(amx_findings_dropped_severity(&a), AMX_SEV_ERROR);
    amx_findings_dropped_message(&a, msg, sizeof msg);
    CHECK_STR(msg, "6 more findings in this file were not recorded (1 error, 2 warnings, 3 info; "
                   "the most severe were kept)");
    free_dec(&d);
}

/* ---- PAK: the unpack budget, and each stored span checked once ---- */

static uint8_t *zeros(size_t n)
{
    uint8_t *p = calloc(n ? n : 1, 1);
    CHECK(p != NULL);
    return p;
}

/* A PAK of `n` compressed members of `size` zero bytes each; `shared` records after them point
 * at the stored bytes of the first. */
static void pak_of(amxw_buf *b, uint32_t n, size_t size, uint32_t shared, amxw_mp_pak_layout *lay)
{
    uint8_t *z = zeros(size);
    amxw_mp_resource res[32];
    for (uint32_t i = 0; i < n + shared && i < 32; i++)
        res[i] = (amxw_mp_resource){ .type = AMXW_FOURCC('T', 'X', 'T', 'R'), .id = 0x100 + i,
                                      .data = z, .len = i < n ? size : 8, .compress = true };
    amxw_mp_pak(b, res, n + shared, lay);
    for (uint32_t i = n; i < n + shared; i++) { /* same span as resource 0 */
        amxw_mp_put_u32(b, lay->record[i] + 12, (uint32_t)lay->size[0]);
        amxw_mp_put_u32(b, lay->record[i] + 16, (uint32_t)lay->data[0]);
    }
    free(z);
}

static amx_asset *decode_pak(const amxw_buf *b, bool later)
{
    amx_decode_opts o = { .format = AMX_FMT_MP_PAK, .unpack_later = later };
    return test_decode(b->data, b->len, &o);
}

static void test_pak_budget(void)
{
    /* 40 MiB each: one fits a small archive's budget (64 MiB + 32 x its size), two do not */
    size_t big = (size_t)40 << 20;
    amxw_buf b = { 0 };
    amxw_mp_pak_layout lay;
    pak_of(&b, 1, big, 5, &lay);
    CHECK(b.len < 200000);
    for (int later = 0; later < 2; later++) {
        amx_asset *a = decode_pak(&b, later);
        if (!a)
            continue;
        /* six records, one stored span: checked and charged once, so all within the budget */
        CHECK_EQ(a->archive->entry_count, 6);
        CHECK_EQ(test_count_code(a, AMX_C_LIMIT_EXCEEDED), 0);
        for (uint32_t i = 0; i < a->archive->entry_count; i++) {
            CHECK(a->archive->entries[i].valid);
            CHECK_EQ(a->archive->entries[i].unpacked_size, big);
            CHECK_EQ(a->mp->pak->entries[i].inflatable, !later);
        }
        amx_asset_free(a);
    }
    amxw_buf_free(&b);

    pak_of(&b, 3, big, 2, &lay);
    for (int later = 0; later < 2; later++) {
        amx_asset *a = decode_pak(&b, later);
        if (!a)
            continue;
        /* the second member overruns: one finding, on it; it and the third are not valid; the
         * records sharing the first member's bytes stay valid */
        CHECK_EQ(test_count_code(a, AMX_C_LIMIT_EXCEEDED), 1);
        CHECK_FINDING(a, AMX_C_LIMIT_EXCEEDED, lay.data[1]);
        const amx_finding *f = test_find(a, AMX_C_LIMIT_EXCEEDED, lay.data[1]);
        CHECK(f && strstr(f->context, "00000101.TXTR") && strstr(f->message, "unpack budget"));
        CHECK(a->archive->entries[0].valid);
        CHECK(!a->archive->entries[1].valid);
        CHECK(!a->archive->entries[2].valid);
        CHECK(a->archive->entries[3].valid && a->archive->entries[4].valid);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
        amx_asset_free(a);
    }
    amxw_buf_free(&b);

    /* unpack_later: a damaged stream is found when the member is unpacked, not by the decode */
    pak_of(&b, 1, 4096, 0, &lay);
    b.data[lay.data[0] + 12] ^= 0x55;
    amx_asset *a = decode_pak(&b, true);
    if (a) {
        CHECK(a->archive->entries[0].valid);
        const uint8_t *out;
        size_t out_len;
        void *owned = NULL;
        char err[256] = "";
        CHECK_EQ(amx_archive_member(a, b.data, b.len, 0, &out, &out_len, &owned, err, sizeof err),
                 AMX_E_INVALID_ARG);
        CHECK(owned == NULL && strstr(err, "00000100.TXTR"));
        amx_asset_free(a);
    }
    a = decode_pak(&b, false);
    if (a) {
        CHECK(!a->archive->entries[0].valid);
        amx_asset_free(a);
    }
    amxw_buf_free(&b);
}

/* ---- the scan's unpack budget ---- */

static char root[256], dbpath[300];

static void fresh_tree(const char *tag)
{
    snprintf(root, sizeof root, "/tmp/amx_hostile_%s_%d", tag, (int)amx_os_pid());
    snprintf(dbpath, sizeof dbpath, "%s.db", root);
    test_remove_index(root, dbpath);
}

static void put(const char *rel, amxw_buf *b)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    CHECK_EQ(amxw_write_file(b, path), 0);
    amxw_buf_free(b);
}

static int64_t q_int(amx_db *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    else
        printf("# query failed: %s: %s\n", sql, sqlite3_errmsg(amx_db_handle(db)));
    sqlite3_finalize(s);
    return v;
}

static void test_scan_unpack_budget(void)
{
    fresh_tree("unpack");
    amxw_buf b = { 0 };
    amxw_mp_pak_layout lay;
    pak_of(&b, 4, 300000, 2, &lay); /* 4 x 300 KB unpacked, and two records sharing the first */
    put("A/Metroid1.pak", &b);
    amx_db *db = NULL;
    char err[512] = "";
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    if (!db)
        return;
    /* a budget of 1 MB + 32 x the archive's few KB: three members fit, the fourth does not */
    amx_scan_opts o = { .root = root, .jobs = 2, .unpack_floor = 700000 };
    amx_scan_stats st = { 0 };
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(st.archives_incomplete, 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'LIMIT_EXCEEDED' AND message "
                       "LIKE '%scan past its unpack budget%'"), 1);
    /* the first stored span (three records), the second member, the third's finding */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id IS NOT NULL"), 5);
    CHECK_EQ(q_int(db, "SELECT mtime_ns FROM files WHERE parent_id IS NULL"), -1);
    /* the next scan, with room, completes the archive */
    o.unpack_floor = 0;
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(st.archives_incomplete, 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM files WHERE parent_id IS NOT NULL"), 6);
    CHECK(q_int(db, "SELECT mtime_ns FROM files WHERE parent_id IS NULL") > 0);
    amx_db_close(db);
    fresh_tree("unpack"); /* removes the tree and its index */
}

/* ---- the configuration: NUL bytes and continuation lines ---- */

static const char *load_text(const char *text, size_t len, amx_config *c, char *err, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/amx_hostile_cfg_%d.ini", (int)amx_os_pid());
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return "cannot write";
    fwrite(text, 1, len, f);
    fclose(f);
    amx_config_finish(c);
    CHECK_EQ(amx_config_init(c), 0);
    err[0] = '\0';
    amx_config_load_file(c, path, err, n);
    remove(path);
    const char *colon = strstr(err, ".ini:"); /* without the temporary path */
    return colon ? colon + 1 : err;
}

#define LOAD(lit) load_text(lit, sizeof(lit) - 1, &c, err, sizeof err)

static void test_config_text(void)
{
    amx_config c = { 0 };
    char err[512];
    /* a NUL cut the value short without a word; now it is an error on its line */
    CHECK_STR(LOAD("[index]\ndatabase = /safe\0/../evil.db\n"),
              "ini:2: a NUL byte in the line (a configuration is text)");
    CHECK_STR(LOAD("[severity]\nTRUNCATED = off\0 ; looks like error\n"),
              "ini:2: a NUL byte in the line (a configuration is text)");
    CHECK_EQ(c.severity[AMX_C_TRUNCATED], AMX_SEV_ERROR);
    /* an indented line continues the key before it: only list keys take more values */
    CHECK_STR(LOAD("[index]\ndatabase = /a.db\n  /b.db\n"),
              "ini:3: an indented line continues 'database', which takes one value (only roots, "
              "ignore and base take a list); remove the indentation or join the lines");
    CHECK_STR(LOAD("[scan]\njobs = 1\n\t8\n"),
              "ini:3: an indented line continues 'jobs', which takes one value (only roots, "
              "ignore and base take a list); remove the indentation or join the lines");
    CHECK(strstr(LOAD("[severity]\nTRUNCATED = warning\n   off\n"), "ini:3: an indented line "
                                                                      "continues 'TRUNCATED'"));
    CHECK(strstr(LOAD("[daemon]\nsocket = /s\n log = /l\n"), "ini:3: an indented line continues"));
    CHECK_STR(LOAD("[scan]\nroots = /a\n  /b, /c\nignore = *.bak\n  tmp\n"), "");
    CHECK_EQ(c.root_count, 3);
    CHECK_EQ(c.ignore_count, 2);
    CHECK_STR(LOAD("[root /m]\nbase = /g\n    /h\n"), "");
    CHECK(c.root_bases_count == 1 && c.root_bases[0].count == 2);
    /* not continuations: an indented first key of a section, comments, blank lines */
    CHECK_STR(LOAD("[scan]\n  jobs = 2\n[index]\n  database = /d.db\n  ; note\n\n"), "");
    CHECK_EQ(c.jobs, 2);
    CHECK_STR(c.db_path, "/d.db");
    amx_config_finish(&c);
}

/* ---- paths that are not text ---- */

static void check_round_trip(const char *raw)
{
    char *enc = amx_path_encode(raw);
    char *dec = enc ? amx_path_decode(enc) : NULL;
    CHECK(enc && dec && strcmp(dec, raw) == 0);
    free(enc);
    free(dec);
}

static void test_path_codec(void)
{
    static const struct { const char *raw, *stored; } cases[] = {
        { "Data/Art/X.ALO", "Data/Art/X.ALO" },
        { "caf\xc3\xa9/X.ALA", "caf\xc3\xa9/X.ALA" },      /* UTF-8: as it is */
        { "A\xff.ALA", "A%FF.ALA" },
        { "A\xfe.ALA", "A%FE.ALA" },
        { "A%FF.ALA", "A%25FF.ALA" },                     /* reads like an escape */
        { "100% done/x%zz%4", "100% done/x%zz%4" },       /* does not */
        { "\xc3(\xed\xa0\x80", "%C3(%ED%A0%80" },        /* cut sequence, surrogate */
        { "\xc0\xaf", "%C0%AF" },                          /* overlong '/' */
        { "%%41", "%%2541" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *enc = amx_path_encode(cases[i].raw);
        CHECK_STR(enc, cases[i].stored);
        CHECK_EQ(amx_path_needs_encoding(cases[i].raw), strcmp(cases[i].raw, cases[i].stored) != 0);
        free(enc);
        check_round_trip(cases[i].raw);
    }
    /* every byte pair and triple after a '%' or alone */
    char raw[8];
    for (int a = 1; a < 256; a++)
        for (int b = 0; b < 256; b += 7) {
            snprintf(raw, sizeof raw, "%c%c%c", (char)a, b ? (char)b : 'F', '5');
            check_round_trip(raw);
            snprintf(raw, sizeof raw, "%%%c%c", (char)a, b ? (char)b : '0');
            check_round_trip(raw);
        }
}

int main(void)
{
    RUN(test_cap_keeps_errors);
    RUN(test_pak_budget);
    RUN(test_scan_unpack_budget);
    RUN(test_config_text);
    RUN(test_path_codec);
    return test_done();
}
