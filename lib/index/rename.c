/*
 * Renames in the index (the daemon's moves): a file, a directory or an archive keeps its rows,
 * ids and findings under the new path; the link pass then rebinds what the move concerns.
 * Above the database layer (db.c) and the link pass (link.c), like the scanner.
 */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Rows of root_id at `rel` or below it: a directory's files (and their members), or an
 * archive's members. A member is found by its parent row, never by its name: a loose file
 * "A.ALA#b_IDLE_00.ALA" is not below "A.ALA" (issue 16 item 5). */
#define SUBTREE "root_id = ?1 AND (path = ?2 OR (path > ?2 || '/' AND path < ?2 || '0') OR " \
                "parent_id IN (SELECT id FROM files WHERE root_id = ?1 AND path = ?2))"

/* The stem of a file (of a member: of its name in the archive, after member_at). */
static bool same_stem(const char *a, size_t a_at, const char *b, size_t b_at)
{
    char sa[1024], sb[1024];
    amx_path_stem(a_at ? a + a_at + 1 : a, sa, sizeof sa);
    amx_path_stem(b_at ? b + b_at + 1 : b, sb, sizeof sb);
    return strcasecmp(sa, sb) == 0;
}

amx_status amx_index_rename(amx_db *db, const char *root, const char *old_rel, const char *new_rel,
                            uint64_t *moved, char *err, size_t errlen)
{
    *moved = 0;
    if (db->readonly || !old_rel[0] || !new_rel[0]) {
        snprintf(err, errlen, "index: rename needs a writable index and two paths");
        return AMX_E_INVALID_ARG;
    }
    if (strcmp(old_rel, new_rel) == 0)
        return AMX_OK;
    size_t ol = strlen(old_rel);
    if (strncmp(new_rel, old_rel, ol) == 0 && new_rel[ol] == '/') {
        snprintf(err, errlen, "index: cannot move '%s' into itself", old_rel);
        return AMX_E_INVALID_ARG;
    }
    sqlite3_stmt *find = NULL, *upd = NULL, *gone = NULL, *rootq = NULL, *clips = NULL;
    int64_t *ids = NULL;
    size_t *member_at = NULL;
    char **paths = NULL;
    size_t n = 0, cap = 0;
    amx_status st = amx__db_begin(db, err, errlen);
    if (st)
        return st;
    int rc = sqlite3_prepare_v2(db->db, "SELECT id FROM roots WHERE path = ?1", -1, &rootq, NULL);
    int64_t root_id = 0;
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(rootq, 1, root, -1, SQLITE_STATIC);
        if ((rc = sqlite3_step(rootq)) == SQLITE_ROW)
            root_id = sqlite3_column_int64(rootq, 0);
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    if (rc != SQLITE_OK || root_id == 0)
        goto out; /* an unknown root: nothing is indexed there */
    /* What was indexed at the destination is replaced (an editor's write-and-rename save). */
    if ((rc = sqlite3_prepare_v2(db->db, "SELECT id FROM files WHERE parent_id IS NULL AND " SUBTREE,
                                 -1, &gone, NULL)) != SQLITE_OK)
        goto out;
    sqlite3_bind_int64(gone, 1, root_id);
    sqlite3_bind_text(gone, 2, new_rel, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(gone)) == SQLITE_ROW) { /* ids first: no deletes under a cursor */
        if (n == cap) {
            size_t c = cap ? cap * 2 : 16;
            int64_t *gi = realloc(ids, c * sizeof *gi);
            if (!gi) {
                rc = SQLITE_NOMEM;
                break;
            }
            ids = gi;
            cap = c;
        }
        ids[n++] = sqlite3_column_int64(gone, 0);
    }
    if (rc != SQLITE_DONE)
        goto out;
    rc = SQLITE_OK;
    sqlite3_reset(gone);
    for (size_t i = 0; i < n; i++)
        if ((st = amx__db_remove(db, ids[i], err, errlen)))
            goto out;
    free(ids); /* the arrays are filled again below, with paths */
    ids = NULL;
    n = cap = 0;
    if ((rc = sqlite3_prepare_v2(db->db, "SELECT id, path, (SELECT length(a.path) FROM files a "
                                         "WHERE a.id = files.parent_id) FROM files WHERE " SUBTREE,
                                 -1, &find, NULL)) != SQLITE_OK)
        goto out;
    sqlite3_bind_int64(find, 1, root_id);
    sqlite3_bind_text(find, 2, old_rel, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(find)) == SQLITE_ROW) {
        if (n == cap) {
            size_t c = cap ? cap * 2 : 64;
            int64_t *gi = realloc(ids, c * sizeof *gi);
            char **gp = gi ? realloc(paths, c * sizeof *gp) : NULL;
            size_t *gm = gp ? realloc(member_at, c * sizeof *gm) : NULL;
            if (gi)
                ids = gi;
            if (gp)
                paths = gp;
            if (!gi || !gp || !gm) {
                rc = SQLITE_NOMEM;
                break;
            }
            member_at = gm;
            cap = c;
        }
        ids[n] = sqlite3_column_int64(find, 0);
        member_at[n] = (size_t)sqlite3_column_int64(find, 2); /* 0 (NULL) for a file of its own */
        if (!(paths[n] = strdup((const char *)sqlite3_column_text(find, 1)))) {
            rc = SQLITE_NOMEM;
            break;
        }
        n++;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        goto out;
    rc = SQLITE_OK;
    if ((rc = sqlite3_prepare_v2(db->db,
                                 "UPDATE files SET path = ?2, dir_key = ?3, stem_key = ?4, "
                                 "mtime_ns = CASE WHEN ?5 THEN -1 ELSE mtime_ns END, "
                                 "dir_path = CASE WHEN parent_id IS NULL THEN "
                                 "rtrim(?2, replace(?2, '/', '')) END, "
                                 /* a member keeps its logical path (its name in the archive) */
                                 "lkey = CASE WHEN parent_id IS NULL THEN (SELECT lkey_prefix "
                                 "FROM roots r WHERE r.id = files.root_id) || upper(?2) ELSE "
                                 "lkey END WHERE id = ?1",
                                 -1, &upd, NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v2(db->db, "UPDATE clips SET linked = 0 WHERE file_id = ?1", -1,
                                 &clips, NULL)) != SQLITE_OK)
        goto out;
    for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
        /* Bindings depend on directories and names: everything touching these rows is
         * bound anew (their skeletons' dependents too). */
        if ((rc = amx__db_unlink_dependents(db, ids[i])) != SQLITE_OK)
            break;
        /* an XML file's path decides whether a list file names it (bind_alamo_lists.c) */
        sqlite3_bind_int64(db->mark_xml_lists_of, 1, ids[i]);
        if ((rc = amx__db_run(db->mark_xml_lists_of)) != SQLITE_OK)
            break;
        size_t len = strlen(new_rel) + strlen(paths[i] + ol) + 1;
        char *np = malloc(len), *dir_key = NULL, *stem_key = NULL;
        if (!np) {
            rc = SQLITE_NOMEM;
            break;
        }
        snprintf(np, len, "%s%s", new_rel, paths[i] + ol);
        /* a member of a moved archive (or of one in a moved directory): its archive's path
         * changed length with the prefix */
        size_t np_at = member_at[i] ? member_at[i] - ol + strlen(new_rel) : 0;
        amx__db_path_keys(np, np_at, &dir_key, &stem_key);
        if (!dir_key || !stem_key) {
            free(np), free(dir_key), free(stem_key);
            rc = SQLITE_NOMEM;
            break;
        }
        sqlite3_bind_int64(upd, 1, ids[i]);
        sqlite3_bind_text(upd, 2, np, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 3, dir_key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 4, stem_key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(upd, 5, !same_stem(paths[i], member_at[i], np, np_at));
        rc = amx__db_run(upd);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(clips, 1, ids[i]);
            rc = amx__db_run(clips);
        }
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(db->mark_refs_of_file, 1, ids[i]);
            rc = amx__db_run(db->mark_refs_of_file);
        }
        free(np), free(dir_key), free(stem_key);
    }
    if (rc == SQLITE_OK) {
        *moved = n;
        db->dirty = true;
    }
out:
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    free(ids);
    free(member_at);
    sqlite3_finalize(rootq);
    sqlite3_finalize(gone);
    sqlite3_finalize(find);
    sqlite3_finalize(upd);
    sqlite3_finalize(clips);
    if (!st && rc != SQLITE_OK)
        st = amx__db_error(db, "index: rename", err, errlen);
    if (!st)
        st = amx__db_commit(db, err, errlen);
    if (st)
        amx__db_rollback(db);
    return st ? st : amx_link(db, NULL, err, errlen);
}
