/* A clip's tracks packed into one blob (lib/index/tracks.c): the round trip, a damaged blob
 * never read out of bounds, the SQL functions, and the migration that packed the rows of the
 * old per-track table of an existing index. */
#include "test.h"
#include "animidx/os.h"

#include "db_internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const amx_track sample[] = {
    { .bone = "Root", .bone_index = 0, .channels = AMX_CH_ROTATION | AMX_CH_TRANSLATION, .offset = 120 },
    { .bone = "Bip01_Spine_01", .bone_index = 1, .channels = AMX_CH_ROTATION, .offset = 300 },
    { .bone = "Bip01_Spine_02", .bone_index = 2, .channels = 0, .offset = 290 }, /* offsets go back */
    { .bone = NULL, .bone_index = -7, .channels = AMX_CH_VISIBILITY, .offset = -1 },
    { .bone = "Bip01", .bone_index = 2147483647, .channels = AMX_CH_STEP | AMX_CH_SCALE,
      .offset = 5000000000LL },
    { .bone = "", .bone_index = 4, .channels = AMX_CH_ROTATION, .offset = 0 },
};
#define NSAMPLE (sizeof sample / sizeof sample[0])

static void check_rows(const void *data, size_t len)
{
    amx__tracks_iter it;
    amx__track_row r;
    CHECK(amx__tracks_begin(&it, data, len));
    size_t n = 0;
    while (amx__tracks_next(&it, &r)) {
        CHECK(n < NSAMPLE);
        if (n >= NSAMPLE)
            break;
        const amx_track *t = &sample[n];
        CHECK_EQ(r.idx, (int64_t)n);
        CHECK_EQ(r.bone_index, (int64_t)t->bone_index);
        CHECK_EQ(r.channels, t->channels);
        CHECK_EQ(r.offset, t->offset);
        CHECK((r.bone == NULL) == (t->bone == NULL));
        if (r.bone && t->bone)
            CHECK_STR(r.bone, t->bone);
        n++;
    }
    CHECK(!it.bad);
    CHECK_EQ(n, NSAMPLE);
    amx__tracks_end(&it);
}

static void test_round_trip(void)
{
    amx__byte_buf b = { 0 };
    CHECK_EQ(amx__tracks_pack(sample, NSAMPLE, &b), 0);
    check_rows(b.data, b.len);
    /* 2 (version, count) + 10 + 20 + 6 ("Bip01_Spine_02" after "Bip01_Spine_01": flags, index,
     * offset, 13 shared, 1 more, '2') + 2 + 13 + 9 */
    CHECK_EQ(b.len, 62);
    /* the buffer is reused: a second pack replaces the first */
    CHECK_EQ(amx__tracks_pack(sample, 2, &b), 0);
    amx__tracks_iter it;
    amx__track_row r;
    size_t n = 0;
    CHECK(amx__tracks_begin(&it, b.data, b.len));
    while (amx__tracks_next(&it, &r))
        n++;
    CHECK_EQ(n, 2);
    amx__tracks_end(&it);
    /* no blob: no tracks */
    CHECK(amx__tracks_begin(&it, NULL, 0));
    CHECK(!amx__tracks_next(&it, &r));
    CHECK(!it.bad);
    amx__tracks_end(&it);
    char ch[64];
    CHECK_STR(amx__channel_list(AMX_CH_ROTATION | AMX_CH_TRANSLATION | AMX_CH_STEP, ch, sizeof ch),
              "rotation,translation,step");
    CHECK_STR(amx__channel_list(0, ch, sizeof ch), "");
    CHECK_STR(amx__channel_list(AMX_CH_ROTATION | AMX_CH_SCALE, ch, 12), "rotation");
    amx__byte_buf_free(&b);
}

/* Every truncation and every byte patched to a few values: the reader stops with `bad` or reads
 * a shorter list, and never outside the bytes (ASan checks each read of a heap copy of exact
 * size). */
static void test_damaged(void)
{
    amx__byte_buf b = { 0 };
    CHECK_EQ(amx__tracks_pack(sample, NSAMPLE, &b), 0);
    static const uint8_t patches[] = { 0x00, 0x01, 0x7F, 0x80, 0xFF };
    size_t runs = 0, bad = 0;
    for (size_t cut = 0; cut <= b.len; cut++) {
        for (size_t at = 0; at <= cut; at++) {
            for (size_t p = 0; p < sizeof patches; p++) {
                uint8_t *copy = malloc(cut ? cut : 1);
                memcpy(copy, b.data, cut);
                if (at < cut)
                    copy[at] = patches[p];
                amx__tracks_iter it;
                amx__track_row r;
                size_t n = 0;
                if (amx__tracks_begin(&it, copy, cut))
                    while (amx__tracks_next(&it, &r)) {
                        if (r.bone)
                            n += strlen(r.bone); /* the name is a string inside its buffer */
                        n++;
                    }
                bad += it.bad;
                amx__tracks_end(&it);
                free(copy);
                runs++;
                if (at == cut)
                    break;
            }
        }
    }
    CHECK(runs > 1000);
    CHECK(bad > 0);
    amx__byte_buf_free(&b);
}

static char dbpath[300];

static int64_t q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    else
        printf("# %s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return v;
}

/* An index made by the animidx before packed tracks (schema 7, a row per track) is upgraded
 * in place: every clip's rows become its blob, in idx order, channels from their text. */
static void test_migration(void)
{
    snprintf(dbpath, sizeof dbpath, "/tmp/amx_tracks_test_%d.db", (int)amx_os_pid());
    unlink(dbpath);
    sqlite3 *raw = NULL;
    CHECK(sqlite3_open(dbpath, &raw) == SQLITE_OK);
    int before = -1;
    for (int i = 0; i < amx__migration_count; i++)
        if (strstr(amx__migrations[i].name, "packed_tracks"))
            before = i;
    CHECK(before > 0);
    for (int i = 0; i < before; i++)
        CHECK(sqlite3_exec(raw, amx__migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "PRAGMA user_version = %d;"
             "INSERT INTO roots(id, path) VALUES (1, '/mod');"
             "INSERT INTO files(id, root_id, path, dir_key, stem_key, size, mtime_ns, format, "
             "decoder_version, status, indexed_at) VALUES "
             "(1, 1, 'A_IDLE_00.ALA', '', 'A_IDLE_00', 10, 1, 'alamo-ala', 2, 'ok', 0);"
             "INSERT INTO clips(id, file_id, name, name_key, fps, duration, track_count) VALUES "
             "(7, 1, 'A_IDLE_00', 'A_IDLE_00', 30, 1, 3), (8, 1, 'B', 'B', 30, 1, 0);"
             "INSERT INTO tracks(clip_id, idx, bone_name, bone_index, channels, offset) VALUES "
             "(7, 2, NULL, 9, 'visibility', NULL), (7, 0, 'Root', 0, 'rotation,translation', 40),"
             "(7, 1, 'Bip01_Head', 5, '', 88);",
             amx__migrations[before - 1].version);
    CHECK(sqlite3_exec(raw, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(raw);

    amx_db *db = NULL;
    char err[512] = "";
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    if (!db) {
        printf("# %s\n", err);
        return;
    }
    sqlite3 *h = amx_db_handle(db);
    CHECK_EQ(q_int(h, "SELECT count(*) FROM sqlite_schema WHERE name = 'tracks'"), 0);
    CHECK_EQ(q_int(h, "SELECT count(*) FROM clip_tracks"), 1); /* clip 8 had none */
    sqlite3_stmt *s = NULL;
    CHECK(sqlite3_prepare_v2(h, "SELECT data FROM clip_tracks WHERE clip_id = 7", -1, &s, NULL) ==
          SQLITE_OK);
    CHECK(sqlite3_step(s) == SQLITE_ROW);
    amx__tracks_iter it;
    amx__track_row r;
    CHECK(amx__tracks_begin(&it, sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0)));
    CHECK(amx__tracks_next(&it, &r));
    CHECK_STR(r.bone, "Root");
    CHECK_EQ(r.channels, AMX_CH_ROTATION | AMX_CH_TRANSLATION);
    CHECK_EQ(r.offset, 40);
    CHECK(amx__tracks_next(&it, &r));
    CHECK_STR(r.bone, "Bip01_Head");
    CHECK_EQ(r.bone_index, 5);
    CHECK_EQ(r.channels, 0);
    CHECK(amx__tracks_next(&it, &r));
    CHECK(r.bone == NULL);
    CHECK_EQ(r.bone_index, 9);
    CHECK_EQ(r.channels, AMX_CH_VISIBILITY);
    CHECK_EQ(r.offset, -1);
    CHECK(!amx__tracks_next(&it, &r));
    CHECK(!it.bad);
    amx__tracks_end(&it);
    sqlite3_finalize(s);
    /* clips --bone: the SQL function, case-insensitive; NULL on a damaged blob */
    CHECK_EQ(q_int(h, "SELECT amx_tracks_have_bone(data, 'bip01_HEAD') FROM clip_tracks"), 1);
    CHECK_EQ(q_int(h, "SELECT amx_tracks_have_bone(data, 'Bip01') FROM clip_tracks"), 0);
    CHECK_EQ(q_int(h, "SELECT amx_tracks_have_bone(x'0105FF', 'Root') IS NULL"), 1);
    CHECK_EQ(q_int(h, "SELECT amx_tracks_have_bone(NULL, 'Root')"), 0);
    /* deleting the clip deletes its tracks */
    CHECK(sqlite3_exec(h, "DELETE FROM clips WHERE id = 7", NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ(q_int(h, "SELECT count(*) FROM clip_tracks"), 0);
    amx_db_close(db);
    test_remove_index(NULL, dbpath);
}

int main(void)
{
    RUN(test_round_trip);
    RUN(test_damaged);
    RUN(test_migration);
    return test_done();
}
