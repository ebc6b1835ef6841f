/*
 * Westwood W3D (and any clip that states its skeleton's name): an animation, HLOD or HMODEL
 * binds to the hierarchy of that name in its own file, then its directory, then its tree, then
 * the base layers ('w3d-header'; docs/formats/w3d.md). Two hierarchies of one name in a tree are
 * a DUPLICATE_NAME warning listing the other files.
 */
#include "link_internal.h"
#include "common/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bind_named_clip(linker *l, const clip_ctx *c)
{
    bindings *b = link_new_bindings();
    if (!b)
        return -1;
    pick p;
    int found = link_find_named(l, c->hint, c->file_id, c->dir_key, c->root_id, &p);
    int rc = found < 0 ? -1 : 0;
    if (found > 0) {
        char via[600];
        snprintf(via, sizeof via, "%s", p.via);
        link_add_binding(b, &p, strcmp(c->format, "w3d") == 0 ? "w3d-header" : "stated", via);
    } else if (!rc) {
        char where[2048], msg[2700];
        link_describe_stack(l, c->root_id, where, sizeof where);
        snprintf(msg, sizeof msg, "clip '%.250s' names skeleton '%.250s', which is in no file "
                 "of %.2000s", c->name, c->hint, where);
        if (link_add_finding(l, c->file_id, "link", AMX_C_SKELETON_NOT_FOUND, -1, "skeleton", msg))
            rc = -1;
    }
    if (!rc)
        rc = link_store_bindings(l, c->file_id, c->id, c->root_id, c->root_bone, b, c->hint, c->cur_key);
    free(b);
    return rc;
}

/* A model built on a named skeleton (W3D HLOD/HMODEL): the skeleton must be found and have
 * every bone the model uses. */
int bind_skeleton_ref(linker *l, int64_t file_id, sqlite3_stmt *r)
{
    int64_t ref_id = sqlite3_column_int64(r, 0);
    char what[256], key[256], dir[1024];
    snprintf(what, sizeof what, "%s", col_or(r, 1, ""));
    snprintf(key, sizeof key, "%s", col_or(r, 2, ""));
    int64_t used = sqlite3_column_int64(r, 3);
    int64_t off = sqlite3_column_type(r, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(r, 4);
    snprintf(dir, sizeof dir, "%s", col_or(r, 5, ""));
    int64_t root_id = sqlite3_column_int64(r, 6);
    pick p;
    int found = link_find_named(l, key, file_id, dir, root_id, &p);
    if (found < 0)
        return -1;
    char msg[2600];
    if (!found) {
        char where[2048];
        link_describe_stack(l, root_id, where, sizeof where);
        snprintf(msg, sizeof msg, "%.200s is built on skeleton '%.200s', which is in no file of "
                 "%s", what, key, where);
        if (link_add_finding(l, file_id, "link", AMX_C_SKELETON_NOT_FOUND, off, what, msg))
            return -1;
    } else if (used > p.bone_count) {
        char label[1200];
        link_skeleton_label(&p, l, root_id, label, sizeof label);
        snprintf(msg, sizeof msg, "%.200s uses bone %lld, but skeleton %s has %lld bones", what,
                 (long long)used - 1, label, (long long)p.bone_count);
        if (link_add_finding(l, file_id, "link", AMX_C_INDEX_OUT_OF_RANGE, off, what, msg))
            return -1;
    }
    return link_record(l, W_SKELETON_REF, "iot", ref_id, found ? p.id : -1, found ? p.via : NULL);
}

static int report_duplicate(linker *l, int64_t file_id, const char *name, const char *others)
{
    char msg[2000], ctx[300];
    snprintf(msg, sizeof msg, "hierarchy '%s' is also defined in %s: models and animations bind "
             "to the one in their own file, then their directory, then the first by path", name,
             others);
    snprintf(ctx, sizeof ctx, "hierarchy '%.250s'", name);
    return link_add_finding(l, file_id, "names", AMX_C_DUPLICATE_NAME, -1, ctx, msg);
}

/* DUPLICATE_NAME: W3D hierarchies of one name in one tree (the files of skeletons marked). */
int bind_names(linker *l)
{
    int64_t *files = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *s = l->skeletons_todo;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (!amx__grow((void **)&files, &cap, n, sizeof *files)) {
            rc = SQLITE_NOMEM;
            break;
        }
        files[n++] = sqlite3_column_int64(s, 0);
    }
    sqlite3_reset(s);
    for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
        sqlite3_bind_int64(l->del_name_findings, 1, files[i]);
        if (amx__db_run(l->del_name_findings) != SQLITE_OK) {
            rc = SQLITE_ERROR;
            break;
        }
        /* one finding per hierarchy name, naming up to 8 other files that define it */
        s = l->names_of_file;
        sqlite3_bind_int64(s, 1, files[i]);
        while (rc == SQLITE_DONE && (rc = sqlite3_step(s)) == SQLITE_ROW) {
            sqlite3_stmt *o = l->same_name_in_root;
            sqlite3_bind_text(o, 1, col_or(s, 1, ""), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(o, 2, sqlite3_column_int64(s, 2));
            sqlite3_bind_int64(o, 3, files[i]);
            char others[1500] = "";
            size_t at = 0, count = 0;
            int orc;
            while ((orc = sqlite3_step(o)) == SQLITE_ROW) {
                if (++count <= 8 && at < sizeof others)
                    at += (size_t)snprintf(others + at, sizeof others - at, "%s%.300s",
                                           at ? ", " : "", col_or(o, 0, ""));
            }
            sqlite3_reset(o);
            if (orc != SQLITE_DONE) {
                rc = orc;
                break;
            }
            if (count > 8 && at < sizeof others)
                snprintf(others + at, sizeof others - at, " and others");
            if (count && report_duplicate(l, files[i], col_or(s, 0, ""), others)) {
                rc = SQLITE_ERROR;
                break;
            }
            rc = SQLITE_DONE;
        }
        sqlite3_reset(s);
    }
    free(files);
    if (rc != SQLITE_DONE)
        return -1;
    return amx__db_run(l->skeletons_done) == SQLITE_OK ? 0 : -1;
}
