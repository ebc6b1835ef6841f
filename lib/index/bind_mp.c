/*
 * Metroid Prime: an ANIM is played by the characters of the ANCS character sets that name it,
 * each on the CINF skeleton of its character ('ancs'; docs/formats/metroid-prime.md).
 */
#include "link_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binds a clip through the animation sets that name it (Metroid Prime ANCS). Returns 1 when
 * sets of its stack name it (the clip is then bound or reported), 0 when none does, -1 on a
 * database error. */
int bind_by_sets(linker *l, const clip_ctx *c)
{
    typedef struct set { char key[256], name[256], path[1024]; } set;
    set sets[16];
    size_t n = 0;
    int rc;
    sqlite3_stmt *s = l->sets_of_clip;
    sqlite3_bind_text(s, 1, c->key, -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && n < 16) {
        if (link_layer_of(l, c->root_id, sqlite3_column_int64(s, 3)) < 0)
            continue;
        snprintf(sets[n].key, sizeof sets[n].key, "%s", col_or(s, 0, ""));
        snprintf(sets[n].name, sizeof sets[n].name, "%s", col_or(s, 1, ""));
        snprintf(sets[n].path, sizeof sets[n].path, "%s", col_or(s, 2, ""));
        n++;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    if (n == 0)
        return 0;
    bindings *b = link_new_bindings();
    if (!b)
        return -1;
    rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        pick p;
        int found = link_find_named(l, sets[i].key, 0, c->dir_key, c->root_id, &p);
        if (found < 0) {
            rc = -1;
        } else if (!found) {
            char msg[1200];
            snprintf(msg, sizeof msg, "clip '%.200s' is played by skeleton '%.200s' (character "
                     "'%.200s' of %.500s), which is not in the index", c->name, sets[i].key,
                     sets[i].name, sets[i].path);
            rc = link_add_finding(l, c->file_id, "link", AMX_C_SKELETON_NOT_FOUND, -1, "skeleton", msg);
        } else {
            char via[1300];
            snprintf(via, sizeof via, "character '%.200s' of %.1000s", sets[i].name, sets[i].path);
            link_add_binding(b, &p, "ancs", via);
        }
    }
    if (!rc)
        rc = link_store_bindings(l, c->file_id, c->id, c->root_id, c->root_bone, b, "", c->cur_key);
    free(b);
    return rc ? -1 : 1;
}
