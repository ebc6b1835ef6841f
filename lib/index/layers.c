/*
 * The layers of each root in the index: what a root sits on (root_layers), its role, and the
 * re-binding a change of layers needs. Above db.c; the scanner sets layers before it scans.
 */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

amx_status amx__db_set_role(amx_db *db, int64_t root_id, const char *role, char *err,
                            size_t errlen)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db->db, "UPDATE roots SET role = ?2 WHERE id = ?1 AND role <> ?2",
                                -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, root_id);
        sqlite3_bind_text(s, 2, role, -1, SQLITE_STATIC);
        rc = amx__db_run(s);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_OK ? AMX_OK : amx__db_error(db, "index: setting a root's role", err, errlen);
}

amx_status amx__db_set_game(amx_db *db, int64_t root_id, const char *game, char *err,
                            size_t errlen)
{
    static const char *const sql[] = {
        "UPDATE roots SET game = ?2 WHERE id = ?1 AND game IS NOT ?2",
        /* the table of animation types changed: the root's Alamo clips are bound again */
        "UPDATE clips SET linked = 0 WHERE file_id IN (SELECT id FROM files WHERE root_id = ?1 "
        "AND format = 'alamo-ala')",
        /* the SAGE game's rules changed (ini.c): the root's INI files are decoded again */
        "UPDATE files SET decoder_version = 0 WHERE root_id = ?1 AND format = 'sage-ini'",
        /* and where its files are looked for (link.c, sage_languages): its references are
         * resolved again */
        "UPDATE refs SET linked = 0 WHERE linked = 1 AND file_id IN (SELECT id FROM files WHERE "
        "root_id = ?1)",
    };
    enum { N = sizeof sql / sizeof sql[0] };
    sqlite3_stmt *s[N] = { 0 };
    int rc = SQLITE_OK;
    for (size_t i = 0; i < N && rc == SQLITE_OK; i++)
        rc = sqlite3_prepare_v2(db->db, sql[i], -1, &s[i], NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(s[0], 1, root_id);
        if (game)
            sqlite3_bind_text(s[0], 2, game, -1, SQLITE_STATIC);
        rc = amx__db_run(s[0]);
    }
    bool changed = rc == SQLITE_OK && sqlite3_changes(db->db) > 0;
    for (size_t i = 1; i < N && rc == SQLITE_OK && changed; i++) {
        sqlite3_bind_int64(s[i], 1, root_id);
        rc = amx__db_run(s[i]);
        db->dirty = true;
    }
    for (size_t i = 0; i < N; i++)
        sqlite3_finalize(s[i]);
    return rc == SQLITE_OK ? AMX_OK : amx__db_error(db, "index: recording a root's game", err,
                                                    errlen);
}

amx_status amx__db_get_layers(amx_db *db, int64_t root_id, int64_t **ids, size_t *n, char *err,
                              size_t errlen)
{
    *ids = NULL;
    *n = 0;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db->db, "SELECT base_id FROM root_layers WHERE root_id = ?1 "
                                "ORDER BY rank", -1, &s, NULL);
    size_t cap = 0;
    if (rc == SQLITE_OK)
        sqlite3_bind_int64(s, 1, root_id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 4;
            int64_t *g = realloc(*ids, cap * sizeof *g);
            if (!g) {
                rc = SQLITE_NOMEM;
                break;
            }
            *ids = g;
        }
        (*ids)[(*n)++] = sqlite3_column_int64(s, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return amx__db_error(db, "index: reading a root's layers", err, errlen);
    }
    return AMX_OK;
}

amx_status amx__db_set_layers(amx_db *db, int64_t root_id, const int64_t *bases, size_t n,
                              char *err, size_t errlen)
{
    int64_t *old = NULL;
    size_t nold = 0;
    amx_status st = amx__db_get_layers(db, root_id, &old, &nold, err, errlen);
    if (st)
        return st;
    bool same = nold == n && (n == 0 || memcmp(old, bases, n * sizeof *bases) == 0);
    free(old);
    if (same)
        return AMX_OK;
    static const char *const sql[] = {
        "DELETE FROM root_layers WHERE root_id = ?1",
        "INSERT INTO root_layers(root_id, rank, base_id) VALUES (?1, ?2, ?3)",
        /* everything that binds through this root's stack is bound again: its own clips and
         * models, and those of every root that sits on it */
        "WITH RECURSIVE dep(id) AS (SELECT ?1 UNION SELECT l.root_id FROM root_layers l "
        "JOIN dep ON l.base_id = dep.id) "
        "UPDATE clips SET linked = 0 WHERE file_id IN (SELECT f.id FROM files f "
        "WHERE f.root_id IN dep)",
        "WITH RECURSIVE dep(id) AS (SELECT ?1 UNION SELECT l.root_id FROM root_layers l "
        "JOIN dep ON l.base_id = dep.id) "
        "UPDATE skeleton_refs SET linked = 0 WHERE file_id IN (SELECT f.id FROM files f "
        "WHERE f.root_id IN dep)",
        "WITH RECURSIVE dep(id) AS (SELECT ?1 UNION SELECT l.root_id FROM root_layers l "
        "JOIN dep ON l.base_id = dep.id) "
        "UPDATE refs SET linked = 0 WHERE file_id IN (SELECT f.id FROM files f "
        "WHERE f.root_id IN dep)",
        /* and the XML list check (the list files a root's stack holds) */
        "UPDATE link_state SET xml_lists = 1 WHERE ?1 IS NOT NULL",
    };
    enum { N = sizeof sql / sizeof sql[0] };
    sqlite3_stmt *s[N] = { 0 };
    int rc = SQLITE_OK;
    for (size_t i = 0; i < N && rc == SQLITE_OK; i++)
        rc = sqlite3_prepare_v2(db->db, sql[i], -1, &s[i], NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(s[0], 1, root_id);
        rc = amx__db_run(s[0]);
    }
    for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
        sqlite3_bind_int64(s[1], 1, root_id);
        sqlite3_bind_int64(s[1], 2, (int64_t)i + 1);
        sqlite3_bind_int64(s[1], 3, bases[i]);
        rc = amx__db_run(s[1]);
    }
    for (size_t i = 2; i < N && rc == SQLITE_OK; i++) {
        sqlite3_bind_int64(s[i], 1, root_id);
        rc = amx__db_run(s[i]);
    }
    for (size_t i = 0; i < N; i++)
        sqlite3_finalize(s[i]);
    db->dirty = true;
    return rc == SQLITE_OK ? AMX_OK : amx__db_error(db, "index: recording a root's layers", err,
                                                    errlen);
}

amx_status amx_query_roots(amx_db *db, void (*row)(const amx_root_row *r, void *user), void *user,
                           char *err, size_t errlen)
{
    sqlite3_stmt *s = NULL, *b = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT id, path, role FROM roots ORDER BY path", -1, &s,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->db, "SELECT r.path FROM root_layers l JOIN roots r ON "
                           "r.id = l.base_id WHERE l.root_id = ?1 ORDER BY l.rank", -1, &b,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(s);
        return amx__db_error(db, "index: query", err, errlen);
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char *paths[64];
        size_t n = 0;
        sqlite3_bind_int64(b, 1, sqlite3_column_int64(s, 0));
        while ((rc = sqlite3_step(b)) == SQLITE_ROW && n < 64)
            if ((paths[n] = strdup((const char *)sqlite3_column_text(b, 0))))
                n++;
        sqlite3_reset(b);
        amx_root_row r = { .path = (const char *)sqlite3_column_text(s, 1),
                           .role = (const char *)sqlite3_column_text(s, 2),
                           .bases = (const char *const *)paths, .base_count = n };
        row(&r, user);
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
    }
    sqlite3_finalize(s);
    sqlite3_finalize(b);
    return rc == SQLITE_DONE ? AMX_OK : amx__db_error(db, "index: query", err, errlen);
}
