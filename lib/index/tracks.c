/* A clip's tracks, packed into one blob per clip (clip_tracks.data).
 *
 * Tracks are only ever read together: the link pass checks all of a clip's bones against a
 * skeleton, `show` and the report list them. Real clips have dozens of tracks (median 73), so a
 * row per track made the track table most of the index and most of the time of a scan. One
 * row per clip holds the same facts in a quarter of the bytes. Layout (version 1):
 *
 *   u8      version (1)
 *   varint  track count
 *   then per track, in the clip's order:
 *   u8      flags: AMX_CH_* bits (0x1F), 0x20 the bone has a name, 0x40 the offset is known
 *   varint  bone index or id, zigzag-encoded
 *   varint  [0x40] the offset minus the previous known offset (0 at first), zigzag-encoded
 *   varint  [0x20] bytes the name shares with the previous named track's name
 *   varint  [0x20] bytes that follow, then those bytes (names hold no NUL)
 *
 * Varints are little-endian base 128 (7 bits a byte, the high bit set on all but the last).
 * The reader checks every length against the blob: a damaged index gives an error, never a
 * read out of bounds. */
#include "db_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TRACKS_VERSION 1
#define F_CHANNELS 0x1Fu
#define F_NAME 0x20u
#define F_OFFSET 0x40u

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63)); /* all ones when v < 0 */
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int amx__tracks_pack(const amx_track *tracks, uint32_t count, amx__byte_buf *out)
{
    out->len = 0;
    if (!amx__byte_buf_reserve(out, 1 + 10))
        return -1;
    out->data[out->len++] = TRACKS_VERSION;
    amx__byte_buf_varint(out, count);
    const char *prev = "";
    size_t prev_len = 0;
    int64_t prev_off = 0;
    for (uint32_t i = 0; i < count; i++) {
        const amx_track *t = &tracks[i];
        size_t len = t->bone ? strlen(t->bone) : 0;
        if (!amx__byte_buf_reserve(out, 1 + 3 * 10 + len))
            return -1;
        uint8_t flags = (uint8_t)(t->channels & F_CHANNELS);
        if (t->bone)
            flags |= F_NAME;
        if (t->offset >= 0)
            flags |= F_OFFSET;
        out->data[out->len++] = flags;
        amx__byte_buf_varint(out, zigzag(t->bone_index));
        if (t->offset >= 0) {
            amx__byte_buf_varint(out, zigzag(t->offset - prev_off));
            prev_off = t->offset;
        }
        if (t->bone) {
            size_t shared = 0;
            while (shared < prev_len && shared < len && prev[shared] == t->bone[shared])
                shared++;
            amx__byte_buf_varint(out, shared);
            amx__byte_buf_varint(out, len - shared);
            memcpy(out->data + out->len, t->bone + shared, len - shared);
            out->len += len - shared;
            prev = t->bone;
            prev_len = len;
        }
    }
    return 0;
}

static bool get_varint(amx__tracks_iter *it, uint64_t *v)
{
    return amx__varint_get(&it->p, it->end, v);
}

bool amx__tracks_begin(amx__tracks_iter *it, const void *data, size_t len)
{
    *it = (amx__tracks_iter){ .p = data, .end = (const uint8_t *)data + len };
    uint64_t count = 0;
    if (len == 0 || !data) /* no tracks */
        return true;
    if (*it->p++ != TRACKS_VERSION || !get_varint(it, &count) ||
        count > (uint64_t)(it->end - it->p) / 2) { /* a track takes at least 2 bytes */
        it->bad = true;
        return false;
    }
    it->left = count;
    return true;
}

bool amx__tracks_next(amx__tracks_iter *it, amx__track_row *row)
{
    if (it->bad || it->left == 0)
        return false;
    uint64_t index, delta = 0, shared = 0, rest = 0;
    if (it->p >= it->end)
        goto bad;
    uint8_t flags = *it->p++;
    if (!get_varint(it, &index))
        goto bad;
    if ((flags & F_OFFSET) && !get_varint(it, &delta))
        goto bad;
    if (flags & F_NAME) {
        if (!get_varint(it, &shared) || !get_varint(it, &rest) || shared > it->name_len ||
            rest > (uint64_t)(it->end - it->p))
            goto bad;
        size_t need = (size_t)shared + (size_t)rest + 1;
        if (need > it->name_cap) {
            size_t cap = need < 64 ? 64 : need * 2;
            char *n = realloc(it->name, cap);
            if (!n)
                goto bad;
            it->name = n;
            it->name_cap = cap;
        }
        memcpy(it->name + shared, it->p, (size_t)rest);
        it->p += rest;
        it->name_len = (size_t)(shared + rest);
        it->name[it->name_len] = '\0';
        if (memchr(it->name, '\0', it->name_len))
            goto bad;
    }
    int64_t off = -1;
    if (flags & F_OFFSET) {
        it->prev_off += unzigzag(delta);
        off = it->prev_off;
    }
    *row = (amx__track_row){ .idx = it->next_idx++, .bone = (flags & F_NAME) ? it->name : NULL,
                             .bone_index = unzigzag(index), .channels = flags & F_CHANNELS,
                             .offset = off };
    it->left--;
    return true;
bad:
    it->bad = true;
    return false;
}

void amx__tracks_end(amx__tracks_iter *it)
{
    free(it->name);
    it->name = NULL;
    it->name_cap = 0;
}

const char *amx__channel_list(uint32_t ch, char *buf, size_t n)
{
    static const struct { uint32_t bit; const char *name; } names[] = {
        { AMX_CH_ROTATION, "rotation" }, { AMX_CH_TRANSLATION, "translation" },
        { AMX_CH_SCALE, "scale" }, { AMX_CH_VISIBILITY, "visibility" }, { AMX_CH_STEP, "step" },
    };
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t w = strlen(names[i].name);
        if (!(ch & names[i].bit) || len + (len ? 1 : 0) + w + 1 > n)
            continue;
        if (len)
            buf[len++] = ',';
        memcpy(buf + len, names[i].name, w);
        len += w;
        buf[len] = '\0';
    }
    return buf;
}

/* ---- SQL functions ---- */

/* amx_tracks_have_bone(data, name): 1 when a track's bone is `name` (ASCII case-insensitive),
 * for `clips --bone`. NULL on a damaged blob. */
static void have_bone(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *want = (const char *)sqlite3_value_text(argv[1]);
    if (!want) {
        sqlite3_result_null(ctx);
        return;
    }
    amx__tracks_iter it;
    amx__track_row r;
    bool found = false;
    if (amx__tracks_begin(&it, sqlite3_value_blob(argv[0]), (size_t)sqlite3_value_bytes(argv[0])))
        while (!found && amx__tracks_next(&it, &r))
            found = r.bone && amx__ascii_casecmp(r.bone, want) == 0;
    bool bad = it.bad;
    amx__tracks_end(&it);
    if (bad && !found)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_int(ctx, found);
}

/* amx_pack_track(idx, bone_name, bone_index, channels, offset): the aggregate that packs the
 * rows of the old tracks table, for the migration that replaced it. `channels` is the old text
 * list ("rotation,translation"). Rows may come in any order: they are sorted by idx. */
typedef struct pack_state {
    amx_track *t;
    int64_t *idx;
    char **names;
    size_t n, cap;
    bool oom;
} pack_state;

static void pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    pack_state *st = sqlite3_aggregate_context(ctx, sizeof *st);
    if (!st || st->oom)
        return;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        amx_track *t = realloc(st->t, cap * sizeof *t);
        if (t)
            st->t = t;
        int64_t *idx = t ? realloc(st->idx, cap * sizeof *idx) : NULL;
        if (idx)
            st->idx = idx;
        char **names = idx ? realloc(st->names, cap * sizeof *names) : NULL;
        if (!names) {
            st->oom = true;
            return;
        }
        st->names = names;
        st->cap = cap;
    }
    const char *bone = (const char *)sqlite3_value_text(argv[1]);
    const char *ch = (const char *)sqlite3_value_text(argv[3]);
    uint32_t channels = 0;
    if (ch) {
        if (strstr(ch, "rotation"))
            channels |= AMX_CH_ROTATION;
        if (strstr(ch, "translation"))
            channels |= AMX_CH_TRANSLATION;
        if (strstr(ch, "scale"))
            channels |= AMX_CH_SCALE;
        if (strstr(ch, "visibility"))
            channels |= AMX_CH_VISIBILITY;
        if (strstr(ch, "step"))
            channels |= AMX_CH_STEP;
    }
    char *name = bone ? strdup(bone) : NULL;
    if (bone && !name) {
        st->oom = true;
        return;
    }
    st->names[st->n] = name;
    st->idx[st->n] = sqlite3_value_int64(argv[0]);
    st->t[st->n] = (amx_track){
        .bone = name, .bone_index = (int32_t)sqlite3_value_int64(argv[2]), .channels = channels,
        .offset = sqlite3_value_type(argv[4]) == SQLITE_NULL ? -1 : sqlite3_value_int64(argv[4]) };
    st->n++;
}

static void pack_final(sqlite3_context *ctx)
{
    pack_state *st = sqlite3_aggregate_context(ctx, 0);
    if (!st) {
        sqlite3_result_null(ctx);
        return;
    }
    if (!st->oom) {
        /* insertion sort by idx: rows almost always come in order */
        for (size_t i = 1; i < st->n; i++)
            for (size_t j = i; j > 0 && st->idx[j - 1] > st->idx[j]; j--) {
                int64_t ti = st->idx[j];
                st->idx[j] = st->idx[j - 1];
                st->idx[j - 1] = ti;
                amx_track tt = st->t[j];
                st->t[j] = st->t[j - 1];
                st->t[j - 1] = tt;
            }
        amx__byte_buf b = { 0 };
        if (amx__tracks_pack(st->t, (uint32_t)st->n, &b) == 0)
            sqlite3_result_blob(ctx, b.data, (int)b.len, free);
        else
            st->oom = true;
    }
    if (st->oom)
        sqlite3_result_error_nomem(ctx);
    for (size_t i = 0; i < st->n; i++)
        free(st->names[i]);
    free(st->names);
    free(st->idx);
    free(st->t);
}

int amx__tracks_register(sqlite3 *db)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(db, "amx_tracks_have_bone", 2, flags, NULL, have_bone,
                                        NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(db, "amx_pack_track", 5, flags, NULL, NULL, pack_step,
                                        pack_final, NULL);
    return rc;
}
