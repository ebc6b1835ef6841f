/* Index queries that lint and report need and the library does not offer yet (they read the
 * schema of sql/migrations directly; lib/query.c is their natural home), and reading files and
 * archive members from disk. */
#include "lint.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static const char *text_or(sqlite3_stmt *s, int i, const char *dflt)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : dflt;
}

static amx_status run(amx_db *db, const char *sql, const char *bind, sqlite3_stmt **s, char *err,
                      size_t errlen)
{
    sqlite3 *h = amx_db_handle(db);
    if (sqlite3_prepare_v2(h, sql, -1, s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "index: query: %s", sqlite3_errmsg(h));
        return AMX_E_DB;
    }
    if (bind)
        sqlite3_bind_text(*s, 1, bind, -1, SQLITE_TRANSIENT);
    return AMX_OK;
}

static amx_status done(amx_db *db, sqlite3_stmt *s, int rc, char *err, size_t errlen)
{
    sqlite3_finalize(s);
    if (rc == SQLITE_DONE)
        return AMX_OK;
    snprintf(err, errlen, "index: query: %s", sqlite3_errmsg(amx_db_handle(db)));
    return AMX_E_DB;
}

amx_status cli_query_files(amx_db *db, const char *root,
                           void (*row)(const char *path, const char *format, void *user),
                           void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    amx_status st = run(db,
                        "SELECT f.path, f.format FROM files f JOIN roots r ON r.id = f.root_id "
                        "WHERE r.path = ?1 AND f.status <> 'ignored' ORDER BY f.path",
                        root, &s, err, errlen);
    if (st)
        return st;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        row(text_or(s, 0, ""), text_or(s, 1, ""), user);
    return done(db, s, rc, err, errlen);
}

amx_status cli_query_all_clips(amx_db *db,
                               void (*row)(const amx_clip_row *c, const char *skel_root,
                                           const char *skel_path, void *user),
                               void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    amx_status st = run(db,
                        "SELECT r.path, f.path, c.name, coalesce(c.skeleton_name, c.skeleton_hint), "
                        "f.format, c.frames, c.fps, c.duration, c.bones_missing, c.track_count, "
                        "c.skeleton_id IS NOT NULL, sr.path, sf.path "
                        "FROM clips c JOIN files f ON f.id = c.file_id JOIN roots r ON r.id = f.root_id "
                        "LEFT JOIN skeletons k ON k.id = c.skeleton_id "
                        "LEFT JOIN files sf ON sf.id = k.file_id LEFT JOIN roots sr ON sr.id = sf.root_id "
                        "ORDER BY r.path, f.path, c.id",
                        NULL, &s, err, errlen);
    if (st)
        return st;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        amx_clip_row c = {
            .root = text_or(s, 0, ""), .path = text_or(s, 1, ""), .clip = text_or(s, 2, ""),
            .skeleton = text_or(s, 3, NULL), .format = text_or(s, 4, ""),
            .frames = sqlite3_column_type(s, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 5),
            .fps = sqlite3_column_double(s, 6), .duration = sqlite3_column_double(s, 7),
            .bones_missing = sqlite3_column_int64(s, 8), .tracks = sqlite3_column_int64(s, 9),
            .bound = sqlite3_column_int(s, 10) != 0,
        };
        row(&c, text_or(s, 11, NULL), text_or(s, 12, NULL), user);
    }
    return done(db, s, rc, err, errlen);
}

amx_status cli_query_scans(amx_db *db,
                           void (*row)(const char *root, int64_t finished_at, int64_t files_seen,
                                       void *user),
                           void *user, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    /* SQLite takes the bare columns of a max() aggregate from the row with the maximum. */
    amx_status st = run(db,
                        "SELECT r.path, max(s.finished_at), s.files_seen FROM scans s "
                        "JOIN roots r ON r.id = s.root_id WHERE s.finished_at IS NOT NULL "
                        "GROUP BY s.root_id ORDER BY r.path",
                        NULL, &s, err, errlen);
    if (st)
        return st;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        row(text_or(s, 0, ""), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2), user);
    return done(db, s, rc, err, errlen);
}

unsigned char *cli_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            unsigned char *g = realloc(buf, cap + 1);
            if (!g) {
                snprintf(err, errlen, "%s: out of memory", path);
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = g;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0'; /* so a text file can be used as a string */
    *len = n;
    return buf;
}

static int upper_slash(int c)
{
    if (c == '\\')
        return '/';
    return c >= 'a' && c <= 'z' ? c - 32 : c;
}

const amx_archive_entry *cli_archive_find(const amx_asset *archive, const char *name)
{
    if (!archive || !archive->archive)
        return NULL;
    for (uint32_t i = 0; i < archive->archive->entry_count; i++) {
        const char *a = archive->archive->entries[i].name, *b = name;
        while (*a && *b && upper_slash((unsigned char)*a) == upper_slash((unsigned char)*b))
            a++, b++;
        if (!*a && !*b)
            return &archive->archive->entries[i];
    }
    return NULL;
}
