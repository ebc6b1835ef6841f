/* Internal to lib/index/: the index connection, its prepared statements and the write path
 * (db.c), shared by the link pass (link.c), the scanner (scan.c), renames (rename.c) and the
 * queries (query.c). */
#ifndef AMX_DB_INTERNAL_H
#define AMX_DB_INTERNAL_H

#include "animidx/index.h"

#include <sqlite3.h>

typedef struct amx__migration {
    int version;
    const char *name;
    const char *sql;
} amx__migration;
extern const amx__migration amx__migrations[];
extern const int amx__migration_count;

/* A growing byte buffer (byte_buf.c): a clip's packed tracks (tracks.c), an INI file's pending
 * references (ini_refs_pending.c), texts kept by offset (link.c, bind_sage.c, scan.c's directory
 * entries and rows). */
typedef struct amx__byte_buf {
    uint8_t *data;
    size_t len, cap;
} amx__byte_buf;
/* byte_buf.c: room for `more` bytes (false: out of memory, the buffer as it was); a varint
 * (unsigned LEB128, at most 10 bytes, in room reserved before); the buffer freed. */
bool amx__byte_buf_reserve(amx__byte_buf *b, size_t more);
void amx__byte_buf_varint(amx__byte_buf *b, uint64_t v);
/* Appends `text` and its NUL; *at: where it starts. False: out of memory. */
bool amx__byte_buf_put_text(amx__byte_buf *b, const char *text, size_t *at);
void amx__byte_buf_free(amx__byte_buf *b);
/* Reads a varint at *p (before end), moving *p past it; false when cut off or longer than 64
 * bits. */
bool amx__varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v);

typedef struct amx__checkpointer amx__checkpointer;

struct amx_db {
    sqlite3 *db;
    amx__checkpointer *checkpointer; /* checkpoint.c; NULL: SQLite's automatic checkpoint */
    bool readonly;
    bool in_tx;
    bool dirty;         /* indexed data changed: PRAGMA optimize on close */
    /* write statements, prepared once at open (NULL on read-only connections) */
    sqlite3_stmt *root_get, *root_add;
    sqlite3_stmt *file_lookup, *file_insert, *file_update, *file_touch, *dir_rows;
    sqlite3_stmt *file_skeleton_names, *mark_clips_keyed, *mark_clips_hinted, *sets_of_skeleton,
        *mark_clips_named;
    sqlite3_stmt *del_skeletons, *del_clips, *del_models, *del_meshes, *del_findings, *del_members;
    sqlite3_stmt *del_file;
    sqlite3_stmt *mark_xml_lists, *mark_xml_lists_of; /* link_state.xml_lists (migration 0022) */
    sqlite3_stmt *ins_skeleton, *ins_bone, *ins_clip, *ins_tracks, *ins_model, *ins_mesh, *ins_finding;
    sqlite3_stmt *ins_anim_set, *del_anim_sets, *mark_clips_of_sets;
    sqlite3_stmt *ins_skeleton_ref, *del_skeleton_refs, *mark_refs_for_skeleton, *mark_refs_of_file;
    sqlite3_stmt *mark_skeletons_named, *mark_clips_bound_to_file, *mark_clips_prefix;
    sqlite3_stmt *overrides_for_model, *overrides_of_file;
    sqlite3_stmt *ins_state, *ins_states_batch, *next_state_id, *del_states, *ins_w3d_object, *del_w3d_objects, *mark_refs_model_keyed,
        *mark_refs_via_keyed, *objects_of_file;
    sqlite3_stmt *ins_pending_refs, *del_pending_refs;
    amx__byte_buf pending;     /* reused for each INI file's references */
    sqlite3_stmt *ins_object, *ins_objects_batch, *next_object_id, *del_objects, *ins_ref, *ins_refs_batch, *del_refs, *names_of_file, *mark_refs_keyed,
        *mark_asset_refs_of_file, *mark_clips_squashed, *mark_clips_fitting,
        *mark_clips_fitting_file;
    amx__byte_buf packed;    /* reused for each clip's tracks */
    bool writes_ready;         /* amx__db_writes() has prepared the change statements */
    int linked_state;          /* anything_linked(): -1 unknown, 0 no row linked, 1 some */
};

/* checkpoint.c: the log's checkpoints on a thread of their own, woken by a WAL hook on the
 * writer's connection `h` (which replaces SQLite's automatic checkpoint). NULL (SQLite's own
 * checkpoint stays) for an index without a file or when out of memory. _stop removes the hook
 * and joins the thread. */
amx__checkpointer *amx__checkpointer_start(sqlite3 *h, const char *path);
void amx__checkpointer_stop(amx__checkpointer *c, sqlite3 *h);

/* link.c: amx_link with the number of threads it may use (a helper links ahead of the writer
 * when > 1); amx_link uses the machine's cores. */
amx_status amx__link(amx_db *db, int threads, uint64_t *linked, char *err, size_t errlen);

/* Prepares the statements that write changes, once (a connection that never changes anything
 * never parses them). SQLITE_OK or the SQLite error. amx__db_put, amx__db_remove and
 * amx__db_unlink_dependents call it; other users of those statements call it first. */
int amx__db_writes(amx_db *db);

/* Fills err with "what: sqlite message" and returns AMX_E_DB. */
amx_status amx__db_error(amx_db *db, const char *what, char *err, size_t errlen);
amx_status amx__db_exec(amx_db *db, const char *sql, char *err, size_t errlen);
amx_status amx__db_begin(amx_db *db, char *err, size_t errlen);  /* BEGIN IMMEDIATE */
amx_status amx__db_commit(amx_db *db, char *err, size_t errlen);
void amx__db_rollback(amx_db *db);
/* The link pass has set rows linked: the write path asks again before it skips marking. */
void amx__db_forget_linked(amx_db *db);

/* Returns the root's id, adding it with `role` ("target" or "base") when it is new. */
/* Records the game of a root ("eaw", "foc", "generals", "zh", or NULL for the default): when it
 * changes, the root's Alamo clips are bound again, its SAGE INI files decoded again and its
 * references resolved again (layers.c). */
amx_status amx__db_set_game(amx_db *db, int64_t root_id, const char *game, char *err,
                            size_t errlen);
amx_status amx__db_root_id(amx_db *db, const char *abs_root, const char *role, int64_t *id,
                           char *err, size_t errlen);

typedef struct amx__file_row {
    int64_t id;               /* 0 when not indexed */
    int64_t size, mtime_ns, hash, decoder_version;
    bool has_hash;
    char format[32];
} amx__file_row;

amx_status amx__db_lookup(amx_db *db, int64_t root_id, const char *path, amx__file_row *row,
                          char *err, size_t errlen);

typedef struct amx__file_meta {
    int64_t root_id, parent_id;   /* parent_id 0 = none */
    const char *path;             /* relative to the root */
    size_t member_at;             /* a member: the length of its archive's path ("A.meg" of
                                   * "A.meg#DATA/X.ALO"); 0 for a file of its own, whose name
                                   * may hold a '#' */
    int64_t size, mtime_ns;
    bool has_hash;
    uint64_t hash;
    const char *member_name;      /* an archive member's name in its archive, else NULL */
    const struct amx__byte_buf *packed; /* the asset's clips' tracks already packed (one per
                                   * clip: the scan's workers do it), or NULL */
} amx__file_meta;

/* Replaces everything indexed for one file with the decoded asset (asset NULL: an 'ignored'
 * file of no known format, or a file that could not be read: then `failure` holds its finding).
 * Returns the file's id in *file_id. Must run inside a transaction. */
typedef struct amx__failure {
    amx_code code;
    const char *message;
} amx__failure;

amx_status amx__db_put(amx_db *db, const amx__file_meta *m, const amx_asset *asset,
                       const amx__failure *failure, int64_t *file_id, char *err, size_t errlen);
/* Updates size/mtime of a file whose content hash did not change. */
amx_status amx__db_touch(amx_db *db, int64_t id, int64_t size, int64_t mtime_ns, char *err,
                         size_t errlen);
/* Removes a file (and its archive members, and what was indexed for them). */
amx_status amx__db_remove(amx_db *db, int64_t id, char *err, size_t errlen);

/* ---- a clip's tracks in one blob (tracks.c) ---- */

/* Packs a clip's tracks (the layout is at the top of tracks.c). 0, or -1 out of memory. */
int amx__tracks_pack(const amx_track *tracks, uint32_t count, amx__byte_buf *out);

typedef struct amx__track_row {
    int64_t idx;              /* position in the clip */
    const char *bone;         /* NULL: the format gives an index or id only; valid until next */
    int64_t bone_index;
    uint32_t channels;        /* AMX_CH_* */
    int64_t offset;           /* -1 unknown */
} amx__track_row;

typedef struct amx__tracks_iter {
    const uint8_t *p, *end;
    uint64_t left;
    int64_t next_idx, prev_off;
    char *name;
    size_t name_len, name_cap;
    bool bad;                 /* the blob is damaged (or out of memory): stop */
} amx__tracks_iter;

/* Reads a packed blob (NULL/0: no tracks): begin, next until false, then end (always). After
 * the loop, it.bad tells a damaged blob from the end. */
bool amx__tracks_begin(amx__tracks_iter *it, const void *data, size_t len);
bool amx__tracks_next(amx__tracks_iter *it, amx__track_row *row);
void amx__tracks_end(amx__tracks_iter *it);
/* "rotation,translation" for AMX_CH_* bits. */
const char *amx__channel_list(uint32_t channels, char *buf, size_t n);
/* amx_tracks_have_bone() and amx_pack_track() on a connection. */
int amx__tracks_register(sqlite3 *db);
/* Every SQL function of the index on connection h (the tracks' and amx_ref_file): each
 * connection that runs the link pass's or the queries' statements. */
int amx__db_register(sqlite3 *h);

/* ---- an INI file's references until the link pass (ini_refs_pending.c) ---- */

/* One reference as `refs` holds it: ids of rows (-1 none), line (0 none), offset (-1 none), the
 * texts (model and model_key NULL: none). Read back, the texts point into the blob's copy. */
typedef struct amx__pending_ref {
    amx_ref_kind kind;
    int64_t object_id, state_id, line, offset;
    const char *tag, *name, *key, *model, *model_key;
    const char *slot;         /* a weapon barrel bone's slot (amx_ref.slot), or NULL */
} amx__pending_ref;

/* Writing: begin, then add each reference in order (the layout is at the top of
 * ini_refs_pending.c). add: 0, or -1 out of memory. */
void amx__pending_refs_begin(amx__byte_buf *out);
int amx__pending_refs_add(amx__byte_buf *out, const amx__pending_ref *r);

typedef struct amx__pending_refs {
    amx__pending_ref *refs;
    size_t n;
    char *text;               /* the blob's copy the texts point into */
} amx__pending_refs;

/* Reads a blob into *out (freed with _free, also after an error): 0, or -1 when it is damaged
 * or out of memory. */
int amx__pending_refs_read(const void *blob, size_t len, amx__pending_refs *out);
void amx__pending_refs_free(amx__pending_refs *p);

/* ---- layers (layers.c) ---- */

/* Sets a root's role ("target" or "base"). */
amx_status amx__db_set_role(amx_db *db, int64_t root_id, const char *role, char *err,
                            size_t errlen);
/* The base layers recorded for a root, in order (malloc'd; the caller frees *ids). */
amx_status amx__db_get_layers(amx_db *db, int64_t root_id, int64_t **ids, size_t *n, char *err,
                              size_t errlen);
/* Records a root's base layers; when they change, everything that binds through the root is
 * marked to be bound again. */
amx_status amx__db_set_layers(amx_db *db, int64_t root_id, const int64_t *bases, size_t n,
                              char *err, size_t errlen);

/* Steps a write statement to completion, then resets it and clears its bindings. Returns
 * SQLITE_OK or the SQLite error. */
int amx__db_run(sqlite3_stmt *s);

/* Rows written `per` to one multi-row INSERT while that many are left, the rest one at a time:
 * `many` has `per` times `columns` parameters (row k's are k * columns + 1, ...), `one` the
 * parameters of a row (many NULL: every row goes through `one`). For each of the `count` rows,
 * in order: _row gives the statement and the offset `at` of the row's parameters (bind at + 1,
 * at + 2, ...), _done steps the statement once its rows are bound (SQLITE_OK or the SQLite
 * error; a row through `one` is then the last inserted). Every `many` statement is full: nothing
 * is left to step after the last row. */
typedef struct amx__row_batch {
    sqlite3_stmt *one, *many;
    size_t per, columns;
    size_t many_left;         /* rows still to go through `many` (whole statements of per) */
    size_t bound;             /* rows bound to `many` since it last ran */
} amx__row_batch;

static inline void amx__row_batch_begin(amx__row_batch *b, sqlite3_stmt *one, sqlite3_stmt *many,
                                        size_t per, size_t columns, size_t count)
{
    *b = (amx__row_batch){ .one = one, .many = many, .per = per, .columns = columns,
                           .many_left = many ? count - count % per : 0 };
}

static inline sqlite3_stmt *amx__row_batch_row(const amx__row_batch *b, int *at)
{
    *at = b->many_left ? (int)(b->bound * b->columns) : 0;
    return b->many_left ? b->many : b->one;
}

static inline int amx__row_batch_done(amx__row_batch *b)
{
    if (!b->many_left)
        return amx__db_run(b->one);
    b->many_left--;
    if (++b->bound < b->per)
        return SQLITE_OK;
    b->bound = 0;
    return amx__db_run(b->many);
}

/* dir_key: the upper-cased directory of the logical path (inside an archive, the member's own
 * directory); stem_key: the upper-cased file name without extension. Both malloc'd (NULL when
 * out of memory); the caller frees. */
void amx__db_path_keys(const char *path, size_t member_at, char **dir_key, char **stem_key);

/* Marks the clips (and models) that might bind to the skeletons of file `id` (and its members)
 * as unlinked: called before the file's skeletons are replaced, removed or renamed. Returns
 * SQLITE_OK or the SQLite error. */
int amx__db_unlink_dependents(amx_db *db, int64_t id);

/* Upper-cases ASCII into a new string (caller frees). */
char *amx__upper(const char *s);
/* strcmp of the ASCII upper-cased strings (names in the index compare so). */
int amx__ascii_casecmp(const char *a, const char *b);

#endif
